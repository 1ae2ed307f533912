"""Lowering IR to XLA: the IR interpreted with jax.numpy/jax.lax calls inside jax.jit.

`JaxInterpreter` is the host interpreter with three differences: primitives run their JAX
lowering; `if` on a traced condition becomes `lax.cond`; `for` becomes `lax.scan` (static
trip count) or a `lax.while_loop` (traced trip count); `while` becomes `lax.while_loop`.
Loops are never unrolled. A loop with `tape=True` (made by autodiff) stores each
iteration's pullback closure: as `scan` outputs, or in a fixed-capacity buffer for `while`,
whose overflow is reported so the caller can recompile with a larger capacity. A loop may
record several tapes (nested AD: `tape=k`); a tape's valid entries are always its first
`count`, and reversing it (`Core.reverse_tape`) keeps that layout.
A `for` with `break`/`return` is a while loop that stops when a flag is set; when its exit
tests are cheap scalar expressions, the while loop's condition runs them
(backend/loop_exits.py). A loop in a loop's body that computes the same value in every
iteration is traced once, before the outer loop (backend/loop_hoist.py). Random draws
(`rand`, dropout masks) get keys from the executable's input key and their position in
the program (`rng_key`, lang/core/builtins_random.py). A recursive call below a traced
condition or loop (recursion whose depth the data decide) makes its function's outermost
call a loop over an explicit stack of frames (`run_method_fn`, backend/recursion.py).
Everything that cannot run inside XLA raises OffloadError with the reason.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from autodiff.runtime import _make_closure, back_call, iter_cot, pullback_call, trace_branch
from backend.loop_exits import LeadingExits, leading_exits
from backend.loop_hoist import invariant_loops
from backend.recursion import NotFlat, flatten, run_machine, self_calls
from grammar.errors import Unwind, is_library_file
from lang.core import numeric as N
from lang.core import values as V
from lang.core.builtins import _check_broadcast, ref_call, tuple_broadcast_length, unref_args
from lang.core.builtins_random import KEY_INPUT
from lang.core.functions import Closure, elementwise_primitive
from lang.core.interp import OP_HANDLERS, STOP_FLAGS, Interpreter, Tape, tape_count
from lang.core.ir import Function, Op, Region, free_values, observed_values
from lang.core.lower import COLON
from lang.core.primitives import DOMAINS, HostOnly, Primitive, jl_size, unbroadcast
from lang.core.primitives_array import MUTATING, bounds_error, is_cartesian_index
from lang.core.structure import (
    BatchedBack,
    BranchUnion,
    OffloadError,
    StackedTape,
    coerce,
    exact_types,
    join,
    leaf_count,
    nothing_is_a_value,
    split,
    unify,
    zeros_for,
)

#: Bits of a flag (see JaxInterpreter.raise_flag).
OVERFLOW, CHECK = 1, 2

#: Set when Ctrl-C abandons a running executable; its loops of data-dependent length look
#: at it every POLL_EVERY iterations and stop (see JaxInterpreter._interrupt_poll).
INTERRUPT = threading.Event()
POLL_EVERY = 1 << 14


def _interrupted() -> np.bool_:
    return np.bool_(INTERRUPT.is_set())

#: Integer divisions, which Julia checks for a zero divisor.
INT_DIVISIONS = frozenset({"÷", "div", "rem", "mod", "%"})

#: Primitives that index their first argument, and where their indices start.
INDEXED = {"getindex": 1, "Core.setindex_fn": 2, "Core.setindex_broadcast_fn": 2}

# primitives whose host implementation only rearranges values (no numpy math), so it is
# also correct at trace time
TRACE_SAFE = {
    "tuple", "Core.namedtuple", "getproperty", "Core.indexed_iterate", "Core.pullback_call",
    "Core.back", "Core.getgrad", "Core.kwgrad", "Core.kwgrad_back",
    "Core.kwcot", "Core.kwcot_back", "Core.regroup", "Core.splice_last", "Core.tuple_cot",
    "Core.onehot_cot", "Core.field_cot", "Core.struct_fields_cot", "Core.grads_out",
    "Core.grads_tangent", "Core.convert_tangent",
    "NoTangent", "ZeroTangent", "ChainRulesCore.NoTangent", "ChainRulesCore.ZeroTangent",
    "unthunk", "Core.prepend_nothing", "Core.tail_cot", "typeof", "isa", "<:", "===", "!==",
    "Core.apply_type", "isnothing", "Core.rule_of", "Core.convert_cot", "keys", "values",
    "haskey", "first", "last", "map", "Core.assert", "ignore_derivatives", "error", "throw",
    "Core.comprehension", "foreach", "reduce", "filter", "convert", "isempty", "eachindex", "axes",
    "Core.sensitivity", "Core.accum", "Core.forward_callable", "Core.iter_cot", "one", "zero",
    "Core.is_zero_cot",
    "oneunit", "typemax", "typemin", "eps",
}


class JaxInterpreter(Interpreter):
    """Interprets IR on traced JAX values (see module docstring)."""

    def __init__(self, rt: Any, tape_capacity: int = 64, early_exit: bool = True) -> None:
        """`early_exit=False` lowers a `for` with `break`/`return` as a scan over every
        iteration (reverse-differentiable by JAX, for oracles) instead of a while loop."""
        super().__init__(rt)

        self.handlers = {**OP_HANDLERS,
                         **{k: getattr(JaxInterpreter, "op_" + k) for k in _OVERRIDDEN}}
        self.offload = False
        self.tape_capacity = tape_capacity
        self.early_exit = early_exit
        self.overflow_flags: list[Any] = []
        self.bounds_checks = True  # indices are checked at run time (Julia's BoundsError)
        self.unbounded_loops = False  # the trace has a loop of data-dependent length
        self.batched = 0  # vmaps the trace is inside (self.vmap)
        self.while_depth = 0  # loops of data-dependent length the trace is inside
        self.flags_raised = 0  # overflow flags raised so far (raise_flag)
        self.global_reads: dict[str, Any] = {}
        self.global_inputs: dict[str, Any] | None = None
        self.input_ids: set[int] = set()  # ids of the traced arguments (mutating them is host-only)
        self.adjoint_rows: dict[int, Any] = {}  # `v'` rows this trace made (adjoint_vector_op)
        # where the next random draw is (rng_key): per enclosing loop body, the loop's
        # serial number, the iteration, and the body's own count of draws and loops so far
        self.rng_frames: list[_RngFrame] = [_RngFrame(None, None)]
        # the `if`s of the loop body being traced whose exit branch is never taken, with
        # the branch that is (backend.loop_exits)
        self.exits_not_taken: dict[int, int] = {}
        # loops hoisted out of the loops being lowered, with their results (loop_hoist)
        self.hoisted: dict[int, Any] = {}
        # traced conditions and loop bodies entered (a recursive call below one of them,
        # from where its function was entered, has a depth the data decide)
        self.control_depth = 0
        # recursive functions being traced: id -> the control depth their outermost call
        # was entered at, or None while it runs as a loop over a stack (backend.recursion)
        self.recursing: dict[int, int | None] = {}
        self.self_recursive: dict[int, bool] = {}
        self.observed: dict[int, set[int]] = {}  # observed_values of each function
        # per function being traced, for each of its activations: the control depth it
        # began at and its arguments' key (`_static_key`: a call repeating a key recurses
        # without end)
        self.activations: dict[int, list[tuple[int, tuple | None]]] = {}
        self.inline_limits: dict[int, int] = {}  # functions inlined after a refusal
        import jax
        from jax import lax

        jnp = N.jax_numpy()  # also turns on 64-bit types, which Julia semantics need
        self.jax, self.jnp, self.lax = jax, jnp, lax

    # --- primitives -------------------------------------------------------------------------

    def call_primitive(self, p: Primitive, args: list, kwargs: dict | None) -> Any:
        if p.name == "broadcast":
            return self.broadcast(args[0], args[1:])
        if p.name == "map" and args[1:] and all(_is_array(a) for a in args[1:]):
            return self.broadcast(args[0], args[1:])
        if p.name in ("adjoint", "transpose", "*") and args and not kwargs:
            done, out = self.adjoint_vector_op(p.name, args[:2])
            if done:
                return self.call_primitive(p, [out] + args[2:], None) if args[2:] else out
        if p.name in _TAPE_PRIMS and any(isinstance(a, StackedTape) for a in args):
            return self.tape_primitive(p.name, args)
        if p.name == "Core.reverse_tape":
            return self.tape_reverse(args[0])
        if p.name in MUTATING and id(args[0]) in self.input_ids:
            raise OffloadError(f"`{p.name}` writes into an array the caller passed in; in-place "
                               "updates of the caller's arrays run on the host")
        if p.name in TRACE_SAFE:
            return super().call_primitive(p, args, kwargs)
        if isinstance(p.jax, HostOnly):
            if not any(_traced(a) for a in args) and p.name not in _SIDE_EFFECTS:
                return super().call_primitive(p, args, kwargs)
            raise OffloadError(f"`{p.name}` cannot be compiled: {p.jax.reason}")
        if not any(_traced(a) for a in args) and p.name in _STATIC_OK:
            return super().call_primitive(p, args, kwargs)
        if p.name in INDEXED and self.bounds_checks:
            self.check_indices(args[0], list(args[INDEXED[p.name]:]))
        self.check_arguments(p.name, args)
        impl = p.jax
        if p.needs_interp:
            return impl(self, *args, **kwargs) if kwargs else impl(self, *args)
        return impl(*args, **kwargs) if kwargs else impl(*args)

    def op_call(self, op: Op, env: dict, fn: Function) -> Any:
        if not op.attrs.get("inbounds") or not self.bounds_checks:
            return super().op_call(op, env, fn)
        self.bounds_checks = False  # `@inbounds`: this indexing is not checked
        try:
            return super().op_call(op, env, fn)
        finally:
            self.bounds_checks = True

    def adjoint_vector_op(self, name: str, args: list) -> tuple[bool, Any]:
        """`v'` of a vector v is a 1×n row whose product with a vector is a scalar and
        whose adjoint is v again. The host tags such rows (an ndarray subclass); traced
        arrays cannot be tagged, so the rows this trace made are remembered by identity
        (and kept alive, so that identities are not reused)."""
        rows = self.adjoint_rows
        a = args[0]
        if name == "*":
            b = args[1] if len(args) == 2 else None
            if id(a) in rows and rows[id(a)] is a and _is_array(b) and np.ndim(b) == 1:
                return True, self.jnp.dot(self.jnp.reshape(a, (-1,)), b)
            return False, None
        if len(args) != 1 or not _is_array(a) or isinstance(a, V.Range):
            return False, None
        if id(a) in rows and rows[id(a)] is a:
            return True, self.jnp.reshape(a, (-1,))
        if np.ndim(a) == 1:
            row = self.jnp.reshape(self.jnp.asarray(a), (np.shape(a)[0], 1))
            rows[id(row)] = row
            return True, row
        return False, None

    def tape_primitive(self, name: str, args: list) -> Any:
        """The AD runtime's tape primitives on stacked tapes."""
        if name == "Core.reverse_tape":
            return self.tape_reverse(args[0])
        if name == "Core.tape_zip":
            return self.tape_zip(args[0], list(args[1:]))
        if name == "Core.tape_unzip":
            return self.tape_unzip(args[0], args[1])
        if name == "Core.iter_cot":
            if isinstance(args[0], StackedTape):
                return self.iter_cot(args[0], args[1])

            return iter_cot(*args)
        if name == "Core.iter_cot_back":
            return self.iter_cot_back(*args)
        if name == "Core.accum":
            return self.accum_tapes(*args)
        raise OffloadError(f"internal: no stacked-tape version of `{name}`")

    def broadcast(self, f: Any, args: list) -> Any:
        n0 = self.flags_raised
        jnp = self.jnp
        call = ref_call(args)
        if call is not None:
            return self.call_value(f, call)
        args = [jnp.asarray(a.to_array()) if isinstance(a, V.Range) else a
                for a in unref_args(args)]
        if not any(_is_array(a) for a in args):
            if any(isinstance(a, tuple) for a in args):
                # over tuples (and scalars): a tuple of the calls, as on the host
                n = tuple_broadcast_length(args)
                return tuple(self.call_value(f, [(a[0] if len(a) == 1 else a[i])
                                                 if isinstance(a, tuple) else a
                                                 for a in args]) for i in range(n))
            return self.call_value(f, list(args))
        _check_broadcast(tuple(args))  # Julia's DimensionMismatch, as on the host
        p = elementwise_primitive(f, args)
        if p is not None:
            self.check_arguments(p.name, args)
            return p.elementwise(jnp, *args)
        if isinstance(f, V.JType) and f in V.JTYPE_TO_DTYPE and len(args) == 1:
            return jnp.asarray(args[0]).astype(V.JTYPE_TO_DTYPE[f])
        # a general function: vmap it over the broadcast elements
        args = _one_element_tuples(args)
        shapes = [np.shape(a) for a in args if _is_array(a)]
        shape = np.broadcast_shapes(*shapes)
        flat = [jnp.broadcast_to(a, shape).reshape(-1) if _is_array(a) else None for a in args]
        idx = [i for i, a in enumerate(flat) if a is not None]

        serial = self.rng_serial()

        def elem(e: Any, *xs: Any) -> Any:
            full = list(args)
            for i, x in zip(idx, xs, strict=True):
                full[i] = x
            with self.iteration(serial, e):
                out, flag = self.isolated(lambda: self.call_value(f, full))
            leaves, skel = split(out)
            box.append(skel)
            return [jnp.asarray(x) for x in leaves] + [flag]

        box: list = []
        outs = self.vmap(elem)(_positions(shape), *[flat[i] for i in idx])
        if not (box[0][0] == "num" or (box[0][0] == "arr" and box[0][2] == ())):
            # an array of tuples, structs or arrays has no XLA form (the vmapped leaves
            # would make one tuple of arrays: `map(x -> (x,), v)` is not `([...],)`)
            raise OffloadError("broadcasting a function whose results are not numbers "
                               "(tuples, structs or arrays) runs on the host")
        self.raise_flag(self.flag_any(outs[-1]), n0)
        outs = outs[:-1]
        leaves = [o.reshape(shape) for o in outs]
        return join(box[0], leaves)

    def generic_broadcast_pullback(self, f: Any, xs: list) -> tuple:
        """AD of broadcasting a general function: vmap the per-element pullback_call."""
        n0 = self.flags_raised

        jnp = self.jnp
        xs = [jnp.asarray(a.to_array()) if isinstance(a, V.Range) else a for a in xs]
        if not any(_is_array(a) for a in xs):
            y, b = pullback_call(self, f, list(xs))
            return y, _make_closure(self, "Core.bcast_scalar_back", b)
        if any(isinstance(a, tuple) for a in xs):
            # (a tuple's cotangent would have to be rebuilt from its elements')
            raise OffloadError("AD of broadcasting a function over a tuple (or a Ref) and "
                               "arrays runs on the host")
        shape = tuple(np.broadcast_shapes(*[np.shape(a) for a in xs if _is_array(a)]))
        flat = [jnp.broadcast_to(a, shape).reshape(-1) if _is_array(a) else None for a in xs]
        idx = [i for i, a in enumerate(flat) if a is not None]
        box: list = []

        serial = self.rng_serial()

        def elem(pos: Any, *els: Any) -> list:
            full = list(xs)
            for i, e in zip(idx, els, strict=True):
                full[i] = e
            with self.iteration(serial, pos):
                (y, b), flag = self.isolated(lambda: pullback_call(self, f, full))
            leaves, skel = split((y, b), static_ints=True)
            box.append(skel)
            return [jnp.asarray(v) for v in leaves] + [flag]

        outs = self.vmap(elem)(_positions(shape), *[flat[i] for i in idx])
        self.raise_flag(self.flag_any(outs[-1]), n0)
        outs = outs[:-1]
        skel = box[-1]
        y_skel, b_skel = skel[1]
        y_leaves_n = leaf_count(y_skel)
        if any(o.ndim > 1 for o in outs[:y_leaves_n]):
            # an array per element: stacked, it would read as one higher-dimensional array
            # (`[a[:, j] for j in 1:n][2]` a number, not a column), as the primal
            # broadcast refuses to: the host's array of arrays is the semantics
            raise OffloadError("broadcasting a function whose results are arrays does not "
                               "compile yet: it runs on the host")
        y = join(y_skel, [o.reshape(shape + o.shape[1:]) for o in outs[:y_leaves_n]])
        bb = BatchedBack(b_skel, list(outs[y_leaves_n:]), shape,
                         tuple(np.shape(a) for a in xs), tuple(str(N.dtype_of(a)) for a in xs))
        return y, bb

    def batched_back(self, bb: BatchedBack, dz: Any) -> Any:
        n0 = self.flags_raised

        jnp = self.jnp
        if dz is None:
            return None
        n = int(np.prod(bb.shape)) if bb.shape else 1
        dzf = jnp.broadcast_to(jnp.asarray(dz), bb.shape).reshape(-1)
        box: list = []

        def elem(leaves: list, d: Any) -> list:
            g, flag = self.isolated(lambda: back_call(self, join(bb.skel, leaves), d))
            lv, sk = split(g)
            box.append(sk)
            return [jnp.asarray(v) for v in lv] + [flag]

        outs = self.vmap(elem)(bb.leaves, dzf)
        self.raise_flag(self.flag_any(outs[-1]), n0)
        outs = outs[:-1]
        gskel = box[-1]
        if gskel[0] == "const":
            return None
        parts = gskel[1]
        res: list[Any] = [None]
        k = 0
        for i, part in enumerate(parts):
            m = leaf_count(part)
            chunk = outs[k:k + m]
            k += m
            if i == 0:  # the callee's cotangent: summed over elements
                res.append(join(part, [c.sum(axis=0) for c in chunk]) if m else join(part, []))
                continue
            ai = i - 1
            kind = np.dtype(bb.arg_dtypes[ai]).kind
            if part[0] == "const" or kind not in "fiu":
                res.append(None)
                continue
            # integers get Float64 cotangents, as on the host (and as Zygote gives them)
            dt = np.dtype(bb.arg_dtypes[ai]) if kind == "f" else np.dtype(np.float64)
            full = chunk[0].reshape(bb.shape).astype(dt)
            if bb.arg_shapes[ai] == ():
                res.append(full.sum())
            else:
                res.append(unbroadcast(jnp, jnp.zeros(bb.arg_shapes[ai]), full))
        _ = n
        return tuple(res)

    def call_value(self, f: Any, args: list, kwargs: dict | None = None) -> Any:
        if isinstance(f, BatchedBack):
            return self.batched_back(f, args[0])
        if isinstance(f, BranchUnion):
            return self.switch(f.index, [lambda a=a: self.call_value(a, args, kwargs)
                                         for a in f.alts])
        return super().call_value(f, args, kwargs)

    # --- random draws (lang.core.builtins_random) ----------------------------------------------

    def rng_serial(self) -> int:
        """The next serial number in the innermost loop body (for a draw or a loop)."""
        top = self.rng_frames[-1]
        top.count += 1
        return top.count - 1

    def rng_key(self) -> Any:
        """The key of the next draw: the call's input key folded with the draw's position
        (each enclosing loop's serial number and iteration, then the draw's serial number
        in its loop body)."""
        return self.jax.random.fold_in(self._frame_key(len(self.rng_frames) - 1),
                                       self.rng_serial())

    def _frame_key(self, i: int) -> Any:
        """The key of loop body i (0: the whole call). A body's key is made when its trace
        starts (in a program known to draw) and kept only in that body's frame, so a key
        never outlives the trace it was made in."""
        fr = self.rng_frames[i]
        if fr.key is not None:
            return fr.key
        jax = self.jax
        if i == 0:
            return jax.random.wrap_key_data(self.rng_input())
        return jax.random.fold_in(jax.random.fold_in(self._frame_key(i - 1), fr.serial),
                                  self.jnp.asarray(fr.k, dtype=np.uint32))

    def rng_input(self) -> Any:
        """The executable's input key (found by the first pass like a global array read)."""
        if self.global_inputs is not None and KEY_INPUT in self.global_inputs:
            return self.global_inputs[KEY_INPUT]
        self.global_reads[KEY_INPUT] = np.zeros(2, dtype=np.uint32)
        return self.jnp.zeros(2, dtype=np.uint32)

    @contextmanager
    def rng_scope(self, snapshot: Any) -> Iterator[None]:
        """Draws derive from `snapshot` (Core.with_rng: a key's two 32-bit words packed in
        one Int64, or a host seed), numbered afresh, wherever the scope is traced."""
        jnp, lax = self.jnp, self.lax
        bits = lax.bitcast_convert_type(jnp.asarray(snapshot, dtype=np.int64), np.uint64)
        words = jnp.stack([bits >> 32, bits & 0xFFFFFFFF]).astype(np.uint32)
        key = self.jax.random.wrap_key_data(words)
        frame = _RngFrame(None, None)
        frame.key = key
        self.rng_frames.append(frame)
        try:
            yield
        finally:
            self.rng_frames.pop()

    def in_iteration(self, serial: int, fn: Any) -> Any:
        """fn(vals, k), run as iteration k of the loop numbered `serial` (for rng_key)."""
        def run(vals: Any, k: Any) -> Any:
            with self.iteration(serial, k):
                return fn(vals, k)
        return run

    @contextmanager
    def iteration(self, serial: int, k: Any) -> Iterator[None]:
        """Tracing iteration k of the loop (or vmapped element k) numbered `serial`."""
        self.rng_frames.append(_RngFrame(serial, k))
        if self.global_inputs and KEY_INPUT in self.global_inputs:
            # the program draws: the body's key once per iteration, not once per draw
            self.rng_frames[-1].key = self._frame_key(len(self.rng_frames) - 1)
        try:
            yield
        finally:
            self.rng_frames.pop()

    # --- ops ----------------------------------------------------------------------------------

    def op_global(self, op: Op, env: dict, fn: Function) -> Any:
        name = op.attrs["name"]
        v = self.rt.lookup(name)
        if isinstance(v, np.ndarray) and v.dtype != object:
            if self.global_inputs is not None and name in self.global_inputs:
                return self.global_inputs[name]
            self.global_reads[name] = v
        return v

    def op_setglobal(self, op: Op, env: dict, fn: Function) -> Any:
        raise OffloadError("assigning a global variable runs on the host")

    def op_method(self, op: Op, env: dict, fn: Function) -> Any:
        raise OffloadError("defining methods runs on the host")

    op_struct = op_method

    def run_function(self, fn: Function, args: list[Any]) -> Any:
        # the exits of a loop traced without them, and the loops hoisted out of a loop, are
        # that loop's, not a callee's (nor another activation's of the same function)
        saved = self.exits_not_taken, self.hoisted
        self.exits_not_taken, self.hoisted = {}, {}
        # A recursion that is not a direct self-call (mutual recursion, the pullbacks of
        # a recursive function) is inlined; when it goes on below a traced condition or
        # loop, its depth is the data's and the trace would only end at Python's stack
        # limit, after minutes: it is refused once it is this deep.
        entered = self.activations.setdefault(id(fn), [])
        limit = self.inline_limits.get(id(fn), MAX_TRACED_RECURSION)
        if len(entered) >= limit and self.control_depth > entered[0][0]:
            raise _TooDeep(f"`{fn.name}` recurses more than {limit} levels below a "
                               "traced condition or loop: a recursion whose depth the data "
                               "decide compiles only as a function calling itself directly, "
                               "without differentiation")
        key = _static_key(args)
        if key is not None and any(key == k for _, k in entered):
            self.exits_not_taken, self.hoisted = saved
            raise OffloadError(f"`{fn.name}` calls itself with the same arguments: a "
                               "recursion without end (the host run reports it)")
        entered.append((self.control_depth, key))
        try:
            return super().run_function(fn, args)
        finally:
            entered.pop()
            self.exits_not_taken, self.hoisted = saved

    def run_method_fn(self, fn: Function, captures: list, args: list, kwargs: dict | None,
                      m: Any = None) -> Any:
        # A recursive call below a traced condition or loop would be inlined without end:
        # the outermost call of that function is lowered again as a loop over an explicit
        # stack of frames instead (backend.recursion).
        key = id(fn)
        bound = self.bind_args(fn, captures, args, kwargs)
        if captures or not self._self_recursive(fn):
            return self.run_function(fn, bound)
        if key in self.recursing:
            entered = self.recursing[key]
            if entered is None:
                raise OffloadError(f"`{fn.name}` is called recursively through another "
                                   "function: this does not compile")
            if self.control_depth > entered:
                raise _DataRecursion(fn)
            return self.run_function(fn, bound)
        self.recursing[key] = self.control_depth
        saved = self.trace_state()
        try:
            return self.run_function(fn, bound)
        except _DataRecursion as e:
            if e.fn is not fn:
                raise
            self.restore_trace_state(saved)
            try:
                self.recursing[key] = None
                return run_machine(self, flatten(fn, self.rt), bound)
            except OffloadError as refusal:
                # Not something the stack machine takes: inline it, as its recursion may
                # still end while tracing (a static depth: slices of a static length, a
                # depth argument) - a few levels only, as each level below a traced
                # condition is traced twice (probe, then trace).
                self.restore_trace_state(saved)
                self.recursing[key] = _INLINE
                self.inline_limits[key] = MAX_INLINED_RECURSION
                try:
                    return self.run_function(fn, bound)
                except _TooDeep:
                    if isinstance(refusal, NotFlat):
                        raise
                    raise refusal from None
                finally:
                    del self.inline_limits[key]
        finally:
            del self.recursing[key]

    def _exact_results(self, fn: Function, op: Op) -> tuple[bool, ...]:
        """For each result of the `if` op: whether its paths' values must keep their own
        number types (a result the code reads, in source code: Julia's `c ? 1 : 0.5` is an
        Int64 or a Float64) or may be promoted (a result nobody reads; code AD derived,
        whose cotangents are promoted as on the host)."""
        if fn.derived or is_library_file(fn.file) and \
                os.path.basename(fn.file) in _COTANGENT_FILES:
            return (False,) * len(op.results)
        seen = self.observed.get(id(fn))
        if seen is None:
            seen = self.observed[id(fn)] = observed_values(fn)
        return tuple(r.id in seen for r in op.results)

    def _self_recursive(self, fn: Function) -> bool:
        k = id(fn)
        if k not in self.self_recursive:
            self.self_recursive[k] = self_calls(fn, self.rt)
        return self.self_recursive[k]

    def trace_state(self) -> Any:
        """What a trace abandoned midway (a recursion found to need a stack) must not
        leave behind; restore_trace_state puts it back."""
        return None

    def restore_trace_state(self, saved: Any) -> None:
        pass

    def recursion_wrote(self, target: Any, new: Any) -> None:
        """A recursive function lowered as a loop wrote `new` into the array `target` its
        outermost call was given (only the in-place interpreter tracks writes)."""

    def op_if(self, op: Op, env: dict, fn: Function) -> Any:
        c = env[op.operands[0].id]
        if self.exits_not_taken and id(op) in self.exits_not_taken:
            out = self.run_region(op.regions[self.exits_not_taken[id(op)]], env, fn)
            return out[0] if len(op.results) == 1 else out
        if not _traced(c):
            return super().op_if(op, env, fn)
        branches = [lambda r=r: tuple(self.run_region(r, dict(env), fn)) for r in op.regions]
        # a boolean `lax.cond` (a plain select once vmapped), not an integer switch index
        with nothing_is_a_value(bool(op.results) and _is_result(fn, op.results[0])):
            out = self.switch(None, branches, pred=c, exact=self._exact_results(fn, op))
        return out[0] if len(op.results) == 1 else list(out)

    # A nested loop's tape may overflow; its flag is a value of the nested trace, so every
    # traced body collects the flags raised inside it and returns them as an output.

    def isolated(self, fn: Any, branch: bool = False) -> tuple[Any, Any]:
        """Run fn, returning its result and the OR of the overflow flags it raised.
        (`branch`: fn is a branch of a conditional, see InPlaceInterpreter.isolated.)"""
        n0 = len(self.overflow_flags)
        self.control_depth += 1
        try:
            with trace_branch(self):
                out = fn()
            new = self.overflow_flags[n0:]
        finally:
            del self.overflow_flags[n0:]
            self.control_depth -= 1
        flag = self.flag_any(self.jnp.stack(new)) if new else self.no_flag()
        return out, flag

    def raise_flag(self, flag: Any, since: int | None = None) -> None:
        """Add a construct's flag to the trace's: always for a tape that can overflow
        (`since=None`; a boolean is an overflow); for a construct that passes on its
        bodies' flags, only if one was raised after `since` (a `flags_raised` count), as
        otherwise it is zero and the executable need not return it."""
        if since is not None and self.flags_raised == since:
            return
        self.flags_raised += 1
        self.overflow_flags.append(self._as_flag(flag))

    # A flag is an int32 of bits: OVERFLOW (a tape or stack was too small: build again
    # with a larger capacity) and CHECK (a run-time check failed, such as an index out of
    # bounds: the call is run again on the host, which raises Julia's error).

    def no_flag(self) -> Any:
        return self.jnp.asarray(0, dtype=np.int32)

    def bits(self, cond: Any, bit: int) -> Any:
        """The flag that carries `bit` where `cond` (a traced boolean) holds."""
        return self.jnp.where(cond, bit, 0).astype(np.int32)

    def _as_flag(self, flag: Any) -> Any:
        """A flag as int32 bits; a boolean is an OVERFLOW."""
        flag = self.jnp.asarray(flag)
        return self.bits(flag, OVERFLOW) if flag.dtype == bool else flag.astype(np.int32)

    def flag_or(self, a: Any, b: Any) -> Any:
        """The bits of two flags (a boolean counts as OVERFLOW)."""
        return self.jnp.bitwise_or(self._as_flag(a), self._as_flag(b))

    def flag_any(self, flags: Any) -> Any:
        """The bits of an array of flags, OR-ed together."""
        flags = self.jnp.asarray(flags).astype(np.int32)
        return self.lax.reduce(flags, np.int32(0), self.lax.bitwise_or, tuple(range(flags.ndim)))

    def check_indices(self, x: Any, idx: list) -> None:
        """Julia's bounds check of `x[idx...]` for its traced indices (XLA would clamp
        them; indices known when tracing are checked by the primitive itself)."""
        if any(is_cartesian_index(i) for i in idx):
            idx = [k for i in idx for k in (i.fields[0] if is_cartesian_index(i) else (i,))]
        if isinstance(x, V.Range):
            sizes: list = [x.length]
        elif isinstance(x, tuple):
            sizes = [len(x)]
        elif _is_array(x) or (hasattr(x, "shape") and np.ndim(x) > 0):
            sizes = list(jl_size(x))
        else:
            return
        if len(idx) == 1:  # linear indexing
            bounds = [int(np.prod(sizes))] if len(sizes) > 1 else sizes
        elif len(idx) < len(sizes):  # trailing dimensions collapsed
            bounds = sizes[: len(idx) - 1] + [int(np.prod(sizes[len(idx) - 1:]))]
        else:
            bounds = sizes + [1] * (len(idx) - len(sizes))
        jnp = self.jnp
        failed: Any = False
        for i, n in zip(idx, bounds, strict=True):
            if type(i) is int and type(n) is int and not 1 <= i <= n:
                # a known index past the end: XLA would drop the write or clamp the read
                raise bounds_error(x, tuple(idx))
            if not _traced(i) or i is COLON:
                continue
            if isinstance(i, V.Range):
                first, last = i.start, i.start + (i.length - 1) * i.step
                lo, hi = jnp.minimum(first, last), jnp.maximum(first, last)
                failed = failed | ((i.length > 0) & ((lo < 1) | (hi > n)))
                continue
            a = jnp.asarray(i)
            if a.dtype == bool or not jnp.issubdtype(a.dtype, jnp.integer):
                continue  # a mask, or a float index (an error of its own)
            failed = failed | jnp.any((a < 1) | (a > n))
        if failed is not False:
            self.check(failed)

    def check_arguments(self, name: str, args: list) -> None:
        """Julia's DomainError (`log(-1.0)`, `sqrt.(x)` with a negative element) and
        DivideError (integer division by zero, `typemin(Int) ÷ -1`) as run-time checks of
        traced arguments (XLA would give NaN or an arbitrary integer)."""
        if not args or not any(_traced(a) for a in args):
            return
        jnp = self.jnp
        if name in DOMAINS and len(args) == 1 and not isinstance(args[0], V.Range):
            x = jnp.asarray(args[0])
            if jnp.issubdtype(x.dtype, jnp.floating) or jnp.issubdtype(x.dtype, jnp.integer):
                self.check(jnp.any(DOMAINS[name](x)))
        elif name in INT_DIVISIONS and len(args) == 2:
            a, b = jnp.asarray(args[0]), jnp.asarray(args[1])
            if jnp.issubdtype(jnp.result_type(a, b), jnp.integer):
                failed = jnp.any(b == 0)
                if name in ("÷", "div") and a.dtype == np.int64:
                    failed = failed | jnp.any((a == np.iinfo(np.int64).min) & (b == -1))
                self.check(failed)

    def check(self, failed: Any) -> None:
        """A run-time check: when `failed` (a traced boolean) is true, the executable's
        flag carries CHECK and the call runs again on the host."""
        self.raise_flag(self.bits(failed, CHECK))

    def probe_shape(self, fn: Any, *args: Any, branch: bool = False) -> Any:
        """jax.eval_shape of fn, dropping the flags its trace raised."""
        return self.jax.eval_shape(lambda *a: self.isolated(lambda: fn(*a), branch)[0], *args)

    # hooks of the in-place interpreter (backend.compile): writes inside branches
    def born_here(self, values: Any) -> None:
        """These values were made at the current nesting depth."""

    def link_exports(self, vals: Any, links: dict) -> None:
        """After a branch's trace: which of its results carries each array made outside
        it that it wrote into."""

    def relink(self, links: dict, results: Any) -> None:
        """After the conditional: those arrays' newest values are its results."""

    def switch(self, index: Any, branches: list, pred: Any = None,
               exact: tuple[bool, ...] = ()) -> Any:
        """lax.switch over thunks whose results may differ in structure (unified); with
        `pred` instead of an index, `lax.cond` choosing branches[0] when pred is true.
        `exact[i]`: the branches' results i of different number types are refused (what
        an `if` gives the code), not promoted."""
        n0 = self.flags_raised
        lax = self.lax
        skels: list = []
        for b in branches:
            self.probe_shape(lambda b=b: _leaves_only(b(), skels), branch=True)
        target = skels[0]
        for s in skels[1:]:
            target = _unify_results(target, s, exact)
        links: dict = {}

        def make(i: int, b: Any) -> Any:
            def run() -> list:
                box: list = []

                def go() -> list:
                    box.append(b())
                    return coerce(box[0], target, i)

                out, flag = self.isolated(go, branch=True)
                self.link_exports(box[0], links)
                return out + [flag]
            return run

        if pred is not None:
            then_, else_ = (make(i, b) for i, b in enumerate(branches))
            outs = lax.cond(self.jnp.asarray(pred, dtype=bool), then_, else_)
        else:
            outs = lax.switch(self.jnp.asarray(index, dtype=np.int32),
                              [make(i, b) for i, b in enumerate(branches)])
        self.raise_flag(outs[-1], n0)
        res = _join_union(target, outs[:-1])
        if links:
            self.relink(links, res)
        return res

    def op_for(self, op: Op, env: dict, fn: Function) -> Any:
        if id(op) in self.hoisted:
            return self.hoisted[id(op)]
        with self.hoisting(op.regions[0], env, fn):
            out = self._lower_for(op, env, fn)
        _no_nothing_returned(fn, op, [env[v.id] for v in op.operands[1:]], out)
        return out

    def op_while(self, op: Op, env: dict, fn: Function) -> Any:
        if id(op) in self.hoisted:
            return self.hoisted[id(op)]
        with self.hoisting(op.regions[1], env, fn):
            out = self._lower_while(op, env, fn)
        _no_nothing_returned(fn, op, [env[v.id] for v in op.operands], out)
        return out

    @contextmanager
    def hoisting(self, body: Region, env: dict, fn: Function) -> Iterator[None]:
        """While a loop is lowered: the loops of its body that compute the same value in
        every iteration (backend.loop_hoist), traced once here, before the loop."""
        loops, prereq = invariant_loops(body)
        if not loops:
            yield
            return
        env_h = dict(env)
        added: list[int] = []
        for op in prereq:
            uses = [v.id for v in op.operands] + sorted(free_values(op))
            if any(u not in env_h for u in uses):  # it needs a loop that was not hoisted
                continue
            if op.name in ("for", "while") and not all(_plain(env_h[u]) for u in uses):
                continue
            out = self.handlers[op.name](self, op, env_h, fn)
            if len(op.results) == 1:
                env_h[op.results[0].id] = out
            else:
                for r, v in zip(op.results, out, strict=False):
                    env_h[r.id] = v
            if op.name in ("for", "while"):
                self.hoisted[id(op)] = out
                added.append(id(op))
        try:
            yield
        finally:
            for k in added:
                self.hoisted.pop(k, None)

    def _lower_for(self, op: Op, env: dict, fn: Function) -> Any:
        n0 = self.flags_raised
        it = env[op.operands[0].id]
        inits = [env[v.id] for v in op.operands[1:]]
        body = op.regions[0]
        ntape = tape_count(op)
        if isinstance(it, StackedTape):
            return self._for_stacked(op, it, inits, body, env, fn)
        if isinstance(it, Tape):
            return super().op_for(op, env, fn)
        if isinstance(it, V.Range):
            if _traced(it.length) or _traced(it.start) or _traced(it.step):
                return self._for_dynamic(op, it, inits, body, env, fn)
            # the index is computed from a counter in the carry: no n-element constant and no
            # per-iteration output when nothing is recorded
            dt = N.dtype_of(it.start)
            rng = it
            xs = None
            n = it.length

            def elem(k: Any, x: Any) -> Any:
                return self.jnp.asarray(rng.at(k, self.jnp), dtype=dt)
        elif _is_array(it):
            xs = self.jnp.reshape(self.jnp.asarray(it), (-1,))
            dt = np.int32
            n = xs.shape[0]

            def elem(k: Any, x: Any) -> Any:
                return x
        elif isinstance(it, tuple):
            return super().op_for(op, env, fn)
        else:
            raise OffloadError(f"cannot compile a loop over a {type(it).__name__}")
        if n == 0:
            out = list(inits) + [StackedTape(("tuple", ()), [], 0, 0) for _ in range(ntape)]
            return out[0] if len(op.results) == 1 else out

        serial = self.rng_serial()

        def step(carry: list, x: Any, skel: Any, k: Any) -> tuple[list, Any]:
            vals = join(skel, carry)
            env2 = dict(env)
            for a, v in zip(body.args, [x] + list(vals), strict=False):
                env2[a.id] = v
            with self.iteration(serial, k):
                return self.run_region(body, env2, fn)

        jnp = self.jnp
        stops = [] if ntape or not self.early_exit else [
            i for i, a in enumerate(body.args[1:]) if a.hint in STOP_FLAGS]
        if stops:
            # a loop with `break`/`return` and nothing recorded: a while loop that ends when
            # a flag is set, instead of running the remaining iterations as no-ops
            def until(vals: tuple, k: Any) -> Any:
                going = k < n
                for i in stops:
                    going = jnp.logical_and(going, jnp.logical_not(jnp.asarray(vals[i], bool)))
                return going

            def body_k(vals: tuple, k: Any) -> list:
                x = elem(k, None if xs is None else xs[k])
                # the loop runs its body only while no flag is set: the body's guard on
                # them (`if flag ... else body end`) folds away when traced
                vals = tuple(False if i in stops else v for i, v in enumerate(vals))
                env2 = dict(env)
                for a, v in zip(body.args, [x] + list(vals), strict=False):
                    env2[a.id] = v
                return self.run_region(body, env2, fn)

            exits = self._leading_exits(body, inits, elem(jnp.asarray(0), None if xs is None
                                                           else xs[0]))
            if exits is not None:
                out = self._exit_tested_loop(inits, stops, exits, body_k, n)
                return out[0] if len(op.results) == 1 else out
            return self._while_loop(op, inits, until, body_k, 0)
        k0 = jnp.asarray(0, dtype=dt)
        x0 = elem(k0, xs[0] if xs is not None else None)
        n_carry = len(inits)
        carry_skel, carry_leaves = self._fix_carry(
            inits, lambda vals: step(split(vals)[0], x0, split(vals)[1], k0)[:n_carry])
        box: list = []

        def scan_body(state: tuple, x: Any) -> tuple[tuple, list]:
            carry, k, over = state
            out, flag = self.isolated(lambda: step(carry, elem(k, x), carry_skel, k))
            new = coerce(tuple(out[:n_carry]), carry_skel)
            state2 = (new, k + 1, self.flag_or(over, flag))
            if ntape:
                # a tape entry's Python ints are constants of the traced body: keep them static
                leaves, skel = split(tuple(out[n_carry:]), static_ints=True)
                box.append(skel)
                return state2, [jnp.asarray(v) for v in leaves]
            return state2, []

        (final, _, over), ys = self.lax.scan(
            scan_body, (carry_leaves, k0, self.no_flag()), xs, length=n)
        self.raise_flag(over, n0)
        res = list(join(carry_skel, final))
        if ntape:
            res += _tapes(box[-1], list(ys), n, n)
        return res[0] if len(op.results) == 1 else res

    def _leading_exits(self, body: Region, inits: list, x0: Any) -> LeadingExits | None:
        """The loop's exits when the while loop's condition can test them (see
        backend.loop_exits): the IR qualifies and the values the tests read are scalars."""
        exits = leading_exits(body)
        if exits is None:
            return None
        vals = [x0] + list(inits)
        if any(np.ndim(vals[i]) != 0 or isinstance(vals[i], (tuple, V.Range)) for i in exits.reads):
            return None
        return exits

    def _exit_tested_loop(self, inits: list, stops: list[int], exits: LeadingExits,
                          body_k: Any, n: Any) -> list:
        """A loop with `break`/`return` whose exit tests run in the while loop's condition:
        the condition runs the body on the state (XLA keeps only the tests) and stops when
        it would set a flag; the loop's body is traced with its exits' branches never
        taken, so it carries neither the flags nor the exit's values; after the loop, the
        iteration that exits (if any) runs once more, with its exits, for the results."""
        jnp = self.jnp
        keep = [i for i in range(len(inits)) if i not in stops]

        def full(vals: tuple, k: Any) -> list:
            it = dict(zip(keep, vals, strict=True))
            return body_k(tuple(it.get(i, False) for i in range(len(inits))), k)

        def no_exit(vals: tuple, k: Any) -> list:
            saved, self.exits_not_taken = self.exits_not_taken, exits.taken_branch
            try:
                out = full(vals, k)
            finally:
                self.exits_not_taken = saved
            return [out[i] for i in keep]

        def until(vals: tuple, k: Any) -> Any:
            out = full(vals, k)
            going = k < n
            for i in stops:
                going = jnp.logical_and(going, jnp.logical_not(jnp.asarray(out[i], bool)))
            return going

        # the condition, the body and the exit share one serial number: an exit test that
        # draws random numbers draws the same ones in all three
        serial = self.rng_serial()
        final, count = self._while([inits[i] for i in keep], self.in_iteration(serial, until),
                                   self.in_iteration(serial, no_exit), 0)
        last = jnp.minimum(count, n - 1)

        def exited() -> tuple:
            with self.iteration(serial, count):
                return tuple(full(tuple(final), last))

        def ran_out() -> tuple:
            done = dict(zip(keep, final, strict=True))
            return tuple(done.get(i, False) for i in range(len(inits)))

        return list(self.switch(None, [exited, ran_out], pred=count < n))

    def _fix_carry(self, inits: list, body_fn: Any) -> tuple[Any, list]:
        """The carry skeleton of a loop: the init's, widened until the body preserves it."""
        vals = tuple(inits)
        skel = split(vals)[1]
        for _ in range(4):
            box: list = []

            def probe(leaves: list, skel: Any = skel, box: list = box) -> list:
                out = body_fn(join(skel, leaves))
                lv, sk = split(tuple(out))
                box.append(sk)
                return lv

            leaves0 = coerce(vals, skel)
            self.probe_shape(probe, leaves0)
            new = unify(skel, box[0])
            if new == skel:
                return skel, coerce(vals, skel)
            skel = new
        raise OffloadError("a loop variable keeps changing type across iterations")

    def _for_stacked(self, op: Op, t: StackedTape, inits: list, body: Region, env: dict,
                     fn: Function) -> Any:
        """A loop over a tape (the adjoint walk over a forward loop's reversed tape). The
        tape's valid entries are its first `count`; a loop that records tapes itself (the
        walk differentiated again) writes entry k of its tapes in iteration k, so they have
        the same layout and count."""
        n0 = self.flags_raised
        lax, jnp = self.lax, self.jnp
        ntape = tape_count(op)
        if t.capacity == 0:  # the forward loop ran no iteration
            res = list(inits) + [StackedTape(("const", None), [], 0, 0) for _ in range(ntape)]
            return res[0] if len(op.results) == 1 else res

        serial = self.rng_serial()

        def step(carry_vals: tuple, k: Any) -> list:
            entry = join(t.skel, [leaf[k] for leaf in t.leaves])
            env2 = dict(env)
            for a, v in zip(body.args, [entry] + list(carry_vals), strict=False):
                env2[a.id] = v
            with self.iteration(serial, k):
                return self.run_region(body, env2, fn)

        n_carry = len(inits)
        carry_skel, carry_leaves = self._fix_carry(inits, lambda vals: step(vals, 0)[:n_carry])
        full = not _traced(t.count) and t.count == t.capacity
        if ntape and full:
            # a scan over the full tape, stacking what each iteration records
            box: list = []

            def scan_body(state: tuple, _: Any) -> tuple:
                carry, k, over = state
                out, flag = self.isolated(lambda: step(join(carry_skel, carry), k))
                leaves, skel = split(tuple(out[n_carry:]), static_ints=True)
                box.append(skel)
                new = coerce(tuple(out[:n_carry]), carry_skel)
                return (new, k + 1, self.flag_or(over, flag)), [jnp.asarray(v) for v in leaves]

            (final, _, over), ys = lax.scan(
                scan_body, (carry_leaves, jnp.asarray(0, dtype=np.int32), self.no_flag()),
                None, length=t.capacity)
            self.raise_flag(over, n0)
            res = list(join(carry_skel, final)) + _tapes(box[-1], list(ys), t.capacity, t.capacity)
            return res[0] if len(op.results) == 1 else res
        if ntape:
            # a partly filled tape (from a `while` loop): record into buffers of its capacity
            ebox: list = []

            def probe(leaves: list) -> list:
                out = step(join(carry_skel, leaves), jnp.asarray(0))
                lv, sk = split(tuple(out[n_carry:]), static_ints=True)
                ebox.append(sk)
                return [jnp.asarray(x) for x in lv]

            shapes = self.probe_shape(probe, carry_leaves)
            entry_skel = ebox[0]
            bufs = [jnp.zeros((t.capacity,) + tuple(s_.shape), dtype=s_.dtype) for s_ in shapes]

            def fbody_rec(k: Any, state: tuple) -> tuple:
                carry, bufs_, over = state
                out, flag = self.isolated(lambda: step(join(carry_skel, carry), k))
                entry = coerce(tuple(out[n_carry:]), entry_skel)
                bufs2 = [lax.dynamic_update_index_in_dim(b_, jnp.asarray(e, dtype=b_.dtype), k, 0)
                         for b_, e in zip(bufs_, entry, strict=True)]
                new = coerce(tuple(out[:n_carry]), carry_skel)
                return new, bufs2, self.flag_or(over, flag)

            final, bufs, over = lax.fori_loop(0, t.count, fbody_rec,
                                              (carry_leaves, bufs, self.no_flag()))
            self.raise_flag(over, n0)
            res = list(join(carry_skel, final)) + _tapes(entry_skel, bufs, t.count, t.capacity)
            return res[0] if len(op.results) == 1 else res

        def fbody(k: Any, state: tuple) -> tuple:
            carry, over = state
            out, flag = self.isolated(lambda: step(join(carry_skel, carry), k))
            return coerce(tuple(out[:n_carry]), carry_skel), self.flag_or(over, flag)

        final, over = lax.fori_loop(0, t.count, fbody, (carry_leaves, self.no_flag()))
        self.raise_flag(over, n0)
        res = list(join(carry_skel, final))
        return res[0] if len(op.results) == 1 else res

    def _for_dynamic(self, op: Op, r: V.Range, inits: list, body: Region, env: dict,
                     fn: Function) -> Any:
        """`for` over a range whose length is only known at run time: a while loop."""
        jnp = self.jnp

        def step(vals: tuple, k: Any) -> list:
            x = r.at(k, jnp)
            env2 = dict(env)
            for a, v in zip(body.args, [x] + list(vals), strict=False):
                env2[a.id] = v
            return self.run_region(body, env2, fn)

        def cond(vals: tuple, k: Any) -> Any:
            return k < r.length

        return self._while_loop(op, inits, cond, step, tape_count(op),
                                counter=jnp.asarray(0, dtype=np.int64))

    def _lower_while(self, op: Op, env: dict, fn: Function) -> Any:
        inits = [env[v.id] for v in op.operands]
        cond_r, body = op.regions

        def run(r: Region, vals: tuple) -> list:
            env2 = dict(env)
            for a, v in zip(r.args, vals, strict=False):
                env2[a.id] = v
            return self.run_region(r, env2, fn)

        return self._while_loop(op, inits, lambda vals, k: run(cond_r, vals)[0],
                                lambda vals, k: run(body, vals), tape_count(op))

    def _while_loop(self, op: Op, inits: list, cond: Any, step: Any, ntape: int,
                    counter: Any = None) -> Any:
        """A `lax.while_loop`; with `ntape` tapes, each iteration's trailing `ntape` values
        go into buffers of the interpreter's tape capacity (overflow is flagged)."""
        cond = self.in_iteration(self.rng_serial(), cond)
        step = self.in_iteration(self.rng_serial(), step)
        res, _ = self._while(inits, cond, step, ntape)
        return res[0] if len(op.results) == 1 else res

    def _while_test(self, cond: Any, carry_skel: Any, leaves: Any, k: Any,
                    checked: list[bool]) -> Any:
        """A while loop's condition as its `lax.while_loop` test: false also when a check
        inside it failed (`while x[i] > 0` past the end stops, see `_while_test_flag`);
        `checked[0]` learns whether the condition has checks at all."""
        n0 = self.flags_raised
        ok, flag = self.isolated(lambda: cond(join(carry_skel, leaves), k))
        checked[0] = checked[0] or self.flags_raised != n0
        ok = self.jnp.asarray(ok, dtype=bool)
        return ok & (self.jnp.bitwise_and(flag, CHECK) == 0) & ~self._interrupt_poll(k)

    def vmap(self, f: Any) -> Any:
        """jax.vmap of f, traced with `batched` counting the vmaps it is inside."""

        def traced(*args: Any) -> Any:
            self.batched += 1
            try:
                return f(*args)
            finally:
                self.batched -= 1

        return self.jax.vmap(traced)

    def _interrupt_poll(self, k: Any) -> Any:
        """Every POLL_EVERY iterations of a loop of data-dependent length, whether Ctrl-C
        asked the executable to stop (INTERRUPT, set by backend.compile while it waits on
        a worker thread): the loop then ends early and its results are dropped, so an
        abandoned computation does not keep running. Not inside a vmap (an elementwise
        function over an array), where the batched loop would call back on every
        iteration (mandel 0.22 -> 1.24 ms), and only in the outermost such loop: a
        conditional in every short inner loop cost quicksort 10-40%. A loop of those
        kinds is abandoned, not stopped."""
        jax, lax, jnp = self.jax, self.lax, self.jnp
        if self.batched or self.while_depth > 1:
            return jnp.asarray(False)

        def ask() -> Any:
            return jax.pure_callback(_interrupted, jax.ShapeDtypeStruct((), np.bool_))

        return lax.cond(jnp.bitwise_and(k, POLL_EVERY - 1) == POLL_EVERY - 1, ask,
                        lambda: jnp.asarray(False))

    def _while_test_flag(self, cond: Any, carry_skel: Any, final: Any, count: Any,
                         checked: list[bool]) -> None:
        """After a loop whose condition has checks, the condition once more on the final
        values: a check that stopped the loop fails again here, and its flag leaves it."""
        if not checked[0]:
            return
        _, flag = self.isolated(lambda: cond(join(carry_skel, final), count))
        self.raise_flag(self.jnp.bitwise_and(flag, CHECK))

    def _while(self, inits: list, cond: Any, step: Any, ntape: int) -> tuple[list, Any]:
        """_while_loop's loop: its results (the carried values, then the tapes) and its
        final iteration count."""
        self.while_depth += 1
        try:
            return self._while_traced(inits, cond, step, ntape)
        finally:
            self.while_depth -= 1

    def _while_traced(self, inits: list, cond: Any, step: Any, ntape: int) -> tuple[list, Any]:
        n0 = self.flags_raised
        lax, jnp = self.lax, self.jnp
        self.unbounded_loops = True
        n_carry = len(inits)
        carry_skel, carry_leaves = self._fix_carry(
            inits, lambda vals: step(vals, jnp.asarray(0))[:n_carry])
        k0 = jnp.asarray(0, dtype=np.int64)
        checked = [False]  # whether the condition has run-time checks
        if not ntape:
            def b(state: tuple) -> tuple:
                leaves, k, over = state
                out, flag = self.isolated(lambda: step(join(carry_skel, leaves), k))
                return coerce(tuple(out[:n_carry]), carry_skel), k + 1, self.flag_or(over, flag)

            final, count, over = lax.while_loop(
                lambda st: self._while_test(cond, carry_skel, st[0], st[1], checked), b,
                (carry_leaves, k0, self.no_flag()))
            self.raise_flag(over, n0)
            self._while_test_flag(cond, carry_skel, final, count, checked)
            return list(join(carry_skel, final)), count
        # with tapes: learn the per-iteration entries' structure, then fill buffers
        box: list = []

        def probe(leaves: list) -> list:
            out = step(join(carry_skel, leaves), k0)
            lv, sk = split(tuple(out[n_carry:]), static_ints=True)
            box.append(sk)
            return [jnp.asarray(x) for x in lv]

        shapes = self.probe_shape(probe, carry_leaves)
        entry_skel = box[0]
        cap = self.tape_capacity
        bufs = [jnp.zeros((cap,) + tuple(s.shape), dtype=s.dtype) for s in shapes]

        def c(state: tuple) -> Any:
            leaves, k, bufs_, over = state
            return self._while_test(cond, carry_skel, leaves, k, checked)

        def b(state: tuple) -> tuple:
            leaves, k, bufs_, over = state
            out, flag = self.isolated(lambda: step(join(carry_skel, leaves), k))
            over = self.flag_or(over, flag)
            new = coerce(tuple(out[:n_carry]), carry_skel)
            entry = coerce(tuple(out[n_carry:]), entry_skel)
            slot = jnp.minimum(k, cap - 1)
            bufs2 = [lax.dynamic_update_index_in_dim(buf, jnp.asarray(e, dtype=buf.dtype), slot, 0)
                     for buf, e in zip(bufs_, entry, strict=True)]
            return new, k + 1, bufs2, self.flag_or(over, k >= cap)

        final, count, bufs, over = lax.while_loop(c, b,
                                                  (carry_leaves, k0, bufs, self.no_flag()))
        self.raise_flag(over)  # the tape may overflow
        self._while_test_flag(cond, carry_skel, final, count, checked)
        return list(join(carry_skel, final)) + _tapes(entry_skel, bufs, count, cap), count

    # --- tapes (see autodiff.runtime for their host versions) ---------------------------------
    # A StackedTape's valid entries are always its first `count`.

    def tape_reverse(self, t: Any) -> Any:
        """The tape in reverse order: entry j is entry count-1-j (of the valid ones)."""
        if t is None:
            return None
        if not isinstance(t, StackedTape):
            return Tape(list(reversed(t.items)))
        jnp = self.jnp
        if not _traced(t.count) and t.count == t.capacity:
            return StackedTape(t.skel, [jnp.flip(x, axis=0) for x in t.leaves], t.count, t.capacity)
        idx = jnp.mod(t.count - 1 - jnp.arange(t.capacity), t.capacity)
        return StackedTape(t.skel, [jnp.take(x, idx, axis=0) for x in t.leaves], t.count,
                           t.capacity)

    def tape_zip(self, t: StackedTape, ds: list) -> StackedTape:
        """`Core.tape_zip` of stacked tapes: entries `(t[i], d1[i], ...)`; a `nothing`
        tape of cotangents gives `nothing` entries."""
        skels = [t.skel]
        leaves = list(t.leaves)
        for d in ds:
            if d is None:
                skels.append(("const", None))
                continue
            if not isinstance(d, StackedTape) or d.capacity != t.capacity:
                raise OffloadError("internal: zipping tapes of different layouts")
            skels.append(d.skel)
            leaves += d.leaves
        return StackedTape(("tuple", tuple(skels)), leaves, t.count, t.capacity)

    def tape_unzip(self, dz: Any, k: int) -> tuple:
        """The pullback of `Core.tape_zip`: a stacked tape of tuples split into k + 1."""
        if dz is None or (isinstance(dz, StackedTape) and dz.skel[0] == "const"):
            return (None,) * (k + 1)
        parts = dz.skel[1]
        return tuple(_tapes(("tuple", parts), dz.leaves, dz.count, dz.capacity))

    def iter_cot(self, it: Any, t: Any) -> Any:
        """`Core.iter_cot` where the iterable is a stacked tape: the recorded cotangents of
        its entries, which the adjoint recorded in reverse order."""
        if t is None or (isinstance(t, StackedTape) and t.capacity == 0):
            return None
        return self.tape_reverse(t)

    def iter_cot_back(self, it: Any, t: Any, dz: Any) -> Any:
        """`Core.iter_cot_back` on stacked tapes (see autodiff.runtime.iter_cot_back)."""
        if dz is None or not isinstance(t, StackedTape) or t.capacity == 0:
            return None
        if isinstance(it, StackedTape):
            return self.tape_reverse(dz)
        if t.skel[0] not in ("num", "arr") or len(t.leaves) != 1:
            return None
        leaf = t.leaves[0]
        flat = self.jnp.flip(self.jnp.reshape(self.jnp.asarray(dz), (-1,)), axis=0)
        return StackedTape(t.skel, [flat.reshape(leaf.shape).astype(leaf.dtype)], t.count,
                           t.capacity)

    def accum_tapes(self, a: Any, b: Any) -> Any:
        """`Core.accum` of two stacked tapes of cotangents (same layout)."""
        if a is None:
            return b
        if b is None:
            return a
        if a.skel != b.skel or a.capacity != b.capacity:
            target = unify(a.skel, b.skel)
            la, lb = coerce(join(a.skel, a.leaves), target), coerce(join(b.skel, b.leaves), target)
        else:
            target, la, lb = a.skel, a.leaves, b.leaves
        return StackedTape(target, [x + y for x, y in zip(la, lb, strict=True)], a.count,
                           a.capacity)


