"""User modules: `module M ... end`, `export`, `using .M`, `using M: a, b`, `import M`.

The lowering names a module's globals `M.name` (lang.core.lower.Lowerer.gname), so a module
is a namespace inside the runtime's one global table; `M` itself is bound to a
`ModuleValue`, through which `M.f` resolves. `using` binds the module's exported names
(or the listed ones) in the namespace that runs it; `import M` binds only `M`. The
runtime keeps a stack of the modules being run so that `include` inside a module body
defines into that module.
"""

from __future__ import annotations

from typing import Any

from grammar.errors import ZylaError
from lang.core import current
from lang.core import values as V
from lang.core.primitives import NONDIFF, HostOnly, prim


def module_enter(full: str) -> None:
    """Start running the body of module `full` (`M` or `Outer.M`)."""
    rt = current.runtime()
    mv = rt.modules.get(full)
    if mv is None or full in ("Base", "Core", "Main"):
        mv = rt.modules[full] = V.ModuleValue(full.rpartition(".")[2])
        mv.full = full  # type: ignore[attr-defined]
        mv.exports = []  # type: ignore[attr-defined]
    rt.set_global(full, mv)
    rt.module_stack.append(full)
    return None


def module_exit(full: str) -> None:
    rt = current.runtime()
    if rt.module_stack and rt.module_stack[-1] == full:
        rt.module_stack.pop()
    return None


def export(full: str, names: tuple) -> None:
    mv = current.runtime().modules[full]
    mv.exports.extend(n for n in names if n not in mv.exports)  # type: ignore[attr-defined]
    return None


def user_module(rt: Any, name: str, within: str | None) -> Any:
    """The user module `name` as seen from module `within` (None: Main), or None."""
    for full in ([f"{within}.{name}"] if within else []) + [name]:
        mv = rt.modules.get(full)
        if mv is not None and hasattr(mv, "exports"):
            return mv
    return None


def use(rt: Any, mv: Any, names: tuple, is_import: bool, within: str | None) -> None:
    """Bind a user module's names where `using`/`import` runs."""
    full = mv.full
    wanted = names if names else (() if is_import else tuple(mv.exports))
    for n in wanted:
        key = f"{full}.{n}"
        if key not in rt.globals:
            raise ZylaError("UndefVarError", f"`{n}` not defined in `{full}`")
        rt.set_global(f"{within}.{n}" if within else n, rt.globals[key])
    if within is not None and (is_import or not names):
        rt.set_global(f"{within}.{mv.name}", mv)
    return None


def install(rt: Any) -> None:
    """Register the module built-ins in `rt.builtins`."""
    host = HostOnly("module definitions run on the host")
    anyt = lambda *a, **k: V.AnyT  # noqa: E731
    rt.module_stack = []
    b = rt.builtins
    for name, f in {"Core.module_enter": module_enter, "Core.module_exit": module_exit,
                    "Core.export": export}.items():
        b[name] = prim(name, f, host, NONDIFF, anyt)
