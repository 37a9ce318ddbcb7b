"""Claims about multi-axis encodings, decided with certified counterexamples.

A claimed axis per block (:func:`axis_claim`, e.g. "the first half of sincos-2d encodes the
row"), a claimed convention of T(Δ) (:func:`convention_claim`), a claimed ``mrope_section``
(:func:`sections_claim`) and a table built with ``meshgrid(indexing="ij")`` where the spec
says ``"xy"`` (:func:`meshgrid_claim`).  Each refutation carries a counterexample whose
difference is enclosed by interval arithmetic (:func:`certified_difference`) away from 0.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import mpmath
import sympy as sp

from ... import validated
from ...audit import apply
from ...errors import InvalidParameter, PosproofError, UnknownName, check_int, check_sequence
from ...evidence import Evidence, Sign
from ...model.multiaxis import MultiAxisEncoding, axis_symbols
from ...model.multirope import MultiAxisRotary, mrope_axes
from ...precise import DEFAULT_DPS, mp_value
from ...report import Proof, Step
from ..witness import witness_sign
from .check import MAX_ITEMS, CrossCheckMismatch, encoding_residual, entries_item

__all__ = ["axis_claim", "certified_difference", "convention_claim", "meshgrid_claim",
           "mrope_section_claim", "sections_claim"]

# --------------------------------------------------------------------------- certificates
def certified_difference(lhs: sp.Expr, rhs: sp.Expr, env: dict[sp.Symbol, Any] | None = None,
                         bits: Sequence[int] = (192, 640, 2048)) -> dict[str, Any] | None:
    """An interval enclosure of ``lhs − rhs`` at ``env`` that excludes 0, or None.

    >>> certified_difference(sp.sin(sp.Integer(1)), sp.Integer(0))["certified"][:30]
    'interval arithmetic: |lhs − rh'
    >>> certified_difference(sp.sin(sp.pi), sp.Integer(0)) is None
    True
    """
    env = env or {}
    for prec in bits:
        try:
            diff = validated.enclose(sp.Add(lhs, -rhs), env, prec)
        except validated.Unenclosable:
            continue
        if not (diff > 0 or diff < 0):
            continue
        lo, hi = validated.bounds(abs(diff))
        with mpmath.workdps(DEFAULT_DPS):
            return {"lhs": mpmath.nstr(mp_value(lhs, DEFAULT_DPS, env), 20),
                    "rhs": mpmath.nstr(mp_value(rhs, DEFAULT_DPS, env), 20),
                    "residual_enclosure": [mpmath.nstr(lo, 12), mpmath.nstr(hi, 12)],
                    "bits": prec, "dps": max(DEFAULT_DPS, validated.digits_of(prec)),
                    "certified": f"interval arithmetic: |lhs − rhs| ≥ {mpmath.nstr(lo, 6)} > 0"}
    return None



def _witness(label: str, lhs: sp.Expr, rhs: sp.Expr, env: dict[Any, Any] | None = None
             ) -> Evidence:
    """A refutation's evidence: the exact residual lhs − rhs at the witness, its sign
    certified (``positive`` / ``negative``; ``nonzero`` when only |lhs − rhs| was)."""
    diff = sp.Add(sp.sympify(lhs), -sp.sympify(rhs))
    found = witness_sign(label, diff, env)
    item = found[0] if found is not None else Sign(label, diff, "nonzero", dict(env or {}))
    return Evidence("certified sign", items=[item])


def _exact_integers(**details: Any) -> Evidence:
    """The evidence of a claim decided by integer arithmetic alone (nothing numeric to audit)."""
    return Evidence("exact integers", details=details,
                    unaudited="Python integer arithmetic (sizes, counts, indices): no rounding "
                    "to re-check")


def _audited(claim: Callable[..., Proof]) -> Callable[..., Proof]:
    """Run the independent audit on the claim's verdict (:func:`posproof.audit.apply`)."""
    @functools.wraps(claim)
    def run(*args: Any, **kwargs: Any) -> Proof:
        return apply(claim(*args, **kwargs))
    return run


