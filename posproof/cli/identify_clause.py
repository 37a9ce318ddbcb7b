"""The audit clause of ``identify``'s verdict line, shared by its three commands (arrays
of positions, ALiBi biases, T5 buckets)."""

from __future__ import annotations

from typing import Any

__all__ = ["identify_audit"]


def identify_audit(found: Any, why: str) -> dict[str, Any]:
    """The counts of ``identify``'s audit clause: ``found`` is (matched, evidence or None) per
    array; an array without evidence gets evidence that says why there is no number to
    re-check (``why`` for a match; a search that found nothing otherwise); each is audited.

    >>> identify_audit([(True, None)], "bucket indices compared as integers")["nothing to audit"]
    1
    """
    from types import SimpleNamespace

    from ..audit import audit
    from ..evidence import Evidence
    from ..report import audit_summary

    verdicts = []
    for matched, ev in found:
        if ev is None:
            ev = Evidence("identification", "all", unaudited=why if matched else (
                "no known rule fits the array: a search that found none, no number to "
                "re-check"))
        if ev.audit is None:
            audit(ev)
        verdicts.append(SimpleNamespace(status="pass" if matched else "fail", evidence=ev))
    return audit_summary(verdicts)
