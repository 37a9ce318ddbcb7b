"""Numeric checks of an encoding: each a :class:`Check` that passes or fails, with its numbers.

``check(encoding)`` scans positions 0 … L−1 (L = ``max_len``, default
``DEFAULT_MAX_LEN`` = 10⁶ — the length ``posproof verify`` uses: at d = 512
the eight checks take about 0.8 s, and ``posproof verify`` with its proofs
takes 3.5 s of CPU from a cold start to exit on two cores — measured by
``benchmarks/bench_kernel.py``).  The pairwise checks go through
the offset kernel f(Δ) = Σ cos(ω_k Δ) of :mod:`posproof.measure.kernel` (one GEMM
scan, cached when L ≤ 2²⁴, streamed otherwise); every value within the scan's
bound of a decision is decided by a certified sign (interval arithmetic from the
exact frequencies, precision raised as needed; exact ties proved exactly), every
extreme they report is certified to ``dps`` ≥ 50 digits, and a sign that cannot
be decided, or a float64 value that disagrees with its certified value beyond its
bound (a bug of the toolkit), makes the check ``unknown`` with a note — never a
silent pass.  Each check carries its :class:`~posproof.evidence.Evidence`, re-checked
by the independent auditor (:func:`posproof.audit.apply`) before it is returned.

What makes each check pass or fail:

=======================  ===================================================================
``bounds``               fail if some |PE_i| > 1 or ‖PE(x)‖² differs from n beyond rounding
                         (measured on the first, last and 512 random rows)
``separation``           fail if two positions collide: min over Δ = 1 … L−1 of
                         ‖PE(x+Δ) − PE(x)‖ is 0 (proved exactly)
``near_return``          informational (pass): closest return for Δ in [L/2, L) and the first
                         offset closer than neighbouring positions (an effective period)
``periodicity``          pass when the numbers confirm the proof engine: distance 0 at the
                         exact period P ≤ L−1 and > 0 before it; no return when aperiodic;
                         unknown when the engine left periodicity (or P's rationality)
                         undecided: nothing to confirm
``translation_residual`` fail if |table(x+Δ) − table(x)·T(Δ)| exceeds its rounding
                         tolerance 4u(|(x+Δ)ω| + 2|xω| + 2|Δω|) + 16t at 8 random pairs
                         of rows x < x + Δ ≤ L−1 (x + Δ ≥ L/2)
``toeplitz``             fail if the Gram matrix of 256 consecutive rows (at the start and at
                         a random place) is not Toeplitz within its rounding tolerance
``decay``                informational (pass): first Δ with f(Δ) < 0, first Δ where f rises
``dtype_audit``          informational (pass): per dtype, the first integer position it cannot
                         hold, the phase error of x·ω formed in it, translation residuals
=======================  ===================================================================

The table checks fail when a table entry disagrees with mpmath beyond its bound (the
table is wrong); a kernel check is unknown on a toolkit inconsistency (the float64 kernel
against its certified value) or an undecided sign, and fails with a note on encodings
whose columns are not
(sin, cos) pairs of one frequency (no dot-product theorem, no T(Δ)).

>>> from posproof import preset
>>> report = check(preset("vaswani", dim=16), max_len=1000, checks=["separation", "decay"])
>>> [(c.name, c.status) for c in report.checks]
[('separation', 'pass'), ('decay', 'pass')]
>>> report["separation"].values["at_offset"]
1
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..audit import apply as audit_verdict
from ..errors import (
    InvalidParameter,
    PosproofError,
    UnknownName,
    check_finite,
    check_int,
    check_sequence,
)
from ..model.encoding import Encoding
from ..precise import DEFAULT_DPS
from ..report import Check, Proof, Report
from .checks_context import AUDIT_DTYPES, Context, NotApplicable, Progress, not_applicable
from .checks_dtype import PHASE_LIMIT as PHASE_LIMIT
from .checks_dtype import PHASE_SCAN_MAX as PHASE_SCAN_MAX
from .checks_dtype import dtype_audit
from .checks_kernel import decay, near_return, periodicity, separation
from .checks_table import TOEPLITZ_LEN as TOEPLITZ_LEN
from .checks_table import bounds, toeplitz, translation
from .dtypes import dtype_model
from .scan_limits import MAX_CHECK_DIM, check_scan

__all__ = [
    "AUDIT_DTYPES",
    "CHECKS",
    "DEFAULT_MAX_LEN",
    "check",
    "check_scan_options",
    "run_checks",
]


CHECKS = ("bounds", "separation", "near_return", "periodicity", "translation_residual",
          "toeplitz", "decay", "dtype_audit")
#: Positions scanned by default (``posproof verify`` and ``posproof check``).
DEFAULT_MAX_LEN = 10**6


_RUNNERS: dict[str, Callable[[Context], Check]] = {
    "bounds": bounds, "separation": separation, "near_return": near_return,
    "periodicity": periodicity, "translation_residual": translation, "toeplitz": toeplitz,
    "decay": decay, "dtype_audit": dtype_audit,
}


# --------------------------------------------------------------------------- public
def _names(checks: Sequence[str] | None) -> list[str]:
    if checks is None:
        return list(CHECKS)
    names = []
    for name in check_sequence("checks", checks, strings=True):
        if not isinstance(name, str) or name not in CHECKS:
            raise UnknownName(f"check={name!r} is not known; use one of {', '.join(CHECKS)}")
        if name not in names:
            names.append(name)
    return names


#: Largest dps·d: each frequency is evaluated at dps + 30 digits (d = 65536 at
#: 1000 digits took minutes); 50 digits are accepted up to d = 65536, 1000 up to 4096.
MAX_DPS_WORK = 1 << 22


def check_scan_options(encoding: Encoding, max_len: Any, dps: Any) -> tuple[int, int]:
    """Validate the scan length and the digits of :func:`check` for ``encoding``, up front.

    ``max_len`` is at most :data:`~posproof.measure.scan_limits.MAX_LEN` and ``max_len·dim``
    at most :data:`~posproof.measure.scan_limits.MAX_SCAN_WORK`; ``dps`` is 50 … 1000 and
    ``dps·dim`` at most :data:`MAX_DPS_WORK`.

    >>> from posproof import preset
    >>> check_scan_options(preset("vaswani", dim=8), 1000, 50)
    (1000, 50)
    """
    if encoding.dim > MAX_CHECK_DIM:
        raise InvalidParameter(
            f"dim={encoding.dim} is too large for the numeric checks; at most {MAX_CHECK_DIM} is "
            "checked (each certifies its values from every exact frequency: about a minute "
            "at d = 65536); posproof prove takes d up to 65536")
    length = check_scan(encoding, max_len)
    try:
        dps = check_int("dps", dps, minimum=50, maximum=1000)
    except InvalidParameter as exc:
        raise InvalidParameter(f"{exc} (certification uses 50 to 1000 significant "
                               "digits)") from None
    if dps * encoding.dim > MAX_DPS_WORK:
        raise InvalidParameter(
            f"dps={dps} at dim={encoding.dim} is too large: dps·d must be at most "
            f"{MAX_DPS_WORK} (every frequency is certified at dps digits), so dps <= "
            f"{MAX_DPS_WORK // encoding.dim} at this dim")
    return length, dps


def run_checks(encoding: Encoding, *, max_len: int = DEFAULT_MAX_LEN, dps: int = DEFAULT_DPS,
               checks: Sequence[str] | None = None, progress: Progress | None = None,
               seed: int = 0, proofs: Sequence[Proof] | None = None,
               near_range: tuple[int, int] | None = None,
               near_tol: float | None = None,
               dtypes: Sequence[str] | None = None) -> list[Check]:
    """The checks as a list (``check`` wraps them in a Report); ``proofs`` may hold a
    periodicity proof already made, so that it is not proved twice.  The other
    parameters are those of :func:`check`.

    >>> from posproof import preset
    >>> [c.status for c in run_checks(preset("vaswani", dim=8), max_len=50, checks=["bounds"])]
    ['pass']
    """
    if not isinstance(encoding, Encoding):
        raise InvalidParameter(
            f"encoding={encoding!r} is not an Encoding; build one with posproof.preset()")
    length, dps = check_scan_options(encoding, max_len, dps)
    seed = check_int("seed", seed, minimum=0)
    names = _names(checks)
    if near_tol is not None:
        near_tol = check_finite("near_tol", near_tol)
        if near_tol <= 0:
            raise InvalidParameter(f"near_tol={near_tol!r} must be > 0 (a distance)")
    if near_range is not None:
        try:
            lo, hi = (check_int("near_range start", near_range[0], minimum=1),
                      check_int("near_range stop", near_range[1], minimum=1))
        except (TypeError, IndexError):
            raise InvalidParameter(
                f"near_range={near_range!r}; pass two offsets (start, stop)") from None
        if hi > length or hi <= lo:
            raise InvalidParameter(f"near_range=({lo}, {hi}) must satisfy 1 ≤ start < stop ≤ "
                                   f"max_len={length}")
        near_range = (lo, hi)
    if dtypes is not None:
        dtypes = check_sequence("dtypes", dtypes, strings=True)
    audit = tuple(dtype_model(t).name for t in (AUDIT_DTYPES if dtypes is None else dtypes))
    ctx = Context(encoding, length, dps, seed, progress, proofs, near_range, near_tol,
                   tuple(dict.fromkeys(audit)))
    out = []
    for name in names:
        ctx.label = name
        ctx.tick(0, 1)
        try:
            out.append(audit_verdict(_RUNNERS[name](ctx)))
        except NotApplicable as exc:
            out.append(not_applicable(name, str(exc)))
        except PosproofError as exc:
            raise type(exc)(f"{encoding.name}: check {name}: {exc}") from None
        ctx.tick(1, 1)
    return out


def check(encoding: Encoding, *, max_len: int = DEFAULT_MAX_LEN, dps: int = DEFAULT_DPS,
          checks: Sequence[str] | None = None, progress: Progress | None = None,
          seed: int = 0, near_range: tuple[int, int] | None = None,
          near_tol: float | None = None, dtypes: Sequence[str] | None = None) -> Report:
    """Measure ``encoding`` on positions 0 … max_len−1; a :class:`Report` with ``checks`` filled.

    ``checks`` picks some of :data:`CHECKS` (all by default); ``dps`` (≥ 50)
    is the precision of the mpmath certification; ``progress(label, done,
    total)`` is called during long scans; ``seed`` fixes the random positions
    (the report is deterministic); ``near_range`` = (start, stop) and
    ``near_tol`` (a distance) tune ``near_return``; ``dtypes`` are audited by
    ``dtype_audit`` (default float32, float16, bfloat16).

    >>> from posproof import preset
    >>> report = check(preset("binary", dim=8), max_len=100, checks=["periodicity", "separation"])
    >>> [(c.name, c.status) for c in report.checks], report.ok
    ([('periodicity', 'pass'), ('separation', 'fail')], False)
    >>> report["periodicity"].values["integer_period"]
    32
    >>> check(preset("vaswani", dim=8), max_len=0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    posproof.errors.InvalidParameter: max_len=0 is too small; it must be >= 1 (the number of ...)
    """
    results = run_checks(encoding, max_len=max_len, dps=dps, checks=checks, progress=progress,
                         seed=seed, near_range=near_range, near_tol=near_tol, dtypes=dtypes)
    return Report(encoding.to_dict(), [], results)
