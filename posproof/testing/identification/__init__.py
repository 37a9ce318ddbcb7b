"""Identify an unknown sinusoidal table: 1-D, or over a grid of positions (2-D / 3-D).

:func:`identify` is the entry point: a 1-D table is identified by
:mod:`posproof.testing.identification.table` (layout, schedule, parameters,
offset, padding, precision, scale: the method is described there); a table
over a grid (``grid=(H, W)``, or a flat table no 1-D schedule explains) by
:mod:`posproof.testing.identification.grid`.  The 1-D names
(:class:`Identification`, ``TOLERANCE``, :func:`ranges`, …) are re-exported
here, where they have always been importable from.

>>> table = posproof.preset("tensor2tensor", dim=64).table(200, dtype="float32")
>>> found = identify(table)
>>> found.matched, found.preset, found.layout, found.params
(True, 'tensor2tensor', 'split', {'min_timescale': '1', 'max_timescale': '10000'})
>>> identify(np.random.default_rng(0).normal(size=(200, 64))).summary
'matches no known schedule: no pairing of the columns gives (sin, cos) pairs (sin² + cos² = 1)'
"""

from __future__ import annotations

from typing import Any

from ..core.arrays import phasors as phasors
from ..core.arrays import tolerance as tolerance
from .grid import (
    MultiAxisIdentification,
    factorisations,
    identify_grid,
    search_grids,
)
from .table import (
    TOLERANCE,
    Identification,
    as_array,
    dtype_eps,
    identify_1d,
    identify_read,
    ranges,
    read_table,
)

__all__ = [
    "TOLERANCE",
    "Identification",
    "MultiAxisIdentification",
    "as_array",
    "dtype_eps",
    "identify",
    "identify_1d",
    "ranges",
]


def identify(table: Any, *, dtype: str | None = None, grid: Any = None
             ) -> Identification | MultiAxisIdentification:
    """Identify the schedule, layout, parameters and offset that produced ``table``.

    ``grid=(H, W)`` or ``(T, H, W)``: the rows are the positions of that grid in
    row-major order (MAE's 2-D sin-cos table, a flattened ``PositionalEncoding2D``);
    the answer is a :class:`~posproof.testing.identification.grid.MultiAxisIdentification`
    naming which columns encode which axis.  Without ``grid``, a table that no 1-D
    schedule explains is tried on the factorisations of its row count
    (:func:`~posproof.testing.identification.grid.identify_flat`); the
    1-D answer stands when none explains it either.

    ``table`` has shape ``(n_positions, dim)`` with rows at consecutive integer
    positions (row 0 at the offset found); NumPy, PyTorch and JAX arrays are
    accepted.  ``dtype`` overrides the precision assumed for the noise level
    (default: the array's own dtype, or the narrower working precision read
    from the values — a float32 table stored as float64 — which the summary
    then names; a constant scale is read from the values either way).

    >>> enc = posproof.preset("vaswani", dim=16, base=500000, offset=3)
    >>> found = identify(enc.table(128))
    >>> found.summary
    'matches vaswani (base=500000), layout interleaved, offset 3'
    >>> identify(np.zeros((3, 4)))
    Traceback (most recent call last):
    ...
    posproof.errors.InvalidParameter: table has 3 rows; identify needs at least 4 consecutive positions
    """  # noqa: E501
    if grid is not None:
        return identify_grid(table, grid, dtype=dtype)
    arr, dtname = read_table(table, dtype)
    result = identify_read(arr, dtname, fixed=dtype is not None)
    if result.matched:
        return result
    found = search_grids(arr, dtname, fixed=dtype is not None)
    if found is not None:
        return found
    tried = len(factorisations(arr.shape[0]))
    if tried:
        result.notes.append(f"no grid explains it either: tried {tried} factorisation(s) of "
                            f"{arr.shape[0]} rows into 2 or 3 axes")
    return result
