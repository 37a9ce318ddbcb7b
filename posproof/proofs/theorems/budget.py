"""Budgets of the proof engine: a deadline per theorem, checked between steps, and a safety net.

Nothing a user types may make :func:`posproof.prove` hang, but SymPy cannot be
interrupted cooperatively.  Three layers keep every theorem within its budget
(``prove(..., timeout=SECONDS)``, ``posproof prove --timeout SECONDS``,
default :data:`DEFAULT_TIMEOUT` seconds per theorem):

1. *Guards before a symbolic step*: an identity is tried numerically first (one
   validated point refutes a false one in milliseconds), and it is expanded only
   in a form whose size is bounded (:mod:`posproof.proofs.theorems.trigzero`; the
   Chebyshev expansion of ``sin(1000000·u)`` is never attempted).
2. *A cooperative deadline* (:class:`Deadline`), checked between steps: in the
   expansion loops, between counterexample candidates, between precisions.
   Running out raises :class:`OutOfBudget`; :func:`within` turns it into an
   ``unknown`` with the reason.
3. *A safety net* for a single SymPy call that runs away: in the main thread,
   when nobody else uses ``SIGALRM``, :func:`within` arms ``ITIMER_REAL`` for the
   deadline plus a grace period; its handler raises :class:`_Expired` (a
   ``BaseException``, so no ``except Exception`` inside SymPy swallows it), once:
   the handler disables itself before raising, so a second tick can never land
   in the code that handles the first.  A library whose bare ``except:`` swallows it
   (mpmath's interval comparisons) fails in another way instead; once the timer has
   fired, any exception is taken as the timeout.  The timer and the previous handler are
   always restored, and mpmath's precision (the
   one global state such an interruption could leave changed) is put back.  In
   other threads, or when ``SIGALRM`` is taken (a test's own time limit), only
   layers 1 and 2 apply.

>>> d = Deadline(None)
>>> d.expired(), d.describe()
(False, 'no time limit')
>>> within(Deadline(5), lambda: 42)
(42, None)
>>> def slow():
...     Deadline(0).check("the expansion")
>>> within(Deadline(0), slow)
(None, 'the expansion did not finish within 0 s')
"""

from __future__ import annotations

import math
import signal
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

import mpmath

from ...errors import InvalidParameter

__all__ = ["DEFAULT_TIMEOUT", "Deadline", "OutOfBudget", "check_timeout", "within"]

#: Seconds per theorem unless the caller says otherwise.
DEFAULT_TIMEOUT = 5.0
#: The safety net fires this long after the deadline (the cooperative checks come first).
_GRACE = 1.0

T = TypeVar("T")


class OutOfBudget(Exception):
    """A theorem ran past its deadline (raised between steps; becomes ``unknown``)."""


class _Expired(BaseException):
    """Raised by the safety-net timer inside a runaway SymPy call."""


def check_timeout(value: Any) -> float | None:
    """A timeout in seconds: a finite number > 0, or ``None`` (no limit).

    >>> check_timeout(2), check_timeout(None)
    (2.0, None)
    """
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidParameter(f"timeout={value!r:.40} is not a number; give seconds, e.g. "
                               "timeout=5 (or None for no limit)")
    seconds = float(value)
    if not (math.isfinite(seconds) and seconds > 0):
        raise InvalidParameter(f"timeout={value!r} must be a finite number of seconds > 0 "
                               "(or None for no limit)")
    return seconds


class Deadline:
    """The end of one theorem's budget (``seconds=None``: no limit)."""

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        self.end = None if seconds is None else time.monotonic() + seconds

    def remaining(self) -> float:
        return math.inf if self.end is None else self.end - time.monotonic()

    def expired(self) -> bool:
        return self.end is not None and time.monotonic() >= self.end

    def check(self, what: str) -> None:
        """Raise :class:`OutOfBudget` naming ``what`` when the budget is spent."""
        if self.expired():
            raise OutOfBudget(f"{what} did not finish within {self.describe(short=True)}")

    def describe(self, short: bool = False) -> str:
        if self.seconds is None:
            return "no time limit"
        text = f"{self.seconds:g} s"
        return text if short else f"a budget of {text}"


class _Net:
    """The SIGALRM safety net (see the module docstring)."""

    def __init__(self, deadline: Deadline) -> None:
        self.deadline = deadline
        self.active = False
        self.fired = False
        self.previous: Any = None

    def usable(self) -> bool:
        return (self.deadline.end is not None and hasattr(signal, "setitimer")
                and threading.current_thread() is threading.main_thread()
                and signal.getsignal(signal.SIGALRM) in (signal.SIG_DFL, None)
                and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0))

    def _handler(self, signum: int, frame: Any) -> None:
        if self.active:
            self.active = False
            self.fired = True
            raise _Expired

    def arm(self) -> None:
        self.previous = signal.signal(signal.SIGALRM, self._handler)
        self.active = True
        signal.setitimer(signal.ITIMER_REAL, max(self.deadline.remaining(), 0) + _GRACE)

    def disarm(self) -> None:
        self.active = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, self.previous)


def within(deadline: Deadline, compute: Callable[[], T]) -> tuple[T | None, str | None]:
    """Run ``compute`` within ``deadline``: ``(result, None)``, or ``(None, reason)`` when the
    budget ran out (cooperatively, or by the safety net)."""
    net = _Net(deadline)
    prec, iv_prec = mpmath.mp.prec, mpmath.iv.prec
    armed = net.usable()
    try:
        if armed:
            net.arm()
        try:
            return compute(), None
        finally:
            net.active = False  # a tick before this line is caught below; none after it
    except OutOfBudget as exc:
        return None, str(exc)
    except _Expired:
        mpmath.mp.prec, mpmath.iv.prec = prec, iv_prec  # an interrupted workprec's exit
        return None, (f"a symbolic step did not finish within {deadline.describe(short=True)} "
                      "(stopped by the safety timer)")
    except Exception:
        # A library's bare ``except:`` can swallow the timer's exception and fail otherwise
        # (mpmath's interval comparison turns it into NotImplemented, hence a TypeError):
        # after the timer fired, any failure is the timeout's.
        if not net.fired:
            raise
        mpmath.mp.prec, mpmath.iv.prec = prec, iv_prec
        return None, (f"a symbolic step did not finish within {deadline.describe(short=True)} "
                      "(stopped by the safety timer)")
    finally:
        if armed:
            net.disarm()
