# Complex numbers, as Julia's Base has them: `Complex{T<:Real}` with fields `re` and `im`,
# the imaginary unit `im` (a Complex{Bool}), and the arithmetic and elementary functions.
# Written in Zyla over the real primitives; printing is lang/core/show.py's (_show_complex).
# A Complex is a host struct: arrays of them are arrays of objects, worked elementwise on
# the host.

struct Complex{T<:Real} <: Number
    re::T
    im::T
end

const im = Complex(false, true)
const ComplexF64 = Complex{Float64}
const ComplexF32 = Complex{Float32}
const ComplexF16 = Complex{Float16}

# --- construction, conversion, promotion --------------------------------------------------

# the parts are promoted to their common type (Complex(1, 2.0) is a ComplexF64)
Complex(x::Real, y::Real) = (T = promote_type(typeof(x), typeof(y)); Complex{T}(x, y))
Complex(x::Float64, y::Float64) = Complex{Float64}(x, y)  # (the common case, without promoting)
Complex(x::Real) = Complex(x, zero(x))
Complex(z::Complex) = z
Complex{T}(x::Real) where {T<:Real} = Complex{T}(x, 0)
Complex{T}(z::Complex) where {T<:Real} = Complex{T}(convert(T, z.re), convert(T, z.im))

complex(z::Complex) = z
complex(x::Real) = Complex(x)
complex(x::Real, y::Real) = Complex(x, y)
complex(::Type{T}) where {T<:Real} = Complex{T}
complex(::Type{Complex{T}}) where {T<:Real} = Complex{T}
complex(x::AbstractArray) = complex.(x)

convert(::Type{Complex{T}}, z::Complex{T}) where {T<:Real} = z
convert(::Type{Complex{T}}, z::Complex) where {T<:Real} = Complex{T}(convert(T, z.re), convert(T, z.im))
convert(::Type{Complex{T}}, x::Real) where {T<:Real} = Complex{T}(x, 0)
convert(::Type{Complex}, z::Complex) = z
convert(::Type{Complex}, x::Real) = Complex(x)
convert(::Type{Number}, z::Complex) = z
function convert(::Type{T}, z::Complex) where {T<:Real}
    isreal(z) || throw(InexactError(Symbol(string(T)), T, z))
    convert(T, z.re)
end

promote_type(::Type{Complex{T}}, ::Type{Complex{S}}) where {T<:Real,S<:Real} =
    Complex{promote_type(T, S)}
promote_type(::Type{Complex{T}}, ::Type{S}) where {T<:Real,S<:Real} = Complex{promote_type(T, S)}
promote_type(::Type{S}, ::Type{Complex{T}}) where {T<:Real,S<:Real} = Complex{promote_type(T, S)}
function promote(x::Number, y::Complex)
    T = promote_type(typeof(x), typeof(y))
    (convert(T, x), convert(T, y))
end
function promote(x::Complex, y::Number)
    T = promote_type(typeof(x), typeof(y))
    (convert(T, x), convert(T, y))
end

real(z::Complex) = z.re
imag(z::Complex) = z.im
reim(z) = (real(z), imag(z))
real(::Type{Complex{T}}) where {T<:Real} = T
real(x::AbstractArray) = real.(x)
imag(x::AbstractArray) = imag.(x)
conj(x::AbstractArray) = conj.(x)

float(z::Complex{T}) where {T<:AbstractFloat} = z
float(z::Complex) = Complex(float(z.re), float(z.im))
float(::Type{Complex{T}}) where {T<:Real} = Complex{typeof(float(zero(T)))}
zero(z::Complex) = Complex(zero(z.re), zero(z.im))
one(z::Complex) = Complex(one(z.re), zero(z.im))
zero(::Type{Complex{T}}) where {T<:Real} = Complex{T}(0, 0)
one(::Type{Complex{T}}) where {T<:Real} = Complex{T}(1, 0)
oneunit(z::Complex) = one(z)

# --- predicates and comparison --------------------------------------------------------------

