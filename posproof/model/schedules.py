"""Frequency schedules as exact SymPy expressions.

A schedule gives the n = d/2 angular frequencies ω_0 … ω_{n-1} of an encoding
of dimension d.  Every frequency is an exact SymPy number (integers, rationals,
powers, π) — never a float — so the proof engine reasons about the true values.

>>> Geometric(10000).frequencies(4)
(1, 1/100)
>>> TensorToTensor().frequencies(6)
(1, 1/100, 1/10000)
>>> BinaryDials().frequencies(6)
(pi/2, pi/4, pi/8)

Each schedule also has a ``general(k, d)`` form with a symbolic pair index k,
used in the proofs "for every even d at once".
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

import sympy as sp

from ..errors import InvalidEncoding, InvalidExpression, InvalidParameter, check_finite
from ..validated import compare
from .expressions import MAX_BITS, parse_expression, size_bits

__all__ = [
    "BinaryDials",
    "Diffusion",
    "Explicit",
    "Expression",
    "Geometric",
    "Schedule",
    "TensorToTensor",
    "exact_number",
    "is_positive",
]

# Symbols a user expression may use; real and positive so that SymPy may rely on it.
K = sp.Symbol("k", integer=True, nonnegative=True)
D = sp.Symbol("d", integer=True, positive=True)
N = sp.Symbol("n", integer=True, positive=True)
B = sp.Symbol("b", positive=True)


def exact_number(name: str, value: object) -> sp.Expr:
    """Turn a user-given number into an exact SymPy number.

    Floats are read as the decimal they print as (``1e4`` is exactly 10000),
    strings are parsed safely (``"2*pi"``).

    >>> exact_number("base", 1e4)
    10000
    >>> exact_number("numerator", "2*pi")
    2*pi
    >>> exact_number("base", float("inf"))
    Traceback (most recent call last):
    ...
    posproof.errors.InvalidParameter: base=inf is not a finite number; pass a finite real value
    """
    if isinstance(value, sp.Basic):
        expr = value
    elif isinstance(value, str):
        try:
            expr = parse_expression(value, {}, what=name)
        except InvalidExpression as exc:
            raise InvalidParameter(str(exc)) from None
    elif isinstance(value, Fraction):
        expr = sp.Rational(value.numerator, value.denominator)
    elif isinstance(value, bool):
        raise InvalidParameter(f"{name}={value!r} is not a number; pass a finite real value")
    elif isinstance(value, int):
        expr = sp.Integer(value)
    else:
        fv = check_finite(name, value)
        expr = sp.Rational(repr(fv)) if fv != int(fv) or abs(fv) >= 1e16 else sp.Integer(int(fv))
    if not expr.is_number or expr.has(sp.zoo, sp.nan, sp.oo, -sp.oo) or expr.is_real is False:
        raise InvalidParameter(f"{name}={_short(value)} is not a finite real number")
    if size_bits(expr) > MAX_BITS:
        raise InvalidParameter(f"{name}={_short(value)} is too large to handle exactly (numbers "
                               f"over {MAX_BITS} bits); pass a moderate value")
    return expr


def _short(value: object) -> str:
    try:
        text = repr(value)
    except ValueError:  # an int over 4300 digits
        return f"<a {type(value).__name__} of about {int(value).bit_length()} bits>"  # type: ignore[call-overload]
    return text if len(text) <= 80 else text[:77] + "..."


def _greater_than(name: str, value: sp.Expr, bound: int) -> sp.Expr:
    """``value`` when it is certified > ``bound`` (interval arithmetic, not SymPy's flags)."""
    order = compare(value, bound)
    if order is None:
        raise InvalidParameter(f"{name}={value} could not be certified > {bound} (it agrees "
                               "with it to thousands of digits); pass a simplified value")
    if order != 1:
        raise InvalidParameter(f"{name}={value} must be > {bound}")
    return value


def _power(base: sp.Expr, exponent: sp.Rational) -> sp.Expr:
    """base**exponent, exact either way; evaluated (10000**(-1/2) → 1/100) only for
    small roots, since SymPy's perfect-power search is slow for high ones."""
    if exponent == 0:
        return sp.Integer(1)
    try:
        return sp.Pow(base, exponent, evaluate=sp.Rational(exponent).q <= 32)
    except OverflowError:
        # SymPy on python-flint integers (its "flint" ground types, when the user imported
        # SymPy before posproof) overflows in its perfect-power search: keep it unevaluated
        return sp.Pow(base, exponent, evaluate=False)


@dataclass(frozen=True)
class Schedule:
    """Base class: ``frequencies(d)`` gives the exact ω_k for an encoding of dim d."""

    #: Short family name used in reports and by ``identify``.
    family = "schedule"

    def frequencies(self, d: int) -> tuple[sp.Expr, ...]:
        raise NotImplementedError

    def general(self, k: sp.Symbol = K, d: sp.Symbol = D) -> sp.Expr | None:
        """ω_k with a symbolic pair index, or ``None`` if the schedule has fixed length."""
        return None

    def params(self) -> dict[str, str]:
        return {}

    def describe(self) -> str:
        general = self.general()
        formula = f"ω_k = {general}" if general is not None else "explicit frequencies"
        return f"{self.family}: {formula}"


@dataclass(frozen=True)
class Geometric(Schedule):
    """The original schedule ω_k = b^(−2k/d) (Vaswani et al. 2017, RoFormer).

    >>> Geometric(10000).general()
    b**(-2*k/d)
    """

    base: sp.Expr = field(default_factory=lambda: sp.Integer(10000))
    family = "geometric"

    def __post_init__(self) -> None:
        object.__setattr__(self, "base", _greater_than("base", exact_number("base", self.base), 1))

    def frequencies(self, d: int) -> tuple[sp.Expr, ...]:
        n = d // 2
        return tuple(_power(self.base, sp.Rational(-2 * k, 2 * n)) for k in range(n))

    def general(self, k: sp.Symbol = K, d: sp.Symbol = D) -> sp.Expr:
        return B ** (-2 * k / d)

    def params(self) -> dict[str, str]:
        return {"base": str(self.base)}


@dataclass(frozen=True)
class TensorToTensor(Schedule):
    """tensor2tensor / fairseq: ω_k = (1/min)·(max/min)^(−k/max(n−1, 1)).

    fairseq is the same schedule with min = 1, max = 10000, except that it
    divides by n − 1 without the ``max``; pass ``strict=True`` to refuse n = 1
    as fairseq's code (a division by zero) would.
    """

    min_timescale: sp.Expr = field(default_factory=lambda: sp.Integer(1))
    max_timescale: sp.Expr = field(default_factory=lambda: sp.Integer(10000))
    strict: bool = False
    family = "tensor2tensor"

    def __post_init__(self) -> None:
        lo = _greater_than("min_timescale", exact_number("min_timescale", self.min_timescale), 0)
        hi = exact_number("max_timescale", self.max_timescale)
        if compare(hi, lo) != 1:
            raise InvalidParameter(
                f"max_timescale={hi} must be > min_timescale={lo} (certified)")
        object.__setattr__(self, "min_timescale", lo)
        object.__setattr__(self, "max_timescale", hi)

    def frequencies(self, d: int) -> tuple[sp.Expr, ...]:
        n = d // 2
        if self.strict and n < 2:
            raise InvalidEncoding(
                f"dim={d} gives n={n} pair(s); this schedule divides by n−1 = {n - 1} "
                "(fairseq's code raises ZeroDivisionError); use dim >= 4")
        steps = max(n - 1, 1)
        ratio = self.max_timescale / self.min_timescale
        return tuple(_power(ratio, sp.Rational(-k, steps)) / self.min_timescale
                     if k else 1 / self.min_timescale for k in range(n))

    def general(self, k: sp.Symbol = K, d: sp.Symbol = D) -> sp.Expr:
        ratio = self.max_timescale / self.min_timescale
        return ratio ** (-k / (d / 2 - 1)) / self.min_timescale

    def params(self) -> dict[str, str]:
        return {"min_timescale": str(self.min_timescale),
                "max_timescale": str(self.max_timescale)}


@dataclass(frozen=True)
class Diffusion(Schedule):
    """Diffusion timestep embeddings (guided-diffusion): ω_k = P^(−k/n)."""

    max_period: sp.Expr = field(default_factory=lambda: sp.Integer(10000))
    family = "diffusion"

    def __post_init__(self) -> None:
        value = _greater_than("max_period", exact_number("max_period", self.max_period), 1)
        object.__setattr__(self, "max_period", value)

    def frequencies(self, d: int) -> tuple[sp.Expr, ...]:
        n = d // 2
        return tuple(_power(self.max_period, sp.Rational(-k, n)) for k in range(n))

    def general(self, k: sp.Symbol = K, d: sp.Symbol = D) -> sp.Expr:
        return self.max_period ** (-2 * k / d)

    def params(self) -> dict[str, str]:
        return {"max_period": str(self.max_period)}


@dataclass(frozen=True)
class BinaryDials(Schedule):
    """Binary dials ω_j = c/2^j, j = 1 … n (c = π by default, or 2π).

    Every ratio of frequencies is rational, so the curve of positions closes.
    """

    numerator: sp.Expr = field(default_factory=lambda: sp.pi)
    family = "binary"

    def __post_init__(self) -> None:
        value = _greater_than("numerator", exact_number("numerator", self.numerator), 0)
        object.__setattr__(self, "numerator", value)

    def frequencies(self, d: int) -> tuple[sp.Expr, ...]:
        return tuple(self.numerator / 2 ** (k + 1) for k in range(d // 2))

    def general(self, k: sp.Symbol = K, d: sp.Symbol = D) -> sp.Expr:
        return self.numerator / 2 ** (k + 1)

    def params(self) -> dict[str, str]:
        return {"numerator": str(self.numerator)}


@dataclass(frozen=True)
class Explicit(Schedule):
    """An explicit list of n positive frequencies (numbers or safe expressions)."""

    values: tuple[sp.Expr, ...] = ()
    family = "explicit"

    def __post_init__(self) -> None:
        if isinstance(self.values, (str, bytes)) or not isinstance(self.values, Sequence):
            raise InvalidParameter(
                f"frequencies={self.values!r} is not a list; pass a list such as [1, '1/100']")
        if not self.values:
            raise InvalidParameter("frequencies=[] is empty; pass at least one frequency")
        exact = tuple(
            _greater_than(f"frequencies[{i}]", exact_number(f"frequencies[{i}]", v), 0)
            for i, v in enumerate(self.values))
        object.__setattr__(self, "values", exact)

    def frequencies(self, d: int) -> tuple[sp.Expr, ...]:
        if len(self.values) != d // 2:
            raise InvalidEncoding(
                f"{len(self.values)} frequencies were given for dim={d}, which needs "
                f"d//2 = {d // 2}; pass dim={2 * len(self.values)} or adjust the list")
        return self.values

    def params(self) -> dict[str, str]:
        return {"frequencies": ", ".join(map(str, self.values))}


@dataclass(frozen=True)
class Expression(Schedule):
    """A frequency typed by a user in terms of k, d, n (= d/2) and b, parsed safely.

    >>> Expression("b**(-2*k/d)", base=10000).frequencies(4)
    (1, 1/100)
    """

    text: str = ""
    base: sp.Expr = field(default_factory=lambda: sp.Integer(10000))
    family = "expression"

    def __post_init__(self) -> None:
        object.__setattr__(self, "base", exact_number("base", self.base))
        object.__setattr__(self, "_expr", parse_expression(
            self.text, {"k": K, "d": D, "n": N, "b": B}, what="frequency expression"))

    def frequencies(self, d: int) -> tuple[sp.Expr, ...]:
        env = {N: float(d // 2), D: float(2 * (d // 2)), B: _float(self.base)}
        for k in range(d // 2):  # before SymPy evaluates: d**d**d or exp(exp(exp(k))) hang it
            if math.isinf(_approx(self._expr, {**env, K: float(k)})):  # type: ignore[attr-defined]
                raise InvalidParameter(
                    f"frequency expression {self.text!r} gives ω_{k} beyond the float64 range "
                    f"(or passes through such a value) at dim={d}; every frequency must be a "
                    "finite positive number of moderate size")
        expr = self._expr.subs({N: sp.Rational(d // 2), D: 2 * (d // 2), B: self.base})  # type: ignore[attr-defined]
        out = []
        for k in range(d // 2):
            value = expr.subs(K, k)
            if size_bits(value) > MAX_BITS:
                raise InvalidParameter(
                    f"frequency expression {self.text!r} gives ω_{k} with numbers over "
                    f"{MAX_BITS} bits at dim={d}; every frequency must be of moderate size")
            bad = value.has(sp.zoo, sp.nan, sp.oo, -sp.oo) or not value.is_number
            if bad or not is_positive(value):
                raise InvalidParameter(
                    f"frequency expression {self.text!r} gives ω_{k} = {value} at dim={d}; "
                    "every frequency must be a finite positive number")
            out.append(value)
        return tuple(out)

    def general(self, k: sp.Symbol = K, d: sp.Symbol = D) -> sp.Expr:
        return self._expr.subs({N: d / 2, B: self.base, K: k, D: d})  # type: ignore[attr-defined]

    def params(self) -> dict[str, str]:
        return {"expression": self.text, "base": str(self.base)}


def _float(value: sp.Expr) -> float:
    try:
        return float(value)
    except (OverflowError, TypeError, ValueError):
        return math.inf


def _approx(expr: sp.Expr, env: dict[sp.Symbol, float]) -> float:
    """``expr`` at the point ``env`` in float64; ``inf`` as soon as any part of it overflows.

    A cheap guard run before SymPy builds a number exactly: towers such as
    ``d**d**d`` have no finite float64 value, and ``nan`` (a complex or undefined
    part) is left for the exact test to explain.
    """
    if expr in env:
        return env[expr]
    if isinstance(expr, (sp.Rational, sp.NumberSymbol)) or not expr.args:
        return _float(expr)
    args = [_approx(a, env) for a in expr.args]
    if any(math.isinf(a) for a in args):
        return math.inf
    try:
        if isinstance(expr, sp.Add):
            value = math.fsum(args)
        elif isinstance(expr, sp.Mul):
            value = math.prod(args)
        elif isinstance(expr, sp.Pow):
            value = args[0] ** args[1]
        elif isinstance(expr, sp.exp):
            value = math.exp(args[0])
        elif isinstance(expr, sp.log):
            value = math.log(args[0]) if args[0] > 0 else math.nan
        else:
            return math.nan
    except OverflowError:
        return math.inf
    except (ValueError, ZeroDivisionError):
        return math.nan
    if isinstance(value, complex):
        return math.nan
    if value == 0 and isinstance(expr, (sp.Pow, sp.exp)) and args[0] != 0:
        return math.inf  # underflow: an exact value below 1e-308 is as unwieldy as an overflow
    return float(value)


def is_positive(value: sp.Expr) -> bool:
    """Certified positivity (interval arithmetic); False when it cannot be certified."""
    return compare(value, 0) == 1
