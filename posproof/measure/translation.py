"""The translation T(Δ) applied numerically: its blocks, rows moved pair by pair, the dense
matrix (small dims only) and the residual of PE(x + Δ) = PE(x)·T(Δ) with its float64 tolerance.
"""

from __future__ import annotations

import math  # noqa: F401 (the doctests use it)
from collections.abc import Sequence
from typing import Any

import numpy as np
import sympy as sp

from ..errors import InvalidEncoding, InvalidParameter, UnknownName
from ..model.encoding import Encoding
from .dtypes import TRIG_ULPS, U
from .lambdified import finite_positions, lambdify_encoding, lambdify_pair

__all__ = [
    "MAX_DENSE_DIM",
    "apply_translation",
    "pair_frequencies",
    "rotate_pairs",
    "translation_blocks",
    "translation_matrix",
    "translation_residual",
]


def pair_frequencies(encoding: Encoding) -> list[sp.Expr]:
    """The exact frequency of each (sin, cos) pair; refuse encodings without pairs."""
    problems = encoding.broken_pairs()
    if not problems and encoding.n_pairs == 0:
        problems = [f"dim={encoding.dim} holds no (sin, cos) pair"]
    if problems:
        raise InvalidEncoding(
            f"{encoding.name}: the dot-product theorem needs (sin, cos) pairs of one frequency, "
            f"and {problems[0]}; numeric kernel checks do not apply")
    return [encoding.frequencies[encoding.column_freq_index[s]] for s, _ in encoding.pairs]


#: Largest dim for which :func:`translation_matrix` forms the dense dim × dim T(Δ)
#: (128 MiB of float64); numeric code applies T blockwise (:func:`apply_translation`).
MAX_DENSE_DIM = 4096


def translation_blocks(encoding: Encoding, delta: float) -> tuple[np.ndarray, np.ndarray]:
    """sin(ω_k Δ) and cos(ω_k Δ) per pair: the n blocks of T(Δ), O(d) numbers.

    >>> s, c = translation_blocks(Encoding(Geometric(10000), "interleaved", 4), math.pi / 2)
    >>> s.round(3).tolist(), c.round(3).tolist()
    ([1.0, 0.016], [0.0, 1.0])
    """
    pair_frequencies(encoding)
    pairs = np.asarray(encoding.pairs, dtype=np.int64).reshape(-1, 2)
    omega = encoding.column_frequencies_float[pairs[:, 0]]
    sc = lambdify_pair()(float(delta), omega)                  # (n, 2): sin, cos
    return sc[:, 0], sc[:, 1]


def rotate_pairs(encoding: Encoding, rows: Any, sin: Any, cos: Any) -> np.ndarray:
    """``rows · T`` for the block-diagonal T with pair k's block built from ``sin[k]``, ``cos[k]``.

    Row convention, as :func:`translation_matrix`: the sin column s and the cos
    column c of pair k become ``row_s·cos + row_c·sin`` and
    ``row_c·cos − row_s·sin``; columns outside the pairs (padding) are kept.
    O(rows · d) time and memory: T is never formed.  ``rows`` has shape
    ``(..., dim)``.

    >>> enc = Encoding(Geometric(10000), "split", 4)
    >>> rows = np.arange(8.0).reshape(2, 4)
    >>> s, c = translation_blocks(enc, 0.7)
    >>> bool(np.allclose(rotate_pairs(enc, rows, s, c), rows @ translation_matrix(enc, 0.7)))
    True
    """
    rows = np.asarray(rows, dtype=np.float64)
    pairs = np.asarray(encoding.pairs, dtype=np.int64).reshape(-1, 2)
    s_col, c_col = pairs[:, 0], pairs[:, 1]
    out = rows.copy()
    rs, rc = rows[..., s_col], rows[..., c_col]
    out[..., s_col] = rs * cos + rc * sin
    out[..., c_col] = rc * cos - rs * sin
    return out