MAX_TRACED_RECURSION = 64  # see run_function
MAX_INLINED_RECURSION = 8  # see run_method_fn


_STATIC_SCALARS = (int, float, bool, str, V.Symbol, V.Char, type(None))


def _static_key(args: list) -> tuple | None:
    """The arguments of a call as a key when every one is a known scalar or a traced
    (immutable) value, else None: a call with the same key computes the same thing."""
    from jax.core import Tracer

    key = []
    for a in args:
        if type(a) in _STATIC_SCALARS:
            key.append((type(a), a))
        elif isinstance(a, Tracer):
            key.append(("traced", id(a)))
        else:
            return None
    return tuple(key)


_INLINE = 1 << 30  # a control depth no trace reaches: inline every recursive call


class _TooDeep(OffloadError):
    """A recursion inlined past its limit below traced control (see run_function)."""


class _DataRecursion(Unwind):
    """A recursive call of `fn` below a traced condition or loop (see run_method_fn)."""

    def __init__(self, fn: Function) -> None:
        super().__init__(fn.name)
        self.fn = fn


def _plain(x: Any) -> bool:
    """A number, a numeric array, a range or a tuple of those: nothing a loop can mutate."""
    if isinstance(x, (bool, int, float, np.number, np.bool_, V.Range)):
        return True
    if isinstance(x, tuple):
        return all(_plain(v) for v in x)
    dt = getattr(x, "dtype", None)
    return dt is not None and hasattr(x, "shape") and getattr(dt, "kind", "O") != "O"


