"""Runtime values and Julia types of the host runtime.

Representation of Julia values in Python (the host runtime and every module agree on it):

| Julia                 | Python                                                       |
|-----------------------|--------------------------------------------------------------|
| Int64                 | int (never bool)                                             |
| Bool                  | bool                                                         |
| Float64               | float                                                        |
| Float32               | numpy.float32                                                |
| Char                  | Char                                                         |
| String                | str                                                          |
| Symbol                | Symbol                                                       |
| nothing               | None                                                         |
| Tuple                 | tuple                                                        |
| NamedTuple            | NamedTuple                                                   |
| Array{T,N}            | numpy.ndarray of dtype T whose shape is Julia's size reversed |
| UnitRange, StepRange  | Range                                                        |
| struct instance       | StructValue                                                  |
| functions             | GenericFunction / Closure / Builtin (lang.core.functions)          |
| types                 | JType                                                        |

Arrays keep Julia's column-major memory order by storing size (m, n) as a C-ordered
numpy array of shape (n, m): `vec` and `reshape` are plain reshapes, Julia's
leading-dimension broadcasting is numpy's trailing-dimension broadcasting, and the same
layout is used by the compiled tier (DESIGN.md, decision 3). `jl_size(a)` gives Julia's
size; element `A[i, j]` is `a[j-1, i-1]`.
"""

from __future__ import annotations

import codecs
import math
import operator
import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from grammar.errors import ZylaError

# --- types ----------------------------------------------------------------------------


class Atomic:
    """Values that `copy` and `deepcopy` return as they are: types, functions, methods,
    modules. A program cannot change them through a copy, and they hold the interpreter's
    own state (a copy of a type would be a different type)."""

    def __copy__(self) -> Any:
        return self

    def __deepcopy__(self, memo: dict) -> Any:
        return self


class TypeVar(Atomic):
    """A type variable from a `where` clause, with an upper bound."""

    def __init__(self, name: str, ub: JType | None = None) -> None:
        self.name = name
        self.ub = ub

    def _anonymous(self) -> bool:
        """A fresh variable for a bound written as a parameter (`Vector{<:Real}`)."""
        return type(self) is TypeVar and self.name.startswith("#s")

    def __eq__(self, other: object) -> bool:
        # each `<:B` is its own variable, but `Complex{<:Real} == Complex{<:Real}` (Julia
        # compares the UnionAlls, which are the same)
        if self is other:
            return True
        return (isinstance(other, TypeVar) and self._anonymous() and other._anonymous()
                and self.ub == other.ub)

    def __hash__(self) -> int:
        return hash(("#s", self.ub)) if self._anonymous() else id(self)

    def __repr__(self) -> str:
        if is_alias_var(self.name):
            return self.name[1:]
        if self.name.startswith("#"):
            # an anonymous one, from a bound written as a parameter: `Vector{<:Real}`
            return "<:" + (type_name(self.ub) if self.ub is not None else "Any")
        return self.name


class WhereVar(TypeVar):
    """The variable of a `where` type value (`Tuple{S, S} where S <: Real`). Two such
    types are equal when their variables have the same names and bounds, as evaluating
    the same `where` twice gives equal types in Julia (renamed variables are not
    recognised as equal). `serial` orders them as made: an outer `where` first, which
    is the order `Alias{A, B}` binds them in."""

    made = 0

    def __init__(self, name: str, ub: JType | None = None) -> None:
        super().__init__(name, ub)
        WhereVar.made += 1
        self.serial = WhereVar.made

    def __eq__(self, other: object) -> bool:
        return self is other or (type(other) is WhereVar and self.name == other.name
                                 and self.ub == other.ub)

    def __hash__(self) -> int:
        return hash(("where", self.name, self.ub))


def alias_typevar(name: str) -> TypeVar:
    """The parameter of a type alias (`Vector` is `Array{T, 1} where T`): each use of the
    alias has its own, so `f(a::Vector, b::Vector)` takes vectors of different types
    (dispatch forgets its binding after each argument, see Method.applicable)."""
    return TypeVar("#" + name)


def is_alias_var(name: Any) -> bool:
    return type(name) is str and name[:1] == "#" and name[1:].isalpha()


_UNION: list = [None]  # UnionT, once defined below (JType's equality needs it)


class SelfRef(TypeVar):
    """A struct's own name inside its field types (`next::Union{Node,Nothing}`), replaced
    by the struct's type once it exists (`substitute_self`)."""


def substitute_self(t: Any, new: JType) -> Any:
    """`t` with every SelfRef replaced by `new`, unions and parameters rebuilt."""
    return _map_leaf_types(t, lambda x: new if isinstance(x, SelfRef) else None)


def _map_leaf_types(t: Any, leaf: Any) -> Any:
    """t with each part p for which leaf(p) is not None replaced by leaf(p), and the
    unions and parametric types above a replaced part rebuilt."""
    got = leaf(t)
    if got is not None:
        return got
    if isinstance(t, JType) and t.params:
        ps = tuple(_map_leaf_types(p, leaf) for p in t.params)
        if all(a is b for a, b in zip(ps, t.params, strict=True)):
            return t
        return make_union(ps) if t.family is UnionT else apply_type(t.family, ps)
    return t


class JType(Atomic):
    """A Julia type. A family (`Array`, `Tuple`) with fewer `params` than its arity
    stands for the UnionAll over the missing ones (`Array{Float64}` is any-rank)."""

    def __init__(
        self,
        name: str,
        super_: JType | None = None,
        params: tuple = (),
        abstract: bool = False,
        arity: int = 0,
        family: JType | None = None,
    ) -> None:
        self.name = name
        self.super_ = super_
        self.params = params
        self.abstract = abstract
        self.arity = arity
        self.family = family or self  # the unparameterised type this instantiates
        self.fields: list[str] = []
        self.field_types: list[Any] = []
        self.mutable = False
        self.is_struct = False
        self.param_names: list[str] = []
        self.depth = 0  # how deeply types nest in its parameters (apply_type)
        self._hash: int | None = None  # (family and params never change: hashed once)

    def __getitem__(self, params: Any) -> JType:
        """Apply parameters: `ArrayT[Float64T, 2]`."""
        if not isinstance(params, tuple):
            params = (params,)
        return apply_type(self.family, params)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, JType):
            return False
        if self.family is _UNION[0] and other.family is self.family:  # members are a set
            return len(self.params) == len(other.params) and all(
                p in other.params for p in self.params)
        return self.family is other.family and self.params == other.params and (
            bool(self.params) or (self is self.family) == (other is other.family))  # Tuple{}

    def __hash__(self) -> int:
        h = self._hash
        if h is None:
            if self.family is _UNION[0]:
                h = hash((id(self.family), frozenset(self.params)))
            else:
                h = hash((id(self.family), self.params))
            self._hash = h
        return h

    def __repr__(self) -> str:
        return type_name(self)


