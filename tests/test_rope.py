"""Rotary embeddings: R(m), layouts, partial rotary, and the proofs about them."""

from __future__ import annotations

import random

import mpmath
import numpy as np
import pytest
import sympy as sp

from posproof import Encoding, Geometric
from posproof.errors import InvalidEncoding, InvalidParameter, UnknownName
from posproof.model.encoding import DELTA
from posproof.model.layouts import permutation
from posproof.model.rope import M, Rotary, get_rotary_layout, rotary
from posproof.model.scaling import DynamicNTKScaling, LongRoPEScaling
from posproof.proofs.rotary import (
    EXPECTED_REFUTATIONS,
    exit_status,
    generic_identity,
    prove_rotary,
    stale_cache,
)

LLAMA3 = {"scaling": "llama3", "factor": 8, "original_max_position_embeddings": 8192}


# --------------------------------------------------------------------------- references
def hf_rotate_half(x, positions, inv_freq, rotary_dim):
    """HF apply_rotary_pos_emb with rotate_half, partial rotary as in GPT-NeoX (transcribed)."""
    freqs = np.outer(positions, inv_freq)
    emb = np.concatenate([freqs, freqs], -1)
    cos, sin = np.cos(emb), np.sin(emb)
    x_rot, x_pass = x[..., :rotary_dim], x[..., rotary_dim:]
    half = rotary_dim // 2
    rotated = np.concatenate([-x_rot[..., half:], x_rot[..., :half]], -1)
    return np.concatenate([x_rot * cos + rotated * sin, x_pass], -1)


def gptj_rotate_every_two(x, positions, inv_freq, rotary_dim):
    """GPT-J apply_rotary_pos_emb with rotate_every_two (transcribed)."""
    freqs = np.outer(positions, inv_freq)
    cos, sin = np.repeat(np.cos(freqs), 2, -1), np.repeat(np.sin(freqs), 2, -1)
    x_rot, x_pass = x[..., :rotary_dim], x[..., rotary_dim:]
    x1, x2 = x_rot[..., ::2], x_rot[..., 1::2]
    every_two = np.stack((-x2, x1), -1).reshape(x_rot.shape)
    return np.concatenate([x_rot * cos + every_two * sin, x_pass], -1)


def exact_rotate(rot, x, m, dps=40):
    """R(m)·x in mpmath from the exact frequencies, pair by pair."""
    from posproof.precise import mp_values

    out = [mpmath.mpf(float(v)) for v in x]
    with mpmath.workdps(dps):
        for (i, j), w in zip(rot.pairs, mp_values(rot.frequencies, dps), strict=True):
            c, s = mpmath.cos(w * m), mpmath.sin(w * m)
            out[i], out[j] = c * x[i] - s * x[j], s * x[i] + c * x[j]
    return np.array([float(v) for v in out])


# --------------------------------------------------------------------------- structure
def test_pairs_of_each_layout():
    """adjacent: (2k, 2k+1); half: (k, k + r/2), within the rotary dim only."""
    assert Rotary(Geometric(10000), 8, rotary_dim=4, layout="adjacent").pairs == [(0, 1), (2, 3)]
    assert Rotary(Geometric(10000), 8, rotary_dim=4, layout="half").pairs == [(0, 2), (1, 3)]
    assert Rotary(Geometric(10000), 8, rotary_dim=4).passthrough == [4, 5, 6, 7]


def test_rotation_block_acts_on_column_vectors():
    """R(m) blocks are [[cos mθ, −sin mθ], [sin mθ, cos mθ]] on each pair."""
    rot = Rotary(Geometric(100), 4, layout="half")
    r = rot.rotation()
    assert r[0, 0] == sp.cos(M)
    assert r[0, 2] == -sp.sin(M)
    assert r[2, 0] == sp.sin(M)
    assert r[1, 3] == -sp.sin(M / 10)
    assert r[0, 1] == 0


@pytest.mark.parametrize(("layout", "sin_first", "cos_first"),
                         [("adjacent", "interleaved", "interleaved-cos"),
                          ("half", "split", "split-cos")])
def test_rotation_equals_encoding_translation(layout, sin_first, cos_first):
    """R(m) = T_row(m) of the sin-first layout = T_column(m) of the cos-first layout."""
    rot = Rotary(Geometric(10000), 6, layout=layout)
    assert Encoding(Geometric(10000), sin_first, 6).translation(M, "row") == rot.rotation()
    assert Encoding(Geometric(10000), cos_first, 6).translation(M, "column") == rot.rotation()
    # and it is the transpose of the other convention (a transposed block is the classic bug)
    assert Encoding(Geometric(10000), sin_first, 6).translation(M, "column") == \
        rot.rotation().T


