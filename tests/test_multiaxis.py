"""Multi-axis encodings (issue 15, the model): 2-D/3-D sinusoidal tables, axial RoPE, M-RoPE.

The tables are compared with the real implementations (the ``positional-encodings`` package,
HF transformers' Qwen2-VL / Qwen3-VL rotary embeddings), and a broken copy of each (axes
swapped, sections misread) must differ from them; T(Δ) is checked exactly with SymPy.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st

from posproof.errors import InvalidEncoding, InvalidParameter, PosproofError, UnknownName
from posproof.model.encoding import Encoding
from posproof.model.multiaxis import MultiAxisEncoding, axis_symbols, multi_preset
from posproof.model.multirope import axial_rope, mrope, multi_rotary
from posproof.model.rope import Rotary
from posproof.model.schedules import Geometric

torch = pytest.importorskip("torch")
from peers_multiaxis import hf_apply, qwen2, qwen3  # noqa: E402  (needs torch)

#: float32 angles of at most ~40 rad: the peers agree to this, broken copies miss by > 0.1.
PEER_ATOL = 2e-5


def _package_table(cls, dim: int, shape: tuple[int, ...]) -> np.ndarray:
    penc = cls(dim)
    out = penc(torch.zeros((1, *shape, dim), dtype=torch.float64))
    return out[0].reshape(-1, dim).numpy()


# ---------------------------------------------------------------------- sinusoidal peers
@pytest.mark.parametrize(("dim", "shape"), [(8, (3, 5)), (12, (4, 2)), (64, (6, 7)),
                                           (10, (3, 4)), (7, (2, 5)), (3, (2, 2))])
def test_pe_2d_equals_positional_encodings(dim, shape):
    from positional_encodings.torch_encodings import PositionalEncoding2D

    enc = multi_preset("pe-2d", dim=dim)
    ours = enc.table(enc.grid(shape))
    theirs = _package_table(PositionalEncoding2D, dim, shape)
    assert ours.shape == theirs.shape
    np.testing.assert_allclose(ours, theirs, atol=PEER_ATOL, rtol=0)
    # The broken copy (x and y swapped) is not that table.
    assert np.abs(enc.swapped((1, 0)).table(enc.grid(shape)) - theirs).max() > 0.1


@pytest.mark.parametrize(("dim", "shape"), [(6, (2, 3, 4)), (36, (3, 4, 5)), (16, (2, 3, 2)),
                                           (11, (3, 2, 2))])
def test_pe_3d_equals_positional_encodings(dim, shape):
    from positional_encodings.torch_encodings import PositionalEncoding3D

    enc = multi_preset("pe-3d", dim=dim)
    theirs = _package_table(PositionalEncoding3D, dim, shape)
    np.testing.assert_allclose(enc.table(enc.grid(shape)), theirs, atol=PEER_ATOL, rtol=0)
    for order in [(1, 0, 2), (0, 2, 1), (2, 1, 0)]:
        assert np.abs(enc.swapped(order).table(enc.grid(shape)) - theirs).max() > 0.1
    if dim % 2 == 0:    # whole pairs only (a cut axis too): T(Δ) moves the package's rows
        t = np.array(enc.translation([1, 0, 1]).evalf(30), dtype=float)
        moved = theirs.reshape(*shape, dim)[:-1, :, :-1].reshape(-1, dim) @ t
        np.testing.assert_allclose(moved, theirs.reshape(*shape, dim)[1:, :, 1:].reshape(-1, dim),
                                   atol=PEER_ATOL)


def test_sincos_2d_first_half_is_the_column_index():
    """MAE's meshgrid(grid_w, grid_h) puts the column w in grid[0], the first half."""
    enc = multi_preset("sincos-2d", dim=16)
    h, w = 3, 5
    table = enc.table(enc.grid((h, w)))
    row_enc = Encoding(Geometric(10000), "split", 8)
    rows = np.repeat(np.arange(h), w)        # row-major over (h, w), as MAE flattens
    cols = np.tile(np.arange(w), h)
    np.testing.assert_array_equal(table[:, :8], row_enc.table(cols))
    np.testing.assert_array_equal(table[:, 8:], row_enc.table(rows))
    # "ij" indexing (the transposed grid) is the other assignment, and differs.
    ij = multi_preset("sincos-2d", dim=16, first="row")
    assert np.abs(ij.table(enc.grid((h, w))) - table).max() > 0.1
    assert ij.table(enc.grid((h, w))).tolist() == enc.swapped((1, 0)).table(
        enc.grid((h, w))).tolist()


