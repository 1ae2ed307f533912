"""Julia's lazy iterators (`Base.Iterators`) on the host.

Each `Iterators.f(...)` returns a `LazyIter`: a recipe that makes a fresh Python iterator
whenever the value is iterated (so it can be iterated twice, as in Julia), with a length
when one is known. The runtime iterates it through the `jl_iter` protocol and asks
`length` through `jl_length`; `collect` materialises it. Infinite iterators
(`countfrom`, `cycle`, `repeated(x)`) are fine as long as something stops them (`take`,
`zip` with a finite one, a `break`).

Base's `zip` and `enumerate` stay eager (vectors of tuples) unless an argument is lazy;
then they return these lazy ones (lang.core.builtins._zip/_enumerate).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import Any

from grammar.errors import ZylaError
from lang.core import current
from lang.core import values as V
from lang.core.primitives import NONDIFF, HostOnly, prim
from lang.core.primitives_array import _length, collect_results

HOST = HostOnly("lazy iterators are host values")
# the supertype of every lazy iterator, so that Base methods (lang/core/stdlib/base.jl) can
# collect one before reducing it
LazyIteratorT = V.JType("Iterators.LazyIterator", V.AnyT, abstract=True)


class LazyIter:
    """A lazy Julia iterator: `make(rt)` returns a new Python iterator over its elements;
    `length` is its length, or None when unknown or infinite."""

    def __init__(self, name: str, make: Callable[[Any], Iterator[Any]],
                 length: int | None = None, infinite: bool = False) -> None:
        self.name = name
        self.make = make
        self.length = length
        self.infinite = infinite
        self.jtype = V.JType(f"Base.Iterators.{name}", LazyIteratorT)

    def jl_iter(self, rt: Any) -> Iterator[Any]:
        return self.make(rt)

    def jl_length(self) -> int:
        if self.length is None:
            what = "infinite" if self.infinite else "of unknown length"
            raise ZylaError("MethodError", f"no method matching length(::{self.jtype.name}): "
                                           f"the iterator is {what}",
                            hint="collect it first, or count its elements with a loop")
        return self.length

    def jl_show(self) -> str:
        return f"Base.Iterators.{self.name}(...)"




def _len(x: Any) -> int | None:
    """The length of an iterable when it is known without iterating it."""
    if isinstance(x, LazyIter):
        return x.length
    try:
        return int(_length(None, x))
    except ZylaError:
        return None


def _infinite(x: Any) -> bool:
    return isinstance(x, LazyIter) and x.infinite


def _int(n: Any, what: str) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ZylaError("ArgumentError", f"{what} must be a non-negative Int, got {n!r}")
    return n


def take(xs: Any, n: Any) -> LazyIter:
    n = _int(n, "take: the count")
    m = _len(xs)
    length = n if m is None and _infinite(xs) else (min(n, m) if m is not None else None)
    return LazyIter("Take", lambda rt: itertools.islice(rt.iterate(xs), n), length)


def drop(xs: Any, n: Any) -> LazyIter:
    n = _int(n, "drop: the count")
    m = _len(xs)
    return LazyIter("Drop", lambda rt: itertools.islice(rt.iterate(xs), n, None),
                    None if m is None else max(m - n, 0), _infinite(xs))


def partition(xs: Any, n: Any) -> LazyIter:
    """`Iterators.partition(xs, n)`: vectors of n consecutive elements (the last shorter)."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ZylaError("ArgumentError", f"cannot create partitions of length {n!r}")

    def make(rt: Any) -> Iterator[Any]:
        it = rt.iterate(xs)
        while True:
            chunk = list(itertools.islice(it, n))
            if not chunk:
                return
            yield collect_results(chunk, (len(chunk),))

    m = _len(xs)
    return LazyIter("PartitionIterator", make, None if m is None else -(-m // n), _infinite(xs))


def flatten(xs: Any) -> LazyIter:
    return LazyIter("Flatten", lambda rt: (y for x in rt.iterate(xs) for y in rt.iterate(x)))


def cycle(xs: Any) -> LazyIter:
    def make(rt: Any) -> Iterator[Any]:
        items = list(rt.iterate(xs))
        return itertools.cycle(items) if items else iter(())

    return LazyIter("Cycle", make, 0 if _len(xs) == 0 else None, _len(xs) != 0)


def countfrom(start: Any = 1, step: Any = 1) -> LazyIter:
    return LazyIter("Count", lambda rt: itertools.count(start, step), None, True)


def repeated(x: Any, n: Any = None) -> LazyIter:
    if n is None:
        return LazyIter("Repeated", lambda rt: itertools.repeat(x), None, True)
    n = _int(n, "repeated: the count")
    return LazyIter("Take", lambda rt: itertools.repeat(x, n), n)


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
                    _infinite(xs))


def lazy_map(f: Any, *xss: Any) -> LazyIter:
    call = _call(f)
    lens = [_len(x) for x in xss if not _infinite(x)]
    length = min(lens) if lens and all(v is not None for v in lens) else None
    def make(rt: Any) -> Iterator[Any]:
        return (call(*vs) for vs in zip(*[rt.iterate(x) for x in xss], strict=False))

    return LazyIter("Generator", make, length, all(_infinite(x) for x in xss))


def takewhile(f: Any, xs: Any) -> LazyIter:
    call = _call(f)
    return LazyIter("TakeWhile", lambda rt: itertools.takewhile(call, rt.iterate(xs)))


def dropwhile(f: Any, xs: Any) -> LazyIter:
    call = _call(f)
    return LazyIter("DropWhile", lambda rt: itertools.dropwhile(call, rt.iterate(xs)), None,
                    _infinite(xs))


def lazy_zip(*xss: Any) -> LazyIter:
    lens = [_len(x) for x in xss if not _infinite(x)]
    length = min(lens) if lens and all(v is not None for v in lens) else None
    return LazyIter("Zip", lambda rt: zip(*[rt.iterate(x) for x in xss], strict=False), length,
                    all(_infinite(x) for x in xss))


def lazy_enumerate(xs: Any) -> LazyIter:
    return LazyIter("Enumerate", lambda rt: ((i + 1, v) for i, v in enumerate(rt.iterate(xs))),
                    _len(xs), _infinite(xs))


def lazy_reverse(xs: Any) -> LazyIter:
    if _infinite(xs):
        raise ZylaError("ArgumentError", "cannot reverse an infinite iterator")
    return LazyIter("Reverse", lambda rt: reversed(list(rt.iterate(xs))), _len(xs))


def accumulate(f: Any, xs: Any) -> LazyIter:
    call = _call(f)
    return LazyIter("Accumulate", lambda rt: itertools.accumulate(rt.iterate(xs), call),
                    _len(xs), _infinite(xs))


def install(rt: Any) -> None:
    """Register `Iterators.*` (qualified names, plus the unqualified ones Base exports)."""
    b = rt.builtins
    anyt = lambda *a, **k: V.AnyT  # noqa: E731
    b["Iterators.LazyIterator"] = LazyIteratorT
    table: dict[str, Callable[..., Any]] = {
        "take": take, "drop": drop, "partition": partition, "flatten": flatten,
        "cycle": cycle, "countfrom": countfrom, "repeated": repeated,
        "filter": lazy_filter, "map": lazy_map, "takewhile": takewhile,
        "dropwhile": dropwhile, "zip": lazy_zip, "enumerate": lazy_enumerate,
        "reverse": lazy_reverse, "accumulate": accumulate,
    }
    for name, fn in table.items():
        b[f"Iterators.{name}"] = prim(f"Iterators.{name}", fn, HOST, NONDIFF, anyt)
    for name in ("takewhile", "dropwhile", "countfrom", "cycle", "repeated", "flatten",
                 "partition"):
        b.setdefault(name, b[f"Iterators.{name}"])
