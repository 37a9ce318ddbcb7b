"""The offset kernel f(Δ) = Σ_k cos(ω_k Δ) at GEMM speed, with a rigorous error bound, and the
certified extremes and crossings found by scanning it.

**The offset kernel.**  By the dot-product theorem, PE(x)·PE(y) = f(x − y) with

    f(Δ) = Σ_k cos(ω_k Δ)            (n = number of (sin, cos) pairs)

so ‖PE(x) − PE(y)‖² = 2(n − f(x − y)) and every pairwise question about L
positions is a question about f on Δ = 0 … L−1.  :class:`OffsetKernel`
evaluates f as a matrix product: with Δ = qB + r, r ∈ [−B/2, B/2),

    f(qB ± r) = Σ_k cos φ_k(q) cos ψ_k(r) ∓ Σ_k sin φ_k(q) sin ψ_k(r),

φ_k(q) = ω_k·qB, ψ_k(r) = ω_k·r: two real GEMMs of shape (Q × n)·(n × B/2)
(the real part of A·Bᵀ with A[q,k] = e^{iφ_k(q)}, B[r,k] = e^{iψ_k(r)},
using cos(a−b) = cos(a+b) + 2 sin a sin b to fold ±r: 2·L·n flops), streamed
in chunks of about 2²¹ values, so any L streams in bounded memory.

**Phases in exact fixed point.**  The angle step ω_k·B mod 2π is computed
once in mpmath and stored as a 64-bit fixed-point fraction of a turn,
a_k = round(2⁶⁴·frac(ω_k B / 2π)) (and b_k likewise for ω_k).  Then
q·a_k mod 2⁶⁴ is exact integer arithmetic (uint64 wraps modulo one turn), so
the phase of every term is reduced modulo 2π without error growth in x·ω:

**Error bound** (u = 2⁻⁵³, t = 4u the budget for one NumPy sin/cos — measured
at ≤ 0.51 ulp on x86-64 —, Q = largest q of the scan, R = B/2):

* phase of φ_k(q): fixed-point rounding q·2⁻⁶⁵ turns, int→float conversion
  2⁻⁵⁴ turns, scaling by 2π/2⁶⁴ ≤ 2u·π:  δφ ≤ π(Q·2⁻⁶⁴ + 3u + u²); same for ψ
  with R;
* sin/cos values: each within t, so each term cos φ cos ψ ∓ sin φ sin ψ is
  within 2√2·t + 2t² of the value at the rounded phases, which is within
  δφ + δψ of the exact term;
* the two GEMMs: any summation order (blocked, FMA) obeys Higham's
  |fl(Σ aᵢbᵢ) − Σ aᵢbᵢ| ≤ γ_n Σ|aᵢbᵢ|, γ_n = nu/(1 − nu), and
  |cos φ cos ψ| + |sin φ sin ψ| ≤ 1, so the two sums err by ≤ γ_n·n(1 + 2√2t + 2t²);
  the final ± adds u·n.

    ε = n(δφ + δψ + 2√2t + 2t²) + γ_n n (1 + 2√2t + 2t²) + u n      (× 1.000001)

This is a rigorous worst case, independent of the BLAS, for the exact
frequencies (not their float64 roundings): 8.2e-12 for n = 256 (d = 512)
and 3.1e-11 for n = 512 at L = 10⁶, dominated by γ_n·n; the errors observed
against mpmath are 6e-14 and 2e-13.

>>> kernel = OffsetKernel(Encoding(Geometric(10000), "interleaved", 8))
>>> kernel.n, kernel.values(0, 3).round(6).tolist()
(4, [4.0, 3.535256, 2.563718])
>>> kernel.bound(3) < 1e-13
True
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import mpmath
import numpy as np
import sympy as sp

from ..errors import InvalidParameter
from ..model.encoding import DELTA, Encoding
from ..precise import DEFAULT_DPS, mp_values
from .dtypes import TRIG_ULPS, U
from .translation import pair_frequencies

__all__ = [
    "Crossing",
    "Extreme",
    "OffsetKernel",
    "block_for",
]


#: Kernel values computed per chunk (≈ 16 MB of float64).
CHUNK_VALUES = 1 << 21
#: At most this many kernel values are kept in memory (128 MB); longer scans stream.
CACHE_VALUES = 1 << 24


_RAD_PER_UNIT = math.tau * 2.0 ** -64          # exact power-of-two scaling of fl(2π)
_MAX_BLOCK = 4096
_CALL_BLOCK = 4096
_FIXED_DPS = 80                                 # digits for the fixed-point phases


@dataclass
class Extreme:
    """The certified largest kernel value over a range, i.e. the closest approach.

    ``delta`` is the smallest offset attaining it; ``f`` its float64 value
    (within ``bound`` of the exact value), ``f_mp`` the exact value in
    mpmath; ``distance`` = √(2(n − f)) in float64 (within ``distance_bound``)
    and ``distance_mp`` = √(4 Σ sin²(ω_k Δ/2)) in mpmath.  ``candidates`` is
    how many offsets within 2·bound of the float64 maximum were recomputed in
    mpmath (``truncated``: more were within it and the largest float64 values
    were kept); ``consistent`` is False
    when a float64 value disagreed with mpmath beyond its bound.
    """

    delta: int
    f: float
    f_mp: mpmath.mpf
    bound: float
    distance: float
    distance_bound: float
    distance_mp: mpmath.mpf
    candidates: int
    truncated: bool = False
    consistent: bool = True
    dps: int = DEFAULT_DPS


@dataclass
class Crossing:
    """The certified first offset at which a kernel condition holds.

    ``delta`` is the first offset; ``value`` the float64 value there (kernel
    value, or difference f(Δ+1) − f(Δ)), ``value_mp`` and ``previous_mp`` the
    mpmath values at ``delta`` and ``delta − 1``; ``rechecked`` counts the
    earlier offsets within the bound that were recomputed in mpmath.
    """

    delta: int
    value: float
    value_mp: mpmath.mpf
    previous_mp: mpmath.mpf | None
    bound: float
    rechecked: int = 0
    consistent: bool = True
    dps: int = DEFAULT_DPS


def _work_dps(dps: int, delta: int) -> int:
    """Working digits for cos(ω·Δ): dps plus the digits of Δ, in steps of 10 (few caches)."""
    return dps + 10 + 10 * (len(str(delta)) // 10 + 1)


def block_for(length: int) -> int:
    b = math.isqrt(max(int(length), 1) - 1) + 1
    b += b % 2
    return min(max(b, 2), _MAX_BLOCK)


def _kernel_bound(n: int, q_max: int, r_max: int) -> float:
    t = TRIG_ULPS * U
    d_phi = math.pi * (q_max * 2.0 ** -64 + 3 * U + U * U)
    d_psi = math.pi * (r_max * 2.0 ** -64 + 3 * U + U * U)
    trig = 2 * math.sqrt(2) * t + 2 * t * t
    gamma = n * U / (1 - n * U)
    eps = n * (d_phi + d_psi + trig) + gamma * n * (1 + trig) + U * n
    return eps * (1 + 1e-6)


class OffsetKernel:
    """f(Δ) = Σ_k cos(ω_k Δ) for an encoding's pairs; PE(x)·PE(y) = f(x − y).

    ``source`` is an :class:`Encoding` (its (sin, cos) pairs must share one
    frequency: the dot-product theorem) or a sequence of exact frequencies.
    See the module docstring for the algorithm and the error bound.

    >>> k = OffsetKernel([1, sp.Rational(1, 2)])
    >>> k.expr
    Sum(cos(delta*omega[k]), (k, 0, 1))
    >>> float(k.mp(3)) == math.cos(3) + math.cos(1.5)
    True
    """

    def __init__(self, source: Encoding | Sequence[Any]) -> None:
        if isinstance(source, Encoding):
            freqs = pair_frequencies(source)
            self.name = source.name
        else:
            from ..model.schedules import exact_number

            if isinstance(source, (str, bytes)) or not isinstance(source, Sequence) or not source:
                raise InvalidParameter(
                    f"frequencies={source!r}; pass an Encoding or a non-empty list of numbers")
            freqs = [exact_number(f"frequencies[{i}]", v) for i, v in enumerate(source)]
            self.name = "kernel"
        self.frequencies: tuple[sp.Expr, ...] = tuple(freqs)
        self.n = len(freqs)
        self._mp_cache: dict[int, list[mpmath.mpf]] = {}
        self._value_cache: dict[tuple[str, int, int], mpmath.mpf] = {}
        mp = self._omega_mp(_FIXED_DPS)
        self.omega = np.array([float(w) for w in mp], dtype=np.float64)
        if not np.all(np.isfinite(self.omega)):
            raise InvalidParameter(f"{self.name}: a frequency is not finite ({self.omega})")
        self._fixed: dict[int, np.ndarray] = {}
        self._plans: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        self._cache: np.ndarray | None = None
        self._cache_bound = 0.0

    # ------------------------------------------------------------------ exact side
    @property
    def expr(self) -> sp.Expr:
        """The kernel as a SymPy sum over the pair index."""
        k = sp.Symbol("k", integer=True, nonnegative=True)
        return sp.Sum(sp.cos(sp.IndexedBase("omega")[k] * DELTA), (k, 0, self.n - 1))

    def _omega_mp(self, dps: int) -> list[mpmath.mpf]:
        if dps not in self._mp_cache:
            self._mp_cache[dps] = mp_values(self.frequencies, dps)
        return self._mp_cache[dps]

    def mp(self, delta: int, dps: int = DEFAULT_DPS) -> mpmath.mpf:
        """f(Δ) in mpmath with ``dps`` significant digits, from the exact frequencies.

        >>> mpmath.nstr(OffsetKernel([1]).mp(10**7, 30), 12)
        '-0.907270386182'
        """
        delta = abs(int(delta))
        key = ("f", delta, dps)
        if key not in self._value_cache:
            work = _work_dps(dps, delta)
            omegas = self._omega_mp(work)
            with mpmath.workdps(work):
                value = mpmath.fsum(mpmath.cos(w * delta) for w in omegas)
            with mpmath.workdps(dps):
                self._value_cache[key] = +value
        return self._value_cache[key]

    def distance_mp(self, delta: int, dps: int = DEFAULT_DPS) -> mpmath.mpf:
        """‖PE(x+Δ) − PE(x)‖ = √(4 Σ sin²(ω_k Δ/2)) in mpmath (no cancellation near 0).

        >>> OffsetKernel([sp.pi / 2]).distance_mp(4)
        mpf('0.0')
        """
        delta = abs(int(delta))
        key = ("distance", delta, dps)
        if key not in self._value_cache:
            work = _work_dps(dps, delta)
            omegas = self._omega_mp(work)
            with mpmath.workdps(work):
                value = 2 * mpmath.sqrt(mpmath.fsum(mpmath.sin(w * delta / 2) ** 2
                                                    for w in omegas))
            with mpmath.workdps(dps):
                tiny = value < mpmath.mpf(10) ** (-(dps - 5))
                self._value_cache[key] = mpmath.mpf(0) if tiny else +value
        return self._value_cache[key]

    # ------------------------------------------------------------------ fixed point
    def _turns(self, scale: int) -> np.ndarray:
        """round(2⁶⁴·frac(ω_k·scale/2π)) as uint64, shape ``(n,)``."""
        if scale not in self._fixed:
            magnitude = math.log10(float(np.abs(self.omega).max()) * scale + 1)
            extra = 40 * math.ceil(max(0.0, magnitude - 30) / 40)
            omegas = self._omega_mp(_FIXED_DPS + extra)
            with mpmath.workdps(_FIXED_DPS + extra):
                two_pi = 2 * mpmath.pi
                words = []
                for w in omegas:
                    turns = w * scale / two_pi
                    frac = turns - mpmath.floor(turns)
                    words.append(int(mpmath.nint(frac * 2**64)) % 2**64)
            self._fixed[scale] = np.array(words, dtype=np.uint64)
        return self._fixed[scale]

    @staticmethod
    def _angles(mult: np.ndarray, turns: np.ndarray) -> np.ndarray:
        """mult·turns mod one turn, in radians in [−π, π), shape ``(len(mult), n)``."""
        prod = np.multiply(mult.astype(np.uint64)[:, None], turns[None, :])  # wraps mod 2⁶⁴
        return prod.view(np.int64).astype(np.float64) * _RAD_PER_UNIT

    def _plan(self, block: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if block not in self._plans:
            half = block // 2
            psi = self._angles(np.arange(half + 1, dtype=np.int64), self._turns(1))
            self._plans[block] = (self._turns(block), np.ascontiguousarray(np.cos(psi).T),
                                  np.ascontiguousarray(np.sin(psi).T))
        return self._plans[block]

    def _rows(self, block: int, q0: int, q1: int) -> np.ndarray:
        """f(Δ) for Δ ∈ [q0·B − B/2, q1·B − B/2), shape ``((q1 − q0)·B,)``."""
        half = block // 2
        a_turns, cos_b, sin_b = self._plan(block)
        phi = self._angles(np.arange(q0, q1, dtype=np.int64), a_turns)
        c = np.cos(phi) @ cos_b                                   # (m, half + 1)
        s = np.sin(phi) @ sin_b
        out = np.empty((q1 - q0, block))
        np.subtract(c[:, :half], s[:, :half], out=out[:, half:])  # Δ = qB + r, r = 0 … B/2−1
        np.add(c[:, half:0:-1], s[:, half:0:-1], out=out[:, :half])  # Δ = qB − r, r = B/2 … 1
        return out.reshape(-1)

    # ------------------------------------------------------------------ float64 side
    def bound(self, stop: int) -> float:
        """Error bound of every float64 value of a scan over Δ ∈ [0, stop).

        >>> OffsetKernel([1] * 256).bound(10**6) < 1e-11
        True
        """
        stop = max(int(stop), 1)
        block = block_for(stop)
        half = block // 2
        return _kernel_bound(self.n, (stop - 1 + half) // block, half)

    def chunks(self, start: int, stop: int, *, progress: Callable[[int, int], None] | None = None
               ) -> Iterator[tuple[int, np.ndarray]]:
        """``(first Δ, values)`` pieces covering Δ ∈ [start, stop) in order, each ≤ 2²¹ values.

        Memory stays bounded whatever the length; every value is within
        :meth:`bound` ``(stop)`` of f (or of the cached scan's bound).

        >>> [(s, v.size) for s, v in OffsetKernel([1]).chunks(0, 5)]
        [(0, 5)]
        """
        start, stop = int(start), int(stop)
        if start < 0 or stop < start:
            raise InvalidParameter(f"offsets [{start}, {stop}) are not a range of Δ ≥ 0")
        cache = self._cache
        if cache is not None and stop <= cache.size:
            for lo in range(start, stop, CHUNK_VALUES):
                hi = min(lo + CHUNK_VALUES, stop)
                yield lo, cache[lo:hi]
                if progress is not None:
                    progress(hi - start, stop - start)
            return
        block = block_for(stop)
        half = block // 2
        rows = max(1, CHUNK_VALUES // block)
        q_start = (start + half) // block
        q_stop = (stop - 1 + half) // block + 1 if stop > start else q_start
        for q0 in range(q_start, q_stop, rows):
            q1 = min(q0 + rows, q_stop)
            base = q0 * block - half
            values = self._rows(block, q0, q1)
            lo, hi = max(start, base), min(stop, base + values.size)
            yield lo, values[lo - base:hi - base]
            if progress is not None:
                progress(hi - start, stop - start)

    def values(self, start: int, stop: int) -> np.ndarray:
        """f(Δ) for Δ ∈ [start, stop) in float64, shape ``(stop − start,)``.

        Refuses more than ``CACHE_VALUES`` values; use :meth:`chunks` then.

        >>> OffsetKernel([1]).values(0, 3).round(4).tolist()
        [1.0, 0.5403, -0.4161]
        """
        count = int(stop) - int(start)
        if count > CACHE_VALUES:
            raise InvalidParameter(
                f"values({start}, {stop}) would hold {count} numbers; at most {CACHE_VALUES} "
                "are materialised; iterate over chunks(start, stop) instead")
        parts = [v for _, v in self.chunks(start, stop)]
        return np.concatenate(parts) if parts else np.empty(0)

    def materialize(self, length: int, progress: Callable[[int, int], None] | None = None
                    ) -> bool:
        """Keep f(0 … length−1) in memory when it fits (≤ 2²⁴ values); True if kept.

        >>> OffsetKernel([1]).materialize(100)
        True
        """
        length = int(length)
        if length > CACHE_VALUES:
            return False
        if self._cache is None or self._cache.size < length:
            self._cache = None
            cache = np.empty(length)
            for lo, values in self.chunks(0, length, progress=progress):
                cache[lo:lo + values.size] = values
            self._cache, self._cache_bound = cache, self.bound(length)
        return True

    def scan_bound(self, stop: int) -> float:
        """The bound that applies to :meth:`chunks` ``(·, stop)`` (the cache's when it is used).

        >>> k = OffsetKernel([1]); _ = k.materialize(10); k.scan_bound(5) == k.bound(10)
        True
        """
        if self._cache is not None and stop <= self._cache.size:
            return self._cache_bound
        return self.bound(stop)

    def __call__(self, deltas: Any) -> np.ndarray:
        """f at arbitrary integer offsets, shape of ``deltas``; within :meth:`call_bound`.

        >>> OffsetKernel([1, 2]).__call__([0, -3]).round(4).tolist()
        [2.0, -0.0298]
        """
        d = np.abs(np.asarray(deltas, dtype=np.int64))
        flat = d.reshape(-1)
        half = _CALL_BLOCK // 2
        q = (flat + half) // _CALL_BLOCK
        r = flat - q * _CALL_BLOCK
        phase = (np.multiply(q.astype(np.uint64)[:, None], self._turns(_CALL_BLOCK)[None, :])
                 + np.multiply(r.astype(np.uint64)[:, None], self._turns(1)[None, :]))
        angles = phase.view(np.int64).astype(np.float64) * _RAD_PER_UNIT
        return np.cos(angles).sum(axis=1).reshape(d.shape)

    def call_bound(self, delta_max: int) -> float:
        """Error bound of :meth:`__call__` for offsets up to ``|Δ| ≤ delta_max``.

        >>> OffsetKernel([1] * 256).call_bound(10**7) < 1e-11
        True
        """
        q_max = (abs(int(delta_max)) + _CALL_BLOCK // 2) // _CALL_BLOCK
        t = TRIG_ULPS * U
        phase = math.pi * ((q_max + _CALL_BLOCK // 2) * 2.0 ** -64 + 3 * U + U * U)
        gamma = self.n * U / (1 - self.n * U)
        return (self.n * (phase + t) + gamma * self.n * (1 + t)) * (1 + 1e-6)

    # ------------------------------------------------------------------ certified reductions
    def maximum(self, start: int, stop: int, *, dps: int = DEFAULT_DPS, keep: int = 64,
                progress: Callable[[int, int], None] | None = None) -> Extreme:
        """The certified maximum of f over Δ ∈ [start, stop): the closest approach.

        Every offset whose float64 value is within 2ε of the float64 maximum
        is a candidate (no other can hold the true maximum); up to ``keep`` of
        them (the largest) are recomputed in mpmath and the largest exact
        value wins, the smallest offset on ties.

        >>> ext = OffsetKernel([sp.pi / 2, sp.pi / 4]).maximum(1, 20)
        >>> ext.delta, ext.distance_mp
        (8, mpf('0.0'))
        """
        if stop <= start:
            raise InvalidParameter(f"the range [{start}, {stop}) of offsets is empty")
        eps = self.scan_bound(stop)
        best = -math.inf
        truncated = False
        cand_d = np.empty(0, dtype=np.int64)
        cand_v = np.empty(0)
        for lo, values in self.chunks(start, stop, progress=progress):
            top = float(values.max())
            if top < best - 2 * eps:
                continue
            best = max(best, top)
            idx = np.flatnonzero(values >= best - 2 * eps)
            cand_d = np.concatenate([cand_d[cand_v >= best - 2 * eps], lo + idx])
            cand_v = np.concatenate([cand_v[cand_v >= best - 2 * eps], values[idx]])
            if cand_d.size > 4 * keep:
                order = np.lexsort((cand_d, -cand_v))[:keep]
                cand_d, cand_v, truncated = cand_d[order], cand_v[order], True
        truncated = truncated or cand_d.size > keep
        order = np.lexsort((cand_d, -cand_v))[:keep]
        cand_d, cand_v = cand_d[order], cand_v[order]
        total = int(cand_d.size)
        consistent = True
        exact = []
        for d, v in zip(cand_d.tolist(), cand_v.tolist(), strict=True):
            value = self.mp(d, dps)
            exact.append(value)
            if abs(float(value) - v) > eps:
                consistent = False
        with mpmath.workdps(dps):
            top_mp = max(exact)
            tie = mpmath.mpf(10) ** (-(dps - 10)) * self.n
            winners = [d for d, e in zip(cand_d.tolist(), exact, strict=True)
                       if top_mp - e <= tie]
        delta = min(winners)
        i = cand_d.tolist().index(delta)
        f = float(cand_v[i])
        dist, dist_bound = _distance(self.n, f, eps)
        return Extreme(delta=delta, f=f, f_mp=exact[i], bound=eps, distance=dist,
                       distance_bound=dist_bound, distance_mp=self.distance_mp(delta, dps),
                       candidates=total, truncated=truncated, consistent=consistent, dps=dps)

    def first_crossing(self, threshold: float | mpmath.mpf, *, below: bool = True,
                       start: int = 0, stop: int, dps: int = DEFAULT_DPS,
                       max_recheck: int = 256,
                       progress: Callable[[int, int], None] | None = None) -> Crossing | None:
        """The first Δ ∈ [start, stop) with f(Δ) < threshold (``below``) or > threshold.

        A float64 value beyond the threshold by more than its bound settles
        it; values within the bound are recomputed in mpmath (at most
        ``max_recheck``).  ``None`` when no offset in the range crosses.

        >>> c = OffsetKernel([1]).first_crossing(0, stop=10)
        >>> c.delta, c.value_mp > -1, c.previous_mp > 0
        (2, True, True)
        """
        eps = self.scan_bound(stop) + U * (abs(float(threshold)) + self.n)
        thr = float(threshold)
        rechecked = 0
        with mpmath.workdps(dps):
            exact_thr = mpmath.mpf(threshold)
            # an exact tie (cos(π/2) = 0) is not a crossing, whatever the last digit says
            tiny = self.n * mpmath.mpf(10) ** (-(dps - 10))

        def holds(value: mpmath.mpf) -> bool:
            with mpmath.workdps(dps):
                return bool(value < exact_thr - tiny if below else value > exact_thr + tiny)

        for lo, values in self.chunks(start, stop, progress=progress):
            maybe = values < thr + eps if below else values > thr - eps
            # each candidate returns or is rechecked: no more than max_recheck + 1 are looked at
            for i in np.flatnonzero(maybe)[:max_recheck + 1].tolist():
                v = float(values[i])
                sure = v < thr - eps if below else v > thr + eps
                delta = lo + i
                if not sure:
                    if rechecked >= max_recheck:
                        raise InvalidParameter(
                            f"{self.name}: more than {max_recheck} kernel values lie within "
                            f"{eps:.1e} of the threshold {thr}; pass another threshold")
                    rechecked += 1
                    if not holds(self.mp(delta, dps)):
                        continue
                return self._crossing(delta, v, eps, rechecked, dps, start, holds)
        return None

    def _crossing(self, delta: int, value: float, eps: float, rechecked: int, dps: int,
                  start: int, holds: Callable[[mpmath.mpf], bool]) -> Crossing:
        exact = self.mp(delta, dps)
        previous = self.mp(delta - 1, dps) if delta - 1 >= start else None
        consistent = (abs(float(exact) - value) <= eps and holds(exact)
                      and (previous is None or not holds(previous)))
        return Crossing(delta=delta, value=value, value_mp=exact, previous_mp=previous,
                        bound=eps, rechecked=rechecked, consistent=consistent, dps=dps)

    def first_increase(self, *, start: int = 0, stop: int, dps: int = DEFAULT_DPS,
                       max_recheck: int = 256,
                       progress: Callable[[int, int], None] | None = None) -> Crossing | None:
        """The first Δ ∈ [start, stop−1) with f(Δ+1) > f(Δ): where f stops decreasing.

        ``value`` is the float64 difference f(Δ+1) − f(Δ); ``value_mp`` and
        ``previous_mp`` are the exact differences at Δ and Δ − 1.

        >>> OffsetKernel([1]).first_increase(stop=10).delta
        3
        """
        eps = 2 * self.scan_bound(stop) + 4 * U * self.n
        with mpmath.workdps(dps):
            tiny = 2 * self.n * mpmath.mpf(10) ** (-(dps - 10))   # exact ties do not rise
        prev_last: float | None = None
        rechecked = 0
        for lo, values in self.chunks(start, stop, progress=progress):
            ext = values if prev_last is None else np.concatenate([[prev_last], values])
            first = lo if prev_last is None else lo - 1
            prev_last = float(values[-1]) if values.size else prev_last
            diff = np.diff(ext)
            for i in np.flatnonzero(diff > -eps)[:max_recheck + 1].tolist():
                delta = first + i
                if diff[i] <= eps:
                    if rechecked >= max_recheck:
                        raise InvalidParameter(
                            f"{self.name}: more than {max_recheck} kernel steps lie within "
                            f"{eps:.1e} of 0; the kernel is too flat to locate its first rise")
                    rechecked += 1
                    if not self._diff_mp(delta, dps) > tiny:
                        continue
                exact = self._diff_mp(delta, dps)
                previous = self._diff_mp(delta - 1, dps) if delta - 1 >= start else None
                consistent = (abs(float(exact) - float(diff[i])) <= eps and exact > tiny
                              and (previous is None or not previous > tiny))
                return Crossing(delta=delta, value=float(diff[i]), value_mp=exact,
                                previous_mp=previous, bound=eps, rechecked=rechecked,
                                consistent=consistent, dps=dps)
        return None

    def _diff_mp(self, delta: int, dps: int) -> mpmath.mpf:
        a, b = self.mp(delta + 1, dps), self.mp(delta, dps)
        with mpmath.workdps(dps + 5):
            return a - b


def _distance(n: int, f: float, eps: float) -> tuple[float, float]:
    """√(2(n − f)) from a float64 f within eps, and a bound on its error."""
    sq = 2.0 * (n - f)
    err = 2 * eps + 4 * U * (n + abs(f))
    dist = math.sqrt(max(sq, 0.0))
    lo, hi = math.sqrt(max(sq - err, 0.0)), math.sqrt(max(sq + err, 0.0))
    return dist, max(hi - dist, dist - lo) * (1 + 1e-9)
