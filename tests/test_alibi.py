"""ALiBi (issue 16 §2): exact slopes, theorems, assert_alibi / identify_alibi, the CLI.

The real implementations are HF transformers' BLOOM ``build_alibi_tensor`` and MPT's
``build_mpt_alibi_tensor``; broken copies (each one bug) must fail with the right
explanation.  Expected slopes are recomputed here from the ALiBi paper's definition in
SymPy, independently of posproof.model.alibi's exponent arithmetic.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import sympy as sp

from posproof.cli.app import main
from posproof.errors import InvalidParameter, PosproofError
from posproof.measure.alibi import dense_bias_check, toeplitz_bias_check
from posproof.model.alibi import alibi, alibi_from_config, slope_difference
from posproof.proofs.alibi import prove_alibi
from posproof.testing.bias.alibi import assert_alibi, check_alibi, identify_alibi

torch = pytest.importorskip("torch")
bloom = pytest.importorskip("transformers.models.bloom.modeling_bloom")
mpt = pytest.importorskip("transformers.models.mpt.modeling_mpt")

HEADS = range(1, 65)


def paper_slopes(n: int) -> list[sp.Expr]:
    """The paper's get_slopes, transcribed with SymPy powers (start = ratio = 2^(−8/n))."""
    def power_of_2(p: int) -> list[sp.Expr]:
        start = sp.Integer(2) ** (-sp.Integer(2) ** (-(sp.log(p, 2) - 3)))
        return [sp.nsimplify(start * start ** i) for i in range(p)]
    if math.log2(n).is_integer():
        return power_of_2(n)
    p = 2 ** math.floor(math.log2(n))
    return power_of_2(p) + paper_slopes(2 * p)[0::2][:n - p]


@pytest.mark.parametrize("n", [1, 2, 3, 5, 6, 7, 8, 12, 16, 24, 40, 64])
def test_exact_slopes_equal_the_paper_definition(n: int) -> None:
    assert [sp.simplify(a - b) for a, b in zip(alibi(n).slopes, paper_slopes(n),
                                                strict=True)] == [0] * n


def test_float_slopes_match_hf_bloom_and_mpt_for_every_head_count() -> None:
    for n in HEADS:
        exact = alibi(n).slopes_array()
        hf_bloom = bloom._get_alibi_slopes(n, "cpu").double().numpy()
        hf_mpt = -mpt.build_mpt_alibi_tensor(n, 2)[:, 0, 0].double().numpy()
        assert np.max(np.abs(hf_bloom - exact) / exact) < 8 * 2.0 ** -23, n
        assert np.max(np.abs(hf_mpt - exact) / exact) < 8 * 2.0 ** -23, n


def test_mpt_rule_equals_reference_at_8_and_differs_otherwise() -> None:
    assert all(not slope_difference(n, 8) for n in HEADS)
    for n in HEADS:
        hf16 = -mpt.build_mpt_alibi_tensor(n, 2, alibi_bias_max=16)[:, 0, 0].double().numpy()
        exact16 = alibi(n, "mpt", 16).slopes_array()
        assert np.allclose(hf16, exact16, rtol=1e-6, atol=0), n
        assert len(slope_difference(n, 16)) == n      # every slope is squared: all differ


def test_theorems_geometric_exactly_for_powers_of_two() -> None:
    for n in range(1, 33):
        report = prove_alibi(alibi(n))
        by = {p.name: p for p in report.theorems}
        for name in ("alibi:toeplitz", "alibi:scores-offset", "alibi:monotone",
                     "alibi:mpt-matches-reference"):
            assert by[name].status == "proved", (n, name)
        geo = by["alibi:geometric"]
        power = n & (n - 1) == 0
        assert geo.status == ("proved" if power else "refuted"), n
        if not power:                                  # the counterexample, recomputed
            h = geo.counterexample["heads"]
            s = [alibi(n).slopes[i] for i in h]
            assert sp.simplify(s[1] / s[0] - s[2] / s[1]) != 0
            assert [str(x) for x in s] == geo.counterexample["slopes"]


