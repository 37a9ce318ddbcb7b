"""Several position axes in the user-facing layers: spec strings, ``explain`` per-pair axes,
``derive``'s "From one axis to several" and the 2-D similarity map (issue 15).

The expected axes, frequencies and maps are rebuilt independently of the code under test
(from HF's own rules for M-RoPE sections, from the blocks' exact frequencies), and every
check has a broken counterpart that must fail.
"""

from __future__ import annotations

import json
import math
import shlex
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

from posproof.errors import InvalidEncoding, InvalidParameter, PosproofError
from posproof.model.multiaxis import MultiAxisEncoding, axis_symbols, multi_preset
from posproof.model.multirope import MultiAxisRotary, axial_rope, mrope
from posproof.model.rope import Rotary
from posproof.model.schedules import Geometric
from posproof.model.specs import parse_spec

#: The RoPE keys of Qwen2-VL-7B-Instruct's config.json (rope_scaling spelling).
QWEN2_VL = {"model_type": "qwen2_vl", "hidden_size": 3584, "num_attention_heads": 28,
            "rope_theta": 1000000.0, "max_position_embeddings": 32768,
            "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]}}
#: Qwen3-VL's spelling (transformers' Qwen3VLTextConfig: rope_parameters under text_config,
#: with mrope_section and mrope_interleaved among its ignore_keys_at_rope_validation).
QWEN3_VL = {"model_type": "qwen3_vl", "text_config": {
    "model_type": "qwen3_vl_text", "head_dim": 128, "hidden_size": 4096,
    "num_attention_heads": 32, "max_position_embeddings": 262144,
    "rope_parameters": {"rope_type": "default", "rope_theta": 5000000,
                        "mrope_section": [24, 20, 20], "mrope_interleaved": True}}}


def _hf_axes(sections: list[int], interleaved: bool) -> list[int]:
    """The axis of each pair as HF computes it (Qwen2-VL: chunk i of the split reads axis i;
    Qwen3-VL apply_interleaved_mrope: freqs_t[..., offset:length:3] = freqs[axis]), written
    independently of posproof.model.multirope."""
    n = sum(sections)
    if not interleaved:
        return [a for a, s in enumerate(sections) for _ in range(s)]
    axes = [0] * n
    for a, offset in ((1, 1), (2, 2)):
        for k in range(offset, sections[a] * 3, 3):
            axes[k] = a
    return axes


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    from posproof.cli import app

    status = app.main(argv)
    out, err = capsys.readouterr()
    return status, out, err


# --------------------------------------------------------------------------- spec strings
@pytest.mark.parametrize(("spec", "sections", "interleaved", "base"), [
    ("rope:dim=128,base=1e6,mrope_section=16;24;24", [16, 24, 24], False, 10**6),
    ("rope:dim=128,base=5e6,mrope_section=24;20;20,mrope_interleaved=true", [24, 20, 20],
     True, 5 * 10**6),
    ("mrope:head_dim=16,theta=100,mrope_section=2;3;3", [2, 3, 3], False, 100),
])
def test_mrope_specs_give_the_hf_pair_axes(spec, sections, interleaved, base):
    rot = parse_spec(spec, multi=True)
    assert isinstance(rot, MultiAxisRotary)
    assert list(rot.pair_axes) == _hf_axes(sections, interleaved)
    dim = 2 * sum(sections)
    assert rot.frequencies == Rotary(Geometric(base), dim).frequencies


def test_axial_and_table_specs():
    rot = parse_spec("axial-rope:axes_dims=16;56;56,theta=10000", multi=True)
    assert [len(rot.axis_pairs(a)) for a in range(3)] == [8, 28, 28]
    assert rot.frequencies[8] == 1
    assert rot.frequencies[7] == sp.Integer(10000) ** sp.Rational(
        -14, 16)
    assert parse_spec("axial-rope:axes_dims=4;4,layout=half", multi=True).layout == "half"
    enc = parse_spec("sincos-2d:dim=16", multi=True)
    assert isinstance(enc, MultiAxisEncoding)
    grid = enc.grid((3, 4))
    np.testing.assert_array_equal(enc.table(grid), multi_preset("sincos-2d", 16).table(grid))


def test_spec_parsing_moved_but_old_imports_work():
    import posproof.configs as old

    import posproof
    from posproof.model import configs, specs

    assert configs.parse_spec is specs.parse_spec is old.parse_spec is posproof.parse_spec
    assert configs.SPEC_ALIASES is specs.SPEC_ALIASES
    assert len(Path(configs.__file__).read_text(encoding="utf-8").splitlines()) < 600


@pytest.mark.parametrize(("spec", "error", "words"), [
    ("rope:dim=128,mrope_section=16;24;20", InvalidEncoding, "sums to 60"),
    ("rope:dim=128,mrope_section=16;x;24", InvalidParameter, "list of integers"),
    ("rope:dim=128,mrope_section=64,scaling=yarn", InvalidParameter, "unknown key 'scaling'"),
    ("rope:dim=8,mrope_section=2;1;1,mrope_interleaved=maybe", InvalidParameter,
     "true or false"),
    ("mrope:dim=8", InvalidParameter, "needs mrope_section"),
    ("axial-rope:axes_dims=3;4", InvalidEncoding, "is odd"),
    ("sincos-2d:dim=6", InvalidEncoding, "multiple of 4"),
])
def test_bad_multi_specs_are_one_named_line(spec, error, words):
    with pytest.raises(error, match=words) as info:
        parse_spec(spec, multi=True)
    assert "\n" not in str(info.value)


def test_one_axis_callers_never_receive_a_multi_axis_object():
    with pytest.raises(InvalidParameter, match="several position axes") as info:
        parse_spec("rope:dim=128,mrope_section=16;24;24")
    assert "\n" not in str(info.value)
    with pytest.raises(InvalidParameter, match="several position axes"):
        parse_spec("sincos-2d:dim=16")


# --------------------------------------------------------------------------- explore
def test_explore_shows_the_bands_of_each_axis(capsys):
    status, out, err = _run(["explore", "rope:dim=16,base=100,mrope_section=2;3;3",
                             "--length", "256", "--no-proofs", "--dtypes", "", "--json"], capsys)
    assert status == 0, err
    data = json.loads(out)
    bands = data["axes"]["mrope"]["bands"]
    assert [b["pairs"] for b in bands] == [[0, 1], [2, 3, 4], [5, 6, 7]]
    for b in bands:   # wavelengths 2π·100^(k/8) and their fit in L, recomputed here
        waves = [2 * math.pi * 100 ** (k / 8) for k in b["pairs"]]
        assert b["wavelength_min"] == pytest.approx(min(waves), rel=1e-12)
        assert b["pairs_covered"] == sum(w <= 256 for w in waves)
    status, out, _ = _run(["explore", "rope:dim=16,base=100,mrope_section=2;3;3",
                           "--length", "256", "--no-proofs", "--dtypes", ""], capsys)
    assert "pairs per axis" in out
    assert "5-7" in out


@pytest.mark.parametrize(("argv", "words"), [
    (["explore", "rope:dim=128,mrope_section=16;24;20"], "sums to 60"),
    (["explore", "sincos-2d:dim=768"], "posproof derive --preset sincos-2d"),
])
def test_explore_refuses_in_one_line(argv, words, capsys):
    status, _out, err = _run(argv, capsys)
    assert status == 2
    assert words in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


# --------------------------------------------------------------------------- explain
@pytest.mark.parametrize(("config", "sections", "interleaved", "base"), [
    (QWEN2_VL, [16, 24, 24], False, 10**6),
    pytest.param(QWEN3_VL, [24, 20, 20], True, 5 * 10**6,
                 marks=pytest.mark.slow),     # full tier: interleaved sections, base 5e6
])
def test_explain_names_the_axis_of_every_pair(config, sections, interleaved, base, tmp_path,
                                              capsys):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    status, out, err = _run(["explain", str(path), "--length", "4096", "--dtypes", "",
                             "--json"], capsys)
    assert status == 0, err
    data = json.loads(out)
    expected = [("t", "h", "w")[a] for a in _hf_axes(sections, interleaved)]
    assert [r["axis"] for r in data["frequencies"]] == expected
    model = mrope(base, 128, sections, interleaved=interleaved)
    for a, row in enumerate(data["axes"]):
        assert row["pairs"] == model.axis_pairs(a)
        waves = [2 * math.pi / float(base) ** (-2 * k / 128) for k in row["pairs"]]
        assert row["wavelength_max"] == pytest.approx(max(waves), rel=1e-12)
        assert row["pairs_covered"] + row["longer_than_L"] == len(row["pairs"])
        assert row["pairs_covered"] == sum(w <= 4096 for w in waves)
    status, text, _ = _run(["explain", str(path), "--length", "4096", "--dtypes", ""], capsys)
    header = next(line for line in text.splitlines() if line.lstrip().startswith("k "))
    assert header.rstrip().endswith("axis")
    rows = [line.split() for line in text.splitlines() if line[:3].strip().isdigit()
            and "(" in line]
    assert [r[-1] for r in rows[:128 // 2]] == expected
    assert "frequency pairs per position axis" in text


def test_explain_of_a_1d_config_has_no_axis_column(tmp_path, capsys):
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"rope_theta": 10000, "head_dim": 8,
                                "max_position_embeddings": 64}), encoding="utf-8")
    status, out, _ = _run(["explain", str(path), "--dtypes", "", "--json"], capsys)
    assert status == 0
    data = json.loads(out)
    assert "axes" not in data
    assert "axis" not in data["frequencies"][0]


