"""Issue 29 item 4: the audit decides every column group of an identity proof.

The evidence of a proof by group identities carries every group's exact residual
(:class:`~posproof.evidence.GroupResidual`).  The auditor replaces the group's frequencies by
formal symbols where they multiply a variable (an exact, value-preserving rewriting it checks
itself), decides that generic identity once with :mod:`posproof.expoly` (the symbols formal:
a normal form 0 holds for every value), and decides as it stands any residual that does not
fit.  A lying engine that is wrong in one middle group only is seen.
"""

from __future__ import annotations

import importlib

import pytest
import sympy as sp

from posproof import preset, prove
from posproof.audit import audit, decide_group
from posproof.evidence import Evidence, GroupResidual
from posproof.model.encoding import DELTA
from posproof.proofs.theorems.engine import Engine

F = sp.Integer(10000) ** sp.Rational(-37, 256)
x = sp.Symbol("x")


def _lying_translation(monkeypatch: pytest.MonkeyPatch, group: int, term: sp.Expr) -> None:
    """An engine that says every identity holds, and whose T(Δ) is off by ``term`` in one
    entry of group ``group`` (0 at every integer Δ: the cross-check cannot see it)."""
    original = Engine.translation

    def translation(self: Engine, convention: str) -> dict:
        dok = dict(original(self, convention))
        cols = self.m.groups[group]
        key = (cols[0], cols[0])
        dok[key] = dok[key] + term
        return dok
    monkeypatch.setattr(Engine, "translation", translation)
    monkeypatch.setattr(Engine, "prove_identity", lambda self, key, build: True)


def test_a_lying_engine_wrong_in_a_middle_group_only_is_not_proved(
        monkeypatch: pytest.MonkeyPatch) -> None:
    _lying_translation(monkeypatch, 37, sp.sin(sp.pi * DELTA))
    report = prove(preset("vaswani", dim=512), theorems=["translation[row]"])
    proof = report.theorems[0]
    sampled = [list(g) for g in proof.evidence.details["groups"]]
    assert [74, 75] not in sampled                   # the points' groups do not include it
    assert proof.status == "unknown"
    assert proof.evidence.audit.status == "refuted"
    assert "group [74, 75]" in proof.evidence.audit.detail
    assert "not an identity" in proof.note


def test_a_lying_structure_proof_wrong_in_one_group_is_not_proved(
        monkeypatch: pytest.MonkeyPatch) -> None:
    _lying_translation(monkeypatch, 5, sp.sin(sp.pi * DELTA) ** 2)
    report = prove(preset("vaswani", dim=64), theorems=["orthogonal", "group_law"])
    for proof in report.theorems:
        assert proof.status == "unknown", proof.name
        assert proof.evidence.audit.status == "refuted", proof.name
        assert "group [10, 11]" in proof.evidence.audit.detail


@pytest.mark.parametrize("theorems", [["translation[row]", "dot_product", "norm"],
                                      ["orthogonal", "determinant", "identity_at_zero",
                                       "group_law", "inverse_is_transpose",
                                       "layout_equivalence"]])
def test_every_group_of_every_identity_proof_is_decided(theorems: list[str]) -> None:
    report = prove(preset("vaswani", dim=64), theorems=theorems)
    for proof in report.theorems:
        assert proof.status == "proved", proof.name
        ev = proof.evidence
        assert len(ev.groups) == 32, proof.name
        assert ev.audit.status == "confirmed"
        assert ev.audit.coverage == "all"
        summary = ev.audit.groups
        assert summary["count"] == 32
        assert summary["generic"] + summary["direct"] == 32
        assert summary["generic"] >= 28                  # one generic identity, not 32 decisions
        # layout equivalence: a group of PE_L's columns holds two of PE's frequencies, in
        # one of a few orders
        shapes = 16 if proof.name == "layout_equivalence" else 2
        assert summary["generic_identities"] <= shapes, (proof.name, summary)
        assert ev.to_dict()["group_residuals"]["count"] == 32


def test_a_periodic_encodings_period_is_decided_in_every_group() -> None:
    enc = preset("vaswani", dim=8, base=10000)            # frequencies 10^-k: period 2000π
    proof = prove(enc, theorems=["periodicity"]).theorems[0]
    assert proof.status == "proved"
    assert len(proof.evidence.groups) == 4
    assert proof.evidence.audit.status == "confirmed"


def test_a_generic_identity_holds_for_every_frequency_a_group_fits_it() -> None:
    good = GroupResidual("g", sp.sin(2 * F * x) - 2 * sp.sin(F * x) * sp.cos(F * x), ("x",), (F,))
    assert decide_group(good)[::2] == ("confirmed", "generic")
    # the same frequency written differently in one term is still one frequency
    other = sp.Integer(10) ** sp.Rational(-37, 64)
    mixed = GroupResidual("g", sp.sin(2 * other * x) - 2 * sp.sin(F * x) * sp.cos(F * x),
                          ("x",), (F,))
    assert decide_group(mixed)[::2] == ("confirmed", "generic")


