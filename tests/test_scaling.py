"""RoPE scaling rules: exact tables against an independent transcription of HF's formulas.

The reference functions below are written straight from HF transformers
``modeling_rope_utils`` (``_compute_*_parameters``, transformers 5.x; restated
in shared/design/references.md) in plain NumPy float64, sharing no code with
posproof.model.scaling.  When ``transformers`` and ``torch`` are installed the same
tables are also compared with ``ROPE_INIT_FUNCTIONS`` itself.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st

from posproof.errors import InvalidEncoding, InvalidParameter, UnknownName
from posproof.model.scaling import (
    DynamicNTKScaling,
    LinearScaling,
    Llama3Scaling,
    LongRoPEScaling,
    NTKScaling,
    YaRNScaling,
    attention_factor,
    decide,
    float_frequencies,
    make_scaling,
    numeric_frequencies,
)
from posproof.model.schedules import Geometric
from posproof.proofs.scaling import scaling_theorems


# --------------------------------------------------------------------------- reference (HF)
def ref_default(base, dim):
    return 1.0 / (base ** (np.arange(0, dim, 2, dtype=np.int64).astype(np.float64) / dim))


def ref_linear(base, dim, factor):
    return ref_default(base, dim) / factor


def ref_dynamic(base, dim, factor, max_pos, seq_len):
    seq_len = max(seq_len, max_pos)
    base = base * ((factor * seq_len / max_pos) - (factor - 1)) ** (dim / (dim - 2))
    return ref_default(base, dim)


def ref_yarn(base, dim, factor, orig, beta_fast=32, beta_slow=1, truncate=True,
             attention_factor=None, mscale=None, mscale_all_dim=None):
    def get_mscale(scale, m=1):
        return 1.0 if scale <= 1 else 0.1 * m * math.log(scale) + 1.0

    if attention_factor is None:
        if mscale and mscale_all_dim:
            attention_factor = get_mscale(factor, mscale) / get_mscale(factor, mscale_all_dim)
        else:
            attention_factor = get_mscale(factor)

    def corr_dim(rot):
        return (dim * math.log(orig / (rot * 2 * math.pi))) / (2 * math.log(base))

    low, high = corr_dim(beta_fast), corr_dim(beta_slow)
    if truncate:
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, dim - 1)
    if low == high:
        high += 0.001
    ramp = np.clip((np.arange(dim // 2, dtype=np.float64) - low) / (high - low), 0, 1)
    pos_freqs = base ** (np.arange(0, dim, 2).astype(np.float64) / dim)
    extrapolation, interpolation = 1.0 / pos_freqs, 1.0 / (factor * pos_freqs)
    weight = 1 - ramp
    return interpolation * (1 - weight) + extrapolation * weight, attention_factor


def ref_llama3(base, dim, factor, low, high, orig):
    inv = ref_default(base, dim)
    low_wl, high_wl = orig / low, orig / high
    wavelen = 2 * math.pi / inv
    out = np.where(wavelen > low_wl, inv / factor, inv)
    smooth = (orig / wavelen - low) / (high - low)
    smoothed = (1 - smooth) * out / factor + smooth * out
    medium = ~(wavelen < high_wl) * ~(wavelen > low_wl)
    return np.where(medium, smoothed, out)


def ref_longrope(base, dim, short, long, orig, seq_len=None, factor=None):
    ext = np.array(long if seq_len and seq_len > orig else short, dtype=np.float64)
    att = 1.0 if factor is None or factor <= 1 else math.sqrt(1 + math.log(factor)
                                                              / math.log(orig))
    shape = np.arange(0, dim, 2, dtype=np.int64).astype(np.float64) / dim
    return 1.0 / (ext * base ** shape), att


def close(ours, ref, rtol=1e-12):
    np.testing.assert_allclose(ours, ref, rtol=rtol, atol=0)


# --------------------------------------------------------------------------- tables
@pytest.mark.parametrize(("base", "dim", "factor"), [(10000, 128, 4), (500000, 64, 8),
                                                     (10000, 4, 2.5)])
def test_linear_matches_reference(base, dim, factor):
    """linear: inv_freq / factor."""
    close(float_frequencies(LinearScaling(base, factor), dim), ref_linear(base, dim, factor))


@pytest.mark.parametrize(("factor", "seq_len"), [(2, 1000), (2, 4096), (2, 4097), (2, 16384),
                                                 (1, 10000), (4.5, 65536)])
def test_dynamic_matches_reference(factor, seq_len):
    """dynamic NTK at sequence length s, L = max_position_embeddings = 4096."""
    rule = DynamicNTKScaling(10000, factor, 4096, seq_len=seq_len)
    close(float_frequencies(rule, 128), ref_dynamic(10000.0, 128, factor, 4096, seq_len))


def test_ntk_is_the_static_form_of_the_dynamic_rule():
    """NTK-aware base·f^(d/(d−2)) is dynamic NTK's table at s with f·s/L − (f−1) = f."""
    ntk = float_frequencies(NTKScaling(10000, 3), 64)
    close(ntk, ref_default(10000 * 3 ** (64 / 62), 64))
    close(ntk, float_frequencies(DynamicNTKScaling(10000, 1, 4096, seq_len=3 * 4096), 64))