def test_general_theorems_and_mpt_refutation() -> None:
    report = prove_alibi(alibi(6, "mpt", 16), general=True)
    by = {p.name: p for p in report.theorems}
    assert by["general:alibi:geometric-iff-power-of-two"].status == "proved"
    assert by["general:alibi:mpt-matches-reference"].status == "proved"
    ce = by["alibi:mpt-matches-reference"].counterexample
    assert by["alibi:mpt-matches-reference"].status == "refuted"
    h = ce["head"]
    assert sp.sympify(ce["mpt"]) == alibi(6, "mpt", 16).slopes[h] != alibi(6).slopes[h]


def test_assert_alibi_passes_hf_bloom_and_mpt_for_every_head_count() -> None:
    for n in HEADS:
        assert check_alibi(bloom.build_alibi_tensor, n_heads=n).ok, n
        assert check_alibi(mpt.build_mpt_alibi_tensor, n_heads=n, rule="mpt").ok, n
        mask = torch.tensor([[0, 0, 1, 1, 1], [1, 1, 1, 0, 0]])
        t = bloom.build_alibi_tensor(mask, n, torch.float32)
        assert assert_alibi(t, n_heads=n, attention_mask=mask).kind == "bloom-tensor"
        assert assert_alibi(mpt.build_mpt_alibi_tensor(n, 7), n_heads=n).ok


def _bloom_copy(slopes_fn, *, ignore_mask: bool = False):
    """A copy of BLOOM's build_alibi_tensor with the slopes (and mask handling) swapped."""
    def build_alibi_tensor(attention_mask, num_heads, dtype):
        b, length = attention_mask.shape
        slopes = torch.tensor(slopes_fn(num_heads), dtype=torch.float32)
        pos = (torch.arange(length)[None, :].expand(b, -1) if ignore_mask else
               (attention_mask.cumsum(-1) - 1) * attention_mask)
        return (slopes[None, :, None] * pos[:, None, :]).reshape(b * num_heads, 1,
                                                                  length).to(dtype)
    return build_alibi_tensor


def _ref(n: int) -> np.ndarray:
    return alibi(n).slopes_array()


@pytest.mark.parametrize(("slopes_fn", "expected"), [
    (lambda n: np.exp2(-8 * np.arange(1, n + 1) / n), "geometric rule"),
    (lambda n: np.exp2(-8 * np.arange(1, 17) / 16)[:n], "truncated"),
    (lambda n: _ref(n)[::-1].copy(), "reversed"),
    (lambda n: -_ref(n), "sign flipped"),
    (lambda n: np.exp2(-8 * np.arange(0, n) / n), "off by one"),
])
def test_broken_bloom_copies_fail_with_the_right_explanation(slopes_fn, expected) -> None:
    report = check_alibi(_bloom_copy(slopes_fn), n_heads=12)
    assert not report.ok
    assert expected in report.explanation
    with pytest.raises(AssertionError, match="confirmed by regeneration"):
        assert_alibi(_bloom_copy(slopes_fn), n_heads=12)


def test_mask_ignored_is_caught_and_named() -> None:
    report = check_alibi(_bloom_copy(_ref, ignore_mask=True), n_heads=8)
    assert not report.ok
    assert "mask ignored" in report.explanation
    assert check_alibi(_bloom_copy(_ref), n_heads=8).ok        # the faithful copy passes


def test_broken_mpt_copy_and_wrong_bias_max_fail() -> None:
    def build_mpt_alibi_tensor(num_heads, sequence_length):      # truncated, not interleaved
        q = 2 ** math.ceil(math.log2(num_heads))
        slopes = torch.exp2(-8 * torch.arange(1, q + 1) / q)[:num_heads]
        return (torch.arange(1 - sequence_length, 1)[None, None, :] * slopes[:, None, None])
    report = check_alibi(build_mpt_alibi_tensor, n_heads=12, rule="mpt")
    assert not report.ok
    assert "truncated" in report.explanation
    assert check_alibi(build_mpt_alibi_tensor, n_heads=16, rule="mpt").ok
    report = check_alibi(mpt.build_mpt_alibi_tensor, n_heads=12, rule="mpt", alibi_bias_max=16)
    assert not report.ok
    assert "reference rule" in report.explanation


