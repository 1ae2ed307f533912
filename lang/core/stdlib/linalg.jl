# LinearAlgebra, loaded by `using LinearAlgebra` (dot, norm, tr and diag are in Base).
# Its operator methods (`A + I`, `A^3`) make `+`, `-`, `*` and `^` generic functions, so
# they are only defined when a program asks for the module, as in Julia.

⋅(a, b) = dot(a, b)
cross(a, b) = [a[2] * b[3] - a[3] * b[2], a[3] * b[1] - a[1] * b[3], a[1] * b[2] - a[2] * b[1]]
×(a, b) = cross(a, b)
normalize(x) = x ./ norm(x)

struct UniformScaling
    λ
end
const I = UniformScaling(true)
+(A::AbstractMatrix, J::UniformScaling) = A + Core.eye_like(A, J.λ)
+(J::UniformScaling, A::AbstractMatrix) = Core.eye_like(A, J.λ) + A
-(A::AbstractMatrix, J::UniformScaling) = A - Core.eye_like(A, J.λ)
-(J::UniformScaling, A::AbstractMatrix) = Core.eye_like(A, J.λ) - A
*(J::UniformScaling, x) = J.λ * x
*(x, J::UniformScaling) = x * J.λ
*(a::Number, J::UniformScaling) = UniformScaling(a * J.λ)
*(J::UniformScaling, a::Number) = UniformScaling(J.λ * a)
function Core.matpow(A, p)
    p < 0 && return Core.matpow(inv(A), -p)
    R = Core.eye_like(A, one(eltype(A)))
    for k in 1:p
        R = R * A
    end
    R
end
^(A::AbstractMatrix, p::Integer) = Core.matpow(A, p)

# --- identity matrices from I ------------------------------------------------------------
Matrix{T}(J::UniformScaling, m::Integer, n::Integer) where {T} =
    [i == j ? convert(T, J.λ) : zero(T) for i in 1:m, j in 1:n]
Matrix(J::UniformScaling, m::Integer, n::Integer) =
    [i == j ? J.λ : zero(J.λ) for i in 1:m, j in 1:n]
Matrix{T}(J::UniformScaling, mn::Tuple) where {T} = Matrix{T}(J, mn[1], mn[2])
Matrix(J::UniformScaling, mn::Tuple) = Matrix(J, mn[1], mn[2])
(J::UniformScaling)(n::Integer) = Diagonal(fill(J.λ, n))

# muladd of a matrix product broadcasts the addend over the product, which it may not
# outgrow (`muladd(A, B, 1.0)` adds 1.0 to every entry)
function muladd(A::AbstractMatrix, y::AbstractVecOrMat, z::Union{Number, AbstractArray})
    Ay = A * y
    Core.check_muladd_addend(Ay, z)
    return Ay .+ z
end
Core.check_muladd_addend(Ay, z::Number) = nothing
function Core.check_muladd_addend(Ay, z)
    for d in 1:ndims(Ay)
        size(z, d) > size(Ay, d) &&
            throw(DimensionMismatch("array could not be broadcast to match destination"))
    end
    for d in ndims(Ay)+1:ndims(z)
        size(z, d) > 1 && throw(DimensionMismatch(
            "dimensions must match: z has dims $(axes(z)), must have singleton at dim $d"))
    end
    return nothing
end

# the lazy wrappers' constructors: Zyla's adjoints and transposes are the arrays themselves
Transpose(A::AbstractVecOrMat) = transpose(A)
Adjoint(A::AbstractVecOrMat) = adjoint(A)

# A * B * γ for a number γ (what 3-argument `*` calls in Julia)
mat_mat_scalar(A, B, γ) = (A * B) * γ
mat_vec_scalar(A, b, γ) = (A * b) * γ

