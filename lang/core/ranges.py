"""Floating-point ranges as Julia builds them (`start:step:stop`, `range(...; length)`).

Julia does not compute the elements of `0:0.1:1` as `start + k*step` in Float64 (which
gives 0.30000000000000004 for k = 3): it looks for small integers with start = a/d and
step = b/d (a continued-fraction search, Base's `rat`), and computes element k as the
rational (a + k*b)/d, rounded once, so `(0:0.1:1)[4] == 0.3`. Where no such integers
exist it takes start and step as the exact binary fractions they are, in twice the
precision. `range(start, stop; length=n)` interpolates between the two ends in the same
way, so both ends are exact.

Here every float range carries those integers (`Range.exact = (a, b, d)`: element k is
(a + k*b)/d exactly, rounded once to the range's type), found by the same rules as
Julia's; lang.core.values.Range computes its elements from them on the host and, in
compiled code, with integer arithmetic when it is exact in 64 bits and in double-double
arithmetic otherwise. The lengths follow Julia's rules too.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from grammar.errors import ZylaError


def _rat(x: Any, t: type) -> tuple[int, int]:
    """Base's `rat`: the continued-fraction approximation n/d of x whose terms stay
    within the integers exactly representable one float size down; (c, d) of the last
    good step when they would not."""
    m = 2 ** 24 if t is np.float64 else 2 ** 11  # maxintfloat(Float32), (Float16)
    y = t(x)
    a, d, b, c = 1, 1, 0, 0
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        while abs(y) <= m:
            f = int(y)  # trunc
            y = t(y - t(f))
            a, c = f * a + c, a
            b, d = f * b + d, b
            if max(abs(a), abs(b)) > m:
                return c, d
            if b != 0 and t(t(a) / t(b)) == t(x):
                break
            y = t(t(1) / y)
    return a, b


def _maxint(t: type) -> int:
    return 2 ** 53 if t is np.float64 else 2 ** 24  # maxintfloat(T, Int)


def _equal_ratio(n: int, d: int, x: Any, t: type) -> bool:
    return d != 0 and t(n / d) == x


def _between(a: Any, x: Any, b: Any) -> bool:
    return a <= x <= b or b <= x <= a


def _exact_of(start: Any, step: Any) -> tuple[int, int, int]:
    """(a, b, d) with start = a/d and step = b/d exactly (the floats' own fractions)."""
    fs, ft = Fraction(float(start)), Fraction(float(step))
    d = math.lcm(fs.denominator, ft.denominator)
    return fs.numerator * (d // fs.denominator), ft.numerator * (d // ft.denominator), d


def _trunc_div(n: int, d: int) -> int:
    q = abs(n) // abs(d)
    return q if (n >= 0) == (d > 0) else -q


def _over_common_denominator(start: Any, step: Any, t: type) -> tuple[int, int, int] | None:
    """(a, b, den) with start = a/den and step = b/den, from the fractions `_rat` finds
    (den their least common denominator), when those fractions are the floats and a and
    b are integers exact in t; else None (Julia then takes the floats literally)."""
    start_n, start_d = _rat(start, t)
    step_n, step_d = _rat(step, t)
    if not (_equal_ratio(start_n, start_d, start, t) and _equal_ratio(step_n, step_d, step, t)):
        return None
    den = math.lcm(start_d, step_d)
    m = _maxint(t)
    with np.errstate(over="ignore"):
        fits = abs(start * t(den)) <= m and abs(step * t(den)) <= m
    if den == 0 or not fits:
        return None
    return round(float(start * t(den))), round(float(step * t(den))), den


def colon(start: Any, step: Any, stop: Any, t: type) -> tuple[Any, Any, int, tuple]:
    """`start:step:stop` of floats of type t: (start, step, length, exact)."""
    start, step, stop = t(start), t(step), t(stop)
    if step == 0:
        raise ZylaError("ArgumentError", "range step cannot be zero")
    if not all(math.isfinite(float(v)) for v in (start, step, stop)):
        return start, step, _float_length(start, step, stop, t), None
    common = _over_common_denominator(start, step, t)
    if common is not None:
        stop_n, stop_d = _rat(stop, t)
        a, b, den = common
        if _equal_ratio(stop_n, stop_d, stop, t):
            n = max(0, _trunc_div(den * stop_n - stop_d * a + b * stop_d, b * stop_d))
            if (_between(start, t(start + t(n - 1) * step), t(stop + step / t(2)))
                    and not _between(start, t(start + t(n) * step), stop)):
                return start, step, n, common
    return start, step, _float_length(start, step, stop, t), _exact_of(start, step)


def _float_length(start: Any, step: Any, stop: Any, t: type) -> int:
    """Julia's length of a float range taken literally (the fallback of `colon`)."""
    with np.errstate(invalid="ignore", over="ignore"):
        lf = t((stop - start) / step)
    if not math.isfinite(float(lf)) or lf < 0:
        return 0
    if lf == 0:
        return 1
    n = round(float(lf)) + 1  # round half to even, as Julia's round(Int, x)
    last = t(start + t(n - 1) * step)
    n -= int(start < stop < last) + int(start > stop > last)
    return n


def start_step_length(start: Any, step: Any, n: int, t: type) -> tuple[Any, Any, int, tuple]:
    """`range(start; step, length)` of floats: (start, step, length, exact)."""
    start, step = t(start), t(step)
    if not (math.isfinite(float(start)) and math.isfinite(float(step))):
        return start, step, n, None
    return start, step, n, _over_common_denominator(start, step, t) or _exact_of(start, step)


def linspace(start: Any, stop: Any, n: int, t: type) -> tuple[Any, Any, int, tuple]:
    """`range(start, stop; length=n)` of floats: both ends exact, the elements between
    them interpolated: (start, step, length, exact)."""
    start, stop = t(start), t(stop)
    if n < 0:
        raise ZylaError("ArgumentError", f"range(start, stop; length = {n}): negative length")
    if n <= 1:
        if n == 1 and start != stop:
            raise ZylaError("ArgumentError", f"range({start}, stop={stop}, length=1): "
                            "endpoints differ")
        return start, t(0), n, _exact_of(start, 0) if math.isfinite(float(start)) else None
    if not (math.isfinite(float(start)) and math.isfinite(float(stop))):
        return start, t((stop - start) / t(n - 1)), n, None
    step = t((stop - start) / t(n - 1))
    if start == stop:
        a, _, d = _exact_of(start, 0)
        return start, step, n, (a, 0, d)
    start_n, start_d = _rat(start, t)
    stop_n, stop_d = _rat(stop, t)
    if start_d != 0 and stop_d != 0:
        den = math.lcm(start_d, stop_d)
        m = _maxint(t)
        with np.errstate(over="ignore"):
            fits = abs(t(den) * start) <= m and abs(t(den) * stop) <= m
        if den != 0 and fits:
            a, b = round(float(t(den) * start)), round(float(t(den) * stop))
            if t(a / den) == start and t(b / den) == stop:
                return start, step, n, ((n - 1) * a, b - a, (n - 1) * den)
    fs, fe = Fraction(float(start)), Fraction(float(stop))
    d = (n - 1) * math.lcm(fs.denominator, fe.denominator)
    a, b = fs * d, (fe - fs) * d / (n - 1)
    return start, step, n, (int(a), int(b), d)