def test_causal_bias_with_masked_upper_triangle() -> None:
    n, q = 12, 9
    slopes = torch.tensor(alibi(n).slopes_array(), dtype=torch.float32)
    delta = torch.arange(q)[:, None] - torch.arange(q)[None, :]
    bias = -slopes[:, None, None] * delta
    causal = bias.masked_fill(delta < 0, float("-inf"))
    assert assert_alibi(causal, n_heads=n).kind == "bias-tensor"
    broken = causal.clone()
    broken[3, 5, 2] = float("-inf")                 # a masked entry inside the causal part
    assert not check_alibi(broken, n_heads=n).ok
    assert "sign flipped" in check_alibi(-bias, n_heads=n).explanation


def test_identify_names_the_rule() -> None:
    hf16 = -mpt.build_mpt_alibi_tensor(12, 2, alibi_bias_max=16)[:, 0, 0]
    assert identify_alibi(hf16)["rule"] == "mpt"
    assert identify_alibi(hf16)["alibi_bias_max"] == "16"
    assert identify_alibi(bloom._get_alibi_slopes(24, "cpu"))["rule"] == "reference"
    assert "geometric" in identify_alibi(np.exp2(-8 * np.arange(1, 13) / 12))["note"]
    assert identify_alibi(np.array([0.3, 0.7, 0.1]))["rule"] is None


def test_toeplitz_check_catches_a_non_toeplitz_impl() -> None:
    slopes = alibi(8).slopes_array()

    def good(q, k):
        return -slopes[:, None, None] * (np.asarray(q)[:, None] - np.asarray(k)[None, :])

    def drift(q, k):                       # right on the first row and column, wrong inside
        q, k = np.asarray(q), np.asarray(k)
        return good(q, k) + 1e-3 * (q[:, None] * k[None, :] > 0)
    assert toeplitz_bias_check(good, slopes, 512)["status"] == "pass"
    assert toeplitz_bias_check(drift, slopes, 512)["status"] == "fail"
    pos = np.arange(64)
    assert dense_bias_check(drift(pos, pos), slopes)["status"] == "fail"
    assert not check_alibi(drift, n_heads=8).ok


@pytest.mark.parametrize("bad", [
    lambda: alibi(0), lambda: alibi(-3), lambda: alibi(2.5), lambda: alibi(8, "nope"),
    lambda: alibi(8, "mpt", 0), lambda: alibi(8, "reference", 16),
    lambda: check_alibi(np.ones(5), n_heads=4),
    lambda: check_alibi(np.ones((3, 4, 4)), n_heads=4),
    lambda: check_alibi(np.ones((2, 3)), n_heads=2),
    lambda: check_alibi(np.ones((8, 1, 5)), n_heads=4, attention_mask=np.ones((3, 5))),
    lambda: identify_alibi(np.ones((2, 2))),
    lambda: check_alibi(np.ones, n_heads=4),
    lambda: check_alibi(lambda q, k: np.ones((3, len(q), len(k))), n_heads=4),
    lambda: alibi_from_config({"model_type": "llama"}),
])
def test_bad_input_is_one_named_line(bad) -> None:
    with pytest.raises(PosproofError) as info:
        bad()
    assert "\n" not in str(info.value)