_NAMING_WHERE = [False]  # (type_name is inside a type that holds `where` variables)


def _symbol_param(name: str) -> str:
    """A Symbol type parameter as Julia prints it: `:x`, `:+`, `Symbol("text/plain")`."""
    if name.isidentifier() or not any(c.isalnum() for c in name):
        return ":" + name
    return 'Symbol("' + name.replace("\\", "\\\\").replace('"', '\\"') + '")'


def type_name(t: Any) -> str:
    """Julia's printed name of a type (`Vector{Float64}`, `Matrix{Float64}`; a type
    holding `where` variables ends with them: `Tuple{Vararg{S}} where S<:Integer`)."""
    if not isinstance(t, JType):
        return _symbol_param(t.name) if type(t) is Symbol else repr(t)
    if t.params and not _NAMING_WHERE[0]:
        vs = where_vars(t)
        if vs:
            _NAMING_WHERE[0] = True
            try:
                body = type_name(t)
            finally:
                _NAMING_WHERE[0] = False
            parts = [v.name if v.ub in (None, AnyT) else f"{v.name}<:{type_name(v.ub)}"
                     for v in vs]
            return f"{body} where {parts[0] if len(parts) == 1 else '{' + ', '.join(parts) + '}'}"
    fam = t.family
    if fam is UnionT and not t.params:
        return "Union{}"
    if fam is ArrayT and len(t.params) == 2 and t.params[1] in (1, 2):
        alias = "Vector" if t.params[1] == 1 else "Matrix"
        return f"{alias}{{{type_name(t.params[0])}}}"
    if fam.name == "Complex" and len(t.params) == 1 and t.params[0] in _COMPLEX_ALIAS:
        return _COMPLEX_ALIAS[t.params[0]]  # Complex{Float64} prints as ComplexF64
    if fam is NamedTupleT and len(t.params) == 2:
        names, types = t.params
        inner = ", ".join(f":{n}" for n in names)
        trail = "," if len(names) == 1 else ""
        if names:
            fields = ", ".join(f"{n}::{type_name(p)}"
                               for n, p in zip(names, types.params, strict=False))
            return f"@NamedTuple{{{fields}}}"
        return f"NamedTuple{{({inner}{trail}), Tuple{{}}}}"
    if t.params:
        if t is NTupleT:
            return "NTuple"
        return f"{t.name}{{{', '.join(type_name(p) for p in t.params)}}}"
    return "Tuple{}" if t is EmptyTupleT else t.name


def _family(name: str, super_: JType | None, arity: int = 0, abstract: bool = False) -> JType:
    return JType(name, super_, (), abstract, arity)


AnyT = _family("Any", None, abstract=True)
NumberT = _family("Number", AnyT, abstract=True)
RealT = _family("Real", NumberT, abstract=True)
AbstractFloatT = _family("AbstractFloat", RealT, abstract=True)
Float64T = _family("Float64", AbstractFloatT)
Float32T = _family("Float32", AbstractFloatT)
Float16T = _family("Float16", AbstractFloatT)
IntegerT = _family("Integer", RealT, abstract=True)
SignedT = _family("Signed", IntegerT, abstract=True)
Int64T = _family("Int64", SignedT)
Int32T = _family("Int32", SignedT)
Int16T = _family("Int16", SignedT)
Int8T = _family("Int8", SignedT)
UnsignedT = _family("Unsigned", IntegerT, abstract=True)
UInt64T = _family("UInt64", UnsignedT)
UInt32T = _family("UInt32", UnsignedT)
UInt16T = _family("UInt16", UnsignedT)
UInt8T = _family("UInt8", UnsignedT)
Int128T = _family("Int128", SignedT)
UInt128T = _family("UInt128", UnsignedT)
BigIntT = _family("BigInt", SignedT)
BoolT = _family("Bool", IntegerT)
RationalT = _family("Rational", RealT, arity=1)
AbstractIrrationalT = _family("AbstractIrrational", RealT, abstract=True)
IrrationalT = _family("Irrational", AbstractIrrationalT, arity=1)
AbstractStringT = _family("AbstractString", AnyT, abstract=True)
StringT = _family("String", AbstractStringT)
AbstractCharT = _family("AbstractChar", AnyT, abstract=True)
CharT = _family("Char", AbstractCharT)
SymbolT = _family("Symbol", AnyT)
NothingT = _family("Nothing", AnyT)
FunctionT = _family("Function", AnyT, abstract=True)
TypeT = _family("Type", AnyT, arity=1, abstract=True)
DataTypeT = _family("DataType", AnyT)
ModuleT = _family("Module", AnyT)
TupleT = _family("Tuple", AnyT, arity=-1)  # variadic parameters
#: `Tuple{}`, the type of `()`: an instance of Tuple with no parameters, unequal to the
#: bare `Tuple` (which stands for every tuple type)
EmptyTupleT = JType("Tuple", None, (), False, -1, TupleT)
NamedTupleT = _family("NamedTuple", AnyT, arity=2)
AbstractArrayT = _family("AbstractArray", AnyT, arity=2, abstract=True)
DenseArrayT = _family("DenseArray", AbstractArrayT, arity=2, abstract=True)
ArrayT = _family("Array", DenseArrayT, arity=2)
AbstractRangeT = _family("AbstractRange", AbstractArrayT, arity=1, abstract=True)
UnitRangeT = _family("UnitRange", AbstractRangeT, arity=1)
StepRangeT = _family("StepRange", AbstractRangeT, arity=2)
StepRangeLenT = _family("StepRangeLen", AbstractRangeT, arity=1)
BoxT = _family("Core.Box", AnyT)
ExceptionT = _family("Exception", AnyT, abstract=True)

