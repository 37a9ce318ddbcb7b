"""The bug corpus, family by family (issue 22 §3): for each family's explanation list, a broken
copy per hypothesis must be explained by that hypothesis (confirmed by regeneration), a correct
copy must pass with no explanation, and a near miss must not be explained.  The working precision
read from the data is tested from both sides (a float32 value stored as float64 is read; one
float64 ulp off, or short dyadic values, are not).  It explains a failure and names the option
(``dtype="float32"``); it never widens the verdict's tolerance: values that carry less precision
than their dtype fail, so an impl that silently loses precision is caught."""

from __future__ import annotations

import numpy as np
import pytest

from posproof.model.alibi import alibi, mpt_exponents
from posproof.model.configs import parse_spec
from posproof.model.multiaxis import multi_preset
from posproof.model.rope import rotary
from posproof.testing import check_alibi, check_encoding, check_rotary
from posproof.testing.bias.alibi import _round_to
from posproof.testing.core.precision import stored_precision

# --------------------------------------------------------------------------- precision read
N = 12
SLOPES = alibi(N).slopes_array()
DELTA = np.arange(32)[:, None] - np.arange(32)[None, :]


def _bias(slopes: np.ndarray, dtype: type = np.float64) -> np.ndarray:
    s = slopes.astype(dtype)
    return np.where(DELTA[None] >= 0, -(s[:, None, None] * DELTA[None].astype(dtype)),
                    -np.inf).astype(np.float64)


def test_float32_values_stored_as_float64_are_read_as_float32() -> None:
    assert stored_precision(SLOPES.astype(np.float32).astype(np.float64), "float64") == "float32"


def test_one_float64_ulp_off_is_not_read_as_float32() -> None:
    values = SLOPES.astype(np.float32).astype(np.float64)
    values[3] = np.nextafter(values[3], 1.0)
    assert stored_precision(values, "float64") is None


def test_short_dyadic_values_carry_no_precision() -> None:
    powers = np.exp2(-np.arange(1, 9.0))            # exact in every dtype
    assert stored_precision(powers, "float64") is None
    assert stored_precision(np.arange(1, 300.0), "float64") is None


def test_exact_values_already_in_the_dtype_read_nothing() -> None:
    v = SLOPES.astype(np.float32).astype(np.float64)
    assert stored_precision(v, "float64", reference=v) is None


def test_float16_values_stored_as_float32_are_read() -> None:
    v = np.linspace(0.1, 0.9, 50).astype(np.float16).astype(np.float32).astype(np.float64)
    assert stored_precision(v, "float32") == "float16"
    assert stored_precision(v, "float64") == "float16"


def test_alibi_float32_bias_passed_as_float64_is_explained_and_passes_declared() -> None:
    bias = _bias(SLOPES, np.float32)
    report = check_alibi(bias, n_heads=N)
    assert not report.ok
    assert report.dtype == "float64"
    assert report.explanations[0].startswith("the values carry float32 precision")
    assert 'pass dtype="float32"' in report.message
    assert "says: None" not in report.message
    declared = check_alibi(bias, n_heads=N, dtype="float32")
    assert declared.ok
    assert declared.dtype == "float32"
    assert declared.evidence.details["judged_at"] == "float32"


def test_alibi_float32_slopes_one_float64_ulp_off_are_judged_in_float64() -> None:
    slopes = SLOPES.astype(np.float32).astype(np.float64)
    slopes[0] = np.nextafter(slopes[0], 1.0)
    report = check_alibi(slopes, n_heads=N)
    assert report.dtype == "float64"
    assert not report.ok                       # float32 rounding is beyond float64's tolerance


def test_alibi_wrong_float32_slopes_still_fail_at_float32() -> None:
    wrong = np.exp2(-8 * np.arange(1, N + 1) / N)
    report = check_alibi(wrong.astype(np.float32).astype(np.float64), n_heads=N)
    assert not report.ok
    assert report.explanations == [e for e in report.explanations if "geometric rule" in e]
    assert report.explanations                         # judged at the float32 it carries
    assert not check_alibi(wrong.astype(np.float32), n_heads=N, dtype="float32").ok