def test_half_layout_is_a_permutation_of_adjacent():
    """R_half = Pᵀ R_adj P with P from posproof.model.layouts.permutation (interleaved → split)."""
    adj = Rotary(Geometric(10000), 8, layout="adjacent")
    half = adj.with_layout("half")
    perm = permutation("interleaved", "split", 4)
    p = sp.zeros(8, 8)
    for j, src in enumerate(perm):
        p[src, j] = 1
    assert p.T * adj.rotation() * p == half.rotation()
    assert half.permutation() == perm


def test_layout_aliases():
    """Names people use map to the two layouts; others are refused with the choices."""
    assert get_rotary_layout("NeoX") == "half"
    assert get_rotary_layout("roformer") == "adjacent"
    with pytest.raises(UnknownName, match="use 'adjacent'"):
        get_rotary_layout("diagonal")


# --------------------------------------------------------------------------- numbers
@pytest.mark.parametrize("layout", ["half", "adjacent"])
@pytest.mark.parametrize("rotary_dim", [16, 8])
def test_apply_matches_reference_implementations(layout, rotary_dim):
    """apply() equals the transcribed HF / GPT-J code, at large positions, partial rotary too."""
    rot = rotary(10000, 16, layout=layout, rotary_dim=rotary_dim)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((5, 16))
    pos = np.array([0, 7, 12345, 10**6, 4 * 10**6])
    ref = (hf_rotate_half if layout == "half" else gptj_rotate_every_two)(
        x, pos, rot.frequencies_float, rotary_dim)
    np.testing.assert_allclose(rot.apply(x, pos), ref, rtol=0, atol=1e-12)


def test_apply_against_exact_rotation_at_large_positions():
    """apply() in float64 against mpmath with the exact frequencies; error ∝ |m|·θ·u."""
    rot = rotary(500000, 32, layout="half", **LLAMA3)
    rng = np.random.default_rng(1)
    for m in (3, 98765, 3 * 10**6):
        x = rng.standard_normal(32)
        exact = exact_rotate(rot, x, m)
        got = rot.apply(x[None, :], [m])[0]
        assert np.max(np.abs(got - exact)) <= 8 * m * 2.0 ** -52 * np.abs(x).sum() + 1e-14


def test_pass_through_channels_are_untouched_bitwise():
    """Channels rotary_dim … head_dim−1 come back bit for bit."""
    rot = rotary(10000, 80, partial_rotary_factor=0.25)
    assert rot.rotary_dim == 20
    x = np.random.default_rng(2).standard_normal((3, 80))
    out = rot.apply(x, [1, 10**5, 10**7])
    assert np.array_equal(out[:, 20:], x[:, 20:])


def test_apply_scaled_multiplies_by_the_attention_factor():
    """scaled=True multiplies cos and sin by YaRN's attention factor (norm grows by a)."""
    rot = rotary(10000, 8, scaling="yarn", factor=4, original_max_position_embeddings=64)
    x = np.ones((1, 8))
    a = rot.attention_factor_float
    assert a == pytest.approx(0.1 * np.log(4) + 1)
    assert np.linalg.norm(rot.apply(x, [5], scaled=True)) == pytest.approx(a * np.sqrt(8))


def test_apply_shape_errors():
    """Wrong shapes are refused with the expected shape spelled out."""
    with pytest.raises(InvalidParameter, match=r"expected \(\.\.\., 2, 8\)"):
        rotary(10000, 8).apply(np.ones((3, 8)), [0, 1])


# --------------------------------------------------------------------------- proofs
def test_generic_identities_are_proved():
    """The 2×2 identities behind everything reduce to 0 for every w."""
    for name in ("relative", "orthogonal", "determinant", "mixed"):
        assert generic_identity(name)[0] is True


@pytest.mark.parametrize("spec", [
    {},
    {"scaling": "linear", "factor": 4},
    {"scaling": "ntk", "factor": 4},
    {"scaling": "yarn", "factor": 4, "original_max_position_embeddings": 256},
    {"scaling": "llama3", "factor": 8, "original_max_position_embeddings": 256},
    {"partial_rotary_factor": 0.5, "layout": "adjacent"},
])
def test_every_variant_is_proved(spec):
    """relative, orthogonal, pass-through, layout permutation, correspondence: all proved,
    for the concrete d and for every even d, each cross-checked in mpmath."""
    report = prove_rotary(rotary(10000, 16, **spec))
    assert {p.name: p.status for p in report.theorems if p.status != "proved"} == {}
    assert exit_status(report) == 0
    for p in report.theorems:
        if p.name.startswith("rotary:"):
            assert p.crosscheck["dps"] == 50
            assert any(abs(m) >= 10**5 for pt in p.crosscheck["points"] for m in pt)
    general = [p for p in report.theorems if p.general]
    assert len(general) == 3
    assert all(min(p.crosscheck["rotary_dims"]) <= 4 for p in general)


