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
