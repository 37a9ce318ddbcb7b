"""Certified numbers (kernel, decay, base bound, bands, dtypes), explore, and the CLI."""

from __future__ import annotations

import argparse
import cmath
import json
import math
import subprocess
import sys
from pathlib import Path

import mpmath
import numpy as np
import pytest
import sympy as sp

from posproof.cli import rope as cli_rope
from posproof.cli.options import Parser, encoding_options
from posproof.measure.explore import (
    band_coverage,
    base_bound,
    critical_dimension,
    decay_curve,
    dtype_audit,
    explore,
    kernel_first_negative,
)
from posproof.model.rope import rotary
from posproof.model.schedules import Geometric
from posproof.precise import mp_values

FIXTURES = Path(__file__).parent / "fixtures" / "configs"


def brute_kernel(freqs, m, dps=40):
    with mpmath.workdps(dps):
        return mpmath.fsum(mpmath.cos(w * m) for w in mp_values(freqs, dps))


# --------------------------------------------------------------------------- kernel
def test_first_negative_matches_brute_force():
    """The first m with B(m) < 0, against a plain mpmath loop."""
    freqs = Geometric(10000).frequencies(8)
    first = next(m for m in range(200) if brute_kernel(freqs, m) < 0)
    got = kernel_first_negative(freqs, 200)
    assert got["m"] == first == 91
    assert mpmath.mpf(got["value_mp"]) < 0 < mpmath.mpf(got["previous_mp"])
    assert kernel_first_negative(freqs, 90)["m"] is None


def test_decay_curve_matches_direct_sum():
    """(1/n)Σ_j |S_j| in float64 within its stated bound; extremes recomputed in mpmath."""
    freqs = Geometric(10000).frequencies(16)
    theta = [float(v) for v in mp_values(freqs, 30)]
    deltas = [0, 1, 17, 250, 9999]
    curve = decay_curve(freqs, deltas)
    for d, v in zip(deltas, curve["values"], strict=True):
        s, total = 0j, 0.0
        for w in theta:
            s += cmath.exp(1j * d * w)
            total += abs(s)
        assert abs(v - total / 8) <= curve["bound"] + 1e-13
    assert curve["at_zero"] == "9/2"
    assert curve["values"][0] == 4.5
    assert abs(float(mpmath.mpf(curve["last"]["value_mp"])) - curve["values"][-1]) <= curve["bound"]


# --------------------------------------------------------------------------- base bound
def certify_good(base, dim, length):
    freqs = Geometric(base).frequencies(dim)
    return min(brute_kernel(freqs, m, 30) for m in range(length + 1)) >= 0


def test_base_bound_interval_case_is_certified():
    """d = 32, L = 128, integer bases: one island up to the top, its start exact and certified."""
    bb = base_bound(128, 32, lowest=10, highest=1e8, integer_bases=True)
    assert bb.interval
    assert bb.undecided == 0
    assert len(bb.islands) == 1
    first = bb.bound
    assert 1000 < first < 1500
    assert bb.smallest == (first, first)
    assert certify_good(first, 32, 128)
    assert not certify_good(first - 1, 32, 128)
    assert brute_kernel(Geometric(first - 1).frequencies(32), bb.witness_m, 30) < 0


def test_base_bound_reports_a_good_set_that_is_not_an_interval():
    """d = 16, L = 256: several islands; each start and end bracket is good inside, bad outside."""
    bb = base_bound(256, 16, lowest=10, highest=1e9)
    assert not bb.interval
    assert bb.undecided == 0
    assert len(bb.islands) > 1
    assert bb.bound < bb.all_good_above == bb.threshold
    for i, island in enumerate(bb.islands):
        assert certify_good(sp.Rational(str(island.start[1])), 16, 256)
        assert certify_good(sp.Rational(str(island.end[0])), 16, 256)
        if i:   # the bases just outside an island (bracket ends) are bad
            assert not certify_good(sp.Rational(str(island.start[0])), 16, 256)
            assert brute_kernel(Geometric(sp.Rational(str(island.start[0]))).frequencies(16),
                                island.witness_below, 30) < 0
        if i + 1 < len(bb.islands):
            assert not certify_good(sp.Rational(str(island.end[1])), 16, 256)
    assert bb.all_good_above == bb.islands[-1].start[1]
    assert "NOT an interval" in bb.summary()
    assert json.dumps(bb.to_dict())


