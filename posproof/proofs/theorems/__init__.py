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
deadline per theorem); and :func:`prove` with the general-d proofs and claim
parsing in ``api``.

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
from .api import _claim_entries as _claim_entries
from .api import _concrete as _concrete
from .api import _dims_from as _dims_from
from .api import _general as _general
from .api import _general_crosscheck as _general_crosscheck
from .api import _matrix as _matrix
from .api import parse_block as parse_block
from .api import prove as prove
from .budget import DEFAULT_TIMEOUT as DEFAULT_TIMEOUT
from .engine import _Engine as _Engine
from .identities import _CONFIRM_DIGITS as _CONFIRM_DIGITS
from .identities import _MAX_OPS as _MAX_OPS
from .identities import _TRIG as _TRIG
from .identities import DSYM as DSYM
from .identities import KSYM as KSYM
from .identities import NSYM as NSYM
from .identities import A as A
from .identities import B as B
from .identities import W as W
from .identities import Y as Y
from .identities import _Abstractor as _Abstractor
from .identities import _coefficient as _coefficient
from .identities import _count as _count
from .identities import _CrossCheckFailure as _CrossCheckFailure
from .identities import _dps as _dps
from .identities import _exact as _exact
from .identities import _fmt as _fmt
from .identities import _Model as _Model
from .identities import _mp as _mp
from .identities import _mp_entry as _mp_entry
from .identities import _pythagoras as _pythagoras
from .identities import _same_number as _same_number
from .identities import _tol as _tol
from .identities import _visibly_nonzero as _visibly_nonzero
from .identities import is_zero as is_zero

__all__ = ["CONCRETE_THEOREMS", "GENERAL_THEOREMS", "parse_block", "prove"]