isreal(z::Complex) = iszero(z.im)
isinteger(z::Complex) = isreal(z) && isinteger(z.re)
isfinite(z::Complex) = isfinite(z.re) && isfinite(z.im)
isnan(z::Complex) = isnan(z.re) || isnan(z.im)
isinf(z::Complex) = isinf(z.re) || isinf(z.im)
iszero(z::Complex) = iszero(z.re) && iszero(z.im)
isone(z::Complex) = isone(z.re) && iszero(z.im)

==(z::Complex, w::Complex) = (z.re == w.re) & (z.im == w.im)
==(z::Complex, x::Real) = isreal(z) && z.re == x
==(x::Real, z::Complex) = isreal(z) && z.re == x
isequal(z::Complex, w::Complex) = isequal(z.re, w.re) & isequal(z.im, w.im)
isequal(z::Complex, x::Real) = isequal(z.re, x) & isequal(z.im, zero(x))
isequal(x::Real, z::Complex) = isequal(x, z.re) & isequal(zero(x), z.im)

# Julia's isapprox: equal, or |x - y| within atol or rtol times the larger magnitude; rtol
# defaults to √eps of the real type (0 when an atol is given)
_approx_rtol(x, y) = sqrt(eps(typeof(float(real(x)) + float(real(y)))))
function isapprox(x::Complex, y::Number; atol=0, rtol=(atol > 0 ? 0 : _approx_rtol(x, y)),
                  nans=false)
    x == y && return true
    nans && isnan(x) && isnan(y) && return true
    isfinite(x) && isfinite(y) && abs(x - y) <= max(atol, rtol * max(abs(x), abs(y)))
end
isapprox(x::Real, y::Complex; kws...) = isapprox(y, x; kws...)

# --- arithmetic ---------------------------------------------------------------------------

+(z::Complex) = Complex(+z.re, +z.im)
-(z::Complex) = Complex(-z.re, -z.im)
+(z::Complex, w::Complex) = Complex(z.re + w.re, z.im + w.im)
-(z::Complex, w::Complex) = Complex(z.re - w.re, z.im - w.im)
*(z::Complex, w::Complex) = Complex(z.re * w.re - z.im * w.im, z.re * w.im + z.im * w.re)
+(x::Real, z::Complex) = Complex(x + z.re, z.im)
+(z::Complex, x::Real) = Complex(z.re + x, z.im)
-(x::Real, z::Complex) = Complex(x - z.re, -z.im)
-(z::Complex, x::Real) = Complex(z.re - x, z.im)
*(x::Real, z::Complex) = Complex(x * z.re, x * z.im)
*(z::Complex, x::Real) = Complex(z.re * x, z.im * x)
# products and sums of three or more numbers, one of them complex: folded from the left
*(a::Complex, b::Number, c::Number, xs::Number...) = *(a * b, c, xs...)
*(a::Real, b::Complex, c::Number, xs::Number...) = *(a * b, c, xs...)
*(a::Real, b::Real, c::Complex, xs::Number...) = *(a * b, c, xs...)
+(a::Complex, b::Number, c::Number, xs::Number...) = +(a + b, c, xs...)
+(a::Real, b::Complex, c::Number, xs::Number...) = +(a + b, c, xs...)
+(a::Real, b::Real, c::Complex, xs::Number...) = +(a + b, c, xs...)
muladd(z::Complex, w::Number, x::Number) = z * w + x
muladd(z::Number, w::Complex, x::Number) = z * w + x
muladd(z::Real, w::Real, x::Complex) = z * w + x

/(z::Complex, x::Real) = Complex(z.re / x, z.im / x)
/(x::Real, z::Complex) = x * inv(z)
/(z::Complex, w::Complex) = _cdiv(float(z), float(w))

# division of float complexes in a common type, by Smith's method (the smaller of |c|, |d|
# is divided by the larger, so no square of a part over- or underflows)
# (the parts meet in arithmetic, which promotes them: no convert, which AD would stop at)
function _cdiv(z::Complex, w::Complex)
    a = z.re; b = z.im; c = w.re; d = w.im
    T = typeof(a + c)
    if isinf(c) || isinf(d)
        isfinite(z) && return Complex(zero(T) * sign(a) * sign(c), -zero(T) * sign(b) * sign(d))
        return Complex(T(NaN), T(NaN))
    end
    if abs(d) <= abs(c)
        p, q = _cdiv_smith(a, b, c, d)
        return Complex(p, q)
    end
    p, q = _cdiv_smith(b, a, d, c)
    Complex(p, -q)
