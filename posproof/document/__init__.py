"""Documents: derivations in Markdown and LaTeX, and their figures (matplotlib loads lazily).

A stage on top of measure, beside testing and sweep (which it does not import): it may import
model, proofs, measure and the shared leaves (errors, precise, validated, report, version); not cli.

Modules:

* ``derive`` — Derivation documents: Markdown and LaTeX in which every equation and number is the
  toolkit's.
* ``figure_style`` — How every figure is built and saved: one fixed style, byte-identical files.
* ``plots`` — Figures of an encoding, reproducible byte for byte (matplotlib, imported lazily).
* ``plots_multiaxis`` — The figure of a multi-axis encoding: the 2-D similarity map vision papers
  show.
"""
