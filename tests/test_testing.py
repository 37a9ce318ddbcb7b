"""posproof.testing: assert_encoding and assert_rotary pass, fail, and say why.

Each failing case is one of the bugs in docs pitfalls (sin/cos swapped,
split vs interleaved, n vs n−1, offsets, fp16 angles, pair frequency
mismatch, another base, random tables, flipped rotation…), built here with
NumPy, and the test checks the explanation names it.
"""

from __future__ import annotations

import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings

import posproof
from posproof.errors import InvalidParameter, PosproofError, UnknownName
from posproof.testing import (
    InvalidImplementation,
    assert_encoding,
    assert_rotary,
    check_encoding,
    check_rotary,
    default_positions,
)
from posproof.testing.absolute.read import Tolerance
from posproof.testing.rope.check import relative_property
from posproof.testing.strategies import query_key_pairs

D, L = 64, 1024
SPEC = posproof.preset("vaswani", dim=D)


def interleave(sin: np.ndarray, cos: np.ndarray) -> np.ndarray:
    out = np.empty((sin.shape[0], 2 * sin.shape[1]), dtype=sin.dtype)
    out[:, 0::2], out[:, 1::2] = sin, cos
    return out


def low_precision_angles(dtype: object) -> np.ndarray:
    """The table a float32 model computes when it forms x·ω in ``dtype`` (fp16, bf16)."""
    positions = np.arange(L)
    w = SPEC.frequencies_float.astype(np.float32)
    with np.errstate(over="ignore"):
        ang = (positions.astype(np.float32).astype(dtype)[:, None]
               * w.astype(dtype)[None]).astype(np.float32)
    return interleave(np.sin(ang), np.cos(ang))


def explanation(impl: object, spec: object = "vaswani", **kw: object) -> str:
    report = check_encoding(impl, spec, **kw)
    assert not report.ok
    with pytest.raises(AssertionError) as info:
        assert_encoding(impl, spec, **kw)
    assert str(info.value) == report.message
    return report.explanation or ""


# --------------------------------------------------------------------------- passing
@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
def test_the_spec_passes_in_every_dtype(dtype: str) -> None:
    report = assert_encoding(SPEC.table(L, dtype=dtype), "vaswani")
    assert report.ok
    assert report.dtype == dtype
    assert report.score <= 1


def test_float32_angles_fail_by_default_and_pass_when_declared() -> None:
    """The default is the exact table rounded to float32; angles="float32" is the opt-in."""
    table = low_precision_angles(np.float32)
    report = check_encoding(table, "vaswani")
    assert not report.ok
    assert report.accepted_with_angles == "float32"
    assert 'pass angles="float32"' in report.message
    assert assert_encoding(table, "vaswani", angles="float32").ok
    assert check_encoding(table, "vaswani", angles=np.float32).ok
    why = explanation(table, "vaswani", dtype="float64")
    assert why.startswith("float32 angles")


def low_precision_table(dtype: object) -> np.ndarray:
    """A table computed entirely in ``dtype``: angles, sin and cos, stored in ``dtype``."""
    positions = np.arange(L)
    w = SPEC.frequencies_float
    with np.errstate(over="ignore"):
        ang = (positions.astype(dtype)[:, None] * w.astype(dtype)[None]).astype(np.float64)
    return interleave(np.sin(ang), np.cos(ang)).astype(dtype)


@pytest.mark.parametrize(("dtype", "name", "off_by"), [
    (np.float16, "float16", 0.3), (ml_dtypes.bfloat16, "bfloat16", 1.9)])
