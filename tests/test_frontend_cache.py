"""The front-end cache of Zyla's library files (lang.core.frontcache, issue 5).

Loading Base and `using Flux` must take the parsed and lowered IR of lang/core/stdlib/*.jl
from the cache in a second process and in a second `Runtime()` of one process, miss when
the library text or the front end changes, ignore corrupt entries, obey
`ZYLA_FRONTEND_CACHE=off`, and change nothing a program can observe: its results and the
error messages of errors raised inside library code. Every test points the cache at its
own temporary directory; what happened is read from `frontcache.stats()`, not timed.
"""

from __future__ import annotations

import copy
import json
import os
import pickle
import shutil
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from grammar.errors import SourceFile, ZylaError, format_error
from lang.core import frontcache
from lang.core import runtime as core_runtime
from lang.core import values as V
from lang.core.ir import Function, Region, format_function, walk_ops
from lang.core.lower import COLON, UNDEF, Lowerer
from lang.core.runtime import STDLIB
from lang.door.wiring import Runtime

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 300


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private, empty cache (directory, in-process memo and counters)."""
    d = tmp_path / "frontend"
    monkeypatch.setenv("ZYLA_FRONTEND_CACHE", str(d))
    monkeypatch.setattr(frontcache, "_MEMORY", {})
    monkeypatch.setattr(frontcache, "STATS", {})
    return d


def _lower(text: str, name: str = "/lib/small.jl") -> list[Function]:
    """Parse and lower a text the way Runtime.run_source does (no runtime needed)."""
    from grammar.parser import parse

    lo = Lowerer(SourceFile(name, text))
    return [lo.lower_toplevel(s) for s in parse(text, name).stmts]


def _lower_counter(text: str) -> tuple[list[int], Callable[[], list[Function]]]:
    """A `lower` callback for frontcache.lowered that counts its calls."""
    calls = [0]

    def lower() -> list[Function]:
        calls[0] += 1
        return _lower(text)

    return calls, lower


def consts(fs: list[Function]) -> list[Any]:
    """The values of every `const` op in the thunks and the functions they define."""
    out: list[Any] = []
    todo, done = list(fs), set()
    while todo:
        f = todo.pop()
        if id(f) in done:
            continue
        done.add(id(f))
        for op in walk_ops(f.body):
            for a in op.attrs.values():
                if isinstance(a, Function):
                    todo.append(a)
            if op.name == "const":
                out.append(op.attrs["value"])
    return out


#: library files every Runtime loads: base.jl, then the start-up files (ad.jl among them)
STARTUP = 1 + len(core_runtime.STARTUP_FILES)
SMALL = "f(x) = 2x + 1\nstruct P\n  a::Float64\nend\ng(v) = v[:]\n"


# --- in-process ----------------------------------------------------------------------------


def test_second_runtime_uses_memory_and_gets_fresh_ir(cache: Path) -> None:
    Runtime()
    assert frontcache.stats().get("misses") == STARTUP  # base.jl and the start-up files
    assert len(list(cache.glob("*.zir"))) == STARTUP
    Runtime()
    assert frontcache.stats().get("memory_hits") == STARTUP
    calls, lower = _lower_counter(SMALL)
    a = frontcache.lowered(SMALL, "/lib/small.jl", None, lower)
    b = frontcache.lowered(SMALL, "/lib/small.jl", None, lower)
    assert calls[0] == 1
    # each caller gets its own objects: one runtime's annotations cannot reach another
    assert all(x is not y for x, y in zip(a, b, strict=True))
    v = next(walk_ops(b[0].body)).results[0]
    v.type = V.Float64T
    c = frontcache.lowered(SMALL, "/lib/small.jl", None, lower)
    assert next(walk_ops(c[0].body)).results[0].type is None


def test_changed_text_misses(cache: Path) -> None:
    calls, lower = _lower_counter(SMALL)
    frontcache.lowered(SMALL, "/lib/small.jl", None, lower)
    frontcache.lowered(SMALL, "/lib/small.jl", None, lower)
    assert calls[0] == 1
    other = SMALL.replace("2x", "3x")
    calls2, lower2 = _lower_counter(other)
    out = frontcache.lowered(other, "/lib/small.jl", None, lower2)
    assert calls2[0] == 1
    assert 3 in consts(out)
    assert 3 not in consts(frontcache.lowered(SMALL, "/lib/small.jl", None, lower))
    # the module lowered into and the file name are part of the key too
    frontcache.lowered(SMALL, "/lib/small.jl", "M", lower)
    frontcache.lowered(SMALL, "/lib/other.jl", None, lower)
    assert calls[0] == 3


def test_changed_frontend_misses(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = ["A"]
    monkeypatch.setattr(frontcache, "compute_frontend_hash", lambda: fake[0])
    monkeypatch.setattr(frontcache, "_FRONTEND", [])
    calls, lower = _lower_counter(SMALL)
    frontcache.lowered(SMALL, "/lib/small.jl", None, lower)
    # a new process (empty memo) after the front end changed
    fake[0] = "B"
    monkeypatch.setattr(frontcache, "_FRONTEND", [])
    monkeypatch.setattr(frontcache, "_MEMORY", {})
    frontcache.lowered(SMALL, "/lib/small.jl", None, lower)
    assert calls[0] == 2
    assert len(list(cache.glob("small-*.zir"))) == 2
    # back to the first front end: its entry is still good
    fake[0] = "A"
    monkeypatch.setattr(frontcache, "_FRONTEND", [])
    monkeypatch.setattr(frontcache, "_MEMORY", {})
    frontcache.lowered(SMALL, "/lib/small.jl", None, lower)
    assert calls[0] == 2
    assert frontcache.stats().get("disk_hits") == 1


def test_old_versions_are_pruned(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    version = ["v0"]
    monkeypatch.setattr(frontcache, "compute_frontend_hash", lambda: version[0])
    calls, lower = _lower_counter(SMALL)
    for k in range(frontcache._KEEP_PER_FILE + 3):
        version[0] = f"v{k}"
        monkeypatch.setattr(frontcache, "_FRONTEND", [])
        frontcache.lowered(SMALL, "/lib/small.jl", None, lower)
        for f in cache.glob("*.zir"):  # age what is there, so that no two share a time
            t = f.stat().st_mtime - 10
            os.utime(f, (t, t))
    assert calls[0] == frontcache._KEEP_PER_FILE + 3
    assert len(list(cache.glob("small-*.zir"))) == frontcache._KEEP_PER_FILE
    # the newest one survived
    monkeypatch.setattr(frontcache, "_MEMORY", {})
    frontcache.lowered(SMALL, "/lib/small.jl", None, lower)
    assert calls[0] == frontcache._KEEP_PER_FILE + 3


def test_frontend_edited_during_the_process_stores_nothing(
        cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(frontcache, "_FRONTEND", ["started-with-this"])
    calls, lower = _lower_counter(SMALL)
    frontcache.lowered(SMALL, "/lib/small.jl", None, lower)
    assert calls[0] == 1
    assert not list(cache.glob("*.zir")) and not frontcache._MEMORY


def test_frontend_hash_covers_the_front_end(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    names = {f.relative_to(ROOT).as_posix() for f in frontcache._frontend_files()}
    for must in ("grammar/lexer.py", "grammar/parser.py", "lang/core/lower.py", "grammar/ast.py",
                 "lang/core/ir.py", "lang/core/macros.py", "lang/core/values.py",
                 "grammar/julia.lark", "lang/core/frontcache.py"):
        assert must in names
    copy = tmp_path / "tree"
    for sub in ("lang/core", "grammar"):
        (copy / sub).mkdir(parents=True)
        for f in (ROOT / sub).iterdir():
            if f.is_file():
                shutil.copy(f, copy / sub / f.name)
    monkeypatch.setattr(frontcache, "_ROOT", copy)
    h0 = frontcache.compute_frontend_hash()
    assert frontcache.compute_frontend_hash() == h0
    for rel in ("grammar/julia.lark", "lang/core/lower.py", "grammar/parser.py"):
        p = copy / rel
        old = p.read_text()
        p.write_text(old + "\n")
        assert frontcache.compute_frontend_hash() != h0, rel
        p.write_text(old)
    assert frontcache.compute_frontend_hash() == h0


def _bad_payload() -> bytes:
    class Evil:
        def __reduce__(self) -> tuple:
            return (os.getcwd, ())

    return pickle.dumps(Evil())


def _dotted(canary: Path) -> bytes:
    """A pickle that calls `os.system` reached through an allowed module's imports
    (`lang.core.values` imports numpy as np; protocol 4 resolves a dotted global name
    attribute by attribute): the probe of the issue "Safe by default"."""
    cmd = f"touch {canary}".encode()
    return (b"\x80\x04"                                   # PROTO 4
            + b"\x8c" + bytes([len(b"lang.core.values")]) + b"lang.core.values"
            + b"\x8c" + bytes([len(b"np.testing._private.utils.os.system")])
            + b"np.testing._private.utils.os.system"
            + b"\x93"                                      # STACK_GLOBAL
            + b"\x8c" + bytes([len(cmd)]) + cmd + b"\x85"  # a 1-tuple of the command
            + b"R"                                         # REDUCE: call it
            + b".")


@pytest.mark.parametrize("damage", ["truncated", "garbage", "bad-checksum", "foreign-pickle",
                                    "not-ir", "empty", "unsigned", "dotted-name",
                                    "dotted-name-unsigned"])
def test_corrupt_entry_is_ignored(cache: Path, damage: str, tmp_path: Path) -> None:
    import hashlib

    calls, lower = _lower_counter(SMALL)
    good = frontcache.lowered(SMALL, "/lib/small.jl", None, lower)
    (entry,) = cache.glob("small-*.zir")
    raw = entry.read_bytes()
    magic = frontcache._MAGIC
    canary = tmp_path / "pwned"

    def signed(payload: bytes) -> bytes:  # as this user's Zyla signs: passes the MAC
        mac = frontcache._mac(payload)
        assert mac is not None
        return magic + mac + payload

    def checksummed(payload: bytes) -> bytes:  # the old format: a plain SHA-256
        return magic + hashlib.sha256(payload).digest() + payload

    entry.write_bytes({
        "truncated": raw[: len(raw) // 2],
        "garbage": b"\x00\xff" * 100,
        "bad-checksum": raw[:-1] + bytes([raw[-1] ^ 1]),
        "foreign-pickle": signed(_bad_payload()),
        "not-ir": signed(pickle.dumps([1, 2, 3])),
        "empty": b"",
        "unsigned": checksummed(raw[len(magic) + 32:]),
        "dotted-name": signed(_dotted(canary)),
        "dotted-name-unsigned": checksummed(_dotted(canary)),
    }[damage])
    frontcache._MEMORY.clear()
    again = frontcache.lowered(SMALL, "/lib/small.jl", None, lower)
    assert not canary.exists(), "a cache entry ran code"
    assert calls[0] == 2
    assert frontcache.stats().get("bad_entries", 0) >= (0 if damage == "empty" else 1)
    assert [f.name for f in again] == [f.name for f in good]
    # the entry was rewritten and is good again
    frontcache._MEMORY.clear()
    frontcache.lowered(SMALL, "/lib/small.jl", None, lower)
    assert calls[0] == 2


def test_unwritable_cache_dir_is_not_an_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("ZYLA_FRONTEND_CACHE", str(blocker / "frontend"))
    monkeypatch.setattr(frontcache, "_MEMORY", {})
    monkeypatch.setattr(frontcache, "STATS", {})
    calls, lower = _lower_counter(SMALL)
    frontcache.lowered(SMALL, "/lib/small.jl", None, lower)
    assert frontcache.stats().get("write_errors") == 1
    frontcache.lowered(SMALL, "/lib/small.jl", None, lower)  # the memo still works
    assert calls[0] == 1


@pytest.mark.parametrize("value", ["off", "OFF", "0"])
def test_off_switch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("ZYLA_FRONTEND_CACHE", value)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(frontcache, "_MEMORY", {})
    monkeypatch.setattr(frontcache, "STATS", {})
    calls, lower = _lower_counter(SMALL)
    frontcache.lowered(SMALL, "/lib/small.jl", None, lower)
    frontcache.lowered(SMALL, "/lib/small.jl", None, lower)
    assert calls[0] == 2
    assert frontcache.stats() == {"off": 2}
    assert not frontcache._MEMORY and not any(tmp_path.rglob("*.zir"))


def test_default_location_is_xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ZYLA_FRONTEND_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert frontcache.cache_dir() == tmp_path / "zyla" / "frontend"


def test_library_ir_round_trips_with_singletons(cache: Path) -> None:
    """Constants that are the runtime's type singletons (and `:`/undef) stay identical."""
    text = (STDLIB / "flux.jl").read_text()
    fns = _lower(text, str(STDLIB / "flux.jl"))
    back = frontcache.loads(frontcache.dumps(fns))
    singles = {id(v) for v in vars(V).values() if isinstance(v, V.JType)} | {id(COLON), id(UNDEF)}
    seen = 0

    a, b = consts(fns), consts(back)
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        if id(x) in singles:
            assert y is x
            seen += 1
        elif isinstance(x, V.TypeVar):  # (a struct's parameter: compared by identity, so
            # a copy equals the original by name and bound; pickling keeps identities within)
            assert type(y) is type(x) and (y.name, repr(y.ub)) == (x.name, repr(x.ub))
        else:
            assert type(x) is type(y) and (x == y or x != x)
    assert seen > 10
    assert [f.span for f in back] == [f.span for f in fns]
    assert {f.file for f in back} == {str(STDLIB / "flux.jl")}


