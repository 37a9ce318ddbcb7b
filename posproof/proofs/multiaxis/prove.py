""":func:`prove_multi`: the theorems about a multi-axis encoding or rotary, as direct sums.

See the package :mod:`posproof.proofs.multiaxis` for what is proved and how.

>>> from posproof.model.multiaxis import multi_preset
>>> report = prove_multi(multi_preset("sincos-2d", dim=8))
>>> sorted({p.status for p in report.theorems})
['proved']
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import mpmath
import sympy as sp

from ...audit import audit_report
from ...errors import InvalidParameter, PosproofError, UnknownName, check_int, check_sequence
from ...evidence import Evidence, Sign
from ...model.multiaxis import MultiAxisEncoding, axis_symbols
from ...model.multirope import MultiAxisRotary
from ...precise import DEFAULT_DPS
from ...report import Proof, Report, Step
from ..theorems.budget import DEFAULT_BUDGET, DEFAULT_TIMEOUT, check_budget, check_timeout
from .check import (
    MULTI_ROTARY_THEOREMS,
    MULTI_THEOREMS,
    POINTS,
    STATEMENTS,
    CrossCheckMismatch,
    composition_evidence,
    crosscheck_note,
    diagonal_items,
    encoding_residual,
    encoding_structure_items,
    rotary_residual,
    rotary_structure_items,
    same_entry,
)
from .claims import axis_claim, convention_claim, meshgrid_claim, sections_claim

__all__ = [
    "MULTI_ROTARY_THEOREMS",
    "MULTI_THEOREMS",
    "direct_sum_problems",
    "padding_clause",
    "prove_multi",
    "rotary_direct_sum_problems",
]


# --------------------------------------------------------------------------- structure
def direct_sum_problems(enc: MultiAxisEncoding) -> list[str]:
    """Why T(Δ) is not ⊕_b T_b(Δ_{a_b}) or PE is not [PE_b(x_{a_b})]_b (empty: it is).

    Checked entry by entry on the exact objects: every non-zero entry of T(Δ) lies inside
    one block's columns and equals the block's own entry; column j of PE(x) involves only
    the symbol of its block's axis.

    >>> from posproof.model.multiaxis import multi_preset
    >>> direct_sum_problems(multi_preset("pe-3d", dim=12))
    []
    """
    if enc.broken_pairs():
        return enc.broken_pairs()[:5]
    xs = axis_symbols(enc.axes)
    deltas = axis_symbols(enc.axes, "delta")
    vec = enc.vector()
    whole = enc.translation_entries(deltas)
    problems = []
    owner = {j: b for b, block in enumerate(enc.blocks) for j in block.columns}
    for (i, j), value in whole.items():
        if value != 0 and owner[i] != owner[j]:
            problems.append(f"T[{i}, {j}] = {value} couples blocks {owner[i]} and {owner[j]}")
    for b, block in enumerate(enc.blocks):
        local = block.encoding.translation_entries(deltas[block.axis], "row")
        cols = block.columns
        for (i, j), value in local.items():
            if not same_entry(whole.get((cols[i], cols[j]), sp.Integer(0)), value):
                problems.append(f"block {b}: T[{cols[i]}, {cols[j]}] differs from the 1-D "
                                f"block's entry {value}")
        others = {s for a, s in enumerate(xs) if a != block.axis}
        for j in cols:
            if vec[0, j].free_symbols & others:
                problems.append(f"column {j} (block {b}, axis {block.axis}) depends on other "
                                "axes")
    return problems[:5]


def rotary_direct_sum_problems(rot: MultiAxisRotary) -> list[str]:
    """Why R(p) is not ⊕_a R_a(p_a) on :meth:`axis_channels` plus identity pass-through.

    >>> from posproof.model.multirope import mrope
    >>> rotary_direct_sum_problems(mrope(100, 8, [2, 1, 1]))
    []
    """
    ms = axis_symbols(rot.axes, "m")
    whole = rot.rotation_entries(ms)
    owner: dict[int, Any] = {}
    seen: dict[tuple[int, int], sp.Expr] = {}
    problems = []
    for a in range(rot.axes):
        chans = rot.axis_channels(a)
        for c in chans:
            owner[c] = a
        for (i, j), value in rot.axis_rotary(a).rotation_entries(ms[a]).items():
            seen[(chans[i], chans[j])] = value
            if not same_entry(whole.get((chans[i], chans[j]), sp.Integer(0)), value):
                problems.append(f"axis {a}: R[{chans[i]}, {chans[j]}] differs from the 1-D "
                                f"rotary's entry {value}")
    for c in range(2 * rot.n_pairs, rot.head_dim):
        owner[c] = ("pass", c)
        seen[(c, c)] = sp.Integer(1)
    for (i, j), value in whole.items():
        if value != 0 and (owner.get(i) != owner.get(j)
                           or not same_entry(seen.get((i, j), 0), value)):
            problems.append(f"R[{i}, {j}] = {value} lies outside the per-axis blocks")
    return problems[:5]


# --------------------------------------------------------------------------- composition
def _compose(name: str, statement: str, block_proofs: list[tuple[str, Proof | None]],
             structure: list[str], lemma: str, residual: Callable[[], mpmath.mpf],
             extra: Sequence[Step] = (), structure_items: Sequence[Sign] = ()) -> Proof:
    """A multi-axis theorem from its ⊕ structure and the 1-D proof of each block.

    Its evidence: the ⊕ structure's exact entry comparisons (``structure_items``) and the
    first items of each block's 1-D evidence (each re-checked by the auditor)."""
    if structure:
        return Proof(name, statement, "unknown", [Step(p, "⊕ structure") for p in structure],
                     note="the encoding is not a direct sum of its blocks")
    steps = [Step("⊕ structure checked entry by entry on the exact matrices: every block reads "
                  "one axis, on its own columns", "direct sum")]
    for where, proof in block_proofs:
        if proof is None:       # the ⊕ structure itself: no 1-D theorem to compose
            continue
        if proof.status != "proved":
            return Proof(name, statement, "unknown", steps,
                         note=f"{where}: the 1-D theorem {proof.name} is {proof.status}"
                              + (f" ({proof.note})" if proof.note else ""))
        rules = sorted({s.rule for s in proof.steps})[:3]
        steps.append(Step(f"{where}: {proof.statement} (1-D, proved: {', '.join(rules)})",
                          proof.name))
    steps.extend(extra)
    steps.append(Step(lemma, "direct sum"))
    try:
        worst = residual()
    except CrossCheckMismatch as exc:
        return Proof(name, statement, "unknown", steps, note=crosscheck_note(exc))
    return Proof(name, statement, "proved", steps, crosscheck={
        "points": POINTS, "max_residual": mpmath.nstr(worst, 3), "dps": DEFAULT_DPS},
        evidence=composition_evidence(block_proofs, structure_items))


