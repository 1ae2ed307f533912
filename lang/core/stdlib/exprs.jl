# Code as data (the types and the conversions are the host's: lang/core/exprs.py).

==(a::Expr, b::Expr) = a.head === b.head && a.args == b.args
isequal(a::Expr, b::Expr) = a.head === b.head && isequal(a.args, b.args)
==(a::QuoteNode, b::QuoteNode) = isequal(a.value, b.value)
copy(e::Expr) = Core.copy_expr(e)
# (a Dict or Set compares Exprs by value: lang.core.exprs gives them their keys)
hash(e::Expr, h::UInt) = hash(e.args, hash(e.head, h))
hash(e::Expr) = hash(e, zero(UInt))
# `esc(ex)`: in a macro's result, code that is the caller's as written (no hygiene)
esc(x) = Expr(:escape, x)
Meta.isexpr(ex, head::Symbol) = ex isa Expr && ex.head === head
Meta.isexpr(ex, heads) = ex isa Expr && ex.head in heads
Meta.isexpr(ex, head, n::Integer) = Meta.isexpr(ex, head) && length(ex.args) == n
Meta.quot(x) = Expr(:quote, x)
invokelatest(f, args...; kwargs...) = f(args...; kwargs...)

# `dump` of code, as Julia writes it: each part's type, then its parts indented
function _dump_code(io, x, indent)
    if x isa Expr
        println(io, "Expr")
        println(io, indent, "  head: Symbol ", x.head)
        println(io, indent, "  args: Array{Any}((", length(x.args), ",))")
        for (i, a) in enumerate(x.args)
            print(io, indent, "    ", i, ": ")
            _dump_code(io, a, indent * "    ")
        end
    elseif x isa Symbol
        println(io, "Symbol ", x)
    elseif x isa QuoteNode
        println(io, "QuoteNode")
        print(io, indent, "  value: ")
        _dump_code(io, x.value, indent * "  ")
    elseif x isa LineNumberNode
        println(io, "LineNumberNode")
        println(io, indent, "  line: Int64 ", x.line)
        println(io, indent, "  file: Symbol ", x.file)
    else
        println(io, typeof(x), " ", repr(x))
    end
end
dump(x::Union{Expr,QuoteNode,LineNumberNode}) = _dump_code(stdout, x, "")
