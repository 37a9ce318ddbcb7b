"""Operations of the ``vaswani`` family (sinusoidal tables and their presets)."""

from __future__ import annotations

from typing import Any

from ..report import Report
from .options import Options

CLAIMS = ("claim_block", "convention", "claim_period", "claim_bound", "claim_permutation")
TAKES = {"prove": ("theorems", "general", "timeout", "budget", *CLAIMS),
         "check": ("length", "dps", "dtypes", "checks")}


def prove(enc: Any, o: Options) -> Report:
    from ..proofs.theorems import prove as prove_theorems

    claims = {k: o.claims.get(k) for k in CLAIMS if o.claims.get(k) is not None}
    return prove_theorems(enc, general=o.general, theorems=o.theorems or None, seed=o.seed,
                          progress=o.progress, **claims, **o.timeout_kw())


def validate_check(enc: Any, o: Options) -> None:
    from ..measure.checks import check_scan_options
    from ..precise import DEFAULT_DPS

    check_scan_options(enc, o.scan_length(), DEFAULT_DPS if o.dps is None else o.dps)


def check(enc: Any, o: Options, proofs: Any = ()) -> Report:
    from ..measure.checks import run_checks
    from ..precise import DEFAULT_DPS

    checks = run_checks(enc, max_len=o.scan_length(), dps=DEFAULT_DPS if o.dps is None
                        else o.dps, checks=o.checks or None, dtypes=o.dtypes or None,
                        seed=o.seed, proofs=proofs, progress=o.progress)
    return Report(enc.to_dict(), [], checks)