_COMPLEX_ALIAS = {Float64T: "ComplexF64", Float32T: "ComplexF32", Float16T: "ComplexF16"}


def apply_type(fam: JType, params: tuple) -> JType:
    """Instantiate a family with parameters; cheap, structural equality."""
    if not params:
        return EmptyTupleT if fam is TupleT else fam
    if fam is NamedTupleT and type(params[0]) is tuple:  # names as a NamedTuple keeps
        # them, strings (`NamedTuple{(:a, :b), T}` is the type of `(a = 1, b = 2)`)
        params = (tuple(n.name if type(n) is Symbol else n for n in params[0]), *params[1:])
    t = JType(fam.name, None, tuple(params), fam.abstract, fam.arity, fam)
    t.fields, t.field_types = fam.fields, fam.field_types
    t.mutable, t.is_struct, t.param_names = fam.mutable, fam.is_struct, fam.param_names
    depth = 0
    for p in params:  # (a loop: apply_type is hot, and max over a generator is slow)
        d = getattr(p, "depth", 0)
        if d > depth:
            depth = d
    t.depth = 1 + depth
    return t


def plain_struct(t: Any) -> bool:
    """Whether t is a concrete struct type without parameters left open (its values are
    StructValues whose `type` is t: translated code knows such a value by its type)."""
    return type(t) is JType and t.is_struct and not t.abstract and not t.param_names


def supertype(t: JType) -> JType | None:
    """The declared supertype, with parameters carried for the array families."""
    fam = t.family  # (families are compared by identity: `is`, not `==`, which is slow)
    if (fam is AbstractArrayT or fam is DenseArrayT or fam is ArrayT) and \
            fam.super_ is not None:
        return apply_type(fam.super_.family, t.params)
    if fam is UnitRangeT or fam is StepRangeT or fam is StepRangeLenT:
        return apply_type(AbstractRangeT, (t.params[0],)) if t.params else AbstractRangeT
    if fam is AbstractRangeT:
        return apply_type(AbstractArrayT, (t.params[0], 1)) if t.params else AbstractArrayT
    sup = fam.super_
    if sup is not None and sup.params and t.params and fam.param_names:
        # a struct declared `S{K,V} <: AbstractDict{K,V}`: S{Symbol,Int}'s supertype is
        # AbstractDict{Symbol,Int}
        return _bind_typevars(sup, dict(zip(fam.param_names, t.params, strict=False)))
    if sup is not None and not sup.params and t.params and sup.arity == len(t.params):
        # a family whose declared supertype takes the same parameters: Dict{K,V} <:
        # AbstractDict{K,V} (without them `Dict{Symbol}` would match AbstractDict{<:String})
        return apply_type(sup, t.params)
    return sup


def _bind_typevars(t: Any, env: dict) -> Any:
    """t with the type variables that env names replaced by their values."""
    return _map_leaf_types(t, lambda x: env.get(x.name, x) if isinstance(x, TypeVar) else None)


def where_vars(t: Any) -> list[WhereVar]:
    """The `where` variables type t holds, outermost first (`Tuple{T, S} where T where S`
    gives S, T)."""
    found: dict[int, WhereVar] = {}

    def visit(x: Any) -> None:
        if type(x) is WhereVar:
            found.setdefault(x.serial, x)
        elif isinstance(x, JType):
            for p in x.params:
                visit(p)

    visit(t)
    return [found[k] for k in sorted(found)]


def instantiate_where(t: JType, vs: list[WhereVar], params: tuple) -> Any:
    """`T{P1, ...}` for a `where` type T whose variables are vs: the first variables
    replaced by the parameters (`(Tuple{S, S} where S){Int}` is `Tuple{Int, Int}`)."""
    env = dict(zip(vs, params, strict=False))
    return _map_leaf_types(t, lambda x: env.get(x) if type(x) is WhereVar else None)


def _param_le(a: Any, b: Any, env: dict) -> bool:
    if isinstance(b, TypeVar):
        if b.name in env:
            return env[b.name] == a
        if b.ub is not None and isinstance(a, JType) and not issubtype(a, b.ub, env):
            return False
        if (b.ub is not None and isinstance(a, TypeVar)
                and not issubtype(a.ub or AnyT, b.ub, env)):
            # (a parameter left open, as in a struct declared `<: AbstractMatrix`, is not
            # known to be within b's bound: `AbstractMatrix{<:Complex}` does not match it)
            return False
        env[b.name] = a
        return True
    if isinstance(a, JType) and isinstance(b, JType) and a.family is TupleT and b.family is TupleT:
        return issubtype(a, b, env)
    if (isinstance(a, JType) and isinstance(b, JType) and a.family is b.family and b.params
            and len(a.params) == len(b.params) and a != b):
        # invariant parameters holding TypeVars: `Type{Complex{Int64}}` matches
        # `Type{Complex{T}}` with T = Int64
        return all(_param_le(p, q, env) for p, q in zip(a.params, b.params, strict=True))
    return a == b or _symbol_text(a) == _symbol_text(b) is not None


def _symbol_text(p: Any) -> str | None:
    """A Symbol type parameter's name, as a method's signature holds it (`Val{:a}` in
    `f(::Val{:a})` holds "a", the type of `Val(:a)` the Symbol); None for others."""
    t = type(p)
    return p.name if t is Symbol else p if t is str else None


