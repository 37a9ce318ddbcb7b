"""Operations of the ``alibi`` family (linear attention biases: the paper / BLOOM, MPT)."""

from __future__ import annotations

from typing import Any

from ..report import Report
from .options import Options

TAKES = {"prove": ("theorems", "general"), "check": ("length", "dtypes")}
DEFAULT_DTYPES = ("float32", "float16", "bfloat16")


def prove(spec: Any, o: Options) -> Report:
    from ..proofs.alibi import prove_alibi

    return prove_alibi(spec, theorems=o.theorems or None, general=o.general, seed=o.seed)


def check(spec: Any, o: Options, proofs: Any = ()) -> Report:
    """How each dtype stores the bias over Δ < L (fails only for a dtype named with
    ``dtypes``: the defaults are reported, not required)."""
    from ..measure.alibi import alibi_dtype_audit

    check = alibi_dtype_audit(spec, o.scan_length(), list(o.dtypes or DEFAULT_DTYPES),
                              strict=tuple(o.dtypes or ()))
    return Report(spec.to_dict(), [], [check])


def details(report: Report) -> list[str]:
    """Per dtype: where distances merge, where the bias overflows."""
    lines = []
    for check in report.checks:
        for name, v in (check.values.get("dtypes") or {}).items():
            merged = v["first_merged_distance"]
            lines.append(f"      {name:<9} "
                         + (f"distances merge from Δ={merged}" if merged is not None
                            else "every distance distinct")
                         + (f", overflow at Δ={v['first_overflow']}"
                            if v["first_overflow"] is not None else "")
                         + f", max relative error {v['max_relative_error']:.2e}")
    return lines