def test_vector_is_in_the_axis_symbols():
    enc = multi_preset("pe-3d", dim=6)
    assert enc.vector().free_symbols == set(axis_symbols(3))
    x1, x2, x3 = axis_symbols(3)
    assert list(enc.vector()) == [sp.sin(x1), sp.cos(x1), sp.sin(x2), sp.cos(x2),
                                  sp.sin(x3), sp.cos(x3)]


# ---------------------------------------------------------------------- T(Δ), exactly
@pytest.mark.parametrize("name", ["sincos-2d", "pe-2d"])
def test_translation_moves_rows_exactly(name):
    enc = multi_preset(name, dim=8)
    xs = axis_symbols(2)
    ds = axis_symbols(2, "delta")
    moved = enc.vector() * enc.translation()
    target = enc.vector([xs[0] + ds[0], xs[1] + ds[1]])
    for a, b in zip(moved, target, strict=True):
        assert sp.expand(sp.expand_trig(a - b)) == 0
    # Concrete integer offsets, and the column convention is the transpose.
    t = enc.translation([2, -3])
    assert enc.translation([2, -3], convention="column") == t.T
    for a, b in zip(enc.vector() * t, enc.vector([xs[0] + 2, xs[1] - 3]), strict=True):
        assert sp.expand(sp.expand_trig(a - b)) == 0


@st.composite
def _encodings(draw):
    """Any k ≤ 3 axes, 1–2 blocks per axis in a shuffled order, each its own base, layout,
    even dim and offset."""
    k = draw(st.integers(1, 3))
    axes = [a for a in range(k) for _ in range(draw(st.integers(1, 2)))]
    order = draw(st.permutations(axes))
    offsets = [draw(st.integers(-3, 3)) for _ in range(k)]
    blocks = [(a, Encoding(Geometric(draw(st.sampled_from([10, 100, 10000]))),
                           draw(st.sampled_from(["interleaved", "split", "split-cos"])),
                           2 * draw(st.integers(1, 3)), offset=offsets[a])) for a in order]
    return MultiAxisEncoding(blocks)


@given(_encodings(), st.data())
def test_translation_moves_any_split_numerically(enc, data):
    """For every k and every split of the columns among the axes: table(p)·T(Δ) = table(p+Δ)."""
    pos = np.array(data.draw(st.lists(st.lists(st.integers(-50, 50), min_size=enc.axes,
                                               max_size=enc.axes), min_size=1, max_size=4)))
    delta = data.draw(st.lists(st.integers(-20, 20), min_size=enc.axes, max_size=enc.axes))
    t = np.array(enc.translation(delta).evalf(30), dtype=float)
    np.testing.assert_allclose(enc.table(pos) @ t, enc.table(pos + np.array(delta)), atol=1e-9)
    assert enc.grid([2] * enc.axes)[0].tolist() == list(enc.offsets)


def test_translation_is_the_block_sum_of_the_1d_blocks():
    enc = multi_preset("sincos-2d", dim=8)
    d1, d2 = axis_symbols(2, "delta")
    one = Encoding(Geometric(10000), "split", 4)
    assert enc.translation() == sp.diag(one.translation(d2), one.translation(d1))


