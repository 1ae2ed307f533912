"""The `zyla` command.

    zyla [PERMISSIONS]                        the REPL
    zyla [PERMISSIONS] run FILE.jl [ARGS]     run a program (also: zyla FILE.jl [ARGS])
    zyla -e CODE                              evaluate code, like `julia -e`
    zyla explain FILE.jl ['f(x)']             run FILE, then say where its calls ran (the
                                              tiering policy) and whether f(x) offloads
    zyla gradcheck FILE.jl [FUNC]             run FILE's @gradcheck properties (or check FUNC)
    zyla --help | --version

Errors in the user's program print as `ERROR:` with location, source line, caret and a
hint on stderr and exit with status 1; a Python traceback is shown only with
ZYLA_DEBUG=1 (an internal error is reported as `InternalError` without one).
PERMISSIONS (lang.core.safety, docs/SAFETY.md): a program reads files under its own
folder and the current folder and writes only inside the current folder's tree (no
hidden files, nothing that tools run); `--allow-read=PATH[,PATH...]` and
`--allow-write=PATH[,PATH...]` add paths; `--allow-shell` lets it run external commands
(`run(Cmd([...]))`), which are refused otherwise; `ENV` is the program's own dictionary,
empty but for the variables named by `--allow-env=NAME[,NAME...]` (writes stay in it).
"""

from __future__ import annotations

import os
import resource
import sys
import traceback
from collections.abc import Callable, Sequence
from typing import Any

from backend import compile as backend_compile
from backend import tiering
from backend.nests import nest_report
from backend.sharding import request_host_devices, request_model_split
from grammar.errors import ZylaError, decode_source
from lang.door.diagnostics import explain_source, flush_stdout, report
from lang.door.gradcheck import Collector, run_property, specs_from_signature
from lang.door.repl import repl
from lang.door.wiring import new_runtime

USAGE = """\
usage: zyla [PERMISSIONS]                         start the REPL
       zyla [PERMISSIONS] run FILE.jl [ARGS...]   run a program
       zyla run --devices N FILE.jl [ARGS...]     ... data-parallel over N devices (SHARDING.md)
       zyla run --devices N --model M FILE.jl     ... a batch × model mesh (M along model)
       zyla run --processes P [--devices N] FILE.jl [ARGS...]
                                                  ... over P processes of N devices each
       zyla --coordinator HOST:PORT --process-id I --num-processes P run FILE.jl [ARGS...]
                                                  ... as process I of a job another
                                                  launcher started (SLURM, mpirun)
       zyla [PERMISSIONS] FILE.jl [ARGS...]       the same
       zyla -e CODE                               evaluate CODE
       zyla explain FILE.jl ['f(x)']              where FILE's calls ran and why; does f(x)
                                                  offload to XLA, and if not, why
       zyla gradcheck [--examples N] [--seed N] FILE.jl [FUNC]
                                                  check gradients: FILE's @gradcheck properties
                                                  (those of FUNC), or FUNC's signature
environment: ZYLA_DEBUG=1 (Python tracebacks), ZYLA_COMPILE=auto|never|always,
             ZYLA_EXPLAIN=1 (where each call runs, compiled or interpreted, and why),
             ZYLA_COMPILE_NOTICE=SECONDS (announce compiles longer than this; default 2),
             ZYLA_XLA_CACHE=DIR|off (XLA executables kept between runs; default
             $XDG_CACHE_HOME/zyla/xla), ZYLA_FRONTEND_CACHE=DIR|off (the parsed and
             lowered standard library; default $XDG_CACHE_HOME/zyla/frontend),
             ZYLA_MATMUL_PRECISION=highest|high|default (Float32 products and
             convolutions; default highest, IEEE Float32 as in Julia; on a GPU
             `default` allows TensorFloat-32), ZYLA_FMA=1 (let XLA fuse a * b + c
             into one rounding: faster, but not Julia's last bit; default off)"""

VERSION = "zyla 0.1.0"


def command() -> list[str]:
    """The command line that starts this checkout's `zyla`: the console script of its
    virtual environment or of the running interpreter, else this module run by the
    running interpreter (for tests and benchmarks that start `zyla` in a subprocess)."""
    import shutil
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    for cand in (root / ".venv" / "bin" / "zyla", Path(sys.executable).parent / "zyla"):
        if cand.exists():
            return [str(cand)]
    found = shutil.which("zyla")
    return [found] if found else [sys.executable, "-m", "lang.door.cli"]


def _debug() -> bool:
    return os.environ.get("ZYLA_DEBUG", "") not in ("", "0")


