"""``check_multi_encoding``: a table of several axes (2-D / 3-D positions) against its spec.

The table's rows are the positions of a grid, row-major (the last axis fastest,
as :meth:`MultiAxisEncoding.grid <posproof.model.multiaxis.MultiAxisEncoding.grid>`
and ``table.reshape(-1, dim)`` of an ``(H, W, dim)`` array give them).  On a
failure every candidate mistake regenerates the whole table and is reported
only when it reproduces the impl within the dtype's tolerance (as the 1-D
explanations of :mod:`posproof.testing.absolute.explain`): axes swapped (the halves
assigned to the wrong axis, ``meshgrid`` ``"ij"`` against ``"xy"``), rows in
transposed order, and per axis every 1-D hypothesis of
:mod:`posproof.testing.absolute.hypotheses` (layout, sin/cos swapped, base, offset, …)
screened on a line of the grid along that axis, then confirmed on the grid.

>>> from posproof.model.multiaxis import multi_preset
>>> enc = multi_preset("sincos-2d", dim=16)
>>> bad = enc.swapped((1, 0)).table(enc.grid((4, 6)))
>>> check_multi_encoding(bad, "sincos-2d", grid=(4, 6)).explanation  # doctest: +ELLIPSIS
'axes swapped: ... meshgrid(indexing="ij") ... — confirmed: ...'
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ...errors import InvalidParameter, check_int
from ..core.arrays import as_array, dtype_eps
from ..core.audited import audited, entry_sign, failure_evidence, no_comparison
from ..core.judging import (
    Coverage,
    axes_coverage,
    axes_shortfall,
    judge,
    nothing_judged,
    partial_label,
)
from ..core.precision import precision_explanation, precision_note, stored_precision
from ..core.reports import (
    ImplReport,
    InvalidImplementation,
    angles_hint,
    describe,
    precision_explained,
    suggest_angles,
)
from ..identification import TOLERANCE, ranges
from .hypotheses import (
    ULPS,
    Hypothesis,
    Model,
    factor_names,
    fitted,
    measured_frequencies,
    rank,
    structural,
)
from .read import Tolerance, angles_name, squeeze, table_of

__all__ = ["check_multi_encoding", "multi_encoding_spec", "multi_grid"]

_EPS32 = 2.0**-23
#: Rows of the grid every hypothesis is scored on (all of them up to this many).
SAMPLE_ROWS = 4096


def multi_encoding_spec(spec: Any, dim: int, params: dict[str, Any]) -> Any:
    """A :class:`~posproof.model.multiaxis.MultiAxisEncoding` from an object or a preset name.

    >>> multi_encoding_spec("pe-2d", 8, {}).axes
    2
    """
    from ...model.multiaxis import MultiAxisEncoding, multi_preset

    if isinstance(spec, MultiAxisEncoding):
        if params:
            raise InvalidParameter(f"{', '.join(params)} given with a MultiAxisEncoding spec; "
                                   "build the encoding with them instead")
        return spec
    if isinstance(spec, str):
        return multi_preset(spec, dim=dim, **params)
    raise InvalidParameter(f"spec={spec!r} is not a multi-axis preset name (sincos-2d, pe-2d, "
                           "pe-3d) or a MultiAxisEncoding")


def multi_grid(enc: Any, grid: Any, rows: int) -> np.ndarray:
    """The (N, k) positions of ``grid`` for a table of ``rows`` rows; one-line errors.

    >>> from posproof.model.multiaxis import multi_preset
    >>> multi_grid(multi_preset("pe-2d", dim=4), (2, 3), 5)
    Traceback (most recent call last):
    ...
    posproof.errors.InvalidParameter: grid=(2, 3) has 6 positions but the table has 5 rows; pass the grid the table was built on (rows row-major, the last axis fastest)
    """  # noqa: E501
    if grid is None:
        raise InvalidParameter(f"grid= is required for a {enc.axes}-axis encoding: the sizes "
                               f"of the grid the rows enumerate, e.g. grid={(16,) * enc.axes}")
    if isinstance(grid, (str, bytes)) or not isinstance(grid, Sequence) or len(grid) != enc.axes:
        raise InvalidParameter(f"grid={grid!r} must give {enc.axes} sizes (one per axis)")
    sizes = tuple(check_int(f"grid[{a}]", s, minimum=1, maximum=10**6) for a, s in enumerate(grid))
    if math.prod(sizes) != rows:
        raise InvalidParameter(f"grid={sizes} has {math.prod(sizes)} positions but the table "
                               f"has {rows} rows; pass the grid the table was built on (rows "
                               "row-major, the last axis fastest)")
    return enc.grid(sizes)


def _label(enc: Any) -> str:
    from ...model.multiaxis import MULTI_PRESETS

    if enc.name in MULTI_PRESETS:
        return f'multi_preset("{enc.name}", dim={enc.dim})'
    return repr(enc)


def _exact_entry(enc: Any, position: np.ndarray, col: int, scale: float) -> Any:
    """The exact value of column ``col`` at the grid position ``position``: scale·sin(ω·x)
    (cos, 0) of the block holding the column, x its axis' position."""
    import sympy as sp

    for block in enc.blocks:
        if col in block.columns:
            k = list(block.columns).index(col)
            sub = block.encoding
            func, w = sub.column_funcs[k], sub.column_frequency(k)
            x = int(position[block.axis])
            if func == "zero" or w is None or (sub.padding_idx is not None
                                               and x == sub.padding_idx):
                return sp.Integer(0)
            return sp.Rational(*float(scale).as_integer_ratio()) * (
                sp.sin if func == "sin" else sp.cos)(w * x)
    raise ValueError(f"column {col} is in no block")