def apply_translation(encoding: Encoding, rows: Any, delta: float, convention: str = "row"
                      ) -> np.ndarray:
    """``rows · T(Δ)`` in O(rows · d), for T(Δ) in the given convention (never formed).

    With the row convention, ``apply_translation(enc, enc.table([x]), Δ)`` is
    the row PE(x + Δ) up to rounding; the column convention's T(Δ) is the
    transpose, so ``rows · T_column(Δ) = rows · T_row(−Δ)``.

    >>> enc = Encoding(Geometric(10000), "interleaved", 8)
    >>> moved = apply_translation(enc, enc.table([3]), 4.0)
    >>> bool(np.allclose(moved, enc.table([7])))
    True
    """
    if convention not in ("row", "column"):
        raise UnknownName(f"convention={convention!r} is not known; use 'row' or 'column'")
    sin, cos = translation_blocks(encoding, delta)
    return rotate_pairs(encoding, rows, sin if convention == "row" else -sin, cos)


def translation_matrix(encoding: Encoding, delta: float, convention: str = "row") -> np.ndarray:
    """The numeric T(Δ), shape ``(dim, dim)``, built blockwise from the frequencies.

    Row convention: PE(x+Δ) = PE(x)·T(Δ); column convention: the transpose.
    Each block is the lambdified pair at (Δ, ω_k) placed at the layout's
    (sin, cos) columns, as in :meth:`Encoding.translation`; padding columns
    carry 1 on the diagonal.  The matrix is dense (dim² numbers): it is
    refused above ``dim`` = :data:`MAX_DENSE_DIM`; to move rows, use
    :func:`apply_translation`, which never forms it.

    >>> translation_matrix(Encoding(Geometric(10000), "interleaved", 2), math.pi / 2).round(12)
    array([[ 0., -1.],
           [ 1.,  0.]])
    """
    if convention not in ("row", "column"):
        raise UnknownName(f"convention={convention!r} is not known; use 'row' or 'column'")
    if encoding.dim > MAX_DENSE_DIM:
        raise InvalidParameter(
            f"translation_matrix: dim={encoding.dim} exceeds {MAX_DENSE_DIM}, the largest dense "
            f"dim × dim T(Δ) formed; use apply_translation(encoding, rows, delta), which applies "
            "T(Δ) pair by pair")
    sin, cos = translation_blocks(encoding, delta)
    out = rotate_pairs(encoding, np.eye(encoding.dim), sin, cos)
    return out if convention == "row" else out.T.copy()


def translation_residual(encoding: Encoding, x: Sequence[int], delta: Sequence[int]
                         ) -> tuple[np.ndarray, np.ndarray]:
    """Per-column ``|table(x+Δ) − table(x)·T(Δ)|`` and the float64 tolerance for it.

    Both results have shape ``(len(x), dim)``.  The tolerance follows the
    rounding of the angles (each angle x·ω is formed in float64 with error
    ≤ 2u|xω|, the frequencies themselves being rounded) and of sin, cos and
    the two-term products:
    ``4u(|(x+Δ)ω| + 2|xω| + 2|Δω|) + 16t``.

    >>> enc = Encoding(Geometric(10000), "interleaved", 8)
    >>> res, tol = translation_residual(enc, [10**6], [12345])
    >>> bool((res <= tol).all()), res.shape
    (True, (1, 8))
    """
    xs = np.asarray(x, dtype=np.float64).reshape(-1)
    ds = np.asarray(delta, dtype=np.float64).reshape(-1)
    if xs.shape != ds.shape:
        raise InvalidParameter(f"x has {xs.size} positions and delta {ds.size}; pass as many")
    finite_positions(xs)
    finite_positions(ds)
    pe = lambdify_encoding(encoding)
    freq = np.abs(encoding.column_frequencies_float)
    moved, base = pe(xs + ds), pe(xs)
    res = np.empty_like(moved)
    for i, d in enumerate(ds):
        res[i] = np.abs(moved[i] - apply_translation(encoding, base[i], d))
    t = TRIG_ULPS * U
    tol = (4 * U * (np.abs(xs + ds)[:, None] * freq + 2 * np.abs(xs)[:, None] * freq
                    + 2 * np.abs(ds)[:, None] * freq) + 16 * t)
    return res, tol
