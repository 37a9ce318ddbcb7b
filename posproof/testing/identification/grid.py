"""Identify a multi-axis sinusoidal table: which columns encode which coordinate of a grid.

A table of an H × W (or T × H × W) grid of positions has one row per grid
position in row-major order (the last axis fastest), as MAE's
``get_2d_sincos_pos_embed`` or a flattened ``PositionalEncoding2D`` output.
The method, for a grid of shape ``(g_1, …, g_k)``:

1. the table is read as an array of shape ``(g_1, …, g_k, dim)``; a column
   encodes axis a when it varies along axis a only (a column of one
   coordinate is the same number wherever that coordinate is the same);
   a column that varies along no axis (a slow cosine rounded to 1.0 in
   float16) goes with its nearest assigned neighbour, a column that varies
   along two axes means the grid does not explain the table;
2. each axis's columns, on the line of rows along that axis (the other
   coordinates at their first value), are a 1-D table:
   :func:`~posproof.testing.identification.identify_1d` names its schedule,
   layout, offset, precision and scale;
3. the :class:`~posproof.model.multiaxis.MultiAxisEncoding` of those blocks
   regenerates the WHOLE table, compared entrywise with the tolerance of
   :class:`~posproof.testing.absolute.read.Tolerance` with angles in the table's
   precision, ``16·(eps + eps·|x·ω|)``: a match only within it, residual
   reported;
4. the fitted encoding is compared with the multi-axis presets (``sincos-2d``
   column first as MAE, row first as MAE ported with ``meshgrid(indexing="ij")``,
   ``pe-2d``, ``pe-3d``) and their axis-swapped copies, and named.

Without a grid, :func:`identify_flat` tries the factorisations of the row count
(2 and 3 axes, every side ≥ 4, at most :data:`MAX_FACTORISATIONS`) and keeps the
one whose regeneration reproduces the table.

>>> import posproof
>>> from posproof.model.multiaxis import multi_preset
>>> enc = multi_preset("sincos-2d", dim=32)
>>> found = identify_grid(enc.table(enc.grid((8, 8))), (8, 8))
>>> found.summary
'matches sincos-2d (MAE, column first) on the 8 × 8 grid: columns 0–15 encode the column, 16–31 the row'
>>> [a.name for a in found.axes], found.axes[1].columns[:3]
(['row', 'column'], [0, 1, 2])
"""  # noqa: E501

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...errors import InvalidParameter, PosproofError, check_int
from ..core.arrays import as_array, dtype_eps, dtype_name, tolerance
from .table import TOLERANCE, Identification, audit_identification, identify_1d, ranges

__all__ = [
    "MAX_EXTRA_ROWS",
    "MAX_FACTORISATIONS",
    "AxisIdentification",
    "MultiAxisIdentification",
    "axis_labels",
    "factorisations",
    "identify_flat",
    "identify_grid",
    "leading_zero_rows",
    "search_grids",
]

#: Most grid shapes :func:`identify_flat` tries for a flat table.
MAX_FACTORISATIONS = 48

#: Fewest positions along an axis that identify can measure frequencies on.
MIN_SIDE = 4

#: Largest number of axes identify handles.
MAX_GRID_AXES = 3


def axis_labels(k: int) -> tuple[str, ...]:
    """Names of the axes of a row-major grid of ``k`` axes.

    >>> axis_labels(2), axis_labels(3)
    (('row', 'column'), ('frame', 'row', 'column'))
    """
    return {1: ("position",), 2: ("row", "column"), 3: ("frame", "row", "column")}.get(
        k, tuple(f"axis {a}" for a in range(k)))


@dataclass
class AxisIdentification:
    """One axis of a grid: its ``columns`` and the 1-D identification of them along it."""

    axis: int
    name: str
    size: int
    columns: list[int]
    found: Identification

    def to_dict(self) -> dict[str, Any]:
        return {"axis": self.axis, "name": self.name, "size": self.size,
                "columns": self.columns, "identification": self.found.to_dict()}


