"""LongRoPE: :class:`LongRoPEScaling` divides each frequency by its own factor, short or long by
the sequence length.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import mpmath
import sympy as sp

from ...errors import InvalidEncoding, InvalidParameter, check_int
from ...precise import mp_values
from .base import Scaling, decide, positive, rotary_dim

__all__ = [
    "LongRoPEScaling",
]


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
            object.__setattr__(self, name, tuple(positive(f"{name}[{i}]", v)
                                                 for i, v in enumerate(values)))
        if len(self.short_factor) != len(self.long_factor):
            raise InvalidParameter(
                f"short_factor has {len(self.short_factor)} entries but long_factor has "
                f"{len(self.long_factor)}; both need rotary_dim/2 entries")
        object.__setattr__(self, "original_max_position_embeddings", check_int(
            "original_max_position_embeddings", self.original_max_position_embeddings, minimum=1))
        object.__setattr__(self, "factor", positive("factor", self.factor, allow_none=True))
        object.__setattr__(self, "attention", positive("attention", self.attention,
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
        d = rotary_dim(d)
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
