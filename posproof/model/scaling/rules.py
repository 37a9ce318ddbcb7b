"""The RoPE scaling rules in one import: the registry :data:`SCALINGS`, :func:`make_scaling`, and
the helpers that read any schedule (:func:`schedule_base`, :func:`with_base`,
:func:`attention_factor`, :func:`float_frequencies`, :func:`numeric_frequencies`).

The rules themselves live one per module: the base class :class:`Scaling` and the exact
decisions (:func:`decide`) in :mod:`~posproof.model.scaling.base`; linear, NTK and dynamic NTK in
:mod:`~posproof.model.scaling.linear_ntk`; :mod:`~posproof.model.scaling.yarn`,
:mod:`~posproof.model.scaling.llama3`, :mod:`~posproof.model.scaling.longrope`.  This module
re-exports them.  The proofs of their invariants live in
:mod:`posproof.proofs.scaling`; the overview is :mod:`posproof.model.scaling`.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from typing import Any

import mpmath
import numpy as np
import sympy as sp

from ...errors import InvalidParameter, UnknownName
from ...precise import mp_value, mp_values
from ...validated import compare
from ..schedules import Geometric, Schedule, exact_number
from .base import Scaling
from .base import decide as decide
from .base import rotary_dim as rotary_dim  # invariants.py imports it from here
from .linear_ntk import DynamicNTKScaling, LinearScaling, NTKScaling
from .llama3 import Llama3Scaling
from .longrope import LongRoPEScaling
from .yarn import YaRNScaling

__all__ = [
    "ALIASES",
    "SCALINGS",
    "DynamicNTKScaling",
    "LinearScaling",
    "Llama3Scaling",
    "LongRoPEScaling",
    "NTKScaling",
    "Scaling",
    "YaRNScaling",
    "attention_factor",
    "check_base",
    "decide",
    "float_frequencies",
    "make_scaling",
    "numeric_frequencies",
    "schedule_base",
    "with_base",
]

_TABLE_DPS = 40


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
ALIASES = {"none": "default", "rope": "default", "pi": "linear", "ntk-aware": "ntk",
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
    key = "default" if kind is None else ALIASES.get(str(kind).lower(), str(kind).lower())
    if key not in SCALINGS:
        raise UnknownName(f"scaling={kind!r} is not known; use one of {', '.join(SCALINGS)}")
    cls = SCALINGS[key]
    if key == "default":
        if params:
            raise InvalidParameter(f"scaling='default' takes no parameters; got "
                                   f"{', '.join(sorted(params))}")
        return Geometric(check_base(base))
    allowed = [f for f in cls.__dataclass_fields__ if f != "base"]
    for name, value in params.items():
        if name not in allowed:
            raise InvalidParameter(f"scaling={key!r} does not take {name}={value!r}; it takes "
                                   f"{', '.join(allowed)}")
    return cls(check_base(base), **params)


def check_base(base: Any) -> sp.Expr:
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
