"""The working precision and the constant scale of a table, read from its values.

:func:`posproof.testing.identification` matches a table at the noise level of its dtype.  A
table computed in float32 and stored as float64 (``np.asarray(t, dtype=float)``,
``.double()``), or in bfloat16 / float16 and stored as float32, carries the
noise of the narrower dtype; a table multiplied by a constant (x-transformers'
scaled sinusoidal embedding, 1/√d; the √d scale of tutorials) has
sin² + cos² = s² instead of 1.  Both are read from the (sin, cos) pairs:

- the scale ``s`` is the common radius √(sin² + cos²) of the pairs of one
  pairing of the columns, when that radius is the same for every pair and
  row (to the precision below), snapped to a simple form (``1/√256``, ``√512``,
  ``0.0625``) when the data allow it;
- the precision is the narrowest dtype whose noise explains both the spread
  of sin² + cos² − s² over the pairs (the rounding of the stored values) and
  the error of the phases around a straight line in the position (the
  rounding of the angles, which grows with |x·ω|).

Neither is a verdict: identify re-runs its whole validation (every row
within the tolerance of the estimated dtype) on the rescaled table, so a
wrong estimate can only lose a match, never make one.

>>> import posproof
>>> t = posproof.preset("vaswani", dim=16).table(200)
>>> estimate(t.astype(np.float32).astype(np.float64), "float64")
Estimate(scale=1.0, scale_text=None, precision='float32')
>>> estimate(t / 16, "float64")
Estimate(scale=0.0625, scale_text='0.0625 = 1/√256', precision=None)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["Estimate", "estimate", "scale_text"]

#: Working precisions identify tries, most precise first.
_PRECISIONS = {"float64": 2.0**-52, "float32": 2.0**-23, "float16": 2.0**-10,
               "bfloat16": 2.0**-7}

#: sin² + cos² − s² and the relative phase error stay within this many eps of the working
#: precision (rounding to nearest moves either by at most about one eps).
_NORM_ULPS = 3.0

#: The phase error relative to 1 + |phase| stays within this many eps (the fit's own
#: rounding adds a few eps64; angles formed in the dtype add up to eps/2 of |x·ω|).
_ANGLE_ULPS = 16.0


@dataclass(frozen=True)
class Estimate:
    """The scale ``s`` of a table (1.0 when none) and its working precision (None: its dtype)."""

    scale: float
    scale_text: str | None
    precision: str | None


def scale_text(s: float, rel: float) -> tuple[float, str]:
    """``s`` snapped to a simple form within relative ``rel`` (1/√k, √k, a fraction p/q
    with q < 4096), and its text.

    >>> scale_text(0.0625, 1e-12)
    (0.0625, '0.0625 = 1/√256')
    >>> scale_text(math.sqrt(512) * (1 + 1e-9), 1e-7)[1]
    '22.627417 = √512'
    >>> scale_text(0.3, 1e-12)
    (0.3, '0.3')
    """
    for k, text in ((round(1 / (s * s)), "1/√{}"), (round(s * s), "√{}")):
        if k < 2:
            continue
        value = 1 / math.sqrt(k) if text.startswith("1/") else math.sqrt(k)
        if abs(s - value) <= rel * value:
            root = math.isqrt(k)
            if root * root == k:
                value = 1 / root if text.startswith("1/") else float(root)
            return value, f"{value:.8g} = {text.format(k)}"
    for q in range(1, 1 << 12):
        p = round(s * q)
        if p and abs(s * q - p) <= rel * s * q:
            return p / q, f"{p / q:.8g}"
    return s, f"{s:.8g}"


def estimate(arr: np.ndarray, dtype: str, pairings: list[tuple[str, np.ndarray, np.ndarray]]
             | None = None) -> Estimate:
    """Scale and working precision of ``arr`` (float64, rows at consecutive positions)."""
    if pairings is None:
        n = arr.shape[1] // 2
        k = np.arange(n)
        pairings = [("adjacent", 2 * k, 2 * k + 1), ("halves", k, n + k)]
    stored = _PRECISIONS.get(dtype, 2.0**-52)
    rows = arr[np.flatnonzero(np.abs(arr).max(axis=1) > 0)][:512]
    if rows.shape[0] < 4:
        return Estimate(1.0, None, None)
    best: Estimate | None = None
    for _, first, second in pairings:
        if first.size == 0 or second.max(initial=0) >= arr.shape[1]:
            continue
        r2 = rows[:, first] ** 2 + rows[:, second] ** 2
        s2 = float(np.median(r2))
        if not s2 > 0 or not math.isfinite(s2):
            continue
        spread = float(np.abs(r2 / s2 - 1).max())
        precision = _narrowest(spread, stored, _angle_noise(rows / math.sqrt(s2), first,
                                                             second))
        if precision is None:
            continue
        eps = _PRECISIONS[precision]
        s = math.sqrt(s2)
        if abs(s - 1) <= _NORM_ULPS * eps:
            found = Estimate(1.0, None, None if precision == dtype else precision)
        else:
            value, text = scale_text(s, 4 * _NORM_ULPS * eps)
            found = Estimate(value, text, None if precision == dtype else precision)
        if best is None or _PRECISIONS[found.precision or dtype] < _PRECISIONS[
                best.precision or dtype]:
            best = found
    return best or Estimate(1.0, None, None)


def _angle_noise(unit: np.ndarray, first: np.ndarray, second: np.ndarray) -> float:
    """Largest error of the phases around a straight line in the row, relative to
    1 + |phase| (the rounding of angles formed in a narrow dtype grows with |x·ω|)."""
    z = unit[:, second] + 1j * unit[:, first]
    step = np.angle(np.sum(z[1:] * np.conj(z[:-1]), axis=0))
    m = z.shape[0]
    rows = np.arange(m, dtype=np.float64)
    rot = z * np.exp(-1j * np.multiply.outer(rows, step))
    rho = np.angle(rot * np.conj(rot.mean(axis=0) / np.maximum(np.abs(rot.mean(axis=0)),
                                                                 1e-300)))
    xc = rows - rows.mean()
    beta = (xc[:, None] * rho).sum(axis=0) / float((xc * xc).sum())
    resid = rho - rho.mean(axis=0) - np.multiply.outer(xc, beta)
    span = 1.0 + np.abs(np.multiply.outer(rows + 1, step + beta))
    return float(np.abs(resid / span).max())


def _narrowest(spread: float, stored: float, angle: float) -> str | None:
    """The most precise dtype, no finer than ``stored``, whose noise covers both errors."""
    for name, eps in _PRECISIONS.items():
        if eps >= stored and spread <= _NORM_ULPS * eps and angle <= _ANGLE_ULPS * eps:
            return name
    return None
