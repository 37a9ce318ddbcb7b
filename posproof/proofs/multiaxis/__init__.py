"""What is proved about a multi-axis encoding (issue 15): :func:`prove_multi` and its claims.

A multi-axis encoding is a direct sum of 1-D ones (:mod:`posproof.model.multiaxis`): block b
is a 1-D :class:`~posproof.model.encoding.Encoding` of axis a_b on its own columns, so

    PE(x) = [PE_b(x_{a_b})]_b        T(Δ) = ⊕_b T_b(Δ_{a_b})   (disjoint column sets).

Every theorem is therefore a conjunction (translation, orthogonality, group law) or a sum
(dot product, norm) of the 1-D theorem of each block, proved by the 1-D engine
(:func:`posproof.proofs.theorems.prove`, :func:`posproof.proofs.rotary.prove_rotary`); the
⊕ structure is checked entry by entry on the exact T(Δ) / R(p), and each composed statement
is cross-checked in mpmath at random vector positions.  A block whose 1-D theorem is not
proved makes the multi-axis theorem ``unknown``, never ``proved``.  Each verdict carries its
evidence (the ⊕ structure's exact entries, the blocks' 1-D evidence, certified witnesses),
re-checked by the independent audit (python-flint Arb) before it is returned.

The modules: :mod:`~posproof.proofs.multiaxis.prove` (:func:`prove_multi`),
:mod:`~posproof.proofs.multiaxis.check` (theorem names, statements, mpmath cross-checks),
:mod:`~posproof.proofs.multiaxis.claims` and :mod:`~posproof.proofs.multiaxis.general`.
The old paths ``posproof.proofs.multicheck``, ``multiclaims`` and ``multigeneral`` are
aliases of the last three (:mod:`posproof._moved`).

The claims (a claimed axis per block, ``mrope_section``, a meshgrid built with ``"ij"``
where the spec says ``"xy"``, T(Δ) in the wrong convention), each refuted with a certified
counterexample, are in :mod:`posproof.proofs.multiaxis.claims`; the M-RoPE diagonal theorem and
the general forms for every k and split in :mod:`posproof.proofs.multiaxis.general`.
"""

from __future__ import annotations

from .check import MULTI_ROTARY_THEOREMS, MULTI_THEOREMS
from .claims import (  # noqa: F401  (reachable from here before the package split)
    axis_claim,
    convention_claim,
    meshgrid_claim,
    sections_claim,
)
from .prove import direct_sum_problems, padding_clause, prove_multi, rotary_direct_sum_problems

__all__ = [
    "MULTI_ROTARY_THEOREMS",
    "MULTI_THEOREMS",
    "direct_sum_problems",
    "padding_clause",
    "prove_multi",
    "rotary_direct_sum_problems",
]
