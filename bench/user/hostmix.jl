# Host-only work as users write it: a vector of structs built with push! and walked,
# strings built, joined and scanned character by character, a Float64 vector grown with
# push! and summed by index. `zyla run hostmix.jl N`; each part is timed (first call
# included) and compared with the same program in CPython by bench/user_bench.py.
n = length(ARGS) > 0 ? parse(Int, ARGS[1]) : 20000

struct Point
    x::Float64
    y::Float64
end

dist(a::Point, b::Point) = sqrt((a.x - b.x)^2 + (a.y - b.y)^2)

function path_length(n)
    pts = Point[]
    for i in 1:n
        push!(pts, Point(i * 0.5, (i % 7) * 0.25))
    end
    s = 0.0
    for i in 2:length(pts)
        s += dist(pts[i], pts[i-1])
    end
    s
end

function commas(n)
    parts = String[]
    for i in 1:n
        push!(parts, "item$(i)")
    end
    s = join(parts, ",")
    c = 0
    for ch in s
        if ch == ','
            c += 1
        end
    end
    c
end

function grown(n)
    v = Float64[]
    for i in 1:n
        push!(v, i * 0.5)
    end
    s = 0.0
    for i in 1:length(v)
        s += v[i] * v[i]
    end
    s
end

t = @elapsed r = path_length(n)
println("points ", r)
println("seconds_points ", t)
t = @elapsed r = commas(n)
println("commas ", r)
println("seconds_commas ", t)
t = @elapsed r = grown(n)
println("grown ", r)
println("seconds_grown ", t)
