# GradCheck: gradient checks for users (`using GradCheck`). The checking itself runs on
# the host (lang/door/gradcheck.py): reverse-mode AD against central finite differences and
# against jax.grad of the lowered primal.

"""
    gradcheck(f, args...; atol=1e-5, rtol=1e-4, eps=nothing, oracle=true, verbose=false)

Compare the gradient of `f(args...)` (a real number) computed by Zyla's reverse-mode AD
with central finite differences in every floating-point input, and with `jax.grad` of
the lowered primal where the call can be traced to JAX. Returns `true` when all partial
derivatives agree (`|ad - ref| <= atol + rtol * max(|ad|, |ref|)`); otherwise prints
the worst mismatch and returns `false` (`verbose=true` prints the report either way).

For a property over many inputs drawn from declared types, shapes and ranges, see
`@gradcheck f(x::Vector{Float64}(3) in (-1, 1), y::Float64 in (0.1, 2))`.
"""
gradcheck(f, args...; atol=1e-5, rtol=1e-4, eps=nothing, oracle=true, verbose=false) =
    GradCheck.check(f, args, atol, rtol, eps, oracle, verbose)
