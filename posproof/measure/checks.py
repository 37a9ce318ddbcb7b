"""Numeric checks of an encoding: each a :class:`Check` that passes or fails, with its numbers.

``check(encoding)`` scans positions 0 … L−1 (L = ``max_len``, default
``DEFAULT_MAX_LEN`` = 10⁶ — the length ``posproof verify`` uses: at d = 512
the eight checks take about 0.8 s, and ``posproof verify`` with its proofs
takes 3.5 s of CPU from a cold start to exit on two cores — measured by
``benchmarks/bench_kernel.py``).  The pairwise checks go through
the offset kernel f(Δ) = Σ cos(ω_k Δ) of :mod:`posproof.measure.numeric` (one GEMM
scan, cached when L ≤ 2²⁴, streamed otherwise); every extreme they report is
recomputed in mpmath at ``dps`` ≥ 50 digits, and a float64 value that
disagrees with mpmath beyond its bound makes the check fail with a note (a bug
of the toolkit, never a silent pass).

What makes each check pass or fail:

=======================  ===================================================================
``bounds``               fail if some |PE_i| > 1 or ‖PE(x)‖² differs from n beyond rounding
                         (measured on the first, last and 512 random rows)
``separation``           fail if two positions collide: min over Δ = 1 … L−1 of
                         ‖PE(x+Δ) − PE(x)‖ is 0 (certified in mpmath)
``near_return``          informational (pass): closest return for Δ in [L/2, L) and the first
                         offset closer than neighbouring positions (an effective period)
``periodicity``          pass when the numbers confirm the proof engine: distance 0 at the
                         exact period P ≤ L−1 and > 0 before it; no return when aperiodic
``translation_residual`` fail if |table(x+Δ) − table(x)·T(Δ)| exceeds its rounding
                         tolerance 4u(|(x+Δ)ω| + 2|xω| + 2|Δω|) + 16t at 8 random pairs
                         of rows x < x + Δ ≤ L−1 (x + Δ ≥ L/2)
``toeplitz``             fail if the Gram matrix of 256 consecutive rows (at the start and at
                         a random place) is not Toeplitz within its rounding tolerance
``decay``                informational (pass): first Δ with f(Δ) < 0, first Δ where f rises
``dtype_audit``          informational (pass): per dtype, the first integer position it cannot
                         hold, the phase error of x·ω formed in it, translation residuals
=======================  ===================================================================

Every check also fails on a toolkit inconsistency (float64 against mpmath),
and the kernel checks fail with a note on encodings whose columns are not
(sin, cos) pairs of one frequency (no dot-product theorem, no T(Δ)).

>>> from posproof import preset
>>> report = check(preset("vaswani", dim=16), max_len=1000, checks=["separation", "decay"])
>>> [(c.name, c.status) for c in report.checks]
[('separation', 'pass'), ('decay', 'pass')]
>>> report["separation"].values["at_offset"]
1
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import mpmath
import numpy as np
import sympy as sp

from ..errors import (
    InvalidEncoding,
    InvalidParameter,
    PosproofError,
    UnknownName,
    check_finite,
    check_int,
    check_sequence,
)
from ..model.encoding import Encoding
from ..precise import DEFAULT_DPS, mp_values
from ..report import Check, Proof, Report
from ..validated import irrational, rational_value
from .dtypes import TRIG_ULPS, U, angles_in_dtype, dtype_model, first_unrepresentable_integer
from .gram import toeplitz_deviation
from .kernel import Crossing, Extreme, OffsetKernel
from .scan_limits import check_scan
from .translation import rotate_pairs, translation_blocks, translation_residual

__all__ = ["AUDIT_DTYPES", "CHECKS", "DEFAULT_MAX_LEN", "check", "check_scan_options", "run_checks"]

CHECKS = ("bounds", "separation", "near_return", "periodicity", "translation_residual",
          "toeplitz", "decay", "dtype_audit")
#: Positions scanned by default (``posproof verify`` and ``posproof check``).
DEFAULT_MAX_LEN = 10**6
AUDIT_DTYPES = ("float32", "float16", "bfloat16")
#: Phase error (radians) above which an angle formed in a dtype is called wrong.
PHASE_LIMIT = 0.01
#: Positions scanned for the first phase error above PHASE_LIMIT.
PHASE_SCAN_MAX = 10**7
TOEPLITZ_LEN = 256
_SAMPLE = 512

Progress = Callable[[str, int, int], None]


def _fmt(value: Any, digits: int = 17) -> str:
    """An mpmath number as a decimal string (for JSON: exact digits, deterministic)."""
    return mpmath.nstr(value, digits, min_fixed=-5, max_fixed=8)


def _g(value: float) -> str:
    return f"{value:.4g}"


class _NotApplicable(Exception):
    """A kernel check on an encoding whose columns are not (sin, cos) pairs."""


class _Context:
    """What the checks share: the encoding, the kernel (scanned once), cached extremes."""

    def __init__(self, enc: Encoding, length: int, dps: int, seed: int,
                 progress: Progress | None, proofs: Sequence[Proof] | None,
                 near_range: tuple[int, int] | None, near_tol: float | None,
                 dtypes: Sequence[str] = AUDIT_DTYPES) -> None:
        self.enc, self.length, self.dps, self.seed = enc, length, dps, seed
        self.dtypes = tuple(dtypes)
        self.progress = progress
        self.proofs = proofs
        self.near_range = near_range
        self.near_tol = near_tol
        self._kernel: OffsetKernel | None = None
        self._separation: Extreme | None = None
        self._omega_mp: list[mpmath.mpf] | None = None
        self._translations: dict[float, tuple[np.ndarray, np.ndarray]] = {}
        self.label = ""

    def omega_mp(self) -> list[mpmath.mpf]:
        """The encoding's exact frequencies in mpmath at dps + 30 digits (computed once)."""
        if self._omega_mp is None:
            self._omega_mp = mp_values(self.enc.frequencies, self.dps + 30)
        return self._omega_mp

    def translation(self, delta: float) -> tuple[np.ndarray, np.ndarray]:
        """The blocks of the numeric T(Δ): sin and cos per pair (O(d), never d × d), cached."""
        key = float(delta)
        if key not in self._translations:
            self._translations[key] = translation_blocks(self.enc, key)
        return self._translations[key]

    def tick(self, done: int, total: int) -> None:
        if self.progress is not None:
            self.progress(self.label, done, total)

    @property
    def kernel(self) -> OffsetKernel:
        if self._kernel is None:
            try:
                self._kernel = OffsetKernel(self.enc)
            except InvalidEncoding as exc:
                problems = self.enc.broken_pairs()
                reason = (f"{problems[0]}, so PE(x)·PE(y) is not a function of x − y"
                          if problems else str(exc))
                raise _NotApplicable(reason) from None
            self._kernel.materialize(self.length, progress=self.tick)
        return self._kernel

    def separation(self) -> Extreme | None:
        if self.length < 2:
            return None
        if self._separation is None:
            self._separation = self.kernel.maximum(1, self.length, dps=self.dps,
                                                   progress=self.tick)
        return self._separation


