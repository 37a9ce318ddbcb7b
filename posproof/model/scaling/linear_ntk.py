"""The rules that rescale every frequency alike: :class:`LinearScaling` (position interpolation,
θ_k / factor), :class:`NTKScaling` (the base rescaled once) and :class:`DynamicNTKScaling` (the
base rescaled by the sequence length).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import mpmath
import sympy as sp

from ...errors import check_int
from ...precise import mp_value
from ..schedules import B as BSYM
from ..schedules import D as DSYM
from ..schedules import K as KSYM
from .base import Scaling, positive, power, rotary_dim

__all__ = [
    "DynamicNTKScaling",
    "LinearScaling",
    "NTKScaling",
]


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
        object.__setattr__(self, "factor", positive("factor", self.factor))

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
        object.__setattr__(self, "factor", positive("factor", self.factor))

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
        d = rotary_dim(d, 4)
        return self.base * power(self.scale(d), sp.Rational(d, d - 2))

    def _frequencies(self, d: int) -> tuple[sp.Expr, ...]:
        d = rotary_dim(d, 4)
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
        d = rotary_dim(d, 4)
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
