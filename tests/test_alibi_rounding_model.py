"""Issue 29, items 1 and 2: the ALiBi tolerance comes from a stated model of the computation
(slopes formed in the dtype by the rule, multiplied by Δ), not from the head count; a dense
bias is judged at every entry, above the diagonal too.

Each reproduction of the issue passed on b25f540 (the tolerance (8 + 2n)·eps·(|m·Δ| + m)); the
correct biases, computed the usual ways, pass under the model."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from posproof.audit import audit, decide
from posproof.evidence import Evidence, Sign
from posproof.measure.alibi import RoundingModel
from posproof.model.alibi import alibi
from posproof.testing.bias.alibi import assert_alibi, check_alibi

torch = pytest.importorskip("torch")

L = 256


def _dense(slopes: np.ndarray, length: int = L, upper: str = "masked") -> np.ndarray:
    d = np.arange(length)[:, None] - np.arange(length)[None, :]
    out = -slopes[:, None, None].astype(np.float64) * d[None]
    if upper == "masked":
        out = np.where(d[None] < 0, -np.inf, out)
    elif upper == "symmetric":
        out = -slopes[:, None, None] * np.abs(d)[None]
    return out


# ------------------------------------------------------------------ item 1: false passes
@pytest.mark.parametrize(("n", "factor"), [(8, 1.02), (64, 1.12)])
def test_float16_bias_with_slopes_too_large_fails(n: int, factor: float) -> None:
    """NumPy float16, 256 positions: slopes 2 % too large at 8 heads, 12 % at 64 heads."""
    m = alibi(n).slopes_array() * factor
    key_only = (m[:, None] * (np.arange(L) - (L - 1)))[:, None, :].astype(np.float16)
    dense = _dense(m).astype(np.float16)
    for bias in (key_only, dense, m.astype(np.float16)):
        report = check_alibi(bias, n_heads=n)
        assert not report.ok, bias.shape
        assert report.status == "fail"
        with pytest.raises(AssertionError, match="relative error"):
            assert_alibi(bias, n_heads=n)
    report = check_alibi(dense, n_heads=n)
    worst = max(report.slope_errors, key=lambda e: abs(e["relative_error"]))
    assert worst["relative_error"] == pytest.approx(factor - 1, abs=2e-3)
    assert "slopes formed in float16" in report.message


def test_float32_torch_bias_with_slopes_off_by_2e6_fails() -> None:
    n = 8
    m = torch.tensor(alibi(n).slopes_array() * (1 + 2e-6), dtype=torch.float32)
    pos = torch.arange(L)
    key_only = (m[:, None] * (pos - (L - 1)))[:, None, :]
    d = pos[:, None] - pos[None, :]
    dense = (-m[:, None, None] * d[None]).masked_fill(d[None] < 0, float("-inf"))
    for bias in (key_only, dense):
        report = check_alibi(bias, n_heads=n)
        assert not report.ok
        assert any(abs(e["relative_error"]) > 1.5e-6 for e in report.slope_errors)
    # the pairwise callable path (check-impl's) alike
    report = check_alibi(lambda q, k: -m[:, None, None] * (torch.as_tensor(q)[:, None]
                                                          - torch.as_tensor(k)[None, :]),
                         n_heads=n, seq_len=L)
    assert not report.ok


def _bloom_slopes(n: int, dtype: torch.dtype) -> torch.Tensor:
    """BLOOM's way, in ``dtype``: base^k with base = 2^(−8/2^⌊log2 n⌋), extra heads odd powers."""
    low = 2 ** math.floor(math.log2(n))
    base = torch.tensor(2 ** (-(2 ** -(math.log2(low) - 3))), dtype=dtype)
    slopes = torch.pow(base, torch.arange(1, 1 + low, dtype=torch.int32))
    if low != n:
        extra = torch.tensor(2 ** (-(2 ** -(math.log2(2 * low) - 3))), dtype=dtype)
        odd = torch.arange(1, 1 + 2 * (n - low), 2, dtype=torch.int32)
        slopes = torch.cat([slopes, torch.pow(extra, odd)])
    return slopes


