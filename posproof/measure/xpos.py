"""The xPos precision trap: where the per-position scales ζ^(±p/B) leave a dtype.

xPos scales the query at position p by ζ_k^(p/B) and the key by ζ_k^(−p/B).  The
smallest ζ is ζ_0 = γ/(1+γ) (2/7 for γ = 2/5), so pair 0 goes first: its key scale
rounds to ``inf`` once ζ_0^(−p/B) ≥ the dtype's overflow threshold (max + ½ulp) and its
query scale to ``0`` once ζ_0^(p/B) ≤ half the smallest subnormal.  The first such p is
the least integer above B·ln(threshold)/ln(1/ζ_0), computed in validated interval
arithmetic (:func:`posproof.validated.enclose`, precision raised until the
interval holds no integer; else ``unknown``): never a float scan.
Uncentred positions run 0 … L−1, so the first length that loses the scale is p + 1;
torchscale centres them (p − ⌈L/2⌉ … ⌊L/2⌋ − 1), which
doubles it to 2p − 1.

>>> from posproof.model.xpos import XPos
>>> row = xpos_scale_limits(XPos(64), ["float16"])[0]
>>> row["overflow_position"], row["first_length_uncentred"], row["first_length_centred"]
(4533, 4534, 9065)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import mpmath
import sympy as sp

from ..errors import InvalidParameter, UnknownName
from ..model.xpos import XPos
from ..validated import bounds, enclose

__all__ = ["XPOS_DTYPES", "xpos_scale_checks", "xpos_scale_limits"]

#: (significand bits p, emin, emax) of each IEEE-style dtype.
XPOS_DTYPES = {"float32": (24, -126, 127), "float16": (11, -14, 15),
               "bfloat16": (8, -126, 127), "float64": (53, -1022, 1023)}


def _limit_expr(threshold: sp.Rational, inv_zeta: sp.Rational, scale_base: int) -> sp.Expr:
    """B·ln(threshold)/ln(1/ζ): the position from which ζ^(−p/B) ≥ threshold."""
    return scale_base * sp.log(threshold) / sp.log(inv_zeta)


def _thresholds(name: str) -> tuple[sp.Rational, sp.Rational]:
    """(overflow threshold, 1 / half the smallest subnormal) of dtype ``name``."""
    p, emin, emax = XPOS_DTYPES[name]
    overflow = (2 - sp.Rational(1, 2**p)) * sp.Integer(2) ** emax  # max + ½ulp
    half_subnormal = sp.Rational(1, 2 ** (p - emin))  # ½·2^(emin−p+1)
    return overflow, 1 / half_subnormal


def _first_integer_above(threshold: sp.Rational, inv_zeta: sp.Rational,
                        scale_base: int) -> int | None:
    """Least integer p with p > B·ln(threshold)/ln(1/ζ), validated; None if undecided.

    The bound is transcendental (never an integer unless the interval says so), and
    ζ^(−p/B) ≥ threshold ⟺ p ≥ B·ln(threshold)/ln(1/ζ).
    """
    expr = _limit_expr(threshold, inv_zeta, scale_base)
    for prec in (64, 128, 256, 512):
        lo, hi = bounds(enclose(expr, prec=prec))
        if mpmath.floor(lo) == mpmath.floor(hi) and lo != mpmath.floor(lo):
            return int(mpmath.floor(lo)) + 1
    return None


def xpos_scale_limits(xp: XPos, dtypes: Iterable[str] = ("float32", "float16", "bfloat16")
                      ) -> list[dict[str, Any]]:
    """For each dtype, the first position and first length at which pair 0's scale is lost.

    Each row: ``overflow_position`` (the key scale ζ_0^(−p/B) rounds to inf; so does the
    query scale at −p when centred), ``underflow_position`` (ζ_0^(p/B) rounds to 0),
    ``first_length_uncentred`` and ``first_length_centred`` (the shortest sequence with a
    lost scale), all exact integers or ``None`` (undecided).
    """
    if not isinstance(xp, XPos):
        raise InvalidParameter(f"{xp!r} is not an XPos; build one with posproof.XPos(head_dim)")
    z0 = xp.zeta(0)
    rows = []
    for name in dtypes:
        if name not in XPOS_DTYPES:
            raise UnknownName(f"dtype={name!r} is not known; use one of {', '.join(XPOS_DTYPES)}")
        overflow, underflow = _thresholds(name)
        over = _first_integer_above(overflow, 1 / z0, xp.scale_base)
        under = _first_integer_above(underflow, 1 / z0, xp.scale_base)
        first = None if over is None or under is None else min(over, under)
        rows.append({"dtype": name, "zeta_0": str(z0), "scale_base": xp.scale_base,
                     "overflow_position": over, "underflow_position": under,
                     "first_length_uncentred": None if first is None else first + 1,
                     "first_length_centred": None if first is None else 2 * first - 1})
    return rows


_ROW_KEYS = ("overflow_position", "first_length_uncentred", "first_length_centred",
             "underflow_position", "dtype", "zeta_0", "scale_base")


def xpos_scale_checks(xp: XPos, dtypes: Iterable[str] = ("float32", "float16", "bfloat16")
                      ) -> list[Any]:
    """:func:`xpos_scale_limits` as Checks, one per dtype: ``pass`` when both limits are
    decided, with the four certified signs that place each limit p (the bound
    B·ln(T)/ln(1/ζ_0) lies strictly between p − 1 and p) as evidence for the auditor;
    ``unknown`` (never ``fail``) when a limit is undecided.

    >>> from posproof.model.xpos import XPos
    >>> c = xpos_scale_checks(XPos(64), ["float16"])[0]
    >>> c.status, len(c.evidence.items), c.evidence.items[0].relation
    ('pass', 4, 'positive')
    """
    from ..evidence import Evidence, Sign
    from ..report import Check

    z0 = xp.zeta(0)
    out = []
    for row in xpos_scale_limits(xp, dtypes):
        values = {k: row[k] for k in _ROW_KEYS}
        name = f"xpos_scale_limits[{row['dtype']}]"
        certified = "validated interval arithmetic (posproof.validated.enclose)"
        undecided = [k for k in ("overflow_position", "underflow_position") if row[k] is None]
        if undecided:
            out.append(Check(name, "unknown", values, certified,
                             f"unknown: {' and '.join(undecided)} not decided (the enclosure "
                             "of B·ln(T)/ln(1/ζ_0) still held an integer at 512 bits)"))
            continue
        items = []
        for key, threshold, what in zip(("overflow_position", "underflow_position"),
                                        _thresholds(row["dtype"]),
                                        ("ζ_0^(−p/B) rounds to inf", "ζ_0^(p/B) rounds to 0"),
                                        strict=True):
            bound, p = _limit_expr(threshold, 1 / z0, xp.scale_base), row[key]
            items += [Sign(f"{key}: B·ln(T)/ln(1/ζ_0) − {p - 1} ({what} from p = {p})",
                           bound - (p - 1), "positive"),
                      Sign(f"{key}: {p} − B·ln(T)/ln(1/ζ_0) (and not before)", p - bound,
                           "positive")]
        out.append(Check(name, "pass", values, certified, evidence=Evidence(
            "certified signs (first integer above a transcendental bound)", "all", items,
            details={"threshold_overflow": str(_thresholds(row["dtype"])[0]),
                     "threshold_underflow": str(_thresholds(row["dtype"])[1])})))
    return out
