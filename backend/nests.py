"""Loop nests rewritten into tensor operations (contractions, affine reads and writes).

Users write `for j in 1:m, i in 1:n; s = 0.0; for p in 1:k; s += A[i, p] * B[p, j];
end; C[i, j] = s; end`. Run as written, that is 2·n·m·k scalar steps: slow in the
interpreter and in XLA's while loops alike. This pass (registered in
`lang.core.ir.IR_PASSES`, run on every lowered body) recognises such nests and rewrites
each into

    ok = Core.nest_ok(spec, ranges, arrays, offsets, scalars)
    results = if ok  <the nest as tensor operations>  else  <the loop as written>  end

so the choice is made per call, on the actual values: the tensor form is taken when its
conditions hold (lang/core/primitives_nest.py: integer ranges known now and not empty,
every access in bounds, no written array aliasing another, intermediate tensors of
bounded size), otherwise the original loop runs, with Julia's errors. Both tiers run the
same IR: on the host the tensor form is numpy (one `einsum` for the matmul), compiled it
is one XLA `dot_general`; AD differentiates the tensor operations with their own rules
(the gradient of the loop matmul is two contractions, not a tape of scalar steps).

What a nest may contain (else the loop is left as it is, with the reason in its `nest`
attribute, which `@code_ir` prints):

- `for` loops over values computed outside the nest (ranges, checked at run time), nested
  any way (siblings too); no `if`, `while`, calls of user functions or other effects;
- reads `A[f...]` of arrays from outside the nest, every index affine in the loop
  variables with constant coefficients (`i`, `i + di - 1`, `2j`, `end - i + 1`);
- arithmetic on those (the primitives in ELEMENTWISE, applied elementwise);
- per carried value either a sum `s += e` / `s -= e` (also threaded through inner loops:
  `for i, j; s += A[i, j]`), summed in one contraction (products of two factors are not
  made: `A[i, p] * B[p, j]` summed over p is a dot), or an array written once per
  iteration at an injective affine index (`C[i, j] = v`), or accumulated into
  (`C[i, j] += e` inside a loop the index does not use: a sum over that loop).

A mapped sum adds the same terms as the loop in another order (as Julia's `@simd`
allows); every product and every element operation is the loop's own. `@sequential for`
keeps a loop as written.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

from lang.core.ir import IR_PASSES, Function, Op, Region, Value, defined_in, walk_ops
from lang.core.primitives import PRIMITIVES

#: primitives a mapped body may apply elementwise: pure, and unable to throw on numbers
ELEMENTWISE = frozenset({
    "+", "-", "*", "/", "abs", "abs2", "exp", "exp2", "expm1", "sin", "cos", "tan", "tanh",
    "sinh", "cosh", "atan", "max", "min", "muladd", "fma", "sign", "float", "identity",
    "ifelse", "<", "<=", ">", ">=", "==", "!=", "!", "conj", "real", "isnan", "isfinite",
    "floor", "ceil", "round", "xor", "&", "|", "zero", "one", "sigmoid", "relu", "Core.neg",
})
#: pure calls on loop-invariant values that may run before the nest's test (they cannot
#: throw where the loop would not): ranges, sizes and integer offsets
SAFE_BEFORE = frozenset({
    ":", "size", "length", "axes", "eachindex", "Core.endof", "firstindex", "lastindex",
    "+", "-", "*", "min", "max", "tuple", "eltype", "zero", "one", "oneunit", "typemin",
    "typemax",
})
#: calls that only ask an array's shape (which the nest's writes do not change)
SHAPE_QUERIES = frozenset({"size", "length", "axes", "eachindex", "Core.endof", "firstindex",
                           "lastindex", "ndims", "eltype"})
MAX_LOOPS = 12
#: how a carried value may be updated to be mapped as a reduction
REDUCTIONS = ("+", "-", "max", "min")


class Refuse(Exception):
    """The nest cannot be mapped; the message says why."""


# --- symbolic values of the nest ---------------------------------------------------------------

@dataclass(frozen=True)
class Inv:
    """A value that does not change inside the nest (defined before the test, or inside
    the tensor form: `Mapper.is_early` tells which)."""

    v: Value


@dataclass(frozen=True)
class Aff:
    """An Int affine in the loop variables: sum coefs[a]*var_a + const + sum c*value."""

    coefs: tuple[tuple[int, int], ...]  # (axis, coefficient), sorted, nonzero
    const: int = 0
    terms: tuple[tuple[int, Value], ...] = ()  # (coefficient, a value defined before the test)

    @property
    def axes(self) -> frozenset[int]:
        return frozenset(a for a, _ in self.coefs)


@dataclass(frozen=True)
class Ten:
    """A tensor of the tensor form, varying along `axes`."""

    v: Value
    axes: frozenset[int]


@dataclass(frozen=True)
class Win:
    """A read whose index slides a window (`x[i + di]`), not gathered yet: summed against
    another factor it is one `Core.contract_read`."""

    array: Value
    cs: Value
    offs: Value
    axes: frozenset[int]


@dataclass(frozen=True)
class Prod:
    """x * y, not made yet (a sum of it is a contraction)."""

    x: Any
    y: Any


@dataclass(eq=False)
class Root:
    """A sum carried by a loop: init, then what it came to (once its `+` was seen)."""

    init: Any
    result: Any = None


@dataclass(frozen=True)
class Acc:
    root: Root
    axes: tuple[int, ...]


@dataclass(frozen=True)
class Done:
    root: Root


@dataclass(eq=False)
class Rec:
    """An array carried through the nest: its value before, its writes and reads."""

    base: Value
    name: str = ""
    # (forms, enclosing axes, kind, value, coefficients, offsets): one at the most
    writes: list = field(default_factory=list)
    reads: list = field(default_factory=list)  # (forms, enclosing axes, after a write)


@dataclass(frozen=True)
class ArrSt:
    rec: Rec


@dataclass(frozen=True)
class Rd:
    """`C[f...]` of an array the nest writes: its value before the nest."""

    rec: Rec
    forms: tuple
    enc: tuple[int, ...]
    ten: Ten


@dataclass(frozen=True)
class AccW:
    """`C[f...] ± e`: to be written back at f (an accumulation)."""

    rd: Rd
    e: Any
    fn: str


# --- the mapper --------------------------------------------------------------------------------

class Mapper:
    """Rewrites one nest (see the module docstring). `run` returns the ops that replace
    the outer loop, or raises Refuse."""

    def __init__(self, fn: Function, outer: Op, loops: list[Op],
                 order: tuple[int, ...] | None = None) -> None:
        """`order[k]` is the tensor axis of the k-th loop (outer first, the default)."""
        self.fn = fn
        self.outer = outer
        self.span = outer.span
        self.axis_of = {id(op): (order[k] if order else k) for k, op in enumerate(loops)}
        self.R = len(loops)
        self.env: dict[int, Any] = {}
        self.pre: list[Op] = []
        self.ten: list[Op] = []
        self.early: set[int] = set()  # ids of values made before the test
        self.late: set[int] = set()  # ids of values made in the tensor form
        self.ranges: list[Value | None] = [None] * self.R
        self.rsv = fn.new_value("ranges")
        self.arrays: list[Value] = []
        self.offs: list[Value] = []
        self.vals: list[Value] = []
        self.accesses: list[tuple] = []
        self.tensors: list[tuple[int, ...]] = []
        self.globals: dict[str, Value] = {}
        self.consts: dict[tuple, Value] = {}
        self.names: dict[int, str] = {}  # tensor axis -> its loop variable
        self.inner_ids = set().union(*(defined_in(r) for r in outer.regions))
        self.summary: list[str] = []

    # emitting
    def _op(self, into: list[Op], opname: str, operands: list[Value], **attrs: Any) -> Value:
        r = self.fn.new_value()
        into.append(Op(opname, list(operands), [r], attrs, [], self.span))
        (self.early if into is self.pre else self.late).add(r.id)
        return r

    def const(self, v: Any) -> Value:
        key = (type(v), repr(v))
        if key not in self.consts:
            self.consts[key] = self._op(self.pre, "const", [], value=v)
        return self.consts[key]

    def call(self, fn: str, args: list[Value], early: bool = False) -> Value:
        return self._op(self.pre if early else self.ten, "call", args, fn=fn, kw=(), splat=())

    def glob(self, name: str) -> Value:
        if name not in self.globals:
            self.globals[name] = self._op(self.pre, "global", [], name=name)
        return self.globals[name]

    def is_early(self, v: Value) -> bool:
        """Whether v exists before the test: made there, or outside the nest."""
        return v.id in self.early or (v.id not in self.inner_ids and v.id not in self.late)

    # symbols
    def sym(self, v: Value) -> Any:
        s = self.env.get(v.id)
        if s is None:
            if v.id in self.inner_ids:
                raise Refuse("a value of the loop is used before it is defined")
            return Inv(v)
        return s

    def aff(self, s: Any) -> Aff | None:
        if isinstance(s, Aff):
            return s
        if isinstance(s, Inv) and self.is_early(s.v):
            return Aff((), 0, ((1, s.v),))
        return None

    def value(self, s: Any) -> tuple[Value, frozenset[int]]:
        """The value of a symbol in the tensor form, and the axes it varies along."""
        if isinstance(s, Inv):
            if not self.is_early(s.v):
                raise Refuse("an array the nest writes is used as a value")
            self.vals.append(s.v)
            return s.v, frozenset()
        if isinstance(s, Ten):
            return s.v, s.axes
        if isinstance(s, Aff):
            off = self.offset(s)
            if not s.coefs:
                return off, frozenset()
            c = tuple(dict(s.coefs).get(a, 0) for a in range(self.R))
            v = self.call("Core.nest_affine", [self.rsv, self.const(c), off])
            self.tensors.append(tuple(sorted(s.axes)))
            return v, s.axes
        if isinstance(s, Prod):
            return self.elementwise("*", [s.x, s.y])
        if isinstance(s, Rd):
            return s.ten.v, s.ten.axes
        if isinstance(s, Win):
            self.tensors.append(tuple(sorted(s.axes)))
            return self.call("Core.nest_read", [s.array, self.rsv, s.cs, s.offs]), s.axes
        if isinstance(s, AccW):
            return self.elementwise(s.fn, [s.rd, s.e])
        raise Refuse("a running sum is read inside its loop (a value carried from one "
                     "iteration to the next, as in a prefix sum)")

    def offset(self, a: Aff) -> Value:
        """The Int value of a's constant part, computed before the test."""
        v = self.const(a.const)
        for c, term in a.terms:
            if c != 1:
                term = self.call("*", [self.const(c), term], early=True)
            v = self.call("+", [v, term], early=True)
        self.offs.append(v)
        return v

    def elementwise(self, fn: str, args: list[Any]) -> tuple[Value, frozenset[int]]:
        vals = [self.value(a) for a in args]
        axes = frozenset().union(*[ax for _, ax in vals])
        out = self.call("broadcast", [self.glob(fn)] + [v for v, _ in vals])
        if axes:
            self.tensors.append(tuple(sorted(axes)))
        return out, axes

    # the nest
    def run(self) -> list[Op]:
        op = self.outer
        outs = self.loop(op, [self.sym(v) for v in op.operands[1:]], ())
        finals = []
        for k, s in enumerate(outs):
            if isinstance(s, (Ten, Inv)):
                finals.append(s.v)
            elif isinstance(s, Aff):
                finals.append(self.value(s)[0])
            else:
                raise Refuse(f"the loop's value {k + 1} is not a sum or an array")
        if any(r is None for r in self.ranges):
            raise Refuse("a loop of the nest was not reached")
        for v in self.ranges + self.arrays + self.offs + self.vals:
            if not self.is_early(v):
                raise Refuse("a range, index or scalar of the nest is computed by a call that "
                             "could fail before the loop would")
        self.pre.append(Op("call", list(self.ranges), [self.rsv],
                           {"fn": "tuple", "kw": (), "splat": ()}, [], self.span))
        spec = (tuple(self.accesses), tuple(sorted(set(self.tensors))))
        tup = [self.call("tuple", list(xs), early=True) for xs in (self.arrays, self.offs,
                                                                    self.vals)]
        ok = self.call("Core.nest_ok", [self.const(spec), self.rsv] + tup, early=True)
        res = [self.fn.new_value(r.hint) for r in op.results]  # (the loop as written)
        plain = Op("for", list(op.operands), res, dict(op.attrs), op.regions, op.span)
        literal = Region([], [plain, Op("yield", res, [], {}, [], op.span)])
        tensor = Region([], self.ten + [Op("yield", finals, [], {}, [], op.span)])
        what = "; ".join(self.summary) or "sums"
        branch = Op("if", [ok], list(op.results), {"nest": f"mapped ({self.R} loops): {what}"},
                    [tensor, literal], op.span)
        return self.pre + [branch]

    def loop(self, op: Op, inits: list[Any], enc: tuple[int, ...]) -> list[Any]:
        a = self.axis_of[id(op)]
        it = self.sym(op.operands[0])
        if not isinstance(it, Inv):
            raise Refuse("a loop's range depends on an enclosing loop (the nest is not "
                         "rectangular)")
        self.ranges[a] = it.v
        body = op.regions[0]
        iv, *carried = body.args
        self.env[iv.id] = Aff(((a, 1),))
        self.names[a] = iv.hint or f"loop {a + 1}"
        enc = enc + (a,)
        kinds: list[str] = []
        owned: list[Any] = []
        for c, init in zip(carried, inits, strict=True):
            kind = _kind(body, c, init)
            kinds.append(kind)
            if kind == "array":
                if isinstance(init, ArrSt):
                    self.env[c.id] = init
                elif isinstance(init, Inv) and self.is_early(init.v):
                    rec = Rec(init.v, c.hint or init.v.hint or "an array")
                    owned.append(rec)
                    self.env[c.id] = ArrSt(rec)
                else:
                    raise Refuse("an array the loop writes is made inside the nest")
            else:
                if isinstance(init, Acc):
                    self.env[c.id] = Acc(init.root, init.axes + (a,))
                else:
                    root = Root(init)
                    owned.append(root)
                    self.env[c.id] = Acc(root, (a,))
        for o in body.ops[:-1]:
            self.op(o, enc)
        outs: list[Any] = []
        for c, y, kind in zip(carried, body.terminator.operands, kinds, strict=True):
            s = self.sym(y)
            mine = self.env[c.id]
            if kind == "array":
                if not (isinstance(s, ArrSt) and s.rec is mine.rec):
                    raise Refuse("an array the loop carries is replaced, not written into")
                outs.append(self.finish(s.rec) if s.rec in owned else s)
            else:
                if not (isinstance(s, Done) and s.root is mine.root):
                    raise Refuse("a carried value is not a sum (`s += ...`)")
                outs.append(s.root.result if s.root in owned else s)
        return outs

    def op(self, op: Op, enc: tuple[int, ...]) -> None:
        if op.name == "const":
            v = op.attrs["value"]
            if type(v) is int:
                self.env[op.results[0].id] = Aff((), v)
            else:
                self.env[op.results[0].id] = Inv(self.const(v))
            return
        if op.name == "global":
            self.env[op.results[0].id] = Inv(self.glob(op.attrs["name"]))
            return
        if op.name == "for":
            res = self.loop(op, [self.sym(v) for v in op.operands[1:]], enc)
            for r, s in zip(op.results, res, strict=True):
                self.env[r.id] = s
            return
        if op.name != "call":
            raise Refuse(f"the loop body has a `{op.name}`")
        fn = op.attrs["fn"]
        if op.attrs.get("kw") or op.attrs.get("splat"):
            raise Refuse(f"`{fn}` is called with keywords or splatting")
        args = [self.sym(v) for v in op.operands]
        if fn in SHAPE_QUERIES:
            args = [Inv(s.rec.base) if isinstance(s, ArrSt) else s for s in args]
        out = op.results[0].id
        if fn == "Core.setindex_fn":
            self.env[out] = self.write(args[0], args[1], args[2:], enc)
        elif fn == "getindex":
            self.env[out] = self.read(args[0], args[1:], enc)
        elif any(isinstance(s, Acc) for s in args):
            self.env[out] = self.reduce(fn, args)
        elif fn in ("+", "-") and any(isinstance(s, Rd) for s in args) and len(args) == 2 and (
                isinstance(args[0], Rd) or fn == "+"):
            rd, e = (args[0], args[1]) if isinstance(args[0], Rd) else (args[1], args[0])
            self.env[out] = AccW(rd, e, fn)
        elif (s := self.index_arith(fn, args)) is not None:
            self.env[out] = s
        elif _all_invariant(args):
            self.env[out] = self.hoist(op, args)
        elif fn == "*" and len(args) >= 2:
            x = args[0]
            for y in args[1:-1]:
                v, ax = self.elementwise("*", [x, y])
                x = Ten(v, ax)
            self.env[out] = Prod(x, args[-1])
        elif fn == "^" and len(args) == 2 and isinstance(args[1], Aff) and not args[1].coefs \
                and not args[1].terms and args[1].const >= 0:
            v, ax = self.elementwise("^", args)
            self.env[out] = Ten(v, ax)
        elif fn in ELEMENTWISE and fn in PRIMITIVES:
            v, ax = self.elementwise(fn, args)
            self.env[out] = Ten(v, ax)
        else:
            raise Refuse(f"the loop body calls `{fn}`")

    def index_arith(self, fn: str, args: list[Any]) -> Aff | None:
        """Int arithmetic that keeps an index affine (None if it is not that)."""
        if not any(isinstance(s, Aff) and s.coefs for s in args):
            return None
        fs = [self.aff(s) for s in args]
        if any(f is None for f in fs):
            return None
        if fn == "+" and len(fs) >= 2:
            out = fs[0]
            for f in fs[1:]:
                out = _add(out, f, 1)
            return out
        if fn == "-" and len(fs) == 2:
            return _add(fs[0], fs[1], -1)
        if fn == "-" and len(fs) == 1:
            return _scale(fs[0], -1)
        if fn == "*" and len(fs) == 2:
            for f, g in ((fs[0], fs[1]), (fs[1], fs[0])):
                if not f.coefs and not f.terms:
                    return _scale(g, f.const)
        return None

    def hoist(self, op: Op, args: list[Any]) -> Any:
        """A call of values that do not change in the nest: sizes, ranges and offsets are
        computed before the test, number arithmetic elementwise in the tensor form."""
        fn = op.attrs["fn"]
        if fn in SAFE_BEFORE and all(
                (isinstance(s, Inv) and self.is_early(s.v)) or isinstance(s, Aff) for s in args):
            vals = [(self.offset(s) if s.terms else self.const(s.const))
                    if isinstance(s, Aff) else s.v for s in args]
            return Inv(self._op(self.pre, "call", vals, **op.attrs))
        if fn in ELEMENTWISE and fn in PRIMITIVES:
            v, ax = self.elementwise(fn, args)
            return Ten(v, ax)
        raise Refuse(f"the loop body calls `{fn}`")

    def forms(self, idx: list[Any]) -> tuple[Aff, ...]:
        out = []
        for s in idx:
            f = self.aff(s)
            if f is None:
                raise Refuse("an index is not affine in the loop variables (it depends on "
                             "data or on a product of loop variables)")
            out.append(f)
        return tuple(out)

    def access(self, array: Value, kind: str, forms: tuple[Aff, ...]) -> tuple[Value, Value]:
        """Record an access for the test; returns the coefficient and offset values."""
        if array not in self.arrays:
            self.arrays.append(array)
        cs = tuple(tuple(dict(f.coefs).get(a, 0) for a in range(self.R)) for f in forms)
        offs = [self.offset(f) for f in forms]
        first = len(self.offs) - len(offs)
        self.accesses.append((self.arrays.index(array), kind, cs,
                              tuple(range(first, first + len(offs)))))
        return self.const(cs), self.call("tuple", offs, early=True)

    def read(self, arr: Any, idx: list[Any], enc: tuple[int, ...]) -> Any:
        forms = self.forms(idx)
        axes = frozenset().union(*[f.axes for f in forms])
        if isinstance(arr, ArrSt):
            cs, offs = self.access(arr.rec.base, "r", forms)
            t = Ten(self.call("Core.nest_read", [arr.rec.base, self.rsv, cs, offs]), axes)
            arr.rec.reads.append((forms, enc, bool(arr.rec.writes)))
            return Rd(arr.rec, forms, enc, t)
        if not (isinstance(arr, Inv) and self.is_early(arr.v)):
            raise Refuse("the loop indexes a value it computes (an array of arrays, or a "
                         "data-dependent read)")
        cs, offs = self.access(arr.v, "r", forms)
        self.summary.append(f"reads {arr.v.hint or 'an array'}")
        if any(len(f.coefs) > 1 for f in forms):
            return Win(arr.v, cs, offs, axes)
        self.tensors.append(tuple(sorted(axes)))
        return Ten(self.call("Core.nest_read", [arr.v, self.rsv, cs, offs]), axes)

    def write(self, arr: Any, v: Any, idx: list[Any], enc: tuple[int, ...]) -> ArrSt:
        if not isinstance(arr, ArrSt):
            raise Refuse("the loop writes into an array it does not carry")
        rec = arr.rec
        if rec.writes:
            raise Refuse("the loop writes the same array at two places")
        forms = self.forms(idx)
        used: list[int] = []
        for f in forms:
            if len(f.coefs) > 1 or (f.coefs and f.coefs[0][0] in used):
                raise Refuse("an array is written at an index that mixes loop variables "
                             "(two iterations could write one element)")
            used += [a for a, _ in f.coefs]
        rest = tuple(a for a in enc if a not in used)
        if isinstance(v, AccW) and v.rd.rec is rec and v.rd.forms == forms:
            like = v.rd.ten
            c, cax = self.contract(rest, like.v, v.e)
            value, _ = self.elementwise(v.fn, [like, Ten(c, cax | like.axes)])
            kind = "a" if rest else "w"
            self.summary.append(f"accumulates into {rec.name}")
        else:
            if rest:
                raise Refuse("an array element is overwritten in every iteration of an inner "
                             "loop (only the last write would count)")
            value, _ = self.value(v)
            kind = "w"
            self.summary.append(f"writes {rec.name}")
        for rforms, renc, after in rec.reads:
            if after or rforms != forms or renc != enc:
                raise Refuse("an array the loop writes is also read at another element")
        cs, offs = self.access(rec.base, kind, forms)
        rec.writes.append((forms, enc, kind, value, cs, offs))
        return arr

    def finish(self, rec: Rec) -> Inv:
        if not rec.writes:
            return Inv(rec.base)
        _forms, _enc, _kind, value, cs, offs = rec.writes[0]
        return Inv(self.call("Core.nest_write", [rec.base, value, self.rsv, cs, offs]))

    def contract(self, red: tuple[int, ...], like: Value, e: Any) -> tuple[Value, frozenset]:
        """The sum of e over the axes red (added to `like` by the caller), and the axes
        the sum still varies along."""
        red_c = self.const(tuple(sorted(red)))
        if isinstance(e, Prod) and isinstance(e.x, Win) != isinstance(e.y, Win):
            w, other = (e.x, e.y) if isinstance(e.x, Win) else (e.y, e.x)
            y, ya = self.value(other)
            self.summary.append(f"a window of {w.array.hint or 'an array'} summed against "
                                + (other_hint(other) or "a factor"))
            c = self.call("Core.contract_read", [red_c, self.rsv, like, w.array, w.cs, w.offs, y])
            return c, (w.axes | ya) - frozenset(red)
        if isinstance(e, Prod):
            (x, xa), (y, ya) = self.value(e.x), self.value(e.y)
            c = self.call("Core.contract2", [red_c, self.rsv, like, x, y])
            return c, (xa | ya) - frozenset(red)
        x, xa = self.value(e)
        return self.call("Core.contract1", [red_c, self.rsv, like, x]), xa - frozenset(red)

    def reduce(self, fn: str, args: list[Any]) -> Done:
        accs = [s for s in args if isinstance(s, Acc)]
        if fn not in REDUCTIONS or len(args) != 2 or len(accs) != 1 or (
                fn == "-" and not isinstance(args[0], Acc)):
            raise Refuse(f"a carried value is updated by `{fn}` (sums `s += e`, `s -= e` and "
                         "`m = max(m, e)`, `min` are mapped)")
        acc = accs[0]
        e = args[1] if args[0] is acc else args[0]
        init, iax = self.value(acc.root.init)
        if fn in ("max", "min"):
            return self.extremum(fn, acc, init, iax, e)
        c, cax = self.contract(acc.axes, init, e)
        v, ax = self.elementwise(fn, [Ten(init, iax), Ten(c, cax | iax)])
        acc.root.result = Ten(v, ax)
        self.summary.append("sums over " + ", ".join(self.names[a] for a in acc.axes))
        return Done(acc.root)

    def extremum(self, fn: str, acc: Acc, init: Value, iax: frozenset, e: Any) -> Done:
        """`m = max(m, e)` over the loops of acc: `max(init, maximum(e; dims))`, reducing
        only the dimensions e varies along (the largest of equal terms is that term)."""
        t, tax = self.value(e)
        red = sorted(a for a in acc.axes if a in tax)
        whole = Ten(t, tax)
        if red:
            name = "maximum" if fn == "max" else "minimum"
            if set(red) == tax and not iax:  # every axis: a number, as the loop's
                r = self.call(name, [t])
            else:  # Julia's dimension of tensor axis a is R - a (storage reversed)
                dims = self.const(tuple(self.R - a for a in red))
                r = self._op(self.ten, "call", [t, dims], fn=name, kw=("dims",), splat=())
            whole = Ten(r, tax - frozenset(red))
        v, ax = self.elementwise(fn, [Ten(init, iax), whole])
        acc.root.result = Ten(v, ax)
        self.summary.append(f"{fn} over " + ", ".join(self.names[a] for a in acc.axes))
        return Done(acc.root)


