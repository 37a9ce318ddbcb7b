"""B(m; t) = Σ_k cos(m·e^(−2kt/d)) with rigorous error bounds, for the certified base search.

Two kinds of bound, both used by :mod:`posproof.explore.basebound` (docs/base-bound.md
states and justifies them): values at a point t = ln b (float64 with a stated error
bound, every m at once by the GEMM trick or only some m directly) spread over an
interval by slope and curvature bounds; and lower bounds over a whole box of m and t
from the range of each term's phase, which certify most m of a good interval without
evaluating them and the all-good tail of the range in one piece.
"""

from __future__ import annotations

import math
import threading
import time
from fractions import Fraction
from functools import lru_cache
from typing import Any

import mpmath
import numpy as np
import sympy as sp
from mpmath.libmp import to_rational

from ...validated import BUDGET_BITS, Unresolved, bounds, enclose
from .metrics import U

__all__ = ["BASE", "LN_B", "Kernel", "block_doubt", "certified_value", "good_tail",
           "kernel_expr", "sweep_good_down"]

#: t = ln b and b, the symbols of :func:`kernel_expr` (valued exactly through an env).
LN_B = sp.Symbol("t", real=True)
BASE = sp.Symbol("b", positive=True)
#: Bits the search's exact re-evaluation (:meth:`Kernel.sharpen`) may use: past them the
#: interval is bisected (and, at the resolution, left undecided).
SHARPEN_BITS = 1024
#: Work units charged for each call of an evaluation routine, whatever its size (the
#: Python and NumPy overhead of a call is tens of microseconds, ~10⁴ units).
CALL_WORK = 10_000
#: Work units per bit of precision and pair of an exact enclosure (:func:`certified_value`).
BIT_WORK = 250
#: The safety net's clock is read once per this many work units (~0.1 s of CPU at most).
CLOCK_WORK = 10**7


@lru_cache(maxsize=4096)
def kernel_expr(m: int, dim: int, var: str = "t") -> sp.Expr:
    """B(m) = Σ_{k<d/2} cos(m·b^(−2k/d)) exactly, in t = ln b (``"t"``: cos(m·e^(−2kt/d)),
    the form the float search evaluates) or in b (``"b"``).

    >>> sorted(map(str, kernel_expr(3, 4, "b").args))
    ['cos(3)', 'cos(3/sqrt(b))']
    """
    n = dim // 2
    # not evaluated: SymPy's cos(…) evaluation (assumption queries) would cost ms a term
    if var == "t":
        terms = [m * sp.exp(-sp.Rational(2 * k, dim) * LN_B) for k in range(n)]
    else:
        terms = [m * BASE ** sp.Rational(-2 * k, dim) for k in range(n)]
    return sp.Add(*[sp.cos(x, evaluate=False) for x in terms], evaluate=False)


def _fraction(x: mpmath.mpf) -> Fraction:
    """The exact value of a finite mpf (``man_exp`` drops the sign: not used)."""
    p, q = to_rational(x._mpf_)
    return Fraction(int(p), int(q))