# --------------------------------------------------------------------------- claims
def _axis_index(enc: MultiAxisEncoding, axis: Any) -> int:
    names = [n.lower() for n in enc.axis_names]
    if isinstance(axis, str):
        key = {"column": "col", "columns": "col", "rows": "row"}.get(axis.lower(), axis.lower())
        if key in names:
            return names.index(key)
        raise UnknownName(f"axis={axis!r} is not an axis of {enc.name}; use one of "
                          f"{', '.join(enc.axis_names)} or an index 0 … {enc.axes - 1}")
    return check_int("axis", axis, minimum=0, maximum=enc.axes - 1)


@_audited
def axis_claim(enc: MultiAxisEncoding, claimed: Any) -> Proof:
    """Decide "block b encodes axis claimed[b]" (``claimed`` one axis per block, or one axis:
    the claim about the first block, e.g. ``"row"`` for "the first half encodes the row").

    Refuted with a certified counterexample: moving only the axis the block really reads
    changes one of its columns, which the claim says depends on another axis only.

    >>> from posproof.model.multiaxis import multi_preset
    >>> axis_claim(multi_preset("sincos-2d", dim=8), "row").status
    'refuted'
    >>> axis_claim(multi_preset("sincos-2d", dim=8), "column").status
    'proved'
    """
    if isinstance(claimed, (str, int)) and not isinstance(claimed, bool):
        claimed = [claimed]
    claimed = check_sequence("claimed", claimed)
    if not 1 <= len(claimed) <= len(enc.blocks):
        raise InvalidParameter(f"claimed gives {len(claimed)} axes for {len(enc.blocks)} blocks")
    axes = [_axis_index(enc, c) for c in claimed]
    text = ", ".join(f"block {b} (columns {enc.blocks[b].columns[0]}…"
                     f"{enc.blocks[b].columns[-1]}) encodes {enc.axis_names[a]}"
                     for b, a in enumerate(axes))
    statement = f"claim: {text}"
    xs = axis_symbols(enc.axes)
    vec = enc.vector()
    steps = []
    for b, a in enumerate(axes):
        block = enc.blocks[b]
        syms = set().union(*(vec[0, j].free_symbols for j in block.columns))
        if a == block.axis:
            if not syms <= {xs[a]}:  # pragma: no cover - a block reads one axis by construction
                return Proof("claim:axes", statement, "unknown", steps,
                             note=f"block {b} involves {sorted(map(str, syms))}")
            steps.append(Step(f"columns {block.columns[0]}…{block.columns[-1]} are functions of "
                              f"{xs[a]} ({enc.axis_names[a]}) only", "free symbols"))
            continue
        real = block.axis
        origin = list(enc.offsets)
        moved = list(origin)
        for step_size in (1, 2, 3):
            moved[real] = origin[real] + step_size
            for j in block.columns:
                lhs = vec[0, j].subs(dict(zip(xs, moved, strict=True)))
                rhs = vec[0, j].subs(dict(zip(xs, origin, strict=True)))
                ce = certified_difference(lhs, rhs)
                if ce is None:
                    continue
                steps.append(Step(f"block {b} reads {enc.axis_names[real]}, not "
                                  f"{enc.axis_names[a]}: moving only {enc.axis_names[real]} from "
                                  f"{origin} to {moved} changes column {j} from {ce['rhs']} to "
                                  f"{ce['lhs']}, though the claim makes it a function of "
                                  f"{enc.axis_names[a]} alone", f"interval arithmetic at "
                                                                  f"{ce['bits']} bits"))
                return Proof("claim:axes", statement, "refuted", steps, counterexample={
                    "block": b, "claimed_axis": enc.axis_names[a],
                    "actual_axis": enc.axis_names[real], "column": j,
                    "position": origin, "moved_position": moved, **ce},
                    note="axes swapped against the claimed convention"
                         + (" (MAE's meshgrid puts the column first)"
                            if enc.name == "sincos-2d" else ""),
                    evidence=_witness(f"column {j}: PE({moved}) − PE({origin}) (only "
                                      f"{enc.axis_names[real]} moved)", lhs, rhs))
        return Proof("claim:axes", statement, "unknown", steps,
                     note=f"block {b}: no certified counterexample found")
    return Proof("claim:axes", statement, "proved", steps,
                 crosscheck=_axes_crosscheck(enc, axes), evidence=_axes_evidence(enc, axes))


