"""What the docs say is what the commands do (issue 13, section 4): the positions a check
samples, the period a proof prints, the hints of identify and check-impl."""

from __future__ import annotations

import re

import pytest

from posproof import check, preset
from posproof.cli import main

THEORY = __import__("pathlib").Path(__file__).resolve().parent.parent / "docs" / "theory.md"


def run(argv, capsys):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


# --------------------------------------------------------------------------- check --max-len
@pytest.mark.parametrize("length", [2, 3, 17, 1000])
@pytest.mark.parametrize("offset", [0, 1])
def test_translation_residual_stays_within_max_len(length, offset):
    """Its pairs x < x + Δ are positions of rows 0 … L−1 (offset included), as --max-len says."""
    enc = preset("vaswani", dim=16, offset=offset)
    values = check(enc, max_len=length, checks=["translation_residual"])[
        "translation_residual"].values
    assert values["pairs"] == 8
    assert offset + 1 <= values["position_max"] <= offset + length - 1
    assert values["x_max"] < values["position_max"]
    assert values["delta_max"] <= length - 1


def test_check_cli_names_the_positions_it_sampled(capsys):
    status, out, _ = run(["check", "--preset", "vaswani", "--dim", "16", "--check",
                          "translation_residual", "--max-len", "1000"], capsys)
    assert status == 0
    top = int(re.search(r"random pairs x < x\+Δ ≤ (\d+)", out).group(1))
    assert 500 <= top <= 999


def test_one_position_has_nothing_to_translate():
    c = check(preset("vaswani", dim=8), max_len=1, checks=["translation_residual"])[
        "translation_residual"]
    assert c.status == "pass"
    assert c.values["pairs"] == 0


# --------------------------------------------------------------------------- prove's period
def test_theory_md_cites_the_period_the_command_prints(capsys):
    """docs/theory.md cites `prove --preset binary --dim 16 --theorem periodicity` for 512."""
    text = " ".join(THEORY.read_text(encoding="utf-8").split())
    cited = re.search(r"\((\d+) at \$d = 16\$: `posproof prove --preset binary --dim 16 "
                      r"--theorem periodicity`\)", text)
    assert cited, "the citation in docs/theory.md moved: update this test"
    status, out, _ = run(["prove", "--preset", "binary", "--dim", "16", "--theorem",
                          "periodicity"], capsys)
    assert status == 0
    assert f"exact period {cited.group(1)}:" in out


@pytest.mark.parametrize(("argv", "shown"), [
    (["--preset", "vaswani", "--dim", "16", "--theorem", "periodicity"], "aperiodic:"),
    (["--preset", "binary", "--dim", "8", "--claim-period", "64"], "period 64:"),
    (["--preset", "binary", "--dim", "8", "--theorem", "periodicity"], "exact period 32:"),
])
def test_prove_prints_what_the_period_proof_established(argv, shown, capsys):
    status, out, _ = run(["prove", *argv], capsys)
    assert status == 0
    assert shown in out
