"""The tiering policy: at every call of a Zyla function made by host-run code, run it on
the interpreter or as one compiled executable.

The host interpreter hands each call of a Zyla function, closure or callable struct to
`tiered_call` (installed through `lang.core.interp.set_offload`), at any depth: inside
host-run functions, `@elapsed` blocks, comprehensions, `do` blocks and loops. The choice:

- **top level** (a call written in a file's or the REPL's top-level code): compiled when
  the call does array work at all (an array among its arguments, or among the globals the
  callee reads: `work() = sum(model(x))`), as before;
- **at depth**: compiled when the call does *much* array work (`BIG_ELEMENTS` array
  elements among its arguments and the globals it reads), when the callee was compiled
  before, or when it is *hot* (it has already spent `HOT_SECONDS` on the interpreter
  over at least `HOT_CALLS` calls, is not recursive, and the call has an array or a
  float to pass: integers and strings alone would be constants of the executable);
- **restarted**: a host call that has run `LONG_SECONDS` without an effect a caller
  could see is unwound and run compiled from its start (`watch`), unless its loops'
  progress says it will be done before an executable would be;
- **never**: a recursive call (the outer activation of the same function is on the host
  stack), a callee that failed to compile `MAX_FAILURES` times or was compiled for
  `MAX_SIGNATURES` signatures (a retrace storm), and calls made by code a transform
  derived (AD's forward and adjoint functions run their callees as they are);
- `ZYLA_COMPILE=never` runs everything on the host, `always` compiles every top-level
  call and every call at depth that has run-time values (arrays, floats) or reads globals.

Library code's own calls go to the compile tier only when the callee is user code (a
user closure run by `map` or `foreach`), so the standard library does not compile its
internals one call at a time.

`ZYLA_EXPLAIN=1` prints each decision (the first time it is made for a function, and
whenever it changes) with its reason on stderr; `decisions(rt)` returns them.
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from backend.compile import _cache, compiled_call, prepare
from grammar.errors import ZylaError, is_library_file
from lang.core import values as V
from lang.core.functions import Closure, GenericFunction, Method, call_label, call_methods, typeof
from lang.core.interp import loop_progress
from lang.core.ir import Function, Op, Region, Value, walk_ops
from lang.core.structure import OffloadError

#: array elements (arguments and globals read) that make a call at depth compile at once
BIG_ELEMENTS = 1 << 16
#: interpreter seconds after which a function is hot ...
HOT_SECONDS = 0.05
#: ... provided it was called at least this often
HOT_CALLS = 2
#: a function whose compilation failed this often runs on the host from then on
MAX_FAILURES = 3
#: a function compiled for this many signatures runs on the host from then on
MAX_SIGNATURES = 8
#: ... and its calls took this long each on average (a shorter call gains nothing from an
#: executable: calling one from the host costs ~20-50 µs here)
MIN_CALL_SECONDS = 1e-4
#: a call at depth without array work that took less than MIN_CALL_SECONDS lets this many
#: later calls of the same body run on the host without asking the policy (the translated
#: host code's call sites read `Function.host_skip`); the next one asks again
SKIP_CALLS = 63
#: compiled calls at depth are compared with host calls after this many (not counting the
#: first COMPARE_WARMUP): slower ones send the function back to the host for good
COMPARE_CALLS = 16
COMPARE_WARMUP = 2
#: a host call that has run this long without effects is restarted compiled ...
LONG_SECONDS = 0.03
#: ... unless its loops say it will be done sooner than tracing and compiling take
#: (a small function: ~0.05-0.1 s here) and than importing JAX (~0.5 s), if not yet done
COMPILE_SECONDS = 0.1
JAX_IMPORT_SECONDS = 0.5


@dataclass(eq=False)
class Stats:
    """What the policy knows about one function body."""

    fn: Function
    calls: int = 0  # host calls (outermost activations)
    host_seconds: float = 0.0  # their interpreter time
    active: int = 0  # activations on the host stack now
    failures: int = 0
    builds: int = 0  # executables built for it
    never: str = ""  # why it no longer goes to the compile tier
    user: bool = True  # lowered from a user's file (not the library, not derived)
    globals_read: tuple[str, ...] = ()
    recursive: bool = False  # it has called itself on the host
    long: bool = False  # a call of it ran long on the host and was restarted compiled
    resizes: bool = False  # a loop of it changes the length of an array it carries
    compiled_calls: int = 0  # compiled calls made at depth, and the time of those timed
    compiled_seconds: float = 0.0
    said: set[str] = field(default_factory=set)  # decisions already explained


class Policy:
    """Per-runtime state of the tiering policy."""

    def __init__(self) -> None:
        self.stats: dict[int, Stats] = {}
        self.log: list[str] = []
        self.frames: list[Frame] = []  # host calls that may still move to the compile tier
        self.explain = os.environ.get("ZYLA_EXPLAIN", "") not in ("", "0")
        self.loops: dict[int, LoopState] = {}  # loops replaced on the stack, by op id

    def of(self, fn: Function) -> Stats:
        st = self.stats.get(id(fn))
        if st is None or st.fn is not fn:
            st = self.stats[id(fn)] = Stats(fn, user=_is_user(fn), globals_read=_globals_read(fn),
                                            resizes=any(_resizes(op) for op in walk_ops(fn.body)))
        return st

    def note(self, st: Stats, f: Any, args: list, kwargs: dict | None, where: str,
             verdict: str, why: str) -> None:
        key = f"{verdict}: {why.split(':')[0]}"
        if key in st.said:
            return
        st.said.add(key)
        self.say(f"{call_label(f, args, kwargs)} {where}: {verdict} ({why})")

    def say(self, line: str) -> None:
        self.log.append(line)
        if self.explain:
            print(f"zyla tier: {line}", file=sys.stderr, flush=True)


def policy(rt: Any) -> Policy:
    p = getattr(rt, "tier_policy", None)
    if p is None:
        p = rt.tier_policy = Policy()
    return p


def decisions(rt: Any) -> list[str]:
    """The decisions made so far in this runtime, one line each, with their reasons."""
    return list(policy(rt).log)


#: sources of the derivative rules that autodiff compiles from Zyla text
_RULE_SOURCES = ("<rule>", "<frule>")


def _is_user(fn: Function) -> bool:
    return not fn.derived and fn.file not in _RULE_SOURCES and not is_library_file(fn.file)


#: calls that change an array's length
_RESIZING = frozenset({"Core.push_fn", "Core.append_fn", "push!", "append!", "pop!", "resize!",
                       "empty!", "deleteat!", "insert!", "pushfirst!", "popfirst!",
                       "prepend!", "splice!", "filter!"})
#: why such a call is not tried compiled (checked before tracing: a failed trace costs the
#: import of JAX and the trace, a second or more, for code that runs in milliseconds)
_RESIZES_WHY = ("a loop changes the length of an array it carries (`push!`, ...): compiled "
                "values keep their shapes")


def _resizes(op: Op) -> bool:
    """Whether `op` is a loop that changes the length of an array it carries or iterates
    (`push!(v, x)` on the loop's own `v`): compiled code cannot (shapes are fixed)."""
    if op.name not in ("for", "while"):
        return False
    inside = {a.id for r in op.regions for a in r.args}
    return any(o.name == "call" and o.attrs.get("fn") in _RESIZING and o.operands
               and o.operands[0].id in inside for r in op.regions for o in walk_ops(r))


def _globals_read(fn: Function) -> tuple[str, ...]:
    """The globals a body reads: values (`global` ops) and callees named by calls (a
    global model called as `model(x)`; functions among them hold no arrays)."""
    names = (op.attrs["name"] if op.name == "global" else op.attrs["fn"]
             for op in walk_ops(fn.body) if op.name == "global" or op.name == "call")
    return tuple(dict.fromkeys(names))


# --- the callee -----------------------------------------------------------------------------

def _target(f: Any, args: list) -> tuple[Method | None, Function | None, list, list]:
    """(method, body, captures, receiver-prefixed args) of a call of a Zyla callable; the
    body is None for a built-in method."""
    if type(f) is GenericFunction:
        m = f.dispatch([typeof(a) for a in args])
        return m, m.fn, [], args
    if type(f) is Closure:
        if f.generic is not None:
            m = f.generic.dispatch([typeof(a) for a in args])
            return m, m.fn, list(f.captures), args
        return None, f.fn, list(f.captures), args
    full = [f] + args
    m = call_methods(f).dispatch([typeof(a) for a in full])
    return m, m.fn, [], full


def _run_host(interp: Any, m: Method | None, fn: Function, captures: list, args: list,
              kwargs: dict | None) -> Any:
    if m is not None:
        return interp.invoke(m, args, kwargs, captures)
    return interp.run_method_fn(fn, captures, args, kwargs)


# --- the work a call does --------------------------------------------------------------------

def _elements(v: Any, limit: int, seen: set[int], depth: int = 0) -> int:
    """Array elements in a value (arrays, and arrays inside tuples, structs, closures),
    counted up to `limit`."""
    t = type(v)
    if t is np.ndarray:
        if v.dtype != object:
            return v.size
        total = 0
        for x in v.flat[:64]:
            total += _elements(x, limit - total, seen, depth + 1)
            if total >= limit:
                break
        return total
    if depth > 6 or id(v) in seen:
        return 0
    if t is tuple or t is list:
        items: Any = v
    elif t is V.NamedTuple:
        items = v.values
    elif t is V.StructValue:
        items = v.fields
    elif t is Closure:
        items = v.captures
    else:
        return 0
    seen.add(id(v))
    total = 0
    for x in items:
        total += _elements(x, limit - total, seen, depth + 1)
        if total >= limit:
            break
    return total


def _has_runtime_values(vals: Any) -> bool:
    """Whether a call's values hold anything an executable takes as a run-time input
    (an array or a float); integers and booleans are constants of a compiled call."""
    for v in vals:
        t = type(v)
        if t is float or t is np.float64 or t is np.float32:
            return True
        if t is np.ndarray:
            if v.dtype != object and v.size > 0:
                return True
        elif t is tuple or t is list:
            if _has_runtime_values(v):
                return True
        elif t is V.NamedTuple:
            if _has_runtime_values(v.values):
                return True
        elif t is V.StructValue:
            if _has_runtime_values(v.fields):
                return True
        elif t is Closure and _has_runtime_values(v.captures):
            return True
    return False


def _work(rt: Any, st: Stats, f: Any, args: list, kwargs: dict | None, limit: int) -> int:
    """Array elements among the call's arguments (and the callee's captures) and the
    globals the body reads, counted up to `limit`."""
    seen: set[int] = set()
    total = _elements(f, limit, seen) if type(f) is not GenericFunction else 0
    for a in args:
        total += _elements(a, limit - total, seen)
        if total >= limit:
            return total
    for a in (kwargs or {}).values():
        total += _elements(a, limit - total, seen)
    for name in st.globals_read:
        if total >= limit:
            break
        try:
            total += _elements(rt.lookup(name), limit - total, seen)
        except ZylaError:
            continue
    return total


# --- the decision ------------------------------------------------------------------------------

@dataclass(eq=False)
class Frame:
    """A call running on the host that may still move to the compile tier."""

    st: Stats
    f: Any
    args: list
    kwargs: dict | None
    effects: int  # the interpreter's effect count when the call started
    t0: float
    where: str
    loops: int  # how many loops were running when it started (theirs are not its own)
    tried: bool = False


class Retier(BaseException):
    """Unwinds the host run of `frame` (which had no effects yet) so that its call runs
    compiled from the start. A BaseException: no handler of the interpreter or of the
    user's `try` takes it for an error."""

    def __init__(self, frame: Frame) -> None:
        super().__init__()
        self.frame = frame


def tiered_call(interp: Any, f: Any, args: list, kwargs: dict | None, caller: Function) -> Any:
    """Run a call of a Zyla callable made by host-run code in `caller`, compiled or on
    `interp`, as the policy (module docstring) decides."""
    rt = interp.rt
    m, fn, captures, full = _target(f, args)
    if fn is None:  # a built-in method
        assert m is not None
        return interp.invoke(m, full, kwargs)
    pol = policy(rt)
    st = pol.of(fn)
    if st.active:  # a recursive call: the outer activation is on the host
        st.recursive = True
        return _run_host(interp, m, fn, captures, full, kwargs)
    now, eligible, where, light = _decide(rt, pol, st, f, args, kwargs, caller)
    if now:
        t0 = time.perf_counter()
        done, out = _compiled(rt, pol, st, f, args, kwargs, where)
        if done:
            if caller.name != "toplevel":
                _compare(pol, st, f, args, kwargs, where, time.perf_counter() - t0)
            return out
    t0 = time.perf_counter()
    frame = (Frame(st, f, args, kwargs, interp.effects, t0, where, len(interp.loops))
             if eligible else None)
    if frame is not None:
        pol.frames.append(frame)
    st.active += 1
    fn.host_active += 1  # (translated host code runs calls of it here directly: recursion)
    try:
        return _run_host(interp, m, fn, captures, full, kwargs)
    except Retier as r:
        if r.frame is not frame:
            raise
        done, out = _compiled(rt, pol, st, f, args, kwargs, where)
        if done:
            return out
        return _run_host(interp, m, fn, captures, full, kwargs)
    finally:
        if frame is not None:
            pol.frames.pop()
        st.active -= 1
        fn.host_active -= 1
        if fn.recursed:
            st.recursive = True
        st.calls += 1
        dt = time.perf_counter() - t0
        st.host_seconds += dt
        if light and dt < MIN_CALL_SECONDS:
            fn.host_skip = SKIP_CALLS


def offload(rt: Any, f: Any, args: list, kwargs: dict | None) -> tuple[bool, Any]:
    """The compile tier's entry for a call the code asks to have compiled
    (`Core.offload_call`: Flux.train!'s step) or a call from top level without a policy:
    `(True, result)` when it ran compiled, `(False, None)` when the host must run it.
    Decided as a top-level call is (array work among its arguments and the globals it
    reads, or ZYLA_COMPILE=always), with the policy's limits on failures and signatures."""
    if rt.compile_mode == "never" or not isinstance(f, (GenericFunction, Closure, V.StructValue)):
        return False, None
    try:
        _m, fn, _captures, _full = _target(f, args)
    except ZylaError:
        return False, None
    if fn is None:  # a built-in method is not worth an executable
        return False, None
    pol = policy(rt)
    st = pol.of(fn)
    where = "asked for by the library"
    if st.never or st.active:
        return False, None
    if rt.compile_mode != "always" and _work(rt, st, f, args, kwargs, 1) < 1:
        return False, None  # (no array among the arguments, captures or globals read)
    pol.note(st, f, args, kwargs, where, "compile", "array work")
    return _compiled(rt, pol, st, f, args, kwargs, where)


def does_array_work(rt: Any, f: Any, args: list, kwargs: dict | None) -> bool:
    """Whether a top-level call of f would be compiled: an array among its arguments,
    the callee's captures or the globals its body reads."""
    try:
        _m, fn, _captures, _full = _target(f, args)
    except ZylaError:
        return False
    if fn is None:
        return False
    return _work(rt, policy(rt).of(fn), f, args, kwargs, 1) >= 1


def _compiled(rt: Any, pol: Policy, st: Stats, f: Any, args: list, kwargs: dict | None,
              where: str) -> tuple[bool, Any]:
    """(True, result) of the call run compiled, or (False, None) when it cannot be."""
    builds = _cache(rt).builds
    try:
        out = compiled_call(rt, f, args, kwargs)
    except OffloadError as e:
        _failed(rt, pol, st, f, args, kwargs, where, e)
        return False, None
    if _cache(rt).builds > builds:
        st.builds += 1
        if st.builds >= MAX_SIGNATURES:
            st.never = f"compiled for {st.builds} signatures; later calls run on the host"
    return True, out


def _compare(pol: Policy, st: Stats, f: Any, args: list, kwargs: dict | None, where: str,
             dt: float) -> None:
    """Time a compiled call made at depth: after COMPARE_CALLS of them (the first
    COMPARE_WARMUP, which build and load the executable, not counted), a function whose
    compiled calls took longer on average than its host calls runs on the host from then
    on (a cheap function of structs: calling an executable costs more than its work)."""
    st.compiled_calls += 1
    if st.compiled_calls <= COMPARE_WARMUP or st.never or not st.calls:
        return
    st.compiled_seconds += dt
    n = st.compiled_calls - COMPARE_WARMUP
    if n < COMPARE_CALLS:
        return
    compiled, host = st.compiled_seconds / n, st.host_seconds / st.calls
    if compiled > host:
        st.never = (f"its compiled calls ({compiled * 1e6:.0f} µs each) were slower than "
                    f"its host calls ({host * 1e6:.0f} µs)")
        pol.note(st, f, args, kwargs, where, "host", st.never)


def _failed(rt: Any, pol: Policy, st: Stats, f: Any, args: list, kwargs: dict | None,
            where: str, e: Exception) -> None:
    st.failures += 1
    rt.offload_reasons[getattr(f, "name", None) or st.fn.name] = str(e)
    pol.note(st, f, args, kwargs, where, "host", f"cannot compile: {e}")
    if st.failures >= MAX_FAILURES:
        st.never = f"compiling failed {st.failures} times"


def _decide(rt: Any, pol: Policy, st: Stats, f: Any, args: list, kwargs: dict | None,
            caller: Function) -> tuple[bool, bool, str, bool]:
    """(compile now, may move to the compile tier later, where the call is made, a call
    at depth without array work: later ones like it may skip the policy while cheap)."""
    mode = rt.compile_mode
    top = caller.name == "toplevel"
    if mode == "never" or st.never:
        return False, False, "", not top
    if st.resizes and mode != "always":
        pol.note(st, f, args, kwargs, "at top level" if top else f"in {caller.name}", "host",
                 _RESIZES_WHY)
        return False, False, "", not top
    if not top and not st.user and not _is_user(caller):
        return False, False, "", True  # the library's own calls run as they are
    where = "at top level" if top else f"in {caller.name}"
    if mode == "always":
        if top or _has_runtime_values(args) or st.globals_read:
            pol.note(st, f, args, kwargs, where, "compile", "ZYLA_COMPILE=always")
            return True, True, where, False
        return False, True, where, False
    need = 1 if top else BIG_ELEMENTS
    elems = _work(rt, st, f, args, kwargs, need)
    if elems >= need:
        why = "array work" if top else f"array work: at least {need:,} elements"
        pol.note(st, f, args, kwargs, where, "compile", why)
        return True, True, where, False
    if st.long or st.builds:
        why = "an earlier call ran long" if st.long else "compiled before"
        pol.note(st, f, args, kwargs, where, "compile", why)
        return True, True, where, False
    # (a call of only integers, strings, symbols has nothing an executable takes as input:
    # each new value would be a new compile, `split(line)` per line)
    if (st.calls >= HOT_CALLS and st.host_seconds >= HOT_SECONDS and not st.recursive
            and st.host_seconds >= MIN_CALL_SECONDS * st.calls
            and (elems or _has_runtime_values(args))):
        pol.note(st, f, args, kwargs, where, "compile",
                 f"hot: {st.calls} calls, {st.host_seconds:.2f} s in the interpreter")
        return True, True, where, False
    return False, True, where, not top and elems == 0


def _time_left(loops: list[list], now: float) -> float | None:
    """The host time a call's running loop nest still needs, from how far it has come
    since it started (None when a trip count is not known: a `while`, an iterator; 0.0
    while it has not yet made measurable progress: the next look decides)."""
    done = loop_progress(loops)
    if done is None or not loops:
        return None
    if done <= 0.0:
        return 0.0
    return (now - loops[0][2]) * (1.0 - done) / done


def _compile_guess() -> float:
    """What a first executable costs, roughly: COMPILE_SECONDS, and importing JAX if
    nothing was compiled yet."""
    return COMPILE_SECONDS + (0.0 if "jax" in sys.modules else JAX_IMPORT_SECONDS)


def watch(interp: Any) -> None:
    """Called by the host interpreter every TICKS loop iterations and calls: the
    outermost host call that has run `LONG_SECONDS` without an effect a caller could see
    (lang.core.primitives.Primitive.effect) and that compiles is unwound by `Retier` and
    runs compiled from its start (its tracing happens here, before anything is undone, so
    a call that cannot compile just goes on)."""
    rt = interp.rt
    pol = policy(rt)
    if not pol.frames:
        return
    now = time.perf_counter()
    for fr in pol.frames:
        if now - fr.t0 < LONG_SECONDS:
            return  # the frames after it started later
        if fr.tried or fr.st.never or fr.effects != interp.effects:
            continue
        if fr.st.recursive and not _has_runtime_values(fr.args):
            continue  # a recursion over integers would be unrolled while tracing
        left = _time_left(interp.loops[fr.loops:], now)
        if left is not None and left < _compile_guess():
            continue  # it will be done before an executable would be
        fr.tried = True
        fr.st.long = True
        try:
            prepare(rt, fr.f, fr.args, fr.kwargs)
        except OffloadError as e:
            _failed(rt, pol, fr.st, fr.f, fr.args, fr.kwargs, fr.where, e)
            continue
        pol.note(fr.st, fr.f, fr.args, fr.kwargs, fr.where, "compile",
                 f"long: {now - fr.t0:.2f} s in the interpreter without effects, restarted")
        raise Retier(fr)


# --- on-stack replacement of a long host loop ---------------------------------------------------

@dataclass(eq=False)
class LoopState:
    """A host loop that on-stack replacement compiled (or failed to)."""

    op: Op
    closure: Closure  # the loop as a function of its free values, iteration and carried
    free: list[int]  # the free values' ids, in the order of its parameters
    builds: int = 0
    never: str = ""


def replace_loop(interp: Any, fn: Function, op: Op, t0: float, progress: list, rest: Any,
                 env: dict[int, Any], carried: list) -> list | None:
    """On-stack replacement (installed as lang.core.interp._OSR): a `for`/`while` loop of
    host-run code that has run `LONG_SECONDS` runs the rest of its iterations compiled,
    from where it stands (what ran before it, a print included, is not run again), unless
    its progress says it ends before an executable would be built. Returns the loop's
    results, or None to go on on the host (the compile tier refused it: a loop that writes
    into an array it did not make, prints, ...; it is not tried again)."""
    rt = interp.rt
    if rt.compile_mode == "never":
        return None
    now = time.perf_counter()
    if now - t0 < LONG_SECONDS:
        return None
    pol = policy(rt)
    ls = pol.loops.get(id(op))
    if ls is not None and ls.op is not op:
        ls = None
    if ls is not None and ls.never:
        return None
    if (ls is None or not ls.builds) and progress[1] > 0 and progress[0] > 0:
        left = (now - t0) * (progress[1] - progress[0]) / progress[0]
        if left < _compile_guess():
            return None  # it will be done before an executable would be
    where = f"{fn.name}: the loop at line {op.span.line}"
    if ls is None:
        ls = pol.loops[id(op)] = _loop_state(fn, op, sorted(env))
        if any(_resizes(o) for o in walk_ops(Region([], [op]))):
            ls.never = _RESIZES_WHY
            pol.say(f"{where}: host ({_RESIZES_WHY})")
            return None
    args = [env[i] for i in ls.free] + ([rest] if op.name == "for" else []) + list(carried)
    builds = _cache(rt).builds
    try:
        out = compiled_call(rt, ls.closure, args)
    except OffloadError as e:
        ls.never = str(e)
        pol.say(f"{where}: host (cannot compile: {e})")
        return None
    if _cache(rt).builds > builds:
        ls.builds += 1
        pol.say(f"{where}: compile (long loop: {now - t0:.2f} s in the interpreter, "
                f"the rest of it replaced after {progress[0]} iterations)")
        if ls.builds >= MAX_SIGNATURES:
            ls.never = f"compiled for {ls.builds} signatures"
    return list(out) if len(op.results) > 1 else [out]


def _loop_state(fn: Function, op: Op, free: list[int]) -> LoopState:
    """The loop op as a function: its free values (`free`, the ids of the values its
    regions read from around it), then (a `for`) the rest of its iteration, then its
    carried values, as parameters; its results, as a tuple when there are several."""
    counter = max([fn.counter, *free, *(v.id for v in op.results)]) + 1

    def new(hint: str = "") -> Value:
        nonlocal counter
        counter += 1
        return Value(counter - 1, hint)

    params = [Value(i, f"#{i}") for i in free]
    rest = [new("#rest")] if op.name == "for" else []
    inits = [new(f"#init{k}") for k in range(len(op.operands) - len(rest))]
    results = [new() for _ in op.results]
    ops = [Op(op.name, rest + inits, results, dict(op.attrs), op.regions, op.span)]
    out = results[0]
    if len(results) > 1:
        out = new()
        ops.append(Op("call", results, [out], {"fn": "tuple"}, span=op.span))
    ops.append(Op("return", [out], span=op.span))
    body = Region(params + rest + inits, ops)
    name = f"{fn.name}#loop{op.span.line}"
    loop = Function(name, body, [v.hint for v in body.args], span=op.span, file=fn.file,
                    counter=counter)
    return LoopState(op, Closure(loop, (), name), free)
