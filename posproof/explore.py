"""The numbers papers use to choose a RoPE base, certified, and side-by-side comparisons.

Every number states how it is certified: a float64 computation with a
rigorous error bound, with the extremes (or the values within the bound of a
decision) recomputed in mpmath at ≥ 50 digits inside ``mpmath.workdps``.

* :func:`kernel_first_negative` — the first m with B(m) = Σ_k cos(mθ_k) < 0
  (the offset kernel of :class:`posproof.numeric.OffsetKernel`, a GEMM scan);
* :func:`decay_curve` — RoFormer's long-term decay (1/n)·Σ_{j=1..n} |S_j|,
  S_j = Σ_{i<j} e^{iΔθ_i};
* :func:`base_bound` — the smallest base with B(m) ≥ 0 for all m ∈ 0 … L (Men et
  al. 2024), after a grid scan that shows what the set of good bases looks like;
* :func:`critical_dimension` — d_extra = 2·⌈(d/2)·log_b(T/(2π))⌉ (Liu et al. 2023);
* :func:`band_coverage` — which pairs have a wavelength 2π/θ_k that fits in L;
* :func:`dtype_audit` — first integer position a dtype cannot hold, and the phase
  error of m·θ formed in float32 / float16 / bfloat16.

:func:`explore` runs all of them (and the proofs) for several encodings,
sinusoidal or rotary; :func:`plot_exploration` overlays the curves.

>>> first = kernel_first_negative(Geometric(10000).frequencies(8), 100)
>>> first["m"], first["value_mp"][:8], first["certified"].startswith("float64 GEMM")
(91, '-0.33248', True)
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

import mpmath
import numpy as np
import sympy as sp

from .encoding import Encoding, as_positions
from .errors import (
    MAX_DIM,
    InvalidParameter,
    check_finite,
    check_int,
    check_positive,
    check_sequence,
)
from .precise import DEFAULT_DPS, mp_value, mp_values
from .schedules import Geometric, Schedule

__all__ = [
    "BaseBound",
    "Bracket",
    "Exploration",
    "band_coverage",
    "base_bound",
    "critical_dimension",
    "decay_curve",
    "dtype_audit",
    "explore",
    "kernel_first_negative",
    "pair_frequencies",
    "plot_exploration",
]

U = 2.0 ** -53
DTYPES = ("float32", "float16", "bfloat16")
MAX_LENGTH = 1 << 24


def _length(length: Any) -> int:
    return check_int("length", length, minimum=1, maximum=MAX_LENGTH)


def _nstr(value: Any, digits: int = 12) -> str:
    return mpmath.nstr(value, digits) if isinstance(value, mpmath.mpf) else str(value)


def pair_frequencies(obj: Any) -> tuple[sp.Expr, ...]:
    """The exact pair frequencies of a :class:`~posproof.rope.Rotary` or an :class:`Encoding`.

    >>> pair_frequencies(Encoding(Geometric(100), "split", 4))
    (1, 1/10)
    """
    from .rope import Rotary

    if isinstance(obj, Rotary):
        return obj.frequencies
    if isinstance(obj, Encoding):
        problems = obj.broken_pairs()
        if problems:
            raise InvalidParameter(f"{obj.name}: {problems[0]}; the kernel needs (sin, cos) "
                                   "pairs that share one frequency")
        return tuple(obj.column_frequency(s) for s, _ in obj.pairs)
    from .schedules import exact_number

    if isinstance(obj, (Sequence, np.ndarray)) and not isinstance(obj, (str, bytes)):
        values = tuple(exact_number(f"frequencies[{i}]", v) for i, v in enumerate(obj))
        if not values:
            raise InvalidParameter("frequencies=[] is empty; pass at least one frequency")
        if len(values) > MAX_DIM // 2:
            raise InvalidParameter(f"{len(values)} frequencies are too many; at most "
                                   f"{MAX_DIM // 2} are accepted")
        return values
    raise InvalidParameter(f"frequencies={obj!r} is neither a Rotary, an Encoding nor a list of "
                           "frequencies")


@dataclass(frozen=True)
class _Fixed(Schedule):
    """Exact frequencies given as they are (already validated), for building a kernel."""

    values: tuple[sp.Expr, ...] = ()
    family = "fixed"

    def frequencies(self, d: int) -> tuple[sp.Expr, ...]:
        return self.values


def _kernel(source: Any) -> Any:
    """An OffsetKernel for a Rotary, an Encoding or exact frequencies (through an Encoding,
    which skips re-validating every frequency)."""
    from .numeric import OffsetKernel
    from .rope import Rotary

    if isinstance(source, Rotary):
        source = source.encoding()
    if not isinstance(source, Encoding):
        values = pair_frequencies(source)
        source = Encoding(_Fixed(values), "interleaved", 2 * len(values))
    return OffsetKernel(source)


# --------------------------------------------------------------------------- kernel B(m)
def kernel_first_negative(frequencies: Sequence[Any], length: int, *,
                          dps: int = DEFAULT_DPS, kernel: Any = None) -> dict[str, Any]:
    """The first m ∈ 0 … L with B(m) = Σ_k cos(mθ_k) < 0, certified (``m=None``: none).

    The scan is :class:`posproof.numeric.OffsetKernel` (a chunked GEMM with a
    rigorous float64 bound); values within the bound are recomputed in mpmath,
    and the answer is confirmed there at m and m − 1.

    >>> kernel_first_negative([1], 10)["m"]
    2
    >>> kernel_first_negative([1, sp.Rational(1, 100)], 10)["m"] is None
    True
    """
    length = _length(length)
    dps = check_int("dps", dps, minimum=15, maximum=1000)
    kernel = kernel or _kernel(frequencies)
    crossing = kernel.first_crossing(0, below=True, start=0, stop=length + 1, dps=dps)
    out: dict[str, Any] = {"length": length, "bound": kernel.scan_bound(length + 1),
                           "certified": f"float64 GEMM scan (bound "
                                        f"{kernel.scan_bound(length + 1):.1e}), crossing "
                                        f"recomputed in mpmath at {dps} digits"}
    if crossing is None:
        out.update(m=None, summary=f"B(m) ≥ 0 for every m ≤ {length}")
        return out
    out.update(m=crossing.delta, value_mp=_nstr(crossing.value_mp, 15),
               previous_mp=(None if crossing.previous_mp is None
                            else _nstr(crossing.previous_mp, 15)),
               consistent=crossing.consistent, rechecked=crossing.rechecked,
               summary=f"B({crossing.delta}) = {_nstr(crossing.value_mp, 6)} < 0")
    return out


# --------------------------------------------------------------------------- decay
def decay_curve(frequencies: Sequence[Any], deltas: Any) -> dict[str, Any]:
    """RoFormer's (1/n)·Σ_{j=1..n}|S_j|, S_j = Σ_{i<j} e^{iΔθ_i}, at the given offsets.

    Returns ``deltas``, ``values`` (float64, shape ``(len(deltas),)``), the
    a-priori ``bound`` on their error, and the smallest value (over Δ > 0) and
    the value at the largest Δ recomputed in mpmath at 50 digits.

    >>> c = decay_curve([1, sp.Rational(1, 100)], [0, 1, 2])
    >>> c["values"].round(4).tolist(), c["at_zero"]
    ([1.5, 1.38, 1.0487], '3/2')
    """
    freqs = pair_frequencies(frequencies)
    n = len(freqs)
    theta = np.array([float(v) for v in mp_values(freqs, 30)])
    if isinstance(deltas, (int, np.integer)) and not isinstance(deltas, bool):
        deltas = [deltas]
    given = as_positions("deltas", deltas)
    if (given.size == 0 or np.any(given < 0) or np.any(given > 1e15)
            or np.any(given != np.round(given))):
        raise InvalidParameter("deltas must be a non-empty list of whole offsets "
                               "0 ≤ Δ ≤ 10^15")
    d = given.astype(np.int64)
    values = np.empty(d.size)
    step = max(1, (1 << 21) // max(n, 1))
    for lo in range(0, d.size, step):
        ang = np.multiply.outer(d[lo:lo + step].astype(np.float64), theta)
        s = np.cumsum(np.cos(ang) + 1j * np.sin(ang), axis=1)
        values[lo:lo + step] = np.abs(s).mean(axis=1)
    # |fl(Δ·θ) − Δθ| ≤ 1.01·(2u)|Δθ| (θ rounded once, product rounded once); each e^{iφ}
    # within that plus 8u; a cumulative sum of ≤ n terms of modulus ≤ 1 adds ≤ 1.01·n²u.
    bound = n * (2.02 * U * float(d.max()) * float(theta.max()) + 8 * U) + 1.01 * n * n * U
    positive = np.flatnonzero(d > 0)
    out: dict[str, Any] = {"deltas": d, "values": values, "bound": bound,
                           "at_zero": str(sp.Rational(n + 1, 2)),
                           "certified": f"float64, error ≤ {bound:.1e}; extremes in mpmath at "
                                        f"{DEFAULT_DPS} digits"}
    if positive.size:
        i_min = int(positive[np.argmin(values[positive])])
        thetas = mp_values(freqs, DEFAULT_DPS + len(str(int(d.max()))) + 10)
        out["min"] = {"delta": int(d[i_min]), "value": float(values[i_min]),
                      "value_mp": _nstr(_decay_mp(thetas, int(d[i_min])), 15)}
        out["last"] = {"delta": int(d[-1]),
                       "value_mp": _nstr(_decay_mp(thetas, int(d[-1])), 15)}
    return out


def _decay_mp(thetas: Sequence[mpmath.mpf], delta: int) -> mpmath.mpf:
    """The decay value at Δ in mpmath, from frequencies given to ≥ 50 + digits(Δ) digits."""
    dps = DEFAULT_DPS + len(str(delta)) + 10
    with mpmath.workdps(dps):
        total, acc = mpmath.mpf(0), mpmath.mpc(0)
        for w in thetas:
            acc += mpmath.expj(w * delta)
            total += abs(acc)
        value = total / len(thetas)
    with mpmath.workdps(DEFAULT_DPS):
        return +value


def _decay_deltas(length: int, dense: int = 2048, sparse: int = 512) -> np.ndarray:
    d = np.arange(min(length, dense) + 1)
    if length > dense:
        d = np.union1d(d, np.unique(np.geomspace(dense, length, sparse).astype(np.int64)))
    return d


# --------------------------------------------------------------------------- base bound
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
    from .scaling import numeric_frequencies, with_base

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
    from .scaling import with_base

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
    from .schedules import exact_number

    if isinstance(base, (float, int)) and base >= 100 and float(base).is_integer():
        return sp.Integer(round(base))
    return exact_number("base", float(f"{float(base):.12g}"))


def _exact_min_ok(freqs: np.ndarray, length: int) -> bool:
    """B(m) ≥ 0 for all m ≤ L with these (float64, taken as exact) frequencies."""
    return kernel_first_negative(tuple(sp.Rational(repr(float(f))) for f in freqs),
                                 length)["m"] is None


# --------------------------------------------------------------------------- bands
def critical_dimension(base: Any, dim: int, train_length: int) -> dict[str, Any]:
    """Liu et al.'s d_extra = 2·⌈(d/2)·log_b(T/(2π))⌉, exact (ceil decided in mpmath).

    Clipped to [0, d].  ``pairs_covered`` counts pairs with period 2π·b^(2k/d) ≤ T
    (equal to d_extra/2 for the geometric schedule).

    >>> critical_dimension(10000, 128, 4096)["d_extra"]
    92
    """
    from .scaling import _ceil, _check_base

    b = _check_base(base)
    dim, train_length = check_int("dim", dim, minimum=2, maximum=MAX_DIM), _length(train_length)
    x = sp.Rational(dim, 2) * sp.log(sp.Integer(train_length) / (2 * sp.pi)) / sp.log(b)
    value = 2 * _ceil(x, "critical dimension")
    clipped = min(max(int(value), 0), dim)
    covered = band_coverage(Geometric(b).frequencies(dim), train_length)["count"]
    return {"d_extra": clipped, "unclipped": int(value), "pairs_covered": covered,
            "x": _nstr(mp_value(x, 30), 15), "train_length": train_length,
            "certified": "exact expression; ceil decided in mpmath with a certified margin"}


def band_coverage(frequencies: Sequence[Any], length: int,
                  bands: Sequence[str] | None = None) -> dict[str, Any]:
    """Which pairs have a wavelength 2π/θ_k that fits in L (decided exactly).

    >>> band_coverage([1, sp.Rational(1, 100), sp.Rational(1, 10000)], 1000)["covered"]
    [0, 1]
    """
    from .scaling import decide

    freqs = pair_frequencies(frequencies)
    length = _length(length)
    theta = mp_values(freqs, 30)
    with mpmath.workdps(30):
        wave = [2 * mpmath.pi / t for t in theta]
    covered = []
    for k, (t, w) in enumerate(zip(freqs, wave, strict=True)):
        # 30-digit values err by < 10^-25 relatively: a wider gap decides; else decide exactly
        if abs(w - length) > mpmath.mpf(10) ** -20 * length:
            fits = w <= length
        else:
            fits = decide(2 * sp.pi / t, length) <= 0
        if fits:
            covered.append(k)
    wavelengths = [float(v) for v in wave]
    out = {"length": length, "covered": covered, "count": len(covered), "pairs": len(freqs),
           "wavelengths": wavelengths,
           "certified": "each comparison 2π/θ_k ≤ L decided in mpmath with a certified margin"}
    if bands is not None:
        out["bands"] = [str(b) for b in check_sequence("bands", bands)]
    return out


# --------------------------------------------------------------------------- dtypes
def dtype_audit(frequencies: Sequence[Any], length: int,
                dtypes: Sequence[str] = DTYPES) -> dict[str, Any]:
    """Per dtype: first integer position it cannot hold, and the phase error of m·θ in it.

    The angle is formed as torch does, ``fl(fl(m)·fl(θ))`` in the dtype, for
    every m ∈ 0 … L−1 and every pair whose a-priori error bound
    3.01·ε·mθ + 2ε can still beat the worst error found (pairs in decreasing
    θ).  fl(m)·fl(θ) is exact in float64 (two ≤ 24-bit significands), so only
    the final rounding is done in the dtype; the float64 reference m·θ has
    error ≤ 3.01u|mθ|.  The worst case is recomputed in mpmath at 50 digits
    with the exact θ, together with the cosine error it causes.  Positions
    that overflow the dtype (float16 beyond 65519) are reported, not scored.

    >>> audit = dtype_audit([1, sp.Rational(1, 100)], 4096, ["float16"])
    >>> fp16 = audit["float16"]
    >>> fp16["first_unrepresentable_integer"], fp16["max_phase_error_at"], fp16["max_phase_error"]
    (2049, {'m': 2049, 'pair': 0}, '1.0')
    """
    from .numeric import dtype_model, first_unrepresentable_integer

    freqs = pair_frequencies(frequencies)
    length = _length(length)
    dtypes = check_sequence("dtypes", dtypes, strings=True)
    thetas_mp = mp_values(freqs, DEFAULT_DPS + 20)
    theta = np.array([float(v) for v in thetas_mp])
    order = np.argsort(-theta)
    pos = np.arange(length, dtype=np.float64)
    out: dict[str, Any] = {}
    for name in dtypes:
        model = dtype_model(name)
        unit = first_unrepresentable_integer(name)
        eps = 1.0 / (unit - 1)
        pos_r = model.round(pos)
        finite = np.isfinite(pos_r)
        first_overflow = None if finite.all() else int(np.argmin(finite))
        usable = pos_r[finite]
        exact_pos = pos[finite]
        top = float(exact_pos[-1]) if exact_pos.size else 0.0
        best, where = -1.0, (0, 0)
        for k in order.tolist():
            if 3.01 * eps * top * theta[k] + 2 * eps < best:
                break
            t_r = float(model.round([theta[k]])[0])
            ang = model.round(usable * t_r)
            with np.errstate(invalid="ignore"):
                err = np.abs(ang - exact_pos * theta[k])
            err = np.where(np.isfinite(err), err, -1.0)
            i = int(np.argmax(err))
            if err[i] > best:
                best, where = float(err[i]), (int(exact_pos[i]), k)
        m, k = where
        angle = float(model.round([float(model.round([float(m)])[0])
                                   * float(model.round([theta[k]])[0])])[0])
        with mpmath.workdps(DEFAULT_DPS + 20):
            exact = m * thetas_mp[k]
            phase = abs(mpmath.mpf(angle) - exact) if math.isfinite(angle) else mpmath.inf
            cos_err = (abs(mpmath.cos(mpmath.mpf(angle)) - mpmath.cos(exact))
                       if math.isfinite(angle) else mpmath.inf)
        out[name] = {
            "implementation": model.implementation,
            "first_unrepresentable_integer": unit,
            "first_overflow_position": first_overflow,
            "max_phase_error": _nstr(phase, 10), "max_phase_error_at": {"m": m, "pair": k},
            "cos_error_there": _nstr(cos_err, 10),
            "float64_reference_bound": f"{3.01 * U * max(length - 1, 1) * float(theta.max()):.1e}",
            "certified": f"float64 reference (error ≤ 3.01u|mθ|) over m < {length}"
                         + (f" (m < {first_overflow}: larger positions overflow)"
                            if first_overflow is not None else "")
                         + f"; the worst case recomputed in mpmath at {DEFAULT_DPS} digits"}
    return out


# --------------------------------------------------------------------------- comparison
@dataclass
class Subject:
    """One encoding in a comparison: its label, object and pair frequencies.

    >>> from posproof.rope import rotary
    >>> s = _subject(rotary(10000, 4))
    >>> s.kind, s.dim, s.base
    ('rotary', 4, 10000)
    """

    label: str
    obj: Any
    frequencies: tuple[sp.Expr, ...]
    notes: list[str] = field(default_factory=list)

    @property
    def kind(self) -> str:
        from .rope import Rotary

        return "rotary" if isinstance(self.obj, Rotary) else "sinusoidal"

    @property
    def dim(self) -> int:
        return 2 * len(self.frequencies)

    @property
    def schedule(self) -> Schedule | None:
        return getattr(self.obj, "schedule", None)

    @property
    def base(self) -> sp.Expr | None:
        from .scaling import schedule_base

        return None if self.schedule is None else schedule_base(self.schedule)


@dataclass
class Exploration:
    """Proofs and numbers for several encodings at one context length.

    >>> from posproof.rope import rotary
    >>> ex = explore([rotary(10000, 4)], 16, dtypes=[])
    >>> ex.ok, sorted(ex.to_dict())[:3], "rotary:relative" in ex.table()
    (True, ['base_bounds', 'checks', 'encodings'], True)
    """

    length: int
    subjects: list[Subject]
    reports: list[Any]
    numbers: list[dict[str, Any]]
    base_bounds: dict[int, BaseBound]
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        from .rope import exit_status

        return all(exit_status(r) == 0 for r in self.reports)

    def to_dict(self) -> dict[str, Any]:
        from .rope import EXPECTED_REFUTATIONS

        encodings, theorems = [], []
        for subject, report, numbers in zip(self.subjects, self.reports, self.numbers, strict=True):
            proofs = []
            for p in report.theorems:
                item = p.to_dict()
                item["expected"] = p.name in EXPECTED_REFUTATIONS
                proofs.append(item)
                theorems.append({"encoding": subject.label, "name": p.name, "status": p.status,
                                 "expected": item["expected"]})
            encodings.append({"label": subject.label, "kind": subject.kind,
                              "encoding": report.encoding, "notes": subject.notes,
                              "theorems": proofs, "numbers": _jsonable(numbers)})
        return {"length": self.length, "ok": self.ok, "encodings": encodings,
                "theorems": theorems, "checks": [],
                "base_bounds": {str(d): b.to_dict() for d, b in self.base_bounds.items()}}

    def table(self) -> str:
        """The side-by-side verdict and number table."""
        labels = [s.label for s in self.subjects]
        width = max(12, *(len(x) for x in labels))
        names: list[str] = []
        for r in self.reports:
            for p in r.theorems:
                if p.name not in names:
                    names.append(p.name)
        from .rope import EXPECTED_REFUTATIONS

        symbol = {"proved": "✓ proved", "refuted": "✗ refuted", "unknown": "? unknown"}
        first = max(len(n) for n in [*names, "first B(m) < 0"]) + 2
        lines = [f"posproof explore — context length L = {self.length}", "",
                 " " * first + "".join(f"{x:<{width + 2}}" for x in labels)]
        for name in names:
            cells = []
            for r in self.reports:
                p = next((p for p in r.theorems if p.name == name), None)
                cell = "—" if p is None else symbol[p.status] + (
                    "*" if p.name in EXPECTED_REFUTATIONS and p.status == "refuted" else "")
                cells.append(f"{cell:<{width + 2}}")
            lines.append(f"{name:<{first}}" + "".join(cells))
        lines.append("")
        rows = [("dim (rotated)", lambda n: str(n["dim"])),
                ("base", lambda n: n.get("base") or "—"),
                ("first B(m) < 0",
                 lambda n: str(n["first_negative"]["m"] or f"none ≤ {self.length}")),
                ("base bound (geom.)", lambda n: n.get("base_bound") or "—"),
                ("base ≥ bound", lambda n: n.get("base_ok", "—")),
                ("pairs covered by L", lambda n: f"{n['bands']['count']}/{n['bands']['pairs']}"),
                ("d_extra (T_train)", lambda n: str(n.get("critical_dimension", {})
                                                    .get("d_extra", "—"))),
                ("decay at L", lambda n: _cell(n["decay"].get("last", {}).get("value_mp"))),
                ("decay min (Δ>0)", lambda n: _cell(n["decay"].get("min", {}).get("value_mp"))),
                ("attention factor", lambda n: _cell(n.get("attention_factor_float", "1"))),
                *((f"{short} max phase err",
                   lambda n, t=name: _cell(n["dtypes"].get(t, {}).get("max_phase_error")))
                  for short, name in (("fp32", "float32"), ("fp16", "float16"),
                                      ("bf16", "bfloat16"))),
                ("fp16 first overflow", lambda n: str(n["dtypes"].get("float16", {})
                                                      .get("first_overflow_position") or "—"))]
        for title, get in rows:
            lines.append(f"{title:<{first}}" + "".join(f"{get(n):<{width + 2}}"
                                                       for n in self.numbers))
        lines.append("")
        lines.append("* expected refutation: the statement documents a pitfall of the rule")
        for d, bb in self.base_bounds.items():
            lines.append(f"base bound, rotary dim {d}: {bb.summary()}")
        for s in self.subjects:
            for note in s.notes:
                lines.append(f"note [{s.label}]: {note}")
        verdict = "OK" if self.ok else "NOT OK"
        lines.append(f"verdict: {verdict} ({self.seconds:.1f} s)")
        return "\n".join(lines)


def _cell(text: Any) -> str:
    """A number for the table: 6 significant digits (exponent kept), or a dash."""
    if text is None:
        return "—"
    try:
        return f"{float(text):.6g}"
    except (TypeError, ValueError):
        return str(text)[:12]


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items() if k not in ("deltas", "values",
                                                                         "kernel_curve")}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating,)):
        return float(value)
    if isinstance(value, (sp.Basic, mpmath.mpf)):
        return str(value)
    return value


def _subject(item: Any, label: str | None = None) -> Subject:
    from .rope import Rotary

    if isinstance(item, Subject):
        return item
    if isinstance(item, (Rotary, Encoding)):
        return Subject(label or item.name, item, pair_frequencies(item))
    raise InvalidParameter(f"{item!r} is not an encoding; pass Rotary or Encoding objects")


def explore(encodings: Sequence[Any], length: int = 4096, *, proofs: bool = True,
            base_bounds: bool = False, dtypes: Sequence[str] = DTYPES,
            train_length: int | None = None, seed: int = 0) -> Exploration:
    """Compare encodings (Rotary or sinusoidal Encoding) at context length L.

    For each: the theorems (:func:`posproof.rope.prove_rotary`, or
    :func:`posproof.prove` for a sinusoidal encoding), the first m with
    B(m) < 0, RoFormer's decay curve, the pairs whose wavelength fits in L,
    the dtype audit, Liu et al.'s critical dimension for the training length
    ``train_length`` (default L; computed from the base, i.e. for the
    unscaled schedule); with ``base_bounds``, once per rotated dim, the
    geometric base bound for L (a scan over many bases: seconds, not
    milliseconds).

    >>> from posproof.rope import rotary
    >>> ex = explore([rotary(10000, 8), rotary(10000, 8, scaling="linear", factor=2)], 64,
    ...              base_bounds=False, dtypes=["float32"])
    >>> [n["first_negative"]["m"] for n in ex.numbers], ex.ok
    ([None, None], True)
    """
    from .rope import Rotary, prove_rotary
    from .scaling import attention_factor
    from .theorems import prove

    start = time.perf_counter()
    length = _length(length)
    subjects = [_subject(e) for e in check_sequence("encodings", encodings)]
    dtypes = check_sequence("dtypes", dtypes, strings=True)
    seed = check_int("seed", seed, minimum=0)
    if train_length is not None:
        train_length = check_int("train_length", train_length, minimum=1, maximum=MAX_LENGTH)
    if not subjects:
        raise InvalidParameter("explore needs at least one encoding")
    seen: dict[str, int] = {}
    for s in subjects:
        seen[s.label] = seen.get(s.label, 0) + 1
        if seen[s.label] > 1:
            s.label = f"{s.label}#{seen[s.label]}"
    reports, numbers = [], []
    bounds: dict[int, BaseBound] = {}
    for s in subjects:
        if proofs and isinstance(s.obj, Rotary):
            reports.append(prove_rotary(s.obj, seed=seed))
        elif proofs:
            reports.append(prove(s.obj, theorems=["translation[row]", "dot_product", "norm",
                                                  "orthogonal", "layout_equivalence"], seed=seed))
        else:
            from .report import Report

            reports.append(Report(s.obj.to_dict()))
        kernel = _kernel(s.obj)
        first = kernel_first_negative(s.frequencies, length, kernel=kernel)
        deltas = _decay_deltas(length)
        curve_len = min(length, 1 << 22)
        entry: dict[str, Any] = {
            "dim": s.dim, "base": None if s.base is None else str(s.base),
            "first_negative": first,
            "decay": decay_curve(s.frequencies, deltas),
            "bands": band_coverage(s.frequencies, length,
                                   _bands(s.schedule, s.dim) if s.schedule is not None else None),
            "dtypes": dtype_audit(s.frequencies, length, dtypes) if dtypes else {},
            "kernel_curve": kernel.values(0, curve_len + 1),
        }
        if s.schedule is not None:
            af = attention_factor(s.schedule)
            entry["attention_factor"] = str(af)
            entry["attention_factor_float"] = f"{float(mp_value(af, 20)):.10g}"
        if s.base is not None:
            entry["critical_dimension"] = critical_dimension(s.base, s.dim,
                                                             train_length or length)
        if base_bounds and s.base is not None:
            if s.dim not in bounds:
                bounds[s.dim] = base_bound(length, s.dim)
            bb = bounds[s.dim]
            if bb.bound is not None:
                entry["base_bound"] = _short(bb.bound)
                entry["base_ok"] = "yes" if bool(s.base >= bb.bound) else "no"
                if not bb.interval and bb.threshold.upper is not None:
                    entry["base_all_good_above"] = _short(bb.threshold.upper)
        numbers.append(entry)
    out = Exploration(length, subjects, reports, numbers, bounds)
    out.seconds = time.perf_counter() - start
    return out


def _bands(schedule: Schedule, dim: int) -> list[str] | None:
    from .scaling import Scaling

    return schedule.bands(dim) if isinstance(schedule, Scaling) else None


# --------------------------------------------------------------------------- plots
def plot_exploration(exploration: Exploration, path: str) -> str:
    """Overlay the decay curves, the kernels and the wavelengths (bands marked); save to ``path``.

    matplotlib is imported here only (``pip install posproof[plot]``).

    >>> import importlib.util, os, tempfile
    >>> ex = explore([Encoding(Geometric(10000), "interleaved", 4)], 32, proofs=False,
    ...              dtypes=[])
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "curves.png")
    ...     ok = importlib.util.find_spec("matplotlib") is None or plot_exploration(ex, path)
    >>> bool(ok)
    True
    """
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise InvalidParameter("--plot needs matplotlib; install it with "
                               "pip install 'posproof[plot]'") from None
    # An explicit Figure, no pyplot: the caller's backend and figures are left alone.
    from matplotlib.figure import Figure

    fig = Figure(figsize=(16, 4.6))
    axes = fig.subplots(1, 3)
    length = exploration.length
    for s, n in zip(exploration.subjects, exploration.numbers, strict=True):
        d = n["decay"]
        axes[0].plot(d["deltas"], d["values"], label=s.label, lw=1)
        k = n["kernel_curve"] / len(s.frequencies)
        width = max(1, k.size // 4000)            # min/max envelope per bucket: no aliasing
        cut = k[:k.size - k.size % width].reshape(-1, width)
        x = np.arange(cut.shape[0]) * width
        axes[1].fill_between(x, cut.min(axis=1), cut.max(axis=1), alpha=0.35, lw=0,
                             label=s.label)
        wl = np.array(n["bands"]["wavelengths"])
        line, = axes[2].semilogy(np.arange(wl.size), wl, marker=".", ms=3, lw=1, label=s.label)
        bands = n["bands"].get("bands")
        if bands:
            changes = [i for i in range(1, len(bands)) if bands[i] != bands[i - 1]]
            for i in changes:
                axes[2].axvline(i - 0.5, color=line.get_color(), ls=":", lw=0.8)
    axes[0].set(title="RoFormer long-term decay (1/n)Σ|S_j|", xlabel="relative distance Δ",
                xscale="symlog")
    axes[1].set(title="B(m)/n = (1/n)Σ cos(mθ_k) (min/max envelope)", xlabel="m")
    axes[1].axhline(0, color="k", lw=0.5)
    axes[2].axhline(length, color="k", ls="--", lw=0.8, label=f"L = {length}")
    axes[2].set(title="wavelength 2π/θ_k per pair (band edges dotted)", xlabel="pair k")
    for ax in axes:
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110, metadata={"Software": None})
    return path