def _axis_of_columns(enc: Any) -> tuple[np.ndarray, np.ndarray]:
    axis = np.zeros(enc.dim, dtype=np.int64)
    omega = np.zeros(enc.dim)
    for block in enc.blocks:
        cols = list(block.columns)
        axis[cols] = block.axis
        omega[cols] = block.encoding.column_frequencies_float
    return axis, omega


# A multi-axis model: (axis, 1-D Model, columns) per block, and the rows' positions.
_Blocks = list[tuple[int, Model, tuple[int, ...]]]


def _regenerate(blocks: _Blocks, pos: np.ndarray, dim: int) -> tuple[np.ndarray, np.ndarray]:
    """(table, |angle| per entry) of a multi-axis model at positions (N, k)."""
    out = np.zeros((pos.shape[0], dim))
    ang = np.zeros_like(out)
    for axis, model, cols in blocks:
        c = list(cols)
        out[:, c] = model.regenerate(pos[:, axis])
        omega = model.omega if model.keep is None else model.omega[model.keep]
        ang[:, c] = np.abs(np.multiply.outer(pos[:, axis].astype(np.float64) + model.shift,
                                             omega))
    return out, ang


class _Judge:
    """Scores a regenerated table against the impl: confirmed when every entry is within
    ``4·eps_out + 16·eps_path·|x·ω|`` and the regeneration differs from the spec's table."""

    def __init__(self, table: np.ndarray, spec: np.ndarray, spec_ang: np.ndarray, eps: float,
                 eps_path: float) -> None:
        self.table, self.spec, self.spec_ang = table, spec, spec_ang
        self.eps, self.eps_path = eps, eps_path

    def __call__(self, regen: np.ndarray, ang: np.ndarray) -> tuple[bool, float]:
        tol = ULPS * self.eps + TOLERANCE * self.eps_path * ang
        with np.errstate(invalid="ignore", over="ignore"):
            diff = np.nan_to_num(np.abs(self.table - regen), nan=math.inf)
            noop = np.all(np.abs(regen - self.spec) <= tol)
            ok = bool(np.all(diff <= tol)) and not noop
        return ok, float(diff.max()) if diff.size else 0.0


def _names(enc: Any, axis: int) -> str:
    return f"{enc.axis_names[axis]} (dims {ranges(enc.axis_columns(axis))})"