DTYPES = [torch.float16, torch.bfloat16, torch.float32, torch.float64]


@pytest.mark.parametrize("n", [8, 12, 64])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_correct_biases_computed_the_usual_ways_pass(n: int, dtype: torch.dtype) -> None:
    pos = torch.arange(L)
    d = pos[:, None] - pos[None, :]
    ways = {
        "slopes formed in the dtype": _bloom_slopes(n, dtype),
        "exp2 of the exponents in the dtype": torch.exp2(-torch.tensor(
            [float(e) for e in alibi(n).exponents], dtype=dtype)),
    }
    for name, slopes in ways.items():
        key_only = (slopes[:, None] * pos.to(dtype))[:, None, :]
        dense = (-slopes[:, None, None] * d[None].to(dtype)).masked_fill(d[None] < 0,
                                                                          float("-inf"))
        for bias in (key_only, dense):
            report = check_alibi(bias, n_heads=n)
            assert report.ok, (name, bias.shape, report.message)
            assert report.label == "pass"
    # computed in float32, then cast (to float64: float32 values, judged as such when declared)
    s32 = _bloom_slopes(n, torch.float32)
    cast = (-s32[:, None, None] * d[None]).masked_fill(d[None] < 0, float("-inf")).to(dtype)
    if dtype == torch.float64 and n != 8:
        assert not check_alibi(cast, n_heads=n).ok
        assert 'dtype="float32"' in check_alibi(cast, n_heads=n).message
        assert check_alibi(cast, n_heads=n, dtype="float32").ok
    else:
        assert check_alibi(cast, n_heads=n).ok
    if dtype != torch.bfloat16:                                    # NumPy has no bfloat16
        np_dtype = getattr(np, str(dtype).split(".")[1])
        m = alibi(n).slopes_array().astype(np_dtype)
        b = (m[:, None] * np.arange(L).astype(np_dtype))[:, None, :]
        assert b.dtype == np_dtype
        assert check_alibi(b, n_heads=n).ok
        assert check_alibi(m, n_heads=n).ok


@pytest.mark.parametrize("n", [8, 12, 64])
def test_real_implementations_pass_in_their_dtypes(n: int) -> None:
    bloom = pytest.importorskip("transformers.models.bloom.modeling_bloom")
    mpt = pytest.importorskip("transformers.models.mpt.modeling_mpt")
    falcon = pytest.importorskip("transformers.models.falcon.modeling_falcon")
    mask = torch.ones(2, L, dtype=torch.long)
    mask[1, :5] = 0
    for dtype in DTYPES:
        # both compute in float32 and cast: float64 output carries float32 values (declared)
        computed = "float32" if dtype == torch.float64 else None
        t = bloom.build_alibi_tensor(mask, n, dtype)
        assert check_alibi(t, n_heads=n, attention_mask=mask, dtype=computed).ok, (n, dtype)
        m = mpt.build_mpt_alibi_tensor(n, L).to(dtype)
        assert check_alibi(m, n_heads=n, rule="mpt", dtype=computed).ok, (n, dtype)
    # Falcon rounds its slopes to bfloat16 and multiplies in bfloat16: its dtype
    f = falcon.build_alibi_tensor(mask, n, torch.bfloat16)
    assert check_alibi(f, n_heads=n, attention_mask=mask).ok
    f32 = falcon.build_alibi_tensor(mask, n, torch.float32)
    assert check_alibi(f32, n_heads=n, attention_mask=mask, dtype="bfloat16").ok
    if n != 8:                     # 8 heads: powers of two, exact products below 2^8
        assert not check_alibi(f32, n_heads=n, attention_mask=mask).ok     # not float32
    assert check_alibi(bloom.build_alibi_tensor, n_heads=n).ok
    assert check_alibi(mpt.build_mpt_alibi_tensor, n_heads=n, rule="mpt").ok