def guarded(action: Callable[[], Any], rt_box: list | None = None) -> int:
    """Run an action, turning every failure into a Julia-style error report and an exit
    status: 0 on success, 1 on an error, 130 on Ctrl-C. `rt_box[0]`, if set, is the
    runtime whose names the error hints draw on."""
    rt = None
    try:
        action()
        flush_stdout()
        return 0
    except ZylaError as e:
        if _debug():
            traceback.print_exc()
        rt = rt_box[0] if rt_box else None
        report(e, rt)
        return 1
    except KeyboardInterrupt:
        flush_stdout()
        print("ERROR: InterruptException:", file=sys.stderr)
        return 130
    except SystemExit as e:
        flush_stdout()
        code = e.code
        if code is None or isinstance(code, int):
            return int(code or 0)
        print(str(code), file=sys.stderr)
        return 1
    except BrokenPipeError:
        _silence_stdout()
        return 1
    except RecursionError:
        flush_stdout()
        print("ERROR: StackOverflowError: recursion too deep", file=sys.stderr)
        return 1
    except MemoryError:
        flush_stdout()
        print("ERROR: OutOfMemoryError: the program ran out of memory", file=sys.stderr)
        return 1
    except Exception as e:  # an internal error: still no traceback unless asked for
        flush_stdout()
        if _debug():
            traceback.print_exc()
        first = str(e).splitlines()[0] if str(e) else ""
        print(f"ERROR: InternalError: {type(e).__name__}: {first}\n"
              "  (this is a bug in Zyla; set ZYLA_DEBUG=1 for the Python traceback)",
              file=sys.stderr)
        return 1


def _silence_stdout() -> None:
    """After a broken pipe: point stdout at devnull so the interpreter's exit flush is quiet."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _read(path: str) -> str:
    """The text of a program file; invalid UTF-8 is a ParseError at its line and column."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise ZylaError("SystemError", f"opening file {path!r}: {e.strerror}") from None
    return decode_source(path, raw)


def run_file(path: str, args: list[str], allow_shell: bool = False,
             allow_read: Sequence[str] = (), allow_write: Sequence[str] = (),
             allow_env: Sequence[str] = ()) -> int:
    box: list = [None]

    def action() -> None:
        import numpy as np

        text = _read(path)
        rt = box[0] = new_runtime(path, allow_shell, allow_read, allow_write, allow_env)
        argv = np.empty(len(args), dtype=object)
        argv[:] = args
        rt.globals["ARGS"] = argv
        rt.globals["PROGRAM_FILE"] = path
        rt.run_source(text, path)

    return guarded(action, box)


def run_code(code: str, allow_shell: bool = False, allow_read: Sequence[str] = (),
             allow_write: Sequence[str] = (), allow_env: Sequence[str] = ()) -> int:
    box: list = [None]

    def action() -> None:
        rt = box[0] = new_runtime("none", allow_shell, allow_read, allow_write, allow_env)
        rt.run_source(code, "none")

    return guarded(action, box)


def explain(path: str, call: str | None) -> int:
    """`zyla explain FILE.jl ['f(x)']`: run the file, then list the tiering policy's
    decisions (which calls ran compiled and why, backend.tiering) and explain the call."""
    box: list = [None]

    def action() -> None:
        rt = box[0] = new_runtime(path)
        rt.run_source(_read(path), path)
        flush_stdout()
        lines = tiering.decisions(rt)
        print("where the calls ran (each decision the first time it was made):")
        print("\n".join("  " + ln for ln in lines) if lines else "  every call on the host")
        nests = nest_report(rt, path)
        if nests:
            print("loop nests (docs/NESTS.md):")
            print("\n".join("  " + ln for ln in nests))
        if call is not None:
            print(explain_source(rt, call))

    return guarded(action, box)


