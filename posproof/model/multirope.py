"""Multi-axis rotary embeddings: axial RoPE and multimodal RoPE (M-RoPE).

A position is p = (p_1, …, p_k), e.g. (t, h, w).  Each frequency pair k of the head has
a frequency θ_k and an axis a_k, and is turned by p_{a_k}·θ_k; the channels of pair k are
those of :class:`~posproof.model.rope.Rotary` (adjacent (2k, 2k+1) or half (k, k + r/2)).
So R(p) = ⊕ over pairs of the 2×2 rotation by p_{a_k}θ_k, which is, after grouping the
channels by axis, the block-diagonal ⊕ over axes of 1-D rotaries R_a(p_a)
(:meth:`MultiAxisRotary.axis_rotary`).

Presets (:func:`mrope`, :func:`axial_rope`, :func:`multi_rotary`):

* ``mrope`` — Qwen2-VL / Qwen2.5-VL (HF ``Qwen2VLRotaryEmbedding``): θ_k = base^(−2k/h) over
  the h/2 pairs of the head, split into consecutive ``mrope_section`` runs (e.g. [16, 24, 24]:
  pairs 0–15 read t, 16–39 h, 40–63 w; ``recomposition_frequencies`` takes run i from axis
  i % 3), half layout (``rotate_half``).  ``interleaved=True`` is Qwen3-VL's assignment:
  pair k reads h when k % 3 = 1 and k < 3·s_h, w when k % 3 = 2 and k < 3·s_w, t otherwise.
* ``axial-rope`` — FLUX (``axes_dims_rope = (16, 56, 56)``): axis a has its own rotary of
  dim d_a, θ = theta^(−2j/d_a), concatenated pair by pair, adjacent layout; ``layout="half"``
  is the half-layout variant (e.g. Qwen2-VL's vision tower: [freqs_h | freqs_w] then
  ``rotate_half``).

>>> rot = mrope(10000, 8, [2, 1, 1])
>>> rot.pair_axes
(0, 0, 1, 2)
>>> rot.rotation()[0, 0], rot.rotation()[2, 2]
(cos(m_1), cos(m_2/100))
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from typing import Any

import numpy as np
import sympy as sp

from ..errors import InvalidEncoding, InvalidParameter, PosproofError, UnknownName, check_int
from .encoding import as_positions
from .multiaxis import MultiAxisEncoding, as_axis_positions, axis_symbols, check_axes
from .rope import Rotary, get_rotary_layout
from .schedules import Explicit, Geometric

__all__ = ["MULTI_ROTARIES", "MultiAxisRotary", "axial_rope", "mrope", "mrope_axes",
           "mrope_from_config", "multi_rotary"]


class MultiAxisRotary:
    """A rotary embedding whose pair k turns by p_{a_k}·θ_k.

    Parameters
    ----------
    frequencies : sequence
        θ_0 … θ_{n−1}, exact (numbers or SymPy expressions), one per rotated pair.
    pair_axes : sequence of int
        a_0 … a_{n−1}, the axis (0-based) each pair reads.
    head_dim : int
        Channels of the head (≥ 2n; channels 2n … head_dim−1 pass through).
    layout : str
        ``"half"`` or ``"adjacent"``, over all 2n rotated channels.
    axes : int, optional
        k; default max(pair_axes) + 1.  Every axis needs at least one pair.
    """

    def __init__(self, frequencies: Sequence[Any], pair_axes: Sequence[int], head_dim: int, *,
                 layout: str = "half", axes: int | None = None, name: str = "multi-rope",
                 axis_names: Sequence[str] | None = None) -> None:
        if isinstance(pair_axes, (str, bytes)) or not isinstance(pair_axes, Sequence):
            raise InvalidParameter(f"pair_axes={pair_axes!r} is not a list of axis indices")
        freqs = tuple(frequencies) if isinstance(frequencies, Sequence) else frequencies
        if not isinstance(freqs, tuple) or len(freqs) != len(pair_axes):
            raise InvalidEncoding(f"{len(pair_axes)} pair axes for "
                                  f"{len(freqs) if isinstance(freqs, tuple) else '?'} "
                                  "frequencies; give one axis per frequency pair")
        self.pair_axes = tuple(check_int(f"pair_axes[{i}]", a, minimum=0, maximum=7)
                               for i, a in enumerate(pair_axes))
        k = check_axes(max(self.pair_axes, default=0) + 1 if axes is None else axes)
        missing = [a for a in range(k) if a not in self.pair_axes]
        if missing or max(self.pair_axes, default=0) >= k:
            raise InvalidEncoding(f"pair_axes name axes {sorted(set(self.pair_axes))} but "
                                  f"there are {k} axes; every axis 0 … {k - 1} needs a pair")
        self.axes = k
        self.axis_names = (tuple(f"m_{a + 1}" for a in range(k)) if axis_names is None
                           else tuple(axis_names))
        if len(self.axis_names) != k:
            raise InvalidParameter(f"axis_names={axis_names!r} must be {k} names")
        #: The 1-D rotary with these frequencies: its channels, pairs and rotation code.
        self.rotary = Rotary(Explicit(freqs), head_dim, rotary_dim=2 * len(freqs),
                             layout=layout, name=name)
        self.name = name

    # ------------------------------------------------------------------ structure
    @property
    def head_dim(self) -> int:
        return self.rotary.head_dim

    @property
    def layout(self) -> str:
        return self.rotary.layout

    @property
    def frequencies(self) -> tuple[sp.Expr, ...]:
        return self.rotary.frequencies

    @property
    def n_pairs(self) -> int:
        return self.rotary.n_pairs

    @property
    def pairs(self) -> list[tuple[int, int]]:
        """Channels (i, j) of each pair, as :attr:`Rotary.pairs`."""
        return self.rotary.pairs

    def axis_pairs(self, axis: int) -> list[int]:
        """The pair indices that read ``axis``.

        >>> mrope(10000, 8, [2, 1, 1]).axis_pairs(0)
        [0, 1]
        """
        axis = check_int("axis", axis, minimum=0, maximum=self.axes - 1)
        return [k for k, a in enumerate(self.pair_axes) if a == axis]

    def axis_channels(self, axis: int) -> list[int]:
        """The channels that ``axis`` rotates, in the order of :meth:`axis_rotary`'s channels.

        >>> mrope(10000, 8, [2, 1, 1]).axis_channels(0)
        [0, 1, 4, 5]
        """
        pairs = [self.pairs[k] for k in self.axis_pairs(axis)]
        if self.layout == "half":
            return [i for i, _ in pairs] + [j for _, j in pairs]
        return [c for pair in pairs for c in pair]

    def axis_rotary(self, axis: int) -> Rotary:
        """The 1-D rotary of one axis: its frequencies, on :meth:`axis_channels` (same layout).

        R(p) restricted to those channels is ``axis_rotary(a).rotation(p_a)``.
        """
        freqs = [self.frequencies[k] for k in self.axis_pairs(axis)]
        return Rotary(Explicit(freqs), 2 * len(freqs), layout=self.layout,
                      name=f"{self.name}[{self.axis_names[axis]}]")

    def encoding(self) -> MultiAxisEncoding:
        """The multi-axis sinusoidal encoding whose row-convention T(Δ) is R(Δ) on the rotated
        channels: per axis :meth:`Rotary.encoding` of :meth:`axis_rotary`, placed on
        :meth:`axis_channels`.

        >>> rot = mrope(100, 8, [2, 1, 1])
        >>> rot.encoding().translation(axis_symbols(3, "m")) == rot.rotation()
        True
        """
        return MultiAxisEncoding([(a, self.axis_rotary(a).encoding(), self.axis_channels(a))
                                  for a in range(self.axes)], axes=self.axes,
                                 axis_names=self.axis_names, name=self.name)

    @cached_property
    def frequencies_float(self) -> np.ndarray:
        return self.rotary.frequencies_float

    def with_axes(self, pair_axes: Sequence[int], name: str | None = None) -> MultiAxisRotary:
        """The same frequencies and channels with another axis per pair (e.g. a misread
        ``mrope_section``)."""
        return MultiAxisRotary(self.frequencies, pair_axes, self.head_dim, layout=self.layout,
                               axes=self.axes, name=name or self.name,
                               axis_names=self.axis_names)

    # ------------------------------------------------------------------ exact objects
    def rotation_entries(self, m: Sequence[Any] | None = None) -> dict[tuple[int, int], sp.Expr]:
        """Non-zero entries of R(p); see :meth:`rotation`."""
        ms = axis_symbols(self.axes, "m") if m is None else m
        if isinstance(ms, (str, bytes)) or not isinstance(ms, Sequence) or len(ms) != self.axes:
            raise InvalidParameter(f"m={m!r} must give {self.axes} positions (one per axis)")
        return self.rotary.rotation_entries_at([ms[a] for a in self.pair_axes])

    def rotation_entry(self, m: Sequence[Any], row: int, col: int) -> sp.Expr:
        """The exact entry ``(row, col)`` of R(p), one pair's only (``m``: a position per axis).

        >>> mrope(10000, 4, [1, 1]).rotation_entry([1, 0], 2, 0)
        sin(1)
        """
        for k, (i, j) in enumerate(self.rotary.pairs):
            if row in (i, j) and col in (i, j):
                w, at = self.rotary.frequencies[k], m[self.pair_axes[k]]
                return self.rotary.rotation_entries_at_pair(at, w, (i, j))[(row, col)]
        return sp.Integer(1 if row == col else 0)

    def rotation(self, m: Sequence[Any] | None = None) -> sp.ImmutableSparseMatrix:
        """The exact R(p), shape ``(head_dim, head_dim)``, on column vectors; ``m`` defaults
        to the symbols m_1 … m_k.

        >>> rot = mrope(10000, 8, [2, 1, 1])
        >>> rot.rotation([5, 5, 5]) == Rotary(Geometric(10000), 8).rotation(5)
        True
        """
        return sp.ImmutableSparseMatrix(self.head_dim, self.head_dim, self.rotation_entries(m))

    # ------------------------------------------------------------------ numbers
    def angles(self, positions: Any) -> np.ndarray:
        """p_{a_k}·θ_k in float64 for positions of shape ``(k, L)``; shape ``(L, n_pairs)``."""
        pos = as_axis_positions("positions", positions, self.axes, rows_first=False)
        return pos[list(self.pair_axes)].T * self.frequencies_float

    def apply(self, x: Any, positions: Any) -> np.ndarray:
        """Rotate ``x`` of shape ``(..., L, head_dim)`` at positions of shape ``(k, L)``
        (HF's ``position_ids`` for M-RoPE: one row per axis), float64.

        >>> rot = mrope(10000, 4, [1, 1])
        >>> rot.apply(np.array([[1.0, 0.0, 0.0, 1.0]]), [[1], [0]]).round(4)
        array([[0.5403, 0.    , 0.8415, 1.    ]])
        """
        angles = self.angles(positions)
        try:
            x = as_positions("x", x).reshape(np.shape(x))
        except InvalidParameter as exc:
            raise InvalidParameter(f"x is not an array of finite real numbers ({exc}); pass an "
                                   f"array of shape (..., L, {self.head_dim})") from None
        if x.ndim < 2 or x.shape[-1] != self.head_dim or x.shape[-2] != angles.shape[0]:
            raise InvalidParameter(
                f"x has shape {x.shape}; expected (..., {angles.shape[0]}, {self.head_dim}) for "
                f"{angles.shape[0]} positions and head_dim={self.head_dim}")
        return self.rotary.rotate(x, angles)

    # ------------------------------------------------------------------ description
    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready description: head dim, layout and each pair's axis and frequency."""
        return {"name": self.name, "kind": "multi-axis rotary", "head_dim": self.head_dim,
                "layout": self.layout, "axes": self.axes, "axis_names": list(self.axis_names),
                "pair_axes": list(self.pair_axes),
                "frequencies": [str(f) for f in self.frequencies]}

    def __repr__(self) -> str:
        counts = [len(self.axis_pairs(a)) for a in range(self.axes)]
        return (f"MultiAxisRotary({self.name}, head_dim={self.head_dim}, layout={self.layout}, "
                f"pairs per axis={counts})")


def _sections(name: str, values: Any) -> list[int]:
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence) or not values:
        raise InvalidParameter(f"{name}={values!r} is not a list of pair counts such as "
                               "[16, 24, 24]")
    return [check_int(f"{name}[{i}]", v, minimum=1) for i, v in enumerate(values)]


