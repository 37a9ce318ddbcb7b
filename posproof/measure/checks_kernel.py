"""The checks read on the offset kernel f(Δ) = Σ cos(ω_k Δ): ``separation`` (no two positions
collide), ``near_return`` (the closest return), ``periodicity`` (the numbers confirm the proof
engine) and ``decay`` (where f first turns negative and first rises).

Every decision is a certified sign (:meth:`~posproof.measure.kernel.OffsetKernel.decide`:
interval arithmetic from the exact frequencies, exact ties proved exactly); a sign that cannot
be decided makes the check ``unknown`` with the offset named.  Each check carries the
:class:`~posproof.evidence.Evidence` that decided it: the float64 scan's bound audited at the
offset that came closest (a :class:`~posproof.evidence.Spot`) and the exact quantities whose
signs decided it (:class:`~posproof.evidence.Sign`).
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from ..evidence import Evidence, Sign, Spot
from ..report import Check, Proof
from ..validated import irrational, rational_value
from .checks_context import Context, fmt, g, inconsistent
from .kernel import Crossing, Decision, Extreme, OffsetKernel, Scan, exact_rational

__all__ = ["decay", "near_return", "periodicity", "separation"]

#: Sign items kept per crossing (the crossing and the offset before it; without a crossing,
#: the first offsets decided by interval arithmetic).
_ITEMS_PER_CROSSING = 2


_ONE_POSITION = "one position: no offset to compare"


def _no_gap(items: list[Any]) -> str | None:
    """Why a verdict resting on the proof and the separation scan has no item (none when the
    scan's gap sign is there)."""
    return None if items else ("the proof engine's exact answer (audited with the theorem) "
                               "and a separation scan with no decided gap sign to re-check")


def _unknown(name: str, values: dict[str, Any], certified: str, why: str,
             evidence: Evidence | None = None) -> Check:
    return Check(name, "unknown", values, certified, f"unknown: {why}", evidence=evidence)


def _signs(kernel: OffsetKernel, decisions: list[Decision], limit: int) -> list[Sign]:
    out = []
    for dec in decisions:
        item = kernel.sign_item(_label(dec), dec)
        if item is not None:
            out.append(item)
        if len(out) >= limit:
            break
    return out


def _label(dec: Decision) -> str:
    if dec.kind == "gap":
        return f"Σ_k sin²(ω_k·{dec.plus[0]}/2) = ‖PE(x+{dec.plus[0]}) − PE(x)‖²/4"
    text = " + ".join(f"f({d})" for d in dec.plus)
    text += "".join(f" − f({d})" for d in dec.minus)
    if dec.const != 0:
        text += f" − ({dec.const})"
    return text


def gap_item(kernel: OffsetKernel, ext: Extreme) -> list[Sign]:
    return _signs(kernel, [d for d in ext.decisions if d.kind == "gap"][:1], 1)


def extreme_spot(kernel: OffsetKernel, ext: Extreme) -> Spot:
    return kernel.spot_item(f"float64 scan value f({ext.delta}) within its bound", [ext.delta],
                            [], ext.f, ext.bound)


def _crossing_items(kernel: OffsetKernel, c: Crossing | None, scan: Scan, *,
                    diff: bool) -> list[Any]:
    """The signs that decided a crossing (or, without one, the rechecked offsets) and the
    float64 value nearest the threshold that the scan's bound decided alone."""
    decisions = c.decisions if c is not None else scan.decisions
    items: list[Any] = _signs(kernel, decisions, _ITEMS_PER_CROSSING)
    closest = c.closest if c is not None else scan.closest
    if closest is not None:
        d, v = closest
        plus, minus = ([d + 1], [d]) if diff else ([d], [])
        what = f"f({d + 1}) − f({d})" if diff else f"f({d})"
        items.append(kernel.spot_item(f"float64 {what} closest to the threshold among the "
                                      "offsets the scan decided alone", plus, minus, v,
                                      scan.bound))
    return items


def separation(ctx: Context) -> Check:
    length = ctx.length
    ext = ctx.separation()
    if ext is None:
        return Check("separation", "pass",
                     {"length": length, "min_distance": None,
                      "summary": "one position: nothing to separate"}, "nothing to compare",
                     evidence=Evidence("exhaustive comparison", details={"offsets": 0},
                                       unaudited=_ONE_POSITION))
    kernel = ctx.kernel
    values = {
        "length": length, "min_distance": ext.distance,
        "min_distance_mp": fmt(ext.distance_mp), "at_offset": ext.delta,
        "distance_bound": ext.distance_bound, "kernel_bound": ext.bound,
        "summary": (f"min ‖PE(x+Δ)−PE(x)‖ = {g(float(ext.distance_mp))} at Δ={ext.delta} "
                    f"over Δ=1…{length - 1}"),
    }
    certified = (f"float64 GEMM kernel over Δ = 1…{length - 1}, bound {ext.bound:.1e} on f; "
                 f"{ext.candidates} candidate(s) within 2·bound compared by interval "
                 f"arithmetic from the exact frequencies{' (truncated)' if ext.truncated else ''}"
                 f"; argmin Δ={ext.delta}{' confirmed' if ext.decided else ' (see note)'}; "
                 f"distance certified to {ext.dps} digits by interval arithmetic")
    evidence = Evidence(
        "certified scan", "all", items=[extreme_spot(kernel, ext), *gap_item(kernel, ext)],
        details={"bound": ext.bound, "offsets_scanned": length - 1,
                 "candidates": ext.candidates, "truncated": ext.truncated,
                 "argmax_decided": ext.decided})
    if not ext.consistent:
        return _unknown("separation", values, certified,
                        inconsistent(f"the kernel near Δ={ext.delta}"), evidence)
    if ext.collision is None:
        return _unknown("separation", values, certified, ext.note or "collision undecided",
                        evidence)
    if ext.collision:
        values["summary"] = f"positions collide: PE(x+{ext.delta}) = PE(x)"
        return Check("separation", "fail", values, certified,
                     f"positions x and x+{ext.delta} have the same encoding for every x "
                     f"(distance proved exactly 0: every ω_k·{ext.delta} is a multiple of 2π); "
                     f"use fewer than {ext.delta + 1} positions or another schedule"
                     + (f" ({ext.note})" if ext.note else ""), evidence=evidence)
    return Check("separation", "pass", values, certified, ext.note, evidence=evidence)


def near_return(ctx: Context) -> Check:
    length, kernel = ctx.length, ctx.kernel
    if ctx.near_range is not None:
        lo, hi = ctx.near_range
    else:
        lo, hi = max(1, length // 2), length
    if length < 2 or hi <= lo:
        return Check("near_return", "pass", {"summary": "no offsets to scan"}, "nothing to scan",
                     evidence=Evidence("exhaustive comparison", details={"offsets": 0},
                                       unaudited=_ONE_POSITION))
    ext = kernel.maximum(lo, hi, dps=ctx.dps, progress=ctx.tick)
    n = kernel.n
    scan = Scan()
    if ctx.near_tol is None:
        tol = float(kernel.distance_mp(1, ctx.dps))
        tol_text = "the distance of neighbouring positions (threshold f(1), exact)"
        crossing = (kernel.first_crossing(below=False, start=2, stop=length, dps=ctx.dps,
                                          at=1, scan=scan, progress=ctx.tick)
                    if length > 2 else None)
    else:
        tol = ctx.near_tol
        threshold = n - exact_rational(tol) ** 2 / 2
        tol_text = "near_tol (threshold n − tol²/2, exact)"
        crossing = (kernel.first_crossing(threshold, below=False, start=2, stop=length,
                                          dps=ctx.dps, scan=scan, progress=ctx.tick)
                    if length > 2 else None)
    period: Any = crossing.delta if crossing is not None else f"none up to {length}"
    values = {
        "range": [lo, hi], "closest_distance": ext.distance,
        "closest_distance_mp": fmt(ext.distance_mp), "at_offset": ext.delta,
        "distance_bound": ext.distance_bound, "kernel_bound": ext.bound,
        "tolerance": tol, "effective_period": period,
        "summary": (f"closest {g(float(ext.distance_mp))} at Δ={ext.delta} in [{lo}, {hi}); "
                    f"first Δ closer than {g(tol)}: {period}"),
    }
    certified = (f"float64 GEMM kernel, bound {ext.bound:.1e} on f; argmin compared by interval "
                 f"arithmetic ({ext.candidates} candidate(s)), distance certified to "
                 f"{ctx.dps} digits; tolerance = {tol_text}")
    items: list[Any] = [extreme_spot(kernel, ext), *gap_item(kernel, ext)]
    items += _crossing_items(kernel, crossing, scan, diff=False)
    if crossing is not None:
        certified += (f"; first crossing decided by certified signs at Δ and Δ−1 "
                      f"({crossing.rechecked} near-threshold value(s) rechecked)")
        values["effective_period_distance_mp"] = fmt(kernel.distance_mp(crossing.delta,
                                                                         ctx.dps))
    evidence = Evidence("certified scan", "all", items=items,
                        details={"bound": ext.bound, "offsets_scanned": length - 2,
                                 "range": [lo, hi], "candidates": ext.candidates,
                                 "rechecked": scan.rechecked})
    consistent = ext.consistent and (crossing is None or crossing.consistent)
    if not consistent:
        return _unknown("near_return", values, certified, inconsistent("the kernel"), evidence)
    if crossing is not None and not crossing.decided:
        values["effective_period"] = None
        return _unknown("near_return", values, certified, crossing.note or "", evidence)
    return Check("near_return", "pass", values, certified, ext.note, evidence=evidence)


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
    values: dict[str, Any] = {"proof": proof.status}
    certified = "exact: proof engine (periodicity)"
    if kind == "unknown":
        # nothing proved for the numbers to confirm: undecided is unknown, never a pass
        values.update(period="unknown", summary="proof engine undecided; nothing to confirm")
        return _unknown("periodicity", values, certified,
                        f"the proof engine answered {proof.status}: {proof.note or ''}".strip(),
                        Evidence("proof engine", "structural", details={"proof": proof.status},
                                 unaudited="the proof engine left periodicity undecided: "
                                 "no numeric claim is made"))
    sep_items: list[Any] = [] if sep is None else gap_item(kernel, sep)
    if sep is not None and (sep.collision is None or not sep.consistent):
        values.update(period=str(period) if period is not None else "aperiodic",
                      summary="whether an exact return occurs before L is undecided")
        return _unknown("periodicity", values, certified,
                        sep.note or inconsistent(f"the kernel near Δ={sep.delta}"),
                        Evidence("certified scan", "all", items=sep_items,
                                 unaudited=_no_gap(sep_items)))
    no_return = sep is None or sep.collision is False
    if kind == "aperiodic":
        values.update(period="aperiodic", summary="aperiodic (proved); no exact return up to L")
        certified += (f"; no exact return for Δ = 1…{length - 1} (separation: distance "
                      "certified > 0)")
        evidence = Evidence("proof engine + certified scan", "all", items=sep_items,
                            unaudited=_no_gap(sep_items))
        if not no_return:
            return _unknown("periodicity", values, certified,
                            inconsistent("an exact return found numerically for a proved "
                                         "aperiodic curve"), evidence)
        return Check("periodicity", "pass", values, certified, evidence=evidence)
    assert period is not None
    values["period"] = str(period)
    exact_p = rational_value(period)          # proved rational, never SymPy's is_rational
    why = irrational(period) if exact_p is None else None
    if exact_p is None and why is None:
        values.update(integer_period=None, summary=f"period P = {period}: whether integer "
                      "positions repeat is undecided (P not proved rational or irrational)")
        return _unknown("periodicity", values, certified,
                        f"P = {period} is not proved rational or irrational: whether integer "
                        "positions repeat is undecided",
                        Evidence("proof engine", "structural", details={"period": str(period)},
                                 unaudited="whether integer positions repeat is undecided: no "
                                 "numeric claim is made"))
    if exact_p is None:
        values.update(integer_period=None,
                      summary=f"period P = {period}: integer positions never repeat exactly")
        certified += f"; P is irrational ({why}), so no integer offset is a period"
        evidence = Evidence("proof engine + certified scan", "all", items=sep_items,
                            unaudited=_no_gap(sep_items))
        if not no_return:
            return _unknown("periodicity", values, certified,
                            inconsistent("an exact return at an integer offset"), evidence)
        return Check("periodicity", "pass", values, certified, evidence=evidence)
    p = int(exact_p.p)                              # smallest integer multiple of P
    values["integer_period"] = p
    if p > length - 1:
        values["summary"] = f"period {p} (proved), beyond L = {length}"
        evidence = Evidence("proof engine + certified scan", "all", items=sep_items,
                            unaudited=_no_gap(sep_items))
        if not no_return:
            return _unknown("periodicity", values, certified,
                            inconsistent("an exact return before the proved period"), evidence)
        return Check("periodicity", "pass", values, certified, evidence=evidence)
    at_p = kernel.decide((p,), kind="gap", dps=ctx.dps)
    f_p = float(kernel([p])[0])
    before = kernel.maximum(1, p, dps=ctx.dps, progress=ctx.tick) if p >= 2 else None
    values.update(distance_at_period_mp=fmt(kernel.distance_mp(p, ctx.dps)),
                  kernel_at_period=f_p,
                  closest_before_period_mp=None if before is None else fmt(before.distance_mp),
                  summary=f"period {p} confirmed: distance 0 at Δ={p}, > 0 before")
    certified += (f"; distance at Δ={p} proved exactly 0 ({at_p.how}); smallest distance over "
                  f"Δ < {p} certified > 0 (float64 GEMM + interval arithmetic)")
    items = _signs(kernel, [at_p], 1)
    if before is not None:
        items += gap_item(kernel, before)
    evidence = Evidence("proof engine + certified scan", "all", items=items,
                        details={"integer_period": p})
    if before is not None and before.collision is None:
        return _unknown("periodicity", values, certified, before.note or "", evidence)
    ok = (at_p.sign == 0 and abs(f_p - kernel.n) <= kernel.call_bound(p)
          and (before is None or (before.consistent and before.collision is False)))
    if not ok:
        return _unknown("periodicity", values, certified,
                        inconsistent(f"the numeric return at the proved period {p}"), evidence)
    return Check("periodicity", "pass", values, certified, evidence=evidence)


def decay(ctx: Context) -> Check:
    kernel, length = ctx.kernel, ctx.length
    neg_scan, rise_scan = Scan(), Scan()
    neg = kernel.first_crossing(0, below=True, start=0, stop=length, dps=ctx.dps,
                                scan=neg_scan, progress=ctx.tick)
    rise = kernel.first_increase(start=0, stop=length, dps=ctx.dps, scan=rise_scan,
                                 progress=ctx.tick)
    none = f"none up to {length}"

    def described(c: Crossing | None, what: str) -> dict[str, Any]:
        if c is None:
            return {what: none}
        if not c.decided:
            return {what: None, f"{what}_undecided_at": c.delta}
        return {what: c.delta, f"{what}_value_mp": fmt(c.value_mp),
                f"{what}_previous_mp": None if c.previous_mp is None else fmt(c.previous_mp)}

    bound = kernel.scan_bound(length)
    values = {**described(neg, "first_negative"), **described(rise, "first_increase"),
              "f0": kernel.n, "kernel_bound": bound}
    values["summary"] = (
        (f"f(Δ) first < 0 at Δ={neg.delta}" if neg else f"f(Δ) ≥ 0 for Δ < {length}") + "; "
        + (f"first rises after Δ={rise.delta}" if rise else f"never rises before Δ={length - 1}"))
    certified = (f"float64 GEMM kernel, bound {bound:.1e}; every value within the bound of the "
                 "threshold decided by the certified sign of the exact quantity (interval "
                 f"arithmetic, {ctx.dps} digits and more; exact ties proved exactly); values "
                 f"certified to {ctx.dps} digits")
    items = (_crossing_items(kernel, neg, neg_scan, diff=False)
             + _crossing_items(kernel, rise, rise_scan, diff=True))
    evidence = Evidence("certified scan", "all", items=items,
                        details={"bound": bound, "epsilon_negative": neg_scan.bound,
                                 "epsilon_increase": rise_scan.bound,
                                 "offsets_scanned": length,
                                 "rechecked": neg_scan.rechecked + rise_scan.rechecked})
    consistent = all(c is None or c.consistent for c in (neg, rise))
    if not consistent:
        return _unknown("decay", values, certified, inconsistent("a first crossing"), evidence)
    undecided = [c for c in (neg, rise) if c is not None and not c.decided]
    if undecided:
        values["summary"] = "undecided: " + "; ".join(c.note or "" for c in undecided)
        return _unknown("decay", values, certified,
                        "; ".join(c.note or "" for c in undecided), evidence)
    return Check("decay", "pass", values, certified, evidence=evidence)

