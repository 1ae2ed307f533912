"""The Julia language of Zyla: floor 2 (`lang.core`) and floor 5 (`lang.door`).

- `lang.core` — the language without a compiler: SSA IR, lowering, values and types,
  dispatch, the host interpreter, primitives' host semantics, printing, the stdlib.
  It may import `grammar` only.
- `lang.door` — the front door: the CLI, the REPL, the Python API, diagnostics,
  gradcheck, random programs, fuzzing and plots. It may import every floor, and is the
  only place that ties them together (`lang.door.wiring`).

This file imports nothing. The floors between them are `autodiff` and `backend`.
"""
