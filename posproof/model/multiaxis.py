"""Multi-axis sinusoidal encodings: a position p = (p_1, …, p_k) such as (row, column).

The columns are divided into blocks; each block is a 1-D :class:`~posproof.model.encoding.Encoding`
(its own schedule, layout and offset) that reads one axis of p.  So, exactly,

    PE(p) = [ PE_1(p_{a_1}) | PE_2(p_{a_2}) | … ]       T(Δ) = T_1(Δ_{a_1}) ⊕ T_2(Δ_{a_2}) ⊕ …

where a_b is the axis block b reads (a block may also be spread over given columns, as an
axis of M-RoPE is over both halves of the head: then ⊕ is up to that placement); ``vector()`` is in the symbols x_1 … x_k and
``translation(delta)`` takes a vector Δ = (Δ_1, …, Δ_k).

Presets (:data:`MULTI_PRESETS`, :func:`multi_preset`):

* ``sincos-2d`` — MAE / ViT / DiT ``get_2d_sincos_pos_embed`` (facebookresearch/mae,
  ``util/pos_embed.py``): ``grid = np.meshgrid(grid_w, grid_h)  # here w goes first`` with the
  default ``indexing="xy"`` makes ``grid[0]`` the *column* index w, and
  ``get_2d_sincos_pos_embed_from_grid`` encodes ``grid[0]`` in the first half of the dims
  (the variable is called ``emb_h``), ``grid[1]`` (the row h) in the second.  Each half is
  ``[sin | cos]`` (split layout) with ω_k = 10000^(−k/(D/4)), i.e. Geometric(10000) over D/2.
  Rows of that table run over (h, w) row-major, so positions here are (row, column) and the
  first block reads axis 2 (the column).  facebookresearch/DiT ``models.py`` copies the same
  functions (omega formed in float64 there, float32 in MAE; ``cls_token`` / ``extra_tokens``
  prepend zero rows, not modelled here); ``first="row"`` is the transposed grid of a
  ``meshgrid(..., indexing="ij")`` port.
* ``pe-2d`` / ``pe-3d`` — the ``positional-encodings`` package's ``PositionalEncoding2D`` /
  ``PositionalEncoding3D`` (torch_encodings.py): per axis c = 2·ceil(channels/2k) columns,
  ``get_emb`` interleaves (sin, cos), inv_freq = 10000^(−2k/c); the x block first, then y
  (then z), the whole cut to ``channels`` columns (so for channels not a multiple of 2k the
  last axis keeps only its first columns, possibly a lone sine: no T(Δ) then); positions
  are (x, y[, z]) in the order of the tensor's axes.

>>> enc = multi_preset("sincos-2d", dim=8)
>>> enc.vector()
Matrix([[sin(x_2), sin(x_2/100), cos(x_2), cos(x_2/100), sin(x_1), sin(x_1/100), cos(x_1), cos(x_1/100)]])
>>> enc.table([[0, 1]]).round(3).tolist()
[[0.841, 0.01, 0.54, 1.0, 0.0, 0.0, 1.0, 1.0]]
"""  # noqa: E501

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np
import sympy as sp

from ..errors import InvalidEncoding, InvalidParameter, UnknownName, check_int
from .encoding import CONVENTIONS, Encoding, as_positions, as_symbolic, resolve_dtype
from .schedules import Geometric

__all__ = [
    "MULTI_PRESETS",
    "AxisBlock",
    "MultiAxisEncoding",
    "as_axis_positions",
    "axis_symbols",
    "divide_dim",
    "is_multi_preset",
    "multi_preset",
]

#: Largest number of axes accepted (video is 3; more is refused rather than guessed).
MAX_AXES = 8


def axis_symbols(k: int, name: str = "x") -> tuple[sp.Symbol, ...]:
    """The real symbols name_1 … name_k.

    >>> axis_symbols(2)
    (x_1, x_2)
    """
    return tuple(sp.Symbol(f"{name}_{i + 1}", real=True) for i in range(k))


def check_axes(k: Any) -> int:
    """A number of axes, 1 ≤ k ≤ :data:`MAX_AXES`."""
    return check_int("axes", k, minimum=1, maximum=MAX_AXES)


