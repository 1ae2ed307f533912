"""The Zyla abstract syntax tree: what the parser produces and the lowering consumes.

Every node carries a `span` (1-based line and column of its first character). Julia has
no statement/expression split, so every node is an expression; a program and every block
body is a list of nodes.

Operators are calls: `a + b` is `Call(Ident("+"), [a, b])`, `a:b:c` is
`Call(Ident(":"), [a, b, c])`, `x'` is `Call(Ident("adjoint"), [x])`, `a => b` is
`Call(Ident("=>"), [a, b])`, `-x` is `Call(Ident("-"), [x])`. Dotted operators and dot
calls are `Broadcast`: `a .+ b` is `Broadcast(Ident("+"), [a, b])`, `f.(x)` is
`Broadcast(Ident("f"), [x])`. Only the short-circuit forms, comparisons chains,
assignment-like forms and `?:` get nodes of their own.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Span:
    """A source position: 1-based line and column where the node starts."""

    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.line}:{self.col}"


NOSPAN = Span(0, 0)


@dataclass
class Node:
    span: Span = field(default=NOSPAN, kw_only=True, compare=False, repr=False)


# --- atoms -----------------------------------------------------------------------------


@dataclass
class Literal(Node):
    """A literal constant. `kind` is one of: "Int64", "Float64", "Float32", "Bool",
    "String", "Char", "Nothing", "Symbol". `value` is the Python value (int, float,
    bool, str, None; a Symbol's value is its name as str)."""

    value: object
    kind: str


@dataclass
class StringInterp(Node):
    """`"a $x b $(f(y))"`: parts are literal strs and expression nodes, in order."""

    parts: list[str | Node]


@dataclass
class Interpolation(Node):
    """`$x` outside a string: in `@.` a part not to be dotted (`@. $f(x)`); anywhere
    else a syntax error, as Julia's `"$" expression outside quote`."""

    value: Node


@dataclass
class Ident(Node):
    """A name: variable, function, type or operator used as a value (`+` in `map(+, a)`)."""

    name: str


@dataclass
class EndMarker(Node):
    """`end` used inside an indexing bracket (`x[end]`, `x[end-1]`), or with `first`,
    `begin` (`x[begin]`, `x[begin+1:end]`)."""

    first: bool = False


@dataclass
class Colon(Node):
    """A bare `:` as an index (`x[:, 1]`)."""


# --- calls and operators -------------------------------------------------------------


@dataclass
class Splat(Node):
    """`x...` as a call argument, in a tuple, or a parameter-less context."""

    value: Node


@dataclass
class Kwarg(Node):
    """`name=value` after `;` or among call arguments. `name` None with `value` a Splat
    means `; kws...`."""

    name: str | None
    value: Node


@dataclass
class Call(Node):
    """`f(args...; kwargs...)`. Operators are calls too (see module docstring)."""

    func: Node
    args: list[Node]
    kwargs: list[Kwarg] = field(default_factory=list)
    # written in parentheses: `(a + b) + c` is not Julia's flattened `a + b + c`
    grouped: bool = field(default=False, compare=False, repr=False)


@dataclass
class Broadcast(Node):
    """`f.(args...)` and dotted operators `a .+ b`, `.-x`."""

    func: Node
    args: list[Node]
    kwargs: list[Kwarg] = field(default_factory=list)


@dataclass
class Comparison(Node):
    """A chain `a < b <= c`: operands [a, b, c], ops ["<", "<="]. A dotted comparison
    op (".<") keeps its dot. A single `a == b` is a chain of length two."""

    operands: list[Node]
    ops: list[str]


@dataclass
class And(Node):
    left: Node
    right: Node


@dataclass
class Or(Node):
    left: Node
    right: Node


@dataclass
class Ternary(Node):
    cond: Node
    then: Node
    other: Node


@dataclass
class Index(Node):
    """`obj[i, j]`; indices may contain EndMarker, Colon, ranges."""

    obj: Node
    indices: list[Node]


@dataclass
class Dot(Node):
    """Field access `obj.name` (also module access `Flux.mse`)."""

    obj: Node
    name: str


@dataclass
class Curly(Node):
    """`Name{P1, P2}`, e.g. `Vector{Float64}`."""

    obj: Node
    params: list[Node]


@dataclass
class Where(Node):
    """`expr where {T, S <: B}`: in a method signature its type variables; elsewhere a
    type value (`Tuple{Vararg{S}} where S <: Integer`)."""

    expr: Node
    params: list[Node]


@dataclass
class TypeAssert(Node):
    """`x::T` in expression position."""

    value: Node
    type: Node


@dataclass
class MacroCall(Node):
    """`@name args...` (space separated, to the end of the line) or `@name(args...)`.
    `name` excludes the `@`, e.g. "test", "testset", "show". Arguments are parsed as
    expressions; `atol=1e-8` in `@test a ≈ b atol=1e-8` is an Assign node."""

    name: str
    args: list[Node]


# --- collections ---------------------------------------------------------------------


@dataclass
class TupleLit(Node):
    """`(a, b)`, `(a,)`, `()`."""

    items: list[Node]


@dataclass
class NamedTupleLit(Node):
    """`(a = 1, b = 2)`, `(; a, b)` (names taken from the variables)."""

    names: list[str]
    values: list[Node]


@dataclass
class VectorLit(Node):
    """`[a, b, c]` (items may be Splat). `eltype` is set for `Float64[1, 2]` / `Float64[]`."""

    items: list[Node]
    eltype: Node | None = None


@dataclass
class MatrixLit(Node):
    """`[a b; c d]`, `[a b]` (one row), `[a; b]` (rows of one item each).
    `rows` is a list of rows, each a list of items."""

    rows: list[list[Node]]
    eltype: Node | None = None


@dataclass
class Comprehension(Node):
    """`[expr for x in xs, y in ys if cond]` (generator=False) or `(expr for ...)` /
    `f(expr for ...)` (generator=True). iterators are (target, iterable) pairs, the
    first varying fastest in the result's shape as in Julia; `cond` is the filter."""

    expr: Node
    iterators: list[tuple[Node, Node]]
    cond: Node | None = None
    generator: bool = False


# --- functions -----------------------------------------------------------------------


@dataclass
class Param(Node):
    """A parameter: `x`, `x::T`, `x=default`, `xs...`, `::T` (name None), `x::T...`.
    A destructured parameter, `(a, b)` or `(; a, b)` (also `(a, b)::T`), keeps its
    pattern (a `TupleLit` or `NamedTupleLit`) in `pattern`; the parser names it `#argI`
    (I its position) and starts the body by unpacking it into local variables."""

    name: str | None
    type: Node | None = None
    default: Node | None = None
    vararg: bool = False
    pattern: Node | None = None


@dataclass
class Lambda(Node):
    """`x -> body`, `(x, y) -> body`, `function (x) ... end`, and do-block bodies."""

    params: list[Param]
    body: Node
    kwparams: list[Param] = field(default_factory=list)
    return_type: Node | None = None  # an inner `g(x)::T = ...` converts what it returns


@dataclass
class FunctionDef(Node):
    """`function f(x) ... end`, `f(x) = ...`. `name` is a plain name or a qualified
    Dot (`ChainRulesCore.rrule`) kept as the dotted string "ChainRulesCore.rrule".
    A callable-struct method `(m::Affine)(x) = ...` has `name` None and
    `receiver=Param("m", Ident("Affine"))`. `where` lists the type variables
    (`where {T}` / `where T<:Real`) as nodes. A constructor of a parametric type's
    instances, `Pos{T}(x) where {T} = ...`, has `name` "Pos" and `type_params` the
    nodes between the braces (`[Ident("T")]`); other methods have none."""

    name: str | None
    params: list[Param]
    body: Node
    kwparams: list[Param] = field(default_factory=list)
    receiver: Param | None = None
    where: list[Node] = field(default_factory=list)
    return_type: Node | None = None
    type_params: list[Node] = field(default_factory=list)
    # `$f(x) = ...` inside a quote: the Interpolation that names it (`name` is "$")
    name_expr: Node | None = None
    # written `function f(x) ... end` (not `f(x) = ...`): Julia's Expr heads differ
    long: bool = field(default=False, compare=False)


# --- statements (also expressions) ---------------------------------------------------


@dataclass
class Block(Node):
    """`begin ... end` and every body: its value is the last statement's."""

    stmts: list[Node]


@dataclass
class Assign(Node):
    """`target = value`. target is Ident, TupleLit (destructuring), Index (setindex!),
    Dot (setproperty!) or TypeAssert (`x::Int = 1`)."""

    target: Node
    value: Node


@dataclass
class OpAssign(Node):
    """`target op= value`, op without "=" (e.g. "+", "*", "÷"). Dotted updates `.+=`
    have op ".+"."""

    target: Node
    op: str
    value: Node


@dataclass
class BroadcastAssign(Node):
    """`target .= value`."""

    target: Node
    value: Node


@dataclass
class If(Node):
    """`if c ... elseif c2 ... else ... end`; elseif chains nest in `other`."""

    cond: Node
    then: Block
    other: Node | None = None


#: the loop variable of `for outer i = xs` is named OUTER_PREFIX + "i" (a name no program
#: can write); the lowering assigns its value to i at the start of each iteration
OUTER_PREFIX = "#outer "


@dataclass
class For(Node):
    """`for x in xs, y in ys ... end`: several iterators nest, the first outermost."""

    iterators: list[tuple[Node, Node]]
    body: Block


@dataclass
class While(Node):
    cond: Node
    body: Block


@dataclass
class Break(Node):
    pass


@dataclass
class Continue(Node):
    pass


@dataclass
class Return(Node):
    value: Node | None = None


@dataclass
class Let(Node):
    """`let a = 1, b ... end`: bindings are Assign nodes or bare Idents."""

    bindings: list[Node]
    body: Block


@dataclass
class StructDef(Node):
    """`struct Name{T} <: Super a::T; b end`. fields are (name, type-or-None);
    `constructors` are the inner constructors, the method definitions written in the
    body (`Name(a) = new(a, 0)`), in order. A struct with inner constructors has no
    default constructor, and `new(...)` inside them builds the instance."""

    name: str
    fields: list[tuple[str, Node | None]]
    mutable: bool = False
    params: list[Node] = field(default_factory=list)
    supertype: Node | None = None
    constructors: list[FunctionDef] = field(default_factory=list)


@dataclass
class AbstractTypeDef(Node):
    name: str
    supertype: Node | None = None


@dataclass
class Using(Node):
    """`using A, B`, `using A: x, y`, `import A`, `import A.b`. modules are dotted
    names as strings; `names` is the `: x, y` list."""

    modules: list[str]
    names: list[str] = field(default_factory=list)
    is_import: bool = False


@dataclass
class Const(Node):
    value: Node


@dataclass
class Global(Node):
    names: list[Node]


@dataclass
class Local(Node):
    names: list[Node]


@dataclass
class Program(Node):
    stmts: list[Node]
    file: str = "<input>"
    source: str = ""


# --- added with the parser -------------------------------------------------------------


@dataclass
class Try(Node):
    """`try body catch var catch_body finally finally_body end`. `var` is the name after
    `catch` (None when absent); `catch_body` is None without a `catch` clause and
    `finally_body` None without a `finally` clause."""

    body: Block
    var: str | None = None
    catch_body: Block | None = None
    finally_body: Block | None = None
    # set once lang.core.tryjumps has turned its break/continue/return into values
    lifted: bool = False


@dataclass
class ModuleDef(Node):
    """`module Name ... end`."""

    name: str
    body: Block


@dataclass
class Quote(Node):
    """`quote ... end` (body a Block) and `:(expr)`: the code itself as a value (an
    `Expr`, a `Symbol` or a literal), its `$` interpolations evaluated when it runs."""

    body: Node


@dataclass
class MacroDef(Node):
    """`macro name(params...) body end`: a function `@name` that the lowering calls
    with the unevaluated arguments of each `@name ...` call."""

    name: str
    params: list[Param]
    body: Node


@dataclass
class Export(Node):
    """`export a, b` inside a module."""

    names: list[str]
