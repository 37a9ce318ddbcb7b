"""Whether a table's Gram matrix is Toeplitz (depends on i − j only), within a tolerance that
follows the table's dtype and size.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..errors import InvalidParameter
from .dtypes import U

__all__ = [
    "gram_is_toeplitz",
    "toeplitz_deviation",
]


def toeplitz_deviation(table: Any) -> float:
    """max |G[i, j] − G[i+1, j+1]| of the Gram matrix G = table·tableᵀ.

    ``table`` has shape ``(n_positions, dim)`` and any float dtype; the Gram
    matrix is formed in float64.  Zero exactly when G depends on i − j only.

    >>> toeplitz_deviation(np.eye(3))
    0.0
    """
    t = _as_table(table)
    gram = t @ t.T
    if gram.shape[0] < 2:
        return 0.0
    return float(np.abs(gram[1:, 1:] - gram[:-1, :-1]).max())


def gram_is_toeplitz(table: Any, tol: float | None = None) -> bool:
    """Whether the Gram matrix of ``table`` (shape ``(n_positions, dim)``) is Toeplitz.

    True when :func:`toeplitz_deviation` ≤ ``tol``.  The default tolerance
    scales with the table's dtype and size:
    ``R·(4·eps_dtype + 4·(dim + n_positions)·u)`` with R the largest squared
    row norm — rounding of the entries, of the float64 dot products, and of
    angles x·ω for positions up to about n_positions.  Tables at large
    positions (angles ≫ n_positions) need an explicit ``tol`` of about
    ``4·dim·u·max|x·ω|``.

    >>> from posproof import preset
    >>> gram_is_toeplitz(preset("vaswani", dim=16).table(64))
    True
    >>> gram_is_toeplitz(preset("sine-only", dim=16).table(64))
    False
    """
    t = _as_table(table)
    if tol is None:
        eps = _eps_of(np.asarray(table).dtype)
        with np.errstate(over="ignore"):
            rows = float((t * t).sum(axis=1).max()) if t.size else 0.0
        if not math.isfinite(rows):
            raise InvalidParameter(f"table entries up to {float(np.abs(t).max()):.3g}: their "
                                   "squared row norms overflow float64; pass a table of an "
                                   "encoding's scale (or an explicit tol)")
        tol = rows * (4 * eps + 4 * (t.shape[1] + t.shape[0]) * U)
    else:
        tol = float(tol)
        if not (math.isfinite(tol) and tol >= 0):
            raise InvalidParameter(f"tol={tol!r} is not a finite number ≥ 0")
    return toeplitz_deviation(t) <= tol


def _as_table(table: Any) -> np.ndarray:
    try:
        raw = np.asarray(table)
        if raw.dtype.kind == "c":
            raise TypeError("complex")
        t = raw.astype(np.float64)
    except (TypeError, ValueError):
        raise InvalidParameter(
            f"table of type {type(table).__name__} is not numeric or is complex; pass a real "
            "array of shape (n_positions, dim)") from None
    if t.ndim != 2:
        raise InvalidParameter(
            f"table has shape {t.shape}; pass a 2-d array of shape (n_positions, dim)")
    if not np.all(np.isfinite(t)):
        raise InvalidParameter("table holds NaN or infinite values; pass a finite table")
    return t


def _eps_of(dtype: np.dtype) -> float:
    """Machine epsilon of a float dtype (bfloat16 too); u for integers (cast exactly)."""
    if dtype.kind == "f":
        return float(np.finfo(dtype).eps)
    if dtype.name == "bfloat16":
        import ml_dtypes

        return float(ml_dtypes.finfo(dtype).eps)
    return U
