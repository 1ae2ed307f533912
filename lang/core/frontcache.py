"""A cache of the parsed and lowered IR of Zyla's library files (lang/core/stdlib/*.jl).

Loading Base at `Runtime()` and `using Flux` used to parse and lower the library's `.jl`
text every time, in every process. `lowered(text, filename, module, lower)` returns the
top-level thunks (`lang.core.ir.Function`s, one per statement) of such a file, from:

1. the in-process memo (a second `Runtime()` in the same process), then
2. the on-disk cache, `$ZYLA_FRONTEND_CACHE` if it names a directory, else
   `$XDG_CACHE_HOME/zyla/frontend` (`~/.cache/zyla/frontend`), then
3. `lower()` itself, whose result is stored in both.

Both levels hold pickled bytes, never live objects: every call unpickles a fresh copy,
so IR that one runtime mutates (inferred `Value.type`s, caches hung on functions or ops)
never leaks into another. Only the thunks are unpickled at once: every other function
(a method body, a closure) keeps its body pickled on its own until the body is first read
(`_lazy_function`; most of the library's functions are never run in a session). The
built-in type singletons of `lang.core.values` (and `lang.core.lower`'s `UNDEF` and
`COLON`) are pickled by name, so constants in the IR stay identical (`is`) to the
runtime's own objects.

The key can never be stale: it hashes the file's text, its name (spans and error
messages name it), the module it is lowered into, the text of the whole front end (every
`.py` file of `lang/` and `grammar/`, and the grammar), the Python, Lark and NumPy
versions and this cache's format. An entry is written to a temporary file and renamed
into place (concurrent processes never see half a file) and carries an HMAC-SHA256 of
its payload keyed by a per-user secret kept outside the cache folder (`key_path()`, made
on first use, owner-only), so an entry nobody but this user's Zyla wrote is never
unpickled; the unpickler then admits only the IR's own classes. An entry that is
missing, truncated, corrupt, unsigned or unreadable is ignored and recomputed, never an
error. `ZYLA_FRONTEND_CACHE=off` (or `0`, `no`, `false`, `none`, empty) turns the cache
off (both levels). `STATS` counts what happened, for tests and `stats()`.
"""

from __future__ import annotations

import copyreg
import gc
import hashlib
import hmac
import inspect
import io
import os
import pickle
import secrets
import stat
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lang.core import lower, values
from lang.core.ir import IR_PASSES, Function, Region
from lang.core.values import JType

#: Bumped when the stored layout changes.
FORMAT = 2
_MAGIC = b"ZYLAIR01"
_OFF = frozenset({"off", "0", "no", "false", "none", ""})
_ROOT = Path(__file__).resolve().parents[2]
#: Entries kept per library file (one per front-end version; least recently used go).
_KEEP_PER_FILE = 8

#: Counters: "memory_hits", "disk_hits", "misses", "writes", "bad_entries" (corrupt or
#: unreadable files ignored), "write_errors", "unpicklable", "key_errors", "off".
STATS: dict[str, int] = {}

_MEMORY: dict[str, bytes] = {}
_FRONTEND: list[str] = []  # the memoised front-end hash (one item once computed)


def stats() -> dict[str, int]:
    """A copy of the counters of this process."""
    return dict(STATS)


def _count(what: str) -> None:
    STATS[what] = STATS.get(what, 0) + 1


def cache_dir() -> Path | None:
    """The on-disk cache directory, or None when the cache is off."""
    env = os.environ.get("ZYLA_FRONTEND_CACHE")
    if env is not None:
        if env.strip().lower() in _OFF:
            return None
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "zyla" / "frontend"


def enabled() -> bool:
    """Whether the cache (memory and disk) is in use."""
    return cache_dir() is not None


def _frontend_files() -> list[Path]:
    """The files whose text decides the IR a library file lowers to (with the modules of
    the IR passes a higher floor registered, lang.core.ir.IR_PASSES)."""
    files = list((_ROOT / "lang" / "core").glob("*.py")) + list((_ROOT / "grammar").glob("*.py"))
    files += list((_ROOT / "grammar").glob("*.lark"))
    for p in IR_PASSES:
        src = inspect.getsourcefile(p)
        if src is not None:
            files.append(Path(src).resolve())
    return sorted(set(f for f in files if not f.name.startswith(".")))  # not editors' locks


