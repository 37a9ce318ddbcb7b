"""Ground truth in mpmath, at a precision that lives in a local context.

Exact SymPy numbers are turned into mpmath numbers through an interval
enclosure (:func:`posproof.validated.enclose`), never through a double: the
working precision is raised until the enclosure pins the value to ``dps``
digits, so catastrophic cancellation (``(log(8)/log(2) - 3)*10**85``, exactly
0) cannot produce garbage digits.  Only functions the enclosure does not know
fall back to a plain mpmath walk.  Every function takes ``dps`` and works in a
local context: the global ``mpmath.mp`` is never changed.

>>> import sympy as sp
>>> str(mp_value(sp.Pow(10000, sp.Rational(-1, 4), evaluate=False), 30))
'0.1'
>>> import mpmath; mpmath.mp.dps
15
>>> mp_value("4 + (log(27)/log(3) - 3)*10**100", 20)
mpf('4.0')
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import mpmath
import sympy as sp

from .errors import InvalidParameter
from .validated import BUDGET_BITS, Unenclosable, Unresolved, bounds, enclose, width_ok

__all__ = ["DEFAULT_DPS", "mp_value", "mp_values"]

#: Significant digits used to certify a number unless a caller asks for more.
DEFAULT_DPS = 50

_FUNCS = {sp.exp: mpmath.exp, sp.log: mpmath.log, sp.sin: mpmath.sin, sp.cos: mpmath.cos}


@lru_cache(maxsize=1 << 14)
def _number(expr: sp.Expr, prec: int) -> mpmath.mpf:
    """A symbol-free subexpression, memoised per working precision."""
    return _walk(expr, {}, memo=False)


def _walk(expr: sp.Expr, env: dict[sp.Symbol, Any], memo: bool = True) -> mpmath.mpf:
    if memo and not expr.is_Atom and not expr.free_symbols:
        return _number(expr, mpmath.mp.prec)
    if expr.is_Symbol:
        if expr not in env:
            raise ValueError(f"no value for {expr} in {sp.sstr(expr)}")
        return mpmath.mpf(env[expr])
    if expr.is_Integer:
        return mpmath.mpf(int(expr))
    if expr.is_Rational:
        return mpmath.mpf(int(expr.p)) / int(expr.q)
    if expr is sp.pi:
        return +mpmath.pi
    if expr is sp.E:
        return mpmath.e()
    if expr.is_Pow:
        base, exp = expr.args
        if exp.is_Rational and exp.q == 2 and exp.p == 1:
            return mpmath.sqrt(_walk(base, env))
        return mpmath.power(_walk(base, env), _walk(exp, env))
    if expr.is_Mul:
        out = mpmath.mpf(1)
        for arg in expr.args:
            out *= _walk(arg, env)
        return out
    if expr.is_Add:
        return mpmath.fsum(_walk(arg, env) for arg in expr.args)
    func = _FUNCS.get(expr.func)
    if func is not None:
        return func(_walk(expr.args[0], env))
    return mpmath.mpf(sp.N(expr, mpmath.mp.dps + 5))


def mp_value(expr: sp.Expr, dps: int = DEFAULT_DPS,
             env: dict[sp.Symbol, Any] | None = None) -> mpmath.mpf:
    """An exact SymPy expression evaluated in mpmath, correct to ``dps`` significant digits
    (or to 10^-dps absolutely when its magnitude is below 1).

    ``env`` gives values (integers, or mpmath numbers) for the symbols it contains.
    Raises :class:`~posproof.errors.InvalidParameter` when no enclosure that narrow is
    reached within :data:`~posproof.validated.BUDGET_BITS` bits.
    """
    expr = sp.sympify(expr)
    if not env:
        return _constant_value(expr, dps)
    try:   # the same entry at the same point recurs across theorems' cross-checks: memoised
        key = tuple((symbol, type(value), value) for symbol, value in env.items())
        hash(key)
    except TypeError:   # an unhashable value (an interval): evaluated each time
        return _value(expr, dps, env)
    return _point_value(expr, dps, key)


@lru_cache(maxsize=1 << 14)
def _point_value(expr: sp.Expr, dps: int, key: tuple[tuple[Any, type, Any], ...]
                 ) -> mpmath.mpf:
    """:func:`_value` at the point ``key`` (the environment's items with their types): a pure
    function of its arguments, as each precision is local."""
    return _value(expr, dps, {symbol: value for symbol, _, value in key})


@lru_cache(maxsize=1 << 14)
def _constant_value(expr: sp.Expr, dps: int) -> mpmath.mpf:
    return _value(expr, dps, None)


def _value(expr: sp.Expr, dps: int, env: dict[sp.Symbol, Any] | None) -> mpmath.mpf:
    bits = int(dps * 3.33) + 24
    while bits <= BUDGET_BITS:
        try:
            x = enclose(expr, env, bits)
        except Unresolved:
            x = None
        except Unenclosable:
            return _walk_value(expr, dps, env)
        if x is not None and width_ok(x, dps):
            a, b = bounds(x)
            with mpmath.workdps(dps):
                return +((a + b) / 2)
        bits *= 2
    raise InvalidParameter(f"{sp.sstr(expr)[:80]} cannot be evaluated to {dps} digits within "
                           f"{BUDGET_BITS} bits of interval arithmetic")


def _walk_value(expr: sp.Expr, dps: int, env: dict[sp.Symbol, Any] | None) -> mpmath.mpf:
    """Plain mpmath walk: only for functions :func:`~posproof.validated.enclose` does not know."""
    with mpmath.workdps(dps + 10):
        value = _walk(expr, env or {})
    with mpmath.workdps(dps):
        return +value


def mp_values(exprs: Sequence[sp.Expr], dps: int = DEFAULT_DPS) -> list[mpmath.mpf]:
    """:func:`mp_value` for a sequence, in one precision context."""
    return [mp_value(e, dps) for e in exprs]