def issubtype(a: JType, b: JType, env: dict | None = None) -> bool:
    """`a <: b`, with `b` possibly partially parameterised or holding TypeVars
    (bound into `env`). Parameters are invariant, Tuple covariant, as in Julia."""
    if env is None:
        env = {}
    if b is AnyT:
        return True
    if isinstance(b, TypeVar):
        return _param_le(a, b, env)
    am = _union_members(a)
    if am is not None:
        return all(issubtype(m, b, env) for m in am)
    bm = _union_members(b)
    if bm is not None:
        for m in bm:
            trial = dict(env)
            if issubtype(a, m, trial):
                env.update(trial)
                return True
        return False
    if b.family is TupleT and a.family is TupleT:
        if not b.params:  # Tuple, or Tuple{} (only itself)
            return b is TupleT or (not a.params and a is not TupleT)
        bp = list(b.params)
        if a.params and isinstance(a.params[-1], JType) and a.params[-1].family is VarargT:
            return _vararg_tuple_le(a, b, env)
        if bp and isinstance(bp[-1], JType) and bp[-1].family is VarargT:
            elem = bp[-1].params[0] if bp[-1].params else AnyT
            fixed = bp[:-1]
            if len(a.params) < len(fixed):
                return False
            if len(bp[-1].params) == 2 and not _param_le(len(a.params) - len(fixed),
                                                         bp[-1].params[1], env):
                return False  # `Vararg{T, N}`: N elements (a TypeVar N is bound to them)
            return all(issubtype(x, y, env) for x, y in zip(a.params, fixed, strict=False)) and all(
                issubtype(x, elem, env) for x in a.params[len(fixed):]
            )
        return len(a.params) == len(bp) and all(issubtype(x, y, env)
                                                for x, y in zip(a.params, bp, strict=True))
    t: JType | None = a
    while t is not None:
        if t.family is b.family:
            # (a parameter `t` leaves open ranges over every value: `Type` is not a
            # subtype of `Type{Ones}`, nor `Array{Float64}` of `Matrix{Float64}`, unless
            # `b` leaves it open too, as an unbounded type variable)
            if any(not (isinstance(q, TypeVar) and q.ub in (None, AnyT))
                   for q in b.params[len(t.params):]):
                return False
            return all(_param_le(p, q, env) for p, q in zip(t.params, b.params, strict=False))
        t = supertype(t)
    return False


def _vararg_tuple_le(a: JType, b: JType, env: dict) -> bool:
    """`a <: b` for tuple types where a ends in an unbounded `Vararg{T}` (any number of
    trailing T's): b must end in a Vararg too, take at most a's leading elements before
    it, and admit each of a's elements (T included) where it stands."""
    bp = b.params
    if not (bp and isinstance(bp[-1], JType) and bp[-1].family is VarargT):
        return False
    if len(bp[-1].params) == 2 and isinstance(bp[-1].params[1], int):
        return False  # (a fixed-length Vararg{T, n} in b: a is longer or shorter)
    a_fixed, b_fixed = a.params[:-1], bp[:-1]
    a_elem = a.params[-1].params[0] if a.params[-1].params else AnyT
    b_elem = bp[-1].params[0] if bp[-1].params else AnyT
    if len(a_fixed) < len(b_fixed):
        return False
    return (all(issubtype(x, y, env) for x, y in zip(a_fixed, b_fixed, strict=False))
            and all(issubtype(x, b_elem, env) for x in a_fixed[len(b_fixed):])
            and issubtype(a_elem, b_elem, env))


def typejoin(a: Any, b: Any) -> Any:
    """Julia's typejoin: the nearest common supertype (Int64, Float64 -> Real)."""
    if not isinstance(a, JType) or not isinstance(b, JType):
        return AnyT
    if issubtype(a, b):
        return b
    if issubtype(b, a):
        return a
    if (a.family is TupleT and b.family is TupleT and a.params and b.params
            and len(a.params) == len(b.params) and not any(
                isinstance(p, JType) and p.family is VarargT for p in a.params + b.params)):
        # tuples of one length join elementwise (Tuple{Int64, Nothing} and Tuple{Int64,
        # Int64}: Tuple{Int64, Any})
        return apply_type(TupleT, tuple(typejoin(p, q) for p, q in zip(a.params, b.params,
                                                                        strict=True)))
    t: JType | None = a
    while t is not None:
        if issubtype(b, t):
            return t
        t = supertype(t)
    return AnyT


VarargT = _family("Vararg", AnyT, arity=2)
UnionT = _family("Union", AnyT, arity=-1, abstract=True)
_UNION[0] = UnionT
#: the bare `NTuple`: `Tuple{Vararg{T, N}} where {N, T}`, tuples of one element type
NTupleT = apply_type(TupleT, (apply_type(VarargT, (alias_typevar("T"), alias_typevar("N"))),))


def make_union(members: tuple) -> Any:
    """`Union{...}`: nested unions flattened, duplicates and members already covered by
    another dropped; one member is that type itself; none is the empty `Union{}`."""
    flat: list = []
    for m in members:
        parts = m.params if isinstance(m, JType) and m.family is UnionT else (m,)
        for p in parts:
            if not isinstance(p, (JType, TypeVar)):
                raise TypeError(f"Union member {p!r} is not a type")
            if p not in flat:
                flat.append(p)
    kept = [p for p in flat if not any(
        q is not p and isinstance(p, JType) and isinstance(q, JType) and issubtype(p, q)
        and not issubtype(q, p) for q in flat)]
    if len(kept) == 1:
        return kept[0]
    t = JType("Union", None, tuple(kept), True, -1, UnionT)
    return t


def union_members(t: Any) -> tuple | None:
    """The members of a Union type (None for any other type)."""
    return _union_members(t) if isinstance(t, JType) else None


def _union_members(t: JType) -> tuple | None:
    """The members of a Union type (empty for `Union{}`), or None for any other type."""
    if getattr(t, "family", None) is UnionT:
        return t.params
    return None


# --- values -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Symbol:
    name: str


class Char:
    """A Julia Char: one character (`value`, a one-character Python string), compared and
    hashed by its character (a plain class, not a dataclass: strings are
    iterated as Chars, so making and comparing one is on hot paths)."""

    __slots__ = ("value",)

    def __init__(self, value: str) -> None:
        self.value = value  # (never assigned again)

    def __eq__(self, other: object) -> bool:
        return type(other) is Char and other.value == self.value

    def __hash__(self) -> int:
        return hash(("Char", self.value))

    def __repr__(self) -> str:
        return f"Char(value={self.value!r})"

    def __reduce__(self) -> tuple:
        return Char, (self.value,)


#: 2^63: Int64 holds -2^63 up to 2^63 - 1
_INT64_LIMIT = 1 << 63


