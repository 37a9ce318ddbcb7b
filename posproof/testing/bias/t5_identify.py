"""Identify a T5 bucket matrix: num_buckets, bidirectional or causal, and max_distance.

A (query × key) integer matrix B[q, k] of buckets of Δ = k − q (what HF's ``compute_bias``
feeds to the bias embedding) is read as a function of Δ (refused if it is not one); the
sign split tells bidirectional from causal, the exact part gives max_exact, and every
observed log-bucket start s_k bounds max_distance D in integers:
(s_k − 1)^R < D^k·m^(R−k) ≤ s_k^R.  The candidates left are checked against the exact
table at every observed Δ; the answer is the interval of D that fits (a short matrix cannot
tell D beyond its longest distance).

>>> import numpy as np
>>> from posproof.model.t5_buckets import T5Buckets
>>> q = np.arange(300)
>>> found = identify_t5(T5Buckets(32, 128).buckets(q[None, :] - q[:, None]))
>>> found.matched, found.num_buckets, found.bidirectional, found.max_distance
(True, 32, True, (128, 128))
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sympy import integer_nthroot

from ...model.t5_buckets import T5Buckets
from ..core.reports import InvalidImplementation

__all__ = ["T5Identification", "identify_t5"]


@dataclass
class T5Identification:
    """What :func:`identify_t5` found (``matched`` False: no T5 configuration fits)."""

    matched: bool
    num_buckets: int | None = None
    bidirectional: bool | None = None
    max_distance: tuple[int, int] | None = None       # the interval of D that fits
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"matched": self.matched, "num_buckets": self.num_buckets,
                "bidirectional": self.bidirectional,
                "max_distance": None if self.max_distance is None else list(self.max_distance),
                "notes": self.notes}

    def __str__(self) -> str:
        if not self.matched:
            return "no T5 bucket configuration fits: " + "; ".join(self.notes)
        lo, hi = self.max_distance or (None, None)
        md = f"max_distance={lo}" if lo == hi else f"max_distance in [{lo}, {hi}]"
        side = "bidirectional" if self.bidirectional else "causal"
        return (f"T5 buckets: num_buckets={self.num_buckets}, {md}, {side}"
                + "".join(f"\n  note: {n}" for n in self.notes))


def _iroot_floor(x: int, k: int) -> int:
    return int(integer_nthroot(max(x, 0), k)[0])


def identify_t5(matrix: Any) -> T5Identification:
    """Identify a (query × key) matrix of T5 buckets (integers)."""
    b = np.asarray(matrix)
    if b.ndim != 2 or b.dtype.kind not in "iu" or min(b.shape) < 2:
        raise InvalidImplementation(f"a T5 bucket matrix is a 2-d integer (query, key) array, "
                                    f"not shape {b.shape} dtype {b.dtype}")
    nq, nk = b.shape
    if not np.array_equal(b[1:, 1:], b[:-1, :-1]):      # Toeplitz: a function of k − q
        return T5Identification(False, notes=["the bucket is not a function of Δ = key − query"])
    d = np.arange(-(nq - 1), nk)
    by_delta = np.concatenate([b[::-1, 0], b[0, 1:]]).astype(np.int64)  # Δ = −(nq−1) … nk−1
    pos, neg = by_delta[d > 0], by_delta[d <= 0][::-1]     # magnitudes 1…, 0…
    bidirectional = bool(pos.size and pos.max() > 0)
    mag = neg
    if bidirectional:
        h = int(pos[0]) - 1 if pos.size else None
        if h is None or h < 2:
            return T5Identification(False, notes=[f"bucket of Δ = 1 is {pos[0]}, not h + 1"])
        per = h
    else:
        per = None
    differs = mag != np.arange(mag.size)
    n_small = int(np.argmax(differs)) if differs.any() else mag.size
    if n_small == mag.size:
        return T5Identification(False, notes=[f"every observed |Δ| < {mag.size} is its own "
                                              "bucket: the matrix is too short to see the log "
                                              "buckets"])
    # bucket(n) = n for n ≤ max_exact at least (the first log bucket is max_exact itself)
    candidates = ([per] if per is not None else
                  [p for m in range(max(1, n_small - 2), n_small + 1) for p in (2 * m, 2 * m + 1)])
    for per in candidates:
        me = per // 2
        if me > n_small or me < 1:
            continue
        r = per - me
        lo, hi = me + 1, 10**12
        for k in range(1, r):
            seen = np.flatnonzero(mag == me + k)
            if seen.size == 0 or seen[0] == 0 or mag[seen[0] - 1] != me + k - 1:
                continue
            s = int(seen[0])                      # first magnitude of bucket me + k, observed
            # (s − 1)^R < D^k·m^(R−k) ≤ s^R
            hi = min(hi, _iroot_floor(s ** r // me ** (r - k), k))
            lo = max(lo, _iroot_floor((s - 1) ** r // me ** (r - k), k))
        for md in range(max(lo, me + 1), min(hi, lo + 64) + 1):
            spec = T5Buckets(2 * per if bidirectional else per, md, bidirectional)
            if np.array_equal(spec.buckets(d), by_delta):
                first_ok = md
                last_ok = md
                step = hi
                while last_ok < hi:                # the fitting D form an interval: extend it
                    probe = min(hi, last_ok + max(1, (step - last_ok) // 2))
                    spec2 = T5Buckets(spec.num_buckets, probe, bidirectional)
                    if np.array_equal(spec2.buckets(d), by_delta):
                        last_ok = probe
                    elif probe == last_ok + 1:
                        break
                    else:
                        step = probe
                notes = [] if first_ok == last_ok else [
                    f"every max_distance in the interval gives the same buckets at every "
                    f"observed Δ (|Δ| ≤ {max(nq, nk) - 1})"]
                return T5Identification(True, spec.num_buckets, bidirectional,
                                        (first_ok, last_ok), notes)
    return T5Identification(False, notes=["no (num_buckets, max_distance) reproduces every "
                                          "observed Δ"])
