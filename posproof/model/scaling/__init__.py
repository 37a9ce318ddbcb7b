"""RoPE scaling rules as exact frequency schedules (HF transformers ``modeling_rope_utils``).

Each rule is a :class:`~posproof.model.schedules.Schedule`: ``frequencies(d)`` gives
the n = d/2 exact SymPy frequencies θ'_k of a rotary dimension d (the
unscaled table θ_k = b^(−2k/d) is :class:`~posproof.model.schedules.Geometric`).

=================  ==========================================================
rule               θ'_k
=================  ==========================================================
``linear``         θ_k / factor
``ntk``            (b·factor^(d/(d−2)))^(−2k/d)  (NTK-aware, base rescaled once)
``dynamic``        same with factor^… replaced by (factor·s/L − (factor − 1))^…,
                   s = max(seq_len, L)  (HF clamps s, so s ≤ L leaves θ unchanged)
``yarn``           θ_k/factor·ramp_k + θ_k·(1 − ramp_k), ramp in the pair index k
``llama3``         θ_k (λ_k < L/high), θ_k/factor (λ_k > L/low), blend between
``longrope``       θ_k / ext_k, ext = short_factor (s ≤ L) or long_factor (s > L)
=================  ==========================================================

Exactness.  Every frequency is exact (integers, rationals, rational powers,
π, logarithms) except where the rule itself *decides* something: the Llama 3
band of each pair (compare λ_k = 2π/θ_k with L/high and L/low) and the YaRN
correction range (floor/ceil of d·ln(L/(2πβ))/(2 ln b), then a clamp).  Those
decisions are taken in mpmath at 30 digits and accepted only with a margin of
10^−15 relative — far above the rounding error of the < 100 correctly rounded
operations involved — escalating to 60, 120 and 240 digits; a decision that no
precision separates raises (exact rational comparisons are decided exactly).
Once decided, the frequency itself is again an exact expression.  Float64
tables are the exact values rounded from mpmath at 40 digits.

This module re-exports the rules; the proofs of their invariants are
:mod:`posproof.proofs.scaling`.  Modules:

* ``base`` — :class:`Scaling`, the base of every rule, and the exact decisions they share.
* ``linear_ntk`` — linear (position interpolation), NTK-aware and dynamic NTK.
* ``yarn`` — YaRN: a ramp between interpolated and original frequencies.
* ``llama3`` — Llama 3: high, low and blended frequency bands.
* ``longrope`` — LongRoPE: one factor per frequency, short or long.
* ``rules`` — the registry (``SCALINGS``, ``make_scaling``) and helpers that read any schedule.
* ``effective`` — the effective base of a scaled schedule.

>>> bands = Llama3Scaling(500000, 8, 1, 4, 8192).bands(128)
>>> bands[:2], bands[-1]
(['high', 'high'], 'low')
>>> LinearScaling(10000, 4).frequencies(4)
(1/4, 1/400)
"""

from .effective import effective_base as effective_base
from .effective import effective_base_numbers as effective_base_numbers
from .rules import ALIASES as ALIASES
from .rules import SCALINGS as SCALINGS
from .rules import DynamicNTKScaling as DynamicNTKScaling
from .rules import LinearScaling as LinearScaling
from .rules import Llama3Scaling as Llama3Scaling
from .rules import LongRoPEScaling as LongRoPEScaling
from .rules import NTKScaling as NTKScaling
from .rules import Scaling as Scaling
from .rules import YaRNScaling as YaRNScaling
from .rules import attention_factor as attention_factor
from .rules import decide as decide
from .rules import float_frequencies as float_frequencies
from .rules import make_scaling as make_scaling
from .rules import numeric_frequencies as numeric_frequencies
from .rules import schedule_base as schedule_base
from .rules import with_base as with_base

__all__ = [
    "SCALINGS",
    "DynamicNTKScaling",
    "LinearScaling",
    "Llama3Scaling",
    "LongRoPEScaling",
    "NTKScaling",
    "Scaling",
    "YaRNScaling",
    "attention_factor",
    "decide",
    "effective_base",
    "effective_base_numbers",
    "float_frequencies",
    "make_scaling",
    "numeric_frequencies",
    "schedule_base",
    "with_base",
]