def gradcheck(path: str, func: str | None, examples: int | None, seed: int | None) -> int:
    """`zyla gradcheck FILE.jl [FUNC]`: run the file collecting its `@gradcheck`
    properties, then check them (those of FUNC); with FUNC and no property for it, draw
    inputs from FUNC's method signature. Exit status 1 if any check fails."""
    box: list = [None]
    status = [0]

    def action() -> None:
        rt = box[0] = new_runtime(path)
        coll = rt.gradcheck_collector = Collector()
        rt.run_source(_read(path), path)
        rt.gradcheck_collector = None
        props = [p for p in coll.properties
                 if func is None or getattr(p[0], "name", None) == func]
        if func is not None and not props:
            f = rt.lookup(func)
            specs = specs_from_signature(f)
            if specs is None:
                raise ZylaError("ArgumentError", f"no @gradcheck property for `{func}` in {path}, "
                                "and its methods do not say which inputs to draw",
                                hint=f"declare one, e.g. @gradcheck "
                                     f"{func}(x::Vector{{Float64}}(3) in (-1, 1))")
            props = [(f, specs, {}, "", 0)]
        if not props:
            raise ZylaError("ArgumentError", f"no @gradcheck properties in {path}",
                            hint="add one, e.g. @gradcheck f(x::Float64 in (-1, 1)), "
                                 "or name a function: zyla gradcheck FILE.jl f")
        failed = 0
        for f, specs, options, text, _line in props:
            opts = dict(options)
            if examples is not None:
                opts["examples"] = examples
            if seed is not None:
                opts["seed"] = seed
            res = run_property(rt, f, specs, text=text, **opts)
            flush_stdout()
            print(res.report(), flush=True)
            failed += not res.ok
        n = len(props)
        print(f"{n} propert{'y' if n == 1 else 'ies'}: {n - failed} passed, {failed} failed")
        status[0] = 1 if failed else 0

    code = guarded(action, box)
    return code or status[0]


def usage(message: str | None = None) -> int:
    if message:
        print(f"zyla: {message}", file=sys.stderr)
    print(USAGE, file=sys.stderr)
    return 2


def _int_option(argv: list[str], name: str) -> tuple[int | None, str | None]:
    """Remove `name N` from argv; (value, error)."""
    if name not in argv:
        return None, None
    i = argv.index(name)
    if i + 1 >= len(argv):
        return None, f"{name} needs a number"
    try:
        value = int(argv[i + 1])
    except ValueError:
        return None, f"{name} needs a number, got {argv[i + 1]!r}"
    del argv[i: i + 2]
    return value, None


def _leading_options(argv: list[str], opts: dict) -> tuple[list[str], str | None]:
    """Take `--allow-shell`, `--allow-read=PATHS`, `--allow-write=PATHS`, `--allow-env=NAMES`
    and `--devices N` from the front of argv into opts; (rest, error)."""
    while argv:
        arg = argv[0]
        if arg == "--allow-shell":
            opts["allow_shell"] = True
            argv = argv[1:]
        elif arg.startswith(("--allow-read", "--allow-write", "--allow-env")):
            flag, eq, paths = arg.partition("=")
            if flag not in ("--allow-read", "--allow-write", "--allow-env") or not eq or not paths:
                what = "names: --allow-env=NAME[,NAME...]" if flag == "--allow-env" else \
                    f"paths: {flag}=PATH[,PATH...]"
                return argv, f"{flag} needs {what}"
            opts[flag[2:].replace("-", "_")].extend(p for p in paths.split(",") if p)
            argv = argv[1:]
        elif arg in _COUNTS:
            if len(argv) < 2 or not argv[1].isdigit() or int(argv[1]) < _COUNTS[arg][0]:
                return argv, f"{arg} needs {_COUNTS[arg][1]}"
            opts[arg[2:].replace("-", "_")] = int(argv[1])
            argv = argv[2:]
        elif arg == "--coordinator":
            if len(argv) < 2 or ":" not in argv[1]:
                return argv, "--coordinator needs HOST:PORT (process 0's address)"
            opts["coordinator"] = argv[1]
            argv = argv[2:]
        else:
            break
    return argv, None


#: options that take a count: the least value, and what the error says is needed
_COUNTS = {"--devices": (1, "a positive number of devices"),
           "--model": (1, "the number of devices along the mesh's model axis"),
           "--processes": (1, "a positive number of processes"),
           "--process-id": (0, "this process's number (0, 1, ...)"),
           "--num-processes": (1, "the number of processes of the job")}


def _job(opts: dict) -> str | None:
    """`--coordinator HOST:PORT --process-id I --num-processes P`: join that job before the
    program runs (lang.door.processes); the error, if the options do not fit together."""
    given = [opts[k] is not None for k in ("coordinator", "process_id", "num_processes")]
    if not any(given):
        return None
    if not all(given):
        return "--coordinator, --process-id and --num-processes go together"
    if opts["process_id"] >= opts["num_processes"]:
        return "--process-id must be less than --num-processes"
    from lang.door import processes

    try:
        processes.join(opts["coordinator"], opts["num_processes"], opts["process_id"])
    except ZylaError as e:
        report(e)
        raise SystemExit(1) from None
    return None


def _permission_options(opts: dict) -> list[str]:
    """The permission options as they were given (for the processes of a job)."""
    out = ["--allow-shell"] if opts["allow_shell"] else []
    for k in ("allow_read", "allow_write", "allow_env"):
        if opts[k]:
            out.append(f"--{k.replace('_', '-')}={','.join(opts[k])}")
    return out


