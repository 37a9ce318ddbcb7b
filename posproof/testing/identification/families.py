"""The schedule families :func:`posproof.testing.identification` fits measured frequencies against.

ω_k = b^(−k/n) (original paper, diffusion), (1/min)·(max/min)^(−k/(n−1))
(tensor2tensor, fairseq) and c/2^(k+1) (binary dials): candidates for each,
their parameters snapped to the simplest numbers the data allow, screened
against the measured frequencies; and the offset from the phases at the first
row.  Split from :mod:`posproof.testing.identification` (which re-exports ``TOLERANCE``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy as sp

from ..core.arrays import TOLERANCE as TOLERANCE

__all__ = [
    "TOLERANCE",
    "Candidate",
    "call_text",
    "candidates",
    "first_row_offset",
    "fmt",
    "nice",
    "preset_calls",
    "screen",
]


def nice(value: float, *, pi_multiples: bool = False) -> list[tuple[int, sp.Expr]]:
    """Simple numbers near ``value``, with a simplicity score (1 = simplest).

    >>> [str(v) for _, v in nice(10181.8)]
    ['10000', '10200', '10180', '10182']
    """
    out: list[tuple[int, sp.Expr]] = []
    if not (math.isfinite(value) and value > 0):
        return out
    if pi_multiples:
        for q in (1, 2, 3, 4, 6, 8):
            p = round(value / math.pi * q)
            if p > 0:
                out.append((1 if q == 1 and p <= 2 else 2, sp.pi * sp.Rational(p, q)))
    for digits in range(1, 6):
        candidate = sp.Rational(f"{value:.{digits - 1}e}")
        if all(candidate != v for _, v in out):
            out.append((digits, candidate))
    return out


def _raw(value: float) -> sp.Expr:
    return sp.Rational(f"{value:.10g}")


@dataclass
class Candidate:
    family: str                  # geometric | tensor2tensor | binary
    params: dict[str, sp.Expr]
    simplicity: int
    omega: np.ndarray            # float64 frequencies
    note: str = ""


def _geometric_freqs(base: float, n: int) -> np.ndarray:
    k = np.arange(n, dtype=np.longdouble)
    return np.exp(-k * np.log(np.longdouble(base)) / n).astype(np.float64)


def _t2t_freqs(lo: float, hi: float, n: int) -> np.ndarray:
    k = np.arange(n, dtype=np.longdouble)
    steps = max(n - 1, 1)
    ratio = np.longdouble(hi) / np.longdouble(lo)
    return (np.exp(-k * np.log(ratio) / steps) / np.longdouble(lo)).astype(np.float64)


def _binary_freqs(numerator: float, n: int) -> np.ndarray:
    return numerator / 2.0 ** np.arange(1, n + 1, dtype=np.float64)


def candidates(omega: np.ndarray, sigma: np.ndarray) -> list[Candidate]:
    """Families and simple parameters consistent with the measured frequencies."""
    n = omega.size
    good = omega > 5 * sigma
    weights = np.where(good, (np.maximum(omega, 1e-300) / sigma) ** 2, 0.0)
    out: list[Candidate] = []
    if n == 1 or good.sum() < 2:
        w0 = float(omega[0])
        for score, c in nice(w0 * 2, pi_multiples=True):
            out.append(Candidate("binary", {"numerator": c}, score + 1,
                                  _binary_freqs(float(c), n)))
        for score, lo in nice(1 / w0) if w0 > 0 else []:
            out.append(Candidate("tensor2tensor", {"min_timescale": lo,
                                                    "max_timescale": lo * 10000},
                                  score + 1, _t2t_freqs(float(lo), float(lo) * 10000, n)))
        out.append(Candidate("geometric", {"base": sp.Integer(10000)}, 1,
                              _geometric_freqs(10000.0, n),
                              note="with a single measurable pair the base cannot be "
                                   "measured; 10000 assumed"))
        return out
    k = np.arange(n, dtype=np.float64)
    y = np.log(np.maximum(omega, 1e-300))
    sw = weights.sum()
    kbar, ybar = (weights * k).sum() / sw, (weights * y).sum() / sw
    slope = ((weights * (k - kbar) * (y - ybar)).sum()
             / max((weights * (k - kbar) ** 2).sum(), 1e-300))
    icpt = ybar - slope * kbar
    if slope >= 0:
        return out
    base = math.exp(-slope * n)
    for score, b in nice(base):
        if b > 1:
            out.append(Candidate("geometric", {"base": b}, score, _geometric_freqs(float(b), n)))
    for score, b2 in nice(base * base):
        b = sp.sqrt(b2)
        if b2 > 1 and not b.is_Rational:
            out.append(Candidate("geometric", {"base": b}, score + 1,
                                  _geometric_freqs(float(b), n),
                                  note=f"ω_k = {b2}^(−k/d): the exponent is over d, not n"))
    out.append(Candidate("geometric", {"base": _raw(base)}, 9, _geometric_freqs(base, n)))
    if n >= 2:
        lo = math.exp(-icpt)
        hi = lo * math.exp(-slope * (n - 1))
        los = [*nice(lo)[:3], (9, _raw(lo))]
        his = [*nice(hi)[:4], (9, _raw(hi))]
        for s1, lo_c in los:
            for s2, hi_c in his:
                if lo_c > 0 and hi_c > lo_c:
                    out.append(Candidate(
                        "tensor2tensor", {"min_timescale": lo_c, "max_timescale": hi_c},
                        max(s1, s2) + (s1 > 1), _t2t_freqs(float(lo_c), float(hi_c), n)))
    if abs(slope + math.log(2)) < 1e-3:
        for score, c in nice(2 * math.exp(icpt), pi_multiples=True)[:8]:
            out.append(Candidate("binary", {"numerator": c}, score,
                                  _binary_freqs(float(c), n)))
    return out


def screen(cands: list[Candidate], omega: np.ndarray, sigma: np.ndarray,
            eps: float) -> list[tuple[float, Candidate]]:
    out = []
    for c in cands:
        err = np.abs(c.omega - omega) / (10 * sigma + 2 * TOLERANCE * eps * c.omega + 1e-15)
        score = float(err.max())
        if score <= 1.0:
            out.append((score, c))
    out.sort(key=lambda sc: (sc[1].simplicity, sc[0]))
    return out


def first_row_offset(omega: np.ndarray, phase0: np.ndarray) -> float:
    """Position of the first fitted row from the phases, unwrapped slow → fast."""
    est: float | None = None
    for k in np.argsort(omega):
        w, psi = float(omega[k]), float(phase0[k])
        if w <= 0:
            continue
        if est is None:
            est = math.remainder(psi, 2 * math.pi) / w
        else:
            m = round((est * w - psi) / (2 * math.pi))
            est = (psi + 2 * math.pi * m) / w
    return 0.0 if est is None else est


# --------------------------------------------------------------------------- rebuilding
def fmt(value: sp.Expr) -> str:
    return str(value).replace("**", "^") if not value.is_Integer else str(value)


def preset_calls(family: str, params: dict[str, sp.Expr], layout: str, dim: int,
                  offset: int, zero_positions: list[int], pad: bool
                  ) -> list[tuple[str, dict[str, Any]]]:
    """(preset name, preset kwargs) that rebuild the table, best first."""
    extra: dict[str, Any] = {"odd_dim": "pad"} if pad else {}
    calls: list[tuple[str, dict[str, Any]]] = []
    if family == "geometric":
        base = params["base"]
        if layout == "split-cos":
            calls.append(("diffusion", {"max_period": base, "offset": offset}))
        calls.append(("vaswani", {"base": base, "offset": offset, **extra,
                                  **({} if layout == "interleaved" else {"layout": layout})}))
    elif family == "tensor2tensor":
        lo, hi = params["min_timescale"], params["max_timescale"]
        fairseq_like = lo == 1 and hi == 10000 and layout == "split" and dim >= 4
        if fairseq_like and zero_positions:
            calls.append(("fairseq", {"padding_idx": zero_positions[0]}))
        elif fairseq_like and offset >= 1:
            calls.append(("fairseq", {"padding_idx": offset - 1}))
        calls.append(("tensor2tensor", {"min_timescale": lo, "max_timescale": hi,
                                        "start_index": offset,
                                        **({} if layout == "split" else {"layout": layout})}))
    elif family == "binary":
        calls.append(("binary", {"numerator": params["numerator"], "offset": offset, **extra,
                                 **({} if layout == "interleaved" else {"layout": layout})}))
    return calls


def call_text(name: str, dim: int, kwargs: dict[str, Any]) -> str:
    shown = {k: v for k, v in kwargs.items()
             if not (k in ("offset", "start_index") and v == 0)}
    args = "".join(f", {k}={fmt(v) if isinstance(v, sp.Basic) else repr(v)}"
                   for k, v in shown.items())
    return f'preset("{name}", dim={dim}{args})'
