"""The checks read on rows of the table: ``bounds`` (|PE_i| ≤ 1, ‖PE(x)‖² = n),
``translation_residual`` (PE(x + Δ) = PE(x)·T(Δ) within rounding) and ``toeplitz`` (the Gram
matrix of consecutive rows depends on i − j only).
"""

from __future__ import annotations

import math
from typing import Any

import mpmath
import numpy as np
import sympy as sp

from ..evidence import Evidence, Sign, Spot
from ..report import Check
from .checks_context import Context, g, inconsistent, not_applicable
from .dtypes import TRIG_ULPS, U
from .gram import toeplitz_deviation
from .translation import translation_residual

__all__ = ["TOEPLITZ_LEN", "bounds", "toeplitz", "translation"]

TOEPLITZ_LEN = 256
_SAMPLE = 512


def bounds(ctx: Context) -> Check:
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
    omegas = ctx.omega_mp(x)                 # digits grow with log10|ω·x|
    entry_err = 0.0
    consistent = True
    worst_entry = None
    with mpmath.workdps(ctx.work_dps(x)):
        for j, func in enumerate(enc.column_funcs):
            if func == "zero":
                continue
            w = omegas[enc.column_freq_index[j]]
            exact = mpmath.sin(w * x) if func == "sin" else mpmath.cos(w * x)
            err = float(abs(exact - mpmath.mpf(float(table[worst, j]))))
            allowed = 2.01 * U * abs(x * float(w)) + t + 1e-300
            if worst_entry is None or err > entry_err:
                worst_entry = (j, float(table[worst, j]), allowed)
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
        ok, note = False, inconsistent(f"a table entry at position {x}")
    elif not ok:
        note = ("the norm is not constant: ‖PE(x)‖² ranges over "
                f"[{g(float(sq.min()))}, {g(float(sq.max()))}]" if spread > 2 * tol
                else f"max |PE_i| = {max_abs!r} > 1")
    if sound:
        values["summary"] = (f"max|PE_i| = {g(max_abs)} ≤ 1, ‖PE‖ = √{n} within "
                             f"{g(norm_dev or 0.0)} on {sample.size} rows")
    else:
        values["summary"] = f"max|PE_i| = {g(max_abs)}, ‖PE‖² spread {g(spread)}"
    certified = (f"float64 table rows (first, last and {_SAMPLE} random positions); "
                 f"tolerance on ‖PE‖² {tol:.1e} from the rounding of sin, cos and the sum; "
                 f"worst row recomputed in mpmath at {ctx.dps} digits plus the digits of |ω·x|")
    rows_total = ctx.length - (enc.padding_idx is not None
                               and enc.offset <= enc.padding_idx < enc.offset + ctx.length)
    # a pass rests on the worst row's entries being within their bounds of the exact values:
    # the entry farthest from its exact value is the item (one term, cheap to build and audit)
    items: list[Any] = []
    if not ok and consistent:
        items = [_bounds_sign(table, sample, max_abs, dev, tol, spread, n, sound)]
    if ok and worst_entry is not None:
        j, value, radius = worst_entry
        items = [Spot(f"PE({x})[{j}] (the worst row's farthest entry)",
                      (sp.sin if enc.column_funcs[j] == "sin" else sp.cos)(
                          enc.frequencies[enc.column_freq_index[j]] * x), value, radius)]
    evidence = Evidence("float64 table rows with a rigorous tolerance",
                        "sample" if sample.size < rows_total else "all", items,
                        {"unit": "rows"}, covered=int(sample.size), total=int(rows_total),
                        unaudited=None if items else "a table entry disagrees with mpmath "
                        "beyond its bound (a toolkit inconsistency)")
    return Check("bounds", "pass" if ok else "fail", values, certified, note, evidence=evidence)



def _bounds_sign(table: np.ndarray, sample: np.ndarray, max_abs: float, dev: np.ndarray,
                 tol: float, spread: float, n: int, sound: bool) -> Sign:
    """What a bounds fail rests on, with the rows exact: an entry beyond 1, a norm off n, or
    two squared norms further apart than 2·tol."""
    if max_abs > 1.0:
        i, j = np.unravel_index(int(np.argmax(np.abs(table))), table.shape)
        return Sign(f"|PE({int(sample[i])})[{int(j)}]| − 1", sp.Abs(_exact(table[i, j])) - 1,
                    "positive")
    if sound and float(dev.max()) > tol:
        w = int(np.argmax(dev))
        return Sign(f"|‖PE({int(sample[w])})‖² − {n}| − tolerance (row exact)",
                    sp.Abs(_dot(table[w], table[w]) - n) - _exact(tol), "positive")
    norms = (table * table).sum(axis=1)
    hi, lo = int(np.argmax(norms)), int(np.argmin(norms))
    return Sign(f"‖PE({int(sample[hi])})‖² − ‖PE({int(sample[lo])})‖² − 2·tolerance (rows "
                "exact)", _dot(table[hi], table[hi]) - _dot(table[lo], table[lo])
                - 2 * _exact(tol), "positive")


