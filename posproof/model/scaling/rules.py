"""The RoPE scaling rules as exact :class:`~posproof.model.schedules.Schedule` classes.

:class:`Scaling` and its subclasses (linear, NTK, dynamic NTK, YaRN, Llama 3,
LongRoPE), the registry :data:`SCALINGS` with :func:`make_scaling`, and the
numeric helpers (:func:`decide`, :func:`float_frequencies`, :func:`with_base`,
:func:`attention_factor`, …).  The proofs of their invariants are
:mod:`posproof.proofs.scaling`; the overview is :mod:`posproof.model.scaling`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

import mpmath
import numpy as np
import sympy as sp

from ...errors import InvalidEncoding, InvalidParameter, UnknownName, check_int
from ...precise import mp_value, mp_values
from ...validated import compare
from ..schedules import B as BSYM
from ..schedules import D as DSYM
from ..schedules import Geometric, Schedule, exact_number
from ..schedules import K as KSYM

_TABLE_DPS = 40


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


def _power(base: sp.Expr, exponent: sp.Rational) -> sp.Expr:
    if exponent == 0:
        return sp.Integer(1)
    return sp.Pow(base, exponent, evaluate=sp.Rational(exponent).q <= 32)


def _positive(name: str, value: Any, *, allow_none: bool = False) -> sp.Expr | None:
    if value is None and allow_none:
        return None
    expr = exact_number(name, value)
    if compare(expr, 0) != 1:           # certified, never bool(expr > 0) on a SymPy flag
        raise InvalidParameter(f"{name}={value!r} must be > 0; pass a positive number")
    return expr


def _rotary_dim(d: int, minimum: int = 2) -> int:
    d = check_int("rotary_dim", d)
    if d < minimum or d % 2:
        raise InvalidEncoding(
            f"rotary_dim={d} must be an even number >= {minimum}; RoPE rotates pairs of channels")
    return d


def _get_mscale(scale: sp.Expr, mscale: sp.Expr = sp.S.One) -> sp.Expr:
    """YaRN's attention temperature, exactly as HF's ``get_mscale``."""
    if decide(scale, 1) <= 0:
        return sp.Integer(1)
    return sp.Rational(1, 10) * mscale * sp.log(scale) + 1


# --------------------------------------------------------------------------- base class
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
        return _geometric(self.base, _rotary_dim(d))

    def frequencies(self, d: int) -> tuple[sp.Expr, ...]:
        """The exact θ'_k for rotary dim d (memoised per rule and d)."""
        return _cached_frequencies(self, d)

    def _frequencies(self, d: int) -> tuple[sp.Expr, ...]:
        return self.default_frequencies(d)

    def numeric(self, d: int, dps: int = 30) -> list[mpmath.mpf]:
        """The frequencies straight from the formula in mpmath (fast; no SymPy).

        >>> [float(v) for v in LinearScaling(10000, 2).numeric(4)]
        [0.5, 0.005]
        """
        return mp_values(self.frequencies(d), dps)

    def _mp_default(self, d: int, dps: int) -> list[mpmath.mpf]:
        d = _rotary_dim(d)
        with mpmath.workdps(dps + 10):
            b = mp_value(self.base, dps + 10)
            return [mpmath.power(b, mpmath.mpf(-2 * k) / d) for k in range(d // 2)]

    def attention_factor(self) -> sp.Expr:
        """Factor multiplying cos and sin (1 unless the rule says otherwise)."""
        return sp.Integer(1)

    def bands(self, d: int) -> list[str] | None:
        """Per-pair label of the rule's branch (``None`` when every pair is treated alike).

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


@dataclass(frozen=True)
class LinearScaling(Scaling):
    """Position interpolation: θ'_k = θ_k / factor.

    >>> LinearScaling(10000, 2).general()
    1/(2*b**(2*k/d))
    """

    factor: Any = 1
    rope_type = "linear"

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "factor", _positive("factor", self.factor))

    def _frequencies(self, d: int) -> tuple[sp.Expr, ...]:
        return tuple(t / self.factor for t in self.default_frequencies(d))

    def numeric(self, d: int, dps: int = 30) -> list[mpmath.mpf]:
        with mpmath.workdps(dps + 10):
            f = mp_value(self.factor, dps + 10)
            return [t / f for t in self._mp_default(d, dps)]

    def general(self, k: sp.Symbol = KSYM, d: sp.Symbol = DSYM) -> sp.Expr:
        return BSYM ** (-2 * k / d) / self.factor


@dataclass(frozen=True)
class NTKScaling(Scaling):
    """NTK-aware: base' = b·factor^(d/(d−2)), so θ'_k = θ_k·factor^(−2k/(d−2)).

    The fastest pair (k = 0) is untouched and the slowest (k = n−1) is divided
    by exactly ``factor``.

    >>> NTKScaling(10000, 4).frequencies(4)
    (1, 1/400)
    """

    factor: Any = 1
    rope_type = "ntk"

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "factor", _positive("factor", self.factor))

    def scale(self, d: int) -> sp.Expr:
        """The number r with base' = b·r^(d/(d−2)).

        >>> NTKScaling(10000, 4).scale(8), DynamicNTKScaling(10000, 4, 100, seq_len=200).scale(8)
        (4, 5)
        """
        return self.factor

    def effective_base(self, d: int) -> sp.Expr:
        """base' = b·r^(d/(d−2)), exactly.

        >>> NTKScaling(10000, 4).effective_base(4)
        160000
        """
        d = _rotary_dim(d, 4)
        return self.base * _power(self.scale(d), sp.Rational(d, d - 2))

    def _frequencies(self, d: int) -> tuple[sp.Expr, ...]:
        d = _rotary_dim(d, 4)
        r = self.scale(d)
        # unevaluated θ_k·r^(−2k/(d−2)): exact, without SymPy merging the two powers
        # (a perfect-power search per pair that costs more than everything else)
        out = []
        for k, t in enumerate(self.default_frequencies(d)):
            e = sp.Rational(-2 * k, d - 2)
            p = sp.Pow(r, e, evaluate=e.q == 1)
            out.append(t if k == 0 or r == 1 else
                       sp.Mul(t, p, evaluate=bool(t.is_Rational and p.is_Rational)))
        return tuple(out)

    def numeric(self, d: int, dps: int = 30) -> list[mpmath.mpf]:
        d = _rotary_dim(d, 4)
        with mpmath.workdps(dps + 10):
            r = mp_value(self.scale(d), dps + 10)
            return [t * mpmath.power(r, mpmath.mpf(-2 * k) / (d - 2))
                    for k, t in enumerate(self._mp_default(d, dps))]

    def general(self, k: sp.Symbol = KSYM, d: sp.Symbol = DSYM) -> sp.Expr:
        return BSYM ** (-2 * k / d) * self.scale(4) ** (-2 * k / (d - 2))


@dataclass(frozen=True)
class DynamicNTKScaling(NTKScaling):
    """Dynamic NTK at sequence length s: base' = b·(factor·s/L − (factor − 1))^(d/(d−2)).

    HF clamps s to at least L (``max_position_embeddings``), so for s ≤ L the
    table is the default one.  ``seq_len=None`` means s = L (HF at init time).

    >>> DynamicNTKScaling(10000, 2, 4096, seq_len=4096).frequencies(4)
    (1, 1/100)
    >>> DynamicNTKScaling(10000, 2, 4096, seq_len=8192).frequencies(4)
    (1, 1/300)
    """

    original_max_position_embeddings: Any = 2048
    seq_len: Any = None
    rope_type = "dynamic"

    def __post_init__(self) -> None:
        super().__post_init__()
        length = check_int("original_max_position_embeddings",
                           self.original_max_position_embeddings, minimum=1)
        object.__setattr__(self, "original_max_position_embeddings", length)
        if self.seq_len is not None:
            object.__setattr__(self, "seq_len", check_int("seq_len", self.seq_len, minimum=1))

    @property
    def effective_length(self) -> int:
        """s after HF's clamp: max(seq_len, L).

        >>> DynamicNTKScaling(10000, 2, 4096, seq_len=10).effective_length
        4096
        """
        length = self.original_max_position_embeddings
        return length if self.seq_len is None else max(self.seq_len, length)

    def scale(self, d: int) -> sp.Expr:
        f, s = self.factor, self.effective_length
        return f * sp.Rational(s, self.original_max_position_embeddings) - (f - 1)

    def at(self, seq_len: int) -> DynamicNTKScaling:
        """The same rule at another sequence length.

        >>> DynamicNTKScaling(10000, 2, 4096).at(8192).seq_len
        8192
        """
        return replace(self, seq_len=seq_len)

    def general(self, k: sp.Symbol = KSYM, d: sp.Symbol = DSYM) -> sp.Expr:
        return BSYM ** (-2 * k / d) * self.scale(4) ** (-2 * k / (d - 2))


@dataclass(frozen=True)
class YaRNScaling(Scaling):
    """YaRN as in HF: a linear ramp in the pair index between the correction dims.

    corr(β) = d·ln(L/(2πβ))/(2 ln b); low = max(⌊corr(β_fast)⌋, 0),
    high = min(⌈corr(β_slow)⌉, d − 1) (no floor/ceil when ``truncate=False``;
    high += 0.001 when low = high, as HF does); ramp_k = clamp((k − low)/(high − low), 0, 1);
    θ'_k = θ_k/factor·ramp_k + θ_k·(1 − ramp_k).  Attention factor
    0.1·ln(factor) + 1 (1 for factor ≤ 1), or mscale/mscale_all_dim's ratio,
    or ``attention_factor`` when given.

    >>> y = YaRNScaling(10000, 4, 4096)
    >>> y.correction_range(64)
    (10, 23)
    >>> y.attention_factor()
    log(4)/10 + 1
    """

    factor: Any = 1
    original_max_position_embeddings: Any = 2048
    beta_fast: Any = 32
    beta_slow: Any = 1
    truncate: bool = True
    attention: Any = None
    mscale: Any = None
    mscale_all_dim: Any = None
    rope_type = "yarn"

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "factor", _positive("factor", self.factor))
        object.__setattr__(self, "original_max_position_embeddings", check_int(
            "original_max_position_embeddings", self.original_max_position_embeddings, minimum=1))
        for name in ("beta_fast", "beta_slow"):
            object.__setattr__(self, name, _positive(name, getattr(self, name)))
        for name in ("attention", "mscale", "mscale_all_dim"):
            object.__setattr__(self, name, _positive(name, getattr(self, name), allow_none=True))
        if not isinstance(self.truncate, bool):
            raise InvalidParameter(f"truncate={self.truncate!r} must be true or false")

    def _corr(self, beta: sp.Expr, d: int) -> sp.Expr:
        length = self.original_max_position_embeddings
        return d * sp.log(sp.Integer(length) / (2 * sp.pi * beta)) / (2 * sp.log(self.base))

    @lru_cache(maxsize=256)  # noqa: B019 - frozen, hashable instances
    def correction_range(self, d: int) -> tuple[sp.Expr, sp.Expr]:
        """(low, high) of the ramp, exact (integers when ``truncate``)."""
        d = _rotary_dim(d)
        low, high = self._corr(self.beta_fast, d), self._corr(self.beta_slow, d)
        if self.truncate:
            low, high = _floor(low, "YaRN low correction dim"), _ceil(high, "YaRN high "
                                                                      "correction dim")
        low = low if decide(low, 0, "YaRN low vs 0") > 0 else sp.Integer(0)
        high = high if decide(high, d - 1, "YaRN high vs d-1") < 0 else sp.Integer(d - 1)
        if decide(low, high, "YaRN low vs high") == 0:
            high = high + sp.Rational(1, 1000)
        return low, high

    @lru_cache(maxsize=256)  # noqa: B019
    def ramp(self, d: int) -> tuple[sp.Expr, ...]:
        """ramp_k ∈ [0, 1]: 0 keeps θ_k (extrapolation), 1 divides it by factor.

        >>> YaRNScaling(10000, 4, 64).ramp(8)
        (0, 1/2, 1, 1)
        """
        low, high = self.correction_range(d)
        out = []
        for k in range(d // 2):
            value = (k - low) / (high - low)
            if decide(value, 0, f"YaRN ramp at k={k}") <= 0:
                value = sp.Integer(0)
            elif decide(value, 1, f"YaRN ramp at k={k}") >= 0:
                value = sp.Integer(1)
            out.append(value)
        return tuple(out)

    def _frequencies(self, d: int) -> tuple[sp.Expr, ...]:
        ramp = self.ramp(d)
        return tuple(t if r == 0 else t / self.factor if r == 1 else
                     t / self.factor * r + t * (1 - r)
                     for t, r in zip(self.default_frequencies(d), ramp, strict=True))

    def numeric(self, d: int, dps: int = 30) -> list[mpmath.mpf]:
        ramp = mp_values(self.ramp(d), dps + 10)
        with mpmath.workdps(dps + 10):
            f = mp_value(self.factor, dps + 10)
            return [t / f * r + t * (1 - r)
                    for t, r in zip(self._mp_default(d, dps), ramp, strict=True)]

    def bands(self, d: int) -> list[str]:
        return ["extrapolate" if r == 0 else "interpolate" if r == 1 else "ramp"
                for r in self.ramp(d)]

    def attention_factor(self) -> sp.Expr:
        if self.attention is not None:
            return self.attention
        if self.mscale and self.mscale_all_dim:
            return _get_mscale(self.factor, self.mscale) / _get_mscale(self.factor,
                                                                       self.mscale_all_dim)
        return _get_mscale(self.factor)

    def general(self, k: sp.Symbol = KSYM, d: sp.Symbol = DSYM) -> sp.Expr:
        low = sp.Max(sp.floor(self._corr(self.beta_fast, d), evaluate=False), 0,
                     evaluate=False)
        high = sp.Min(sp.ceiling(self._corr(self.beta_slow, d), evaluate=False), d - 1,
                      evaluate=False)
        ramp = sp.Min(sp.Max((k - low) / (high - low), 0, evaluate=False), 1, evaluate=False)
        theta = BSYM ** (-2 * k / d)
        return theta / self.factor * ramp + theta * (1 - ramp)


@dataclass(frozen=True)
class Llama3Scaling(Scaling):
    """Llama 3.1 banding: wavelength λ_k = 2π/θ_k against L/high and L/low.

    λ < L/high_freq_factor → θ_k (high band, untouched); λ > L/low_freq_factor
    → θ_k/factor (low band); otherwise (1 − s)·θ_k/factor + s·θ_k with
    s = (L/λ − low)/(high − low) (blend).  The band of each pair is decided
    in mpmath (see the module docstring); the frequency is then exact.

    >>> rule = Llama3Scaling(500000, 8, 1, 4, 8192)
    >>> rule.bands(4), rule.frequencies(4)[0]
    (['high', 'blend'], 1)
    >>> rule.frequencies(4)[1]  # λ = 2π·√500000 ≈ 4443 lies between 8192/4 and 8192/1
    sqrt(2)*(-512*sqrt(2)/(375*pi) + 4/3)/8000 + sqrt(2)*(-1/3 + 512*sqrt(2)/(375*pi))/1000
    """

    factor: Any = 8
    low_freq_factor: Any = 1
    high_freq_factor: Any = 4
    original_max_position_embeddings: Any = 8192
    rope_type = "llama3"

    def __post_init__(self) -> None:
        super().__post_init__()
        for name in ("factor", "low_freq_factor", "high_freq_factor"):
            object.__setattr__(self, name, _positive(name, getattr(self, name)))
        object.__setattr__(self, "original_max_position_embeddings", check_int(
            "original_max_position_embeddings", self.original_max_position_embeddings, minimum=1))
        if compare(self.low_freq_factor, self.high_freq_factor) != -1:
            raise InvalidParameter(
                f"low_freq_factor={self.low_freq_factor} must be < high_freq_factor="
                f"{self.high_freq_factor} (Llama 3.1 uses low_freq_factor=1, "
                "high_freq_factor=4); swap or fix them")

    @property
    def wavelength_edges(self) -> tuple[sp.Expr, sp.Expr]:
        """(L/high_freq_factor, L/low_freq_factor): the band edges in wavelength.

        >>> Llama3Scaling(500000, 8, 1, 4, 8192).wavelength_edges
        (2048, 8192)
        """
        length = sp.Integer(self.original_max_position_embeddings)
        return length / self.high_freq_factor, length / self.low_freq_factor

    @lru_cache(maxsize=256)  # noqa: B019
    def bands(self, d: int) -> list[str]:
        high_edge, low_edge = self.wavelength_edges
        edges = mp_values([high_edge, low_edge], 30)
        out = []
        with mpmath.workdps(30):
            for k, theta in enumerate(self.default_frequencies(d)):
                # λ_k = 2π·b^(2k/d) at 30 digits (error < 10^-25 relative); a gap wider
                # than 10^-15 decides, otherwise ``decide`` escalates the precision
                wave = 2 * mpmath.pi * mpmath.power(mp_value(self.base, 30), mpmath.mpf(2 * k) / d)
                sides = []
                for edge, exact in zip(edges, (high_edge, low_edge), strict=True):
                    if abs(wave - edge) > mpmath.mpf(10) ** -15 * edge:
                        sides.append(1 if wave > edge else -1)
                    else:
                        sides.append(decide(2 * sp.pi / theta, exact, f"Llama 3 band of pair {k}"))
                out.append("high" if sides[0] < 0 else "low" if sides[1] > 0 else "blend")
        return out

    def blend(self, theta: sp.Expr) -> sp.Expr:
        """The middle-band formula, as an expression in θ.

        >>> Llama3Scaling(500000, 8, 1, 4, 8192).blend(2 * sp.pi / 2048)  # at the high edge: θ
        pi/1024
        """
        smooth = ((self.original_max_position_embeddings * theta / (2 * sp.pi)
                   - self.low_freq_factor) / (self.high_freq_factor - self.low_freq_factor))
        return (1 - smooth) * theta / self.factor + smooth * theta

    def _frequencies(self, d: int) -> tuple[sp.Expr, ...]:
        out = []
        for theta, band in zip(self.default_frequencies(d), self.bands(d), strict=True):
            out.append(theta if band == "high" else theta / self.factor if band == "low"
                       else self.blend(theta))
        return tuple(out)

    def numeric(self, d: int, dps: int = 30) -> list[mpmath.mpf]:
        with mpmath.workdps(dps + 10):
            f, lo, hi = (mp_value(v, dps + 10) for v in
                         (self.factor, self.low_freq_factor, self.high_freq_factor))
            length = self.original_max_position_embeddings
            out = []
            for theta, band in zip(self._mp_default(d, dps), self.bands(d), strict=True):
                if band == "high":
                    out.append(theta)
                elif band == "low":
                    out.append(theta / f)
                else:
                    s = (length * theta / (2 * mpmath.pi) - lo) / (hi - lo)
                    out.append((1 - s) * theta / f + s * theta)
            return out

    def general(self, k: sp.Symbol = KSYM, d: sp.Symbol = DSYM) -> sp.Expr:
        theta = BSYM ** (-2 * k / d)
        high_edge, low_edge = self.wavelength_edges
        wavelength = 2 * sp.pi / theta
        return sp.Piecewise((theta, wavelength < high_edge),
                            (theta / self.factor, wavelength > low_edge),
                            (self.blend(theta), True))


@dataclass(frozen=True)
class LongRoPEScaling(Scaling):
    """LongRoPE (Phi-3): θ'_k = θ_k / ext_k, ext = long_factor when s > L, else short_factor.

    Attention factor √(1 + ln(factor)/ln(L)) (1 for factor ≤ 1) unless given.

    >>> LongRoPEScaling(10000, (1, 2), (1, 4), 4096, factor=32).frequencies(4)
    (1, 1/200)
    >>> LongRoPEScaling(10000, (1, 2), (1, 4), 4096, factor=32, seq_len=5000).frequencies(4)
    (1, 1/400)
    """

    short_factor: Any = ()
    long_factor: Any = ()
    original_max_position_embeddings: Any = 4096
    factor: Any = None
    seq_len: Any = None
    attention: Any = None
    rope_type = "longrope"

    def __post_init__(self) -> None:
        super().__post_init__()
        for name in ("short_factor", "long_factor"):
            values = getattr(self, name)
            if isinstance(values, (str, bytes)) or not isinstance(values, Sequence) or not values:
                raise InvalidParameter(
                    f"{name}={values!r} must be a non-empty list of positive numbers, one per "
                    "rotated pair (rotary_dim/2 of them)")
            object.__setattr__(self, name, tuple(_positive(f"{name}[{i}]", v)
                                                 for i, v in enumerate(values)))
        if len(self.short_factor) != len(self.long_factor):
            raise InvalidParameter(
                f"short_factor has {len(self.short_factor)} entries but long_factor has "
                f"{len(self.long_factor)}; both need rotary_dim/2 entries")
        object.__setattr__(self, "original_max_position_embeddings", check_int(
            "original_max_position_embeddings", self.original_max_position_embeddings, minimum=1))
        object.__setattr__(self, "factor", _positive("factor", self.factor, allow_none=True))
        object.__setattr__(self, "attention", _positive("attention", self.attention,
                                                        allow_none=True))
        if self.seq_len is not None:
            object.__setattr__(self, "seq_len", check_int("seq_len", self.seq_len, minimum=1))

    @property
    def uses_long(self) -> bool:
        return self.seq_len is not None and self.seq_len > self.original_max_position_embeddings

    @property
    def ext(self) -> tuple[sp.Expr, ...]:
        return self.long_factor if self.uses_long else self.short_factor

    def _frequencies(self, d: int) -> tuple[sp.Expr, ...]:
        d = _rotary_dim(d)
        if len(self.ext) != d // 2:
            raise InvalidEncoding(
                f"longrope has {len(self.ext)} per-pair factors but rotary_dim={d} needs "
                f"{d // 2}; pass rotary_dim={2 * len(self.ext)} or fix short_factor/long_factor")
        return tuple(t / e for t, e in zip(self.default_frequencies(d), self.ext, strict=True))

    def numeric(self, d: int, dps: int = 30) -> list[mpmath.mpf]:
        if len(self.ext) != d // 2:
            self.frequencies(d)  # raises the explanatory error
        ext = mp_values(self.ext, dps + 10)
        with mpmath.workdps(dps + 10):
            return [t / e for t, e in zip(self._mp_default(d, dps), ext, strict=True)]

    def bands(self, d: int) -> list[str]:
        return ["long" if self.uses_long else "short"] * (d // 2)

    def attention_factor(self) -> sp.Expr:
        if self.attention is not None:
            return self.attention
        if self.factor is None or decide(self.factor, 1) <= 0:
            return sp.Integer(1)
        return sp.sqrt(1 + sp.log(self.factor) / sp.log(self.original_max_position_embeddings))

    def at(self, seq_len: int) -> LongRoPEScaling:
        """The same rule at another sequence length.

        >>> LongRoPEScaling(10000, (1,), (2,), 64).at(65).uses_long
        True
        """
        return replace(self, seq_len=seq_len)


def _floor(value: sp.Expr, what: str) -> sp.Integer:
    guess = sp.Integer(int(mpmath.floor(mp_value(value, 30))))
    # certify guess <= value < guess + 1 (values never sit on an integer: π is transcendental)
    if decide(value, guess, what) < 0:
        guess -= 1
    elif decide(value, guess + 1, what) >= 0:
        guess += 1
    return guess


def _ceil(value: sp.Expr, what: str) -> sp.Integer:
    return -_floor(-value, what)


# --------------------------------------------------------------------------- registry
SCALINGS: dict[str, type[Scaling]] = {
    "default": Scaling,
    "linear": LinearScaling,
    "ntk": NTKScaling,
    "dynamic": DynamicNTKScaling,
    "yarn": YaRNScaling,
    "llama3": Llama3Scaling,
    "longrope": LongRoPEScaling,
}
_ALIASES = {"none": "default", "rope": "default", "pi": "linear", "ntk-aware": "ntk",
            "dynamic-ntk": "dynamic", "dynamic_ntk": "dynamic", "llama-3": "llama3",
            "su": "longrope"}


def make_scaling(kind: str | None, base: Any = 10000, **params: Any) -> Schedule:
    """A scaling rule by name; ``None``/``"default"`` gives :class:`Geometric`.

    >>> make_scaling("linear", 10000, factor=4)
    LinearScaling(base=10000, factor=4)
    >>> make_scaling("ropey", 10000)
    Traceback (most recent call last):
    ...
    posproof.errors.UnknownName: scaling='ropey' is not known; use one of default, linear, ntk, dynamic, yarn, llama3, longrope
    """  # noqa: E501
    key = "default" if kind is None else _ALIASES.get(str(kind).lower(), str(kind).lower())
    if key not in SCALINGS:
        raise UnknownName(f"scaling={kind!r} is not known; use one of {', '.join(SCALINGS)}")
    cls = SCALINGS[key]
    if key == "default":
        if params:
            raise InvalidParameter(f"scaling='default' takes no parameters; got "
                                   f"{', '.join(sorted(params))}")
        return Geometric(_check_base(base))
    allowed = [f for f in cls.__dataclass_fields__ if f != "base"]
    for name, value in params.items():
        if name not in allowed:
            raise InvalidParameter(f"scaling={key!r} does not take {name}={value!r}; it takes "
                                   f"{', '.join(allowed)}")
    return cls(_check_base(base), **params)


def _check_base(base: Any) -> sp.Expr:
    value = exact_number("rope_theta", base)
    if compare(value, 1) != 1:
        raise InvalidParameter(f"rope_theta={base!r} must be > 1, e.g. 10000")
    return value


def schedule_base(schedule: Schedule) -> sp.Expr | None:
    """The base b of a geometric or scaled schedule (``None`` for other schedules).

    >>> schedule_base(Geometric(500000))
    500000
    """
    return getattr(schedule, "base", None) if isinstance(schedule, (Geometric, Scaling)) else None


def with_base(schedule: Schedule, base: Any) -> Schedule:
    """The same rule with another base (for base scans).

    >>> with_base(LinearScaling(10000, 2), 500)
    LinearScaling(base=500, factor=2)
    """
    if not isinstance(schedule, (Geometric, Scaling)):
        raise InvalidParameter(f"{type(schedule).__name__} has no base to vary")
    return replace(schedule, base=base)


def attention_factor(schedule: Schedule) -> sp.Expr:
    """The factor a multiplying cos and sin (logits scale by a²).

    >>> attention_factor(Geometric(10000))
    1
    """
    return schedule.attention_factor() if isinstance(schedule, Scaling) else sp.Integer(1)


@lru_cache(maxsize=512)
def _float_cached(schedule: Schedule, d: int) -> tuple[float, ...]:
    values = mp_values(schedule.frequencies(d), _TABLE_DPS)
    return tuple(float(v) for v in values)


def float_frequencies(schedule: Schedule, d: int) -> np.ndarray:
    """Float64 frequencies, each the exact value rounded from 40 digits; shape ``(d//2,)``.

    >>> float_frequencies(LinearScaling(10000, 4), 4)
    array([0.25  , 0.0025])
    """
    return np.array(_float_cached(schedule, d), dtype=np.float64)


def numeric_frequencies(schedule: Schedule, d: int) -> np.ndarray:
    """Float64 frequencies from the mpmath formula path (fast, for base scans); ``(d//2,)``.

    >>> numeric_frequencies(Geometric(10000), 4)
    array([1.  , 0.01])
    """
    if isinstance(schedule, Scaling):
        values = schedule.numeric(d, 20)
    elif isinstance(schedule, Geometric):
        with mpmath.workdps(30):
            b = mp_value(schedule.base, 30)
            values = [mpmath.power(b, mpmath.mpf(-2 * k) / d) for k in range(d // 2)]
    else:
        values = mp_values(schedule.frequencies(d), 20)
    return np.array([float(v) for v in values], dtype=np.float64)