# --------------------------------------------------------------------------- ALiBi corpus
def _alibi_corpus() -> list[tuple[str, int, dict, np.ndarray, str]]:
    """(id, n_heads, check options, impl, text the explanation must contain)."""
    n = 24                                        # not a power of two; bf16 ≠ f16 roundings
    s = alibi(n).slopes_array()
    q = 32
    return [
        ("geometric", n, {}, np.exp2(-8 * np.arange(1, n + 1) / n), "geometric rule"),
        ("truncated", n, {}, np.exp2(-8 * np.arange(1, q + 1) / q)[:n], "truncated"),
        ("reversed", n, {}, s[::-1], "reversed"),
        ("sign", n, {}, -s, "sign flipped"),
        ("power-h0", n, {}, np.exp2(-8 * np.arange(0, n) / n), "2^(−8h/n)"),
        ("power-h2", n, {}, np.exp2(-8 * np.arange(2, n + 2) / n), "2^(−8(h+2)/n)"),
        # a float32 bias from a low-precision slopes buffer (a bfloat16 buffer alone is a
        # bfloat16 impl: read so, and judged at bfloat16's tolerance)
        ("bfloat16", n, {}, _bias(_round_to(s, "bfloat16"), np.float32), "bfloat16"),
        ("float16", n, {}, _bias(_round_to(s, "float16"), np.float32), "rounded to float16"),
        ("mpt-16", n, {}, np.exp2(-np.array([float(e) for e in mpt_exponents(n, 16)])),
         "alibi_bias_max=16"),
        ("bloom-vs-mpt16", 8, {"rule": "mpt", "alibi_bias_max": 16}, alibi(8).slopes_array(),
         "the reference rule (alibi_bias_max=8)"),
    ]


@pytest.mark.parametrize("case", _alibi_corpus(), ids=lambda c: c[0])
def test_alibi_bug_gets_its_own_confirmed_explanation(case: tuple) -> None:
    _, n, kwargs, impl, text = case
    report = check_alibi(impl, n_heads=n, **kwargs)
    assert not report.ok
    assert report.explanations, report.message
    assert any(text in e for e in report.explanations), report.message
    confirmed = [h for h in report.hypotheses if h["confirmed"]]
    assert all(h["score"] <= 1 for h in confirmed)
    assert len(report.explanations) == len(confirmed)


def test_bloom_slopes_against_mpt16_are_not_the_non_power_of_two_rule() -> None:
    report = check_alibi(alibi(8).slopes_array(), n_heads=8, rule="mpt", alibi_bias_max=16)
    assert "power of two" not in report.message
    assert "most likely: the reference rule (alibi_bias_max=8)" in report.message


def test_several_confirmed_explanations_are_all_named() -> None:
    # 12 heads: the slopes 2^(−k/2) round alike to bfloat16 and float16
    report = check_alibi(_bias(_round_to(SLOPES, "bfloat16"), np.float32), n_heads=N)
    assert "bfloat16" in report.explanation
    assert "float16" in report.explanation


def test_a_bfloat16_slopes_buffer_gets_both_explanations() -> None:
    slopes = _round_to(alibi(24).slopes_array(), "bfloat16")
    report = check_alibi(slopes, n_heads=24)
    assert not report.ok
    assert any(e.startswith("the values carry bfloat16 precision") for e in report.explanations)
    assert any("rounded to bfloat16" in e for e in report.explanations)
    assert report.message.count("several explanations") == 1
    assert check_alibi(slopes, n_heads=24, dtype="bfloat16").ok


def test_alibi_near_miss_is_not_explained() -> None:
    near = SLOPES * (1 + 1e-9)
    report = check_alibi(near, n_heads=N)
    assert not report.ok
    assert report.explanation is None
    assert "no explanation is confirmed" in report.message


def test_alibi_correct_slopes_pass_without_explanation() -> None:
    report = check_alibi(SLOPES, n_heads=N)
    assert report.ok
    assert report.explanation is None
    assert report.dtype == "float64"


def test_alibi_forms_are_named() -> None:
    causal = check_alibi(_bias(SLOPES), n_heads=N)
    assert causal.ok
    assert causal.form.startswith("causal: the triangle")
    sym = check_alibi(-(SLOPES[:, None, None] * np.abs(DELTA)[None]), n_heads=N)
    assert sym.ok
    assert sym.form.startswith("symmetric −m·|i − j|")
    toeplitz = check_alibi(-(SLOPES[:, None, None] * DELTA[None]), n_heads=N)
    assert toeplitz.ok
    assert "continued above the diagonal" in toeplitz.form
    assert toeplitz.label.startswith("pass (partial coverage: lower triangle only")