def test_low_precision_angles_fail_in_a_low_precision_table(dtype: object, name: str,
                                                             off_by: float) -> None:
    """Issue 13: a float16 / bfloat16 table whose angles were formed in that dtype is off by
    0.4 / 2.0 at positions below 1024; it fails against the spec, and the message names
    angles=."""
    table = low_precision_table(dtype)
    assert table.dtype == np.dtype(dtype)
    report = check_encoding(table, "vaswani")
    assert not report.ok
    assert report.dtype == name
    assert report.max_error > off_by
    assert "angles=" in report.message
    assert report.tolerance["out"] == 4 * posproof.testing.identification.dtype_eps(name)
    assert report.tolerance["angle"] == 16 * 2.0**-52
    assert report.worst["tolerance"] < 0.2
    declared = check_encoding(table, "vaswani", angles=name)
    assert declared.ok
    u = 2.0 ** -{"float16": 11, "bfloat16": 8}[name]       # the rounding model's γ_4 at ω = 1
    assert declared.tolerance["angle"] == pytest.approx(4 * u / (1 - 4 * u), rel=1e-9)


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16, np.float32])
def test_correct_low_precision_tables_pass(dtype: object) -> None:
    """The exact table rounded to the dtype (NumPy bfloat16 too) passes by default."""
    report = assert_encoding(SPEC.table(L).astype(dtype), "vaswani")
    assert report.dtype == np.dtype(dtype).name


def test_default_tolerance_from_both_sides() -> None:
    """One entry off by 0.9 × its tolerance passes, by 1.1 × fails; the tolerance reported
    is 4·eps32 + 16·eps64·|x·ω| (float32) and 16·eps64·(1 + |x·ω|) (float64)."""
    x, col = 1000, 6                           # pair 3: ω = 10000^(−6/64)
    w = 10000.0 ** (-6 / 64)
    for dtype, tol in (("float32", 4 * 2.0**-23 + 16 * 2.0**-52 * x * w),
                       ("float64", 16 * 2.0**-52 * (1 + x * w))):
        for factor, ok in ((0.9, True), (1.1, False)):
            table = SPEC.table(L)
            table[x, col] += factor * tol
            report = check_encoding(table, "vaswani", dtype=dtype, explain=False)
            assert report.ok is ok, (dtype, factor, report.score)
            if not ok:
                assert (report.worst["position"], report.worst["dim"]) == (x, col)
                assert report.worst["tolerance"] == pytest.approx(tol, rel=1e-12)
                assert report.n_bad_positions == 1


def test_declared_angles_tolerance_from_both_sides() -> None:
    """angles="float16" allows its rounding model, 4·eps + eps16 + γ_k·|x·ω| with
    γ_k = k·u/(1 − k·u), k = 2·|ln ω| + 4, u = 2^−11, no more."""
    x, col = 300, 10
    w = 10000.0 ** (-10 / 64)
    u, k = 2.0 ** -11, 2 * abs(np.log(w)) + 4
    tol = 4 * 2.0**-52 + 2.0**-10 + k * u / (1 - k * u) * x * w
    for factor, ok in ((0.9, True), (1.1, False)):
        table = SPEC.table(L)
        table[x, col] += factor * tol
        report = check_encoding(table, "vaswani", angles="float16", explain=False)
        assert report.ok is ok
        assert report.tolerance["angle"] == pytest.approx(4 * u / (1 - 4 * u), rel=1e-9)
    assert report.worst["tolerance"] == pytest.approx(tol, rel=1e-9)


def test_frequency_off_by_a_relative_millionth_fails() -> None:
    """ω·(1 + 1e-6) fails in float64 and float32 by default, and under angles="float32" too:
    float32's rounding model allows 4 roundings of 2^−24 (2.4e-7) relative at ω = 1, not
    16·eps32 ≈ 1.9e-6; a relative 1e-7 is within it."""
    def drifted(rel: float, dtype: object) -> np.ndarray:
        ang = np.outer(np.arange(L), SPEC.frequencies_float * (1 + rel))
        return interleave(np.sin(ang), np.cos(ang)).astype(dtype)

    assert not check_encoding(drifted(1e-6, np.float64), "vaswani").ok
    assert not check_encoding(drifted(1e-6, np.float32), "vaswani").ok
    assert not check_encoding(drifted(1e-6, np.float32), "vaswani", angles="float32").ok
    assert check_encoding(drifted(1e-7, np.float32), "vaswani", angles="float32").ok
    assert not check_encoding(drifted(4e-6, np.float32), "vaswani", angles="float32").ok


