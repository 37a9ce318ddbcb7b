"""Operations of the ``t5`` family (T5 relative position buckets)."""

from __future__ import annotations

from typing import Any

from ..report import Report
from .options import Options

TAKES = {"prove": ("theorems",), "check": ()}
WHY_NOT = {"dtypes": "its dtype audit covers float32 and float16",
           "length": "the audit covers every distance up to where the buckets stop changing"}


def prove(spec: Any, o: Options) -> Report:
    from ..proofs.t5 import prove_t5

    return Report(spec.to_dict(), prove_t5(spec, theorems=o.theorems or None), [])


def check(spec: Any, o: Options, proofs: Any = ()) -> Report:
    from ..measure.t5_dtype import AUDIT_DTYPES, dtype_audit

    return Report(spec.to_dict(), [], [dtype_audit(spec, dt) for dt in AUDIT_DTYPES])
