"""Numbers over a grid of positions for multi-axis encodings (issue 15): the kernel for vector
offsets against the naive pairwise computation, the grid checks on sound encodings and on
broken copies (duplicate rows, swapped axes, a low-precision dtype), and ``posproof check``.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import sympy as sp

from posproof.cli.app import main
from posproof.errors import InvalidParameter, UnknownName
from posproof.measure.multiaxis import GridKernel, check_grid, check_grid_shape
from posproof.model.encoding import Encoding
from posproof.model.multiaxis import MultiAxisEncoding, multi_preset
from posproof.model.multirope import axial_rope, mrope
from posproof.model.schedules import Explicit, Geometric


def _shared_axis() -> MultiAxisEncoding:
    """Two blocks on axis 0 (one periodic, ω = π/2, π/3) and one on axis 1: the kernel must
    merge the blocks of axis 0 before minimising."""
    return MultiAxisEncoding([(0, Encoding(Geometric(100), "interleaved", 4)),
                              (1, Encoding(Geometric(10000), "split", 6)),
                              (0, Encoding(Explicit([sp.pi / 2, sp.pi / 3]), "interleaved", 4))],
                             name="shared-axis")


ENCODINGS = {
    "sincos-2d": lambda: multi_preset("sincos-2d", dim=16),
    "pe-2d": lambda: multi_preset("pe-2d", dim=12),
    "pe-3d": lambda: multi_preset("pe-3d", dim=18),
    "mrope": lambda: mrope(10000, 16, [2, 3, 3]),
    "mrope-interleaved": lambda: mrope(10000, 16, [4, 2, 2], interleaved=True),
    "axial-rope": lambda: axial_rope((4, 6, 6)),
    "shared-axis": _shared_axis,
}
GRIDS = {2: (5, 7), 3: (3, 4, 5)}


def _table(encoding, grid):
    enc = encoding.encoding() if hasattr(encoding, "encoding") else encoding
    return enc, enc.grid(grid), enc.table(enc.grid(grid))


def _naive_min_distance(table: np.ndarray) -> float:
    diff = table[:, None, :] - table[None, :, :]
    dist = np.sqrt((diff * diff).sum(axis=2))
    return float(dist[~np.eye(len(table), dtype=bool)].min())


@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_kernel_equals_pairwise_dot_products(name):
    encoding = ENCODINGS[name]()
    enc, pos, table = _table(encoding, GRIDS[encoding.axes])
    deltas = (pos[:, None, :] - pos[None, :, :]).reshape(-1, enc.axes)
    kern = GridKernel(encoding)
    gram = (table @ table.T).reshape(-1)
    assert kern.n == enc.dim // 2
    np.testing.assert_allclose(kern(deltas), gram, rtol=0,
                               atol=kern.call_bound(deltas) + 1e-13 * enc.dim)


@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_separation_equals_naive_pairwise_minimum(name):
    encoding = ENCODINGS[name]()
    grid = GRIDS[encoding.axes]
    _, _, table = _table(encoding, grid)
    check = check_grid(encoding, grid, checks=["separation"])["separation"]
    naive = _naive_min_distance(table)
    assert abs(float(check.values["min_distance_mp"]) - naive) <= 1e-7
    assert check.ok == (naive > 1e-6)


def test_blocks_sharing_an_axis_are_merged_and_a_collision_fails():
    # axis 0 of _shared_axis: ω = π/2 and π/3 return together at Δ = 12, but the
    # Geometric(100) block on the same axis does not, so the grid stays separated...
    enc = _shared_axis()
    sep = check_grid(enc, (13, 2), checks=["separation"])["separation"]
    assert sep.ok
    assert float(sep.values["min_distance_mp"]) > 0.01
    # ...while the periodic block alone on its axis collides at Δ = 12 (mpmath: exactly 0).
    periodic = MultiAxisEncoding([(0, Encoding(Explicit([sp.pi / 2, sp.pi / 3]),
                                               "interleaved", 4)),
                                  (1, Encoding(Geometric(100), "interleaved", 4))])
    bad = check_grid(periodic, (13, 3), checks=["separation"])["separation"]
    assert not bad.ok
    assert bad.values["at_offset"] == 12
    assert bad.values["axis"] == 0
    assert _naive_min_distance(periodic.table(periodic.grid((13, 3)))) < 1e-12
    ok = check_grid(periodic, (12, 3), checks=["separation"])["separation"]
    assert ok.ok


def test_duplicate_row_in_a_table_fails_separation():
    enc = multi_preset("sincos-2d", dim=16)
    table = enc.table(enc.grid((4, 6)))
    assert check_grid(enc, (4, 6), table=table).ok
    table[17] = table[3]
    sep = check_grid(enc, (4, 6), table=table, checks=["separation"])["separation"]
    assert not sep.ok
    assert "[0, 3]" in sep.note
    assert "[2, 5]" in sep.note


@pytest.mark.parametrize("grid", [(4, 6), (5, 5)])
def test_swapped_axes_table_fails_translation_residual(grid):
    enc = multi_preset("sincos-2d", dim=16)
    transposed = enc.swapped((1, 0)).table(enc.grid(grid))   # meshgrid "ij" vs the spec's "xy"
    res = check_grid(enc, grid, table=transposed, checks=["translation_residual"])
    assert not res.ok
    assert "axes" in res["translation_residual"].note
    assert check_grid(enc, grid, table=enc.table(enc.grid(grid)),
                      checks=["translation_residual"]).ok


def test_float32_table_passes_within_its_rounding_and_bad_entries_fail_bounds():
    enc = multi_preset("pe-2d", dim=16)
    table = enc.table(enc.grid((6, 6)))
    assert check_grid(enc, (6, 6), table=table.astype(np.float32),
                      checks=["bounds", "translation_residual"]).ok
    table[7, 3] = 1.5
    assert not check_grid(enc, (6, 6), table=table, checks=["bounds"]).ok


def _rounded_collision(enc, grid, dtype) -> bool:
    from posproof.measure.dtypes import dtype_model

    rows = dtype_model(dtype).round(enc.table(enc.grid(grid)))
    return np.unique(rows, axis=0).shape[0] < rows.shape[0]


def test_dtype_audit_fails_when_a_dtype_makes_grid_positions_collide():
    # d = 4: one frequency ω = 1 per axis; 710 ≈ 226π, so positions 1 and 711 nearly coincide
    enc = multi_preset("sincos-2d", dim=4)
    grid = (2, 800)
    assert _rounded_collision(enc, grid, "float16")
    assert not _rounded_collision(enc, grid, "float32")
    audit = check_grid(enc, grid, checks=["dtype_audit"], dtypes=["float16"])["dtype_audit"]
    assert not audit.ok
    assert "float16" in audit.note
    assert audit.values["float16"]["colliding_positions"]
    assert check_grid(enc, grid, checks=["dtype_audit"], dtypes=["float32"]).ok


def test_bad_input_is_one_named_error():
    enc = multi_preset("sincos-2d", dim=768)
    with pytest.raises(InvalidParameter, match="one per axis"):
        check_grid(enc, (16,))
    with pytest.raises(InvalidParameter, match="at most 268435456"):
        check_grid_shape(enc, (1024, 1024))
    with pytest.raises(UnknownName, match="not a grid check"):
        check_grid(enc, (2, 2), checks=["decay"])
    with pytest.raises(InvalidParameter, match="expected"):
        check_grid(enc, (2, 2), table=np.zeros((3, 768)))
    with pytest.raises(InvalidParameter, match="MultiAxisEncoding"):
        check_grid("sincos-2d", (2, 2))


def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize(("argv", "axes"), [
    (["--preset", "sincos-2d", "--dim", "64", "--grid", "8,8"], 2),
    (["--preset", "pe-3d", "--dim", "24", "--grid", "2,3,4"], 3),
    (["--preset", "mrope", "--dim", "16", "--mrope-section", "2,3,3", "--grid", "2,4,4"], 3),
    (["--preset", "axial-rope", "--axes-dims", "4,6,6", "--grid", "2,4,4"], 3),
])
def test_cli_check_on_a_grid(capsys, argv, axes):
    status, out, err = run(capsys, "check", *argv, "--json")
    data = json.loads(out)
    assert status == 0
    assert err == ""
    assert [c["name"] for c in data["checks"]] == ["bounds", "separation",
                                                   "translation_residual", "dtype_audit"]
    assert data["encoding"]["axes"] == axes
    assert all(c["status"] == "pass" for c in data["checks"])


def test_cli_check_fails_with_exit_1(capsys):
    status, out, _ = run(capsys, "check", "--preset", "sincos-2d", "--dim", "4", "--grid",
                         "2,800", "--dtype", "float16", "--check", "dtype_audit")
    assert status == 1
    assert "collisions" in out


@pytest.mark.parametrize(("argv", "needle"), [
    (["--grid", "16"], "grid=(16,) must give 2 sizes"),
    (["--grid", "16,16,16"], "grid=(16, 16, 16) must give 2 sizes"),
    ([], "--grid 16,16"),
    (["--grid", "100000,100000"], "at most 268435456"),
    (["--grid", "a,b"], "not a list of sizes"),
    (["--grid", "4,4", "--check", "decay"], "not a grid check"),
])
def test_cli_bad_grid_exits_2_in_one_line(capsys, argv, needle):
    status, out, err = run(capsys, "check", "--preset", "sincos-2d", "--dim", "64", *argv)
    assert status == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert needle in err
    assert "Traceback" not in err
