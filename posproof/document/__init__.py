"""Documents: derivations in Markdown and LaTeX, and their figures (matplotlib loads lazily).

It may import model, proofs, measure and the shared leaves; nothing downstream.

Modules:

* ``derive`` — Derivation documents: Markdown and LaTeX in which every equation and number is the
  toolkit's.
* ``figure_style`` — How every figure is built and saved: one fixed style, byte-identical files.
* ``plots`` — Figures of an encoding, reproducible byte for byte (matplotlib, imported lazily).
"""