def compute_frontend_hash() -> str:
    """Hash of the front end's source text and of the versions that shape the pickle."""
    import lark
    import numpy

    h = hashlib.sha256()
    h.update(f"zyla-frontcache {FORMAT} {sys.version} {sys.implementation.cache_tag} "
             f"lark {lark.__version__} numpy {numpy.__version__} "
             f"pickle {pickle.HIGHEST_PROTOCOL}\n".encode())
    for f in _frontend_files():
        name = f.relative_to(_ROOT).as_posix() if f.is_relative_to(_ROOT) else f.name
        h.update(name.encode() + b"\0")
        h.update(f.read_bytes())
        h.update(b"\0")
    return h.hexdigest()


def frontend_hash() -> str:
    """The front-end hash, computed once per process (at the first library load, right
    after the front end was imported)."""
    if not _FRONTEND:
        _FRONTEND.append(compute_frontend_hash())
    return _FRONTEND[0]


def entry_key(text: str, filename: str, module: str | None) -> str:
    """The cache key of `text` named `filename`, lowered into `module` (None: Main)."""
    h = hashlib.sha256()
    for part in (frontend_hash(), filename, module or "", text):
        b = part.encode("utf-8", "surrogatepass")
        h.update(len(b).to_bytes(8, "little") + b)
    return h.hexdigest()


# --- pickling -------------------------------------------------------------------------------


_SINGLETONS: list[tuple[dict[int, tuple[str, str]], dict[tuple[str, str], Any]]] = []


def _singletons() -> tuple[dict[int, tuple[str, str]], dict[tuple[str, str], Any]]:
    """Objects pickled by name: id → (module, attribute), and back (built once)."""
    if _SINGLETONS:
        return _SINGLETONS[0]

    by_name: dict[tuple[str, str], Any] = {}
    for attr, v in vars(values).items():
        if isinstance(v, values.JType):
            by_name.setdefault(("values", attr), v)
    by_name[("lower", "UNDEF")] = lower.UNDEF
    by_name[("lower", "COLON")] = lower.COLON
    by_id: dict[int, tuple[str, str]] = {}
    for k, v in by_name.items():
        by_id.setdefault(id(v), k)
    _SINGLETONS.append((by_id, by_name))
    return by_id, by_name


class _Uncacheable(Exception):
    """The IR holds an object that cannot be stored faithfully."""


def _singleton(module: str, attr: str) -> Any:
    """The singleton object stored by name (what unpickling a singleton calls)."""
    try:
        return _singletons()[1][(module, attr)]
    except KeyError:
        raise pickle.UnpicklingError(f"unknown singleton {module}.{attr}") from None


class _Pickler(pickle.Pickler):
    """Pickles singletons by name through a private dispatch table (a Python callback
    for those types only, so the rest runs at C speed). Given `thunks` (a file's), every
    function but the thunks themselves keeps its body as a pickle of its own, unpickled
    the first time the body is read (`_lazy_function`)."""

    def __init__(self, f: io.BytesIO, thunks: list[Function] | None = None) -> None:
        super().__init__(f, protocol=pickle.HIGHEST_PROTOCOL)
        self._by_id = _singletons()[0]
        table = copyreg.dispatch_table.copy()
        for cls in (values.JType, lower.ColonT, lower.Undef):
            table[cls] = self._reduce_singleton
        self._thunks = {id(t) for t in thunks or ()}
        if thunks is not None:
            table[Function] = self._reduce_function
        self.dispatch_table = table

    def _reduce_singleton(self, obj: Any) -> Any:
        ref = self._by_id.get(id(obj))
        if ref is not None:
            return _singleton, ref

        if isinstance(obj, JType):  # a type made at run time has no stable identity
            raise _Uncacheable(f"type {obj!r} in the IR")
        return obj.__reduce_ex__(pickle.HIGHEST_PROTOCOL)

    def _reduce_function(self, fn: Function) -> Any:
        if id(fn) in self._thunks:
            return fn.__reduce_ex__(pickle.HIGHEST_PROTOCOL)
        head = fn.__getstate__()
        buf = io.BytesIO()
        _Pickler(buf).dump(head.pop("body"))  # (its nested functions: eager, in the blob)
        return _lazy_function, (head, buf.getvalue())


