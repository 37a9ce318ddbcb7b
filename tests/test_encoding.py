"""Encoding: exact vectors, exact T(Δ), numeric tables — and that they agree with each other."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy as sp
from hypothesis import assume, example, given
from hypothesis import strategies as st

from posproof import Encoding, Geometric, PosproofError, preset
from posproof.model.encoding import DELTA, X, resolve_dtype
from posproof.precise import mp_value
from posproof.testing.strategies import encodings, positions

EPS64 = np.finfo(np.float64).eps


def group_of(enc: Encoding) -> list[int]:
    """Group index of each column: its pair, or its own group for a padding column."""
    group = [-1] * enc.dim
    for g, (s, c) in enumerate(enc.pairs):
        group[s] = group[c] = g
    for j in range(2 * enc.n_pairs, enc.dim):
        group[j] = enc.n_pairs + j
    return group


# --------------------------------------------------------------------------- exact objects
def test_vector_of_the_original_encoding() -> None:
    """PE(x) for d = 4, b = 10000: sin x, cos x, sin(x/100), cos(x/100) (Vaswani et al. §3.5)."""
    enc = preset("vaswani", dim=4)
    assert enc.vector() == sp.Matrix([[sp.sin(X), sp.cos(X), sp.sin(X / 100),
                                       sp.cos(X / 100)]])
    assert enc.vector().shape == (1, 4)
    assert enc.vector(0) == sp.Matrix([[0, 1, 0, 1]])


@pytest.mark.parametrize(("layout", "expected"), [
    ("interleaved", ["sin", "cos", "sin", "cos"]),
    ("interleaved-cos", ["cos", "sin", "cos", "sin"]),
    ("split", ["sin", "sin", "cos", "cos"]),
    ("split-cos", ["cos", "cos", "sin", "sin"]),
])
def test_layouts_place_sin_and_cos(layout: str, expected: list[str]) -> None:
    assert list(preset("vaswani", dim=4, layout=layout).column_funcs) == expected


def test_odd_dim_pads_one_zero_column_last() -> None:
    enc = preset("vaswani", dim=7, odd_dim="pad")
    assert enc.dim == 7
    assert enc.n_pairs == 3
    assert enc.column_funcs[-1] == "zero"
    assert enc.vector(X)[6] == 0
    assert enc.table(5).shape == (5, 7)
    assert np.all(enc.table([0, 3, 10**6])[:, 6] == 0)
    t = enc.translation(DELTA)
    assert t[6, 6] == 1
    assert all(t[6, j] == 0 and t[j, 6] == 0 for j in range(6))


def test_translation_block_matches_the_docstring() -> None:
    """Row convention, interleaved, block on (sin, cos): [[cos, −sin], [sin, cos]]."""
    t = preset("vaswani", dim=2).translation(DELTA)
    c, s = sp.cos(DELTA), sp.sin(DELTA)
    assert t == sp.Matrix([[c, -s], [s, c]])
    assert preset("vaswani", dim=2).translation(DELTA, convention="column") == t.T


@given(encodings(max_dim=24))
@example(preset("vaswani", dim=1, odd_dim="pad"))
@example(preset("tensor2tensor", dim=3))
def test_translation_is_block_diagonal_with_the_right_shape(enc: Encoding) -> None:
    """T(Δ) is (dim, dim), non-zero only inside a pair's 2×2 block; padding gets a 1.

    Shapes are checked for symbolic and numeric Δ alike (sympy#19259: matrices
    with constant entries coming back with the wrong shape).
    """
    group = group_of(enc)
    for delta in (DELTA, 0, 3):
        t = enc.translation(delta)
        assert t.shape == (enc.dim, enc.dim)
        for (i, j), value in t.todok().items():
            assert value != 0
            assert group[i] == group[j], (i, j, value)
    assert enc.translation(0) == sp.eye(enc.dim)
    assert enc.translation(DELTA, convention="column") == enc.translation(DELTA).T
    entries = enc.translation_entries(DELTA)
    assert len(entries) == 4 * enc.n_pairs + (enc.dim - 2 * enc.n_pairs)
    numeric = sp.lambdify(DELTA, enc.translation(DELTA).as_mutable(), "numpy")
    assert np.asarray(numeric(0.5), dtype=np.float64).shape == (enc.dim, enc.dim)


@given(encodings(max_dim=16), positions(10**4), st.integers(-50, 50))
def test_numeric_translation_law(enc: Encoding, x: int, delta: int) -> None:
    """table(x+Δ) ≈ table(x)·T(Δ), T built exactly and evaluated entry by entry in mpmath."""
    assume(enc.padding_idx not in (x, x + delta))  # the padding row is zero on purpose
    t = np.zeros((enc.dim, enc.dim))
    for (i, j), value in enc.translation_entries(delta).items():
        t[i, j] = float(mp_value(value, 30))
    lhs = enc.table([x + delta])[0]
    rhs = enc.table([x])[0] @ t
    scale = float(max(abs(x) + abs(delta), 1) * max(enc.frequencies_float, default=1.0))
    np.testing.assert_allclose(lhs, rhs, rtol=0, atol=8 * EPS64 * (scale + enc.dim))


# --------------------------------------------------------------------------- tables
@given(encodings(max_dim=32), st.lists(positions(), min_size=1, max_size=4),
       st.sampled_from(["float64", "float32"]))
@example(preset("vaswani", dim=8), [0, 10**7, -(10**7)], "float64")
@example(preset("binary", dim=3, odd_dim="pad"), [2**24 + 1], "float32")
@example(preset("vaswani", dim=1, odd_dim="pad"), [0, 5], "float64")
def test_table_agrees_with_the_exact_vector(enc: Encoding, xs: list[int], dtype: str) -> None:
    """Each table entry is within |x·ω|·eps of the exact value (mpmath, 30 digits).

    The angle x·ω is formed in float64, so the error grows with the angle; the
    tolerance says so instead of hiding it in one global constant.
    """
    table = enc.table(xs, dtype=dtype)
    assert table.shape == (len(xs), enc.dim)
    assert table.dtype == np.dtype(dtype)
    out_eps = float(np.finfo(dtype).eps)
    for row, x in enumerate(xs):
        exact = enc.vector(x)
        for j in range(enc.dim):
            freq = enc.column_frequencies_float[j]
            if enc.padding_idx is not None and x == enc.padding_idx:
                truth = 0.0
            else:
                truth = float(mp_value(exact[j], 30))
            tol = 4 * EPS64 * (abs(x) * freq + 1) + out_eps
            assert abs(float(table[row, j]) - truth) <= tol, (x, j, table[row, j], truth)


@given(encodings(max_dim=64), st.integers(0, 40),
       st.sampled_from(["float64", "float32", "float16", "bfloat16"]))
def test_table_shape_and_dtype(enc: Encoding, length: int, dtype: str) -> None:
    """table(L) has shape (L, dim), the asked dtype, and rows at offset … offset+L−1."""
    table = enc.table(length, dtype=dtype)
    assert table.shape == (length, enc.dim)
    assert table.dtype == resolve_dtype(dtype)
    assert np.all(np.isfinite(table.astype(np.float64)))
    assert np.all(np.abs(table.astype(np.float64)) <= 1)
    np.testing.assert_array_equal(enc.positions(length),
                                  np.arange(enc.offset, enc.offset + length))
    if length:
        explicit = enc.table(enc.positions(length), dtype=dtype)
        np.testing.assert_array_equal(table, explicit)


def test_table_rows_are_unit_pairs() -> None:
    """sin² + cos² = 1 on every pair of every row, to float64 rounding."""
    enc = preset("vaswani", dim=64, layout="split")
    table = enc.table(np.array([0, 1, 517, 10**6, -(10**7)]))
    norms = sum(table[:, s] ** 2 + table[:, c] ** 2 for s, c in enc.pairs)
    np.testing.assert_allclose(norms, enc.n_pairs, rtol=0, atol=64 * EPS64)


def test_fairseq_offset_and_padding_row() -> None:
    """fairseq starts at padding_idx + 1 and its padding row is zero."""
    enc = preset("fairseq", dim=8)
    assert enc.offset == 2
    assert enc.padding_idx == 1
    assert enc.positions(3).tolist() == [2, 3, 4]
    table = enc.table([0, 1, 2])
    assert np.all(table[1] == 0)
    assert np.any(table[0] != 0)
    assert np.any(table[2] != 0)


def test_large_dim_table_and_vector_are_cheap() -> None:
    """d = 4096: exact vector and T are built without evaluating 4096 symbolic products."""
    enc = preset("vaswani", dim=4096)
    assert enc.vector().shape == (1, 4096)
    assert enc.translation().shape == (4096, 4096)
    assert enc.table(16).shape == (16, 4096)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_low_precision_tables_are_rounded_float64(dtype: str) -> None:
    enc = preset("vaswani", dim=8)
    exact = enc.table(10)
    low = enc.table(10, dtype=dtype)
    np.testing.assert_array_equal(low, exact.astype(resolve_dtype(dtype)))


@pytest.mark.parametrize("name", ["vaswani", "tensor2tensor", "diffusion", "binary"])
def test_dim_one_table(name: str) -> None:
    """Regression: d = 1 (one zero column, no frequency) once made table() raise IndexError."""
    enc = preset(name, dim=1, odd_dim="pad")
    np.testing.assert_array_equal(enc.table(3), np.zeros((3, 1)))


# --------------------------------------------------------------------------- from_columns
def test_from_columns_names_the_broken_dims() -> None:
    bad = Encoding.from_columns([("sin", 1), ("cos", 2), ("sin", 3), ("cos", 3)])
    problems = bad.broken_pairs()
    assert problems == ["dims 0 and 1 use different frequencies (1 and 2); "
                        "no rotation T(Δ) exists"]
    with pytest.raises(PosproofError, match="dims 0 and 1 use different frequencies"):
        bad.translation()


def test_from_columns_sound_columns_match_the_preset() -> None:
    enc = preset("vaswani", dim=4)
    again = Encoding.from_columns([(f, enc.column_frequency(j))
                                   for j, f in enumerate(enc.column_funcs)])
    assert again.vector() == enc.vector()
    assert again.broken_pairs() == []
    assert again.translation() == enc.translation()


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(("call", "match"), [
    (lambda: preset("vaswani", dim=0), "dim=0 must be a positive integer"),
    (lambda: preset("vaswani", dim=-4), "dim=-4 must be a positive integer"),
    (lambda: preset("vaswani", dim=7), "dim=7 is odd; pass odd_dim='pad'"),
    (lambda: preset("vaswani", dim=10**9), "dim=1000000000 is too large"),
    (lambda: preset("vaswani", dim=2.5), "dim=2.5 is not an integer"),
    (lambda: preset("vaswani", dim="8"), "dim='8' is not an integer"),
    (lambda: preset("vaswani", dim=True), "dim=True is not an integer"),
    (lambda: preset("vaswani", dim=float("nan")), "dim=nan is not an integer"),
    (lambda: preset("vaswani", dim=7, odd_dim="drop"), "odd_dim='drop' is not known"),
    (lambda: preset("vaswani", dim=8, layout="diagonal"), "layout='diagonal' is not known"),
    (lambda: preset("vaswani", dim=8, offset=1.5), "offset=1.5 is not an integer"),
    (lambda: preset("vaswani", dim=8, bse=10), "does not take bse=10"),
    (lambda: preset("fairseq", dim=8, padding_idx=-5), "padding_idx=-5 is too small"),
    (lambda: Encoding("geometric", "interleaved", 8), "schedule='geometric' is not a Schedule"),
    (lambda: Encoding.from_columns([]), "columns must be a non-empty list"),
    (lambda: Encoding.from_columns([("tan", 1), ("cos", 1)]), "func='tan'"),
    (lambda: Encoding.from_columns([("sin", -1), ("cos", -1)]), "frequency=-1 must be > 0"),
    (lambda: preset("vaswani", dim=8).translation(convention="diag"),
     "convention='diag' is not known"),
    (lambda: preset("vaswani", dim=8).table(3, dtype="int32"), "dtype='int32' is not known"),
    (lambda: preset("vaswani", dim=8).table([0, float("nan")]),
     r"positions=.*nan.* is not a finite number"),
    (lambda: preset("vaswani", dim=8).table(-1), "length=-1 is too small"),
])
def test_bad_input_raises_a_valueerror_naming_it(call: object, match: str) -> None:
    with pytest.raises(PosproofError, match=match) as info:
        call()  # type: ignore[operator]
    assert isinstance(info.value, ValueError)


def test_integral_floats_and_numpy_ints_are_accepted_as_dims() -> None:
    assert preset("vaswani", dim=8.0).dim == 8
    assert preset("vaswani", dim=np.int64(8)).dim == 8


def test_direct_construction_matches_the_preset() -> None:
    enc = Encoding(Geometric(Fraction(10000)), "interleaved", 8)
    assert enc.vector() == preset("vaswani", dim=8).vector()
    assert math.isclose(float(enc.frequencies[1]), 0.1)
    assert mpmath.mp.dps == 15
