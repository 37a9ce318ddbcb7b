"""Numbers about an ALiBi bias: the check of a pairwise bias through its Toeplitz structure.

A Toeplitz (h, L, L) bias has only 2L − 1 distinct values per head, one per offset
Δ = i − j.  :func:`toeplitz_bias_check` asks a pairwise impl ``bias(q_positions,
k_positions) → (h, q, k)`` for its first column (Δ = 0 … L−1) and first row
(Δ = 0 … −(L−1)) only, compares these generators with the exact ``−m_h·Δ``, and then
then compares every entry of the L × L grid with the exact bias, in chunks of query rows
(never the whole L² matrix in memory); above :data:`EXHAUSTIVE_ENTRIES` entries it takes
evenly spaced whole rows and says it sampled.  :func:`dense_bias_check` is the naive
baseline (materialise everything), for the bench and for small tensors.

The comparison: |impl − (−m_h·Δ)| within the bound of a :class:`RoundingModel` (slopes formed
in the dtype by the rule, multiplied by Δ), with the exact side in float64 (m_h = 2^(−e_h)
within one float64 ulp: three roundings of 2^(−53), part of the bound).

>>> import numpy as np
>>> m = np.array([0.5, 0.25])
>>> f = lambda q, k: -m[:, None, None] * (np.asarray(q)[:, None] - np.asarray(k)[None, :])
>>> toeplitz_bias_check(f, m, 64)["status"]
'pass'
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

__all__ = ["AUDIT_ENTRIES", "EXHAUSTIVE_ENTRIES", "RoundingModel", "alibi_dtype_audit",
           "bias_tolerance", "dense_bias_check", "toeplitz_bias_check"]


#: Significand bits (with the implicit one) and the smallest subnormal's exponent per dtype.
_FORMATS = {"float64": (53, -1074), "float32": (24, -149), "float16": (11, -24),
            "bfloat16": (8, -133)}
#: Roundings of the float64 reference −m·Δ the check computes (m within one float64 ulp of
#: 2^(−e), the product and the difference rounded once each).
REFERENCE_ROUNDINGS = 3


def _representable(x: Fraction, bits: int) -> bool:
    """Whether the rational ``x`` is a float with ``bits`` significand bits (range ignored)."""
    if x == 0:
        return True
    d = x.denominator
    if d & (d - 1):
        return False
    n = abs(x.numerator)
    while n % 2 == 0:
        n //= 2
    return n.bit_length() <= bits


@dataclass(frozen=True)
class RoundingModel:
    """How a correct impl computes the bias, and the error that computation can make.

    The model: the slope of head h formed in ``dtype`` by its rule with at most
    ``slope_k[h]`` roundings (each a relative error ≤ u = 2^(−p)), then multiplied by the
    integer offset Δ in ``dtype`` (one more rounding); a bias formed in float32 and cast to a
    narrower dtype errs less than this.  So an entry's error is at most

        |impl − (−m·Δ)| ≤ ((1 + u)^k_h − 1)·|m·Δ| + k_h·(η/2)·(1 + |Δ|) + 3·2^(−53)·|m·Δ|

    with k_h = slope_k[h] + 1 (``k``), η the dtype's smallest subnormal (underflow) and the
    last term the float64 reference's own rounding.  ``slope_k``: 3 (the final rounding, a
    pow/exp2 within one more ulp, a reciprocal) plus, when the rule's base 2^(−8/2^⌊log2 n⌋)
    (or 2^(−4/…)) is not a float, the power it is raised to (BLOOM's ``torch.pow(base, k)``,
    the paper's ``start·ratio^i``), or, when the exponent e is not a float, ⌈2·ln2·e⌉ (an
    exponent formed with two roundings, then 2^(−e)): the larger of the two.

    >>> from posproof.model.alibi import alibi
    >>> RoundingModel.of(alibi(8), "float32").k            # base 1/2: exact powers
    (4, 4, 4, 4, 4, 4, 4, 4)
    >>> RoundingModel.of(alibi(64), "float16").k[-1]         # base 2^(−1/8) raised to 64
    68
    """

    dtype: str
    u: Fraction
    eta: Fraction
    slope_k: tuple[int, ...]
    rule: str = "reference"

    @property
    def k(self) -> tuple[int, ...]:
        return tuple(s + 1 for s in self.slope_k)

    @classmethod
    def of(cls, spec: Any, dtype: str) -> RoundingModel:
        bits, subnormal = _FORMATS.get(dtype, _FORMATS["float64"])
        n = spec.n_heads
        low = 1 << (n.bit_length() - 1)
        out = []
        for h, e in enumerate(spec.exponents):
            e = Fraction(e)
            if spec.rule == "reference":
                power, unit = (h + 1, Fraction(8, low)) if h < low else (
                    2 * (h - low) + 1, Fraction(4, low))
            else:
                q = 1 << (n - 1).bit_length()
                power, unit = 1, Fraction(spec.alibi_bias_max) / q
            pow_term = power if spec.rule == "reference" and unit.denominator != 1 else 0
            exp_term = (0 if _representable(e, bits) and _representable(unit, bits)
                        else math.ceil(2 * math.log(2) * float(e)) + 1)
            out.append(3 + max(pow_term, exp_term))
        return cls(dtype if dtype in _FORMATS else "float64", Fraction(1, 1 << bits),
                   Fraction(1, 1 << -subnormal), tuple(out), spec.rule)

    def relative(self, slope_only: bool = False) -> np.ndarray:
        """γ_h = (1 + u)^k_h − 1 per head (rounded up), plus the reference's rounding."""
        ks = self.slope_k if slope_only else self.k
        return np.array([float((1 + self.u) ** k - 1) * (1 + 2.0 ** -40)
                         + REFERENCE_ROUNDINGS * 2.0 ** -53 for k in ks])

    def tolerance(self, slopes: np.ndarray, delta: Any, slope_only: bool = False) -> np.ndarray:
        """The bound of every entry, broadcast over (heads, …) × offsets (``delta``)."""
        shape = (-1,) + (1,) * np.ndim(delta)
        m = np.abs(np.asarray(slopes, dtype=np.float64)).reshape(shape)
        ks = np.array(self.slope_k if slope_only else self.k, dtype=np.float64).reshape(shape)
        d = np.abs(np.asarray(delta, dtype=np.float64))
        return self.relative(slope_only).reshape(shape) * m * d + ks * float(self.eta) / 2 * (
            1 + d)

    def text(self, slope_only: bool = False) -> str:
        """The model as stated in a report (``slope_only``: for a slopes vector)."""
        ks = sorted(set(self.slope_k if slope_only else self.k))
        span = f"{ks[0]}" if len(ks) == 1 else f"{ks[0]}…{ks[-1]} by head"
        p = self.u.denominator.bit_length() - 1
        if slope_only:
            return (f"slopes formed in {self.dtype} by the {self.rule} rule: |error| ≤ "
                    f"((1 + u)^k − 1)·m + k·η, u = 2^−{p}, k = {span}")
        return (f"slopes formed in {self.dtype} by the {self.rule} rule, multiplied by Δ in "
                f"{self.dtype}: |error| ≤ ((1 + u)^k − 1)·|m·Δ| + k·η/2·(1 + |Δ|), u = 2^−{p}, "
                f"k = {span}")

    def to_dict(self) -> dict[str, Any]:
        return {"model": self.text(), "dtype": self.dtype, "u": str(self.u),
                "eta": str(self.eta), "k": list(self.k), "slope_k": list(self.slope_k),
                "reference_roundings": f"{REFERENCE_ROUNDINGS}·2^-53"}


