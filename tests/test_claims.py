"""Claims a user states: a period, a bound, a column permutation (posproof.proofs.claims)."""

from __future__ import annotations

import json

import pytest
import sympy as sp

from posproof import preset, prove
from posproof.cli.app import main
from posproof.errors import InvalidParameter, UnknownName
from posproof.model.layouts import permutation


def claim(enc, **kw):
    return prove(enc, theorems=[], **kw).theorems[0]


@pytest.mark.parametrize(("name", "dim", "period", "status"), [
    ("binary", 8, 32, "proved"),
    ("binary", 8, "64", "proved"),
    ("binary", 8, 16, "refuted"),
    ("vaswani", 8, "2*pi*10000", "proved"),     # 10000^(1 - k/4) are integers for d = 8
    ("vaswani", 8, "2*pi*1000", "proved"),      # the exact period: ω_3 = 1/1000
    ("vaswani", 8, "2*pi*100", "refuted"),
    ("vaswani", 512, "2*pi*10000", "refuted"),  # the curve is aperiodic
])
def test_claimed_periods(name, dim, period, status):
    proof = claim(preset(name, dim=dim), claim_period=period)
    assert proof.status == status
    if status == "proved":
        assert proof.crosscheck["dps"] == 50
    else:
        assert proof.counterexample["kind"] == "period witness"


@pytest.mark.parametrize(("bound", "status"), [
    (1, "proved"), ("3/2", "proved"), ("sqrt(2)", "proved"),
    ("1/2", "refuted"), (0.999, "refuted"), ("sqrt(2)/2", "refuted"), (-1, "refuted"),
])
def test_claimed_bounds(bound, status):
    proof = claim(preset("vaswani", dim=8), claim_bound=bound)
    assert proof.status == status
    if status == "refuted":
        assert float(proof.counterexample["lhs"]) == pytest.approx(1.0)


def test_bound_on_a_sine_only_encoding_is_witnessed_at_a_quarter_turn():
    proof = claim(preset("sine-only", dim=4), claim_bound="9/10")
    assert proof.status == "refuted"
    assert proof.counterexample["x"].startswith("1.5707963267948966")


def test_claimed_permutations():
    enc = preset("vaswani", dim=8)
    right = permutation("interleaved", "split", 4)
    assert claim(enc, claim_permutation=("split", right)).status == "proved"
    assert claim(enc, claim_permutation="split:" + ",".join(map(str, right))).status == "proved"
    wrong = claim(enc, claim_permutation=("split", list(range(8))))
    assert wrong.status == "refuted"
    assert wrong.counterexample["column"] == 1


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"claim_period": 0}, "claim_period=0 must be > 0"),
    ({"claim_period": "-2*pi"}, "must be > 0"),
    ({"claim_period": "x"}, "unknown name 'x'"),
    ({"claim_period": float("nan")}, "claim_period=nan"),
    ({"claim_bound": "__import__('os')"}, "claim_bound"),
    ({"claim_permutation": ("split", [0, 1])}, "not a permutation of 0 … 7"),
    ({"claim_permutation": ("split", [0, 0, 1, 2, 3, 4, 5, 6])}, "not a permutation"),
    ({"claim_permutation": ("diagonal", list(range(8)))}, "diagonal"),
    ({"claim_permutation": "split"}, "write LAYOUT:i,j"),
    ({"claim_permutation": "split:0,a"}, "comma-separated integers"),
])
def test_malformed_claims_are_refused(kwargs, match):
    with pytest.raises((InvalidParameter, UnknownName), match=match):
        prove(preset("vaswani", dim=8), theorems=[], **kwargs)


def test_a_period_claim_a_hair_off_is_never_proved():
    proof = claim(preset("binary", dim=8), claim_period=sp.Integer(32) + sp.Rational(1, 10**40))
    assert proof.status != "proved"


def test_cli_claims_exit_status_and_json(capsys):
    assert main(["prove", "--dim", "8", "--theorem", "norm", "--claim-bound", "1",
                 "--claim-period", "2*pi*10000", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [t["status"] for t in data["theorems"]] == ["proved", "proved", "proved"]
    assert main(["prove", "--dim", "8", "--theorem", "norm", "--claim-permutation",
                 "split:0,1,2,3,4,5,6,7", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["theorems"][0]["counterexample"]["source_column"] == 1
    assert main(["prove", "--dim", "8", "--claim-period", "0"]) == 2
    assert "claim_period=" in capsys.readouterr().err


@pytest.mark.parametrize("kwargs", [
    {"claim_block": [["__import__('sys').__setattr__('pwned', 1) or 1", "0"], ["0", "1"]]},
    {"claim": [["__import__('sys').__setattr__('pwned', 1) or 1"] + ["0"] * 7] * 8},
    {"claim": lambda delta: [["__import__('sys').__setattr__('pwned', 1)"]]},
])
def test_text_inside_a_claimed_matrix_is_refused_not_run(kwargs):
    """sp.Matrix(["…"]) would sympify (eval) the text: claims take SymPy objects or numbers,
    and text only as 'a, b; c, d', which the safe parser reads."""
    import sys

    with pytest.raises(InvalidParameter, match=r"is not a SymPy expression or a number"):
        prove(preset("vaswani", dim=8), theorems=[], **kwargs)
    assert not hasattr(sys, "pwned")
