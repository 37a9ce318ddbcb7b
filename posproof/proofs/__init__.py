"""Prove or refute statements about an encoding: the engine, its identities and
theorems (concrete and general-d), claims, and the proofs about rotary embeddings and
their scaling rules.

The second stage of the pipeline: it may import posproof.model and the shared leaves
(errors, precise, validated, report, version); nothing downstream, no matplotlib, no torch.

Modules:

* ``claims`` — Claims a user states about an encoding: a period, a bound, a column permutation.
* ``rotary`` — What is proved about a rotary embedding: ``prove_rotary``, the stale-cache hazard.
* ``scaling`` — Proofs of the invariants of each RoPE scaling rule (``scaling_theorems``).
* ``t5`` — What is proved about T5 relative position buckets, in integers (``prove_t5``).
* ``theorems`` — The proof engine: theorems about an Encoding, each proved, refuted or unknown.
"""