#: the bodies of this process's lazy functions, one bytes object per distinct body
#: (every runtime's copy of the library shares them)
_BLOBS: dict[bytes, bytes] = {}


def _lazy_function(head: dict[str, Any], blob: bytes) -> Function:
    """A library function whose body stays pickled until first read (what unpickling a
    non-thunk function calls). Most of the library's ~2,200 functions are never run in a
    session; unpickling them all was three quarters of `Runtime()`'s time."""
    fn = Function.__new__(Function)
    fn.__dict__.update(head)
    fn.__dict__["_lazy_body"] = (_load_body, _BLOBS.setdefault(blob, blob))
    return fn


def _load_body(blob: bytes) -> Any:
    """The Region a lazy function's blob holds."""
    body = _unpickle(blob)
    if not isinstance(body, Region):
        raise pickle.UnpicklingError("a function's body is not a region")
    return body


#: Globals an entry may name (anything else makes the entry invalid; it is not loaded).
_ALLOWED_MODULES = frozenset({"lang.core.ir", "grammar.ast", "lang.core.values", "lang.core.lower"})
_ALLOWED_GLOBALS = frozenset({
    ("lang.core.frontcache", "_singleton"), ("lang.core.frontcache", "_lazy_function"),
    ("numpy", "dtype"), ("numpy", "ndarray"),
    ("numpy._core.multiarray", "scalar"), ("numpy.core.multiarray", "scalar"),
    ("numpy._core.multiarray", "_reconstruct"), ("numpy.core.multiarray", "_reconstruct"),
    ("builtins", "set"), ("builtins", "frozenset"), ("builtins", "complex"),
    ("builtins", "slice"), ("builtins", "range"),
})


class _Unpickler(pickle.Unpickler):
    """Loads only the classes IR is made of (a foreign or corrupt entry fails to load):
    the listed globals, and classes defined in the IR's modules named by a plain
    identifier (a dotted name would reach any module they import, `os` included)."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in _ALLOWED_GLOBALS:
            return super().find_class(module, name)
        if module in _ALLOWED_MODULES and name.isidentifier():
            obj = getattr(sys.modules.get(module), name, None)
            if isinstance(obj, type) and obj.__module__ == module:
                return obj
        raise pickle.UnpicklingError(f"{module}.{name} is not allowed in a front-end cache entry")


def dumps(fns: list[Function]) -> bytes:
    """The pickled thunks (raises _Uncacheable or a pickling error if they cannot be)."""
    buf = io.BytesIO()
    _Pickler(buf, thunks=fns).dump(fns)
    return buf.getvalue()


def _unpickle(data: bytes) -> Any:
    """What `data` holds, through the restricted unpickler, without the collector's
    passes (many small objects, no cycles to find: collection would only cost)."""
    was = gc.isenabled()
    gc.disable()
    try:
        return _Unpickler(io.BytesIO(data)).load()
    finally:
        if was:
            gc.enable()


def loads(data: bytes) -> list[Function]:
    """A fresh copy of the thunks `dumps` stored (raises on a bad payload)."""
    fns = _unpickle(data)
    if not isinstance(fns, list) or not all(isinstance(f, Function) for f in fns):
        raise pickle.UnpicklingError("not a list of IR functions")
    return fns


# --- disk -------------------------------------------------------------------------------------

_KEY: list[bytes | None] = []  # the memoised secret (one item once looked up)


def key_path() -> Path:
    """Where the per-user secret that authenticates entries lives: outside the cache
    folder, so that whoever can write the cache cannot sign an entry."""
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "zyla" / "cache-key"


def _secret() -> bytes | None:
    """The per-user secret (made on first use, readable by its owner only), or None when
    it cannot be had safely: then no entry is read or written."""
    if _KEY:
        return _KEY[0]
    path = key_path()
    key = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        if not os.path.lexists(path):
            # written whole under a private name, then linked into place: a process that
            # starts at the same time sees no key or the whole key, never half of one
            fd, tmp = tempfile.mkstemp(prefix=".key-", dir=path.parent)
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(secrets.token_bytes(32))
                try:
                    os.link(tmp, path)
                except FileExistsError:
                    pass  # another process made it first: use theirs
            finally:
                os.unlink(tmp)
        st = os.stat(path, follow_symlinks=False)
        if stat.S_ISREG(st.st_mode) and st.st_uid == os.getuid() and not st.st_mode & 0o077:
            data = path.read_bytes()
            key = data if len(data) == 32 else None
    except OSError:
        key = None
    _KEY.append(key)
    return key


def _mac(payload: bytes) -> bytes | None:
    """The entry's authentication code (HMAC-SHA256 with the per-user secret)."""
    key = _secret()
    return None if key is None else hmac.new(key, payload, hashlib.sha256).digest()