def test_translation_refuses_a_wrong_axis_count_and_a_swapped_copy_moves_the_wrong_way():
    enc = multi_preset("pe-2d", dim=4)
    with pytest.raises(InvalidParameter, match="expected 2"):
        enc.translation([1, 2, 3])
    bad = enc.swapped((1, 0))
    pos = enc.grid((3, 3))
    moved = enc.table(pos) @ np.array(enc.translation([1, 0]).evalf(), dtype=float)
    assert np.allclose(moved, enc.table(pos + np.array([1, 0])), atol=1e-12)
    assert not np.allclose(moved, bad.table(pos + np.array([1, 0])), atol=1e-3)


# ---------------------------------------------------------------------- M-RoPE peers
def _hf_mrope(config_cls, emb_cls, head_dim, sections, base, interleaved, positions, x):
    apply_fn = hf_apply(config_cls, emb_cls, head_dim, sections, base, interleaved)
    return apply_fn(np.asarray(x)[None, None], positions)[0, 0]


@pytest.mark.parametrize(("head_dim", "sections", "base"),
                         [(16, [2, 3, 3], 10000), (128, [16, 24, 24], 1000000)])
def test_mrope_equals_qwen2_vl(head_dim, sections, base):
    rng = np.random.default_rng(0)
    positions = rng.integers(0, 40, size=(3, 9))
    x = rng.standard_normal((9, head_dim))
    theirs = _hf_mrope(*qwen2(), head_dim, sections, base, False, positions, x)
    rot = mrope(base, head_dim, sections)
    np.testing.assert_allclose(rot.apply(x, positions), theirs, atol=1e-4, rtol=0)
    # Broken copies: sections read in the wrong order, axes t and w swapped.
    misread = mrope(base, head_dim, sections[::-1])
    assert np.abs(misread.apply(x, positions) - theirs).max() > 0.1
    swapped = rot.with_axes([{0: 2, 2: 0}.get(a, a) for a in rot.pair_axes])
    assert np.abs(swapped.apply(x, positions) - theirs).max() > 0.1


def test_interleaved_mrope_equals_qwen3_vl():
    rng = np.random.default_rng(1)
    positions = rng.integers(0, 40, size=(3, 7))
    x = rng.standard_normal((7, 128))
    theirs = _hf_mrope(*qwen3(), 128, [24, 20, 20], 5000000, True, positions, x)
    rot = mrope(5000000, 128, [24, 20, 20], interleaved=True)
    np.testing.assert_allclose(rot.apply(x, positions), theirs, atol=1e-4, rtol=0)
    plain = mrope(5000000, 128, [24, 20, 20])
    assert np.abs(plain.apply(x, positions) - theirs).max() > 0.1


@pytest.mark.parametrize("interleaved", [False, True])
def test_mrope_on_the_diagonal_is_plain_rope(interleaved):
    rot = mrope(10000, 12, [2, 2, 2], interleaved=interleaved)
    m = sp.Symbol("m", real=True)
    assert rot.rotation([m, m, m]) == Rotary(Geometric(10000), 12).rotation(m)
    assert rot.rotation() != Rotary(Geometric(10000), 12).rotation(m)


# ---------------------------------------------------------------------- axial RoPE
@pytest.mark.parametrize("layout", ["adjacent", "half"])
def test_axial_rope_is_the_block_sum_of_the_axis_rotaries(layout):
    rot = axial_rope((4, 2, 6), theta=100, layout=layout)
    ms = axis_symbols(3, "m")
    full = rot.rotation()
    for a in range(3):
        cols = rot.axis_channels(a)
        assert full.extract(cols, cols) == rot.axis_rotary(a).rotation(ms[a])
        assert rot.axis_rotary(a).frequencies == Geometric(100).frequencies((4, 2, 6)[a])
    # Channels of different axes never mix.
    seen = sorted(c for a in range(3) for c in rot.axis_channels(a))
    assert seen == list(range(12))