def _one_element_tuples(args: list) -> list:
    """The arguments of a general function broadcast over arrays, for its per-element
    calls: a 1-tuple (a `Ref`'s contents) is its one element in every call; a longer tuple
    is a dimension of the broadcast, which runs on the host."""
    if any(isinstance(a, tuple) and len(a) != 1 for a in args):
        raise OffloadError("broadcasting a function over a tuple and arrays together runs "
                           "on the host")
    return [a[0] if isinstance(a, tuple) else a for a in args]


def _positions(shape: tuple) -> Any:
    """0, 1, ... over the elements of a broadcast (each element's iteration number)."""
    import jax.numpy as jnp

    return jnp.arange(int(np.prod(shape)), dtype=np.uint32)


class _RngFrame:
    """A loop body being traced, for JaxInterpreter.rng_key."""

    __slots__ = ("serial", "k", "count", "key")

    def __init__(self, serial: int | None, k: Any) -> None:
        self.serial, self.k, self.count = serial, k, 0
        self.key: Any = None


def _tapes(skel: Any, leaves: list, count: Any, capacity: int) -> list[StackedTape]:
    """The StackedTapes of a loop that records several values per iteration: `skel` is
    the tuple skeleton of one iteration's entries, `leaves` their stacked leaves."""
    out = []
    k = 0
    for part in skel[1]:
        n = leaf_count(part)
        out.append(StackedTape(part, list(leaves[k:k + n]), count, capacity))
        k += n
    return out


