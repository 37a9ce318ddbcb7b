"""Prove or refute statements about an encoding: the engine, its identities and
theorems (concrete and general-d), and claims.

It may import posproof.model and the shared leaves; nothing downstream.

Modules:

* ``claims`` — Claims a user states about an encoding: a period, a bound, a column permutation.
* ``theorems`` — The proof engine: theorems about an Encoding, each proved, refuted or unknown.
"""
