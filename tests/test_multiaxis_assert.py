"""assert_encoding / assert_rotary for several axes, against the real peers and broken copies.

Peers: the ``positional-encodings`` package's PositionalEncoding2D/3D (flattened row-major),
MAE's ``get_2d_sincos_pos_embed`` (copied below: not a package), HF transformers' Qwen2-VL
``Qwen2VLRotaryEmbedding`` with 3-row position ids and its rotate-half application, Qwen3-VL's
interleaved rotary.  Each broken copy must fail with the RIGHT confirmed explanation: the
message names the mistake and the axis.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from posproof.errors import InvalidParameter, PosproofError, UnknownName
from posproof.model.multiaxis import multi_preset
from posproof.model.multirope import axial_rope, mrope
from posproof.testing import assert_encoding, assert_rotary, check_encoding, check_rotary
from posproof.testing.core.reports import InvalidImplementation

torch = pytest.importorskip("torch")
from peers_multiaxis import hf_apply, qwen2, qwen3  # noqa: E402  (needs torch)


# ---------------------------------------------------------------------- sinusoidal peers
def _package(cls, dim: int, shape: tuple[int, ...]) -> np.ndarray:
    """The package's output, shape (*shape, dim), float32."""
    return cls(dim)(torch.zeros((1, *shape, dim), dtype=torch.float32))[0].numpy()


def _pe2d(dim, shape):
    from positional_encodings.torch_encodings import PositionalEncoding2D

    return _package(PositionalEncoding2D, dim, shape)


def _pe3d(dim, shape):
    from positional_encodings.torch_encodings import PositionalEncoding3D

    return _package(PositionalEncoding3D, dim, shape)


