"""The figure of a multi-axis encoding: the 2-D similarity map vision papers show.

For an encoding of grid positions p = (row, column) (or (t, row, column)), the map is
PE(c)·PE(p) for the centre patch c and every patch p of an H×W grid: by the offset-vector
dot-product theorem it is Σ_blocks Σ_k cos(ω_k (p_a − c_a)), a function of p − c only, so it
is symmetric about the centre and peaks there.  A multi-axis rotary is drawn through
:meth:`MultiAxisRotary.encoding() <posproof.model.multirope.MultiAxisRotary.encoding>`
(⟨R(c)u, R(p)u⟩ for u with unit pairs).  For a 3-axis grid the slice through the centre
frame is drawn.  matplotlib is imported lazily and the figure is reproducible byte for byte
(:mod:`posproof.document.figure_style`).

>>> from posproof import multi_preset
>>> sim, centre = similarity_map(multi_preset("sincos-2d", dim=16), (5, 7))
>>> sim.shape, centre, float(sim[2, 3]) == float(sim.max())
((5, 7), (2, 3), True)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import InvalidParameter
from ..measure.multiaxis import as_multi_encoding
from .figure_style import axes, colorbar, figure, style

__all__ = ["DEFAULT_GRID", "similarity_figure", "similarity_map"]

#: The grid drawn when none is given (ViT-B/16 on 224×224 images has 14×14 patches).
DEFAULT_GRID = (14, 14)


def similarity_map(subject: Any, grid: Sequence[int] = DEFAULT_GRID
                   ) -> tuple[np.ndarray, tuple[int, ...]]:
    """PE(c)·PE(p) over the grid (float64, from the table), and the centre index c.

    The grid has one size per axis; the map has the grid's shape.
    """
    enc = as_multi_encoding(subject)
    shape = tuple(int(s) for s in grid)
    if len(shape) != enc.axes:
        raise InvalidParameter(f"grid={shape} has {len(shape)} sizes but the encoding has "
                               f"{enc.axes} axes; give one size per axis")
    positions = enc.grid(shape)
    table = enc.table(positions)
    centre = tuple(s // 2 for s in shape)
    row = int(np.ravel_multi_index(centre, shape))
    return (table @ table[row]).reshape(shape), centre


def similarity_figure(subject: Any, grid: Sequence[int] = DEFAULT_GRID) -> Any:
    """The similarity map PE(centre)·PE(p) as an image over the last two grid axes.

    >>> from posproof import multi_preset
    >>> fig = similarity_figure(multi_preset("sincos-2d", dim=16), (6, 6))
    >>> fig.axes[0].get_xlabel()
    'column (last grid axis)'
    """
    enc = as_multi_encoding(subject)
    sim, centre = similarity_map(subject, grid)
    if sim.ndim == 1:
        sim, centre = sim[None, :], (0, *centre)
    while sim.ndim > 2:                       # (t, h, w): the frame through the centre
        sim, centre = sim[centre[0]], centre[1:]
    name = getattr(subject, "name", enc.name)
    with style():
        fig = figure(5.2, 4.6)
        ax, cax = axes(fig, colorbar=True, title_lines=2)
        # its own range (not ±max): M-RoPE's slow h/w pairs change little over a few patches
        image = ax.imshow(sim, cmap="viridis", interpolation="nearest")
        ax.plot([centre[1]], [centre[0]], marker="+", color="white", markersize=10)
        ax.set_xlabel("column (last grid axis)")
        ax.set_ylabel("row")
        size = "×".join(str(s) for s in grid)
        ax.set_title(f"similarity to the centre patch, PE(c)·PE(p)\n{name}, d={enc.dim}, "
                     f"grid {size}", fontsize=9)
        colorbar(fig, image, cax, "PE(c)·PE(p)")
    return fig