def mrope_axes(sections: Sequence[int], n_pairs: int, *, interleaved: bool = False) -> list[int]:
    """The axis of each of the ``n_pairs`` frequency pairs under ``mrope_section``.

    >>> mrope_axes([2, 1, 1], 4)
    [0, 0, 1, 2]
    >>> mrope_axes([2, 1, 1], 4, interleaved=True)
    [0, 1, 2, 0]
    >>> mrope_axes([16, 24, 20], 64)
    Traceback (most recent call last):
    ...
    posproof.errors.InvalidEncoding: mrope_section=[16, 24, 20] sums to 60, but head_dim/2 = 64 frequency pairs must be divided; use sections summing to 64
    """  # noqa: E501
    secs = _sections("mrope_section", sections)
    if sum(secs) != n_pairs:
        raise InvalidEncoding(f"mrope_section={secs} sums to {sum(secs)}, but head_dim/2 = "
                              f"{n_pairs} frequency pairs must be divided; use sections summing "
                              f"to {n_pairs}")
    if not interleaved:
        return [a for a, s in enumerate(secs) for _ in range(s)]
    k = len(secs)
    axes = [0] * n_pairs
    for a in range(1, k):
        picked = range(a, k * secs[a], k)
        if picked and picked[-1] >= n_pairs:
            raise InvalidEncoding(f"mrope_section={secs} with mrope_interleaved: axis {a} would "
                                  f"take pair {picked[-1]} of {n_pairs}; use smaller sections")
        for p in picked:
            axes[p] = a
    return axes