def _axes_evidence(enc: MultiAxisEncoding, axes: list[int]) -> Evidence:
    """Each claimed block's first and last column, at a position and at one where every axis
    but the claimed one moved: the same exact value (the difference is 0)."""
    xs = axis_symbols(enc.axes)
    vec = enc.vector()
    items = []
    for b, a in list(enumerate(axes))[:MAX_ITEMS]:
        cols = enc.blocks[b].columns
        here = [o + 1234 + 7 * i for i, o in enumerate(enc.offsets)]
        there = [x if i == a else x + 5011 + 13 * i for i, x in enumerate(here)]
        at_here = dict(zip(xs, here, strict=True))
        at_there = dict(zip(xs, there, strict=True))
        pairs = [(vec[0, j].subs(at_there), vec[0, j].subs(at_here))
                 for j in sorted({cols[0], cols[-1]})]
        items.append(entries_item(f"block {b}: columns {cols[0]}, {cols[-1]} at {there} − at "
                                  f"{here} (only axes other than {enc.axis_names[a]} moved)",
                                  pairs))
    return Evidence("free symbols (each block reads its claimed axis only) + exact "
                    "comparisons", "structural", items, {"blocks": len(axes)})


def _axes_crosscheck(enc: MultiAxisEncoding, axes: list[int]) -> dict[str, Any]:
    """Moving every axis but the claimed one leaves the block's columns unchanged, in mpmath
    at random integer positions (a sample of at most 4 columns per block)."""
    import random

    rng = random.Random(len(axes))
    xs = axis_symbols(enc.axes)
    vec = enc.vector()
    worst = mpmath.mpf(0)
    with mpmath.workdps(DEFAULT_DPS):
        for b, a in enumerate(axes):
            cols = enc.blocks[b].columns
            for _ in range(2):
                p = [rng.randrange(-10**4, 10**4) for _ in range(enc.axes)]
                q = [rng.randrange(-10**4, 10**4) if i != a else p[i] for i in range(enc.axes)]
                at_p, at_q = dict(zip(xs, p, strict=True)), dict(zip(xs, q, strict=True))
                for j in rng.sample(list(cols), min(4, len(cols))):
                    worst = max(worst, abs(mp_value(vec[0, j], DEFAULT_DPS, at_p)
                                           - mp_value(vec[0, j], DEFAULT_DPS, at_q)))
    if worst > mpmath.mpf(10) ** -(DEFAULT_DPS - 15):  # pragma: no cover - proved above
        raise CrossCheckMismatch(f"claim:axes: residual {mpmath.nstr(worst, 5)}")
    return {"max_residual": mpmath.nstr(worst, 3), "dps": DEFAULT_DPS}


