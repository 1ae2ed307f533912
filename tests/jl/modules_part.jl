# included into module Geometry by modules.jl
perimeter(s::Square) = 4 * s.side