def _model_option(opts: dict) -> list[str]:
    return ["--model", str(opts["model"])] if opts["model"] is not None else []


def _use_devices(n: int | None, model: int | None = None) -> None:
    """`--devices N`: run compiled calls data-parallel over N devices (backend.sharding);
    on CPU, XLA simulates them, which must be asked for before JAX starts. `--model M`:
    M of them along a second mesh axis, "model" (`Zyla.shard(W, (:model, nothing))`)."""
    backend_compile.PERSISTENT_DEFAULT = True  # zyla run: keep XLA executables between runs
    if n is not None and n > 1:
        request_host_devices(n)
    if model is not None and model > 1:
        request_model_split(model)


def dispatch(argv: list[str]) -> int:
    """Run the command line `argv` (without the program name); the exit status."""
    opts: dict = {"allow_shell": False, "allow_read": [], "allow_write": [], "allow_env": [],
                  "devices": None,
                  "processes": None, "coordinator": None, "process_id": None,
                  "num_processes": None, "model": None}
    argv, err = _leading_options(argv, opts)
    if err:
        return usage(err)
    perms = {k: opts[k] for k in ("allow_shell", "allow_read", "allow_write", "allow_env")}
    if not argv:
        _use_devices(opts["devices"])
        return repl(**perms)
    cmd = argv[0]
    if cmd in ("-h", "--help", "help"):
        print(USAGE)
        return 0
    if cmd in ("-v", "--version"):
        print(VERSION)
        return 0
    if cmd == "run":
        rest, err = _leading_options(argv[1:], opts)
        if err:
            return usage(err)
        if not rest:
            return usage("run needs a file")
        if opts["processes"] is not None and opts["processes"] > 1:
            from lang.door import processes

            return processes.launch(rest, opts["processes"], opts["devices"],
                                    _permission_options(opts) + _model_option(opts))
        _use_devices(opts["devices"], opts["model"])
        err = _job(opts)
        if err:
            return usage(err)
        perms = {k: opts[k] for k in ("allow_shell", "allow_read", "allow_write", "allow_env")}
        return run_file(rest[0], rest[1:], **perms)
    if cmd == "-e":
        if len(argv) < 2:
            return usage("-e needs code")
        _use_devices(opts["devices"])
        return run_code(argv[1], **perms)
    if cmd == "explain":
        if len(argv) not in (2, 3):
            return usage("explain needs a file (and a call), e.g. zyla explain model.jl "
                         "'loss(W, x)'")
        return explain(argv[1], argv[2] if len(argv) > 2 else None)
    if cmd == "gradcheck":
        rest = list(argv[1:])
        examples, err = _int_option(rest, "--examples")
        seed, err2 = _int_option(rest, "--seed")
        if err or err2:
            return usage(err or err2)
        if not 1 <= len(rest) <= 2:
            return usage("gradcheck needs a file and optionally a function name")
        return gradcheck(rest[0], rest[1] if len(rest) == 2 else None, examples, seed)
    if cmd.endswith(".jl"):
        _use_devices(opts["devices"])
        return run_file(cmd, argv[1:], **perms)
    return usage(f"unknown command {cmd!r}")


#: The main thread's stack may grow this far (Linux checks the limit as the stack grows).
STACK_BYTES = 1 << 30


def _grow_stack() -> None:
    """Let the main thread's stack grow to STACK_BYTES: deeply nested values (100 000
    nested arrays) recurse in C when they are printed, compared or freed, and with the
    default 8 MB the process would die of SIGSEGV instead of raising StackOverflowError."""
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_STACK)
        want = STACK_BYTES if hard == resource.RLIM_INFINITY else min(STACK_BYTES, hard)
        if soft != resource.RLIM_INFINITY and soft < want:
            resource.setrlimit(resource.RLIMIT_STACK, (want, hard))
    except (OSError, ValueError):
        pass  # a platform without the limit: nothing to raise


def main(argv: list[str] | None = None) -> int:
    """The console script: run the command line and exit with its status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    _grow_stack()
    sys.setrecursionlimit(20000)
    try:
        code = dispatch(argv)
    except KeyboardInterrupt:
        print("ERROR: InterruptException:", file=sys.stderr)
        code = 130
    except BrokenPipeError:
        _silence_stdout()
        code = 1
    except Exception as e:  # last line of defence: never a traceback without ZYLA_DEBUG
        if _debug():
            traceback.print_exc()
        print(f"ERROR: InternalError: {type(e).__name__}: {e}", file=sys.stderr)
        code = 1
    flush_stdout()
    if code == 130:
        # interrupted: a compiled loop may still run on a worker thread, and the
        # interpreter's shutdown would wait for it
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)


if __name__ == "__main__":
    main()
