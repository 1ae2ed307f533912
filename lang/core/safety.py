"""Safe loading: what a Zyla program can reach outside the language.

Running or including a `.jl` file cannot reach Python or the shell:

- the host runtime resolves names only in Zyla's own namespaces (globals, built-ins,
  modules); `x.name` reads struct fields, NamedTuple entries and module members, never a
  Python attribute (so `f.__globals__`, `"s".__class__` are `FieldError`s);
- there is no `ccall`, `eval`, `Meta.parse`, `include_string` or `Libc`
  (lang.door.diagnostics names them as unsupported when a program uses them); `ENV` is
  the program's own Dict, holding only the host variables `--allow-env=NAME,...` names;
- `include(path)` reads only regular files and parses them as Zyla source;
- running an external command, `run(Cmd(["prog", "arg"]))`, is refused unless the user
  opted in (`zyla run --allow-shell FILE.jl`, `zyla --allow-shell`), which sets
  `Policy.allow_shell`; even then the command runs without a shell (no expansion);
- every built-in that touches a file passes one gate, as Deno's permissions do:
  `readable(path)` lets a program read regular files under its own folder and the current
  folder (not hidden ones, and not the whole file system when run from `/`),
  `writable(path)` write only inside the current folder's tree, never a hidden
  path (a `.`-name below the folder allowed), a file that Python, a shell or a package
  manager would run (`.py`, `.pth`, `.sh`, `Makefile`, `package.json`, anything in a `bin`
  or `site-packages` folder or a Python environment, an executable file). `/proc`, `/dev`
  and `/sys`, and every other path, need `--allow-read=PATH` / `--allow-write=PATH`.
  Paths are compared after symbolic links are resolved. A refusal is a `SystemError`
  naming the path and the flag that would allow it (docs/SAFETY.md).

`policy(rt)` is the runtime's policy; `install(rt)` registers `run` and `Cmd`.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grammar.errors import ZylaError
from lang.core import current
from lang.core import values as V
from lang.core.functions import typeof
from lang.core.primitives import NONDIFF, HostOnly, prim

CmdT = V.JType("Cmd", V.AnyT)


@dataclass
class Policy:
    """What a program may do beyond computing and printing.

    `program_dir` (the folder of the file being run, None for `-e` and the REPL) and `cwd`
    (the current folder when the runtime started) may be read; `cwd`'s tree may be
    written; `allow_read`/`allow_write` are the folders or files the user added."""

    allow_shell: bool = False
    program_dir: Path | None = None
    cwd: Path = field(default_factory=lambda: Path(os.getcwd()).resolve())
    allow_read: list[Path] = field(default_factory=list)
    allow_write: list[Path] = field(default_factory=list)


#: Trees of the operating system's live state: readable only when named by --allow-read.
SYSTEM_TREES = (Path("/proc"), Path("/dev"), Path("/sys"))

#: File names and suffixes that Python, a shell or a package manager runs or sources.
EXECUTED_SUFFIXES = frozenset({
    ".py", ".pyc", ".pyo", ".pyw", ".pth", ".pyz", ".so", ".dylib", ".dll", ".exe", ".sh",
    ".bash", ".zsh", ".fish", ".csh", ".ksh", ".command", ".bat", ".cmd", ".ps1", ".desktop",
    ".service", ".cfg", ".toml", ".ini", ".pl", ".rb", ".js", ".mjs", ".cjs",
})
EXECUTED_NAMES = frozenset({
    "makefile", "gnumakefile", "package.json", "dockerfile", "cmakelists.txt", "justfile",
    "rakefile", "gemfile", "procfile", "vagrantfile", "requirements.txt", "pipfile",
    "pyvenv.cfg", "activate", "crontab", "authorized_keys",
})
#: Folders whose files are run or imported by tools (scripts, installed packages).
EXECUTED_DIRS = frozenset({"bin", "sbin", "scripts", "site-packages", "dist-packages",
                           "node_modules", "__pycache__", "lib-dynload", "hooks"})


def readable(path: Any, what: str = "reading") -> str:
    """The path a built-in may open for reading `path`, after the policy's checks: a
    regular file under the program's folder, the current folder or an --allow-read path
    (the system trees only when named there). Raises a `SystemError` otherwise."""
    full = _resolve(path)
    if not _may_read(full):
        raise _refused(path, full, what, "read")
    if not full.exists():
        raise ZylaError("SystemError", f"opening file {path!r}: No such file or directory")
    if not stat.S_ISREG(full.stat().st_mode):  # no directories, devices or pipes
        raise ZylaError("SystemError", f"opening file {path!r}: not a regular file")
    return str(full)


#: The most bytes one built-in reads from a file unless $ZYLA_MAX_READ says otherwise: a
#: program's data files are far smaller; a file this large is a mistake or an attack
#: (memory runs out long before Julia's `read` would finish).
MAX_READ_BYTES = 1 << 30
_CHUNK = 1 << 22


def max_read_bytes() -> int:
    """The read limit: $ZYLA_MAX_READ (bytes) when it is a positive integer."""
    env = os.environ.get("ZYLA_MAX_READ", "").strip()
    return int(env) if env.isdigit() and int(env) > 0 else MAX_READ_BYTES


def read_bytes(path: Any, what: str = "reading") -> bytes:
    """The contents of a file the policy lets the program read (`readable`), opened so
    that nothing but a regular file is read (a file swapped for a pipe or a device after
    the check is refused, not waited on), in chunks (Ctrl-C stops a long read), at most
    `max_read_bytes()` of them (more is a `SystemError` naming the limit)."""
    full = readable(path, what)
    limit = max_read_bytes()
    try:
        fd = os.open(full, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as e:
        raise ZylaError("SystemError", f"opening file {path!r}: {e.strerror}") from None
    with os.fdopen(fd, "rb") as fh:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ZylaError("SystemError", f"opening file {path!r}: not a regular file")
        if info.st_size > limit:
            raise _too_large(path, limit)
        chunks, total = [], 0
        while chunk := fh.read(_CHUNK):
            total += len(chunk)
            if total > limit:  # the file grew while it was read
                raise _too_large(path, limit)
            chunks.append(chunk)
    return b"".join(chunks)


def read_text(path: Any, what: str = "reading") -> str:
    """`read_bytes` as a String. Bytes that are not UTF-8 are kept, one character each
    (a Julia String holds any bytes), and printing writes them back unchanged."""
    return read_bytes(path, what).decode("utf-8", "surrogateescape")


def _too_large(path: Any, limit: int) -> ZylaError:
    return ZylaError("SystemError", f"reading {str(path)!r}: the file is larger than the "
                     f"{limit} bytes a program may read at once",
                     hint="set ZYLA_MAX_READ=BYTES to allow larger files")


def may_look_at(path: Any) -> str:
    """The resolved path `isfile`/`isdir` may look at: inside what may be read."""
    full = _resolve(path)
    if not _may_read(full):
        raise _refused(path, full, "looking at", "read")
    return str(full)


def _may_read(full: Path) -> bool:
    """Named by --allow-read, or below the program's folder or the current folder (not
    the file system's root), not hidden below it, and not in a system tree."""
    pol = _current_policy()
    if _under_any(full, pol.allow_read) or _under_any(full, data_roots()):
        return True
    if _under_any(full, list(SYSTEM_TREES)):
        return False
    roots = [r for r in (pol.cwd, pol.program_dir)
             if r is not None and len(r.parts) > 1 and _under(full, r)]
    return bool(roots) and not any(p.startswith(".") for p in _below(full, roots))