def as_axis_positions(name: str, positions: Any, k: int, *, rows_first: bool = True) -> np.ndarray:
    """``positions`` as float64 of shape ``(N, k)`` (``rows_first``) or ``(k, N)``.

    >>> as_axis_positions("positions", [[0, 1], [2, 3]], 2).shape
    (2, 2)
    >>> as_axis_positions("positions", [0, 1, 2], 2)
    Traceback (most recent call last):
    ...
    posproof.errors.InvalidParameter: positions has shape (3,); expected (N, 2): one row per token, one column per axis
    """  # noqa: E501
    flat = as_positions(name, positions)     # refuses text, ragged lists, non-finite values
    shape = np.shape(positions)
    want = "(N, {k}): one row per token, one column per axis" if rows_first else \
        "({k}, N): one row per axis, one column per token"
    good = len(shape) == 2 and shape[1 if rows_first else 0] == k
    if not good:
        raise InvalidParameter(f"{name} has shape {tuple(shape)}; expected {want.format(k=k)}")
    return flat.reshape(shape)


def divide_dim(dim: Any, k: int, what: str = "dim") -> int:
    """Columns per axis when ``dim`` is shared equally by k axes, each an even count.

    >>> divide_dim(768, 2)
    384
    >>> divide_dim(10, 2)
    Traceback (most recent call last):
    ...
    posproof.errors.InvalidEncoding: dim=10 cannot be divided among 2 axes with an even number of columns each (sin, cos pairs); use a multiple of 4
    """  # noqa: E501
    d = check_int(what, dim, minimum=1)
    if d % (2 * k):
        raise InvalidEncoding(f"{what}={d} cannot be divided among {k} axes with an even number "
                              f"of columns each (sin, cos pairs); use a multiple of {2 * k}")
    return d // k


class AxisBlock(NamedTuple):
    """Columns given by a 1-D ``encoding`` of coordinate ``axis`` (0-based); column j of the
    encoding is column ``columns[j]`` of the whole (consecutive unless given)."""

    axis: int
    encoding: Encoding
    columns: tuple[int, ...]


