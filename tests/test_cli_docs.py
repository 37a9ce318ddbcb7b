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




# --------------------------------------------------------------------------- issue 27 §7
ROOT = THEORY.parent.parent


def test_a_refutation_names_its_real_method(capsys):
    """prove --alibi --heads 12 printed "(mpmath, None digits)": an exact refutation says so."""
    status, out, _ = run(["prove", "--alibi", "--heads", "12"], capsys)
    assert status == 1
    line = next(x for x in out.splitlines() if "alibi:geometric" in x)
    assert line.endswith("(exact rationals)"), line
    assert "None" not in out
    status, out, _ = run(["prove", "--preset", "sine-only", "--dim", "8"], capsys)
    assert "(interval arithmetic, certified)" in out
    assert "digits)" not in out


@pytest.mark.parametrize(("first", "shown"), [("column", "columns 0–7 encode col, 8–15 row"),
                                               ("row", "columns 0–7 encode row, 8–15 col")])
def test_the_multi_axis_header_says_which_columns_each_axis_drives(first, shown, capsys):
    """check --preset sincos-2d printed only `axes=row,col`, while MAE's first half encodes the
    column: the header says which columns each axis drives, as identify finds them."""
    from posproof.model.multiaxis import multi_preset
    from posproof.testing.identification import identify

    status, out, _ = run(["check", "--preset", "sincos-2d", "--dim", "16", "--grid", "4,4",
                          "--first", first], capsys)
    assert status == 0
    header = out.splitlines()[1]
    assert header.endswith(shown), header
    assert "position=(row, col)" in header
    enc = multi_preset("sincos-2d", dim=16, first=first)
    found = identify(enc.table(enc.grid((8, 8))), grid=(8, 8)).summary
    axis = "column" if first == "column" else "row"
    assert f"columns 0–7 encode the {axis}" in found, found


def test_mrope_header_lists_the_split_columns_of_each_axis(capsys):
    status, out, _ = run(["check", "--preset", "mrope", "--dim", "16", "--mrope-section",
                          "2,3,3", "--grid", "2,3,4"], capsys)
    assert status == 0
    assert out.splitlines()[1].endswith("columns 0–1,8–9 encode t, 2–4,10–12 h, 5–7,13–15 w")


def test_frequencies_are_printed_as_typed_and_kept_exact_in_json(capsys):
    argv = ["check", "--preset", "explicit", "--frequencies", "1, pi-1+10**-45", "--dim", "4",
            "--max-len", "2", "--check", "decay"]
    status, out, _ = run(argv, capsys)
    assert status == 0
    assert "frequencies=1, pi-1+10**-45," in out.splitlines()[1]
    assert "999999" not in out
    status, out, _ = run([*argv, "--json"], capsys)
    import json

    import sympy as sp

    exact = json.loads(out)["encoding"]["schedule"]["frequencies"].split(", ")[1]
    assert sp.simplify(sp.sympify(exact) - (sp.pi - 1 + sp.Rational(1, 10**45))) == 0


def test_one_spelling_for_check_and_dtype_on_every_command(capsys):
    """--check a,b = --check a --check b = --checks a,b (the old spelling); --dtypes = --dtype."""
    import json

    def checks(*argv):
        status, out, _ = run(["check", "--dim", "8", "--max-len", "64", *argv, "--json"], capsys)
        assert status == 0
        data = json.loads(out)
        return [c["name"] for c in data["checks"]]

    wanted = ["separation", "decay"]
    assert sorted(checks("--check", "decay,separation")) == sorted(wanted)
    assert sorted(checks("--check", "decay", "--check", "separation")) == sorted(wanted)
    assert sorted(checks("--checks", "decay,separation")) == sorted(wanted)
    one = checks("--check", "dtype_audit", "--dtype", "float16")
    assert one == checks("--check", "dtype_audit", "--dtypes", "float16") == ["dtype_audit"]
    status, _, err = run(["check", "--check", "decay,", "--max-len", "8"], capsys)
    assert status == 2
    assert err.count("\n") == 1
    from posproof.cli.app import make_parser

    sub = next(a for a in make_parser()._actions if getattr(a, "choices", None)).choices
    for command, canonical, old in (("check", "--check", "--checks"),
                                    ("verify", "--check", "--checks"),
                                    ("check-model", "--check", "--checks"),
                                    ("check", "--dtype", "--dtypes"),
                                    ("explore", "--dtype", "--dtypes")):
        action = next(a for a in sub[command]._actions if canonical in a.option_strings)
        assert old in action.option_strings, (command, action.option_strings)
        assert action.option_strings.index(canonical) < action.option_strings.index(old)


def test_every_length_option_states_its_default():
    """--length defaults differ by command (10⁶, 8192, 4096, the config's, 64): each --help
    says which."""
    from posproof.cli.app import make_parser

    sub = next(a for a in make_parser()._actions if getattr(a, "choices", None)).choices
    seen = 0
    for name, parser in sub.items():
        for action in parser._actions:
            if "--length" in action.option_strings or "--max-position" in action.option_strings:
                assert "default" in (action.help or ""), (name, action.help)
                seen += 1
    assert seen >= 7
    impl = sub["check-impl"]
    dtype = next(a for a in impl._actions if "--dtype" in a.option_strings).help
    assert "--rotary" in dtype
    assert "default float32" in dtype


def test_explore_base_bound_computes_the_base_bound_alone(capsys):
    """"What base do I need for L?" explore --base-bound answers it and nothing else."""
    import json

    argv = ["explore", "rope:base=10000,dim=16", "--length", "256", "--base-bound"]
    status, out, _ = run([*argv, "--json"], capsys)
    assert status == 0
    data = json.loads(out)
    assert data["theorems"] == []
    numbers = data["encodings"][0]["numbers"]
    assert "first_negative" not in numbers
    assert "decay" not in numbers
    assert numbers["base_ok"] in ("yes", "no")
    assert data["base_bounds"]["16"]["undecided"] == 0
    status, out, _ = run(argv, capsys)
    assert "fp16 max phase err" not in out
    assert "base bound (geom.)" in out
    assert "the base bound of 1 encoding(s), nothing else computed" in out
    status, out, _ = run(argv[:4], capsys)                 # without it: everything else
    assert "fp16 max phase err" in out
    assert "base bound (geom.)" in out
    status, _, err = run([*argv, "--plot", "x.png"], capsys)
    assert status == 2
    assert "--plot" in err