def data_roots() -> list[Path]:
    """The datasets folder the user named in $ZYLA_DATA (readable like --allow-read)."""
    env = os.environ.get("ZYLA_DATA", "").strip()
    return [_real(env)] if env else []


def change_directory(path: Any = None) -> None:
    """Julia's `cd(dir)` (`cd()`: the home folder): the process's current folder, which
    relative paths start from, becomes `dir` — a folder the program may read. What the
    program may write does not move with it (the folder the run started in)."""
    full = _resolve(os.path.expanduser("~") if path is None else path)
    if not full.is_dir():
        raise ZylaError("IOError", f"cd({str(path)!r}): no such directory")
    if not _may_read(full / "_"):
        raise _refused(path, full, "changing to the folder", "read")
    os.chdir(full)
    return None


def writable(path: Any, what: str = "writing") -> str:
    """The path a built-in may open for writing `path`: inside the current folder's tree
    or an --allow-write path, not hidden, not a file that tools run. Raises otherwise."""
    full = _resolve(path)
    pol = _current_policy()
    roots = [r for r in pol.allow_write if _under(full, r)]
    if full in pol.allow_write:
        return str(full)  # the user named this very file
    if not roots:
        if _under_any(full, list(SYSTEM_TREES)) or not _under(full, pol.cwd):
            raise _refused(path, full, what, "write")
        roots = [pol.cwd]
    why = _executed_or_hidden(full, _below(full, roots))
    if why:
        raise ZylaError("SystemError", f"{what} {str(path)!r} is not allowed: {why}",
                        hint="a program may not write files that other programs run, nor "
                             "hidden ones; name the file itself with --allow-write=PATH if "
                             "you mean it")
    if SCRATCH[0] is not None:  # (a process of a job other than 0: its writes go nowhere)
        target = Path(SCRATCH[0]) / full.relative_to(full.anchor)
        target.parent.mkdir(parents=True, exist_ok=True)
        return str(target)
    return str(full)


