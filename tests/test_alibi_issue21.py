"""Issue 21: ALiBi input ranges, exhaustive pairwise check, thresholds from both sides."""

from __future__ import annotations

import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest

import posproof.measure.alibi as measure
from posproof.errors import InvalidParameter
from posproof.measure.alibi import RoundingModel, toeplitz_bias_check
from posproof.model.alibi import MAX_BIAS_MAX, alibi, alibi_from_config
from posproof.proofs.alibi import prove_alibi
from posproof.testing.bias.alibi import check_alibi

EPS64 = 2.0 ** -52


# --- alibi_bias_max: accepted range, refused in one line -----------------------------------

@pytest.mark.parametrize("value", ["20000", "1e-100000", "100000000000", "1e1000000000",
                                   1e9, 10**5000, "1000.000001", "0", "-3", "1.0000001",
                                   "abc", "1/0", "nan", "inf", True], ids=range(15))
def test_bias_max_outside_range_refused(value):
    with pytest.raises(InvalidParameter):
        alibi(8, "mpt", value)


@pytest.mark.parametrize(("value", "expected"), [("1000", Fraction(1000)), (MAX_BIAS_MAX, 1000),
                                            ("0.000001", Fraction(1, 10**6)),
                                            ("999.999999", Fraction(999999999, 10**6)),
                                            (0.5, Fraction(1, 2)), ("1/3", Fraction(1, 3))])
def test_bias_max_inside_range_accepted(value, expected):
    assert alibi(5, "mpt", value).alibi_bias_max == expected


def test_config_with_huge_bias_max_refused():
    with pytest.raises(InvalidParameter, match="out of range"):
        alibi_from_config({"model_type": "mpt", "n_heads": 8,
                           "attn_config": {"alibi": True, "alibi_bias_max": 1e9}})


