"""xPos (Sun et al. 2022, "A Length-Extrapolatable Transformer"): RoPE times a per-pair decay.

Pair k of the rotary embedding (adjacent layout, θ_k = base^(−2k/d)) is also scaled:
the query at position m by ζ_k^(m/B), the key at position n by ζ_k^(−n/B), with

    ζ_k = (2k/d + γ) / (1 + γ),   γ = 2/5,   B = scale_base = 512,

so the score of pair k is ζ_k^((m−n)/B)·⟨q_k, G((n−m)θ_k) k_k⟩: relative, and decaying
with the distance (0 < ζ_k < 1).  torchscale's ``XPOS`` (``torchscale/component/
xpos_relative_position.py``, torchscale 0.3.0) writes ζ_k as
``(arange(0, d, 2) + 0.4·d) / (1.4·d)``, forms the scale at the *centred* positions
``p − ⌈(L+offset)/2⌉`` (the rotation at the uncentred ones) and inverts it for keys
(``downscale=True``).  Everything here is exact (SymPy Rationals); :meth:`XPos.apply`
is the float64 reference.

>>> xp = XPos(8)
>>> xp.zetas()
[2/7, 13/28, 9/14, 23/28]
>>> xp.centre(10)
5
"""

from __future__ import annotations

from typing import Any

import numpy as np
import sympy as sp

from ..errors import InvalidParameter, check_int
from .rope import Rotary
from .schedules import Geometric

__all__ = ["XPOS_GAMMA", "XPOS_SCALE_BASE", "XPos"]

#: γ of the xPos paper and torchscale (0.4, exactly 2/5).
XPOS_GAMMA = sp.Rational(2, 5)
#: torchscale's default ``scale_base``.
XPOS_SCALE_BASE = 512


class XPos:
    """The xPos rotary: head dim d (even), ``base``, ``scale_base`` B, γ, centred or not.

    ``centred=True`` is torchscale's rule (scale exponents at p − ⌈L/2⌉); ``centred=False``
    is the naive one (exponents at p), equal in exact arithmetic for every score and
    fatal in floating point at long lengths (see :mod:`posproof.measure.xpos`).

    >>> XPos(7)
    Traceback (most recent call last):
    ...
    posproof.errors.InvalidParameter: head_dim=7 is odd; xPos rotates pairs of channels, use an even head_dim
    """  # noqa: E501

    def __init__(self, head_dim: int = 64, *, base: Any = 10000,
                 scale_base: int = XPOS_SCALE_BASE, gamma: Any = XPOS_GAMMA,
                 centred: bool = True) -> None:
        self.head_dim = check_int("head_dim", head_dim, minimum=2)
        if self.head_dim % 2:
            raise InvalidParameter(f"head_dim={head_dim} is odd; xPos rotates pairs of "
                                   "channels, use an even head_dim")
        self.scale_base = check_int("scale_base", scale_base, minimum=1)
        try:
            g = sp.nsimplify(gamma) if isinstance(gamma, float) else sp.sympify(gamma)
        except (sp.SympifyError, TypeError, ValueError):
            g = None
        if g is None or not g.is_Rational or not g > 0:
            raise InvalidParameter(f"gamma={gamma!r} is not a positive rational; use e.g. "
                                   "gamma='2/5' (the paper's 0.4)")
        self.gamma = sp.Rational(g)
        self.centred = bool(centred)
        self.rotary = Rotary(Geometric(base), self.head_dim, layout="adjacent")

    @property
    def n_pairs(self) -> int:
        return self.head_dim // 2

    def zeta(self, k: int) -> sp.Rational:
        """ζ_k = (2k/d + γ)/(1 + γ), exact."""
        k = check_int("k", k, minimum=0, maximum=self.n_pairs - 1)
        return (sp.Rational(2 * k, self.head_dim) + self.gamma) / (1 + self.gamma)

    def zetas(self) -> list[sp.Rational]:
        return [self.zeta(k) for k in range(self.n_pairs)]

    def centre(self, length: int) -> int:
        """What torchscale subtracts from the positions of a sequence of ``length``: ⌈L/2⌉."""
        length = check_int("length", length, minimum=0)
        return -((-length) // 2) if self.centred else 0

    def scales(self, positions: Any, *, key: bool = False, length: int | None = None
               ) -> np.ndarray:
        """Per-channel scales ζ_k^(±(p − c)/B) in float64, shape ``(L, head_dim)``."""
        pos = np.asarray(positions, dtype=np.float64)
        c = self.centre(int(length if length is not None else pos.size))
        zeta = np.array([float(z) for z in self.zetas()])
        expo = ((pos - c) / self.scale_base * (-1.0 if key else 1.0))[:, None]
        return np.repeat(zeta[None, :] ** expo, 2, axis=1)

    def apply(self, x: Any, positions: Any, *, key: bool = False) -> np.ndarray:
        """xPos of ``x`` (``(..., L, head_dim)``) at ``positions``, float64 reference."""
        rotated = self.rotary.apply(x, positions)
        return rotated * self.scales(positions, key=key)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "xpos", "head_dim": self.head_dim,
                "base": str(self.rotary.schedule.base), "scale_base": self.scale_base,
                "gamma": str(self.gamma), "centred": self.centred}

    def __repr__(self) -> str:
        return (f"XPos(head_dim={self.head_dim}, base={self.rotary.schedule.base}, "
                f"scale_base={self.scale_base}, gamma={self.gamma}, centred={self.centred})")
