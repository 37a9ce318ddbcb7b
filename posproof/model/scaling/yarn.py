"""YaRN: :class:`YaRNScaling` blends interpolated and original frequencies with a ramp in the pair
index, between a correction range decided exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import mpmath
import sympy as sp

from ...errors import InvalidParameter, check_int
from ...precise import mp_value, mp_values
from ..schedules import B as BSYM
from ..schedules import D as DSYM
from ..schedules import K as KSYM
from .base import Scaling, ceil, decide, floor, get_mscale, positive, rotary_dim

__all__ = [
    "YaRNScaling",
]


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
        object.__setattr__(self, "factor", positive("factor", self.factor))
        object.__setattr__(self, "original_max_position_embeddings", check_int(
            "original_max_position_embeddings", self.original_max_position_embeddings, minimum=1))
        for name in ("beta_fast", "beta_slow"):
            object.__setattr__(self, name, positive(name, getattr(self, name)))
        for name in ("attention", "mscale", "mscale_all_dim"):
            object.__setattr__(self, name, positive(name, getattr(self, name), allow_none=True))
        if not isinstance(self.truncate, bool):
            raise InvalidParameter(f"truncate={self.truncate!r} must be true or false")

    def _corr(self, beta: sp.Expr, d: int) -> sp.Expr:
        length = self.original_max_position_embeddings
        return d * sp.log(sp.Integer(length) / (2 * sp.pi * beta)) / (2 * sp.log(self.base))

    @lru_cache(maxsize=256)  # noqa: B019 - frozen, hashable instances
    def correction_range(self, d: int) -> tuple[sp.Expr, sp.Expr]:
        """(low, high) of the ramp, exact (integers when ``truncate``)."""
        d = rotary_dim(d)
        low, high = self._corr(self.beta_fast, d), self._corr(self.beta_slow, d)
        if self.truncate:
            low, high = floor(low, "YaRN low correction dim"), ceil(high, "YaRN high "
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
            return get_mscale(self.factor, self.mscale) / get_mscale(self.factor,
                                                                       self.mscale_all_dim)
        return get_mscale(self.factor)

    def general(self, k: sp.Symbol = KSYM, d: sp.Symbol = DSYM) -> sp.Expr:
        low = sp.Max(sp.floor(self._corr(self.beta_fast, d), evaluate=False), 0,
                     evaluate=False)
        high = sp.Min(sp.ceiling(self._corr(self.beta_slow, d), evaluate=False), d - 1,
                      evaluate=False)
        ramp = sp.Min(sp.Max((k - low) / (high - low), 0, evaluate=False), 1, evaluate=False)
        theta = BSYM ** (-2 * k / d)
        return theta / self.factor * ramp + theta * (1 - ramp)
