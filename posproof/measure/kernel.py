"""The offset kernel f(Δ) = Σ_k cos(ω_k Δ) at GEMM speed, with a rigorous error bound, and the
certified extremes and crossings found by scanning it.

**The offset kernel.**  By the dot-product theorem, PE(x)·PE(y) = f(x − y) with

    f(Δ) = Σ_k cos(ω_k Δ)            (n = number of (sin, cos) pairs)

so ‖PE(x) − PE(y)‖² = 2(n − f(x − y)) and every pairwise question about L
positions is a question about f on Δ = 0 … L−1.  :class:`OffsetKernel`
evaluates f as a matrix product: with Δ = qB + r, r ∈ [−B/2, B/2),

    f(qB ± r) = Σ_k cos φ_k(q) cos ψ_k(r) ∓ Σ_k sin φ_k(q) sin ψ_k(r),

φ_k(q) = ω_k·qB, ψ_k(r) = ω_k·r: two real GEMMs of shape (Q × n)·(n × B/2)
(the real part of A·Bᵀ with A[q,k] = e^{iφ_k(q)}, B[r,k] = e^{iψ_k(r)},
using cos(a−b) = cos(a+b) + 2 sin a sin b to fold ±r: 2·L·n flops), streamed
in chunks of about 2²¹ values, so any L streams in bounded memory.

**Phases in exact fixed point.**  The angle step ω_k·B mod 2π is computed
once in mpmath and stored as a 64-bit fixed-point fraction of a turn,
a_k = round(2⁶⁴·frac(ω_k B / 2π)) (and b_k likewise for ω_k).  Then
q·a_k mod 2⁶⁴ is exact integer arithmetic (uint64 wraps modulo one turn), so
the phase of every term is reduced modulo 2π without error growth in x·ω:

**Error bound** (u = 2⁻⁵³, t = 4u the budget for one NumPy sin/cos — measured
at ≤ 0.51 ulp on x86-64 —, Q = largest q of the scan, R = B/2):

* phase of φ_k(q): fixed-point rounding q·2⁻⁶⁵ turns, int→float conversion
  2⁻⁵⁴ turns, scaling by 2π/2⁶⁴ ≤ 2u·π:  δφ ≤ π(Q·2⁻⁶⁴ + 3u + u²); same for ψ
  with R;
* sin/cos values: each within t, so each term cos φ cos ψ ∓ sin φ sin ψ is
  within 2√2·t + 2t² of the value at the rounded phases, which is within
  δφ + δψ of the exact term;
* the two GEMMs: any summation order (blocked, FMA) obeys Higham's
  |fl(Σ aᵢbᵢ) − Σ aᵢbᵢ| ≤ γ_n Σ|aᵢbᵢ|, γ_n = nu/(1 − nu), and
  |cos φ cos ψ| + |sin φ sin ψ| ≤ 1, so the two sums err by ≤ γ_n·n(1 + 2√2t + 2t²);
  the final ± adds u·n.

    ε = n(δφ + δψ + 2√2t + 2t²) + γ_n n (1 + 2√2t + 2t²) + u n      (× 1.000001)

This is a rigorous worst case, independent of the BLAS, for the exact
frequencies (not their float64 roundings): 8.2e-12 for n = 256 (d = 512)
and 3.1e-11 for n = 512 at L = 10⁶, dominated by γ_n·n; the errors observed
against mpmath are 6e-14 and 2e-13.

>>> kernel = OffsetKernel(Encoding(Geometric(10000), "interleaved", 8))
>>> kernel.n, kernel.values(0, 3).round(6).tolist()
(4, [4.0, 3.535256, 2.563718])
>>> kernel.bound(3) < 1e-13
True
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
import sympy as sp
from mpmath.libmp import (
    finf,
    from_int,
    from_rational,
    fzero,
    mpf_abs,
    mpf_add,
    mpf_cos,
    mpf_le,
    mpf_mul,
    mpf_neg,
    mpf_shift,
    mpf_sign,
    mpf_sin,
    mpf_sub,
    round_ceiling,
    round_floor,
)

from .. import validated
from ..errors import InvalidParameter
from ..evidence import Sign, Spot
from ..model.encoding import DELTA, Encoding
from ..precise import DEFAULT_DPS, mp_values
from ..validated import BUDGET_BITS
from .dtypes import TRIG_ULPS, U
from .translation import pair_frequencies

__all__ = [
    "Crossing",
    "Decision",
    "Extreme",
    "OffsetKernel",
    "Scan",
    "block_for",
    "exact_rational",
]


#: Kernel values computed per chunk (≈ 16 MB of float64).
CHUNK_VALUES = 1 << 21
#: At most this many kernel values are kept in memory (128 MB); longer scans stream.
CACHE_VALUES = 1 << 24


_RAD_PER_UNIT = math.tau * 2.0 ** -64          # exact power-of-two scaling of fl(2π)
_MAX_BLOCK = 4096
_CALL_BLOCK = 4096
_FIXED_DPS = 80                                 # digits for the fixed-point phases
#: Bits of the frequency enclosures made for the fixed-point phases (precise.mp_value at
#: 80 digits): the first rung of the ladder the certified values use.
_OMEGA_BITS = int(_FIXED_DPS * 3.33) + 24
#: Certified enclosures kept per kernel before the cache is cleared.
_IV_CACHE = 4096
#: Exact rewriting (validated.sign on the SymPy sum) is tried up to this many cosines.
_SYMPY_TERMS = 64
#: Near-ties of the maximum are separated by raising the precision up to this many bits,
#: while (offsets left) × n is at most _ELIMINATE_TERMS.
_ELIMINATE_BITS = 4096
_ELIMINATE_TERMS = 4096
_SYMPY_BITS = 4096
#: Up to this many cosines, SymPy's automatic rewriting is tried (it may cancel the sum).
_SYMPY_CANCEL_TERMS = 1024
#: A scan stops (undecided) after this many signs that needed more than the first precision.
_MAX_HARD = 16
#: cos(2πu) for the u ∈ [0, 1/2] whose cosine is rational (Niven).
_RATIONAL_COS = {sp.Integer(0): sp.Integer(1), sp.Rational(1, 6): sp.Rational(1, 2),
                 sp.Rational(1, 4): sp.Integer(0), sp.Rational(1, 3): sp.Rational(-1, 2),
                 sp.Rational(1, 2): sp.Integer(-1)}


def _ends(func: Callable[..., Any], x: Any, prec: int) -> tuple[Any, Any]:
    """Raw ends enclosing func(x) (mpf_cos or mpf_sin): the value rounded down at ``prec``
    bits, widened by 1 ulp below and 2 ulp above."""
    y = func(x, prec, round_floor)
    if y[1] == 0:                                      # 0 (cannot happen for x ≠ 0): be wide
        wide = (0, 1, -prec, 1)
        return mpf_neg(wide), wide
    ulp = (0, 1, y[2] + y[3] - prec, 1)
    return (mpf_sub(y, ulp, prec, round_floor),
            mpf_add(y, mpf_shift(ulp, 1), prec, round_ceiling))


def _budget_bits(terms: int) -> int:
    """The largest precision (bits) a decision over ``terms`` cosines may reach: BUDGET_BITS
    (≈ 4900 digits) for short sums, halved while terms × (the cost of one cosine, measured
    at about 17 ms at 16384 bits, growing like bits²) exceeds a second.

    >>> _budget_bits(2), _budget_bits(512), _budget_bits(65536)
    (16384, 4096, 512)
    """
    bits = BUDGET_BITS
    while bits > 512 and terms * 0.017 * (bits / 16384) ** 2 > 1.0:
        bits //= 2
    return bits


def _mul(a: sp.Expr, b: sp.Expr) -> sp.Expr:
    """a·b unevaluated (exact numbers commute: no assumption queries)."""
    return sp.Mul._from_args((a, b), True)


def _key_mpf(x: Any) -> mpmath.mpf:
    return mpmath.mp.make_mpf(x)


def exact_rational(value: Any) -> sp.Rational:
    """A threshold as an exact rational: int, Fraction, SymPy Rational, or the exact binary
    value of a float / mpmath number.

    >>> exact_rational(0.5), exact_rational(mpmath.mpf(-3)), exact_rational(Fraction(1, 3))
    (1/2, -3, 1/3)
    """
    if isinstance(value, bool):
        raise InvalidParameter(f"threshold={value!r} is not a number")
    if isinstance(value, int):
        return sp.Integer(value)
    if isinstance(value, Fraction):
        return sp.Rational(value.numerator, value.denominator)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidParameter(f"threshold={value!r} is not a finite number")
        return sp.Rational(*value.as_integer_ratio())
    if isinstance(value, mpmath.mpf):
        if not mpmath.isfinite(value):
            raise InvalidParameter(f"threshold={value!r} is not a finite number")
        sign, man, exp, _ = value._mpf_
        return (-1 if sign else 1) * sp.Integer(int(man)) * sp.Integer(2) ** exp
    value = sp.sympify(value)
    if not value.is_Rational:
        raise InvalidParameter(f"threshold={value} is not an exact rational; pass a rational "
                               "number or the offset whose kernel value is the threshold (at=)")
    return value


@dataclass(frozen=True)
class Decision:
    """The certified sign of an exact kernel quantity, decided by interval arithmetic.

    ``kind="cos"``: Q = Σ_{Δ∈plus} f(Δ) − Σ_{Δ∈minus} f(Δ) − ``const`` (exact rational);
    ``kind="gap"``: Q = Σ_k sin²(ω_k Δ/2) at Δ = ``plus[0]`` (= ‖PE(x+Δ) − PE(x)‖²/4).
    ``sign`` is −1, 0, 1 or ``None`` (undecided within :data:`~posproof.validated.BUDGET_BITS`
    bits); 0 only when proved exactly (``how``: ``"exact turns"`` — every ω_k/2π is a
    proved rational and the cosines cancel or are rational —, or ``"exact rewriting"``
    — :func:`posproof.validated.sign`).  ``lo``, ``hi`` enclose Q (exact binary numbers)
    at ``bits`` bits.
    """

    plus: tuple[int, ...]
    minus: tuple[int, ...]
    const: sp.Rational
    sign: int | None
    lo: mpmath.mpf
    hi: mpmath.mpf
    bits: int
    how: str
    kind: str = "cos"

    @property
    def relation(self) -> str | None:
        return {1: "positive", -1: "negative", 0: "zero"}.get(self.sign)  # type: ignore[arg-type]


@dataclass
class Extreme:
    """The certified largest kernel value over a range, i.e. the closest approach.

    ``delta`` is the smallest offset attaining it (``decided``: proved; otherwise the
    smallest offset that could not be excluded, see ``note``); ``f`` its float64 value
    (within ``bound`` of the exact value), ``f_mp`` the exact value to ``dps`` digits
    (interval arithmetic); ``distance`` = √(2(n − f)) in float64 (within
    ``distance_bound``) and ``distance_mp`` = √(4 Σ sin²(ω_k Δ/2)) to ``dps`` digits — 0
    only when proved exactly 0.  ``collision`` is True when that distance is proved 0,
    False when every offset of the range is certified to have a distance > 0, ``None``
    when undecided.  ``candidates`` is how many offsets within 2·bound of the float64
    maximum were certified (``truncated``: more were within it and the largest float64
    values were kept); ``consistent`` is False when a float64 value disagreed with the
    certified value beyond its bound.  ``decisions`` are the certified signs that
    decided it (for :mod:`posproof.evidence`).
    """

    delta: int
    f: float
    f_mp: mpmath.mpf
    bound: float
    distance: float
    distance_bound: float
    distance_mp: mpmath.mpf
    candidates: int
    truncated: bool = False
    consistent: bool = True
    dps: int = DEFAULT_DPS
    decided: bool = True
    collision: bool | None = False
    decisions: list[Decision] = field(default_factory=list)
    note: str | None = None


@dataclass
class Scan:
    """What a :meth:`OffsetKernel.first_crossing` / :meth:`~OffsetKernel.first_increase` scan
    decided, filled in whether or not it found a crossing: ``bound`` (the float64 margin),
    ``rechecked`` (offsets decided by certified signs), ``decisions`` (a few of those
    signs), ``closest`` (offset, float64 value) decided by the bound alone nearest the
    threshold."""

    bound: float = 0.0
    rechecked: int = 0
    decisions: list[Decision] = field(default_factory=list)
    closest: tuple[int, float] | None = None


@dataclass
class Crossing:
    """The certified first offset at which a kernel condition holds.

    ``delta`` is the first offset; ``value`` the float64 value there (kernel
    value, or difference f(Δ+1) − f(Δ)), ``value_mp`` and ``previous_mp`` the
    certified values (``dps`` digits) at ``delta`` and ``delta − 1``; ``rechecked``
    counts the earlier offsets within the float64 bound whose sign was decided by
    interval arithmetic.  ``decided`` is False when the sign at ``delta`` could not
    be decided (the first crossing is then at ``delta`` or later: unknown, see
    ``note``).  ``decisions`` are the certified signs at ``delta``, ``delta − 1`` and
    the rechecked offsets (at most a few); ``closest`` = (offset, float64 value) of
    the offset decided by the float64 bound alone that came closest to the threshold.
    """

    delta: int
    value: float
    value_mp: mpmath.mpf
    previous_mp: mpmath.mpf | None
    bound: float
    rechecked: int = 0
    consistent: bool = True
    dps: int = DEFAULT_DPS
    decided: bool = True
    decisions: list[Decision] = field(default_factory=list)
    closest: tuple[int, float] | None = None
    note: str | None = None


def block_for(length: int) -> int:
    b = math.isqrt(max(int(length), 1) - 1) + 1
    b += b % 2
    return min(max(b, 2), _MAX_BLOCK)


def _kernel_bound(n: int, q_max: int, r_max: int) -> float:
    t = TRIG_ULPS * U
    d_phi = math.pi * (q_max * 2.0 ** -64 + 3 * U + U * U)
    d_psi = math.pi * (r_max * 2.0 ** -64 + 3 * U + U * U)
    trig = 2 * math.sqrt(2) * t + 2 * t * t
    gamma = n * U / (1 - n * U)
    eps = n * (d_phi + d_psi + trig) + gamma * n * (1 + trig) + U * n
    return eps * (1 + 1e-6)


class OffsetKernel:
    """f(Δ) = Σ_k cos(ω_k Δ) for an encoding's pairs; PE(x)·PE(y) = f(x − y).

    ``source`` is an :class:`Encoding` (its (sin, cos) pairs must share one
    frequency: the dot-product theorem) or a sequence of exact frequencies.
    See the module docstring for the algorithm and the error bound.

    >>> k = OffsetKernel([1, sp.Rational(1, 2)])
    >>> k.expr
    Sum(cos(delta*omega[k]), (k, 0, 1))
    >>> float(k.mp(3)) == math.cos(3) + math.cos(1.5)
    True
    """

    def __init__(self, source: Encoding | Sequence[Any]) -> None:
        if isinstance(source, Encoding):
            freqs = pair_frequencies(source)
            self.name = source.name
        else:
            from ..model.schedules import exact_number

            if isinstance(source, (str, bytes)) or not isinstance(source, Sequence) or not source:
                raise InvalidParameter(
                    f"frequencies={source!r}; pass an Encoding or a non-empty list of numbers")
            freqs = [exact_number(f"frequencies[{i}]", v) for i, v in enumerate(source)]
            self.name = "kernel"
        self.frequencies: tuple[sp.Expr, ...] = tuple(freqs)
        self.n = len(freqs)
        self._mp_cache: dict[int, list[mpmath.mpf]] = {}
        self._value_cache: dict[tuple[str, int, int], mpmath.mpf] = {}
        self._omega_iv: dict[int, list[tuple[Any, Any]] | None] = {}
        self._iv_cache: dict[tuple[str, int, int], tuple[Any, Any]] = {}
        self._decisions: dict[tuple[Any, ...], Decision] = {}
        self._turns_exact: list[sp.Rational | None] | None = None
        mp = self._omega_mp(_FIXED_DPS)
        self.omega = np.array([float(w) for w in mp], dtype=np.float64)
        if not np.all(np.isfinite(self.omega)):
            raise InvalidParameter(f"{self.name}: a frequency is not finite ({self.omega})")
        self._fixed: dict[int, np.ndarray] = {}
        self._plans: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        self._cache: np.ndarray | None = None
        self._cache_bound = 0.0

    # ------------------------------------------------------------------ exact side
    @property
    def expr(self) -> sp.Expr:
        """The kernel as a SymPy sum over the pair index."""
        k = sp.Symbol("k", integer=True, nonnegative=True)
        return sp.Sum(sp.cos(sp.IndexedBase("omega")[k] * DELTA), (k, 0, self.n - 1))

    def _omega_mp(self, dps: int) -> list[mpmath.mpf]:
        if dps not in self._mp_cache:
            # values already certified to more digits serve (all n of them cost seconds at
            # large d for each new precision)
            more = [d for d in self._mp_cache if d >= dps]
            if more:
                self._mp_cache[dps] = self._mp_cache[min(more)]
            else:   # a margin, so that the next few precisions asked for reuse these
                self._mp_cache[dps] = self._mp_cache[dps + 60] = mp_values(
                    self.frequencies, dps + 60)
        return self._mp_cache[dps]

    # ------------------------------------------------------------------ certified values
    def _omega_ends(self, bits: int) -> list[tuple[Any, Any]] | None:
        """Enclosures (raw mpf ends) of the exact frequencies, each to about ``bits`` bits or more.

        Precisions follow a ladder from the enclosures :func:`~posproof.precise.mp_values`
        already made for the fixed-point phases (cached by :mod:`posproof.validated`).
        ``None`` when a frequency cannot be enclosed.
        """
        rung = _OMEGA_BITS
        while rung < bits:
            rung *= 2
        if rung not in self._omega_iv:
            try:
                ends = [validated.enclose(w, prec=rung)._mpi_ for w in self.frequencies]
            except validated.Unenclosable:
                ends = None
            self._omega_iv[rung] = ends
        return self._omega_iv[rung]

    def _mag_bits(self, delta: int) -> int:
        """log2(max|ω|·|Δ|): the bits an angle ω·Δ carries before its fractional part."""
        top = float(np.abs(self.omega).max()) * abs(int(delta)) + 2.0
        return max(0, math.ceil(math.log2(top)))

    def _term_sum(self, delta: int, prec: int, kind: str) -> tuple[Any, Any] | None:
        """Raw ends of f(Δ) (``kind="cos"``) or of Σ_k sin²(ω_k Δ/2) (``"gap"``), to about
        n·2^-prec absolutely.

        Each ω_k·Δ is enclosed exactly from the validated ends of ω_k (an exact product),
        cos/sin is evaluated at the midpoint rounded down (the directed rounding
        :mod:`mpmath.ctx_iv` itself rests on), widened by one unit in the last place below
        and two above (a margin for that rounding) and by the half-width of the angle
        (cos and sin are 1-Lipschitz); sums are rounded outward.
        """
        delta = abs(int(delta))
        key = (kind, delta, prec)
        if key in self._iv_cache:
            return self._iv_cache[key]
        omegas = self._omega_ends(prec + self._mag_bits(delta) + 16)
        if omegas is None:
            return None
        work = prec + self.n.bit_length() + 8
        d = from_int(delta)
        lo = hi = fzero
        for a, b in omegas:
            a, b = mpf_mul(a, d), mpf_mul(b, d)                 # exact
            if kind == "gap":
                a, b = mpf_shift(a, -1), mpf_shift(b, -1)
            mid = mpf_shift(mpf_add(a, b), -1)                   # exact
            rad = mpf_shift(mpf_sub(b, a), -1)                   # exact
            if kind == "cos":
                c_lo, c_hi = _ends(mpf_cos, mid, work)
                t_lo = mpf_sub(c_lo, rad, work, round_floor)
                t_hi = mpf_add(c_hi, rad, work, round_ceiling)
            else:
                c_lo, c_hi = _ends(mpf_sin, mid, work)
                s_lo = mpf_sub(c_lo, rad, work, round_floor)
                s_hi = mpf_add(c_hi, rad, work, round_ceiling)
                if mpf_sign(s_lo) > 0:
                    t_lo = mpf_mul(s_lo, s_lo, work, round_floor)
                    t_hi = mpf_mul(s_hi, s_hi, work, round_ceiling)
                elif mpf_sign(s_hi) < 0:
                    t_lo = mpf_mul(s_hi, s_hi, work, round_floor)
                    t_hi = mpf_mul(s_lo, s_lo, work, round_ceiling)
                else:
                    t_lo = fzero
                    t_hi = max(mpf_mul(s_lo, s_lo, work, round_ceiling),
                               mpf_mul(s_hi, s_hi, work, round_ceiling), key=_key_mpf)
            lo = mpf_add(lo, t_lo, work, round_floor)
            hi = mpf_add(hi, t_hi, work, round_ceiling)
        if len(self._iv_cache) > _IV_CACHE:
            self._iv_cache.clear()
        self._iv_cache[key] = (lo, hi)
        return lo, hi

    def _quantity(self, plus: tuple[int, ...], minus: tuple[int, ...], const: sp.Rational,
                  prec: int, kind: str) -> tuple[Any, Any] | None:
        """Raw ends of the quantity of a :class:`Decision` at ``prec`` bits."""
        work = prec + 16
        lo = hi = fzero
        for deltas, sgn in ((plus, 1), (minus, -1)):
            for d in deltas:
                ends = self._term_sum(d, prec, kind)
                if ends is None:
                    return None
                t_lo, t_hi = ends if sgn > 0 else (mpf_neg(ends[1]), mpf_neg(ends[0]))
                lo = mpf_add(lo, t_lo, work, round_floor)
                hi = mpf_add(hi, t_hi, work, round_ceiling)
        if const != 0:
            p, q = int(const.p), int(const.q)
            lo = mpf_sub(lo, from_rational(p, q, work, round_ceiling), work, round_floor)
            hi = mpf_sub(hi, from_rational(p, q, work, round_floor), work, round_ceiling)
        return lo, hi

    def _start_bits(self, dps: int) -> int:
        return 32 * math.ceil((dps * 3.33 + 16) / 32)

    def decide(self, plus: Sequence[int], minus: Sequence[int] = (), const: Any = 0, *,
               kind: str = "cos", dps: int = DEFAULT_DPS,
               budget_bits: int | None = None) -> Decision:
        """The certified sign of Σ_{plus} f − Σ_{minus} f − const (``kind="cos"``) or of
        Σ_k sin²(ω_k Δ/2) at Δ = plus[0] (``kind="gap"``); see :class:`Decision`.

        The precision starts at ``dps`` digits and doubles up to ``budget_bits`` (default
        :data:`~posproof.validated.BUDGET_BITS`, lowered for long sums so that one decision
        takes about a second at most: :func:`_budget_bits`); an enclosure that excludes 0
        decides ±1; 0 is answered only when proved exactly.

        >>> k = OffsetKernel([sp.pi / 2])
        >>> k.decide([1]).sign, k.decide([2]).sign, k.decide([3], [1]).sign
        (0, -1, 0)
        >>> OffsetKernel([1, sp.pi - 1 + sp.Rational(1, 10**45)]).decide([1]).sign
        -1
        """
        plus_t = tuple(abs(int(d)) for d in plus)
        minus_t = tuple(abs(int(d)) for d in minus)
        terms = (len(plus_t) + len(minus_t)) * self.n
        budget_bits = _budget_bits(terms) if budget_bits is None else int(budget_bits)
        c = exact_rational(const)
        key = (kind, plus_t, minus_t, c, dps, budget_bits)
        if key in self._decisions:
            return self._decisions[key]
        prec = self._start_bits(dps)
        lo = hi = None
        tried_exact = False
        how = "interval"
        sign: int | None = None
        bits = prec
        while prec <= budget_bits:
            ends = self._quantity(plus_t, minus_t, c, prec, kind)
            if ends is None:
                how = "not enclosable"
                break
            lo, hi, bits = ends[0], ends[1], prec
            if mpf_sign(lo) > 0:
                sign = 1
                break
            if mpf_sign(hi) < 0:
                sign = -1
                break
            if not tried_exact and prec >= 2 * self._start_bits(dps):
                tried_exact = True
                exact, how_exact = self._exact_sign(plus_t, minus_t, c, kind)
                if exact is not None:
                    sign, how = exact, how_exact
                    break
            prec *= 2
        if sign is None and not tried_exact:
            exact, how_exact = self._exact_sign(plus_t, minus_t, c, kind)
            if exact is not None:
                sign, how = exact, how_exact
        if sign is None and how == "interval":
            how = f"undecided within {budget_bits} bits"
        mk = mpmath.mp.make_mpf
        result = Decision(plus_t, minus_t, c, sign, mk(lo if lo is not None else finf),
                          mk(hi if hi is not None else finf), bits, how, kind)
        self._decisions[key] = result
        return result

    # .................................................................. exact zeros
    def _exact_turns(self) -> list[sp.Rational | None]:
        """ω_k/2π as a proved rational (:func:`posproof.validated.exact_ratio`), else None."""
        if self._turns_exact is None:
            out: list[sp.Rational | None] = []
            for w in self.frequencies:
                r = validated.exact_ratio(sp.sympify(w), 2 * sp.pi)
                out.append(r if isinstance(r, sp.Rational) else None)
                if out[-1] is None:
                    break                       # one unknown turn: no exact shortcut
            self._turns_exact = out
        return self._turns_exact

    def _exact_sign(self, plus: tuple[int, ...], minus: tuple[int, ...], c: sp.Rational,
                    kind: str) -> tuple[int | None, str]:
        """An exact sign when the turns ω_k/2π are proved rational, or by exact rewriting."""
        turns = self._exact_turns()
        if len(turns) == self.n and all(t is not None for t in turns):
            if kind == "gap":
                whole = all((t * plus[0]).q == 1 for t in turns)      # type: ignore[union-attr]
                return (0, "exact turns") if whole else (None, "")
            count: dict[sp.Rational, int] = {}
            for deltas, sgn in ((plus, 1), (minus, -1)):
                for d in deltas:
                    for t in turns:
                        u = (t * d) % 1                                # type: ignore[operator]
                        u = min(u, 1 - u)
                        count[u] = count.get(u, 0) + sgn
            total = -c
            rest = False
            for u, m in count.items():
                if m == 0:
                    continue
                known = _RATIONAL_COS.get(u)
                if known is None:
                    rest = True
                    break
                total += m * known
            if not rest:
                return int(sp.sign(total)), "exact turns"
        terms = (len(plus) + len(minus)) * self.n
        if kind == "cos" and terms <= _SYMPY_CANCEL_TERMS:
            # SymPy's exact rewrites (cos(π − a) = −cos a, like terms combined) may cancel
            # the sum to a number; the enclosure already contains it
            expr = sp.Add(*[sp.cos(w * d) for d in plus for w in self.frequencies],
                          *[-sp.cos(w * d) for d in minus for w in self.frequencies], -c)
            if expr.is_Rational:
                return int(sp.sign(expr)), "exact rewriting"
            if terms <= _SYMPY_TERMS and validated.sign(expr, budget_bits=_SYMPY_BITS) == 0:
                return 0, "exact rewriting"
        return None, ""

    # .................................................................. values to dps digits
    def _digits(self, plus: tuple[int, ...], minus: tuple[int, ...], c: sp.Rational, kind: str,
                dps: int) -> mpmath.mpf:
        """The quantity of a :class:`Decision` to ``dps`` significant digits (0 when proved 0).

        The precision is raised until the enclosure pins ``dps`` digits or
        :data:`~posproof.validated.BUDGET_BITS` is reached (then the midpoint is returned:
        its sign is then undecided, which the callers report).
        """
        prec = self._start_bits(dps)
        tenth = from_rational(1, 10**dps, 64, round_floor)
        mid = mpmath.mpf(0)
        budget = max(_budget_bits((len(plus) + len(minus)) * self.n), prec)
        while prec <= budget:
            ends = self._quantity(plus, minus, c, prec, kind)
            if ends is None:
                raise InvalidParameter(f"{self.name}: a frequency cannot be enclosed by interval "
                                       "arithmetic")
            lo, hi = ends
            mk = mpmath.mp.make_mpf
            with mpmath.workprec(prec + 64):
                mid = (mk(lo) + mk(hi)) / 2
            if mpf_sign(lo) * mpf_sign(hi) > 0:
                width = mpf_sub(hi, lo, 64, round_ceiling)
                scale = min(mpf_abs(lo), mpf_abs(hi), key=_key_mpf)
                if mpf_le(width, mpf_mul(scale, tenth, 64, round_floor)):
                    break
            elif (prec >= 2 * self._start_bits(dps)
                  and self.decide(plus, minus, c, kind=kind, dps=dps).sign == 0):
                return mpmath.mpf(0)
            prec *= 2
        with mpmath.workdps(dps):
            return +mid

    def mp(self, delta: int, dps: int = DEFAULT_DPS) -> mpmath.mpf:
        """f(Δ) to ``dps`` significant digits, certified by interval arithmetic from the exact
        frequencies (the precision grows with log|ω·Δ|, and until the digits are pinned).

        >>> mpmath.nstr(OffsetKernel([1]).mp(10**7, 30), 12)
        '-0.907270386182'
        >>> OffsetKernel([sp.pi / 2]).mp(1)
        mpf('0.0')
        """
        delta = abs(int(delta))
        key = ("f", delta, dps)
        if key not in self._value_cache:
            self._value_cache[key] = self._digits((delta,), (), sp.Integer(0), "cos", dps)
        return self._value_cache[key]

    def difference_mp(self, delta: int, dps: int = DEFAULT_DPS) -> mpmath.mpf:
        """f(Δ+1) − f(Δ) to ``dps`` significant digits (no cancellation: one enclosure)."""
        delta = abs(int(delta))
        key = ("diff", delta, dps)
        if key not in self._value_cache:
            self._value_cache[key] = self._digits((delta + 1,), (delta,), sp.Integer(0), "cos",
                                                  dps)
        return self._value_cache[key]

    def distance_mp(self, delta: int, dps: int = DEFAULT_DPS) -> mpmath.mpf:
        """‖PE(x+Δ) − PE(x)‖ = √(4 Σ sin²(ω_k Δ/2)) to ``dps`` digits; 0 only when proved 0.

        >>> OffsetKernel([sp.pi / 2]).distance_mp(4)
        mpf('0.0')
        >>> OffsetKernel([2 * sp.pi * (1 + sp.Rational(1, 10**50))]).distance_mp(1) > 0
        True
        """
        delta = abs(int(delta))
        key = ("distance", delta, dps)
        if key not in self._value_cache:
            gap = self._digits((delta,), (), sp.Integer(0), "gap", dps + 1)
            with mpmath.workdps(dps + 10):
                value = 2 * mpmath.sqrt(gap)
            with mpmath.workdps(dps):
                self._value_cache[key] = +value
        return self._value_cache[key]

    # .................................................................. evidence
    def quantity(self, decision: Decision) -> sp.Expr:
        """The exact SymPy quantity of a decision (unevaluated: built in O(n)).

        >>> k = OffsetKernel([1, sp.pi / 2])
        >>> k.quantity(k.decide([3], [2]))
        cos(1*3) + cos((pi/2)*3) - cos(1*2) - cos((pi/2)*2)
        """
        if decision.kind == "gap":
            half = sp.Rational(decision.plus[0], 2)
            two = sp.Integer(2)
            terms = [sp.Pow(sp.Basic.__new__(sp.sin, _mul(w, half)), two, evaluate=False)
                     for w in self.frequencies]
            return sp.Add._from_args(terms, True) if len(terms) > 1 else terms[0]
        terms: list[sp.Expr] = []
        minus_one = sp.Integer(-1)
        for deltas, neg in ((decision.plus, False), (decision.minus, True)):
            for d in deltas:
                di = sp.Integer(d)
                for w in self.frequencies:
                    term = sp.Basic.__new__(sp.cos, _mul(w, di))
                    terms.append(_mul(minus_one, term) if neg else term)
        if decision.const != 0:
            terms.append(-decision.const)
        return sp.Add._from_args(terms, True) if len(terms) > 1 else terms[0]

    def sign_item(self, label: str, decision: Decision) -> Sign | None:
        """An evidence :class:`~posproof.evidence.Sign` for a decided sign (None if undecided)."""
        if decision.relation is None:
            return None
        lo = hi = None
        if decision.sign != 0 and mpmath.isfinite(decision.lo):
            lo, hi = outward(decision.lo, decision.hi)
        return Sign(label, self.quantity(decision), decision.relation, lo=lo, hi=hi,
                    engine=f"interval arithmetic ({decision.how}, {decision.bits} bits)")

    def spot_item(self, label: str, plus: Sequence[int], minus: Sequence[int], value: float,
                  radius: float) -> Spot:
        """An evidence :class:`~posproof.evidence.Spot`: a float64 scan value and its bound."""
        dec = Decision(tuple(plus), tuple(minus), sp.Integer(0), None, mpmath.mpf(0),
                       mpmath.mpf(0), 0, "", "cos")
        return Spot(label, self.quantity(dec), float(value), float(radius))

    # ------------------------------------------------------------------ fixed point
    def _turns(self, scale: int) -> np.ndarray:
        """round(2⁶⁴·frac(ω_k·scale/2π)) as uint64, shape ``(n,)``."""
        if scale not in self._fixed:
            magnitude = math.log10(float(np.abs(self.omega).max()) * scale + 1)
            extra = 40 * math.ceil(max(0.0, magnitude - 30) / 40)
            omegas = self._omega_mp(_FIXED_DPS + extra)
            with mpmath.workdps(_FIXED_DPS + extra):
                two_pi = 2 * mpmath.pi
                words = []
                for w in omegas:
                    turns = w * scale / two_pi
                    frac = turns - mpmath.floor(turns)
                    words.append(int(mpmath.nint(frac * 2**64)) % 2**64)
            self._fixed[scale] = np.array(words, dtype=np.uint64)
        return self._fixed[scale]

    @staticmethod
    def _angles(mult: np.ndarray, turns: np.ndarray) -> np.ndarray:
        """mult·turns mod one turn, in radians in [−π, π), shape ``(len(mult), n)``."""
        prod = np.multiply(mult.astype(np.uint64)[:, None], turns[None, :])  # wraps mod 2⁶⁴
        return prod.view(np.int64).astype(np.float64) * _RAD_PER_UNIT

    def _plan(self, block: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if block not in self._plans:
            half = block // 2
            psi = self._angles(np.arange(half + 1, dtype=np.int64), self._turns(1))
            self._plans[block] = (self._turns(block), np.ascontiguousarray(np.cos(psi).T),
                                  np.ascontiguousarray(np.sin(psi).T))
        return self._plans[block]

    def _rows(self, block: int, q0: int, q1: int) -> np.ndarray:
        """f(Δ) for Δ ∈ [q0·B − B/2, q1·B − B/2), shape ``((q1 − q0)·B,)``."""
        half = block // 2
        a_turns, cos_b, sin_b = self._plan(block)
        phi = self._angles(np.arange(q0, q1, dtype=np.int64), a_turns)
        c = np.cos(phi) @ cos_b                                   # (m, half + 1)
        s = np.sin(phi) @ sin_b
        out = np.empty((q1 - q0, block))
        np.subtract(c[:, :half], s[:, :half], out=out[:, half:])  # Δ = qB + r, r = 0 … B/2−1
        np.add(c[:, half:0:-1], s[:, half:0:-1], out=out[:, :half])  # Δ = qB − r, r = B/2 … 1
        return out.reshape(-1)

    # ------------------------------------------------------------------ float64 side
    def bound(self, stop: int) -> float:
        """Error bound of every float64 value of a scan over Δ ∈ [0, stop).

        >>> OffsetKernel([1] * 256).bound(10**6) < 1e-11
        True
        """
        stop = max(int(stop), 1)
        block = block_for(stop)
        half = block // 2
        return _kernel_bound(self.n, (stop - 1 + half) // block, half)

    def chunks(self, start: int, stop: int, *, progress: Callable[[int, int], None] | None = None
               ) -> Iterator[tuple[int, np.ndarray]]:
        """``(first Δ, values)`` pieces covering Δ ∈ [start, stop) in order, each ≤ 2²¹ values.

        Memory stays bounded whatever the length; every value is within
        :meth:`bound` ``(stop)`` of f (or of the cached scan's bound).

        >>> [(s, v.size) for s, v in OffsetKernel([1]).chunks(0, 5)]
        [(0, 5)]
        """
        start, stop = int(start), int(stop)
        if start < 0 or stop < start:
            raise InvalidParameter(f"offsets [{start}, {stop}) are not a range of Δ ≥ 0")
        cache = self._cache
        if cache is not None and stop <= cache.size:
            for lo in range(start, stop, CHUNK_VALUES):
                hi = min(lo + CHUNK_VALUES, stop)
                yield lo, cache[lo:hi]
                if progress is not None:
                    progress(hi - start, stop - start)
            return
        block = block_for(stop)
        half = block // 2
        rows = max(1, CHUNK_VALUES // block)
        q_start = (start + half) // block
        q_stop = (stop - 1 + half) // block + 1 if stop > start else q_start
        for q0 in range(q_start, q_stop, rows):
            q1 = min(q0 + rows, q_stop)
            base = q0 * block - half
            values = self._rows(block, q0, q1)
            lo, hi = max(start, base), min(stop, base + values.size)
            yield lo, values[lo - base:hi - base]
            if progress is not None:
                progress(hi - start, stop - start)

    def values(self, start: int, stop: int) -> np.ndarray:
        """f(Δ) for Δ ∈ [start, stop) in float64, shape ``(stop − start,)``.

        Refuses more than ``CACHE_VALUES`` values; use :meth:`chunks` then.

        >>> OffsetKernel([1]).values(0, 3).round(4).tolist()
        [1.0, 0.5403, -0.4161]
        """
        count = int(stop) - int(start)
        if count > CACHE_VALUES:
            raise InvalidParameter(
                f"values({start}, {stop}) would hold {count} numbers; at most {CACHE_VALUES} "
                "are materialised; iterate over chunks(start, stop) instead")
        parts = [v for _, v in self.chunks(start, stop)]
        return np.concatenate(parts) if parts else np.empty(0)

    def materialize(self, length: int, progress: Callable[[int, int], None] | None = None
                    ) -> bool:
        """Keep f(0 … length−1) in memory when it fits (≤ 2²⁴ values); True if kept.

        >>> OffsetKernel([1]).materialize(100)
        True
        """
        length = int(length)
        if length > CACHE_VALUES:
            return False
        if self._cache is None or self._cache.size < length:
            self._cache = None
            cache = np.empty(length)
            for lo, values in self.chunks(0, length, progress=progress):
                cache[lo:lo + values.size] = values
            self._cache, self._cache_bound = cache, self.bound(length)
        return True

    def scan_bound(self, stop: int) -> float:
        """The bound that applies to :meth:`chunks` ``(·, stop)`` (the cache's when it is used).

        >>> k = OffsetKernel([1]); _ = k.materialize(10); k.scan_bound(5) == k.bound(10)
        True
        """
        if self._cache is not None and stop <= self._cache.size:
            return self._cache_bound
        return self.bound(stop)

    def __call__(self, deltas: Any) -> np.ndarray:
        """f at arbitrary integer offsets, shape of ``deltas``; within :meth:`call_bound`.

        >>> OffsetKernel([1, 2]).__call__([0, -3]).round(4).tolist()
        [2.0, -0.0298]
        """
        d = np.abs(np.asarray(deltas, dtype=np.int64))
        flat = d.reshape(-1)
        half = _CALL_BLOCK // 2
        q = (flat + half) // _CALL_BLOCK
        r = flat - q * _CALL_BLOCK
        phase = (np.multiply(q.astype(np.uint64)[:, None], self._turns(_CALL_BLOCK)[None, :])
                 + np.multiply(r.astype(np.uint64)[:, None], self._turns(1)[None, :]))
        angles = phase.view(np.int64).astype(np.float64) * _RAD_PER_UNIT
        return np.cos(angles).sum(axis=1).reshape(d.shape)

    def call_bound(self, delta_max: int) -> float:
        """Error bound of :meth:`__call__` for offsets up to ``|Δ| ≤ delta_max``.

        >>> OffsetKernel([1] * 256).call_bound(10**7) < 1e-11
        True
        """
        q_max = (abs(int(delta_max)) + _CALL_BLOCK // 2) // _CALL_BLOCK
        t = TRIG_ULPS * U
        phase = math.pi * ((q_max + _CALL_BLOCK // 2) * 2.0 ** -64 + 3 * U + U * U)
        gamma = self.n * U / (1 - self.n * U)
        return (self.n * (phase + t) + gamma * self.n * (1 + t)) * (1 + 1e-6)

    # ------------------------------------------------------------------ certified reductions
    def maximum(self, start: int, stop: int, *, dps: int = DEFAULT_DPS, keep: int = 64,
                progress: Callable[[int, int], None] | None = None) -> Extreme:
        """The certified maximum of f over Δ ∈ [start, stop): the closest approach.

        Every offset whose float64 value is within 2ε of the float64 maximum
        is a candidate (no other can hold the true maximum); up to ``keep`` of
        them (the largest) are compared by interval arithmetic (:meth:`decide`):
        a candidate is out when its enclosure lies below another's; ties are
        decided exactly (the smallest offset wins) or left undecided
        (``decided=False``).  The distance at the winner is 0 only when proved.

        >>> ext = OffsetKernel([sp.pi / 2, sp.pi / 4]).maximum(1, 20)
        >>> ext.delta, ext.distance_mp, ext.collision
        (8, mpf('0.0'), True)
        """
        if stop <= start:
            raise InvalidParameter(f"the range [{start}, {stop}) of offsets is empty")
        eps = self.scan_bound(stop)
        best = -math.inf
        truncated = False
        cand_d = np.empty(0, dtype=np.int64)
        cand_v = np.empty(0)
        for lo, values in self.chunks(start, stop, progress=progress):
            top = float(values.max())
            if top < best - 2 * eps:
                continue
            best = max(best, top)
            idx = np.flatnonzero(values >= best - 2 * eps)
            cand_d = np.concatenate([cand_d[cand_v >= best - 2 * eps], lo + idx])
            cand_v = np.concatenate([cand_v[cand_v >= best - 2 * eps], values[idx]])
            if cand_d.size > 4 * keep:
                order = np.lexsort((cand_d, -cand_v))[:keep]
                cand_d, cand_v, truncated = cand_d[order], cand_v[order], True
        truncated = truncated or cand_d.size > keep
        order = np.lexsort((cand_d, -cand_v))[:keep]
        cand_d, cand_v = cand_d[order], cand_v[order]
        total = int(cand_d.size)
        float_of = dict(zip(cand_d.tolist(), cand_v.tolist(), strict=True))
        # the dropped candidates (truncated) have f ≤ cutoff + ε
        cutoff = mpmath.mpf(float(cand_v.min())) + mpmath.mpf(eps) if truncated else None
        prec = self._start_bits(dps)
        ends = {d: self._quantity((d,), (), sp.Integer(0), prec, "cos") for d in float_of}
        if any(e is None for e in ends.values()):
            raise InvalidParameter(f"{self.name}: a frequency cannot be enclosed by interval "
                                   "arithmetic")
        mk = mpmath.mp.make_mpf
        best_lo = max(mk(e[0]) for e in ends.values())      # type: ignore[index]
        remaining = sorted(d for d, e in ends.items()
                           if mk(e[1]) >= best_lo)               # type: ignore[index]
        # near-ties: raise the precision for the offsets left (bounded work), unless an
        # exact return (f = n, the largest possible value) settles it below
        while (len(remaining) > 1 and prec < _ELIMINATE_BITS
               and len(remaining) * self.n <= _ELIMINATE_TERMS
               and self.decide((remaining[0],), kind="gap", dps=dps).sign != 0):
            prec *= 2
            more = {d: self._quantity((d,), (), sp.Integer(0), prec, "cos") for d in remaining}
            top = max(mk(e[0]) for e in more.values())          # type: ignore[index]
            remaining = [d for d in remaining if mk(more[d][1]) >= top]  # type: ignore[index]
        decisions: list[Decision] = []
        winner, decided, note = self._winner(remaining, dps, decisions)
        consistent = True
        for d in remaining[:8]:
            lo_d, hi_d = (mk(x) for x in ends[d])              # type: ignore[union-attr]
            if lo_d > float_of[d] + eps or hi_d < float_of[d] - eps:
                consistent = False
        f_mp = self.mp(winner, dps)
        if abs(float(f_mp) - float_of[winner]) > eps:
            consistent = False
        if decided and cutoff is not None:
            lo_w = mk(ends[winner][0])                          # type: ignore[index]
            exact_return = winner == start and self.decide((winner,), kind="gap",
                                                           dps=dps).sign == 0
            if not lo_w > cutoff and not exact_return:
                decided = False
                note = (f"more than {keep} offsets lie within 2·bound of the maximum; the "
                        f"ones not kept may exceed Δ={winner}")
        gap = self.decide((winner,), kind="gap", dps=dps)
        if gap.sign == 0 and not decided:
            # an exact return: with every turn ω_k/2π a proved rational p_k/q_k, the returns
            # are exactly the multiples of lcm(q_k); the first one in range is the argmax
            first = self._first_return(start, stop)
            if first is not None:
                winner, decided, note = first, True, None
                gap = self.decide((winner,), kind="gap", dps=dps)
                f_mp = self.mp(winner, dps)
                if winner not in float_of:
                    float_of[winner] = float(self([winner])[0])
                    eps = max(eps, self.call_bound(winner))
        decisions.insert(0, gap)
        if gap.sign == 0:
            collision: bool | None = True
        elif gap.sign == 1 and (decided or all(
                self.decide((d,), kind="gap", dps=dps).sign == 1 for d in remaining)):
            collision = False if cutoff is None or cutoff < self.n else None
        else:
            collision = None
        if collision is None and note is None:
            note = (f"whether PE(x+{winner}) = PE(x) is undecided: the distance "
                    f"{'is ' + gap.how if gap.sign is None else 'at another candidate is'} "
                    "undecided")
        f = float_of[winner]
        dist, dist_bound = _distance(self.n, f, eps)
        distance_mp = mpmath.mpf(0) if collision else self.distance_mp(winner, dps)
        return Extreme(delta=winner, f=f, f_mp=f_mp, bound=eps, distance=dist,
                       distance_bound=dist_bound, distance_mp=distance_mp,
                       candidates=total, truncated=truncated, consistent=consistent, dps=dps,
                       decided=decided, collision=collision, decisions=decisions, note=note)

    def _first_return(self, start: int, stop: int) -> int | None:
        """The first Δ ∈ [max(start, 1), stop) with every ω_kΔ ∈ 2πℤ, when every turn ω_k/2π
        is a proved rational (Δ a multiple of the lcm of their denominators); else None."""
        turns = self._exact_turns()
        if len(turns) != self.n or any(t is None for t in turns):
            return None
        period = 1
        for t in turns:
            period = math.lcm(period, int(t.q))                 # type: ignore[union-attr]
        first = max(-(-max(start, 1) // period) * period, period)
        return first if first < stop else None

    def _winner(self, remaining: list[int], dps: int, decisions: list[Decision]
                ) -> tuple[int, bool, str | None]:
        """The smallest offset attaining the largest f among ``remaining`` (sorted), decided."""
        if len(remaining) == 1:
            return remaining[0], True, None
        # an exact return (distance proved 0) is the largest possible value, f = n
        below_n = []
        for d in remaining:
            gap = self.decide((d,), kind="gap", dps=dps)
            if gap.sign == 0 and below_n == remaining[:len(below_n)]:
                return d, True, None
            if gap.sign == 1:
                below_n.append(d)
            if gap.sign is None:
                break
        if len(remaining) > 8:
            return remaining[0], False, (f"the largest value is attained at one of "
                                         f"{len(remaining)} offsets that interval arithmetic "
                                         "could not tell apart")
        for w in remaining:
            ok = True
            for c in remaining:
                if c == w:
                    continue
                dec = self.decide((c,), (w,), dps=dps)
                if dec.sign is None or dec.sign > 0 or (dec.sign == 0 and c < w):
                    ok = False
                    break
                if dec.sign == 0:
                    decisions.append(dec)
            if ok:
                return w, True, None
        return remaining[0], False, (f"which of Δ ∈ {remaining} attains the largest value is "
                                     "undecided by interval arithmetic")

    def first_crossing(self, threshold: Any = 0, *, below: bool = True,
                       start: int = 0, stop: int, dps: int = DEFAULT_DPS,
                       max_recheck: int = 256, at: int | None = None, scan: Scan | None = None,
                       progress: Callable[[int, int], None] | None = None) -> Crossing | None:
        """The first Δ ∈ [start, stop) with f(Δ) < threshold (``below``) or > threshold.

        ``threshold`` is an exact rational (a float or mpmath number stands for its
        exact binary value); with ``at``, the threshold is f(at) exactly.  A float64
        value beyond the threshold by more than its bound settles an offset; values
        within the bound are decided by the certified sign of f(Δ) − threshold
        (:meth:`decide`: an exact tie is not a crossing).  An offset whose sign
        cannot be decided stops the scan: the crossing returned there has
        ``decided=False``.  ``None`` when no offset in the range crosses.  ``scan``
        (a :class:`Scan`), when given, receives what the scan decided.

        >>> c = OffsetKernel([1]).first_crossing(0, stop=10)
        >>> c.delta, c.value_mp > -1, c.previous_mp > 0
        (2, True, True)
        >>> OffsetKernel([1, sp.pi - 1 + sp.Rational(1, 10**45)]).first_crossing(0, stop=2).delta
        1
        """
        if at is not None:
            at = abs(int(at))
            c = sp.Integer(0)
            ref = self.mp(at, dps)
            thr = float(ref)
        else:
            c = exact_rational(threshold)
            thr = float(c)
        eps0 = self.scan_bound(stop)
        eps = eps0 + 2 * U * (abs(thr) + self.n)
        minus = (at,) if at is not None else ()

        def decide(delta: int) -> Decision:
            return self.decide((delta,), minus, c, dps=dps)

        def holds(sign: int | None) -> bool:
            return sign == (-1 if below else 1)

        rechecked = hard = 0
        start_bits = self._start_bits(dps)
        record = scan if scan is not None else Scan()
        record.bound = eps
        checked = record.decisions
        closest: tuple[int, float] | None = None
        for lo, values in self.chunks(start, stop, progress=progress):
            maybe = values < thr + eps if below else values > thr - eps
            found: tuple[int, Decision | None, bool] | None = None
            # each candidate returns or is rechecked: no more than max_recheck + 1 are looked at
            for i in np.flatnonzero(maybe)[:max_recheck + 1].tolist():
                v = float(values[i])
                sure = v < thr - eps if below else v > thr + eps
                delta = lo + i
                if sure:
                    found = (i, None, True)
                    break
                if rechecked >= max_recheck:
                    raise InvalidParameter(
                        f"{self.name}: more than {max_recheck} kernel values lie within "
                        f"{eps:.1e} of the threshold {thr}; pass another threshold")
                rechecked += 1
                record.rechecked = rechecked
                dec = decide(delta)
                hard += dec.bits > start_bits
                if dec.sign is None or holds(dec.sign) or hard > _MAX_HARD:
                    found = (i, dec, dec.sign is not None and holds(dec.sign))
                    break
                if len(checked) < 2:
                    checked.append(dec)
            end = found[0] if found is not None else values.size
            closest = record.closest = _closest(closest, lo, values[:end], ~maybe[:end], thr,
                                                below)
            if found is None:
                continue
            i, dec, ok = found
            delta = lo + i
            if not ok:
                assert dec is not None
                return Crossing(delta=delta, value=float(values[i]), value_mp=self.mp(delta, dps),
                                previous_mp=None, bound=eps, rechecked=rechecked,
                                dps=dps, decided=False, decisions=list(checked),
                                closest=closest,
                                note=_undecided_note(f"f({delta}) − threshold", dec, delta,
                                                     "crosses"))
            return self._crossing(delta, float(values[i]), eps, rechecked, dps, start,
                                  decide, holds, checked, closest)
        return None

    def _crossing(self, delta: int, value: float, eps: float, rechecked: int, dps: int,
                  start: int, decide: Callable[[int], Decision],
                  holds: Callable[[int | None], bool], checked: list[Decision],
                  closest: tuple[int, float] | None) -> Crossing:
        here = decide(delta)
        exact = self.mp(delta, dps)
        decisions = [here]
        previous = None
        consistent = abs(float(exact) - value) <= eps and holds(here.sign)
        if delta - 1 >= start:
            before = decide(delta - 1)
            previous = self.mp(delta - 1, dps)
            decisions.append(before)
            consistent = consistent and not holds(before.sign)
        decisions.extend(d for d in checked if d.plus[0] < delta - 1)
        return Crossing(delta=delta, value=value, value_mp=exact, previous_mp=previous,
                        bound=eps, rechecked=rechecked, consistent=consistent, dps=dps,
                        decisions=decisions, closest=closest)

    def first_increase(self, *, start: int = 0, stop: int, dps: int = DEFAULT_DPS,
                       max_recheck: int = 256, scan: Scan | None = None,
                       progress: Callable[[int, int], None] | None = None) -> Crossing | None:
        """The first Δ ∈ [start, stop−1) with f(Δ+1) > f(Δ): where f stops decreasing.

        ``value`` is the float64 difference f(Δ+1) − f(Δ); ``value_mp`` and
        ``previous_mp`` are the certified differences at Δ and Δ − 1.  Steps
        within the float64 bound are decided by the certified sign of the exact
        difference (an exact tie does not rise); an undecided step stops the
        scan (``decided=False``).

        >>> OffsetKernel([1]).first_increase(stop=10).delta
        3
        """
        eps = 2 * self.scan_bound(stop) + 4 * U * self.n

        def decide(delta: int) -> Decision:
            return self.decide((delta + 1,), (delta,), dps=dps)

        prev_last: float | None = None
        rechecked = hard = 0
        start_bits = self._start_bits(dps)
        record = scan if scan is not None else Scan()
        record.bound = eps
        checked = record.decisions
        closest: tuple[int, float] | None = None
        for lo, values in self.chunks(start, stop, progress=progress):
            ext = values if prev_last is None else np.concatenate([[prev_last], values])
            first = lo if prev_last is None else lo - 1
            prev_last = float(values[-1]) if values.size else prev_last
            diff = np.diff(ext)
            maybe = diff > -eps
            found: tuple[int, Decision | None, bool] | None = None
            for i in np.flatnonzero(maybe)[:max_recheck + 1].tolist():
                delta = first + i
                if diff[i] > eps:
                    found = (i, None, True)
                    break
                if rechecked >= max_recheck:
                    raise InvalidParameter(
                        f"{self.name}: more than {max_recheck} kernel steps lie within "
                        f"{eps:.1e} of 0; the kernel is too flat to locate its first rise")
                rechecked += 1
                record.rechecked = rechecked
                dec = decide(delta)
                hard += dec.bits > start_bits
                if dec.sign is None or dec.sign > 0 or hard > _MAX_HARD:
                    found = (i, dec, dec.sign is not None and dec.sign > 0)
                    break
                if len(checked) < 2:
                    checked.append(dec)
            end = found[0] if found is not None else diff.size
            closest = record.closest = _closest(closest, first, diff[:end], ~maybe[:end], 0.0,
                                                False)
            if found is None:
                continue
            i, dec, ok = found
            delta = first + i
            if not ok:
                assert dec is not None
                return Crossing(delta=delta, value=float(diff[i]),
                                value_mp=self.difference_mp(delta, dps), previous_mp=None,
                                bound=eps, rechecked=rechecked, dps=dps, decided=False,
                                decisions=list(checked), closest=closest,
                                note=_undecided_note(f"f({delta + 1}) − f({delta})", dec,
                                                     delta, "is where f rises"))
            here = decide(delta)
            exact = self.difference_mp(delta, dps)
            decisions = [here]
            previous = None
            consistent = abs(float(exact) - float(diff[i])) <= eps and here.sign == 1
            if delta - 1 >= start:
                before = decide(delta - 1)
                previous = self.difference_mp(delta - 1, dps)
                decisions.append(before)
                consistent = consistent and before.sign != 1
            decisions.extend(d for d in checked if d.minus[0] < delta - 1)
            return Crossing(delta=delta, value=float(diff[i]), value_mp=exact,
                            previous_mp=previous, bound=eps, rechecked=rechecked,
                            consistent=consistent, dps=dps, decisions=decisions,
                            closest=closest)
        return None


def _undecided_note(what: str, dec: Decision, delta: int, verb: str) -> str:
    if dec.sign is None:
        return f"the sign of {what} is {dec.how}: whether Δ={delta} {verb} is unknown"
    return (f"the scan stopped at Δ={delta}: more than {_MAX_HARD} offsets lie so close to "
            "the threshold that their signs needed more than the first precision; whether "
            f"an offset from Δ={delta} on {verb} is unknown (time budget)")


def outward(lo: mpmath.mpf, hi: mpmath.mpf, digits: int = 25) -> tuple[str, str]:
    """Decimal strings of an enclosure's ends, rounded outward (widened by 10^-18 relatively
    before printing 25 digits, so the printed interval contains the exact one)."""
    with mpmath.workprec(256):
        widen = mpmath.mpf(10) ** -18
        a = lo - abs(lo) * widen - mpmath.mpf(10) ** -10000
        b = hi + abs(hi) * widen + mpmath.mpf(10) ** -10000
        return mpmath.nstr(a, digits), mpmath.nstr(b, digits)


def _closest(best: tuple[int, float] | None, first: int, values: np.ndarray, mask: np.ndarray,
             thr: float, below: bool) -> tuple[int, float] | None:
    """The offset (and float64 value) closest to ``thr`` among ``values[mask]``: those the
    float64 bound alone decided not to cross (``below``: they lie above ``thr``)."""
    if not mask.any():
        return best
    gaps = np.where(mask, values - thr if below else thr - values, np.inf)
    i = int(np.argmin(gaps))
    if best is None or gaps[i] < (best[1] - thr if below else thr - best[1]):
        return first + i, float(values[i])
    return best


def _distance(n: int, f: float, eps: float) -> tuple[float, float]:
    """√(2(n − f)) from a float64 f within eps, and a bound on its error."""
    sq = 2.0 * (n - f)
    err = 2 * eps + 4 * U * (n + abs(f))
    dist = math.sqrt(max(sq, 0.0))
    lo, hi = math.sqrt(max(sq - err, 0.0)), math.sqrt(max(sq + err, 0.0))
    return dist, max(hi - dist, dist - lo) * (1 + 1e-9)