def other_hint(s: Any) -> str:
    return s.v.hint if isinstance(s, (Ten, Inv)) else ""


def _add(f: Aff, g: Aff, sign: int) -> Aff:
    co = dict(f.coefs)
    for a, k in g.coefs:
        co[a] = co.get(a, 0) + sign * k
    terms = f.terms + tuple((sign * c, v) for c, v in g.terms)
    return Aff(tuple(sorted((a, k) for a, k in co.items() if k)), f.const + sign * g.const, terms)


def _scale(f: Aff, k: int) -> Aff:
    return Aff(tuple((a, c * k) for a, c in f.coefs if c * k), f.const * k,
               tuple((c * k, v) for c, v in f.terms))


def _all_invariant(args: list[Any]) -> bool:
    return all(isinstance(s, Inv) or (isinstance(s, Aff) and not s.coefs) for s in args)


def _uses(region: Region, v: Value) -> list[Op]:
    return [op for op in walk_ops(region) if any(x is v for x in op.operands)]


def _kind(body: Region, c: Value, init: Any) -> str:
    """How a loop carries c: "array" (written or read by index) or "sum"."""
    if isinstance(init, ArrSt):
        return "array"
    if isinstance(init, Acc):
        return "sum"
    uses = [op for op in _uses(body, c)
            if not (op.name == "call" and op.attrs.get("fn") in SHAPE_QUERIES)]
    for op in uses:
        if op.name == "call" and op.attrs.get("fn") in ("getindex", "Core.setindex_fn") \
                and op.operands[0] is c:
            return "array"
    if len(uses) != 1:
        raise Refuse("a carried value is used more than once in the loop body")
    op = uses[0]
    if op.name == "call" and op.attrs.get("fn") in REDUCTIONS and op in body.ops:
        return "sum"
    if op.name == "for" and op in body.ops:
        k = [i for i, x in enumerate(op.operands[1:]) if x is c]
        if len(k) == 1:
            return _kind(op.regions[0], op.regions[0].args[1 + k[0]], None)
    raise Refuse("a carried value is not a sum (`s += ...`) or an array written by index")