def _swap_text(enc: Any, perm: Sequence[int]) -> str:
    moved = [a for a in range(enc.axes) if perm[a] != a]
    parts = ", ".join(f"the columns of axis {_names(enc, a)} encode axis "
                      f"{enc.axis_names[perm[a]]}" for a in moved)
    text = f"axes swapped: {parts}"
    if enc.name == "sincos-2d":
        first = enc.blocks[0].axis       # the axis the first half encodes in the spec
        if first == 1:
            text += ('; the first half encodes the row h, not the column w: meshgrid('
                     'indexing="ij") (or first="row") where MAE\'s get_2d_sincos_pos_embed '
                     "uses meshgrid(grid_w, grid_h), the column first")
        else:
            text += ('; the first half encodes the column w (MAE\'s meshgrid(grid_w, '
                     'grid_h), indexing="xy") where the spec has the row first (first="row", '
                     'meshgrid(indexing="ij"))')
    else:
        text += " (the halves/blocks assigned to the wrong axis)"
    return text


def _hypotheses(enc: Any, table: np.ndarray, pos: np.ndarray, grid: tuple[int, ...],
                eps: float, eps_path: float) -> list[tuple[str, str, _Blocks, np.ndarray]]:
    """(key, cause, model, positions) in the order of simplicity."""
    spec = [(b.axis, Model.of(b.encoding), b.columns) for b in enc.blocks]
    out: list[tuple[str, str, _Blocks, np.ndarray]] = []
    for perm in itertools.permutations(range(enc.axes)):
        if list(perm) != list(range(enc.axes)):
            out.append(("swapped-axes", _swap_text(enc, perm),
                        [(perm[a], m, c) for a, m, c in spec], pos))
    if enc.axes >= 2:
        transposed = enc.grid(grid[::-1])[:, ::-1]          # the first axis fastest
        out.append(("transposed-grid", "rows in transposed order: row r of the table holds the "
                    f"position of a grid enumerated with axis {enc.axis_names[0]} fastest "
                    "(column-major: a transposed grid, or a meshgrid flattened in the other "
                    "order), not row-major with the last axis fastest", spec, transposed))
    per_block: list[list[tuple[str, str, Model]]] = []
    for b, block in enumerate(enc.blocks):
        per_block.append(_line_hypotheses(enc, b, block, table, pos, eps, eps_path))
        for key, cause, model in per_block[-1]:
            blocks = list(spec)
            blocks[b] = (block.axis, model, block.columns)
            where = (f"axis {_names(enc, block.axis)}" if len(enc.axis_columns(block.axis))
                     == block.encoding.dim else f"block {b} (axis {enc.axis_names[block.axis]})")
            out.append((key, f"{where}: {cause}", blocks, pos))
    # the same mistake in every block of the same 1-D encoding (one line may be too short
    # to show it: a base fitted on the longest axis applies to the others)
    for b, hyps in enumerate(per_block):
        same = [i for i, other in enumerate(enc.blocks)
                if other.encoding.to_dict() == enc.blocks[b].encoding.to_dict()]
        if len(same) < 2 or any(per_block[i] for i in same if i < b):
            continue
        for key, cause, model in hyps[:3]:
            blocks = list(spec)
            for i in same:
                blocks[i] = (enc.blocks[i].axis, model, enc.blocks[i].columns)
            where = ", ".join(_names(enc, enc.blocks[i].axis) for i in same)
            text = (f"every axis: {cause}" if len(same) == len(enc.blocks)
                    else f"axes {where}: {cause}")
            out.append((key, text, blocks, pos))
    out += _position_hypotheses(enc, table, pos, grid, eps, spec)
    if sum(1 for h in per_block if h) >= 2:        # a mistake in several axes at once
        blocks, causes = list(spec), []
        for b, hyps in enumerate(per_block):
            if hyps:
                key, cause, model = hyps[0]
                block = enc.blocks[b]
                blocks[b] = (block.axis, model, block.columns)
                causes.append(f"axis {_names(enc, block.axis)}: {cause}")
        same = {c.split(": ", 1)[1] for c in causes}
        text = (f"every axis: {causes[0].split(': ', 1)[1]}" if len(same) == 1 and
                len(causes) == len(enc.blocks) else "; ".join(causes))
        out.append(("several-axes", text, blocks, pos))
    return out


