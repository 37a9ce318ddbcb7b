"""Operations of the ``xpos`` family (RoPE with an exponential scale, Sun et al. 2022)."""

from __future__ import annotations

from typing import Any

from ..report import Check, Report
from .options import Options

TAKES = {"prove": (), "check": ()}
WHY_NOT = {"theorems": "xPos proves xpos:relative and xpos:decay together"}


def prove(xp: Any, o: Options) -> Report:
    from ..proofs.xpos import prove_xpos

    return prove_xpos(xp, seed=o.seed)


def check(xp: Any, o: Options, proofs: Any = ()) -> Report:
    from ..measure.xpos import xpos_scale_limits

    checks = [Check(f"xpos_scale_limits[{row['dtype']}]",
                    "pass" if row["overflow_position"] is not None else "fail",
                    {k: row[k] for k in ("overflow_position", "first_length_uncentred",
                                         "first_length_centred", "underflow_position",
                                         "dtype", "zeta_0", "scale_base")},
                    certified="validated interval arithmetic (posproof.validated.enclose)")
              for row in xpos_scale_limits(xp)]
    return Report(xp.to_dict(), [], checks)