def _loops(op: Op) -> list[Op]:
    """The for ops of a nest, outer first (preorder), or Refuse."""
    out = [op]
    for o in op.regions[0].ops:
        if o.name == "for":
            out += _loops(o)
        elif o.regions:
            raise Refuse(f"the loop body has a `{o.name}` (branches and while loops are not "
                         "mapped)")
    if len(out) > MAX_LOOPS:
        raise Refuse(f"more than {MAX_LOOPS} nested loops")
    return out


def best_order(accesses: list[tuple], R: int) -> tuple[int, ...]:
    """The tensor axis of each loop: an order in which the arrays the nest reads and
    writes are already laid out (each array's axes in storage order appear in increasing
    tensor axes), so reads and writes are slices, not transposes (XLA on the CPU does not
    fold a transpose into a dot: the matrix-vector loop would copy its matrix). Arrays of
    more dimensions weigh more; ties keep the loops' order. Nests of more than 6 loops
    keep the loops' order."""
    ident = tuple(range(R))
    if R > 6:
        return ident
    seqs = []
    for _pos, _kind, cs, _offs in accesses:
        seq = []
        for c in reversed(cs):  # numpy (storage) order: Julia's dimensions reversed
            nz = [a for a, k in enumerate(c) if k]
            if len(nz) == 1:
                seq.append(nz[0])
        if len(seq) > 1:
            seqs.append(seq)

    def cost(order: tuple[int, ...]) -> int:
        return sum(4 ** len(seq) for seq in seqs
                   if any(order[a] >= order[b] for a, b in zip(seq, seq[1:], strict=False)))

    best = ident
    for perm in itertools.permutations(range(R)):
        if cost(perm) < cost(best):
            best = perm
    return best


