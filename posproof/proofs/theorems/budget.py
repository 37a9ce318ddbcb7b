"""Budgets of the proof engine: a deterministic work budget per theorem, and a safety net.

Nothing a user types may make :func:`posproof.prove` hang, and no verdict may depend on
the clock or on the machine's load.  Three layers keep every theorem within bounds:

1. *Guards before a symbolic step*: an identity is tried numerically first (one
   validated point refutes a false one in milliseconds), and it is expanded only
   in a form whose size is bounded (:mod:`posproof.proofs.theorems.trigzero`; the
   Chebyshev expansion of ``sin(1000000·u)`` is never attempted).
2. *A work budget* (:class:`Budget`, ``prove(..., budget=UNITS)``, ``posproof prove
   --budget UNITS``, default :data:`DEFAULT_BUDGET` units per theorem, ``0``/``None``: no
   limit).  Each step is *charged before it runs*, in work units computed from the
   sizes of what it works on, never from the clock: a group of columns visited costs
   :data:`GROUP_UNITS`, an interval evaluation of an expression costs its number of
   nodes times ``bits/512`` (:func:`evaluation_units`), the product of two exponential
   forms the number of term products, a cross-check point :data:`POINT_UNITS` per
   column it evaluates.  One unit is about one node of one interval evaluation at
   512 bits (roughly 20 µs on a quiet core).  A step that would take the theorem past
   its budget is not started: :class:`OutOfBudget` is raised and :func:`within` turns it
   into ``unknown`` with the reason.  The same input spends the same units on every
   machine, at any load, so the verdict is the same.
3. *A wall-clock safety net* against a single SymPy call that runs away (one whose cost its
   size did not predict): in the main thread, when nobody else uses ``SIGALRM``,
   :func:`within` arms ``ITIMER_REAL`` for :data:`DEFAULT_TIMEOUT` seconds per theorem
   (``prove(..., timeout=SECONDS)``, ``posproof prove --time-limit SECONDS``, ``0``/``None``:
   none), far above what any input within ``posproof limits`` takes even on a loaded
   machine.  Its handler raises :class:`_Expired` (a ``BaseException``, so no
   ``except Exception`` inside SymPy swallows it), once: the handler disables itself
   before raising.  A library whose bare ``except:`` swallows it (mpmath's interval
   comparisons) fails in another way instead; once the timer has fired, any exception is
   taken as the timeout.  The timer and the previous handler are always restored, and
   mpmath's precision is put back.  When it fires the theorem is ``unknown`` and its note
   says that the wall-clock limit fired (so that answer may differ from machine to
   machine) and how to raise it.  In other threads, or when ``SIGALRM`` is taken (a
   test's own time limit), only layers 1 and 2 apply.  Nothing else reads the clock.

>>> b = Budget(None)
>>> b.charge("a step", 10**9); b.spent, b.describe()
(1000000000, 'no work limit')
>>> within(Budget(100), lambda: 42)
(42, None)
>>> def big():
...     Budget(100).charge("the expansion", 150)
>>> within(Budget(100), big)[1]  # doctest: +NORMALIZE_WHITESPACE
'not decided within the work budget of 100 units per theorem (the expansion needs 150 units,
 100 were left); raise it with budget= or --budget UNITS (0: no limit)'
"""

from __future__ import annotations

import math
import signal
import threading
from collections.abc import Callable
from functools import lru_cache
from typing import Any, TypeVar

import mpmath
import sympy as sp

from ...errors import InvalidParameter

__all__ = ["COLUMN_UNITS", "DEFAULT_BUDGET", "DEFAULT_TIMEOUT", "GROUP_UNITS", "POINT_UNITS",
           "Budget",
           "OutOfBudget", "check_budget", "check_timeout", "evaluation_units", "size",
           "within"]

#: Work units per theorem unless the caller says otherwise (see the module docstring).
#: A default command (verify, derive, prove of every preset at its default size) spends at
#: most 222678 on one theorem, prove at d = 65536 at most 295274 (python
#: benchmarks/bench_budget.py [--big]).
DEFAULT_BUDGET = 1_000_000
#: Seconds per theorem before the wall-clock safety net fires (a runaway single step only).
DEFAULT_TIMEOUT = 600.0
#: Units charged for visiting one group of columns (building and comparing its block).
GROUP_UNITS = 8
#: Units charged per column evaluated at one cross-check point (mpmath, 50+ digits).
POINT_UNITS = 4
#: Units charged per exact column built (a SymPy sin/cos of an exact frequency times a sum).
COLUMN_UNITS = 100
#: Bits of one unit of an interval evaluation: a node at 2048 bits costs 4 units.
UNIT_BITS = 512

T = TypeVar("T")


class OutOfBudget(Exception):
    """A step would take a theorem past its work budget (becomes ``unknown``)."""


class _Expired(BaseException):
    """Raised by the safety-net timer inside a runaway SymPy call."""


