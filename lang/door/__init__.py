"""Floor 5, the front door: what users touch. May import every floor below.

- `wiring.py`: the one place that ties the floors together (installs autodiff's and the
  backend's built-ins into every runtime, and the compile tier as the interpreter's
  offload). Start reading here.
- `cli.py` (`zyla run`, `zyla -e`, `zyla explain`, `zyla gradcheck`), `repl.py` (with
  `latex.py`, `docs.py`), `api.py` (the Python API), `diagnostics.py` (hints on errors,
  offload explanations, error reports).
- `gradcheck.py`, `testing.py`, `strategies.py`: gradient checks with hypothesis;
  `randprog.py`, `fuzzing.py`: random programs and fuzzing; `plots.py`: UnicodePlots.
"""