end
function _cdiv_smith(a, b, c, d)
    r = d / c
    t = one(r) / (c + d * r)
    (_cdiv_part(a, b, c, d, r, t), _cdiv_part(b, -a, c, d, r, t))
end
function _cdiv_part(a, b, c, d, r, t)
    if r != 0
        br = b * r
        return br != 0 ? (a + br) * t : a * t + (b * t) * r
    end
    (a + d * (b / c)) * t
end

function inv(z::Complex)
    w = float(z)
    c = w.re; d = w.im
    (isinf(c) || isinf(d)) && return Complex(copysign(zero(c), c), flipsign(-zero(d), d))
    _cdiv(one(w), w)
end

# z^n by repeated squaring; a negative power of an integer complex is a DomainError, as
# for integers
function _complex_power(z::Complex, n::Integer)
    n == 0 && return one(z)
    acc = one(z)
    base = z
    while n > 0
        if isodd(n)
            acc = acc * base
        end
        n = div(n, 2)
        n > 0 && (base = base * base)
    end
    acc
end
^(z::Complex, n::Bool) = n ? z : one(z)
function ^(z::Complex{T}, n::Integer) where {T<:Integer}
    n < 0 && throw(DomainError(n, "Cannot raise an integer complex to a negative power. " *
                                  "Convert to float first: float(z)^n."))
    _complex_power(z, n)
end
^(z::Complex{T}, n::Integer) where {T<:AbstractFloat} =
    n >= 0 ? _complex_power(z, n) : _complex_power(inv(z), -n)
# a power of another type: both in their promoted type first (ComplexF32^2.0 is a ComplexF64)
function ^(z::Complex, p::Complex)
    P = typeof(float(z.re) + float(p.re))
    _cpow(Complex{P}(z.re, z.im), Complex{P}(p.re, p.im))
end
function ^(z::Complex, p::Real)
    P = typeof(float(z.re) + float(p))
    isinteger(p) && abs(p) < 2^31 && return Complex{P}(z.re, z.im)^Int(p)
    _cpow(Complex{P}(z.re, z.im), Complex{P}(p, 0))
end
^(x::Real, p::Complex) = (P = typeof(float(x) + float(p.re)); _cpow(Complex{P}(x, 0), Complex{P}(p.re, p.im)))
# z^p differentiated in p too where p is whole (computed by squaring, whose Int(p) has no
# derivative): ∂z = conj(p z^(p-1)) Δ, ∂p = conj(z^p log z) Δ (0 at z = 0), each taken
# real for a real argument
ChainRulesCore.rrule(::typeof(^), z::Complex, p::Union{Real, Complex}) = Core.cpow_rrule(z, p)
ChainRulesCore.rrule(::typeof(^), x::Real, p::Complex) = Core.cpow_rrule(x, p)
function Core.cpow_rrule(z, p)
    Ω = z^p
    (Ω, dΩ -> (NoTangent(), Core.cpow_cot(z, conj(p * z^(p - 1)) * Core.complex_cot(dΩ)),
               Core.cpow_cot(p, iszero(z) ? zero(Ω) : conj(Ω * log(complex(z))) * Core.complex_cot(dΩ))))
end
Core.cpow_cot(x::Real, d) = real(d)
Core.cpow_cot(x::Complex, d) = d
# a complex's cotangent, given as a number or as its fields' NamedTuple
Core.complex_cot(d::Number) = d
Core.complex_cot(d::NamedTuple) = complex(something(d.re, false), something(d.im, false))