def test_alibi_swapped_axes_is_confirmed() -> None:
    report = check_alibi(np.swapaxes(_bias(SLOPES), 1, 2), n_heads=N)
    assert not report.ok
    assert report.explanations == [e for e in report.explanations if "swapped" in e]
    assert report.form == ""                    # not named when the causal part fails


def test_alibi_identify_reads_float32_slopes() -> None:
    from posproof.testing import identify_alibi

    assert identify_alibi(SLOPES.astype(np.float32))["rule"] == "reference"
    assert identify_alibi(SLOPES.astype(np.float32).astype(np.float64))["rule"] == "reference"


# --------------------------------------------------------------------------- grid tables
ENC = multi_preset("sincos-2d", dim=64)
GRID = (16, 16)
POS = ENC.grid(GRID)


def _grid_corpus() -> list[tuple[str, np.ndarray, str]]:
    flipped = POS.copy()
    flipped[:, 0] = 15 - flipped[:, 0]
    transposed = ENC.grid(GRID[::-1])[:, ::-1].copy()
    transposed[:, 1] = 15 - transposed[:, 1]
    return [
        ("offset-both", ENC.table(POS + 1), "offset"),
        ("offset-mixed", ENC.table(POS + np.array([1, -1])), "off by one on several axes"),
        ("interpolation-half", ENC.table(POS * 0.5), "1/2"),
        ("interpolation-cogvideox", ENC.table(POS / 1.875), "8/15"),
        ("reversed-row", ENC.table(flipped), "reversed on axis row"),
        ("reversed-transposed", ENC.table(transposed), "with the grid transposed"),
    ]


@pytest.mark.parametrize("case", _grid_corpus(), ids=lambda c: c[0])
def test_grid_bug_gets_its_own_confirmed_explanation(case: tuple) -> None:
    _, table, text = case
    report = check_encoding(table, ENC, grid=GRID)
    assert not report.ok
    assert report.explanation
    assert "confirmed" in report.explanation
    assert text in report.explanation, report.explanation


def test_grid_correct_table_passes_and_a_near_miss_is_not_explained() -> None:
    assert check_encoding(ENC.table(POS), ENC, grid=GRID).ok
    near = ENC.table(POS * (1 + 1e-7))
    report = check_encoding(near, ENC, grid=GRID)
    assert not report.ok
    assert report.explanation.startswith("no explanation")


def _float32_angle_table(grid: tuple[int, int]) -> np.ndarray:
    pos = ENC.grid(grid)
    axis, omega = np.zeros(64, int), np.zeros(64)
    for block in ENC.blocks:
        axis[list(block.columns)] = block.axis
        omega[list(block.columns)] = block.encoding.column_frequencies_float
    exact = ENC.table(pos)
    ang = (pos[:, axis].astype(np.float32) * omega.astype(np.float32)[None]).astype(np.float64)
    is_sin = np.abs(exact - np.sin(pos[:, axis] * omega)) < 1e-12
    return np.where(is_sin, np.sin(ang), np.cos(ang))


def test_grid_table_with_float32_angles_gets_the_angles_hint() -> None:
    table = _float32_angle_table((64, 64))
    report = check_encoding(table, ENC, grid=(64, 64))
    assert not report.ok
    assert report.accepted_with_angles == "float32"
    assert 'pass angles="float32"' in report.message
    assert check_encoding(table, ENC, grid=(64, 64), angles="float32").ok


def test_grid_bug_gets_no_angles_hint() -> None:
    report = check_encoding(ENC.table(POS + 1), ENC, grid=GRID)
    assert report.accepted_with_angles is None
    assert "none of them accepts this table" in report.message


# --------------------------------------------------------------------------- rotary
LLAMA3 = "rope:dim=128,base=500000,scaling=llama3,factor=8"


