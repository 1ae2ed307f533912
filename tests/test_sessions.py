"""Two sessions in one process are two programs: what one defines, another never sees.

The built-in types are shared objects of the process; their methods are each session's
own (lang.core.familytables). Each test makes its sessions in the order that exposed the
sharing: the definition first, then a new session, then both in turn.
"""

from __future__ import annotations

import pytest

from grammar.errors import ZylaError
from lang.door.api import Zyla


def _outcome(z: Zyla, code: str) -> object:
    """The value of `code` in `z`, or the kind of the error it raised."""
    try:
        return z.eval(code)
    except ZylaError as e:
        return e.kind


def test_a_constructor_method_of_a_built_in_type_stays_in_its_session() -> None:
    z1 = Zyla()
    assert z1.eval('Base.Float64(s::String) = 42.0; Float64("1.5")') == 42.0
    z2 = Zyla()
    alone = _outcome(Zyla(), 'Float64("1.5")')
    assert alone == "MethodError"
    assert _outcome(z2, 'Float64("1.5")') == alone
    assert z1.eval('Float64("1.5")') == 42.0  # (and back again: z1 keeps its method)
    assert _outcome(z2, 'Float64("1.5")') == alone


def test_a_parametric_constructor_of_a_built_in_type_stays_in_its_session() -> None:
    z1 = Zyla()
    assert z1.eval('Base.Vector{T}(s::String) where T = T[length(s)]; '
                   'Vector{Float64}("abc")[1]') == 3.0
    z2 = Zyla()
    assert _outcome(z2, 'Vector{Float64}("abc")') == "MethodError"
    assert z1.eval('Vector{Int}("ab")[1]') == 2


@pytest.mark.parametrize(("define", "call", "values"), [
    ('Base.Float64(s::String) = {}.0', 'Float64("x")', (1.0, 2.0)),
    ("@generated g(x) = :(x + {})", "g(10)", (11, 12)),
])
def test_two_sessions_each_with_its_own_definition(define: str, call: str,
                                                    values: tuple) -> None:
    """A method of a built-in constructor, a `@generated` function of one name: each
    session runs its own, in turn."""
    z1, z2 = Zyla(), Zyla()
    z1.eval(define.format(1))
    z2.eval(define.format(2))
    for _ in range(2):
        assert z1.eval(call) == values[0]
        assert z2.eval(call) == values[1]


@pytest.mark.parametrize("first", ["z1", "z2"])
def test_a_struct_constructor_defined_in_one_session_is_not_in_another(first: str) -> None:
    zs = {"z1": Zyla(), "z2": Zyla()}
    zs["z1"].eval("struct P; x::Float64; end; P(s::String) = P(length(s))")
    zs["z2"].eval("struct P; x::Float64; end")
    if first == "z2":
        assert _outcome(zs["z2"], 'P("ab")') == "MethodError"
    assert zs["z1"].eval('P("ab").x') == 2.0
    assert _outcome(zs["z2"], 'P("ab")') == "MethodError"