# z^p in polar form: |z|^p cis(p arg z) for a real p, and for a complex one
# |z|^re(p) e^(-im(p) arg z) cis(re(p) arg z + im(p) log|z|); whole powers by squaring
function _cpow(z::Complex, p::Complex)
    if isreal(p) && isinteger(p.re) && abs(p.re) < 2^31
        return z^Int(p.re)
    end
    nan = Complex(oftype(z.re, NaN), oftype(z.re, NaN))
    iszero(z) && return real(p) > 0 ? zero(z * p) : nan
    if isreal(p) && isreal(z) && isfinite(p.re)
        # a real base: positive, a real power (the zero imaginary part keeps its sign);
        # negative, |x|^p times cispi(p), exact at half-integral powers
        z.re > 0 && return Complex(z.re^p.re, flipsign(z.im, p.re))
        return (-z.re)^p.re * Complex(cospi(p.re), flipsign(sinpi(p.re), z.im))
    end
    r = abs(z); θ = angle(z)
    if isreal(p)
        m = r^p.re
        ϕ = p.re * θ
    else
        m = r^p.re * exp(-p.im * θ)
        ϕ = p.re * θ + p.im * log(r)
    end
    isfinite(ϕ) && return m * cis(ϕ)
    iszero(m) ? zero(z) : nan
end

# --- elementary functions -------------------------------------------------------------------

conj(z::Complex) = Complex(z.re, -z.im)
abs(z::Complex) = hypot(z.re, z.im)
# |z|'s derivative is z/|z|, taken as 0 at z = 0 (ChainRules' convention, as for a real's
# sign), not the NaN of differentiating hypot's square root there
Core.abs_dir(z, Ω) = z / ifelse(iszero(z), one(Ω), Ω)
ChainRulesCore.rrule(::typeof(abs), z::Complex) =
    (abs(z), dΩ -> (NoTangent(), real(dΩ) * Core.abs_dir(z, abs(z))))
ChainRulesCore.frule(Δ, ::typeof(abs), z::Complex) =
    (abs(z), Δ[2] === nothing ? nothing : Core.abs_fwd(Core.abs_dir(z, abs(z)), Δ[2]))
# (a complex's tangent may come as a Complex or as its fields' NamedTuple)
Core.abs_fwd(u, dz::Number) = real(conj(u) * dz)
Core.abs_fwd(u, dz::NamedTuple) = Core.abs_fwd(u, Complex(something(dz.re, zero(real(u))),
                                                          something(dz.im, zero(real(u)))))
abs2(z::Complex) = z.re * z.re + z.im * z.im
angle(x::Real) = atan(zero(float(x)), float(x))
angle(z::Complex) = atan(z.im, z.re)
sign(z::Complex) = iszero(z) ? z / one(abs(z)) : z / abs(z)

cis(x::Real) = Complex(cos(x), sin(x))
function cis(z::Complex)
    v = exp(-z.im)
    Complex(v * cos(z.re), v * sin(z.re))
end

function exp(z::Complex)
    x = float(z.re); y = float(z.im)
    isnan(x) && return Complex(x, y == 0 ? y : x)
    if !isfinite(y)
        x == Inf && return Complex(-x, oftype(x, NaN))
        x == -Inf && return Complex(-zero(x), copysign(zero(y), y))
        return Complex(oftype(x, NaN), oftype(y, NaN))
    end
    r = exp(x)
    # (a real argument keeps an exact zero imaginary part where r * sin(0) would be NaN;
    # elsewhere the general formula, whose derivative in y is right at y = 0 too)
    iszero(y) && !isfinite(r) && return Complex(r, y)
    Complex(r * cos(y), r * sin(y))
end

# log|z| through log1p near |z| = 1, where log(hypot) would lose the small difference
function log(z::Complex)
    w = float(z)
    x = w.re; y = w.im
    ax = abs(x); ay = abs(y)
    big = max(ax, ay); small = min(ax, ay)
    if isfinite(big) && 0.5 < big && big <= 1.25
        lr = log1p((big - 1) * (big + 1) + small * small) / 2
    elseif 0 < big < floatmin(typeof(big)) / eps(typeof(big))
        # (tiny parts: |z| would round to a subnormal's few bits; scaled by a power of two)
        s = inv(eps(typeof(big)))
        lr = log(hypot(x * s, y * s)) - log(s)
    else
        lr = log(hypot(x, y))
    end
    Complex(lr, atan(y, x))
