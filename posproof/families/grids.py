"""Operations of the families with several position axes: ``sincos-2d`` (``pe-2d``,
``pe-3d``), ``mrope`` and ``axial-rope``. Their checks measure a grid of positions
(``grid=16x16`` in the SPEC, or ``--grid``)."""

from __future__ import annotations

from typing import Any

from ..errors import InvalidParameter
from ..report import Report
from .options import Options

TABLE_CLAIMS = ("claim_first", "claim_meshgrid")
ROTARY_CLAIMS = ("claim_sections", "claim_interleaved")
TAKES = {"prove": ("theorems", "general", "timeout", "budget", "grid", *TABLE_CLAIMS,
                   *ROTARY_CLAIMS),
         "check": ("grid", "dps", "dtypes", "checks")}


def prove(obj: Any, o: Options) -> Report:
    from ..proofs.multiaxis import prove_multi

    table = hasattr(obj, "pair_axes") is False
    wrong = [k for k in (ROTARY_CLAIMS if table else TABLE_CLAIMS) if o.claims.get(k)]
    if wrong:
        raise InvalidParameter(f"--{wrong[0].replace('_', '-')} does not apply to {obj.name}; "
                               "--claim-first/--claim-meshgrid are for sincos-2d/pe-2d/pe-3d, "
                               "--claim-sections for mrope/axial-rope")
    meshgrid = o.claims.get("claim_meshgrid")
    if meshgrid and o.grid is None:
        raise InvalidParameter("--claim-meshgrid needs the grid the table is built on, e.g. "
                               "--grid 16,16")
    return prove_multi(obj, general=o.general, theorems=o.theorems or None,
                       claim_axes=o.claims.get("claim_first"),
                       claim_sections=o.claims.get("claim_sections"),
                       claim_interleaved=bool(o.claims.get("claim_interleaved")),
                       claim_meshgrid=meshgrid, grid=o.grid if meshgrid else None,
                       seed=o.seed, **o.timeout_kw())


def check(obj: Any, o: Options, proofs: Any = ()) -> Report:
    from ..measure.multiaxis import check_grid
    from ..precise import DEFAULT_DPS

    if o.grid is None:
        example = "x".join(["16"] * obj.axes)
        raise InvalidParameter(f"{obj.name} has {obj.axes} position axes; give the grid to "
                               f"measure: grid={example} in the SPEC, or --grid "
                               f"{example.replace('x', ',')}")
    return check_grid(obj, o.grid, checks=o.checks or None,
                      dps=DEFAULT_DPS if o.dps is None else o.dps, seed=o.seed,
                      dtypes=o.dtypes or None)