def test_flux_axial_rope_applies_adjacent_pairs_per_axis():
    """FLUX's rope(): per axis omega = theta^(-arange(0, d, 2)/d), angles stacked pair by
    pair, (x[2j], x[2j+1]) rotated by [[cos, -sin], [sin, cos]]."""
    rot = multi_rotary("axial-rope", axes_dims=(16, 56, 56), theta=10000)
    rng = np.random.default_rng(2)
    pos = rng.integers(0, 64, size=(3, 5))
    x = rng.standard_normal((5, 128))
    omega = np.concatenate([10000.0 ** -(np.arange(0, d, 2) / d) for d in (16, 56, 56)])
    axis = np.repeat([0, 1, 2], [8, 28, 28])
    ang = pos[axis].T * omega
    c, s = np.cos(ang), np.sin(ang)
    want = np.empty_like(x)
    want[:, 0::2] = c * x[:, 0::2] - s * x[:, 1::2]
    want[:, 1::2] = s * x[:, 0::2] + c * x[:, 1::2]
    np.testing.assert_allclose(rot.apply(x, pos), want, atol=1e-12)
    assert np.abs(rot.with_axes(axis[::-1].tolist()).apply(x, pos) - want).max() > 0.1


@pytest.mark.parametrize("rot", [mrope(100, 8, [2, 1, 1]), mrope(100, 12, [2, 2, 2],
                                                                   interleaved=True),
                                 axial_rope((4, 2), theta=10), axial_rope((4, 2), layout="half")],
                         ids=["mrope", "mrope-interleaved", "axial", "axial-half"])
def test_rotary_is_the_translation_of_its_sinusoidal_encoding(rot):
    """R(Δ) = T(Δ) (row convention) of the multi-axis encoding on the same channels, exactly;
    so its table at p is the start row PE(0) moved by R(p)ᵀ = R(−p), numerically."""
    enc = rot.encoding()
    ms = axis_symbols(rot.axes, "m")
    assert enc.translation(ms) == rot.rotation()
    wrong = rot.with_axes([(a + 1) % rot.axes for a in rot.pair_axes]).encoding()
    assert wrong.translation(ms) != rot.rotation()
    pos = np.array([[1, 2, 3][:rot.axes], [4, 0, 7][:rot.axes]])
    start = enc.table(np.zeros((1, rot.axes)))
    np.testing.assert_allclose(rot.apply(np.repeat(start, 2, 0), -pos.T), enc.table(pos),
                               atol=1e-12)
    assert np.abs(rot.apply(np.repeat(start, 2, 0), pos.T) - enc.table(pos)).max() > 0.1


def test_blocks_on_given_columns():
    one = Encoding(Geometric(100), "interleaved", 2)
    enc = MultiAxisEncoding([(0, one, (0, 2)), (1, one, (1, 3))])
    x1, x2 = axis_symbols(2)
    assert list(enc.vector()) == [sp.sin(x1), sp.sin(x2), sp.cos(x1), sp.cos(x2)]
    assert enc.table([[1, 2]]).tolist() == [[np.sin(1), np.sin(2), np.cos(1), np.cos(2)]]
    with pytest.raises(InvalidEncoding, match="each once") as info:
        MultiAxisEncoding([(0, one, (0, 2)), (1, one, (0, 3))])
    _one_line(info)


def test_multi_axis_rotary_is_relative():
    """R(p)ᵀ R(p') = R(p' − p), entry by entry after trig expansion (small case)."""
    rot = mrope(100, 6, [1, 1, 1])
    p, q = axis_symbols(3, "p"), axis_symbols(3, "q")
    lhs = rot.rotation(p).T * rot.rotation(q)
    rhs = rot.rotation([q[a] - p[a] for a in range(3)])
    assert (lhs - rhs).applyfunc(lambda e: sp.expand(e, trig=True)) == sp.zeros(6, 6)
    # and it fails for a claim that is false: R(p)ᵀ R(p') = R(p' + p).
    wrong = rot.rotation([q[a] + p[a] for a in range(3)])
    assert (lhs - wrong).applyfunc(lambda e: sp.expand(e, trig=True)) != sp.zeros(6, 6)