end
log10(z::Complex) = log(z) / log(oftype(float(real(z)), 10))
log2(z::Complex) = log(z) / log(oftype(float(real(z)), 2))
# (b and z promoted to one type first, as Julia's: log(π, ComplexF32(2)) is a ComplexF32)
log(b::Number, z::Complex) = _log_base(promote(b, z)...)
log(b::Complex, z::Number) = _log_base(promote(b, z)...)
_log_base(b, z) = log(z) / log(b)

# the principal square root, on the right half plane; its imaginary part has the sign of
# imag(z) (so the branch cut's two sides, ±0.0 imaginary, give ±i√|x|)
function sqrt(z::Complex)
    w = float(z)
    x = w.re; y = w.im
    x == 0 && y == 0 && return Complex(zero(x), y)
    isinf(y) && return Complex(oftype(x, Inf), y)
    isnan(x) && return Complex(x, x)
    if isinf(x)
        x > 0 && return Complex(x, isnan(y) ? y : copysign(zero(x), y))
        return Complex(isnan(y) ? abs(y) : zero(x), copysign(-x, y))
    end
    ρ = sqrt((hypot(x, y) + abs(x)) / 2)
    if x >= 0
        return Complex(ρ, y / ρ / 2)
    end
    Complex(abs(y) / ρ / 2, copysign(ρ, y))
end

function sin(z::Complex)
    w = float(z)
    x = w.re; y = w.im
    x == 0 && !isfinite(y) && return Complex(x, sinh(y))  # not 0 * Inf
    Complex(sin(x) * cosh(y), cos(x) * sinh(y))
end
function cos(z::Complex)
    w = float(z)
    x = w.re; y = w.im
    x == 0 && !isfinite(y) && return Complex(cosh(y), isnan(y) ? x : -flipsign(x, y))
    Complex(cos(x) * cosh(y), -sin(x) * sinh(y))
end
sincos(z::Complex) = (sin(z), cos(z))
tan(z::Complex) = sin(z) / cos(z)
sinh(z::Complex) = (w = sin(Complex(z.im, z.re)); Complex(w.im, w.re))
cosh(z::Complex) = cos(Complex(z.im, -z.re))
tanh(z::Complex) = sinh(z) / cosh(z)
expm1(z::Complex) = exp(z) - 1
log1p(z::Complex) = log(1 + z)

hypot(a::Complex, b::Number) = hypot(abs(a), abs(b))
hypot(a::Real, b::Complex) = hypot(abs(a), abs(b))

round(z::Complex; kws...) = Complex(round(z.re; kws...), round(z.im; kws...))
flipsign(z::Complex, y::Real) = signbit(y) ? -z : z
widen(z::Complex) = Complex(widen(z.re), widen(z.im))
evalpoly(z::Complex, p) = (acc = zero(z) + p[end]; for k in length(p)-1:-1:1; acc = acc * z + p[k]; end; acc)

# --- arrays of complex numbers --------------------------------------------------------------

# arrays of Complex are host arrays of objects: their sum and
# product are folded with Zyla's + and * (numpy's reduction of objects would not find the
# methods above)
function sum(x::AbstractArray{<:Complex}; dims=nothing)
    (dims !== nothing || isempty(x)) && return dims === nothing ? Core.sum(x) : Core.sum(x, dims)
    acc = x[1]
    for k in 2:length(x)
        acc = acc + x[k]
    end
    acc
end
function prod(x::AbstractArray{<:Complex}; dims=nothing)
    (dims !== nothing || isempty(x)) && return dims === nothing ? Core.prod(x) : Core.prod(x, dims)
    acc = x[1]
    for k in 2:length(x)
        acc = acc * x[k]
    end
    acc
end

# zeros and ones of a complex type are arrays of Complex values (not of the reals 0 and 1)
zeros(::Type{Complex{T}}, dims...) where {T<:Real} = fill(zero(Complex{T}), dims...)
ones(::Type{Complex{T}}, dims...) where {T<:Real} = fill(one(Complex{T}), dims...)

