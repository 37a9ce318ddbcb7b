"""T5 relative position buckets, exactly: every bucket's range of relative positions in integers.

T5 (and Flan-T5, UMT5, LongT5) add a learned bias per *bucket* of the relative position
Δ = key − query.  With ``h`` buckets per direction (``num_buckets // 2`` when bidirectional,
``num_buckets`` when causal), ``max_exact = h // 2`` and ``R = h − max_exact``, the magnitude
n = |Δ| (causal: n = max(−Δ, 0)) goes to

* bucket n when n < max_exact (one bucket per distance), else
* max_exact + min(R − 1, ⌊R · log(n / max_exact) / log(max_distance / max_exact)⌋).

Bidirectional buckets add h when Δ > 0 (the sign split).  The floor is decided here in
integers, never in floats: ⌊R·log(n/m)/log(D/m)⌋ ≥ k ⇔ (n/m)^R ≥ (D/m)^k ⇔
n^R ≥ D^k · m^(R−k), so the first distance of log bucket m + k is the least n with
n^R ≥ D^k·m^(R−k): an exact integer R-th root.

>>> spec = T5Buckets(32, 128)
>>> spec.starts[8:]
(8, 12, 16, 23, 32, 46, 64, 91)
>>> [spec.bucket(d) for d in (-1, 0, 1, 11, 12, -127, 128, 10**9)]
[1, 0, 17, 24, 25, 15, 31, 31]
>>> spec.empty_buckets
(16,)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from sympy import integer_nthroot

from ..errors import InvalidParameter, check_int

__all__ = ["DEFAULT_UP_TO_CAP", "T5Buckets", "magnitude_starts", "t5_buckets"]

#: Exhaustive checks run over |Δ| ≤ 2·max_distance by default, capped here (memory, time).
DEFAULT_UP_TO_CAP = 4_000_000


def magnitude_starts(max_exact: int, per_direction: int, max_distance: int) -> tuple[int, ...]:
    """The first magnitude n = |Δ| of each of the ``per_direction`` buckets, exactly.

    Bucket b holds the magnitudes ``starts[b] ≤ n < starts[b + 1]`` (the last one every
    n ≥ starts[-1]); equal neighbours mean an empty bucket.  No validation: see
    :class:`T5Buckets` (the hypotheses of ``assert_t5_buckets`` call this with off-by-one
    parameters on purpose).

    >>> magnitude_starts(2, 4, 8)        # R = 2: log buckets start at 2 and ⌈2·√(8/2)⌉ = 4
    (0, 1, 2, 4)
    """
    r = per_direction - max_exact
    starts = list(range(max_exact))
    for k in range(r):
        target = max_distance ** k * max_exact ** (r - k)
        root, exact = integer_nthroot(target, r)
        starts.append(int(root) if exact else int(root) + 1)
    return tuple(starts)


@dataclass(frozen=True)
class T5Buckets:
    """The exact bucket function of T5 relative attention for one configuration."""

    num_buckets: int = 32
    max_distance: int = 128
    bidirectional: bool = True

    def __post_init__(self) -> None:
        nb = check_int("num_buckets", self.num_buckets, minimum=1)
        md = check_int("max_distance", self.max_distance, minimum=1, maximum=10**12)
        object.__setattr__(self, "num_buckets", nb)
        object.__setattr__(self, "max_distance", md)
        if not isinstance(self.bidirectional, (bool, np.bool_)):
            raise InvalidParameter(f"bidirectional={self.bidirectional!r} is not a bool")
        if nb > 4096:
            raise InvalidParameter(f"num_buckets={nb} is more than 4096; T5 models use 32 "
                                   "(LongT5, UMT5 too)")
        if self.per_direction < 2:
            raise InvalidParameter(
                f"num_buckets={nb} gives {self.per_direction} bucket(s) per direction "
                f"({'bidirectional halves them' if self.bidirectional else 'causal'}); "
                "T5 buckets need at least 2 per direction")
        if md <= self.max_exact:
            raise InvalidParameter(f"max_distance={md} is not above max_exact={self.max_exact} "
                                   f"(= {self.per_direction} // 2); the log buckets need "
                                   "max_distance > max_exact")

    @property
    def per_direction(self) -> int:
        return self.num_buckets // 2 if self.bidirectional else self.num_buckets

    @property
    def max_exact(self) -> int:
        return self.per_direction // 2

    @property
    def starts(self) -> tuple[int, ...]:
        """First magnitude of each bucket of one direction (see :func:`magnitude_starts`)."""
        return magnitude_starts(self.max_exact, self.per_direction, self.max_distance)

    def magnitude_buckets(self, n: Any) -> np.ndarray:
        """Buckets of magnitudes n ≥ 0 (integers), before the sign split."""
        arr = np.asarray(n, dtype=np.int64)
        return np.searchsorted(np.asarray(self.starts, dtype=np.int64), arr,
                               side="right").astype(np.int64) - 1

    def buckets(self, delta: Any) -> np.ndarray:
        """Exact buckets of relative positions Δ = key − query (an integer array)."""
        d = np.asarray(delta)
        if d.dtype.kind not in "iu":
            raise InvalidParameter(f"relative positions must be integers, not {d.dtype}")
        d = d.astype(np.int64)
        if self.bidirectional:
            return self.magnitude_buckets(np.abs(d)) + (d > 0) * self.per_direction
        return self.magnitude_buckets(np.maximum(-d, 0))

    def bucket(self, delta: int) -> int:
        """The exact bucket of one relative position."""
        d = check_int("delta", delta)
        if abs(d) >= 1 << 62:
            d = (1 << 62) * (1 if d > 0 else -1)    # saturated long before: same bucket
        return int(self.buckets(np.array([d], dtype=np.int64))[0])

    def table(self) -> list[dict[str, Any]]:
        """One row per bucket: the exact range of Δ (``None``: unbounded), empty or not."""
        starts, per = self.starts, self.per_direction
        ends = [s - 1 for s in starts[1:]] + [None]          # magnitude ranges
        rows = []
        for b in range(self.num_buckets):
            lo: int | None
            hi: int | None
            if b >= (2 if self.bidirectional else 1) * per:
                lo = hi = None                                # odd num_buckets: never used
                empty = True
            elif self.bidirectional and b >= per:             # Δ > 0: Δ = n ≥ 1
                m = b - per
                lo, hi = max(starts[m], 1), ends[m]
                empty = hi is not None and lo > hi
            else:                                             # Δ ≤ 0 (or Δ > 0 causal: 0)
                lo_n, hi_n = starts[b], ends[b]
                empty = hi_n is not None and lo_n > hi_n
                lo = None if hi_n is None else -hi_n
                hi = -lo_n
                if not self.bidirectional and b == 0:
                    hi = None                                 # every Δ ≥ 0 is bucket 0
            rows.append({"bucket": b, "delta_min": None if empty else lo,
                         "delta_max": None if empty else hi, "empty": bool(empty),
                         "kind": ("unused" if b >= (2 if self.bidirectional else 1) * per
                                  else "exact" if b % per < self.max_exact else "log")})
        return rows

    @property
    def empty_buckets(self) -> tuple[int, ...]:
        """Buckets no relative position reaches (bidirectional: always ``num_buckets // 2``,
        the positive side's |Δ| = 0)."""
        return tuple(r["bucket"] for r in self.table() if r["empty"])

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "t5_buckets", "num_buckets": self.num_buckets,
                "max_distance": self.max_distance, "bidirectional": self.bidirectional,
                "max_exact": self.max_exact, "per_direction": self.per_direction}

    def describe(self) -> str:
        return (f"T5 buckets: num_buckets={self.num_buckets}, max_distance={self.max_distance}, "
                f"{'bidirectional' if self.bidirectional else 'causal'} "
                f"(max_exact={self.max_exact}, {self.per_direction} per direction)")


def t5_buckets(num_buckets: int = 32, max_distance: int = 128, *,
               bidirectional: bool = True) -> T5Buckets:
    """Build :class:`T5Buckets` (HF defaults: 32 buckets, max_distance 128, bidirectional).

    >>> t5_buckets(2, 128)
    Traceback (most recent call last):
    ...
    posproof.errors.InvalidParameter: num_buckets=2 gives 1 bucket(s) per direction \
(bidirectional halves them); T5 buckets need at least 2 per direction
    """
    return T5Buckets(num_buckets, max_distance, bidirectional)
