"""Safe loading: a `.jl` program cannot reach Python or the shell.

Each test tries an escape a hostile file might attempt — Python attributes through
`x.name` / `getproperty`, `Core.` internals called with hostile arguments, code in
strings (`eval`, `Meta.parse`, `parse`, interpolation, format strings), `include` of
non-Zyla files and devices, `ccall`, `ENV`, external commands — and checks that it ends
in an ordinary Zyla error, that no Python object comes back, and that a canary file a
successful escape would create does not appear. Running commands works only with
`--allow-shell`.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from grammar.errors import ZylaError
from lang.core import values as V
from lang.core.safety import audit_namespace, configure, policy
from lang.door.cli import dispatch
from lang.door.wiring import Runtime


@pytest.fixture(scope="module")
def rt() -> Runtime:
    r = Runtime()
    r.current_file = "hostile.jl"
    r.run_source("struct Box3\n    a\nend\nb = Box3(1.0)\nf(x) = x\ng = x -> x + 1\n"
                 "y, back = pullback(x -> 2x, 1.0)\nnt = (a = 1,)\n", "setup.jl")
    return r


@pytest.fixture()
def canary(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "pwned"
    yield path
    assert not path.exists(), "an escape created the canary file"


def _zyla_error(rt: Runtime, src: str) -> ZylaError:
    with pytest.raises(ZylaError) as info:
        rt.run_source(src, "hostile.jl")
    assert info.value.kind != "InternalError", info.value
    return info.value


VALUES = ["1", "1.5", '"s"', ":sym", "[1.0]", "(1, 2)", "nt", "b", "f", "g", "back", "Box3",
          "Float64", "Base", "Main", "Core", "nothing", "sin", "typeof(f)", "1:3"]
ATTRS = ["__class__", "__dict__", "__globals__", "__init__", "__builtins__", "__module__",
         "__code__", "__subclasses__", "impl", "fn", "host", "rt", "interp", "globals",
         "builtins", "methods", "captures", "fields", "type", "family"]


@pytest.mark.parametrize("value", VALUES)
def test_dot_never_reaches_python_attributes(rt: Runtime, value: str) -> None:
    for attr in ATTRS:
        for src in (f"({value}).{attr}", f"getproperty({value}, :{attr})"):
            try:
                got = rt.run_source(src, "hostile.jl")
            except ZylaError as e:
                assert e.kind in ("FieldError", "UndefVarError", "MethodError"), (src, e)
                continue
            # a few names are real Zyla members (a module's own binding); never Python's
            assert attr in ("fields", "type", "methods", "family") or value in (
                "Base", "Main", "Core"), (src, got)
            assert not callable(got) or hasattr(got, "methods") or hasattr(got, "host"), (src, got)


def test_setproperty_cannot_touch_python_state(rt: Runtime) -> None:
    for src in ("b.__class__ = 1", "setproperty!(f, :__name__, \"x\")",
                "setproperty!(Base, :sin, 1)", "nt.a = 2"):
        _zyla_error(rt, src)
    assert rt.lookup("sin") is rt.builtins["sin"]


def test_namespace_holds_no_raw_python_objects(rt: Runtime) -> None:
    assert audit_namespace(rt) == []


class _Timeout(BaseException):
    pass


def test_every_builtin_with_hostile_arguments(canary: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """Every built-in (Core internals included), called with code-like strings and odd
    values, ends in a Zyla error or a value: no Python exception, no hang, no escape.
    (A fresh runtime: internals such as `Core.module_enter` may leave its state odd.)"""
    rt = Runtime()
    payload = f'"__import__(\'os\').system(\'touch {canary}\')"'
    arglists = ["", payload, f"{payload}, 1", f":__class__, {payload}", "1.0, :__dict__"]

    def alarm(*_: object) -> None:
        raise _Timeout()

    old = signal.signal(signal.SIGALRM, alarm)
    problems = {}
    try:
        for name in sorted(rt.builtins):
            if name in ("exit",):
                continue
            rt.globals["fuzz_f"] = rt.builtins[name]
            for args in arglists:
                src = f"fuzz_f({args})"
                signal.setitimer(signal.ITIMER_REAL, 5.0)
                try:
                    rt.run_source(src, "hostile.jl")
                except ZylaError as e:
                    if e.kind == "InternalError":
                        problems[name] = f"{src}: {e}"
                except _Timeout:
                    problems[name] = f"{src}: timed out"
                except BaseException as e:  # noqa: BLE001 — anything else is a finding
                    problems[name] = f"{src}: {type(e).__name__}: {e}"
                finally:
                    signal.setitimer(signal.ITIMER_REAL, 0)
    finally:
        signal.signal(signal.SIGALRM, old)
        rt.globals.pop("fuzz_f", None)
        capsys.readouterr()
    assert problems == {}


@pytest.mark.parametrize("src", [
    'include_string(Main, "1")',
    'ccall(:system, Int32, (Cstring,), "ls")', "cglobal(:errno)", 'Libc.system("ls")',
    'pyimport("os")', "Base.__import__",
    'run(Cmd(["touch", "x"]))', 'import os', "Base.Libc", "Core.Compiler",
])
def test_escape_hatches_are_closed(rt: Runtime, src: str) -> None:
    _zyla_error(rt, src)


def test_evaluated_code_obeys_the_same_rules(canary: Path) -> None:
    """`eval`, `@eval`, `Meta.parse`, macros and `invokelatest` run Zyla code (Julia's
    metaprogramming is part of the language); what they run is refused exactly where the
    program's own code would be: no file outside the rules, no C, no shell. (A fresh
    runtime, the current one: `eval` runs in the current runtime's current module.)"""
    rt = Runtime()
    assert rt.run_source('eval(Meta.parse("1 + 1")) + Core.eval(Main, 1)', "h.jl") == 3
    refused = {
        'eval(Meta.parse("read(\\"/etc/passwd\\", String)"))': "SystemError",
        '@eval read("/etc/passwd", String)': "SystemError",
        'macro m(); :(read("/etc/passwd", String)); end; @m()': "SystemError",
        'Base.invokelatest(read, "/etc/passwd", String)': "SystemError",
        f'eval(:(run(Cmd(["touch", "{canary}"]))))': "ErrorException",
        'eval(:(ccall(:system, Int32, (Cstring,), "ls")))': "UndefVarError",
        'Core.eval(Main, :(Libc.system("ls")))': "UndefVarError",
    }
    for src, kind in refused.items():
        assert _zyla_error(rt, src).kind == kind, src


