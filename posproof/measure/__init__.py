"""Measure an encoding with error bounds: lambdify, the offset kernel, the certified
checks, explore's metrics and the base bound.

The third stage: it may import posproof.model, posproof.proofs and the shared leaves
(errors, precise, validated, report, version); nothing downstream (matplotlib only lazily,
for ``plot_exploration``).

Modules:

* ``checks`` — Numeric checks of an encoding: each a :class:`Check` that passes or fails, with its
  numbers.
* ``explore`` — The numbers papers use to choose a RoPE base, certified, and side-by-side
  comparisons.
* ``numeric`` — The numeric half: lambdified tables, the offset kernel at GEMM speed, error bounds.
"""