_LEMMAS = {
    "translation[row]": "columns of block b: PE(x+Δ)_b = PE_b(x_{a_b}+Δ_{a_b}) = "
                        "PE_b(x_{a_b})·T_b(Δ_{a_b}) = (PE(x)·T(Δ))_b, since T(Δ) is block-diagonal "
                        "on the blocks' column sets",
    "translation[column]": "T(Δ) in the column convention is ⊕_b T_b(Δ_{a_b})ᵀ; each block "
                           "holds by its 1-D theorem",
    "direct_sum": "hence T(Δ) = ⊕_b T_b(Δ_{a_b}) and PE(x) = [PE_b(x_{a_b})]_b",
    "dot_product": "PE(x)·PE(y) = Σ_b PE_b(x_{a_b})·PE_b(y_{a_b}) = Σ_b f_b(x_{a_b} − y_{a_b}), "
                   "a function of x − y",
    "norm": "‖PE(x)‖² = Σ_b ‖PE_b(x_{a_b})‖² = Σ_b d_b/2 = dim/2 (each block at a position "
            "its 1-D theorem covers)",
    "orthogonal": "T(Δ)ᵀT(Δ) = ⊕_b T_b(Δ_{a_b})ᵀT_b(Δ_{a_b}) = ⊕_b I = I",
    "group_law": "T(Δ)T(Δ′) = ⊕_b T_b(Δ_{a_b})T_b(Δ′_{a_b}) = ⊕_b T_b(Δ_{a_b}+Δ′_{a_b}) = T(Δ+Δ′)",
    "rotary:relative": "⟨R(p)q, R(p′)k⟩ = Σ_a ⟨R_a(p_a)q_a, R_a(p′_a)k_a⟩ + Σ_pass q_c k_c = "
                       "Σ_a ⟨q_a, R_a(p′_a−p_a)k_a⟩ + Σ_pass q_c k_c = ⟨q, R(p′−p)k⟩",
    "rotary:orthogonal": "R(p)ᵀR(p) = ⊕_a R_a(p_a)ᵀR_a(p_a) ⊕ I = I",
    "rotary:direct_sum": "hence R(p) = ⊕_a R_a(p_a) ⊕ I_pass",
}