class Rational(Fraction):
    """Julia's Rational{Int64} (`1//2`): an exact fraction in lowest terms with a positive
    denominator. Python's Fraction does the arithmetic; the primitives wrap its results
    back into this class (lang.core.primitives). Its subclasses are the Rationals of the
    other integer types (RATIONAL_OF), differing only in the class attributes below."""

    __slots__ = ()
    #: Julia's T in Rational{T}: the integer type of the parts
    int_type: JType = Int64T
    #: the range (lo, hi) the parts must lie in; None for BigInt's (unbounded)
    bounds: tuple[int, int] | None = (-_INT64_LIMIT, _INT64_LIMIT - 1)
    #: the host value of a part (a Python int) as a value of int_type
    part: Callable[[int], Any] = int

    def __new__(cls, numerator: Any = 0, denominator: Any = None) -> Rational:
        """The Fraction, whose parts must lie in the class's bounds: else Python's
        OverflowError (Julia's, as the runtime shows it), never a wider Rational."""
        x = Fraction.__new__(cls, numerator, denominator)
        if cls.bounds is not None and not (cls.bounds[0] <= x._numerator <= cls.bounds[1]
                                           and x._denominator <= cls.bounds[1]):
            raise OverflowError(f"a Rational{{{cls.int_type.name}}} overflowed")
        return x

    @property
    def jtype(self) -> JType:
        return apply_type(RationalT, (self.int_type,))

    def jl_show(self) -> str:
        """`3//4`; an unsigned type's parts in hex, as Julia shows them (`0x03//0x04`)."""
        if self.bounds is None or self.bounds[0] < 0:
            return f"{self.numerator}//{self.denominator}"
        digits = self.bounds[1].bit_length() // 4
        return f"0x{self._numerator:0{digits}x}//0x{self._denominator:0{digits}x}"

    @classmethod
    def infinite(cls, sign: int) -> Rational:
        """Julia's `1//0` (sign > 0) or `-1//0`: a Rational with a zero denominator, which
        Python's Fraction cannot make; its arithmetic is a DivideError (Fraction divides
        by the zero), its comparisons and float are those of ±Inf."""
        x = Fraction.__new__(cls)
        x._numerator, x._denominator = (1 if sign > 0 else -1), 0
        return x

    def __float__(self) -> float:
        if self._denominator == 0:
            return math.copysign(math.inf, self._numerator)
        return self._numerator / self._denominator

    def __eq__(self, other: object) -> bool:
        if self._denominator == 0 or getattr(other, "_denominator", 1) == 0:
            return _compare_real(self) == _compare_real(other)
        return Fraction.__eq__(self, other)

    __hash__ = Fraction.__hash__

    def __add__(self, other: Any) -> Any:
        return _rational_arith("+", self, other)

    def __radd__(self, other: Any) -> Any:
        return _rational_arith("+", other, self)

    def __sub__(self, other: Any) -> Any:
        return _rational_arith("-", self, other)

    def __rsub__(self, other: Any) -> Any:
        return _rational_arith("-", other, self)

    def __mul__(self, other: Any) -> Any:
        return _rational_arith("*", self, other)

    def __rmul__(self, other: Any) -> Any:
        return _rational_arith("*", other, self)

    def __truediv__(self, other: Any) -> Any:
        return _rational_arith("/", self, other)

    def __rtruediv__(self, other: Any) -> Any:
        return _rational_arith("/", other, self)

    def __neg__(self) -> Rational:
        if self._denominator == 0:
            return self.infinite(-self._numerator)  # -(1//0) is -1//0
        return type(self)(Fraction.__neg__(self))

    def __abs__(self) -> Rational:
        if self._denominator == 0:
            return self.infinite(1)
        return type(self)(Fraction.__abs__(self))

    def __pos__(self) -> Rational:
        return self

    @classmethod
    def from_float(cls, f: float) -> Fraction:
        """f's exact value as a plain Fraction, whatever its size: what Fraction compares
        a Rational with a float by (`1//2 < 1e-300` was an OverflowError)."""
        return Fraction.from_float(f)

    def _richcmp(self, other: Any, op: Callable[[Any, Any], bool]) -> bool:
        if self._denominator == 0 or getattr(other, "_denominator", 1) == 0:
            return op(_compare_real(self), _compare_real(other))
        return Fraction._richcmp(self, other, op)


#: Julia's arithmetic of two numbers, one a Rational (promoting, an OverflowError where
#: the result's type does not hold it), by operator: set by lang.core.primitives. Python's
#: operators on Rationals do it, so that numpy's loops over arrays of them (a sum by dims, a
#: matrix product) make Rationals of Julia's types, not bare Fractions.
RATIONAL_ARITH: dict[str, Callable[[Any, Any], Any]] = {}
_FRACTION_ARITH: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv}


def _rational_arith(op: str, a: Any, b: Any) -> Any:
    """a op b, one of them a Rational: by RATIONAL_ARITH; beside a bare Fraction (Python's
    exact arithmetic inside the primitives) a bare Fraction, as Fraction's own."""
    if type(a) is Fraction or type(b) is Fraction:
        a, b = (Fraction(x) if isinstance(x, Rational) else x for x in (a, b))
        return _FRACTION_ARITH[op](a, b)
    return RATIONAL_ARITH[op](a, b)


def _compare_real(x: Any) -> Any:
    """x as compared with an infinite Rational: ±inf for one, x itself otherwise."""
    return float(x) if isinstance(x, Rational) and x._denominator == 0 else x


class WideInt:
    """Julia's 128-bit integers on the host (numpy has none): a Python int kept in the
    type's range, arithmetic wrapping modulo 2^128 as Julia's does (lang.core.primitives
    computes with the ints and wraps the result). Arrays of them are object arrays;
    compiled code has no 128-bit integers, so code using them runs on the host."""

    __slots__ = ("value",)
    signed = True
    jtype = Int128T

    def __init__(self, value: int) -> None:
        value &= (1 << 128) - 1
        if self.signed and value >> 127:
            value -= 1 << 128
        self.value = value

    def __repr__(self) -> str:
        return f"{self.jtype.name}({self.value})"

    def __int__(self) -> int:
        return self.value

    def __index__(self) -> int:
        return self.value

    def __float__(self) -> float:
        return float(self.value)

    def __hash__(self) -> int:
        return hash(self.value)  # Int128(3) and 3 are the same Dict key, as in Julia

    def __eq__(self, other: object) -> bool:
        if isinstance(other, WideInt):
            return self.value == other.value
        if isinstance(other, (int, float, np.integer, np.floating, Fraction)):
            return self.value == other  # (big(2) == 2//1, exactly)
        return NotImplemented

    def __lt__(self, other: object) -> bool:
        return self.value < (other.value if isinstance(other, WideInt) else other)

    def jl_print(self) -> str:
        return str(self.value)

    def jl_show(self) -> str:
        return str(self.value) if self.signed else f"0x{self.value:032x}"


