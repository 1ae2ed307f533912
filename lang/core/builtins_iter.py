"""Julia's lazy iterators (`Base.Iterators`) on the host.

Each `Iterators.f(...)` returns a `LazyIter`: a recipe that makes a fresh Python iterator
whenever the value is iterated (so it can be iterated twice, as in Julia), with a length
when one is known. The runtime iterates it through the `jl_iter` protocol and asks
`length` through `jl_length`; `collect` materialises it. Infinite iterators
(`countfrom`, `cycle`, `repeated(x)`) are fine as long as something stops them (`take`,
`zip` with a finite one, a `break`).

Each also knows Julia's `Base.IteratorSize` of itself (`size`, from what it wraps) and its
eltype where Julia knows it (`elt`; Base.IteratorEltype), which lang/core/stdlib/
collections.jl turns into the trait values. `iterate(x[, state])` from Zyla code draws the
elements one at a time (`LazyState`), so infinite ones can be iterated; collecting an
infinite one is a MethodError, as in Julia.

Base's `zip` and `enumerate` stay eager (vectors of tuples) unless an argument is lazy;
then they return these lazy ones (lang.core.builtins._zip/_enumerate).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from grammar.errors import ZylaError
from lang.core import current
from lang.core import values as V
from lang.core.functions import typeof
from lang.core.primitives import NONDIFF, HostOnly, prim
from lang.core.primitives_array import SIZES, _eltype, _length, collect_results

HOST = HostOnly("lazy iterators are host values")
# the supertype of every lazy iterator, so that Base methods (lang/core/stdlib/base.jl) can
# collect one before reducing it
LazyIteratorT = V.JType("Iterators.LazyIterator", V.AnyT, abstract=True)


_LAZY_TYPES: dict[str, V.JType] = {}


def lazy_type(name: str) -> V.JType:
    """The type of the lazy iterators of one kind (`Base.Iterators.Filter`), one per kind
    so that `isa(x, Iterators.Filter)` holds."""
    t = _LAZY_TYPES.get(name)
    if t is None:
        t = _LAZY_TYPES[name] = V.JType(f"Base.Iterators.{name}", LazyIteratorT)
    return t


class LazyIter:
    """A lazy Julia iterator: `make(rt)` returns a new Python iterator over its elements;
    `length` is its length, or None when unknown or infinite."""

    def __init__(self, name: str, make: Callable[[Any], Iterator[Any]],
                 length: int | None = None, infinite: bool = False, *,
                 size: SizeKind | None = None,
                 elt: Callable[[], Any] | None = None, inner: tuple = ()) -> None:
        self.name = name
        self.inner = inner  # the iterators it wraps, where Julia's methods look into them
        self.make = make
        self.length = length
        self.infinite = infinite
        self.jtype = lazy_type(name)
        # Julia's IteratorSize of the iterator (see size_kind), and its eltype when Julia
        # knows it (IteratorEltype HasEltype), else None (EltypeUnknown: eltype is Any)
        self.size = size if size is not None else (
            "infinite" if infinite else "length" if length is not None else "unknown")
        self.elt = elt
        #: whether Julia's IteratorEltype is HasEltype (a Zip of a Generator has an eltype,
        #: a Tuple with Any in its place, but is EltypeUnknown)
        self.elt_known = elt is not None

    def jl_eltype(self) -> Any:
        return V.AnyT if self.elt is None else self.elt()

    def jl_iter(self, rt: Any) -> Iterator[Any]:
        return self.make(rt)

    def jl_length(self) -> int:
        if self.length is None:
            if self.name == "Zip" and self.size == "infinite":  # (Base's length of a Zip)
                raise ZylaError("ArgumentError", "iterator is of undefined length")
            if self.name == "Flatten":  # (Base's length of a Flatten)
                raise ZylaError("ArgumentError", "Iterates of the argument to Flatten are not "
                                                 "known to have constant length")
            what = "infinite" if self.infinite else "of unknown length"
            raise ZylaError("MethodError", f"no method matching length(::{self.jtype.name}): "
                                           f"the iterator is {what}",
                            hint="collect it first, or count its elements with a loop")
        return self.length

    def jl_show(self) -> str:
        return f"Base.Iterators.{self.name}(...)"

    #: the count of a Take or Drop made by take/drop (with `inner` the iterator it wraps)
    count: int | None = None

    def _egal(self) -> Any:
        """What `===` compares: a Take or Drop is an immutable struct of its iterator and
        count; any other lazy iterator is itself."""
        if self.count is None:
            return None
        x = self.inner[0]
        k = x._egal() if type(x) is LazyIter else None
        return (self.name, self.count, V.egal_key(x) if k is None else k)

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if type(other) is not LazyIter:
            return False
        k = self._egal()
        return k is not None and k == other._egal()

    def __hash__(self) -> int:
        k = self._egal()
        return id(self) >> 4 if k is None else hash(k)




#: Julia's IteratorSize trait as a value: "length" (HasLength), "unknown" (SizeUnknown),
#: "infinite" (IsInfinite), or an Int N (HasShape{N})
SizeKind = str | int

_LENGTH_FAMILIES = ("Tuple", "NamedTuple", "Dict", "IdDict", "Set", "String", "Pair")


def size_kind(x: Any) -> SizeKind:
    """`Base.IteratorSize(x)` as a SizeKind, for a value or a type."""
    if isinstance(x, LazyIter):
        return x.size
    if isinstance(x, V.JType):
        return _type_size_kind(x)
    if isinstance(x, np.ndarray):
        return x.ndim
    if isinstance(x, V.Range):
        return 1
    if isinstance(x, V.StructValue) and not V.issubtype(x.type, V.NumberT):
        return _struct_size_kind(x)
    return _type_size_kind(typeof(x))


_TRAIT_KINDS = {"HasLength": "length", "SizeUnknown": "unknown", "IsInfinite": "infinite"}


def _struct_size_kind(x: Any) -> SizeKind:
    """A struct's IteratorSize from the program's (or the library's) `Base.IteratorSize`
    methods for it (an `Iterators.Stateful` of an infinite iterator is infinite)."""
    rt = current.runtime()
    trait = rt.interp.call_value(rt.lookup("IteratorSize"), [x])
    t = getattr(trait, "type", None)
    if t is not None and t.name == "HasShape" and t.params and isinstance(t.params[0], int):
        return t.params[0]
    return _TRAIT_KINDS.get(getattr(t, "name", ""), "length")


_LAZY_TYPE_SIZE = {"Filter": "unknown", "TakeWhile": "unknown", "DropWhile": "unknown",
                   "Flatten": "unknown", "Count": "infinite", "Repeated": "infinite",
                   "Cycle": "infinite"}


def _type_size_kind(t: V.JType) -> SizeKind:
    fam = t.family
    if t is V.AnyT:
        return "unknown"
    if V.issubtype(fam, V.AbstractArrayT) or fam is V.AbstractArrayT:
        if fam is V.ArrayT or fam is V.AbstractArrayT:
            if len(t.params) == 2 and isinstance(t.params[1], int):
                return t.params[1]
            raise ZylaError("MethodError", f"IteratorSize of the array type {V.type_name(t)} "
                                           "without its dimension is not known")
        return 1  # the ranges
    if V.issubtype(t, V.NumberT) or t is V.CharT:
        return 0
    if t.name.startswith("Base.Iterators."):
        kind = _LAZY_TYPE_SIZE.get(t.name.rpartition(".")[2])
        if kind is None:
            raise ZylaError("MethodError", f"Zyla knows IteratorSize({V.type_name(t)}) only "
                                           "of a value (it depends on the wrapped iterator)",
                            hint="call Base.IteratorSize on the iterator itself")
        return kind
    return "length"  # Julia's default, for Tuple, Dict, String and iterable structs


def _shape_to_length(k: SizeKind) -> SizeKind:
    return "length" if isinstance(k, int) else k


def _zip_size(kinds: list[SizeKind]) -> SizeKind:
    """Julia's zip_iteratorsize folded over the arguments' kinds."""
    if not kinds:
        return "infinite"
    finite = [k for k in kinds if k != "infinite"]
    if not finite:
        return "infinite"
    if "unknown" in finite:
        return "unknown"
    shapes = {k for k in finite if isinstance(k, int)}
    if len(shapes) == 1 and len(finite) == len(kinds) and all(isinstance(k, int) for k in finite):
        return shapes.pop()  # all of one shape (a shape zipped with an infinite one: length)
    return "length"


def elt_of(x: Any) -> Callable[[], Any] | None:
    """x's eltype, lazily, or None where Julia does not know it (EltypeUnknown)."""
    if isinstance(x, LazyIter):
        return x.elt
    if isinstance(x, V.StructValue) and not V.issubtype(x.type, V.NumberT):
        if _zyla_call("IteratorEltype", x).type.name != "HasEltype":
            return None  # (a Generator's)
        return lambda: _zyla_call("eltype", x)  # (its `eltype` method: a Stateful's is
        # the element type of what it wraps)
    return lambda: _eltype(None, x)


def _zyla_call(name: str, *args: Any) -> Any:
    """The Zyla function `name` called on args."""
    rt = current.runtime()
    return rt.interp.call_value(rt.lookup(name), list(args))


def _zyla_iter(rt: Any, name: str) -> Callable[..., Any]:
    """A host function calling the Zyla function `name` (looked up when called)."""
    return lambda *args: rt.interp.call_value(rt.lookup(name), list(args))


def _size_trait_arg(x: Any) -> Any:
    """size_kind(x) for Zyla's `Core.size_trait`: an Int, or a Symbol."""
    k = size_kind(x)
    return k if isinstance(k, int) else V.Symbol(k)


def eltype_known(x: Any) -> bool:
    """Julia's IteratorEltype of a value or type: False (EltypeUnknown) for the lazy
    iterators whose element type Julia does not compute (Generator, Accumulate)."""
    if isinstance(x, LazyIter):
        return x.elt_known
    if isinstance(x, V.JType) and x.name.startswith("Base.Iterators."):
        kind = x.name.rpartition(".")[2]
        if kind in ("Generator", "Accumulate"):
            return False
        if kind in _OF_WRAPPED and x.params:  # (its type names the iterator it wraps)
            return _zyla_call("IteratorEltype", x.params[0]).type.name == "HasEltype"
        if kind in ("Count", "Repeated"):
            return True
        raise ZylaError("MethodError", f"Zyla knows IteratorEltype({V.type_name(x)}) only "
                                       "of a value (it depends on the wrapped iterator)")
    return True


def _len(x: Any) -> int | None:
    """The length of an iterable when it is known without iterating it."""
    if isinstance(x, LazyIter):
        return x.length
    if isinstance(x, V.StructValue) and not V.issubtype(x.type, V.NumberT):
        if size_kind(x) in ("unknown", "infinite"):
            return None
        rt = current.runtime()  # a struct's length from its `length` method
        return int(rt.interp.call_value(rt.lookup("length"), [x]))
    try:
        return int(_length(None, x))
    except ZylaError:
        return None


def _infinite(x: Any) -> bool:
    if isinstance(x, V.StructValue) and not V.issubtype(x.type, V.NumberT):
        return size_kind(x) == "infinite"
    return isinstance(x, LazyIter) and x.infinite


def _as_int(n: Any) -> int | None:
    """The value of an integer of any integer type (UInt8, Int128, ...), else None."""
    if isinstance(n, (bool, np.bool_)):
        return None
    if isinstance(n, (int, np.integer)):
        return int(n)
    return n.value if type(n) in V.WIDE_INTS else None


def _int(n: Any, what: str) -> int:
    k = _as_int(n)
    if k is None:
        raise ZylaError("MethodError", f"{what} must be an integer, got a value of type "
                                       f"{V.type_name(typeof(n))}")
    if k < 0:
        raise ZylaError("ArgumentError", f"{what} must be non-negative")
    return k


def _counted(xs: Any, name: str) -> tuple[Any, int] | None:
    """The iterator and count of xs when it is a Take (Drop) made by take (drop)."""
    if type(xs) is LazyIter and xs.name == name and xs.count is not None:
        return xs.inner[0], xs.count
    return None


def take(xs: Any, n: Any) -> LazyIter:
    """`Iterators.take(xs, n)`; a take of a take or of a drop folds into one Drop of a
    Take of the innermost iterator (as Julia's methods for Take and Drop do)."""
    n = _int(n, "Take length")
    t = _counted(xs, "Take")
    if t is not None:
        return _take(t[0], min(n, t[1]))
    d = _counted(xs, "Drop")
    if d is not None:
        return _drop(take(d[0], n + d[1]), d[1])
    return _take(xs, n)


def drop(xs: Any, n: Any) -> LazyIter:
    """`Iterators.drop(xs, n)`; a drop of a drop folds into one, a drop of a take is a
    Drop of a Take (of at least n elements: both are empty past them)."""
    n = _int(n, "Drop length")
    d = _counted(xs, "Drop")
    if d is not None:
        return _drop(d[0], n + d[1])
    t = _counted(xs, "Take")
    if t is not None and n > t[1]:
        return _drop(_take(t[0], n), n)
    return _drop(xs, n)


def _take(xs: Any, n: int) -> LazyIter:
    m = _len(xs)
    length = n if m is None and _infinite(xs) else (min(n, m) if m is not None else None)
    k = size_kind(xs)
    it = LazyIter("Take", lambda rt: itertools.islice(rt.iterate(xs), n), length,
                  size="length" if k == "infinite" else _shape_to_length(k), elt=elt_of(xs),
                  inner=(xs,))
    it.count = n
    return it


def _drop(xs: Any, n: int) -> LazyIter:
    m = _len(xs)
    it = LazyIter("Drop", lambda rt: itertools.islice(rt.iterate(xs), n, None),
                  None if m is None else max(m - n, 0), _infinite(xs),
                  size=_shape_to_length(size_kind(xs)), elt=elt_of(xs), inner=(xs,))
    it.count = n
    return it


def partition(xs: Any, n: Any) -> LazyIter:
    """`Iterators.partition(xs, n)`: vectors of n consecutive elements (the last shorter)."""
    k = _as_int(n)
    if k is None or k < 1:
        raise ZylaError("ArgumentError", "cannot create partitions of length "
                        f"{k if k is not None else V.type_name(typeof(n))}")
    n = k

    def make(rt: Any) -> Iterator[Any]:
        it = rt.iterate(xs)
        while True:
            chunk = list(itertools.islice(it, n))
            if not chunk:
                return
            yield collect_results(chunk, (len(chunk),))

    m = _len(xs)
    inner = elt_of(xs)
    elt = None if inner is None else (lambda: V.apply_type(V.ArrayT, (inner(), 1)))
    return LazyIter("PartitionIterator", make, None if m is None else -(-m // n), _infinite(xs),
                    size=_shape_to_length(size_kind(xs)), elt=elt)


def flatten(xs: Any) -> LazyIter:
    inner = elt_of(xs)

    def elt() -> Any:
        t = inner() if inner is not None else V.AnyT
        return V.AnyT if t is V.AnyT or t.name.startswith("Base.") else _eltype(None, t)

    outer = size_kind(xs)
    length = None if outer == "infinite" else _flat_length(_len(xs), inner)
    return LazyIter("Flatten", lambda rt: (y for x in rt.iterate(xs) for y in rt.iterate(x)),
                    length, size="infinite" if outer == "infinite" else
                    "unknown" if length is None else "length",
                    elt=None if inner is None else elt)


def _flat_length(n: int | None, inner: Callable[[], Any] | None) -> int | None:
    """The length of a flatten whose elements all have one length known from their type
    (numbers: 1, `NTuple{k}`: k), as Julia's HasLength; else None."""
    if n is None or inner is None:
        return None
    t = inner()
    if not isinstance(t, V.JType) or t is V.AnyT:
        return None
    if V.issubtype(t, V.NumberT):
        return n
    if t.family is V.TupleT and t.params and all(
            isinstance(p, V.JType) and p.family is not V.VarargT for p in t.params):
        return n * len(t.params)
    return None


def cycle(xs: Any) -> LazyIter:
    def make(rt: Any) -> Iterator[Any]:
        items = list(rt.iterate(xs))
        return itertools.cycle(items) if items else iter(())

    return LazyIter("Cycle", make, 0 if _len(xs) == 0 else None, _len(xs) != 0,
                    size="infinite", elt=elt_of(xs), inner=(xs,))


def countfrom(start: Any = 1, step: Any = None) -> LazyIter:
    """`Iterators.countfrom(start, step)`: start, start + step, ... Base's start is of
    the type of start + step (numbers are promoted together: `countfrom(1, 0.5)` counts
    Float64s, `countfrom(Int[0, 0], [1.0, 2.0])` Vector{Float64}s); the step defaults
    to oneunit(start)."""
    call = _zyla_call
    if step is None:
        step = call("oneunit", start)
    if _is_number(start) and _is_number(step):
        start, step = call("promote", start, step)
    else:
        t = typeof(call("+", start, step))
        if typeof(start) != t:
            start = call("convert", t, start)
    plain = type(start) in (int, float) and type(step) in (int, float)

    def make(rt: Any) -> Iterator[Any]:
        if plain:
            return itertools.count(start, step)
        return itertools.accumulate(itertools.repeat(step), lambda x, s: call("+", x, s),
                                    initial=start)

    return LazyIter("Count", make, None, True, elt=lambda: typeof(start))


def _is_number(x: Any) -> bool:
    return V.issubtype(typeof(x), V.NumberT)


def repeated(x: Any, n: Any = None) -> LazyIter:
    if n is None:
        return LazyIter("Repeated", lambda rt: itertools.repeat(x), None, True,
                        elt=lambda: _typeof(x))
    n = _int(n, "Take length")
    return LazyIter("Take", lambda rt: itertools.repeat(x, n), n, elt=lambda: _typeof(x))


def _typeof(x: Any) -> Any:
    return typeof(x)


def _call(f: Any) -> Callable[..., Any]:
    return lambda *a: current.runtime().interp.call_value(f, list(a))


def lazy_filter(f: Any, xs: Any) -> LazyIter:
    call = _call(f)

    def keep(v: Any) -> bool:
        r = call(v)
        if not isinstance(r, bool):
            raise ZylaError("TypeError", "non-boolean used in boolean context (Iterators.filter)")
        return r

    return LazyIter("Filter", lambda rt: (v for v in rt.iterate(xs) if keep(v)), None,
                    _infinite(xs), size="unknown", elt=elt_of(xs))


def lazy_map(f: Any, *xss: Any) -> LazyIter:
    call = _call(f)
    lens = [_len(x) for x in xss if not _infinite(x)]
    length = min(lens) if lens and all(v is not None for v in lens) else None
    def make(rt: Any) -> Iterator[Any]:
        return (call(*vs) for vs in zip(*[rt.iterate(x) for x in xss], strict=False))

    return LazyIter("Generator", make, length, all(_infinite(x) for x in xss),
                    size=_zip_size([size_kind(x) for x in xss]))


class _Drawn:
    """The elements of one pass over a lazy iterator, drawn when first asked for and kept
    (so that a state can be iterated from more than once, as in Julia)."""

    def __init__(self, it: Iterator[Any]) -> None:
        self.it = it
        self.cache: list[Any] = []

    def get(self, k: int) -> tuple[bool, Any]:
        while len(self.cache) <= k:
            try:
                self.cache.append(next(self.it))
            except StopIteration:
                return False, None
        return True, self.cache[k]


class LazyState:
    """The state of `iterate` over a lazy iterator: the position k in a pass."""

    jtype = V.JType("Base.Iterators.LazyState", V.AnyT)

    def __init__(self, drawn: _Drawn, k: int) -> None:
        self.drawn, self.k = drawn, k

    def jl_show(self) -> str:
        return f"Base.Iterators.LazyState({self.k})"


def lazy_iterate(xs: LazyIter, state: Any = None) -> tuple | None:
    """`iterate(xs[, state])` of a lazy iterator: (element, next state) or nothing. A
    state is a LazyState, or an Int k (the k-th element, as a collection's index)."""
    if state is None:
        drawn, k = _Drawn(iter(xs.jl_iter(current.runtime()))), 0
    elif isinstance(state, LazyState):
        drawn, k = state.drawn, state.k
    elif isinstance(state, int) and not isinstance(state, bool) and state >= 1:
        drawn, k = _Drawn(iter(xs.jl_iter(current.runtime()))), state - 1
    else:
        raise ZylaError("MethodError", f"no method matching iterate(::{xs.jtype.name}, "
                                       f"::{V.type_name(_typeof(state))})")
    ok, v = drawn.get(k)
    return (v, LazyState(drawn, k + 1)) if ok else None


def lazy_rest(xs: LazyIter, state: Any) -> LazyIter:
    """`Iterators.rest(xs, state)` of a lazy iterator: a lazy iterator over the elements of
    xs from the state on (it knows whether xs is infinite, so collecting it is an error)."""
    if isinstance(state, LazyState):
        k = state.k
    elif isinstance(state, int) and not isinstance(state, bool) and state >= 1:
        k = state - 1
    else:
        raise ZylaError("MethodError", f"no method matching Iterators.rest(::{xs.jtype.name}, "
                                       f"::{V.type_name(_typeof(state))})")
    return LazyIter("Rest", lambda rt: itertools.islice(xs.jl_iter(rt), k, None),
                    None if xs.length is None else max(xs.length - k, 0), xs.infinite,
                    size="infinite" if xs.size == "infinite" else "unknown", elt=xs.elt)


#: the lazy iterators whose type carries the type of the iterator they wrap, as Julia's
#: `TakeWhile{I, P}` does (so Base.IteratorEltype of the type is known)
_OF_WRAPPED = ("TakeWhile", "DropWhile")


def _of_wrapped(it: LazyIter, xs: Any) -> LazyIter:
    """it, with the type `Kind{typeof(xs)}`."""
    it.jtype = V.apply_type(lazy_type(it.name), (typeof(xs),))
    return it


def takewhile(f: Any, xs: Any) -> LazyIter:
    call = _call(f)
    return _of_wrapped(LazyIter("TakeWhile",
                                lambda rt: itertools.takewhile(call, rt.iterate(xs)),
                                elt=elt_of(xs)), xs)


def dropwhile(f: Any, xs: Any) -> LazyIter:
    call = _call(f)
    return _of_wrapped(LazyIter("DropWhile",
                                lambda rt: itertools.dropwhile(call, rt.iterate(xs)), None,
                                _infinite(xs), elt=elt_of(xs)), xs)


def lazy_zip(*xss: Any) -> LazyIter:
    lens = [_len(x) for x in xss if not _infinite(x)]
    length = min(lens) if lens and all(v is not None for v in lens) else None
    elts = [elt_of(x) for x in xss]

    def elt() -> Any:
        return V.apply_type(V.TupleT, tuple(V.AnyT if e is None else e() for e in elts))

    if any(is_stateful(x) for x in xss):
        make: Callable[[Any], Iterator[Any]] = lambda rt: _zip_rows(rt, xss)  # noqa: E731
    else:
        make = lambda rt: zip(*[rt.iterate(x) for x in xss], strict=False)  # noqa: E731
    z = LazyIter("Zip", make, length, all(_infinite(x) for x in xss) and bool(xss),
                 size=_zip_size([size_kind(x) for x in xss]), elt=elt, inner=xss)
    z.elt_known = all(e is not None for e in elts)
    return z


def zips_lazily(x: Any) -> bool:
    """Whether Base's `zip` with x among its arguments is a lazy Zip rather than Zyla's
    eager vector of tuples: x is a lazy iterator, a Stateful (which gives up its elements
    only as they are zipped) or an infinite iterator of a program's or Base's struct (an
    infinite `Iterators.product`)."""
    return isinstance(x, LazyIter) or is_stateful(x) or _infinite(x)


def is_stateful(x: Any) -> bool:
    """Whether x is an `Iterators.Stateful`: iterating it takes its elements for good, and
    `Base.isdone(x)` says whether any are left without taking one."""
    return isinstance(x, V.StructValue) and x.type.name == "Stateful"


def _zip_rows(rt: Any, xss: tuple) -> Iterator[tuple]:
    """The tuples of a zip with a Stateful among its iterators, as Base's zip takes them:
    nothing once a Stateful is done; else the others first, then the Stateful ones, so
    that a Stateful loses no element when another iterator runs out first."""
    its = [iter(rt.iterate(x)) for x in xss]
    known = [i for i, x in enumerate(xss) if is_stateful(x)]
    order = [i for i in range(len(xss)) if i not in known] + known
    isdone = rt.lookup("isdone")
    while not any(rt.interp.call_value(isdone, [xss[i]]) is True for i in known):
        row: list[Any] = [None] * len(xss)
        for i in order:
            try:
                row[i] = next(its[i])
            except StopIteration:
                return
        yield tuple(row)


def lazy_enumerate(xs: Any) -> LazyIter:
    inner = elt_of(xs)
    elt = None if inner is None else (lambda: V.apply_type(V.TupleT, (V.Int64T, inner())))
    return LazyIter("Enumerate", lambda rt: ((i + 1, v) for i, v in enumerate(rt.iterate(xs))),
                    _len(xs), _infinite(xs), size=size_kind(xs), elt=elt, inner=(xs,))


def lazy_reverse(xs: Any) -> Any:
    """`Iterators.reverse(xs)`; as Base's methods, the reverse of a Reverse is what it
    reverses, of a `repeated(x)` itself, and of a `cycle(xs)` the cycle of reverse(xs)."""
    if type(xs) is LazyIter and xs.name == "Reverse":
        return xs.inner[0]
    if type(xs) is LazyIter and xs.name == "Repeated":
        return xs
    if type(xs) is LazyIter and xs.name == "Cycle":
        return cycle(lazy_reverse(xs.inner[0]))
    if _infinite(xs):
        raise ZylaError("ArgumentError", "cannot reverse an infinite iterator")
    return LazyIter("Reverse", lambda rt: reversed(list(rt.iterate(xs))), _len(xs),
                    size=size_kind(xs), elt=elt_of(xs), inner=(xs,))


_NO_INIT = object()


def accumulate(f: Any, xs: Any, *, init: Any = _NO_INIT) -> LazyIter:
    """`Iterators.accumulate(f, xs[; init])`: f(f(x1, x2), x3)...; the first value is
    f(init, x1), or without init Base's reduce_first of x1 (`+` makes a Bool an Int)."""
    call = _call(f)

    def make(rt: Any) -> Iterator[Any]:
        it = iter(rt.iterate(xs))
        if init is _NO_INIT:
            acc = next(it, _NO_INIT)
            if acc is _NO_INIT:
                return
            if isinstance(acc, (bool, np.bool_)) and f is rt.lookup("+"):
                acc = int(acc)  # reduce_first(+, x::Bool) = Int(x)
        else:
            acc = init
            x = next(it, _NO_INIT)
            if x is _NO_INIT:
                return
            acc = call(acc, x)
        yield acc
        for x in it:
            acc = call(acc, x)
            yield acc

    return LazyIter("Accumulate", make, _len(xs), _infinite(xs), size=size_kind(xs),
                    inner=(xs,))


def product_elements(*its: Any) -> Any:
    """The elements of `Iterators.product(its...)` in order (the first iterator varying
    fastest), as a Vector; `collect` reshapes it."""
    rt = current.runtime()
    lists = [list(rt.iterate(x)) for x in reversed(its)]
    out = [tuple(reversed(c)) for c in itertools.product(*lists)]
    return collect_results(out, (len(out),))


def lazy_size(it: LazyIter) -> tuple:
    """`size(it)`: Julia's, where it has one (a zip's is the common shape of what it
    zips; an enumerate's, reverse's or accumulate's is its iterator's); else a
    MethodError (`size(Iterators.filter(f, v))`, a zip with an infinite iterator)."""
    if it.name in ("Zip", "Enumerate", "Reverse", "Accumulate") and it.inner:
        rt = current.runtime()
        sizes = [tuple(rt.interp.call_value(rt.lookup("size"), [x])) for x in it.inner]
        out = sizes[-1]
        for s in reversed(sizes[:-1]):
            out = _zip_shape(s, out)
        return out
    raise ZylaError("MethodError", f"no method matching size(::Base.Iterators.{it.name})")


def _zip_shape(a: tuple, b: tuple) -> tuple:
    """Julia's `_promote_tuple_shape` of two sizes: two vectors zip to the shorter length;
    other shapes must be the same."""
    if len(a) == 1 and len(b) == 1:
        return (min(a[0], b[0]),)
    if a != b:
        raise ZylaError("DimensionMismatch", f"dimensions must match: a has dims {a}, "
                                             f"b has dims {b}")
    return a


SIZES[LazyIter] = lazy_size


def lazy_inner(it: Any) -> Any:
    """The iterator a lazy Drop, Cycle, Enumerate, Reverse or Accumulate wraps (Julia's
    `it.xs`, for `Base.isdone`)."""
    if not isinstance(it, LazyIter) or len(it.inner) != 1:
        raise ZylaError("MethodError", f"no method matching Core.lazy_inner(::"
                                       f"{V.type_name(typeof(it))})")
    return it.inner[0]


#: the iterator types that can be called as constructors, as Julia's inner constructors
#: (`Iterators.Filter(f, itr)` is `Iterators.filter(f, itr)`; `Zip` takes a tuple)
_CONSTRUCTORS: dict[str, Callable[..., LazyIter]] = {
    "Filter": lazy_filter, "Flatten": flatten, "TakeWhile": takewhile, "DropWhile": dropwhile,
    "Cycle": cycle, "Enumerate": lazy_enumerate, "Reverse": lazy_reverse, "Take": take,
    "Drop": drop, "Zip": lambda its: lazy_zip(*_tuple_arg(its)),
}


def _tuple_arg(its: Any) -> tuple:
    if not isinstance(its, tuple):
        raise ZylaError("MethodError", "no method matching Base.Iterators.Zip(::"
                                       f"{V.type_name(typeof(its))})")
    return its


def _constructor(kind: str, make: Callable[..., LazyIter]) -> Callable[..., LazyIter]:
    nargs = 1 if kind in ("Flatten", "Cycle", "Enumerate", "Reverse", "Zip") else 2

    def construct(t: V.JType, args: list, kwargs: dict | None) -> LazyIter:
        if kwargs or len(args) != nargs:
            sig = ", ".join(f"::{V.type_name(typeof(a))}" for a in args)
            raise ZylaError("MethodError", f"no method matching Base.Iterators.{kind}({sig})")
        return make(*args)

    return construct


def install(rt: Any) -> None:
    """Register `Iterators.*` (qualified names, plus the unqualified ones Base exports)."""
    b = rt.builtins
    anyt = lambda *a, **k: V.AnyT  # noqa: E731
    b["Iterators.LazyIterator"] = LazyIteratorT
    table: dict[str, Callable[..., Any]] = {
        "take": take, "drop": drop, "partition": partition, "flatten": flatten,
        "cycle": cycle, "countfrom": countfrom, "repeated": repeated,
        "filter": lazy_filter, "takewhile": takewhile,
        "dropwhile": dropwhile, "zip": lazy_zip, "enumerate": lazy_enumerate,
        "reverse": lazy_reverse, "accumulate": accumulate,
    }
    for name, fn in table.items():
        b[f"Iterators.{name}"] = prim(f"Iterators.{name}", fn, HOST, NONDIFF, anyt)
    for name in ("takewhile", "dropwhile", "countfrom", "cycle", "repeated", "flatten",
                 "partition"):
        b.setdefault(name, b[f"Iterators.{name}"])
    for name in ("map", "rest", "peel"):  # written in Zyla (lang/core/stdlib/collections.jl)
        b[f"Iterators.{name}"] = prim(f"Iterators.{name}", _zyla_iter(rt, f"Core.iter_{name}"),
                                      HOST, NONDIFF, anyt)
    for kind in ("Take", "Drop", "Filter", "Flatten", "Cycle", "Count", "Repeated",
                 "TakeWhile", "DropWhile", "Zip", "Enumerate", "Reverse", "Accumulate",
                 "PartitionIterator"):
        b[f"Iterators.{kind}"] = lazy_type(kind)
    for kind, make in _CONSTRUCTORS.items():
        lazy_type(kind).constructor = _constructor(kind, make)  # type: ignore[attr-defined]
    b["Base.Flatten"] = lazy_type("Flatten")
    b["Core.lazy_inner"] = prim("Core.lazy_inner", lazy_inner, HOST, NONDIFF, anyt)
    b["Core.lazy_inners"] = prim("Core.lazy_inners", lambda it: tuple(it.inner), HOST, NONDIFF,
                                 anyt)
    b["Core.bind_builtin"] = prim("Core.bind_builtin", lambda name, v: b.__setitem__(name, v),
                                  HOST, NONDIFF, anyt)
    b["Core.lazy_iterate"] = prim("Core.lazy_iterate", lazy_iterate, HOST, NONDIFF, anyt)
    b["Core.product_elements"] = prim("Core.product_elements", product_elements, HOST, NONDIFF,
                                      anyt)
    b["Core.lazy_rest"] = prim("Core.lazy_rest", lazy_rest, HOST, NONDIFF, anyt)
    b["Core.lazy_map"] = prim("Core.lazy_map", lazy_map, HOST, NONDIFF, anyt)
    b["Core.iterator_size"] = prim("Core.iterator_size", _size_trait_arg, HOST, NONDIFF, anyt)
    b["Core.iterator_eltype_known"] = prim("Core.iterator_eltype_known", eltype_known, HOST,
                                           NONDIFF, anyt)