@dataclass
class MultiAxisIdentification:
    """What :func:`identify_grid` / :func:`identify_flat` found; ``matched`` only when the
    fitted multi-axis encoding regenerates the whole table within the tolerance."""

    matched: bool
    summary: str
    rows: int
    dim: int
    dtype: str
    grid: tuple[int, ...]
    axes: list[AxisIdentification] = field(default_factory=list)
    preset: str | None = None
    preset_params: dict[str, str] = field(default_factory=dict)
    residual: float | None = None
    score: float | None = None
    precision: str | None = None
    scale: float = 1.0
    notes: list[str] = field(default_factory=list)
    encoding: Any = field(default=None, repr=False)
    #: What the match rests on: the entry nearest its tolerance against the fitted
    #: encoding's exact value, a Sign the audit recomputes (None without a match).
    evidence: Any = field(default=None, repr=False)

    @property
    def status(self) -> str:
        """``pass`` for a validated match, ``fail`` for none (the verdict line's count)."""
        return "pass" if self.matched else "fail"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (``"kind": "multi-axis"``; each axis with its 1-D identification)."""
        out = {k: getattr(self, k) for k in (
            "matched", "summary", "rows", "dim", "dtype", "preset", "preset_params",
            "residual", "score", "precision", "scale", "notes")}
        out["kind"] = "multi-axis"
        out["grid"] = list(self.grid)
        out["axes"] = [a.to_dict() for a in self.axes]
        out["encoding"] = self.encoding.to_dict() if self.encoding is not None else None
        if self.evidence is not None:
            out["evidence"] = self.evidence.to_dict()
        return out

    def __str__(self) -> str:
        lines = [f"table: {self.rows} positions × {self.dim} dims, {self.dtype}, grid "
                 + " × ".join(map(str, self.grid)) + " (row-major)",
                 f"verdict: {self.summary}"]
        for a in self.axes:
            lines.append(f"axis {a.axis} ({a.name}, {a.size} positions): columns "
                         f"{ranges(a.columns)}: {a.found.summary}")
        if self.residual is not None:
            lines.append(f"residual: max |table − fitted| = {self.residual:.3g} "
                         f"({self.score:.3g} of the {self.precision or self.dtype} "
                         "tolerance)")
        lines += [f"note: {n}" for n in self.notes]
        return "\n".join(lines)


#: Most leading all-zero rows (cls / extra tokens) set aside before the grid.
MAX_EXTRA_ROWS = 8


def leading_zero_rows(arr: np.ndarray) -> int:
    """How many first rows are exactly zero (MAE's ``cls_token=True``, DiT's extra tokens
    prepend such rows), at most :data:`MAX_EXTRA_ROWS`.

    >>> leading_zero_rows(np.vstack([np.zeros((1, 4)), np.ones((3, 4))]))
    1
    """
    head = arr[:MAX_EXTRA_ROWS + 1]
    nonzero = np.flatnonzero(np.abs(head).max(axis=1) > 0)
    count = int(nonzero[0]) if nonzero.size else head.shape[0]
    return count if count <= MAX_EXTRA_ROWS else 0


def _extra_note(extra: int) -> str:
    return (f"row{'s 0–' + str(extra - 1) if extra > 1 else ' 0'} {'are' if extra > 1 else 'is'}"
            " zero (cls / extra tokens, as MAE's cls_token=True): the grid starts at row "
            f"{extra}")


def _check_grid(grid: Any, rows: int, extra: int = 0) -> tuple[int, ...]:
    if isinstance(grid, (str, bytes)) or not hasattr(grid, "__len__") or not len(grid):
        raise InvalidParameter(f"grid={grid!r} must be a tuple of sizes, e.g. (16, 16)")
    if len(grid) > MAX_GRID_AXES:
        raise InvalidParameter(f"grid={tuple(grid)!r} has {len(grid)} axes; identify handles "
                               f"1 to {MAX_GRID_AXES}")
    sizes = tuple(check_int(f"grid[{a}]", s, minimum=1) for a, s in enumerate(grid))
    count = math.prod(sizes)
    if count not in (rows, rows - extra):
        raise InvalidParameter(f"grid={sizes} has {count} positions but the table has "
                               f"{rows} rows")
    small = [a for a, s in enumerate(sizes) if s < MIN_SIDE]
    if small:
        raise InvalidParameter(f"grid={sizes}: axis {small[0]} has {sizes[small[0]]} "
                               f"position(s); identify needs at least {MIN_SIDE} along every "
                               "axis")
    return sizes


def _table(table: Any, dtype: str | None) -> tuple[np.ndarray, str]:
    arr, dtname = as_array(table)
    if arr.ndim != 2:
        raise InvalidParameter(f"table has shape {arr.shape}; pass a 2-d array of shape "
                               "(n_positions, dim) with the grid's rows in row-major order")
    return arr, dtype_name(dtype) if dtype is not None else dtname


def identify_grid(table: Any, grid: Any, *, dtype: str | None = None
                  ) -> MultiAxisIdentification:
    """Identify a table whose rows are the positions of ``grid`` (row-major, last axis fastest).

    ``dtype`` overrides the precision assumed (as for 1-D identify).

    >>> identify_grid(np.zeros((200, 8)), (16, 16))
    Traceback (most recent call last):
    ...
    posproof.errors.InvalidParameter: grid=(16, 16) has 256 positions but the table has 200 rows
    """
    arr, dtname = _table(table, dtype)
    extra = leading_zero_rows(arr)
    sizes = _check_grid(grid, arr.shape[0], extra)
    if math.prod(sizes) == arr.shape[0]:
        return _identify_shape(arr, dtname, sizes, dtype is not None)
    found = _identify_shape(arr[extra:], dtname, sizes, dtype is not None)
    found.rows = arr.shape[0]
    found.notes.insert(0, _extra_note(extra))
    return found


def _assignments(cube: np.ndarray, noise: float) -> tuple[list[list[int]], str | None]:
    """Candidate axis assignments of the columns (one list of axes per candidate), or a
    reason why the grid does not explain the table."""
    k, dim = cube.ndim - 1, cube.shape[-1]
    corner = cube[tuple(slice(0, 8) for _ in range(k))]
    if corner.size < cube.size:     # a column varying along two axes on a corner of ≤ 8^k
        rejected = _assignments(corner, noise)[1]   # positions varies along both on all
        if rejected is not None and "more than one axis" in rejected:
            return [], rejected
    varies = np.zeros((k, dim), dtype=bool)
    for a in range(k):
        varies[a] = np.abs(np.diff(cube, axis=a)).reshape(-1, dim).max(axis=0) > noise
    several = np.flatnonzero(varies.sum(axis=0) > 1)
    if several.size:
        return [], (f"{several.size} column(s) (first: {int(several[0])}) vary along more "
                    "than one axis")
    owner = np.where(varies.any(axis=0), varies.argmax(axis=0), -1)
    assigned = np.flatnonzero(owner >= 0)
    if not assigned.size:
        return [], "no column varies along any axis"
    out: list[list[int]] = []
    for side in ("left", "right"):
        axes = owner.copy()
        for j in np.flatnonzero(owner < 0):
            left, right = assigned[assigned < j], assigned[assigned > j]
            pick = (left[-1] if left.size else right[0]) if side == "left" else (
                right[0] if right.size else left[-1])
            axes[j] = owner[pick]
        candidate = [int(a) for a in axes]
        if candidate not in out:
            out.append(candidate)
    missing = [a for a in range(k) if a not in out[0]]
    if missing:
        return [], f"no column varies along axis {missing[0]}"
    return out, None


def _identify_shape(arr: np.ndarray, dtname: str, sizes: tuple[int, ...],
                    fixed: bool, peak: float | None = None) -> MultiAxisIdentification:
    rows, dim = arr.shape
    k = len(sizes)
    names = axis_labels(k)
    result = MultiAxisIdentification(False, "", rows, dim, dtname, sizes)
    cube = arr.reshape(*sizes, dim)
    if peak is None:
        peak = float(np.abs(arr).max(initial=0.0))
    noise = TOLERANCE * dtype_eps(dtname) * max(1.0, peak)
    candidates, why = _assignments(cube, noise)
    if why is not None:
        result.summary = f"the {_shape_text(sizes)} grid does not explain the table: {why}"
        return result
    best: MultiAxisIdentification | None = None
    for owner in candidates:
        trial = _fit(arr, cube, dtname, sizes, owner, names, fixed)
        if trial.matched:
            return trial
        if best is None or (trial.score or math.inf) < (best.score or math.inf):
            best = trial
    return best or result


def _fit(arr: np.ndarray, cube: np.ndarray, dtname: str, sizes: tuple[int, ...],
         owner: list[int], names: tuple[str, ...], fixed: bool) -> MultiAxisIdentification:
    from ...model.multiaxis import MultiAxisEncoding

    rows, dim = arr.shape
    result = MultiAxisIdentification(False, "", rows, dim, dtname, sizes)
    for a, size in enumerate(sizes):
        cols = [j for j in range(dim) if owner[j] == a]
        index = tuple(slice(None) if b == a else 0 for b in range(len(sizes)))
        line = cube[index][:, cols]
        if dtname in ("float16", "float32", "float64"):
            line = line.astype(dtname)      # exact: the values came from that dtype
        try:
            found = identify_1d(line, dtype=dtname if fixed or dtname == "bfloat16" else None)
        except PosproofError as exc:
            found = Identification(False, f"matches no known schedule: {exc}", size,
                                   len(cols), dtname)
        result.axes.append(AxisIdentification(a, names[a], size, cols, found))
    failed = [a for a in result.axes if not a.found.matched]
    if failed:
        a = failed[0]
        result.summary = (f"matches no known schedule on the {_shape_text(sizes)} grid: the "
                          f"columns of the {a.name} axis ({ranges(a.columns)}): "
                          f"{a.found.summary}")
        return result
    scales = {a.found.scale for a in result.axes}
    if len(scales) > 1:
        result.summary = (f"matches no known schedule on the {_shape_text(sizes)} grid: the "
                          f"axes are scaled differently ({sorted(scales)})")
        return result
    result.scale = scales.pop()
    precisions = [a.found.precision for a in result.axes if a.found.precision]
    coarsest = max(precisions, key=dtype_eps) if precisions else None
    result.precision = coarsest if coarsest not in (None, dtname) else None
    enc = MultiAxisEncoding([(a.axis, a.found.encoding, tuple(a.columns)) for a in result.axes],
                            axis_names=names, name="identified")
    result.encoding = enc
    worst: list[Any] = []
    result.residual, result.score = _residual(arr, enc, sizes, result.precision or dtname,
                                              result.scale, worst)
    result.matched = result.score <= 1.0
    if result.matched:
        result.evidence = _match_evidence(arr, enc, sizes, result.scale, worst)
        audit_identification(result)
    _name(result, enc)
    return result


def _match_evidence(arr: np.ndarray, enc: Any, sizes: tuple[int, ...], scale: float,
                    worst: list[Any]) -> Any:
    """The entry nearest its tolerance, ``tolerance − |table − exact| > 0`` with the exact
    value scale·sin(ω·x_a) (cos) of the fitted block of its column at its axis position."""
    import sympy as sp

    from ...evidence import Evidence
    from ..core.audited import entry_sign

    row, col, bound = worst
    pos = enc.grid(sizes)[row]
    block = next(b for b in enc.blocks if col in b.columns)
    j = list(block.columns).index(col)
    x = int(pos[block.axis])
    func, w = block.encoding.column_funcs[j], block.encoding.column_frequency(j)
    exact = sp.Integer(0) if func == "zero" or w is None else sp.Rational(
        *float(scale).as_integer_ratio()) * (sp.sin if func == "sin" else sp.cos)(w * x)
    item = entry_sign(f"row {row} (position {tuple(int(v) for v in pos)}), dim {col}", exact,
                      float(arr[row, col]), bound, True)
    return Evidence("comparison of every grid row with the fitted encoding", "all",
                    items=[item], details={"check": "identify"})


def _residual(arr: np.ndarray, enc: Any, sizes: tuple[int, ...], prec: str,
              scale: float, worst: list[Any] | None = None) -> tuple[float, float]:
    """max |table − scale·fitted| and its largest ratio to the tolerance
    ``|scale|·16·eps·(1 + |x·ω|)`` of precision ``prec`` (angles formed in it): the
    1-D identify standard, ``Tolerance.of(prec, angles=prec, scale=scale)``; ``worst`` (a
    list) receives ``[row, column, tolerance]`` of the largest ratio."""
    pos = enc.grid(sizes)
    fitted = scale * enc.table(pos)
    diff = np.abs(arr.astype(np.float64) - fitted)
    allowed = np.empty_like(diff)
    eps = dtype_eps(prec)
    for block in enc.blocks:
        allowed[:, list(block.columns)] = abs(scale) * tolerance(
            eps, pos[:, block.axis], block.encoding.column_frequencies_float)
    ratio = diff / allowed
    if worst is not None and ratio.size:
        r, c = np.unravel_index(int(np.argmax(ratio)), ratio.shape)
        if ratio[r, c] == 0:          # every entry exact: the farthest row's column 0
            r, c = ratio.shape[0] - 1, 0
        worst[:] = [int(r), int(c), float(allowed[r, c])]
    return float(diff.max()), float(ratio.max())


def _shape_text(sizes: tuple[int, ...]) -> str:
    return " × ".join(map(str, sizes))


def _presets(dim: int, k: int, base: str) -> list[tuple[str, str, dict[str, str], Any]]:
    """(name, label, params, encoding) of the multi-axis presets of ``k`` axes at ``dim``."""
    from ...model.multiaxis import multi_preset

    specs = {2: [("sincos-2d", "MAE, column first", {"first": "column"}),
                 ("sincos-2d", "the transposed grid: MAE ported with meshgrid "
                  "indexing='ij', row first", {"first": "row"}),
                 ("pe-2d", "positional-encodings' PositionalEncoding2D", {})],
             3: [("pe-3d", "positional-encodings' PositionalEncoding3D", {})]}.get(k, [])
    out = []
    for name, label, params in specs:
        try:
            out.append((name, label, params, multi_preset(name, dim=dim, base=int(base),
                                                          **params)))
        except (PosproofError, ValueError):
            continue
    return out


def _same(a: Any, b: Any, sizes: tuple[int, ...]) -> bool:
    pos = a.grid(sizes)
    return bool(np.allclose(a.table(pos), b.table(pos), rtol=0, atol=1e-12))


def _name(result: MultiAxisIdentification, enc: Any) -> None:
    """Fill the summary, naming the preset (or axis-swapped preset) the fit equals."""
    sizes = result.grid
    parts = [f"columns {ranges(a.columns)} encode the {a.name}" if i == 0 else
             f"{ranges(a.columns)} the {a.name}"
             for i, a in enumerate(sorted(result.axes, key=lambda a: a.columns[0]))]
    where = f"on the {_shape_text(sizes)} grid: " + ", ".join(parts)
    verb = "matches" if result.matched else "matches no known schedule, closest"
    bases = {a.found.params.get("base") for a in result.axes}
    offsets = [a.found.offset for a in result.axes]
    same_family = (len(bases) == 1 and None not in bases
                   and all(a.found.family == "geometric" for a in result.axes))
    if same_family and not any(offsets):
        base = bases.pop()
        for name, label, params, preset in _presets(result.dim, len(sizes), base):
            shown = {**({"base": base} if base != "10000" else {}), **params}
            if _same(enc, preset, sizes):
                result.preset, result.preset_params = name, shown
                result.summary = f"{verb} {name} ({label}) {where}"
                _scaled(result)
                return
        for name, label, _params, preset in _presets(result.dim, len(sizes), base):
            for order in itertools.permutations(range(len(sizes))):
                if list(order) != sorted(order) and _same(enc, preset.swapped(order), sizes):
                    result.notes.append(
                        f"{name} ({label}) with its axes swapped: its blocks read axes "
                        f"{list(order)} instead of {sorted(order)} (a transposed grid)")
                    result.summary = f"{verb} {name} with swapped axes {where}"
                    _scaled(result)
                    return
    result.summary = f"{verb} a multi-axis encoding {where}" + (
        f"; axis offsets {offsets}" if any(offsets) else "")
    _scaled(result)


def _scaled(result: MultiAxisIdentification) -> None:
    if result.scale != 1.0:
        result.summary += f"; scaled by {result.scale:.8g}"
    if result.precision is not None:
        result.summary += f"; values carry {result.precision} precision (stored as " \
                          f"{result.dtype})"


def factorisations(rows: int, limit: int = MAX_FACTORISATIONS) -> list[tuple[int, ...]]:
    """Grid shapes of ``rows`` positions with 2 or 3 axes, every side ≥ 4: 2 axes first,
    the most square first; at most ``limit``.

    >>> factorisations(64)
    [(8, 8), (4, 16), (16, 4), (4, 4, 4)]
    """
    shapes: list[tuple[int, ...]] = []
    for k in (2, 3):
        found = [s for s in _products(rows, k) if min(s) >= MIN_SIDE]
        found.sort(key=lambda s: (max(s) / min(s), s))
        shapes += found
    return shapes[:limit]


def _products(rows: int, k: int) -> list[tuple[int, ...]]:
    if k == 1:
        return [(rows,)]
    return [(d, *rest) for d in range(MIN_SIDE, rows // MIN_SIDE + 1) if rows % d == 0
            for rest in _products(rows // d, k - 1)]


def identify_flat(table: Any, *, dtype: str | None = None) -> MultiAxisIdentification | None:
    """The grid that explains a flat table of H·W (or T·H·W) rows, or None.

    Tries :func:`factorisations` of the row count; the first whose fit regenerates the table
    is returned, its notes saying how many shapes were tried and why it was chosen.

    >>> from posproof.model.multiaxis import multi_preset
    >>> enc = multi_preset("pe-2d", dim=16)
    >>> found = identify_flat(enc.table(enc.grid((6, 10))))
    >>> found.grid, found.preset, found.notes[0]
    ((6, 10), 'pe-2d', '60 rows = 6 × 10: tried 6 grid shape(s) (2 and 3 axes, every side ≥ 4); this one is the first whose columns each vary along one axis and whose fit regenerates the table')
    """  # noqa: E501
    arr, dtname = _table(table, dtype)
    return search_grids(arr, dtname, fixed=dtype is not None)


def search_grids(arr: np.ndarray, dtname: str, *, fixed: bool = False
                 ) -> MultiAxisIdentification | None:
    """:func:`identify_flat` on a 2-d float array already read at precision ``dtname``
    (``fixed``: do not read a narrower working precision from the values)."""
    shapes = factorisations(arr.shape[0])
    peak = float(np.abs(arr).max(initial=0.0))
    for shape in shapes:
        found = _identify_shape(arr, dtname, shape, fixed, peak)
        if found.matched:
            found.notes.insert(0, f"{arr.shape[0]} rows = {_shape_text(shape)}: tried "
                               f"{len(shapes)} grid shape(s) (2 and 3 axes, every side ≥ "
                               f"{MIN_SIDE}); this one is the first whose columns each vary "
                               "along one axis and whose fit regenerates the table")
            return found
    extra = leading_zero_rows(arr)
    if extra and factorisations(arr.shape[0] - extra):
        found = search_grids(arr[extra:], dtname, fixed=fixed)
        if found is not None:
            found.rows = arr.shape[0]
            found.notes.insert(0, _extra_note(extra))
        return found
    return None