class Int128(WideInt):
    __slots__ = ()


class UInt128(WideInt):
    __slots__ = ()
    signed = False
    jtype = UInt128T


class BigInt(WideInt):
    """Julia's BigInt: an arbitrary-precision integer (a Python int, never wrapped). It
    shares the 128-bit integers' host arithmetic; Zyla has no BigFloat, so mixing it with
    floats is an error (lang.core.primitives)."""

    __slots__ = ()
    jtype = BigIntT

    def __init__(self, value: int) -> None:
        self.value = int(value)

    def __float__(self) -> float:
        try:
            return float(self.value)
        except OverflowError:  # Float64(big(2)^2000) is Inf, as in Julia
            return math.inf if self.value > 0 else -math.inf


class BigRational(Rational):
    """Julia's Rational{BigInt} (`1//big(3)`): a Rational whose parts are BigInts."""

    __slots__ = ()
    int_type = BigIntT
    bounds = None
    part = BigInt


def _bounded_rational(t: JType, part: Callable[[int], Any], bits: int,
                      signed: bool) -> type[Rational]:
    """The Rational class of a fixed-size integer type t (Rational{Int8}, ...)."""
    bounds = (-(1 << bits - 1), (1 << bits - 1) - 1) if signed else (0, (1 << bits) - 1)
    return type(f"Rational{t.name}", (Rational,),
                {"__slots__": (), "int_type": t, "bounds": bounds, "part": part})


#: the Rational class of each integer type T (Julia's Rational{T})
RATIONAL_OF: dict[JType, type[Rational]] = {Int64T: Rational, BigIntT: BigRational} | {
    t: _bounded_rational(t, part, bits, signed) for t, part, bits, signed in (
        (Int8T, np.int8, 8, True), (Int16T, np.int16, 16, True),
        (Int32T, np.int32, 32, True), (Int128T, Int128, 128, True),
        (UInt8T, np.uint8, 8, False), (UInt16T, np.uint16, 16, False),
        (UInt32T, np.uint32, 32, False), (UInt64T, np.uint64, 64, False),
        (UInt128T, UInt128, 128, False))}

#: the classes of Julia's Rationals
RATIONALS = tuple(RATIONAL_OF.values())


class Irrational(float):
    """Julia's Irrational{sym} (π, ℯ, γ, φ, catalan): as a Python float, its nearest
    Float64 (what code that knows nothing of it computes with), knowing its symbol and
    the name of the mpmath constant that gives its exact value to any precision
    (lang.core.primitives promotes it as Julia does: to the other operand's float type,
    and compares it exactly)."""

    __slots__ = ("sym", "exact", "jtype")
    #: as an element type, where nothing promotes it first: Float64's, as Julia's
    #: float(π) (a number to the primitives that know nothing of Irrationals)
    dtype = np.dtype(np.float64)

    def __new__(cls, value: float, sym: str, exact: str) -> Irrational:
        x = float.__new__(cls, value)
        x.sym, x.exact = sym, exact
        x.jtype = apply_type(IrrationalT, (Symbol(sym),))
        return x

    def __eq__(self, other: object) -> bool:
        return type(other) is Irrational and other.sym == self.sym

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return hash(("Irrational", self.sym))

    def __repr__(self) -> str:
        return self.sym

    def __reduce__(self) -> tuple:
        return Irrational, (float(self), self.sym, self.exact)


WIDE_TYPES = {Int128T: Int128, UInt128T: UInt128, BigIntT: BigInt}
WIDE_INTS = (Int128, UInt128, BigInt)


@dataclass(frozen=True)
class NamedTuple:
    """An immutable NamedTuple: ordered names and values."""

    names: tuple[str, ...]
    values: tuple

    def get(self, name: str) -> Any:
        return self.values[self.names.index(name)]

    def __iter__(self) -> Iterator[Any]:
        return iter(self.values)

    def __len__(self) -> int:
        return len(self.values)


@dataclass
class Range:
    """`start:step:stop` over Int64 (UnitRange when step == 1, else StepRange) or over
    floats (StepRangeLen). `length` is the number of elements.

    A float range built from known values also has `exact = (a, b, d)`, integers with
    element k equal to (a + k*b)/d rounded once to the range's type, as Julia computes
    its float ranges (lang.core.ranges says how they are found); without it element k
    is `start + k*step` (integer ranges, and float bounds known only when compiled code
    runs)."""

    start: Any
    step: Any
    length: int
    unit: bool = False
    exact: tuple | None = None

    def __getitem__(self, k: int) -> Any:  # 0-based
        if self.exact is None:
            return self.start + k * self.step
        a, b, d = self.exact
        return type(self.start)((a + k * b) / d)  # int / int: correctly rounded

    def __iter__(self) -> Iterator[Any]:
        for k in range(self.length):
            yield self[k]

    def __len__(self) -> int:
        return self.length

    @property
    def last(self) -> Any:
        return self[self.length - 1]

    def _exact_in_int64(self) -> bool:
        a, b, d = self.exact
        n = max(int(self.length), 1)
        return max(abs(a), abs(a + (n - 1) * b)) < 2 ** 53 and 0 < d < 2 ** 53

    def to_array(self) -> np.ndarray:
        dt = dtype_of_scalar(self.start)
        if self.exact is None:
            return np.array([self[k] for k in range(self.length)], dtype=dt)
        if self._exact_in_int64():
            return self.at(np.arange(self.length, dtype=np.int64), np)
        a, b, d = self.exact
        return np.array([(a + k * b) / d for k in range(self.length)]).astype(dt)

    def at(self, k: Any, xp: Any) -> Any:
        """Element k (0-based; a traced integer in compiled code) computed with xp."""
        if self.exact is None:
            return self.start + k * self.step
        a, b, d = self.exact
        dt = dtype_of_scalar(self.start)
        if self._exact_in_int64():
            num = xp.asarray(k, dtype=np.int64) * b + a
            den: Any = float(d)
            if xp is not np:  # XLA would multiply by a rounded 1/d (primitives._true_divide)
                from jax import lax

                den = lax.optimization_barrier(xp.asarray(den))
            return (num.astype(np.float64) / den).astype(dt)
        # double-double: start and step to twice the precision, k*step without rounding
        start, step = Fraction(a, d), Fraction(b, d)
        s_hi, t_hi = float(start), float(step)
        s_lo, t_lo = float(start - Fraction(s_hi)), float(step - Fraction(t_hi))
        kf = xp.asarray(k, dtype=np.float64)
        p = kf * t_hi
        err = _product_error(xp, kf, t_hi, p)
        s = s_hi + p
        bb = s - s_hi
        e2 = (s_hi - (s - bb)) + (p - bb)
        return (s + (e2 + (err + (kf * t_lo + s_lo)))).astype(dt)

    def drop(self, k: int) -> Range:
        """The range without its first k elements."""
        return self.sub(k, 1, self.length - k)

    def sub(self, first: int, stride: int, n: int) -> Range:
        """Elements first, first + stride, ... (n of them; 0-based first) as a range."""
        exact = None if self.exact is None else (
            self.exact[0] + first * self.exact[1], self.exact[1] * stride, self.exact[2])
        return Range(self[first], self.step * stride, n, self.unit and stride == 1, exact)


