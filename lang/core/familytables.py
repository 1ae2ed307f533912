"""The entries a runtime makes on type families that other runtimes share.

The built-in types (`Float64`, `String`, `Vector`, ...) are one set of objects for the
whole process, but their methods belong to each runtime: `Base.Float64(s::String) = 42.0`
in one session must not change what `Float64("1.5")` does in another. A runtime's
constructor and call tables, and the memos made from them, are kept on the family object
itself, where the hot paths read them with one attribute lookup; `FamilyTables` takes a
runtime's entries off the families it wrote on when another runtime becomes current, and
puts them back when it is current again (`current.make_current`).
"""

from __future__ import annotations

from typing import Any

#: the family attributes that hold one runtime's methods, or what is remembered from them
ATTRS = ("ctor_gf", "call_gf", "curly_ctors", "curly_specs", "curly_found", "ctor_watch")


class FamilyTables:
    """One runtime's entries (ATTRS) on the families it wrote on: on the families while it
    is current, held here while another runtime is."""

    def __init__(self) -> None:
        # (by id, the family held: an id stays that family's while it is here)
        self.own: dict[int, Any] = {}  # the families the runtime made (its structs)
        self.written: dict[int, Any] = {}  # the others it set one of ATTRS on
        self.away: dict[int, dict[str, Any]] = {}

    def made(self, fam: Any) -> None:
        """Note a family the runtime made: only its code sees it, and its entries stay."""
        self.own[id(fam)] = fam

    def wrote(self, fam: Any) -> None:
        """Note that the runtime set one of ATTRS on `fam` (call before or after)."""
        if id(fam) not in self.own:
            self.written[id(fam)] = fam

    def step_out(self) -> None:
        """Take the runtime's entries off the families (another runtime becomes current)."""
        for key, fam in self.written.items():
            d = fam.__dict__
            self.away[key] = {a: d.pop(a) for a in ATTRS if a in d}

    def step_in(self) -> None:
        """Put the entries back on the families (the runtime is current again)."""
        for key, entries in self.away.items():
            d = self.written[key].__dict__
            for a in ATTRS:  # (what another runtime left there is not this runtime's)
                d.pop(a, None)
            d.update(entries)
        self.away.clear()