def certified_value(expr: sp.Expr, env: dict[Any, Any], start_bits: int = 64,
                    max_bits: int = BUDGET_BITS, want: float = 0.0,
                    deadline: float | None = None, charge: Any = None
                    ) -> tuple[int | None, Fraction, Fraction, int] | None:
    """(sign, lo, hi, bits): an enclosure [lo, hi] (exact) of ``expr`` by
    :func:`posproof.validated.enclose`, at ``start_bits`` doubled until it excludes 0 and
    its width is at most ``want``·|value| (``want`` = 0: a sign is enough), up to
    ``max_bits``.  ``sign`` is None when every enclosure held 0; None when none could be
    formed (or the ``deadline``, a ``time.process_time`` value, passed: a safety net only).
    ``charge(bits)``, when given, is called before each enclosure (work accounting).

    >>> s, lo, hi, bits = certified_value(kernel_expr(22, 4, "b"),
    ...     {BASE: (22 / (22 - 7 * sp.pi)) ** 2 - sp.Rational(1, 10**30)})
    >>> s, bits, -6.4e-42 < float(lo) <= float(hi) < -6.2e-42
    (-1, 256, True)
    """
    prec, last = max(32, int(start_bits)), None
    while prec <= max_bits:
        if deadline is not None and last is not None and time.process_time() > deadline:
            break
        if charge is not None:
            charge(prec)
        try:
            x = enclose(expr, env, prec)
        except Unresolved:
            x = None
        if x is not None:
            a, b = bounds(x)
            lo, hi = _fraction(a), _fraction(b)
            last = (None, lo, hi, prec)
            if lo > 0 or hi < 0:
                sign = 1 if lo > 0 else -1
                if want <= 0 or hi - lo <= Fraction(want) * min(abs(lo), abs(hi)):
                    return sign, lo, hi, prec
                last = (sign, lo, hi, prec)
        prec *= 2
    return last


@lru_cache(maxsize=1)
def _openblas() -> tuple[Any, Any] | None:
    """(get_num_threads, set_num_threads) of the OpenBLAS that NumPy's wheel bundles, or
    None (another BLAS, or not found: then products stay small)."""
    import ctypes
    import glob
    import os

    where = os.path.join(os.path.dirname(os.path.dirname(np.__file__)), "numpy.libs")
    for path in sorted(glob.glob(os.path.join(where, "*openblas*"))):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for get, put in (("scipy_openblas_get_num_threads64_",
                          "scipy_openblas_set_num_threads64_"),
                         ("openblas_get_num_threads64_", "openblas_set_num_threads64_"),
                         ("openblas_get_num_threads", "openblas_set_num_threads")):
            if hasattr(lib, get) and hasattr(lib, put):
                getter, setter = getattr(lib, get), getattr(lib, put)
                getter.restype, setter.argtypes = ctypes.c_int, [ctypes.c_int]
                return getter, setter
    return None


_BLAS_LOCK = threading.Lock()


class _one_blas_thread:
    """``with _one_blas_thread(want) as single:`` — when ``want`` and NumPy's OpenBLAS is
    reachable, it runs on one thread inside the block (its previous count is put back
    after) and ``single`` is True; otherwise nothing changes and ``single`` is False.
    Such blocks run one at a time in a process (a lock), so a search in one thread never
    sees another's count put back under it: its products are always one-thread ones."""

    def __init__(self, want: bool) -> None:
        self.api = _openblas() if want else None
        self.before = 1

    def __enter__(self) -> bool:
        if self.api is None:
            return False
        _BLAS_LOCK.acquire()
        self.before = int(self.api[0]())
        if self.before != 1:
            self.api[1](1)
        return True

    def __exit__(self, *exc: object) -> None:
        if self.api is not None:
            if self.before != 1:
                self.api[1](self.before)
            _BLAS_LOCK.release()


