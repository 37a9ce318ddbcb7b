"""Issue 23's theorem: cached keys and later queries see one rotation, or the score is not a
function of n − m (refuted with a certified counterexample)."""

from __future__ import annotations

import pytest
import sympy as sp

from posproof.audit import audit_report
from posproof.cli.app import main
from posproof.model.specs import parse_spec
from posproof.proofs.cache_consistency import THEOREM, prove_cache_consistency

DYNAMIC = "rope:dim=16,base=10000,scaling=dynamic,factor=2,original_max_position_embeddings=64"


def verdicts(spec):
    report = audit_report(prove_cache_consistency(parse_spec(spec)))
    return report, {p.name: p.status for p in report.theorems}


def test_dynamic_ntk_is_refuted_with_a_certified_counterexample():
    report, status = verdicts(DYNAMIC)
    assert status == {f"{THEOREM}[same rotation]": "proved", THEOREM: "refuted"}
    proof = report[THEOREM]
    ce = proof.counterexample
    n1, n2 = ce["queries"]
    m1, m2 = ce["keys"]
    assert n1 - m1 == n2 - m2 == ce["delta"]
    assert min(n1, n2) >= 64 > max(m1, m2)          # queries after the switch, keys before
    assert proof.evidence.audit.status == "confirmed"
    # the residual really is the difference of the two scores, and really non-zero
    theta, theta2 = sp.sympify(ce["theta_cached"]), sp.sympify(ce["theta_query"])
    value = float(sp.cos(n1 * theta2 - m1 * theta) - sp.cos(n2 * theta2 - m2 * theta))
    lo, hi = (float(x) for x in ce["score_difference"])
    assert lo <= value <= hi
    assert value != 0
    # the query's frequency is the rescaled one: base·3^(d/(d−2)) at length 128 (pair 7 → θ/3)
    assert ce["pair"] == 7
    assert sp.simplify(theta2 - theta / 3) == 0


def test_one_rotation_is_proved():
    _, status = verdicts("rope:dim=16,base=10000")
    assert status[THEOREM] == "proved"


@pytest.mark.parametrize("scaling", ["scaling=linear,factor=4",
                                     "scaling=yarn,factor=4,original_max_position_embeddings=64",
                                     "scaling=llama3,factor=8,original_max_position_embeddings=64"])
def test_static_rules_are_proved(scaling):
    _, status = verdicts(f"rope:dim=16,base=10000,{scaling}")
    assert status[THEOREM] == "proved"


@pytest.mark.parametrize(("long_factor", "status"), [
    ("1;1;1;1", "proved"),                         # short = long: one rotation
    ("1;1;1;1+1/10**30", "refuted"),               # one pair off by 10^-30: certified
    ("1;1;2;4", "refuted"),
])
def test_longrope_switch_from_both_sides(long_factor, status):
    spec = (f"rope:dim=8,base=10000,scaling=longrope,short_factor=1;1;1;1,"
            f"long_factor={long_factor},original_max_position_embeddings=64")
    report, got = verdicts(spec)
    assert got[THEOREM] == status
    if status == "refuted":
        assert report[THEOREM].evidence.audit.status == "confirmed"
        assert report[THEOREM].counterexample["pair"] == 3


def test_cli(capsys):
    assert main(["prove", DYNAMIC, "--theorem", THEOREM]) == 1
    out = capsys.readouterr().out
    assert "refuted" in out
    assert "counterexample" in out
    assert main(["prove", "rope:dim=16,base=10000", "--theorem", THEOREM]) == 0
    capsys.readouterr()
    assert main(["prove", "vaswani:dim=8", "--theorem", THEOREM]) == 2
    assert "rotary spec" in capsys.readouterr().err
    assert main(["prove", DYNAMIC, "--theorem", THEOREM, "--theorem", "norm"]) == 2


def test_undecided_frequencies_are_not_proved_equal(monkeypatch):
    """A pair whose frequencies before and after the switch are certified neither equal nor
    different leaves the theorem unknown, never proved (issue 29 item 6 mutant)."""
    from posproof.proofs import cache_consistency

    monkeypatch.setattr(cache_consistency, "compare", lambda a, b: None)
    rot = parse_spec("rope:dim=16,base=10000,scaling=dynamic,factor=2,"
                     "original_max_position_embeddings=64")
    proof = cache_consistency.prove_cache_consistency(rot)["cache-consistency"]
    assert proof.status == "unknown"
    assert "could not be certified" in proof.note