_TAPE_PRIMS = {"Core.reverse_tape", "Core.tape_zip", "Core.tape_unzip", "Core.iter_cot",
               "Core.iter_cot_back", "Core.accum"}

_OVERRIDDEN = ("call", "if", "for", "while", "global", "setglobal", "method", "struct")

_SIDE_EFFECTS = {"time", "print", "println", "show", "display", "Core.show_expr", "setindex!",
                 "Core.setindex_broadcast!", "Core.broadcast_assign!", "push!", "append!", "pop!",
                 "Random.seed!", "randperm", "shuffle", "Random.MersenneTwister", "Core.setbox",
                 "Core.box", "Core.unbox",
                 "Test.do_test", "Test.do_testset", "Test.do_test_throws",
                 "Core.time_start", "Core.time_report", "Core.elapsed_since",
                 "Core.compile_clock"}
_STATIC_OK = {"size", "length", "ndims", "eltype", ":", "Core.endof", "zeros", "ones", "fill",
              "==", "!=", "<", "<=", ">", ">=", "+", "-", "*", "÷", "%", "!", "Core.or", "max",
              "min",
              "Core.neg", "rem", "mod", "div", "abs", "/", "^", "one", "zero", "float"}


def _traced(x: Any) -> bool:
    if hasattr(x, "aval"):
        return True
    t = type(x)
    if t in (int, float, bool, str) or x is None:
        return False
    if isinstance(x, tuple):
        return any(_traced(v) for v in x)
    if isinstance(x, V.Range):
        return _traced(x.start) or _traced(x.length)
    if isinstance(x, (V.NamedTuple,)):
        return any(_traced(v) for v in x.values)
    if isinstance(x, V.StructValue):
        return any(_traced(v) for v in x.fields)
    if isinstance(x, Closure):
        return any(_traced(v) for v in x.captures)
    return type(x).__module__.startswith("jax")


