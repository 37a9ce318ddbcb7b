"""The evidence rule (docs/architecture.md "Evidence and the independent audit") for the
multi-axis proofs: every proved / refuted verdict of ``prove_multi`` (composed theorems,
the diagonal theorems, the general forms) and of the claims carries evidence that the
independent auditor (python-flint Arb) confirms; a planted wrong item turns the verdict
unknown.
"""

from __future__ import annotations

import copy
from dataclasses import replace

import pytest
import sympy as sp

from posproof.audit import apply, audit_report
from posproof.model.multiaxis import multi_preset
from posproof.model.multirope import mrope
from posproof.model.specs import build
from posproof.proofs.multiaxis import prove_multi
from posproof.proofs.multiaxis.claims import (
    axis_claim,
    convention_claim,
    meshgrid_claim,
    mrope_section_claim,
    sections_claim,
)
from posproof.proofs.multiaxis.general import mrope_diagonal, mrope_diagonal_general
from posproof.report import Proof

SPECS = ["sincos-2d:dim=16", "pe-3d:dim=24", "mrope:dim=16,base=10000,sections=2;3;3",
         "mrope:dim=16,sections=4;2;2,interleaved=true", "axial-rope:axes_dims=4;4;8"]

_CACHE: dict[str, object] = {}


def _report(spec: str):
    if spec not in _CACHE:
        _CACHE[spec] = prove_multi(build(spec), general=True)
    return _CACHE[spec]


def _require(proof: Proof, what: str) -> None:
    assert proof.status in ("proved", "refuted"), (what, proof.status, proof.note)
    assert proof.evidence is not None, (what, proof.name)
    apply(proof)
    assert proof.evidence.audit is not None, (what, proof.name)
    assert proof.evidence.audit.agrees, (what, proof.name, proof.evidence.audit)
    assert proof.status in ("proved", "refuted"), (what, proof.note)


def test_sections_that_overrun_an_interleaved_head_are_bad_input():
    """(The brief's "sections=2;3;3,interleaved=true" at dim=16: axis 2 would take pair 8 of
    8 — refused with a one-line error, so SPECS uses 4;2;2.)"""
    from posproof.errors import PosproofError

    with pytest.raises(PosproofError, match="would take pair 8 of 8"):
        build("mrope:dim=16,sections=2;3;3,interleaved=true")


@pytest.mark.parametrize("spec", SPECS)
def test_every_multi_axis_verdict_carries_audited_evidence(spec):
    report = _report(spec)
    audit_report(report)
    decided = [p for p in report.theorems if p.status in ("proved", "refuted")]
    assert len(decided) == len(report.theorems) >= 7
    for p in decided:
        assert p.evidence is not None, (spec, p.name)
        assert p.evidence.audit.agrees, (spec, p.name)
        # a handful of items, each re-checked (never "nothing to audit" for these)
        assert 1 <= len(p.evidence.items) <= 6, (spec, p.name, len(p.evidence.items))
        assert p.evidence.audit.status == "confirmed", (spec, p.name)
        assert p.evidence.audit.checked == len(p.evidence.items)
        assert p.to_dict()["evidence"]["audit"]["status"] == "confirmed"


@pytest.mark.parametrize("spec", SPECS)
def test_composed_theorems_carry_the_structure_and_the_blocks_1d_evidence(spec):
    report = _report(spec)
    composed = [p for p in report.theorems if p.name.startswith(("multi:", "multi-rotary:"))
                and not p.name.endswith("diagonal")]
    assert composed
    for p in composed:
        ev = p.evidence
        assert ev.method.startswith("composition")
        assert ev.coverage == "structural"
        assert ev.items[0].label.startswith("⊕ structure")
        if not p.name.endswith("direct_sum"):
            # the blocks' own 1-D items come along: the auditor re-checks them here too
            assert any(not i.label.startswith("⊕") for i in ev.items), p.name
        assert ev.details["blocks"] >= 2


def test_the_diagonal_items_are_not_cancelled_before_the_auditor_sees_them():
    """R(m, …, m) − R_1D(m) is kept as its two sides (SymPy would cancel an identical pair
    to 0 and the auditor would check nothing)."""
    report = _report("mrope:dim=16,base=10000,sections=2;3;3")
    diag = {p.name: p for p in report.theorems}["mrope:diagonal"]
    assert [i.relation for i in diag.evidence.items] == ["zero", "zero"]
    for item in diag.evidence.items:
        assert item.expr != 0
        assert item.expr.has(sp.cos)
        assert item.expr.has(sp.sin)


