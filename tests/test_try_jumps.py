"""`try`/`catch` bodies inside functions and loops (lang.core.tryjumps, the boxing scan).

A try body runs as a closure: an assignment in it must update the enclosing function's
variable, and a `break`, `continue` or `return` in it must leave the enclosing loop or
function, as in Julia. Before, `s = 7` inside a `try` was lost and `continue`/`return`
ended only the try body: silent wrong answers. A jump with no loop to leave, or inside
`finally`, is a clear SyntaxError.
"""

from __future__ import annotations

import pytest

from grammar.errors import ZylaError
from lang.door.api import Zyla

PROGRAM = """
function assign_in_try()
    s = 0
    try
        s = 7
    catch
    end
    s
end
function update_in_loop()
    s = 0
    for i in 1:4
        try
            s += i
        catch
        end
    end
    s
end
function skip_in_try()
    s = 0
    for i in 1:5
        try
            i == 2 && continue
            i == 4 && break
            s += 10i
        finally
            s += 1
        end
    end
    s
end
function return_in_try(x)
    try
        x < 0 && return "negative"
        sqrt(x) > 2 && error("big")
    catch e
        return "caught " * e.msg
    end
    "plain"
end
function continue_in_catch(strs)
    out = Int[]
    for s in strs
        v = try
            parse(Int, s)
        catch
            continue
        end
        push!(out, v)
    end
    out
end
function nested(n)
    hits = 0
    i = 0
    while true
        i += 1
        try
            try
                i > n && break
                i % 2 == 0 && continue
            finally
                hits += 100
            end
            hits += 1
        catch
        end
    end
    (i, hits)
end
function return_from_inner_loop()
    try
        for i in 1:10
            i == 3 && return i
        end
    catch
    end
    -1
end
"""


@pytest.mark.parametrize("mode", ["never", "auto"])
def test_assignments_and_jumps_in_try_bodies(mode: str) -> None:
    z = Zyla()
    z.rt.compile_mode = mode
    z.eval(PROGRAM)
    assert z.eval("assign_in_try()") == 7
    assert z.eval("update_in_loop()") == 10
    # i=1: +10 +1; i=2: continue, finally +1; i=3: +30 +1; i=4: break, finally +1
    assert z.eval("skip_in_try()") == 44
    assert z.eval("(return_in_try(-1.0), return_in_try(9.0), return_in_try(1.0))") == (
        "negative", "caught big", "plain")
    assert list(z.eval('continue_in_catch(["1", "x", "3"])')) == [1, 3]
    # i = 1..4: the finally runs each time; odd i add 1; i = 5 breaks (finally too)
    assert z.eval("nested(4)") == (5, 502)
    assert z.eval("return_from_inner_loop()") == 3


def test_a_top_level_loop_continues_from_a_catch() -> None:
    z = Zyla()
    z.eval('acc = 0\nfor s in ["1", "a", "2"]\n    global acc\n'
           '    try\n        acc += parse(Int, s)\n    catch\n        continue\n    end\n'
           '    acc += 100\nend')
    assert z.eval("acc") == 203


@pytest.mark.parametrize("src,msg", [
    ("function f(x)\n    continue\n    x\nend", "continue outside a loop"),
    ("function f(x)\n    try\n        break\n    catch\n    end\n    x\nend",
     "break outside a loop"),
    ("g = () -> begin\n    for i in 1:2\n        h = () -> continue\n    end\nend",
     "continue outside a loop"),
    ("function f(x)\n    for i in 1:2\n        try\n        finally\n            break\n"
     "        end\n    end\nend", "inside `finally` are not supported"),
])
def test_jumps_with_nothing_to_leave_are_syntax_errors(src: str, msg: str) -> None:
    with pytest.raises(ZylaError) as e:
        Zyla().eval(src)
    assert "SyntaxError" in str(e.value) and msg in str(e.value)
