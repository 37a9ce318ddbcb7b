"""Numbers about an ALiBi bias: the check of a pairwise bias through its Toeplitz structure.

A Toeplitz (h, L, L) bias has only 2L − 1 distinct values per head, one per offset
Δ = i − j.  :func:`toeplitz_bias_check` asks a pairwise impl ``bias(q_positions,
k_positions) → (h, q, k)`` for its first column (Δ = 0 … L−1) and first row
(Δ = 0 … −(L−1)) only, compares these generators with the exact ``−m_h·Δ``, and then
probes the Toeplitz property of the impl on random blocks (each entry against the
generator of its offset): never the L² matrix.  :func:`dense_bias_check` is the naive
baseline (materialise everything), for the bench and for small tensors.

The comparison: |impl − (−m_h·Δ)| ≤ (8 + 2n)·eps_dtype·(|m_h·Δ| + m_h), with the exact side in
float64 (m_h = 2^(−e_h) within one float64 ulp, far below any tolerance used).

>>> import numpy as np
>>> m = np.array([0.5, 0.25])
>>> f = lambda q, k: -m[:, None, None] * (np.asarray(q)[:, None] - np.asarray(k)[None, :])
>>> toeplitz_bias_check(f, m, 64)["status"]
'pass'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["bias_tolerance", "dense_bias_check", "toeplitz_bias_check"]


def bias_tolerance(slopes: np.ndarray, delta: np.ndarray, eps: float) -> np.ndarray:
    """c·eps·(|m·Δ| + m), c = 8 + 2n (n heads: float32 slopes formed as base^k, k ≤ n, carry
    up to k rounding errors, as HF BLOOM's do), broadcast over (heads, …) × offsets."""
    m = np.abs(slopes).reshape((-1,) + (1,) * np.ndim(delta))
    return (8 + 2 * len(m)) * eps * (m * np.abs(delta) + m)


def _as_float(values: Any) -> tuple[np.ndarray, float]:
    if hasattr(values, "detach"):
        values = values.detach().cpu().double().numpy()
        return values, 2.0 ** -23
    arr = np.asarray(values)
    eps = float(np.finfo(arr.dtype).eps) if arr.dtype.kind == "f" else 2.0 ** -52
    return arr.astype(np.float64), eps


def _worst(err: np.ndarray, tol: np.ndarray) -> float:
    return float(np.max(err / tol)) if err.size else 0.0


def toeplitz_bias_check(impl: Callable[..., Any], slopes: np.ndarray, length: int, *,
                        blocks: int = 16, block: int = 64, seed: int = 0,
                        eps: float | None = None) -> dict[str, Any]:
    """Check ``impl(q_positions, k_positions)`` against −m_h·(i − j) on an L × L grid.

    Returns a dict with ``status`` (``pass``/``fail``), ``score`` (worst error over
    tolerance on the 2L − 1 generators), ``toeplitz_score`` (the same on the sampled
    blocks), the ``entries_evaluated`` and the ``worst`` (head, i, j).
    """
    slopes = np.asarray(slopes, dtype=np.float64)
    pos = np.arange(length)
    col, eps_c = _as_float(impl(pos, pos[:1]))            # (h, L, 1): Δ = i
    row, eps_r = _as_float(impl(pos[:1], pos))            # (h, 1, L): Δ = −j
    eps = eps if eps is not None else max(eps_c, eps_r)
    if col.shape != (len(slopes), length, 1) or row.shape != (len(slopes), 1, length):
        return {"status": "fail", "score": float("inf"),
                "note": f"impl returned shapes {col.shape} and {row.shape}; expected "
                        f"({len(slopes)}, q, k)"}
    gen = np.concatenate([row[:, 0, :0:-1], col[:, :, 0]], axis=1)   # Δ = −(L−1) … L−1
    delta = np.arange(-(length - 1), length)
    exact = -slopes[:, None] * delta[None, :]
    err = np.abs(gen - exact)
    tol = bias_tolerance(slopes, delta, eps)
    score = _worst(err, tol)
    h, k = np.unravel_index(int(np.argmax(err / tol)), err.shape)
    worst = {"head": int(h), "delta": int(delta[k]), "impl": float(gen[h, k]),
             "exact": float(exact[h, k])}
    rng = np.random.default_rng(seed)
    tscore = 0.0
    b = min(block, length)
    for _ in range(blocks):
        qi = rng.integers(0, length - b + 1) + np.arange(b)
        kj = rng.integers(0, length - b + 1) + np.arange(b)
        vals, _ = _as_float(impl(qi, kj))
        d = qi[:, None] - kj[None, :]
        ref = gen[:, d + length - 1]
        tscore = max(tscore, _worst(np.abs(vals - ref),
                                    bias_tolerance(slopes, d, eps)))
    ok = score <= 1 and tscore <= 1
    return {"status": "pass" if ok else "fail", "score": score, "toeplitz_score": tscore,
            "length": length, "heads": len(slopes),
            "entries_evaluated": len(slopes) * (2 * length + blocks * b * b),
            "entries_covered": len(slopes) * length * length, "worst": worst}


def dense_bias_check(values: Any, slopes: np.ndarray, *, causal_only: bool = False,
                     eps: float | None = None) -> dict[str, Any]:
    """The naive check: a materialised (h, q, k) bias against −m_h·(i − j), entry by entry.

    >>> m = np.array([0.5])
    >>> dense_bias_check(-m[:, None, None] * (np.arange(4)[:, None] - np.arange(4)), m)["status"]
    'pass'
    """
    arr, eps_v = _as_float(values)
    eps = eps if eps is not None else eps_v
    slopes = np.asarray(slopes, dtype=np.float64)
    _, q, k = arr.shape
    delta = np.arange(q)[:, None] - np.arange(k)[None, :]
    exact = -slopes[:, None, None] * delta[None]
    err = np.abs(arr - exact)
    if causal_only:
        err = np.where(delta[None] >= 0, err, 0.0)
    score = _worst(err, bias_tolerance(slopes, delta, eps))
    return {"status": "pass" if score <= 1 else "fail", "score": score,
            "entries_evaluated": int(arr.size)}