def _position_hypotheses(enc: Any, table: np.ndarray, pos: np.ndarray, grid: tuple[int, ...],
                         eps: float, spec: _Blocks) -> list[tuple[str, str, _Blocks, np.ndarray]]:
    """Mistakes in the positions of every axis at once, each regenerated on the whole grid:
    off by ±1 on several axes, coordinates reversed on some axes (alone and with the grid
    transposed), positions scaled by an interpolation factor (i·s)."""
    k = enc.axes
    names = enc.axis_names
    out: list[tuple[str, str, _Blocks, np.ndarray]] = []
    for shift in itertools.product((-1, 0, 1), repeat=k):
        if sum(1 for v in shift if v) >= 2:               # one axis: the line hypotheses
            text = ", ".join(f"{names[a]} {'+' if v > 0 else '−'} 1"
                             for a, v in enumerate(shift) if v)
            out.append(("offset-axes", f"positions off by one on several axes at once: the "
                        f"impl at each grid point equals the spec at ({text})", spec,
                        pos + np.asarray(shift, dtype=np.int64)[None, :]))
    orders = [("", pos)]
    if k >= 2:
        orders.append((" with the grid transposed (the first axis fastest)",
                       enc.grid(grid[::-1])[:, ::-1]))
    for subset in itertools.product((False, True), repeat=k):
        if not any(subset):
            continue
        for how, base in orders:
            flipped = base.copy()
            for a in range(k):
                if subset[a]:
                    flipped[:, a] = base[:, a].min() + base[:, a].max() - base[:, a]
            which = ", ".join(names[a] for a in range(k) if subset[a])
            out.append(("reversed-axes", f"coordinates reversed on axis {which} (G − 1 − i: "
                        f"a grid built from the far end){how}", spec, flipped))
    factors = _interpolation_factors(enc, table, pos, eps)
    if factors is not None and any(f != 1.0 for f in factors):
        text = ", ".join(f"{names[a]}·{f:.6g}" for a, f in enumerate(factors))
        out.append(("interpolation-scale", f"positions scaled by an interpolation factor "
                    f"(i·s: {text}; PixArt's pos / (grid_size / base_size) / "
                    "interpolation_scale, CogVideoX's spatial/temporal_interpolation_scale)",
                    spec, pos.astype(np.float64) * np.asarray(factors)[None, :]))
    return out


def _interpolation_factors(enc: Any, table: np.ndarray, pos: np.ndarray, eps: float
                           ) -> list[float] | None:
    """Per axis, the factor s with impl(i) = spec(i·s), read from the frequencies measured on
    the grid line of that axis and snapped to a simple value (None when unreadable)."""
    factors = [1.0] * enc.axes
    for block in enc.blocks:
        axis = block.axis
        others = [a for a in range(enc.axes) if a != axis]
        rows = np.flatnonzero(np.all(pos[:, others] == pos[0, others], axis=1))
        if rows.size < 4:
            continue
        line_t = table[np.ix_(rows, list(block.columns))]
        meas = measured_frequencies(line_t, eps)
        if meas is None:                      # a line too short to measure a frequency
            continue
        want = block.encoding.column_frequencies_float
        live = np.isfinite(meas) & (want > 1e-4) & (want < 0.5) & (meas > 1e-6) & (meas < 3)
        if not live.any():
            continue
        value = factor_names(float(np.median(meas[live] / want[live])))[0][1]
        factors[axis] = value
    return factors