# --------------------------------------------------------------------------- derive
def test_derive_section_for_a_2d_table():
    from posproof.document.derive.multiaxis import derive_multi

    enc = multi_preset("sincos-2d", dim=16)
    doc = derive_multi(enc, grid=(4, 4), figures=[])
    status = {p.name: p.status for p in doc.report.theorems}
    assert set(status.values()) == {"proved"}
    assert doc.exit_status() == 0
    assert {"multiaxis:blocks", "multiaxis:translation_direct_sum", "multiaxis:translation",
            "multiaxis:dot_product", "multiaxis:norm"} <= set(status)
    md = doc.markdown()
    assert "## From one axis to several" in md
    # The T(Δ) block shown for the first pair of each axis is the model's exact entry.
    ds = sp.symbols("delta_1 delta_2")
    t = enc.translation(ds)
    for block in enc.blocks:
        i = block.columns[0]
        assert sp.latex(t[i, i]) in md
    assert "\\sum_{k \\in B_{x_{2}}}" in md
    assert "norm`): ‖PE(p)‖² = 8 " in md


def test_derive_catches_a_block_that_lies_about_its_columns():
    """A MultiAxisEncoding whose vector() is tampered with (column 0 of another axis) fails
    the blocks check with a certified counterexample, and the verdict says so."""
    from posproof.document.derive.multiaxis import derive_multi

    enc = multi_preset("sincos-2d", dim=8)

    class Tampered(MultiAxisEncoding):
        def vector(self, xs=None):
            v = super().vector(xs)
            x1, x2 = axis_symbols(2)
            return v.subs({x2: x1}, simultaneous=True)

    bad = Tampered([(b.axis, b.encoding, b.columns) for b in enc.blocks], axes=2,
                   axis_names=enc.axis_names, name="tampered")
    doc = derive_multi(bad, grid=(4, 4), figures=[])
    proof = next(p for p in doc.report.theorems if p.name == "multiaxis:blocks")
    assert proof.status == "refuted"
    assert proof.counterexample["where"].startswith("block 0")
    assert doc.exit_status() == 1
    assert "REFUTED" in doc.markdown()