# --------------------------------------------------------------------------- bands
def test_critical_dimension_llama2():
    """Liu et al.: LLaMA 2 (d = 128, b = 10000, T = 4096) has critical dimension 92."""
    out = critical_dimension(10000, 128, 4096)
    x = 64 * math.log(4096 / (2 * math.pi)) / math.log(10000)
    assert out["d_extra"] == 2 * math.ceil(x) == 92
    assert out["pairs_covered"] == 46


def test_band_coverage():
    """Pairs whose wavelength 2π/θ_k fits in L, decided exactly."""
    out = band_coverage([1, sp.Rational(1, 100), sp.Rational(1, 1000)], 629)
    assert out["covered"] == [0, 1]
    assert out["pairs_covered"] == 2
    assert band_coverage([sp.Rational(1, 100)], 628)["covered"] == []  # 2π·100 ≈ 628.3


# --------------------------------------------------------------------------- dtypes
def test_dtype_audit_first_unrepresentable_and_overflow():
    """float16 2049 (and overflow at 65520), bfloat16 257, float32 2^24 + 1."""
    audit = dtype_audit([1, sp.Rational(1, 100)], 70000)
    assert audit["float16"]["first_unrepresentable_integer"] == 2049
    assert audit["float16"]["first_overflow_position"] == 65520
    assert audit["bfloat16"]["first_unrepresentable_integer"] == 257
    assert audit["float32"]["first_unrepresentable_integer"] == 16777217
    assert audit["float32"]["first_overflow_position"] is None


def test_dtype_phase_error_matches_a_direct_computation():
    """The worst phase error equals a direct NumPy float32 computation over all positions."""
    theta = Geometric(10000).frequencies(8)
    length = 5000
    audit = dtype_audit(theta, length, ["float32"])["float32"]
    th = np.array([float(v) for v in mp_values(theta, 30)])
    pos = np.arange(length)
    ang = (pos.astype(np.float32)[:, None] * th.astype(np.float32)[None, :]).astype(np.float64)
    err = np.abs(ang - pos[:, None] * th[None, :])
    assert float(audit["max_phase_error"]) == pytest.approx(err.max(), rel=1e-6)


# --------------------------------------------------------------------------- explore
def test_explore_compares_sinusoidal_and_rotary():
    """One sinusoidal and two rotary encodings: theorems, numbers, JSON contract."""
    from posproof import preset

    encs = [preset("vaswani", dim=16), rotary(10000, 16),
            rotary(10000, 16, scaling="dynamic", factor=2, original_max_position_embeddings=64,
                   seq_len=512)]
    ex = explore(encs, 512, dtypes=["float32", "bfloat16"])
    assert ex.ok
    data = ex.to_dict()
    assert {t["status"] for t in data["theorems"]} <= {"proved", "refuted"}
    assert all(t["expected"] for t in data["theorems"] if t["status"] == "refuted")
    assert [e["kind"] for e in data["encodings"]] == ["sinusoidal", "rotary", "rotary"]
    assert data["encodings"][1]["numbers"]["first_negative"]["m"] is not None
    table = ex.table()
    fp32 = next(line for line in table.splitlines() if line.startswith("fp32 max phase err"))
    assert "e-0" in fp32  # small errors keep their exponent in the table
    assert "rotary:relative" in table
    assert "hazard:stale_cache" in table
    assert "✗ refuted*" in table
    json.dumps(data)


def test_explore_with_base_bound_marks_bases_against_the_bound():
    """base_bounds=True: one scan per rotated dim, each encoding's base compared with it."""
    ex = explore([rotary(100, 8), rotary(10**8, 8)], 64, proofs=False, dtypes=[])
    assert ex.numbers[0].get("base_bound") is None
    ex = explore([rotary(100, 8), rotary(10**8, 8)], 64, proofs=False, dtypes=[],
                 base_bounds=True)
    assert [n["base_ok"] for n in ex.numbers] == ["no", "yes"]


