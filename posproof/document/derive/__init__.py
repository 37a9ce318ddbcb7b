"""Derivation documents: Markdown and LaTeX in which every equation and number is the toolkit's.

:func:`derive` runs the proof engine and the numeric checks on an encoding,
works through the guided derivation (from counting to rotations: the raw
index, the index over the length, binary digits, sine-only dials on binary
and on geometric frequencies, sin/cos pairs), each guess with the property it
breaks and the proof, counterexample or measurement that shows it, and
returns a :class:`Derivation`.  :meth:`Derivation.markdown` and
:meth:`Derivation.latex` render the same document model, so the two never
disagree; :func:`write_derivation` writes them with the figures of
:mod:`posproof.document.plots`.

Nothing in a document is typed by hand: matrices are ``sympy.latex`` of
:meth:`Encoding.translation`, proofs are the engine's steps, numbers come from
:func:`posproof.prove`, :func:`posproof.check`, NumPy or SymPy at generation
time.  A refuted statement is printed as refuted, with its counterexample.
Documents hold no dates or timings: the same inputs give the same bytes.

>>> from posproof import preset
>>> doc = derive(preset("vaswani", dim=8), max_len=2000)
>>> doc.ok, doc.exit_status()
(True, 0)
>>> [step.breaks for step in doc.guide][:3]
['unbounded', 'depends on the sequence length', 'jumps']
>>> "REFUTED" in derive(preset("sine-only", dim=4), max_len=100).markdown()
True
"""

from __future__ import annotations

# The package holds one concept a module: ``document`` (the document model, Markdown and
# LaTeX rendering, escaping, numbers, proofs and checks put into words), ``guide`` (the
# guided derivation), ``derivation`` (Derivation, derive), ``why_positions`` (step 0: permutation
# equivariance), ``multiaxis`` (derive_multi: "From one axis to several") and ``files``
# (write_derivation, draw_figures_for).
# Explicit re-exports (``X as X``), including names importable from
# posproof.document.derive before it became a package that are not in __all__ (posproof.cli.derive
# uses the private ones ``parse_formats`` and ``verdict``).
from .derivation import FULL_MATRIX_DIM as FULL_MATRIX_DIM
from .derivation import Derivation as Derivation
from .derivation import derive as derive
from .document import latex_text as latex_text
from .files import DOCUMENT_FORMATS as DOCUMENT_FORMATS
from .files import draw_figures_for as draw_figures_for
from .files import write_derivation as write_derivation
from .guide import GUIDE_DIM as GUIDE_DIM
from .guide import GuideStep as GuideStep

__all__ = [
    "DOCUMENT_FORMATS",
    "Derivation",
    "GuideStep",
    "derive",
    "draw_figures_for",
    "latex_text",
    "write_derivation",
]