@pytest.mark.parametrize("interleaved", [False, True])
def test_derive_mrope_proves_the_diagonal_is_rope(interleaved):
    from posproof.document.derive.multiaxis import derive_multi

    doc = derive_multi(mrope(100, 16, [4, 2, 2], interleaved=interleaved), figures=[])
    status = {p.name: p.status for p in doc.report.theorems}
    assert status["multiaxis:diagonal_is_rope"] == "proved"
    assert status["multiaxis:relative"] == "proved"
    assert status["multiaxis:rotation_direct_sum"] == "proved"
    assert "is 1-D RoPE with base" in doc.markdown()


def test_derive_axial_rope_is_not_rope_on_the_diagonal():
    """The contrast: axial RoPE's diagonal is a rotary with per-axis schedules, so the claim
    'it is RoPE with base θ over the whole head' is refuted, with a confirmed counterexample,
    and listed as a contrast (it is not a theorem the encoding fails)."""
    from posproof.document.derive.multiaxis import derive_multi

    doc = derive_multi(axial_rope((4, 8)), figures=[])
    contrast = next(p for p in doc.one_axis if p.name == "multiaxis:diagonal_is_rope")
    assert contrast.status == "refuted"
    assert "certified" in contrast.counterexample["confirmed"]
    assert doc.exit_status() == 0