# a complex scalar times (or dividing) an array works elementwise, as any Number does
*(z::Complex, x::AbstractArray) = z .* x
*(x::AbstractArray, z::Complex) = x .* z
/(x::AbstractArray, z::Complex) = x ./ z
*(a::Real, x::AbstractArray{<:Complex}) = a .* x
\(z::Complex, x::AbstractArray) = x ./ z
\(a::Real, x::AbstractArray{<:Complex}) = x ./ a
\(z::Complex, w::Number) = w / z
\(x::Real, z::Complex) = z / x
# sums and differences of arrays of which one has complex elements, elementwise (the sizes
# as `+` of real arrays checks them)
function _complex_array_addsub(op, x, y)
    a, b = size(x), size(y)
    s, l = length(a) <= length(b) ? (a, b) : (b, a)
    s == l[1:length(s)] && all(==(1), l[length(s)+1:end]) || throw(DimensionMismatch(
        "a has size $a, b has size $b, mismatch in `$op`"))
    broadcast(op, x, y)
end
+(x::AbstractArray{<:Complex}, y::AbstractArray) = _complex_array_addsub(+, x, y)
+(x::AbstractArray{<:Real}, y::AbstractArray{<:Complex}) = _complex_array_addsub(+, x, y)
-(x::AbstractArray{<:Complex}, y::AbstractArray) = _complex_array_addsub(-, x, y)
-(x::AbstractArray{<:Real}, y::AbstractArray{<:Complex}) = _complex_array_addsub(-, x, y)
*(x::AbstractArray{<:Complex}, a::Real) = x .* a
/(x::AbstractArray{<:Complex}, a::Real) = x ./ a

# arrays with complex elements compare by the norm of their difference, as Julia's do
function _complex_array_approx(x, y, atol, rtol, nans)
    size(x) == size(y) || return false
    d = sqrt(sum(abs2.(x .- y)))
    isfinite(d) || return all(isapprox.(x, y; atol=atol, rtol=rtol, nans=nans))
    d <= max(atol, rtol * max(sqrt(sum(abs2.(x))), sqrt(sum(abs2.(y)))))
end
_array_rtol(x, y, atol) = atol > 0 ? 0 : sqrt(eps(typeof(float(real(first(x))) + float(real(first(y))))))
isapprox(x::AbstractArray{<:Complex}, y::AbstractArray{<:Complex}; atol=0,
         rtol=_array_rtol(x, y, atol), nans=false) = _complex_array_approx(x, y, atol, rtol, nans)
isapprox(x::AbstractArray{<:Complex}, y::AbstractArray; atol=0, rtol=_array_rtol(x, y, atol),
         nans=false) = _complex_array_approx(x, y, atol, rtol, nans)
isapprox(x::AbstractArray, y::AbstractArray{<:Complex}; atol=0, rtol=_array_rtol(x, y, atol),
         nans=false) = _complex_array_approx(x, y, atol, rtol, nans)

# the adjoint conjugates (z' is conj(z); A' the conjugate transpose), transpose does not;
# dot conjugates its first argument
adjoint(z::Complex) = conj(z)
transpose(z::Complex) = z
adjoint(x::AbstractArray{<:Complex}) = transpose(conj.(x))
dot(x::Complex, y::Number) = conj(x) * y
dot(x::AbstractArray{<:Complex}, y::AbstractArray) = sum(conj.(x) .* y)

# products of matrices with complex elements: four real products of the parts (a matrix's
# parts taken through its transpose, so that the parts of a row v' are rows, and v' * w a
# number)
_re_part(A) = ndims(A) == 2 ? transpose(real.(transpose(A))) : real.(A)
_im_part(A) = ndims(A) == 2 ? transpose(imag.(transpose(A))) : imag.(A)
function _complex_matmul(A, B)
    ar, ai, br, bi = _re_part(A), _im_part(A), _re_part(B), _im_part(B)
    re = ar * br - ai * bi
    ip = ar * bi + ai * br
    re isa Number ? Complex(re, ip) : Complex.(re, ip)
