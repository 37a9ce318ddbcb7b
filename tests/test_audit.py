"""The independent auditor (posproof/audit.py): Arb balls re-check every item of evidence.

Each case is decided from both sides: a true claim is confirmed, the same claim with the
sign flipped (or the quantity moved across 0 by a hair) is refuted, and a claim no
precision within the budget can decide is undecided — which turns the verdict unknown.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from posproof.audit import apply, arb_ball, audit, audit_report, decide
from posproof.evidence import Audit, Evidence, Sign, Spot
from posproof.report import Check, Proof, Report

HAIR = sp.Rational(1, 10**45)
# cos 1 + cos(π − 1 + h) = −sin(1)·h + O(h²): negative for h > 0, positive for h < 0
KERNEL = sp.cos(1) + sp.cos(sp.pi - 1 + sp.Symbol("h"))


@pytest.mark.parametrize(("h", "truth"), [(HAIR, "negative"), (-HAIR, "positive"),
                                          (sp.Rational(1, 10**300), "negative"),
                                          (-sp.Rational(1, 10**300), "positive")])
def test_a_sign_a_hair_from_zero_is_decided_both_ways(h, truth):
    other = "positive" if truth == "negative" else "negative"
    assert decide(Sign("f(1)", KERNEL, truth, env={"h": h}))[0] == "confirmed"
    assert decide(Sign("f(1)", KERNEL, other, env={"h": h}))[0] == "refuted"
    assert decide(Sign("f(1)", KERNEL, "nonzero", env={"h": h}))[0] == "confirmed"
    assert decide(Sign("f(1)", KERNEL, "zero", env={"h": h}))[0] == "refuted"


def test_exact_zero_is_consistent_and_never_certified_nonzero():
    zero = sp.log(8) / sp.log(2) - 3
    assert decide(Sign("log 8/log 2 − 3", zero, "zero"))[0] == "confirmed"
    assert decide(Sign("log 8/log 2 − 3", zero, "positive"))[0] == "undecided"
    assert decide(Sign("log 8/log 2 − 3", zero, "nonzero"), max_bits=256)[0] == "undecided"
    assert decide(Sign("cos(π/2)", sp.cos(sp.pi / 2, evaluate=False), "zero"))[0] == "confirmed"


def test_huge_arguments_raise_the_precision_until_decided():
    # sin(10^60·√2) needs ~ 60 digits just to reduce the angle
    big = sp.sin(sp.sqrt(2) * sp.Integer(10) ** 60)
    ball = arb_ball(big, 512)
    assert ball.rad() < 1e-50
    truth = "positive" if ball > 0 else "negative"
    assert decide(Sign("sin(√2·10⁶⁰)", big, truth))[0] == "confirmed"


def test_a_spot_is_confirmed_inside_its_radius_and_refuted_outside():
    q = sp.cos(sp.Integer(3)) + sp.cos(sp.Integer(3) / 7)
    value = math.cos(3) + math.cos(3 / 7)
    assert decide(Spot("f(3)", q, value, 1e-15))[0] == "confirmed"
    assert decide(Spot("f(3)", q, value + 1e-9, 1e-12))[0] == "refuted"
    # a radius of 0 around a double that is not the exact value: never confirmed
    assert decide(Spot("f(3)", q, value, 0.0))[0] == "refuted"


def test_an_enclosure_the_engine_reported_must_meet_the_auditors_ball():
    q = sp.pi - sp.Rational(22, 7)                      # −0.00126…
    good = Sign("π − 22/7", q, "negative", lo="-0.0013", hi="-0.0012")
    planted = Sign("π − 22/7", q, "negative", lo="-0.0020", hi="-0.0015")
    assert decide(good)[0] == "confirmed"
    assert decide(planted)[0] == "refuted"


def test_unevaluable_quantities_are_undecided_not_confirmed():
    assert decide(Sign("gamma", sp.gamma(sp.Rational(1, 3)), "positive"))[0] == "undecided"
    assert decide(Sign("free", sp.Symbol("q") + 1, "positive"))[0] == "undecided"
    assert decide(Sign("log of 0", sp.log(sp.sin(sp.pi, evaluate=False)), "negative",
                       ))[0] == "undecided"


@settings(max_examples=60, deadline=None)
@given(p=st.integers(-10**6, 10**6), q=st.integers(1, 10**6), k=st.integers(1, 60))
def test_signs_of_rationals_near_pi_agree_with_exact_integers(p, q, k):
    # sign(π·q − p·…) on a grid of rationals: Fraction arithmetic decides the truth via
    # enough digits of π from SymPy's exact rational bounds
    x = sp.Rational(p, q) + sp.Rational(1, 10**k)
    lo, hi = Fraction(314159265358979323846, 10**20), Fraction(314159265358979323847, 10**20)
    fx = Fraction(p, q) + Fraction(1, 10**k)
    if lo < fx < hi:
        return                                        # too close to π for 20 digits
    truth = "positive" if fx > hi else "negative"
    assert decide(Sign("x − π", x - sp.pi, truth))[0] == "confirmed"


def _proof(status: str, item: Sign | Spot) -> Proof:
    return Proof("demo", "a statement", status,
                 evidence=Evidence("certified sign", items=[item]))


def test_a_planted_wrong_evidence_value_turns_the_verdict_unknown():
    wrong = Sign("π − 355/113", sp.pi - sp.Rational(355, 113), "positive")
    right = Sign("π − 355/113", sp.pi - sp.Rational(355, 113), "negative")
    p = apply(_proof("proved", wrong))
    assert p.status == "unknown"
    assert "disagrees" in p.note
    assert "python-flint" in p.note
    assert apply(_proof("proved", right)).status == "proved"
    r = apply(_proof("refuted", wrong))
    assert r.status == "unknown"


def test_an_undecided_audit_turns_a_pass_unknown_and_the_report_not_ok():
    c = Check("decay", "pass", evidence=Evidence(
        "certified scan", items=[Sign("exact 0", sp.log(8) / sp.log(2) - 3, "positive")]))
    report = audit_report(Report({"name": "demo"}, [], [c]))
    assert c.status == "unknown"
    assert "could not confirm" in c.note
    assert not report.ok
    assert not report.refuted
    assert report.to_dict()["audit"]["undecided"] == 1


def test_the_audit_never_upgrades_a_verdict():
    for status in ("unknown",):
        p = apply(_proof(status, Sign("π − 3", sp.pi - 3, "positive")))
        assert p.status == status


def test_evidence_without_items_has_nothing_to_audit_and_the_verdict_stands():
    p = Proof("demo", "s", "proved", evidence=Evidence("exact integers"))
    apply(p)
    assert p.status == "proved"
    assert p.evidence.audit.status == "nothing to audit"


def test_a_sampled_pass_never_prints_as_a_bare_pass():
    c = Check("bias", "pass", evidence=Evidence("sampled comparison", coverage="sample",
                                               covered=16384, total=134217728))
    assert c.label == "pass (sampled: 16384 of 134217728 entries)"
    assert c.to_dict()["sampled"] == {"covered": 16384, "total": 134217728}
    whole = Check("bias", "pass", evidence=Evidence("exhaustive comparison"))
    assert whole.label == "pass"
    assert not whole.sampled
    with pytest.raises(ValueError, match="how many"):
        Evidence("sampled comparison", coverage="sample")


def test_audit_results_are_recorded_in_json():
    ev = Evidence("certified sign", items=[Sign("√2 − 99/70", sp.sqrt(2) - sp.Rational(99, 70),
                                                "negative")])
    result = audit(ev)
    assert isinstance(result, Audit)
    assert result.status == "confirmed"
    out = Proof("demo", "s", "proved", evidence=ev).to_dict()["evidence"]
    assert out["audit"]["status"] == "confirmed"
    assert out["items"][0]["quantity"] == "-99/70 + sqrt(2)"


def test_an_integer_power_of_a_ball_around_zero_is_finite():
    # python-flint's arb ** int is NaN for a ball containing 0; the auditor squares instead
    tiny = (sp.cos(1) + sp.cos(sp.pi - 1 + sp.Symbol("h"))) ** 2
    assert decide(Sign("f(1)²", tiny, "positive", env={"h": HAIR}))[0] == "confirmed"
    assert decide(Sign("f(1)³", (KERNEL) ** 3, "negative", env={"h": HAIR}))[0] == "confirmed"
    assert decide(Sign("f(1)⁻²", KERNEL ** -2, "positive", env={"h": HAIR}))[0] == "confirmed"


# ------------------------------------------------------------------ mutants (issue 29 item 6)
def test_a_spot_at_the_edge_of_its_radius_is_confirmed_only_inside():
    """A ball straddling an end of [value − radius, value + radius] decides nothing: the
    quantity 3 + 10⁻¹⁰⁰ (written so that no precision makes its ball exact) lies outside
    [1, 3], and at 256 bits every ball of it meets 3 from both sides."""
    three = sp.log(8) / sp.log(2)
    outside = three + sp.Rational(1, 10**100)
    assert decide(Spot("3 + 10⁻¹⁰⁰", outside, 2.0, 1.0), max_bits=256)[0] == "undecided"
    assert decide(Spot("3 + 10⁻¹⁰⁰", outside, 2.0, 1.0))[0] == "refuted"
    assert decide(Spot("3 − 10⁻¹⁰⁰", three - sp.Rational(1, 10**100), 2.0, 1.0)
                  )[0] == "confirmed"


def test_every_family_report_is_audited(monkeypatch):
    """families.run audits what a family's operation returns: a planted wrong evidence
    turns its verdict unknown, and every verdict with evidence carries an audit."""
    from posproof import families
    from posproof.families import t5

    report = families.check("t5:num_buckets=8,max_distance=16")
    assert report.checks
    assert all(c.evidence is None or c.evidence.audit is not None for c in report.checks)
    assert report.audit_summary()["not audited"] == 0

    wrong = Sign("π − 355/113", sp.pi - sp.Rational(355, 113), "positive")
    monkeypatch.setattr(t5, "prove", lambda obj, options: Report({}, [_proof("proved", wrong)]))
    planted = families.prove("t5:num_buckets=8,max_distance=16")
    assert planted["demo"].status == "unknown"
    assert "disagrees" in planted["demo"].note