def _is_array(x: Any) -> bool:
    return (hasattr(x, "shape") and len(getattr(x, "shape", ())) > 0) or isinstance(x, V.Range)


def _leaves_only(v: Any, skels: list) -> list:
    leaves, skel = split(v if isinstance(v, list) else v)
    skels.append(skel)
    return [np.asarray(x) if not hasattr(x, "aval") else x for x in leaves]


#: library files whose `nothing`s are zero cotangents (AD's helpers, Flux's rules)
_COTANGENT_FILES = frozenset({"ad.jl", "flux.jl"})


def _unify_results(a: Any, b: Any, exact: tuple[bool, ...]) -> Any:
    """unify of two branches' results (tuple skeletons), result i refusing different
    number types where exact[i]."""
    if not any(exact) or a[0] != "tuple" or b[0] != "tuple" or len(a[1]) != len(b[1]):
        return unify(a, b)
    parts = []
    for i, (x, y) in enumerate(zip(a[1], b[1], strict=True)):
        with exact_types(i < len(exact) and exact[i]):
            parts.append(unify(x, y))
    return ("tuple", tuple(parts))


def _is_result(fn: Function, v: Any) -> bool:
    """Whether the value `v` is what fn returns, in code where `nothing` is a value (not
    code AD derived, nor the library's AD helpers, where it is a zero cotangent)."""
    if fn.derived or (is_library_file(fn.file)
                      and os.path.basename(fn.file) in _COTANGENT_FILES):
        return False
    term = fn.body.ops[-1] if fn.body.ops else None
    return (term is not None and term.name == "return" and bool(term.operands)
            and term.operands[0] is v)


def _no_nothing_returned(fn: Function, op: Op, inits: list, out: Any) -> None:
    """A loop whose result is fn's result, carried from `nothing` to a value: compiled,
    the result would be the value's zeros where the loop never set it."""
    outs = out if isinstance(out, (list, tuple)) else [out]
    for k, r in enumerate(op.results[: len(inits)]):
        if inits[k] is None and outs[k] is not None and _is_result(fn, r):
            raise OffloadError("a value is `nothing` on one path and a value on another "
                               f"(the result of `{fn.name}`)")


def _join_union(target: Any, outs: list) -> Any:
    return join(target, list(outs))


_ = (zeros_for, Tape)
