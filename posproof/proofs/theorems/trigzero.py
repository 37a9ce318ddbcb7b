"""Deciding a trigonometric identity within a budget: exponential normal form, validated points.

A group identity is a polynomial in sin(u), cos(u) for arguments u that are
sums of products (``w_0*delta``, ``999*w_0*x``, ``pi*delta`` …).  Writing
sin u = (e^{iu} − e^{−iu})/(2i) and cos u = (e^{iu} + e^{−iu})/2 turns it into
Σ c_L·e^{iL}, one coefficient per exponent L: multiplying two terms adds their
exponents, so ``sin(999u)² + cos(999u)² − 1`` has five terms, not a Chebyshev
polynomial of degree 999 (what ``expand_trig`` builds).  Every step is an
identity, so when every coefficient expands to 0 the expression *is* 0; when
one does not, nothing is concluded (two exponents written differently may be
equal).  The number of terms is capped and every product of terms is charged to the work
budget before it is formed, so the expansion never runs away.

Before any expansion, :func:`nonzero_somewhere` evaluates the identity at an
exact rational point with interval arithmetic (:mod:`posproof.validated`): an
enclosure that excludes 0 is a proof that the identity is false there.

>>> import sympy as sp
>>> u = sp.Symbol("u", real=True)
>>> is_zero_exp(sp.sin(999*u)**2 + sp.cos(999*u)**2 - 1)
True
>>> is_zero_exp(sp.cos(10**6*u) - 1) is None
True
>>> nonzero_somewhere([sp.cos(3*u) + sp.Integer(10)**-40 - sp.cos(3*u)])
True
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import Any

import sympy as sp

from ... import validated
from .budget import Budget, evaluation_units, size

__all__ = ["is_zero_exp", "largest_multiple", "nonzero_somewhere", "pretest_points"]

#: Terms an exponential normal form may hold before the attempt is abandoned.
MAX_TERMS = 3000
#: Largest integer power of a trigonometric factor that is multiplied out.
MAX_POWER = 64
#: Precisions (bits) at which an identity is tried numerically before any expansion.
_PRETEST_BITS = (128, 320)
#: Exact values given to the free symbols for the numeric pretest (generic, positive).
_GENERIC = (Fraction(3711, 10000), Fraction(11317, 10000), Fraction(7, 11), Fraction(13, 17),
            Fraction(29, 23), Fraction(5, 37))

_Form = dict[sp.Expr, list[sp.Expr]]


class _GiveUp(Exception):
    """The expression is not a polynomial in sin/cos, or the form grew past the cap."""


def _trig(expr: sp.Expr) -> bool:
    return expr.has(sp.sin, sp.cos)


def _add(into: _Form, key: sp.Expr, coeff: sp.Expr) -> None:
    into.setdefault(key, []).append(coeff)


def _collect(form: _Form) -> dict[sp.Expr, sp.Expr]:
    return {k: sp.Add(*v) for k, v in form.items()}


def _product(a: dict[sp.Expr, sp.Expr], b: dict[sp.Expr, sp.Expr],
             budget: Budget) -> dict[sp.Expr, sp.Expr]:
    if len(a) * len(b) > MAX_TERMS:
        raise _GiveUp("too many terms")
    out: _Form = {}
    budget.charge("the exponential expansion of an identity", len(a) * len(b))
    for ka, ca in a.items():
        for kb, cb in b.items():
            _add(out, sp.Add(ka, kb), ca * cb)
    return _collect(out)


def _form(expr: sp.Expr, budget: Budget) -> dict[sp.Expr, sp.Expr]:
    """Σ c_L·e^{iL} as {L: c_L}; raises :class:`_GiveUp` when the expression is not a
    polynomial in sin and cos of trig-free arguments."""
    if not _trig(expr):
        return {sp.S.Zero: expr}
    if expr.is_Add:
        out: _Form = {}
        for arg in expr.args:
            for k, c in _form(arg, budget).items():
                _add(out, k, c)
        if len(out) > MAX_TERMS:
            raise _GiveUp("too many terms")
        return _collect(out)
    if expr.is_Mul:
        acc: dict[sp.Expr, sp.Expr] = {sp.S.Zero: sp.S.One}
        for arg in expr.args:
            acc = _product(acc, _form(arg, budget), budget)
        return acc
    if expr.is_Pow:
        base, exp = expr.args
        if not (exp.is_Integer and 0 <= int(exp) <= MAX_POWER):
            raise _GiveUp("a power that is not a small non-negative integer")
        result: dict[sp.Expr, sp.Expr] = {sp.S.Zero: sp.S.One}
        square, n = _form(base, budget), int(exp)
        while n:
            if n & 1:
                result = _product(result, square, budget)
            n >>= 1
            if n:
                square = _product(square, square, budget)
        return result
    if expr.func in (sp.sin, sp.cos):
        u = sp.expand(expr.args[0])
        if _trig(u):
            raise _GiveUp("a trigonometric function of a trigonometric argument")
        if expr.func is sp.cos:
            half = sp.Rational(1, 2)
            return {u: half, -u: half} if u != 0 else {sp.S.Zero: sp.S.One}
        c = -sp.I / 2
        return {u: c, -u: -c} if u != 0 else {sp.S.Zero: sp.S.Zero}
    raise _GiveUp(f"{expr.func} of a trigonometric expression")


def is_zero_exp(expr: sp.Expr, budget: Budget | None = None) -> bool | None:
    """True when ``expr`` is proved identically 0 by its exponential normal form; None
    otherwise (not a proof of the contrary).  Raises OutOfBudget past the budget."""
    budget = budget or Budget(None)
    try:
        form = _form(sp.sympify(expr), budget)
    except _GiveUp:
        return None
    for coeff in form.values():
        budget.charge("the exponential expansion of an identity", size(coeff))
        if sp.expand(coeff) != 0:
            return None
    return True


def largest_multiple(expr: sp.Expr) -> int:
    """The largest |integer numerator| among the terms of trigonometric arguments (what
    ``expand_trig`` would turn into a polynomial of that degree).

    >>> u = sp.Symbol("u")
    >>> largest_multiple(sp.sin(999*u) + sp.cos(u/2))
    999
    """
    worst = 1
    for atom in sp.sympify(expr).atoms(sp.sin, sp.cos):
        for term in sp.Add.make_args(sp.expand(atom.args[0])):
            coeff = term.as_coeff_Mul()[0]
            if coeff.is_Rational:
                worst = max(worst, abs(int(coeff.p)))
            elif coeff.is_Number:  # a float multiple: never expanded symbolically
                worst = max(worst, 10**9)
    return worst


def _env(symbols: Iterable[sp.Symbol], shift: int) -> dict[sp.Symbol, Fraction]:
    ordered = sorted(symbols, key=str)
    return {s: _GENERIC[(i + shift) % len(_GENERIC)] * (1 + shift) for i, s in
            enumerate(ordered)}


def pretest_points(x: sp.Symbol, delta: sp.Symbol, points: int = 2
                   ) -> list[tuple[Fraction, Fraction]]:
    """The (x, Δ) values :func:`nonzero_somewhere` tries for an identity in ``x`` and ``delta``
    (so a counterexample search can visit the points where the pretest saw a non-zero)."""
    envs = [_env({x, delta}, shift) for shift in range(points)]
    return [(env[x], env[delta]) for env in envs]


def nonzero_somewhere(exprs: Sequence[sp.Expr], budget: Budget | None = None,
                      points: int = 2) -> bool:
    """True when some expression is certainly non-zero at an exact rational point of its
    free symbols (an interval enclosure excludes 0): the identity is false, proved."""
    budget = budget or Budget(None)
    for expr in exprs:
        expr = sp.sympify(expr)
        for shift in range(points):
            env = _env(expr.free_symbols, shift)
            for bits in _PRETEST_BITS:
                budget.charge("the numeric pretest of an identity", evaluation_units(expr, bits))
                try:
                    x = validated.enclose(expr, env, bits)
                except validated.Unenclosable:
                    break
                if x > 0 or x < 0:
                    return True
    return False


def enclosure(expr: sp.Expr, env: dict[Any, Any], bits: int) -> Any | None:
    """:func:`posproof.validated.enclose`, or None when it cannot be enclosed at ``bits``."""
    try:
        return validated.enclose(expr, env, bits)
    except validated.Unenclosable:
        return None
