"""Reads of local variables assigned on some paths only (lang/core/undefined.py): Julia's
UndefVarError on a path that did not assign them, the value on one that did, compiled and
differentiated code included. Before, such a read gave the placeholder `#undef` as a value."""

from __future__ import annotations

import numpy as np
import pytest

from grammar.errors import ZylaError
from lang.door.api import Zyla
from tests.snippets import session

SRC = """
function maybe(b)
    if b
        x = 1
    end
    x
end
function lastof(n)
    local last
    for i in 1:n
        last = i
    end
    last
end
function either(b)
    if b
        y = 1.0
    else
        y = 2.0
    end
    y
end
sq_if_pos(x) = (if x > 0; y = x^2; end; y)
caught(f, a) = try f(a) catch e; e isa UndefVarError ? e.var : :other end
function in_loop(v)
    s = 0.0
    for x in v
        if x > 0
            t = x
        end
        s += t
    end
    s
end
"""


def z() -> Zyla:
    return session(__name__, SRC)


@pytest.mark.parametrize("call, want", [
    ("maybe(true)", 1), ("lastof(3)", 3), ("either(false)", 2.0),
    ("caught(maybe, false)", "x"), ("caught(lastof, 0)", "last"),
    ("caught(in_loop, [1.0, -1.0])", "t"), ("in_loop([1.0, 2.0])", 3.0),
])
def test_a_read_finds_the_value_or_raises_undefvarerror(call: str, want: object) -> None:
    got = z().eval(call)
    assert (got.name if want in ("x", "last", "t") else got) == want


def test_the_error_names_the_variable() -> None:
    with pytest.raises(ZylaError, match="`x` not defined in local scope"):
        z().eval("maybe(false)")


def test_a_variable_defined_on_every_path_gets_no_check() -> None:
    from lang.core.ir import walk_ops

    fn = z().rt.lookup("either").methods[0].fn
    assert not [op for op in walk_ops(fn.body) if op.attrs.get("fn") == "Core.check_defined"]


def test_compiled_code_keeps_the_check_on_the_host() -> None:
    """A read whose definedness a traced branch decides cannot compile (the call runs on
    the host, where it raises); the gradient where it is defined is the derivative."""
    from backend.compile import compiled_call
    from lang.core.structure import OffloadError

    zz = z()
    with pytest.raises(OffloadError, match="assigned on some paths only"):
        compiled_call(zz.rt, zz.rt.lookup("in_loop"), [np.array([1.0, -1.0])])
    assert zz.eval("gradient(sq_if_pos, 3.0)") == (6.0,)
    with pytest.raises(ZylaError, match="`y` not defined"):
        zz.eval("gradient(sq_if_pos, -3.0)")


def test_let_without_a_value_declares_an_undefined_local(capsys: pytest.CaptureFixture) -> None:
    zz = Zyla()
    zz.eval('x = 10\nlet x\n    try; println(x); catch e; println(typeof(e)); end\n'
            '    x = 3; println(x)\nend\nprintln(x)')
    assert capsys.readouterr().out.split() == ["UndefVarError", "3", "10"]