# --------------------------------------------------------------------------- claims
def _claims():
    sincos, pe3 = multi_preset("sincos-2d", dim=8), multi_preset("pe-3d", dim=12)
    rot, inter = mrope(10000, 16, [2, 3, 3]), mrope(10000, 16, [4, 2, 2], interleaved=True)
    return {
        "axes proved": (axis_claim(sincos, "column"), "proved"),
        "axes proved 3d": (axis_claim(pe3, ["x", "y", "z"]), "proved"),
        "axes refuted": (axis_claim(sincos, "row"), "refuted"),
        "axes refuted 3d": (axis_claim(pe3, ["x", "z", "y"]), "refuted"),
        "convention row": (convention_claim(sincos, "row"), "proved"),
        "convention column": (convention_claim(sincos, "column"), "refuted"),
        "sections proved": (sections_claim(rot, [2, 3, 3]), "proved"),
        "sections interleaved": (sections_claim(inter, [4, 2, 2], interleaved=True), "proved"),
        "sections wrong sum": (sections_claim(rot, [2, 3, 2]), "refuted"),
        "sections misread": (sections_claim(rot, [3, 3, 2]), "refuted"),
        "sections not interleaved": (sections_claim(inter, [4, 2, 2]), "refuted"),
        "sections count": (sections_claim(rot, [4, 4]), "refuted"),
        "section claim sum": (mrope_section_claim(128, [16, 24, 20]), "refuted"),
        "section claim ok": (mrope_section_claim(128, [24, 20, 20], interleaved=True), "proved"),
        "meshgrid ij": (meshgrid_claim(sincos, (3, 4), indexing="ij"), "refuted"),
        "meshgrid xy": (meshgrid_claim(sincos, (3, 4), indexing="xy"), "proved"),
        "meshgrid one row": (meshgrid_claim(sincos, (1, 5)), "proved"),
        "diagonal": (mrope_diagonal(10000, 16, [4, 2, 2], interleaved=True), "proved"),
        "diagonal general": (mrope_diagonal_general(), "proved"),
    }


def test_every_claim_proved_or_refuted_carries_audited_evidence():
    for what, (proof, expected) in _claims().items():
        assert proof.status == expected, (what, proof.status, proof.note)
        _require(proof, what)
        # the audit ran where the claim was decided (not only when a report is audited)
        assert proof.evidence.audit is not None


def test_a_refuted_claim_s_evidence_is_its_certified_nonzero_residual():
    for what, (proof, expected) in _claims().items():
        if expected != "refuted":
            continue
        ev = proof.evidence
        if ev.method == "exact integers":       # wrong sums and counts: integers alone
            assert not ev.items, what
            assert ev.audit.status == "nothing to audit", what
            assert ev.details, what
            continue
        (item,) = ev.items
        assert item.relation in ("positive", "negative"), what
        assert item.lo is not None, what
        assert item.hi is not None, what
        assert ev.audit.status == "confirmed", what


def test_proved_claims_carry_their_deciding_exact_comparisons():
    claims = _claims()
    for what in ("axes proved", "axes proved 3d", "convention row", "sections proved"):
        ev = claims[what][0].evidence
        assert ev.items, what
        assert all(i.relation == "zero" for i in ev.items), what
        assert ev.audit.status == "confirmed", what
    for what in ("meshgrid xy", "section claim ok"):
        ev = claims[what][0].evidence
        assert ev.method == "exact integers", what
        assert ev.audit.status == "nothing to audit", what


@pytest.mark.parametrize(("options", "name", "expected"), [
    ({"claim_axes": "row"}, "claim:axes", "refuted"),
    ({"claim_axes": "column"}, "claim:axes", "proved"),
    ({"claim_meshgrid": "ij", "grid": (4, 4)}, "claim:meshgrid", "refuted"),
    ({"claim_meshgrid": "xy", "grid": (4, 4)}, "claim:meshgrid", "proved"),
    ({"claim_convention": "column"}, "claim:convention", "refuted"),
    ({"claim_convention": "row"}, "claim:convention", "proved"),
])
def test_prove_multi_claims_on_an_encoding_carry_audited_evidence(options, name, expected):
    report = prove_multi(multi_preset("sincos-2d", dim=8), theorems=["norm"], **options)
    claim = {p.name: p for p in report.theorems}[name]
    assert claim.status == expected
    _require(claim, str(options))


@pytest.mark.parametrize(("options", "expected"), [
    ({"claim_sections": [2, 3, 3]}, "proved"),
    ({"claim_sections": [3, 3, 2]}, "refuted"),
    ({"claim_sections": [2, 3, 2]}, "refuted"),
    ({"claim_sections": [2, 3, 3], "claim_interleaved": True}, "refuted"),
])
def test_prove_multi_claims_on_a_rotary_carry_audited_evidence(options, expected):
    report = prove_multi(mrope(10000, 16, [2, 3, 3]), theorems=["orthogonal"], **options)
    claim = {p.name: p for p in report.theorems}["claim:mrope_section"]
    assert claim.status == expected
    _require(claim, str(options))


# --------------------------------------------------------------------------- planted
PLANT = sp.Rational(1, 10**40)


def _planted(proof: Proof, k: int = 0, shift=PLANT) -> Proof:
    """A copy of ``proof`` whose k-th evidence item is off by ``shift`` (not yet audited)."""
    wrong = copy.copy(proof)
    ev = copy.copy(proof.evidence)
    items = list(ev.items)
    items[k] = replace(items[k], expr=items[k].expr + shift)
    ev.items, ev.audit = items, None
    wrong.evidence = ev
    wrong.note = None
    return wrong


