"""Every check of ``check_rotary`` carries evidence the audit re-checks (issue 29 item 3): not
only ``matches_spec`` but ``relative_property``, ``norm_preservation`` and ``convention``,
each counted in the verdict line's audit clause; a lying value is refuted and turns that
check unknown. Norm preservation under a declared angle dtype is judged by that dtype's
rounding model, stated in the report (item 1b)."""

from __future__ import annotations

import numpy as np
import pytest

import posproof
from posproof.cli.testing import main as cli_main
from posproof.testing import check_rotary
from posproof.testing.core import audited as core_audited
from posproof.testing.core.arrays import dtype_eps
from posproof.testing.rope import check as rope_check

ROT = posproof.rotary(10000, 16, layout="half")
SUB = ("relative_property", "norm_preservation", "convention")


def _flipped(x, p):
    return ROT.apply(x, -np.asarray(p))


@pytest.mark.parametrize(("fn", "statuses"), [
    (ROT.apply, ["pass"] * 4),
    (_flipped, ["fail", "pass", "pass", "fail"]),
], ids=["correct", "flipped"])
def test_every_rotary_check_carries_evidence_the_audit_confirms(fn, statuses):
    report = check_rotary(fn, head_dim=16)
    assert [c["status"] for c in report.checks] == statuses
    assert set(report.check_evidence) == set(SUB)
    for name in SUB:
        ev = report.check_evidence[name]
        assert ev.items, name
        assert ev.audit is not None, name
        assert ev.audit.status == "confirmed", (name, ev.audit)
    counts = core_audited.audit_counts(report)
    assert counts["evidence"] == counts["confirmed"] == 4
    # the JSON form carries each check's evidence
    checks = report.to_dict()["checks"]
    assert all(c["evidence"]["audit"]["status"] == "confirmed" for c in checks[1:])


def test_flipped_direction_rests_on_a_negative_sign():
    ev = check_rotary(_flipped, head_dim=16).check_evidence["convention"]
    (item,) = ev.items
    assert item.relation == "negative"
    assert "opposite direction" in item.label


def test_a_sampled_relative_property_says_so():
    report = check_rotary(ROT.apply, head_dim=16)
    named = {c["name"]: c for c in report.checks}
    for name in ("relative_property", "norm_preservation"):
        assert named[name]["label"].startswith("pass (sampled: 16 of "), named[name]
        assert report.check_evidence[name].coverage == "sample"


def _lying(real):
    """entry_sign recording a wrong value for every check but matches_spec (labelled
    "R(m)·e_b channel c")."""
    def wrong(where, exact, impl, tolerance, within):
        if not where.startswith("R("):
            impl = impl + 1.0
        return real(where, exact, impl, tolerance, within)
    return wrong


def test_a_lying_value_in_a_further_check_is_refuted(monkeypatch):
    monkeypatch.setattr(rope_check, "entry_sign", _lying(core_audited.entry_sign))
    report = check_rotary(ROT.apply, head_dim=16)
    status = {c["name"]: c["status"] for c in report.checks}
    assert status == {"matches_spec": "pass", "relative_property": "unknown",
                      "norm_preservation": "unknown", "convention": "unknown"}
    assert not report.ok
    assert report.status == "unknown"
    assert all(report.check_evidence[n].audit.status == "refuted" for n in SUB)
    assert report.message.startswith("unknown: the independent audit")
    counts = core_audited.audit_counts(report)
    assert (counts["confirmed"], counts["refuted"]) == (1, 3)


def test_check_impl_counts_every_check_in_the_audit_clause(tmp_path, capsys):
    path = tmp_path / "impls.py"
    path.write_text("import posproof\nROT = posproof.rotary(10000, 16)\n"
                    "def apply(x, p):\n    return ROT.apply(x, p)\n")
    assert cli_main(["check-impl", f"{path}:apply", "--rotary", "--dim", "16"]) == 0
    verdict = capsys.readouterr().out.strip().splitlines()[-1]
    assert "checks 4/4 pass; audit (python-flint arb): 4 confirmed" in verdict


