"""Results: a Proof per theorem, a Check per numeric check, a Report of both.

The JSON form is the contract users script against: a top-level
``"theorems"`` list of objects with ``"name"`` and ``"status"``
(``proved`` | ``refuted`` | ``unknown``) and a ``"checks"`` list of objects
with ``"name"``, ``"status"`` (``pass`` | ``fail``) and their values.

>>> p = Proof("norm", "‖PE(x)‖² = 1", "proved")
>>> Report({"name": "demo"}, [p]).ok
True
>>> Report({"name": "demo"}, [p]).to_json().splitlines()[0]
'{'
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .evidence import Evidence, sampled_label

__all__ = ["Check", "Proof", "Report", "Step", "audit_summary"]

STATUSES = ("proved", "refuted", "unknown")
#: A numeric check's outcomes; ``unknown`` when its evidence could not be confirmed.
CHECK_STATUSES = ("pass", "fail", "unknown")


@dataclass
class Step:
    """One step of a proof: what was established, and by which rule."""

    statement: str
    rule: str
    latex: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out = {"statement": self.statement, "rule": self.rule}
        if self.latex is not None:
            out["latex"] = self.latex
        return out


@dataclass
class Proof:
    """One theorem's outcome: ``proved``, ``refuted`` (with a counterexample) or ``unknown``."""

    name: str
    statement: str
    status: str
    steps: list[Step] = field(default_factory=list)
    counterexample: dict[str, Any] | None = None
    crosscheck: dict[str, Any] | None = None
    general: bool = False
    note: str | None = None
    latex: str | None = None
    #: Measured or derived values, JSON-ready (e.g. ``{"period": "2000*pi"}``).
    values: dict[str, Any] | None = None
    #: The exact SymPy object behind a value (e.g. the period); not serialised.
    exact: Any = field(default=None, repr=False, compare=False)
    #: What decided the verdict (:mod:`posproof.evidence`), re-checked by :mod:`posproof.audit`.
    evidence: Evidence | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.status not in STATUSES:  # pragma: no cover - internal misuse
            raise ValueError(f"status={self.status!r}; use one of {STATUSES}")

    @property
    def ok(self) -> bool:
        return self.status == "proved"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "status": self.status,
                               "statement": self.statement, "general": self.general,
                               "steps": [s.to_dict() for s in self.steps]}
        for key in ("counterexample", "crosscheck", "note", "latex", "values"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        if self.evidence is not None:
            out["evidence"] = self.evidence.to_dict()
        return out


@dataclass
class Check:
    """A numeric check: ``pass`` or ``fail``, with measured values and their certification."""

    name: str
    status: str
    values: dict[str, Any] = field(default_factory=dict)
    certified: str = ""
    note: str | None = None
    #: What decided the verdict (:mod:`posproof.evidence`), re-checked by :mod:`posproof.audit`.
    evidence: Evidence | None = field(default=None, compare=False)

    @property
    def ok(self) -> bool:
        return self.status == "pass"

    @property
    def sampled(self) -> bool:
        """A pass that looked at a sample of the cases only (its evidence says so)."""
        return self.evidence is not None and self.evidence.sampled

    @property
    def label(self) -> str:
        """The verdict as printed: a sampled pass says so, never a bare "pass"."""
        if self.status == "pass" and self.sampled:
            ev = self.evidence
            return sampled_label(ev.covered, ev.total, ev.details.get("unit", "entries"))
        return self.status

    def to_dict(self) -> dict[str, Any]:
        out = {"name": self.name, "status": self.status, **self.values,
               "certified": self.certified}
        if self.note is not None:
            out["note"] = self.note
        if self.evidence is not None:
            out["evidence"] = self.evidence.to_dict()
            if self.sampled:
                out["sampled"] = {"covered": self.evidence.covered,
                                  "total": self.evidence.total}
        return out


@dataclass
class Report:
    """Proofs and checks about one encoding."""

    encoding: dict[str, Any]
    theorems: list[Proof] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)
    #: The canonical SPEC of what was checked (``posproof.model.families``), when known.
    spec: str | None = None
    #: Numbers the command measured or derived that belong to no single verdict.
    numbers: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """Every theorem proved and every check passed — and something was decided: an empty
        report is no OK (its verdict line says "nothing was decided")."""
        return bool(self.theorems or self.checks) and all(p.ok for p in self.theorems) \
            and all(c.ok for c in self.checks)

    @property
    def refuted(self) -> bool:
        return any(p.status == "refuted" for p in self.theorems) or any(
            c.status == "fail" for c in self.checks)

    def exit_status(self) -> int:
        """0 when all proved and passed, 1 otherwise (the CLI's contract)."""
        return 0 if self.ok else 1

    def __getitem__(self, name: str) -> Proof | Check:
        for item in [*self.theorems, *self.checks]:
            if item.name == name:
                return item
        raise KeyError(name)

    def audit_summary(self) -> dict[str, Any]:
        """How many verdicts carry evidence, and what the independent audit said of them."""
        return audit_summary([*self.theorems, *self.checks])

    def to_dict(self) -> dict[str, Any]:
        return {"encoding": self.encoding, "ok": self.ok, "spec": self.spec or "",
                "theorems": [p.to_dict() for p in self.theorems],
                "checks": [c.to_dict() for c in self.checks],
                "numbers": self.numbers, "audit": self.audit_summary()}

    def to_json(self) -> str:
        """Deterministic JSON (sorted keys, no timings)."""
        return json.dumps(self.to_dict(), indent=2, sort_keys=True, ensure_ascii=False)


def audit_summary(verdicts: Any) -> dict[str, Any]:
    """How many of ``verdicts`` (Proofs, Checks) carry evidence, and what the independent
    audit said of it: the counts a verdict line's audit clause prints
    (:func:`posproof.verdict.verdict_text`). An unknown without evidence is not counted.

    >>> audit_summary([Proof("norm", "‖PE(x)‖² = 1", "proved")])["without evidence"]
    1
    """
    out: dict[str, Any] = {"engine": "python-flint arb", "evidence": 0, "confirmed": 0,
                           "undecided": 0, "refuted": 0, "nothing to audit": 0,
                           "not audited": 0, "without evidence": 0}
    for item in verdicts:
        if item.status == "unknown" and item.evidence is None:
            continue
        ev = item.evidence
        if ev is None:
            out["without evidence"] += 1
            continue
        out["evidence"] += 1
        out[ev.audit.status if ev.audit else "not audited"] += 1
        if ev.audit is not None and ev.audit.agrees and ev.audit.coverage == "sample":
            # confirmed at sample points only: no decision procedure for an identity
            out["sampled"] = out.get("sampled", 0) + 1
    return out
