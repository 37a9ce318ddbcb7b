"""The judging rule of a multi-axis check holds per axis (issue 29 item 3): a declared angle
dtype whose rounding model leaves one axis's entries mostly unjudged gives ``unknown`` — that
axis cannot hide behind the others, even when more than half of all entries were judged —
and a pass that judged part of an axis says which, in its label."""

from __future__ import annotations

import numpy as np

from posproof.model.multiaxis import multi_preset
from posproof.model.multirope import mrope
from posproof.testing import check_encoding, check_rotary
from posproof.testing.core.judging import Coverage

ENC = multi_preset("sincos-2d", dim=16)
ROT = mrope(10000, 16, [4, 2, 2])


def _col_block_garbage(grid):
    """A float32 sincos-2d table whose fastest 'col' columns hold random values in [−1, 1] at
    col positions ≥ 200, where a bfloat16 rounding model judges nothing."""
    pos = ENC.grid(grid)
    table = ENC.table(pos).astype(np.float32)
    block = next(b for b in ENC.blocks if ENC.axis_names[b.axis] == "col")
    fast = [c for c, w in zip(block.columns, block.encoding.column_frequencies_float,
                              strict=True) if w == 1.0]
    far = pos[:, block.axis] >= 200
    rng = np.random.default_rng(0)
    for c in fast:
        table[far, c] = rng.uniform(-1, 1, int(far.sum()))
    return table


def test_grid_table_with_one_axis_mostly_unjudged_is_unknown_not_pass():
    grid = (4, 8192)
    report = check_encoding(_col_block_garbage(grid), ENC, grid=grid, angles="bfloat16")
    cov = report.checks[0]["coverage"]
    assert 2 * cov["judged"] >= cov["entries"]          # more than half of all judged …
    assert report.status == "unknown", report.label     # … but not half of axis col's
    assert "axis col:" in report.explanation
    assert cov["axes"]["col"]["judged"] * 2 < cov["axes"]["col"]["entries"]
    assert cov["axes"]["row"]["judged"] == cov["axes"]["row"]["entries"]


def test_a_partial_grid_pass_names_the_axis_judged_in_part():
    grid = (4, 4096)
    table = ENC.table(ENC.grid(grid)).astype(np.float32)
    report = check_encoding(table, ENC, grid=grid, angles="bfloat16")
    assert report.status == "pass"
    label = report.checks[0]["label"]
    assert label.startswith("pass (judged ")
    assert "axis col: " in label
    assert "axis row" not in label                        # judged whole
    assert report.label == label


def test_multi_axis_rotary_with_one_axis_unjudged_is_unknown_not_pass():
    """Temporal positions ≥ 5000 under bfloat16 angles: axis t is judged nowhere, h and w
    everywhere (half of all entries): an impl that ignores t must not pass."""
    s = np.arange(64)
    pos = np.stack([5000 + s, s % 8, s // 8])

    def no_t(x, p):
        p = np.array(p)
        p[0] = 0
        return ROT.apply(x, p)

    report = check_rotary(no_t, ROT, angles="bfloat16", positions=pos)
    assert report.status == "unknown", report.label
    assert "axis t: 0 of its" in report.explanation
    assert not report.ok


def test_the_per_axis_rule():
    from posproof.testing.core.judging import axes_shortfall

    whole, part = Coverage(1, judged=4, total=4), Coverage(1, judged=1, total=4)
    assert axes_shortfall({"h": whole, "w": part}, declared=True) is not None
    assert axes_shortfall({"h": whole, "w": part}, declared=False) is None
    assert axes_shortfall({"h": whole, "w": Coverage(1, judged=0, total=4)},
                          declared=False) is not None
    assert axes_shortfall({"h": whole, "w": Coverage(1, judged=2, total=4)},
                          declared=True) is None
