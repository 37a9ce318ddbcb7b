"""The numeric half: lambdified tables, the offset kernel and its error bound, dtypes.

Ground truth is mpmath, evaluated from the exact SymPy frequencies
(``posproof.precise.mp_values``), never from the float64 numbers under test.
Tolerances scale with the size of the angle |x·ω| and with the dtype; the
kernel is held to its own documented bound (``OffsetKernel.bound``), which
must hold at every offset up to 10**7.
"""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest
import sympy as sp
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

import posproof.measure.kernel as kernel_module
import posproof.measure.lambdified as lambdified
import posproof.measure.numeric as numeric
from posproof import Encoding, InvalidEncoding, InvalidParameter, UnknownName, preset
from posproof.measure.numeric import (
    MAX_DENSE_DIM,
    TRIG_ULPS,
    OffsetKernel,
    U,
    angles_in_dtype,
    apply_translation,
    dtype_model,
    first_unrepresentable_integer,
    gram_is_toeplitz,
    lambdify_encoding,
    lambdify_pair,
    round_to_dtype,
    toeplitz_deviation,
    translation_matrix,
    translation_residual,
)
from posproof.model.encoding import DELTA, X
from posproof.model.layouts import LAYOUTS
from posproof.precise import mp_values
from posproof.testing.strategies import encodings

T = TRIG_ULPS * U


def _pe_mp(enc: Encoding, x: int, dps: int = 60) -> list[mpmath.mpf]:
    """PE(x) in mpmath from the exact column frequencies."""
    omegas = mp_values(enc.frequencies, dps)
    out = []
    with mpmath.workdps(dps):
        for j, func in enumerate(enc.column_funcs):
            if func == "zero":
                out.append(mpmath.mpf(0))
            else:
                w = omegas[enc.column_freq_index[j]]
                out.append(mpmath.sin(w * x) if func == "sin" else mpmath.cos(w * x))
    return out


def _kernel_mp(omegas: list[mpmath.mpf], delta: int) -> mpmath.mpf:
    """Σ cos(ω_k Δ), independently of OffsetKernel.mp."""
    with mpmath.workdps(70):
        return mpmath.fsum(mpmath.cos(w * delta) for w in omegas)


@pytest.fixture(scope="module")
def vaswani512() -> tuple[Encoding, OffsetKernel]:
    enc = preset("vaswani", dim=512)
    return enc, OffsetKernel(enc)


# --------------------------------------------------------------------------- lambdify
def test_pair_keeps_its_expression_and_broadcasts() -> None:
    """The lambdified pair carries the generic expression and broadcasts like NumPy."""
    pair = lambdify_pair()
    w = sp.Symbol("w", positive=True)
    assert pair.expr == sp.Matrix([[sp.sin(w * X), sp.cos(w * X)]])
    assert pair.args == (X, w)
    assert pair(1.0, 2.0).shape == (2,)
    assert pair(np.arange(5.0)[:, None], np.ones(3)).shape == (5, 3, 2)
    np.testing.assert_array_equal(pair(np.arange(3.0), 0.5)[:, 0], np.sin(0.5 * np.arange(3.0)))


def test_constant_entries_keep_their_shape() -> None:
    """sympy#19259: constant entries of a lambdified matrix must broadcast, not collapse."""
    func = lambdified.entrywise([sp.Integer(0), X, sp.Integer(1)], [X])
    out = func(np.arange(4.0))
    assert out.shape == (4, 3)
    np.testing.assert_array_equal(out[:, 0], 0.0)
    np.testing.assert_array_equal(out[:, 2], 1.0)


@pytest.mark.parametrize(("name", "params"), [
    ("vaswani", {"dim": 8}), ("vaswani", {"dim": 6, "layout": "split-cos"}),
    ("tensor2tensor", {"dim": 7}), ("fairseq", {"dim": 8}), ("diffusion", {"dim": 10}),
    ("binary", {"dim": 6, "layout": "interleaved-cos"}), ("sine-only", {"dim": 5}),
])
def test_lambdified_encoding_matches_table_and_expression(name: str, params: dict) -> None:
    """PE lambdified from the pair equals Encoding.table, and its expr is Encoding.vector()."""
    enc = preset(name, **params)
    pe = lambdify_encoding(enc)
    assert pe.expr == enc.vector()
    positions = [0, 1, 2, 3, 1234, 10**6 + 7]
    np.testing.assert_array_equal(pe(positions), enc.table(positions))
    assert pe(positions).shape == (len(positions), enc.dim)


