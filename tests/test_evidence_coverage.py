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


# --------------------------------------------------------------------------- every family
#: Per family, SPECs with options that reach every check kind and the edge branches (one
#: position, an encoding without (sin, cos) pairs, a grid sampled and one measured whole).
WALK = {
    "vaswani": [("vaswani:dim=16,base=10000", {"length": 256}),
                ("vaswani:dim=16,base=10000", {"length": 3000}),
                ("vaswani:dim=16", {"length": 1}),
                ("sine-only:dim=16", {"length": 64}),
                ("binary:dim=16", {"length": 64})],
    "rope": [("rope:dim=16,base=10000", {"length": 256})],
    "sincos-2d": [("sincos-2d:dim=16,grid=4x4", {}), ("sincos-2d:dim=16,grid=1x1", {}),
                  ("sincos-2d:dim=8,grid=128x128", {})],
    "mrope": [("mrope:dim=16,base=10000,sections=2;3;3,grid=2x4x4", {})],
    "axial-rope": [("axial-rope:axes_dims=4;4;8,base=10000,grid=2x4x4", {})],
    "alibi": [("alibi:heads=8", {}), ("alibi:heads=8", {"length": 2, "dtypes": ["float16"]})],
    "t5": [("t5:buckets=32,max_distance=128", {})],
    "xpos": [("xpos:dim=16", {})],
}


def _walk():
    for family, cases in WALK.items():
        for spec, options in cases:
            yield family, spec, check(spec, **options)


def test_the_walk_covers_every_family_and_every_check_kind():
    from posproof.measure.checks import CHECKS
    from posproof.measure.multiaxis import GRID_CHECKS
    from posproof.model.families import FAMILIES

    assert set(WALK) == set(FAMILIES)
    seen = {(family, c.name) for family, _, report in _walk() for c in report.checks}
    for family in ("vaswani", "rope"):
        assert {name for f, name in seen if f == family} == set(CHECKS)
    for family in ("sincos-2d", "mrope", "axial-rope"):
        assert {name for f, name in seen if f == family} == set(GRID_CHECKS)


def test_every_check_of_every_family_carries_evidence_the_audit_reads():
    """Each Check has evidence that the audit looked at: numeric items it decided, or a
    stated reason why there are none (never a silent "nothing to audit")."""
    problems = []
    for _family, spec, report in _walk():
        for c in report.checks:
            ev = c.evidence
            where = f"{spec} {c.name} ({c.status})"
            if ev is None:
                problems.append(f"{where}: no evidence")
                continue
            if ev.audit is None:
                problems.append(f"{where}: not audited")
            elif not ev.items and not ev.unaudited:
                problems.append(f"{where}: no item and no reason ({ev.method})")
            elif ev.items and ev.audit.status != "confirmed" and c.status != "unknown":
                problems.append(f"{where}: audit {ev.audit.status} on a {c.status}")
            if c.status == "unknown":
                assert c.note, where
        summary = report.audit_summary()
        assert summary["without evidence"] == summary["not audited"] == 0, (spec, summary)
    assert not problems, "\n".join(problems)


def test_a_check_over_part_of_the_cases_is_labelled_sampled():
    for _family, spec, report in _walk():
        for c in report.checks:
            ev = c.evidence
            if c.status == "pass" and ev.coverage == "sample" and ev.covered < ev.total:
                assert c.label.startswith("pass (sampled: "), (spec, c.name, c.label)
                assert c.to_dict()["sampled"] == {"covered": ev.covered, "total": ev.total}


def test_grid_bounds_measures_a_small_grid_whole_and_labels_a_large_one_sampled():
    whole = check("sincos-2d:dim=768,grid=16x16")["bounds"]
    assert whole.evidence.coverage == "all"
    assert whole.evidence.covered == whole.evidence.total == whole.values["rows"] == 256
    assert whole.label == "pass"
    big = check("sincos-2d:dim=8,grid=128x128")["bounds"]
    assert big.evidence.coverage == "sample"
    assert big.evidence.covered == big.values["rows"] < big.evidence.total == 128 * 128
    assert big.label == f"pass (sampled: {big.values['rows']} of 16384 grid rows)"
    # the translation residual looks at 8 pairs: it says so
    tr = check("sincos-2d:dim=16,grid=16x16")["translation_residual"]
    assert tr.label == "pass (sampled: 8 of 18496 pairs (p, p+Δ))"


def test_grid_check_cli_prints_the_audit_count_and_the_sampled_label(capsys):
    from posproof.cli.app import main

    assert main(["check", "sincos-2d", "--grid", "16,16"]) == 0
    out = capsys.readouterr().out
    verdict = next(line for line in out.splitlines() if line.startswith("verdict:"))
    assert "audit (python-flint arb): 3 confirmed, 1 nothing to audit" in verdict
    assert "(1 on a sample)" in verdict
    assert "pass (sampled: 8 of 18496 pairs" in out
    assert "on all 256 grid rows" in out