@pytest.mark.parametrize("residual", [
    sp.sin(F * x) * sp.sin(sp.pi * x),                   # 0 at every integer
    sp.sin(F * x + F * x) - sp.sin(F * x),               # fits the hint, not an identity
    sp.cos(F * x) ** 2 + sp.sin(F * x) ** 2 - 1 + sp.sin(sp.pi * x) * sp.cos(x),
])
def test_a_group_that_is_not_an_identity_is_refuted(residual: sp.Expr) -> None:
    assert decide_group(GroupResidual("g", residual, ("x",), (F,)))[0] == "refuted"
    ev = Evidence("symbolic identity", groups=[
        GroupResidual(f"group {k}", sp.sin(2 * F * x) - 2 * sp.sin(F * x) * sp.cos(F * x),
                      ("x",), (F,)) for k in range(3)]
        + [GroupResidual("group 3", residual, ("x",), (F,))])
    ev.items = []
    result = audit(ev)
    assert result.status == "refuted"
    assert "group 3" in result.detail


def test_a_wrong_hint_is_never_trusted() -> None:
    # the hint names a frequency the residual does not hold: decided as it stands
    wrong = GroupResidual("g", sp.sin(F * x) * sp.sin(sp.pi * x), ("x",), (sp.sqrt(2),))
    assert decide_group(wrong)[0] == "refuted"
    # a hint that makes the generic form differ from the residual cannot confirm it
    lie = GroupResidual("g", sp.sin(F * x) - sp.sin(sp.sqrt(2) * x), ("x",), (F, sp.sqrt(2)))
    assert decide_group(lie)[0] == "refuted"
    # F = 10^(27/64)/10: a constant with the same rational factor, another frequency
    other = GroupResidual("g", sp.sin(F * x) - sp.sin(sp.sqrt(2) * x / 10), ("x",), (F,))
    assert decide_group(other)[0] == "refuted"


def test_a_symbol_that_is_not_a_variable_is_undecided() -> None:
    y = sp.Symbol("y")
    assert decide_group(GroupResidual("g", sp.sin(F * y), ("x",), (F,)))[0] == "undecided"


def test_every_pair_of_a_rotary_proof_is_decided() -> None:
    from posproof.model.rope import rotary
    from posproof.proofs.rotary import prove_rotary

    report = prove_rotary(rotary(10000, 64), general=False, scaling=False, hazards=False)
    decided = [p for p in report.theorems if p.evidence is not None and p.evidence.groups]
    assert {p.name for p in decided} >= {"rotary:relative", "rotary:orthogonal"}
    for p in decided:
        assert p.status == "proved"
        assert len(p.evidence.groups) == 32
        assert p.evidence.audit.coverage == "all"
        assert p.evidence.audit.groups["count"] == 32
        assert p.evidence.audit.groups["generic_identities"] <= 2


def test_a_non_zero_form_with_a_formal_frequency_is_never_certain() -> None:
    from posproof.expoly import normal_form

    w = sp.Symbol("w")
    # 0 at w = 1: a non-zero form in a formal frequency refutes nothing
    nf = normal_form(sp.sin(w * x) - sp.sin(x), [x], [w])
    assert not nf.is_zero
    assert not nf.certain
    assert normal_form(sp.sin(2 * w * x) - 2 * sp.sin(w * x) * sp.cos(w * x), [x], [w]).is_zero


def test_past_the_cap_the_audit_is_labelled_a_sample(monkeypatch: pytest.MonkeyPatch) -> None:
    residuals = importlib.import_module("posproof.proofs.theorems.residuals")

    monkeypatch.setattr(residuals, "MAX_AUDITED_GROUPS", 8)
    proof = prove(preset("vaswani", dim=64), theorems=["translation[row]"]).theorems[0]
    ev = proof.evidence
    assert proof.status == "proved"
    assert len(ev.groups) == 8
    assert ev.groups_total == 32
    assert ev.groups[0].label.endswith("group [0, 1]")
    assert ev.groups[-1].label.endswith("group [62, 63]")
    assert ev.audit.status == "confirmed"
    assert ev.audit.coverage == "sample"
    assert "8 of 32 column groups" in ev.audit.detail
    assert ev.to_dict()["group_residuals"]["total"] == 32


def test_past_the_cap_a_rotary_audit_is_labelled_a_sample(monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    from posproof.model.rope import rotary
    from posproof.proofs.rotary import prove_rotary
    residuals = importlib.import_module("posproof.proofs.theorems.residuals")

    monkeypatch.setattr(residuals, "MAX_AUDITED_GROUPS", 4)
    report = prove_rotary(rotary(10000, 64), general=False, scaling=False, hazards=False)
    decided = [p for p in report.theorems if p.evidence is not None and p.evidence.groups]
    assert decided
    for p in decided:
        assert len(p.evidence.groups) == 4
        assert p.evidence.groups_total == 32
        assert p.evidence.audit.coverage == "sample", p.name


def _sine_pair(data: tuple) -> sp.Expr:
    (f,), extra = data
    return sp.sin(2 * f * x) - 2 * sp.sin(f * x) * sp.cos(f * x) + extra


@pytest.mark.parametrize("extra", [sp.sin(sp.pi * x) * sp.sin(F * x),
                                   sp.sin(F * x) - sp.sin(sp.sqrt(2) * x)])
def test_a_group_built_from_its_data_is_decided_on_its_own_data(extra: sp.Expr) -> None:
    good = [GroupResidual(f"group {k}", None, ("x",), (F,), ((F,), sp.Integer(0)), _sine_pair)
            for k in range(3)]
    bad = GroupResidual("group 3", None, ("x",), (F,), ((F,), extra), _sine_pair)
    for k, g in enumerate(good):
        assert decide_group(g)[::2] == ("confirmed", "generic"), k
    assert decide_group(bad)[0] == "refuted"
    ev = Evidence("symbolic identity", groups=[*good, bad])
    result = audit(ev)
    assert result.status == "refuted"
    assert "group 3" in result.detail