#: a folder of this process's own (`scratch_writes`): where the files it writes go instead
SCRATCH: list[str | None] = [None]


def scratch_writes() -> None:
    """From now on, files this process writes go to a private folder removed at exit (the
    processes of a job other than process 0: the job's files are process 0's)."""
    import atexit
    import shutil
    import tempfile

    SCRATCH[0] = tempfile.mkdtemp(prefix="zyla-process-")
    atexit.register(shutil.rmtree, SCRATCH[0], True)


def _executed_or_hidden(full: Path, below: tuple[str, ...]) -> str | None:
    if any(part.startswith(".") for part in below):
        return "it is a hidden path"
    name = full.name.lower()
    if name in EXECUTED_NAMES or full.suffix.lower() in EXECUTED_SUFFIXES:
        return "tools run or load files of this kind"
    if any(part.lower() in EXECUTED_DIRS for part in full.parts[:-1]):
        return "it is inside a folder of scripts or installed packages"
    if any((parent / "pyvenv.cfg").exists() for parent in full.parents):
        return "it is inside a Python environment"
    try:
        if full.exists() and (full.stat().st_mode & 0o111 or not full.is_file()):
            return "it is an executable or not a regular file"
    except OSError:
        return "it cannot be checked"
    return None


def _below(full: Path, roots: list[Path]) -> tuple[str, ...]:
    """The parts of `full` below the deepest of `roots` (all of which contain it)."""
    return full.parts[max(len(r.parts) for r in roots):]


def _real(path: str) -> Path:
    """`path` absolute, with `~` expanded and symbolic links resolved."""
    return Path(os.path.realpath(os.path.abspath(os.path.expanduser(path))))


def _resolve(path: Any) -> Path:
    if not isinstance(path, str) or not path or "\0" in path:
        raise ZylaError("ArgumentError", "a file name must be a non-empty String")
    try:
        return _real(path)
    except (OSError, ValueError) as e:
        raise ZylaError("SystemError", f"the path {path!r} cannot be resolved: {e}") from None


def _under(p: Path, root: Path) -> bool:
    return p == root or root in p.parents


def _under_any(p: Path, roots: list[Path]) -> bool:
    return any(_under(p, r) for r in roots)


def _refused(path: Any, full: Path, what: str, kind: str) -> ZylaError:
    rule = ("a program reads only files in its own folder and the current folder, not hidden "
            "ones nor /proc, /dev or /sys") if kind == "read" else \
        "a program writes only inside the current folder's tree"
    return ZylaError(
        "SystemError", f"{what} {str(path)!r} is not allowed: {rule}",
        hint=f"to allow it, run with --allow-{kind}={full if kind == 'read' else full.parent}")


def _current_policy() -> Policy:
    rt = current.runtime()
    return policy(rt) if rt is not None else Policy()


def configure(rt: Any, program: str | None, allow_read: list[str] = (),  # type: ignore[assignment]
              allow_write: list[str] = (),  # type: ignore[assignment]
              allow_shell: bool = False) -> Policy:
    """Set the runtime's policy for running `program` (a file name, or None) with the
    user's `--allow-read`/`--allow-write` paths and `--allow-shell`."""
    pol = policy(rt)
    pol.allow_shell = allow_shell
    if program and program not in ("none", "REPL"):
        set_program(rt, program)
    pol.allow_read = [_real(p) for p in allow_read]
    pol.allow_write = [_real(p) for p in allow_write]
    return pol



