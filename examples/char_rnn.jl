# A character-level language model: an LSTM reads nursery rhymes (data/, public domain)
# one character at a time and learns to predict the next one; then it writes some text.
#
#   zyla run examples/char_rnn.jl          # full run
#   zyla run examples/char_rnn.jl --fast   # the quick variant the test suite runs
#
# The whole sequence loop (forward and backward through time) is one XLA executable:
# the LSTM's loop over time becomes a lax.scan, and its gradient a scan over the tape.
using Flux, Random, Statistics

fast = "--fast" in ARGS
steps = fast ? 30 : 600
seqlen, batchsize, hidden = 32, 16, 96

text = read(joinpath(@__DIR__, "..", "data", "nursery_rhymes.txt"), String)
chars = collect(text)
vocab = Char[]
for c in chars
    c in vocab || push!(vocab, c)
end
V = length(vocab)
index = Dict(c => i for (i, c) in enumerate(vocab))
codes = [index[c] for c in chars]
println(length(chars), " characters, ", V, " distinct")

# a batch: `batchsize` windows of seqlen+1 characters at random offsets; inputs and
# next-character targets are one-hot arrays of size V × seqlen × batchsize
function batch(codes)
    starts = rand(1:length(codes)-seqlen, batchsize)
    idx = (0:seqlen-1) .+ starts'   # seqlen × batchsize positions
    xs, ys = codes[idx], codes[idx .+ 1]
    onehot3(c) = reshape(Flux.onehotbatch(vec(c), 1:V), V, seqlen, batchsize)
    Float32.(onehot3(xs)), onehot3(ys)
end

Random.seed!(7)
model = Chain(LSTM(V => hidden), Dense(hidden => V))
loss(m, x, y) = Flux.logitcrossentropy(m(x), y)
opt_state = Flux.setup(Adam(0.01), model)

xval, yval = batch(codes)
l0 = loss(model, xval, yval)
println("initial loss ", round(l0; digits=3), " (uniform guessing: ", round(log(V); digits=3), ")")
t0 = time()
# one training step's loss and gradient, compiled once (its arguments' shapes never change)
lossgrad(model, x, y) = Flux.withgradient(m -> loss(m, x, y), model)
for step in 1:steps
    x, y = batch(codes)
    l, grads = lossgrad(model, x, y)
    Flux.update!(opt_state, model, grads[1])
    if step % (fast ? 10 : 100) == 0
        println("step ", lpad(step, 4), "  loss ", round(l; digits=3))
    end
end
l1 = loss(model, xval, yval)
println("trained ", steps, " steps in ", round(time() - t0; digits=1), " s; loss ", round(l1; digits=3))

# generate: feed each sampled character back in, one step of the LSTM cell at a time
function sample(model, start::Char, n)
    cell, dense = model[1].cell, model[2]
    state = initialstates(cell)
    c = start
    out = Char[c]
    for i in 1:n
        h, state = cell(Float32.(Flux.onehot(index[c], 1:V)), state)
        p = softmax(dense(h))
        r = rand()
        k = 1
        while k < V && r > p[k]
            r -= p[k]
            k += 1
        end
        c = vocab[k]
        push!(out, c)
    end
    join(out)
end
println("---")
println(sample(model, 'T', fast ? 60 : 300))
println("---")
@assert l1 < (fast ? 0.85 : 0.5) * l0 "the language model did not learn"