def test_a_scaled_rotary_failure_names_the_whole_spec_and_what_it_measured() -> None:
    spec = parse_spec(LLAMA3)
    plain = rotary(10000, 128, layout="half")
    report = check_rotary(lambda x, p: plain.apply(x, p), spec)
    assert not report.ok
    first = report.message.splitlines()[0]
    assert "scaling=llama3, factor=8, low_freq_factor=1, high_freq_factor=4" in first
    conv = next(c for c in report.checks if c["name"] == "convention")
    assert conv["status"] == "fail"
    assert "measured the frequencies of a plain RoPE of base 10000" in conv["differences"][0]


def test_a_correct_scaled_rotary_passes_its_convention() -> None:
    spec = parse_spec(LLAMA3)
    report = check_rotary(lambda x, p: spec.apply(x, p), spec)
    assert report.ok
    assert next(c for c in report.checks if c["name"] == "convention")["status"] == "pass"


def test_multi_axis_rotary_positions_reach_the_impl_as_int64() -> None:
    from posproof.model.multirope import axial_rope
    from posproof.testing.rope.grid import check_multi_rotary

    spec = axial_rope((16, 16))
    table = np.zeros(64)
    seen = []

    def impl(x: np.ndarray, pos: np.ndarray) -> np.ndarray:
        seen.append(pos.dtype)
        table[pos]                                 # indexing a buffer: must not crash
        return spec.apply(x, pos)

    report = check_multi_rotary(impl, spec, positions=[[0, 1, 2, 3], [3, 4, 5, 6]])
    assert report.ok
    assert seen
    assert all(d == np.int64 for d in seen)


def test_multi_axis_rotary_non_integer_positions_are_refused() -> None:
    from posproof.errors import InvalidParameter
    from posproof.model.multirope import axial_rope
    from posproof.testing.rope.grid import check_multi_rotary

    with pytest.raises(InvalidParameter, match="whole numbers"):
        check_multi_rotary(lambda x, p: x, axial_rope((16, 16)), positions=[[0, 0.5], [1, 2]])


# --------------------------------------------------------------------------- multi-axis rotary
def _rotary_corpus() -> list[tuple[str, object, object, str]]:
    from posproof.model.multirope import axial_rope, mrope

    spec = mrope()
    return [
        ("mrope-base", spec, lambda x, p: mrope(base=10000).apply(x, p), "base/theta 10000"),
        ("axial-theta", axial_rope((16, 16)),
         lambda x, p: axial_rope((16, 16), theta=500000).apply(x, p), "base/theta 500000"),
        ("mrope-offset-two-axes", spec,
         lambda x, p: spec.apply(x, p + np.array([[1], [1], [0]])), "several axes at once"),
    ]


@pytest.mark.parametrize("case", _rotary_corpus(), ids=lambda c: c[0])
def test_multi_axis_rotary_bug_gets_its_own_confirmed_explanation(case: tuple) -> None:
    from posproof.testing.rope.grid import check_multi_rotary

    _, spec, impl, text = case
    report = check_multi_rotary(impl, spec)
    assert not report.ok
    assert text in report.explanation, report.explanation
    assert "confirmed" in report.explanation


def test_multi_axis_rotary_near_base_is_not_explained() -> None:
    from posproof.model.multirope import mrope
    from posproof.testing.rope.grid import check_multi_rotary

    report = check_multi_rotary(lambda x, p: mrope(base=1000001).apply(x, p), mrope())
    assert not report.ok
    assert "base/theta" not in (report.explanation or "")


# --------------------------------------------------------------------------- the precision read,
# the same for every family: 1-D tables, grids, rotations
def test_1d_float32_table_stored_as_float64_is_explained() -> None:
    import posproof

    table = posproof.preset("vaswani", dim=64).table(512, dtype="float32").astype(np.float64)
    report = check_encoding(table, "vaswani")
    assert not report.ok                                   # float64 accuracy lost: a fail
    assert report.dtype == "float64"
    assert "float32 precision" in report.precision_note
    assert report.explanation.startswith("the values carry float32 precision")
    assert 'pass dtype="float32"' in report.message
    assert "angles=" not in report.message                 # no meaningless float16 hint
    assert check_encoding(table, "vaswani", dtype="float32").ok
    nudged = table.copy()
    nudged[7, 3] = np.nextafter(nudged[7, 3], 2.0)         # no longer a float32 table
    report = check_encoding(nudged, "vaswani")
    assert not report.ok
    assert report.dtype == "float64"
    assert report.precision_note == ""
    assert not report.explanation.startswith("the values carry")