# --- triangles ---------------------------------------------------------------------------
triu(A::AbstractMatrix, k::Integer=0) = Core.keep_where(A, Core.tri_mask(A, k, true))
tril(A::AbstractMatrix, k::Integer=0) = Core.keep_where(A, Core.tri_mask(A, k, false))
# A where the mask is set, zero elsewhere (for reals not A .* mask: Inf * 0 is NaN, -2.0 * 0
# is -0.0; other elements keep the product, whose pullback takes their cotangents)
Core.keep_where(A::AbstractArray{<:Real}, mask) = ifelse.(mask .!= 0, A, zero(eltype(A)))
Core.keep_where(A, mask) = A .* mask
# the triangular wrappers' constructors: Zyla's are the dense triangles themselves, as its
# adjoints are the arrays themselves (the same values and solves; no type of their own)
LowerTriangular(A::AbstractMatrix) = tril(A)
UpperTriangular(A::AbstractMatrix) = triu(A)
UnitLowerTriangular(A::AbstractMatrix) = tril(A, -1) + I
UnitUpperTriangular(A::AbstractMatrix) = triu(A, 1) + I
issymmetric(A::AbstractMatrix) = size(A, 1) == size(A, 2) &&
    (eltype(A) <: Number ? Core.is_symmetric(A) : Core.is_own(transpose, A))
issymmetric(x::Number) = true
# A == A' (the conjugate transpose: a complex matrix is Hermitian, not symmetric)
ishermitian(A::AbstractMatrix) = size(A, 1) == size(A, 2) &&
    (eltype(A) <: Real ? Core.is_symmetric(A) : eltype(A) <: Number ? A == A' :
     Core.is_own(adjoint, A))
ishermitian(x::Number) = x == conj(x)
# whether A[i, j] == t(A[j, i]) for all i, j (the blocks of a block matrix, Base's loop)
function Core.is_own(t, A)
    n = size(A, 1)
    for j in 1:n, i in j:n
        A[i, j] == t(A[j, i]) || return false
    end
    true
end
# (of v's real type: the identity of a complex vector's size is a real one)
Core.eye_of(v) = Core.eye_of_real(real(v))
Core.eye_of_real(r) = Core.eye_like(Core.tri_mask(r * transpose(r), 0, true), one(eltype(r)))

# --- Diagonal ------------------------------------------------------------------------------
struct Diagonal{T, V} <: AbstractMatrix
    diag::V
end
Diagonal(v::AbstractVector) = Core.mk_diagonal(v)
Core.mk_diagonal(v) = Diagonal{eltype(v), typeof(v)}(v)
# a dense or Diagonal cotangent projected onto the diagonal (as ChainRules' ProjectTo)
ChainRulesCore.rrule(::typeof(Core.mk_diagonal), v) =
    (Core.mk_diagonal(v), dy -> (NoTangent(), Core.diagonal_cot(dy)))
Core.diagonal_cot(dy::Nothing) = nothing
Core.diagonal_cot(dy::AbstractMatrix) = diag(dy)
Core.diagonal_cot(dy::NamedTuple) = dy.diag
Diagonal(A::AbstractMatrix) = Diagonal(diag(A))
Base.size(D::Diagonal) = (length(D.diag), length(D.diag))
Base.size(D::Diagonal, d::Integer) = d <= 2 ? length(D.diag) : 1
Base.length(D::Diagonal) = length(D.diag)^2
Base.eltype(D::Diagonal) = eltype(D.diag)
Base.getindex(D::Diagonal, i::Integer, j::Integer) = i == j ? D.diag[i] : zero(eltype(D.diag))
diag(D::Diagonal) = D.diag
# (+ 0.0: the zeros of -1.5 .* 0.0 are -0.0, Julia's are zero(T))
Matrix(D::Diagonal) = Core.plus_zero(D.diag .* Core.eye_of(D.diag))
Core.plus_zero(M) = eltype(M) <: Union{AbstractFloat, Complex} ? M .+ zero(eltype(M)) : M
*(D::Diagonal, x::AbstractVector) = D.diag .* x
*(D::Diagonal, A::AbstractMatrix) = D.diag .* A
*(A::AbstractMatrix, D::Diagonal) = A .* transpose(D.diag)
*(D::Diagonal, E::Diagonal) = Diagonal(D.diag .* E.diag)
*(a::Number, D::Diagonal) = Diagonal(a .* D.diag)
*(D::Diagonal, a::Number) = Diagonal(D.diag .* a)
\(D::Diagonal, x::AbstractVecOrMat) = Core.diag_solve(D.diag, x)
\(D::Diagonal, E::Diagonal) = Diagonal(Core.diag_solve(D.diag, E.diag))
function Core.diag_solve(d, x)
    for i in 1:length(d)
        d[i] == 0 && throw(SingularException(i))
    end
    x ./ d
