"""The effective base of a scaled RoPE rule: the base its frequencies really use.

NTK-aware scaling (and dynamic NTK at a sequence length) changes the base, not
the shape of the schedule: θ'_k = b^(−2k/d)·r^(−2k/(d−2)) = (b·r^(d/(d−2)))^(−2k/d),
exactly the geometric schedule of the base b' = b·r^(d/(d−2)).  explore and
explain report b' beside the configured b.
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from ...precise import mp_value
from ..schedules import Geometric, Schedule
from .rules import DynamicNTKScaling, NTKScaling, Scaling


def effective_base(schedule: Schedule, dim: int) -> sp.Expr | None:
    """The exact base b' with θ_k = b'^(−2k/d) for every pair, or ``None`` if there is none.

    ``dim`` is the rotated dimension d.  Geometric and unscaled rules: their
    base; NTK: b·factor^(d/(d−2)); dynamic NTK: b·r^(d/(d−2)) with
    r = factor·s/L − (factor − 1) at the rule's sequence length s (clamped to
    at least L = ``original_max_position_embeddings``, as HF does); linear,
    YaRN, Llama 3 and LongRoPE scale pairs differently, so no single base
    describes them: ``None``.

    >>> from posproof.model.scaling import make_scaling
    >>> effective_base(make_scaling("ntk", 10000, factor=8), 128)
    80000*2**(1/21)
    >>> effective_base(make_scaling("dynamic", 10000, factor=2,
    ...                             original_max_position_embeddings=4096, seq_len=8192), 4)
    90000
    >>> effective_base(make_scaling("linear", 10000, factor=2), 8) is None
    True
    """
    if isinstance(schedule, NTKScaling):
        return schedule.effective_base(dim)
    if isinstance(schedule, Geometric) or type(schedule) is Scaling:
        return schedule.base
    return None


def effective_base_numbers(schedule: Schedule, dim: int) -> dict[str, Any]:
    """explore's JSON fields for the effective base: exact, float, and the sequence length used.

    Empty when the rule has no single base.

    >>> from posproof.model.scaling import make_scaling
    >>> effective_base_numbers(make_scaling("ntk", 10000, factor=8), 128)
    {'effective_base': '80000*2**(1/21)', 'effective_base_float': '82684.62264'}
    """
    value = effective_base(schedule, dim)
    if value is None:
        return {}
    out = {"effective_base": str(value),
           "effective_base_float": f"{float(mp_value(value, 20)):.10g}"}
    if isinstance(schedule, DynamicNTKScaling):
        out["effective_base_seq_len"] = schedule.effective_length
    return out