# ---------------------------------------------------------------------- bad input
def _one_line(exc_info) -> str:
    text = str(exc_info.value)
    assert text
    assert "\n" not in text
    assert isinstance(exc_info.value, PosproofError)
    return text


@pytest.mark.parametrize(("call", "error", "words"), [
    (lambda: multi_preset("sincos-2d", dim=10), InvalidEncoding, "cannot be divided among 2"),
    (lambda: multi_preset("pe-3d", dim=4), InvalidEncoding, "leaves axis z no column"),
    (lambda: multi_preset("pe-2d", dim=7).translation(), InvalidEncoding, "padding column"),
    (lambda: multi_preset("sincos-4d", dim=8), UnknownName, "not a multi-axis preset"),
    (lambda: multi_preset("pe-2d", dim=8, bse=3), InvalidParameter, "does not take"),
    (lambda: mrope(10000, 128, [16, 24, 20]), InvalidEncoding, "sums to 60"),
    (lambda: mrope(10000, 128, [16, 24, "x"]), InvalidParameter, "not an integer"),
    (lambda: mrope(10000, 8, [1, 1, 2], interleaved=True), InvalidEncoding, "smaller sections"),
    (lambda: axial_rope((16, 55, 57)), InvalidEncoding, "is odd"),
    (lambda: multi_preset("pe-2d", dim=8).table([0, 1, 2]), InvalidParameter, r"\(N, 2\)"),
    (lambda: multi_preset("pe-2d", dim=8).table([[0, 1, 2]]), InvalidParameter, r"\(N, 2\)"),
    (lambda: multi_preset("pe-2d", dim=8).table([["a", 1]]), InvalidParameter, "not a flat"),
    (lambda: multi_preset("pe-2d", dim=8).table([[np.nan, 1]]), InvalidParameter, "finite"),
    (lambda: multi_preset("pe-2d", dim=8).grid((3,)), InvalidParameter, "2 sizes"),
    (lambda: mrope(10000, 8, [2, 1, 1]).apply(np.zeros((4, 8)), np.zeros((4, 3))),
     InvalidParameter, r"expected \(3, N\)"),
    (lambda: mrope(10000, 8, [2, 1, 1]).apply(np.zeros((4, 6)), np.zeros((3, 4))),
     InvalidParameter, "head_dim=8"),
    (lambda: MultiAxisEncoding([(1, Encoding(Geometric(10), "split", 4))]), InvalidEncoding,
     "no columns"),
    (lambda: MultiAxisEncoding([(0, Encoding(Geometric(10), "split", 4)),
                                (0, Encoding(Geometric(10), "split", 4, offset=1))]),
     InvalidEncoding, "one offset per axis"),
    (lambda: multi_rotary("mrope", head_dim=8, section=[1, 1, 2]), InvalidParameter,
     "does not take"),
])
def test_bad_input_is_one_named_line(call, error, words):
    with pytest.raises(error, match=words) as info:
        call()
    _one_line(info)


