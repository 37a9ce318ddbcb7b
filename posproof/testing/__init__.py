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
declares angles formed in that dtype on purpose and allows
``16·(eps + eps_angles·|x·ω|)``.  On
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

The package holds one concept a module: ``reports`` (:class:`ImplReport`,
:class:`InvalidImplementation`, failure messages), ``tables`` (reading a table
or a callable impl, the spec's values, the comparison), ``hypotheses`` and
``explain`` (why a table disagrees: candidate regenerations, confirmed or not),
``explain_rotary`` (the same for a rotation), ``encodings``
(:func:`check_encoding`, :func:`assert_encoding`) and ``rotary``
(:func:`check_rotary`, :func:`assert_rotary`, the fingerprint), ``xpos`` (what
``assert_rotary`` checks for an xPos spec); ``multiaxis_tables`` and
``multiaxis_rotary`` (the same for several position axes: a table over a ``grid=``, a
rotary with positions ``(k, seq)``, explanations naming the axis); ``arrays`` (a user's table
as a float64 array, its dtype's eps, the match tolerance), ``identification``
(:func:`~posproof.testing.identification.identify`, the entry point),
``identification_1d`` (the 1-D method), ``identification_measure`` (pair
frequencies read from a table), ``identification_families`` (fitting the schedule
families), ``identification_precision`` (a table's scale and working precision) and
``identification_multiaxis`` (a table over a grid of 2 or 3 axes: which columns encode
which coordinate; the factorisation search for a flat table);
``strategies`` (Hypothesis strategies) and ``pytest_plugin``; ``alibi``
(:func:`assert_alibi`, :func:`check_alibi`, :func:`identify_alibi`: ALiBi slopes and biases);
``t5`` (:func:`assert_t5_buckets`: T5 relative position buckets against the exact ones),
``t5_identify`` (which T5 configuration produced a matrix of buckets) and ``position_ids``
(:func:`assert_position_ids`: padding-aware position ids).

Stage: on top of measure, beside document and sweep (which it does not import); it
may import measure, proofs, model and the shared leaves (errors, precise, validated,
report, version); not cli.
"""

from __future__ import annotations

from .alibi import AlibiReport, assert_alibi, check_alibi, identify_alibi
from .encodings import assert_encoding, check_encoding
from .identification import Identification, identify
from .position_ids import assert_position_ids, check_position_ids
from .reports import ImplReport, InvalidImplementation

# Explicit re-exports (``X as X``): names importable from posproof.testing before it became
# a package that are not in __all__ (posproof.cli.testing uses the private ones).
from .rotary import DEFAULT_MAX_POSITION as DEFAULT_MAX_POSITION
from .rotary import assert_rotary, check_rotary
from .t5 import assert_t5_buckets, check_t5_buckets
from .tables import DEFAULT_MAX_LEN, default_positions

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