@pytest.mark.parametrize(("base", "factor", "orig", "dim", "kw"), [
    (1000000, 4, 32768, 128, {}),             # Qwen2 YaRN
    (10000, 16, 4096, 64, {}),
    (10000, 40, 4096, 64, {"mscale": 1, "mscale_all_dim": 0.707}),   # DeepSeek style
    (10000, 4, 4096, 128, {"truncate": False}),
    (10000, 4, 4096, 128, {"beta_fast": 16, "beta_slow": 2}),
    (10000, 8, 2048, 16, {"attention_factor": 1.5}),
    (10000, 2, 64, 8, {}),                     # low = high: HF adds 0.001
])
def test_yarn_matches_reference(base, factor, orig, dim, kw):
    """YaRN: ramp in the pair index between floor/ceil of the correction dims."""
    params = {("attention" if k == "attention_factor" else k): v for k, v in kw.items()}
    rule = YaRNScaling(base, factor, orig, **params)
    ref, att = ref_yarn(float(base), dim, factor, orig, **kw)
    close(float_frequencies(rule, dim), ref)
    assert float(mp_float(attention_factor(rule))) == pytest.approx(att, rel=1e-14)


def test_yarn_low_equals_high_gets_the_hf_offset():
    """When floor(low) == ceil(high) HF adds 0.001 to high; so do we, exactly."""
    low, high = YaRNScaling(10000, 2, 4).correction_range(8)
    assert (low, high) == (0, sp.Rational(1, 1000))
    ref, _ = ref_yarn(10000.0, 8, 2, 4)
    close(float_frequencies(YaRNScaling(10000, 2, 4), 8), ref)


@pytest.mark.parametrize(("base", "factor", "low", "high", "orig", "dim"), [
    (500000, 8, 1, 4, 8192, 128),              # Llama 3.1
    (500000, 32, 1, 4, 8192, 64),              # Llama 3.2 style factor
    (10000, 8, 1, 4, 8192, 128),
    (500000, 8, 2, 8, 4096, 128),
])
def test_llama3_matches_reference(base, factor, low, high, orig, dim):
    """Llama 3 banding by wavelength."""
    rule = Llama3Scaling(base, factor, low, high, orig)
    close(float_frequencies(rule, dim), ref_llama3(float(base), dim, factor, low, high, orig))


@pytest.mark.parametrize("seq_len", [None, 4096, 4097, 100000])
def test_longrope_matches_reference(seq_len):
    """LongRoPE: short factors up to L, long beyond; attention √(1 + ln f / ln L)."""
    short = [1.0 + 0.01 * i for i in range(48)]
    long = [1.0 + 0.5 * i for i in range(48)]
    rule = LongRoPEScaling(10000, short, long, 4096, factor=32, seq_len=seq_len)
    ref, att = ref_longrope(10000.0, 96, short, long, 4096, seq_len, factor=32)
    close(float_frequencies(rule, 96), ref)
    assert float(mp_float(attention_factor(rule))) == pytest.approx(att, rel=1e-14)


def mp_float(expr):
    from posproof.precise import mp_value

    return mp_value(expr, 30)


@given(base=st.integers(2, 10**7), factor=st.integers(1, 64),
       dim=st.sampled_from([4, 8, 16, 64, 128]))
