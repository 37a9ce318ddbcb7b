"""The checks read on the offset kernel f(Δ) = Σ cos(ω_k Δ): ``separation`` (no two positions
collide), ``near_return`` (the closest return), ``periodicity`` (the numbers confirm the proof
engine) and ``decay`` (where f first turns negative and first rises).
"""

from __future__ import annotations

from typing import Any

import mpmath
import sympy as sp

from ..report import Check, Proof
from ..validated import irrational, rational_value
from .checks_context import Context, fmt, g, inconsistent
from .kernel import Crossing

__all__ = ["decay", "near_return", "periodicity", "separation"]


def separation(ctx: Context) -> Check:
    length = ctx.length
    ext = ctx.separation()
    if ext is None:
        return Check("separation", "pass",
                     {"length": length, "min_distance": None,
                      "summary": "one position: nothing to separate"}, "nothing to compare")
    values = {
        "length": length, "min_distance": ext.distance,
        "min_distance_mp": fmt(ext.distance_mp), "at_offset": ext.delta,
        "distance_bound": ext.distance_bound, "kernel_bound": ext.bound,
        "summary": (f"min ‖PE(x+Δ)−PE(x)‖ = {g(float(ext.distance_mp))} at Δ={ext.delta} "
                    f"over Δ=1…{length - 1}"),
    }
    certified = (f"float64 GEMM kernel over Δ = 1…{length - 1}, bound {ext.bound:.1e} on f; "
                 f"{ext.candidates} candidate(s) within 2·bound recomputed in mpmath at "
                 f"{ext.dps} digits{' (truncated)' if ext.truncated else ''}; "
                 f"argmin Δ={ext.delta} confirmed")
    if not ext.consistent:
        return Check("separation", "fail", values, certified,
                     inconsistent(f"the kernel near Δ={ext.delta}"))
    if ext.distance_mp == 0:
        values["summary"] = f"positions collide: PE(x+{ext.delta}) = PE(x)"
        return Check("separation", "fail", values, certified,
                     f"positions x and x+{ext.delta} have the same encoding for every x "
                     f"(distance 0 in mpmath at {ext.dps} digits); use fewer than "
                     f"{ext.delta + 1} positions or another schedule")
    return Check("separation", "pass", values, certified)



def near_return(ctx: Context) -> Check:
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
        "closest_distance_mp": fmt(ext.distance_mp), "at_offset": ext.delta,
        "distance_bound": ext.distance_bound, "kernel_bound": ext.bound,
        "tolerance": tol, "effective_period": period,
        "summary": (f"closest {g(float(ext.distance_mp))} at Δ={ext.delta} in [{lo}, {hi}); "
                    f"first Δ closer than {g(tol)}: {period}"),
    }
    certified = (f"float64 GEMM kernel, bound {ext.bound:.1e} on f; argmin confirmed in mpmath "
                 f"at {ctx.dps} digits ({ext.candidates} candidate(s)); tolerance = {tol_text}")
    consistent = ext.consistent and (crossing is None or crossing.consistent)
    if crossing is not None:
        certified += (f"; first crossing recomputed in mpmath at Δ and Δ−1 "
                      f"({crossing.rechecked} near-threshold value(s) rechecked)")
        values["effective_period_distance_mp"] = fmt(kernel.distance_mp(crossing.delta,
                                                                         ctx.dps))
    if not consistent:
        return Check("near_return", "fail", values, certified, inconsistent("the kernel"))
    return Check("near_return", "pass", values, certified)



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


def periodicity(ctx: Context) -> Check:
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
                         inconsistent("an exact return found numerically for a proved "
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
                         inconsistent("an exact return at an integer offset"))
        return Check("periodicity", "pass", values, certified)
    p = int(exact_p.p)                              # smallest integer multiple of P
    values["integer_period"] = p
    if p > length - 1:
        values["summary"] = f"period {p} (proved), beyond L = {length}"
        if not no_return:
            return Check("periodicity", "fail", values, certified,
                         inconsistent("an exact return before the proved period"))
        return Check("periodicity", "pass", values, certified)
    at_p = kernel.distance_mp(p, ctx.dps)
    f_p = float(kernel([p])[0])
    before = kernel.maximum(1, p, dps=ctx.dps, progress=ctx.tick) if p >= 2 else None
    values.update(distance_at_period_mp=fmt(at_p), kernel_at_period=f_p,
                  closest_before_period_mp=None if before is None else fmt(before.distance_mp),
                  summary=f"period {p} confirmed: distance 0 at Δ={p}, > 0 before")
    certified += (f"; distance at Δ={p} recomputed in mpmath at {ctx.dps} digits; smallest "
                  f"distance over Δ < {p} certified > 0 (float64 GEMM + mpmath)")
    ok = (at_p == 0 and abs(f_p - kernel.n) <= kernel.call_bound(p)
          and (before is None or (before.consistent and before.distance_mp > 0)))
    if not ok:
        return Check("periodicity", "fail", values, certified,
                     inconsistent(f"the numeric return at the proved period {p}"))
    return Check("periodicity", "pass", values, certified)



def decay(ctx: Context) -> Check:
    kernel, length = ctx.kernel, ctx.length
    neg = kernel.first_crossing(0, below=True, start=0, stop=length, dps=ctx.dps,
                                progress=ctx.tick)
    rise = kernel.first_increase(start=0, stop=length, dps=ctx.dps, progress=ctx.tick)
    none = f"none up to {length}"

    def described(c: Crossing | None, what: str) -> dict[str, Any]:
        if c is None:
            return {what: none}
        return {what: c.delta, f"{what}_value_mp": fmt(c.value_mp),
                f"{what}_previous_mp": None if c.previous_mp is None else fmt(c.previous_mp)}

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
        return Check("decay", "fail", values, certified, inconsistent("a first crossing"))
    return Check("decay", "pass", values, certified)
