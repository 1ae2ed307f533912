"""Floor 3: IR -> IR automatic differentiation. Imports `lang.core` (and `grammar`) only.

- `reverse.py`: reverse mode, Zygote style: `forward(F)` turns a primal function into one
  that also returns a pullback closure, as plain IR. Start reading here.
- `forward.py`: forward mode (`jvp_function`), and the forward rules of every primitive.
- `rules.py`: primitives that only pullback rules use (scatter for indexing, ...).
- `runtime.py`: running pullbacks (`pullback_call`, `back_call`), cotangent arithmetic,
  the compiled rule of each primitive, and the AD primitives of `ad.jl`.

The backend lowers what this floor emits; it is installed into a runtime by
`lang.door.wiring`.
"""
