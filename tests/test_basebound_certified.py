"""Issue 21: the base search's decisions are certified signs (or unknown), near-degenerate
B(m) (m near an odd multiple of π) neither hang nor mislead it, and its answers carry
evidence that the independent auditor re-checks."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from decimal import Decimal

import mpmath
import pytest
import sympy as sp

from posproof.audit import audit
from posproof.errors import InvalidParameter
from posproof.evidence import Evidence, Sign, Spot
from posproof.measure.explore import base_bound
from posproof.measure.explore import basebound as bbmod
from posproof.measure.explore.basekernel import BASE, LN_B, certified_value, kernel_expr

# B(22) = cos 22 + cos(22·b^(-1/2)) is exactly 0 at this base (cos(22 − 7π) = −cos 22),
# negative just below it, positive just above (d = 4)
B22 = (22 / (22 - 7 * sp.pi)) ** 2


def _b_mp(base: sp.Expr, dim: int, m: int, digits: int = 400) -> mpmath.mpf:
    """B(m) at an exact base, in mpmath at ``digits`` digits (the tests' own oracle)."""
    with mpmath.workdps(digits):
        b = sp.N(base, digits + 20)
        b = mpmath.mpf(str(b))
        return +mpmath.fsum(mpmath.cos(m * b ** (-mpmath.mpf(2 * k) / dim))
                            for k in range(dim // 2))


@pytest.fixture(scope="module")
def bb30():
    return base_bound(30, 4)


@pytest.mark.parametrize("power", [20, 30, 60])
def test_is_good_near_an_exact_zero_of_b22(bb30, power):
    """Just below the zero of B(22) the base is bad (witness 22), at it and just above it good:
    decided by certified signs, whatever the magnitude (10⁻²⁰ … 10⁻⁶⁰)."""
    eps = sp.Rational(1, 10**power)
    below, above = B22 - eps, B22 + eps
    assert _b_mp(below, 4, 22) < 0 < _b_mp(above, 4, 22)   # the oracle agrees at 400 digits
    no, yes = bb30.decide(below), bb30.decide(above)
    assert (no.status, no.witness) == ("no", 22)
    assert yes.status == "yes"
    assert yes.witness is None
    assert bb30.is_good(below) == "no"
    assert bb30.is_good(above) == "yes"
    assert bb30.status(below) == "no"
    assert bb30.status(above) == "yes"
    # the evidence: B(22) < 0 below, > 0 above, both confirmed by the Arb auditor
    assert [i.relation for i in no.evidence.items] == ["negative"]
    assert no.evidence.audit.status == "confirmed"
    assert yes.evidence.items[0].relation == "positive"
    assert yes.evidence.audit.status == "confirmed"


def test_is_good_at_the_exact_zero_is_yes_with_a_zero_sign(bb30):
    answer = bb30.decide(B22)
    assert answer.status == "yes"
    assert answer.evidence.items[0].relation == "zero"
    assert answer.evidence.audit.status == "confirmed"


def test_certified_value_keeps_the_sign_of_a_negative_enclosure():
    """The enclosure's ends are exact and keep their sign (mpf.man_exp drops it)."""
    got = certified_value(kernel_expr(22, 4, "b"), {BASE: B22 - sp.Rational(1, 10**30)})
    sign, lo, hi, _ = got
    assert sign == -1
    assert lo <= hi < 0
    got = certified_value(kernel_expr(22, 4, "b"), {BASE: B22 + sp.Rational(1, 10**30)})
    assert got[0] == 1
    assert 0 < got[1] <= got[2]


def test_integer_bases_around_the_zero_of_b22():
    """--integer-bases: 6177588 bad (witness 22), 6177589 the first good integer (oracle)."""
    bb = base_bound(30, 4, lowest=6177500, highest=6177700, integer_bases=True)
    assert _b_mp(sp.Integer(6177588), 4, 22) < 0 < _b_mp(sp.Integer(6177589), 4, 22)
    assert bb.bound == 6177589
    assert bb.witness_m == 22
    assert bb.undecided == 0
    assert bb.evidence["smallest_good_base"].audit.status == "confirmed"


def test_cli_explore_base_bound_says_no_below_the_zero_and_yes_above():
    for sign, expected in (("-", "no"), ("+", "yes")):
        spec = f"rope:base=(22/(22-7*pi))**2{sign}10**-30,dim=4"
        run = subprocess.run([sys.executable, "-m", "posproof", "explore", spec, "--length",
                              "30", "--base-bound", "--no-proofs", "--dtypes", "", "--json"],
                             capture_output=True, text=True, check=False, timeout=600)
        assert run.returncode == 0, run.stderr
        data = json.loads(run.stdout)
        numbers = data["encodings"][0]["numbers"]
        assert numbers["base_ok"] == expected
        assert numbers["base_ok_evidence"]["audit"]["status"] == "confirmed"
        bound = data["base_bounds"]["4"]
        assert bound["evidence"]["smallest_good_base"]["audit"]["status"] == "confirmed"
        assert bound["answers"][0]["good"] == expected


def test_l355_degenerate_search_finishes_and_brackets_the_zero_of_b355():
    """m = 355 ≈ 113π: B(355) ~ 10⁻²⁰ near its zero at b ≈ 1.3869·10¹⁴, far below float64's
    error bound.  The search returns (a correctness test: the timeout only guards the suite)
    and, when certified, its bracket holds the zero (the oracle at 400 digits)."""
    run = subprocess.run([sys.executable, "-m", "posproof", "explore", "rope:base=10000,dim=4",
                          "--length", "355", "--base-bound", "--base-range", "2,1e15",
                          "--no-proofs", "--dtypes", "", "--json"],
                         capture_output=True, text=True, check=False, timeout=900)
    assert run.returncode == 0, run.stderr
    bound = json.loads(run.stdout)["base_bounds"]["4"]
    if bound["undecided"] or bound["smallest_status"] != "certified":
        assert "undecided" in " ".join(bound["notes"]) or bound["smallest_status"] != "certified"
        return
    lo, hi = (sp.Rational(str(v)) for v in bound["smallest_good_base"]["bracket"])
    assert bound["smallest_good_base"]["witness_m"] == 355
    assert _b_mp(lo, 4, 355) < 0 < _b_mp(hi, 4, 355)
    assert bound["evidence"]["smallest_good_base"]["audit"]["status"] == "confirmed"


def test_degenerate_search_in_process_matches_the_oracle():
    """The region of the zero of B(355) alone: the exact re-evaluation settles it."""
    bb = base_bound(355, 4, lowest=1.38e14, highest=1.4e14)
    assert bb.undecided == 0
    assert bb._kernel.sharpened > 0
    lo, hi = (sp.Rational(str(v)) for v in bb.smallest)
    assert bb.witness_m == 355
    assert _b_mp(lo, 4, 355) < 0 < _b_mp(hi, 4, 355)
    assert bb.is_good(hi) == "yes"
    assert bb.is_good(lo) == "no"


def test_a_planted_wrong_evidence_item_is_caught_by_the_audit(bb30):
    """Flip the relation of the witness' sign, or move the float value out of its radius:
    the auditor refutes both."""
    evidence = bb30.evidence["smallest_good_base"]
    assert evidence.audit.status == "confirmed"
    sign = evidence.items[0]
    assert isinstance(sign, Sign)
    assert sign.relation == "negative"
    flipped = Evidence("planted", items=[dataclasses.replace(sign, relation="positive")])
    assert audit(flipped).status == "refuted"
    spot = next(i for i in evidence.items if isinstance(i, Spot))
    moved = Evidence("planted", items=[dataclasses.replace(
        spot, value=spot.value + 10 * spot.radius + 1e-9)])
    assert audit(moved).status == "refuted"


def test_a_planted_wrong_item_makes_the_answers_unknown(monkeypatch):
    """The search's own evidence with one planted false item: the smallest good base and an
    is_good answer become unknown (never a wrong certified answer)."""
    real = bbmod._good_items

    def planted(*args, **kwargs):
        items, why = real(*args, **kwargs)
        wrong = Sign("planted: B(22) at b = 10 is positive", kernel_expr(22, 4, "b"),
                     "positive", env={BASE: sp.Integer(10)})
        return [*items, wrong], why

    monkeypatch.setattr(bbmod, "_good_items", planted)
    assert _b_mp(sp.Integer(10), 4, 22) < 0          # so the planted claim is false
    bb = base_bound(30, 4, lowest=2, highest=1e9)
    assert bb.smallest is None
    assert bb.bound is None
    assert bb.smallest_status.startswith("unknown: the independent audit")
    assert "unknown" in bb.summary()
    answer = bb.decide(10**8)
    assert answer.status == "unknown"
    assert "audit" in answer.note
    # without the audit the planted item is not caught: the audit is what catches it
    assert base_bound(30, 4, lowest=2, highest=1e9, audit=False).bound is not None


def test_the_time_limit_leaves_the_range_undecided_never_guessed_and_says_so():
    """The safety net (CPU seconds) fired at once: the range is undecided, and the answer
    says the time limit cut it (not the work budget) and names the option that raises it."""
    bb = base_bound(1024, 128, time_budget=0)
    assert not bb.islands
    assert bb.bound is None
    assert bb.undecided >= 1
    assert bb.stopped_by == "time limit"
    assert any("safety time limit" in n and "--base-time-limit" in n for n in bb.notes)
    assert "no good base certified" in bb.summary()
    assert "--base-time-limit" in bb.summary()
    assert bb.to_dict()["stopped_by"] == "time limit"
    with pytest.raises(InvalidParameter, match="time_budget"):
        base_bound(30, 4, time_budget=-1)


def test_a_budget_undecided_range_below_the_first_island_voids_the_smallest(monkeypatch):
    """If the budget cuts the search below the first island found, that island is listed but
    no smallest good base is claimed."""
    pieces = [bbmod.Piece(0.5, 1.0, "bad", 3), bbmod.Piece(1.0, 2.0, "undecided", why="budget"),
              bbmod.Piece(2.0, 3.0, "good")]
    out = bbmod.BaseBound(30, 4, 1.6, 20.0, False, 1e-9, pieces=pieces)
    bbmod._real_islands(out)
    assert len(out.islands) == 1
    assert out.undecided == 1
    assert out.smallest is None
    assert out.smallest_status.startswith("not certified")
    pieces[1] = bbmod.Piece(1.0, 2.0, "undecided", why="resolution")   # a bracket: fine
    out = bbmod.BaseBound(30, 4, 1.6, 20.0, False, 1e-9, pieces=pieces)
    bbmod._real_islands(out)
    assert out.undecided == 0
    assert out.smallest is not None


def test_bases_outside_the_range_are_unknown_and_bad_bases_refused(bb30):
    assert bb30.is_good(1.5) == "unknown"
    assert bb30.is_good(Decimal("2e12")) == "unknown"
    with pytest.raises(InvalidParameter):
        bb30.is_good("x + 1")
    with pytest.raises(InvalidParameter):
        bb30.is_good(float("nan"))


def test_evidence_is_in_the_json(bb30):
    data = bb30.to_dict()
    items = data["evidence"]["smallest_good_base"]["items"]
    assert [i["kind"] for i in items] == ["sign", "sign", "spot"]
    assert items[0]["relation"] == "negative"
    assert items[1]["relation"] == "positive"
    assert data["smallest_status"] == "certified"
    assert data["audit_seconds"] >= 0
    json.dumps(data, default=str)


def test_spot_of_the_search_is_within_its_bound_in_mpmath(bb30):
    spot = next(i for i in bb30.evidence["smallest_good_base"].items if isinstance(i, Spot))
    t = spot.env[LN_B]
    with mpmath.workdps(60):
        tt = mpmath.mpf(t.numerator) / t.denominator
        exact = mpmath.cos(22) + mpmath.cos(22 * mpmath.exp(-tt / 2))
        assert abs(exact - spot.value) <= spot.radius


def test_integer_bases_at_the_zero_of_b355_are_exact():
    """The first good integer where B(355) ~ 10⁻²⁴: 138689876644293 (the oracle: B(355) < 0 at
    the integer below it, > 0 at it)."""
    bb = base_bound(355, 4, lowest=1.38e14, highest=1.4e14, integer_bases=True)
    first = 138689876644293
    assert _b_mp(sp.Integer(first - 1), 4, 355) < 0 < _b_mp(sp.Integer(first), 4, 355)
    assert bb.bound == first
    assert bb.witness_m == 355
    assert bb.undecided == 0
    assert bb.is_good(first) == "yes"
    assert bb.is_good(first - 1) == "no"
