"""What the docs say is what the commands do (issue 13, section 4): the positions a check
samples, the period a proof prints, the hints of identify and check-impl."""

from __future__ import annotations

import re

import pytest

from posproof import check, preset
from posproof.cli.app import main

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


# --------------------------------------------------------------------------- identify FILE.npz
def _vaswani_table(rows=64, dim=16):
    return preset("vaswani", dim=dim).table(rows)


def test_identify_npz_names_each_array_skips_the_small_ones_and_reports_the_rest(
        tmp_path, capsys):
    import numpy as np

    path = tmp_path / "pe.npz"
    np.savez(path, pe=_vaswani_table(), small=np.ones((3, 16)), ids=np.arange(5))
    status, out, err = run(["identify", str(path)], capsys)
    assert status == 0, err
    assert "[pe]" in out
    assert "matches vaswani" in out
    assert re.search(r"skipped \[small\]: .*3 rows", out)
    assert re.search(r"skipped \[ids\]: shape \(5,\), dtype int64", out)
    status, out, _ = run(["identify", str(path), "--json"], capsys)
    import json

    data = json.loads(out)
    assert [c["name"] for c in data["checks"]] == ["identify[pe]"]
    assert {s["name"] for s in data["skipped"]} == {"small", "ids"}


def test_identify_with_only_unusable_arrays_names_them(tmp_path, capsys):
    import numpy as np

    path = tmp_path / "bad.npz"
    np.savez(path, small=np.ones((3, 16)))
    status, _, err = run(["identify", str(path)], capsys)
    assert status == 2
    assert "'small'" in err
    assert "3 rows" in err
    assert "Traceback" not in err


def test_identify_reads_a_tutorial_buffer_as_its_squeeze(tmp_path, capsys):
    import numpy as np

    path = tmp_path / "pe.npy"
    np.save(path, _vaswani_table()[:, None, :])
    status, out, _ = run(["identify", str(path)], capsys)
    assert status == 0
    assert "shape (64, 1, 16) read as (64, 16)" in out
    assert "matches vaswani" in out


# --------------------------------------------------------------------------- check-impl hints
def _module(tmp_path, body: str) -> str:
    path = tmp_path / "impl_under_test.py"
    path.write_text("import numpy as np\n" + body)
    return str(path)


def test_a_tutorial_buffer_is_refused_with_squeeze_suggested(tmp_path, capsys):
    import numpy as np

    from posproof.errors import InvalidParameter
    from posproof.testing import assert_encoding

    buffer = _vaswani_table()[:, None, :]
    with pytest.raises(InvalidParameter, match=r"\(64, 1, 16\).*pass table\.squeeze\(1\)"):
        assert_encoding(buffer, "vaswani")
    assert_encoding(np.squeeze(buffer, 1), "vaswani")          # the suggestion works
    module = _module(tmp_path, "import posproof\nT = posproof.preset('vaswani', dim=16)"
                               ".table(64)[:, None, :]\n")
    status, _, err = run(["check-impl", f"{module}:T"], capsys)
    assert status == 2
    assert ".squeeze(1)" in err


def test_check_impl_explains_its_score_and_counts_positions_in_english(tmp_path, capsys):
    module = _module(tmp_path, "import posproof\nT = posproof.preset('vaswani', dim=16)"
                               ".table(65)[1:]\n")
    status, out, _ = run(["check-impl", f"{module}:T", "--preset", "vaswani"], capsys)
    assert status == 1
    assert "score=" not in out
    ratio = float(re.search(r"error/tolerance=([0-9.e+]+)", out).group(1))
    assert ratio > 1
    assert "a check passes when it is ≤ 1" in out
    assert "offset by 1 position:" in out
    assert "1 positions" not in out


def test_pairs_with_inverted_frequencies_are_described_not_called_random(tmp_path, capsys):
    """A table built with base ** (+2i/d) (multiplied instead of divided): a confirmed sign bug."""
    module = _module(tmp_path, (
        "pos = np.arange(256)[:, None]\n"
        "w = 10000.0 ** (np.arange(0, 16, 2) / 16)\n"
        "T = np.zeros((256, 16))\n"
        "T[:, 0::2] = np.sin(pos * w)\n"
        "T[:, 1::2] = np.cos(pos * w)\n"))
    status, out, _ = run(["check-impl", f"{module}:T", "--preset", "vaswani"], capsys)
    assert status == 1
    assert "random" not in out
    assert "multiplied by the base instead of divided" in out
    assert "— confirmed: regenerating with ω_k = b^(+2k/d)" in out


def test_pairs_at_unusual_speeds_are_described_when_nothing_is_confirmed(tmp_path, capsys):
    """Valid (sin, cos) pairs at speeds no schedule gives: described, never 'a random table'."""
    module = _module(tmp_path, (
        "pos = np.arange(256)[:, None]\n"
        "w = np.array([0.91, 0.37, 2.3, 0.011, 1.7, 0.53, 0.0029, 0.77])\n"
        "T = np.zeros((256, 16))\n"
        "T[:, 0::2] = np.sin(pos * w)\n"
        "T[:, 1::2] = np.cos(pos * w)\n"))
    status, out, _ = run(["check-impl", f"{module}:T", "--preset", "vaswani"], capsys)
    assert status == 1
    assert "random" not in out
    assert "no explanation confirmed" in out
    assert "valid (sin, cos) pairs" in out
    assert "0.91, 0.37, 2.3" in out


