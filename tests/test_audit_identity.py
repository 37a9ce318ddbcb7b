"""Issue 29 item 4: the audit of a symbolic identity is a decision, not a spot check.

An identity residual (a ``zero`` item whose symbols are positions) is rewritten as an
exponential polynomial (posproof/expoly.py, exact rational arithmetic, not SymPy's
simplifier) and its normal form compared with 0.  A wrong identity that vanishes at every
integer, at every point of the seeded set, or at x = 0 and x = 1 is refuted; a residual no
decision procedure applies to is confirmed at its points only, and the audit says
``sample``, never ``all``.
"""

from __future__ import annotations

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from posproof import preset, prove
from posproof.audit import apply, audit, decide_identity
from posproof.evidence import Evidence
from posproof.expoly import NotApplicable, normal_form
from posproof.proofs.theorems.engine import Engine
from posproof.proofs.witness import zero_item
from posproof.report import Proof

X, D = sp.symbols("x delta")
SEEDED = (7, 56125, 1679215)                 # the cross-check's first points (seed 0)
W = sp.Integer(10000) ** sp.Rational(-1, 256)


def _evidence(expr: sp.Expr, points, coverage: str = "all") -> Evidence:
    items = [zero_item(f"residual at {p}", expr, p) for p in points]
    return Evidence("symbolic identity", coverage, items)


def _proved(expr: sp.Expr, points) -> Proof:
    return apply(Proof("demo", "an identity", "proved", evidence=_evidence(expr, points)))


# --------------------------------------------------------------------------- planted wrong
ZERO_AT_INTEGERS = [sp.sin(sp.pi * X), 3 * sp.sin(sp.pi * X),
                    sp.Rational(1, 10**30) * sp.sin(sp.pi * X) * sp.cos(W * X),
                    sp.sin(sp.pi * X) ** 2, sp.sin(2 * sp.pi * X) * sp.cos(X) + sp.sin(sp.pi * X)]


@pytest.mark.parametrize("residual", ZERO_AT_INTEGERS)
def test_a_residual_that_vanishes_at_every_integer_is_refuted(residual: sp.Expr) -> None:
    ev = _evidence(residual, [{X: p} for p in SEEDED])
    assert audit(ev).status == "refuted"
    assert "not an identity" in ev.audit.detail
    (record,) = ev.audit.identities
    assert record["terms"] > 0
    assert record["certain"]
    assert len(record["sha256"]) == 16
    proof = _proved(residual, [{X: p} for p in SEEDED])
    assert proof.status == "unknown"
    assert "disagrees" in proof.note


def test_a_residual_that_vanishes_at_every_seeded_point_is_refuted() -> None:
    poly = (X - SEEDED[0]) * (X - SEEDED[1]) * (X - SEEDED[2])
    for residual in (poly, poly * sp.cos(W * D), poly * sp.sin(D) + sp.sin(sp.pi * D)):
        points = [{X: a, D: b} for a, b in zip(SEEDED, (56125, 1679215, -66064), strict=True)]
        assert audit(_evidence(residual, points)).status == "refuted", residual
        assert _proved(residual, points).status == "unknown"


@pytest.mark.parametrize("residual", [X * (X - 1), X * (X - 1) * sp.cos(X),
                                      sp.sin(sp.pi * X) * sp.cos(X / 100),
                                      sp.sin(X) - sp.sin(1) * X])
def test_a_residual_that_vanishes_at_zero_and_one_is_refuted(residual: sp.Expr) -> None:
    assert audit(_evidence(residual, [{X: 0}, {X: 1}])).status == "refuted"