def policy(rt: Any) -> Policy:
    """The runtime's policy (a default, restrictive one if none was set)."""
    p = getattr(rt, "safety_policy", None)
    if p is None:
        p = rt.safety_policy = Policy()
    return p


class Cmd:
    """An external command as an argument vector (Julia's `Cmd`); never run by a shell."""

    jtype = CmdT

    def __init__(self, argv: tuple[str, ...]) -> None:
        self.argv = argv

    def jl_show(self) -> str:
        return "`" + " ".join(self.argv) + "`"


def make_cmd(args: Any) -> Cmd:
    """`Cmd(["prog", "arg", ...])`: a command from a vector (or tuple) of strings."""
    import numpy as np

    if isinstance(args, np.ndarray):
        items = list(args.reshape(-1).tolist())
    elif isinstance(args, (tuple, list)):
        items = list(args)
    else:
        raise ZylaError("MethodError",
                        "Cmd expects a vector of strings, e.g. Cmd([\"ls\", \"-l\"])")
    if not items or not all(isinstance(a, str) for a in items):
        raise ZylaError("ArgumentError", "Cmd expects a non-empty vector of strings")
    return Cmd(tuple(items))


def run_cmd(rt: Any, cmd: Any) -> None:
    """`run(cmd)`: run an external command (only with --allow-shell), wait for it, and
    raise a ProcessFailedException-style error if it fails."""
    if not policy(rt).allow_shell:
        raise ZylaError(
            "ErrorException", "running external commands is disabled",
            hint="a program can run commands only when the user allows it: "
                 "`zyla run --allow-shell FILE.jl`")
    if not isinstance(cmd, Cmd):
        raise ZylaError("MethodError", f"no method matching run(::{V.type_name(_typeof(cmd))})",
                        hint="build the command with Cmd([\"prog\", \"arg\", ...])")
    rt.stdout.flush()
    try:
        res = subprocess.run(list(cmd.argv), stdout=subprocess.PIPE, stderr=None, check=False)
    except OSError as e:
        raise ZylaError("IOError", f"could not spawn {cmd.jl_show()}: {e.strerror}") from None
    rt.stdout.write(res.stdout.decode("utf-8", "replace"))
    sys.stderr.flush()
    if res.returncode != 0:
        raise ZylaError("ProcessFailedException",
                        f"failed process: {cmd.jl_show()}, exit status {res.returncode}")
    return None


def audit_namespace(rt: Any) -> list[str]:
    """Names bound in the runtime's built-ins or globals to raw Python objects a
    program must never hold (modules, classes, plain Python functions): should be empty.
    Zyla values, primitives and generic functions are what a program may see."""
    import types

    bad = []
    for space in (rt.builtins, rt.globals):
        for name, v in space.items():
            if isinstance(v, (types.ModuleType, types.FunctionType, types.BuiltinFunctionType,
                              types.MethodType, type)):
                bad.append(name)
    return sorted(bad)


def _typeof(x: Any) -> V.JType:
    return typeof(x)


def install(rt: Any) -> None:
    """Register `run` and `Cmd` in the runtime's built-ins."""
    host_only = HostOnly("external commands run on the host")
    rt.builtins["Cmd"] = prim("Cmd", make_cmd, host_only, NONDIFF, lambda *a, **k: CmdT)
    rt.builtins["cd"] = prim("cd", change_directory, host_only, NONDIFF,
                             lambda *a, **k: V.NothingT)
    rt.builtins["pwd"] = prim("pwd", os.getcwd, host_only, NONDIFF, lambda *a, **k: V.StringT)
    rt.builtins["run"] = prim("run", lambda cmd: run_cmd(rt, cmd), host_only, NONDIFF,
                              lambda *a, **k: V.NothingT)
    policy(rt)


def set_program(rt: Any, program: str) -> None:
    """`program` is the file being run: its folder becomes readable."""
    policy(rt).program_dir = Path(os.path.realpath(os.path.abspath(program))).parent