class MultiAxisEncoding:
    """PE: positions in R^k → R^dim, blocks of columns each a 1-D encoding of one axis.

    Parameters
    ----------
    blocks : sequence of (axis, Encoding) or (axis, Encoding, columns)
        In column order; ``axis`` is 0-based.  A block without ``columns`` takes the next
        consecutive columns; with them, its column j goes to ``columns[j]`` (M-RoPE's half
        layout spreads an axis over both halves).  The columns of all blocks must be
        0 … dim−1, each once.  Every axis 0 … k−1 needs at least one block, and the blocks of
        one axis must agree on its offset (the first grid position).
    axes : int, optional
        k; default the largest axis + 1.
    axis_names : sequence of str, optional
        Labels such as ``("row", "col")`` for reports.
    """

    def __init__(self, blocks: Sequence[tuple[int, Encoding]], *, axes: int | None = None,
                 axis_names: Sequence[str] | None = None, name: str = "multi-axis") -> None:
        if isinstance(blocks, (str, bytes)) or not isinstance(blocks, Sequence) or not blocks:
            raise InvalidEncoding("blocks must be a non-empty list of (axis, Encoding)")
        parsed: list[AxisBlock] = []
        start = 0
        for b, block in enumerate(blocks):
            if not (isinstance(block, tuple) and len(block) in (2, 3)
                    and isinstance(block[1], Encoding)):
                raise InvalidEncoding(f"blocks[{b}]={block!r} is not (axis, Encoding) or "
                                      "(axis, Encoding, columns)")
            width = block[1].dim
            cols = tuple(range(start, start + width)) if len(block) == 2 else tuple(
                check_int(f"blocks[{b}] column", c, minimum=0) for c in block[2])
            if len(cols) != width:
                raise InvalidEncoding(f"blocks[{b}] has {len(cols)} columns for an encoding of "
                                      f"dim {width}")
            start += width
            parsed.append(AxisBlock(check_int(f"blocks[{b}] axis", block[0], minimum=0,
                                              maximum=MAX_AXES - 1), block[1], cols))
        placed = sorted(c for block in parsed for c in block.columns)
        if placed != list(range(start)):
            raise InvalidEncoding(f"the blocks' columns are not 0 … {start - 1} each once; give "
                                  "every block its own columns")
        k = check_axes(max(b.axis for b in parsed) + 1 if axes is None else axes)
        offsets: dict[int, int] = {}
        for b, block in enumerate(parsed):
            if block.axis >= k:
                raise InvalidEncoding(f"blocks[{b}] reads axis {block.axis}, but there are only "
                                      f"{k} axes (0 … {k - 1})")
            first = offsets.setdefault(block.axis, block.encoding.offset)
            if first != block.encoding.offset:
                raise InvalidEncoding(f"axis {block.axis} has offsets {first} and "
                                      f"{block.encoding.offset} in two blocks; use one offset "
                                      "per axis")
        missing = [a for a in range(k) if a not in offsets]
        if missing:
            raise InvalidEncoding(f"axes {missing} have no columns; give every axis a block "
                                  "(or use fewer axes)")
        names = tuple(f"x_{a + 1}" for a in range(k)) if axis_names is None else tuple(axis_names)
        if len(names) != k or not all(isinstance(n, str) and n for n in names):
            raise InvalidParameter(f"axis_names={axis_names!r} must be {k} non-empty strings")
        self.blocks: tuple[AxisBlock, ...] = tuple(parsed)
        self.axes = k
        self.axis_names = names
        self.offsets = tuple(offsets[a] for a in range(k))
        self.name = name
        self.dim = sum(b.encoding.dim for b in self.blocks)

    # ------------------------------------------------------------------ structure
    @property
    def block_columns(self) -> list[tuple[int, ...]]:
        """The columns of each block, in order.

        >>> [list(r) for r in multi_preset("pe-2d", dim=8).block_columns]
        [[0, 1, 2, 3], [4, 5, 6, 7]]
        """
        return [block.columns for block in self.blocks]

    def axis_columns(self, axis: int) -> list[int]:
        """The columns that depend on ``axis`` (0-based).

        >>> multi_preset("sincos-2d", dim=8).axis_columns(1)
        [0, 1, 2, 3]
        """
        axis = check_int("axis", axis, minimum=0, maximum=self.axes - 1)
        return sorted(j for block in self.blocks if block.axis == axis for j in block.columns)

    def broken_pairs(self) -> list[str]:
        """Reasons why no block-diagonal T(Δ) exists (empty when every block is sound)."""
        out = []
        for b, block in enumerate(self.blocks):
            out += [f"block {b} (axis {block.axis}): {p}" for p in block.encoding.broken_pairs()]
        return out

    def swapped(self, order: Sequence[int]) -> MultiAxisEncoding:
        """The same blocks reading axis ``order[a]`` where they read axis a (a broken copy:
        ``swapped((1, 0))`` is the transposed grid).

        >>> multi_preset("sincos-2d", dim=8).swapped((1, 0)).axis_columns(0)
        [0, 1, 2, 3]
        """
        perm = [check_int("order", a, minimum=0, maximum=self.axes - 1) for a in order]
        if sorted(perm) != list(range(self.axes)):
            raise InvalidParameter(f"order={list(order)} is not a permutation of "
                                   f"0 … {self.axes - 1}")
        return MultiAxisEncoding([(perm[b.axis], b.encoding, b.columns) for b in self.blocks],
                                 axes=self.axes, axis_names=self.axis_names,
                                 name=f"{self.name} (axes {perm})")

    # ------------------------------------------------------------------ exact objects
    def _axis_values(self, name: str, values: Any, default: Sequence[Any]) -> list[sp.Expr]:
        if values is None:
            values = default
        if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
            raise InvalidParameter(f"{name}={values!r} is not a sequence of {self.axes} values "
                                   "(one per axis)")
        if len(values) != self.axes:
            raise InvalidParameter(f"{name} has {len(values)} values; expected {self.axes} "
                                   "(one per axis)")
        return [as_symbolic(f"{name}[{a}]", v) for a, v in enumerate(values)]

    def vector(self, xs: Sequence[Any] | None = None) -> sp.ImmutableMatrix:
        """The exact row vector PE(x_1, …, x_k), shape ``(1, dim)``."""
        xs = self._axis_values("xs", xs, axis_symbols(self.axes))
        entries: list[sp.Expr] = [sp.Integer(0)] * self.dim
        for block in self.blocks:
            for j, value in zip(block.columns, block.encoding.vector(xs[block.axis]),
                                strict=True):
                entries[j] = value
        return sp.ImmutableMatrix(1, self.dim, entries)

    def translation_entries(self, delta: Sequence[Any] | None = None,
                            convention: str = "row") -> dict[tuple[int, int], sp.Expr]:
        """Non-zero entries ``{(i, j): expr}`` of T(Δ); see :meth:`translation`."""
        if convention not in CONVENTIONS:
            raise UnknownName(f"convention={convention!r} is not known; use 'row' or 'column'")
        deltas = self._axis_values("delta", delta, axis_symbols(self.axes, "delta"))
        out: dict[tuple[int, int], sp.Expr] = {}
        for block in self.blocks:
            entries = block.encoding.translation_entries(deltas[block.axis], convention)
            cols = block.columns
            out.update({(cols[i], cols[j]): v for (i, j), v in entries.items()})
        return out

    def translation(self, delta: Sequence[Any] | None = None,
                    convention: str = "row") -> sp.ImmutableSparseMatrix:
        """The exact T(Δ) = ⊕ over blocks of T_b(Δ_{a_b}), shape ``(dim, dim)``.

        Row convention: PE(p + Δ) = PE(p)·T(Δ); column convention: the transpose.
        ``delta`` defaults to the symbols delta_1 … delta_k.

        >>> enc = multi_preset("pe-2d", dim=4)
        >>> (enc.vector() * enc.translation()).subs({sp.Symbol("delta_1", real=True): 2,
        ...     sp.Symbol("delta_2", real=True): 3}).applyfunc(sp.expand_trig)  \\
        ...     == enc.vector([sp.Symbol("x_1", real=True) + 2, sp.Symbol("x_2", real=True) + 3]
        ...     ).applyfunc(sp.expand_trig)
        True
        """
        return sp.ImmutableSparseMatrix(self.dim, self.dim,
                                        self.translation_entries(delta, convention))

    # ------------------------------------------------------------------ numbers
    def grid(self, shape: Sequence[int]) -> np.ndarray:
        """Positions of a grid, shape ``(prod(shape), k)``, row-major (the last axis fastest),
        axis a running offset_a … offset_a + shape[a] − 1.

        >>> multi_preset("pe-2d", dim=4).grid((2, 3)).tolist()
        [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]]
        """
        if isinstance(shape, (str, bytes)) or not isinstance(shape, Sequence) \
                or len(shape) != self.axes:
            raise InvalidParameter(f"grid={shape!r} must give {self.axes} sizes (one per axis)")
        sizes = [check_int(f"grid[{a}]", s, minimum=1, maximum=10**6) for a, s in enumerate(shape)]
        if int(np.prod(sizes, dtype=np.int64)) > 10**8:
            raise InvalidParameter(f"grid={tuple(sizes)} has more than 10^8 positions")
        axes = [np.arange(o, o + s, dtype=np.int64) for o, s in zip(self.offsets, sizes,
                                                                     strict=True)]
        return np.stack(np.meshgrid(*axes, indexing="ij"), -1).reshape(-1, self.axes)

    def table(self, positions: Any, dtype: Any = np.float64) -> np.ndarray:
        """The numeric table, shape ``(N, dim)``, for positions of shape ``(N, k)``.

        Angles are formed in float64 per block (as :meth:`Encoding.table`), then rounded to
        ``dtype``.
        """
        resolved = resolve_dtype(dtype)
        pos = as_axis_positions("positions", positions, self.axes)
        out = np.zeros((pos.shape[0], self.dim))
        for block in self.blocks:
            out[:, list(block.columns)] = block.encoding.table(pos[:, block.axis])
        return out.astype(resolved)

    # ------------------------------------------------------------------ description
    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready description: the axes and each block's 1-D encoding."""
        return {"name": self.name, "kind": "multi-axis", "dim": self.dim, "axes": self.axes,
                "axis_names": list(self.axis_names),
                "blocks": [{"axis": b.axis, "columns": list(b.columns), **b.encoding.to_dict()}
                           for b in self.blocks]}

    def __repr__(self) -> str:
        parts = ", ".join(f"{self.axis_names[b.axis]}:{b.encoding.layout.name}"
                          f"[{b.columns[0]}…{b.columns[-1]}]" for b in self.blocks)
        return f"MultiAxisEncoding({self.name}, dim={self.dim}, axes={self.axes}, {parts})"


