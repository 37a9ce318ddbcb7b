"""What a check of an implementation returns: :class:`ImplReport`, its failure messages.

Also the error raised for an object posproof cannot test
(:class:`InvalidImplementation`), the ``preset(...)`` / ``rotary(...)`` label
that names a spec in messages, and the name of an impl.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...errors import PosproofError
from .judging import ranges

__all__ = [
    "PRECISION_KEYS",
    "ImplReport",
    "InvalidImplementation",
    "angles_hint",
    "describe",
    "encoding_label",
    "encoding_message",
    "imported_torch",
    "nonfinite",
    "precision_explained",
    "rotary_message",
    "spec_label",
    "suggest_angles",
]


class InvalidImplementation(PosproofError, TypeError):
    """The object under test is not a table, a callable or a module posproof can read."""


@dataclass
class ImplReport:
    """What a check of an implementation found; ``ok`` is the verdict.

    ``checks`` lists each property with its ``status`` (``"pass"`` or
    ``"fail"``); ``explanation`` is the most likely reason for a failure;
    ``message`` is the text :func:`assert_encoding` raises.  ``tolerance``
    holds the tolerance used (``formula``, its ``out`` and ``angle``
    coefficients, ``angles``, ``scale``); after a failure under the default
    tolerance, ``accepted_with_angles`` names the ``angles=`` dtype whose
    tolerance the impl is within (None if none).
    """

    ok: bool
    kind: str
    spec: dict[str, Any]
    dtype: str
    n_positions: int
    max_position: int
    max_error: float = 0.0
    score: float = 0.0
    worst: dict[str, Any] = field(default_factory=dict)
    bad_positions: list[int] = field(default_factory=list)
    bad_dims: list[int] = field(default_factory=list)
    n_bad_positions: int = 0
    n_bad_dims: int = 0
    position_ranges: str = ""
    dim_ranges: str = ""
    explanation: str | None = None
    hypotheses: list[dict[str, Any]] = field(default_factory=list)
    checks: list[dict[str, Any]] = field(default_factory=list)
    fingerprint: dict[str, Any] | None = None
    identification: dict[str, Any] | None = None
    tolerance: dict[str, Any] = field(default_factory=dict)
    accepted_with_angles: str | None = None
    message: str = ""
    angles_note: str | None = None      # what the angles= hint did not judge, or why none
    #: the working precision read from the values ("" when none: see core/precision.py)
    precision_note: str = ""
    evidence: Any = None                # posproof.evidence.Evidence of a pass
    #: the evidence of each further check (``relative_property``, ``norm_preservation``,
    #: ``convention`` …) by name: audited and counted like ``evidence`` (which is the
    #: first check's, ``matches_spec``)
    check_evidence: dict[str, Any] = field(default_factory=dict)

    @property
    def status(self) -> str:
        """"pass", "fail" or "unknown" (a check not judged, or evidence the audit did not
        confirm)."""
        if self.ok:
            return "pass"
        return ("unknown" if any(c.get("status") == "unknown" for c in self.checks)
                else "fail")

    @property
    def label(self) -> str:
        """"pass", "fail", or a pass that judged part: "pass (judged N of M entries; …)"."""
        if not self.ok:
            return ("unknown" if any(c.get("status") == "unknown" for c in self.checks)
                    else "fail")
        labels = [c.get("label") for c in self.checks if c.get("label")]
        return labels[0] if labels else "pass"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict with a ``"checks"`` list (``name``, ``status``, values).

        >>> import posproof
        >>> from posproof.testing import check_encoding
        >>> check = check_encoding(posproof.preset("vaswani", dim=8).table(64)).to_dict()[
        ...     "checks"][0]
        >>> sorted(check), check["status"], check["score"]
        (['max_error', 'name', 'score', 'status', 'tolerance'], 'pass', 0.0)
        """
        out = {k: getattr(self, k) for k in self.__dataclass_fields__
               if k != "check_evidence"}
        if self.check_evidence:
            out["checks"] = [{**c, "evidence": self.check_evidence[c["name"]].to_dict()}
                             if c.get("name") in self.check_evidence else c
                             for c in self.checks]
        out["status"] = self.status
        out["label"] = self.label
        if self.evidence is not None:
            out["evidence"] = self.evidence.to_dict()
        return out


def encoding_label(spec: Any) -> str:
    return spec_label(spec.to_dict())


#: Keys of a rotary spec's to_dict() spec_label shows first (the rest: the scaling's parameters).
_ROTARY_SHOWN = ("name", "kind", "head_dim", "rotary_dim", "layout", "base", "scaling")


