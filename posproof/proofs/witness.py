"""Certified witnesses and the evidence of the proof engine's verdicts (and the claims').

A counterexample is *refuted* only when the exact residual at an exact point has an
interval enclosure that excludes 0 (:func:`certify`, precision raised as needed); a value
that merely looks non-zero at some working precision decides nothing.  The helpers here
also build the :class:`~posproof.evidence.Evidence` the engine attaches to each verdict:
the identity residuals of a proved theorem at the cross-check's exact points (``zero``),
the certified sign of a refutation's residual at its witness.

>>> import sympy as sp
>>> from posproof.model.encoding import X
>>> s, lo, hi, bits = certify(sp.sin(X) - sp.Rational(84, 100), {X: 1})
>>> s, bits
(1, 128)
>>> certify(sp.log(8) / sp.log(2) - 3) is None      # exactly 0: never a witness
True
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import mpmath
import sympy as sp

from ..evidence import Evidence, Sign
from ..validated import Unenclosable, bounds, enclose

__all__ = ["WITNESS_BITS", "certify", "outward", "proved_evidence", "sign_item", "weighted_sum",
           "witness_sign", "zero_item"]

#: Precisions (bits) at which a witness's residual is enclosed, in order.
WITNESS_BITS = (128, 512, 2048, 8192)


def outward(lo: mpmath.mpf, hi: mpmath.mpf) -> tuple[str, str]:
    """The enclosure [lo, hi] as decimal strings, widened so rounding to 15 digits keeps it."""
    with mpmath.workprec(max(mpmath.mp.prec, 128)):
        pad = (abs(lo) + abs(hi)) * mpmath.mpf(2) ** -40
        return mpmath.nstr(lo - pad, 15), mpmath.nstr(hi + pad, 15)


def certify(expr: sp.Expr, env: Mapping[Any, Any] | None = None,
            bits: Sequence[int] = WITNESS_BITS, budget: Any = None
            ) -> tuple[int, str, str, int] | None:
    """``(sign, lo, hi, bits)`` when an interval enclosure of ``expr`` at ``env`` excludes 0
    (``lo``, ``hi`` outward-rounded decimal ends), else ``None`` (zero, or not decided within
    the precisions ``bits``)."""
    expr = sp.sympify(expr)
    for prec in bits:
        if budget is not None:
            budget.charge_evaluation("the certification of a witness", expr, prec)
        try:
            x = enclose(expr, dict(env or {}), prec)
        except Unenclosable:
            continue
        if x > 0 or x < 0:
            lo, hi = bounds(x)
            a, b = outward(lo, hi)
            return (1 if x > 0 else -1), a, b, prec
    return None


def witness_sign(label: str, expr: sp.Expr, env: Mapping[Any, Any] | None = None,
                 bits: Sequence[int] = WITNESS_BITS, budget: Any = None
                 ) -> tuple[Sign, int] | None:
    """A :class:`Sign` item (``positive`` / ``negative``) for a certified non-zero residual,
    with the bits that decided it; ``None`` when no enclosure excludes 0."""
    found = certify(expr, env, bits, budget)
    if found is None:
        return None
    s, lo, hi, prec = found
    return sign_item(label, expr, "positive" if s > 0 else "negative", env, lo, hi), prec


def sign_item(label: str, expr: sp.Expr, relation: str, env: Mapping[Any, Any] | None = None,
              lo: str | None = None, hi: str | None = None) -> Sign:
    return Sign(label, sp.sympify(expr), relation, dict(env or {}), lo, hi,
                engine="mpmath interval (posproof.validated)")


def zero_item(label: str, expr: sp.Expr, env: Mapping[Any, Any] | None = None) -> Sign:
    """An identity residual, proved exactly 0, at an exact point."""
    return Sign(label, sp.sympify(expr), "zero", dict(env or {}), engine="exact rewriting")


def weighted_sum(exprs: Iterable[sp.Expr]) -> sp.Expr:
    """Σ e_k/p_k (p_k the k-th prime): one audited quantity for several residuals, exactly 0
    when every e_k is; a wrong one shows unless the others cancel it to the last digit with
    these weights at this very point.

    (Not squares, nor absolute values: the auditor's power of a ball that contains 0 is not
    finite, and SymPy's ``Abs`` of an exact numeric zero runs a costly sign search.)

    >>> import sympy as sp
    >>> weighted_sum([sp.Symbol("a"), sp.Symbol("b")])
    a/2 + b/3
    """
    return sp.Add(*(sp.Mul(sp.Rational(1, sp.prime(k + 1)), sp.sympify(e))
                    for k, e in enumerate(exprs)))


def proved_evidence(method: str, items: list[Sign], coverage: str = "all",
                    **details: Any) -> Evidence:
    """The evidence of a proved theorem: how, and the residuals at exact points."""
    return Evidence(method, coverage=coverage, items=items, details=dict(details))