def _defined(fns: list[Function]) -> list[Function]:
    """The functions the thunks' ops name (method bodies, closures), not descending."""
    return [a for f in fns for op in walk_ops(f.body) for a in op.attrs.values()
            if isinstance(a, Function)]


def test_library_bodies_load_when_first_read(cache: Path) -> None:
    """A library function's body stays pickled until it is read; read, it is the IR the
    lowering made (the thunks themselves are loaded at once: they run)."""
    text = (STDLIB / "flux.jl").read_text()
    fns = _lower(text, str(STDLIB / "flux.jl"))
    back = frontcache.loads(frontcache.dumps(fns))
    assert all("_lazy_body" not in f.__dict__ for f in back)
    made, lazy = _defined(fns), _defined(back)
    assert len(made) == len(lazy) > 50
    assert all("_lazy_body" in f.__dict__ for f in lazy)
    # the fields other than the body are there without loading it
    assert [(f.name, f.params, f.nkw, f.file) for f in lazy] == \
        [(f.name, f.params, f.nkw, f.file) for f in made]
    assert all("_lazy_body" in f.__dict__ for f in lazy)
    for a, b in zip(made, lazy, strict=True):
        assert format_function(b) == format_function(a)
        assert "_lazy_body" not in b.__dict__ and isinstance(b.body, Region)
    # a copy or a pickle of a function not yet read carries its body
    fresh = _defined(frontcache.loads(frontcache.dumps(fns)))[0]
    for twin in (copy.deepcopy(fresh), pickle.loads(pickle.dumps(fresh))):
        assert format_function(twin) == format_function(made[0])


