"""The base of every RoPE scaling rule: :class:`Scaling` (an exact
:class:`~posproof.model.schedules.Schedule` over the unscaled θ_k = b^(−2k/d)) and the exact
helpers the rules share: :func:`decide` (a comparison decided in mpmath with a margin, escalating
precision), rational powers, floor and ceiling of exact values, argument checks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import mpmath
import sympy as sp

from ...errors import InvalidEncoding, InvalidParameter, check_int
from ...precise import mp_value, mp_values
from ...validated import compare
from ..schedules import Geometric, Schedule, exact_number

__all__ = [
    "Scaling",
    "ceil",
    "decide",
    "floor",
    "get_mscale",
    "positive",
    "power",
    "rotary_dim",
]


# --------------------------------------------------------------------------- helpers
def decide(a: Any, b: Any, what: str = "comparison") -> int:
    """Certified sign of ``a − b`` for exact numbers: −1, 0 or +1.

    Rational differences are decided exactly; others by
    :func:`posproof.validated.compare` (interval arithmetic with rising precision;
    equality only when proved by exact rewriting).

    >>> decide(2 * sp.pi, sp.Rational(2048, 1)), decide(sp.Rational(1, 3), sp.Rational(2, 6))
    (-1, 0)
    """
    a, b = sp.sympify(a), sp.sympify(b)
    if a == b:
        return 0
    order = compare(a, b)       # interval arithmetic; 0 only by exact rewriting
    if order is not None:
        return order
    raise InvalidParameter(
        f"{what}: the two sides agree to thousands of digits and are not provably equal, "
        "so the rule's branch cannot be decided; perturb the parameter slightly")


@lru_cache(maxsize=1024)
def _cached_frequencies(rule: Scaling, d: int) -> tuple[sp.Expr, ...]:
    return rule._frequencies(d)


@lru_cache(maxsize=1024)
def _geometric(base: sp.Expr, d: int) -> tuple[sp.Expr, ...]:
    return Geometric(base).frequencies(d)


def power(base: sp.Expr, exponent: sp.Rational) -> sp.Expr:
    if exponent == 0:
        return sp.Integer(1)
    return sp.Pow(base, exponent, evaluate=sp.Rational(exponent).q <= 32)


def positive(name: str, value: Any, *, allow_none: bool = False) -> sp.Expr | None:
    if value is None and allow_none:
        return None
    expr = exact_number(name, value)
    if compare(expr, 0) != 1:           # certified, never bool(expr > 0) on a SymPy flag
        raise InvalidParameter(f"{name}={value!r} must be > 0; pass a positive number")
    return expr


def rotary_dim(d: int, minimum: int = 2) -> int:
    d = check_int("rotary_dim", d)
    if d < minimum or d % 2:
        raise InvalidEncoding(
            f"rotary_dim={d} must be an even number >= {minimum}; RoPE rotates pairs of channels")
    return d


def get_mscale(scale: sp.Expr, mscale: sp.Expr = sp.S.One) -> sp.Expr:
    """YaRN's attention temperature, exactly as HF's ``get_mscale``."""
    if decide(scale, 1) <= 0:
        return sp.Integer(1)
    return sp.Rational(1, 10) * mscale * sp.log(scale) + 1



@dataclass(frozen=True)
class Scaling(Schedule):
    """A RoPE scaling rule over the default θ_k = b^(−2k/d); subclasses set ``rope_type``.

    The base class itself is the unscaled rule (HF's ``default``).

    >>> Scaling(10000).frequencies(4), Scaling(10000).attention_factor()
    ((1, 1/100), 1)
    """

    base: Any = field(default_factory=lambda: sp.Integer(10000))
    family = "rope"
    rope_type = "default"

    def __post_init__(self) -> None:
        value = exact_number("rope_theta", self.base)
        if compare(value, 1) != 1:
            raise InvalidParameter(f"rope_theta={self.base!r} must be > 1, e.g. 10000")
        object.__setattr__(self, "base", value)

    def default_frequencies(self, d: int) -> tuple[sp.Expr, ...]:
        """The unscaled θ_k = b^(−2k/d)."""
        return _geometric(self.base, rotary_dim(d))

    def frequencies(self, d: int) -> tuple[sp.Expr, ...]:
        """The exact θ'_k for rotary dim d (memoised per rule and d)."""
        return _cached_frequencies(self, d)

    def _frequencies(self, d: int) -> tuple[sp.Expr, ...]:
        return self.default_frequencies(d)

    def numeric(self, d: int, dps: int = 30) -> list[mpmath.mpf]:
        """The frequencies straight from the formula in mpmath (fast; no SymPy).

        >>> from posproof.model.scaling import LinearScaling
        >>> [float(v) for v in LinearScaling(10000, 2).numeric(4)]
        [0.5, 0.005]
        """
        return mp_values(self.frequencies(d), dps)

    def _mp_default(self, d: int, dps: int) -> list[mpmath.mpf]:
        d = rotary_dim(d)
        with mpmath.workdps(dps + 10):
            b = mp_value(self.base, dps + 10)
            return [mpmath.power(b, mpmath.mpf(-2 * k) / d) for k in range(d // 2)]

    def attention_factor(self) -> sp.Expr:
        """Factor multiplying cos and sin (1 unless the rule says otherwise)."""
        return sp.Integer(1)

    def bands(self, d: int) -> list[str] | None:
        """Per-pair label of the rule's branch (``None`` when every pair is treated alike).

        >>> from posproof.model.scaling import LinearScaling, YaRNScaling
        >>> LinearScaling(10000, 2).bands(4) is None, YaRNScaling(10000, 4, 64).bands(8)
        (True, ['extrapolate', 'ramp', 'interpolate', 'interpolate'])
        """
        return None

    def params(self) -> dict[str, str]:
        out = {"base": str(self.base)}
        for f in self.__dataclass_fields__:
            if f != "base":
                value = getattr(self, f)
                if value is not None:
                    out[f] = (", ".join(map(str, value)) if isinstance(value, tuple)
                              else str(value))
        return out



def floor(value: sp.Expr, what: str) -> sp.Integer:
    guess = sp.Integer(int(mpmath.floor(mp_value(value, 30))))
    # certify guess <= value < guess + 1 (values never sit on an integer: π is transcendental)
    if decide(value, guess, what) < 0:
        guess -= 1
    elif decide(value, guess + 1, what) >= 0:
        guess += 1
    return guess


def ceil(value: sp.Expr, what: str) -> sp.Integer:
    return -floor(-value, what)