def test_float32_drift_in_a_float64_table_fails() -> None:
    """A float64 table whose values went through float32 fails as float64, passes as float32."""
    drift = SPEC.table(L).astype(np.float32).astype(np.float64)
    report = check_encoding(drift, "vaswani")
    assert not report.ok
    assert report.dtype == "float64"
    assert 1e-9 < report.max_error < 1e-7
    assert check_encoding(drift, "vaswani", dtype="float32").ok


def test_callable_is_checked_at_large_positions() -> None:
    calls: list[np.ndarray] = []

    def impl(pos: np.ndarray) -> np.ndarray:
        calls.append(pos)
        return SPEC.table(pos)

    report = assert_encoding(impl, "vaswani", dim=D, max_len=100_000)
    assert report.max_position == 99_999
    assert calls[0].dtype == np.int64
    assert calls[0].max() == 99_999
    assert report.n_positions == len(default_positions(100_000))


def test_spec_as_encoding_and_tables_with_offsets() -> None:
    enc = posproof.preset("vaswani", dim=16, offset=7)
    assert assert_encoding(enc.table(50), enc).ok
    assert assert_encoding(enc.table(np.arange(50)), enc, first_position=0).ok


def test_fairseq_weights_start_at_position_zero() -> None:
    """A fairseq weight table (padding row zero) is read from position 0 automatically."""
    enc = posproof.preset("fairseq", dim=32)
    assert assert_encoding(enc.table(np.arange(200)), "fairseq").ok
    assert assert_encoding(enc.table(200), "fairseq").ok      # rows from position 2


def test_embedding_module_weight_is_the_table() -> None:
    class Embedding:
        weight = SPEC.table(100)

        def __call__(self, ids: object) -> object:
            raise AssertionError("not called: the weight is the table")

    assert assert_encoding(Embedding(), "vaswani").ok


# --------------------------------------------------------------------------- explanations
@pytest.mark.parametrize(("impl", "expected"), [
    (posproof.preset("vaswani", dim=D, layout="interleaved-cos").table(L),
     "matches the spec with sin and cos swapped"),
    (posproof.preset("vaswani", dim=D, layout="split").table(L),
     "matches the split layout, not interleaved"),
    (posproof.preset("tensor2tensor", dim=D, layout="interleaved").table(L),
     "frequencies follow an exponent over n−1, as in tensor2tensor"),
    (SPEC.table(np.arange(L) + 2), "offset by 2 positions"),
    (low_precision_angles(np.float16), "float16 angles"),
    (low_precision_angles(ml_dtypes.bfloat16), "bfloat16 angles"),
    (posproof.preset("column-exponent", dim=D).table(L),
     "dims 2i and 2i+1 use different frequencies"),
    (posproof.preset("vaswani", dim=D, base=500000).table(L), "base 500000, not 10000"),
    (np.random.default_rng(0).normal(size=(L, D)), "no explanation confirmed"),
    (np.random.default_rng(1).normal(scale=0.02, size=(L, D)).astype(np.float32),
     "no explanation confirmed"),
    (3 * SPEC.table(L), "scaled by 3"),
], ids=["swap", "split", "n-1", "offset", "fp16", "bf16", "pairs", "base", "random", "init",
        "scaled"])
def test_failures_are_explained(impl: np.ndarray, expected: str) -> None:
    assert explanation(impl).startswith(expected)


def test_two_bugs_at_once_are_both_named() -> None:
    impl = posproof.preset("vaswani", dim=D, layout="split", base=500000).table(L)
    why = explanation(impl)
    assert "matches the split layout, not interleaved" in why
    assert "base 500000, not 10000" in why


def test_n_minus_one_spec_against_an_over_n_impl() -> None:
    why = explanation(posproof.preset("vaswani", dim=D, layout="split").table(L),
                      "tensor2tensor")
    assert why.startswith("frequencies follow an exponent over n, as in the original paper")