def _inconsistent(what: str) -> str:
    return (f"toolkit inconsistency: {what} disagrees with mpmath beyond its bound; "
            "please report this as a bug")


# --------------------------------------------------------------------------- bounds
def _bounds(ctx: _Context) -> Check:
    enc, length = ctx.enc, ctx.length
    rng = np.random.default_rng(ctx.seed)
    picks = [np.arange(min(length, _SAMPLE)), np.arange(max(length - _SAMPLE, 0), length)]
    if length > 2 * _SAMPLE:
        picks.append(rng.integers(0, length, _SAMPLE))
    sample = enc.offset + np.unique(np.concatenate(picks))       # never O(L) memory
    if enc.padding_idx is not None:
        sample = sample[sample != enc.padding_idx]
    if sample.size == 0:
        return Check("bounds", "pass", {"rows": 0, "summary": "no rows besides padding"},
                     "nothing to measure")
    table = enc.table(sample)
    sq = (table * table).sum(axis=1)
    max_abs = float(np.abs(table).max())
    active = [f for f in enc.column_funcs if f != "zero"]
    t = TRIG_ULPS * U
    gamma = enc.dim * U / (1 - enc.dim * U)
    tol = len(active) / 2 * (2 * math.sqrt(2) * t + 2 * t * t) + gamma * len(active) * (1 + 3 * t)
    tol *= 1.01
    n = enc.n_pairs
    sound = not enc.broken_pairs()
    dev = np.abs(sq - n) if sound else np.abs(sq - sq.mean())
    worst = int(np.argmax(dev))
    norm_dev = float(np.abs(np.sqrt(sq) - math.sqrt(n)).max()) if sound else None
    spread = float(sq.max() - sq.min())
    # the worst row, recomputed in mpmath
    x = int(sample[worst])
    omegas = ctx.omega_mp()
    entry_err = 0.0
    consistent = True
    with mpmath.workdps(ctx.dps + 30):
        for j, func in enumerate(enc.column_funcs):
            if func == "zero":
                continue
            w = omegas[enc.column_freq_index[j]]
            exact = mpmath.sin(w * x) if func == "sin" else mpmath.cos(w * x)
            err = float(abs(exact - mpmath.mpf(float(table[worst, j]))))
            allowed = 2.01 * U * abs(x * float(w)) + t + 1e-300
            entry_err = max(entry_err, err)
            consistent = consistent and err <= allowed
    values: dict[str, Any] = {
        "rows": int(sample.size), "max_abs_entry": max_abs,
        "norm_expected": math.sqrt(n) if sound else None,
        "max_norm_deviation": norm_dev, "norm_squared_spread": spread,
        "tolerance_norm_squared": tol,
        "worst_row_position": x, "worst_row_entry_error_vs_mpmath": entry_err,
    }
    ok = max_abs <= 1.0 and float(dev.max()) <= tol and spread <= 2 * tol
    note = None
    if not consistent:
        ok, note = False, _inconsistent(f"a table entry at position {x}")
    elif not ok:
        note = ("the norm is not constant: ‖PE(x)‖² ranges over "
                f"[{_g(float(sq.min()))}, {_g(float(sq.max()))}]" if spread > 2 * tol
                else f"max |PE_i| = {max_abs!r} > 1")
    if sound:
        values["summary"] = (f"max|PE_i| = {_g(max_abs)} ≤ 1, ‖PE‖ = √{n} within "
                             f"{_g(norm_dev or 0.0)} on {sample.size} rows")
    else:
        values["summary"] = f"max|PE_i| = {_g(max_abs)}, ‖PE‖² spread {_g(spread)}"
    certified = (f"float64 table rows (first, last and {_SAMPLE} random positions); "
                 f"tolerance on ‖PE‖² {tol:.1e} from the rounding of sin, cos and the sum; "
                 f"worst row recomputed in mpmath at {ctx.dps} digits")
    return Check("bounds", "pass" if ok else "fail", values, certified, note)


