"""posproof.testing.identification: which schedule, layout, parameters and offset produced a table.

The full bar (every preset family and layout, d ∈ {64, 512, 1024}, offsets,
float64 and float32; random tables) is measured by
``benchmarks/bench_testing.py``; this file keeps a smaller version of it.
"""

from __future__ import annotations

import json

import ml_dtypes
import numpy as np
import pytest

import posproof
from posproof.errors import InvalidParameter
from posproof.testing.identification import as_array, identify

# (preset, params, the name identify must report among its presets)
FAMILIES = [
    ("vaswani", {}, "vaswani"),
    ("vaswani", {"layout": "split"}, "vaswani"),
    ("vaswani", {"layout": "interleaved-cos"}, "vaswani"),
    ("vaswani", {"base": 500000}, "vaswani"),
    ("tensor2tensor", {}, "tensor2tensor"),
    ("tensor2tensor", {"layout": "interleaved"}, "tensor2tensor"),
    ("tensor2tensor", {"min_timescale": 2, "max_timescale": 20000}, "tensor2tensor"),
    ("fairseq", {}, "fairseq"),
    ("diffusion", {}, "diffusion"),
    ("binary", {}, "binary"),
    ("binary", {"layout": "split", "numerator": "2*pi"}, "binary"),
]


def _offset_params(name: str, offset: int) -> dict[str, int]:
    if not offset:
        return {}
    key = {"tensor2tensor": "start_index", "fairseq": "padding_idx"}.get(name, "offset")
    return {key: offset}


def _named(found: posproof.testing.identification.Identification, name: str) -> bool:
    return any(call.startswith(f'preset("{name}"') for call in found.presets)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("offset", [0, 5])
@pytest.mark.parametrize(("name", "params", "expect"), FAMILIES,
                         ids=[f"{n}-{'-'.join(map(str, p.values())) or 'default'}"
                              for n, p, _ in FAMILIES])
def test_every_family_is_identified(name: str, params: dict, expect: str, offset: int,
                                    dtype: str) -> None:
    """Each family, layout and offset is identified, and the fitted encoding reproduces it."""
    enc = posproof.preset(name, dim=64, **params, **_offset_params(name, offset))
    found = identify(enc.table(160, dtype=dtype))
    assert found.matched, found
    assert _named(found, expect), found.presets
    assert found.layout == enc.layout.name
    assert found.offset == enc.offset
    assert found.score <= 1.0
    rebuilt = found.encoding.table(np.arange(found.offset, found.offset + 160))
    assert np.abs(rebuilt - enc.table(160)).max() < 1e-5


@pytest.mark.parametrize("dim", [512, 1024])
def test_large_dims(dim: int) -> None:
    """d = 512 and 1024 tell the exponent over n from over n−1 (a 0.02 % difference)."""
    for name, expect in (("vaswani", "n"), ("tensor2tensor", "n-1")):
        found = identify(posproof.preset(name, dim=dim).table(256, dtype="float32"))
        assert found.matched, found
        assert found.exponent == expect, found


def test_parameters_are_snapped_to_simple_numbers() -> None:
    found = identify(posproof.preset("vaswani", dim=128, base=500000).table(300))
    assert found.params == {"base": "500000"}
    assert found.summary == "matches vaswani (base=500000), layout interleaved, offset 0"
    t2t = identify(posproof.preset("tensor2tensor", dim=64, min_timescale=2,
                                   max_timescale=20000).table(200))
    assert t2t.params == {"min_timescale": "2", "max_timescale": "20000"}
    assert t2t.exponent == "n-1"


def test_diffusion_is_cos_first_halves_with_exponent_over_n() -> None:
    found = identify(posproof.preset("diffusion", dim=33).table(100))
    assert found.preset == "diffusion"
    assert found.layout == "split-cos"
    assert found.exponent == "n"
    assert found.odd_dim_padding
    assert "odd dim padded" in found.summary


def test_fairseq_weights_with_padding_row() -> None:
    """fairseq's stored table: rows are position ids 0 …, the padding_idx row is zero."""
    enc = posproof.preset("fairseq", dim=64, padding_idx=1)
    found = identify(enc.table(np.arange(300)))
    assert found.preset == "fairseq"
    assert found.offset == 0
    assert found.zero_rows == [1]
    assert found.presets[0] == 'preset("fairseq", dim=64, padding_idx=1)'
    assert "padding" in " ".join(found.notes)