def test_lambdified_encoding_refuses_non_finite_positions() -> None:
    """NaN positions are bad input, named in the message."""
    with pytest.raises(InvalidParameter, match="positions contain nan; pass finite positions"):
        lambdify_encoding(preset("vaswani", dim=4))([0.0, float("nan")])


@pytest.mark.parametrize(("layout", "convention"),
                         list(itertools.product(sorted(LAYOUTS), ("row", "column"))))
def test_numeric_translation_equals_the_exact_matrix(layout: str, convention: str) -> None:
    """T built blockwise equals the exact T(Δ) of the encoding, entry by entry (shape too)."""
    enc = preset("tensor2tensor", dim=7, layout=layout)
    delta = 12345
    exact = enc.translation(DELTA, convention).subs(DELTA, delta)
    numeric_t = translation_matrix(enc, delta, convention)
    assert numeric_t.shape == (7, 7)
    expected = np.array(exact.evalf(30).tolist(), dtype=np.float64)
    np.testing.assert_allclose(numeric_t, expected, rtol=0, atol=4 * U * delta + 4 * T)


@pytest.mark.parametrize(("layout", "convention"),
                         list(itertools.product(sorted(LAYOUTS), ("row", "column"))))
def test_blockwise_translation_equals_the_matrix_product(layout: str, convention: str) -> None:
    """rows · T(Δ) applied pair by pair equals the product with the dense T (padding kept)."""
    enc = preset("tensor2tensor", dim=9, layout=layout, odd_dim="pad")
    rows = np.random.default_rng(1).normal(size=(3, 9))
    dense = rows @ translation_matrix(enc, 777.0, convention)
    np.testing.assert_allclose(apply_translation(enc, rows, 777.0, convention), dense,
                               rtol=0, atol=1e-14)
    np.testing.assert_allclose(apply_translation(enc, enc.table([5])[0], 2.0),  # PE(5)·T(2)
                               enc.table([7])[0], rtol=0, atol=1e-12)