def _block_proofs(enc: MultiAxisEncoding, names: list[str], seed: int,
                  limits: tuple[int | None, float | None]) -> dict[int, dict[str, Proof]]:
    """The 1-D proofs of every block (computed once per distinct block encoding)."""
    from ..theorems import prove

    cache: dict[str, dict[str, Proof]] = {}
    out = {}
    for b, block in enumerate(enc.blocks):
        key = repr(block.encoding.to_dict())
        if key not in cache:
            try:
                report = prove(block.encoding, theorems=names, seed=seed, budget=limits[0],
                               timeout=limits[1])
                cache[key] = {p.name: p for p in report.theorems}
            except PosproofError as exc:
                cache[key] = {n: Proof(n, "1-D theorem", "unknown", note=str(exc)) for n in names}
        out[b] = cache[key]
    return out


def _prove_encoding(enc: MultiAxisEncoding, names: list[str], seed: int,
                    limits: tuple[int | None, float | None]) -> list[Proof]:
    one_d = sorted({n for n in (MULTI_THEOREMS[m] for m in names) if n is not None})
    blocks = _block_proofs(enc, one_d, seed, limits)
    structure = direct_sum_problems(enc)
    items = [] if structure else encoding_structure_items(enc, seed)
    out = []
    padded = padding_clause(enc)
    for name in names:
        base = MULTI_THEOREMS[name]
        per_block = [(f"block {b} (axis {enc.axis_names[block.axis]}, columns "
                      f"{block.columns[0]}…{block.columns[-1]})",
                      _one_d(blocks[b], base) if base else None)
                     for b, block in enumerate(enc.blocks)]
        statement = STATEMENTS[name] + (padded if name in _PADDED else "")
        out.append(_compose(f"multi:{name}", statement, per_block, structure,
                            _LEMMAS[name],
                            lambda name=name: encoding_residual(enc, name, seed),
                            structure_items=items))
    return out


#: Statements about PE's values, which exclude the padding rows of padded blocks.
_PADDED = ("translation[row]", "translation[column]", "dot_product", "norm")


def padding_clause(enc: MultiAxisEncoding) -> str:
    """What a statement about PE's values says about padded blocks (empty when none is).

    A block whose 1-D encoding has ``padding_idx`` p zeroes its columns in the table's rows
    whose axis coordinate is p; the 1-D theorems exclude that position, so the composed
    statement does too (‖PE(x)‖² = dim/2 fails there: block b contributes 0, not d_b/2).

    >>> from posproof.model.multiaxis import multi_preset
    >>> padding_clause(multi_preset("pe-2d", dim=8))
    ''
    """
    pads = sorted({(enc.axis_names[b.axis], b.encoding.padding_idx) for b in enc.blocks
                   if b.encoding.padding_idx is not None})
    if not pads:
        return ""
    where = " and ".join(f"{axis} ≠ {p}" for axis, p in pads)
    return (f", for positions with {where} (the padding rows: the table zeroes those blocks' "
            "columns there, so the statement is about every other position)")


def _one_d(proofs: dict[str, Proof], base: str) -> Proof:
    """The block's 1-D proof of ``base``; unknown when the 1-D run did not report it (an
    internal error, a budget spent before it): never skipped as if it held."""
    proof = proofs.get(base)
    if proof is None:
        return Proof(base, "1-D theorem", "unknown",
                     note="the 1-D engine did not report this theorem")
    return proof