def test_exponent_over_d_is_noted() -> None:
    """ω_k = 10000^(−k/d) is base 100 over n; the note says what it really is."""
    found = identify(posproof.preset("expression", dim=32, expression="10000**(-k/d)")
                     .table(200))
    assert found.params == {"base": "100"}
    table = posproof.preset("expression", dim=32, expression="500000**(-k/d)").table(200)
    over_d = identify(table)
    assert over_d.matched
    assert "exponent is over d" in " ".join(over_d.notes)


@pytest.mark.parametrize("kind", ["normal", "init-0.02", "uniform", "phases"])
@pytest.mark.parametrize("dim", [64, 512])
def test_random_tables_match_nothing(kind: str, dim: int) -> None:
    """Random tables — also one overwritten by random init (transformers#29807) — match nothing."""
    rng = np.random.default_rng(dim)
    if kind == "normal":
        table = rng.normal(size=(200, dim))
    elif kind == "init-0.02":
        table = rng.normal(scale=0.02, size=(200, dim)).astype(np.float32)
    elif kind == "uniform":
        table = rng.uniform(-1, 1, size=(200, dim))
    else:  # pairs on the unit circle with random phases: sin² + cos² = 1, nothing else
        phase = rng.uniform(0, 2 * np.pi, size=(200, dim // 2))
        table = np.concatenate([np.sin(phase), np.cos(phase)], axis=1)
    found = identify(table)
    assert not found.matched
    assert found.summary.startswith("matches no known schedule")


def test_column_exponent_bug_names_the_dims() -> None:
    found = identify(posproof.preset("column-exponent", dim=32).table(200))
    assert not found.matched
    assert "dims 2i and 2i+1 use different frequencies" in found.summary
    assert "dims 0 and 1" in " ".join(found.notes)


def test_llama3_scaled_pairs_are_sinusoids_of_no_known_family() -> None:
    rot = posproof.rotary(500000, 64, scaling="llama3", factor=8,
                          original_max_position_embeddings=64)
    found = identify(rot.encoding().table(300))
    assert not found.matched
    assert found.layout == "split"
    assert "follow none of the known families" in found.summary


def test_duck_typed_arrays_without_torch() -> None:
    """Anything with __array__ works (JAX arrays, xarray, …); torch-like .detach() too."""
    table = posproof.preset("vaswani", dim=16).table(64)

    class ArrayLike:
        def __array__(self, dtype=None, copy=None):
            return table

    class TensorLike:
        dtype = "torch.float32"

        def detach(self):
            return self

        def cpu(self):
            return self

        def numpy(self):
            return table.astype(np.float32)

    assert identify(ArrayLike()).matched
    found = identify(TensorLike())
    assert found.matched
    assert found.dtype == "float32"


def test_to_dict_is_json() -> None:
    found = identify(posproof.preset("binary", dim=16).table(64))
    data = json.loads(json.dumps(found.to_dict()))
    assert data["preset"] == "binary"
    assert data["params"] == {"numerator": "pi"}
    assert data["encoding"]["schedule"]["family"] == "binary"


@pytest.mark.parametrize(("table", "message"), [
    (np.full((10, 4), np.nan), "NaN or infinite"),
    (np.zeros(10), "2-d array"),
    (np.zeros((3, 4)), "at least 4"),
    (np.zeros((10, 1)), "dim >= 2"),
    (np.array([["a", "b"]] * 5), "not a real numeric array"),
    (object(), "not a real numeric"),
])
def test_bad_input_is_refused(table: object, message: str) -> None:
    with pytest.raises(InvalidParameter, match=message):
        identify(table)


def test_all_zero_table() -> None:
    assert identify(np.zeros((10, 4))).summary == "matches no known schedule: every row is zero"


def test_as_array_keeps_the_dtype_name() -> None:
    arr, name = as_array(np.ones((2, 2), dtype=np.float16))
    assert arr.dtype == np.float64
    assert name == "float16"


# --------------------------------------------------------------------------- precision, scale
def _float32_angles(enc: posproof.Encoding, rows: int, values: type = np.float32
                    ) -> np.ndarray:
    """A table whose angles were formed in float32 (as torch code does), sin and cos
    computed and stored in ``values``."""
    x = np.arange(rows, dtype=np.float32)[:, None] * enc.frequencies_float.astype(np.float32)
    x = x.astype(values)
    table = np.empty((rows, enc.dim), values)
    table[:, 0::2], table[:, 1::2] = np.sin(x), np.cos(x)
    return table


@pytest.mark.parametrize(("make", "stored", "precision"), [
    (lambda e: e.table(1000, dtype="float32"), np.float64, "float32"),
    (lambda e: _float32_angles(e, 1000), np.float64, "float32"),
    # sin, cos in float64 of float32 angles: sin² + cos² = 1 to float64, only the phase
    # error's growth with the position shows the float32
    (lambda e: _float32_angles(e, 1000, values=np.float64), np.float64, "float32"),
    (lambda e: e.table(1000, dtype="float16"), np.float32, "float16"),
    (lambda e: e.table(1000).astype(ml_dtypes.bfloat16), np.float32, "bfloat16"),
    (lambda e: e.table(1000).astype(ml_dtypes.bfloat16), np.float64, "bfloat16"),
])
def test_working_precision_is_read_from_the_values(make: object, stored: type,
                                                   precision: str) -> None:
    """Issue 13 §3: a float32 table stored as float64 (np.asarray(t, dtype=float), .double())
    was 'no pairing of the columns gives (sin, cos) pairs'; it matches at its precision."""
    enc = posproof.preset("vaswani", dim=64)
    table = np.asarray(make(enc)).astype(stored)
    found = identify(table)
    stored_name = np.dtype(stored).name
    assert found.matched, found.summary
    assert found.preset == "vaswani"
    assert found.params == {"base": "10000"}
    assert found.precision == precision
    assert found.dtype == stored_name
    assert found.scale == 1.0
    assert found.summary.endswith(f"values carry {precision} precision (stored as "
                                  f"{stored_name})")
    assert found.score <= 1
    # at the stored dtype (what dtype= asks for) the same table matches nothing
    assert not identify(table, dtype=stored_name).matched


def test_exact_tables_keep_their_own_precision() -> None:
    for dtype in ("float64", "float32", "float16"):
        found = identify(posproof.preset("vaswani", dim=32).table(500, dtype=dtype))
        assert found.matched
        assert found.precision is None
        assert "precision" not in found.summary


def test_a_wrong_float64_table_is_not_matched_at_a_coarser_precision() -> None:
    """The precision comes from the values, not from trying dtypes until one matches: a float64
    table with base off by 1e-7 relative has float64 noise and stays unmatched."""
    wrong = posproof.preset("vaswani", dim=64, base=10000 * (1 + 1e-7)).table(4000)
    found = identify(wrong)
    assert found.summary != identify(posproof.preset("vaswani", dim=64).table(4000)).summary
    assert found.precision is None
    # the same defect is below float32's noise: rounded to float32 it does match
    assert identify(wrong.astype(np.float32)).matched


@pytest.mark.parametrize(("dim", "scale", "text"), [
    (256, 256**-0.5, "scaled by 0.0625 = 1/√256"),
    (512, 512**0.5, "scaled by 22.627417 = √512"),
    (64, 0.3, "scaled by 0.3"),
])
def test_scaled_tables_are_identified_with_their_scale(dim: int, scale: float,
                                                       text: str) -> None:
    """x-transformers' ScaledSinusoidalEmbedding (1/√d) and the √d scale of tutorials."""
    enc = posproof.preset("vaswani", dim=dim)
    found = identify(enc.table(600) * scale)
    assert found.matched, found.summary
    assert found.summary == f"matches vaswani (base=10000), layout interleaved, offset 0; {text}"
    assert found.scale == pytest.approx(scale, rel=1e-15)
    assert found.presets[0].startswith(text.split()[2] + " * preset(\"vaswani\"")
    # an explicit dtype keeps the precision but still reads the scale
    assert identify(enc.table(600) * scale, dtype="float64").scale == found.scale
    # float32, as the module stores it
    found = identify((enc.table(600) * scale).astype(np.float32))
    assert found.matched
    assert found.scale == pytest.approx(scale, rel=1e-6)


def test_scaled_random_table_matches_nothing() -> None:
    rng = np.random.default_rng(3)
    angles = rng.uniform(0, 6.3, size=(300, 16))
    table = np.empty((300, 32))
    table[:, 0::2], table[:, 1::2] = np.sin(angles), np.cos(angles)
    found = identify(0.5 * table)
    assert not found.matched
    assert found.scale == 1.0
