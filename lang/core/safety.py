"""Safe loading: what a Zyla program can reach outside the language.

Running or including a `.jl` file cannot reach Python or the shell:

- the host runtime resolves names only in Zyla's own namespaces (globals, built-ins,
  modules); `x.name` reads struct fields, NamedTuple entries and module members, never a
  Python attribute (so `f.__globals__`, `"s".__class__` are `FieldError`s);
- there is no `ccall`, `eval`, `Meta.parse`, `include_string`, `ENV` or `Libc`
  (lang.door.diagnostics names them as unsupported when a program uses them);
- `include(path)` reads only regular files and parses them as Zyla source;
- running an external command, `run(Cmd(["prog", "arg"]))`, is refused unless the user
  opted in (`zyla run --allow-shell FILE.jl`, `zyla --allow-shell`), which sets
  `Policy.allow_shell`; even then the command runs without a shell (no expansion).

`policy(rt)` is the runtime's policy; `install(rt)` registers `run` and `Cmd`.
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from typing import Any

from grammar.errors import ZylaError
from lang.core import values as V
from lang.core.functions import typeof
from lang.core.primitives import NONDIFF, HostOnly, prim

CmdT = V.JType("Cmd", V.AnyT)


@dataclass
class Policy:
    """What a program may do beyond computing and printing."""

    allow_shell: bool = False


def policy(rt: Any) -> Policy:
    """The runtime's policy (a default, restrictive one if none was set)."""
    p = getattr(rt, "safety_policy", None)
    if p is None:
        p = rt.safety_policy = Policy()
    return p


class Cmd:
    """An external command as an argument vector (Julia's `Cmd`); never run by a shell."""

    jtype = CmdT

    def __init__(self, argv: tuple[str, ...]) -> None:
        self.argv = argv

    def jl_show(self) -> str:
        return "`" + " ".join(self.argv) + "`"


def make_cmd(args: Any) -> Cmd:
    """`Cmd(["prog", "arg", ...])`: a command from a vector (or tuple) of strings."""
    import numpy as np

    if isinstance(args, np.ndarray):
        items = list(args.reshape(-1).tolist())
    elif isinstance(args, (tuple, list)):
        items = list(args)
    else:
        raise ZylaError("MethodError",
                        "Cmd expects a vector of strings, e.g. Cmd([\"ls\", \"-l\"])")
    if not items or not all(isinstance(a, str) for a in items):
        raise ZylaError("ArgumentError", "Cmd expects a non-empty vector of strings")
    return Cmd(tuple(items))


def run_cmd(rt: Any, cmd: Any) -> None:
    """`run(cmd)`: run an external command (only with --allow-shell), wait for it, and
    raise a ProcessFailedException-style error if it fails."""
    if not policy(rt).allow_shell:
        raise ZylaError(
            "ErrorException", "running external commands is disabled",
            hint="a program can run commands only when the user allows it: "
                 "`zyla run --allow-shell FILE.jl`")
    if not isinstance(cmd, Cmd):
        raise ZylaError("MethodError", f"no method matching run(::{V.type_name(_typeof(cmd))})",
                        hint="build the command with Cmd([\"prog\", \"arg\", ...])")
    rt.stdout.flush()
    try:
        res = subprocess.run(list(cmd.argv), stdout=subprocess.PIPE, stderr=None, check=False)
    except OSError as e:
        raise ZylaError("IOError", f"could not spawn {cmd.jl_show()}: {e.strerror}") from None
    rt.stdout.write(res.stdout.decode("utf-8", "replace"))
    sys.stderr.flush()
    if res.returncode != 0:
        raise ZylaError("ProcessFailedException",
                        f"failed process: {cmd.jl_show()}, exit status {res.returncode}")
    return None


def audit_namespace(rt: Any) -> list[str]:
    """Names bound in the runtime's built-ins or globals to raw Python objects a
    program must never hold (modules, classes, plain Python functions): should be empty.
    Zyla values, primitives and generic functions are what a program may see."""
    import types

    bad = []
    for space in (rt.builtins, rt.globals):
        for name, v in space.items():
            if isinstance(v, (types.ModuleType, types.FunctionType, types.BuiltinFunctionType,
                              types.MethodType, type)):
                bad.append(name)
    return sorted(bad)


def _typeof(x: Any) -> V.JType:
    return typeof(x)


def install(rt: Any) -> None:
    """Register `run` and `Cmd` in the runtime's built-ins."""
    host_only = HostOnly("external commands run on the host")
    rt.builtins["Cmd"] = prim("Cmd", make_cmd, host_only, NONDIFF, lambda *a, **k: CmdT)
    rt.builtins["run"] = prim("run", lambda cmd: run_cmd(rt, cmd), host_only, NONDIFF,
                              lambda *a, **k: V.NothingT)
    policy(rt)
