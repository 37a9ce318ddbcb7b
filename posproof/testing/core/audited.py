"""Evidence of a check of an implementation, and its audit.

A check of an implementation (a table, a rotary ``apply_fn``, a bias) is decided by comparing
the impl's values with the spec's exact values under a tolerance.  Its evidence carries the
entry that decided it as a :class:`~posproof.evidence.Sign` the independent auditor
(:mod:`posproof.audit`, Arb balls) recomputes from the exact value, the impl's value and the
tolerance:

* a pass: ``tolerance − |impl − exact| > 0`` at the worst entry (the largest
  |difference|/tolerance), so that the entry closest to failing is re-judged;
* a fail: ``|impl − exact| − tolerance > 0`` at the same entry.

:func:`audit_impl` audits a report's evidence and turns a pass or fail whose evidence the
auditor refutes or cannot decide into ``unknown`` (never the opposite).

>>> import sympy as sp
>>> s = entry_sign("position 3, dim 0", sp.sin(3), 0.1411200080598672, 1e-15, True)
>>> from posproof.audit import decide
>>> decide(s)[0]
'confirmed'
>>> decide(entry_sign("position 3, dim 0", sp.sin(3), 0.1411200080598672 + 1e-12, 1e-15,
...                   True))[0]
'refuted'
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from ...evidence import Evidence, Sign

__all__ = ["audit_counts", "audit_impl", "audited", "entry_sign", "failure_evidence",
           "impl_status", "no_comparison"]

_V, _TOL = sp.Symbol("impl"), sp.Symbol("tolerance")


def entry_sign(where: str, exact: Any, impl: float, tolerance: float, within: bool) -> Sign:
    """The deciding entry as a Sign: ``tolerance − |impl − exact| > 0`` when ``within`` (a
    pass), ``|impl − exact| − tolerance > 0`` otherwise (a fail); ``impl`` and ``tolerance``
    are the float64 numbers the check used, read exactly."""
    exact = sp.sympify(exact)
    gap = sp.Abs(_V - exact)
    if within:
        expr, text = _TOL - gap, "tolerance − |impl − exact|"
    else:
        expr, text = gap - _TOL, "|impl − exact| − tolerance"
    return Sign(f"{where}: {text} (exact {sp.sstr(exact)[:80]})", expr, "positive",
                env={"impl": float(impl), "tolerance": float(tolerance)},
                engine="float64 comparison")


def failure_evidence(method: str, item: Sign, details: dict[str, Any] | None = None
                     ) -> Evidence:
    """The evidence of a fail: one entry beyond its tolerance decides it, whatever was not
    compared (coverage ``all``: no entry can undo it)."""
    return Evidence(method, "all", items=[item], details=dict(details or {}))


def no_comparison(why: str) -> Evidence:
    """The evidence of a fail decided without a number to re-check (NaN in the output, a
    wrong shape): it says why there is nothing to audit."""
    return Evidence("structural", "all", unaudited=why)


def impl_status(report: Any) -> str:
    """``pass``, ``fail`` or ``unknown`` of a report of an implementation (an
    :class:`ImplReport`, an ``AlibiReport``): pass when ``ok``, unknown when a check is."""
    status = getattr(report, "status", None)
    if isinstance(status, str) and status:
        return status
    if report.ok:
        return "pass"
    return ("unknown" if any(c.get("status") == "unknown" for c in report.checks)
            else "fail")


def audit_counts(report: Any) -> dict[str, Any]:
    """What the independent audit said of the report's evidence: the counts of a verdict
    line's audit clause (:func:`posproof.report.audit_summary`) — the first check's
    (``report.evidence``) and every further check's (``report.check_evidence``)."""
    from types import SimpleNamespace

    from ...report import audit_summary

    verdicts = [SimpleNamespace(status=impl_status(report),
                                evidence=getattr(report, "evidence", None))]
    by_name = getattr(report, "check_evidence", None) or {}
    verdicts += [SimpleNamespace(status=c.get("status"), evidence=by_name[c["name"]])
                 for c in report.checks if c.get("name") in by_name]
    return audit_summary(verdicts)


def audit_impl(report: Any, check: str = "matches_spec") -> Any:
    """Audit ``report.evidence`` (the ``check`` entry's) and each of ``report.check_evidence``
    (its named check's): a pass or fail the auditor does not confirm becomes unknown (that
    check's status too), with the auditor's reason first in the message.  Returns the
    report."""
    from ...audit import audit

    ev = getattr(report, "evidence", None)
    if ev is not None:
        result = ev.audit if ev.audit is not None else audit(ev)
        status = impl_status(report)
        if not (result.agrees or status == "unknown"):
            named = [c for c in report.checks if c.get("name") == check] or report.checks[:1]
            if not named:
                report.checks.append({"name": check, "status": "unknown"})
            _not_confirmed(report, named, result, status)
    for name, sub in (getattr(report, "check_evidence", None) or {}).items():
        result = sub.audit if sub.audit is not None else audit(sub)
        named = [c for c in report.checks if c.get("name") == name]
        status = named[0].get("status") if named else "unknown"
        if not (result.agrees or status == "unknown"):
            _not_confirmed(report, named, result, f"{status}' of '{name}")
    return report


def _not_confirmed(report: Any, named: list[dict[str, Any]], result: Any, status: str) -> None:
    """A verdict whose evidence the audit refuted or could not decide: unknown."""
    verb = "disagrees with" if result.status == "refuted" else "could not confirm"
    why = (f"unknown: the independent audit ({result.engine}) {verb} the evidence for "
           f"'{status}': {result.detail}")
    report.ok = False
    for c in named:
        c["status"] = "unknown"
        c.pop("label", None)
    report.message = why + (f"\n{report.message}" if report.message else "")


def audited(check: Any) -> Any:
    """Decorate a function returning an ImplReport: its evidence audited (:func:`audit_impl`)."""
    import functools

    @functools.wraps(check)
    def run(*args: Any, **kwargs: Any) -> Any:
        return audit_impl(check(*args, **kwargs))

    return run
