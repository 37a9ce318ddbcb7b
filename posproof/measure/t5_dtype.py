"""The T5 float trap: where computing the log ratio in float32 / float16 changes the bucket.

Implementations (HF ``T5Attention._relative_position_bucket``, mesh-tensorflow) form
``log(n / max_exact) / log(max_distance / max_exact) · R`` in float32 and truncate, so at a
distance where the exact value is an integer (or just above one) the rounding can move the
bucket by one.  :func:`float_buckets` emulates that arithmetic op by op in NumPy, in HF's
order (n cast to the dtype, ÷ max_exact, log, ÷ the Python double ``log(D / m)`` cast to the
dtype, × R, truncation toward zero, clip to h − 1).  The log is the float64 log rounded to the
dtype (correctly rounded but for double-rounding ties), like torch's CPU log; NumPy's own
float32 log is off by one ulp at some arguments (|Δ| = 723662 for 128 buckets,
max_distance 10⁶), which is enough to move a bucket. :func:`dtype_audit` compares it with the
exact integers of :class:`~posproof.model.t5_buckets.T5Buckets` at every magnitude up to a
stated length.  The exact side never uses a float: the comparison is against integer bucket
starts.

>>> from posproof.model.t5_buckets import T5Buckets
>>> audit = dtype_audit(T5Buckets(32, 128), "float32")
>>> audit.values["n_changed"], audit.status
(0, 'pass')
>>> dtype_audit(T5Buckets(32, 4096), "float16").values["changed"][:2]
[{'distance': 181, 'exact': 11, 'dtype': 12}, {'distance': 861, 'exact': 13, 'dtype': 14}]
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..audit import apply
from ..errors import InvalidParameter, check_int
from ..evidence import Evidence
from ..model.t5_buckets import DEFAULT_UP_TO_CAP, T5Buckets
from ..report import Check

__all__ = ["AUDIT_DTYPES", "boundary_evidence", "dtype_audit", "float_buckets"]

AUDIT_DTYPES = ("float32", "float16")
_SHOWN = 16                                    # distances listed in a report (all are counted)


def _dtype(name: str) -> Any:
    if name not in (*AUDIT_DTYPES, "float64"):
        raise InvalidParameter(f"dtype={name!r} is not one of float32, float16, float64")
    return np.dtype(name).type


def float_buckets(spec: T5Buckets, n: Any, dtype: str = "float32") -> np.ndarray:
    """Magnitude buckets as a float implementation computes them; -1 where it overflows.

    ``n`` are magnitudes ≥ 0 (integers).  A value that is not finite (float16 above 65504)
    has no defined truncation: it is reported as bucket -1 (torch gives garbage there).
    """
    n = np.asarray(n, dtype=np.int64)
    me = spec.max_exact
    out = n.copy()
    large = n >= me                                       # log(0) never formed (is_small)
    out[large] = _large_buckets(spec, n[large], dtype)
    return out


def _large_buckets(spec: T5Buckets, n: np.ndarray, dtype: str) -> np.ndarray:
    """The log branch for magnitudes n ≥ max_exact, op by op in ``dtype``."""
    f = _dtype(dtype)
    me, per = spec.max_exact, spec.per_direction
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        ratio = n.astype(f)
        ratio /= f(me)
        value = np.log(ratio.astype(np.float64)).astype(f)    # log rounded to the dtype
        value /= f(math.log(spec.max_distance / me))
        value *= f(per - me)
        finite = np.isfinite(value)
        if not finite.all():
            value[~finite] = 0
        trunc = value.astype(np.int64)                    # truncation toward zero (value ≥ 0)
    trunc += me
    np.minimum(trunc, per - 1, out=trunc)
    if not finite.all():
        trunc[~finite] = -1
    return trunc


def boundary_evidence(spec: T5Buckets, up_to: int, compared: int) -> Evidence:
    """Every magnitude (or Δ) up to ``up_to`` compared: that covers the whole bucket function
    only when every boundary (each bucket start, with the value below it) lies within the
    range; otherwise the evidence says how many boundaries it reached (a sample of them).

    >>> ev = boundary_evidence(T5Buckets(32, 128), 60, 121)
    >>> ev.coverage, ev.covered, ev.total
    ('sample', 26, 30)
    >>> boundary_evidence(T5Buckets(32, 128), 91, 183).coverage
    'all'

    """
    sides = 2 if spec.bidirectional else 1
    starts = list(spec.starts[1:])
    total = sides * len(starts)
    covered = sides * sum(1 for s in starts if s <= up_to)
    details = {"unit": "bucket boundaries", "compared": compared, "up_to": up_to,
               "last_boundary": spec.starts[-1]}
    why = ("each magnitude's bucket in the dtype (NumPy) compared with its exact bucket as "
           "integers: no rounding left to re-check")
    if covered == total:
        return Evidence("exhaustive comparison", "all", details=details, unaudited=why)
    return Evidence("exhaustive comparison", "sample", covered=covered, total=total,
                    details=details, unaudited=why)


def dtype_audit(spec: T5Buckets, dtype: str = "float32", up_to: int | None = None) -> Check:
    """Every magnitude 0 … ``up_to`` (default 2·max_distance, at most 4·10⁶) where ``dtype``
    changes the bucket.

    Passes when the dtype's buckets equal the exact ones at every magnitude checked.
    """
    up_to = (min(2 * spec.max_distance, DEFAULT_UP_TO_CAP) if up_to is None
             else check_int("up_to", up_to, minimum=1, maximum=10**8))
    me = spec.max_exact
    # exact buckets of me … up_to straight from the integer starts (no search: n is a range)
    starts = np.clip(np.asarray((*spec.starts[me:], up_to + 1), dtype=np.int64), me,
                     up_to + 1)
    exact = np.repeat(np.arange(me, spec.per_direction, dtype=np.int64), np.diff(starts))
    got = _large_buckets(spec, np.arange(me, up_to + 1, dtype=np.int64), dtype)
    bad = np.flatnonzero(exact != got)          # below max_exact both are n: never differ
    overflow = np.flatnonzero(got < 0)
    changed = [{"distance": int(i) + me, "exact": int(exact[i]), "dtype": int(got[i])}
               for i in bad[:_SHOWN]]
    values: dict[str, Any] = {
        "dtype": dtype, "up_to": up_to, "n_changed": int(bad.size), "changed": changed,
        "first_overflow": int(overflow[0]) + me if overflow.size else None}
    if bad.size:
        where = ", ".join(f"|Δ|={c['distance']}: {c['exact']}→{c['dtype']}" for c in changed[:4])
        more = f" (+{bad.size - 4} more)" if bad.size > 4 else ""
        values["summary"] = f"{bad.size} distance(s) change bucket in {dtype}: {where}{more}"
        note = (f"{dtype} log ratio moves {bad.size} distance(s) to another bucket"
                + (f"; not finite from |Δ|={values['first_overflow']}" if overflow.size else ""))
    else:
        values["summary"] = f"{dtype} buckets equal the exact ones for |Δ| ≤ {up_to}"
        note = None
    return apply(Check(f"t5_dtype_{dtype}", "fail" if bad.size else "pass", values,
                       certified=("exact side: integer bucket starts (n^R ≥ D^k·m^(R−k)); "
                                  f"dtype side: NumPy {dtype} ops in HF's order, every |Δ| ≤ "
                                  f"{up_to}"), note=note,
                       evidence=boundary_evidence(spec, up_to, up_to - me + 1)))