def test_message_names_positions_dims_and_tolerance() -> None:
    """The message says where, by how much, against which tolerance, and why."""
    table = SPEC.table(L)
    table[700:, 10] += 1e-3                  # a drift in one column past position 700
    report = check_encoding(table, "vaswani")
    lines = report.message.splitlines()
    assert lines[0] == ('impl disagrees with preset("vaswani", dim=64) at 324 of 1024 '
                        "positions (700–1023) and 1 of 64 dims (10)")
    assert lines[1].startswith("worst: position 7")
    assert "mpmath, 30 digits" in lines[1]
    assert "tolerance" in lines[1]
    assert report.worst["dim"] == 10
    assert report.worst["difference"] == pytest.approx(1e-3)


def test_dropped_column_and_odd_dim_truncation() -> None:
    why = explanation(SPEC.table(L)[:, :-1], "vaswani", dim=D)
    assert "63 columns, the spec 64" in why
    assert "dropped column" in why
    why = explanation(SPEC.table(L)[:, :-1], "vaswani")       # dim inferred: 63, padded
    assert "with its last column cut off" in why


def test_callable_offset_is_explained() -> None:
    enc = posproof.preset("vaswani", dim=16)
    report = check_encoding(lambda pos: enc.table(pos + 2), enc)
    assert report.explanation.startswith(
        "offset by 2 positions: the impl at x equals the spec at x + 2 — confirmed: "
        "regenerating with the spec at x + 2 reproduces the impl to ")


def test_callable_returning_nan_at_large_positions_fails() -> None:
    """An fp16 overflow past 65504 is a failure with the positions, not a crash."""
    def impl(pos: np.ndarray) -> np.ndarray:
        out = SPEC.table(pos)
        out[pos > 65504] = np.nan
        return out

    report = check_encoding(impl, "vaswani", dim=D, max_len=70_000)
    assert not report.ok
    assert "NaN or inf" in report.explanation
    assert "float16 overflows past 65504" in report.explanation


# --------------------------------------------------------------------------- bad input
def test_bad_input() -> None:
    with pytest.raises(InvalidImplementation, match="neither a table"):
        assert_encoding(42, "vaswani")
    with pytest.raises(InvalidParameter, match="NaN or infinite"):
        assert_encoding(np.full((4, 4), np.nan), "vaswani")
    with pytest.raises(InvalidParameter, match="shape"):
        assert_encoding(np.zeros(8), "vaswani")
    with pytest.raises(InvalidParameter, match="shape"):
        assert_encoding(np.zeros((2, 3, 4)), "vaswani")
    with pytest.raises(UnknownName):
        assert_encoding(SPEC.table(8), "no-such-preset")
    with pytest.raises(InvalidParameter, match="does not take"):
        assert_encoding(SPEC.table(8), "vaswani", bse=3)
    assert assert_encoding(lambda pos: SPEC.table(pos), "vaswani", positions=[0, 7]).ok
    with pytest.raises(InvalidImplementation, match="raised ZeroDivisionError"):
        assert_encoding(lambda pos: 1 / 0, "vaswani", dim=8)
    with pytest.raises(InvalidImplementation, match="returned 3 rows"):
        assert_encoding(lambda pos: np.zeros((3, 8)), "vaswani", dim=8, max_len=10)
    assert issubclass(InvalidImplementation, TypeError)
    assert issubclass(InvalidImplementation, PosproofError)


