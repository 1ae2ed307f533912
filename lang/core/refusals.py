"""The error that says a call cannot be compiled.

`OffloadError` lives here, below every module that raises it (the compile tier's
structure code, the complex numbers' check of traced values), so that raising it needs
no import of the code that catches it.
"""

from __future__ import annotations

from grammar.errors import Unwind


class OffloadError(Unwind):
    """This call cannot be compiled to XLA; the message says why (shown by `explain`)."""