def test_code_in_strings_is_never_run(rt: Runtime, canary: Path) -> None:
    code = f"__import__('os').system('touch {canary}')"
    for src in (f'parse(Int, "{code}")', f'parse(Float64, "{code}")',
                f'string("$(1 + 1)", "{code}")', f'Printf.@sprintf("%s %d", "{code}", 1)',
                f'Symbol("{code}")', f'include("{code}")'):
        try:
            rt.run_source(src.replace("Printf.@sprintf", "@sprintf"), "hostile.jl")
        except ZylaError as e:
            assert e.kind != "InternalError", (src, e)


def test_include_reads_only_regular_files_as_zyla(tmp_path: Path, canary: Path) -> None:
    rt = Runtime()
    configure(rt, None, allow_read=[str(tmp_path)])  # the file gate lets it read here
    py = tmp_path / "evil.py"
    py.write_text(f"import os\nos.system('touch {canary}')\n")
    err = _zyla_error(rt, f'include("{py}")')
    assert err.kind in ("ParseError", "UndefVarError")
    assert "not a regular file" in _zyla_error(rt, f'include("{tmp_path}")').message
    assert _zyla_error(rt, 'include("/dev/zero")').kind == "SystemError"
    if Path("/etc/passwd").exists():
        _zyla_error(rt, 'include("/etc/passwd")')
    assert _zyla_error(rt, "include(42)").kind == "MethodError"


def test_run_needs_allow_shell(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "made_by_run"
    prog = tmp_path / "cmd.jl"
    prog.write_text(f'run(Cmd(["touch", "{target}"]))\nprintln("ran")\n')
    assert dispatch(["run", str(prog)]) == 1
    err = capsys.readouterr().err
    assert "running external commands is disabled" in err and "--allow-shell" in err
    assert not target.exists()
    assert dispatch(["run", "--allow-shell", str(prog)]) == 0
    assert target.exists() and "ran" in capsys.readouterr().out
    target.unlink()
    assert dispatch(["--allow-shell", "run", str(prog)]) == 0
    assert target.exists()


def test_commands_never_go_through_a_shell(tmp_path: Path, canary: Path) -> None:
    rt = Runtime()
    policy(rt).allow_shell = True
    err = _zyla_error(rt, f'run(Cmd(["sh -c \'touch {canary}\'"]))')
    assert "could not spawn" in err.message
    assert _zyla_error(rt, 'run("ls")').kind == "MethodError"  # strings are not commands
    assert _zyla_error(rt, "Cmd([1, 2])").kind == "ArgumentError"


def test_policy_is_per_runtime() -> None:
    a, b = Runtime(), Runtime()
    policy(a).allow_shell = True
    assert policy(b).allow_shell is False
    assert isinstance(V.JType, type)  # (the audit flags classes; Zyla types are instances)


def test_error_messages_do_not_leak_python_reprs(rt: Runtime) -> None:
    for src in ('sin("a")', "nothing + 1", "[1, 2] * [3, 4]", "f.__globals__"):
        e = _zyla_error(rt, src)
        assert "<function" not in e.message and "object at 0x" not in e.message, e.message
        assert os.sep + "lang" + os.sep not in e.message
