"""Operations of the ``rope`` family: a rotary embedding with its scaling rule.

Its theorems are :func:`~posproof.proofs.rotary.prove_rotary`'s (with the scaling rule's
invariants and the stale-cache hazard of dynamic rules); its numeric checks are those of the
sinusoidal table with the same frequencies (``Rotary.encoding()``), the angles every query
and key is rotated by.
"""

from __future__ import annotations

from typing import Any

from ..report import Report
from . import vaswani
from .options import Options

TAKES = {"prove": ("theorems", "general"), "check": vaswani.TAKES["check"]}


def prove(rot: Any, o: Options) -> Report:
    from ..proofs.rotary import prove_rotary

    return prove_rotary(rot, theorems=o.theorems or None, general=o.general, seed=o.seed)


def validate_check(rot: Any, o: Options) -> None:
    vaswani.validate_check(rot.encoding(), o)


def check(rot: Any, o: Options, proofs: Any = ()) -> Report:
    validate_check(rot, o)
    report = vaswani.check(rot.encoding(), o, proofs=())
    return Report(rot.to_dict(), [], report.checks)
