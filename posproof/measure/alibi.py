"""Numbers about an ALiBi bias: the check of a pairwise bias through its Toeplitz structure.

A Toeplitz (h, L, L) bias has only 2L − 1 distinct values per head, one per offset
Δ = i − j.  :func:`toeplitz_bias_check` asks a pairwise impl ``bias(q_positions,
k_positions) → (h, q, k)`` for its first column (Δ = 0 … L−1) and first row
(Δ = 0 … −(L−1)) only, compares these generators with the exact ``−m_h·Δ``, and then
then compares every entry of the L × L grid with the exact bias, in chunks of query rows
(never the whole L² matrix in memory); above :data:`EXHAUSTIVE_ENTRIES` entries it takes
evenly spaced whole rows and says it sampled.  :func:`dense_bias_check` is the naive
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

__all__ = ["AUDIT_ENTRIES", "EXHAUSTIVE_ENTRIES", "alibi_dtype_audit", "bias_tolerance",
           "dense_bias_check", "toeplitz_bias_check"]


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


#: Biases (heads × distances) the dtype audit scans one by one, per dtype.
AUDIT_ENTRIES = 1 << 26
#: Entries (heads × queries × keys) a pairwise check compares one by one; above it, whole
#: query rows are taken evenly spaced and the result says it is a sample.
EXHAUSTIVE_ENTRIES = 1 << 28
_CHUNK_ENTRIES = 1 << 22                     # one impl call: at most 4M values (32 MB)


def toeplitz_bias_check(impl: Callable[..., Any], slopes: np.ndarray, length: int, *,
                        max_entries: int | None = None, eps: float | None = None
                        ) -> dict[str, Any]:
    """Check ``impl(q_positions, k_positions)`` against −m_h·(i − j) on the L × L grid.

    Every entry is compared when heads·L² ≤ ``max_entries`` (row chunks, vectorised);
    otherwise evenly spaced whole query rows, and ``coverage`` says ``sample`` with
    ``entries_evaluated`` of ``entries_total``.  Returns ``status`` (``pass``/``fail``),
    ``score`` (worst error over tolerance on the 2L − 1 generators: the first column and
    row), ``toeplitz_score`` (worst over every entry compared, against the exact bias),
    and the ``worst`` entry (head, i, j, impl value, tolerance).
    """
    slopes = np.asarray(slopes, dtype=np.float64)
    heads = len(slopes)
    pos = np.arange(length)
    col, eps_c = _as_float(impl(pos, pos[:1]))            # (h, L, 1): Δ = i
    row, eps_r = _as_float(impl(pos[:1], pos))            # (h, 1, L): Δ = −j
    eps = eps if eps is not None else max(eps_c, eps_r)
    if col.shape != (heads, length, 1) or row.shape != (heads, 1, length):
        return {"status": "fail", "score": float("inf"), "toeplitz_score": float("inf"),
                "coverage": "all", "entries_evaluated": 0, "entries_total": 0,
                "note": f"impl returned shapes {col.shape} and {row.shape}; expected "
                        f"({heads}, q, k)"}
    gen = np.concatenate([row[:, 0, :0:-1], col[:, :, 0]], axis=1)   # Δ = −(L−1) … L−1
    delta = np.arange(-(length - 1), length)
    with np.errstate(invalid="ignore", over="ignore"):
        score = _worst(np.abs(gen - (-slopes[:, None] * delta[None, :])),
                       bias_tolerance(slopes, delta, eps))
    total = heads * length * length
    max_entries = EXHAUSTIVE_ENTRIES if max_entries is None else max_entries
    if total <= max_entries:
        rows, coverage = pos, "all"
    else:
        keep = max(1, max_entries // (heads * length))
        rows, coverage = np.unique(np.linspace(0, length - 1, keep).astype(np.int64)), "sample"
    step = max(1, _CHUNK_ENTRIES // (heads * length))
    tscore, worst = 0.0, {}
    for start in range(0, len(rows), step):
        qi = rows[start:start + step]
        vals, _ = _as_float(impl(qi, pos))
        if vals.shape != (heads, len(qi), length):
            return {"status": "fail", "score": score, "toeplitz_score": float("inf"),
                    "coverage": coverage, "entries_evaluated": 0, "entries_total": total,
                    "note": f"impl returned shape {vals.shape} for {len(qi)} queries and "
                            f"{length} keys; expected ({heads}, {len(qi)}, {length})"}
        d = qi[:, None] - pos[None, :]
        tol = bias_tolerance(slopes, d, eps)
        with np.errstate(invalid="ignore", over="ignore"):
            ratio = np.abs(vals - (-slopes[:, None, None] * d[None])) / tol
        ratio = np.where(np.isnan(ratio), np.inf, ratio)
        k = int(np.argmax(ratio))
        if ratio.flat[k] >= tscore or not worst:
            h, a, b = np.unravel_index(k, ratio.shape)
            tscore = float(ratio.flat[k])
            worst = {"head": int(h), "i": int(qi[a]), "j": int(b),
                     "impl": float(vals[h, a, b]), "tolerance": float(tol[h, a, b])}
    ok = score <= 1 and tscore <= 1
    evaluated = heads * length * len(rows)
    return {"status": "pass" if ok else "fail", "score": score, "toeplitz_score": tscore,
            "length": length, "heads": heads, "coverage": coverage,
            "entries_evaluated": evaluated, "entries_total": total, "worst": worst}


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


def alibi_dtype_audit(spec: Any, length: int, dtypes: Any = ("float32", "float16", "bfloat16"),
                      *, strict: Any = ()) -> Any:
    """How each dtype stores the bias −m_h·Δ for Δ = 0 … L−1: the first distance Δ whose
    bias rounds to the same value as Δ + 1 (the head can no longer tell them apart), the
    first overflow, and the largest relative rounding error, per head; a
    :class:`~posproof.report.Check` named ``dtype_audit``.

    The bias is the exact value m_h·Δ (in float64: m_h within one ulp, m_h·Δ within one
    more) rounded once to the dtype, as BLOOM and MPT form it in float32 and cast it; every
    Δ < L is scanned, so the numbers are exact for that rounding, not sampled.  It fails
    only for a dtype in ``strict`` (the ones a user declares to run in) that merges two
    distances below L or overflows; the others are reported.

    >>> from posproof.model.alibi import alibi
    >>> audit = alibi_dtype_audit(alibi(8), 4096, ["float32", "bfloat16"])
    >>> audit.status, audit.values["dtypes"]["bfloat16"]["first_merged_distance"]
    ('pass', 256)
    >>> alibi_dtype_audit(alibi(8), 4096, ["bfloat16"], strict=["bfloat16"]).status
    'fail'
    """
    from ..audit import apply
    from ..errors import InvalidParameter, check_int
    from ..evidence import Evidence
    from ..model.encoding import resolve_dtype
    from ..report import Check

    length = check_int("length", length, minimum=2, maximum=1 << 22)   # bounded time and memory
    if spec.n_heads * length > AUDIT_ENTRIES:
        raise InvalidParameter(f"{spec.n_heads} heads × length {length} = "
                               f"{spec.n_heads * length} biases is more than the dtype audit "
                               f"scans (2^26, every Δ of every head); pass a length of at most "
                               f"{AUDIT_ENTRIES // spec.n_heads}")
    slopes = spec.slopes_array()
    delta = np.arange(length, dtype=np.float64)
    out: dict[str, Any] = {}
    failed = []
    for name in dtypes:
        dtype = resolve_dtype(name)
        merged = overflow = None
        worst = 0.0
        per_head = []
        for m in slopes:
            exact = m * delta
            with np.errstate(over="ignore"):
                stored = exact.astype(dtype)
            wide = stored.astype(np.float64)
            finite = np.isfinite(wide)
            inf = int(np.argmin(finite)) if not finite.all() else None
            same = np.flatnonzero(wide[1:] == wide[:-1])
            first = int(same[0]) if same.size else None
            rel = np.abs(wide[finite][1:] - exact[finite][1:]) / exact[finite][1:]
            worst = max(worst, float(rel.max()) if rel.size else 0.0)
            per_head.append(first)
            merged = first if merged is None or (first is not None and first < merged) else merged
            overflow = inf if overflow is None or (inf is not None and inf < overflow) else overflow
        out[str(name)] = {"first_merged_distance": merged, "first_overflow": overflow,
                          "max_relative_error": worst, "first_merged_per_head": per_head}
        if str(name) in {str(s) for s in strict} and (merged is not None or overflow is not None):
            failed.append(str(name))
    parts = []
    for name, v in out.items():
        first = v["first_merged_distance"]
        text = (f"{name}: distances merge from Δ={first}" if first is not None
                else f"{name}: every Δ < {length} distinct")
        if v["first_overflow"] is not None:
            text += f", overflows at Δ={v['first_overflow']}"
        parts.append(text)
    note = "; ".join(parts)
    if failed:
        note = (f"{', '.join(failed)} cannot tell every distance below L={length} apart (" + note
                + ")")
    evidence = Evidence("exhaustive comparison", "all",
                        details={"heads": len(slopes), "distances": length,
                                 "biases_scanned": len(slopes) * length * len(out)},
                        unaudited="each bias rounded once to the dtype by NumPy and compared "
                        "exactly with its neighbours and the dtype's largest value")
    return apply(Check("dtype_audit", "fail" if failed else "pass",
                       {"length": length, "dtypes": out},
                       certified=f"every Δ < {length} scanned: the exact bias m_h·Δ (float64) "
                                 "rounded once to the dtype", note=note, evidence=evidence))