def test_1d_declared_dtype_is_not_overridden_by_the_data() -> None:
    import posproof

    table = posproof.preset("vaswani", dim=64).table(512, dtype="float32").astype(np.float64)
    report = check_encoding(table, "vaswani", dtype="float64")
    assert not report.ok
    assert report.dtype == "float64"


def test_1d_float32_angles_stored_as_float64_get_the_float32_options() -> None:
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from bug_corpus import tutorial  # float32 angles, float32 output

    report = check_encoding(tutorial().astype(np.float64), "vaswani")
    assert not report.ok
    assert 'pass dtype="float32", angles="float32"' in report.explanation
    assert 'angles="float16"' not in report.message     # not the wider, meaningless float16
    assert check_encoding(tutorial().astype(np.float64), "vaswani", dtype="float32",
                          angles="float32").ok


def test_grid_float32_table_stored_as_float64_is_explained() -> None:
    table = ENC.table(POS).astype(np.float32).astype(np.float64)
    report = check_encoding(table, ENC, grid=GRID)
    assert not report.ok
    assert report.explanation.startswith("the values carry float32 precision")
    assert check_encoding(table, ENC, grid=GRID, dtype="float32").ok


def test_rotary_float32_output_stored_as_float64_is_explained() -> None:
    rot = rotary(10000, 64)

    def f32(x: np.ndarray, p: np.ndarray) -> np.ndarray:
        return rot.apply(x, p).astype(np.float32).astype(np.float64)

    report = check_rotary(f32, rot, dtype="float64")
    assert not report.ok
    assert report.explanation.startswith("the values carry float32 precision")
    assert "float32 precision" in report.precision_note
    assert check_rotary(f32, rot, dtype="float32").ok
    exact = check_rotary(lambda x, p: rot.apply(x, p), rot, dtype="float64")
    assert exact.ok
    assert exact.dtype == "float64"
    assert exact.precision_note == ""


# --------------------------------------------------------------------------- T5
def _t5_float(spec: object, name: str) -> object:
    from posproof.measure.t5_dtype import float_buckets
    from posproof.testing.bias.t5 import _signed

    return lambda d: _signed(spec, np.asarray(d), lambda n: float_buckets(spec, n, name),
                             spec.bidirectional, spec.per_direction)


def test_t5_float32_log_ratio_is_named_with_the_dtype_option() -> None:
    from posproof.model.t5_buckets import T5Buckets
    from posproof.testing import check_t5_buckets

    spec = T5Buckets(128, 10**6, True)
    fn = _t5_float(spec, "float32")
    report = check_t5_buckets(fn, 128, 10**6, up_to=10**6, use_torch=False)
    assert not report.ok
    note = report.checks[0].note
    assert "most likely: float32" in note
    assert 'pass dtype="float32"' in note
    assert check_t5_buckets(fn, 128, 10**6, up_to=10**6, use_torch=False, dtype="float32").ok


@pytest.mark.parametrize("index", range(6))
def test_t5_each_hypothesis_is_named_when_it_reproduces_the_impl(index: int) -> None:
    from posproof.model.t5_buckets import T5Buckets
    from posproof.testing import check_t5_buckets
    from posproof.testing.bias.t5 import _hypotheses

    spec = T5Buckets(32, 128, True)
    d = np.arange(-256, 257)
    hyps = _hypotheses(spec, d)
    if index >= len(hyps):
        pytest.skip("fewer hypotheses for this spec")
    name, alt = hyps[index]
    if np.array_equal(alt, spec.buckets(d)):
        pytest.skip("this hypothesis is the exact buckets for this spec")
    table = dict(zip(d.tolist(), alt.tolist(), strict=True))
    report = check_t5_buckets(lambda x: np.array([table[int(v)] for v in np.asarray(x)]),
                              32, 128, up_to=256, use_torch=False)
    assert not report.ok
    assert name in report.checks[0].values["explanations"]
    assert 'pass dtype="' not in report.checks[0].note or name.startswith("float")