def test_linear_and_llama3_match_reference_for_random_parameters(base, factor, dim):
    """Random bases and factors (exact integers): tables agree with the transcription."""
    close(float_frequencies(LinearScaling(base, factor), dim), ref_linear(base, dim, factor),
          rtol=1e-13)
    rule = Llama3Scaling(base, factor, 1, 4, 8192)
    close(float_frequencies(rule, dim), ref_llama3(float(base), dim, factor, 1, 4, 8192),
          rtol=1e-12)


def test_fast_numeric_path_agrees_with_exact_tables():
    """numeric() (mpmath straight from the formula) equals the exact table to 1e-25."""
    rules = [LinearScaling(10000, 4), NTKScaling(10000, 4),
             DynamicNTKScaling(10000, 2, 4096, seq_len=9000), YaRNScaling(10000, 4, 4096),
             Llama3Scaling(500000, 8, 1, 4, 8192),
             LongRoPEScaling(10000, [1, 2], [3, 4], 4096)]
    for rule in rules:
        d = 4 if isinstance(rule, LongRoPEScaling) else 64
        exact = [mp_float(f) for f in rule.frequencies(d)]
        fast = rule.numeric(d, 30)
        with mpmath.workdps(30):
            worst = max(abs(a - b) / a for a, b in zip(exact, fast, strict=True))
            assert worst < mpmath.mpf(10) ** -25
    close(numeric_frequencies(Geometric(10000), 8), ref_default(10000.0, 8), rtol=1e-15)


def test_against_transformers_when_installed():
    """The HF implementation itself (skipped unless transformers and torch are installed)."""
    pytest.importorskip("torch")
    rope_utils = pytest.importorskip("transformers.modeling_rope_utils")

    class Config:
        def __init__(self, **rope):
            self.head_dim, self.hidden_size, self.num_attention_heads = 128, 4096, 32
            self.max_position_embeddings = 131072
            self.rope_parameters = rope

        def standardize_rope_params(self):
            pass

    inv, _ = rope_utils.ROPE_INIT_FUNCTIONS["llama3"](
        Config(rope_type="llama3", rope_theta=500000.0, factor=8.0, low_freq_factor=1.0,
               high_freq_factor=4.0, original_max_position_embeddings=8192), "cpu")
    close(float_frequencies(Llama3Scaling(500000, 8, 1, 4, 8192), 128),
          inv.double().numpy(), rtol=1e-6)  # HF computes in float32


# --------------------------------------------------------------------------- exactness
def test_frequencies_are_exact():
    """Tables are exact SymPy numbers: rationals, rational powers, π — never floats."""
    for rule in (LinearScaling(10000, 4), Llama3Scaling(500000, 8, 1, 4, 8192),
                 YaRNScaling(10000, 4, 4096)):
        for f in rule.frequencies(16):
            assert not f.atoms(sp.Float), f


def test_llama3_band_edges_and_values():
    """Llama 3.1 at d=128: 29 high pairs, 6 blend, 29 low (wavelengths vs 2048 and 8192)."""
    rule = Llama3Scaling(500000, 8, 1, 4, 8192)
    bands = rule.bands(128)
    assert (bands.count("high"), bands.count("blend"), bands.count("low")) == (29, 6, 29)
    default, ours = rule.default_frequencies(128), rule.frequencies(128)
    assert all(o == t for o, t, b in zip(ours, default, bands, strict=True) if b == "high")
    assert all(o == t / 8 for o, t, b in zip(ours, default, bands, strict=True) if b == "low")


def test_decide_is_exact_for_rationals_and_refuses_ties():
    """decide(): exact on rationals; a tie is 0 only when proved by exact rewriting
    (log 8 = 3 log 2); values closer than the precision budget and not provably equal → error."""
    assert decide(sp.Rational(1, 3), sp.Rational(1, 3)) == 0
    assert decide(sp.pi, sp.Rational(314159, 100000)) == 1
    assert decide(sp.log(8), 3 * sp.log(2)) == 0
    assert decide(sp.log(8) + sp.Rational(1, 10**200), 3 * sp.log(2)) == 1
    with pytest.raises(InvalidParameter, match="not provably equal"):
        decide(sp.exp(sp.Rational(1, 10**6000)), 1)