def test_large_dim_translation_is_applied_without_a_dense_matrix() -> None:
    """At d = 65536 T(Δ) moves a row in O(d) memory; the dense T is refused by name."""
    import tracemalloc

    enc = preset("vaswani", dim=1 << 16)
    row = enc.table([3])[0]
    tracemalloc.start()
    try:
        moved = apply_translation(enc, row, 4.0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 * enc.dim * 8                 # a dense T would be 4096 times more
    np.testing.assert_allclose(moved, enc.table([7])[0], rtol=0, atol=1e-9)
    with pytest.raises(InvalidParameter, match=f"exceeds {MAX_DENSE_DIM}.*apply_translation"):
        translation_matrix(enc, 1.0)


def test_translation_refuses_broken_pairs_and_unknown_conventions() -> None:
    """No T exists without (sin, cos) pairs; conventions are named."""
    with pytest.raises(InvalidEncoding, match="dims 0 and 1 hold"):
        translation_matrix(preset("sine-only", dim=4), 1.0)
    with pytest.raises(UnknownName, match="convention='left' is not known; use 'row' or 'column'"):
        translation_matrix(preset("vaswani", dim=4), 1.0, "left")


@settings(max_examples=10, deadline=None)
@given(x=st.integers(0, 10**7), delta=st.integers(-10**7, 10**7))
@example(x=0, delta=0)
@example(x=10**7, delta=10**7)
def test_translation_residual_within_its_tolerance_and_mpmath(x: int, delta: int) -> None:
    """|PE(x+Δ) − PE(x)T(Δ)| stays under the tolerance, itself ∝ |x·ω|·u; entries match mpmath."""
    enc = preset("vaswani", dim=16)
    res, tol = translation_residual(enc, [x], [delta])
    assert res.shape == tol.shape == (1, 16)
    assert (res <= tol).all()
    exact = _pe_mp(enc, x + delta)
    table = enc.table([x + delta])[0]
    omega = enc.column_frequencies_float
    for j in range(16):
        assert abs(float(exact[j]) - table[j]) <= 2.01 * U * abs((x + delta) * omega[j]) + T


def test_translation_residual_needs_matching_lengths() -> None:
    """x and Δ come in pairs; the message says how many of each were given."""
    with pytest.raises(InvalidParameter, match="x has 2 positions and delta 1; pass as many"):
        translation_residual(preset("vaswani", dim=4), [1, 2], [3])


# --------------------------------------------------------------------------- the kernel
def test_kernel_expression_and_dot_product_theorem() -> None:
    """PE(x)·PE(y) = f(x − y) (the dot-product theorem), ‖PE(x+Δ) − PE(x)‖² = 2(n − f(Δ))."""
    enc = preset("vaswani", dim=32, layout="split")
    kernel = OffsetKernel(enc)
    assert kernel.n == 16
    assert kernel.expr.has(DELTA)
    rng = np.random.default_rng(7)
    xs, ys = rng.integers(0, 10**5, 20), rng.integers(0, 10**5, 20)
    table_x, table_y = enc.table(xs), enc.table(ys)
    dots = (table_x * table_y).sum(axis=1)
    f = kernel(xs - ys)
    scale = 4 * U * max(10**5, 1) * enc.frequencies_float.sum() + 16 * T * kernel.n
    np.testing.assert_allclose(dots, f, rtol=0, atol=scale)
    dist2 = ((table_x - table_y) ** 2).sum(axis=1)
    np.testing.assert_allclose(dist2, 2 * (kernel.n - f), rtol=0, atol=4 * scale)


@settings(max_examples=12, deadline=None)
@given(deltas=st.lists(st.integers(0, 10**7 - 1), min_size=1, max_size=4))
@example(deltas=[0, 1, 10**7 - 1])
def test_kernel_values_within_bound_of_mpmath(vaswani512: tuple, deltas: list[int]) -> None:
    """Both the GEMM scan and the direct evaluation stay within their bounds, up to Δ = 10**7."""
    enc, kernel = vaswani512
    omegas = mp_values(enc.frequencies, 40)
    length = 10**7
    eps = kernel.bound(length)
    direct = kernel(np.array(deltas))
    for d, value in zip(deltas, direct, strict=True):
        exact = float(_kernel_mp(omegas, d))
        scan = kernel.values(d, d + 1)[0] if d + 1 <= 4096 else _scan_value(kernel, d, length)
        assert abs(scan - exact) <= eps
        assert abs(value - exact) <= kernel.call_bound(d)


def _scan_value(kernel: OffsetKernel, delta: int, length: int) -> float:
    """The value at delta from a scan planned for ``length`` (same block as the full scan)."""
    block = kernel_module.block_for(length)
    half = block // 2
    q = (delta + half) // block
    row = kernel._rows(block, q, q + 1)
    return float(row[delta - (q * block - half)])


def test_bound_is_rigorous_but_not_loose(vaswani512: tuple) -> None:
    """The bound covers every observed error and is within a few hundred of it."""
    enc, kernel = vaswani512
    omegas = mp_values(enc.frequencies, 40)
    values = kernel.values(0, 20000)
    sample = list(range(0, 20000, 1999))
    errors = [abs(values[d] - float(_kernel_mp(omegas, d))) for d in sample]
    eps = kernel.bound(20000)
    assert max(errors) <= eps
    assert eps < 1e-11                    # n = 256: γ_n·n ≈ 7e-12 dominates
    assert OffsetKernel([1] * 512).bound(10**7) < 4e-11


@pytest.mark.parametrize("frequencies", [[1], [sp.pi / 2, sp.pi / 4], [1000, sp.sqrt(2)],
                                         [sp.Rational(1, 10**6)]])
def test_kernel_for_extreme_frequencies(frequencies: list) -> None:
    """Huge, tiny and π-rational frequencies: the fixed-point phases stay exact enough."""
    kernel = OffsetKernel(frequencies)
    omegas = mp_values([sp.sympify(f) for f in frequencies], 40)
    for d in (0, 1, 7, 4095, 4096, 4097, 123457, 9999999):
        exact = float(_kernel_mp(omegas, d))
        assert abs(kernel([d])[0] - exact) <= kernel.call_bound(d)
    vals = kernel.values(0, 5000)
    exact = np.array([float(_kernel_mp(omegas, d)) for d in range(0, 5000, 97)])
    assert np.abs(vals[::97] - exact).max() <= kernel.bound(5000)


def test_chunks_cover_the_range_in_bounded_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks are contiguous, in order, each ≤ CHUNK_VALUES; they agree with one scan."""
    kernel = OffsetKernel(preset("vaswani", dim=16))
    whole = kernel.values(0, 50000)
    monkeypatch.setattr(kernel_module, "CHUNK_VALUES", 1000)
    expected_start = 123
    pieces = []
    for start, values in kernel.chunks(123, 45678):
        assert start == expected_start
        assert 0 < values.size <= 1000 + kernel_module.block_for(45678)
        expected_start += values.size
        pieces.append(values)
    assert expected_start == 45678
    np.testing.assert_allclose(np.concatenate(pieces), whole[123:45678], rtol=0,
                               atol=2 * kernel.bound(50000))


def test_streaming_and_cached_reductions_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    """With a tiny cache limit the scans stream; the certified answers are the same."""
    enc = preset("vaswani", dim=16)
    cached = OffsetKernel(enc)
    assert cached.materialize(20000)
    monkeypatch.setattr(kernel_module, "CACHE_VALUES", 100)
    monkeypatch.setattr(kernel_module, "CHUNK_VALUES", 512)
    streamed = OffsetKernel(enc)
    assert not streamed.materialize(20000)
    a, b = cached.maximum(1, 20000), streamed.maximum(1, 20000)
    assert (a.delta, a.distance_mp) == (b.delta, b.distance_mp)
    c1 = cached.first_crossing(0, stop=20000)
    c2 = streamed.first_crossing(0, stop=20000)
    assert c1 is not None
    assert c2 is not None
    assert c1.delta == c2.delta
    assert cached.first_increase(stop=20000).delta == streamed.first_increase(stop=20000).delta
    with pytest.raises(InvalidParameter, match="at most 100 are materialised; iterate over chunks"):
        streamed.values(0, 101)


def test_maximum_matches_brute_force_pairwise_distances() -> None:
    """The min separation from the kernel equals the O(L²) minimum over all pairs of rows."""
    enc = preset("explicit", dim=4, frequencies=[1, "1/2"])
    length = 400
    table = enc.table(length)
    diff = table[:, None, :] - table[None, :, :]
    dist = np.sqrt((diff ** 2).sum(axis=2))
    dist[np.arange(length), np.arange(length)] = np.inf
    i, j = np.unravel_index(np.argmin(dist), dist.shape)
    ext = OffsetKernel(enc).maximum(1, length)
    assert ext.delta == abs(int(i) - int(j)) == 377            # 377 ≈ 120π
    assert abs(float(ext.distance_mp) - dist[i, j]) < 1e-9
    assert abs(ext.distance - float(ext.distance_mp)) <= ext.distance_bound
    assert ext.consistent
    assert ext.candidates >= 1


def test_maximum_finds_the_exact_period_of_binary_dials() -> None:
    """Binary dials with d = 8 return exactly at Δ = 2^(n+1) = 32: distance 0 in mpmath."""
    ext = OffsetKernel(preset("binary", dim=8)).maximum(1, 100)
    assert ext.delta == 32
    assert ext.distance_mp == 0
    assert ext.candidates >= 3          # 32, 64, 96 all return exactly


def test_first_crossings_match_mpmath_scan() -> None:
    """The first negative value and the first rise agree with a scan done in mpmath."""
    enc = preset("vaswani", dim=8)
    kernel = OffsetKernel(enc)
    omegas = mp_values(enc.frequencies, 40)
    exact = [_kernel_mp(omegas, d) for d in range(200)]
    first_negative = next(d for d, v in enumerate(exact) if v < 0)
    first_rise = next(d for d in range(199) if exact[d + 1] > exact[d])
    neg = kernel.first_crossing(0, stop=200)
    rise = kernel.first_increase(stop=200)
    assert neg is not None
    assert neg.delta == first_negative
    assert neg.consistent
    assert rise is not None
    assert rise.delta == first_rise
    assert rise.consistent
    assert neg.value_mp < 0 <= neg.previous_mp
    assert kernel.first_crossing(-10, stop=200) is None


def test_ambiguous_values_are_rechecked_in_mpmath() -> None:
    """A threshold within the bound of a kernel value is decided by a certified sign, not in
    float64: f(2) against f(2) exactly (at=2) is a tie, not a crossing; against a 50-digit
    rounding of cos 2 it is decided by the sign of the exact difference."""
    kernel = OffsetKernel([1])
    crossing = kernel.first_crossing(below=False, start=0, stop=10, at=2)
    # f(0) = 1 > cos 2: the first offset above the threshold is 0, decided for sure
    assert crossing is not None
    assert crossing.delta == 0
    after = kernel.first_crossing(below=True, start=1, stop=10, at=2)
    # f(2) equals the threshold exactly: not below it; the first value below is at Δ = 3
    assert after is not None
    assert after.delta == 3
    assert after.rechecked >= 1
    assert after.decisions[1].sign == 0                 # f(2) − f(2), proved exactly 0
    rounded = kernel.mp(2)                               # a binary number near cos 2
    below = kernel.first_crossing(rounded, below=True, start=1, stop=10)
    with mpmath.workdps(200):
        cos2_below = mpmath.cos(2) < rounded
    assert below is not None
    assert below.delta == (2 if cos2_below else 3)


def test_kernel_refuses_bad_input() -> None:
    """Sine-only columns have no kernel; frequency lists and ranges are validated."""
    with pytest.raises(InvalidEncoding, match=r"sine-only: the dot-product theorem needs "
                                              r"\(sin, cos\) pairs"):
        OffsetKernel(preset("sine-only", dim=4))
    with pytest.raises(InvalidEncoding, match="dim=1 holds no"):
        OffsetKernel(preset("tensor2tensor", dim=1))
    with pytest.raises(InvalidParameter, match=r"frequencies=\[\]; pass an Encoding"):
        OffsetKernel([])
    with pytest.raises(InvalidParameter, match="not a finite number"):
        OffsetKernel([float("nan")])
    kernel = OffsetKernel([1])
    with pytest.raises(InvalidParameter, match=r"offsets \[5, 2\) are not a range"):
        list(kernel.chunks(5, 2))
    with pytest.raises(InvalidParameter, match=r"the range \[3, 3\) of offsets is empty"):
        kernel.maximum(3, 3)


def test_mpmath_precision_is_untouched_by_numeric_calls() -> None:
    """Global mpmath precision is never changed (the conftest guard checks it too)."""
    before = mpmath.mp.dps
    kernel = OffsetKernel(preset("vaswani", dim=8))
    kernel.mp(10**6, 80)
    kernel.distance_mp(17, 120)
    kernel.maximum(1, 1000, dps=60)
    assert mpmath.mp.dps == before


@settings(max_examples=8, deadline=None)
@given(enc=encodings(max_dim=24), delta=st.integers(0, 10**7))
def test_kernel_of_any_sound_encoding_matches_mpmath(enc: Encoding, delta: int) -> None:
    """For every sound preset (odd d, padding, offsets) the kernel agrees with mpmath."""
    assume(enc.n_pairs > 0)
    kernel = OffsetKernel(enc)
    pairs = [enc.frequencies[enc.column_freq_index[s]] for s, _ in enc.pairs]
    exact = float(_kernel_mp(mp_values(pairs, 40), delta))
    assert abs(kernel([delta])[0] - exact) <= kernel.call_bound(delta)


# --------------------------------------------------------------------------- Toeplitz
@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16"])
def test_gram_of_a_sound_table_is_toeplitz_in_every_dtype(dtype: str) -> None:
    """The default tolerance follows the dtype of the table."""
    table = preset("vaswani", dim=32).table(128, dtype=dtype)
    assert gram_is_toeplitz(table)


def test_gram_of_broken_or_random_tables_is_not_toeplitz() -> None:
    """Sine-only and random tables fail; a user's own RoPE-style cos table passes."""
    assert not gram_is_toeplitz(preset("sine-only", dim=16).table(64))
    assert not gram_is_toeplitz(np.random.default_rng(0).normal(size=(32, 8)))
    pos = np.arange(100.0)[:, None]
    inv_freq = 10000.0 ** (-np.arange(0, 16, 2) / 16)
    user = np.concatenate([np.cos(pos * inv_freq), np.sin(pos * inv_freq)], axis=1)
    assert gram_is_toeplitz(user)
    assert toeplitz_deviation(user) < 1e-12
    assert gram_is_toeplitz(np.eye(1))


def test_toeplitz_input_errors_say_what_to_pass() -> None:
    """Shapes, NaN and tolerances are checked with messages that say how to fix them."""
    with pytest.raises(InvalidParameter, match=r"table has shape \(3,\); pass a 2-d array"):
        gram_is_toeplitz(np.ones(3))
    with pytest.raises(InvalidParameter, match="NaN or infinite"):
        gram_is_toeplitz(np.array([[np.nan, 1.0]]))
    with pytest.raises(InvalidParameter, match=r"tol=nan is not a finite number ≥ 0"):
        gram_is_toeplitz(np.eye(2), tol=float("nan"))
    with pytest.raises(InvalidParameter, match="not numeric"):
        gram_is_toeplitz([["a", "b"]])


# --------------------------------------------------------------------------- dtypes
def test_first_unrepresentable_integer_per_dtype() -> None:
    """2^p + 1 for a p-bit significand, found by rounding: fp16, bf16, fp32, fp64."""
    assert first_unrepresentable_integer("float16") == 2049
    assert first_unrepresentable_integer("bfloat16") == 257
    assert first_unrepresentable_integer("float32") == 16777217
    assert first_unrepresentable_integer("float64") == 2**53 + 1
    assert first_unrepresentable_integer("bf16") == 257


def test_emulated_bfloat16_rounds_like_ml_dtypes() -> None:
    """The bit-pattern emulation equals ml_dtypes on random values, ties and products."""
    ml_dtypes = pytest.importorskip("ml_dtypes")
    rng = np.random.default_rng(3)
    values = np.concatenate([rng.normal(size=2000) * 10.0 ** rng.integers(-30, 30, 2000),
                             [1 + 2**-8, 1 + 3 * 2**-8, 257.0, 259.0, 0.0, -0.0, 1e38]])
    emulated = dtype_model("bfloat16", emulate_bfloat16=True)
    real = dtype_model("bfloat16")
    assert (emulated.implementation, real.implementation) == ("emulated", "ml_dtypes")
    np.testing.assert_array_equal(emulated.round(values),
                                  values.astype(ml_dtypes.bfloat16).astype(np.float64))
    a, b = rng.normal(size=500) * 100, rng.normal(size=500)
    np.testing.assert_array_equal(emulated.multiply(a, b), real.multiply(a, b))


def test_angles_formed_in_low_precision() -> None:
    """gpt-neox#1003: angles near 1044 are integers in fp16; bf16 cannot hold 257."""
    assert angles_in_dtype([1044.27], [1.0], "float16").tolist() == [[1044.0]]
    assert angles_in_dtype([257], [1.0], "bfloat16").tolist() == [[256.0]]
    assert angles_in_dtype([70000], [1.0], "float16").tolist() == [[math.inf]]
    assert round_to_dtype([0.1], "float32")[0] == float(np.float32(0.1))
    # the phase error of x·ω formed in fp32 grows like |xω|·2^-24, measured against mpmath
    omega = mp_values([sp.Pow(10000, sp.Rational(-1, 8), evaluate=False)], 40)[0]
    for x in (10, 1000, 10**5, 10**7):
        angle = angles_in_dtype([x], [float(omega)], "float32")[0, 0]
        with mpmath.workdps(40):
            err = abs(mpmath.mpf(angle) - x * omega)
        assert float(err) <= 3.01 * 2.0**-24 * x * float(omega)


def test_unknown_dtypes_are_named() -> None:
    """A dtype that does not exist is an UnknownName listing what is allowed."""
    with pytest.raises(UnknownName, match="dtype='float7' is not known; use float16, bfloat16, "
                                          "float32 or float64"):
        dtype_model("float7")
    with pytest.raises(UnknownName, match="dtype='int8'"):
        round_to_dtype([1.0], "int8")


def test_max_len_validation_messages() -> None:
    """L ≤ 0, too large, NaN and non-integers are refused with the allowed range."""
    assert numeric.check_max_len(10**7) == 10**7
    with pytest.raises(InvalidParameter, match="max_len=-3 is too small; it must be >= 1"):
        numeric.check_max_len(-3)
    with pytest.raises(InvalidParameter, match=r"at most 1000000000 is accepted .*"
                                               "pass a smaller max_len"):
        numeric.check_max_len(10**10)
    with pytest.raises(InvalidParameter, match="max_len=nan is not an integer"):
        numeric.check_max_len(float("nan"))


def test_exact_ties_are_not_crossings() -> None:
    """Binary dials d = 2 (ω = π/2): f = 1, 0, −1, 0, 1 — exact zeros are neither < 0 nor rises."""
    kernel = OffsetKernel(preset("binary", dim=2))
    negative = kernel.first_crossing(0, stop=10)
    assert negative is not None
    assert negative.delta == 2
    assert negative.consistent
    rise = kernel.first_increase(stop=10)
    assert rise is not None
    assert rise.delta == 2
    # D(3) equals D(1) exactly: the first offset strictly closer than neighbours is the period
    closer = kernel.first_crossing(kernel.mp(1), below=False, start=2, stop=10)
    assert closer is not None
    assert closer.delta == 4