def test_a_lying_engine_with_a_claim_off_by_sin_pi_delta_is_not_proved(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # the claimed T(Δ) differs from the rotation by sin(πΔ): right at every integer Δ, so
    # the mpmath cross-check and a spot check at integer points both pass
    block = "cos(w*delta) + sin(pi*delta), -sin(w*delta); sin(w*delta), cos(w*delta)"
    monkeypatch.setattr(Engine, "prove_identity", lambda self, key, build: True)
    proof = prove(preset("vaswani", dim=4), theorems=["translation[row]"],
                  claim_block=block).theorems[0]
    assert proof.status == "unknown"
    assert "not an identity" in proof.note
    assert proof.evidence.audit.status == "refuted"


# --------------------------------------------------------------------------- true identities
TRUE = [
    sp.sin(W * (X + D)) - sp.sin(W * X) * sp.cos(W * D) - sp.cos(W * X) * sp.sin(W * D),
    # equal frequencies written differently are one generator
    sp.sin(W * X) - sp.sin(sp.Integer(10) ** sp.Rational(-1, 64) * X),
    sp.cos(sp.sqrt(8) * X) - sp.cos(2 * sp.sqrt(2) * X),
    # a frequency that is a sum of independent ones
    sp.sin((1 + sp.sqrt(2)) * X) - sp.sin(X) * sp.cos(sp.sqrt(2) * X)
    - sp.cos(X) * sp.sin(sp.sqrt(2) * X),
    sp.sin(X) ** 2 + sp.cos(X) ** 2 - 1,
    sp.cos(3 * X) - 4 * sp.cos(X) ** 3 + 3 * sp.cos(X),
    sp.sin(X + sp.pi / 3) - sp.sin(X) / 2 - sp.sqrt(3) * sp.cos(X) / 2,
    sp.cos(X + 1) - sp.cos(X) * sp.cos(1) + sp.sin(X) * sp.sin(1),
    sp.exp(sp.I * X) - sp.cos(X) - sp.I * sp.sin(X),
    sp.Integer(6) ** X - sp.Integer(2) ** X * sp.Integer(3) ** X,
    sp.exp(X) / (1 + sp.exp(X)) - 1 + 1 / (1 + sp.exp(X)),
]


@pytest.mark.parametrize("identity", TRUE)
def test_true_identities_are_decided_for_every_value(identity: sp.Expr) -> None:
    points = [{X: 7, D: 56125}, {X: 56125, D: -66064}]
    ev = _evidence(identity, points)
    assert audit(ev).status == "confirmed"
    assert ev.audit.coverage == "all"
    assert ev.audit.identities[0]["terms"] == 0
    assert ev.audit.identities[0]["normal_form"] == "0"
    assert ev.to_dict()["audit"]["identities"][0]["terms"] == 0


def test_the_decision_is_not_a_point_evaluation() -> None:
    # the same identity at points where arithmetic would be hopeless is still decided
    huge = _evidence(TRUE[0], [{X: 10**400, D: -(10**399)}])
    assert audit(huge, max_bits=64).status == "confirmed"
    status, why, info = decide_identity(zero_item("r", TRUE[0], {X: 10**400, D: 1}))
    assert status == "confirmed"
    assert info["coverage"] == "all"
    assert "every real" in why


# --------------------------------------------------------------------------- no decision
def test_a_residual_no_decision_procedure_applies_to_is_a_sample() -> None:
    residual = sp.floor(X) - X                                     # 0 at integers only
    proof = _proved(residual, [{X: p} for p in SEEDED])
    assert proof.status == "proved"
    assert proof.evidence.audit.status == "confirmed"
    assert proof.evidence.audit.coverage == "sample"
    assert proof.evidence.to_dict()["audit"]["coverage"] == "sample"
    assert "sample" in proof.note
    assert "floor" in proof.note


HEPTAGON = (sp.cos(2 * sp.pi / 7) + sp.cos(4 * sp.pi / 7) + sp.cos(6 * sp.pi / 7)
            + sp.Rational(1, 2))                  # = 0 (Gauss), not a multiple of π/4 or π/6


def test_a_nonzero_form_that_is_not_certainly_nonzero_is_undecided_never_decided() -> None:
    # e^{2iπ/7} is a formal generator: the normal form is not 0 but its terms are not
    # certainly independent (1 + ζ + … + ζ⁶ = 0 is not modelled): neither way
    residual = HEPTAGON * sp.sin(X)
    nf = normal_form(residual, [X])
    assert not nf.is_zero
    assert not nf.certain
    ev = _evidence(residual, [{X: p} for p in SEEDED])
    assert audit(ev).status == "undecided"
    assert _proved(residual, [{X: p} for p in SEEDED]).status == "unknown"
    # the same constant alone (no variable): its ball at the zero precision, as before
    assert audit(_evidence(HEPTAGON, [{}])).status == "confirmed"


def test_parameters_with_values_are_not_refuted_as_variables() -> None:
    # a slope m given exactly: B = −m·Δ holds for every m, decided with m a variable too;
    # an identity true only at the parameter's value is decided with it substituted
    m = sp.Symbol("m")
    ev = _evidence(m ** 2 - sp.Rational(1, 4) + 0 * X, [{m: sp.Rational(1, 2), X: 7}])
    assert audit(ev).status == "confirmed"
    assert ev.audit.coverage == "all"
    ev = _evidence((m ** 2 - sp.Rational(1, 4)) * sp.sin(sp.pi * X),
                   [{m: sp.Rational(1, 3), X: 7}])
    assert audit(ev).status == "refuted"


@pytest.mark.parametrize("expr", [sp.tan(X), sp.Abs(X), sp.log(X), sp.sin(X ** 2),
                                  sp.sqrt(X), 1 / (HEPTAGON + sp.sin(X))])
def test_outside_the_class_is_not_applicable(expr: sp.Expr) -> None:
    with pytest.raises(NotApplicable):
        normal_form(expr, [X])


# --------------------------------------------------------------------------- real proofs
def _decided(report) -> None:
    decided = [p for p in report.theorems if p.status == "proved" and p.evidence is not None
               and any(i.relation == "zero" and i.env for i in p.evidence.items)]
    assert decided
    for p in decided:
        audit_ = p.evidence.audit
        assert audit_.status == "confirmed", (p.name, audit_)
        assert audit_.coverage == "all", (p.name, audit_)
        assert audit_.identities
        assert all(r["terms"] == 0 for r in audit_.identities)
        assert any(r["variables"] for r in audit_.identities), p.name


def test_the_engines_proofs_are_decided_not_sampled() -> None:
    report = prove(preset("vaswani", dim=8),
                   theorems=["translation[row]", "dot_product", "norm", "group_law"])
    assert [p.status for p in report.theorems] == ["proved"] * 4
    _decided(report)


def test_rotary_proofs_are_decided_for_every_m_and_n() -> None:
    from posproof.model.rope import rotary
    from posproof.proofs.rotary import prove_rotary

    report = prove_rotary(rotary(10000, 8), general=False, scaling=False, hazards=False)
    _decided(report)
    relative = report["rotary:relative"]
    assert {str(s) for i in relative.evidence.items for s in i.expr.free_symbols} == {"m", "n"}


def test_the_verdict_line_says_how_many_were_confirmed_at_sample_points_only() -> None:
    from posproof.audit import audit_report
    from posproof.report import Report
    from posproof.verdict import verdict_text

    sampled = Proof("floor", "s", "proved", evidence=_evidence(sp.floor(X) - X, [{X: 7}]))
    decided = Proof("norm", "s", "proved", evidence=_evidence(TRUE[4], [{X: 7}]))
    report = audit_report(Report({"name": "demo"}, [sampled, decided], []))
    summary = report.audit_summary()
    assert summary["confirmed"] == 2
    assert summary["sampled"] == 1
    line = verdict_text(report.theorems, audited=summary)
    assert "2 confirmed (1 on a sample only)" in line


# --------------------------------------------------------------------------- random identities
_FREQS = [sp.Integer(1), sp.Rational(1, 3), sp.sqrt(2), W, sp.pi / 2]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(-3, 3), st.integers(0, 4), st.integers(0, 4),
                          st.booleans(), st.booleans()), min_size=1, max_size=3),
       st.integers(1, 5))
def test_random_trig_products_agree_with_their_expansion_and_a_planted_term_is_seen(
        terms, k) -> None:
    # Σ c·f(a·x + b·δ) written two ways (SymPy's expand_trig of the sum of angles is a
    # true identity): the normal form of the difference is 0; adding k·sin(π·x) is refuted
    expr = sp.Integer(0)
    for c, a, b, use_sin, second in terms:
        fa, fb = _FREQS[a], _FREQS[b]
        arg = fa * X + (fb * D if second else 0)
        expr += c * (sp.sin(arg) if use_sin else sp.cos(arg))
    expanded = sp.expand_trig(sp.expand(expr))
    nf = normal_form(expr - expanded, [X, D])
    assert nf.is_zero, (expr, expanded)
    wrong = normal_form(expr - expanded + k * sp.sin(sp.pi * X), [X, D])
    assert not wrong.is_zero
    assert wrong.certain
