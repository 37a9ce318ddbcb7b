"""Ground truth in mpmath, at a precision that lives in a local context.

Exact SymPy numbers are turned into mpmath numbers by walking the expression
(integers and rationals stay exact until the final division; π comes from
mpmath), never through a double.  Every function takes ``dps`` and works
inside ``mpmath.workdps(dps)``: the global ``mpmath.mp`` is never changed.

>>> import sympy as sp
>>> str(mp_value(sp.Pow(10000, sp.Rational(-1, 4), evaluate=False), 30))
'0.1'
>>> import mpmath; mpmath.mp.dps
15
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import mpmath
import sympy as sp

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
    """An exact SymPy expression evaluated in mpmath with ``dps`` significant digits.

    ``env`` gives values (integers, or mpmath numbers) for the symbols it contains.
    """
    with mpmath.workdps(dps + 10):
        value = _walk(sp.sympify(expr), env or {})
    with mpmath.workdps(dps):
        return +value


def mp_values(exprs: Sequence[sp.Expr], dps: int = DEFAULT_DPS) -> list[mpmath.mpf]:
    """:func:`mp_value` for a sequence, in one precision context."""
    with mpmath.workdps(dps + 10):
        values = [_walk(sp.sympify(e), {}) for e in exprs]
    with mpmath.workdps(dps):
        return [+v for v in values]