def test_torch_is_never_imported() -> None:
    """posproof.testing duck-types tensors: torch and JAX stay unimported."""
    code = ("import sys, numpy as np, posproof\n"
            "from posproof.testing import assert_encoding, assert_rotary\n"
            "assert_encoding(posproof.preset('vaswani', dim=8).table(64), 'vaswani')\n"
            "assert_rotary(posproof.rotary(10000, 8).apply, head_dim=8)\n"
            "print(sorted(m for m in ('torch', 'jax', 'tensorflow') if m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"


# --------------------------------------------------------------------------- rotary
H = 32
ROT = posproof.rotary(10000, H)


def rotary_explanation(fn: object, **kw: object) -> str:
    report = check_rotary(fn, **{"head_dim": H, **kw})
    assert not report.ok
    with pytest.raises(AssertionError) as info:
        assert_rotary(fn, **{"head_dim": H, **kw})
    assert str(info.value) == report.message
    return report.explanation or ""


def fp16_rope(x: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """HF-style rotate_half with cos/sin of an angle table built in float16."""
    with np.errstate(over="ignore", invalid="ignore"):
        ang = (pos.astype(np.float16)[:, None]
               * ROT.frequencies_float.astype(np.float16)[None]).astype(np.float64)
        cos, sin = np.tile(np.cos(ang), 2), np.tile(np.sin(ang), 2)
    half = np.concatenate([-x[..., H // 2:], x[..., :H // 2]], -1)
    return x * cos + half * sin


@pytest.mark.parametrize("layout", ["half", "adjacent"])
def test_canonical_rope_passes(layout: str) -> None:
    rot = posproof.rotary(10000, H, layout=layout)
    report = assert_rotary(rot.apply, head_dim=H, layout=layout)
    assert [c["status"] for c in report.checks] == ["pass"] * 4
    assert report.fingerprint["layout"] == layout
    assert report.fingerprint["direction"] == "canonical"
    assert report.fingerprint["base"] == "10000"


def test_partial_rotary_passes_with_its_spec() -> None:
    rot = posproof.rotary(10000, H, rotary_dim=16)
    assert assert_rotary(rot.apply, rot).ok
    assert assert_rotary(rot.apply, "rope:base=10000,dim=32,rotary_dim=16").ok


@pytest.mark.parametrize(("fn", "expected"), [
    (lambda x, p: ROT.apply(x, -p), "rotation direction is flipped"),
    (posproof.rotary(10000, H, layout="adjacent").apply, "matches the adjacent layout, not half"),
    (posproof.rotary(500000, H).apply, "base 500000, not 10000"),
    (posproof.rotary(10000, H, rotary_dim=16).apply, "rotates 16 of 32 channels, not 32"),
    (lambda x, p: ROT.apply(x, p + 3), "positions offset by 3"),
    (lambda x, p: 1.25 * ROT.apply(x, p), "cos and sin are scaled by 1.25"),
    (ROT.with_schedule(posproof.Explicit(tuple(reversed(ROT.frequencies)))).apply,
     "frequency order is reversed"),
    (lambda x, p: x, "no channel is rotated"),
], ids=["flipped", "adjacent", "base", "partial", "offset", "scaled", "reversed", "identity"])
def test_rotary_failures_are_explained(fn: object, expected: str) -> None:
    assert rotary_explanation(fn).startswith(expected)


def test_flipped_rotation_passes_shift_invariance_but_fails_the_fingerprint() -> None:
    """nanochat#489: R(−m) keeps ⟨R(m)q, R(n)k⟩ a function of n−m; only the fingerprint sees it."""
    report = check_rotary(lambda x, p: ROT.apply(x, -p), head_dim=H)
    status = {c["name"]: c["status"] for c in report.checks}
    assert status == {"matches_spec": "fail", "relative_property": "pass",
                      "norm_preservation": "pass", "convention": "fail"}
    assert "only this fingerprint" in report.message


def test_fp16_angles_in_rope() -> None:
    why = rotary_explanation(fp16_rope, max_position=60000)
    assert why.startswith("float16 angles")
    report = check_rotary(fp16_rope, head_dim=H)          # up to 65535: fp16 overflows
    assert "NaN or inf" in report.explanation
    assert "65504" in report.explanation


def test_cos_and_sin_from_different_positions_break_the_relative_property() -> None:
    """A cos table one position behind the sin table is not a rotation."""
    def skewed(x: np.ndarray, pos: np.ndarray) -> np.ndarray:
        ang_c = np.multiply.outer(pos - 1.0, ROT.frequencies_float)
        ang_s = np.multiply.outer(pos * 1.0, ROT.frequencies_float)
        half = np.concatenate([-x[..., H // 2:], x[..., :H // 2]], -1)
        return x * np.tile(np.cos(ang_c), 2) + half * np.tile(np.sin(ang_s), 2)

    report = check_rotary(skewed, head_dim=H)
    status = {c["name"]: c["status"] for c in report.checks}
    assert status["relative_property"] == "fail"
    assert status["norm_preservation"] == "fail"
    assert "relative property fails" in report.message


def test_rotary_bad_input() -> None:
    with pytest.raises(InvalidImplementation, match="not callable"):
        assert_rotary(None, head_dim=8)
    with pytest.raises(InvalidParameter, match="head_dim"):
        assert_rotary(ROT.apply)
    with pytest.raises(InvalidImplementation, match="raised"):
        assert_rotary(lambda x: x, head_dim=8)
    with pytest.raises(InvalidImplementation, match="keeps the shape"):
        assert_rotary(lambda x, p: x[..., :4], head_dim=8)
    with pytest.raises(InvalidParameter, match="disagrees"):
        assert_rotary(ROT.apply, ROT, head_dim=8)
    with pytest.raises(InvalidParameter, match="inputs="):
        assert_rotary(ROT.apply, head_dim=8, inputs="jax")


@settings(max_examples=20, deadline=None)
@given(query_key_pairs(H, dtype="float32"))
def test_relative_property_tolerance_holds_for_float32_vectors(qk: tuple) -> None:
    """The relative-property check of assert_rotary raises no false alarm for any finite
    float32 q, k at large m, n: its own per-pair tolerance, called through the library."""
    q, k = qk
    assert q.dtype == np.float32
    assert np.all(np.isfinite(q))
    rel, norm = relative_property(ROT.apply, ROT.pairs, ROT.frequencies_float, q, k,
                                  [40_000, 7], [51_234, 60_000], [3, 5_000],
                                  Tolerance.of("float64"))
    assert rel["status"] == "pass", rel
    if np.linalg.norm(q) and np.linalg.norm(k):
        assert norm["status"] == "pass", norm
    # and the same check fails when a rotation angle is off by 1e-6 at one position
    def off(x: np.ndarray, pos: np.ndarray) -> np.ndarray:
        return ROT.apply(x, np.where(np.asarray(pos) == 51_234, 51_234 + 1e-6, pos))

    sizes = [np.hypot(q[i], q[j]) * np.hypot(k[i], k[j]) for i, j in ROT.pairs]
    if max(sizes) > 1e-3:
        rel, _ = relative_property(off, ROT.pairs, ROT.frequencies_float, q, k,
                                   [40_000], [51_234], [3], Tolerance.of("float64"))
        assert rel["status"] == "fail", rel


def test_scale_from_both_sides() -> None:
    """scale=: the impl equals scale × spec; the tolerance is scaled alike and reported."""
    table = SPEC.table(L) * 0.0625
    report = check_encoding(table, "vaswani", scale=0.0625)
    assert report.ok, report.message
    assert report.tolerance["scale"] == 0.0625
    assert report.tolerance["out"] == 0.0625 * 16 * 2.0**-52
    assert report.tolerance["formula"].startswith("0.0625·(16·eps64 + 16·eps64·|x·ω|)")
    x, col = 1000, 6
    tol = 0.0625 * 16 * 2.0**-52 * (1 + x * 10000.0 ** (-6 / 64))
    for factor, ok in ((0.9, True), (1.1, False)):
        bumped = table.copy()
        bumped[x, col] += factor * tol
        report = check_encoding(bumped, "vaswani", scale=0.0625, explain=False)
        assert report.ok is ok
    assert report.worst["tolerance"] == pytest.approx(tol, rel=1e-12)
    assert "0.0625·(16·eps64" in report.message
    # a scale off by a relative 1e-9 fails; without scale= the table fails too
    assert not check_encoding(table, "vaswani", scale=0.0625 * (1 + 1e-9), explain=False).ok
    assert not check_encoding(table, "vaswani", explain=False).ok