def _prove_rotary(rot: MultiAxisRotary, names: list[str], seed: int) -> list[Proof]:
    from ..rotary import prove_rotary

    one_d = sorted({n for n in (MULTI_ROTARY_THEOREMS[m] for m in names) if n is not None})
    per_axis = {}
    for a in range(rot.axes):
        report = prove_rotary(rot.axis_rotary(a), theorems=one_d or ["orthogonal"],
                              general=False, scaling=False, hazards=False, seed=seed)
        per_axis[a] = {p.name.removeprefix("rotary:"): p for p in report.theorems}
    structure = rotary_direct_sum_problems(rot)
    items = [] if structure else rotary_structure_items(rot, seed)
    out = []
    for name in names:
        if name == "diagonal":
            out.append(_rotary_diagonal(rot, seed))
            continue
        base = MULTI_ROTARY_THEOREMS[name]
        per_block = [(f"axis {rot.axis_names[a]} ({len(rot.axis_pairs(a))} pairs)",
                      _one_d(per_axis[a], base) if base else None) for a in range(rot.axes)]
        out.append(_compose(f"multi-rotary:{name}", STATEMENTS[f"rotary:{name}"], per_block,
                            structure, _LEMMAS[f"rotary:{name}"],
                            lambda name=name: rotary_residual(rot, name, seed),
                            structure_items=items))
    return out


def _rotary_diagonal(rot: MultiAxisRotary, seed: int) -> Proof:
    """R(m, …, m) equals the 1-D rotary with the same frequencies, entry by entry."""
    from ...model.rope import M, Rotary
    from ...model.schedules import Explicit

    name, statement = "multi-rotary:diagonal", STATEMENTS["rotary:diagonal"]
    flat = rot.rotation_entries([M] * rot.axes)
    plain = Rotary(Explicit(rot.frequencies), rot.head_dim, rotary_dim=2 * rot.n_pairs,
                   layout=rot.layout)
    ref = plain.rotation_entries(M)
    bad = [ij for ij in set(flat) | set(ref)
           if not same_entry(flat.get(ij, 0), ref.get(ij, 0))]
    if bad:  # pragma: no cover - p_{a_k} = m for every a_k makes them identical
        return Proof(name, statement, "unknown", note=f"entry {sorted(bad)[0]} differs")
    steps = [Step("pair k of R(p) is the rotation G(p_{a_k}·θ_k) on its channels; with p = "
                  "(m, …, m), p_{a_k} = m whatever the axis a_k, so it is G(m·θ_k)",
                  "substitution"),
             Step(f"the {len(flat)} non-zero entries of R(m, …, m) and of the 1-D rotary "
                  f"({rot.layout} layout, same θ_k) are identical expressions", "entrywise")]
    try:
        worst = rotary_residual(rot, "diagonal", seed)
    except CrossCheckMismatch as exc:  # pragma: no cover
        return Proof(name, statement, "unknown", steps, note=crosscheck_note(exc))
    return Proof(name, statement, "proved", steps, crosscheck={
        "points": POINTS, "max_residual": mpmath.nstr(worst, 3), "dps": DEFAULT_DPS},
        evidence=Evidence("entrywise identity (exact entries compared)", "structural",
                          diagonal_items(rot, flat, ref, M), {"entries": len(flat)}))


