"""Scaled RoPE reports the base it really uses: NTK and dynamic NTK (issue 12, part 4)."""

from __future__ import annotations

import json
from pathlib import Path

import mpmath
import pytest
import sympy as sp

from posproof.cli.app import main
from posproof.model.configs import parse_spec
from posproof.model.scaling import effective_base, effective_base_numbers, make_scaling

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "configs"


def run(argv, capsys):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_ntk_effective_base_is_exactly_b_times_factor_to_d_over_d_minus_2():
    exact = sp.Integer(10000) * sp.Integer(8) ** sp.Rational(128, 126)
    got = effective_base(make_scaling("ntk", 10000, factor=8), 128)
    assert sp.simplify(got - exact) == 0          # both exact: 80000·2^(1/21)
    assert got == exact


@pytest.mark.parametrize(("kind", "params", "d"), [
    ("ntk", {"factor": 8}, 128), ("ntk", {"factor": "3/2"}, 64), ("ntk", {"factor": 4}, 6),
    ("dynamic", {"factor": 8, "original_max_position_embeddings": 2048, "seq_len": 8192}, 128),
    ("dynamic", {"factor": 2, "original_max_position_embeddings": 4096, "seq_len": 5000}, 96),
    ("dynamic", {"factor": 4, "original_max_position_embeddings": 4096, "seq_len": 100}, 32),
])
def test_the_frequencies_are_the_geometric_ones_of_the_effective_base(kind, params, d):
    """θ'_k = b'^(−2k/d) for every pair, b' from HF's formula transcribed independently."""
    rule = make_scaling(kind, 10000, **params)
    b_eff = effective_base(rule, d)
    with mpmath.workdps(60):
        factor = mpmath.mpf(sp.Rational(params["factor"]).p) / sp.Rational(params["factor"]).q
        if kind == "dynamic":
            length = params["original_max_position_embeddings"]
            s = max(params["seq_len"], length)                      # HF clamps s to ≥ L
            factor = factor * s / length - (factor - 1)
        hf = 10000 * factor ** (mpmath.mpf(d) / (d - 2))
        assert abs(sp.N(b_eff, 60) - sp.Float(str(hf), 60)) < sp.Float(10) ** -45 * hf
        for k, theta in enumerate(rule.frequencies(d)):
            want = hf ** (mpmath.mpf(-2 * k) / d)
            assert abs(mpmath.mpf(str(sp.N(theta, 60))) - want) <= mpmath.mpf(10) ** -50 * want


def test_rules_without_one_base_have_none():
    for kind, params in [("linear", {"factor": 2}), ("yarn", {"factor": 4})]:
        rule = make_scaling(kind, 10000, **params)
        assert effective_base(rule, 64) is None
        assert effective_base_numbers(rule, 64) == {}
    assert effective_base(make_scaling("default", 500000), 64) == 500000


def test_explore_prints_and_reports_the_ntk_effective_base(capsys):
    spec = "rope:base=10000,dim=128,scaling=ntk,factor=8"
    status, out, _ = run(["explore", spec, "--length", "256", "--dtypes", "", "--json"], capsys)
    assert status in (0, 1)
    numbers = json.loads(out)["encodings"][0]["numbers"]
    assert numbers["base"] == "10000"
    exact = sp.Integer(10000) * sp.Integer(8) ** sp.Rational(128, 126)
    assert sp.sympify(numbers["effective_base"]) == exact
    with mpmath.workdps(30):
        assert abs(float(numbers["effective_base_float"]) - float(10000 * mpmath.mpf(8) **
                   (mpmath.mpf(128) / 126))) < 1e-5
    assert "effective_base_seq_len" not in numbers
    status, out, _ = run(["explore", spec, "--length", "256", "--dtypes", ""], capsys)
    row = next(line for line in out.splitlines() if line.startswith("effective base"))
    assert "82684.6" in row
    assert f"effective base {exact} ≈ {numbers['effective_base_float']}" in out


def test_explore_dynamic_ntk_uses_the_sequence_length(capsys):
    spec = "rope:base=10000,dim=128,scaling=dynamic,factor=8,original_max_position_embeddings=2048"
    for length, r in [(8192, 25), (2048, 1), (1000, 1)]:
        status, out, _ = run(["explore", spec, "--length", str(length), "--dtypes", "", "--json",
                              "--no-proofs"], capsys)
        assert status == 0
        numbers = json.loads(out)["encodings"][0]["numbers"]
        assert sp.sympify(numbers["effective_base"]) == 10000 * sp.Integer(r) ** sp.Rational(
            128, 126)
        assert numbers["effective_base_seq_len"] == max(length, 2048)
    rot = parse_spec(spec, seq_len=8192)
    assert effective_base(rot.schedule, rot.rotary_dim) == 250000 * 5 ** sp.Rational(2, 63)


def test_explain_reports_the_dynamic_effective_base(capsys):
    config = str(FIXTURES / "llama2-7b-dynamic.json")         # factor 2, L = 4096
    status, out, _ = run(["explain", config, "--seq-len", "8192", "--length", "256",
                          "--dtypes", "", "--json"], capsys)
    data = json.loads(out)
    numbers = data["encodings"][0]["numbers"]
    assert sp.sympify(numbers["effective_base"]) == 10000 * 3 ** sp.Rational(128, 126)
    assert numbers["effective_base_seq_len"] == 8192
    status, out, _ = run(["explain", config, "--seq-len", "8192", "--length", "256",
                          "--dtypes", ""], capsys)
    assert status in (0, 1)
    assert f"effective base: {numbers['effective_base']} ≈ 30527.7" in out
    assert "at sequence length 8192" in out