# --------------------------------------------------------------------------- separation
def _not_applicable(name: str, reason: str) -> Check:
    return Check(name, "fail", {"applicable": False, "summary": "not applicable"}, "",
                 note=f"not applicable: {reason}")


def _separation(ctx: _Context) -> Check:
    length = ctx.length
    ext = ctx.separation()
    if ext is None:
        return Check("separation", "pass",
                     {"length": length, "min_distance": None,
                      "summary": "one position: nothing to separate"}, "nothing to compare")
    values = {
        "length": length, "min_distance": ext.distance,
        "min_distance_mp": _fmt(ext.distance_mp), "at_offset": ext.delta,
        "distance_bound": ext.distance_bound, "kernel_bound": ext.bound,
        "summary": (f"min ‖PE(x+Δ)−PE(x)‖ = {_g(float(ext.distance_mp))} at Δ={ext.delta} "
                    f"over Δ=1…{length - 1}"),
    }
    certified = (f"float64 GEMM kernel over Δ = 1…{length - 1}, bound {ext.bound:.1e} on f; "
                 f"{ext.candidates} candidate(s) within 2·bound recomputed in mpmath at "
                 f"{ext.dps} digits{' (truncated)' if ext.truncated else ''}; "
                 f"argmin Δ={ext.delta} confirmed")
    if not ext.consistent:
        return Check("separation", "fail", values, certified,
                     _inconsistent(f"the kernel near Δ={ext.delta}"))
    if ext.distance_mp == 0:
        values["summary"] = f"positions collide: PE(x+{ext.delta}) = PE(x)"
        return Check("separation", "fail", values, certified,
                     f"positions x and x+{ext.delta} have the same encoding for every x "
                     f"(distance 0 in mpmath at {ext.dps} digits); use fewer than "
                     f"{ext.delta + 1} positions or another schedule")
    return Check("separation", "pass", values, certified)