# --------------------------------------------------------------------------- public
def prove_multi(obj: MultiAxisEncoding | MultiAxisRotary, *,
                theorems: Sequence[str] | None = None, general: bool = False,
                claim_axes: Any = None, claim_sections: Any = None,
                claim_interleaved: bool = False, claim_convention: str | None = None,
                claim_meshgrid: str | None = None, grid: Sequence[int] | None = None,
                seed: int = 0, budget: int | None = DEFAULT_BUDGET,
                timeout: float | None = DEFAULT_TIMEOUT) -> Report:
    """Prove (or refute) the theorems about a multi-axis encoding or rotary; a :class:`Report`.

    ``obj`` is a :class:`~posproof.model.multiaxis.MultiAxisEncoding` (theorems
    :data:`MULTI_THEOREMS`, reported as ``multi:<name>``) or a
    :class:`~posproof.model.multirope.MultiAxisRotary` (:data:`MULTI_ROTARY_THEOREMS`,
    ``multi-rotary:<name>``; for M-RoPE also ``mrope:diagonal``, the reduction to plain RoPE).
    ``general=True`` adds the same statements for every k and every split of the dims among
    the axes (:mod:`posproof.proofs.multiaxis.general`).  Claims: ``claim_axes`` (encodings: the
    axis of the first block, or one per block; :func:`axis_claim`), ``claim_sections`` with
    ``claim_interleaved`` (rotaries: :func:`sections_claim`), ``claim_convention``
    (encodings: T(Δ) built in that convention applied as PE(x)·T(Δ); ``"column"`` is refuted,
    :func:`~posproof.proofs.multiaxis.claims.convention_claim`), ``claim_meshgrid`` with ``grid``
    (2-axis encodings: the table built with ``meshgrid(..., indexing=claim_meshgrid)`` equals
    the spec's on that H×W grid; :func:`~posproof.proofs.multiaxis.claims.meshgrid_claim`).
    ``budget`` (work units) and ``timeout`` (the wall-clock safety net, seconds) bound each
    1-D theorem behind a composed one, as in :func:`posproof.prove`.

    Every proved or refuted verdict carries its :class:`~posproof.evidence.Evidence` (a
    composed theorem: the ⊕ structure's exact entries and the first items of each block's
    1-D evidence; a diagonal theorem: exact entries at an exact m; a general form: the
    generic pair identity at exact values; a claim: its certified witness or exact
    comparisons), re-checked by the independent audit (:func:`posproof.audit.audit_report`)
    before the report is returned: evidence it cannot confirm makes the verdict unknown.

    >>> from posproof.model.multirope import mrope
    >>> report = prove_multi(mrope(10000, 8, [2, 1, 1]))
    >>> [(p.name, p.status) for p in report.theorems][:2]
    [('multi-rotary:relative', 'proved'), ('multi-rotary:orthogonal', 'proved')]
    """
    from .general import general_multi, mrope_diagonal_of

    seed = check_int("seed", seed, minimum=0)
    limits = (check_budget(budget), check_timeout(timeout))
    if isinstance(obj, MultiAxisEncoding):
        known: dict[str, Any] = MULTI_THEOREMS
    elif isinstance(obj, MultiAxisRotary):
        known = MULTI_ROTARY_THEOREMS
    else:
        raise InvalidParameter(f"{obj!r:.80} is not a MultiAxisEncoding or MultiAxisRotary; use "
                               "posproof.multi_preset(), mrope() or axial_rope()")
    names = list(known) if theorems is None else check_sequence("theorems", theorems,
                                                                 strings=True)
    for n in names:
        if n not in known:
            raise UnknownName(f"theorem={n!r} is not known; use one of {', '.join(known)}")
    report = Report(obj.to_dict())
    if isinstance(obj, MultiAxisEncoding):
        if claim_sections is not None:
            raise InvalidParameter("claim_sections is about a rotary (mrope); for an encoding "
                                   "use claim_axes")
        if claim_axes is not None:
            report.theorems.append(axis_claim(obj, claim_axes))
        if claim_convention is not None:
            report.theorems.append(convention_claim(obj, claim_convention))
        if claim_meshgrid is not None:
            if grid is None:
                raise InvalidParameter("claim_meshgrid needs grid=(H, W): the grid the table "
                                       "is built on")
            report.theorems.append(meshgrid_claim(obj, grid, indexing=claim_meshgrid))
        report.theorems.extend(_prove_encoding(obj, names, seed, limits))
    else:
        if claim_axes is not None or claim_convention is not None or claim_meshgrid is not None:
            raise InvalidParameter("claim_axes / claim_convention / claim_meshgrid are about a "
                                   "sinusoidal multi-axis encoding; for a rotary use "
                                   "claim_sections")
        if claim_sections is not None:
            report.theorems.append(sections_claim(obj, claim_sections,
                                                  interleaved=bool(claim_interleaved)))
        report.theorems.extend(_prove_rotary(obj, names, seed))
        if obj.name.startswith("mrope") and theorems is None:
            report.theorems.append(mrope_diagonal_of(obj))
    if general:
        report.theorems.extend(general_multi(obj, names, seed, limits))
    return audit_report(report)