def spec_label(d: dict[str, Any]) -> str:
    """A preset(...) / rotary(...) call that describes a spec's ``to_dict()``."""
    if d.get("kind") == "xpos":
        return (f"XPos(head_dim={d['head_dim']}, base={d['base']}, "
                f"scale_base={d['scale_base']}, gamma={d['gamma']})")
    if d.get("kind") == "rotary":   # the whole spec: a scaling rule with its parameters too
        rule = [f"scaling={d['scaling']}"] if d.get("scaling") not in (None, "default") else []
        rule += [f"{k}={v}" for k, v in d.items() if k not in _ROTARY_SHOWN]
        return (f"rotary(base={d.get('base')}, head_dim={d['head_dim']}, layout={d['layout']}"
                + (f", rotary_dim={d['rotary_dim']}" if d["rotary_dim"] != d["head_dim"] else "")
                + "".join(f", {x}" for x in rule) + ")")
    if d.get("kind") == "multi-axis rotary":
        return f"{d['name']}(head_dim={d['head_dim']}, layout={d['layout']}, axes={d['axes']})"
    sched = d.get("schedule")
    if sched is None:
        return f"{d['name']}(dim={d['dim']})"
    params = {k: v for k, v in sched.items() if k != "family"}
    defaults = _PRESET_DEFAULTS.get(d["name"], {})
    shown = [f"{k}={v}" for k, v in params.items() if defaults.get(k) != str(v)]
    if d["layout"] != _DEFAULT_LAYOUT.get(d["name"], "interleaved"):
        shown.append(f"layout={d['layout']!r}")
    if d["offset"] != _DEFAULT_OFFSET.get(d["name"], 0) and d["name"] != "fairseq":
        shown.append(f"offset={d['offset']}")
    if d["name"] == "fairseq" and d.get("padding_idx") != 1:
        shown.append(f"padding_idx={d.get('padding_idx')}")
    return f'preset("{d["name"]}", dim={d["dim"]}' + "".join(f", {s}" for s in shown) + ")"


_PRESET_DEFAULTS = {
    "vaswani": {"base": "10000"}, "diffusion": {"max_period": "10000"},
    "tensor2tensor": {"min_timescale": "1", "max_timescale": "10000"},
    "fairseq": {"min_timescale": "1", "max_timescale": "10000"}, "binary": {"numerator": "pi"},
}
_DEFAULT_LAYOUT = {"tensor2tensor": "split", "fairseq": "split", "diffusion": "split-cos"}
_DEFAULT_OFFSET = {"fairseq": 2}


def imported_torch() -> Any:
    """torch if the user imported it; posproof never imports it."""
    return sys.modules.get("torch")


def describe(obj: Any) -> str:
    return getattr(obj, "__qualname__", None) or type(obj).__name__


def nonfinite(report: ImplReport, label: str, where: np.ndarray) -> ImplReport:
    """A failed report for an impl that returns NaN or inf at some positions."""
    where = np.sort(where)
    report.bad_positions = [int(v) for v in where[:64]]
    report.n_bad_positions = int(where.size)
    report.position_ranges = ranges([int(v) for v in where])
    report.score = math.inf
    hint = (" (float16 overflows past 65504: positions or angles formed in float16?)"
            if where.size and where.min() > 65504 else "")
    report.explanation = f"the impl returns NaN or inf at positions {report.position_ranges}{hint}"
    report.checks = [{"name": "finite", "status": "fail", "positions": report.bad_positions}]
    report.message = f"impl disagrees with {label}: {report.explanation}"
    return report


def encoding_message(report: ImplReport, label: str, tol: Any) -> str:
    w = report.worst
    scale = report.tolerance.get("scale", 1.0)
    lines = [
        f"impl disagrees with {label}" + (f" × {scale:g}" if scale != 1.0 else "")
        + f" at {report.n_bad_positions} of {report.n_positions} "
        f"positions ({report.position_ranges}) and {report.n_bad_dims} of "
        f"{report.spec['dim']} dims ({report.dim_ranges})",
        f"worst: position {w['position']}, dim {w['dim']}: impl {w['impl']:.9g}, expected "
        f"{w['expected']:.9g} (mpmath, 30 digits), |difference| {w['difference']:.3g} > "
        f"tolerance {w['tolerance']:.3g} = "
        + tol.formula,
    ]
    if report.precision_note:
        lines.append(report.precision_note)
    if tol.angles is None and not precision_explained(report):
        lines.append(angles_hint(report.accepted_with_angles, report.angles_note))
    if report.explanation:
        lines.append(_explanation_line(report.explanation))
    return "\n".join(lines)


#: Explanations that are a choice of precision (the rest are bugs).
PRECISION_KEYS = ("angles-", "positions-")