class WideRange(Range):
    """An integer range whose elements are Int128s, UInt128s or BigInts (`1:big(16)`,
    Julia's UnitRange{BigInt}): start is of that type (WideInt), step of its own integer
    type (a StepRange{BigInt, Int64}), each element computed exactly on Python ints;
    arrays of its elements are object arrays, and it runs on the host only (compiled code
    has no 128-bit integers)."""

    def __getitem__(self, k: int) -> Any:  # 0-based
        return type(self.start)(self.start.value + int(k) * int(self.step))

    def to_array(self) -> np.ndarray:
        out = np.empty(self.length, dtype=object)
        for k in range(self.length):
            out[k] = self[k]
        return out

    def at(self, k: Any, xp: Any) -> Any:
        return self[int(k)]

    def sub(self, first: int, stride: int, n: int) -> Range:
        step = type(self.step)(int(self.step) * stride)
        return WideRange(self[first], step, n, self.unit and stride == 1)


def _product_error(xp: Any, x: Any, y: float, p: Any) -> Any:
    """x*y - p exactly, for p = fl(x*y) (Dekker's product, without a fused multiply-add)."""
    split = 134217729.0  # 2^27 + 1
    cx = split * x
    xh = cx - (cx - x)
    xl = x - xh
    cy = split * y
    yh = cy - (cy - y)
    yl = y - yh
    return ((xh * yh - p) + xh * yl + xl * yh) + xl * yl


class StructValue:
    """An instance of a user struct: its type and field values in declaration order.

    As a key of a Python dict or set (a `Dict`, a `Set`, `unique`), an immutable struct is
    its contents, compared as Julia's `===` compares them (`egal_key`), and a mutable one
    is itself: `Dict(Point(1, 2) => 1)[Point(1, 2)]` finds the entry. (Slots: made and
    read in host loops, a struct is cheaper without an attribute dictionary. Two slots
    are unset on most: an exception value's `zyla_message`, the message the runtime wrote
    for it, and `ad_written`, set by reverse mode on a struct a differentiated program
    wrote a field of.)"""

    __slots__ = ("type", "fields", "zyla_message", "ad_written")

    def __init__(self, type: JType, fields: list) -> None:
        self.type = type
        self.fields = fields

    def __repr__(self) -> str:
        return f"StructValue({self.type!r}, {self.fields!r})"

    def getfield(self, name: str) -> Any:
        return self.fields[self.type.fields.index(name)]

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if type(other) is not StructValue or self.type.mutable or (
                other.type is not self.type and other.type != self.type):
            return False  # (a parametric type, `Complex{Int64}`, may be made twice: ==)
        return egal_key(self) == egal_key(other)

    def __hash__(self) -> int:
        return id(self) >> 4 if self.type.mutable else hash(egal_key(self))


def egal_key(x: Any) -> Any:
    """A value that is equal (==) for two values exactly when Julia's `===` holds for them
    and hashes alike: numbers by Julia type and bits (NaN is NaN, -0.0 is not 0.0, 1 is
    not 1.0; a numpy Int64 is a Python Int64), strings by content, types by value, tuples
    and immutable structs by their parts, anything mutable (arrays, mutable structs,
    dicts) by identity. (Immutable structs as Dict/Set keys, `IdDict`'s keys.)"""
    t = type(x)
    if t is bool or t is np.bool_:
        return ("Bool", bool(x))
    if t is int:
        return ("Int64", x)
    if t is float:
        return ("Float64", struct.pack("<d", x))
    if isinstance(x, np.generic):
        jt = DTYPE_TO_JTYPE.get(x.dtype)
        name = jt.name if jt is not None else x.dtype.str
        if x.dtype == np.float64:
            return ("Float64", struct.pack("<d", float(x)))
        return (name, int(x) if x.dtype.kind in "iu" else x.tobytes())
    if t is str or x is None:
        return (t.__name__, x)
    if t is tuple:
        return ("Tuple", tuple(egal_key(e) for e in x))
    if t is StructValue and not x.type.mutable:
        return (x.type, tuple(egal_key(f) for f in x.fields))
    if t is Char or t is Symbol or t is Rational or isinstance(x, JType):
        return (t.__name__, x)
    return ("id", id(x))


class UndefRef:
    """The content of an array slot that was never assigned (`Vector{String}(undef, 2)`,
    `similar(["a"])`): Julia's `#undef`. Reading it is Julia's UndefRefError (the reads
    test for it: `check_assigned`); anything else that meets it (comparing, hashing,
    asking its type) raises that error too, so that it never stands for a value."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "#undef"

    def __eq__(self, other: object) -> bool:
        raise undef_ref_error()

    def __hash__(self) -> int:
        raise undef_ref_error()

    def __bool__(self) -> bool:
        raise undef_ref_error()

    def __reduce__(self) -> str:
        return "UNDEF_REF"  # (copies and pickles are the one undefined slot itself)


#: the one undefined slot
UNDEF_REF = UndefRef()


def undef_slot(elt: Any, lookup: Callable[[str], Any]) -> Any:
    """What a slot not yet assigned holds in an object array of element type `elt`:
    `UNDEF_REF`, except in a Union of plain-data types (numbers, Bool, Char) with
    `Nothing` or `Missing` (one of the two), whose slots hold that singleton, as Julia's
    union arrays do (their type tags start at zero: `Vector{Union{Missing, Int}}(undef,
    3)` is three `missing`s). `lookup`: the runtime's global of a name (`missing`)."""
    members = union_members(elt)
    if not members:
        return UNDEF_REF
    names = {m.name for m in members if isinstance(m, JType)}
    empty = names & {"Nothing", "Missing"}
    if len(empty) != 1 or not all(
            isinstance(m, JType) and (m.name in empty or m in JTYPE_TO_DTYPE or m is CharT)
            for m in members):
        return UNDEF_REF
    return lookup(empty.pop().lower())


