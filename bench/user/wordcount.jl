# counting words with a Dict{String,Int}: `zyla run wordcount.jl LINES WORDS` makes LINES
# lines of WORDS words from a 500-word vocabulary (word k is "w" * string(k), drawn by a
# fixed recurrence that the CPython peer repeats), then counts them; the count is timed
nlines = length(ARGS) > 0 ? parse(Int, ARGS[1]) : 100
nwords = length(ARGS) > 1 ? parse(Int, ARGS[2]) : 1000

function lines_of_words(nlines, nwords, vocab)
    out = String[]
    k = 1
    for l in 1:nlines
        ws = String[]
        for j in 1:nwords
            k = (k * 7919 + 13) % vocab
            push!(ws, "w" * string(k))
        end
        push!(out, join(ws, " "))
    end
    out
end

function count_words(lines)
    counts = Dict{String,Int}()
    for line in lines
        for w in split(line)
            counts[w] = get(counts, w, 0) + 1
        end
    end
    counts
end

text = lines_of_words(nlines, nwords, 500)
t = @elapsed c = count_words(text)
first_word = split(text[1])[1]
println("result ", length(c), " ", c[first_word])
println("seconds ", t)
