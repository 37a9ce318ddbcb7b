"""``identify``'s verdict line carries the audit clause every command prints (issue 29 item
3): a match rests on its worst entry against the fitted encoding's exact value, a Sign the
independent audit recomputes; a match whose evidence the audit refutes is no match; an array
without a number to re-check says so ("nothing to audit"). docs/guide.md quotes real verdict
lines."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

import posproof
from posproof.cli.app import main
from posproof.model.multiaxis import multi_preset
from posproof.model.xpos import XPos
from posproof.testing.core import audited as core_audited
from posproof.testing.identification import identify

ROOT = Path(__file__).resolve().parents[1]
TABLE = posproof.preset("vaswani", dim=32).table(256)
GRID = multi_preset("sincos-2d", dim=16)


def _verdict(capsys) -> str:
    out = capsys.readouterr().out.strip().splitlines()
    return out[-1]


def test_identify_verdict_line_carries_the_audit_clause(tmp_path, capsys):
    path = tmp_path / "pe.npy"
    np.save(path, TABLE)
    assert main(["identify", str(path)]) == 0
    assert _verdict(capsys) == ("verdict: OK — arrays 1/1 identified; audit (python-flint "
                                "arb): 1 confirmed")
    grid = tmp_path / "grid.npy"
    np.save(grid, GRID.table(GRID.grid((8, 8))))
    assert main(["identify", str(grid), "--grid", "8,8"]) == 0
    assert _verdict(capsys).endswith("; audit (python-flint arb): 1 confirmed")


def test_an_unmatched_array_says_there_is_nothing_to_audit(tmp_path, capsys):
    path = tmp_path / "two.npz"
    rng = np.random.default_rng(0)
    np.savez(path, pe=TABLE, noise=rng.uniform(-1, 1, (64, 8)))
    assert main(["identify", str(path)]) == 0
    assert _verdict(capsys).endswith("arrays 1/2 identified; audit (python-flint arb): "
                                     "1 confirmed, 1 nothing to audit")


def test_the_other_identify_paths_print_the_clause_too(tmp_path, capsys):
    path = tmp_path / "zeta.npy"
    np.save(path, np.array([float(z) for z in XPos(8).zetas()], dtype=np.float32))
    assert main(["identify", str(path), "--xpos"]) == 0
    assert "; audit (python-flint arb): 0 confirmed, 1 nothing to audit" in _verdict(capsys)


def test_a_match_rests_on_a_sign_the_audit_confirms():
    found = identify(TABLE)
    assert found.matched
    (item,) = found.evidence.items
    assert "tolerance − |impl − exact|" in item.label
    assert found.evidence.audit.status == "confirmed"
    grid = identify(GRID.table(GRID.grid((8, 8))), grid=(8, 8))
    assert grid.matched
    assert grid.evidence.audit.status == "confirmed"
    assert "position (7, 7)" in grid.evidence.items[0].label     # exact table: the farthest


def test_a_lying_value_makes_the_match_no_match(monkeypatch, tmp_path, capsys):
    real = core_audited.entry_sign

    def lying(where, exact, impl, tolerance, within):
        return real(where, exact, impl + 1.0, tolerance, within)

    monkeypatch.setattr(core_audited, "entry_sign", lying)
    found = identify(TABLE)
    assert not found.matched
    assert found.evidence.audit.status == "refuted"
    assert found.summary.startswith("not confirmed: the independent audit")
    path = tmp_path / "pe.npy"
    np.save(path, TABLE)
    assert main(["identify", str(path)]) == 1
    verdict = _verdict(capsys)
    assert verdict.startswith("verdict: CHECK FAILED — arrays 0/1 identified")
    assert "1 refuted" in verdict


def test_the_guide_quotes_real_verdict_lines(tmp_path, capsys, monkeypatch):
    """docs/guide.md's verdict examples are what the commands print (timing left out)."""
    guide = (ROOT / "docs" / "guide.md").read_text(encoding="utf-8")
    shown = dict(re.findall(r"`posproof ([a-z]+ [\w.]+)` (?:ends )?with\s+`(verdict: [^`]+)`",
                            guide))
    assert set(shown) == {"verify vaswani", "identify pe.npy"}, shown
    monkeypatch.chdir(tmp_path)
    np.save(tmp_path / "pe.npy", TABLE)
    for command, line in shown.items():
        main(command.split())
        printed = _verdict(capsys)
        assert re.sub(r" \(\d+(\.\d+)? s\)$", "", printed) == line, command