end
*(A::AbstractMatrix{<:Complex}, B::AbstractVecOrMat{<:Complex}) = _complex_matmul(A, B)
*(A::AbstractMatrix{<:Complex}, B::AbstractVecOrMat{<:Real}) = _complex_matmul(A, B)
*(A::AbstractMatrix{<:Real}, B::AbstractVecOrMat{<:Complex}) = _complex_matmul(A, B)
*(x::AbstractVector{<:Complex}, B::AbstractMatrix) = _complex_matmul(x, B)
*(x::AbstractVector{<:Real}, B::AbstractMatrix{<:Complex}) = _complex_matmul(x, B)

# the inverse of a matrix with complex elements A + Bi: the real form [A -B; B A] is
# invertible exactly when it is, and its inverse is [X -Y; Y X] for the inverse X + Yi
function inv(M::AbstractMatrix{<:Complex})
    n = size(M, 1)
    n == size(M, 2) || throw(DimensionMismatch("matrix is not square: dimensions are $(size(M))"))
    A, B = _re_part(M), _im_part(M)
    W = inv([A -B; B A])
    Complex.(W[1:n, 1:n], W[n+1:2n, 1:n])
end

# random complex numbers: rand draws each part uniformly from [0, 1), randn a standard
# complex normal (each part of variance 1/2), the real part drawn first
rand(::Type{Complex{T}}) where {T<:AbstractFloat} = (r = rand(T); Complex(r, rand(T)))
randn(::Type{Complex{T}}) where {T<:AbstractFloat} =
    (r = randn(T); Complex(r * sqrt(T(0.5)), randn(T) * sqrt(T(0.5))))
rand(::Type{Complex{T}}, dims::Integer...) where {T<:AbstractFloat} =
    reshape([rand(Complex{T}) for _ in 1:prod(dims)], dims...)
randn(::Type{Complex{T}}, dims::Integer...) where {T<:AbstractFloat} =
    reshape([randn(Complex{T}) for _ in 1:prod(dims)], dims...)

# sinpi and cospi through the real ones, exact at whole and half multiples of π
function sinpi(z::Complex)
    x = float(z.re); y = float(z.im)
    Complex(sinpi(x) * cosh(pi * y), cospi(x) * sinh(pi * y))
end
function cospi(z::Complex)
    x = float(z.re); y = float(z.im)
    Complex(cospi(x) * cosh(pi * y), -sinpi(x) * sinh(pi * y))
end
sincospi(z::Complex) = (sinpi(z), cospi(z))

# the inverse functions on their principal branches, by Kahan's formulas (W. Kahan, "Branch
# cuts for complex elementary functions", 1987): products of square roots whose parts keep
# exact zeros and the signs of zero on the cuts
function asin(z::Complex)
    w = float(z)
    a = sqrt(1 - w); b = sqrt(1 + w)
    Complex(atan(w.re, real(a * b)), asinh(imag(conj(a) * b)))
end
function acos(z::Complex)
    w = float(z)
    a = sqrt(1 - w); b = sqrt(1 + w)
    Complex(2 * atan(real(a), real(b)), asinh(imag(conj(b) * a)))
end
function acosh(z::Complex)
    w = float(z)
    a = sqrt(w - 1); b = sqrt(w + 1)
    Complex(asinh(real(conj(a) * b)), 2 * atan(imag(a), real(b)))
end
asinh(z::Complex) = (w = asin(Complex(-z.im, z.re)); Complex(w.im, -w.re))
function atanh(z::Complex)
    w = float(z)
    x = w.re; y = w.im
    Complex(log1p(4 * x / ((1 - x)^2 + y^2)) / 4, atan(2 * y, (1 - x) * (1 + x) - y^2) / 2)
end
atan(z::Complex) = (w = atanh(Complex(-z.im, z.re)); Complex(w.im, -w.re))

# unique compares complex numbers by value (isequal), not by identity
function unique(x::AbstractArray{<:Complex})
    keep = Int[]
    for k in 1:length(x)
        any(j -> isequal(x[j], x[k]), keep) || push!(keep, k)
    end
    x[keep]
end
