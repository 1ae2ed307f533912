"""The storage of Base's `PersistentDict` (lang/core/stdlib/collections.jl): an immutable
map whose keys are compared by Julia's `===`, as a hash array mapped trie.

A node is a dict from five bits of a key's hash to a child: a `_Bucket` (the entries
whose keys have one full hash) or a node one level down. Setting or deleting a key copies
only the nodes on its path (at most 13 dicts of at most 32 entries), so that the map it
was made from stays as it was and most of the storage is shared between the two.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from grammar.errors import ZylaError
from lang.core import values as V
from lang.core.show import jl_show

_BITS = 5
_MASK = (1 << _BITS) - 1
_HASH_MASK = (1 << 64) - 1

HashTrieT = V.JType("Core.HashTrie", V.AnyT)

#: a node: hash bits -> _Bucket or node
_Node = dict


class _Bucket:
    """The entries (egal key -> (key, value)) whose keys have the hash h."""

    __slots__ = ("h", "entries")

    def __init__(self, h: int, entries: dict) -> None:
        self.h = h
        self.entries = entries


def _chunk(h: int, depth: int) -> int:
    return (h >> (_BITS * depth)) & _MASK


def _set(node: _Node, depth: int, h: int, ek: Any, kv: tuple) -> tuple[_Node, bool]:
    """A copy of node with ek set to kv, and whether ek is a new key."""
    new = dict(node)
    i = _chunk(h, depth)
    child = new.get(i)
    if child is None:
        new[i] = _Bucket(h, {ek: kv})
        return new, True
    if type(child) is _Bucket:
        if child.h == h:
            entries = dict(child.entries)
            added = ek not in entries
            entries[ek] = kv
            new[i] = _Bucket(h, entries)
            return new, added
        child = {_chunk(child.h, depth + 1): child}  # (two hashes: a level down)
    new[i], added = _set(child, depth + 1, h, ek, kv)
    return new, added


def _delete(node: _Node, depth: int, h: int, ek: Any) -> _Node:
    """A copy of node without ek (node itself if it has no ek)."""
    i = _chunk(h, depth)
    child = node.get(i)
    if child is None:
        return node
    if type(child) is _Bucket:
        if child.h != h or ek not in child.entries:
            return node
        entries = dict(child.entries)
        del entries[ek]
        rest: Any = _Bucket(h, entries) if entries else None
    else:
        rest = _delete(child, depth + 1, h, ek)
        if rest is child:
            return node
    new = dict(node)
    if rest:
        new[i] = rest
    else:
        del new[i]
    return new


def _entries(node: _Node) -> Iterator[tuple]:
    for child in node.values():
        if type(child) is _Bucket:
            yield from child.entries.values()
        else:
            yield from _entries(child)


class HashTrie:
    """An immutable map by `===`: `set` and `delete` give new maps."""

    __slots__ = ("root", "length")
    jtype = HashTrieT

    def __init__(self, root: _Node | None = None, length: int = 0) -> None:
        self.root = root if root is not None else {}
        self.length = length

    @staticmethod
    def _key(key: Any) -> tuple[Any, int]:
        """The key as the trie stores it (equal for keys that are `===`) and its hash."""
        ek = V.egal_key(key)
        return ek, hash(ek) & _HASH_MASK

    def get(self, key: Any, default: Any) -> Any:
        ek, h = self._key(key)
        node, depth = self.root, 0
        while True:
            child = node.get(_chunk(h, depth))
            if child is None:
                return default
            if type(child) is _Bucket:
                kv = child.entries.get(ek) if child.h == h else None
                return default if kv is None else kv[1]
            node, depth = child, depth + 1

    def set(self, key: Any, value: Any) -> HashTrie:
        ek, h = self._key(key)
        root, added = _set(self.root, 0, h, ek, (key, value))
        return HashTrie(root, self.length + added)

    def delete(self, key: Any) -> HashTrie:
        ek, h = self._key(key)
        root = _delete(self.root, 0, h, ek)
        return self if root is self.root else HashTrie(root, self.length - 1)

    def items(self) -> tuple:
        """The (key, value) entries, in the trie's order."""
        return tuple(_entries(self.root))

    def jl_show(self) -> str:
        return f"Core.HashTrie({self.length} entries)"


_MISSING = object()


def trie_getindex(t: HashTrie, key: Any) -> Any:
    """`d[key]` of a PersistentDict: its value, or Julia's KeyError."""
    v = t.get(key, _MISSING)
    if v is _MISSING:
        raise ZylaError("KeyError", f"key {jl_show(key)} not found")
    return v


def trie_haskey(t: HashTrie, key: Any) -> bool:
    return t.get(key, _MISSING) is not _MISSING


def trie_length(t: HashTrie) -> int:
    return t.length


#: the PersistentDict primitives, by name
PRIMITIVES = {
    "Core.trie_empty": HashTrie, "Core.trie_get": HashTrie.get,
    "Core.trie_getindex": trie_getindex, "Core.trie_haskey": trie_haskey,
    "Core.trie_set": HashTrie.set, "Core.trie_delete": HashTrie.delete,
    "Core.trie_length": trie_length, "Core.trie_items": HashTrie.items,
}
