"""identify on multi-axis tables (issue 15): MAE's 2-D sin-cos table, the positional-encodings
package's 2-D / 3-D outputs flattened, transposed and axis-swapped copies, float32/float16,
flat tables without a grid, and ``posproof identify --grid``."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

import posproof
from posproof.cli.app import main
from posproof.errors import InvalidParameter, PosproofError
from posproof.model.multiaxis import multi_preset
from posproof.testing.identification import Identification, identify
from posproof.testing.identification.grid import (
    MultiAxisIdentification,
    factorisations,
    identify_flat,
    identify_grid,
)

torch = pytest.importorskip("torch")


# ---------------------------------------------------------------------- the peers
def _mae_1d(embed_dim: int, pos: np.ndarray) -> np.ndarray:
    """facebookresearch/mae util/pos_embed.py get_1d_sincos_pos_embed_from_grid (np.float →
    np.float64, removed from NumPy)."""
    assert embed_dim % 2 == 0
    omega = np.arange(embed_dim // 2, dtype=np.float64)
    omega /= embed_dim / 2.
    omega = 1. / 10000**omega  # (D/2,)
    pos = pos.reshape(-1)  # (M,)
    out = np.einsum('m,d->md', pos, omega)  # (M, D/2), outer product
    emb_sin = np.sin(out)  # (M, D/2)
    emb_cos = np.cos(out)  # (M, D/2)
    return np.concatenate([emb_sin, emb_cos], axis=1)  # (M, D)


def mae_2d(embed_dim: int, grid_size: int, indexing: str = "xy") -> np.ndarray:
    """MAE's get_2d_sincos_pos_embed (cls_token=False); ``indexing="ij"`` is the port whose
    meshgrid puts the row first (torch.meshgrid's default), the transposed grid."""
    grid_h = np.arange(grid_size, dtype=np.float32)
    grid_w = np.arange(grid_size, dtype=np.float32)
    grid = np.meshgrid(grid_w, grid_h, indexing=indexing)  # here w goes first
    grid = np.stack(grid, axis=0)
    grid = grid.reshape([2, 1, grid_size, grid_size])
    # get_2d_sincos_pos_embed_from_grid
    emb_h = _mae_1d(embed_dim // 2, grid[0])  # (H*W, D/2)
    emb_w = _mae_1d(embed_dim // 2, grid[1])  # (H*W, D/2)
    return np.concatenate([emb_h, emb_w], axis=1)  # (H*W, D)


def package_table(k: int, channels: int, shape: tuple[int, ...], *,
                  dtype: torch.dtype = torch.float32, order: tuple[int, ...] | None = None
                  ) -> Any:
    """positional-encodings' PositionalEncoding2D/3D output (batch 1), its grid axes permuted
    by ``order`` (a transposed copy), flattened row-major (a tensor in bfloat16)."""
    from positional_encodings.torch_encodings import PositionalEncoding2D, PositionalEncoding3D

    cls = {2: PositionalEncoding2D, 3: PositionalEncoding3D}[k]
    out = cls(channels)(torch.zeros((1, *shape, channels), dtype=dtype))[0]
    if order is not None:
        out = out.permute(*order, k)
    flat = out.reshape(-1, channels)
    return flat if dtype == torch.bfloat16 else flat.numpy()    # NumPy has no bfloat16


def _within_tolerance(found: MultiAxisIdentification) -> None:
    assert found.matched, str(found)
    assert found.score is not None
    assert found.score <= 1.0
    assert found.residual is not None
    assert found.residual >= 0


# ---------------------------------------------------------------------- MAE
def test_mae_table_is_sincos_2d_column_first():
    table = mae_2d(768, 14)
    found = identify(table, grid=(14, 14))
    assert isinstance(found, MultiAxisIdentification)
    _within_tolerance(found)
    assert found.preset == "sincos-2d"
    assert found.preset_params == {"first": "column"}
    assert "MAE, column first" in found.summary
    row, col = found.axes
    assert (row.name, col.name) == ("row", "column")
    assert col.columns == list(range(384))
    assert row.columns == list(range(384, 768))
    for axis in found.axes:
        assert axis.found.layout == "split"
        assert axis.found.offset == 0
        assert axis.found.params == {"base": "10000"}
    # the fit regenerates MAE's table
    enc = found.encoding
    assert np.abs(enc.table(enc.grid((14, 14))) - table).max() <= found.residual


def test_mae_ported_with_meshgrid_ij_is_named_the_transposed_grid():
    found = identify(mae_2d(64, 8, indexing="ij"), grid=(8, 8))
    _within_tolerance(found)
    assert found.preset_params == {"first": "row"}
    assert "transposed grid" in found.summary
    assert "meshgrid" in found.summary
    assert found.axes[0].columns == list(range(32))       # the row: first half


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_mae_in_low_precision(dtype):
    table = mae_2d(128, 16).astype(dtype)
    found = identify(table, grid=(16, 16))
    _within_tolerance(found)
    assert found.preset == "sincos-2d"
    assert found.dtype == dtype
    assert f"{dtype} tolerance" in str(found)


def test_mae_flat_table_without_grid_chooses_the_grid_and_says_why():
    found = identify(mae_2d(256, 16))
    assert isinstance(found, MultiAxisIdentification)
    _within_tolerance(found)
    assert found.grid == (16, 16)
    assert found.preset == "sincos-2d"
    assert found.notes[0].startswith(f"256 rows = 16 × 16: tried {len(factorisations(256))} ")


def test_mae_cls_token_row_is_set_aside():
    table = np.concatenate([np.zeros([1, 64]), mae_2d(64, 14)], axis=0)  # cls_token=True
    for found in (identify(table, grid=(14, 14)), identify(table)):
        _within_tolerance(found)
        assert found.grid == (14, 14)
        assert found.rows == 197
        assert found.preset == "sincos-2d"
        assert found.notes[0].startswith("row 0 is zero (cls / extra tokens")
    table[0, 3] = 0.5                                   # not a zero row: no grid of 197
    assert not identify(table).matched
    with pytest.raises(InvalidParameter, match="196 positions but the table has 197 rows"):
        identify(table, grid=(14, 14))


def test_a_wrong_entry_is_not_a_match():
    table = mae_2d(64, 8)
    table[37, 40] += 1e-6
    found = identify(table, grid=(8, 8))
    assert not found.matched
    assert found.score is None or found.score > 1.0


# ---------------------------------------------------------------------- positional-encodings
@pytest.mark.parametrize(("channels", "shape"), [(64, (6, 10)), (32, (8, 8)), (128, (5, 7))])
def test_positional_encoding_2d_flattened_is_pe_2d(channels, shape):
    table = package_table(2, channels, shape)
    found = identify(table, grid=shape)
    _within_tolerance(found)
    assert found.preset == "pe-2d"
    assert found.grid == shape
    half = channels // 2
    assert found.axes[0].columns == list(range(half))      # x: the slow (row) axis
    assert all(a.found.layout == "interleaved" for a in found.axes)
    flat = identify(table)
    assert isinstance(flat, MultiAxisIdentification)
    assert flat.matched
    assert flat.grid == shape
    assert flat.preset == "pe-2d"


def test_positional_encoding_3d_flattened_is_pe_3d():
    table = package_table(3, 48, (4, 5, 6))
    found = identify(table, grid=(4, 5, 6))
    _within_tolerance(found)
    assert found.preset == "pe-3d"
    assert [a.name for a in found.axes] == ["frame", "row", "column"]
    assert [a.columns[0] for a in found.axes] == [0, 16, 32]
    flat = identify_flat(table)
    assert flat is not None
    assert flat.grid == (4, 5, 6)
    assert flat.preset == "pe-3d"


def test_transposed_package_table_is_pe_2d_with_swapped_axes():
    table = package_table(2, 64, (6, 9), order=(1, 0))     # now 9 × 6, y slowest
    found = identify(table, grid=(9, 6))
    _within_tolerance(found)
    assert found.preset is None
    assert "pe-2d with swapped axes" in found.summary
    assert found.axes[1].columns == list(range(32))        # the column reads block x


def test_permuted_3d_package_table_is_named_swapped():
    table = package_table(3, 48, (4, 5, 6), order=(2, 0, 1))
    found = identify(table, grid=(6, 4, 5))
    _within_tolerance(found)
    assert "pe-3d with swapped axes" in found.summary


@pytest.mark.parametrize(("dtype", "name"), [(torch.float16, "float16"),
                                           (torch.bfloat16, "bfloat16")])
def test_low_precision_package_table(dtype, name):
    table = package_table(2, 64, (16, 16), dtype=dtype)
    found = identify(table, grid=(16, 16))
    _within_tolerance(found)
    assert found.preset == "pe-2d"
    assert found.dtype == name


def test_a_cut_pair_is_not_claimed():
    enc = multi_preset("pe-2d", dim=7)      # the column axis keeps a lone sine
    found = identify(enc.table(enc.grid((8, 8))), grid=(8, 8))
    assert not found.matched
    assert "columns of the column axis (4–6)" in found.summary


def test_swapped_model_copy_and_its_json():
    enc = multi_preset("sincos-2d", dim=32).swapped((1, 0))
    found = identify(enc.table(enc.grid((8, 8))), grid=(8, 8))
    _within_tolerance(found)
    assert found.preset_params == {"first": "row"}       # the swapped MAE is the ij port
    data = json.loads(json.dumps(found.to_dict()))
    assert data["kind"] == "multi-axis"
    assert data["grid"] == [8, 8]
    assert data["axes"][0]["identification"]["layout"] == "split"
    assert data["encoding"]["axes"] == 2


def test_axis_offsets_are_reported():
    from posproof.model.encoding import Encoding
    from posproof.model.multiaxis import MultiAxisEncoding
    from posproof.model.schedules import Geometric

    enc = MultiAxisEncoding([(0, Encoding(Geometric(10000), "interleaved", 16, offset=2)),
                             (1, Encoding(Geometric(500), "split", 16, offset=5))])
    found = identify(enc.table(enc.grid((8, 10))), grid=(8, 10))
    _within_tolerance(found)
    assert [a.found.offset for a in found.axes] == [2, 5]
    assert found.axes[1].found.params == {"base": "500"}
    assert found.preset is None
    assert "offsets [2, 5]" in found.summary


# ---------------------------------------------------------------------- 1-D unchanged
def test_a_1d_table_is_identified_as_before():
    table = posproof.preset("vaswani", dim=64).table(256)
    found = identify(table)
    assert isinstance(found, Identification)
    assert found.matched
    assert found.summary == "matches vaswani (base=10000), layout interleaved, offset 0"


def test_random_table_matches_nothing_and_says_what_was_tried():
    table = np.random.default_rng(1).normal(size=(256, 16))
    found = identify(table)
    assert isinstance(found, Identification)
    assert not found.matched
    assert found.summary.startswith("matches no known schedule: no pairing")
    assert any(f"tried {len(factorisations(256))} factorisation" in n for n in found.notes)
    assert identify_flat(table) is None


def test_a_grid_that_does_not_explain_the_table():
    found = identify(posproof.preset("vaswani", dim=16).table(64), grid=(8, 8))
    assert not found.matched
    assert "vary along more than one axis" in found.summary


def test_factorisations_are_bounded_and_square_first():
    shapes = factorisations(720720)
    assert 0 < len(shapes) <= 48
    assert all(min(s) >= 4 and np.prod(s) == 720720 for s in shapes)
    assert factorisations(64)[0] == (8, 8)
    assert factorisations(61) == []


# ---------------------------------------------------------------------- bad input
@pytest.mark.parametrize(("grid", "words"), [
    ((16, 16), "grid=(16, 16) has 256 positions but the table has 200 rows"),
    ((2, 100), "axis 0 has 2 position(s); identify needs at least 4"),
    ((2, 2, 2, 25), "identify handles 1 to 3"),
    ((0, 200), "grid[0]"),
    ("16,16", "must be a tuple of sizes"),
])
def test_bad_grid_is_one_named_line(grid, words):
    with pytest.raises(PosproofError) as info:
        identify_grid(np.zeros((200, 8)), grid)
    text = str(info.value)
    assert "\n" not in text
    assert words in text


def test_bad_table_shape():
    with pytest.raises(InvalidParameter, match="2-d array"):
        identify(np.zeros((4, 4, 4)), grid=(4, 4))


# ---------------------------------------------------------------------- CLI
def _run(capsys, *argv):
    try:
        status = main(list(argv))
    except SystemExit as exc:
        status = exc.code if isinstance(exc.code, int) else 2
    out, err = capsys.readouterr()
    return status, out, err


def test_cli_identify_grid_and_flat(tmp_path, capsys):
    path = tmp_path / "mae.npy"
    np.save(path, mae_2d(64, 16).astype(np.float32))
    status, out, _ = _run(capsys, "identify", str(path), "--grid", "16,16")
    assert status == 0
    assert "sincos-2d (MAE, column first)" in out
    assert "residual" in out
    status, out, _ = _run(capsys, "identify", str(path))
    assert status == 0
    assert "256 rows = 16 × 16" in out
    status, out, _ = _run(capsys, "identify", str(path), "--grid", "4,64", "--json")
    data = json.loads(out)
    assert status == 1
    assert not data["matched"]
    assert data["checks"][0]["kind"] == "multi-axis"
    assert data["checks"][0]["status"] == "fail"


@pytest.mark.parametrize(("grid", "words"), [
    ("16,15", "--grid 16,15 has 240 positions but the table has 256 rows"),
    ("a,b", "is not a list of sizes"),
    ("0,256", "each at least 1"),
    ("2,128", "at least 4 along every axis"),
])
def test_cli_bad_grid_exits_2_in_one_line(tmp_path, capsys, grid, words):
    path = tmp_path / "t.npy"
    np.save(path, mae_2d(32, 16))
    status, out, err = _run(capsys, "identify", str(path), "--grid", grid)
    assert status == 2
    assert out == ""
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    assert words in err, err