def bias_tolerance(slopes: np.ndarray, delta: np.ndarray, eps: float) -> np.ndarray:
    """The legacy c·eps·(|m·Δ| + m), c = 8 + 2n: kept for :func:`dense_bias_check` (the naive
    baseline of the bench); the checks use :class:`RoundingModel`."""
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
                        max_entries: int | None = None, eps: float | None = None,
                        tolerance: Callable[[np.ndarray], np.ndarray] | None = None
                        ) -> dict[str, Any]:
    """Check ``impl(q_positions, k_positions)`` against −m_h·(i − j) on the L × L grid.

    Every entry is compared when heads·L² ≤ ``max_entries`` (row chunks, vectorised);
    otherwise evenly spaced whole query rows, and ``coverage`` says ``sample`` with
    ``entries_evaluated`` of ``entries_total``.  Returns ``status`` (``pass``/``fail``),
    ``score`` (worst error over tolerance on the 2L − 1 generators: the first column and
    row), ``toeplitz_score`` (worst over every entry compared, against the exact bias),
    and the ``worst`` entry (head, i, j, impl value, tolerance).  ``tolerance(Δ)``: the
    bound of every entry, (heads, …) × offsets (a :meth:`RoundingModel.tolerance`); by
    default the legacy :func:`bias_tolerance` at ``eps``.
    """
    slopes = np.asarray(slopes, dtype=np.float64)
    heads = len(slopes)
    pos = np.arange(length)
    col, eps_c = _as_float(impl(pos, pos[:1]))            # (h, L, 1): Δ = i
    row, eps_r = _as_float(impl(pos[:1], pos))            # (h, 1, L): Δ = −j
    eps = eps if eps is not None else max(eps_c, eps_r)
    if tolerance is None:
        def tolerance(d: np.ndarray) -> np.ndarray:
            return bias_tolerance(slopes, d, eps)
    if col.shape != (heads, length, 1) or row.shape != (heads, 1, length):
        return {"status": "fail", "score": float("inf"), "toeplitz_score": float("inf"),
                "coverage": "all", "entries_evaluated": 0, "entries_total": 0,
                "note": f"impl returned shapes {col.shape} and {row.shape}; expected "
                        f"({heads}, q, k)"}
    gen = np.concatenate([row[:, 0, :0:-1], col[:, :, 0]], axis=1)   # Δ = −(L−1) … L−1
    delta = np.arange(-(length - 1), length)
    with np.errstate(invalid="ignore", over="ignore"):
        score = _worst(np.abs(gen - (-slopes[:, None] * delta[None, :])), tolerance(delta))
        score = score if np.isfinite(gen).all() else float("inf")
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
        tol = tolerance(d)
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
