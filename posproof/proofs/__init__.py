"""Prove or refute statements about an encoding: the engine, its identities and
theorems (concrete and general-d), claims, and the proofs about rotary embeddings and
their scaling rules.

The second stage of the pipeline: it may import posproof.model and the shared leaves
(errors, precise, validated, report, version); nothing downstream, no matplotlib, no torch.

Modules:

* ``alibi`` — What is proved about ALiBi: ``prove_alibi`` (Toeplitz bias, scores through offsets,
  monotone, geometric slopes exactly for powers of two, MPT's rule vs the reference).
* ``claims`` — Claims a user states about an encoding: a period, a bound, a column permutation.
* ``multiaxis`` — What is proved about a multi-axis encoding or rotary: ``prove_multi``
  (``multiaxis.prove``); ``multiaxis.check``: theorem names and statements, their mpmath
  cross-checks; ``multiaxis.claims``: claims about multi-axis encodings (axes, mrope_section,
  meshgrid, convention); ``multiaxis.general``: M-RoPE on the diagonal, the theorems for every
  k and split.  The old module paths ``multicheck``, ``multiclaims``, ``multigeneral`` still
  import (aliases, ``posproof/_moved.py``).
* ``permutation`` — Why positions at all: self-attention without positions is permutation
  equivariant.
* ``rotary`` — What is proved about a rotary embedding: ``prove_rotary``, the stale-cache hazard.
* ``scaling`` — Proofs of the invariants of each RoPE scaling rule (``scaling_theorems``).
* ``t5`` — What is proved about T5 relative position buckets, in integers (``prove_t5``).
* ``theorems`` — The proof engine: theorems about an Encoding, each proved, refuted or unknown.
* ``xpos`` — What is proved about xPos (:class:`posproof.model.xpos.XPos`): relative scores, decay.
"""