end
/(x::AbstractMatrix, D::Diagonal) = transpose(Core.diag_solve(D.diag, transpose(x)))
+(D::Diagonal, E::Diagonal) = Diagonal(D.diag + E.diag)
-(D::Diagonal, E::Diagonal) = Diagonal(D.diag - E.diag)
-(D::Diagonal) = Diagonal(-D.diag)
+(D::Diagonal, A::AbstractMatrix) = Matrix(D) + A
+(A::AbstractMatrix, D::Diagonal) = A + Matrix(D)
-(D::Diagonal, A::AbstractMatrix) = Matrix(D) - A
-(A::AbstractMatrix, D::Diagonal) = A - Matrix(D)
+(D::Diagonal, J::UniformScaling) = Diagonal(D.diag .+ J.λ)
+(J::UniformScaling, D::Diagonal) = Diagonal(J.λ .+ D.diag)
==(D::Diagonal, E::Diagonal) = D.diag == E.diag
==(D::Diagonal, A::AbstractMatrix) = Matrix(D) == A
==(A::AbstractMatrix, D::Diagonal) = A == Matrix(D)
Base.isapprox(D::Diagonal, E::Diagonal; kws...) = isapprox(D.diag, E.diag; kws...)
# (Julia's array isapprox is norm-wise: the dense matrix's off-diagonal zeros add nothing)
Base.isapprox(D::Diagonal, A::AbstractMatrix; kws...) = isapprox(Matrix(D), A; kws...)
Base.isapprox(A::AbstractMatrix, D::Diagonal; kws...) = isapprox(A, Matrix(D); kws...)
inv(D::Diagonal) = Diagonal(Core.diag_solve(D.diag, one.(D.diag)))
det(D::Diagonal) = prod(D.diag)
logdet(D::Diagonal) = sum(log.(D.diag))
tr(D::Diagonal) = sum(D.diag)
adjoint(D::Diagonal) = D
transpose(D::Diagonal) = D
Base.sum(D::Diagonal) = sum(D.diag)
Base.show(io::IO, D::Diagonal) = show(io, Matrix(D))
Core.display_text(D::Diagonal) = Core.display_masked(Matrix(D), Core.eye_of(D.diag) .!= 0,
    string(length(D.diag), "×", length(D.diag), " ", typeof(D)))

# --- Symmetric and Hermitian (real) ------------------------------------------------------------
struct Symmetric{T, S} <: AbstractMatrix
    data::S
    uplo::Char
end
struct Hermitian{T, S} <: AbstractMatrix
    data::S
    uplo::Char
end
Core.uplo_char(uplo::Symbol) = uplo === :U ? 'U' : uplo === :L ? 'L' :
    throw(ArgumentError("uplo argument must be either :U (upper) or :L (lower)"))
Core.check_square(A) = size(A, 1) == size(A, 2) ||
    throw(DimensionMismatch("matrix is not square: dimensions are $(size(A))"))
function Symmetric(A::AbstractMatrix, uplo::Symbol=:U)
    Core.check_square(A)
    Core.mk_symmetric(A, Core.uplo_char(uplo), false)
end
function Hermitian(A::AbstractMatrix, uplo::Symbol=:U)
    Core.check_square(A)
    Core.mk_symmetric(A, Core.uplo_char(uplo), true)
end
Core.mk_symmetric(A, c, herm) =
    herm ? Hermitian{eltype(A), typeof(A)}(A, c) : Symmetric{eltype(A), typeof(A)}(A, c)
# a dense (or Diagonal) cotangent goes to the stored triangle: A[i, j] (i < j for 'U') is
# also read, transposed (conjugated for a Hermitian), at [j, i]; a Hermitian's diagonal is
# real (as Zygote's pullbacks of Symmetric and Hermitian)
ChainRulesCore.rrule(::typeof(Core.mk_symmetric), A, c, herm) =
    (Core.mk_symmetric(A, c, herm), dy -> (NoTangent(), Core.sym_cot(dy, c, herm), NoTangent(),
                                           NoTangent()))