@_audited
def convention_claim(enc: MultiAxisEncoding, convention: str = "column") -> Proof:
    """Decide "PE(x+Δ) = PE(x)·T(Δ)" with T(Δ) built in ``convention``: proved for ``"row"``,
    refuted with a certified counterexample for ``"column"`` (T(Δ)ᵀ = T(−Δ) shifts backwards).

    >>> from posproof.model.multiaxis import multi_preset
    >>> convention_claim(multi_preset("pe-2d", dim=4)).status
    'refuted'
    """
    if convention not in ("row", "column"):
        raise InvalidParameter(f"convention={convention!r} is not known; use 'row' or 'column'")
    statement = f"claim: PE(x+Δ) = PE(x)·T(Δ) with T(Δ) built in the {convention} convention"
    xs, deltas = axis_symbols(enc.axes), axis_symbols(enc.axes, "delta")
    t = enc.translation_entries(deltas, convention)
    vec = enc.vector()
    shifted = enc.vector([x + d for x, d in zip(xs, deltas, strict=True)])
    from ..theorems import is_zero

    steps = []
    sides: dict[int, tuple[sp.Expr, sp.Expr]] = {}
    for j in range(enc.dim):
        rhs = sp.Add(*(vec[0, i] * v for (i, jj), v in t.items() if jj == j))
        if j in (0, enc.dim - 1):
            sides[j] = (shifted[0, j], rhs)
        if convention == "row" and is_zero(sp.expand_trig(shifted[0, j] - rhs)) is True:
            continue
        for x0, d0 in ((0, 1), (1, 2), (0, 3)):
            env = {**dict.fromkeys(xs, sp.Integer(x0)), **dict.fromkeys(deltas, sp.Integer(d0))}
            ce = certified_difference(shifted[0, j], rhs, env)
            if ce is not None:
                steps.append(Step(f"column {j} at x = {[x0] * enc.axes}, Δ = {[d0] * enc.axes}: "
                                  f"PE(x+Δ) = {ce['lhs']} but PE(x)·T(Δ) = {ce['rhs']}",
                                  f"interval arithmetic at {ce['bits']} bits"))
                return Proof("claim:convention", statement, "refuted", steps, counterexample={
                    "column": j, "x": [x0] * enc.axes, "delta": [d0] * enc.axes, **ce},
                    note="T(Δ) applied in the wrong convention: the column-convention matrix is "
                         "T(Δ)ᵀ = T(−Δ), so PE(x)·T(Δ)ᵀ = PE(x−Δ)",
                    evidence=_witness(f"column {j}: PE(x+Δ) − PE(x)·T(Δ) at x = "
                                      f"{[x0] * enc.axes}, Δ = {[d0] * enc.axes}",
                                      shifted[0, j], rhs, env))
        return Proof("claim:convention", statement, "unknown", steps,
                     note=f"column {j}: not proved and no certified counterexample found")
    steps.append(Step("every column: PE(x+Δ)_j − (PE(x)·T(Δ))_j reduces to 0 after trig "
                      "expansion", "expand_trig"))
    worst = encoding_residual(enc, "translation[row]", 0)
    env = {**{x: 1234 + 7 * a for a, x in enumerate(xs)},
           **{d: -56789 + 11 * a for a, d in enumerate(deltas)}}
    items = [entries_item(f"column {j}: PE(x+Δ) − (PE(x)·T(Δ)) at x = "
                          f"{[env[x] for x in xs]}, Δ = {[env[d] for d in deltas]}", [sides[j]],
                          env) for j in sorted(sides)]
    return Proof("claim:convention", statement, "proved", steps, crosscheck={
        "max_residual": mpmath.nstr(worst, 3), "dps": DEFAULT_DPS},
        evidence=Evidence("symbolic identity (trig expansion per column)", "all", items,
                          {"columns": enc.dim}))