def test_a_runtime_reads_few_library_bodies(cache: Path) -> None:
    """`Runtime()` and a small program leave most library bodies unread (unpickling every
    body was ~70% of `Runtime()`'s time and most of its memory)."""
    Runtime()  # (fills the cache)
    rt = Runtime()
    rt.run_source("v = [1.0, 2.0]\nprintln(sum(abs2, v))\n", "<test>")
    fns = [m.fn for gf in rt.builtins.values() if hasattr(gf, "methods")
           for m in gf.methods if isinstance(getattr(m, "fn", None), Function)]
    unread = sum("_lazy_body" in f.__dict__ for f in fns)
    assert len(fns) > 1000 and unread > 0.9 * len(fns), (unread, len(fns))


def test_library_error_messages_unchanged(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An error raised inside flux.jl reads the same with the IR from the cache."""
    code = "using Flux\nm = Dense(2 => 3)\nd = Dropout(1.5)\n"

    def report(rt: Runtime) -> tuple[str, list[tuple[int, int, str]]]:
        with pytest.raises(ZylaError) as ei:
            rt.run_source(code, "user.jl")
        e = ei.value
        return format_error(e), [(s.line, s.col, src.name if src else "") for s, src in e.trace]

    monkeypatch.setenv("ZYLA_FRONTEND_CACHE", "off")
    plain = report(Runtime())
    monkeypatch.setenv("ZYLA_FRONTEND_CACHE", str(cache))
    report(Runtime())  # fills the cache
    frontcache._MEMORY.clear()
    cached = report(Runtime())  # from disk
    assert frontcache.stats().get("disk_hits") == STARTUP + 1  # and flux.jl
    assert cached == plain
    assert "raised inside Zyla's library, flux.jl:" in plain[0]
    assert any(name.endswith("flux.jl") for _, _, name in plain[1])


# --- across processes ---------------------------------------------------------------------------


PROGRAM = """
using Flux, Random
Random.seed!(1)
m = Chain(Dense(3 => 4, relu), Dense(4 => 2))
x = reshape(Float32[0.5, 2.0, -0.5, -1.0, 0.25, 1.5], 3, 2)
g = gradient(m -> sum(abs2, m(x)), m)
println(m(x))
println(g[1].layers[1].weight)
println(Flux.mse(m(x), zeros(Float32, 2, 2)))
Dropout(1.5)
"""

SCRIPT = """
import json, sys
from lang.door import cli
from lang.core import frontcache
rc = cli.run_code(sys.argv[1])
print("STATS " + json.dumps(frontcache.stats()), flush=True)
sys.exit(rc)
"""


def _run(env: dict[str, str]) -> tuple[str, str, dict[str, int]]:
    full = {k: v for k, v in os.environ.items() if k not in ("ZYLA_DEBUG", "ZYLA_COMPILE")}
    full.setdefault("JAX_PLATFORMS", "cpu")
    full["ZYLA_COMPILE_NOTICE"] = "-1"  # no timing notes on stderr
    full["PYTHONPATH"] = str(ROOT) + os.pathsep + full.get("PYTHONPATH", "")
    full.update(env)
    p = subprocess.run([sys.executable, "-c", SCRIPT, PROGRAM], cwd=ROOT, env=full,
                       capture_output=True, text=True, timeout=TIMEOUT)
    assert p.returncode == 1, p.stderr  # the program ends with an error, on purpose
    out, _, stats = p.stdout.rpartition("STATS ")
    return out, p.stderr, json.loads(stats)


def test_second_process_loads_from_cache_with_identical_results(tmp_path: Path) -> None:
    d = str(tmp_path / "frontend")
    xla = str(tmp_path / "xla")
    with ThreadPoolExecutor(2) as pool:
        off_job = pool.submit(_run, {"ZYLA_FRONTEND_CACHE": "off", "ZYLA_XLA_CACHE": xla})
        cold = _run({"ZYLA_FRONTEND_CACHE": d, "ZYLA_XLA_CACHE": xla})
        off = off_job.result()
    warm = _run({"ZYLA_FRONTEND_CACHE": d, "ZYLA_XLA_CACHE": xla})
    n = STARTUP + 1  # and flux.jl
    assert off[2] == {"off": n}
    assert cold[2].get("misses") == n and cold[2].get("writes") == n
    assert warm[2].get("disk_hits") == n and not warm[2].get("misses")
    assert len(list(Path(d).glob("*.zir"))) == n
    for name, run in (("cold", cold), ("warm", warm)):
        assert run[0] == off[0], name  # stdout: values and gradients
        assert run[1] == off[1], name  # stderr: the error report
    assert "Dropout: the probability" in off[1] and "flux.jl:" in off[1]
    assert off[0].count("Float32[") >= 2