def nest_report(rt: Any, file: str) -> list[str]:
    """One line per loop nest of the functions `file` defines: where it is, and whether it
    was mapped (to what) or why not (for `zyla explain`)."""
    out = []
    seen: set[int] = set()
    for name, g in list(rt.globals.items()):
        for m in getattr(g, "methods", None) or []:
            fn = getattr(m, "fn", None)
            if not isinstance(fn, Function) or fn.file != file or id(fn) in seen:
                continue
            seen.add(id(fn))
            for op in walk_ops(fn.body):
                if "nest" in op.attrs:
                    out.append(f"{name} (line {op.span.line}): {op.attrs['nest']}")
    return out


def map_nests(fn: Function) -> None:
    """The IR pass: rewrite every mappable outermost nest of fn (see the module docstring)."""
    _region(fn, fn.body)


def _region(fn: Function, region: Region) -> None:
    k = 0
    while k < len(region.ops):
        op = region.ops[k]
        if op.name == "for" and op.results and not op.attrs.get("sequential"):
            try:
                loops = _loops(op)
                first = Mapper(fn, op, loops)
                new = first.run()
                order = best_order(first.accesses, first.R)
                if order != tuple(range(first.R)):
                    new = Mapper(fn, op, loops, order).run()
            except Refuse as e:
                op.attrs["nest"] = f"not mapped: {e}"
            else:
                region.ops[k:k + 1] = new
                k += len(new)
                continue
        for r in op.regions:
            _region(fn, r)
        k += 1


IR_PASSES.append(map_nests)