def _entry_path(d: Path, filename: str, key: str) -> Path:
    stem = "".join(c if c.isalnum() or c in "-_" else "_" for c in Path(filename).stem)[:40]
    return d / f"{stem}-{key[:48]}.zir"


def _read(path: Path) -> bytes | None:
    """The payload of a well-formed entry, or None (missing, truncated, corrupt)."""
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    head = len(_MAGIC) + 32
    if len(raw) < head or raw[:len(_MAGIC)] != _MAGIC:
        _count("bad_entries")
        return None
    payload = raw[head:]
    mac = _mac(payload)
    if mac is None or not hmac.compare_digest(mac, raw[len(_MAGIC):head]):
        _count("bad_entries")
        return None
    try:
        os.utime(path)  # recently used: kept by _prune
    except OSError:
        pass
    return payload


def _write(path: Path, payload: bytes) -> None:
    """Store an entry atomically (temporary file, then rename); failures are ignored."""
    tmp = None
    mac = _mac(payload)
    if mac is None:
        _count("write_errors")
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".zir", dir=path.parent)
        with os.fdopen(fd, "wb") as fh:
            fh.write(_MAGIC + mac + payload)
        os.replace(tmp, path)
        tmp = None
        _count("writes")
        _prune(path.parent)
    except OSError:
        _count("write_errors")
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def _prune(d: Path) -> None:
    """Keep the _KEEP_PER_FILE most recently used entries of each library file (older
    front-end versions go) and remove temporary files older than an hour."""
    now = time.time()
    groups: dict[str, list[tuple[float, Path]]] = {}
    try:
        for p in d.iterdir():
            try:
                mtime = p.stat().st_mtime
                if p.name.startswith(".tmp-"):
                    if now - mtime > 3600:
                        p.unlink()
                elif p.suffix == ".zir":
                    groups.setdefault(p.name.rsplit("-", 1)[0], []).append((mtime, p))
            except OSError:
                pass
    except OSError:
        return
    for entries in groups.values():
        entries.sort(reverse=True)
        for _, p in entries[_KEEP_PER_FILE:]:
            try:
                p.unlink()
            except OSError:
                pass


# --- the entry point --------------------------------------------------------------------------


def lowered(text: str, filename: str, module: str | None,
            lower: Callable[[], list[Function]]) -> list[Function]:
    """The top-level thunks of the library file `filename` (text `text`, lowered into
    `module`): a fresh copy from the cache, or `lower()`'s result (then stored).

    Exceptions from `lower()` propagate and nothing is stored; problems of the cache
    itself (unwritable directory, corrupt entry, unpicklable IR) never raise."""
    d = cache_dir()
    if d is None:
        _count("off")
        return lower()
    try:
        key = entry_key(text, filename, module)
    except OSError:  # a front-end file vanished mid-edit: no key to trust
        _count("key_errors")
        return lower()
    data = _MEMORY.get(key)
    if data is not None:
        try:
            fns = loads(data)
            _count("memory_hits")
            return fns
        except Exception:
            _MEMORY.pop(key, None)
    path = _entry_path(d, filename, key)
    data = _read(path)
    if data is not None:
        try:
            fns = loads(data)
        except Exception:  # a corrupt or foreign entry: recompute and overwrite it
            _count("bad_entries")
        else:
            _MEMORY[key] = data
            _count("disk_hits")
            return fns
    _count("misses")
    fns = lower()
    try:
        data = dumps(fns)
    except Exception:
        _count("unpicklable")
        return fns
    try:
        same = compute_frontend_hash() == frontend_hash()
    except OSError:
        same = False
    if not same:
        return fns  # the front end changed on disk since this process started: store nothing
    _MEMORY[key] = data
    _write(path, data)
    return fns