def _kernel_values(theta: np.ndarray, length: int, weight: np.ndarray | None = None,
                   start: int = 0, small_products: bool = False
                   ) -> tuple[np.ndarray, float] | tuple[np.ndarray, float, np.ndarray, float]:
    """B(m) = Σ_k cos(mθ_k) for m = start … L from float64 θ taken as exact: (values, bound);
    with ``weight`` also W(m) = Σ_k w_k sin(mθ_k) and its bound.

    Δ = start + qB + r, Re(A·Bᵀ) with A[q,k] = e^{iθ_k (start + qB)} and B[r,k] = e^{iθ_k r}
    (start + qB ≤ L, so the bound below, stated for phases up to Lθ_max, holds).
    Bound: phases within 2.02u·Lθ_max each (θ's rounding included), sin/cos
    within 4u, one product of length 2n (any order, FMA or not) within γ_2n·n ≤
    2γ_n·n + u·n, as |cos a cos b| + |sin a sin b| ≤ 1; for W the same per term
    times w_k (w_k ≥ 0 taken as exact, plus u for the product): n → Σ w_k."""
    n = theta.size
    block = math.isqrt(length - start) + 1
    rows = (length - start) // block + 1
    b = np.multiply.outer(np.arange(block, dtype=np.float64), theta)
    cb, sb = np.cos(b).T, np.sin(b).T
    # one product per step: [cos A | sin A] · [[cos B, w·sin B], [−sin B, w·cos B]]
    right = (np.block([[cb, sb * weight[:, None]], [-sb, cb * weight[:, None]]])
             if weight is not None else np.vstack([cb, -sb]))
    out = np.empty((rows, right.shape[1]))
    left = np.multiply.outer(start + np.arange(rows, dtype=np.float64) * block, theta)
    left = np.hstack([np.cos(left), np.sin(left)])
    # Products of at most 2^18 multiply-adds (one row each from L ~ 2^16) stay below
    # OpenBLAS's threading threshold: one thread, as a busy shared machine wants (two BLAS
    # threads there cost 2-3x the wall time), but GEMV-like products are 3x slower than a
    # few large ones.  So: large products on one BLAS thread when NumPy's OpenBLAS lets us
    # say so (:func:`_one_blas_thread`), else the small ones.  ``small_products``: the small
    # ones always (the float64 values a report shows stay those of before issue 27).  The
    # bound above holds for any order of each sum: no guarantee depends on the choice.
    with _one_blas_thread(not small_products) as single:
        step = max(1, (1 << (26 if single else 18)) // right.size)
        for q0 in range(0, rows, step):
            np.matmul(left[q0:q0 + step], right, out=out[q0:q0 + step])
    gamma = n * U / (1 - n * U)
    per = 4.04 * U * length * float(theta.max()) + 16 * U
    eps = 1.01 * (n * per + 2 * gamma * n + U * n)
    count = length - start + 1
    if weight is None:
        return out.reshape(-1)[:count], eps
    total = float(weight.sum()) * (1 + n * U)
    return (out[:, :block].reshape(-1)[:count], eps, out[:, block:].reshape(-1)[:count],
            1.01 * total * (per + 2 * gamma + 2 * U))


class Kernel:
    """B(m; t) with rigorous error bounds, for m in 0 … L and float t = ln b."""

    def __init__(self, dim: int, length: int) -> None:
        self.n, self.length = dim // 2, length
        self.c = np.arange(self.n, dtype=np.float64) * (2.0 / dim)
        self.c2 = self.c ** 2
        self._at: tuple[float, np.ndarray] | None = None   # the last (t, θ(t)): reused
        self.gamma = self.n * U / (1 - self.n * U)
        self.evals = 0
        self.likely_good = False
        self.work = 0                       # work units spent (deterministic: no clock)
        self.sharpened = 0                  # exact re-evaluations (:meth:`sharpen`)
        self.budget: int | None = None      # work units past which the search stops
        self.deadline: float | None = None  # safety net: a process_time() value, or None
        self.stopped: str | None = None     # "work" or "time" once :meth:`spent` said so
        self._clock_at = 0                  # :meth:`spent` reads the clock from this work on

    def theta(self, t: float) -> np.ndarray:
        """θ_k = exp(−c_k·t) in float64 (the same array, bit for bit, for the same t: the
        last one is kept, as the sweep asks for it several times per point)."""
        if self._at is not None and self._at[0] == t:
            return self._at[1]
        theta = np.exp(-self.c * t)
        self._at = (t, theta)
        return theta

    def slope(self, a: float) -> float:
        """S with |∂B(m)/∂t| ≤ m·S on [a, ∞)."""
        return float((self.c * self.theta(a)).sum()) * (1 + 1e-9)

    def curvature(self, a: float) -> tuple[float, float]:
        """(S2, S3) with |∂²B(m)/∂t²| ≤ m²·S2 + m·S3 on [a, ∞)."""
        theta = self.theta(a)
        return (float((self.c2 * theta ** 2).sum()) * (1 + 1e-9),
                float((self.c2 * theta).sum()) * (1 + 1e-9))

    def spread(self, t: float, ms: np.ndarray | None, a: float, radius: float
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(m, B(m; t) in float64, half-width r_m): B(m; s) ∈ [value ± r_m] for |s − t| ≤ radius.

        r_m = ε_m + min(m·S·R, (|D_m| + δ_m)·R + ½(m²S2 + m·S3)·R²): the slope bound, or
        Taylor to second order around t with D_m = ∂B(m)/∂t at t (float64, within δ_m);
        the smaller of the two per m.
        """
        ms, vals, errs, deriv = self.values(t, ms)
        rate = ms * self.slope(a)
        self.parts = (errs, rate, None, None)
        first = rate * radius
        if deriv is None:
            self.moves = first
            return ms, vals, errs + first
        value, bound = deriv
        self.deriv = value
        s2, s3 = self.curvature(a)
        lin, quad = np.abs(value) + bound, (ms * ms * s2 + ms * s3) * (1 + 1e-9)
        self.parts = (errs, rate, lin, quad)
        second = lin * radius + 0.5 * quad * radius ** 2
        self.moves = np.minimum(first, second * (1 + 1e-9))
        return ms, vals, errs + self.moves

    def sharpen(self, t: float, ms: np.ndarray, vals: np.ndarray, spread: np.ndarray,
                pick: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """After :meth:`spread` at ``t``: the m = ``ms[pick]`` re-evaluated exactly at t
        (the float t is an exact binary number) by :func:`certified_value`, so that their
        error is the enclosure's, not float64's (near-degenerate B(m), e.g. m ≈ an odd
        multiple of π).  Returns (values, spread, sharpened): ``sharpened`` says which of
        ``pick`` got an enclosure (the others keep their float64 value and bound).
        :meth:`reach` then uses the new errors."""
        vals, spread = vals.copy(), spread.copy()
        errs = self.parts[0].copy()
        done = np.zeros(pick.size, dtype=bool)
        tt = Fraction(t)
        for j, i in enumerate(pick):
            if self.spent():
                break
            m = int(ms[i])
            bits = 64 + m.bit_length() + int(abs(t)).bit_length() + 16
            got = certified_value(kernel_expr(m, 2 * self.n), {LN_B: tt}, bits,
                                  SHARPEN_BITS, want=0.25, deadline=self.deadline,
                                  charge=self.charge)
            self.sharpened += 1
            if got is None:
                continue
            lo, hi = got[1], got[2]
            mid = float((lo + hi) / 2)
            rad = float(max(hi - Fraction(mid), Fraction(mid) - lo)) * (1 + 4 * U) + 1e-300
            if rad >= errs[i]:
                continue
            vals[i], errs[i] = mid, rad
            spread[i] = (rad + self.moves[i]) * (1 + 4 * U)
            done[j] = True
        self.parts = (errs, *self.parts[1:])
        return vals, spread, done

    def charge(self, bits: int) -> None:
        """Account one exact enclosure of B(m) at ``bits`` of precision."""
        self.work += CALL_WORK + BIT_WORK * self.n * int(bits)

    def spent(self) -> bool:
        """Whether the search must stop: its work ``budget`` (deterministic) is used up, or
        the safety net ``deadline`` (a ``time.process_time`` value: CPU seconds of the
        process, which machine load barely changes; for runaway work only) passed.
        The first reason is kept in ``stopped`` ("work" or "time")."""
        if self.budget is not None and self.work > self.budget:
            self.stopped = self.stopped or "work"
            return True
        if self.stopped == "time":
            return True
        if self.deadline is not None and self.work >= self._clock_at:
            # the process CPU clock costs up to ~0.1 ms a reading on a busy machine (the
            # kernel sums every thread's time): read it once per CLOCK_WORK units of work
            self._clock_at = self.work + CLOCK_WORK
            if time.process_time() > self.deadline:
                self.stopped = self.stopped or "time"
                return True
        return False

    def reach(self, margin: np.ndarray, pick: np.ndarray) -> np.ndarray:
        """Per m (``pick`` into the last :meth:`spread`): the radius r around its t over which
        |B(m; s) − value| stays below ``margin`` (> ε_m) by the same two bounds."""
        errs, rate, lin, quad = (None if x is None else x[pick] for x in self.parts)
        room = margin - errs
        r = room / np.maximum(rate, 1e-300)
        if lin is not None:  # ½q r² + l r = room  ⇔  r = 2·room / (l + √(l² + 2q·room))
            with np.errstate(invalid="ignore"):     # room ≤ 0: no ball, answered below
                r = np.maximum(r, 2 * room / (lin + np.sqrt(lin * lin + 2 * quad * room)))
        return np.where(room > 0, r * (1 - 1e-6), 0.0)

    def values(self, t: float, ms: np.ndarray | None, start: int = 0, small_products: bool = False
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, Any]:
        """(m, B(m; t) in float64, error bound per m, (∂B/∂t, its error bound) or None);
        ``ms`` None: every m from ``start`` to L.  ``small_products``: the GEMM in small products
        (slower; the float64 values a report shows stay those of earlier versions)."""
        theta = self.theta(t)
        rho = (2.1 * abs(t) + 4) * U
        total = float(theta.sum())
        self.evals += 1
        if ms is None or ms.size > (self.length + 1) // 8:
            start = start if ms is None else 0
            self.work += (self.length - start + 1) * self.n // 4 + CALL_WORK
            weight = self.c * theta         # w_k = c_k θ_k, within ρ + 2u relative
            vals, eps, wvals, weps = _kernel_values(theta, self.length, weight, start,
                                                    small_products)
            every = np.arange(start, self.length + 1)
            errs = eps + 1.01 * every * total * rho
            # ∂B/∂t = m·W(m); W's terms also move by w_k·mθ_k·ρ (θ) and w_k·(ρ + 2u) (w)
            bound = 1.02 * every * (weps + every * float((weight * theta).sum()) * rho
                                    + float(weight.sum()) * (rho + 2 * U))
            deriv = (every * wvals, bound)
            if ms is None:
                return every, vals, errs, deriv
            return ms, vals[ms], errs[ms], (deriv[0][ms], bound[ms])
        weight = self.c * theta             # w_k = c_k θ_k, within ρ + 2u relative
        chunk = max(1, (1 << 20) // self.n)     # bounded memory; a run split here restarts
        if 0 < ms.size <= chunk:    # one chunk (the sweep's pools): the same numbers, leaner
            fresh = np.empty(ms.size, dtype=bool)
            fresh[0] = True
            np.not_equal(ms[1:] - ms[:-1], 1, out=fresh[1:])
            vals, sins, steps = _runs(ms, theta, fresh)
            deriv = ms * (sins @ weight)
            breaks = int(np.count_nonzero(fresh)) - 1
        else:
            vals, deriv, steps = np.empty(ms.size), np.empty(ms.size), np.empty(ms.size)
            for i in range(0, ms.size, chunk):
                part = slice(i, i + chunk)
                vals[part], sins, steps[part] = _runs(ms[part], theta)
                deriv[part] = ms[part] * (sins @ weight)
            breaks = int(np.count_nonzero(np.diff(ms) != 1))
        self.work += (2 * ms.size + 4 * breaks) * self.n + CALL_WORK
        # term k: the phase m·θ_k off by mθ_k(ρ + 2u) (θ's error and the product's), the
        # run's recurrence by (9 + 9.1·j)·u (see _runs), the sum over k by γ_n·Σ|terms|
        walk = (9 + 9.1 * steps) * U
        errs = 1.01 * (ms * total * (rho + 2 * U) + self.n * walk + self.gamma * self.n)
        # each term m·w_k·sin(mθ_k): as above for sin, w_k by ρ + 2u, the products by 2u
        wsum = float(weight.sum())
        bound = 1.02 * ms * (ms * float((weight * theta).sum()) * (rho + 2 * U)
                             + wsum * (rho + 8 * U + self.gamma + walk))
        return ms, vals, errs, (deriv, bound)


def _runs(ms: np.ndarray, theta: np.ndarray, fresh: np.ndarray | None = None
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(Σ_k cos(mθ_k), [sin(mθ_k)]_k, j) for sorted distinct m, by runs of consecutive m.

    A run m0, m0 + 1, … starts from z0 = e^{i·fl(m0·θ)} (one cos and sin per k) and
    steps by powers P_j = w^j of w = e^{iθ} (a product per step, no trig), so m = m0 + j
    gives z0·P_j.  Error of a term against e^{i(m0·θ + jθ)} with θ the float θ_k:
    |w − e^{iθ}| ≤ √2·4u and each complex product adds ≤ √2·γ_2 relative (Higham,
    Lemma 3.5), so |P_j − e^{ijθ}| ≤ j·(5.66u + 2.83u)·1.01 ≤ 8.6u·j while 8.6u·j ≪ 1,
    and z0·P_j is within 5.66u + 3u + 8.6u·j·1.01 ≤ (9 + 9.1j)·u; the phase m0·θ itself
    is within m0·θ·u, covered by the caller's m·θ·(ρ + 2u).  The real and imaginary
    parts are each within the same bound.  ``fresh`` (optional): where a run starts
    (``np.diff(ms) != 1`` after a leading True), when the caller has it."""
    if fresh is None:
        fresh = np.r_[True, np.diff(ms) != 1]
    starts = np.flatnonzero(fresh)
    run = np.cumsum(fresh) - 1
    steps = np.arange(ms.size) - starts[run]
    # P_j = w^j, one row per k (a contiguous cumprod: the same products, in less time)
    power = np.empty((theta.size, int(steps.max(initial=0)) + 1), dtype=np.complex128)
    power[:, 0] = 1.0
    power.real[:, 1:] = np.cos(theta)[:, None]   # w = e^{iθ}: cos θ + i·sin θ
    power.imag[:, 1:] = np.sin(theta)[:, None]
    np.cumprod(power, axis=1, out=power)
    power = power.T
    phase = np.multiply.outer(ms[starts].astype(np.float64), theta)
    head = np.empty(phase.shape, dtype=np.complex128)
    np.cos(phase, out=head.real)
    np.sin(phase, out=head.imag)
    z = head.take(run, axis=0)
    z *= power.take(steps, axis=0)
    return z.real.sum(axis=1), z.imag, steps.astype(np.float64)


def _block_floor(kernel: Kernel, a: float, c: float, m0: np.ndarray, m1: np.ndarray
                 ) -> np.ndarray:
    """Per block: a certified lower bound of B(m; t) over m ∈ [m0, m1] and t ∈ [a, c].

    Term k's phase mθ_k(t) lies in [m0·θ_k(c), m1·θ_k(a)] (θ_k decreases in t), widened
    by its float error (ρ + 2u relative); cos over that range is ≥ −1 if it holds an
    odd multiple of π, else ≥ its smaller end value (cos has no other interior
    minimum), less 4u for cos itself; the sum over k loses ≤ γ_n·n more."""
    rho = (2.1 * max(abs(a), abs(c)) + 4) * U + 2 * U
    hi = np.multiply.outer(m1.astype(np.float64), np.exp(-kernel.c * a))
    lo = np.multiply.outer(m0.astype(np.float64), np.exp(-kernel.c * c))
    hi += hi * rho
    lo -= lo * rho
    slack = 1e-12 * (hi + 10)   # far above the rounding of the odd-multiple test
    odd = (2 * np.floor((hi - math.pi) / (2 * math.pi) + slack) + 1) * math.pi
    term = np.where(odd >= lo - slack, -1.0, np.minimum(np.cos(lo), np.cos(hi)))
    kernel.work += m0.size * kernel.n * 4 + CALL_WORK
    return term.sum(axis=1) - 1.01 * (kernel.gamma + 4 * U) * kernel.n


def block_doubt(kernel: Kernel, a: float, c: float, budget: int, width: int = 256,
                 give_up: float = 0.5) -> np.ndarray | None:
    """The m ≤ L that blocks of m (halved down to single m) leave in doubt on [a, c]:
    every other m is certified B(m; t) ≥ 0 on all of [a, c] by :func:`_block_floor`.
    None once more than ``budget`` blocks would be needed, or when more than ``give_up``
    of the first blocks fail (no information)."""
    m0 = np.arange(0, kernel.length + 1, width)
    m1 = np.minimum(m0 + width - 1, kernel.length)
    used = 0
    while m0.size:
        used += m0.size
        if used > budget:
            return None
        keep = _block_floor(kernel, a, c, m0, m1) < 0
        if used == keep.size and keep.mean() > give_up:  # hopeless: most blocks fail at once
            return None
        m0, m1 = m0[keep], m1[keep]
        if (m0 == m1).all():
            break
        one, mid = m0 == m1, (m0 + m1) // 2
        m0 = np.concatenate([m0[one], m0[~one], mid[~one] + 1])
        m1 = np.concatenate([m1[one], mid[~one], m1[~one]])
    return np.sort(m0)


def good_tail(kernel: Kernel, t_lo: float, t_hi: float, steps: int = 10) -> float:
    """The smallest t_c (on a grid of ``steps`` bisections) with [t_c, t_hi] certified all
    good in one piece by :func:`block_doubt`; t_hi if none."""
    def good(t: float) -> bool:
        # first one float64 evaluation at t with its rigorous bound: an m certainly negative
        # there means [t, t_hi] is not all good, so the blocks (a rigorous lower bound) would
        # fail too: the same answer, without their cost (3 to 7 s at L = 2^20 low in the range)
        _, vals, errs, _ = kernel.values(t, None)
        if (vals + errs < 0).any():
            return False
        doubt = block_doubt(kernel, t, t_hi, kernel.length // 2 + 512, give_up=1.0)
        return doubt is not None and doubt.size == 0
    hi, lo = t_hi, t_lo
    if good(t_lo):
        return t_lo
    for _ in range(steps):
        if kernel.spent():
            break
        mid = 0.5 * (hi + lo)
        hi, lo = (mid, lo) if good(mid) else (hi, mid)
    return hi


def sweep_good_down(kernel: Kernel, t_floor: float, t_top: float,
                     smallest: float = 1e-4) -> float:
    """Extend an all-good [t_top, …] downwards: steps [t − w, t] certified all good (blocks
    of m, then the few m left by :meth:`Kernel.spread` on the whole step), w growing on
    success and halving on failure; stops once w < ``smallest``.  Returns the new end."""
    t, w, few = t_top, 0.01, (kernel.length + 1) // 8
    while t > t_floor and w >= smallest and not kernel.spent():
        a = max(t_floor, t - w)
        doubt = block_doubt(kernel, a, t, few, give_up=0.9)
        ok = doubt is not None and not doubt.size
        if doubt is not None and doubt.size:
            p = 0.5 * (a + t)
            _, vals, spread = kernel.spread(p, doubt, a, max(t - p, p - a) * (1 + 4 * U))
            ok = bool((vals - spread > 0).all())
        t, w = (a, 1.5 * w) if ok else (t, 0.5 * w)
    return t