@pytest.mark.parametrize("options", [
    ["--preset", "sincos-2d", "--dim", "16", "--grid", "6,6", "--figures", "png"],
    ["--preset", "mrope", "--dim", "16", "--mrope-section", "4,2,2", "--base", "100",
     "--mrope-interleaved", "--no-figures"],
])
def test_derive_regenerate_command_reproduces_the_bytes(options, tmp_path, capsys):
    first = tmp_path / "first"
    status, _out, err = _run(["derive", *options, "--out", str(first)], capsys)
    assert status == 0, err
    md = (first / "derivation.md").read_text(encoding="utf-8")
    assert "From one axis to several" in md
    block = md.split("Regenerate it (byte for byte) with:", 1)[1].split("```")[1]
    command = shlex.split(block.strip().splitlines()[1].replace("DIR", str(tmp_path / "again")))
    assert command[:3] == ["$", "posproof", "derive"]
    assert _run(command[2:], capsys)[0] == 0
    names = ["derivation.md", "derivation.tex"]
    if "--no-figures" not in options:
        names.append("figures/similarity.png")
    for name in names:
        assert (tmp_path / "again" / name).read_bytes() == (first / name).read_bytes(), name


@pytest.mark.parametrize(("options", "words"), [
    (["--preset", "sincos-2d", "--dim", "16", "--grid", "4,4,4"], "2"),
    (["--preset", "mrope", "--dim", "16", "--mrope-section", "2,3,2"], "sums to 7"),
])
def test_derive_refuses_bad_multi_axis_input_in_one_line(options, words, tmp_path, capsys):
    status, _, err = _run(["derive", *options, "--out", str(tmp_path)], capsys)
    assert status == 2
    assert words in err
    assert len(err.strip().splitlines()) == 1


# --------------------------------------------------------------------------- the figure
def _kernel_map(enc: MultiAxisEncoding, shape: tuple[int, ...]) -> np.ndarray:
    """Σ over blocks and pairs of cos(ω_k (p_a − c_a)): the offset-vector formula, from the
    blocks' exact frequencies (independent of the table)."""
    centre = [s // 2 for s in shape]
    grids = np.meshgrid(*[np.arange(s) for s in shape], indexing="ij")
    out = np.zeros(shape)
    for block in enc.blocks:
        off = grids[block.axis] - centre[block.axis]
        for w in block.encoding.frequencies:
            out += np.cos(float(w) * off)
    return out


@pytest.mark.parametrize(("subject", "shape"), [
    (multi_preset("sincos-2d", dim=32), (5, 7)),
    (multi_preset("pe-3d", dim=24), (3, 4, 5)),
    (mrope(100, 16, [2, 3, 3]), (3, 4, 4)),
])
def test_similarity_map_is_the_offset_kernel(subject, shape):
    from posproof.document.plots_multiaxis import similarity_map

    sim, centre = similarity_map(subject, shape)
    enc = subject.encoding() if isinstance(subject, MultiAxisRotary) else subject
    assert centre == tuple(s // 2 for s in shape)
    np.testing.assert_allclose(sim, _kernel_map(enc, shape), atol=1e-9, rtol=0)
    n = sum(b.encoding.n_pairs for b in enc.blocks)
    assert sim[centre] == pytest.approx(n, abs=1e-9)
    assert sim.max() == pytest.approx(n, abs=1e-9)
    # A broken map (one axis ignored) is not the kernel: the comparison can fail.
    flat = _kernel_map(enc, shape) - sum(
        np.cos(float(w) * (np.arange(shape[-1]) - shape[-1] // 2))
        for b in enc.blocks if b.axis == len(shape) - 1 for w in b.encoding.frequencies)
    assert not np.allclose(sim, flat, atol=1e-3)


def test_similarity_figure_is_written_reproducibly(tmp_path):
    pytest.importorskip("matplotlib")
    from posproof.document.derive.multiaxis import derive_multi, write_multi_derivation

    doc = derive_multi(multi_preset("sincos-2d", dim=16), grid=(6, 8))
    one = write_multi_derivation(doc, tmp_path / "a", figure_formats=["png", "svg"])
    two = write_multi_derivation(doc, tmp_path / "b", figure_formats=["png", "svg"])
    assert [p.name for p in one] == ["similarity.png", "similarity.svg", "derivation.md",
                                     "derivation.tex"]
    for a, b in zip(one, two, strict=True):
        assert a.read_bytes() == b.read_bytes(), a.name
    assert "figures/similarity.png" in (tmp_path / "a" / "derivation.md").read_text("utf-8")


def test_similarity_map_refuses_a_wrong_grid():
    from posproof.document.plots_multiaxis import similarity_map

    with pytest.raises(PosproofError, match="one size per axis"):
        similarity_map(multi_preset("sincos-2d", dim=16), (4, 4, 4))