# f.(S) of one structured matrix: a Diagonal stays one where f(0) == 0 (Julia's structured
# broadcast); a Symmetric or Hermitian gives a Matrix
Base.broadcast(f, D::Diagonal) =
    iszero(f(zero(eltype(D.diag)))) ? Diagonal(broadcast(f, D.diag)) : broadcast(f, Matrix(D))
Base.broadcast(f, S::Symmetric) = broadcast(f, Matrix(S))
# f.(D, A) beside a dense array: on D's dense form, as Julia's gives a Matrix
Base.broadcast(f, D::Diagonal, A::AbstractArray) = broadcast(f, Matrix(D), A)
Base.broadcast(f, A::AbstractArray, D::Diagonal) = broadcast(f, A, Matrix(D))
Base.broadcast(f, D::Diagonal, x::Number) =
    iszero(f(zero(eltype(D.diag)), x)) ? Diagonal(broadcast(f, D.diag, x)) : broadcast(f, Matrix(D), x)
Base.broadcast(f, x::Number, D::Diagonal) =
    iszero(f(x, zero(eltype(D.diag)))) ? Diagonal(broadcast(f, x, D.diag)) : broadcast(f, x, Matrix(D))
Base.broadcast(f, D::Diagonal, E::Diagonal) =
    iszero(f(zero(eltype(D.diag)), zero(eltype(E.diag)))) ? Diagonal(broadcast(f, D.diag, E.diag)) :
    broadcast(f, Matrix(D), Matrix(E))
Base.broadcast(f, S::Hermitian) = broadcast(f, Matrix(S))
Core.sym_cot(dy::Nothing, c, herm) = nothing
Core.sym_cot(dy::NamedTuple, c, herm) = dy.data
Core.sym_cot(dy::Diagonal, c, herm) = herm ? Diagonal(real.(dy.diag)) : dy
function Core.sym_cot(dy::AbstractMatrix, c, herm)
    flip(X) = herm ? adjoint(X) : transpose(X)
    T = c == 'U' ? triu(dy, 1) + flip(tril(dy, -1)) : tril(dy, -1) + flip(triu(dy, 1))
    T + Matrix(Diagonal(herm ? real.(diag(dy)) : diag(dy)))
end
Core.mirrored(A, uplo) = uplo == 'U' ? triu(A) + transpose(triu(A, 1)) :
    tril(A) + transpose(tril(A, -1))
Matrix(S::Symmetric) = Core.mirrored(S.data, S.uplo)
Matrix(S::Hermitian) = eltype(S.data) <: Real ? Core.mirrored(S.data, S.uplo) :
    Core.hmirrored(S.data, S.uplo)
# a complex Hermitian's other triangle is the adjoint of its own, its diagonal real
function Core.hmirrored(A, uplo)
    T = uplo == 'U' ? triu(A, 1) : tril(A, -1)
    T + adjoint(T) + Matrix(Diagonal(real.(diag(A))))
end
Base.size(S::Symmetric) = size(S.data)
Base.size(S::Hermitian) = size(S.data)
Base.size(S::Symmetric, d::Integer) = size(S.data, d)
Base.size(S::Hermitian, d::Integer) = size(S.data, d)
Base.eltype(S::Symmetric) = eltype(S.data)
Base.eltype(S::Hermitian) = eltype(S.data)
Core.sym_index(A, uplo, i, j) = (uplo == 'U') == (i <= j) ? A[i, j] : A[j, i]
Base.getindex(S::Symmetric, i::Integer, j::Integer) = Core.sym_index(S.data, S.uplo, i, j)
Base.getindex(S::Hermitian, i::Integer, j::Integer) = eltype(S.data) <: Real ?
    Core.sym_index(S.data, S.uplo, i, j) : Core.herm_index(S.data, S.uplo, i, j)
Core.herm_index(A, uplo, i, j) = i == j ? oftype(A[i, i], real(A[i, i])) :
    (uplo == 'U') == (i < j) ? A[i, j] : conj(A[j, i])
