"""Floor 2: the language without a compiler. Imports `grammar` only (and numpy/JAX).

Read in pipeline order:
- `lower.py` (with `scans.py`, `macros.py`, `literals.py`): AST -> SSA IR with structured
  `if`/`for`/`while` ops; `ir.py` the IR and its printer, `irparse.py` its parser,
  `verify.py` its verifier.
- `values.py` (Julia types, the host representation of values), `numeric.py` (the numeric
  tower), `functions.py` (generic functions, methods, dispatch, `typeof`).
- `interp.py`: the host interpreter, the reference semantics.
- `primitives*.py`: the primitive table, each primitive with its host implementation,
  JAX lowering, pullback source and abstract evaluation; `choices.py` where a lowering
  has several forms; `structure.py` values as JAX leaves and a skeleton.
- `builtins*.py`, `show.py`, `printf.py`, `exceptions.py`, `modules.py`, `safety.py`: the
  rest of Base; `stdlib/*.jl` the parts written in Zyla, cached by `frontcache.py`.
- `runtime.py`: `Runtime`, one program's world, and the registration points the floors
  above fill (`INSTALLERS`, `STARTUP_FILES`; `interp.set_offload`). Start reading here,
  at `Runtime.run_source`.
"""