# --------------------------------------------------------------------------- near return
def _near_return(ctx: _Context) -> Check:
    length, kernel = ctx.length, ctx.kernel
    if ctx.near_range is not None:
        lo, hi = ctx.near_range
    else:
        lo, hi = max(1, length // 2), length
    if length < 2 or hi <= lo:
        return Check("near_return", "pass", {"summary": "no offsets to scan"}, "nothing to scan")
    ext = kernel.maximum(lo, hi, dps=ctx.dps, progress=ctx.tick)
    n = kernel.n
    if ctx.near_tol is None:
        threshold = kernel.mp(1, ctx.dps)                        # f(1): neighbours' distance
        tol = float(kernel.distance_mp(1, ctx.dps))
        tol_text = "the distance of neighbouring positions"
    else:
        tol = ctx.near_tol
        with mpmath.workdps(ctx.dps):
            threshold = n - mpmath.mpf(tol) ** 2 / 2
        tol_text = "near_tol"
    crossing = (kernel.first_crossing(threshold, below=False, start=2, stop=length,
                                      dps=ctx.dps, progress=ctx.tick) if length > 2 else None)
    period: Any = crossing.delta if crossing is not None else f"none up to {length}"
    values = {
        "range": [lo, hi], "closest_distance": ext.distance,
        "closest_distance_mp": _fmt(ext.distance_mp), "at_offset": ext.delta,
        "distance_bound": ext.distance_bound, "kernel_bound": ext.bound,
        "tolerance": tol, "effective_period": period,
        "summary": (f"closest {_g(float(ext.distance_mp))} at Δ={ext.delta} in [{lo}, {hi}); "
                    f"first Δ closer than {_g(tol)}: {period}"),
    }
    certified = (f"float64 GEMM kernel, bound {ext.bound:.1e} on f; argmin confirmed in mpmath "
                 f"at {ctx.dps} digits ({ext.candidates} candidate(s)); tolerance = {tol_text}")
    consistent = ext.consistent and (crossing is None or crossing.consistent)
    if crossing is not None:
        certified += (f"; first crossing recomputed in mpmath at Δ and Δ−1 "
                      f"({crossing.rechecked} near-threshold value(s) rechecked)")
        values["effective_period_distance_mp"] = _fmt(kernel.distance_mp(crossing.delta,
                                                                         ctx.dps))
    if not consistent:
        return Check("near_return", "fail", values, certified, _inconsistent("the kernel"))
    return Check("near_return", "pass", values, certified)


# --------------------------------------------------------------------------- periodicity
def _period_from(proof: Proof) -> tuple[str, sp.Expr | None]:
    """("aperiodic" | "periodic" | "unknown", exact period) from the proof engine's result."""
    if proof.status != "proved":
        return "unknown", None
    period = (proof.values or {}).get("period")
    if period == "none":
        return "aperiodic", None
    if proof.exact is not None:
        return "periodic", proof.exact
    return "unknown", None


def _periodicity(ctx: _Context) -> Check:
    kernel = ctx.kernel                                    # not applicable without pairs
    proof = next((p for p in ctx.proofs or () if p.name == "periodicity"), None)
    if proof is None:
        from ..proofs.theorems import prove

        proof = prove(ctx.enc, theorems=["periodicity"], seed=ctx.seed).theorems[0]
    kind, period = _period_from(proof)
    length = ctx.length
    sep = ctx.separation()
    no_return = sep is None or sep.distance_mp > 0
    values: dict[str, Any] = {"proof": proof.status}
    certified = "exact: proof engine (periodicity)"
    if kind == "unknown":
        values.update(period="unknown", summary="proof engine undecided; no numeric claim")
        return Check("periodicity", "pass", values, certified,
                     note=f"the proof engine answered {proof.status}: {proof.note or ''}".strip())
    if kind == "aperiodic":
        values.update(period="aperiodic", summary="aperiodic (proved); no exact return up to L")
        certified += f"; no exact return for Δ = 1…{length - 1} (separation, mpmath)"
        if not no_return:
            return Check("periodicity", "fail", values, certified,
                         _inconsistent("an exact return found numerically for a proved "
                                       "aperiodic curve"))
        return Check("periodicity", "pass", values, certified)
    assert period is not None
    values["period"] = str(period)
    exact_p = rational_value(period)          # proved rational, never SymPy's is_rational
    why = irrational(period) if exact_p is None else None
    if exact_p is None and why is None:
        values.update(integer_period=None, summary=f"period P = {period}: whether integer "
                      "positions repeat is undecided (P not proved rational or irrational)")
        return Check("periodicity", "pass", values, certified)
    if exact_p is None:
        values.update(integer_period=None,
                      summary=f"period P = {period}: integer positions never repeat exactly")
        certified += f"; P is irrational ({why}), so no integer offset is a period"
        if not no_return:
            return Check("periodicity", "fail", values, certified,
                         _inconsistent("an exact return at an integer offset"))
        return Check("periodicity", "pass", values, certified)
    p = int(exact_p.p)                              # smallest integer multiple of P
    values["integer_period"] = p
    if p > length - 1:
        values["summary"] = f"period {p} (proved), beyond L = {length}"
        if not no_return:
            return Check("periodicity", "fail", values, certified,
                         _inconsistent("an exact return before the proved period"))
        return Check("periodicity", "pass", values, certified)
    at_p = kernel.distance_mp(p, ctx.dps)
    f_p = float(kernel([p])[0])
    before = kernel.maximum(1, p, dps=ctx.dps, progress=ctx.tick) if p >= 2 else None
    values.update(distance_at_period_mp=_fmt(at_p), kernel_at_period=f_p,
                  closest_before_period_mp=None if before is None else _fmt(before.distance_mp),
                  summary=f"period {p} confirmed: distance 0 at Δ={p}, > 0 before")
    certified += (f"; distance at Δ={p} recomputed in mpmath at {ctx.dps} digits; smallest "
                  f"distance over Δ < {p} certified > 0 (float64 GEMM + mpmath)")
    ok = (at_p == 0 and abs(f_p - kernel.n) <= kernel.call_bound(p)
          and (before is None or (before.consistent and before.distance_mp > 0)))
    if not ok:
        return Check("periodicity", "fail", values, certified,
                     _inconsistent(f"the numeric return at the proved period {p}"))
    return Check("periodicity", "pass", values, certified)


# --------------------------------------------------------------------------- translation
def _large_pairs(ctx: _Context, count: int = 8) -> tuple[np.ndarray, np.ndarray]:
    """Random pairs (x, Δ ≥ 1) whose rows x and x + Δ lie in 0 … L−1 (x + Δ ≥ L/2)."""
    rng = np.random.default_rng(ctx.seed + 1)
    ends = rng.integers(max(ctx.length // 2, 1), ctx.length, count)
    x = rng.integers(0, ends)
    return x + ctx.enc.offset, ends - x


def _translation(ctx: _Context) -> Check:
    enc = ctx.enc
    problems = enc.broken_pairs()
    if problems:
        return _not_applicable("translation_residual", "; ".join(problems[:2]))
    if ctx.length < 2:
        return Check("translation_residual", "pass",
                     {"pairs": 0, "summary": "one position: no offset Δ ≥ 1 to translate by"},
                     "nothing to compare")
    x, d = _large_pairs(ctx)
    res, tol = translation_residual(enc, x, d)
    i, j = np.unravel_index(int(np.argmax(res / tol)), res.shape)
    # the float64 entry at the worst place, against mpmath
    omegas = ctx.omega_mp()
    pos = int(x[i] + d[i])
    w = omegas[enc.column_freq_index[int(j)]]
    moved = enc.table([pos])[0, int(j)]
    with mpmath.workdps(ctx.dps + 30):
        exact = mpmath.sin(w * pos) if enc.column_funcs[int(j)] == "sin" else mpmath.cos(w * pos)
        entry_err = float(abs(exact - mpmath.mpf(float(moved))))
    entry_ok = entry_err <= 2.01 * U * abs(pos * float(w)) + TRIG_ULPS * U
    values = {
        "pairs": int(x.size), "x_max": int(x.max()), "delta_max": int(d.max()),
        "max_residual": float(res.max()), "max_residual_over_tolerance": float((res / tol).max()),
        "tolerance_at_worst_ratio": float(tol[i, j]),
        "position_max": int((x + d).max()),
        "summary": (f"max |PE(x+Δ) − PE(x)·T(Δ)| = {_g(float(res.max()))} "
                    f"({_g(float((res / tol).max()))} of tolerance) at {x.size} random pairs "
                    f"x < x+Δ ≤ {int((x + d).max())}"),
    }
    certified = ("float64 rows and blockwise numeric T(Δ) at random pairs x < x+Δ < L; per-column "
                 "tolerance 4u(|(x+Δ)ω| + 2|xω| + 2|Δω|) + 16t; worst entry of PE(x+Δ) "
                 f"recomputed in mpmath at {ctx.dps} digits")
    if not entry_ok:
        return Check("translation_residual", "fail", values, certified,
                     _inconsistent(f"table entry at position {pos}"))
    if not (res <= tol).all():
        return Check("translation_residual", "fail", values, certified,
                     f"residual {float(res[i, j]):.3g} at x={int(x[i])}, Δ={int(d[i])}, "
                     f"column {int(j)} exceeds its tolerance {float(tol[i, j]):.3g}")
    return Check("translation_residual", "pass", values, certified)


# --------------------------------------------------------------------------- toeplitz
def _toeplitz(ctx: _Context) -> Check:
    enc, length = ctx.enc, ctx.length
    rows = min(length, TOEPLITZ_LEN)
    rng = np.random.default_rng(ctx.seed + 2)
    starts = [0] if length <= rows else [0, int(rng.integers(0, length - rows + 1))]
    freq = np.abs(enc.column_frequencies_float)
    t = TRIG_ULPS * U
    blocks = []
    ok, consistent = True, True
    kernel = None if enc.broken_pairs() else ctx.kernel
    for s in starts:
        pos = enc.offset + np.arange(s, s + rows, dtype=np.int64)
        if enc.padding_idx is not None:
            pos = pos[pos != enc.padding_idx]
        table = enc.table(pos)
        dev = toeplitz_deviation(table)
        norm2 = float((table * table).sum(axis=1).max()) if table.size else 0.0
        x_max = float(np.abs(pos).max()) if pos.size else 0.0
        gamma = enc.dim * U / (1 - enc.dim * U)
        tol = 4 * float((2.01 * U * x_max * freq + t).sum()) + 2 * gamma * norm2 + 4 * U * norm2
        blocks.append({"first_position": int(pos[0]) if pos.size else None, "rows": int(pos.size),
                       "deviation": dev, "tolerance": tol})
        ok = ok and dev <= tol
        if kernel is not None and pos.size >= 2:
            gram = table @ table.T
            lag = min(int(pos.size) - 1, 7)
            exact = kernel.mp(lag, ctx.dps)
            worst = float(np.abs(np.diagonal(gram, offset=lag) - float(exact)).max())
            consistent = consistent and worst <= tol
    values = {"blocks": blocks,
              "summary": "Gram depends on x − y only (max deviation "
                         f"{_g(max(b['deviation'] for b in blocks))})" if ok else
                         "Gram matrix is not Toeplitz"}
    certified = ("float64 Gram of consecutive rows; tolerance from the rounding of the table "
                 "(2u|xω| + t per entry) and of the dot products")
    if kernel is not None:
        certified += f"; one diagonal compared with f(lag) in mpmath at {ctx.dps} digits"
    if not consistent:
        return Check("toeplitz", "fail", values, certified,
                     _inconsistent("a Gram diagonal against the kernel"))
    if not ok:
        worst_block = max(blocks, key=lambda b: b["deviation"] - b["tolerance"])
        return Check("toeplitz", "fail", values, certified,
                     f"PE(x)·PE(y) depends on more than x − y: deviation "
                     f"{worst_block['deviation']:.3g} > tolerance {worst_block['tolerance']:.3g} "
                     f"for rows from position {worst_block['first_position']}")
    return Check("toeplitz", "pass", values, certified)


# --------------------------------------------------------------------------- decay
def _decay(ctx: _Context) -> Check:
    kernel, length = ctx.kernel, ctx.length
    neg = kernel.first_crossing(0, below=True, start=0, stop=length, dps=ctx.dps,
                                progress=ctx.tick)
    rise = kernel.first_increase(start=0, stop=length, dps=ctx.dps, progress=ctx.tick)
    none = f"none up to {length}"

    def described(c: Crossing | None, what: str) -> dict[str, Any]:
        if c is None:
            return {what: none}
        return {what: c.delta, f"{what}_value_mp": _fmt(c.value_mp),
                f"{what}_previous_mp": None if c.previous_mp is None else _fmt(c.previous_mp)}

    values = {**described(neg, "first_negative"), **described(rise, "first_increase"),
              "f0": kernel.n, "kernel_bound": kernel.scan_bound(length)}
    values["summary"] = (
        (f"f(Δ) first < 0 at Δ={neg.delta}" if neg else f"f(Δ) ≥ 0 for Δ < {length}") + "; "
        + (f"first rises after Δ={rise.delta}" if rise else f"never rises before Δ={length - 1}"))
    certified = (f"float64 GEMM kernel, bound {kernel.scan_bound(length):.1e}; each first "
                 f"crossing recomputed in mpmath at Δ and Δ−1 ({ctx.dps} digits), earlier "
                 "values beyond the bound or rechecked in mpmath")
    consistent = all(c is None or c.consistent for c in (neg, rise))
    if not consistent:
        return Check("decay", "fail", values, certified, _inconsistent("a first crossing"))
    return Check("decay", "pass", values, certified)


# --------------------------------------------------------------------------- dtype audit
def _phase_errors(positions: np.ndarray, omega: np.ndarray, dtype: str
                  ) -> tuple[np.ndarray, np.ndarray]:
    """max over ω of |x·ω formed in dtype − x·ω| per position, and its float64 error bound."""
    angles = angles_in_dtype(positions, omega, dtype)
    exact = positions[:, None] * omega[None, :]
    with np.errstate(invalid="ignore"):
        err = np.abs(angles - exact)
    bound = 3.01 * U * np.abs(exact) + U * np.where(np.isfinite(err), err, 0.0)
    worst = np.argmax(np.where(np.isnan(err), np.inf, err), axis=1)
    rows = np.arange(positions.size)
    return err[rows, worst], bound[rows, worst]


def _phase_error_mp(x: int, omegas: Sequence[mpmath.mpf], omega_f: np.ndarray, dtype: str,
                    dps: int) -> mpmath.mpf:
    """max over ω of |x·ω formed in dtype − x·ω| in mpmath.

    Only the frequencies whose float64 error is within twice its bound of the
    float64 maximum can hold the maximum; those are recomputed.
    """
    angles = angles_in_dtype(np.array([float(x)]), omega_f, dtype)[0]
    if not np.all(np.isfinite(angles)):
        return mpmath.inf
    exact = x * omega_f
    err = np.abs(angles - exact)
    bound = 3.01 * U * np.abs(exact) + U * err
    ks = np.flatnonzero(err >= err.max() - 2 * bound.max())
    with mpmath.workdps(dps + 30):
        return max(abs(mpmath.mpf(float(angles[k])) - x * omegas[k]) for k in ks.tolist())


def _first_phase_exceed(ctx: _Context, dtype: str, omega: np.ndarray,
                        omegas: Sequence[mpmath.mpf]) -> tuple[int | None, int, bool]:
    """First position whose phase error exceeds PHASE_LIMIT; (x, rechecked, consistent)."""
    model = dtype_model(dtype)
    unit = first_unrepresentable_integer(dtype)          # 2^p + 1: roundoff 2^-p
    e = 1.0 / (unit - 1)
    eta = _half_smallest_subnormal(model)                  # absolute rounding of tiny values
    start, stop = ctx.enc.offset, ctx.enc.offset + min(ctx.length, PHASE_SCAN_MAX)
    rechecked = 0
    for lo, hi in _growing_ranges(max(start, 0), stop):
        x_hi = float(hi)
        # rigorous a-priori bound: |fl(fl(x)·fl(ω)) − xω| ≤ 3.01e|xω| + x·η (+ overflow)
        reach = 3.01 * e * x_hi * omega + 1.01 * x_hi * eta + eta
        keep = reach > PHASE_LIMIT * (1 - 1e-9)
        if not keep.any() and x_hi < _dtype_max(model):
            continue
        pos = np.arange(lo, hi, dtype=np.float64)
        err, bound = _phase_errors(pos, omega[keep] if keep.any() else omega, dtype)
        maybe = np.flatnonzero(err > PHASE_LIMIT - bound)
        for i in maybe.tolist():
            x = int(pos[i])
            if err[i] - bound[i] > PHASE_LIMIT:
                return x, rechecked, _confirm_exceed(x, omegas, omega, dtype, ctx.dps)
            rechecked += 1
            if _phase_error_mp(x, omegas, omega, dtype, ctx.dps) > PHASE_LIMIT:
                return x, rechecked, True
    return None, rechecked, True


def _growing_ranges(start: int, stop: int, first: int = 64, largest: int = 8192
                    ) -> list[tuple[int, int]]:
    """[start, stop) cut in pieces of 64, 128, … 8192 (early crossings stay cheap).

    >>> _growing_ranges(0, 300)
    [(0, 64), (64, 192), (192, 300)]
    """
    out, lo, size = [], start, first
    while lo < stop:
        out.append((lo, min(lo + size, stop)))
        lo, size = lo + size, min(2 * size, largest)
    return out


def _confirm_exceed(x: int, omegas: Sequence[mpmath.mpf], omega: np.ndarray, dtype: str,
                    dps: int) -> bool:
    here = _phase_error_mp(x, omegas, omega, dtype, dps)
    if not here > PHASE_LIMIT:
        return False
    if x - 1 < 0:
        return True
    return bool(_phase_error_mp(x - 1, omegas, omega, dtype, dps) <= PHASE_LIMIT)


def _half_smallest_subnormal(model: Any) -> float:
    if model.dtype is not None and model.dtype.kind == "f":
        return float(np.finfo(model.dtype).smallest_subnormal) / 2
    return 2.0 ** -134                                       # bfloat16: float32's exponent range


def _dtype_max(model: Any) -> float:
    if model.dtype is not None and model.dtype.kind == "f":
        return float(np.finfo(model.dtype).max)
    return 3.38e38


def _dtype_residuals(ctx: _Context, dtype: str) -> dict[str, float]:
    """Translation residual with the table rounded to the dtype, and with angles formed in it."""
    enc = ctx.enc
    model = dtype_model(dtype)
    top = min(max(ctx.length, 2), 32768)
    rng = np.random.default_rng(ctx.seed + 3)
    x = rng.integers(top // 4, top // 2 + 1, 4).astype(np.float64)
    d = rng.integers(1, top // 2 + 1, 4).astype(np.float64)
    freq = enc.column_frequencies_float
    funcs = np.asarray(enc.column_funcs)

    def rows(angles: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore"):
            out = np.where(funcs == "sin", np.sin(angles), np.cos(angles))
        out[..., funcs == "zero"] = 0.0
        return model.round(out)

    pair_sin = np.asarray(enc.pairs, dtype=np.int64).reshape(-1, 2)[:, 0]
    rounded, formed = 0.0, 0.0
    for xi, di in zip(x, d, strict=True):
        sin_d, cos_d = ctx.translation(di)
        rounded = max(rounded, float(np.abs(
            model.round(enc.table([xi + di])[0])
            - rotate_pairs(enc, model.round(enc.table([xi])[0]), model.round(sin_d),
                           model.round(cos_d))).max()))
        ang_x = angles_in_dtype([xi], freq, dtype)[0]
        ang_xd = angles_in_dtype([xi + di], freq, dtype)[0]
        ang_d = angles_in_dtype([di], freq, dtype)[0]
        with np.errstate(invalid="ignore"):
            moved = rotate_pairs(enc, rows(ang_x), model.round(np.sin(ang_d[pair_sin])),
                                 model.round(np.cos(ang_d[pair_sin])))
            formed = max(formed, float(np.nan_to_num(
                np.abs(rows(ang_xd) - moved), nan=np.inf).max()))
    return {"positions_below": top, "residual_table_rounded": rounded,
            "residual_angles_in_dtype": formed}


def _dtype_audit(ctx: _Context) -> Check:
    enc, length = ctx.enc, ctx.length
    omega = enc.frequencies_float
    omegas = ctx.omega_mp()
    last = enc.offset + length - 1
    report_at = sorted({10**k for k in range(1, 19) if enc.offset <= 10**k <= last} | {last})
    values: dict[str, Any] = {}
    lines = []
    consistent = True
    has_pairs = not enc.broken_pairs()
    for dtype in ctx.dtypes:
        model = dtype_model(dtype)
        unit = first_unrepresentable_integer(dtype)
        # the definition, checked: unit − 1 survives the round trip, unit does not
        consistent = consistent and (model.round([float(unit - 1)])[0] == unit - 1
                                     and model.round([float(unit)])[0] != unit)
        errors = []
        for x in report_at:
            err, bnd = _phase_errors(np.array([float(x)]), omega, dtype)
            exact = _phase_error_mp(x, omegas, omega, dtype, ctx.dps)
            if exact == mpmath.inf:
                consistent = consistent and not np.isfinite(err[0])
                errors.append([x, "overflow"])
                continue
            consistent = consistent and abs(float(exact) - float(err[0])) <= float(bnd[0]) + 1e-300
            errors.append([x, float(exact)])
        first, _rechecked, ok = _first_phase_exceed(ctx, dtype, omega, omegas)
        consistent = consistent and ok
        entry: dict[str, Any] = {
            "implementation": model.implementation,
            "first_unrepresentable_position": unit,
            "phase_error_rad": errors,
            f"phase_error_above_{PHASE_LIMIT}_rad_from": (
                first if first is not None
                else f"none up to {enc.offset + min(length, PHASE_SCAN_MAX)}"),
        }
        if has_pairs:
            entry.update(_dtype_residuals(ctx, dtype))
        values[dtype] = entry
        lines.append(f"{dtype}: exact ≤ {unit - 1}, phase > {PHASE_LIMIT} rad "
                      + (f"from x={first}" if first is not None else "nowhere up to L"))
    values["summary"] = "; ".join(lines)
    certified = (f"angles x·ω formed in each dtype (x and ω rounded, product rounded), compared "
                 f"with x·ω in mpmath at {ctx.dps} digits at the reported positions and at each "
                 "first crossing; float64 scan bound 3u|xω|")
    if not consistent:
        return Check("dtype_audit", "fail", values, certified,
                     _inconsistent("a phase error or a representable-integer limit"))
    return Check("dtype_audit", "pass", values, certified)


_RUNNERS: dict[str, Callable[[_Context], Check]] = {
    "bounds": _bounds, "separation": _separation, "near_return": _near_return,
    "periodicity": _periodicity, "translation_residual": _translation, "toeplitz": _toeplitz,
    "decay": _decay, "dtype_audit": _dtype_audit,
}


# --------------------------------------------------------------------------- public
def _names(checks: Sequence[str] | None) -> list[str]:
    if checks is None:
        return list(CHECKS)
    names = []
    for name in check_sequence("checks", checks, strings=True):
        if not isinstance(name, str) or name not in CHECKS:
            raise UnknownName(f"check={name!r} is not known; use one of {', '.join(CHECKS)}")
        if name not in names:
            names.append(name)
    return names


#: Largest dps·d: each frequency is evaluated at dps + 30 digits (d = 65536 at
#: 1000 digits took minutes); 50 digits are accepted up to d = 65536, 1000 up to 4096.
MAX_DPS_WORK = 1 << 22


def check_scan_options(encoding: Encoding, max_len: Any, dps: Any) -> tuple[int, int]:
    """Validate the scan length and the digits of :func:`check` for ``encoding``, up front.

    ``max_len`` is at most :data:`~posproof.measure.numeric.MAX_LEN` and ``max_len·dim``
    at most :data:`~posproof.measure.numeric.MAX_SCAN_WORK`; ``dps`` is 50 … 1000 and
    ``dps·dim`` at most :data:`MAX_DPS_WORK`.

    >>> from posproof import preset
    >>> check_scan_options(preset("vaswani", dim=8), 1000, 50)
    (1000, 50)
    """
    length = check_scan(encoding, max_len)
    try:
        dps = check_int("dps", dps, minimum=50, maximum=1000)
    except InvalidParameter as exc:
        raise InvalidParameter(f"{exc} (certification uses 50 to 1000 significant "
                               "digits)") from None
    if dps * encoding.dim > MAX_DPS_WORK:
        raise InvalidParameter(
            f"dps={dps} at dim={encoding.dim} is too large: dps·d must be at most "
            f"{MAX_DPS_WORK} (every frequency is certified at dps digits), so dps <= "
            f"{MAX_DPS_WORK // encoding.dim} at this dim")
    return length, dps


def run_checks(encoding: Encoding, *, max_len: int = DEFAULT_MAX_LEN, dps: int = DEFAULT_DPS,
               checks: Sequence[str] | None = None, progress: Progress | None = None,
               seed: int = 0, proofs: Sequence[Proof] | None = None,
               near_range: tuple[int, int] | None = None,
               near_tol: float | None = None,
               dtypes: Sequence[str] | None = None) -> list[Check]:
    """The checks as a list (``check`` wraps them in a Report); ``proofs`` may hold a
    periodicity proof already made, so that it is not proved twice.  The other
    parameters are those of :func:`check`.

    >>> from posproof import preset
    >>> [c.status for c in run_checks(preset("vaswani", dim=8), max_len=50, checks=["bounds"])]
    ['pass']
    """
    if not isinstance(encoding, Encoding):
        raise InvalidParameter(
            f"encoding={encoding!r} is not an Encoding; build one with posproof.preset()")
    length, dps = check_scan_options(encoding, max_len, dps)
    seed = check_int("seed", seed, minimum=0)
    names = _names(checks)
    if near_tol is not None:
        near_tol = check_finite("near_tol", near_tol)
        if near_tol <= 0:
            raise InvalidParameter(f"near_tol={near_tol!r} must be > 0 (a distance)")
    if near_range is not None:
        try:
            lo, hi = (check_int("near_range start", near_range[0], minimum=1),
                      check_int("near_range stop", near_range[1], minimum=1))
        except (TypeError, IndexError):
            raise InvalidParameter(
                f"near_range={near_range!r}; pass two offsets (start, stop)") from None
        if hi > length or hi <= lo:
            raise InvalidParameter(f"near_range=({lo}, {hi}) must satisfy 1 ≤ start < stop ≤ "
                                   f"max_len={length}")
        near_range = (lo, hi)
    if dtypes is not None:
        dtypes = check_sequence("dtypes", dtypes, strings=True)
    audit = tuple(dtype_model(t).name for t in (AUDIT_DTYPES if dtypes is None else dtypes))
    ctx = _Context(encoding, length, dps, seed, progress, proofs, near_range, near_tol,
                   tuple(dict.fromkeys(audit)))
    out = []
    for name in names:
        ctx.label = name
        ctx.tick(0, 1)
        try:
            out.append(_RUNNERS[name](ctx))
        except _NotApplicable as exc:
            out.append(_not_applicable(name, str(exc)))
        except PosproofError as exc:
            raise type(exc)(f"{encoding.name}: check {name}: {exc}") from None
        ctx.tick(1, 1)
    return out


def check(encoding: Encoding, *, max_len: int = DEFAULT_MAX_LEN, dps: int = DEFAULT_DPS,
          checks: Sequence[str] | None = None, progress: Progress | None = None,
          seed: int = 0, near_range: tuple[int, int] | None = None,
          near_tol: float | None = None, dtypes: Sequence[str] | None = None) -> Report:
    """Measure ``encoding`` on positions 0 … max_len−1; a :class:`Report` with ``checks`` filled.

    ``checks`` picks some of :data:`CHECKS` (all by default); ``dps`` (≥ 50)
    is the precision of the mpmath certification; ``progress(label, done,
    total)`` is called during long scans; ``seed`` fixes the random positions
    (the report is deterministic); ``near_range`` = (start, stop) and
    ``near_tol`` (a distance) tune ``near_return``; ``dtypes`` are audited by
    ``dtype_audit`` (default float32, float16, bfloat16).

    >>> from posproof import preset
    >>> report = check(preset("binary", dim=8), max_len=100, checks=["periodicity", "separation"])
    >>> [(c.name, c.status) for c in report.checks], report.ok
    ([('periodicity', 'pass'), ('separation', 'fail')], False)
    >>> report["periodicity"].values["integer_period"]
    32
    >>> check(preset("vaswani", dim=8), max_len=0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    posproof.errors.InvalidParameter: max_len=0 is too small; it must be >= 1 (the number of ...)
    """
    results = run_checks(encoding, max_len=max_len, dps=dps, checks=checks, progress=progress,
                         seed=seed, near_range=near_range, near_tol=near_tol, dtypes=dtypes)
    return Report(encoding.to_dict(), [], results)
