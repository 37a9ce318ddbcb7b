"""Every Check of every family carries evidence the independent audit reads (issue 29 §3):
numeric items the auditor re-checks, or an explicit statement of why there are none; an
undecided check is ``unknown`` (never ``fail``), and a check that looked at part of the
cases says so (sampled)."""

from __future__ import annotations

import sympy as sp

from posproof.audit import audit
from posproof.families import check
from posproof.measure import xpos as xpos_measure
from posproof.model.xpos import XPos


def test_xpos_scale_limits_carry_certified_signs_the_audit_confirms():
    report = check("xpos:dim=16")
    assert [c.status for c in report.checks] == ["pass"] * 3
    for c in report.checks:
        assert c.evidence is not None
        assert len(c.evidence.items) == 4
        assert c.evidence.audit.status == "confirmed", c.evidence.audit
    assert report.audit_summary()["confirmed"] == 3


def test_xpos_planted_wrong_limit_is_refuted_by_the_audit(monkeypatch):
    real = xpos_measure.xpos_scale_limits

    def off_by_one(xp, dtypes=("float32", "float16", "bfloat16")):
        rows = real(xp, dtypes)
        for r in rows:
            r["overflow_position"] += 1
        return rows

    monkeypatch.setattr(xpos_measure, "xpos_scale_limits", off_by_one)
    report = check("xpos:dim=16")
    assert {c.status for c in report.checks} == {"unknown"}
    assert all(c.evidence.audit.status == "refuted" for c in report.checks)


def test_xpos_undecided_limit_is_unknown_not_fail(monkeypatch):
    monkeypatch.setattr(xpos_measure, "_first_integer_above", lambda *a: None)
    report = check("xpos:dim=16")
    assert [c.status for c in report.checks] == ["unknown"] * 3
    assert all("not decided" in c.note for c in report.checks)
    assert not report.refuted
    # the direct spelling of the command line too
    rows = xpos_measure.xpos_scale_checks(XPos(16), ["float16"])
    assert rows[0].status == "unknown"


def test_xpos_signs_place_the_limit_between_p_minus_1_and_p():
    c = xpos_measure.xpos_scale_checks(XPos(64), ["float16"])[0]
    lower, upper = c.evidence.items[:2]
    bound = lower.expr + (c.values["overflow_position"] - 1)
    assert sp.floor(sp.N(bound, 50)) + 1 == c.values["overflow_position"] == 4533
    assert audit(c.evidence).status == "confirmed"
    assert upper.relation == lower.relation == "positive"