def check_budget(value: Any) -> int | None:
    """A work budget in units: an integer >= 0; ``0`` or ``None`` is no limit.

    >>> check_budget(5000), check_budget(0), check_budget(None)
    (5000, None, None)
    """
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (
            isinstance(value, float) and not (math.isfinite(value) and value.is_integer())):
        raise InvalidParameter(f"budget={value!r:.40} is not a whole number of work units; "
                               f"give e.g. budget={DEFAULT_BUDGET} (0 or None: no limit)")
    units = int(value)
    if units < 0:
        raise InvalidParameter(f"budget={value!r} must be >= 0 work units (0 or None: no limit)")
    return units or None


def check_timeout(value: Any) -> float | None:
    """A safety-net time limit in seconds: a finite number > 0, or ``None`` (no limit).

    >>> check_timeout(2), check_timeout(None)
    (2.0, None)
    """
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidParameter(f"timeout={value!r:.40} is not a number; give seconds, e.g. "
                               f"timeout={DEFAULT_TIMEOUT:g} (or None for no limit)")
    seconds = float(value)
    if not (math.isfinite(seconds) and seconds > 0):
        raise InvalidParameter(f"timeout={value!r} must be a finite number of seconds > 0 "
                               "(or None for no limit)")
    return seconds


@lru_cache(maxsize=4096)
def _nodes(expr: sp.Basic) -> int:
    return sum(1 for _ in sp.preorder_traversal(expr))


def size(expr: Any) -> int:
    """The number of nodes of an expression (a deterministic measure of its size).

    >>> size(sp.sin(2*sp.Symbol("x")) + 1)   # Add, 1, sin, Mul, 2, x
    6
    """
    expr = sp.sympify(expr)
    return _nodes(expr) if expr.args else 1


def evaluation_units(expr: Any, bits: int) -> int:
    """Units of one interval evaluation of ``expr`` at ``bits``: nodes × ⌈bits / 512⌉.

    >>> evaluation_units(sp.sin(2*sp.Symbol("x")) + 1, 2048)
    24
    """
    return size(expr) * max(1, -(-int(bits) // UNIT_BITS))


class Budget:
    """The work budget of one theorem (``units=None``: no limit), and its safety net
    (``seconds``, armed by :func:`within`)."""

    def __init__(self, units: int | None, seconds: float | None = None) -> None:
        self.units = units
        self.seconds = seconds
        self.spent = 0

    def charge(self, what: str, units: int = 1) -> None:
        """Count ``units`` for the step ``what`` before it runs; raise :class:`OutOfBudget`
        (the step not started) when they would take the theorem past its budget."""
        units = max(int(units), 0)
        if self.units is not None and self.spent + units > self.units:
            left = self.units - self.spent
            raise OutOfBudget(f"{what} needs {units} unit{'s' if units != 1 else ''}, "
                              f"{left} {'was' if left == 1 else 'were'} left")
        self.spent += units

    def charge_evaluation(self, what: str, expr: Any, bits: int) -> None:
        """Charge one interval evaluation of ``expr`` at ``bits`` (:func:`evaluation_units`)."""
        self.charge(f"{what} at {bits} bits", evaluation_units(expr, bits))

    def charge_groups(self, what: str, groups: int) -> None:
        """Charge visiting ``groups`` groups of columns (:data:`GROUP_UNITS` each)."""
        self.charge(what, GROUP_UNITS * groups)

    def check(self, what: str) -> None:
        """One unit for the step ``what`` (a loop's iteration)."""
        self.charge(what, 1)

    def describe(self) -> str:
        return "no work limit" if self.units is None else f"{self.units} units"


class _Net:
    """The SIGALRM safety net (see the module docstring)."""

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        self.active = False
        self.fired = False
        self.previous: Any = None

    def usable(self) -> bool:
        return (self.seconds is not None and hasattr(signal, "setitimer")
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
        signal.setitimer(signal.ITIMER_REAL, self.seconds)

    def disarm(self) -> None:
        self.active = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, self.previous)


def _out_of_work(budget: Budget, why: str) -> str:
    return (f"not decided within the work budget of {budget.describe()} per theorem ({why}); "
            "raise it with budget= or --budget UNITS (0: no limit)")


def _out_of_time(budget: Budget) -> str:
    return (f"stopped by the wall-clock safety limit of {budget.seconds:g} s per theorem "
            "(a single symbolic step ran that long; this answer depends on the machine and "
            "its load, unlike the work budget); raise it with timeout= or --time-limit "
            "SECONDS (0: no limit)")


def within(budget: Budget, compute: Callable[[], T]) -> tuple[T | None, str | None]:
    """Run ``compute`` within ``budget``: ``(result, None)``, or ``(None, note)`` when the
    work budget ran out or the safety net fired (``note`` says which, and how to raise it)."""
    net = _Net(budget.seconds)
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
        return None, _out_of_work(budget, str(exc))
    except _Expired:
        mpmath.mp.prec, mpmath.iv.prec = prec, iv_prec  # an interrupted workprec's exit
        return None, _out_of_time(budget)
    except Exception:
        # A library's bare ``except:`` can swallow the timer's exception and fail otherwise
        # (mpmath's interval comparison turns it into NotImplemented, hence a TypeError):
        # after the timer fired, any failure is the timeout's.
        if not net.fired:
            raise
        mpmath.mp.prec, mpmath.iv.prec = prec, iv_prec
        return None, _out_of_time(budget)
    finally:
        if armed:
            net.disarm()
