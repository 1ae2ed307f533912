# throw / error / try / catch / finally, exception values, showerror, rethrow.
using Test

struct MyError <: Exception
    code::Int
end
Base.showerror(io::IO, e::MyError) = print(io, "MyError with code ", e.code)

function risky(x)
    x < 0 && throw(DomainError(x, "negative input"))
    x == 0 && error("zero input")
    x > 100 && throw(MyError(x))
    sqrt(x)
end

function guarded(x)
    log = String[]
    result = try
        push!(log, "try")
        risky(x)
    catch e
        push!(log, "catch")
        e isa DomainError ? -1.0 : rethrow()
    finally
        push!(log, "finally")
    end
    (result, join(log, ","))
end

@testset "exceptions" begin
    @test guarded(4.0) == (2.0, "try,finally")
    @test guarded(-1.0) == (-1.0, "try,catch,finally")
    @test_throws ErrorException guarded(0.0)
    @test_throws MyError guarded(1000)
    msg = try
        error("boom")
    catch e
        @test e isa ErrorException
        @test e isa Exception
        e.msg
    end
    @test msg == "boom"
    e1 = try throw(ArgumentError("bad arg")) catch e e end
    @test e1 isa ArgumentError && e1.msg == "bad arg"
    @test sprint(showerror, e1) == "ArgumentError: bad arg"
    @test sprint(showerror, ErrorException("plain")) == "plain"
    @test sprint(showerror, DomainError(-1.0, "negative input")) == "DomainError with -1.0:\nnegative input"
    @test sprint(showerror, MyError(7)) == "MyError with code 7"
    e2 = try [1, 2, 3][5] catch e e end
    @test e2 isa BoundsError
    e3 = try undefined_thing + 1 catch e e end
    @test e3 isa UndefVarError
    e4 = try sqrt(-1.0) catch e e end
    @test e4 isa DomainError
    e5 = try throw(42) catch e e end
    @test e5 == 42
    @test_throws DimensionMismatch [1, 2] + [1, 2, 3]
    @test_throws MethodError risky("x")
    count = 0
    for i in 1:3
        try
            i == 2 && error("skip")
            count += i
        catch
            count += 100
        end
    end
    @test count == 104
end