def test_t5_a_near_miss_is_not_explained() -> None:
    from posproof.model.t5_buckets import T5Buckets
    from posproof.testing import check_t5_buckets

    spec = T5Buckets(32, 128, True)

    def near(x: np.ndarray) -> np.ndarray:
        out = spec.buckets(np.asarray(x)).copy()
        out[np.asarray(x) == 100] += 1                    # one distance, one bucket off
        return out

    report = check_t5_buckets(near, 32, 128, up_to=256, use_torch=False)
    assert not report.ok
    assert report.checks[0].values["explanations"] == []
    assert "no explanation confirmed" in report.checks[0].note


# --------------------------------------------------------------------------- xPos
def _xpos_impl(spec: object, bump: float = 0.0, at: int = 0, dtype: type = np.float64) -> object:
    def apply(x: object, downscale: bool) -> np.ndarray:
        x = np.asarray(x.numpy() if hasattr(x, "numpy") else x, dtype=np.float64)
        out = spec.apply(x, np.arange(x.shape[1]), key=downscale)
        out[:, at, 0] += bump * np.abs(out[:, at, :]).max(axis=-1)
        return out.astype(dtype).astype(np.float64)
    return apply


def test_xpos_tolerance_grows_with_the_angle_not_fixed() -> None:
    from posproof.model.xpos import XPos
    from posproof.testing.rope.xpos import check_xpos

    spec = XPos(16)
    assert check_xpos(_xpos_impl(spec), spec, long=False).ok
    # 16·eps32·(1 + p·θ_max): ≈ 1.9e-6 of the row at p = 0, ≈ 1.2e-4 at p = 63
    assert not check_xpos(_xpos_impl(spec, 5e-5, at=0), spec, long=False).ok
    assert check_xpos(_xpos_impl(spec, 5e-5, at=63), spec, long=False).ok
    assert not check_xpos(_xpos_impl(spec, 5e-4, at=63), spec, long=False).ok
    assert check_xpos(_xpos_impl(spec, 1e-6, at=0), spec, long=False).ok


def test_xpos_float32_output_stored_as_float64_passes_at_the_contract_precision() -> None:
    from posproof.model.xpos import XPos
    from posproof.testing.rope.xpos import check_xpos

    spec = XPos(16)
    report = check_xpos(_xpos_impl(spec, dtype=np.float32), spec, long=False)
    assert report.ok                                 # the contract's float32, whatever stored
    assert report.dtype == "float64"
    half = check_xpos(_xpos_impl(spec, dtype=np.float16), spec, long=False)
    assert not half.ok                               # float16 values: beyond float32's
    assert "float16 precision" in half.precision_note


def test_1d_positions_reach_a_callable_as_int64_and_fractions_are_refused() -> None:
    import posproof
    from posproof.errors import InvalidParameter

    enc = posproof.preset("vaswani", dim=16)
    buffer = enc.table(4096)
    seen = []

    def impl(pos: np.ndarray) -> np.ndarray:
        seen.append(np.asarray(pos).dtype)
        return buffer[pos]                               # indexing: must not crash

    assert check_encoding(impl, enc, positions=[0.0, 5.0, 4000.0]).ok
    assert seen
    assert all(d == np.int64 for d in seen)
    with pytest.raises(InvalidParameter, match="whole numbers"):
        check_encoding(impl, enc, positions=[0.5, 1.0])


def test_alibi_pairwise_callable_float32_values_are_explained_and_pass_declared() -> None:
    s32 = SLOPES.astype(np.float32)

    def f32(q: np.ndarray, k: np.ndarray) -> np.ndarray:
        d = (np.asarray(q)[:, None] - np.asarray(k)[None, :]).astype(np.float32)
        return (-(s32[:, None, None] * d[None])).astype(np.float64)

    report = check_alibi(f32, n_heads=N)
    assert not report.ok
    assert report.explanations[0].startswith("the values carry float32 precision")
    assert check_alibi(f32, n_heads=N, dtype="float32").ok

    def exact(q: np.ndarray, k: np.ndarray) -> np.ndarray:
        return -(SLOPES[:, None, None] * (np.asarray(q)[:, None] - np.asarray(k)[None, :])[None])

    plain = check_alibi(exact, n_heads=N)
    assert plain.ok
    assert plain.precision_note == ""