# --------------------------------------------------- norm preservation under declared angles
def _low_trig(angles: str, factor: float = 1.0):
    """A rotary whose angles, cos and sin are formed in ``angles`` (HF's cast of cos and sin
    to the model dtype), output float32, times ``factor``."""
    import torch

    dt = getattr(torch, angles)
    half = 8

    def apply(x, p):
        inv = (1.0 / 10000 ** (torch.arange(0, 16, 2, dtype=torch.float32) / 16)).to(dt)
        ang = torch.outer(torch.as_tensor(np.asarray(p)).to(dt), inv)
        cos = torch.cat([ang.cos(), ang.cos()], -1).to(dt).float()
        sin = torch.cat([ang.sin(), ang.sin()], -1).to(dt).float()
        x = torch.as_tensor(np.asarray(x), dtype=torch.float32)
        rot = torch.cat([-x[..., half:], x[..., :half]], -1)
        return ((x * cos + rot * sin) * factor).numpy()
    return apply


@pytest.mark.parametrize("angles", ["bfloat16", "float16"])
def test_norm_preservation_under_declared_angles_follows_the_rounding_model(angles):
    pytest.importorskip("torch")
    report = check_rotary(_low_trig(angles), head_dim=16, angles=angles, max_position=256)
    norm = next(c for c in report.checks if c["name"] == "norm_preservation")
    assert norm["status"] == "pass", norm
    assert norm["tolerance"] == 64 * dtype_eps("float32") + 2 * dtype_eps(angles)
    assert f"2·eps_{angles}" in norm["tolerance_formula"]
    assert "one ulp" in norm["tolerance_formula"]
    assert report.check_evidence["norm_preservation"].audit.status == "confirmed"


@pytest.mark.parametrize(("factor", "ok"), [(0.9, True), (1.1, False)])
def test_norm_tolerance_under_declared_angles_from_both_sides(factor, ok):
    """A rotation scaled by 1 + δ: δ at 0.9 × / 1.1 × the model's norm bound passes / fails
    — the bound is the model's, no wider."""
    tol = 64 * dtype_eps("float64") + 2 * dtype_eps("bfloat16")

    def scaled(x, p):
        return ROT.apply(np.asarray(x, dtype=np.float64), p) * (1 + factor * tol)

    report = check_rotary(scaled, head_dim=16, angles="bfloat16", max_position=256,
                          dtype="float64")
    norm = next(c for c in report.checks if c["name"] == "norm_preservation")
    assert norm["tolerance"] == tol
    assert (norm["status"] == "pass") is ok
    assert report.check_evidence["norm_preservation"].audit.status == "confirmed"


def test_norm_tolerance_without_declared_angles_is_the_output_rounding():
    report = check_rotary(ROT.apply, head_dim=16)
    norm = next(c for c in report.checks if c["name"] == "norm_preservation")
    assert norm["tolerance"] == 64 * dtype_eps("float32")
    assert "eps_" not in norm["tolerance_formula"]


# ------------------------------------------------------------------ multi-axis rotary (M-RoPE)
def test_text_tokens_check_of_a_multi_axis_rotary_carries_audited_evidence(monkeypatch):
    from posproof.model.multirope import mrope
    from posproof.testing.rope import grid as rope_grid

    rot = mrope(10000, 16, [4, 2, 2])
    report = check_rotary(rot.apply, rot)
    ev = report.check_evidence["text_tokens_plain_rope"]
    (item,) = ev.items
    assert item.label.startswith("text position ")
    assert not item.label.startswith("text position 0:")     # exact everywhere: the farthest
    assert ev.audit.status == "confirmed"
    assert core_audited.audit_counts(report)["confirmed"] == 2

    def lying(where, exact, impl, tolerance, within):
        if where.startswith("text position"):
            impl = impl + 1.0
        return core_audited.entry_sign(where, exact, impl, tolerance, within)

    monkeypatch.setattr(rope_grid, "entry_sign", lying)
    report = check_rotary(rot.apply, rot)
    status = {c["name"]: c["status"] for c in report.checks}
    assert status == {"matches_spec": "pass", "text_tokens_plain_rope": "unknown"}
    assert report.status == "unknown"
