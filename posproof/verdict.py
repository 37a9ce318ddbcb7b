"""Three-valued answers: :class:`Verdict` (``YES``, ``NO``, ``UNKNOWN``); and the one verdict
line every command ends with (:func:`verdict_text`).

A certified question ("is this base good?") has three answers, and "unknown" must never
be read as "yes" by accident.  A string would be: ``if bb.is_good(b):`` is true for
``'no'``.  A :class:`Verdict` has no truth value (``bool()`` raises ``TypeError``), so the
caller says which answer it means:

>>> v = Verdict.NO
>>> v is Verdict.YES, v.is_yes, v.is_no, v.is_unknown
(False, False, True, False)
>>> if v:  # doctest: +ELLIPSIS
...     pass
Traceback (most recent call last):
...
TypeError: a Verdict (Verdict.NO) has no truth value: it is one of yes, no, unknown; ...

It is a ``str`` too, equal to its text, so JSON and the comparisons ``== "yes"`` of existing
code keep working (``json.dumps(Verdict.YES)`` is ``'"yes"'``):

>>> Verdict.YES == "yes", str(Verdict.UNKNOWN), f"{Verdict.NO}", Verdict("yes")
(True, 'unknown', 'no', Verdict.YES)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import Enum
from typing import Any

__all__ = ["VERDICTS", "Verdict", "audit_clause", "verdict_text"]

#: The words of a verdict line, in the order they win: everything holds; a theorem is
#: refuted; a check fails; something stays unknown (or was not run).
VERDICTS = ("OK", "REFUTED", "CHECK FAILED", "INCOMPLETE")


class Verdict(str, Enum):
    """A certified three-valued answer; its truth value cannot be taken (see the module)."""

    YES = "yes"
    NO = "no"
    UNKNOWN = "unknown"

    def __bool__(self) -> bool:
        raise TypeError(f"a Verdict ({self!r}) has no truth value: it is one of yes, no, "
                        "unknown; compare it (verdict is Verdict.YES) or use .is_yes / "
                        ".is_no / .is_unknown")

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)

    def __repr__(self) -> str:
        return f"Verdict.{self.name}"

    @property
    def is_yes(self) -> bool:
        return self is Verdict.YES

    @property
    def is_no(self) -> bool:
        return self is Verdict.NO

    @property
    def is_unknown(self) -> bool:
        return self is Verdict.UNKNOWN

    @classmethod
    def of(cls, value: bool | None) -> Verdict:
        """``True`` → YES, ``False`` → NO, ``None`` → UNKNOWN.

        >>> Verdict.of(True), Verdict.of(False), Verdict.of(None)
        (Verdict.YES, Verdict.NO, Verdict.UNKNOWN)
        """
        return cls.UNKNOWN if value is None else cls.YES if value else cls.NO


def _get(item: Any, key: str, default: Any = None) -> Any:
    return item.get(key, default) if isinstance(item, Mapping) else getattr(item, key, default)


def audit_clause(audited: Mapping[str, Any] | None) -> str:
    """What the independent audit said, as the verdict line prints it ('' when nothing carries
    evidence); ``audited`` is :meth:`posproof.report.Report.audit_summary`.

    >>> audit_clause({"engine": "python-flint arb", "evidence": 3, "confirmed": 2,
    ...               "nothing to audit": 1})
    'audit (python-flint arb): 2 confirmed, 1 nothing to audit'
    """
    if not audited or not (audited.get("evidence") or audited.get("without evidence")):
        return ""
    return (f"audit ({audited['engine']}): {audited['confirmed']} confirmed"
            + (f" ({audited['sampled']} on a sample only)" if audited.get("sampled")
               else "")
            + "".join(f", {audited[k]} {k}" for k in ("nothing to audit", "undecided",
                                                      "refuted", "not audited",
                                                      "without evidence")
                      if audited.get(k)))


def verdict_text(theorems: Iterable[Any] = (), checks: Iterable[Any] = (), *,
                 expected: Iterable[str] = (), audited: Mapping[str, Any] | None = None,
                 noun: str = "checks", verb: str = "pass", ok: bool | None = None) -> str:
    """The verdict of a command, ``WORD — counts``: the same form for every command.

    ``theorems`` and ``checks`` are Proofs / Checks (or dicts with ``status``, ``name``);
    a refutation whose name is in ``expected`` is counted apart ("refuted as expected") and
    does not make the verdict REFUTED.  ``noun`` / ``verb`` name the checks ("arrays" /
    "identified"); ``audited`` is :meth:`posproof.report.Report.audit_summary`; ``ok``
    overrides the default (every theorem proved or refuted as expected, every check pass).

    >>> from types import SimpleNamespace as P
    >>> verdict_text([P(status="proved"), P(status="refuted", name="x")])
    'REFUTED — 1 proved, 1 refuted, 0 unknown'
    >>> verdict_text([P(status="proved"), P(status="refuted", name="x")], expected=["x"])
    'OK — 1 proved, 0 refuted, 0 unknown, 1 refuted as expected'
    >>> verdict_text(checks=[{"status": "pass"}, {"status": "fail"}])
    'CHECK FAILED — checks 1/2 pass'
    >>> verdict_text(checks=[{"status": "pass"}], noun="arrays", verb="identified")
    'OK — arrays 1/1 identified'
    >>> verdict_text()
    'INCOMPLETE — nothing was decided'
    """
    theorems, checks, expected = list(theorems), list(checks), set(expected)
    as_expected = sum(_get(p, "status") == "refuted" and _get(p, "name") in expected
                      for p in theorems)
    counts = {s: sum(_get(p, "status") == s for p in theorems) for s in
              ("proved", "refuted", "unknown")}
    counts["refuted"] -= as_expected
    parts = []
    if theorems:
        parts.append(", ".join(f"{v} {k}" for k, v in counts.items())
                     + (f", {as_expected} refuted as expected" if as_expected else ""))
    failed = sum(_get(c, "status") == "fail" for c in checks)
    if checks:
        passed = sum(_get(c, "status") == "pass" for c in checks)
        sampled = sum(_get(c, "status") == "pass" and bool(_get(c, "sampled", False))
                      for c in checks)
        unknown = len(checks) - passed - failed
        parts.append(f"{noun} {passed}/{len(checks)} {verb}"
                     + (f" ({sampled} on a sample)" if sampled else "")
                     + (f", {unknown} unknown" if unknown else ""))
    clause = audit_clause(audited)
    if clause:
        parts.append(clause)
    if ok is None:
        ok = bool(theorems or checks) and counts["refuted"] == 0 and counts["unknown"] == 0 \
            and failed == 0 and all(_get(c, "status") == "pass" for c in checks)
    if ok:
        word = "OK"
    elif counts["refuted"]:
        word = "REFUTED"
    elif failed:
        word = "CHECK FAILED"
    else:
        word = "INCOMPLETE"
    return f"{word} — {'; '.join(parts) or 'nothing was decided'}"