def mrope(base: Any = 1000000, head_dim: int = 128, mrope_section: Sequence[int] = (16, 24, 24),
          *, interleaved: bool = False, layout: str = "half") -> MultiAxisRotary:
    """Qwen2-VL M-RoPE (``interleaved=True``: Qwen3-VL), θ_k = base^(−2k/head_dim).

    >>> mrope(1e6, 128, [16, 24, 24]).axis_pairs(1)[:3]
    [16, 17, 18]
    """
    head_dim = check_int("head_dim", head_dim, minimum=2, maximum=1 << 16)
    if head_dim % 2:
        raise InvalidEncoding(f"head_dim={head_dim} is odd; M-RoPE rotates head_dim/2 pairs")
    axes = mrope_axes(mrope_section, head_dim // 2, interleaved=interleaved)
    freqs = Geometric(base).frequencies(head_dim)
    names = ("t", "h", "w") if len(mrope_section) == 3 else None
    return MultiAxisRotary(freqs, axes, head_dim, layout=layout, axes=len(mrope_section),
                           name="mrope-interleaved" if interleaved else "mrope",
                           axis_names=names)


def axial_rope(axes_dims: Sequence[int] = (16, 56, 56), theta: Any = 10000, *,
               layout: str = "adjacent") -> MultiAxisRotary:
    """Axial RoPE (FLUX): axis a rotates its own d_a channels with θ = theta^(−2j/d_a).

    >>> axial_rope((2, 4)).frequencies
    (1, 1, 1/100)
    >>> axial_rope((3, 4))
    Traceback (most recent call last):
    ...
    posproof.errors.InvalidEncoding: axes_dims[0]=3 is odd; each axis rotates pairs of channels, so every axis dim must be even
    """  # noqa: E501
    dims = _sections("axes_dims", axes_dims)
    for a, d in enumerate(dims):
        if d % 2:
            raise InvalidEncoding(f"axes_dims[{a}]={d} is odd; each axis rotates pairs of "
                                  "channels, so every axis dim must be even")
    freqs = [f for d in dims for f in Geometric(theta).frequencies(d)]
    axes = [a for a, d in enumerate(dims) for _ in range(d // 2)]
    return MultiAxisRotary(freqs, axes, sum(dims), layout=get_rotary_layout(layout),
                           name="axial-rope" if get_rotary_layout(layout) == "adjacent"
                           else "axial-rope-half")


def mrope_from_config(config: Any) -> MultiAxisRotary:
    """The M-RoPE of a :class:`~posproof.model.configs.RopeConfig` with ``mrope_section``
    (what :meth:`RopeConfig.multi_rotary <posproof.model.configs.RopeConfig.multi_rotary>`
    returns): θ_k = rope_theta^(−2k/rotary_dim), the config's layout."""
    if config.mrope_section is None:
        raise InvalidParameter(f"{config.source}: no mrope_section; this config is a 1-D RoPE "
                               "(use rotary())")
    try:
        axes = mrope_axes(config.mrope_section, config.rotary_dim // 2,
                          interleaved=config.mrope_interleaved)
        k = len(config.mrope_section)
        return MultiAxisRotary(Geometric(config.rope_theta).frequencies(config.rotary_dim), axes,
                               config.head_dim, layout=config.layout, axes=k, name=config.label,
                               axis_names=("t", "h", "w") if k == 3 else None)
    except PosproofError as exc:
        raise type(exc)(f"{config.source}: {exc}") from None


MULTI_ROTARIES = {"mrope": mrope, "axial-rope": axial_rope}


def multi_rotary(name: str, /, **params: Any) -> MultiAxisRotary:
    """A named multi-axis rotary: ``"mrope"`` or ``"axial-rope"`` with that function's
    parameters.

    >>> multi_rotary("mrope", head_dim=8, mrope_section=[1, 1, 2]).pair_axes
    (0, 1, 2, 2)
    """
    try:
        factory = MULTI_ROTARIES[str(name).lower()]
    except KeyError:
        raise UnknownName(f"rotary={name!r} is not a multi-axis rotary; use one of "
                          f"{', '.join(MULTI_ROTARIES)}") from None
    import inspect

    allowed = list(inspect.signature(factory).parameters)
    for param, value in params.items():
        if param not in allowed:
            raise InvalidParameter(f"{name!r} does not take {param}={value!r}; it takes "
                                   f"{', '.join(allowed)}")
    return factory(**params)
