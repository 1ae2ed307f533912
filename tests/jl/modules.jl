# Modules, export, using, import, include.
using Test

module Geometry
export area, Square
abstract type Shape end
struct Square <: Shape
    side::Float64
end
struct Circle <: Shape
    r::Float64
end
area(s::Square) = s.side^2
area(c::Circle) = pi * c.r^2
const UNIT = 1.0
unit_square() = Square(UNIT)
describe(s::Shape) = "area $(area(s))"
include("modules_part.jl")
end

using .Geometry
using .Geometry: describe
import .Geometry

@testset "modules" begin
    @test area(Square(2.0)) == 4.0
    @test Geometry.area(Geometry.Circle(1.0)) ≈ pi
    @test Geometry.unit_square().side == 1.0
    @test Geometry.UNIT == 1.0
    @test describe(Square(3.0)) == "area 9.0"
    @test Geometry.Circle(2.0) isa Geometry.Shape
    @test Geometry.perimeter(Square(2.0)) == 8.0
    @test_throws UndefVarError perimeter(Square(2.0))
end