def test_plot_is_written(tmp_path):
    """--plot: a PNG with the overlaid curves (matplotlib is optional)."""
    pytest.importorskip("matplotlib")
    from posproof.measure.explore import plot_exploration

    ex = explore([rotary(10000, 8), rotary(500000, 8, scaling="llama3", factor=8,
                                           original_max_position_embeddings=64)],
                 256, proofs=False, dtypes=[])
    path = plot_exploration(ex, str(tmp_path / "curves.png"))
    from matplotlib.image import imread

    from posproof.measure.explore.exploration import PLOT_DPI, _exploration_figure

    pixels = imread(path)                       # a PNG matplotlib can decode, of the size set
    assert pixels.shape[:2] == (round(4.6 * PLOT_DPI), 16 * PLOT_DPI)
    assert float(pixels[..., :3].std()) > 0.05  # not a blank canvas
    fig = _exploration_figure(ex)
    assert [ax.get_title() for ax in fig.axes] == [
        "RoFormer long-term decay (1/n)Σ|S_j|",
        "B(m)/n = (1/n)Σ cos(mθ_k) (min/max envelope)",
        "wavelength 2π/θ_k per pair (band edges dotted)"]
    assert [ax.get_xlabel() for ax in fig.axes] == ["relative distance Δ", "m", "pair k"]
    labels = [s.label for s in ex.subjects]
    for ax in fig.axes:                        # each subject's curve is in each panel's legend
        legend = [t.get_text() for t in ax.get_legend().get_texts()]
        assert [x for x in legend if x in labels] == labels
    decay = fig.axes[0].get_lines()             # the decay panel plots the computed numbers
    for line, numbers in zip(decay, ex.numbers, strict=True):
        assert np.array_equal(line.get_ydata(), numbers["decay"]["values"])
    wavelengths = [ln for ln in fig.axes[2].get_lines() if ln.get_label() in labels]
    for line, numbers in zip(wavelengths, ex.numbers, strict=True):
        assert np.allclose(line.get_ydata(), numbers["bands"]["wavelengths"])
    assert f"L = {ex.length}" in [t.get_text() for t in fig.axes[2].get_legend().get_texts()]