def _line_hypotheses(enc: Any, b: int, block: Any, table: np.ndarray, pos: np.ndarray,
                     eps: float, eps_path: float) -> list[tuple[str, str, Model]]:
    """1-D hypotheses for one block confirmed on the grid line along its axis."""
    axis = block.axis
    others = [a for a in range(enc.axes) if a != axis]
    rows = np.flatnonzero(np.all(pos[:, others] == pos[0, others], axis=1))
    if rows.size < 2:
        return []
    line_p = pos[rows, axis].astype(np.int64)
    line_t = table[np.ix_(rows, list(block.columns))]
    one = block.encoding
    hyps: list[Hypothesis] = list(structural(one))
    if rows.size >= 4:
        hyps += list(fitted(one, line_t, line_p, measured_frequencies(line_t, eps)))
    outcomes = rank(line_t, line_p, hyps, eps=eps, eps_path=eps_path, spec=Model.of(one))
    by_key = {(h.key, h.how): h for h in hyps}
    return [(o.key, o.cause, by_key[(o.key, o.how)].model) for o in outcomes if o.confirmed]


def _call_multi(impl: Any, pos: np.ndarray) -> tuple[np.ndarray, str]:
    try:
        out = impl(pos.copy())
    except Exception as exc:
        raise InvalidImplementation(
            f"calling {describe(impl)}(positions) raised {type(exc).__name__}: {exc}; a "
            f"callable impl takes an int64 array of shape (N, {pos.shape[1]}) (one row per "
            "token, one column per axis) and returns the table (N, dim)") from None
    table, dtname = as_array(out, what=f"the output of {describe(impl)}")
    return squeeze(table, "the table"), dtname