# --------------------------------------------------------------------------- invariants
def statuses(rule, d):
    return {p.name: p.status for p in scaling_theorems(rule, d)}


def test_invariants_hold_for_each_rule():
    """factor 1 identity, bands, continuity, monotone dynamic base: proved."""
    assert set(statuses(LinearScaling(10000, 4), 16).values()) == {"proved"}
    assert set(statuses(NTKScaling(10000, 4), 16).values()) == {"proved"}
    assert set(statuses(YaRNScaling(10000, 4, 64), 16).values()) == {"proved"}
    assert set(statuses(Llama3Scaling(500000, 8, 1, 4, 8192), 64).values()) == {"proved"}
    assert set(statuses(LongRoPEScaling(10000, [1, 2], [2, 3], 64), 4).values()) == {"proved"}


def test_dynamic_factor_one_is_refuted_with_a_counterexample():
    """HF's dynamic NTK at factor 1 still rescales beyond L: refuted, confirmed at 50 digits."""
    proofs = {p.name: p for p in scaling_theorems(DynamicNTKScaling(10000, 2, 4096), 16)}
    refuted = proofs["scaling:factor_one[dynamic]"]
    assert refuted.status == "refuted"
    assert refuted.counterexample["dps"] == 50
    assert mpmath.mpf(refuted.counterexample["residual"]) > 1e-6
    assert proofs["scaling:default_up_to_L[dynamic]"].status == "proved"
    assert proofs["scaling:monotone[dynamic]"].status == "proved"


def test_llama3_continuity_is_a_general_identity():
    """The blend meets θ at λ = L/high and θ/factor at λ = L/low for any parameters."""
    proof = next(p for p in scaling_theorems(Llama3Scaling(10000, 3, 2, 7, 1000), 32)
                 if p.name == "scaling:continuous[llama3]")
    assert proof.status == "proved"
    assert mpmath.mpf(proof.crosscheck["max_jump"]) < 1e-40


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(("build", "match"), [
    (lambda: LinearScaling(10000, -2), "factor=-2 must be > 0"),
    (lambda: Llama3Scaling(500000, 8, 4, 1, 8192), "low_freq_factor=4 must be < "
                                                   "high_freq_factor=1"),
    (lambda: Llama3Scaling(500000, 8, 2, 2, 8192), "must be <"),
    (lambda: YaRNScaling(10000, 4, 4096, beta_fast=0), "beta_fast=0 must be > 0"),
    (lambda: LinearScaling(1, 2), "rope_theta=1 must be > 1"),
    (lambda: LongRoPEScaling(10000, [1, 2], [1], 4096), "short_factor has 2 entries"),
    (lambda: LongRoPEScaling(10000, [1, -2], [1, 2], 4096), r"short_factor\[1\]=-2"),
    (lambda: DynamicNTKScaling(10000, 2, 0), "original_max_position_embeddings=0 is too small"),
])
def test_bad_parameters_are_refused_with_a_clear_message(build, match):
    """Negative factors, low ≥ high, bad lengths: InvalidParameter (a ValueError) naming the key."""
    with pytest.raises(InvalidParameter, match=match) as info:
        build()
    assert isinstance(info.value, ValueError)


def test_dimension_errors():
    """NTK needs d ≥ 4 (d/(d−2)); LongRoPE needs one factor per pair; odd d refused."""
    with pytest.raises(InvalidEncoding, match="rotary_dim=2 must be an even number >= 4"):
        NTKScaling(10000, 2).frequencies(2)
    with pytest.raises(InvalidEncoding, match="needs 3"):
        LongRoPEScaling(10000, [1, 2], [1, 2], 4096).frequencies(6)
    with pytest.raises(InvalidEncoding, match="even"):
        LinearScaling(10000, 2).frequencies(7)


def test_make_scaling_names_and_errors():
    """make_scaling: default → Geometric, aliases, unknown names and parameters refused."""
    assert make_scaling(None, 10000) == Geometric(10000)
    assert make_scaling("su", 10000, short_factor=[1], long_factor=[2],
                        original_max_position_embeddings=8).rope_type == "longrope"
    with pytest.raises(UnknownName, match="scaling='ropey' is not known"):
        make_scaling("ropey")
    with pytest.raises(InvalidParameter, match="does not take fctor=2"):
        make_scaling("linear", 10000, fctor=2)