def test_matplotlib_is_imported_lazily():
    """Importing posproof's RoPE modules does not import matplotlib."""
    code = ("import sys, posproof, posproof.model.rope, posproof.proofs.rotary, "
            "posproof.measure.explore, posproof.cli.rope, posproof.model.configs, "
            "posproof.model.scaling; "
            "print('matplotlib' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# --------------------------------------------------------------------------- CLI
def cli(*argv):
    parser = Parser(prog="posproof")
    sub = parser.add_subparsers(dest="command", parser_class=Parser)
    cli_rope.add_commands(sub, encoding_options)
    return cli_rope.run(parser.parse_args(list(argv)))


def test_cli_explore_table_and_json(capsys):
    """explore prints the table (exit 0) or JSON with the theorems/checks contract."""
    assert cli("explore", "rope:base=10000,dim=8", "rope:base=10000,dim=8,scaling=linear,"
               "factor=2", "--length", "128", "--dtypes", "float32") == 0
    assert "rotary:relative" in capsys.readouterr().out
    assert cli("explore", "rope:base=10000,dim=8", "--length", "128", "--json",
               "--dtypes", "") == 0
    data = json.loads(capsys.readouterr().out)
    assert data["checks"] == []
    assert all({"name", "status"} <= set(t) for t in data["theorems"])


def test_cli_explore_with_encoding_options(capsys):
    """The standard encoding options add a sinusoidal encoding to the comparison."""
    assert cli("explore", "--preset", "vaswani", "--dim", "8", "rope:dim=8", "--length", "64",
               "--dtypes", "", "--json") == 0
    kinds = [e["kind"] for e in json.loads(capsys.readouterr().out)["encodings"]]
    assert kinds == ["sinusoidal", "rotary"]


def test_cli_explain_config(capsys):
    """explain prints the effective frequencies with their bands."""
    assert cli("explain", str(FIXTURES / "llama3.1-8b.json"), "--length", "8192",
               "--dtypes", "float32") == 0
    out = capsys.readouterr().out
    assert "blend" in out
    assert "rope_type=llama3" in out
    assert "0.12500" in out


def test_cli_explain_json(capsys):
    """explain --json: config, frequency rows, theorems."""
    assert cli("explain", str(FIXTURES / "pythia-160m.json"), "--json", "--dtypes", "",
               "--length", "256") == 0
    data = json.loads(capsys.readouterr().out)
    assert data["config"]["rotary_dim"] == 16
    assert len(data["frequencies"]) == 8


@pytest.mark.parametrize(("argv", "match"), [
    (["explain", str(FIXTURES / "llama2-7b.json")], "no rope_theta"),
    (["explore", "rope:bse=1"], "unknown key 'bse'"),
    (["explore"], "needs at least one SPEC"),
    (["explore", "rope:dim=8", "--dtypes", "float8"], "dtype='float8' is not known"),
    (["explain", "/nonexistent/config.json"], "cannot be read"),
])
def test_cli_bad_input_exits_2(argv, match, capsys):
    """Bad input: exit status 2 and one line on stderr, no traceback."""
    assert cli(*argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("posproof: error:")
    assert match in err
    assert "Traceback" not in err


def test_cli_malformed_json_and_default_theta(tmp_path, capsys):
    """Malformed JSON → 2; --default-theta makes a theta-less config readable (and says so)."""
    bad = tmp_path / "config.json"
    bad.write_text("{")
    assert cli("explain", str(bad)) == 2
    assert "malformed JSON" in capsys.readouterr().err
    assert cli("explain", str(FIXTURES / "llama2-7b.json"), "--default-theta", "10000",
               "--length", "256", "--dtypes", "") == 0
    assert "default_theta=10000" in capsys.readouterr().out


def test_cli_usage_errors_exit_2():
    """argparse errors go through Parser: exit status 2."""
    with pytest.raises(SystemExit) as info:
        cli("explore", "rope:dim=8", "--length", "zero")
    assert info.value.code == 2


def test_run_with_a_namespace(capsys):
    """run() also works with a hand-built Namespace."""
    args = argparse.Namespace(command="explore", specs=["rope:dim=4"], length=32, seq_len=None,
                              base_bound=False, dtypes="", plot=None, json=False, seed=0,
                              no_proofs=True, train_length=None)
    assert cli_rope.run(args) == 0
    assert "first B(m) < 0" in capsys.readouterr().out


def _value_columns(out: str) -> set[int]:
    """Where the first value starts on each row of the table (header to verdict)."""
    rows = out.split("\n\n", 1)[1].split("verdict:")[0]
    starts = set()
    for line in rows.splitlines():
        if line.strip() and not line.startswith(("*", "note", "base bound,")):
            label, gap, _ = line.partition("  ")
            assert gap, f"no two-space gap after the label: {line!r}"
            starts.add(len(line) - len(line[len(label):].lstrip(" ")))
    return starts


@pytest.mark.parametrize("argv", [
    ("explore", "rope:base=10000,dim=128", "--no-proofs"),
    ("explore", "rope:base=10000,dim=8", "--length", "256", "--dtypes", "float16"),
    ("explain", str(FIXTURES / "llama2-7b-dynamic.json"), "--length", "256", "--dtypes", ""),
])
def test_tables_align_and_star_only_what_they_footnote(argv, capsys):
    """Every row's value starts in one column (labels like 'pairs covered by L' included);
    the 'expected refutation' footnote is printed exactly when a cell is starred."""
    assert cli(*argv) == 0
    out = capsys.readouterr().out
    assert len(_value_columns(out[out.index("posproof explore — context"):])) == 1
    assert "pairs covered by L  " in out
    starred = "refuted*" in out
    assert ("* expected refutation" in out) == starred
    assert starred == (argv[0] == "explain")       # the dynamic rule's documented pitfall