def test_grid_evidence_is_refuted_when_the_table_is_not_what_it_says(monkeypatch):
    """The grid items are real: the same check on a table whose rows the audit recomputes
    differently comes back unknown, not pass."""
    from posproof.measure import multiaxis

    real = multiaxis._exact

    def shifted(value):
        return real(value) + sp.Rational(1, 1000)

    monkeypatch.setattr(multiaxis, "_exact", shifted)
    report = check("sincos-2d:dim=16,grid=4x4", checks=["bounds", "translation_residual"])
    assert [c.status for c in report.checks] == ["unknown", "unknown"]
    assert all(c.evidence.audit.status == "refuted" for c in report.checks)


def test_grid_fail_carries_the_sign_it_rests_on():
    import numpy as np

    from posproof.measure.multiaxis import check_grid
    from posproof.model.multiaxis import multi_preset

    enc = multi_preset("sincos-2d", dim=8)
    table = enc.table(enc.grid((4, 4)))
    table[5, 3] = 1.5
    report = check_grid(enc, (4, 4), table=table, checks=["bounds"])
    from posproof.audit import audit_report

    audit_report(report)
    c = report["bounds"]
    assert c.status == "fail"
    assert c.evidence.items[0].relation == "positive"
    assert c.evidence.audit.status == "confirmed"
    table[5, 3] = np.float64(0.5)          # a wrong entry within 1: the norm fails instead
    c = audit_report(check_grid(enc, (4, 4), table=table, checks=["bounds"]))["bounds"]
    assert c.status == "fail"
    assert "‖PE" in c.evidence.items[1].label
    assert c.evidence.audit.status == "confirmed"


def test_explain_verdict_lines_carry_the_audit_clause(capsys, tmp_path):
    import json

    from posproof.cli.app import main

    cfg = tmp_path / "config.json"
    cfg.write_text(json.dumps({"model_type": "llama", "rope_theta": 10000, "hidden_size": 64,
                               "num_attention_heads": 4, "max_position_embeddings": 256}))
    t5 = tmp_path / "t5.json"
    t5.write_text(json.dumps({"model_type": "t5", "relative_attention_num_buckets": 32,
                              "relative_attention_max_distance": 128}))
    bloom = tmp_path / "bloom.json"
    bloom.write_text(json.dumps({"model_type": "bloom", "n_head": 16}))
    for args in (["explain", str(cfg)], ["explain", "--xpos", "16"], ["explain", str(t5)],
                 ["explain", str(bloom)]):
        assert main(args) == 0, args
        out = capsys.readouterr().out
        verdict = next(line for line in out.splitlines() if line.startswith("verdict:"))
        assert "; audit (python-flint arb): " in verdict, (args, verdict)
        assert " confirmed" in verdict


def test_every_theorem_of_every_family_has_items_or_says_why_not():
    from posproof.families import prove

    problems = []
    for family, cases in WALK.items():
        spec = cases[0][0]
        for p in prove(spec).theorems:
            ev = p.evidence
            if p.status == "unknown":
                continue
            if ev is None or ev.audit is None:
                problems.append(f"{family} {p.name}: no audited evidence")
            elif not ev.items and not ev.unaudited:
                problems.append(f"{family} {p.name}: no item and no reason ({ev.method})")
    assert not problems, "\n".join(problems)


def test_grid_table_fails_carry_what_they_rest_on():
    """A user's grid table: a wrong axis fails translation with a certified sign the audit
    confirms; a repeated row fails separation on an exact comparison, and says so."""
    from posproof.audit import audit_report
    from posproof.measure.multiaxis import check_grid
    from posproof.model.multiaxis import multi_preset

    enc = multi_preset("sincos-2d", dim=8)
    swapped = multi_preset("sincos-2d", dim=8, first="row").table(enc.grid((4, 4)))
    c = audit_report(check_grid(enc, (4, 4), table=swapped,
                                checks=["translation_residual"]))["translation_residual"]
    assert c.status == "fail"
    (item,) = c.evidence.items
    assert item.relation == "positive"
    assert c.evidence.audit.status == "confirmed"
    table = enc.table(enc.grid((4, 4)))
    table[5] = table[6]
    c = audit_report(check_grid(enc, (4, 4), table=table, checks=["separation"]))["separation"]
    assert c.status == "fail"
    assert not c.evidence.items
    assert "equal as float64 numbers" in c.evidence.unaudited
    assert c.evidence.unaudited in c.evidence.audit.detail


def test_evidence_without_items_reports_its_reason_through_the_audit():
    from posproof.evidence import Evidence

    ev = Evidence("exact integers", unaudited="bucket indices compared as integers")
    result = audit(ev)
    assert result.status == "nothing to audit"
    assert result.detail == "exact integers: bucket indices compared as integers"
    assert ev.to_dict()["unaudited"] == "bucket indices compared as integers"