*(S::Symmetric, x::AbstractVecOrMat) = Matrix(S) * x
*(S::Hermitian, x::AbstractVecOrMat) = Matrix(S) * x
*(x::AbstractMatrix, S::Symmetric) = x * Matrix(S)
*(x::AbstractMatrix, S::Hermitian) = x * Matrix(S)
*(S::Symmetric, T::Symmetric) = Matrix(S) * Matrix(T)
*(a::Number, S::Symmetric) = Symmetric(a * S.data, Symbol(S.uplo))
*(a::Number, S::Hermitian) = Hermitian(a * S.data, Symbol(S.uplo))
+(S::Symmetric, T::Symmetric) = Symmetric(Matrix(S) + Matrix(T))
+(S::Hermitian, T::Hermitian) = Hermitian(Matrix(S) + Matrix(T))
+(S::Symmetric, A::AbstractMatrix) = Matrix(S) + A
+(A::AbstractMatrix, S::Symmetric) = A + Matrix(S)
\(S::Symmetric, b::AbstractVecOrMat) = Matrix(S) \ b
\(S::Hermitian, b::AbstractVecOrMat) = Matrix(S) \ b
==(S::Symmetric, A::AbstractMatrix) = Matrix(S) == A
==(A::AbstractMatrix, S::Symmetric) = A == Matrix(S)
==(S::Symmetric, T::Symmetric) = Matrix(S) == Matrix(T)
det(S::Symmetric) = det(Matrix(S))
det(S::Hermitian) = det(Matrix(S))
inv(S::Symmetric) = Symmetric(inv(Matrix(S)), Symbol(S.uplo))
inv(S::Hermitian) = Hermitian(inv(Matrix(S)), Symbol(S.uplo))
tr(S::Symmetric) = tr(S.data)
tr(S::Hermitian) = tr(S.data)
diag(S::Symmetric) = diag(S.data)
diag(S::Hermitian) = diag(S.data)
adjoint(S::Symmetric) = S
transpose(S::Symmetric) = S
adjoint(S::Hermitian) = S
transpose(S::Hermitian) = S
issymmetric(S::Symmetric) = true
issymmetric(S::Hermitian) = true
Base.sum(S::Symmetric) = sum(Matrix(S))
Base.show(io::IO, S::Symmetric) = show(io, Matrix(S))
Base.show(io::IO, S::Hermitian) = show(io, Matrix(S))
Core.display_text(S::Symmetric) = Core.display_masked(Matrix(S), Matrix(S) .== Matrix(S),
    string(size(S, 1), "×", size(S, 2), " ", typeof(S)))
Core.display_text(S::Hermitian) = Core.display_masked(Matrix(S), Matrix(S) .== Matrix(S),
    string(size(S, 1), "×", size(S, 2), " ", typeof(S)))

# --- the structured matrices as the dense arrays they stand for ------------------------------
# (what Base's AbstractArray fallbacks give them in Julia: `vec(D)` has n² entries,
# `maximum(D)` looks at the zeros too)
const StructuredMatrix = Union{Diagonal, Symmetric, Hermitian}
vec(A::StructuredMatrix) = vec(Matrix(A))
collect(A::StructuredMatrix) = Matrix(A)
Array(A::StructuredMatrix) = Matrix(A)
Base.ndims(A::StructuredMatrix) = 2
Base.axes(A::StructuredMatrix) = (Base.OneTo(size(A, 1)), Base.OneTo(size(A, 2)))
Base.axes(A::StructuredMatrix, d::Integer) = Base.OneTo(size(A, d))
Base.getindex(A::StructuredMatrix, i::Integer) = Matrix(A)[i]
Base.getindex(A::StructuredMatrix, i, j) = Matrix(A)[i, j]
Base.iterate(A::StructuredMatrix, st=1) = st > length(A) ? nothing : (A[st], st + 1)
Core.iter_array(A::StructuredMatrix) = Matrix(A)  # (a comprehension over A has A's shape)
maximum(A::StructuredMatrix) = maximum(Matrix(A))
minimum(A::StructuredMatrix) = minimum(Matrix(A))
permutedims(A::StructuredMatrix) = permutedims(Matrix(A))
reshape(A::StructuredMatrix, dims...) = reshape(Matrix(A), dims...)
zero(D::Diagonal) = Diagonal(zero(D.diag))
real(D::Diagonal) = Diagonal(real(D.diag))
/(D::Diagonal, a::Number) = Diagonal(D.diag / a)

