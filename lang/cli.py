"""The `zyla` command: `zyla run FILE.jl [ARGS...]`, `zyla -e CODE`, and the REPL.

Errors in the user's program print as `ERROR:` with location, source line and caret on
stderr and exit with status 1; a Python traceback is shown only with ZYLA_DEBUG=1.
"""

from __future__ import annotations

import os
import sys
import traceback
from typing import Any, Callable

from lang.errors import ZylaError, format_error


def _debug() -> bool:
    return os.environ.get("ZYLA_DEBUG", "") not in ("", "0")


def guarded(action: Callable[[], Any]) -> int:
    """Run an action, turning every failure into a Julia-style error report."""
    try:
        action()
        return 0
    except ZylaError as e:
        sys.stdout.flush()
        if _debug():
            traceback.print_exc()
        print(format_error(e), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        sys.stdout.flush()
        print("ERROR: InterruptException:", file=sys.stderr)
        return 130
    except SystemExit as e:
        sys.stdout.flush()
        return int(e.code or 0)
    except RecursionError:
        sys.stdout.flush()
        print("ERROR: StackOverflowError: recursion too deep", file=sys.stderr)
        return 1
    except Exception as e:  # an internal error: still no traceback unless asked for
        sys.stdout.flush()
        if _debug():
            traceback.print_exc()
        print(f"ERROR: InternalError: {type(e).__name__}: {e}\n  (set ZYLA_DEBUG=1 for the Python traceback)",
              file=sys.stderr)
        return 1


def run_file(path: str, args: list[str]) -> int:
    from lang.runtime import Runtime

    def action() -> None:
        try:
            text = open(path, encoding="utf-8").read()
        except OSError as e:
            raise ZylaError("SystemError", f"opening file {path!r}: {e.strerror}") from None
        rt = Runtime()
        import numpy as np

        argv = np.empty(len(args), dtype=object)
        argv[:] = args
        rt.globals["ARGS"] = argv
        rt.current_file = path
        rt.run_source(text, path)

    code = guarded(action)
    sys.stdout.flush()
    return code


def run_code(code: str) -> int:
    from lang.runtime import Runtime

    def action() -> None:
        rt = Runtime()
        rt.current_file = "none"
        rt.run_source(code, "none")

    return guarded(action)


def usage() -> int:
    print("usage: zyla run FILE.jl [ARGS...] | zyla -e CODE | zyla", file=sys.stderr)
    return 2


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    sys.setrecursionlimit(20000)
    if not argv:
        from lang.repl import repl

        return repl()
    cmd = argv[0]
    if cmd == "run" and len(argv) >= 2:
        code = run_file(argv[1], argv[2:])
    elif cmd == "-e" and len(argv) >= 2:
        code = run_code(argv[1])
    elif cmd.endswith(".jl"):
        code = run_file(cmd, argv[1:])
    else:
        code = usage()
    sys.exit(code)


if __name__ == "__main__":
    main()