@pytest.mark.parametrize("name", ["multi:translation[row]", "multi:direct_sum",
                                  "general:multi:group_law"])
def test_a_planted_wrong_item_in_a_composed_proof_turns_it_unknown(name):
    proof = {p.name: p for p in _report("sincos-2d:dim=16").theorems}[name]
    assert proof.status == "proved"
    for k in range(len(proof.evidence.items)):      # the structure's items and the blocks'
        wrong = apply(_planted(proof, k))
        assert wrong.status == "unknown", (name, k)
        assert "disagrees" in wrong.note
        assert "python-flint" in wrong.note
    # the same copy without the plant stands: the plant, not the copying, made it unknown
    same = apply(_planted(proof, 0, shift=sp.Integer(0)))
    assert same.status == "proved"


def test_a_planted_wrong_item_in_a_rotary_diagonal_and_general_form_turns_it_unknown():
    theorems = {p.name: p for p in _report("mrope:dim=16,base=10000,sections=2;3;3").theorems}
    for name in ("mrope:diagonal", "multi-rotary:relative", "general:multi-rotary:relative",
                 "general:mrope:diagonal"):
        wrong = apply(_planted(theorems[name]))
        assert wrong.status == "unknown", name
        assert theorems[name].status == "proved"        # the original is untouched


def test_a_planted_residual_on_the_wrong_side_turns_a_refuted_claim_unknown():
    refuted = axis_claim(multi_preset("sincos-2d", dim=8), "row")
    item = refuted.evidence.items[0]
    # shift the residual across 0: the auditor now sees the other sign (and misses the
    # engine's enclosure)
    wrong = apply(_planted(refuted, 0, shift=-2 * item.expr))
    assert wrong.status == "unknown"
    assert "disagrees" in wrong.note
    flipped = copy.copy(refuted)
    flipped.evidence = copy.copy(refuted.evidence)
    other = "negative" if item.relation == "positive" else "positive"
    flipped.evidence.items = [replace(item, relation=other, lo=None, hi=None)]
    flipped.evidence.audit = None
    assert apply(flipped).status == "unknown"


def test_blocks_with_different_schedules_each_bring_their_1d_evidence():
    """Three distinct 1-D proofs: one item each (two each when at most two), all audited."""
    from posproof.model.encoding import Encoding
    from posproof.model.multiaxis import MultiAxisEncoding
    from posproof.model.schedules import Geometric

    layout = multi_preset("pe-2d", dim=8).blocks[0].encoding.layout
    enc = MultiAxisEncoding([(0, Encoding(Geometric(10000), layout, 4)),
                             (1, Encoding(Geometric(100), layout, 4)),
                             (0, Encoding(Geometric(7), layout, 2))], axes=2)
    three = {p.name: p for p in prove_multi(enc, theorems=["norm", "direct_sum"]).theorems}
    labels = [i.label for i in three["multi:norm"].evidence.items]
    assert len(labels) == 4
    assert [sum(lab.startswith(f"block {b} ") for lab in labels) for b in range(3)] == [1, 1, 1]
    assert three["multi:norm"].evidence.audit.status == "confirmed"
    # two blocks of one schedule: one distinct 1-D proof, two of its items
    one = {p.name: p for p in prove_multi(multi_preset("pe-2d", dim=8),
                                          theorems=["norm"]).theorems}
    labels = [i.label for i in one["multi:norm"].evidence.items]
    assert len(labels) == 3
    assert sum(lab.startswith("block 0 ") for lab in labels) == 2
    # the ⊕ structure alone: its first and last block
    assert [i.label.split(" on ")[0] for i in three["multi:direct_sum"].evidence.items] == [
        "⊕ structure: T(Δ) − T_0(Δ_x_1)", "⊕ structure: T(Δ) − T_2(Δ_x_1)"]


def test_the_audit_runs_where_the_verdicts_are_produced():
    """prove_multi and the claims return verdicts already audited (no audit_report needed)."""
    report = prove_multi(mrope(10000, 8, [2, 1, 1]), claim_sections=[2, 1, 1])
    for p in report.theorems:
        assert p.evidence.audit is not None, p.name
        assert p.evidence.audit.status == "confirmed", p.name
    claim = axis_claim(multi_preset("sincos-2d", dim=8), "row")
    assert claim.evidence.audit is not None
    assert claim.evidence.audit.status == "confirmed"


def test_every_axis_is_moved_by_some_translation_pair() -> None:
    from posproof.measure.multiaxis import translation_pairs

    for seed in range(500):
        starts, ends = translation_pairs(seed, (2, 2, 16))
        moved = ((ends - starts) != 0).any(axis=0)
        assert moved.all(), (seed, moved)
        assert ((starts >= 0) & (ends < [2, 2, 16]) & (ends >= starts)).all()