def test_dynamic_variant_reports_expected_refutations():
    """dynamic NTK: the stale-cache hazard and factor 1 refuted (expected), rest proved."""
    report = prove_rotary(rotary(10000, 16, scaling="dynamic", factor=2,
                                 original_max_position_embeddings=64, seq_len=200),
                          general=False)
    refuted = {p.name for p in report.theorems if p.status == "refuted"}
    assert refuted == {"hazard:stale_cache", "scaling:factor_one[dynamic]"}
    assert refuted <= EXPECTED_REFUTATIONS
    assert exit_status(report) == 0


def test_stale_cache_counterexample_is_confirmed_in_mpmath():
    """Keys rotated with θ', queries with θ: same n − m, different logits (50 digits)."""
    rule = DynamicNTKScaling(10000, 2, 2048)
    before, after = Rotary(rule, 32), Rotary(rule.at(8192), 32)
    proof = stale_cache(before, after)
    assert proof.status == "refuted"
    ce = proof.counterexample
    k = ce["pair"]
    from posproof.precise import mp_values

    th, th2 = (mp_values(r.frequencies, 60)[k] for r in (before, after))
    with mpmath.workdps(50):
        def logit(m, n):  # ⟨R_θ(m)e, R_θ'(n)e⟩ = cos(nθ' − mθ) for e the pair's first channel
            return mpmath.cos(n * th2 - m * th)
        a = logit(ce["m"], ce["n"])
        b = logit(ce["m"] + ce["shift"], ce["n"] + ce["shift"])
    assert abs(a - b) > 0.1
    assert mpmath.mpf(ce["lhs"]) == pytest.approx(float(a), abs=1e-15)


def test_stale_cache_with_equal_tables_is_not_refuted():
    """Same frequencies before and after: nothing to refute (the statement holds)."""
    rot = rotary(10000, 8)
    assert stale_cache(rot, rot).status == "unknown"


def test_longrope_switch_is_a_stale_cache_hazard():
    """LongRoPE switching short → long factors at L + 1 has the same hazard."""
    rule = LongRoPEScaling(10000, [1, 1.5], [1, 4], 64)
    report = prove_rotary(Rotary(rule, 4), general=False)
    assert report["hazard:stale_cache"].status == "refuted"


def test_a_broken_rotation_is_never_called_proved(monkeypatch):
    """A transposed block (the classic bug) makes the structure check fail: not 'proved'."""
    rot = rotary(10000, 8, layout="adjacent")
    good = rot.rotation_entries

    def transposed(m=M):
        return {(j, i): v for (i, j), v in good(m).items()}
    monkeypatch.setattr(rot, "rotation_entries", transposed)
    report = prove_rotary(rot, theorems=["relative"], general=False, scaling=False)
    assert report.theorems[0].status == "unknown"


def test_random_rotary_dims_and_bases_are_proved():
    """A few random (base, head, rotary) triples: the relative property is proved."""
    rng = random.Random(3)
    for _ in range(3):
        head = 2 * rng.randrange(2, 12)
        rot = rotary(rng.randrange(2, 10**6), head, rotary_dim=2 * rng.randrange(1, head // 2 + 1),
                     layout=rng.choice(["half", "adjacent"]))
        report = prove_rotary(rot, theorems=["relative", "pass_through"], general=False)
        assert [p.status for p in report.theorems] == ["proved", "proved"]


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"rotary_dim": 160}, InvalidEncoding, "rotary_dim=160 is larger than head_dim=128"),
    ({"rotary_dim": 7}, InvalidEncoding, "rotary_dim=7 must be an even number"),
    ({"layout": "zigzag"}, UnknownName, "not a RoPE layout"),
    ({"partial_rotary_factor": 1.5}, InvalidParameter, r"must be in \(0, 1\]"),
    ({"rotary_dim": 64, "partial_rotary_factor": 0.5}, InvalidParameter, "not both"),
    ({"scaling": "llama3", "factor": -8}, InvalidParameter, "factor=-8 must be > 0"),
])
def test_bad_rotary_parameters(kwargs, error, match):
    """Bad rotary settings raise posproof errors (ValueErrors) naming the parameter."""
    with pytest.raises(error, match=match) as info:
        rotary(10000, 128, **kwargs)
    assert isinstance(info.value, ValueError)


def test_schedule_must_be_a_schedule():
    """A non-schedule is refused."""
    with pytest.raises(InvalidParameter, match="is not a Schedule"):
        Rotary("geometric", 8)  # type: ignore[arg-type]


def test_rotation_at_a_number_is_exact():
    """R(0) = I exactly, R(m) at a concrete m keeps exact entries."""
    rot = rotary(10000, 4)
    assert rot.rotation(0) == sp.eye(4)
    assert rot.rotation(3)[0, 0] == sp.cos(3)
    assert DELTA not in rot.rotation().free_symbols
