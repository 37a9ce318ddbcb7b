"""A user's table as a float64 NumPy array (torch, JAX and ml_dtypes tables too), the machine
epsilon of its dtype, the phasors e^{iωx} of a frequency list, and the tolerance
``16·eps·(1 + |x·ω|)`` within which a regenerated table matches.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...errors import InvalidParameter

__all__ = [
    "as_array",
    "dtype_eps",
    "dtype_name",
]

#: Entries agree when |a − b| ≤ TOLERANCE·eps·(1 + |x·ω|), eps of the table's dtype.
TOLERANCE = 16.0


_EPS = {"float64": 2.0**-52, "float32": 2.0**-23, "float16": 2.0**-10, "bfloat16": 2.0**-7}

#: NumPy dtypes from ml_dtypes (what JAX hands back) read by widening to float32.
_ML_FLOATS = ("bfloat16",)


# --------------------------------------------------------------------------- arrays
def dtype_name(dtype: Any) -> str:
    name = str(dtype).replace("torch.", "").replace("jax.numpy.", "")
    return {"double": "float64", "float": "float32", "half": "float16"}.get(name, name)


def as_array(obj: Any, *, what: str = "table", finite: bool = True) -> tuple[np.ndarray, str]:
    """``(float64 array, dtype name)`` from a NumPy, PyTorch, JAX or TensorFlow array.

    Duck-typed: ``.detach().cpu().numpy()`` (PyTorch; bfloat16 is widened
    first), ``.numpy()``, ``__array__``, or a nested list; a NumPy bfloat16
    array (ml_dtypes, as JAX returns) is widened too and keeps its dtype name.  Neither torch nor
    JAX is imported here.  Refuses non-numeric and complex values, and non-finite
    ones unless ``finite=False``.

    >>> a, dt = as_array(np.zeros((2, 3), dtype=np.float32))
    >>> a.dtype, dt
    (dtype('float64'), 'float32')
    >>> as_array([[1.0, float("nan")]])
    Traceback (most recent call last):
    ...
    posproof.errors.InvalidParameter: table holds NaN or infinite values (1 of 2 entries, first at index (0, 1)); pass a finite table
    """  # noqa: E501
    source = obj
    dtype_hint = getattr(obj, "dtype", None)
    try:
        if hasattr(obj, "detach") and hasattr(obj, "cpu"):  # torch.Tensor
            t = obj.detach().cpu()
            if dtype_name(t.dtype) == "bfloat16":
                t = t.float()
            obj = t.numpy()
        elif hasattr(obj, "numpy") and not isinstance(obj, np.ndarray):  # tf.Tensor
            obj = obj.numpy()
        arr = np.asarray(obj)
    except Exception as exc:
        raise InvalidParameter(
            f"{what} of type {type(source).__name__} cannot be read as an array ({exc}); "
            "pass a NumPy array, a torch/JAX tensor or a nested list") from None
    name = dtype_name(dtype_hint if dtype_hint is not None else arr.dtype)
    if arr.dtype.kind == "V" and arr.dtype.name in _ML_FLOATS:  # ml_dtypes (JAX's bfloat16)
        name = arr.dtype.name
        arr = arr.astype(np.float32)
    if arr.dtype == object or arr.dtype.kind not in "fiub":
        raise InvalidParameter(
            f"{what} of type {type(source).__name__} (dtype {arr.dtype}) is not a real numeric "
            "array; pass floats of shape (n_positions, dim)")
    if name not in _EPS:
        name = "float64" if arr.dtype.kind != "f" else dtype_name(arr.dtype)
    out = arr.astype(np.float64)
    bad = ~np.isfinite(out)
    if finite and bad.any():
        first = tuple(int(i) for i in np.argwhere(bad)[0])
        raise InvalidParameter(
            f"{what} holds NaN or infinite values ({int(bad.sum())} of {out.size} entries, "
            f"first at index {first}); pass a finite {what}")
    return out, name


def dtype_eps(name: str) -> float:
    """Machine epsilon of a float dtype name (float64 for anything unknown).

    >>> dtype_eps("float32") == 2**-23, dtype_eps("bfloat16")
    (True, 0.0078125)
    """
    if name in _EPS:
        return _EPS[name]
    try:
        return float(np.finfo(np.dtype(name)).eps)
    except (TypeError, ValueError):
        return _EPS["float64"]


def phasors(freqs: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """exp(i·x·ω) for positions x and frequencies ω, shape ``(len(x), len(ω))``, complex128.

    Consecutive positions use the angle-addition trick (one complex product per
    entry instead of a sine and a cosine): exact to a few ulps.

    >>> phasors(np.array([1.0]), np.arange(3.0)).imag.round(4).tolist()
    [[0.0], [0.8415], [0.9093]]
    """
    pos = np.asarray(positions, dtype=np.float64).reshape(-1)
    w = np.asarray(freqs, dtype=np.float64).reshape(-1)
    count = pos.size
    if count >= 256 and np.all(np.diff(pos) == 1.0):
        block = math.isqrt(count) or 1
        starts = pos[0] + block * np.arange(-(-count // block), dtype=np.float64)
        head = np.exp(1j * np.multiply.outer(starts, w))
        tail = np.exp(1j * np.multiply.outer(np.arange(block, dtype=np.float64), w))
        out = (head[:, None, :] * tail[None, :, :]).reshape(-1, w.size)
        return out[:count]
    ang = np.multiply.outer(pos, w)
    return np.cos(ang) + 1j * np.sin(ang)


def tolerance(eps: float, positions: np.ndarray, freqs: np.ndarray,
              factor: float = TOLERANCE) -> np.ndarray:
    """factor·eps·(1 + |x·ω|), shape ``(len(x), len(ω))``.

    >>> tolerance(2**-23, np.array([0.0, 1000.0]), np.array([1.0])).tolist()
    [[1.9073486328125e-06], [0.0019092559814453125]]
    """
    pos = np.abs(np.asarray(positions, dtype=np.float64).reshape(-1))
    return factor * eps * (1.0 + np.multiply.outer(pos, np.asarray(freqs, dtype=np.float64)))
