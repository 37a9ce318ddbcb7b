"""The limits of a numeric scan: the longest length L and the largest work L·d, validated with
one clear error.
"""

from __future__ import annotations

from typing import Any

from ..errors import InvalidParameter, check_int
from ..model.encoding import Encoding

__all__ = [
    "MAX_CHECK_DIM",
    "MAX_LEN",
    "MAX_SCAN_WORK",
    "check_scan",
    "check_scan_work",
]


#: Longest scan accepted.  Scans stream in chunks, so memory is not the limit;
#: time is (about L·n / 5·10⁹ seconds on two cores).
MAX_LEN = 10**9
#: Largest scan work L·d accepted by the numeric checks (``check``, ``verify``,
#: ``derive``): the scans cost time in proportion to L·d, so at d = 512 L is at
#: most 67 108 864 and at d = 65536 at most 524 288 (each about a minute or less
#: on two cores within 4 GiB; see docs/cli.md, "Limits").
MAX_SCAN_WORK = 1 << 35
#: Largest d the numeric checks take: every check certifies its deciding values from the
#: n = d/2 exact frequencies (interval enclosures, the auditor's balls), a cost in
#: proportion to d whatever L; at d = 65536 that alone took a minute on two cores.
MAX_CHECK_DIM = 1 << 15


def check_max_len(max_len: Any) -> int:
    """Validate a scan length L (1 ≤ L ≤ MAX_LEN).

    >>> check_max_len(0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    posproof.errors.InvalidParameter: max_len=0 is too small; it must be >= 1 (the number of ...)
    """
    try:
        return check_int("max_len", max_len, minimum=1, maximum=MAX_LEN)
    except InvalidParameter as exc:
        text = str(exc)
        if "too large" in text:
            text += (" (scans stream in chunks, so memory is not the limit, but time is: "
                     "about L·n/5e9 seconds; pass a smaller max_len)")
        elif "too small" in text:
            text += " (the number of positions to scan, such as 100000)"
        raise InvalidParameter(text) from None


def check_scan(encoding: Encoding, max_len: Any) -> int:
    """Validate a scan length L for ``encoding``: 1 ≤ L ≤ MAX_LEN and L·d ≤ MAX_SCAN_WORK.

    >>> check_scan(Encoding(Geometric(10000), "interleaved", 64), 10**9)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    posproof.errors.InvalidParameter: max_len=1000000000 at dim=64 is too large: ... 536870912 ...
    """
    return check_scan_work("max_len", check_max_len(max_len), encoding.dim)


def check_scan_work(name: str, length: int, dim: int, limit: int = MAX_SCAN_WORK) -> int:
    """``length`` when ``length·dim`` ≤ ``limit``; otherwise InvalidParameter naming
    ``name`` and the longest length accepted at this ``dim``."""
    if length * dim > limit:
        raise InvalidParameter(
            f"{name}={length} at dim={dim} is too large: L·d must be at most "
            f"{limit} (the scan limit, about a minute on two cores), so {name} <= "
            f"{limit // dim} at this dim")
    return length