# ---------------------------------------------------------------------- presets
def _sincos_2d(dim: int, base: Any = 10000, layout: str = "split",
               first: str = "column") -> MultiAxisEncoding:
    """MAE's ``get_2d_sincos_pos_embed``: first half the column w, second half the row h."""
    if first not in ("column", "row"):
        raise UnknownName(f"first={first!r} is not known; use 'column' (MAE's meshgrid "
                          "'xy' order) or 'row' (meshgrid indexing='ij')")
    half = divide_dim(dim, 2)
    order = (1, 0) if first == "column" else (0, 1)
    return MultiAxisEncoding([(a, Encoding(Geometric(base), layout, half)) for a in order],
                             axis_names=("row", "col"), name="sincos-2d")


def _positional_encodings(k: int) -> Callable[..., MultiAxisEncoding]:
    names = ("x", "y", "z")[:k]

    def factory(dim: int, base: Any = 10000, layout: str = "interleaved") -> MultiAxisEncoding:
        # The package gives every axis c = 2·ceil(channels/2k) columns and keeps the first
        # ``channels`` of the k·c: the last axes may keep only their first columns.
        channels = check_int("dim (channels)", dim, minimum=1, maximum=1 << 16)
        c = 2 * -(-channels // (2 * k))
        if channels <= (k - 1) * c:
            raise InvalidEncoding(f"dim (channels)={channels} leaves axis {names[-1]} no column "
                                  f"(each axis gets {c}); use at least {(k - 1) * c + 1}")
        full = Encoding(Geometric(base), layout, c)
        blocks: list[tuple[int, Encoding]] = []
        for a in range(k):
            width = min(c, channels - a * c)
            if width == c:
                blocks.append((a, full))
            else:    # a cut axis: its first columns, a lone sine when the cut splits a pair
                cols = [(f, full.column_frequency(j)) for j, f in
                        enumerate(full.column_funcs[:width])]
                blocks.append((a, Encoding.from_columns(cols, layout=layout, name=f"{names[a]} "
                                                        f"(cut to {width} of {c} columns)")))
        return MultiAxisEncoding(blocks, axis_names=names, name=f"pe-{k}d")
    factory.__doc__ = f"positional-encodings' PositionalEncoding{k}D: blocks {', '.join(names)}."
    return factory


MULTI_PRESETS: dict[str, Callable[..., MultiAxisEncoding]] = {
    "sincos-2d": _sincos_2d,
    "pe-2d": _positional_encodings(2),
    "pe-3d": _positional_encodings(3),
}

_ALIASES = {"mae": "sincos-2d", "vit-2d": "sincos-2d", "dit": "sincos-2d",
            "positional-encodings-2d": "pe-2d", "positional-encodings-3d": "pe-3d"}


def is_multi_preset(name: Any) -> bool:
    """Whether ``name`` (or an alias) is a multi-axis sinusoidal preset.

    >>> is_multi_preset("MAE"), is_multi_preset("vaswani")
    (True, False)
    """
    key = str(name).lower()
    return _ALIASES.get(key, key) in MULTI_PRESETS


def multi_preset(name: str, /, dim: int = 768, **params: Any) -> MultiAxisEncoding:
    """A named multi-axis encoding; ``params`` are the preset's own (``base=``, ``layout=`` …).

    >>> multi_preset("pe-3d", dim=12).axis_names
    ('x', 'y', 'z')
    >>> multi_preset("pe-3d", dim=4)
    Traceback (most recent call last):
    ...
    posproof.errors.InvalidEncoding: dim (channels)=4 leaves axis z no column (each axis gets 2); use at least 5
    >>> multi_preset("sincos-2d", dim=6)
    Traceback (most recent call last):
    ...
    posproof.errors.InvalidEncoding: dim=6 cannot be divided among 2 axes with an even number of columns each (sin, cos pairs); use a multiple of 4
    """  # noqa: E501
    import inspect

    key = _ALIASES.get(str(name).lower(), str(name).lower())
    try:
        factory = MULTI_PRESETS[key]
    except KeyError:
        raise UnknownName(f"preset={name!r} is not a multi-axis preset; use one of "
                          f"{', '.join(sorted(MULTI_PRESETS))}") from None
    allowed = [p for p in inspect.signature(factory).parameters if p != "dim"]
    for param, value in params.items():
        if param not in allowed:
            raise InvalidParameter(f"preset {key!r} does not take {param}={value!r}; "
                                   f"it takes {', '.join(allowed)}")
    return factory(dim, **params)
