"""The numbers papers use to choose a RoPE base, certified, and side-by-side comparisons.

Every number states how it is certified: a float64 computation with a
rigorous error bound, with the extremes (or the values within the bound of a
decision) recomputed in mpmath at ≥ 50 digits inside ``mpmath.workdps``.

* :func:`kernel_first_negative` — the first m with B(m) = Σ_k cos(mθ_k) < 0
  (the offset kernel of :class:`posproof.measure.kernel.OffsetKernel`, a GEMM scan);
* :func:`decay_curve` — RoFormer's long-term decay (1/n)·Σ_{j=1..n} |S_j|,
  S_j = Σ_{i<j} e^{iΔθ_i};
* :func:`base_bound` — every base with B(m) ≥ 0 for all m ∈ 0 … L (Men et al.
  2024) in a range: a certified branch and bound over the islands of good bases;
* :func:`critical_dimension` — d_extra = 2·⌈(d/2)·log_b(T/(2π))⌉ (Liu et al. 2023);
* :func:`band_coverage` — which pairs have a wavelength 2π/θ_k that fits in L;
* :func:`dtype_audit` — first integer position a dtype cannot hold, and the phase
  error of m·θ formed in float32 / float16 / bfloat16.

:func:`explore` runs all of them (and the proofs) for several encodings,
sinusoidal or rotary; :func:`plot_exploration` overlays the curves.

>>> first = kernel_first_negative(Geometric(10000).frequencies(8), 100)
>>> first["m"], first["value_mp"][:8], first["certified"].startswith("float64 GEMM")
(91, '-0.33248', True)
"""

from __future__ import annotations

from .basebound import BaseBound as BaseBound
from .basebound import Island as Island
from .basebound import base_bound as base_bound
from .exploration import Exploration as Exploration
from .exploration import Subject as Subject
from .exploration import explore as explore
from .exploration import plot_exploration as plot_exploration
from .metrics import DTYPES as DTYPES
from .metrics import MAX_EXPLORE_DIM as MAX_EXPLORE_DIM
from .metrics import MAX_EXPLORE_WORK as MAX_EXPLORE_WORK
from .metrics import MAX_LENGTH as MAX_LENGTH
from .metrics import U as U
from .metrics import band_coverage as band_coverage
from .metrics import critical_dimension as critical_dimension
from .metrics import decay_curve as decay_curve
from .metrics import dtype_audit as dtype_audit
from .metrics import kernel_first_negative as kernel_first_negative
from .metrics import pair_frequencies as pair_frequencies

__all__ = [
    "BaseBound",
    "Exploration",
    "Island",
    "band_coverage",
    "base_bound",
    "critical_dimension",
    "decay_curve",
    "dtype_audit",
    "explore",
    "kernel_first_negative",
    "pair_frequencies",
    "plot_exploration",
]