@_audited
def sections_claim(rot: MultiAxisRotary, mrope_section: Any, *, interleaved: bool = False
                   ) -> Proof:
    """Decide "the pairs of ``rot`` read the axes given by ``mrope_section``".

    Refuted when the sections do not sum to head_dim/2 (the pairs left without an axis, or
    the axis assignments past the head, are the counterexample) or when a pair reads another
    axis (certified: moving only that axis turns the pair, which the claim says it must not).

    >>> from posproof.model.multirope import mrope
    >>> sections_claim(mrope(10000, 8, [2, 1, 1]), [2, 1, 1]).status
    'proved'
    >>> sections_claim(mrope(10000, 8, [2, 1, 1]), [1, 1, 1]).counterexample["pairs"]
    4
    """
    secs = check_sequence("mrope_section", mrope_section)
    secs = [check_int(f"mrope_section[{i}]", s, minimum=1) for i, s in enumerate(secs)]
    statement = (f"claim: mrope_section={secs}{' (interleaved)' if interleaved else ''} "
                 f"assigns the {rot.n_pairs} frequency pairs of head_dim={rot.head_dim} to "
                 "their axes")
    if rot.head_dim % 2:
        return Proof("claim:mrope_section", statement, "refuted", [Step(
            f"head_dim={rot.head_dim} is odd: head_dim/2 = {rot.head_dim}/2 is not a whole "
            f"number of pairs, so no sections (summing to {sum(secs)}) can split it",
            "integer arithmetic")],
            counterexample={"head_dim": rot.head_dim, "sections_sum": sum(secs),
                            "pairs": rot.n_pairs, "certified": "exact integer arithmetic"},
            note="sections must sum to head_dim/2 (HF splits cos/sin by mrope_section*2), "
                 "which needs an even head_dim",
            evidence=_exact_integers(head_dim=rot.head_dim, head_dim_mod_2=rot.head_dim % 2))
    if sum(secs) != rot.n_pairs:
        missing = list(range(sum(secs), rot.n_pairs))
        return Proof("claim:mrope_section", statement, "refuted", [Step(
            f"sum({secs}) = {sum(secs)} ≠ head_dim/2 = {rot.n_pairs}", "integer arithmetic")],
            counterexample={"sections_sum": sum(secs), "pairs": rot.n_pairs,
                            "unassigned_pairs": missing[:8],
                            "certified": "exact integer arithmetic"},
            note="sections must sum to head_dim/2 (HF splits cos/sin by mrope_section*2)",
            evidence=_exact_integers(sections_sum=sum(secs), pairs=rot.n_pairs))
    try:
        claimed = mrope_axes(secs, rot.n_pairs, interleaved=interleaved)
    except PosproofError as exc:
        return Proof("claim:mrope_section", statement, "refuted",
                     [Step(str(exc), "integer arithmetic")],
                     counterexample={"error": str(exc), "certified": "exact integer arithmetic"},
                     evidence=_exact_integers(error=str(exc)))
    if len(secs) != rot.axes:
        return Proof("claim:mrope_section", statement, "refuted", [Step(
            f"{len(secs)} sections for {rot.axes} axes", "integer arithmetic")],
            counterexample={"sections": len(secs), "axes": rot.axes,
                            "certified": "exact integer arithmetic"},
            evidence=_exact_integers(sections=len(secs), axes=rot.axes))
    ms = axis_symbols(rot.axes, "m")
    for k, (a, c) in enumerate(zip(rot.pair_axes, claimed, strict=True)):
        if a == c:
            continue
        i = rot.pairs[k][0]
        entry = rot.rotation_entries(ms)[(i, i)]
        for size in (1, 2, 3):
            env = {m: sp.Integer(size if n == a else 0) for n, m in enumerate(ms)}
            ce = certified_difference(entry, sp.Integer(1), env)
            if ce is not None:
                return Proof("claim:mrope_section", statement, "refuted", [Step(
                    f"pair {k} (channel {i}) reads axis {rot.axis_names[a]}, the claim says "
                    f"{rot.axis_names[c]}: at p = {[env[m] for m in ms]} (only "
                    f"{rot.axis_names[a]} moved) R[{i}, {i}] = {ce['lhs']}, not 1",
                    f"interval arithmetic at {ce['bits']} bits")],
                    counterexample={"pair": k, "channel": i, "actual_axis": rot.axis_names[a],
                                    "claimed_axis": rot.axis_names[c],
                                    "position": [int(env[m]) for m in ms], **ce},
                    note="sections misread (or interleaving confused)",
                    evidence=_witness(f"R[{i}, {i}] − 1 at p = {[int(env[m]) for m in ms]}",
                                      entry, sp.Integer(1), env))
        return Proof("claim:mrope_section", statement, "unknown",
                     note=f"pair {k}: no certified counterexample found")
    if rot.with_axes(claimed).rotation() != rot.rotation():  # pragma: no cover - same axes
        return Proof("claim:mrope_section", statement, "unknown",
                     note="same axes but different rotations")
    return Proof("claim:mrope_section", statement, "proved", [Step(
        f"pair by pair, the axes of {rot.name} equal those of mrope_section={secs}",
        "exact comparison")], crosscheck={
            "method": "exact: the claimed rotary's R(m_1, …, m_k) equals this one's",
            "pairs": rot.n_pairs}, evidence=_sections_evidence(rot, claimed))


