"""M-RoPE on the diagonal, and the multi-axis theorems for every k and every split of the dims.

* :func:`mrope_diagonal` — for one config: M-RoPE(base, head_dim, sections[, interleaved])
  at p = (m, …, m) equals plain RoPE(base, head_dim) at m, entry by entry.
* :func:`mrope_diagonal_general` — the same for every number of axes, every sections and
  either assignment at once: pair k turns by p_{a_k}·θ_k, and with all p equal p_{a_k} = m
  whatever a_k, so the pair block is G(m·θ_k), the plain RoPE block.
* :func:`general_multi` — the theorems of :func:`~posproof.proofs.multiaxis.prove_multi`
  for every k and every split of the columns among the axes (symbolic k, symbolic even block
  widths d_b): the ⊕ structure makes each a conjunction or a sum of per-block statements,
  each the 1-D general theorem (:func:`posproof.proofs.theorems.general_proofs`, for every
  even d) or the generic pair identity of the rotary proofs.

>>> mrope_diagonal(10000, 8, [2, 1, 1]).status
'proved'
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import mpmath
import sympy as sp

from ...audit import apply
from ...errors import PosproofError
from ...evidence import Evidence, Sign
from ...model.encoding import Encoding
from ...model.multiaxis import MultiAxisEncoding
from ...model.multirope import MultiAxisRotary, mrope
from ...model.rope import M, Rotary
from ...model.schedules import Geometric
from ...precise import DEFAULT_DPS
from ...report import Proof, Step
from .check import (
    MULTI_ROTARY_THEOREMS,
    MULTI_THEOREMS,
    STATEMENTS,
    CrossCheckMismatch,
    composition_evidence,
    crosscheck_note,
    diagonal_items,
    encoding_residual,
    encoding_structure_items,
    entries_item,
    generic_items,
    rotary_residual,
    rotary_structure_items,
    same_entry,
)

__all__ = ["general_multi", "mrope_diagonal", "mrope_diagonal_general", "mrope_diagonal_of"]

_STATEMENT = ("M-RoPE on the diagonal: R_mrope(m, …, m) = R_rope(m) (plain RoPE, same base and "
              "head_dim)")


def _compare(rot: MultiAxisRotary, plain: Rotary) -> tuple[list[tuple[int, int]], list[Sign]]:
    """The entries where R(m, …, m) and the plain RoPE differ, and the evidence items."""
    flat = rot.rotation_entries([M] * rot.axes)
    ref = plain.rotation_entries(M)
    bad = sorted(ij for ij in set(flat) | set(ref)
                 if not same_entry(flat.get(ij, sp.Integer(0)), ref.get(ij, sp.Integer(0))))
    return bad, diagonal_items(rot, flat, ref, M)


def _diagonal(rot: MultiAxisRotary, plain: Rotary, label: str) -> Proof:
    name = "mrope:diagonal"
    statement = f"{_STATEMENT}: {label}"
    steps = [Step("pair k of R(p) is the rotation G(p_{a_k}·θ_k) on the channels of pair k "
                  "(checked entry by entry below); θ_k = base^(−2k/head_dim) over the whole head",
                  "M-RoPE structure"),
             Step("on the diagonal p = (m, …, m): p_{a_k} = m for every axis a_k, so pair k is "
                  "G(m·θ_k) whatever the sections or the interleaving", "substitution")]
    if (rot.head_dim, rot.layout, rot.n_pairs) != (plain.head_dim, plain.layout, plain.n_pairs):
        return Proof(name, statement, "unknown", steps,
                     note="head_dim, layout or pair count differ from the plain RoPE")
    bad, items = _compare(rot, plain)
    if bad:
        return Proof(name, statement, "unknown", steps,
                     note=f"entry {bad[0]} of R(m, …, m) differs from plain RoPE")
    steps.append(Step(f"all {2 * rot.n_pairs + (rot.head_dim - 2 * rot.n_pairs)} diagonal-block "
                      f"entries of R(m, …, m) and RoPE(head_dim={rot.head_dim}, {rot.layout}) are "
                      "identical expressions in m", "entrywise"))
    try:
        worst = rotary_residual(rot, "diagonal", 0)
    except CrossCheckMismatch as exc:
        return Proof(name, statement, "unknown", steps, note=crosscheck_note(exc))
    return apply(Proof(name, statement, "proved", steps, crosscheck={
        "max_residual": mpmath.nstr(worst, 3), "dps": DEFAULT_DPS},
        evidence=Evidence("entrywise identity (exact entries compared)", "structural", items,
                          {"entries": len(rot.rotation_entries([M] * rot.axes))})))


def mrope_diagonal(base: Any, head_dim: int, mrope_section: Sequence[int], *,
                   interleaved: bool = False) -> Proof:
    """Prove M-RoPE(base, head_dim, mrope_section) on the diagonal is plain RoPE(base, head_dim).

    Bad sections raise the constructor's one-line ``InvalidEncoding``; to *refute* a claim
    that sections fit a head, use :func:`posproof.proofs.multiaxis.claims.sections_claim`.

    >>> mrope_diagonal(1000000, 16, [4, 2, 2], interleaved=True).status
    'proved'
    """
    rot = mrope(base, head_dim, mrope_section, interleaved=interleaved)
    plain = Rotary(Geometric(base), head_dim, layout=rot.layout)
    return _diagonal(rot, plain, f"base={base}, head_dim={head_dim}, mrope_section="
                                 f"{list(mrope_section)}{', interleaved' if interleaved else ''}")


def mrope_diagonal_of(rot: MultiAxisRotary) -> Proof:
    """:func:`mrope_diagonal` for an M-RoPE already built (base read back from θ_1)."""
    if rot.n_pairs < 2:
        return Proof("mrope:diagonal", _STATEMENT, "unknown", note="fewer than 2 pairs")
    base = sp.simplify(1 / rot.frequencies[1] ** rot.n_pairs)   # θ_1 = base^(−2/rotary_dim)
    if not isinstance(base, sp.Rational):
        return Proof("mrope:diagonal", _STATEMENT, "unknown",
                     note=f"θ_1 = {rot.frequencies[1]} is not base^(−2/rotary_dim) for a "
                          "rational base")
    plain = Rotary(Geometric(base), rot.head_dim, rotary_dim=2 * rot.n_pairs, layout=rot.layout)
    return _diagonal(rot, plain, f"{rot.name}, base={base}, head_dim={rot.head_dim}")


def mrope_diagonal_general(seed: int = 0) -> Proof:
    """The diagonal theorem for every number of axes, every sections and both assignments.

    >>> mrope_diagonal_general().status
    'proved'
    """
    from ..rotary import generic_identity

    statement = (f"{_STATEMENT}, for every number of axes k, every mrope_section summing to "
                 "head_dim/2 and every assignment of pairs to axes (consecutive or interleaved)")
    p = sp.Function("p")
    a = sp.Symbol("a", integer=True, nonnegative=True)
    w, m = sp.Symbol("w", real=True), sp.Symbol("m", real=True)
    block = sp.Matrix([[sp.cos(p(a) * w), -sp.sin(p(a) * w)], [sp.sin(p(a) * w), sp.cos(p(a) * w)]])
    plain = sp.Matrix([[sp.cos(m * w), -sp.sin(m * w)], [sp.sin(m * w), sp.cos(m * w)]])
    # the diagonal: p is the constant function m of the axis index (every axis at m)
    on_diag = block.replace(p, sp.Lambda(a, m))
    ok = (on_diag - plain).is_zero_matrix is True and on_diag == plain
    steps = [Step("pair k of any M-RoPE is the block G(p(a_k)·θ_k) with a symbolic axis index "
                  "a_k (the assignment, consecutive or interleaved, only chooses a_k)",
                  "M-RoPE structure"),
             Step("p = (m, …, m) is the constant function p(a) = m; substituting it, G(p(a)·w) "
                  "becomes G(m·w) syntactically, for a symbolic a and a free frequency w",
                  "substitution", r"G(p(a)w)|_{p \equiv m} = G(mw)"),
             Step("the channels of pair k and θ_k = base^(−2k/head_dim) are those of plain RoPE "
                  "(M-RoPE wraps the same Rotary), so R_mrope(m, …, m) = R_rope(m) block by "
                  "block", "direct sum")]
    if not ok or generic_identity("orthogonal")[0] is not True:  # pragma: no cover
        return Proof("general:mrope:diagonal", statement, "unknown", steps, general=True,
                     note="the substitution did not give the plain block")
    rng = random.Random(seed)
    checked = []
    # the substitution at an exact point: G(p(a)w) with p ≡ m against G(mw), each side on its own
    at = {w: sp.Rational(3, 7), m: 12345}
    items = [entries_item("G(p(a)·w)|_{p ≡ m} − G(m·w), entries (0,0), (1,0)",
                          [(on_diag[0, 0], plain[0, 0]), (on_diag[1, 0], plain[1, 0])], at)]
    for _ in range(4):
        n = rng.randrange(3, 12)
        k = rng.randrange(1, 4)
        cuts = sorted(rng.sample(range(1, n), k - 1)) if k > 1 else []
        secs = [b - a for a, b in zip([0, *cuts], [*cuts, n], strict=True)]
        inter = rng.random() < 0.5
        try:
            proof = mrope_diagonal(rng.choice([10000, 500000, 1000000]), 2 * n, secs,
                                   interleaved=inter)
        except PosproofError:
            continue        # interleaved sections that overrun the head
        if proof.status != "proved":  # pragma: no cover
            return Proof("general:mrope:diagonal", statement, "unknown", steps, general=True,
                         note=f"instance {secs} (interleaved={inter}) not proved")
        checked.append({"head_dim": 2 * n, "mrope_section": secs, "interleaved": inter})
        if len(items) < 3 and proof.evidence is not None:
            items.extend(replace(i, label=f"instance {secs}{' interleaved' if inter else ''}: "
                                 f"{i.label}") for i in proof.evidence.items[:1])
    return apply(Proof("general:mrope:diagonal", statement, "proved", steps, general=True,
                       crosscheck={"instances": checked},
                       evidence=Evidence("symbolic substitution (symbolic axis index, free "
                                         "frequency) + exact instances", "structural", items,
                                         {"instances": len(checked)})))


# --------------------------------------------------------------------------- general forms
def _random_split(blocks: list[Encoding], rng: random.Random) -> MultiAxisEncoding | None:
    """A random multi-axis encoding with blocks of the same schedules / layouts, random
    even widths, random k and a random axis per block."""
    k = rng.randrange(1, 4)
    chosen = []
    for b in range(max(k, rng.randrange(1, 5))):
        proto = blocks[b % len(blocks)]
        try:
            enc = Encoding(proto.schedule, proto.layout, 2 * rng.randrange(1, 4),
                           offset=proto.offset)
        except (PosproofError, TypeError):
            return None
        chosen.append((b % k if b < k else rng.randrange(k), enc))
    rng.shuffle(chosen)
    try:
        return MultiAxisEncoding(chosen, axes=k)
    except PosproofError:
        return None


def _general_encoding(enc: MultiAxisEncoding, names: list[str], seed: int,
                      limits: tuple[int | None, float | None]) -> list[Proof]:
    from ..theorems.api import general_proofs

    families: dict[str, Encoding] = {}
    for block in enc.blocks:
        families.setdefault(repr((block.encoding.to_dict().get("schedule"),
                                  block.encoding.layout.name)), block.encoding)
    one_d = sorted({MULTI_THEOREMS[n] for n in names if MULTI_THEOREMS[n] is not None})
    per_family = {}
    for key, proto in families.items():
        proofs = general_proofs(proto, one_d, seed, limits) if one_d else []
        per_family[key] = {p.name.removeprefix("general:"): p for p in proofs}
    rng = random.Random(seed + 11)
    samples = [s for s in (_random_split(list(families.values()), rng) for _ in range(3)) if s]
    samples = samples or [enc]      # a schedule of fixed length: check the encoding itself
    sample_items = encoding_structure_items(samples[0], seed)
    out = []
    for name in names:
        statement = (f"{STATEMENTS[name]} — for every number of axes k and every split of the "
                     "columns into blocks (axis a_b, symbolic even width d_b) of these "
                     "schedules and layouts")
        steps = [Step("PE(x) = [PE_b(x_{a_b})]_b and T(Δ) = ⊕_b T_b(Δ_{a_b}) on disjoint "
                      "column sets, for any number of blocks and any axis per block: the "
                      "statement is a conjunction (or a sum) of one statement per block",
                      "direct sum (symbolic k, d_b)")]
        base = MULTI_THEOREMS[name]
        status, note = "proved", None
        used: list[tuple[str, Proof | None]] = []
        for key, proofs in per_family.items():
            proof = proofs.get(base) if base else None
            if base is None:
                continue
            if proof is None or proof.status != "proved":
                status = "unknown"
                note = f"the 1-D general theorem {base} is not proved for {key}"
                break
            steps.append(Step(f"{key}: {proof.statement}", proof.name))
            used.append((key, proof))
        worst = mpmath.mpf(0)
        if status == "proved":
            try:
                for s, sample in enumerate(samples):
                    worst = max(worst, encoding_residual(sample, name, seed + s))
            except CrossCheckMismatch as exc:
                status, note = "unknown", crosscheck_note(exc)
        evidence = None
        if status == "proved":
            evidence = composition_evidence(used, sample_items)
            evidence.method = ("composition: ⊕ structure for every k and split + each "
                               "schedule's 1-D general proof")
            evidence.details["splits_checked"] = len(samples)
        out.append(Proof(f"general:multi:{name}", statement, status, steps, general=True,
                         note=note, crosscheck=None if status != "proved" else {
                             "splits": [repr(s) for s in samples],
                             "max_residual": mpmath.nstr(worst, 3), "dps": DEFAULT_DPS},
                         evidence=evidence))
    return out


def _general_rotary(rot: MultiAxisRotary, names: list[str], seed: int) -> list[Proof]:
    from ..rotary import generic_identity

    out = []
    rng = random.Random(seed + 13)
    for name in names:
        if name == "diagonal":
            if rot.name.startswith("mrope"):
                out.append(mrope_diagonal_general(seed))
            continue
        statement = (f"{STATEMENTS['rotary:' + name]} — for every number of axes, every "
                     "assignment of pairs to axes and every frequencies")
        steps = [Step("R(p) = ⊕ over pairs of G(p_{a_k}·θ_k) ⊕ I_pass for any assignment a_k: "
                      "each statement is one per pair, with m = p_{a_k}, n = p′_{a_k} and "
                      "(p′ − p)_{a_k} = n − m", "direct sum (symbolic k, a_k)")]
        status, note = "proved", None
        generics = (["relative"] if MULTI_ROTARY_THEOREMS[name] == "relative"
                    else ["orthogonal", "determinant"])
        samples = []
        for g in generics:
            ok, latex = generic_identity(g)
            if ok is not True:
                status, note = "unknown", f"the generic identity {latex} was not proved"
                break
            steps.append(Step(f"${latex}$ for every real w", "expand_trig", latex))
        worst = mpmath.mpf(0)
        if status == "proved":
            try:
                for s in range(3):
                    n = rng.randrange(2, 8)
                    k = rng.randrange(1, min(n, 3) + 1)
                    axes = [a % k for a in range(n)]
                    rng.shuffle(axes)
                    sample = rot.with_axes(axes) if (n, k) == (rot.n_pairs, rot.axes) else \
                        MultiAxisRotary(Geometric(10000).frequencies(2 * n), axes, 2 * n + 2,
                                        layout=rot.layout)
                    worst = max(worst, rotary_residual(sample, name, seed + s))
                    samples.append(sample)
            except CrossCheckMismatch as exc:
                status, note = "unknown", crosscheck_note(exc)
        evidence = None
        if status == "proved":
            items = generic_items(generics) + rotary_structure_items(samples[0], seed)[:1]
            evidence = Evidence("symbolic identity for every assignment (⊕ structure, generic "
                                "pair identity)", "structural", items,
                                {"identities": generics, "samples_checked": len(samples)})
        out.append(Proof(f"general:multi-rotary:{name}", statement, status, steps, general=True,
                         note=note, crosscheck=None if status != "proved" else {
                             "max_residual": mpmath.nstr(worst, 3), "dps": DEFAULT_DPS},
                         evidence=evidence))
    return out


def general_multi(obj: MultiAxisEncoding | MultiAxisRotary, names: Sequence[str], seed: int = 0,
                  limits: tuple[int | None, float | None] = (None, None)) -> list[Proof]:
    """The general forms of ``names`` (see :func:`~posproof.proofs.multiaxis.prove_multi`);
    ``limits`` (work units, safety-net seconds) bound each theorem of the 1-D proofs.

    >>> from posproof.model.multiaxis import multi_preset
    >>> [p.status for p in general_multi(multi_preset("pe-2d", dim=8), ["orthogonal"])]
    ['proved']
    """
    if isinstance(obj, MultiAxisEncoding):
        return _general_encoding(obj, list(names), seed, limits)
    return _general_rotary(obj, list(names), seed)
