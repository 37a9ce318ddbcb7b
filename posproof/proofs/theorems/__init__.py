"""The proof engine: theorems about an Encoding, each proved, refuted or unknown.

Never simplify a d×d product.  The engine splits the columns into *groups*
(the layout's (sin, cos) pairs, and padding columns), checks that every matrix
involved is block-diagonal on those groups, and reduces each statement to one
identity per group.  Inside a group every exact frequency is replaced by a
symbol w, so the identity is proved once *for every w* (hence for every pair,
and with a symbolic pair index for every even d) and cached by its shape: the
cost grows linearly with d.  An identity that does not reduce to 0 is never
called proved: the engine searches for a counterexample and confirms it in
mpmath, or answers ``unknown``.  Every ``proved`` is cross-checked in mpmath at
random points, large positions included.

The engine's modules, re-exported here: the group identities and the per-group
model in ``identities``; the concrete proofs in ``engine`` (the machinery and the
translation theorems), ``engine_kernel`` (dot product, norm, boundedness) and
``engine_structure`` (the structure of T(Δ), layout equivalence, periodicity);
``trigzero`` (deciding a trigonometric identity within a budget), ``search`` (the
counterexample search at exact points with interval arithmetic), ``budget`` (a
deterministic work budget per theorem, and a wall-clock safety net); and :func:`prove` with
the general-d proofs and claim parsing in ``api``.

>>> from posproof import preset
>>> report = prove(preset("vaswani", dim=8))
>>> [(p.name, p.status) for p in report.theorems][:3]
[('translation[row]', 'proved'), ('translation[column]', 'proved'), ('dot_product', 'proved')]
>>> prove(preset("sine-only", dim=4), theorems=["translation[row]"]).theorems[0].status
'refuted'
"""

from __future__ import annotations

from ...model.encoding import X as X
from .api import CONCRETE_THEOREMS as CONCRETE_THEOREMS
from .api import GENERAL_THEOREMS as GENERAL_THEOREMS
from .api import parse_block as parse_block
from .api import prove as prove
from .budget import DEFAULT_BUDGET as DEFAULT_BUDGET
from .budget import DEFAULT_TIMEOUT as DEFAULT_TIMEOUT
from .identities import DSYM as DSYM
from .identities import KSYM as KSYM
from .identities import NSYM as NSYM
from .identities import A as A
from .identities import B as B
from .identities import W as W
from .identities import Y as Y
from .identities import is_zero as is_zero

__all__ = ["CONCRETE_THEOREMS", "GENERAL_THEOREMS", "parse_block", "prove"]
