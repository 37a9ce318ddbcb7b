"""Which frequency pairs of a multi-axis rotary read which position axis, and their bands.

For M-RoPE (Qwen2-VL's ``mrope_section``, Qwen3-VL's interleaved assignment) and axial RoPE
the question a reader asks first is which pairs, hence which wavelengths, each axis gets:
Qwen2-VL gives the temporal axis the fastest pairs and the width axis the slowest.
:func:`axis_bands` answers it per axis, with the same certified test as
:func:`~posproof.measure.explore.metrics.band_coverage` (does 2π/θ_k fit in L?).

>>> from posproof.model.multirope import mrope
>>> rows = axis_bands(mrope(10000, 8, [2, 1, 1]), 100)
>>> [(r["name"], r["pairs"], r["pairs_covered"]) for r in rows]
[('t', [0, 1], 2), ('h', [2], 0), ('w', [3], 0)]
"""

from __future__ import annotations

from typing import Any

from .metrics import band_coverage

__all__ = ["axis_bands", "axis_bands_table", "pair_ranges"]


def pair_ranges(pairs: list[int]) -> str:
    """Pair indices as arithmetic runs: ``0-15`` (consecutive), ``1-58/3`` (every 3rd).

    >>> pair_ranges([0, 1, 2, 5, 7, 8])
    '0-2,5,7-8'
    >>> pair_ranges([0, 3, 6, 9, 60, 61, 62, 63])
    '0-9/3,60-63'
    """
    out, i = [], 0
    while i < len(pairs):
        j = i + 1
        step = pairs[j] - pairs[i] if j < len(pairs) else 1
        while j + 1 < len(pairs) and pairs[j + 1] - pairs[j] == step:
            j += 1
        if j < len(pairs) and (step == 1 or j - i >= 2):
            out.append(f"{pairs[i]}-{pairs[j]}" + (f"/{step}" if step > 1 else ""))
            i = j + 1
        else:
            out.append(str(pairs[i]))
            i += 1
    return ",".join(out)


def axis_bands(multi: Any, length: int) -> list[dict[str, Any]]:
    """Per axis of a :class:`~posproof.model.multirope.MultiAxisRotary`: its pairs, their
    wavelength range 2π/θ (float64 of exact values) and how many fit in ``length``
    (decided in mpmath with a certified margin)."""
    out = []
    for a in range(multi.axes):
        pairs = multi.axis_pairs(a)
        cover = band_coverage([multi.frequencies[k] for k in pairs], length)
        waves = cover["wavelengths"]
        out.append({"axis": a, "name": multi.axis_names[a], "pairs": pairs,
                    "count": len(pairs), "wavelength_min": min(waves),
                    "wavelength_max": max(waves), "pairs_covered": cover["pairs_covered"],
                    "longer_than_L": len(pairs) - cover["pairs_covered"], "length": length,
                    "certified": cover["certified"]})
    return out


def axis_bands_table(rows: list[dict[str, Any]]) -> str:
    """The per-axis summary as text (one line per axis).

    >>> from posproof.model.multirope import mrope
    >>> print(axis_bands_table(axis_bands(mrope(10000, 8, [2, 1, 1]), 100)))
    axis name  count  wavelength min..max  fit L=100     longer  pairs
       0 t         2     6.283 .. 62.83           2        0  0-1
       1 h         1     628.3 .. 628.3           0        1  2
       2 w         1      6283 .. 6283            0        1  3
    """
    length = rows[0]["length"] if rows else 0
    lines = [f"axis name  count  wavelength min..max  fit L={length:<7} longer  pairs"]
    for r in rows:
        lines.append(f"{r['axis']:>4} {r['name']:<5} {r['count']:>5}"
                     f"  {r['wavelength_min']:>8.4g} .. {r['wavelength_max']:<8.4g}"
                     f"{r['pairs_covered']:>9} {r['longer_than_L']:>8}  {pair_ranges(r['pairs'])}")
    return "\n".join(lines)