# --- eigen ---------------------------------------------------------------------------------
struct Eigen{T, V, M, Vv}
    values::Vv
    vectors::M
end
Core.make_eigen(vals, vecs) = Eigen{eltype(vecs), eltype(vals), typeof(vecs), typeof(vals)}(vals, vecs)
Base.iterate(E::Eigen, st=1) = st == 1 ? (E.values, 2) : st == 2 ? (E.vectors, 3) : nothing
Base.length(E::Eigen) = 2
function eigen(A::AbstractMatrix)
    Core.check_square(A)
    issymmetric(A) && return Core.make_eigen(Core.eigh_vals(A), Core.eigh_vecs(A))
    vals, vecs = Core.eig_general(A)
    Core.make_eigen(vals, vecs)
end
eigen(S::Symmetric) = (A = Matrix(S); Core.make_eigen(Core.eigh_vals(A), Core.eigh_vecs(A)))
eigen(S::Hermitian) = (A = Matrix(S); Core.make_eigen(Core.eigh_vals(A), Core.eigh_vecs(A)))
eigvals(A::AbstractMatrix) = issymmetric(A) ? Core.eigh_vals(A) : Core.eig_general(A)[1]
eigvals(S::Symmetric) = Core.eigh_vals(Matrix(S))
eigvals(S::Hermitian) = Core.eigh_vals(Matrix(S))
eigvals(D::Diagonal) = sort(D.diag)
eigvecs(A) = eigen(A).vectors
eigmax(A) = eigvals(A)[end]
eigmin(A) = eigvals(A)[1]
function Core.display_text(E::Eigen)
    string(typeof(E), "\nvalues:\n", Core.display_string(E.values), "\nvectors:\n",
           Core.display_string(E.vectors))
end

# --- cholesky --------------------------------------------------------------------------------
struct Cholesky{T, S}
    U::S
    L::S
end
struct PosDefException <: Exception
    info::Int
end
function cholesky(A::AbstractMatrix)
    Core.check_square(A)
    U = Core.chol_upper(A)
    Cholesky{eltype(U), typeof(U)}(U, transpose(U))
end
cholesky(S::Symmetric) = cholesky(Matrix(S))
cholesky(S::Hermitian) = cholesky(Matrix(S))
cholesky(D::Diagonal) = cholesky(Matrix(D))
\(C::Cholesky, b::AbstractVecOrMat) = C.U \ (C.L \ b)
det(C::Cholesky) = prod(diag(C.U))^2
logdet(C::Cholesky) = 2 * sum(log.(diag(C.U)))
inv(C::Cholesky) = inv(C.U) * inv(C.L)
Matrix(C::Cholesky) = C.L * C.U
Base.size(C::Cholesky) = size(C.U)
Base.size(C::Cholesky, d::Integer) = size(C.U, d)
Base.iterate(C::Cholesky, st=1) = st == 1 ? (C.L, 2) : st == 2 ? (C.U, 3) : nothing
function Core.display_text(C::Cholesky)
    n = size(C.U, 1)
    string(typeof(C), "\nU factor:\n", Core.display_masked(C.U, Core.tri_mask(C.U, 0, true) .!= 0,
        string(n, "×", n, " UpperTriangular{", eltype(C.U), ", ", typeof(C.U), "}")))
end

# --- svd, qr ---------------------------------------------------------------------------------
struct SVD{T, Tr, M, C}
    U::M
    S::C
    V::M
    Vt::M
end
function svd(A::AbstractMatrix)
    U, S, Vt = Core.svd_u(A), svdvals(A), Core.svd_vt(A)
    SVD{eltype(U), eltype(S), typeof(U), typeof(S)}(U, S, transpose(Vt), Vt)