def undef_ref_error() -> ZylaError:
    """Julia's UndefRefError."""
    return ZylaError("UndefRefError", "access to undefined reference")


def check_assigned(x: Any) -> Any:
    """x, an element just read from an array; UndefRefError when its slot is undefined."""
    if x is UNDEF_REF:
        raise undef_ref_error()
    return x


@dataclass(eq=False)
class Box:
    """A mutable cell for a captured variable that is reassigned (Julia's Core.Box)."""

    value: Any = None
    defined: bool = False
    # how many times it was written: reverse mode notices a write it did not record (one
    # made by code run without AD), through which a gradient would be lost
    version: int = 0


@dataclass(eq=False)
class ModuleValue(Atomic):
    """A built-in module (`Test`, `Flux`, `Base`): its exported names."""

    name: str
    names: dict = field(default_factory=dict)


# --- strings -------------------------------------------------------------------------------

def string_bytes(s: str) -> bytes:
    """A String's bytes: UTF-8, except that a character standing for a byte that was not
    UTF-8 in a file (Python's surrogate escape, U+DC80..U+DCFF) is that byte again and
    any other lone surrogate is written as its three bytes (Julia keeps a String's bytes
    whatever they are)."""
    try:
        return s.encode("utf-8")
    except UnicodeEncodeError:
        return s.encode("utf-8", "zyla-bytes")


def _bytes_back(e: UnicodeError) -> tuple[bytes, int]:
    if not isinstance(e, UnicodeEncodeError):
        raise e
    out = bytearray()
    for ch in e.object[e.start:e.end]:
        o = ord(ch)
        out += bytes([o - 0xDC00]) if 0xDC80 <= o <= 0xDCFF else ch.encode("utf-8", "surrogatepass")
    return bytes(out), e.end


codecs.register_error("zyla-bytes", _bytes_back)


# --- dtype and type-of helpers --------------------------------------------------------

DTYPE_TO_JTYPE = {
    np.dtype(np.float64): Float64T,
    np.dtype(np.float32): Float32T,
    np.dtype(np.float16): Float16T,
    np.dtype(np.int64): Int64T,
    np.dtype(np.int32): Int32T,
    np.dtype(np.int16): Int16T,
    np.dtype(np.int8): Int8T,
    np.dtype(np.uint64): UInt64T,
    np.dtype(np.uint32): UInt32T,
    np.dtype(np.uint16): UInt16T,
    np.dtype(np.uint8): UInt8T,
    np.dtype(np.bool_): BoolT,
}
JTYPE_TO_DTYPE = {v: k for k, v in DTYPE_TO_JTYPE.items()}


def dtype_of_scalar(x: Any) -> np.dtype:
    if isinstance(x, bool):
        return np.dtype(np.bool_)
    if isinstance(x, int):
        return np.dtype(np.int64)
    if isinstance(x, float):
        return np.dtype(np.float64)
    if isinstance(x, np.generic):
        return x.dtype
    return np.dtype(object)


def jl_size(a: np.ndarray) -> tuple[int, ...]:
    """Julia's size of a host array."""
    return tuple(reversed(a.shape))


def eltype_of_array(a: np.ndarray) -> JType:
    return DTYPE_TO_JTYPE.get(a.dtype, AnyT)


# --- array write versions -----------------------------------------------------------------

_WRITE_VERSION: dict[int, int] = {}
#: the write version of each host array, by identity (`note_write`)
WRITE_VERSIONS = _WRITE_VERSION


def note_write(a: Any) -> None:
    """Record an in-place write to a host array (and to the arrays it is a view of), so
    caches of its contents (the compile tier's device buffers) know it changed."""
    while isinstance(a, np.ndarray):
        _WRITE_VERSION[id(a)] = _WRITE_VERSION.get(id(a), 0) + 1
        a = a.base


def write_version(a: Any) -> int:
    return _WRITE_VERSION.get(id(a), 0)


#: The built-in types by the names a program uses for them.
BUILTIN_TYPES = {
    "Any": AnyT, "Number": NumberT, "Real": RealT, "AbstractFloat": AbstractFloatT,
    "Float64": Float64T, "Float32": Float32T, "Float16": Float16T, "Integer": IntegerT,
    "Signed": SignedT, "Int64": Int64T, "Int": Int64T, "Int32": Int32T, "Bool": BoolT,
    "Int16": Int16T, "Int8": Int8T, "Unsigned": UnsignedT, "UInt64": UInt64T, "UInt": UInt64T,
    "UInt32": UInt32T, "UInt16": UInt16T, "UInt8": UInt8T, "Int128": Int128T,
    "UInt128": UInt128T, "BigInt": BigIntT,
    "AbstractString": AbstractStringT, "String": StringT, "Char": CharT,
    "AbstractChar": AbstractCharT, "Symbol": SymbolT, "Nothing": NothingT,
    "Rational": RationalT, "Irrational": IrrationalT, "AbstractIrrational": AbstractIrrationalT,
    "Function": FunctionT, "Type": TypeT, "DataType": DataTypeT, "Module": ModuleT,
    "Tuple": TupleT, "NamedTuple": NamedTupleT, "AbstractArray": AbstractArrayT,
    "DenseArray": DenseArrayT, "Array": ArrayT, "AbstractRange": AbstractRangeT,
    "UnitRange": UnitRangeT, "StepRange": StepRangeT, "Vararg": VarargT, "Union": UnionT,
    "Exception": ExceptionT,
}