def test_the_model_is_stated_and_no_wider_than_its_rounding() -> None:
    """k_h roundings of u = 2^−p: 4 for exact power-of-two slopes (no head-count term), the
    power of an inexact base added (BLOOM's pow(base, k)), whatever the dtype."""
    assert RoundingModel.of(alibi(8), "float32").k == (4,) * 8
    assert RoundingModel.of(alibi(64), "float32").k == tuple(range(5, 69))
    assert RoundingModel.of(alibi(64), "float16").u == 2 ** -11
    report = check_alibi(_dense(alibi(8).slopes_array()).astype(np.float32), n_heads=8)
    assert report.model.startswith("slopes formed in float32 by the reference rule, multiplied "
                                   "by Δ in float32: |error| ≤ ((1 + u)^k − 1)·|m·Δ|")
    assert "u = 2^−24" in report.model
    assert report.model in report.message
    # the bound: 4 roundings of 2^−24 at Δ = 255 for head 0, not (8 + 2·8)·2^−23
    m = alibi(8).slopes_array()
    tol = RoundingModel.of(alibi(8), "float32").tolerance(m, 255.0)
    assert tol[0] == pytest.approx(((1 + 2.0 ** -24) ** 4 - 1) * 0.5 * 255, rel=1e-6)


# ------------------------------------------------------------------ the audit judges the bound
def test_the_audit_recomputes_the_bound_from_the_model() -> None:
    n = 8
    m = torch.tensor(alibi(n).slopes_array(), dtype=torch.float32)
    pos = torch.arange(L)
    bias = (m[:, None] * pos)[:, None, :]
    report = check_alibi(bias, n_heads=n)
    assert report.ok
    ev = report.evidence
    model = ev.details["rounding_model"]
    assert model["u"] == str(2 ** -24 if False else "1/16777216")
    assert model["k"] == [4] * 8
    (item,) = ev.items
    assert isinstance(item, Sign)
    assert item.relation == "positive"
    assert {"u", "k", "eta", "m", "v"} <= {str(s) for s in item.env}
    assert ev.audit.status == "confirmed"
    # the same entry with a bound one rounding narrower than the value's error is refuted by
    # the auditor, whatever the engine said: it recomputes the bound, it does not read it
    d = item.to_dict()
    assert "model bound" in d["label"]
    assert json.dumps(d)
    wrong = Sign(item.label, item.expr, "positive",
                 env={**item.env, "v": float(item.env["v"]) * (1 + 2e-6)})
    assert decide(wrong)[0] == "refuted"
    assert audit(Evidence("planted", items=[wrong])).status == "refuted"


def test_dense_and_pairwise_evidence_is_audited() -> None:
    m = alibi(4).slopes_array()
    report = check_alibi(_dense(m, 64), n_heads=4)
    assert report.ok
    assert report.evidence.audit.status == "confirmed"
    assert report.evidence.items
    assert report.evidence.items[0].env["Delta"] != 0
    f = report = check_alibi(lambda q, k: -m[:, None, None] * (np.asarray(q)[:, None]
                                                               - np.asarray(k)[None, :]),
                             n_heads=4, seq_len=64)
    assert f.ok
    assert f.evidence.audit.status == "confirmed"
    assert "rounding_model" in f.evidence.details


