"""How floating dtypes round (float16, bfloat16 with or without ml_dtypes, float32…): the unit
roundoff of float64, the budget of one sin or cos, and angles x·ω formed in a low-precision dtype.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..model.encoding import resolve_dtype

__all__ = [
    "DtypeModel",
    "U",
    "angles_in_dtype",
    "dtype_model",
    "first_unrepresentable_integer",
    "round_to_dtype",
]


#: Unit roundoff of float64.
U = 2.0 ** -53
#: Error budget of one NumPy float64 sin or cos, in units of u (measured ≤ 0.51).
TRIG_ULPS = 4


_ALIASES = {"fp16": "float16", "half": "float16", "bf16": "bfloat16", "fp32": "float32",
            "single": "float32", "fp64": "float64", "double": "float64"}


def _round_bfloat16_bits(values: np.ndarray) -> np.ndarray:
    """Round float32 values to bfloat16 (nearest, ties to even) on their bit patterns."""
    f32 = np.asarray(values, dtype=np.float32)
    bits = f32.view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    out = rounded.astype(np.uint32).view(np.float32)
    return np.where(np.isnan(f32), f32, out)


@dataclass(frozen=True)
class DtypeModel:
    """How a floating dtype rounds: ``round`` and ``multiply`` return float64 arrays.

    ``implementation`` says where the rounding comes from: ``numpy``,
    ``ml_dtypes``, or ``emulated`` (bfloat16 without ml_dtypes: float32 bit
    patterns rounded to nearest even, as ml_dtypes and PyTorch convert).
    """

    name: str
    implementation: str
    dtype: np.dtype | None

    def round(self, values: Any) -> np.ndarray:
        """Values rounded to the dtype, returned as float64 (exactly); same shape.

        >>> dtype_model("float16").round([2049.0, 1e5]).tolist()
        [2048.0, inf]
        """
        a = np.asarray(values, dtype=np.float64)
        if self.dtype is None:
            with np.errstate(over="ignore"):
                return _round_bfloat16_bits(a.astype(np.float32)).astype(np.float64)
        with np.errstate(over="ignore"):
            return a.astype(self.dtype).astype(np.float64)

    def multiply(self, a: Any, b: Any) -> np.ndarray:
        """The product of the rounded operands, rounded in the dtype (float64 result).

        >>> dtype_model("bfloat16", emulate_bfloat16=True).multiply([3.0], [1 / 3]).tolist()
        [1.0]
        """
        ra, rb = self.round(a), self.round(b)
        if self.dtype is None:
            with np.errstate(over="ignore"):
                prod = ra.astype(np.float32) * rb.astype(np.float32)  # exact for 8-bit significands
            return _round_bfloat16_bits(prod).astype(np.float64)
        with np.errstate(over="ignore", invalid="ignore"):
            return (ra.astype(self.dtype) * rb.astype(self.dtype)).astype(np.float64)


def dtype_model(dtype: Any, *, emulate_bfloat16: bool = False) -> DtypeModel:
    """The :class:`DtypeModel` for a dtype name (``float32``, ``float16``, ``bfloat16``…).

    >>> dtype_model("bf16").round([257.0]).tolist()
    [256.0]
    >>> dtype_model("bfloat16", emulate_bfloat16=True).implementation
    'emulated'
    >>> dtype_model("float8")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    posproof.errors.UnknownName: dtype='float8' is not known; use float16, bfloat16, ...
    """
    name = _ALIASES.get(str(dtype).lower(), str(dtype))
    if name == "bfloat16":
        if not emulate_bfloat16:
            try:
                import ml_dtypes
            except ImportError:
                pass
            else:
                return DtypeModel("bfloat16", "ml_dtypes", np.dtype(ml_dtypes.bfloat16))
        return DtypeModel("bfloat16", "emulated", None)
    resolved = resolve_dtype(name)
    return DtypeModel(resolved.name, "numpy", resolved)


def round_to_dtype(values: Any, dtype: Any) -> np.ndarray:
    """``values`` rounded to ``dtype`` and returned as float64, same shape.

    >>> round_to_dtype([2049.0, 0.1], "float16").tolist()
    [2048.0, 0.0999755859375]
    """
    return dtype_model(dtype).round(values)


def first_unrepresentable_integer(dtype: Any) -> int:
    """The smallest positive integer the dtype cannot hold, found by rounding.

    A binary format with p significant bits holds every integer up to 2^p, and
    2^p + 1 is the first it cannot: this tries 2^p + 1 for p = 1, 2, … and
    returns the first that does not survive a round trip.

    >>> [first_unrepresentable_integer(t) for t in ("float16", "bfloat16", "float32")]
    [2049, 257, 16777217]
    """
    model = dtype_model(dtype)
    if model.dtype is not None and model.dtype.itemsize > 8:     # long double: no float64 probe
        return 2 ** (np.finfo(model.dtype).nmant + 1) + 1
    for p in range(1, 54):
        m = 2**p + 1
        if float(m) != m or int(model.round([float(m)])[0]) != m:
            return m
    raise AssertionError("unreachable: float64 cannot hold 2**53 + 1")  # pragma: no cover


def angles_in_dtype(positions: Any, frequencies: Any, dtype: Any) -> np.ndarray:
    """x·ω formed in ``dtype``: x and ω rounded to it, the product rounded in it.

    This is what ``torch.outer(arange(L, dtype=dtype), inv_freq.to(dtype))``
    computes.  Shape ``(len(positions), len(frequencies))``, as float64
    (``inf`` where the dtype overflows).

    >>> angles_in_dtype([1044.27], [1.0], "float16").tolist()
    [[1044.0]]
    """
    pos = np.asarray(positions, dtype=np.float64).reshape(-1)
    freq = np.asarray(frequencies, dtype=np.float64).reshape(-1)
    return dtype_model(dtype).multiply(pos[:, None], freq[None, :])
