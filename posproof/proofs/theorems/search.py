"""The counterexample search: exact points, interval arithmetic, precision raised until resolved.

An identity the engine could not prove is evaluated at exact rational points
(x, Δ): integers, Δ = 0, thirds and sevenths (a term such as sin(πΔ) vanishes
at every integer), and random large positions.  Each side is an exact SymPy
expression; their difference is enclosed with interval arithmetic
(:func:`posproof.validated.enclose`) at 192 bits, then at more bits for the
points still unresolved, up to :data:`MAX_BITS`.  A counterexample is an
enclosure that excludes 0: a proof, however small the residual (a constant
10⁻⁴⁰ is refuted at 192 bits; 10⁻¹⁰⁰⁰ needs more).  Points are visited breadth
first (every point at 192 bits before any at 640), so a plain mistake is found
in milliseconds and the budget is spent only on hair-thin ones.

>>> import sympy as sp
>>> from posproof.model.encoding import DELTA, X
>>> ce = validated_search([({"column": 0}, sp.cos(DELTA), sp.cos(DELTA) + sp.Integer(10)**-40)],
...                       [(1, 1)])
>>> ce["residual"], ce["bits"]
('1.0e-40', 192)
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import mpmath
import sympy as sp

from ...evidence import Sign
from ...model.encoding import DELTA, Encoding, X
from ...validated import bounds, digits_of
from ..witness import outward
from .budget import Budget, evaluation_units
from .identities import TRIG, exact
from .trigzero import enclosure

__all__ = ["MAX_BITS", "candidate_points", "column", "spread", "translation_sides",
           "validated_search", "witness_search"]

#: Precisions (bits) of the search, in the order they are tried.
BITS = (192, 640, 2048)
#: The highest precision of the search: residuals down to about 10^-(MAX_BITS/3.4 − angle digits).
MAX_BITS = 6144

Point = tuple[int | Fraction, int | Fraction]


def candidate_points(randoms: Sequence[Point] = ()) -> list[Point]:
    """Exact (x, Δ) points: small integers, Δ = 0, non-integers, then ``randoms``.

    For ω a rational multiple of π, integer points see only a few angles (π/2·ℤ),
    where a wrong block can agree with the right one; Δ = 1/3 and 2/7 break that.
    """
    third, sevenths = Fraction(1, 3), Fraction(2, 7)
    return [(1, 1), (0, 1), (1, 0), (3, 2), (10, 7), (third, sevenths), (sevenths, third),
            (1 + third, 5 + sevenths), (third, 0), (7, Fraction(1, 7)), *randoms]


def spread(groups: list[tuple[int, ...]], limit: int = 8) -> list[tuple[int, ...]]:
    """At most ``limit`` groups, first and last included, evenly spread.

    >>> spread([(i,) for i in range(100)], 3)
    [(0,), (50,), (99,)]
    """
    if len(groups) <= limit:
        return groups
    step = (len(groups) - 1) / (limit - 1)
    return [groups[round(i * step)] for i in range(limit)]


def column(enc: Encoding, j: int, var: sp.Expr) -> sp.Expr:
    """Column j of PE(var), exact, with its own frequency."""
    func = enc.column_funcs[j]
    return sp.Integer(0) if func == "zero" else TRIG[func](enc.column_frequency(j) * var)


def translation_sides(enc: Encoding, row_dok: dict[tuple[int, int], sp.Expr],
                      groups: Sequence[tuple[int, ...]]
                      ) -> list[tuple[dict[str, Any], sp.Expr, sp.Expr]]:
    """Exact sides PE(x+Δ)[j] and (PE(x)·T(Δ))[j] for the columns of ``groups``."""
    by_col: dict[int, list[tuple[int, sp.Expr]]] = {}
    for (i, j), v in row_dok.items():
        by_col.setdefault(j, []).append((i, v))
    return [({"column": j}, column(enc, j, X + DELTA),
             sp.Add(*(column(enc, i, X) * v for i, v in by_col.get(j, []))))
            for cols in groups for j in cols]


def _num(x: Any, digits: int = 20) -> str:
    return mpmath.nstr(x, digits)


def validated_search(residuals: Sequence[tuple[dict[str, Any], sp.Expr, sp.Expr]],
                     points: Sequence[Point], budget: Budget | None = None,
                     bits: Sequence[int] = (*BITS, MAX_BITS)) -> dict[str, Any] | None:
    """The first (x, Δ) and residual whose enclosure of lhs − rhs excludes 0, or None.

    ``residuals`` holds (where, lhs, rhs): exact expressions in ``X`` and ``DELTA``
    and what to report about them (a column, a layout …).
    """
    found = witness_search(residuals, points, budget, bits)
    return None if found is None else found[0]


def witness_search(residuals: Sequence[tuple[dict[str, Any], sp.Expr, sp.Expr]],
                   points: Sequence[Point], budget: Budget | None = None,
                   bits: Sequence[int] = (*BITS, MAX_BITS)
                   ) -> tuple[dict[str, Any], Sign] | None:
    """:func:`validated_search`, with the certified residual as an evidence item: the exact
    ``lhs − rhs`` in ``X``, ``DELTA``, its exact point and the sign its enclosure showed."""
    budget = budget or Budget(None)
    pending = [(p, r) for p in points for r in residuals]
    for prec in bits:
        unresolved = []
        for (x, dl), (where, lhs, rhs) in pending:
            gap = sp.Add(lhs, -rhs)
            budget.charge(f"the counterexample search at {prec} bits",
                          evaluation_units(gap, prec))
            env = {X: x, DELTA: dl}
            diff = enclosure(gap, env, prec)
            if diff is None or not (diff > 0 or diff < 0):
                unresolved.append(((x, dl), (where, lhs, rhs)))
                continue
            lo, hi = bounds(abs(diff))
            d_lo, d_hi = bounds(diff)
            left, right = enclosure(lhs, env, prec), enclosure(rhs, env, prec)
            e_lo, e_hi = outward(d_lo, d_hi)
            at = ", ".join(f"{k} {v}" for k, v in where.items())
            item = Sign(f"lhs − rhs at the witness ({at})", sp.Add(lhs, -rhs),
                        "positive" if diff > 0 else "negative", env, e_lo, e_hi,
                        engine="mpmath interval (posproof.validated)")
            with mpmath.workprec(prec):
                return {"x": exact(x), "delta": exact(dl), **where,
                        "lhs": _num(sum(bounds(left)) / 2) if left is not None else "?",
                        "rhs": _num(sum(bounds(right)) / 2) if right is not None else "?",
                        "residual": _num((lo + hi) / 2, 12),
                        "residual_enclosure": [_num(lo), _num(hi)],
                        "bits": prec, "dps": digits_of(prec),
                        "certified": "interval arithmetic: |lhs − rhs| ≥ "
                                     f"{_num(lo, 6)} > 0"}, item
        pending = unresolved
        if not pending:
            break
    return None
