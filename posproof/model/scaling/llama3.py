"""Llama 3: :class:`Llama3Scaling` keeps high-frequency pairs, divides low-frequency ones by the
factor and blends the band between, each band decided exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import mpmath
import sympy as sp

from ...errors import InvalidParameter, check_int
from ...precise import mp_value, mp_values
from ...validated import compare
from ..schedules import B as BSYM
from ..schedules import D as DSYM
from ..schedules import K as KSYM
from .base import Scaling, decide, positive

__all__ = [
    "Llama3Scaling",
]


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
            object.__setattr__(self, name, positive(name, getattr(self, name)))
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