def _sections_evidence(rot: MultiAxisRotary, claimed: list[int]) -> Evidence:
    """The pair axes compared as integers, and R(p) of the claimed rotary against this one's
    at an exact p on the first and the last pair (the difference is 0)."""
    p = [sp.Integer(1234 + 1001 * a) for a in range(rot.axes)]
    mine, theirs = rot.rotation_entries(p), rot.with_axes(claimed).rotation_entries(p)
    items = []
    for k in sorted({0, rot.n_pairs - 1}):
        i, j = rot.pairs[k]
        items.append(entries_item(f"pair {k}: R_claimed(p) − R(p) on channels ({i}, {j}) at "
                                  f"p = {p}", [(theirs[ij], mine[ij]) for ij in
                                               ((i, i), (j, i))]))
    return Evidence("exact integers (pair axes) + exact comparisons", "all", items,
                    {"pair_axes": list(rot.pair_axes), "claimed_axes": claimed})


@_audited
def mrope_section_claim(head_dim: int, mrope_section: Any, *, interleaved: bool = False
                        ) -> Proof:
    """Decide "``mrope_section`` defines an M-RoPE of ``head_dim``": every one of the
    head_dim/2 frequency pairs gets exactly one axis.  Refuted (exact integer arithmetic) when
    the sections do not sum to head_dim/2 or, interleaved, an axis would run past the head.
    (Building ``mrope(...)`` with such sections is bad input: one-line ``InvalidEncoding``.)

    >>> mrope_section_claim(128, [16, 24, 20]).counterexample["unassigned_pairs"][:2]
    [60, 61]
    >>> mrope_section_claim(128, [24, 20, 20], interleaved=True).status
    'proved'
    """
    head_dim = check_int("head_dim", head_dim, minimum=2, maximum=1 << 16)
    secs = [check_int(f"mrope_section[{i}]", s, minimum=1)
            for i, s in enumerate(check_sequence("mrope_section", mrope_section))]
    n = head_dim // 2
    statement = (f"claim: mrope_section={secs}{' (interleaved)' if interleaved else ''} "
                 f"assigns each of the {n} frequency pairs of head_dim={head_dim} one axis")
    if head_dim % 2 or sum(secs) != n:
        total = sum(secs)
        return Proof("claim:mrope_section", statement, "refuted", [Step(
            f"sum({secs}) = {total} ≠ head_dim/2 = {n}" if not head_dim % 2
            else f"head_dim={head_dim} is odd", "integer arithmetic")], counterexample={
                "sections_sum": total, "pairs": n,
                "unassigned_pairs": list(range(total, n))[:8],
                "over_assigned": max(0, total - n), "certified": "exact integer arithmetic"},
            note="sections must sum to head_dim/2 (HF splits cos/sin by mrope_section*2)",
            evidence=_exact_integers(head_dim=head_dim, sections_sum=total, pairs=n))
    try:
        axes = mrope_axes(secs, n, interleaved=interleaved)
    except PosproofError as exc:
        return Proof("claim:mrope_section", statement, "refuted",
                     [Step(str(exc), "integer arithmetic")],
                     counterexample={"error": str(exc), "certified": "exact integer arithmetic"},
                     evidence=_exact_integers(error=str(exc)))
    counts = [axes.count(a) for a in range(len(secs))]
    return Proof("claim:mrope_section", statement, "proved", [Step(
        f"sum({secs}) = {n} = head_dim/2; pairs per axis {counts}, each pair once",
        "integer arithmetic")], crosscheck={"method": "exact: pairs counted per axis",
                                            "pairs_per_axis": counts},
        evidence=_exact_integers(sections_sum=n, pairs=n, pairs_per_axis=counts))


