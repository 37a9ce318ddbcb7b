"""Numbers over a grid of positions (H × W, T × H × W) for a multi-axis encoding: the offset
kernel for vector offsets, and the grid checks ``bounds``, ``separation``,
``translation_residual`` and ``dtype_audit``.

**The reduction.**  A :class:`~posproof.model.multiaxis.MultiAxisEncoding` is blocks of
1-D encodings, block b reading axis a_b.  Its row is the concatenation of the blocks'
rows, so for positions p, q (k coordinates each)

    PE(p)·PE(q) = Σ_b f_b(p_{a_b} − q_{a_b}) = Σ_a F_a(Δ_a),   F_a = Σ_{b : a_b = a} f_b,

with f_b(δ) = Σ_{ω ∈ b} cos(ω δ) the 1-D kernel of block b.  **Blocks that share an
axis are merged first**: they see the same Δ_a, so their kernels add at the same
offset (F_a is the 1-D kernel of all the axis's frequencies together); minimising each
block separately and adding the minima would be wrong.  Then

    ‖PE(p) − PE(q)‖² = Σ_a D_a(Δ_a),   D_a(δ) = 2(n_a − F_a(δ)) ≥ 0,   D_a(0) = 0,

and over a grid of sizes N_1 … N_k (|Δ_a| ≤ N_a − 1, D_a even in δ):

    min_{Δ ≠ 0} Σ_a D_a(Δ_a) = min_a min_{1 ≤ δ ≤ N_a − 1} D_a(δ).

(≥: some Δ_a ≠ 0 and every term is ≥ 0; ≤: Δ = δ·e_a attains it.)  So the separation
of N_1·…·N_k positions costs k one-dimensional kernel scans, O(Σ_a N_a · n_a), never
O(grid²); each scan is :meth:`OffsetKernel.maximum <posproof.measure.kernel.OffsetKernel.maximum>`
(float64 GEMM with a rigorous error bound, candidates recomputed in mpmath), and the
smallest of the k certified minima (compared in mpmath) is the grid's.  A multi-axis
rotary is measured through :meth:`MultiAxisRotary.encoding
<posproof.model.multirope.MultiAxisRotary.encoding>`, whose T(Δ) is R(Δ): the same
reduction gives ⟨R(p)q, R(p′)k⟩ per pair.

>>> from posproof.model.multiaxis import multi_preset
>>> report = check_grid(multi_preset("sincos-2d", dim=16), (8, 8), checks=["separation"])
>>> report["separation"].status, report["separation"].values["positions"]
('pass', 64)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import mpmath
import numpy as np
import sympy as sp

from ..errors import InvalidEncoding, InvalidParameter, UnknownName, check_int, check_sequence
from ..evidence import Evidence, Sign, Spot
from ..model.multiaxis import MultiAxisEncoding
from ..model.multirope import MultiAxisRotary
from ..precise import DEFAULT_DPS
from ..report import Check, Report
from .checks_context import AUDIT_DTYPES, fmt, g, inconsistent, not_applicable
from .checks_kernel import extreme_spot, gap_item
from .dtypes import TRIG_ULPS, U, angles_in_dtype, dtype_model, first_unrepresentable_integer
from .kernel import Extreme, OffsetKernel
from .scan_limits import check_scan_work
from .translation import pair_frequencies, rotate_pairs, translation_blocks, translation_residual

__all__ = [
    "GRID_CHECKS",
    "MAX_GRID_VALUES",
    "GridKernel",
    "GridSeparation",
    "as_multi_encoding",
    "check_grid",
    "check_grid_shape",
]

GRID_CHECKS = ("bounds", "separation", "translation_residual", "dtype_audit")
#: Largest table accepted over a grid: positions × dim ≤ 2²⁸ values (2 GiB of float64).
MAX_GRID_VALUES = 1 << 28
_SAMPLE = 512
#: Grids of at most this many positions have every row measured by ``bounds`` (else a
#: sample, labelled as such).
ALL_ROWS = 4096


def as_multi_encoding(encoding: Any) -> MultiAxisEncoding:
    """The MultiAxisEncoding measured for ``encoding`` (a rotary's :meth:`encoding`)."""
    if isinstance(encoding, MultiAxisRotary):
        return encoding.encoding()
    if isinstance(encoding, MultiAxisEncoding):
        return encoding
    raise InvalidParameter(f"encoding={encoding!r} is not a MultiAxisEncoding or a "
                           "MultiAxisRotary; build one with posproof.multi_preset()")


def check_grid_shape(encoding: Any, grid: Any) -> tuple[int, ...]:
    """Validate ``grid`` (one size per axis) for ``encoding``: the table it describes must
    hold at most :data:`MAX_GRID_VALUES` numbers.

    >>> from posproof.model.multiaxis import multi_preset
    >>> check_grid_shape(multi_preset("sincos-2d", dim=768), (4096, 4096))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    posproof.errors.InvalidParameter: grid=(4096, 4096) at dim=768 is a table of ...
    """
    enc = as_multi_encoding(encoding)
    if isinstance(grid, (str, bytes)) or not isinstance(grid, Sequence) or len(grid) != enc.axes:
        raise InvalidParameter(f"grid={grid!r} must give {enc.axes} sizes, one per axis of "
                               f"{enc.name}")
    sizes = tuple(check_int(f"grid[{a}]", s, minimum=1) for a, s in enumerate(grid))
    values = math.prod(sizes) * enc.dim
    if values > MAX_GRID_VALUES:
        raise InvalidParameter(f"grid={sizes} at dim={enc.dim} is a table of {values} values; "
                               f"at most {MAX_GRID_VALUES} (2 GiB of float64) are accepted: "
                               "use a smaller grid")
    for a, n in enumerate(sizes):
        check_scan_work(f"grid[{a}]", n, enc.dim)
    return sizes


@dataclass
class GridSeparation:
    """The certified minimum distance between two different positions of a grid.

    ``axis`` and ``delta`` locate it (positions differing by ``delta`` along ``axis`` only);
    ``per_axis`` holds each axis's certified :class:`~posproof.measure.kernel.Extreme`
    (``None`` for an axis of size 1).
    """

    axis: int
    delta: int
    distance: float
    distance_bound: float
    distance_mp: mpmath.mpf
    per_axis: list[Extreme | None]

    @property
    def consistent(self) -> bool:
        return all(e is None or e.consistent for e in self.per_axis)


class GridKernel:
    """PE(p)·PE(q) = Σ_a F_a(p_a − q_a): one 1-D :class:`OffsetKernel` per axis, holding the
    frequencies of every block of that axis (blocks sharing an axis merged).

    >>> from posproof.model.multiaxis import multi_preset
    >>> enc = multi_preset("pe-2d", dim=8)
    >>> kern = GridKernel(enc)
    >>> rows = enc.table([[0, 0], [2, 5]])
    >>> bool(abs(kern([[2, 5]])[0] - rows[0] @ rows[1]) < 1e-12)
    True
    """

    def __init__(self, encoding: Any) -> None:
        enc = as_multi_encoding(encoding)
        self.encoding = enc
        problems = enc.broken_pairs()
        if problems:
            raise InvalidEncoding(f"{enc.name}: the dot-product theorem needs (sin, cos) pairs "
                                  f"of one frequency, and {problems[0]}")
        self.kernels = []
        for a in range(enc.axes):
            freqs = [w for b in enc.blocks if b.axis == a for w in pair_frequencies(b.encoding)]
            self.kernels.append(OffsetKernel(freqs))
        self.n = sum(k.n for k in self.kernels)

    def __call__(self, deltas: Any) -> np.ndarray:
        """Σ_a F_a(Δ_a) for integer offsets of shape (M, k): the dot products."""
        d = np.asarray(deltas, dtype=np.int64)
        if d.ndim != 2 or d.shape[1] != len(self.kernels):
            raise InvalidParameter(f"deltas has shape {d.shape}; expected (M, "
                                   f"{len(self.kernels)}): one offset per axis")
        return sum(k(d[:, a]) for a, k in enumerate(self.kernels))

    def call_bound(self, deltas: Any) -> float:
        """Error bound of :meth:`__call__` on ``deltas`` (the sum of the axes' bounds)."""
        d = np.abs(np.asarray(deltas, dtype=np.int64)).reshape(-1, len(self.kernels))
        return sum(k.call_bound(int(d[:, a].max(initial=0))) for a, k in enumerate(self.kernels))

    def separation(self, grid: Sequence[int], *, dps: int = DEFAULT_DPS) -> GridSeparation | None:
        """The certified min over two different grid positions of ‖PE(p) − PE(q)‖ (module
        docstring: min over axes of each axis's certified 1-D minimum); ``None`` for one
        position."""
        per_axis: list[Extreme | None] = []
        for kern, size in zip(self.kernels, grid, strict=True):
            per_axis.append(kern.maximum(1, size, dps=dps) if size >= 2 else None)
        found = [(e.distance_mp, a) for a, e in enumerate(per_axis) if e is not None]
        if not found:
            return None
        with mpmath.workdps(dps):
            _, axis = min(found)
        best = per_axis[axis]
        assert best is not None
        return GridSeparation(axis, best.delta, best.distance, best.distance_bound,
                              best.distance_mp, per_axis)


# --------------------------------------------------------------------------- checks
def _sample(sizes: Sequence[int], seed: int) -> np.ndarray:
    """Row-major indices of every grid position (at most :data:`ALL_ROWS`), else of the first,
    last and up to 512 random ones."""
    total = math.prod(sizes)
    if total <= ALL_ROWS:
        return np.arange(total)
    rng = np.random.default_rng(seed)
    picks = [np.arange(min(total, 64)), np.arange(max(total - 64, 0), total)]
    if total > 128:
        picks.append(rng.integers(0, total, _SAMPLE))
    return np.unique(np.concatenate(picks))


def _positions(enc: MultiAxisEncoding, sizes: Sequence[int], index: np.ndarray) -> np.ndarray:
    return np.stack(np.unravel_index(index, tuple(sizes)), -1) + np.asarray(enc.offsets)


def _entry_error(enc: MultiAxisEncoding, pos: np.ndarray) -> np.ndarray:
    """Per entry, a rigorous bound on |float64 table − exact|: 2.01u|xω| + t."""
    out = np.zeros((pos.shape[0], enc.dim))
    for b in enc.blocks:
        freq = np.abs(b.encoding.column_frequencies_float)
        out[:, list(b.columns)] = (2.01 * U * np.abs(pos[:, [b.axis]]) * freq
                                   + TRIG_ULPS * U)
    return out


def _exact(value: float) -> sp.Rational:
    """A float64 number as the exact rational it is."""
    return sp.Rational(*float(value).as_integer_ratio())


def _entry_expr(enc: MultiAxisEncoding, j: int, x: int) -> sp.Expr | None:
    """The exact entry PE(x)[j] of column j (its block's sin/cos of ω·x_axis); None for a
    padding column."""
    for b in enc.blocks:
        cols = list(b.columns)
        if j in cols:
            e, jl = b.encoding, cols.index(j)
            func = e.column_funcs[jl]
            if func == "zero" or (e.padding_idx is not None and x == e.padding_idx):
                return None
            return (sp.sin if func == "sin" else sp.cos)(e.frequencies[e.column_freq_index[jl]]
                                                        * x)
    return None  # pragma: no cover - every column is in a block


def _exceeds(label: str, quantity: sp.Expr, limit: float) -> Sign:
    """A Sign: |quantity| − limit > 0 (what a fail rests on)."""
    return Sign(label, sp.Abs(quantity) - _exact(limit), "positive")


def _within(label: str, quantity: sp.Expr, limit: float) -> Spot:
    """A Spot: |quantity − 0| ≤ limit (what a pass rests on)."""
    return Spot(label, quantity, 0.0, float(limit))


def _bounds_evidence(ctx: _Grid, err: np.ndarray, sq: np.ndarray, tol: np.ndarray,
                     n: int | None, ok: bool) -> Evidence:
    """The worst row's quantities, exact: the entry farthest beyond (or nearest to) 1, the
    norm deviation ‖PE(p)‖² − n, and (the model's own table) the entry with the widest error
    bound against its exact sin/cos."""
    enc, pos, rows = ctx.enc, ctx.sample_pos, ctx.sample_rows
    items: list[Sign | Spot] = []
    over = np.abs(rows) - 1 - err
    i, j = np.unravel_index(int(np.argmax(over)), over.shape)
    at = f"p = {pos[i].tolist()}, column {int(j)}"
    entry = _exact(rows[i, j])
    if over[i, j] > 0:
        items.append(_exceeds(f"|PE[{at}]| − (1 + its rounding bound)", entry,
                              1 + err[i, j]))
    else:
        items.append(_within(f"PE[{at}] within 1 + its rounding bound", entry,
                             1 + err[i, j]))
    if n is not None:
        dev = np.abs(sq - n) - tol
        w = int(np.argmax(dev))
        row = pos[w].tolist()
        norm = sp.Add(*[_exact(v) ** 2 for v in rows[w]]) - n
        if dev[w] > 0:
            items.append(_exceeds(f"|‖PE({row})‖² − {n}| − tolerance", norm, tol[w]))
        else:
            items.append(_within(f"‖PE({row})‖² − {n} (exact sum of the row's squares)", norm,
                                 tol[w]))
    if ok and ctx.user_table is None:
        w = int(np.argmax(sq - sq.min())) if n is None else int(np.argmax(np.abs(sq - n)))
        j = int(np.argmax(err[w]))
        exact = _entry_expr(enc, j, int(pos[w][next(b.axis for b in enc.blocks
                                                      if j in b.columns)]))
        if exact is not None:
            items.append(Spot(f"PE({pos[w].tolist()})[{j}] (the widest error bound of the "
                              "worst row)", exact, float(rows[w, j]), float(err[w, j])))
    total = math.prod(ctx.sizes)
    covered = int(rows.shape[0])
    return Evidence("float64 grid rows with a rigorous tolerance",
                    "sample" if covered < total else "all", items, {"unit": "grid rows"},
                    covered=covered, total=total)


def _bounds(ctx: _Grid) -> Check:
    enc, pos, rows = ctx.enc, ctx.sample_pos, ctx.sample_rows
    err = _entry_error(enc, pos) + ctx.table_unit
    sq = (rows * rows).sum(axis=1)
    gamma = enc.dim * U / (1 - enc.dim * U)
    tol = (2 * err + err * err).sum(axis=1) + gamma * (enc.dim + 2 * err.sum(axis=1))
    n = sum(b.encoding.n_pairs for b in enc.blocks) if not enc.broken_pairs() else None
    max_abs = float(np.abs(rows).max())
    over = float((np.abs(rows) - 1 - err).max())
    values: dict[str, Any] = {"rows": int(rows.shape[0]), "max_abs_entry": max_abs,
                              "norm_expected": None if n is None else math.sqrt(n)}
    note = None
    ok = over <= 0
    if not ok:
        note = f"max |PE_i| = {max_abs!r} > 1 beyond rounding"
    if n is not None:
        dev = np.abs(sq - n)
        worst = int(np.argmax(dev - tol))
        values.update(max_norm_squared_deviation=float(dev.max()),
                      tolerance_norm_squared=float(tol.max()))
        if dev[worst] > tol[worst]:
            ok = False
            note = (f"‖PE(p)‖² = {g(float(sq[worst]))} ≠ {n} beyond rounding "
                    f"({g(float(tol[worst]))}) at p = {pos[worst].tolist()}")
    total = math.prod(ctx.sizes)
    values["summary"] = (f"max|PE_i| = {g(max_abs)}" + ("" if n is None else
                         f", ‖PE‖² = {n} within {g(float(np.abs(sq - n).max()))}")
                         + (f" on all {total} grid rows" if rows.shape[0] == total else
                            f" on {rows.shape[0]} of {total} grid rows (sampled)"))
    certified = ("float64 rows (" + ("every grid position" if rows.shape[0] == total else
                                     "first, last and random grid positions")
                 + "); tolerance per entry 2.01u|xω| + t (plus the table dtype's rounding), "
                 "summed rigorously for ‖PE‖²")
    return Check("bounds", "pass" if ok else "fail", values, certified, note,
                 evidence=_bounds_evidence(ctx, err, sq, tol, n, ok))


def _separation(ctx: _Grid) -> Check:
    if ctx.kernel is None:
        return not_applicable("separation", ctx.no_kernel)
    sep = ctx.kernel.separation(ctx.sizes, dps=ctx.dps)
    values: dict[str, Any] = {"grid": list(ctx.sizes), "positions": math.prod(ctx.sizes)}
    if sep is None:
        values["summary"] = "one position: nothing to separate"
        return Check("separation", "pass", values, "nothing to compare", evidence=Evidence(
            "exhaustive comparison", details={"positions": 1},
            unaudited="one position: no two positions to compare"))
    name = ctx.enc.axis_names[sep.axis]
    values.update(min_distance=sep.distance, min_distance_mp=fmt(sep.distance_mp),
                  distance_bound=sep.distance_bound, axis=sep.axis, at_offset=sep.delta,
                  per_axis_min_distance_mp=[None if e is None else fmt(e.distance_mp)
                                            for e in sep.per_axis],
                  summary=(f"min ‖PE(p)−PE(q)‖ = {g(float(sep.distance_mp))} at Δ = {sep.delta} "
                           f"along {name} over {math.prod(ctx.sizes)} positions"))
    certified = ("min over axes of each axis's kernel minimum (‖PE(p)−PE(q)‖² = Σ_a D_a(Δ_a), "
                 "blocks of one axis merged): float64 GEMM kernel per axis with its error "
                 f"bound, candidates recomputed in mpmath at {ctx.dps} digits, O(Σ N_a·d)")
    # per axis, the float64 scan value at the closest offset within its bound and the sign
    # that decided the gap there (as the 1-D separation check)
    items: list[Sign | Spot] = []
    for a, e in enumerate(sep.per_axis):
        if e is not None:
            kern = ctx.kernel.kernels[a]
            items += [extreme_spot(kern, e), *gap_item(kern, e)]
    evidence = Evidence("certified scan per axis", "all", items,
                        {"axes": [None if e is None else {"bound": e.bound,
                                                          "candidates": e.candidates}
                                  for e in sep.per_axis]})
    if not sep.consistent:
        return Check("separation", "fail", values, certified, inconsistent("an axis kernel"),
                     evidence=evidence)
    if ctx.user_table is not None:
        dup = _duplicate_rows(ctx.user_table)
        certified += "; the given table: exact duplicate rows searched (sort, O(N log N · d))"
        if dup is not None:
            p, q = (_positions(ctx.enc, ctx.sizes, np.array([i]))[0].tolist() for i in dup)
            values["summary"] = f"the table repeats a row: positions {p} and {q}"
            return Check("separation", "fail", values, certified,
                         f"the table's rows at grid positions {p} and {q} are equal; the "
                         "specification separates them", evidence=Evidence(
                             "exact comparison of the given table's rows", "all",
                             details={"rows": [p, q]},
                             unaudited=f"the rows at {p} and {q} are equal as float64 numbers "
                             "(an exact comparison, no rounding to re-check)"))
    undecided = [a for a, e in enumerate(sep.per_axis)
                 if e is not None and (e.collision is None or not e.consistent)]
    if undecided and sep.distance_mp != 0:
        values["summary"] = f"the closest positions along axes {undecided} are not decided"
        return Check("separation", "unknown", values, certified,
                     f"unknown: whether positions collide along axes {undecided} was not "
                     "decided by a certified sign (see the axis kernels' notes)",
                     evidence=evidence)
    if sep.distance_mp == 0:
        values["summary"] = f"positions collide: Δ = {sep.delta} along {name}"
        return Check("separation", "fail", values, certified,
                     f"positions differing by {sep.delta} along {name} have the same encoding "
                     f"(distance 0 in mpmath at {ctx.dps} digits); use a smaller grid or "
                     "another schedule", evidence=evidence)
    return Check("separation", "pass", values, certified, evidence=evidence)


def _duplicate_rows(table: np.ndarray) -> tuple[int, int] | None:
    """Row indices (i < j) of two equal rows, or None."""
    _, first, inverse = np.unique(table, axis=0, return_index=True, return_inverse=True)
    inverse = inverse.reshape(-1)
    if first.size == table.shape[0]:
        return None
    j = int(np.flatnonzero(first[inverse] != np.arange(table.shape[0]))[0])
    return int(first[inverse[j]]), j


def translation_pairs(seed: int, sizes: Sequence[int], count: int = 8
                      ) -> tuple[np.ndarray, np.ndarray]:
    """``count`` random grid positions and their shifted ends (seeded), every axis of size
    ≥ 2 moved by at least one of them: an axis never moved would never be judged.

    >>> s, e = translation_pairs(0, (2, 2, 16))
    >>> bool(((e - s) != 0).any(axis=0).all())
    True
    """
    rng = np.random.default_rng(seed + 1)
    hi = np.asarray(sizes)
    ends = rng.integers(hi // 2, hi, (count, len(sizes)))
    starts = rng.integers(0, ends + 1)
    for a, n in enumerate(sizes):
        if n >= 2 and not (ends[:, a] != starts[:, a]).any():
            starts[0, a], ends[0, a] = 0, n - 1
    return starts, ends


def _translation(ctx: _Grid) -> Check:
    enc, sizes = ctx.enc, ctx.sizes
    problems = enc.broken_pairs()
    if problems:
        return not_applicable("translation_residual", "; ".join(problems[:2]))
    if math.prod(sizes) < 2:
        return Check("translation_residual", "pass", {"pairs": 0, "summary": "one position"},
                     "nothing to compare", evidence=Evidence(
                         "exhaustive comparison", details={"pairs": 0},
                         unaudited="one position: no offset Δ ≠ 0 to translate by"))
    starts, ends = translation_pairs(ctx.seed, sizes)
    base = starts + np.asarray(enc.offsets)
    delta = ends - starts
    flat = [np.ravel_multi_index(tuple(x.T), tuple(sizes)) for x in (starts, ends)]
    if ctx.user_table is not None:
        rows0, rows1 = ctx.user_table[flat[0]], ctx.user_table[flat[1]]
    else:
        rows0, rows1 = enc.table(base), enc.table(base + delta)
    res = np.zeros_like(rows0)
    tol = np.zeros_like(rows0)
    for b in enc.blocks:
        cols = list(b.columns)
        a = b.axis
        for i in range(rows0.shape[0]):
            s, c = translation_blocks(b.encoding, float(delta[i, a]))
            res[i, cols] = np.abs(rows1[i, cols] - rotate_pairs(b.encoding, rows0[i, cols], s, c))
        _, tol_b = translation_residual(b.encoding, base[:, a], delta[:, a])
        tol[:, cols] = tol_b + 4 * ctx.table_unit
    i, j = np.unravel_index(int(np.argmax(res - tol)), res.shape)
    values = {"pairs": int(rows0.shape[0]), "max_residual": float(res.max()),
              "max_residual_over_tolerance": float((res / tol).max()),
              "summary": (f"max |PE(p+Δ) − PE(p)·T(Δ)| = {g(float(res.max()))} "
                          f"({g(float((res / tol).max()))} of tolerance) at {rows0.shape[0]} "
                          "random pairs of grid positions")}
    certified = ("rows at random grid positions p, p+Δ; T(Δ) = ⊕ over blocks of the 1-D "
                 "T(Δ_a) applied pair by pair; per-column tolerance 4u(|(x+Δ)ω| + 2|xω| + "
                 "2|Δω|) + 16t (plus 4 units of the table dtype)")
    failed = bool(res[i, j] > tol[i, j])
    quantity = _residual_expr(enc, rows0[i], rows1[i], int(j), int(delta[i, next(
        b.axis for b in enc.blocks if int(j) in b.columns)]))
    at = f"p = {base[i].tolist()}, Δ = {delta[i].tolist()}, column {int(j)}"
    item = (_exceeds(f"|PE(p+Δ) − PE(p)·T(Δ)| − tolerance at {at} (T(Δ) exact)", quantity,
                     tol[i, j]) if failed else
            _within(f"PE(p+Δ) − PE(p)·T(Δ) at {at} (T(Δ) exact; the entry nearest its "
                    "tolerance)", quantity, tol[i, j]))
    total = math.prod(n * (n + 1) // 2 for n in sizes)
    evidence = Evidence("float64 rows and T(Δ) with a rigorous per-entry tolerance", "sample",
                        [item], {"unit": "pairs (p, p+Δ)"},
                        covered=int(rows0.shape[0]), total=total)
    if failed:
        axis = next(b.axis for b in enc.blocks if int(j) in b.columns)
        return Check("translation_residual", "fail", values, certified,
                     f"PE(p+Δ) ≠ PE(p)·T(Δ) at p = {base[i].tolist()}, Δ = {delta[i].tolist()}, "
                     f"column {int(j)} (axis {enc.axis_names[axis]}): residual "
                     f"{float(res[i, j]):.3g} > {float(tol[i, j]):.3g}; are the axes or a "
                     "block's layout different from the specification?", evidence=evidence)
    return Check("translation_residual", "pass", values, certified, evidence=evidence)


def _residual_expr(enc: MultiAxisEncoding, row0: np.ndarray, row1: np.ndarray, j: int,
                   delta: int) -> sp.Expr:
    """(PE(p+Δ) − PE(p)·T(Δ))[j] with the rows' float64 numbers exact and T(Δ) exact: the
    pair's rotation by ω·Δ (as :func:`~posproof.measure.translation.rotate_pairs`)."""
    for b in enc.blocks:
        cols = list(b.columns)
        if j not in cols:
            continue
        e, jl = b.encoding, cols.index(j)
        for s_col, c_col in e.pairs:
            if jl in (s_col, c_col):
                w = e.frequencies[e.column_freq_index[s_col]] * delta
                rs, rc = _exact(row0[cols[s_col]]), _exact(row0[cols[c_col]])
                moved = rs * sp.cos(w) + rc * sp.sin(w) if jl == s_col else \
                    rc * sp.cos(w) - rs * sp.sin(w)
                return _exact(row1[j]) - moved
        return _exact(row1[j]) - _exact(row0[j])          # a column outside the pairs
    raise AssertionError(f"column {j} in no block")  # pragma: no cover


def _dtype_audit(ctx: _Grid) -> Check:
    enc, sizes = ctx.enc, ctx.sizes
    last = [o + s - 1 for o, s in zip(enc.offsets, sizes, strict=True)]
    values: dict[str, Any] = {}
    lines, notes = [], []
    for dtype in ctx.dtypes:
        model = dtype_model(dtype)
        unit = first_unrepresentable_integer(dtype)
        phase = []
        collisions: dict[str, list[int]] = {}
        for a in range(enc.axes):
            cols = enc.axis_columns(a)
            omega = np.array([abs(float(w)) for b in enc.blocks if b.axis == a
                              for w in b.encoding.column_frequencies_float])
            exact = last[a] * omega
            with np.errstate(invalid="ignore", over="ignore"):
                err = np.abs(angles_in_dtype([float(last[a])], omega, dtype)[0] - exact)
            phase.append(float(np.nan_to_num(err, nan=np.inf).max()))
            along = np.zeros((sizes[a], enc.axes), dtype=np.int64) + np.asarray(enc.offsets)
            along[:, a] += np.arange(sizes[a])
            dup = _duplicate_rows(model.round(enc.table(along)[:, cols]))
            if dup is not None:
                collisions[enc.axis_names[a]] = [int(along[d, a]) for d in dup]
        values[dtype] = {"implementation": model.implementation,
                         "first_unrepresentable_position": unit,
                         "phase_error_at_last_position_rad": phase,
                         "colliding_positions": collisions}
        lines.append(f"{dtype}: phase error ≤ {g(max(phase))} rad"
                     + (f", collisions {collisions}" if collisions else ", rows distinct"))
        if collisions:
            ax, (p, q) = next(iter(collisions.items()))
            notes.append(f"in {dtype}, grid positions {p} and {q} along {ax} get the same "
                         "row: the grid is not separated in that dtype")
        if max(last) >= unit:
            notes.append(f"{dtype} cannot hold the position {unit}")
    values["summary"] = "; ".join(lines)
    certified = ("per axis, the rows along that axis rounded to each dtype, searched for exact "
                 "duplicates (two grid rows are equal iff some axis repeats: O(Σ N_a·d)); "
                 "phase error of x·ω formed in the dtype at the last position, float64 "
                 "(within 3u|xω|)")
    return Check("dtype_audit", "fail" if notes else "pass", values, certified,
                 "; ".join(notes) or None, evidence=Evidence(
                     "rows rounded to each dtype, compared exactly", "all",
                     details={"dtypes": list(ctx.dtypes)},
                     unaudited="the verdict rests on exact comparisons of rows rounded by "
                     "NumPy to each dtype and on the largest representable integer; the "
                     "phase errors are reported, not judged"))


class _Grid:
    """What the grid checks share."""

    def __init__(self, enc: MultiAxisEncoding, sizes: tuple[int, ...], table: np.ndarray | None,
                 dps: int, seed: int, dtypes: tuple[str, ...], table_unit: float = 0.0) -> None:
        self.enc, self.sizes, self.dps, self.seed, self.dtypes = enc, sizes, dps, seed, dtypes
        self.user_table = table
        #: the unit roundoff of a given table's dtype when coarser than float64, else 0
        self.table_unit = table_unit
        self.kernel: GridKernel | None = None
        self.no_kernel = ""
        try:
            self.kernel = GridKernel(enc)
        except InvalidEncoding as exc:
            self.no_kernel = str(exc)
        index = _sample(sizes, seed)
        self.sample_pos = _positions(enc, sizes, index)
        self.sample_rows = enc.table(self.sample_pos) if table is None else table[index]


_RUNNERS = {"bounds": _bounds, "separation": _separation,
            "translation_residual": _translation, "dtype_audit": _dtype_audit}


def check_grid(encoding: Any, grid: Sequence[int], *, table: Any = None,
               checks: Sequence[str] | None = None, dps: int = DEFAULT_DPS, seed: int = 0,
               dtypes: Sequence[str] | None = None) -> Report:
    """Measure a multi-axis encoding (or rotary) on the grid of sizes ``grid`` (one per axis,
    positions row-major, last axis fastest, from each axis's offset).

    ``checks`` picks some of :data:`GRID_CHECKS`; ``table`` (optional, shape
    (prod(grid), dim), rows in grid order) is a table to check against the specification
    instead of the model's own (bounds and translation residual on its rows, duplicate rows
    under separation); ``dtypes`` are audited by ``dtype_audit`` (float32, float16,
    bfloat16 by default), which fails when a dtype makes two grid positions collide.

    >>> from posproof.model.multiaxis import multi_preset
    >>> enc = multi_preset("pe-2d", dim=8)
    >>> check_grid(enc, (4, 4), checks=["translation_residual"]).ok
    True
    >>> bad = enc.table(enc.grid((4, 4)))
    >>> bad[5] = bad[6]
    >>> check_grid(enc, (4, 4), table=bad, checks=["separation"]).ok
    False
    """
    enc = as_multi_encoding(encoding)
    sizes = check_grid_shape(enc, grid)
    dps = check_int("dps", dps, minimum=50, maximum=1000)
    seed = check_int("seed", seed, minimum=0)
    names = list(GRID_CHECKS) if checks is None else list(dict.fromkeys(
        check_sequence("checks", checks, strings=True)))
    for name in names:
        if name not in GRID_CHECKS:
            raise UnknownName(f"check={name!r} is not a grid check; use one of "
                              f"{', '.join(GRID_CHECKS)}")
    audit = tuple(dict.fromkeys(dtype_model(t).name
                                for t in (AUDIT_DTYPES if dtypes is None else dtypes)))
    user, table_unit = None, 0.0
    if table is not None:
        arr = np.asarray(table)
        if arr.shape != (math.prod(sizes), enc.dim) or arr.dtype.kind not in "fiu":
            raise InvalidParameter(f"table has shape {arr.shape}; expected "
                                   f"({math.prod(sizes)}, {enc.dim}): one row per grid "
                                   "position (row-major), one column per dimension")
        unit = float(np.finfo(arr.dtype).eps) if arr.dtype.kind == "f" else 0.0
        user = arr.astype(np.float64)
        table_unit = unit if unit > 2 * U else 0.0
    ctx = _Grid(enc, sizes, user, dps, seed, audit, table_unit)
    out = [_RUNNERS[name](ctx) for name in names]
    return Report({**enc.to_dict(), "grid": list(sizes)}, [], out)
