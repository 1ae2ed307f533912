"""The one place that ties the floors together.

Importing this module loads autodiff and the backend and connects them, and the front
door's own built-ins, to the language core through the core's registration points:

- `lang.core.runtime.INSTALLERS`: every new `Runtime` gets the built-ins of the floors
  above the core (autodiff's primitives and rules, the backend's dumps, the front door's
  diagnostics, gradcheck and plots); `STARTUP_FILES` adds autodiff's library file `ad.jl`
  (`gradient`, `pullback`, `jacobian`, ... written in Zyla);
- `lang.core.interp.set_offload`: the compile tier, and the tiering policy
  (backend.tiering) that every call of a Zyla function made by host-run code goes through;
  `set_watch` and `set_osr`: the policy's restart of a long host call and on-stack
  replacement of a long host loop.

`Runtime` is the core's class, named here so that whoever makes one through the front
door has the whole language.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from autodiff import forward as ad_forward
from autodiff import rules as ad_rules
from autodiff import runtime as ad_runtime
from backend import dumps, sharding, tiering  # noqa: F401  (sharding: Zyla.shard_batch)
from lang.core import builtins as core_builtins
from lang.core import collector, current, interp
from lang.core import runtime as core_runtime
from lang.core.safety import configure
from lang.door import diagnostics, figures, gradcheck, plots

Runtime = core_runtime.Runtime

# in this order: autodiff's primitives before its rules, its rules before forward mode
# (which attaches the forward rules of every primitive registered by then)
core_runtime.INSTALLERS.extend([diagnostics.install, gradcheck.install, plots.install,
                                figures.install,
                                ad_runtime.install, ad_rules.install, ad_forward.install,
                                dumps.install])
core_runtime.STARTUP_FILES.append("ad.jl")
interp.set_offload(tiering.offload, tiering.tiered_call)
interp.set_watch(tiering.watch)
interp.set_osr(tiering.replace_loop)
core_builtins.RESULT_TYPE.append(lambda f, elts: dumps.result_type(current.runtime(), f, elts))


def new_runtime(filename: str, allow_shell: bool = False, allow_read: Sequence[str] = (),
                allow_write: Sequence[str] = (), allow_env: Sequence[str] = ()) -> Any:
    """A runtime for running `filename` (a path, or "none"/"REPL"), with the safety policy
    set from the user's flags (lang.core.safety)."""
    rt = Runtime()
    rt.current_file = filename
    configure(rt, filename, list(allow_read), list(allow_write), allow_shell)
    env = rt.builtins["ENV"]  # (the host variables the user named, where set)
    for name in allow_env:
        if name in os.environ:
            env[name] = os.environ[name]
    collector.settle()  # (the standard library is loaded: it lives as long as the process)
    return rt