def suggest_angles(report: ImplReport, accepting: tuple[str, Any] | None) -> None:
    """Name ``angles=`` in the report when the table is within its tolerance at a meaningful
    part of the table, and no bug (a confirmed explanation that is not a precision) reproduces
    the table: the wide tolerance of a low-precision angle accepts many bugs."""
    if accepting is None:
        return
    name, cov = accepting
    if not cov.meaningful:
        report.angles_note = (
            f'angles="{name}" would accept this table only where its tolerance judges little '
            f"(judged {cov.judged} of {cov.total} entries; {cov.unjudged()}): not suggested")
        return
    best = report.hypotheses[0] if report.hypotheses and report.hypotheses[0].get("fits") \
        else None
    if best is not None and not str(best.get("key", "")).startswith(PRECISION_KEYS):
        report.angles_note = (
            f'angles="{name}" would accept this table only because its tolerance '
            f"(its rounding model, 4·eps + eps_{name} + γ_k·|x·ω|) is wide; a mistake "
            "reproduces it exactly (below): "
            "not a choice of precision")
        return
    report.accepted_with_angles = name
    if not cov.complete:
        report.angles_note = f"judged {cov.judged} of {cov.total} entries; {cov.unjudged()}"


def precision_explained(report: ImplReport) -> bool:
    """The failure is explained by the precision read from the values (no angles= hint then:
    the option to pass is dtype=, which the explanation names)."""
    return bool(report.hypotheses) and report.hypotheses[0].get("key") == "precision-read"


def angles_hint(accepted: str | None, note: str | None = None) -> str:
    """The line that names ``angles=`` in a failure under the default tolerance (``note``:
    what that tolerance does not judge, or why no angles= is suggested)."""
    if accepted is not None:
        return (f"if your code forms x·ω in {accepted} on purpose, pass "
                f'angles="{accepted}" (tolerance: its rounding model, 4·eps + eps_{accepted} + '
                "γ_k·|x·ω|, k = 2·|ln ω| + 4): the table is within it"
                + (f" where it judges ({note})" if note else ""))
    if note:
        return f"({note})"
    return ('(angles formed in lower precision on purpose? angles="float32", "float16" or '
            '"bfloat16" widens the tolerance by that dtype\'s rounding model, 4·eps + eps_angles '
            "+ γ_k·|x·ω|; none of them "
            "accepts this table)")


def rotary_message(report: ImplReport, label: str) -> str:
    w = report.worst
    status = ", ".join(f"{c['name']}: {c['status']}" for c in report.checks)
    lines = [f"impl disagrees with {label}: {status}"]
    if report.precision_note:
        lines.append(report.precision_note)
    if w and report.score > 1:
        lines.append(
            f"worst: position {w['position']}, R(m)·e_{w['input_channel']} channel "
            f"{w['output_channel']}: impl {w['impl']:.9g}, expected {w['expected']:.9g}, "
            f"|difference| {w['difference']:.3g} > tolerance {w['tolerance']:.3g} "
            f"({report.tolerance.get('formula', '')}); disagreeing positions: "
            f"{report.n_bad_positions} of {report.n_positions}")
        if report.tolerance.get("angles") == "float64" and not precision_explained(report) \
                and _angles_relevant(report):
            lines.append(angles_hint(report.accepted_with_angles, report.angles_note)
                         .replace("x·ω", "m·θ").replace("ln ω", "ln θ"))
    for c in report.checks:
        if c["name"] == "relative_property" and c["status"] == "fail":
            lines.append(f"relative property fails: ⟨R(m)q, R(n)k⟩ changes under a common "
                         f"shift, e.g. m={c['worst']['m']}, n={c['worst']['n']}, "
                         f"shift {c['worst']['shift']}")
        if c["name"] == "norm_preservation" and c["status"] == "fail":
            lines.append(f"norm not preserved: ‖R(m)q‖/‖q‖ − 1 up to "
                         f"{c['max_relative_deviation']:.3g}")
    if report.explanation:
        lines.append(_explanation_line(report.explanation))
    return "\n".join(lines)


def _angles_relevant(report: ImplReport) -> bool:
    """Whether a rotary failure can be a choice of angle precision, so that naming angles= is
    relevant: some angles= accepts it, or no mistake is confirmed and the convention (layout,
    direction, order, base) is the spec's.  A confirmed bug, a wrong base or layout gets no
    angles= line."""
    if report.accepted_with_angles is not None:
        return True
    best = report.hypotheses[0] if report.hypotheses and report.hypotheses[0].get("fits") \
        else None
    if best is not None:
        return str(best.get("key", "")).startswith(PRECISION_KEYS)
    if report.angles_note:
        return True
    return all(c.get("status") == "pass" for c in report.checks if c["name"] == "convention")


def _explanation_line(explanation: str) -> str:
    """The message's last line: a confirmed explanation, or the plain 'no explanation confirmed'."""
    if explanation.startswith("no explanation confirmed"):
        return explanation
    return f"most likely: {explanation}"