# ---------------------------------------------------------------------- HF configs
#: The RoPE keys of Qwen2-VL-7B-Instruct's config.json (rope_scaling spelling).
QWEN2_VL = {"model_type": "qwen2_vl", "hidden_size": 3584, "num_attention_heads": 28,
            "rope_theta": 1000000.0, "max_position_embeddings": 32768,
            "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]}}
#: Qwen3-VL's spelling: under text_config, rope_type default with the interleaved flag.
QWEN3_VL = {"model_type": "qwen3_vl", "text_config": {
    "model_type": "qwen3_vl_text", "head_dim": 128, "hidden_size": 4096,
    "num_attention_heads": 32, "rope_theta": 5000000,
    "rope_scaling": {"rope_type": "default", "mrope_section": [24, 20, 20],
                     "mrope_interleaved": True}}}


def test_read_config_reads_mrope_and_matches_hf():
    from posproof.model.configs import read_config

    cfg = read_config(QWEN2_VL)
    rot = cfg.multi_rotary()
    assert cfg.mrope_section == (16, 24, 24)
    assert rot.pair_axes == mrope(1e6, 128, [16, 24, 24]).pair_axes
    assert rot.frequencies == Rotary(Geometric(10**6), 128).frequencies
    assert cfg.rotary().rotation(3) == rot.rotation([3, 3, 3])
    rng = np.random.default_rng(3)
    positions, x = rng.integers(0, 40, size=(3, 6)), rng.standard_normal((6, 128))
    theirs = _hf_mrope(*qwen2(), 128, [16, 24, 24], 1e6, False, positions, x)
    np.testing.assert_allclose(rot.apply(x, positions), theirs, atol=1e-4, rtol=0)
    # The rope_parameters spelling with rope_type default reads the same.
    moved = {**QWEN2_VL, "rope_scaling": None,
             "rope_parameters": {"rope_type": "default", "mrope_section": [16, 24, 24]}}
    assert read_config(moved).multi_rotary().pair_axes == rot.pair_axes
    three = read_config(QWEN3_VL)
    assert three.mrope_interleaved
    assert three.multi_rotary().pair_axes == mrope(5e6, 128, [24, 20, 20],
                                                   interleaved=True).pair_axes
    assert three.to_dict()["mrope_section"] == [24, 20, 20]


@pytest.mark.parametrize(("scaling", "words"), [
    ({"type": "mrope", "mrope_section": [16, 24, 20]}, "sums to 60"),
    ({"type": "mrope"}, "needs rope_scaling.mrope_section"),
    ({"type": "mrope", "mrope_section": "16,24,24"}, "must be a list"),
    ({"type": "linear", "factor": 2, "mrope_section": [16, 24, 24]}, "not modelled"),
    ({"rope_type": "default", "mrope_interleaved": True}, "without mrope_section"),
    ({"type": "mrope", "mrope_section": [16, 24, 24], "mrope_interleaved": "yes"},
     "true or false"),
])
def test_read_config_refuses_bad_mrope(scaling, words):
    from posproof.model.configs import read_config

    with pytest.raises(PosproofError, match=words) as info:
        read_config({**QWEN2_VL, "rope_scaling": scaling})
    assert _one_line(info).startswith("<dict>")


def test_a_1d_config_has_no_multi_rotary():
    from posproof.model.configs import read_config

    with pytest.raises(InvalidParameter, match="1-D RoPE"):
        read_config({"rope_theta": 1e4, "head_dim": 8}).multi_rotary()


_ATOMS = st.one_of(st.integers(-10**20, 10**20), st.floats(allow_nan=True, allow_infinity=True),
                   st.text(max_size=3), st.none(), st.complex_numbers(), st.booleans())
_HOSTILE = st.one_of(_ATOMS, st.lists(_ATOMS, max_size=4),
                     st.lists(st.lists(_ATOMS, max_size=4), max_size=4),
                     st.dictionaries(st.text(max_size=2), _ATOMS, max_size=2))


@given(_HOSTILE, st.sampled_from(["table", "apply", "grid", "translation", "sections",
                                  "axes_dims"]))
def test_hostile_input_is_a_posproof_error_or_an_answer(value, where):
    enc, rot = multi_preset("pe-2d", dim=4), mrope(10000, 4, [1, 1])
    calls = {"table": lambda: enc.table(value), "apply": lambda: rot.apply(np.ones((2, 4)), value),
             "grid": lambda: enc.grid(value), "translation": lambda: enc.translation(value),
             "sections": lambda: mrope(10000, 4, value), "axes_dims": lambda: axial_rope(value)}
    try:
        out, message = calls[where](), None
    except PosproofError as exc:
        out, message = None, str(exc)
    if message is not None:
        assert message.strip()
        assert "\n" not in message
    elif where == "table":
        assert np.isfinite(out).all()
        assert out.shape[1] == 4