@audited
def check_multi_encoding(impl: Any, spec: Any, *, grid: Sequence[int] | None = None,
                         dim: int | None = None, dtype: str | None = None,
                         angles: str | None = None, scale: float = 1.0, explain: bool = True,
                         **params: Any) -> ImplReport:
    """Compare a table of several axes with ``spec`` at the positions of ``grid``.

    ``impl``: a table of ``prod(grid)`` rows (an ``(H, W, dim)`` array is flattened),
    or a callable taking the int64 positions of shape ``(N, k)`` and returning
    the table.  ``spec``: a :class:`~posproof.model.multiaxis.MultiAxisEncoding`
    or a multi-axis preset name (``"sincos-2d"``, ``"pe-2d"``, ``"pe-3d"``) with
    ``params``.  The tolerance is :class:`~posproof.testing.absolute.read.Tolerance`'s
    (the exact table rounded to the dtype; ``angles="float32"`` when the impl forms
    x·ω in float32 on purpose, as the ``positional-encodings`` package does: that dtype's
    rounding model, ``4·eps + eps_angles + γ_k·|x·ω|``, ``γ_k = k·u/(1 − k·u)``,
    ``k = 2·|ln ω| + 4`` — ω formed in that dtype from its exponent, x·ω rounded once
    more; a declared dtype whose model leaves most entries unjudged — of all, or of any one
    axis — gives ``unknown``, and a pass that judged part names the axes judged in part).
    """
    table_like = table_of(impl)
    if table_like is None and not callable(impl):
        raise InvalidImplementation(f"impl of type {type(impl).__name__} is neither a table "
                                    "nor a callable returning one for given positions")
    if table_like is not None:
        arr, impl_dtype = as_array(table_like, what="the table")
        if arr.ndim > 2 and grid is not None and tuple(arr.shape[:-1]) == tuple(grid):
            arr = arr.reshape(-1, arr.shape[-1])
        table = squeeze(arr, "the table")
        enc = multi_encoding_spec(spec, table.shape[1] if dim is None else dim, params)
        pos = multi_grid(enc, grid, table.shape[0])
    else:
        if dim is None and not hasattr(spec, "blocks"):
            raise InvalidParameter("pass dim= with a callable impl and a preset name")
        enc = multi_encoding_spec(spec, dim or 0, params)
        if grid is None:
            multi_grid(enc, None, 0)
        pos = enc.grid(tuple(grid))
        table, impl_dtype = _call_multi(impl, pos)
        if table.shape[0] != pos.shape[0]:
            raise InvalidImplementation(f"{describe(impl)} returned {table.shape[0]} rows for "
                                        f"{pos.shape[0]} positions")
    grid = tuple(int(g) for g in grid)          # type: ignore[union-attr]
    read = None if dtype is not None else stored_precision(table, impl_dtype)
    dtname = angles_name(dtype) if dtype is not None else impl_dtype
    angles = angles_name(angles)
    tol = Tolerance.of(dtname, angles, scale)
    eps = dtype_eps(dtname)
    report = ImplReport(False, "multi-axis encoding", enc.to_dict(), dtname, int(pos.shape[0]),
                        int(np.abs(pos).max()) if pos.size else 0,
                        precision_note=precision_note(read, impl_dtype))
    label = _label(enc)
    if table.shape[1] != enc.dim:
        report.evidence = no_comparison(f"{table.shape[1]} columns, not {enc.dim}")
        report.score = math.inf
        report.explanation = f"the impl has {table.shape[1]} columns, the spec {enc.dim}"
        report.checks = [{"name": "matches_spec", "status": "fail", "columns": table.shape[1],
                          "expected": enc.dim}]
        report.message = f"impl disagrees with {label}: {report.explanation}"
        return report
    axis_col, omega = _axis_of_columns(enc)
    expected = enc.table(pos) * scale
    ang = np.abs(pos[:, axis_col].astype(np.float64) * omega[None, :])
    bound = tol.bound(ang, omega)
    cov = Coverage(enc.dim)
    per_axis: dict[str, Coverage] = {}
    if pos.shape[0]:
        xabs = np.abs(pos[:, axis_col]).astype(np.float64)
        cov.add(bound, xabs, np.arange(enc.dim), tol)
        per_axis = axes_coverage(bound, xabs, axis_col, enc.axis_names, tol)
    with np.errstate(invalid="ignore"):
        ratio = np.nan_to_num(np.abs(table - expected) / bound, nan=math.inf)
    report.score = float(ratio.max()) if ratio.size else 0.0
    report.max_error = float(np.nan_to_num(np.abs(table - expected), nan=math.inf).max())
    report.tolerance = {"formula": tol.formula, "out": tol.out, "angle": tol.angle,
                        "angles": angles or "float64", "scale": scale}
    check: dict[str, Any] = {"name": "matches_spec", "status": "fail",
                             "score": round(report.score, 6), "max_error": report.max_error,
                             "tolerance": tol.formula, "grid": list(grid)}
    status = judge(check, report.score, cov)
    report.checks = [check]
    short = axes_shortfall(per_axis, angles is not None) if status == "pass" else None
    if status == "pass" and ((angles is not None and not cov.meaningful) or short):
        # a declared angle dtype whose rounding model judges fewer than half the entries —
        # of all, or of one axis's — has shown little: the entries it judged agree, the rest
        # say nothing — no pass (an axis left unjudged does not hide behind the others)
        status = check["status"] = check["label"] = "unknown"
        check["coverage"] = {**cov.to_dict(), "axes": {k: c.to_dict()
                                                       for k, c in per_axis.items()}}
        report.score = math.inf
        report.explanation = (
            f"most entries {'of one axis ' if cov.meaningful else ''}not judged"
            + (f" under angles={angles!r}" if angles is not None else "")
            + f" ({short or 'of all axes'}): {cov.unjudged()}; the {cov.judged} judged "
            "entries agree")
        report.message = f"impl not judged against {label}: {report.explanation}"
        return report
    if status == "pass" and not cov.complete:        # a partial pass names its axes
        check["label"] = partial_label(check["label"], per_axis)
        check["coverage"]["axes"] = {k: c.to_dict() for k, c in per_axis.items()}
    report.ok = status == "pass"
    if status != "unknown" and ratio.size:
        r, c = np.unravel_index(int(np.argmax(ratio)), ratio.shape)
        if report.score == 0:       # every entry exact: audit the farthest row's column 0
            r, c = int(np.argmax(np.abs(pos).sum(axis=1))), 0
        details = {"tolerance": tol.formula, "score": report.score, "check": "matches_spec"}
        if not np.isfinite(table[r, c]):
            report.evidence = no_comparison("the impl returns NaN or inf: no real value to "
                                            "compare")
        else:
            worst = entry_sign(f"row {int(r)} (position {tuple(int(v) for v in pos[r])}), dim "
                               f"{int(c)}", _exact_entry(enc, pos[r], int(c), scale),
                               float(table[r, c]), float(bound[r, c]), within=report.ok)
            report.evidence = (cov.evidence("exhaustive comparison", details) if report.ok
                               else failure_evidence("exhaustive comparison", worst, details))
            if report.ok:
                report.evidence.items.append(worst)
    if report.ok:
        return report
    if status == "unknown":
        report.score = math.inf
        report.explanation = nothing_judged(tol, cov)
        report.message = f"impl not judged against {label}: {report.explanation}"
        return report
    bad = ratio > 1.0
    rows, cols = np.flatnonzero(bad.any(axis=1)), np.flatnonzero(bad.any(axis=0))
    report.bad_positions = [int(r) for r in rows[:64]]
    report.bad_dims = [int(c) for c in cols[:64]]
    report.n_bad_positions, report.n_bad_dims = int(rows.size), int(cols.size)
    report.dim_ranges = ranges([int(c) for c in cols])
    report.position_ranges = f"rows {ranges([int(r) for r in rows])}"
    r, c = np.unravel_index(int(np.argmax(ratio)), ratio.shape)
    report.worst = {"position": [int(v) for v in pos[r]], "row": int(r), "dim": int(c),
                    "axis": enc.axis_names[int(axis_col[c])], "impl": float(table[r, c]),
                    "expected": float(expected[r, c]),
                    "difference": float(abs(table[r, c] - expected[r, c])),
                    "tolerance": float(bound[r, c])}
    per_axis = [f"axis {_names(enc, a)}: {np.isin(enc.axis_columns(a), cols).sum()} of "
                f"{len(enc.axis_columns(a))} dims disagree" for a in range(enc.axes)]
    report.checks[0]["axes"] = per_axis
    by_precision = None
    if read is not None:
        found = _accepting_angles(table, expected, ang, omega, pos, axis_col, enc, read, scale,
                                  names=(angles,) if angles is not None else
                                  (None, *(a for a in ("float32", "float16", "bfloat16")
                                           if dtype_eps(a) <= dtype_eps(read))))
        if found is not None and found[1].meaningful:
            a = found[0]
            by_precision = precision_explanation(
                read, dtname, f'dtype="{read}"' + (f', angles="{a}"' if a else ""),
                f" with angles formed in {a}" if a else "")
    accepting = _accepting_angles(table, expected, ang, omega, pos, axis_col, enc, dtname,
                                  scale) \
        if angles is None and by_precision is None else None
    if by_precision is not None:
        report.explanation = by_precision
        report.hypotheses = [{"key": "precision-read", "hypothesis": by_precision, "fits": True}]
    elif explain:
        unscaled = table if scale == 1.0 else table / scale
        at = dtype_eps(read) if read is not None else eps     # the precision the values carry
        _explain(report, enc, unscaled, pos, grid, max(at, eps), max(tol.eps_angle, at)
                 if at > eps else tol.eps_angle, per_axis)
    suggest_angles(report, accepting)
    w = report.worst
    lines = [f"impl disagrees with {label}" + (f" × {scale:g}" if scale != 1.0 else "")
             + f" on grid {grid} at {report.n_bad_positions} of {report.n_positions} positions "
             f"and {report.n_bad_dims} of {enc.dim} dims ({'; '.join(per_axis)})",
             f"worst: position {tuple(w['position'])} (row {w['row']}), dim {w['dim']} (axis "
             f"{w['axis']}): impl {w['impl']:.9g}, expected {w['expected']:.9g}, |difference| "
             f"{w['difference']:.3g} > tolerance {w['tolerance']:.3g} = {tol.formula}"]
    if report.precision_note:
        lines.append(report.precision_note)
    if tol.angles is None and not precision_explained(report):
        lines.append(angles_hint(report.accepted_with_angles, report.angles_note))
    if report.explanation:
        lines.append(report.explanation if report.explanation.startswith("no explanation")
                     else f"most likely: {report.explanation}")
    report.message = "\n".join(lines)
    return report


