"""Measure an encoding with error bounds: lambdify, the offset kernel, the certified
checks, explore's metrics and the base bound.

The third stage: it may import posproof.model, posproof.proofs and the shared leaves
(errors, precise, validated, report, version); nothing downstream (matplotlib only lazily,
for ``plot_exploration``).

Modules:

* ``alibi`` — Numbers about an ALiBi bias: the check of a pairwise bias through its Toeplitz
  structure.
* ``checks`` — Numeric checks of an encoding: each a :class:`Check` that passes or fails, with its
  numbers.
* ``checks_context`` — What the checks of one run share (the kernel scanned once, cached extremes).
* ``checks_dtype`` — The ``dtype_audit`` check: integers and angles x·ω in float32/16, bfloat16.
* ``checks_kernel`` — The checks on the offset kernel: separation, near return, periodicity, decay.
* ``checks_table`` — The checks on rows of the table: bounds, translation residual, Toeplitz.
* ``explore`` — The numbers papers use to choose a RoPE base, certified, and side-by-side
  comparisons.
* ``dtypes`` — How floating dtypes round (float16, bfloat16, float32…) and angles formed in them.
* ``gram`` — Whether a table's Gram matrix is Toeplitz, within a dtype-aware tolerance.
* ``kernel`` — The offset kernel f(Δ) = Σ cos(ω_k Δ) at GEMM speed, its error bound, extremes
  and crossings.
* ``lambdified`` — NumPy code generated from the exact expressions (the pair, an encoding's table).
* ``multiaxis`` — Numbers over a grid of positions for multi-axis encodings: the kernel for vector
  offsets and the grid checks (bounds, separation, translation residual, dtype audit).
* ``numeric`` — The numeric half in one import: the public names of the six modules above and below.
* ``scan_limits`` — The longest scan accepted (L and L·d), validated with one clear error.
* ``t5_dtype`` — The T5 float trap: where a float32 / float16 log ratio changes the bucket.
* ``translation`` — T(Δ) applied pair by pair, the dense matrix for small d, and its residual.
* ``xpos`` — The xPos precision trap: where the per-position scales ζ^(±p/B) leave a dtype.
"""