def _mae(embed_dim: int, h: int, w: int, indexing: str = "xy") -> np.ndarray:
    """facebookresearch/mae util/pos_embed.py get_2d_sincos_pos_embed (grid h × w)."""
    grid_h = np.arange(h, dtype=np.float32)
    grid_w = np.arange(w, dtype=np.float32)
    if indexing == "xy":
        grid = np.meshgrid(grid_w, grid_h)  # here w goes first
    else:               # the broken copy: the row first (meshgrid(h, w, indexing="ij"))
        grid = np.meshgrid(grid_h, grid_w, indexing="ij")
    grid = np.stack(grid, axis=0).reshape([2, 1, h, w])

    def one(d, pos):
        omega = np.arange(d // 2, dtype=np.float64) / (d / 2.0)
        omega = 1.0 / 10000**omega
        out = np.einsum("m,d->md", pos.reshape(-1), omega)
        return np.concatenate([np.sin(out), np.cos(out)], axis=1)

    return np.concatenate([one(embed_dim // 2, grid[0]), one(embed_dim // 2, grid[1])], axis=1)


@pytest.mark.parametrize(("dim", "shape"), [(16, (4, 6)), (64, (8, 8)), (12, (3, 5))])
def test_pe_2d_package_passes(dim, shape):
    table = _pe2d(dim, shape)
    report = assert_encoding(table.reshape(-1, dim), "pe-2d", grid=shape, angles="float32")
    assert report.ok
    assert report.n_positions == shape[0] * shape[1]
    # an (H, W, dim) array is read as the grid too
    assert check_encoding(table, "pe-2d", grid=shape, angles="float32").ok


def test_pe_3d_package_passes():
    table = _pe3d(18, (3, 4, 5)).reshape(-1, 18)
    assert assert_encoding(table, "pe-3d", grid=(3, 4, 5), angles="float32").ok


def test_mae_passes_sincos_2d():
    assert assert_encoding(_mae(32, 6, 9), "sincos-2d", grid=(6, 9)).ok


def _fails(table, spec, grid, **kw) -> str:
    with pytest.raises(AssertionError) as info:
        assert_encoding(table, spec, grid=grid, **kw)
    return str(info.value)


def test_pe_2d_blocks_swapped_names_axes():
    dim, shape = 16, (4, 6)
    table = _pe2d(dim, shape).reshape(-1, dim)
    broken = np.concatenate([table[:, 8:], table[:, :8]], axis=1)   # x block encodes y
    msg = _fails(broken, "pe-2d", shape, angles="float32")
    line = msg.splitlines()[-1]
    assert line.startswith("most likely: axes swapped")
    assert "axis x (dims 0–7) encode axis y" in line
    assert "confirmed" in line


def test_mae_ij_grid_is_the_halves_on_the_wrong_axis():
    msg = _fails(_mae(32, 6, 9, indexing="ij"), "sincos-2d", (6, 9))
    line = msg.splitlines()[-1]
    assert "axes swapped" in line
    assert 'meshgrid(indexing="ij")' in line
    assert "the first half encodes the row h" in line
    assert "confirmed" in line


def test_transposed_row_order():
    dim, shape = 16, (4, 6)
    table = _pe2d(dim, shape)
    broken = table.transpose(1, 0, 2).reshape(-1, dim)          # column-major flattening
    line = _fails(broken, "pe-2d", shape, angles="float32").splitlines()[-1]
    assert "rows in transposed order" in line
    assert "axis x fastest" in line


def test_pe_2d_wrong_layout_on_one_axis():
    dim, shape = 16, (8, 8)
    table = _pe2d(dim, shape).reshape(-1, dim)
    broken = table.copy()
    broken[:, :8] = np.concatenate([table[:, 0:8:2], table[:, 1:8:2]], axis=1)  # x: split
    line = _fails(broken, "pe-2d", shape, angles="float32").splitlines()[-1]
    assert line.startswith("most likely: axis x (dims 0–7): matches the split layout")
    assert "axis y" not in line


def test_pe_3d_offset_on_one_axis():
    dim = 18
    table = _pe3d(dim, (3, 4, 6))[:, :, 1:].reshape(-1, dim)      # z starts at 1
    line = _fails(table, "pe-3d", (3, 4, 5), angles="float32").splitlines()[-1]
    assert line.startswith("most likely: axis z (dims 12–17): offset by 1 position")


def test_wrong_base_in_every_axis():
    enc = multi_preset("pe-2d", dim=32)
    impl = multi_preset("pe-2d", dim=32, base=1000).table(enc.grid((16, 16)))
    line = _fails(impl, "pe-2d", (16, 16)).splitlines()[-1]
    assert line.startswith("most likely: every axis: base 1000, not 10000")


def test_no_explanation_says_what_is_known():
    rng = np.random.default_rng(0)
    enc = multi_preset("pe-2d", dim=16)
    impl = enc.table(enc.grid((6, 6)))
    impl[:, 3] = rng.normal(size=36)                  # one column of axis x garbage
    line = _fails(impl, "pe-2d", (6, 6)).splitlines()[-1]
    assert line.startswith("no explanation confirmed")
    assert "axis x (dims 0–7): 1 of 8 dims disagree" in line
    assert "axis y (dims 8–15): 0 of 8 dims disagree" in line


def test_callable_impl_gets_grid_positions():
    enc = multi_preset("sincos-2d", dim=16)
    seen = []

    def impl(pos):
        seen.append(pos.shape)
        return enc.table(pos)

    assert check_encoding(impl, enc, grid=(3, 4)).ok
    assert seen == [(12, 2)]


@pytest.mark.parametrize(("kwargs", "error", "text"), [
    ({"grid": (4, 5)}, InvalidParameter, "grid=(4, 5) has 20 positions but the table has 24"),
    ({"grid": (4, 6, 1)}, InvalidParameter, "must give 2 sizes"),
    ({}, InvalidParameter, "grid= is required"),
    ({"grid": (4, 6), "positions": [1, 2]}, InvalidParameter, "multi-axis table takes grid="),
])
def test_bad_grid_is_one_line(kwargs, error, text):
    table = multi_preset("pe-2d", dim=8).table(multi_preset("pe-2d", dim=8).grid((4, 6)))
    with pytest.raises(error) as info:
        check_encoding(table, "pe-2d", **kwargs)
    assert text in str(info.value)
    assert "\n" not in str(info.value)


def test_one_d_preset_with_grid_is_refused():
    with pytest.raises(UnknownName, match="not a multi-axis preset"):
        check_encoding(np.zeros((4, 8)), "vaswani", grid=(2, 2))


# ---------------------------------------------------------------------- M-RoPE peers
def _rotate_half(x):
    h = x.shape[-1] // 2
    return torch.cat((-x[..., h:], x[..., :h]), dim=-1)


def _multimodal(head_dim, sections, base, *, doubled=True, adjacent=False):
    """Older HF Qwen2-VL's apply_multimodal_rotary_pos_emb (mrope_section * 2, chunk i from
    axis i % 3, rotate_half), from per-axis cos/sin of shape (3, L, head_dim).
    ``doubled=False``: the broken copy splitting the whole head by [2·s] once;
    ``adjacent=True``: the broken copy rotating adjacent pairs with the same angles."""
    inv_freq = 1.0 / (base ** (torch.arange(0, head_dim, 2, dtype=torch.float32) / head_dim))

    def apply_fn(x, positions):
        xt = torch.as_tensor(np.asarray(x), dtype=torch.float32)
        pos = torch.as_tensor(np.asarray(positions)).float()          # (3, L)
        freqs = pos[..., None] * inv_freq                             # (3, L, h/2)
        if adjacent:        # the sections picked per pair, then pairs (2k, 2k+1)
            picked = torch.cat([m[i % 3] for i, m in enumerate(freqs.split(list(sections),
                                                                             dim=-1))], dim=-1)
            emb = torch.repeat_interleave(picked, 2, dim=-1)
            cos, sin = emb.cos(), emb.sin()
        else:
            emb = torch.cat((freqs, freqs), dim=-1)
            cos, sin = emb.cos(), emb.sin()
            split = list(sections) * 2 if doubled else [2 * s for s in sections]
            cos = torch.cat([m[i % 3] for i, m in enumerate(cos.split(split, dim=-1))], dim=-1)
            sin = torch.cat([m[i % 3] for i, m in enumerate(sin.split(split, dim=-1))], dim=-1)
        if adjacent:
            rot = torch.stack((-xt[..., 1::2], xt[..., 0::2]), dim=-1).flatten(-2)
        else:
            rot = _rotate_half(xt)
        return (xt * cos + rot * sin).double().numpy()

    return apply_fn


@pytest.mark.parametrize(("head_dim", "sections", "base"),
                         [(16, [2, 3, 3], 10000), (128, [16, 24, 24], 1000000)])
def test_qwen2_vl_passes(head_dim, sections, base):
    apply_fn = hf_apply(*qwen2(), head_dim, sections, base)
    report = assert_rotary(apply_fn, "mrope", head_dim=head_dim, mrope_section=sections,
                           base=base, angles="float32")
    assert report.ok
    assert [c["status"] for c in report.checks] == ["pass", "pass"]


def test_old_hf_multimodal_application_passes_and_config_spec():
    cfg = {"model_type": "qwen2_vl", "hidden_size": 3584, "num_attention_heads": 28,
           "rope_theta": 1000000.0, "rope_scaling": {"type": "mrope",
                                                     "mrope_section": [16, 24, 24]}}
    assert assert_rotary(_multimodal(128, [16, 24, 24], 1e6), cfg, angles="float32").ok


def test_qwen3_vl_interleaved_passes():
    apply_fn = hf_apply(*qwen3(), 128, [24, 20, 20], 5000000, interleaved=True)
    rot = mrope(5000000, 128, [24, 20, 20], interleaved=True)
    assert assert_rotary(apply_fn, rot, angles="float32").ok


def _rotary_fails(apply_fn, spec, **kw) -> str:
    with pytest.raises(AssertionError) as info:
        assert_rotary(apply_fn, spec, angles="float32", **kw)
    return str(info.value).splitlines()[-1]


def test_qwen2_sections_reversed():
    line = _rotary_fails(hf_apply(*qwen2(), 128, [24, 24, 16], 1e6), "mrope",
                         head_dim=128, mrope_section=[16, 24, 24], base=1e6)
    assert line.startswith("most likely: mrope_section read reversed: [24, 24, 16] instead "
                           "of [16, 24, 24]")
    assert "confirmed" in line


def test_qwen2_axes_swapped_names_the_axes():
    line = _rotary_fails(hf_apply(*qwen2(), 128, [16, 24, 24], 1e6, row_order=(0, 2, 1)),
                         "mrope", head_dim=128, mrope_section=[16, 24, 24], base=1e6)
    assert line.startswith("most likely: axes swapped: the pairs of axis h (pairs 16–39) turn "
                           "with the positions of axis w")


def test_qwen3_impl_against_qwen2_spec_is_interleaving():
    line = _rotary_fails(hf_apply(*qwen3(), 128, [24, 20, 20], 5e6, interleaved=True),
                         mrope(5e6, 128, [24, 20, 20]))
    assert line.startswith("most likely: interleaved assignment (Qwen3-VL")


def test_sections_over_the_whole_head():
    line = _rotary_fails(_multimodal(128, [16, 24, 24], 1e6, doubled=False), "mrope",
                         head_dim=128, mrope_section=[16, 24, 24], base=1e6)
    assert line.startswith("most likely: mrope_section applied per channel over the whole "
                           "head ([32, 48, 48] of 128 channels")


def test_half_adjacent_confusion():
    line = _rotary_fails(_multimodal(64, [8, 12, 12], 1e6, adjacent=True), "mrope",
                         head_dim=64, mrope_section=[8, 12, 12], base=1e6)
    assert line.startswith("most likely: pairs (2k, 2k+1): the adjacent layout")


def test_text_tokens_not_plain_rope():
    rot = mrope(10000, 16, [4, 2, 2])
    report = check_rotary(lambda x, p: rot.apply(x, p + np.array([[0], [1], [0]])), rot,
                          dtype="float64")
    checks = {c["name"]: c["status"] for c in report.checks}
    assert checks == {"matches_spec": "fail", "text_tokens_plain_rope": "fail"}
    assert "text tokens (every axis at the same position) do not reduce" in report.message
    assert report.explanation.startswith("axis h off by +1")


def test_axial_rope_axes_swapped():
    ax = axial_rope((4, 8, 4))
    broken = ax.with_axes([{1: 2, 2: 1}.get(a, a) for a in ax.pair_axes])
    report = check_rotary(broken.apply, ax, dtype="float64")
    assert not report.ok
    assert report.explanation.startswith("axes swapped: the pairs of axis m_2 (pairs 2–5) "
                                         "turn with the positions of axis m_3")


def test_wrong_shape_back_from_apply_fn_is_one_line():
    rot = mrope(10000, 16, [4, 2, 2])
    with pytest.raises(InvalidImplementation) as info:
        check_rotary(lambda x, p: rot.apply(x, p)[..., :8], rot, dtype="float64")
    assert "keeps the shape" in str(info.value)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(("positions", "text"), [
    (np.zeros((2, 5), dtype=np.int64), "positions"),
    (np.zeros((5, 3), dtype=np.int64), "positions"),
])
def test_wrong_positions_shape_is_one_line(positions, text):
    rot = mrope(10000, 16, [4, 2, 2])
    with pytest.raises(PosproofError) as info:
        check_rotary(rot.apply, rot, positions=positions)
    assert text in str(info.value)
    assert "\n" not in str(info.value)


def test_multi_params_with_a_one_d_spec_are_refused():
    with pytest.raises(InvalidParameter, match="parameters of a multi-axis spec"):
        check_rotary(lambda x, p: x, head_dim=8, mrope_section=[2, 1, 1])


# ---------------------------------------------------------------------- CLI check-impl
@pytest.fixture
def usermod(tmp_path, monkeypatch):
    """A user module with a 2-D table (good and ij-broken) and M-RoPE apply_fns."""
    (tmp_path / "vitpos.py").write_text(
        "import numpy as np\n"
        "from posproof.model.multiaxis import multi_preset\n"
        "from posproof.model.multirope import mrope\n"
        "ENC = multi_preset('sincos-2d', dim=32)\n"
        "GOOD = ENC.table(ENC.grid((6, 8)))\n"
        "IJ = ENC.swapped((1, 0)).table(ENC.grid((6, 8)))\n"
        "ROT = mrope(10000, 16, [4, 2, 2])\n"
        "def rope(x, positions):\n"
        "    return ROT.apply(x, positions)\n"
        "def rope_reversed(x, positions):\n"
        "    return mrope(10000, 16, [2, 2, 4]).apply(x, positions)\n"
        "def rope_bad_shape(x, positions):\n"
        "    return ROT.apply(x, positions)[..., :4]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _cli(capsys, *argv):
    from posproof.cli import app

    status = app.main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_cli_check_impl_table(usermod, capsys):
    status, out, _ = _cli(capsys, "check-impl", "vitpos:GOOD", "--preset", "sincos-2d",
                          "--grid", "6,8")
    assert status == 0
    assert "verdict: OK" in out
    status, out, _ = _cli(capsys, "check-impl", "vitpos:IJ", "--preset", "sincos-2d",
                          "--grid", "6,8")
    assert status == 1
    assert 'most likely: axes swapped' in out
    assert 'meshgrid(indexing="ij")' in out


def test_cli_check_impl_rotary(usermod, capsys):
    args = ("--preset", "mrope", "--dim", "16", "--mrope-section", "4,2,2", "--base", "10000",
            "--rotary")
    status, out, _ = _cli(capsys, "check-impl", "vitpos:rope", *args)
    assert status == 0
    status, out, _ = _cli(capsys, "check-impl", "vitpos:rope_reversed", *args, "--json")
    assert status == 1
    report = json.loads(out)
    assert report["explanation"].startswith("mrope_section read reversed: [2, 2, 4]")
    assert {c["name"]: c["status"] for c in report["checks"]}["matches_spec"] == "fail"


@pytest.mark.parametrize(("argv", "text"), [
    (("vitpos:GOOD", "--preset", "sincos-2d", "--grid", "6,7"), "has 42 positions but the "
     "table has 48 rows"),
    (("vitpos:GOOD", "--preset", "sincos-2d"), "needs --grid"),
    (("vitpos:GOOD", "--preset", "sincos-2d", "--grid", "48"), "has 1 size"),
    (("vitpos:GOOD", "--preset", "vaswani", "--grid", "6,8"), "--grid is for a multi-axis"),
    (("vitpos:rope", "--preset", "mrope", "--dim", "16", "--mrope-section", "4,2,2"),
     "add --rotary"),
    (("vitpos:rope_bad_shape", "--preset", "mrope", "--dim", "16", "--mrope-section", "4,2,2",
      "--rotary"), "keeps the shape"),
    (("vitpos:rope", "--preset", "mrope", "--dim", "16", "--mrope-section", "4,2,3",
      "--rotary"), "sums to 9"),
])
def test_cli_bad_input_exits_2(usermod, capsys, argv, text):
    status, _, err = _cli(capsys, "check-impl", *argv)
    assert status == 2
    assert text in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


# ---------------------------------------------------------------------- pytest plugin
@pytest.mark.posproof("sincos-2d", dim=32)
def test_plugin_multi_table(posproof_check):
    enc = multi_preset("sincos-2d", dim=32)
    assert posproof_check(enc.table(enc.grid((5, 7))), grid=(5, 7)).ok
    with pytest.raises(AssertionError, match="axes swapped"):
        posproof_check(enc.swapped((1, 0)).table(enc.grid((5, 7))), grid=(5, 7))


@pytest.mark.posproof("mrope", head_dim=16, mrope_section=[4, 2, 2], base=10000)
def test_plugin_multi_rotary(posproof_check):
    assert posproof_check(mrope(10000, 16, [4, 2, 2]).apply, dtype="float64").ok
    with pytest.raises(AssertionError, match="mrope_section read reversed"):
        posproof_check(mrope(10000, 16, [2, 2, 4]).apply, dtype="float64")


# ---------------------------------------------------------------------- properties
@settings(max_examples=25, deadline=None)
@given(st.permutations([0, 1, 2]), st.tuples(*[st.integers(2, 5)] * 3),
       st.sampled_from([12, 18, 24]))
def test_any_axis_permutation_is_confirmed_with_its_axes(perm, shape, dim):
    enc = multi_preset("pe-3d", dim=dim)
    impl = enc.swapped(perm).table(enc.grid(shape))
    report = check_encoding(impl, enc, grid=shape)
    if list(perm) == [0, 1, 2]:
        assert report.ok
        return
    assert not report.ok
    confirmed = [h for h in report.hypotheses if h["fits"]]
    swaps = [h["hypothesis"] for h in confirmed if h["key"] == "swapped-axes"]
    assert swaps, report.explanation
    moved = [a for a in range(3) if perm[a] != a]
    names = "xyz"
    assert any(all(f"axis {names[a]} (dims" in text and f"encode axis {names[perm[a]]}" in text
                   for a in moved) for text in swaps)


@settings(max_examples=20, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=3, max_size=3),
       st.sampled_from(["swapped-axes", "sections-reversed", "layout", "offset"]))
def test_injected_rotary_mistake_is_confirmed(sections, mistake):
    n = sum(sections)
    rot = mrope(10000, 2 * n, sections)
    if mistake == "swapped-axes":
        impl = rot.with_axes([{0: 1, 1: 0}.get(a, a) for a in rot.pair_axes])
        apply_fn = impl.apply
    elif mistake == "sections-reversed":
        apply_fn = mrope(10000, 2 * n, sections[::-1]).apply
    elif mistake == "layout":
        apply_fn = mrope(10000, 2 * n, sections, layout="adjacent").apply
    else:
        def apply_fn(x, p):
            return rot.apply(x, p + np.array([[0], [0], [1]]))
    report = check_rotary(apply_fn, rot, dtype="float64")
    same = mistake == "sections-reversed" and sections == sections[::-1]
    if same:
        assert report.ok
        return
    assert not report.ok
    confirmed = {h["key"] for h in report.hypotheses if h["fits"]}
    assert mistake in confirmed, report.explanation


def test_apply_fn_refusing_positions_is_one_line():
    rot = mrope(10000, 16, [4, 2, 2])

    def one_d_only(x, positions):
        if np.ndim(positions) != 1:
            raise ValueError("positions must be 1-d")
        return x

    with pytest.raises(InvalidImplementation) as info:
        check_rotary(one_d_only, rot, dtype="float64")
    assert "positions of shape (3, seq)" in str(info.value)
    assert "\n" not in str(info.value)


def test_axial_rope_dims_reversed():
    spec = axial_rope((4, 8, 12), 10000)
    report = check_rotary(axial_rope((12, 8, 4), 10000).apply, spec, dtype="float64")
    assert report.explanation.startswith("axes_dims read reversed: [12, 8, 4] instead of "
                                         "[4, 8, 12]")


def test_pe_3d_layout_in_every_axis_with_a_short_axis():
    enc = multi_preset("pe-3d", dim=24)
    impl = multi_preset("pe-3d", dim=24, layout="split").table(enc.grid((3, 10, 12)))
    explanation = check_encoding(impl, enc, grid=(3, 10, 12)).explanation
    assert explanation.startswith("every axis: matches the split layout, not interleaved")
