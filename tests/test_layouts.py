"""Layouts: where each (sin, cos) pair sits, and the exact permutations between them."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from hypothesis import example, given
from hypothesis import strategies as st

from posproof import LAYOUTS, PosproofError, get_layout, permutation, preset
from posproof.model.encoding import DELTA
from posproof.model.layouts import partition_lemma
from posproof.testing.strategies import bases, layouts, positions


@pytest.mark.parametrize(("name", "sin_cols", "cos_cols"), [
    ("interleaved", [0, 2, 4], [1, 3, 5]),
    ("interleaved-cos", [1, 3, 5], [0, 2, 4]),
    ("split", [0, 1, 2], [3, 4, 5]),
    ("split-cos", [3, 4, 5], [0, 1, 2]),
])
def test_columns_of_each_layout(name: str, sin_cols: list[int], cos_cols: list[int]) -> None:
    assert LAYOUTS[name].columns(3) == (sin_cols, cos_cols)


@pytest.mark.parametrize(("alias", "name"), [
    ("sincos", "interleaved"), ("adjacent", "interleaved"), ("cos,sin", "interleaved-cos"),
    ("halves", "split"), ("half", "split"), ("SIN|COS", "split"), ("cos|sin", "split-cos"),
])
def test_aliases(alias: str, name: str) -> None:
    assert get_layout(alias).name == name


def test_unknown_layout_is_named_in_the_error() -> None:
    with pytest.raises(PosproofError, match="layout='diagonal' is not known; use one of") as info:
        get_layout("diagonal")
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("name", list(LAYOUTS))
def test_every_layout_partitions_the_columns(name: str) -> None:
    ok, why = partition_lemma(LAYOUTS[name])
    assert ok, why
    for n in range(40):
        sin_cols, cos_cols = LAYOUTS[name].columns(n)
        assert sorted(sin_cols + cos_cols) == list(range(2 * n))


@given(layouts(), layouts(), st.integers(0, 40), st.booleans())
def test_permutations_are_bijections_and_compose(src: str, dst: str, n: int, pad: bool) -> None:
    perm = permutation(src, dst, n, pad)
    d = 2 * n + int(pad)
    assert sorted(perm) == list(range(d))
    back = permutation(dst, src, n, pad)
    assert [perm[back[j]] for j in range(d)] == list(range(d))
    assert permutation(src, src, n, pad) == list(range(d))
    if pad:
        assert perm[-1] == d - 1


def test_documented_permutation() -> None:
    assert permutation("interleaved", "split", 4) == [0, 2, 4, 6, 1, 3, 5, 7]


@given(layouts(), layouts(), st.integers(1, 32).map(lambda n: 2 * n) | st.sampled_from([2, 3, 7]),
       bases(), st.lists(positions(), min_size=1, max_size=5))
@example("interleaved", "split", 2, 10000, [0, 10**7])
@example("split-cos", "interleaved-cos", 3, 10000, [-1])
def test_permutation_maps_tables_exactly(src: str, dst: str, dim: int, base: object,
                                         xs: list[int]) -> None:
    """PE_dst[:, j] == PE_src[:, perm[j]], bit for bit, and exactly for the symbolic vectors."""
    odd = "pad" if dim % 2 else "error"
    a = preset("vaswani", dim=dim, base=base, layout=src, odd_dim=odd)
    b = preset("vaswani", dim=dim, base=base, layout=dst, odd_dim=odd)
    perm = permutation(src, dst, dim // 2, pad=bool(dim % 2))
    np.testing.assert_array_equal(b.table(xs), a.table(xs)[:, perm])
    va, vb = a.vector(), b.vector()
    assert all(vb[j] == va[perm[j]] for j in range(dim))


@given(layouts(), layouts(), st.sampled_from([2, 3, 6, 8]))
def test_translation_conjugated_by_the_permutation(src: str, dst: str, dim: int) -> None:
    """T_dst = Pᵀ T_src P with P[perm[j], j] = 1 — entry by entry, exactly."""
    odd = "pad" if dim % 2 else "error"
    a = preset("vaswani", dim=dim, layout=src, odd_dim=odd)
    b = preset("vaswani", dim=dim, layout=dst, odd_dim=odd)
    perm = permutation(src, dst, dim // 2, pad=bool(dim % 2))
    p = sp.zeros(dim, dim)
    for j, i in enumerate(perm):
        p[i, j] = 1
    assert b.translation(DELTA) == p.T * a.translation(DELTA) * p
    assert b.vector() == a.vector() * p
