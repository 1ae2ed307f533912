"""The host runtime: global bindings, built-in modules, definitions, and program running.

`Runtime` owns the global namespace of a program (Main), the built-in namespace (Base,
Core and the standard modules, filled from the primitive table, lang.core.builtins and the
Zyla-written lang/core/stdlib/base.jl), and the interpreter. `run_source` parses, lowers and runs
a file one top-level statement at a time, as Julia does.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from grammar import ast as A
from grammar.errors import LIBRARY_DIRS, SourceFile, ZylaError
from grammar.parser import parse
from lang.core import (  # noqa: F401  (primitives_*: their import registers their primitives;
    builtins,  # hostcode's installs the translator of bodies into Python)
    builtins_dict,
    builtins_io,
    builtins_iter,
    builtins_mutate,
    builtins_random,
    builtins_set,
    builtins_types,
    collector,
    current,
    datasets,
    exprs,
    familytables,
    frontcache,
    hostcode,
    modules,
    primitives,
    primitives_array,
    primitives_base,
    primitives_int,
    primitives_math,
    primitives_nest,
    primitives_nn,
    regexes,
    safety,
    saving,
    strings,
)
from lang.core import values as V
from lang.core.bindings import Bindings, Watch
from lang.core.builtins import iterate_value, translate_exception
from lang.core.builtins_types import field_type, struct_params
from lang.core.complexes import refuse_traced
from lang.core.functions import Closure, GenericFunction, Method, typeof
from lang.core.interp import Interpreter
from lang.core.ir import Function, Op, Region
from lang.core.lower import Lowerer
from lang.core.show import jl_display

STDLIB = Path(__file__).parent / "stdlib"
LIBRARY_DIRS.append(STDLIB.resolve())


#: What the floors above the core add to every new runtime, in order: functions of the
#: runtime that bind built-ins (autodiff's `gradient` primitives and rules, the backend's
#: dumps, the front door's plots). Filled by the front door (lang.door.wiring); the core
#: alone runs without them.
INSTALLERS: list[Callable[[Runtime], None]] = []

#: Zyla library files every new runtime runs after Base (autodiff adds its `ad.jl`).
STARTUP_FILES: list[str] = ["collections.jl", "complex.jl", "math.jl", "numbers.jl", "bigfloat.jl",
                             "strings.jl", "regex.jl", "exprs.jl"]


#: modules whose names a user's global never shadows: `Base.x` after `x = 1` is still
#: `UndefVarError`, as in Julia
_CLOSED_MODULES = frozenset({"Base", "Core", "Iterators", "MathConstants"})


def _alias(fam: V.JType, params: tuple) -> V.JType:
    return V.apply_type(fam, params)


#: field types a value of these Python types is stored into as it is (no conversion)
_AS_IS = {float: V.Float64T, int: V.Int64T, bool: V.BoolT}
_PY_OF = {id(jt): py for py, jt in _AS_IS.items()}


def _stored_as_is(t: V.JType) -> tuple | None:
    """The Python types of the values t's default constructor stores as they are, one
    per field, when every field is a Float64, Int64 or Bool (else None); kept on t (a
    type's fields never change)."""
    try:
        return t.__dict__["stored_as_is"]
    except KeyError:
        pass
    pys = tuple(_PY_OF.get(id(ft)) for ft in t.field_types)
    t.stored_as_is = pys if t.fields and None not in pys else None  # type: ignore[attr-defined]
    return t.stored_as_is  # type: ignore[attr-defined]
#: the field types the default constructor converts a value to (Julia converts to every
#: declared type): the concrete number types, with Rational{T}, where an unconverted value
#: would compute as another type (`Complex{Int8}(2, 3).re` is an Int8)
_CONVERTED_FIELDS = frozenset(V.JTYPE_TO_DTYPE) | frozenset(V.WIDE_TYPES)


class Runtime:
    """One program's world: globals, built-ins, the interpreter, loaded sources."""

    def __init__(self) -> None:
        collector.tune()
        # globals and built-ins tell translated code when a name it uses is rebound
        self.watch = Watch()
        self.globals: dict[str, Any] = Bindings(self.watch)
        self.builtins: dict[str, Any] = Bindings(self.watch)
        self.watch.spaces = (self.globals, self.builtins)
        self.modules: dict[str, V.ModuleValue] = {}
        self.sources: dict[str, SourceFile] = {}
        self.interp = Interpreter(self)
        self.loaded: set[str] = set()
        self.stdout = _Stdout()
        self.compile_mode = os.environ.get("ZYLA_COMPILE", "auto")
        self.offload_reasons: dict[str, str] = {}
        #: its entries on shared type families (see lang.core.familytables)
        self.families = familytables.FamilyTables()
        #: the code `@generated` functions made, by (generator, its method count, argument
        #: types): the generator is held, so that its key is never another's
        self.generated: dict[tuple, Any] = {}
        self._install_builtins()
        self.loading_base = True
        self.load_stdlib("base.jl")
        for name in STARTUP_FILES:
            self.load_stdlib(name)
        self.loading_base = False

    def step_out(self) -> None:
        """Another runtime becomes current: take this one's methods off shared types."""
        self.families.step_out()

    def step_in(self) -> None:
        """This runtime becomes current again: put its methods of shared types back."""
        self.families.step_in()

    # --- namespaces ---------------------------------------------------------------------

    def _install_builtins(self) -> None:
        b = self.builtins
        for name, t in V.BUILTIN_TYPES.items():
            b[name] = t
        b["Vector"] = _alias(V.ArrayT, (V.alias_typevar("T"), 1))
        b["Matrix"] = _alias(V.ArrayT, (V.alias_typevar("T"), 2))
        b["AbstractVector"] = _alias(V.AbstractArrayT, (V.alias_typevar("T"), 1))
        b["AbstractMatrix"] = _alias(V.AbstractArrayT, (V.alias_typevar("T"), 2))
        b["AbstractVecOrMat"] = V.AbstractArrayT
        b["VecOrMat"] = V.ArrayT
        for name, p in primitives.PRIMITIVES.items():
            b[name] = p
        builtins.install(self)
        for extra in (builtins_types, builtins_io, builtins_dict, builtins_set, builtins_iter,
                      builtins_mutate, builtins_random, modules, safety, saving, datasets,
                      primitives_math, exprs):
            extra.install(self)
        for install in INSTALLERS:
            install(self)
        for m in ("Base", "Core", "Main", "Test", "Random", "LinearAlgebra", "Statistics",
                  "Printf", "Iterators", "ChainRulesCore", "Zygote", "Flux", "NNlib",
                  "Optimisers", "GradCheck", "ProgressMeter", "MLUtils", "Functors",
                  "DelimitedFiles", "Zyla", "OneHotArrays", "StatsBase", "MLDataDevices",
                  "Losses", "Logging", "CoreLogging", "JLD2", "BSON", "FileIO", "MLDatasets",
                  "Parameters", "Optimise", "DataFrames", "MathConstants"):
            self.modules[m] = V.ModuleValue(m)
            b.setdefault(m, self.modules[m])

    def lookup(self, name: str) -> Any:
        g = self.globals
        if name in g:
            return g[name]
        b = self.builtins
        if name in b:
            return b[name]
        if "." in name:
            mod, _, rest = name.partition(".")
            if mod in self.modules or mod in g:
                if rest in g and (mod not in _CLOSED_MODULES or rest in b):
                    return g[rest]  # (`Base.x` never sees a user's global `x`)
                if name in b:
                    return b[name]
                if rest in b:
                    return b[rest]
                base = self.lookup(mod)
                return self.getproperty(base, V.Symbol(rest))
        raise ZylaError("UndefVarError", f"`{name}` not defined")

    def set_global(self, name: str, v: Any) -> None:
        if self.loading_base:
            self.builtins[name] = v
        else:
            self.globals[name] = v

    def getproperty(self, x: Any, s: V.Symbol) -> Any:
        name = s.name
        if isinstance(x, V.StructValue):
            try:
                return x.fields[x.type.fields.index(name)]
            except ValueError:
                raise ZylaError("FieldError",
                                f"type {V.type_name(x.type)} has no field `{name}`") from None
        if isinstance(x, V.NamedTuple):
            if name not in x.names:
                raise ZylaError("FieldError", f"type NamedTuple has no field `{name}`")
            return x.get(name)
        if isinstance(x, V.ModuleValue):
            full = f"{getattr(x, 'full', x.name)}.{name}"
            if full in self.globals:
                return self.globals[full]
            if full in self.builtins:
                return self.builtins[full]
            if name in self.globals and (x.name not in _CLOSED_MODULES or name in self.builtins):
                return self.globals[name]
            if name in self.builtins:
                return self.builtins[name]
            raise ZylaError("UndefVarError", f"`{name}` not defined in `{x.name}`")
        if isinstance(x, V.JType):
            if name == "name":
                return x.name
        raise ZylaError("FieldError", f"type {V.type_name(typeof(x))} has no field `{name}`")

    # --- definitions -----------------------------------------------------------------------

    def _namespace(self) -> dict[str, Any]:
        return self.builtins if self.loading_base else self.globals

    def generic(self, name: str) -> GenericFunction:
        """The generic function bound to `name`, made (or extended from a built-in) if needed."""
        ns = self._namespace()
        cur = ns.get(name)
        mod, _, base = name.rpartition(".")
        if cur is None and mod in self.modules and hasattr(self.modules[mod], "exports") and (
                base in self.builtins):
            # a method for a Base name inside a user module extends Base's function, as
            # in Main (Julia would need `import Base: f` or `Base.f`)
            return self.generic(base)
        if cur is None and not self.loading_base:
            cur = self.builtins.get(name)
            if isinstance(cur, GenericFunction):
                # extending a Base function from Main: share it, as `Base.f(...) = ...` does
                return cur
        if isinstance(cur, GenericFunction):
            return cur
        gf = GenericFunction(name, "Base" if self.loading_base else "Main")
        if cur is not None and callable(getattr(cur, "host", None)):
            prim = cur
            gf.methods.append(Method([], 0, impl=_prim_caller(self, prim), vararg=True, prim=prim))
            gf.fallback_prim = prim  # type: ignore[attr-defined]
            if isinstance(getattr(prim, "jtype", None), V.JType):
                # the same function, so the same `typeof(f)`: a method typed `op::typeof(+)`
                # before `+` got its first Zyla method still matches it afterwards
                gf.jtype = prim.jtype
        ns[name] = gf
        if self.loading_base or (cur is not None and name in self.builtins):
            self.builtins[name] = gf
        return gf

    def define_method(self, op: Op, types: list[Any]) -> Any:
        self.world = getattr(self, "world", 0) + 1
        fn: Function = op.attrs["func"]
        self.sources.setdefault(fn.file, self.sources.get(fn.file) or SourceFile(fn.file, ""))
        for t in types:
            if not isinstance(t, (V.JType, V.TypeVar)):
                raise ZylaError("TypeError", f"in method definition, expected a type, got {t!r}")
        vararg = op.attrs["vararg"]
        sig = types[:-1] if vararg else types
        m = Method(list(sig), op.attrs["nreq"], fn=fn, vararg=vararg,
                   vararg_type=types[-1] if vararg else V.AnyT,
                   kwnames=op.attrs["kwnames"], typevars=list(op.attrs.get("typevars", ())))
        if op.attrs.get("callable"):
            recv = types[0]
            fam = recv.family if isinstance(recv, V.JType) else V.AnyT
            gf = getattr(fam, "call_gf", None)
            if gf is None:
                gf = GenericFunction(f"({V.type_name(fam)})")
                fam.call_gf = gf  # type: ignore[attr-defined]
                self.families.wrote(fam)
            gf.add_method(m)
            return None
        name = op.attrs["name"]
        bound = self.globals.get(name, self.builtins.get(name))
        if isinstance(bound, V.JType):  # (code that makes its structs as they are: dropped)
            for drop in bound.family.__dict__.pop("ctor_watch", ()):
                drop()
        if isinstance(bound, V.JType) and "ctor_params" in op.attrs:
            # `Pos{T}(x) where T = ...`: a constructor of the type's instances
            callee = V.apply_type(bound.family, tuple(op.attrs["ctor_params"]))
            self.families.wrote(bound.family)
            bound.family.curly_ctors = [  # type: ignore[attr-defined]
                (c, old) for c, old in getattr(bound.family, "curly_ctors", [])
                if not (c == callee and old.sig == m.sig and old.nreq == m.nreq)] + [(callee, m)]
            bound.family.curly_specs = {}  # type: ignore[attr-defined]
            bound.family.curly_found = {}  # type: ignore[attr-defined]
            return bound
        if isinstance(bound, V.JType):
            # an outer constructor: a method of the type itself
            fam = bound.family
            gf = getattr(fam, "ctor_gf", None)
            if gf is None:
                gf = fam.ctor_gf = GenericFunction(name)  # type: ignore[attr-defined]
                self.families.wrote(fam)
                if fam.is_struct:
                    # the default constructor competes in dispatch like any method
                    n = len(fam.fields)
                    gf.add_method(Method([V.AnyT] * n, n,
                                         impl=lambda *a: self.default_construct(fam, list(a))))
            gf.add_method(m)
            return bound
        gf = self.generic(name)
        gf.add_method(m)
        return gf

    def define_struct(self, op: Op, sup: Any, ftypes: list[Any]) -> Any:
        name = op.attrs["name"]
        binding = op.attrs.get("binding", name)
        params = op.attrs.get("params", ())
        t = V.JType(name, sup if isinstance(sup, V.JType) else V.AnyT, arity=len(params))
        t.fields = list(op.attrs["fields"])
        t.field_types = [V.substitute_self(ft, t) for ft in ftypes]
        t.mutable = op.attrs["mutable"]
        t.is_struct = True
        t.param_names = list(params)
        self.families.made(t)
        self.set_global(binding, t)
        if op.attrs.get("inner"):
            # inner constructors replace the default ones; `new` calls the hidden type
            t.ctor_gf = GenericFunction(name)  # type: ignore[attr-defined]
            new = V.JType(f"{name}#new", V.AnyT, arity=len(params))
            new.is_struct, new.fields, new.param_names = True, t.fields, t.param_names
            new.constructor = lambda nt, args, kw: self.new_instance(t, nt, args, kw)  # type: ignore[attr-defined]
            self.set_global(binding + "#new", new)
        return None

    def new_instance(self, fam: V.JType, nt: V.JType, args: list, kwargs: dict | None) -> Any:
        """`new(args...)` (nt the hidden `#new` type of `fam`) or `new{P...}(args...)`
        (nt that type applied to P): an instance of `fam` (of `fam{P...}`) with the
        arguments converted to the field types, as the default constructor makes it.
        Every field must be given: `new` with fewer arguments (fields left undefined)
        is not supported."""
        t = V.apply_type(fam, nt.params) if nt.params else fam
        if fam.param_names and len(nt.params) != len(fam.param_names):
            raise ZylaError("ErrorException", f'too few type parameters specified in "new{{...}}" '
                            f"for {fam.name}, which has {len(fam.param_names)}")
        if kwargs:
            raise ZylaError("ErrorException", "`new` takes no keyword arguments")
        if len(args) != len(fam.fields):
            few = len(args) < len(fam.fields)
            raise ZylaError("ErrorException",
                            f"new: {V.type_name(t)} has {len(fam.fields)} field(s) but new got "
                            f"{len(args)} argument(s)",
                            hint="`new` with fewer arguments than fields (leaving fields "
                                 "undefined) is not supported: give every field a value"
                            if few else None)
        return self.default_construct(t, args)

    def construct(self, t: V.JType, args: list, kwargs: dict | None,
                  interp: Interpreter | None = None) -> Any:
        """Calling a type: a struct constructor, a conversion, or an array constructor.

        A user-defined constructor's body runs on `interp`, the interpreter that made
        the call: the host one (the default), or the compiled tier's (whose `if` is a
        `lax.cond`)."""
        if (t.is_struct and not t.param_names and not kwargs and len(args) == len(t.fields)
                and getattr(t, "ctor_gf", None) is None
                and getattr(t, "constructor", None) is None):
            return self.default_construct(t, args)  # (a struct without constructors of its
            # own: what the general path below comes to, quickly)
        if t.family is V.TupleT and t is not V.TupleT:
            # `Tuple{Int, Float32}(itr)`: each element converted to its type (the Zyla
            # methods of `Tuple(x)` are the bare Tuple's)
            return builtins.convert_call(self, t, args, kwargs)
        m = self.constructor_method(t, args)
        if m is not None and m.fn is not None:
            return (interp or self.interp).invoke(m, args, kwargs)
        special = getattr(t.family, "constructor", None)
        if special is not None:
            return special(t, args, kwargs)
        if t.is_struct and getattr(t.family, "ctor_gf", None) is not None and not any(
                m.impl is not None for m in t.family.ctor_gf.methods):
            # inner constructors replaced the default ones, and none of them applies
            raise self._no_constructor(t, args)
        if t.is_struct:
            if len(args) != len(t.fields):
                raise ZylaError("MethodError",
                                f"no method matching {V.type_name(t)}("
                                f"{', '.join('::' + V.type_name(typeof(a)) for a in args)})",
                                hint=f"the default constructor takes {len(t.fields)} arguments: "
                                     f"{', '.join(t.fields)}")
            return self.default_construct(t, args)
        return builtins.convert_call(self, t, args, kwargs)

    def default_construct(self, t: V.JType, args: list) -> Any:
        """Julia's default constructor: parameters inferred from the arguments when not
        given (`Bar(2)` is a `Bar{Int64}`), fields converted to their declared types."""
        if _stored_as_is(t) == tuple(map(type, args)):  # (Float64/Int64/Bool fields given
            return V.StructValue(t, list(args))  # Python floats/ints/bools: nothing to do)
        t = struct_params(t, args)
        vals = [a if _AS_IS.get(type(a)) is ft else self.convert_field(field_type(t, ft), a)
                for ft, a in zip(t.field_types, args, strict=False)]
        refuse_traced(t, vals)
        return V.StructValue(t, vals)

    def constructor_method(self, t: V.JType, args: list) -> Method | None:
        """A user-defined constructor applicable to a call of type `t` with args, if
        any: for `Pos{Float64}(x)` one defined as `Pos{T}(x) where T` (its body
        specialised to T = Float64, see `_specialise_ctor`), else for `Pos(x)` and for a
        type without such constructors, an inner or outer one defined as `Pos(x)`."""
        if t.params and t.family.is_struct:
            # the methods of `Pos(x)` are not constructors of `Pos{Float64}`
            return self._curly_constructor(t, args) if hasattr(t.family, "curly_ctors") else None
        if t.params and hasattr(t.family, "curly_ctors") and not any(
                isinstance(p, V.TypeVar) for p in t.params):
            # `Matrix{T}(J::UniformScaling, m, n) where T` (LinearAlgebra): a method of a
            # built-in parametric type; no match falls back to its other constructors
            m = self._curly_constructor(t, args)
            if m is not None:
                return m
        gf = getattr(t.family, "ctor_gf", None)
        if gf is None:
            return None
        return gf.find([typeof(a) for a in args])

    def _curly_constructor(self, t: V.JType, args: list) -> Method | None:
        """The most specific `Pos{T}(...) where T` constructor for a call of `t` with
        args, its body specialised to `t`'s parameters (cached per method and type)."""
        types = [typeof(a) for a in args]
        ctors = t.family.curly_ctors  # type: ignore[attr-defined]
        # (the lookup is remembered per type and argument types until a constructor is
        # defined: that resets curly_found)
        seen = t.family.__dict__.setdefault("curly_found", {})
        key = (t, tuple(types))
        try:
            return seen[key]
        except KeyError:
            pass
        except TypeError:
            return self._find_curly(t, types, ctors)
        seen[key] = found = self._find_curly(t, types, ctors)
        return found

    def _find_curly(self, t: V.JType, types: list, ctors: list) -> Method | None:
        best: tuple[Method, dict] | None = None
        for callee, m in ctors:
            env: dict = {}
            if not V.issubtype(t, callee, env) or len(types) < m.nreq or (
                    not m.vararg and len(types) > len(m.sig)):
                continue
            if not all(V.issubtype(a, s, env) for a, s in zip(types, m.sig, strict=False)):
                continue
            if m.vararg and not all(V.issubtype(a, m.vararg_type, env) for a in types[len(m.sig):]):
                continue
            if best is None or m.more_specific_than(best[0]):
                best = (m, env)
        if best is None:
            return None
        m, env = best
        specs: dict = t.family.curly_specs  # type: ignore[attr-defined]
        key = (id(m), t)
        if key not in specs:
            assert m.fn is not None
            specs[key] = Method(m.sig, m.nreq, fn=_specialise_ctor(m.fn, env), vararg=m.vararg,
                                vararg_type=m.vararg_type, kwnames=m.kwnames,
                                typevars=m.typevars, owner=m.owner)
        return specs[key]

    def _no_constructor(self, t: V.JType, args: list) -> ZylaError:
        """The MethodError for a call of a struct type that no constructor accepts."""
        sigs = [m.signature_text(t.family.name) for m in t.family.ctor_gf.methods]  # type: ignore[attr-defined]
        sigs += [m.signature_text(V.type_name(c))
                 for c, m in getattr(t.family, "curly_ctors", [])]
        argtext = ", ".join("::" + V.type_name(typeof(a)) for a in args)
        return ZylaError("MethodError", f"no method matching {V.type_name(t)}({argtext})",
                         hint="the constructors of this struct are:\n  " + "\n  ".join(sigs)
                         if sigs else None)

    def convert_field(self, ft: Any, v: Any) -> Any:
        """v as a field of declared type ft holds it: converted to a number type (see
        _CONVERTED_FIELDS), as it is otherwise."""
        if isinstance(ft, V.JType) and (ft in _CONVERTED_FIELDS or ft.family is V.RationalT):
            return builtins.convert(self, ft, v)
        return v

    # --- iteration ------------------------------------------------------------------------

    def iterate(self, x: Any) -> Iterator[Any]:
        return iterate_value(self, x)

    def iterate_all(self, x: Any) -> list[Any]:
        return list(self.iterate(x))

    # --- errors ----------------------------------------------------------------------------

    def source_of(self, fn: Function) -> SourceFile | None:
        return self.sources.get(fn.file)

    def translate_exception(self, e: Exception) -> ZylaError:
        return translate_exception(e)

    # --- running source ----------------------------------------------------------------------

    def parse(self, text: str, filename: str) -> A.Program:
        return parse(text, filename)

    def run_source(self, text: str, filename: str, echo: bool = False, cache: bool = False) -> Any:
        """Parse and run a whole file, statement by statement; returns the last value.

        Each statement is lowered just before it runs (an error in statement k surfaces
        after statements 1..k-1 ran). With `cache` (Zyla's own library files), the whole
        file's thunks come from lang.core.frontcache instead, parsed and lowered once per
        front-end version; if lowering fails, the file runs the uncached way, so that the
        error surfaces where it would."""
        current.make_current(self)  # (its built-ins and its methods of shared types)
        src = SourceFile(filename, text)
        self.sources[filename] = src
        module = self.module_stack[-1] if getattr(self, "module_stack", None) else None
        thunks: Iterable[Function] | None = None
        if cache:
            try:
                thunks = frontcache.lowered(text, filename, module,
                                            lambda: list(self._lowered(text, src, module)))
            except Exception:  # a parse/lowering error: rerun below, statement by statement
                thunks = None
        if thunks is None:
            thunks = self._lowered(text, src, module)
        result = None
        for fn in thunks:
            result = self.interp.run_function(fn, [])
            if echo:
                if result is not None:
                    self.stdout.write(jl_display(result) + "\n")
        return result

    def _lowered(self, text: str, src: SourceFile, module: str | None) -> Iterator[Function]:
        """The top-level thunks of a source text, parsed at once and lowered lazily."""
        prog = self.parse(text, src.name)
        lo = self.lowerer(src, module)
        for stmt in prog.stmts:
            yield lo.lower_toplevel(stmt)

    def lowerer(self, src: SourceFile, module: str | None = None) -> Lowerer:
        """A Lowerer for a source file run in this runtime (its library's code, while the
        library loads, or a program's)."""
        return Lowerer(src, module=module, literal_pow=self._literal_pow_extended(),
                       library_names=None if self.loading_base else self.builtins)

    def _literal_pow_extended(self) -> bool:
        """Whether a program has added a method to `literal_pow` beyond the library's one
        (then literal powers are lowered to calls of it, as Julia's always are)."""
        gf = self.builtins.get("literal_pow")
        return isinstance(gf, GenericFunction) and len(gf.methods) > 1

    def load_stdlib(self, name: str) -> None:
        """Run one of Zyla's library files (lang/core/stdlib) into Base, once per runtime; its
        parsed and lowered IR is cached (lang.core.frontcache)."""
        if name in self.loaded:
            return
        self.loaded.add(name)
        path = STDLIB / name
        was = self.loading_base
        self.loading_base = True
        try:
            self.run_source(path.read_text(), str(path), cache=True)
        finally:
            self.loading_base = was


class _Stdout:
    """Where print writes (sys.stdout, looked up late so tests can capture it)."""

    def write(self, s: str) -> None:
        import sys

        try:
            sys.stdout.write(s)
        except UnicodeEncodeError:
            # a lone surrogate ("\ud800"), a byte read from a file that is not UTF-8, or a
            # character the terminal's encoding lacks: the string's bytes, as Julia writes
            sys.stdout.flush()
            data = V.string_bytes(s)
            buffer = getattr(sys.stdout, "buffer", None)
            if buffer is None:
                sys.stdout.write(data.decode("utf-8", "backslashreplace"))
            else:
                buffer.write(data)

    def flush(self) -> None:
        import sys

        sys.stdout.flush()


def _prim_caller(rt: Runtime, prim: Any) -> Any:
    def call(*args: Any, **kw: Any) -> Any:
        return rt.interp.call_value(prim, list(args), kw or None)

    return call


def _specialise_ctor(fn: Function, env: dict) -> Function:
    """A copy of the body of a constructor `Pos{T}(x) where T` in which the `const` ops
    standing for T (attribute `ctor_param`, see `Lowerer.lower_method`) hold the type
    parameter of the called type, `env[T]`. Only the top-level op list is new; nested
    regions are shared with the original."""
    from dataclasses import replace

    ops = []
    for op in fn.body.ops:
        name = op.attrs.get("ctor_param") if op.name == "const" else None
        if name is not None and name in env:
            op = Op("const", [], op.results, {"value": env[name]}, [], op.span)
        ops.append(op)
    return replace(fn, body=Region(fn.body.args, ops))


_ = (Closure, np)
