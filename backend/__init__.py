"""Floor 4: IR -> XLA. Imports `lang.core` and `autodiff` (and `grammar`), never higher.

- `compile.py`: the compile tier: `compiled_call` traces a call tree into
  one jitted JAX function, cached by signature. Start reading here.
- `tiering.py`: the policy that sends each call of host-run code to the interpreter or to
  `compiled_call` (installed through `lang.core.interp.set_offload`).
- `lower_jax.py`: `JaxInterpreter`, the interpreter that runs the IR on traced values
  (`lax.cond`, `lax.scan`, `lax.while_loop` for the structured ops); `loop_exits.py`,
  `loop_hoist.py` its loop refinements; `recursion.py` data-dependent recursion as a
  loop over an explicit stack.
- `costmodel.py`: chooses among a primitive's lowering forms by measurement (installed
  as `lang.core.choices`' chooser); `sharding.py`: several devices; `dumps.py`:
  `@code_typed`, `@code_hlo`; `notice.py`: "compiling ..." notices.
- `nests.py`: loop nests rewritten into tensor operations (an IR pass registered in
  `lang.core.ir.IR_PASSES`, so importing the backend turns it on).
"""

from backend import nests  # noqa: F401  (registers the loop-nest pass)

