"""Operations of the ``xpos`` family (RoPE with an exponential scale, Sun et al. 2022)."""

from __future__ import annotations

from typing import Any

from ..report import Report
from .options import Options

TAKES = {"prove": (), "check": ()}
WHY_NOT = {"theorems": "xPos proves xpos:relative and xpos:decay together"}


def prove(xp: Any, o: Options) -> Report:
    from ..proofs.xpos import prove_xpos

    return prove_xpos(xp, seed=o.seed)


def check(xp: Any, o: Options, proofs: Any = ()) -> Report:
    from ..measure.xpos import xpos_scale_checks

    return Report(xp.to_dict(), [], xpos_scale_checks(xp))