def test_cli_prove_explain_identify_check_impl(tmp_path, capsys) -> None:
    assert main(["prove", "--alibi", "--heads", "16", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {t["status"] for t in out["theorems"]} == {"proved"}
    assert main(["prove", "--alibi", "--heads", "12"]) == 1
    assert "heads=[6, 7, 8]" in capsys.readouterr().out
    cfg = tmp_path / "config.json"
    cfg.write_text(json.dumps({"model_type": "mpt", "n_heads": 6,
                               "attn_config": {"alibi": True, "alibi_bias_max": 16}}))
    assert main(["explain", str(cfg), "--alibi", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["encoding"]["rule"] == "mpt"
    assert out["spec"] == "alibi:heads=6,rule=mpt,alibi_bias_max=16"
    assert len(out["numbers"]["differs_from_reference"]) == 6
    np.save(tmp_path / "s.npy", bloom._get_alibi_slopes(12, "cpu").numpy())
    assert main(["identify", str(tmp_path / "s.npy"), "--alibi"]) == 0
    assert "reference" in capsys.readouterr().out
    target = "transformers.models.bloom.modeling_bloom:build_alibi_tensor"
    assert main(["check-impl", target, "--alibi", "--heads", "12", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "pass"


@pytest.mark.parametrize("argv", [
    ["prove", "--alibi", "--heads", "0"],
    ["prove", "--alibi"],
    ["prove", "--alibi", "--heads", "8", "--alibi-bias-max", "4"],
    ["explain", "missing.json", "--alibi"],
])
def test_cli_bad_input_exits_2_with_one_line(argv, capsys) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "Traceback" not in err


def test_invalid_parameter_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="at least one head"):
        alibi(0)
    assert issubclass(InvalidParameter, PosproofError)


def test_dtype_audit_matches_torch_rounding_and_the_mantissa_widths():
    """`check --alibi`'s dtype audit: power-of-two slopes merge distances exactly at 2^p
    (p = 11 bits for float16, 8 for bfloat16: every integer below is exact, 2^p + 1 is a tie
    to even), and for every head the first merged distance equals what torch's own float16 /
    bfloat16 casts of the float32 bias (as BLOOM forms it) give."""
    import torch

    from posproof.measure.alibi import alibi_dtype_audit
    from posproof.model.alibi import alibi

    spec = alibi(12)
    audit = alibi_dtype_audit(spec, 5000, ["float32", "float16", "bfloat16"])
    assert audit.ok
    dtypes = audit.values["dtypes"]
    assert dtypes["float32"]["first_merged_distance"] is None
    powers = [i for i, e in enumerate(spec.exponents) if e.denominator == 1]
    assert powers
    for name, bits in (("float16", 11), ("bfloat16", 8)):
        per_head = dtypes[name]["first_merged_per_head"]
        assert all(per_head[i] == 2 ** bits for i in powers)
        for h, m in enumerate(spec.slopes_array()):
            bias = (torch.tensor(m, dtype=torch.float32) * torch.arange(5000, dtype=torch.float32))
            stored = bias.to(getattr(torch, name)).to(torch.float64).numpy()
            same = np.flatnonzero(stored[1:] == stored[:-1])
            assert per_head[h] == int(same[0])
    assert dtypes["float16"]["first_overflow"] is None
    # head 0 of 8 has slope 1/2: float16's largest value 65504 at Δ = 131008; 65520 (Δ = 131040)
    # is the tie between 65504 and the overflow, and rounds to even: inf
    big = alibi_dtype_audit(alibi(8), 140000, ["float16"])
    assert big.values["dtypes"]["float16"]["first_overflow"] == 131040


def test_cli_check_alibi_fails_only_for_a_declared_dtype(capsys):
    from posproof.cli.app import main

    assert main(["check", "--alibi", "--heads", "8", "--max-len", "4096"]) == 0
    assert "distances merge from Δ=256" in capsys.readouterr().out
    assert main(["check", "--alibi", "--heads", "8", "--max-len", "4096", "--dtype",
                 "bfloat16"]) == 1
    assert main(["check", "--alibi", "--heads", "8", "--max-len", "200", "--dtype",
                 "bfloat16", "--json"]) == 0
    assert main(["check", "--alibi", "--max-len", "200"]) == 2
    assert main(["check", "--alibi", "--heads", "8", "--max-len", "1e9"]) == 2
