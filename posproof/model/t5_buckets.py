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

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from ..errors import InvalidParameter, check_int

__all__ = ["DEFAULT_UP_TO_CAP", "T5Buckets", "bigint",
           "log_targets", "magnitude_starts", "t5_buckets"]

#: Exhaustive checks run over |Δ| ≤ 2·max_distance by default, capped here (memory, time).
DEFAULT_UP_TO_CAP = 4_000_000


def log_targets(max_exact: int, per_direction: int, max_distance: int) -> tuple[Any, ...]:
    """T_k = D^k·m^(R−k) for k = 0 … R−1 (R = per_direction − max_exact): log bucket m + k
    holds the magnitudes n with T_k ≤ n^R < T_(k+1).  O(R) big-integer products (each T_k
    from T_(k−1) by ·D/m, exact), cached for the last few configurations.

    >>> [int(t) for t in log_targets(2, 4, 8)]
    [4, 16]
    """
    return _log_targets(int(max_exact), int(per_direction), int(max_distance))


def bigint() -> Any:
    """GMP integers (python-flint's fmpz) when available: the same exact integers, faster."""
    try:
        from flint import fmpz
    except ImportError:  # pragma: no cover - python-flint is a dependency
        return int
    return fmpz


@lru_cache(maxsize=4)
def _log_targets(m: int, per: int, d: int) -> tuple[Any, ...]:
    big = bigint()
    r = per - m
    out = []
    t = big(m) ** r
    for k in range(r):
        if k:
            t = t // m * d                     # m^(R−k+1) is divisible by m: exact
        out.append(t)
    return tuple(out)


def _root_ceil(t: Any, r: int, guess: int) -> int:
    """The least s ≥ 0 with s^r ≥ t, from a nearby guess (exact integer comparisons)."""
    big = bigint()
    s = max(guess, 0)
    while big(s) ** r < t:
        s += 1
    while s > 0 and big(s - 1) ** r >= t:
        s -= 1
    return s


def magnitude_starts(max_exact: int, per_direction: int, max_distance: int) -> tuple[int, ...]:
    """The first magnitude n = |Δ| of each of the ``per_direction`` buckets, exactly.

    Bucket b holds the magnitudes ``starts[b] ≤ n < starts[b + 1]`` (the last one every
    n ≥ starts[-1]); equal neighbours mean an empty bucket.  No validation: see
    :class:`T5Buckets` (the hypotheses of ``assert_t5_buckets`` call this with off-by-one
    parameters on purpose).  O(R) exact integer steps: each start is the least n with
    n^R ≥ T_k, found from a float64 guess and settled by exact comparisons
    (s^R ≥ T_k > (s − 1)^R), never by the float.

    >>> magnitude_starts(2, 4, 8)        # R = 2: log buckets start at 2 and ⌈2·√(8/2)⌉ = 4
    (0, 1, 2, 4)
    """
    return _magnitude_starts(int(max_exact), int(per_direction), int(max_distance))


@lru_cache(maxsize=64)
def _magnitude_starts(m: int, per: int, d: int) -> tuple[int, ...]:
    r = per - m
    starts = list(range(m))
    if r <= 0:
        return tuple(starts)
    span = math.log(d / m) if m > 0 and d > 0 else 0.0
    for k, t in enumerate(_log_targets(m, per, d)):
        guess = int(m * math.exp(span * k / r)) - 1 if m > 0 else 0
        starts.append(_root_ceil(t, r, guess))
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
