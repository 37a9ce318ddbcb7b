"""The working precision of an impl's values, read exactly from the data (every family).

A bias, a slopes vector or a table computed in float32 and handed over as float64 (``.double()``,
``np.asarray(t, dtype=float)``) carries float32 precision.  The verdict stays the one of the
dtype the values come in (a float64 buffer holding float32 accuracy has lost precision, and a
check that widened its tolerance to whatever the data shows would pass any precision loss);
what is read is an *explanation*, confirmed by judging the values again at the precision read
(:func:`precision_explanation`), with the option that checks them as what they are:
``dtype="float32"``.  :func:`stored_precision` reads the narrower dtype
the values were rounded to, by exact tests only (no statistics, no tolerance): every finite value
is exactly representable in that dtype, *and* at least one value uses its last mantissa bit (so
the values are not short dyadic numbers, exact in every dtype: integers, powers of two, m·k with
m a power of two — those carry no information about the precision and nothing is read from them).

``reference``: the exact model's values in float64; when they are themselves all representable
in the candidate dtype, the data cannot tell that dtype's rounding apart and nothing is read.

>>> import numpy as np
>>> x = np.exp2(-8 * np.arange(1, 13) / 12)            # 12 slopes in float64
>>> stored_precision(x, "float64") is None
True
>>> stored_precision(x.astype(np.float32).astype(np.float64), "float64")
'float32'
>>> stored_precision(np.exp2(-np.arange(1, 9.0)), "float64") is None   # powers of two: exact
True
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["precision_explanation", "precision_note", "stored_precision"]

#: Narrower dtypes, narrowest first, with their significand bits (hidden bit included).
_NARROWER = {
    "float64": ("bfloat16", "float16", "float32"),
    "float32": ("bfloat16", "float16"),
}


def _in_float32(v: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        return v.astype(np.float32).astype(np.float64) == v


def _representable(v: np.ndarray, name: str) -> tuple[bool, bool]:
    """(every value exact in ``name``, some value uses the last significand bit of ``name``)."""
    if name == "float32":
        if not _in_float32(v).all():
            return False, False
        bits = v.astype(np.float32).view(np.uint32)
        normal = (bits & 0x7F800000) != 0
        return True, bool(np.any((bits & 1)[normal] == 1))
    if name == "float16":
        with np.errstate(over="ignore"):
            h = v.astype(np.float16)
        if not (h.astype(np.float64) == v).all():
            return False, False
        bits = h.view(np.uint16)
        normal = (bits & 0x7C00) != 0
        return True, bool(np.any((bits & 1)[normal] == 1))
    if not _in_float32(v).all():                                   # bfloat16
        return False, False
    bits = v.astype(np.float32).view(np.uint32)
    if np.any(bits & 0xFFFF):
        return False, False
    normal = (bits & 0x7F800000) != 0
    return True, bool(np.any(((bits >> 16) & 1)[normal] == 1))


def stored_precision(values: Any, dtype: str, *, reference: Any = None) -> str | None:
    """The narrower dtype ``values`` (stored as ``dtype``) were rounded to, or None."""
    candidates = _NARROWER.get(dtype, ())
    if not candidates:
        return None
    v = np.asarray(values, dtype=np.float64).reshape(-1)
    v = v[np.isfinite(v) & (v != 0)]
    if v.size == 0:
        return None
    ref = None
    if reference is not None:
        ref = np.asarray(reference, dtype=np.float64).reshape(-1)
        ref = ref[np.isfinite(ref) & (ref != 0)]
    for name in candidates:
        exact, full = _representable(v, name)
        if not (exact and full):
            continue
        if ref is not None and ref.size and _representable(ref, name)[0]:
            return None            # the exact values are exact in `name`: nothing to read
        return name
    return None


def precision_note(read: str | None, dtype: str, declared: str | None = None) -> str:
    """The report's line for a precision read from the data ("" when none was): the values
    are judged at ``declared`` (the dtype the caller passed) when given."""
    if read is None:
        return ""
    text = f"values carry {read} precision (every value is exactly a {read} number"
    if declared is not None:
        return text + f", stored as {dtype}): judged at the declared dtype={declared!r}"
    return text + f", stored as {dtype})"


def precision_explanation(read: str, dtype: str, option: str, extra: str = "") -> str:
    """The confirmed explanation when the values pass at the precision read from them."""
    return (f"the values carry {read} precision, not {dtype}'s: a {read} result stored as "
            f"{dtype} — confirmed: judged at {read}'s tolerance{extra} they match the spec "
            f"(every judged entry within it); pass {option} to check it as the {read} result "
            "it is (or compute in {dtype} for {dtype} accuracy)").replace("{dtype}", dtype)
