"""Global bindings that say when a name is rebound.

A Runtime's globals and built-ins are `Bindings`: dictionaries that, when a watched name
is written or removed, hand every watcher that name's new value. Translated host code
(lang.core.hostcode) reads a global or calls a function by a name through such a slot,
a variable of its own namespace, instead of looking the name up at every use; the slot
holds what `Runtime.lookup` would find for the name in the globals or the built-ins, or
`DYNAMIC` when it is in neither (then the code looks the name up as the interpreter does).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any


class Dynamic:
    """A slot's value when the name is not bound directly (the code looks it up)."""

    def __repr__(self) -> str:
        return "dynamic"


DYNAMIC = Dynamic()


class Watch:
    """The slots that watch names of one runtime's bindings, and how a name resolves."""

    def __init__(self) -> None:
        self.slots: dict[str, list[tuple[dict, str]]] = {}
        self.spaces: tuple[dict, ...] = ()  # searched in order: the globals, the built-ins
        self.hooks: dict[str, list[Callable[[], None]]] = {}  # one-shot, by name

    def resolve(self, name: str) -> Any:
        for space in self.spaces:
            if name in space:
                return dict.__getitem__(space, name)
        return DYNAMIC

    def add(self, name: str, ns: dict, slot: str) -> None:
        """Keep `ns[slot]` equal to `resolve(name)` from now on."""
        self.slots.setdefault(name, []).append((ns, slot))
        ns[slot] = self.resolve(name)

    def on_change(self, name: str, hook: Callable[[], None]) -> None:
        """Call `hook()` once, the next time `name` is written or removed (code that
        assumed what the name resolves to drops the assumption)."""
        self.slots.setdefault(name, [])
        self.hooks.setdefault(name, []).append(hook)

    def changed(self, name: str) -> None:
        v = self.resolve(name)
        for ns, slot in self.slots[name]:
            ns[slot] = v
        for hook in self.hooks.pop(name, ()):
            hook()


class Bindings(dict):
    """A namespace whose writes of watched names reach the watchers."""

    def __init__(self, watch: Watch) -> None:
        super().__init__()
        self.watch = watch

    def __setitem__(self, k: str, v: Any) -> None:
        dict.__setitem__(self, k, v)
        if k in self.watch.slots:
            self.watch.changed(k)

    def __delitem__(self, k: str) -> None:
        dict.__delitem__(self, k)
        if k in self.watch.slots:
            self.watch.changed(k)

    def pop(self, k: str, *default: Any) -> Any:
        out = dict.pop(self, k, *default)
        if k in self.watch.slots:
            self.watch.changed(k)
        return out

    def setdefault(self, k: str, v: Any = None) -> Any:
        if k in self:
            return dict.__getitem__(self, k)
        self[k] = v
        return v

    def update(self, *others: Any, **kw: Any) -> None:
        items: Iterable = dict(*others, **kw).items()
        for k, v in items:
            self[k] = v

    def popitem(self) -> tuple:
        k, v = dict.popitem(self)
        if k in self.watch.slots:
            self.watch.changed(k)
        return k, v

    def clear(self) -> None:
        keys = list(self)
        dict.clear(self)
        for k in keys:
            if k in self.watch.slots:
                self.watch.changed(k)