@_audited
def meshgrid_claim(enc: MultiAxisEncoding, grid: Sequence[int], *,
                   indexing: str = "ij") -> Proof:
    """Decide "the table built with ``np.meshgrid(grid_w, grid_h, indexing=indexing)`` (MAE's
    code, axes passed column first) equals the spec's table (``indexing="xy"``)" on an H×W
    grid (2-axis encodings).  Refuted with a certified counterexample when they differ
    (``"ij"`` on a grid with H, W > 1: the transposed grid).

    >>> from posproof.model.multiaxis import multi_preset
    >>> meshgrid_claim(multi_preset("sincos-2d", dim=8), (3, 3)).status
    'refuted'
    """
    import numpy as np

    if enc.axes != 2:
        raise InvalidParameter(f"meshgrid_claim needs a 2-axis encoding; {enc.name} has "
                               f"{enc.axes}")
    if indexing not in ("ij", "xy"):
        raise InvalidParameter(f"indexing={indexing!r} is not known; use 'ij' or 'xy'")
    spec = enc.grid(grid)
    h, w = (int(s) for s in grid)
    gw = np.arange(enc.offsets[1], enc.offsets[1] + w)
    gh = np.arange(enc.offsets[0], enc.offsets[0] + h)
    mesh = np.meshgrid(gw, gh, indexing=indexing)          # MAE: w goes first
    built = np.stack([mesh[1].reshape(-1), mesh[0].reshape(-1)], -1)
    statement = (f"claim: the {h}×{w} table built with meshgrid(grid_w, grid_h, "
                 f"indexing={indexing!r}) equals the spec's (indexing='xy')")
    rows = [r for r in range(len(spec)) if tuple(spec[r]) != tuple(built[r])]
    xs = axis_symbols(2)
    vec = enc.vector()
    if not rows:
        return Proof("claim:meshgrid", statement, "proved", [Step(
            "row by row, the built positions equal the spec's (so do the tables)",
            "exact comparison")], crosscheck={
                "method": "exact: integer positions compared row by row", "rows": len(spec),
                "max_table_difference": float(np.abs(enc.table(built) - enc.table(spec)).max())},
            evidence=_exact_integers(rows=len(spec), rows_differing=0))
    r = rows[0]
    for j in range(enc.dim):
        lhs = vec[0, j].subs(dict(zip(xs, map(int, built[r]), strict=True)))
        rhs = vec[0, j].subs(dict(zip(xs, map(int, spec[r]), strict=True)))
        ce = certified_difference(lhs, rhs)
        if ce is not None:
            return Proof("claim:meshgrid", statement, "refuted", [Step(
                f"row {r}: the {indexing!r} build encodes (row, col) = {tuple(map(int, built[r]))}"
                f", the spec {tuple(map(int, spec[r]))}; column {j} is {ce['lhs']} vs "
                f"{ce['rhs']}", f"interval arithmetic at {ce['bits']} bits")],
                counterexample={"row": r, "column": j, "built_position": built[r].tolist(),
                                "spec_position": spec[r].tolist(), **ce},
                note="meshgrid(indexing='ij') transposes the grid",
                evidence=_witness(f"row {r}, column {j}: PE{tuple(map(int, built[r]))} − "
                                  f"PE{tuple(map(int, spec[r]))}", lhs, rhs))
    return Proof("claim:meshgrid", statement, "unknown",
                 note=f"row {r} differs in position but no column certified different")


