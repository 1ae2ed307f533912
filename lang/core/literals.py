"""Turning AST literal values into host runtime values."""

from __future__ import annotations

from typing import Any

import numpy as np

from lang.core import values as V

_FIXED = {"UInt8": np.uint8, "UInt16": np.uint16, "UInt32": np.uint32, "UInt64": np.uint64,
          "Int128": V.Int128, "UInt128": V.UInt128, "BigInt": V.BigInt}


def make(value: Any, kind: str) -> Any:
    """The runtime value of a literal of the given kind (see grammar.ast.Literal)."""
    if kind == "Float32":
        return np.float32(value)
    if kind == "Float64":
        return float(value)
    if kind == "Int64":
        return int(value)
    if kind in _FIXED:
        return _FIXED[kind](value)
    if kind == "Bool":
        return bool(value)
    if kind == "Char":
        return V.Char(value)
    if kind == "Symbol":
        return V.Symbol(value)
    if kind == "Nothing":
        return None
    return value
