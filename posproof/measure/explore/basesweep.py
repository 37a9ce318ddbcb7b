"""The bad stretch below the first island, swept left to right in t = ln b.

One evaluation of B(m; t) (every m, or a few) at the float point t gives, per m, a
certified interval of offsets h ≥ 0 on which B(m; t + h) < 0.  With V ± ε the value and
its error bound, D ± δ the derivative ∂B/∂t, S the slope bound and Q = m²S₂ + m·S₃ the
curvature bound (from :class:`.basekernel._Kernel`, valid on [t, ∞) since they decrease
in t): B(m; t + h) ≤ V + ε + m·S·h and B(m; t + h) ≤ V + ε + (D + δ)·h + ½Q·h² for h ≥ 0.
Each is negative on an interval (linear; or between the roots of a convex quadratic).  A
computed end is shrunk, then the bound is re-evaluated in float64 at points just outside
the shrunk ends (by more than the rounding of t + h) with a margin for its own rounding:
negative there, so on the whole interval by convexity.  Nothing rests on the computed
roots being accurate.

The union of these intervals, walked greedily from t, is a chain of bad pieces, each
with its witness.  The next point is first tried with a small pool, the *families* of
the last witnesses (a guess, no rigour needed: witnesses drift slowly as m·e^(c·Δt), and
m·b^(±2/d) shifts every phase by one pair) and of the few m lowest at the last broad
evaluation (while their families stay as small as the pool).  If that fails, the top
eighth and then the top half of the m range are evaluated (from L = 131072: new witnesses
are mostly large m), and every m only if they fail too.
The sweep stops where no step is certified (in practice an island's start); the branch
and bound of :mod:`.basebound` takes a window from there, where it is faster
(docs/base-bound.md), and the sweep resumes after it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .basekernel import Kernel
from .metrics import U

_SHRINK = 1e-6
#: Up to this many candidate m, :func:`_bad_intervals` works in Python floats (fewer calls).
FEW = 8
#: The lowest m of the last broad evaluation kept in the pool (a guess, no rigour needed).
SEEDS = 8
#: The broad evaluations tried in turn when the pool certifies no step: m from L·(1 − x)
#: to L for x in TOP (new witnesses are mostly large m; the last, 1, is every m).
TOP = (0.125, 0.5, 1.0)
#: A partial broad evaluation is tried only over at least TOP_LEAST m, and from L = TOP_FROM
#: (below, its saving does not pay for the call: measured in work units, L = 65536 … 262144).
TOP_LEAST = 32768
TOP_FROM = 131072


def _lowest_few(values: np.ndarray, count: int) -> np.ndarray:
    """The indices of the ``count`` lowest values (``np.argpartition``'s, all of them when
    there are no more), without partitioning a long array: the (count+1)-th lowest of every
    64th value is at least the (count+1)-th lowest of all, so the values up to it hold the
    ``count`` lowest (a guess's seeds: no rigour rests on it)."""
    if values.size <= count:
        return np.arange(values.size)
    if values.size > 64 * (count + 1):
        cut = np.partition(values[::64], count)[count]
        near = np.flatnonzero(values <= cut)
        return near[np.argpartition(values[near], count)[:count]]
    return np.argpartition(values, count)[:count]


def _evaluate(kernel: Kernel, t: float, ms: np.ndarray | None, start: int = 0
              ) -> dict[str, Any]:
    """B(m; t) and ∂B/∂t with their bounds at t, and the slope and curvature bounds valid
    on [t, ∞): ``rate`` = m·S and ``q`` = (m²S₂ + m·S₃)(1 + 10⁻⁹) per m, built on demand
    (:func:`_rate_q`) for the m that :func:`_bad_intervals` looks at."""
    ms, vals, errs, (deriv, dbound) = kernel.values(t, ms, start)
    s2, s3 = kernel.curvature(t)
    return {"t": t, "m": ms, "v": vals, "e": errs, "d": deriv, "de": dbound,
            "slope": kernel.slope(t), "s2": s2, "s3": s3}


def _rate_q(ev: dict[str, Any], ms: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(m·S, (m²S₂ + m·S₃)(1 + 10⁻⁹)) for these m of the evaluation ``ev`` (elementwise: the
    same numbers for an m whichever others are asked with it)."""
    mf = ms.astype(np.float64)
    return mf * ev["slope"], (mf * mf * ev["s2"] + mf * ev["s3"]) * (1 + 1e-9)


def _pad(t: float, h: np.ndarray) -> np.ndarray:
    """More than the rounding of fl(t + h) (a piece's end) for offsets up to h."""
    return 4 * U * (abs(t) + 1 + np.abs(h))


def _bad_intervals(ev: dict[str, Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(m, lo, hi): B(m; t + h) < 0 certified for h ∈ [lo, hi] (lo = 0 means from t itself).

    Only an m with c = V + ε < 0 (both bounds) or D + δ < 0 (Taylor) can have an
    interval: the others are dropped first, and every number below is elementwise."""
    t, c, b = ev["t"], ev["v"] + ev["e"], ev["d"] + ev["de"]
    keep = np.flatnonzero((c < 0) | (b < 0))
    if keep.size <= FEW:
        got = _bad_few(ev, ev["m"][keep].tolist(), c[keep].tolist(), b[keep].tolist())
        if got is not None:
            return got
    m = ev["m"][keep]
    c, b = c[keep], b[keep]
    rate, q = _rate_q(ev, m)
    with np.errstate(over="ignore", invalid="ignore"):
        disc = b * b - 2 * q * c
        some = np.flatnonzero(((c < 0) & (rate > 0)) | ((disc > 0) & (q > 0)))
    got = (_bad_few(ev, m[some].tolist(), c[some].tolist(), b[some].tolist())
           if some.size <= FEW else None)
    if got is not None:
        return got
    out_m, out_lo, out_hi = [], [], []
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        # the slope bound: c + rate·h < 0 on [0, −c/rate)
        neg = (c < 0) & (rate > 0)
        hi = -c[neg] / rate[neg]
        hi = hi - _pad(t, hi) - _SHRINK * hi
        far = hi + _pad(t, hi)
        ok = (hi > 0) & (c[neg] + rate[neg] * far + 8 * U * (np.abs(c[neg]) + rate[neg] * far) < 0)
        out_m.append(m[neg][ok])
        out_lo.append(np.zeros(int(ok.sum())))
        out_hi.append(hi[ok])
        # Taylor: c + b·h + ½q·h² < 0 between its roots (stable formulas)
        disc = b * b - 2 * q * c
        pick = (disc > 0) & (q > 0)      # (c < 0) | (b < 0) holds for every kept m
        c2, b2, q2 = c[pick], b[pick], q[pick]
        root = np.sqrt(disc[pick])
        s = -0.5 * (b2 + np.copysign(root, b2))
        r1, r2 = s / (0.5 * q2), c2 / s
        lo, hi = np.maximum(np.minimum(r1, r2), 0.0), np.maximum(r1, r2)
        cut = _pad(t, hi) + _SHRINK * (hi - lo)
        lo = np.where(lo > 0, lo + cut, 0.0)
        hi = hi - cut
        near = np.where(lo > 0, lo - _pad(t, hi), 0.0)
        far = hi + _pad(t, hi)

        def bound(h: np.ndarray) -> np.ndarray:
            terms = np.abs(c2) + np.abs(b2) * h + 0.5 * q2 * h * h
            return c2 + b2 * h + 0.5 * q2 * h * h + 8 * U * terms
        ok = (hi > lo) & (bound(near) < 0) & (bound(far) < 0)
        out_m.append(m[pick][ok])
        out_lo.append(lo[ok])
        out_hi.append(hi[ok])
    return np.concatenate(out_m), np.concatenate(out_lo), np.concatenate(out_hi)


def _bad_few(ev: dict[str, Any], ms: list[int], c: list[float], b: list[float]
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """:func:`_bad_intervals` for a few m (with their c = V + ε and D + δ), in Python
    floats: the same IEEE double operations in the same order as the vectorised path and
    :func:`_rate_q` (no fused multiply-add in either), so the same numbers.  None when a
    division by zero comes up (Python raises where NumPy gives ±inf): the caller then
    takes the vectorised path."""
    try:
        return _bad_few_floats(ev, ms, c, b)
    except ZeroDivisionError:
        return None


def _bad_few_floats(ev: dict[str, Any], ms: list[int], c: list[float], b: list[float]
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    t, slope, s2, s3 = ev["t"], ev["slope"], ev["s2"], ev["s3"]
    pad = 4 * U
    base = abs(t) + 1
    rate, q, disc = [], [], []
    for m, ci, bi in zip(ms, c, b, strict=True):
        mf = float(m)
        qi = (mf * mf * s2 + mf * s3) * (1 + 1e-9)
        rate.append(mf * slope)
        q.append(qi)
        disc.append(bi * bi - 2 * qi * ci)
    out: list[tuple[int, float, float]] = []
    for i, m in enumerate(ms):              # the slope bound
        if c[i] < 0 and rate[i] > 0:
            hi = -c[i] / rate[i]
            hi = hi - pad * (base + abs(hi)) - _SHRINK * hi
            far = hi + pad * (base + abs(hi))
            if hi > 0 and (c[i] + rate[i] * far + 8 * U * (abs(c[i]) + rate[i] * far) < 0):
                out.append((m, 0.0, hi))
    for i, m in enumerate(ms):              # Taylor, between the roots
        if not (disc[i] > 0 and q[i] > 0):
            continue
        ci, bi, qi = c[i], b[i], q[i]
        s = -0.5 * (bi + math.copysign(math.sqrt(disc[i]), bi))
        r1, r2 = s / (0.5 * qi), ci / s
        lo, hi = max(min(r1, r2), 0.0), max(r1, r2)
        cut = pad * (base + abs(hi)) + _SHRINK * (hi - lo)
        lo = lo + cut if lo > 0 else 0.0
        hi = hi - cut
        near = lo - pad * (base + abs(hi)) if lo > 0 else 0.0
        far = hi + pad * (base + abs(hi))
        if hi > lo and all(ci + bi * h + 0.5 * qi * h * h
                           + 8 * U * (abs(ci) + abs(bi) * h + 0.5 * qi * h * h) < 0
                           for h in (near, far)):
            out.append((m, lo, hi))
    return (np.array([o[0] for o in out], dtype=np.int64),
            np.array([o[1] for o in out], dtype=np.float64),
            np.array([o[2] for o in out], dtype=np.float64))


def _chain(t: float, ms: np.ndarray, lo: np.ndarray, hi: np.ndarray
           ) -> list[tuple[float, int]]:
    """The bad pieces from t: [(end offset, witness)], each starting where the last ended.

    Greedy: from x = 0, of the intervals with lo ≤ x the one reaching furthest (the first
    of them, in order of lo, on a tie), while it reaches past x.  A few intervals (the
    usual case) are walked in plain Python (:func:`_chain_few`), the same walk."""
    if not ms.size:
        return []
    if ms.size <= 64:
        return _chain_few(lo.tolist(), hi.tolist(), ms.tolist())
    return _chain_arrays(ms, lo, hi)


def _chain_few(los: list[float], his: list[float], mm: list[int]) -> list[tuple[float, int]]:
    """:func:`_chain` on lists."""
    order = sorted(range(len(los)), key=los.__getitem__)      # stable, as argsort's
    chain: list[tuple[float, int]] = []
    x = 0.0
    while True:
        best, j = -math.inf, -1
        for i in order:
            if los[i] > x:
                break
            if his[i] > best:
                best, j = his[i], i
        if j < 0 or best <= x:
            return chain
        x = best
        chain.append((x, mm[j]))


def _chain_arrays(ms: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> list[tuple[float, int]]:
    """:func:`_chain` on arrays (sorted once, running maxima)."""
    order = np.argsort(lo, kind="stable")
    lo, hi, ms = lo[order], hi[order], ms[order]
    best = np.maximum.accumulate(hi)
    where = np.zeros(hi.size, dtype=np.int64)
    arg = np.flatnonzero(np.r_[True, hi[1:] > best[:-1]])
    where[arg] = arg
    where = np.maximum.accumulate(where)
    chain: list[tuple[float, int]] = []
    x = 0.0
    while True:
        k = int(np.searchsorted(lo, x, side="right")) - 1
        if k < 0 or best[k] <= x:
            return chain
        j = int(where[k])
        x = float(hi[j])
        chain.append((x, int(ms[j])))


def _families(recent: list[tuple[int, float]], t: float, dim: int, length: int,
              drift: tuple[float, float] = (-0.1, 0.6), limit: int | None = None,
              relatives: range = range(-1, 2)) -> np.ndarray | None:
    """A guess (no rigour needed): witnesses come in families that drift slowly with t.
    A witness m at t_w has successors near m·e^(c·(t − t_w)) for c in ``drift``, and
    relatives near m·b^(2j/d) for j in ``relatives`` (scaling m by b^(2/d) shifts every
    phase by one pair).
    None when the pool would hold more than ``limit`` m (its ranges merged first, so no
    large array is built for nothing)."""
    spans = _family_spans(recent, t, dim, length, drift, limit, relatives)
    return None if spans is None else _span_array(spans)


def _family_spans(recent: list[tuple[int, float]], t: float, dim: int, length: int,
                  drift: tuple[float, float] = (-0.1, 0.6), limit: int | None = None,
                  relatives: range = range(-1, 2)) -> list[list[int]] | None:
    """:func:`_families` as merged, sorted ranges [lo, hi] of m (None: over ``limit``)."""
    spans = []
    for m, t_w in recent:
        gap = t - t_w
        for j in relatives:
            base = m * math.exp(2 * j * t / dim)
            lo = max(1, math.floor(base * math.exp(drift[0] * gap)) - 2)
            hi = min(length, math.ceil(base * math.exp(drift[1] * gap)) + 2)
            if lo <= hi:
                spans.append((lo, hi))
    merged = _merge_spans(spans)
    if limit is not None and _span_size(merged) > limit:
        return None
    return merged


def _merge_spans(spans: list) -> list[list[int]]:
    """Sorted disjoint, non-adjacent ranges holding the same integers as ``spans``."""
    merged: list[list[int]] = []
    for lo, hi in sorted(spans):
        if merged and lo <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    return merged


def _span_size(spans: list[list[int]]) -> int:
    return sum(hi - lo + 1 for lo, hi in spans)


def _span_array(spans: list[list[int]]) -> np.ndarray:
    """The integers of sorted disjoint ranges, in order (int64), in a few array operations."""
    if not spans:
        return np.zeros(0, dtype=np.int64)
    lo = np.array([a for a, _ in spans], dtype=np.int64)
    size = np.array([b - a + 1 for a, b in spans], dtype=np.int64)
    before = np.cumsum(size) - size
    return np.arange(int(size.sum()), dtype=np.int64) + np.repeat(lo - before, size)


def sweep_bad(kernel: Kernel, t_lo: float, t_end: float,
              add: Callable[[float, float, str, int | None], None],
              tick: Callable[[float], None]) -> float:
    """Cover [t_lo, …] left to right with certified bad pieces (``add(lo, hi, "bad",
    witness)``) for as long as one evaluation at the current point certifies a step;
    return the point where that stops (``t_end`` at most; or where the kernel's budget is
    spent, :meth:`Kernel.spent`): the rest is for the branch and bound.  A small pool (the
    witness families of the last witnesses) is tried before every m is evaluated."""
    few = (kernel.length + 1) // 24   # past this, one full evaluation is cheaper
    t = t_lo
    recent: list[tuple[int, float]] = []    # the last witnesses, and where they were found
    seeds: list[tuple[int, float]] = []     # the lowest m of the last full evaluation

    def bad(ev: dict[str, Any]) -> float:
        nonlocal recent
        start = t
        for x, m in _chain(t, *_bad_intervals(ev)):
            end = min(t + x, t_end)
            if end > start:
                add(start, end, "bad", m)
                start = end
            recent = [(m, t), *[r for r in recent if r[0] != m][:2]]
        return start

    while t < t_end and not kernel.spent():
        tick(t)
        new = t
        if recent:
            spans = _family_spans(recent, t, 2 * kernel.n, kernel.length, limit=few)
            if spans is not None and seeds:
                more = _family_spans(seeds, t, 2 * kernel.n, kernel.length,
                                     limit=max(64, _span_size(spans)), relatives=range(1))
                if more is None:
                    seeds = []          # too far from where they were found: a guess no more
                else:
                    spans = _merge_spans(spans + more)
            if spans is not None:
                new = bad(_evaluate(kernel, t, _span_array(spans)))
        for part in TOP:   # the top of the m range first: most new witnesses are there
            if new != t:
                break
            if part < 1 and (kernel.length < TOP_FROM or part * kernel.length < TOP_LEAST):
                continue        # a short range costs about as much as every m
            ev = _evaluate(kernel, t, None, kernel.length - int(kernel.length * part))
            upper = ev["v"] + ev["e"]
            low = _lowest_few(upper, SEEDS)
            seeds = [(int(m), t) for m in ev["m"][low] if m > 0]
            new = bad(ev)
        if new == t:
            return t
        t = new
    return t