def _exact(value: float) -> sp.Rational:
    return sp.Rational(*float(value).as_integer_ratio())


def _dot(a: np.ndarray, b: np.ndarray) -> sp.Expr:
    """The exact dot product of two float64 rows."""
    return sp.Add(*[_exact(x) * _exact(y) for x, y in zip(a, b, strict=True)])


def _toeplitz_sign(table: np.ndarray, pos: np.ndarray, tol: float) -> Sign:
    """What a Toeplitz fail rests on: |G[i+1, j+1] − G[i, j]| > tol with the rows exact."""
    gram = table @ table.T
    d = np.abs(gram[1:, 1:] - gram[:-1, :-1])
    i, j = (int(k) for k in np.unravel_index(int(np.argmax(d)), d.shape))
    q = _dot(table[i + 1], table[j + 1]) - _dot(table[i], table[j])
    return Sign(f"|PE({int(pos[i + 1])})·PE({int(pos[j + 1])}) − PE({int(pos[i])})·"
                f"PE({int(pos[j])})| − tolerance (rows exact)", sp.Abs(q) - _exact(tol),
                "positive")


def _large_pairs(ctx: Context, count: int = 8) -> tuple[np.ndarray, np.ndarray]:
    """Random pairs (x, Δ ≥ 1) whose rows x and x + Δ lie in 0 … L−1 (x + Δ ≥ L/2)."""
    rng = np.random.default_rng(ctx.seed + 1)
    ends = rng.integers(max(ctx.length // 2, 1), ctx.length, count)
    x = rng.integers(0, ends)
    return x + ctx.enc.offset, ends - x


def translation(ctx: Context) -> Check:
    enc = ctx.enc
    problems = enc.broken_pairs()
    if problems:
        return not_applicable("translation_residual", "; ".join(problems[:2]))
    if ctx.length < 2:
        return Check("translation_residual", "pass",
                     {"pairs": 0, "summary": "one position: no offset Δ ≥ 1 to translate by"},
                     "nothing to compare", evidence=Evidence(
                         "exhaustive comparison", details={"pairs": 0},
                         unaudited="one position: no offset Δ ≥ 1 to translate by"))
    x, d = _large_pairs(ctx)
    res, tol = translation_residual(enc, x, d)
    i, j = np.unravel_index(int(np.argmax(res / tol)), res.shape)
    # the float64 entry at the worst place, against mpmath
    pos = int(x[i] + d[i])
    omegas = ctx.omega_mp(pos)               # digits grow with log10|ω·x|
    w = omegas[enc.column_freq_index[int(j)]]
    moved = enc.table([pos])[0, int(j)]
    with mpmath.workdps(ctx.work_dps(pos)):
        exact = mpmath.sin(w * pos) if enc.column_funcs[int(j)] == "sin" else mpmath.cos(w * pos)
        entry_err = float(abs(exact - mpmath.mpf(float(moved))))
    entry_ok = entry_err <= 2.01 * U * abs(pos * float(w)) + TRIG_ULPS * U
    values = {
        "pairs": int(x.size), "x_max": int(x.max()), "delta_max": int(d.max()),
        "max_residual": float(res.max()), "max_residual_over_tolerance": float((res / tol).max()),
        "tolerance_at_worst_ratio": float(tol[i, j]),
        "position_max": int((x + d).max()),
        "summary": (f"max |PE(x+Δ) − PE(x)·T(Δ)| = {g(float(res.max()))} "
                    f"({g(float((res / tol).max()))} of tolerance) at {x.size} random pairs "
                    f"x < x+Δ ≤ {int((x + d).max())}"),
    }
    certified = ("float64 rows and blockwise numeric T(Δ) at random pairs x < x+Δ < L; per-column "
                 "tolerance 4u(|(x+Δ)ω| + 2|xω| + 2|Δω|) + 16t; worst entry of PE(x+Δ) "
                 f"recomputed in mpmath at {ctx.dps} digits")
    # |PE(x+Δ)_j − (PE(x)·T)_j| ≤ 2 whatever the table: a tolerance ≥ 2 judges nothing there
    judged = (tol < 2).all(axis=1)
    total = ctx.length * (ctx.length - 1) // 2
    values["pairs_judged"] = int(judged.sum())
    evidence = Evidence(
        "float64 rows and T(Δ) with a rigorous per-entry tolerance", "sample",
        [Spot(f"PE({pos})[{int(j)}]", (sp.sin if enc.column_funcs[int(j)] == "sin" else sp.cos)(
            enc.frequencies[enc.column_freq_index[int(j)]] * pos), float(moved),
            2.01 * U * abs(pos * float(w)) + TRIG_ULPS * U)] if entry_ok else [],
        {"unit": "pairs (x, x+Δ)", "tolerance_judges_nothing_at": int((~judged).sum())},
        covered=int(judged.sum()), total=int(total))
    if not entry_ok:
        return Check("translation_residual", "fail", values, certified,
                     inconsistent(f"table entry at position {pos}"), evidence=evidence)
    if not (res <= tol).all():
        return Check("translation_residual", "fail", values, certified,
                     f"residual {float(res[i, j]):.3g} at x={int(x[i])}, Δ={int(d[i])}, "
                     f"column {int(j)} exceeds its tolerance {float(tol[i, j]):.3g}",
                     evidence=evidence)
    if not judged.any():
        values["summary"] = ("nothing judged: at these positions float64 cannot form the "
                             f"angles (tolerance ≥ 2 ≥ any residual, e.g. {g(float(tol.max()))})")
        return Check("translation_residual", "unknown", values, certified,
                     "unknown: the float64 tolerance covers the whole range of the residual "
                     "at every sampled pair (|ω·x| too large for float64); the theorem itself "
                     "is proved symbolically", evidence=evidence)
    return Check("translation_residual", "pass", values, certified, evidence=evidence)


# --------------------------------------------------------------------------- toeplitz
def toeplitz(ctx: Context) -> Check:
    enc, length = ctx.enc, ctx.length
    rows = min(length, TOEPLITZ_LEN)
    rng = np.random.default_rng(ctx.seed + 2)
    starts = [0] if length <= rows else [0, int(rng.integers(0, length - rows + 1))]
    freq = np.abs(enc.column_frequencies_float)
    t = TRIG_ULPS * U
    blocks = []
    spots: list[Any] = []
    fails: list[Any] = []
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
        if dev > tol and not fails:
            fails.append(_toeplitz_sign(table, pos, tol))
        ok = ok and dev <= tol
        if kernel is not None and pos.size >= 2:
            gram = table @ table.T
            lag = min(int(pos.size) - 1, 7)
            exact = kernel.mp(lag, ctx.dps)
            diag = np.diagonal(gram, offset=lag)
            at = int(np.argmax(np.abs(diag - float(exact))))
            worst = float(abs(diag[at] - float(exact)))
            consistent = consistent and worst <= tol
            # the diagonal entry farthest from f(lag), within the tolerance of the exact f(lag)
            spots.append(kernel.spot_item(
                f"Gram entry PE({int(pos[at])})·PE({int(pos[at + lag])}) = f({lag}) within the "
                "tolerance", [lag], [], float(diag[at]), tol))
    values = {"blocks": blocks,
              "summary": "Gram depends on x − y only (max deviation "
                         f"{g(max(b['deviation'] for b in blocks))})" if ok else
                         "Gram matrix is not Toeplitz"}
    certified = ("float64 Gram of consecutive rows; tolerance from the rounding of the table "
                 "(2u|xω| + t per entry) and of the dot products")
    if kernel is not None:
        certified += (f"; one diagonal compared with f(lag) certified to {ctx.dps} digits "
                      "(interval arithmetic)")
    rows_seen = sum(b["rows"] for b in blocks)
    # |Gram deviation| ≤ 2·max‖PE‖²: a tolerance at least that judges nothing
    vacuous = all(b["tolerance"] >= 2 * max(norm2, 1e-300) for b in blocks)
    evidence = Evidence("float64 Gram of consecutive rows with a rigorous tolerance", "sample",
                        [] if not consistent else spots if ok else fails, {"unit": "rows"},
                        covered=min(rows_seen, ctx.length), total=ctx.length,
                        unaudited=None if consistent and (spots if ok else fails) else
                        "no Gram diagonal compared with the exact kernel (no (sin, cos) pairs, "
                        "one row, or a toolkit inconsistency)")
    if not consistent:
        return Check("toeplitz", "fail", values, certified,
                     inconsistent("a Gram diagonal against the kernel"), evidence=evidence)
    if vacuous:
        values["summary"] = "nothing judged: the float64 tolerance covers every deviation"
        return Check("toeplitz", "unknown", values, certified,
                     "unknown: the float64 tolerance is at least the largest possible deviation "
                     "(|ω·x| too large for float64); the dot-product theorem is proved "
                     "symbolically", evidence=evidence)
    if not ok:
        worst_block = max(blocks, key=lambda b: b["deviation"] - b["tolerance"])
        return Check("toeplitz", "fail", values, certified,
                     f"PE(x)·PE(y) depends on more than x − y: deviation "
                     f"{worst_block['deviation']:.3g} > tolerance {worst_block['tolerance']:.3g} "
                     f"for rows from position {worst_block['first_position']}",
                     evidence=evidence)
    return Check("toeplitz", "pass", values, certified, evidence=evidence)