@pytest.mark.parametrize("value", ["20000", "1e-100000", "100000000000"])
def test_cli_refuses_bias_max_with_exit_2(value):
    out = subprocess.run([sys.executable, "-m", "posproof", "prove", "--alibi", "--heads", "5",
                          "--rule", "mpt", "--alibi-bias-max", value],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2
    assert "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_prove_at_the_limits_is_exact_and_audited():
    r = prove_alibi(alibi(64, "mpt", "999.999999"))
    assert [p.status for p in r.theorems] == ["proved", "proved", "proved", "proved",
                                              "refuted"]
    for p in r.theorems:
        assert p.evidence is not None
        assert p.evidence.audit.agrees
    sign = r.theorems[-1].evidence.items[0]
    # head 0: reference exponent 8/64 < MPT's 999.999999/64: the reference slope is larger
    assert sign.relation == "positive"
    assert float(sign.expr) > 0


def test_mpt_refutation_sign_direction():
    r = prove_alibi(alibi(4, "mpt", 16), theorems=["mpt-matches-reference"])
    item = r.theorems[0].evidence.items[0]
    # reference e = 2 < MPT e = 4: the reference slope is the larger one
    assert item.relation == "positive"
    assert float(item.expr) > 0
    r = prove_alibi(alibi(4, "mpt", 4), theorems=["mpt-matches-reference"])
    item = r.theorems[0].evidence.items[0]
    assert item.relation == "negative"
    assert float(item.expr) < 0


# --- slopes: the rounding model's bound ((1 + u)^s − 1)·m (+ s·η), from both sides -------------

@pytest.mark.parametrize(("factor", "ok"), [(0.8, True), (1.2, False)])
def test_slope_tolerance_both_sides(factor, ok):
    n = 8
    s = alibi(n).slopes_array().copy()
    model = RoundingModel.of(alibi(n), "float64")
    bound = float(model.tolerance(s, 1.0, slope_only=True)[3])
    s[3] += factor * bound
    assert check_alibi(s, n_heads=n).ok is ok


# --- the diagonal (Δ = 0) is checked: m̃·0 = 0 exactly, the model allows underflow only --------

def _dense(n, length):
    m = alibi(n).slopes_array()
    d = np.arange(length)[:, None] - np.arange(length)[None, :]
    return m, -m[:, None, None] * d[None].astype(np.float64)


@pytest.mark.parametrize(("value", "ok"), [(0.0, True), (-0.0, True), (1e-300, False)])
def test_dense_diagonal_both_sides(value, ok):
    n = 4
    _m, b = _dense(n, 16)
    b[2, 7, 7] = value
    assert check_alibi(b, n_heads=n).ok is ok


def test_dense_diagonal_off_by_one_fails():
    _m, b = _dense(4, 16)
    b[1, 5, 5] += 1.0
    assert not check_alibi(b, n_heads=4).ok


# --- key-only biases: no absolute floor -----------------------------------------------------

@pytest.mark.parametrize(("factor", "ok"), [(0.5, True), (3.0, False)])
def test_key_only_both_sides(factor, ok):
    """A free constant per row (the midrange of the residuals): one entry off by ε moves it by
    ε/2 and leaves ε/2 at that entry, so 2× the model's bound at |Δ| ≤ k − 1 + |c|/m."""
    n, k = 4, 32
    m = alibi(n).slopes_array()
    b = (m[:, None] * np.arange(k)[None, :])[:, None, :].copy()
    model = RoundingModel.of(alibi(n), "float64")
    tol = float(model.tolerance(m, float(k - 1))[1])
    b[1, 0, 9] += factor * tol
    assert check_alibi(b, n_heads=n).ok is ok


def test_key_only_small_absolute_error_fails():
    n, k = 4, 32
    m = alibi(n).slopes_array()
    b = (m[:, None] * np.arange(k)[None, :])[:, None, :].copy()
    b[0, 0, 20] += 1e-6                           # far below 10⁻³, far above the tolerance
    assert not check_alibi(b, n_heads=n).ok


# --- pairwise callables: every entry compared -------------------------------------------------

def _pairwise(n, bad=None):
    m = alibi(n).slopes_array()

    def f(q, k):
        q, k = np.asarray(q), np.asarray(k)
        out = -m[:, None, None] * (q[:, None] - k[None, :]).astype(np.float64)
        if bad is not None:
            h, i, j, delta = bad
            out[h] += ((q[:, None] == i) & (k[None, :] == j)) * delta
        return out
    return m, f


def test_pairwise_wrong_at_one_entry_fails():
    _, f = _pairwise(8, (5, 301, 17, 1.0))
    report = check_alibi(f, n_heads=8, seq_len=512)
    assert not report.ok
    assert "(301, 17)" in report.message


@pytest.mark.parametrize(("factor", "ok"), [(0.8, True), (1.2, False)])
def test_pairwise_one_entry_both_sides(factor, ok):
    n, i, j = 8, 301, 17
    m = alibi(n).slopes_array()
    tol = float(RoundingModel.of(alibi(n), "float64").tolerance(m, float(i - j))[5])
    _, f = _pairwise(n, (5, i, j, factor * tol))
    assert check_alibi(f, n_heads=n, seq_len=512).ok is ok


@pytest.mark.parametrize(("i", "j"), [(0, 0), (200, 200), (511, 511)])
def test_pairwise_diagonal_checked(i, j):
    _, f = _pairwise(4, (1, i, j, 1e-3))
    assert not check_alibi(f, n_heads=4, seq_len=512).ok


def test_pairwise_pass_is_exhaustive_and_audited():
    _, f = _pairwise(4)
    report = check_alibi(f, n_heads=4, seq_len=256)
    assert report.ok
    assert report.label == "pass"
    ev = report.evidence
    assert ev.coverage == "all"
    assert ev.details["entries_evaluated"] == 4 * 256 * 256
    assert ev.audit.status == "confirmed"


def test_pairwise_sample_says_so(monkeypatch):
    monkeypatch.setattr(measure, "EXHAUSTIVE_ENTRIES", 4 * 256 * 16)
    _, f = _pairwise(4)
    report = check_alibi(f, n_heads=4, seq_len=256)
    assert report.ok
    assert report.label.startswith("pass (sampled: ")
    assert report.evidence.covered < report.evidence.total == 4 * 256 * 256
    res = toeplitz_bias_check(f, alibi(4).slopes_array(), 256, max_entries=4 * 256 * 16)
    assert res["coverage"] == "sample"
    assert res["entries_evaluated"] == 4 * 256 * 16


# --- check --alibi: heads × length bounded -------------------------------------------------

def test_dtype_audit_refuses_above_budget_and_accepts_at_it():
    from posproof.measure.alibi import AUDIT_ENTRIES, alibi_dtype_audit

    with pytest.raises(InvalidParameter, match="at most 16384"):
        alibi_dtype_audit(alibi(4096), 16385, ["bfloat16"])
    assert AUDIT_ENTRIES // 4096 == 16384
    check = alibi_dtype_audit(alibi(4096), 64, ["bfloat16"])
    assert check.evidence.coverage == "all"
    assert check.evidence.audit is not None


# --- the CLI path of check-impl (MODULE:ATTR from a file) -----------------------------------

_MODULE = '''
import numpy as np
M = np.exp2(-8 * np.arange(1, 9) / 8)

def bias(q, k):
    q, k = np.asarray(q), np.asarray(k)
    out = -M[:, None, None] * (q[:, None] - k[None, :]).astype(np.float64)
    out[5] += ((q[:, None] == 301) & (k[None, :] == 17)) * 1.0
    return out

def good(q, k):
    q, k = np.asarray(q), np.asarray(k)
    return -M[:, None, None] * (q[:, None] - k[None, :]).astype(np.float64)
'''


@pytest.mark.parametrize(("attr", "code", "word"), [("bias", 1, "FAIL"), ("good", 0, "PASS")])
def test_cli_check_impl_pairwise(tmp_path, attr, code, word):
    path = tmp_path / "pairwise_bias.py"
    path.write_text(_MODULE)
    out = subprocess.run([sys.executable, "-m", "posproof", "check-impl", f"{path}:{attr}",
                          "--alibi", "--heads", "8", "--max-len", "512"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == code, out.stderr
    assert out.stdout.splitlines()[0].endswith(word)
    if code:
        assert "(301, 17)" in out.stdout


def test_identify_alibi_far_out_slopes_is_no_match():
    from posproof.testing.bias.alibi import identify_alibi

    assert identify_alibi(np.array([1e-300, 1e-301, 1e-302, 1e-303]))["rule"] is None