end
svdvals(S::Symmetric) = svdvals(Matrix(S))
svdvals(D::Diagonal) = sort(abs.(D.diag); rev=true)
Base.iterate(F::SVD, st=1) = st == 1 ? (F.U, 2) : st == 2 ? (F.S, 3) : st == 3 ? (F.V, 4) : nothing
Base.size(F::SVD) = (size(F.U, 1), size(F.Vt, 2))
Matrix(F::SVD) = F.U * (F.S .* F.Vt)
function Core.display_text(F::SVD)
    string(typeof(F), "\nU factor:\n", Core.display_string(F.U), "\nsingular values:\n",
           Core.display_string(F.S), "\nVt factor:\n", Core.display_string(F.Vt))
end

struct QRCompactWYQ{T, M, C}
    Q::M
end
struct QRCompactWY{T, M, C}
    Q::QRCompactWYQ
    R::M
end
function qr(A::AbstractMatrix)
    Q, R = Core.qr_q(A), Core.qr_r(A)
    QRCompactWY{eltype(R), typeof(R), typeof(R)}(QRCompactWYQ{eltype(Q), typeof(Q), typeof(Q)}(Q), R)
end
Matrix(Q::QRCompactWYQ) = Q.Q
*(Q::QRCompactWYQ, x::AbstractVecOrMat) = Q.Q * x
*(x::AbstractVecOrMat, Q::QRCompactWYQ) = x * Q.Q
adjoint(Q::QRCompactWYQ) = Q.Q'
Base.size(Q::QRCompactWYQ) = size(Q.Q)
Base.iterate(F::QRCompactWY, st=1) = st == 1 ? (F.Q, 2) : st == 2 ? (F.R, 3) : nothing
\(F::QRCompactWY, b::AbstractVector) = F.R \ (F.Q.Q' * b)
Matrix(F::QRCompactWY) = F.Q.Q * F.R
function Core.display_text(F::QRCompactWY)
    m = size(F.Q.Q, 1)
    string("LinearAlgebra.", typeof(F), "\nQ factor: ", m, "×", m, " LinearAlgebra.", typeof(F.Q),
           "\nR factor:\n", Core.display_string(F.R))
end

# --- the rest --------------------------------------------------------------------------------
logdet(A::AbstractMatrix) = log(det(A))
logdet(x::Number) = log(x)
function logabsdet(A::AbstractMatrix)
    d = det(A)
    (log(abs(d)), sign(d))
end
diagm(v::AbstractVector) = Matrix(Diagonal(v))
function diagm(kvs::Pair...)
    n = maximum(length(kv.second) + abs(kv.first) for kv in kvs)
    T = promote_type(map(kv -> eltype(kv.second), kvs)...)
    [Core.diagm_entry(kvs, i, j, T) for i in 1:n, j in 1:n]
end
function Core.diagm_entry(kvs, i, j, T)
    x = zero(T)
    for kv in kvs
        if j - i == kv.first
            x += kv.second[min(i, j)]
        end
    end
    x
end
kron(a::AbstractVector, b::AbstractVector) = vec(b .* transpose(a))
function kron(A::AbstractMatrix, B::AbstractMatrix)
    p, q = size(A)
    r, s = size(B)
    reshape(reshape(B, r, 1, s, 1) .* reshape(A, 1, p, 1, q), r * p, s * q)
end
kron(A::AbstractMatrix, b::AbstractVector) = kron(A, reshape(b, length(b), 1))
kron(a::AbstractVector, B::AbstractMatrix) = kron(reshape(a, length(a), 1), B)
kron(a, b, c, ds...) = kron(kron(a, b), c, ds...)
⊗(a, b) = kron(a, b)

pinv(A::AbstractMatrix) = Core.matpinv(A)
pinv(x::Number) = iszero(x) ? zero(inv(x)) : inv(x)

# the X with A*X + X*A' + C = 0, from its Kronecker form (I ⊗ A + conj(A) ⊗ I) vec(X) = -vec(C)
function lyap(A::AbstractMatrix, C::AbstractMatrix)
    n = size(A, 1)
    size(A, 2) == n || throw(DimensionMismatch("matrix is not square: dimensions are $(size(A))"))
    size(C) == (n, n) || throw(DimensionMismatch("C has dimensions $(size(C)), A has $(size(A))"))
    Id = Matrix{Float64}(I, n, n)
    reshape(-((kron(Id, A) + kron(conj(A), Id)) \ vec(C)), n, n)
end
lyap(a::Number, c::Number) = -c / (2real(a))