def _accepting_angles(table: np.ndarray, expected: np.ndarray, ang: np.ndarray,
                      omega: np.ndarray, pos: np.ndarray,
                      axis_col: np.ndarray, enc: Any, dtname: str, scale: float,
                      names: tuple[str | None, ...] = ("float32", "float16", "bfloat16")
                      ) -> tuple[Any, Coverage] | None:
    """As the 1-D tables: the most precise ``angles=`` dtype whose tolerance holds the grid
    table, with what that tolerance judges (a hint only where it judges a meaningful part)."""
    for name in names:
        tol = Tolerance.of(dtname, name, scale)
        bound = tol.bound(ang, omega)
        with np.errstate(invalid="ignore"):
            if not np.all(np.abs(table - expected) <= bound):
                continue
        cov = Coverage(enc.dim)
        if pos.shape[0]:
            cov.add(bound, np.abs(pos[:, axis_col]).astype(np.float64), np.arange(enc.dim), tol)
        return name, cov
    return None


def _explain(report: ImplReport, enc: Any, table: np.ndarray, pos: np.ndarray,
             grid: tuple[int, ...], eps: float, eps_angle: float, per_axis: list[str]) -> None:
    """The first hypothesis (simplest first) whose regeneration reproduces the impl."""
    # as the 1-D explanations: a structural bug is confirmed whatever precision (up to
    # float32, or the angles= allowed) the impl formed x·ω in
    eps_path = max(min(eps_angle, _EPS32), min(eps, _EPS32))
    sample = (np.arange(pos.shape[0]) if pos.shape[0] <= SAMPLE_ROWS else np.unique(
        np.linspace(0, pos.shape[0] - 1, SAMPLE_ROWS).astype(np.int64)))
    spec_blocks = [(b.axis, Model.of(b.encoding), b.columns) for b in enc.blocks]
    spec_t, spec_ang = _regenerate(spec_blocks, pos[sample], enc.dim)
    judge = _Judge(table[sample], spec_t, spec_ang, eps, eps_path)
    hyps = _hypotheses(enc, table, pos, grid, eps, eps_path)
    results = []
    for key, cause, blocks, where in hyps:
        regen, ang = _regenerate(blocks, where[sample], enc.dim)
        ok, residual = judge(regen, ang)
        results.append({"hypothesis": cause, "key": key, "residual": residual, "fits": ok})
    confirmed = [h for h in results if h["fits"]]
    report.hypotheses = (confirmed + sorted((h for h in results if not h["fits"]),
                                            key=lambda h: h["residual"]))[:12]
    if confirmed:
        best = confirmed[0]
        others = [h for h in confirmed[1:] if h["hypothesis"] != best["hypothesis"]][:2]
        also = [h["hypothesis"].split(":")[0] for h in others]
        square = {best["key"], *(h["key"] for h in others)} == {"swapped-axes",
                                                                 "transposed-grid"}
        report.explanation = (f"{best['hypothesis']} — confirmed: regenerating the {grid} grid "
                              f"under it reproduces the impl to {best['residual']:.2g} (every "
                              "entry within its tolerance)"
                              + (f"; also reproduced by: {'; '.join(also)}"
                                 + (" (the grid is square)" if square else "")
                                 if also else ""))
        return
    closest = min(results, key=lambda h: h["residual"]) if results else None
    text = (f"no explanation confirmed: none of {len(results)} hypotheses (swapped axes, "
            "transposed grid, per-axis layout, base, offset, …) reproduces the impl within its "
            "tolerance")
    if closest is not None and math.isfinite(closest["residual"]):
        text += f" (closest: {closest['hypothesis'][:80]}, off by {closest['residual']:.2g})"
    good = [p for p in per_axis if p.split(": ")[1].startswith("0 of")]
    report.explanation = (text + "; what is known: " + "; ".join(per_axis)
                          + (" (those axes match the spec)" if good else ""))
