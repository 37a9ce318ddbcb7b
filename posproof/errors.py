"""One root exception, with builtin-compatible children, and shared input checks.

Every error raised on bad input is a :class:`PosproofError`; each subclass is
also a builtin exception (``ValueError`` or ``TypeError``) so that callers who
do not know posproof can still catch it.  Messages say what was given, what is
allowed, and how to fix it.

>>> check_dim(7)
Traceback (most recent call last):
...
posproof.errors.InvalidEncoding: dim=7 is odd; pass odd_dim='pad' (--odd-dim pad) to append a zero column (as tensor2tensor and fairseq do), or use an even dim
>>> isinstance(InvalidEncoding("x"), ValueError)
True
"""  # noqa: E501

from __future__ import annotations

import math
import numbers

__all__ = [
    "InvalidEncoding",
    "InvalidExpression",
    "InvalidParameter",
    "PosproofError",
    "UnknownName",
    "check_dim",
    "check_finite",
    "check_int",
    "check_length",
    "check_positive",
    "check_sequence",
]

#: Largest encoded dimension accepted; proofs are linear in d, but tables and
#: exact vectors are not free.  Larger sizes are refused rather than hung on.
MAX_DIM = 1 << 16


class PosproofError(Exception):
    """Root of every error posproof raises on purpose."""


class InvalidParameter(PosproofError, ValueError):
    """A numeric parameter is outside its allowed range (or not a number)."""


class InvalidEncoding(InvalidParameter):
    """An encoding cannot be built from the given dim, layout or policy."""


class InvalidExpression(PosproofError, ValueError):
    """A user-typed expression is malformed, hostile or too large."""


class UnknownName(PosproofError, ValueError):
    """A preset, layout, convention, dtype or theorem name is not known."""


def _is_bool(value: object) -> bool:
    return isinstance(value, bool) or type(value).__name__ == "bool_"


def check_int(name: str, value: object, *, minimum: int | None = None,
              maximum: int | None = None) -> int:
    """Return ``value`` as an ``int``; refuse floats, bools, NaN and out-of-range.

    >>> check_int("offset", 3)
    3
    >>> check_int("dim", 2.5)
    Traceback (most recent call last):
    ...
    posproof.errors.InvalidParameter: dim=2.5 is not an integer; pass a whole number such as 512
    """
    if _is_bool(value) or not isinstance(value, numbers.Integral):
        if isinstance(value, numbers.Real) and not _is_bool(value):
            fv = float(value)
            if math.isfinite(fv) and fv.is_integer() and isinstance(value, float):
                value = int(fv)
            else:
                raise InvalidParameter(
                    f"{name}={value!r} is not an integer; pass a whole number such as 512")
        else:
            raise InvalidParameter(
                f"{name}={value!r} is not an integer; pass a whole number such as 512")
    ivalue = int(value)  # type: ignore[arg-type]
    if minimum is not None and ivalue < minimum:
        raise InvalidParameter(f"{name}={ivalue} is too small; it must be >= {minimum}")
    if maximum is not None and ivalue > maximum:
        raise InvalidParameter(
            f"{name}={ivalue} is too large; at most {maximum} is accepted")
    return ivalue


def check_finite(name: str, value: object) -> float:
    """Return ``value`` as a float after refusing NaN, infinities and non-numbers.

    >>> check_finite("base", float("nan"))
    Traceback (most recent call last):
    ...
    posproof.errors.InvalidParameter: base=nan is not a finite number; pass a finite real value
    """
    if _is_bool(value) or isinstance(value, (bytes, bytearray, memoryview)):
        raise InvalidParameter(f"{name}={value!r} is not a number; pass a finite real value")
    try:
        fv = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        raise InvalidParameter(
            f"{name}={value!r} is not a number; pass a finite real value") from None
    if not math.isfinite(fv):
        raise InvalidParameter(f"{name}={value!r} is not a finite number; pass a finite real value")
    return fv


def check_positive(name: str, value: object, *, greater_than: float = 0.0) -> float:
    """Return ``value`` as a float, refusing values ``<= greater_than``.

    >>> check_positive("base", 1, greater_than=1)
    Traceback (most recent call last):
    ...
    posproof.errors.InvalidParameter: base=1 must be > 1
    """
    fv = check_finite(name, value)
    if not fv > greater_than:
        raise InvalidParameter(f"{name}={value!r} must be > {greater_than:g}")
    return fv


def check_dim(dim: object, *, odd_dim: str = "error") -> int:
    """Validate an encoded dimension ``d`` under an odd-d policy.

    >>> check_dim(512)
    512
    >>> check_dim(7, odd_dim="pad")
    7
    """
    d = check_int("dim", dim)
    if d <= 0:
        raise InvalidEncoding(f"dim={d} must be a positive integer, such as 512")
    if d > MAX_DIM:
        raise InvalidEncoding(
            f"dim={d} is too large; at most {MAX_DIM} is accepted (an exact encoding "
            "holds one symbolic expression per column)")
    if not isinstance(odd_dim, str) or odd_dim not in ("error", "pad"):
        raise UnknownName(f"odd_dim={odd_dim!r} is not known; use 'error' or 'pad'")
    if d % 2 and odd_dim == "error":
        raise InvalidEncoding(
            f"dim={d} is odd; pass odd_dim='pad' (--odd-dim pad) to append a zero column "
            "(as tensor2tensor and fairseq do), or use an even dim")
    return d


def check_length(name: str, value: object, *, maximum: int = 10**9) -> int:
    """Validate a count of positions such as ``max_len``.

    >>> check_length("max_len", 0)
    Traceback (most recent call last):
    ...
    posproof.errors.InvalidParameter: max_len=0 is too small; it must be >= 1
    """
    return check_int(name, value, minimum=1, maximum=maximum)


def check_sequence(name: str, value: object, *, strings: bool = False) -> list:
    """Return ``value`` as a list; refuse non-iterables, mappings and (unless
    ``strings``, which wraps one string in a list) strings.

    >>> check_sequence("checks", "bounds", strings=True)
    ['bounds']
    >>> check_sequence("theorems", 5)
    Traceback (most recent call last):
    ...
    posproof.errors.InvalidParameter: theorems=5 is not a list; pass a list such as ['a', 'b']
    """
    from collections.abc import Iterable, Mapping

    if isinstance(value, str) and strings:
        return [value]
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        raise InvalidParameter(f"{name}={value!r} is not a list; pass a list such as ['a', 'b']")
    try:
        return list(value)
    except (TypeError, ValueError) as exc:
        raise InvalidParameter(f"{name}={value!r} cannot be read as a list ({exc})") from None
