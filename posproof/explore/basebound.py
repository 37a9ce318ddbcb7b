"""The RoPE base bound of Men et al. (2024): the smallest base with B(m) ≥ 0 for m ≤ L.

A float64 grid scan (:func:`_fast_min`) shows what the set of good bases looks
like; brackets are refined, bisected and certified with exact frequencies by
:func:`posproof.explore.metrics.kernel_first_negative`.  Re-exported by
:mod:`posproof.explore`.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

import numpy as np
import sympy as sp

from ..errors import MAX_DIM, InvalidParameter, check_finite, check_int, check_positive
from ..precise import DEFAULT_DPS
from ..schedules import Geometric, Schedule
from .metrics import U, _length, kernel_first_negative


def _fast_min(theta: np.ndarray, length: int) -> tuple[float, int, float]:
    """min over m ∈ 0 … L of Σ_k cos(mθ_k) for float64 θ: (value, argmin, error bound).

    The exploratory probe of the base scan: Δ = qB + r, Re(A·Bᵀ) with
    A[q,k] = e^{iθ_k qB} and B[r,k] = e^{iθ_k r}, phases formed directly in
    float64 (cheaper to set up than :class:`posproof.numeric.OffsetKernel`'s
    fixed-point phases, which certify the final answers).  Bound: phases within
    2.02u·Lθ_max each (θ's rounding included), sin/cos within 4u, two GEMMs
    within γ_n·n each.
    """
    n = theta.size
    block = math.isqrt(length) + 1
    rows = length // block + 1
    r = np.arange(block, dtype=np.float64)
    b = np.multiply.outer(r, theta)
    cb, sb = np.cos(b).T.copy(), np.sin(b).T.copy()
    best, arg = math.inf, 0
    step = max(1, (1 << 21) // block)
    for q0 in range(0, rows, step):
        q = np.arange(q0, min(rows, q0 + step), dtype=np.float64) * block
        a = np.multiply.outer(q, theta)
        # einsum's own loop, not BLAS: for these small products a multi-threaded BLAS
        # is several times slower on a busy machine, and never faster here
        vals = (np.einsum("qk,kr->qr", np.cos(a), cb, optimize=False)
                - np.einsum("qk,kr->qr", np.sin(a), sb, optimize=False)).reshape(-1)
        first = q0 * block
        vals = vals[:max(0, length + 1 - first)]
        i = int(np.argmin(vals))
        if vals[i] < best:
            best, arg = float(vals[i]), first + i
    gamma = n * U / (1 - n * U)
    eps = 1.01 * (n * (4.04 * U * length * float(theta.max()) + 16 * U) + 2 * gamma * n + U * n)
    return best, arg, eps


@dataclass
class Bracket:
    """A certified bracket (``lower`` bad, ``upper`` good) found by refinement and bisection.

    >>> Bracket(sp.Integer(9), sp.Integer(10)).to_dict()["upper"]
    '10'
    """

    lower: sp.Expr | None = None
    upper: sp.Expr | None = None
    monotone: bool = False
    fine: list[tuple[float, float, str]] = field(default_factory=list)
    witness_m: int | None = None
    witness_mp: str | None = None
    upper_certified: bool = False
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"lower": None if self.lower is None else str(self.lower),
                "upper": None if self.upper is None else str(self.upper),
                "lower_witness": {"m": self.witness_m, "B_mp": self.witness_mp},
                "upper_certified": self.upper_certified,
                "fine_grid_monotone": self.monotone,
                "fine_grid": [[f"{b:.6g}", f"{v:.4g}", s] for b, v, s in self.fine],
                "notes": self.notes}


@dataclass
class BaseBound:
    """What the set of good bases looks like for (d, L), and the bounds with their brackets.

    ``grid`` holds ``(base, min_m B(m), status)`` for the log-grid scan,
    ``dense`` the same for the dense scan of the transition zone;
    ``good_runs`` the maximal runs of good bases over both; ``interval``
    whether there is only one (reaching the top of the grid).  ``smallest`` brackets the
    smallest good base (Men et al.'s base_L, the bound reported); ``threshold``
    brackets the base above which every grid base is good (equal to
    ``smallest`` when the good set is an interval).

    >>> bb = base_bound(32, 8, per_decade=4, highest=1e4, dense_per_decade=20)
    >>> bb.bound == bb.smallest.upper, bb.summary().startswith("smallest good base")
    (True, True)
    """

    length: int
    dim: int
    family: str
    grid: list[tuple[float, float, str]] = field(default_factory=list)
    dense: list[tuple[float, float, str]] = field(default_factory=list)
    good_runs: list[tuple[float, float]] = field(default_factory=list)
    interval: bool = False
    smallest: Bracket = field(default_factory=Bracket)
    threshold: Bracket = field(default_factory=Bracket)
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)

    @property
    def bound(self) -> sp.Expr | None:
        """The smallest good base found (the good end of ``smallest``)."""
        return self.smallest.upper

    def to_dict(self) -> dict[str, Any]:
        return {"length": self.length, "dim": self.dim, "family": self.family,
                "bound": None if self.bound is None else str(self.bound),
                "smallest_good_base": self.smallest.to_dict(),
                "all_good_above": self.threshold.to_dict(),
                "good_set_is_interval_on_grid": self.interval,
                "good_runs": [[f"{a:.4g}", f"{b:.4g}"] for a, b in self.good_runs],
                "grid": [[f"{b:.4g}", f"{v:.4g}", s] for b, v, s in self.grid],
                "dense_scan_points": len(self.dense),
                "notes": self.notes, "seconds": round(self.seconds, 2),
                "certified": "grid, refinement and bisection: float64 GEMM scans with an "
                             "error bound (values within it decided by the certified kernel); "
                             "bracket ends: exact frequencies, posproof.numeric.OffsetKernel, "
                             f"crossings recomputed in mpmath at {DEFAULT_DPS} digits"}

    def summary(self) -> str:
        if self.bound is None:
            return f"no good base found on the grid for L={self.length}, d={self.dim}"
        s, t = self.smallest, self.threshold
        text = (f"smallest good base ∈ ({_short(s.lower)}, {_short(s.upper)}] for "
                f"L={self.length}, d={self.dim}")
        if self.interval:
            return text + "; the good set is one interval [base_L, ∞) on the grid"
        runs = ", ".join(f"[{a:.3g}, {b:.3g}]" for a, b in self.good_runs[:3])
        more = f", … ({len(self.good_runs)} runs)" if len(self.good_runs) > 3 else ""
        return (text + f"; the good set is NOT an interval: runs {runs}{more}; every scanned "
                f"base ≥ {_short(t.upper)} is good (bracket ({_short(t.lower)}, "
                f"{_short(t.upper)}])")


def _short(value: Any) -> str:
    if isinstance(value, (int, sp.Integer)):
        return str(int(value))
    return f"{float(value):.7g}"


def _classify(value: float, eps: float) -> str:
    return "good" if value > eps else "bad" if value < -eps else "near"


def base_bound(length: int, dim: int, *, schedule: Schedule | None = None,
               per_decade: int = 10, lowest: float = 10.0, highest: float = 1e12,
               dense_per_decade: int = 400, max_dense: int = 800, beyond: float = 4.0,
               refine: int = 24,
               rel_tol: float = 1e-7) -> BaseBound:
    """The smallest base b with B_b(m) = Σ_k cos(m·θ_k(b)) ≥ 0 for all m ∈ 0 … L.

    The good set need not be an interval (for d = 128 it is a union of many
    islands), so: (1) a log grid (``per_decade`` per decade from ``lowest`` to
    ``highest``) shows its overall shape; (2) the transition zone — from the
    last bad grid base below the first good one to ``beyond`` times the start
    of the final good run — is scanned densely (``dense_per_decade``, at most
    ``max_dense`` bases) to map the islands; (3) the bracket of the first good base found,
    and of the start of the last run, is refined with a finer grid until that
    grid changes sign exactly once (``monotone``; each narrowing is noted);
    (4) only then bisection runs (width 1 for bases ≥ 10⁴, else relative
    ``rel_tol``); (5) both ends of each bracket are certified with exact
    frequencies.  Every statement is "at this resolution": islands narrower
    than the dense spacing can be missed, and the notes say so.
    ``schedule`` (default ``Geometric``) is any rule with a base.

    >>> bb = base_bound(64, 8, per_decade=4, highest=1e4, dense_per_decade=20)
    >>> bb.smallest.lower < bb.smallest.upper, bb.smallest.witness_m is not None
    (True, True)
    """
    from ..scaling import numeric_frequencies, with_base

    start = time.perf_counter()
    length, dim = _length(length), check_int("dim", dim, minimum=2, maximum=MAX_DIM)
    if schedule is not None and not isinstance(schedule, Schedule):
        raise InvalidParameter(f"schedule={schedule!r} is not a Schedule; pass e.g. "
                               "posproof.scaling.make_scaling('yarn', factor=4)")
    lowest, highest = check_positive("lowest", lowest, greater_than=1.0), check_finite(
        "highest", highest)
    if not highest > lowest:
        raise InvalidParameter(f"highest={highest!r} must be > lowest={lowest!r}")
    beyond = check_positive("beyond", beyond, greater_than=0.0)
    per_decade = check_int("per_decade", per_decade, minimum=1, maximum=10_000)
    dense_per_decade = check_int("dense_per_decade", dense_per_decade, minimum=0,
                                 maximum=100_000)
    max_dense = check_int("max_dense", max_dense, minimum=3, maximum=100_000)
    refine = check_int("refine", refine, minimum=1, maximum=10_000)
    rel_tol = check_positive("rel_tol", rel_tol)
    schedule = schedule or Geometric(10000)
    family = getattr(schedule, "rope_type", schedule.family)
    out = BaseBound(length, dim, family)
    geometric = type(schedule) is Geometric

    def probe(base: float) -> tuple[float, str]:
        if geometric:  # θ_k = exp(−(2k/d)·ln b): relative error ≤ 64u, covered by the bound
            freqs = np.exp(-np.arange(0, dim // 2) * (2.0 / dim) * math.log(base))
        else:
            freqs = numeric_frequencies(with_base(schedule, _exact_base(base)), dim)
        value, _, eps = _fast_min(freqs, length)
        eps += 64 * U * length * float(freqs.sum())
        status = _classify(value, eps)
        if status == "near":  # decide with the float64 frequencies' exact values, certified
            status = "good" if _exact_min_ok(freqs, length) else "bad"
        return value, status

    count = max(2, round(math.log10(highest / lowest) * per_decade) + 1)
    out.grid = [(float(b), *probe(float(b))) for b in np.geomspace(lowest, highest, count)]
    coarse = _runs(out.grid)
    if not coarse or out.grid[-1][2] != "good":
        out.notes.append("the largest grid base is not good: widen the grid (highest=...)")
    elif out.grid[0][2] == "good":
        out.notes.append("the smallest grid base is good: lower the grid (lowest=...)")
    else:
        bases = [g[0] for g in out.grid]
        zone_lo = bases[bases.index(coarse[0][0]) - 1]
        zone_hi = min(coarse[-1][0] * beyond, highest)
        if dense_per_decade:
            decades = math.log10(zone_hi / zone_lo)
            n_dense = min(max_dense, max(3, int(decades * dense_per_decade) + 1))
            if n_dense == max_dense and decades * dense_per_decade > max_dense:
                out.notes.append(f"the dense scan of ({zone_lo:.4g}, {zone_hi:.4g}) was capped "
                                 f"at {max_dense} bases ({max_dense / decades:.0f} per decade)")
            out.dense = [(float(b), *probe(float(b)))
                         for b in np.geomspace(zone_lo, zone_hi, n_dense)[1:-1]]
        merged = sorted(out.grid + out.dense)
        runs = _runs(merged)
        out.good_runs = [(a, b) for a, b in runs]
        out.interval = len(runs) == 1
        bases = [g[0] for g in merged]
        first, last = runs[0][0], runs[-1][0]
        out.smallest = _bracket(probe, bases[bases.index(first) - 1], first, True, refine,
                                rel_tol, schedule, dim, length)
        out.threshold = (out.smallest if len(runs) == 1 else
                         _bracket(probe, bases[bases.index(last) - 1], last, False, refine,
                                  rel_tol, schedule, dim, length))
        spacing = (f"{dense_per_decade} per decade" if dense_per_decade else
                   f"{per_decade} per decade")
        if not out.interval:
            out.notes.append(f"the good set is not an interval: {len(runs)} runs of good bases "
                             f"at {spacing} in the transition zone; base_L is the smallest "
                             "good base found, 'all_good_above' the start of the last run")
        out.notes.append(f"resolution: islands narrower than the scan spacing ({spacing}) "
                         "between grid points can be missed")
    out.seconds = time.perf_counter() - start
    return out


def _runs(scan: list[tuple[float, float, str]]) -> list[list[float]]:
    runs: list[list[float]] = []
    for i, (base, _, status) in enumerate(scan):
        if status == "good":
            if i and scan[i - 1][2] == "good":
                runs[-1][1] = base
            else:
                runs.append([base, base])
    return runs


def _bracket(probe: Any, lo: float, hi: float, first: bool, refine: int, rel_tol: float,
             schedule: Schedule, dim: int, length: int) -> Bracket:
    """Refine (lo bad, hi good) to a monotone sub-bracket, bisect, certify the ends."""
    from ..scaling import with_base

    out = Bracket()
    for _ in range(6):
        fine = [(float(b), *probe(float(b))) for b in np.geomspace(lo, hi, refine + 2)]
        statuses = [s for _, _, s in fine]
        flips = sum(a != b for a, b in pairwise(statuses))
        out.fine = fine
        if first:
            i = statuses.index("good")
            lo, hi = fine[i - 1][0], fine[i][0]
        else:
            i = max(j for j, s in enumerate(statuses) if s == "bad")
            lo, hi = fine[i][0], fine[i + 1][0]
        if flips == 1:
            out.monotone = True
            break
        out.notes.append(f"fine grid in ({fine[0][0]:.7g}, {fine[-1][0]:.7g}) changes sign "
                         f"{flips} times; narrowed to its {'first' if first else 'last'} "
                         f"change ({lo:.7g}, {hi:.7g})")
    if lo >= 100:  # integer resolution (bases this large are reported as integers)
        lo_i, hi_i = math.floor(lo), math.ceil(hi)
        while hi_i - lo_i > 1:
            mid = (lo_i + hi_i) // 2
            lo_i, hi_i = (lo_i, mid) if probe(float(mid))[1] == "good" else (mid, hi_i)
        lower, upper = sp.Integer(lo_i), sp.Integer(hi_i)
    else:
        while (hi - lo) / hi > rel_tol:
            mid = math.sqrt(lo * hi)
            lo, hi = (lo, mid) if probe(mid)[1] == "good" else (mid, hi)
        lower, upper = _exact_base(lo), _exact_base(hi)
    low = kernel_first_negative(with_base(schedule, lower).frequencies(dim), length)
    high = kernel_first_negative(with_base(schedule, upper).frequencies(dim), length)
    out.lower, out.upper = lower, upper
    out.witness_m, out.witness_mp = low.get("m"), low.get("value_mp")
    out.upper_certified = high["m"] is None
    if low.get("m") is None:
        out.notes.append("the lower end is good with exact frequencies: not certified")
    if not out.upper_certified:
        out.notes.append(f"the upper end has B({high['m']}) < 0 with exact frequencies: not "
                         "certified")
    return out


def _exact_base(base: Any) -> sp.Expr:
    from ..schedules import exact_number

    if isinstance(base, (float, int)) and base >= 100 and float(base).is_integer():
        return sp.Integer(round(base))
    return exact_number("base", float(f"{float(base):.12g}"))


def _exact_min_ok(freqs: np.ndarray, length: int) -> bool:
    """B(m) ≥ 0 for all m ≤ L with these (float64, taken as exact) frequencies."""
    return kernel_first_negative(tuple(sp.Rational(repr(float(f))) for f in freqs),
                                 length)["m"] is None
