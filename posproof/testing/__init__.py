"""Property checks for your own positional-encoding implementation, for any pytest suite.

One line in a test fails CI when a table, a rotation or a dtype drifts from the
specification, and the failure says what is wrong::

    from posproof.testing import assert_encoding, assert_rotary

    def test_table():
        assert_encoding(model.pos_table, "vaswani", base=10000)

    def test_rope():
        assert_rotary(my_apply_rope, head_dim=64, base=10000, layout="half")

:func:`assert_encoding` compares a table (or a callable returning one for given
positions) with a spec at positions that include large ones.  The default
tolerance is the exact table rounded to the impl's dtype (``max(4·eps, 16·eps64)``
of the output plus ``16·eps64·|x·ω|``), so a low-precision table whose angles
were formed in low precision fails; ``angles="float16"`` (or another dtype)
declares angles formed in that dtype on purpose and widens the tolerance by that
dtype's rounding model only (ω formed in it from its exponent, x·ω rounded to it:
``γ_k·|x·ω|``, k = 2·|ln ω| + 4; the rotary and multi-axis checks alike, in m·θ).  On
failure each candidate explanation — sin and cos swapped, another layout, an
exponent over n−1 or over the column index, an offset, a scale, angles formed
in float16, another base, … — regenerates the table under its hypothesis, and
one is named only when its regeneration reproduces the impl within the dtype's
tolerance (residual shown); otherwise the report says no explanation is
confirmed and shows what :func:`~posproof.testing.identification.identify` finds (see
docs/bugs.md).  :func:`assert_rotary` checks the relative property and norm
preservation at large positions, then fingerprints the convention (pairing,
rotation direction, frequency order, base) against the canonical RoPE —
a flipped rotation passes every shift-invariance test, so only the fingerprint
catches it.  ``check_encoding`` and ``check_rotary`` return the report
without raising.

>>> import posproof
>>> table = posproof.preset("vaswani", dim=64).table(512, dtype="float32")
>>> assert_encoding(table, "vaswani").ok
True
>>> swapped = posproof.preset("vaswani", dim=64, layout="interleaved-cos").table(512)
>>> assert_encoding(swapped, "vaswani")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
AssertionError: impl disagrees with preset("vaswani", dim=64) ...
most likely: matches the spec with sin and cos swapped ...

The package is grouped by stage and family (issue 22); each family goes through the
same pipeline (``core``): read the impl and its working precision from the data, compare with the
exact model, regenerate each hypothesis, report only the confirmed explanations.

- ``core``: ``arrays`` (a user's table as a float64 array, its dtype's eps, the match tolerance),
  ``judging`` (the verdict over covered entries), ``reports`` (:class:`ImplReport`,
  :class:`InvalidImplementation`, failure messages);
- ``identification``: :func:`~posproof.testing.identification.identify` (the entry point),
  ``table`` (the 1-D method), ``grid`` (a table over 2 or 3 axes; the factorisation of a flat
  table), ``measure`` (pair frequencies read from a table), ``families`` (fitting the schedule
  families), ``precision`` (a table's scale and working precision);
- ``absolute`` (tables of absolute positions): ``read``, ``check`` (:func:`check_encoding`,
  :func:`assert_encoding`), ``hypotheses``, ``explain``, ``grid`` (tables over a ``grid=``);
- ``rope`` (rotations): ``check`` (:func:`check_rotary`, :func:`assert_rotary`, the
  fingerprint), ``explain``, ``grid`` (axial RoPE, M-RoPE: positions ``(k, seq)``), ``xpos``;
- ``bias``: ``alibi`` (:func:`assert_alibi`, :func:`check_alibi`, :func:`identify_alibi`),
  ``t5`` (:func:`assert_t5_buckets`), ``t5_identify``;
- ``position_ids`` (:func:`assert_position_ids`: padding-aware position ids),
  ``strategies`` (Hypothesis strategies) and ``pytest_plugin``.

The flat module paths of before (``posproof.testing.rotary``, ``.tables``, ``.alibi``, ``.t5``,
``.xpos``, ``.multiaxis_tables``, ``.identification_1d``, …) are aliases of the modules above
(see ``posproof/_moved.py``).

Stage: on top of measure, beside document and sweep (which it does not import); it
may import measure, proofs, model and the shared leaves (errors, precise, validated,
report, version); not cli.
"""

from __future__ import annotations

from .absolute.check import assert_encoding, check_encoding
from .absolute.read import DEFAULT_MAX_LEN, default_positions
from .bias.alibi import AlibiReport, assert_alibi, check_alibi, identify_alibi
from .bias.t5 import assert_t5_buckets, check_t5_buckets
from .core.reports import ImplReport, InvalidImplementation
from .identification import Identification, identify
from .position_ids import assert_position_ids, check_position_ids

# Explicit re-exports (``X as X``): names importable from posproof.testing before it became
# a package that are not in __all__ (posproof.cli.testing uses the private ones).
from .rope.check import DEFAULT_MAX_POSITION as DEFAULT_MAX_POSITION
from .rope.check import assert_rotary, check_rotary

__all__ = [
    "DEFAULT_MAX_LEN",
    "AlibiReport",
    "Identification",
    "ImplReport",
    "InvalidImplementation",
    "assert_alibi",
    "assert_encoding",
    "assert_position_ids",
    "assert_rotary",
    "assert_t5_buckets",
    "check_alibi",
    "check_encoding",
    "check_position_ids",
    "check_rotary",
    "check_t5_buckets",
    "default_positions",
    "identify",
    "identify_alibi",
]

#: The flat modules of before issue 22, aliases of their new modules (posproof/_moved.py).
_FLAT = ("alibi", "arrays", "encodings", "explain", "explain_rotary", "hypotheses",
         "identification_1d", "identification_families", "identification_measure",
         "identification_multiaxis", "identification_precision", "judging", "multiaxis_rotary",
         "multiaxis_tables", "reports", "rotary", "t5", "t5_identify", "tables", "xpos")


def __getattr__(name: str) -> object:
    """``posproof.testing.rotary`` after a bare ``import posproof.testing`` (the old paths)."""
    if name in _FLAT:
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


from ..whole.api import assert_model_positions as assert_model_positions  # noqa: E402  (issue 23)