# ------------------------------------------------------------------ item 2: every dense entry
def test_nan_or_large_positive_above_the_diagonal_fails_naming_entries() -> None:
    m = alibi(8).slopes_array()
    for value, word in ((np.nan, "NaN"), (1e4, "10000.0")):
        bias = _dense(m, 32)
        d = np.arange(32)[:, None] - np.arange(32)[None, :]
        bias = np.where(d[None] < 0, value, bias)
        report = check_alibi(bias, n_heads=8)
        assert not report.ok
        assert report.status == "fail"
        n_upper = 8 * 32 * 31 // 2
        assert f"{n_upper} of {n_upper} entries" in report.message
        assert "bias[0, 0, 1] = " in report.message
        assert word in report.message
        with pytest.raises(AssertionError, match="above the diagonal"):
            assert_alibi(bias, n_heads=8)
    one = _dense(m, 32)
    one[3, 4, 20] = np.nan
    report = check_alibi(one, n_heads=8)
    assert not report.ok
    assert "bias[3, 4, 20] = nan" in report.message
    assert "1 of 3968 entries" in report.message


def test_masked_and_symmetric_pass_stating_so() -> None:
    m = alibi(8).slopes_array()
    masked = check_alibi(_dense(m, 32), n_heads=8)
    assert masked.ok
    assert masked.label == "pass"
    assert masked.evidence.coverage == "all"
    assert "masked" in masked.form
    assert "masked" in masked.message
    finfo = _dense(m, 32)
    finfo[np.isneginf(finfo)] = np.finfo(np.float32).min
    assert "masked" in check_alibi(finfo.astype(np.float32), n_heads=8).form
    sym = check_alibi(_dense(m, 32, "symmetric"), n_heads=8)
    assert sym.ok
    assert sym.label == "pass"
    assert sym.form.startswith("symmetric −m·|i − j|")


def test_lower_triangle_only_is_labelled_partial_coverage() -> None:
    m = alibi(8).slopes_array()
    d = np.arange(32)[:, None] - np.arange(32)[None, :]
    total, upper = 8 * 32 * 32, 8 * 32 * 31 // 2
    for bias, word in ((np.where(d[None] < 0, 0.0, _dense(m, 32)), "zero"),
                       (_dense(m, 32, "continued"), "continued")):
        report = check_alibi(bias, n_heads=8)
        assert report.ok
        assert report.status == "pass"
        assert report.label == (f"pass (partial coverage: lower triangle only, "
                                f"{total - upper} of {total} entries judged)")
        assert report.label != "pass"
        assert word in report.form
        ev = report.evidence
        assert (ev.coverage, ev.covered, ev.total) == ("sample", total - upper, total)
        assert json.loads(json.dumps(report.to_dict(), default=str))["label"] == report.label


# ------------------------------------------------------------------ check-impl
def test_check_impl_fails_the_float16_bias_and_states_the_model(tmp_path, capsys) -> None:
    from posproof.cli import main

    mod = tmp_path / "bad_alibi.py"
    mod.write_text("import numpy as np\n"
                   "from posproof.model.alibi import alibi\n"
                   "m = alibi(64).slopes_array() * 1.12\n"
                   "BIAS = (m[:, None] * (np.arange(256) - 255))[:, None, :].astype(np.float16)\n"
                   "GOOD = (alibi(64).slopes_array()[:, None] * np.arange(256))[:, None, :]"
                   ".astype(np.float16)\n")
    assert main(["check-impl", f"{mod}:BIAS", "--alibi", "--heads", "64"]) == 1
    out = capsys.readouterr().out
    assert "FAIL" in out
    assert "relative error" in out
    assert "slopes formed in float16" in out
    assert main(["check-impl", f"{mod}:GOOD", "--alibi", "--heads", "64"]) == 0
    out = capsys.readouterr().out
    assert "PASS" in out
    assert "within the model: slopes formed in float16" in out


def test_nan_in_the_causal_part_fails_with_a_json_ready_report() -> None:
    m = alibi(8).slopes_array()
    bias = _dense(m, 32)
    bias[2, 31, 0] = np.nan                       # the entry a slope is read from
    report = check_alibi(bias, n_heads=8)
    assert not report.ok
    assert report.slope_errors[2]["relative_error"] is None
    assert "not a finite number" in report.message
    json.dumps(report.to_dict()["slope_errors"], allow_nan=False)
