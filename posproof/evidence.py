"""Evidence: what decided a verdict, as data that an independent auditor can re-check.

A verdict that says **proved**, **refuted**, **pass** or **certified** is built with an
:class:`Evidence` attached: how it was decided (``method``), what it covered (every
position, a structural argument, or a sample of N of M), and the exact quantities whose
certified signs or enclosures decided it:

* :class:`Sign` — an exact real quantity (a SymPy expression with exact values for its
  symbols) is ``positive``, ``negative``, ``nonzero``, or ``zero`` (proved exactly; the
  auditor then checks that its own enclosure contains 0);
* :class:`Spot` — a float64 value with an error bound encloses an exact quantity
  (``|q − value| ≤ radius``): how the scans' rigorous bounds are audited at the offsets
  that decided them.

:mod:`posproof.audit` re-checks every item with python-flint's Arb ball arithmetic (not
mpmath) and records its answer in :attr:`Evidence.audit`; a verdict whose evidence it
cannot confirm becomes unknown, never the opposite.

>>> import sympy as sp
>>> ev = Evidence("certified sign", items=[Sign("π − 355/113", sp.pi - sp.Rational(355, 113),
...                                             "negative")])
>>> ev.to_dict()["items"][0]["relation"], ev.coverage
('negative', 'all')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import sympy as sp

__all__ = ["COVERAGES", "RELATIONS", "Audit", "Evidence", "GroupResidual", "Sign", "Spot",
           "sampled_label"]

#: What a verdict looked at: every case, a structural argument (valid for every case at
#: once), or a sample.
COVERAGES = ("all", "structural", "sample")
#: What a :class:`Sign` asserts about its quantity.
RELATIONS = ("positive", "negative", "nonzero", "zero")
#: The auditor's answers.
AUDIT_STATUSES = ("confirmed", "refuted", "undecided", "nothing to audit")


def _exact(value: Any) -> Any:
    """An exact value of a symbol as SymPy (int, Fraction, Rational, or an exact SymPy number)."""
    if isinstance(value, bool):
        raise TypeError("a boolean is not a position")
    if isinstance(value, int):
        return sp.Integer(value)
    if isinstance(value, Fraction):
        return sp.Rational(value.numerator, value.denominator)
    if isinstance(value, float):
        return sp.Rational(*value.as_integer_ratio())     # the exact binary number
    value = sp.sympify(value)
    if value.free_symbols:
        raise TypeError(f"{value} is not an exact number")
    return value


def _text(expr: sp.Expr, limit: int = 400) -> str:
    """A short printed form: a long sum is printed by its first terms (printing all of a
    256-term kernel costs more than auditing it)."""
    if expr.is_Add and len(expr.args) > 8:
        head = " + ".join(sp.sstr(a) for a in expr.args[:4])
        text = f"{head} + … ({len(expr.args)} terms)"
    else:
        text = sp.sstr(expr)
    return text if len(text) <= limit else text[:limit - 1] + "…"


class _Quantity:
    """What Sign and Spot share: an exact quantity ``expr`` with exact values ``env``."""

    expr: sp.Expr
    env: Mapping[Any, Any]

    def bound_expr(self) -> sp.Expr:
        """The quantity with its symbols replaced by their exact values."""
        expr, env = self.exact_env()
        return expr.xreplace(env) if env else expr

    def exact_env(self) -> tuple[sp.Expr, dict[sp.Symbol, sp.Expr]]:
        """The quantity and the exact values of its symbols (matched by name)."""
        return _exact_env(self.expr, self.env)

    def _json_at(self, out: dict[str, Any]) -> dict[str, Any]:
        if self.env:
            out["at"] = {str(k): _json_exact(v) for k, v in self.env.items()}
        return out


@dataclass(frozen=True)
class Sign(_Quantity):
    """An exact real quantity with a certified sign (or proved exactly zero).

    ``expr`` is exact (SymPy); ``env`` maps its free symbols to exact numbers; ``lo``,
    ``hi`` are the ends of the enclosure that decided it (strings, as the deciding
    engine printed them), ``engine`` names that engine.
    """

    label: str
    expr: sp.Expr
    relation: str
    env: Mapping[Any, Any] = field(default_factory=dict)
    lo: str | None = None
    hi: str | None = None
    engine: str = "mpmath interval"

    def __post_init__(self) -> None:
        if self.relation not in RELATIONS:
            raise ValueError(f"relation={self.relation!r}; use one of {RELATIONS}")

    def to_dict(self) -> dict[str, Any]:
        out = self._json_at({"kind": "sign", "label": self.label, "relation": self.relation,
                             "quantity": _text(sp.sympify(self.expr)), "engine": self.engine})
        if self.lo is not None:
            out["enclosure"] = [self.lo, self.hi]
        return out


@dataclass(frozen=True)
class Spot(_Quantity):
    """A float value with a rigorous error bound: ``|quantity − value| ≤ radius``."""

    label: str
    expr: sp.Expr
    value: float
    radius: float
    env: Mapping[Any, Any] = field(default_factory=dict)
    engine: str = "float64 with a rigorous error bound"

    def to_dict(self) -> dict[str, Any]:
        return self._json_at({"kind": "spot", "label": self.label,
                              "quantity": _text(sp.sympify(self.expr)),
                              "value": float(self.value), "radius": float(self.radius),
                              "engine": self.engine})


@dataclass(frozen=True)
class GroupResidual:
    """One column group's residual of an identity proof, exact, in its variables (symbols
    standing for every real value: positions, offsets); claimed identically 0.

    Either ``expr`` itself, or (``expr`` None) ``build(inputs)``: ``inputs`` are the group's
    own exact data as the engine holds them (its frequencies, the entries of T(Δ) reaching
    its columns …, in nested tuples), ``build`` the statement's residual made of them — one
    function for every group, reading nothing else, built of value-preserving operations.

    ``frequencies`` are the group's exact frequencies, a hint only: the auditor replaces
    each input subtree written exactly as a hinted frequency by a formal symbol w, builds
    and decides that generic residual once per shape (so the 256 groups of d = 512 cost
    about one decision): the group's residual is the generic one at w = f, 0 for every w.
    A group whose inputs the hint does not fit is built and decided as it stands.
    """

    label: str
    expr: Any
    variables: tuple[str, ...]
    frequencies: tuple[sp.Expr, ...] = ()
    inputs: tuple[Any, ...] = ()
    build: Any = None

    def residual(self) -> sp.Expr:
        """The residual itself (built from the inputs when it was given by them)."""
        return self.expr if self.build is None else self.build(self.inputs)


def _exact_env(expr: Any, env: Mapping[Any, Any]) -> tuple[sp.Expr, dict[sp.Symbol, sp.Expr]]:
    expr = sp.sympify(expr)
    if not env:
        return expr, {}
    by_name = {str(s): s for s in expr.free_symbols}
    out = {}
    for key, value in env.items():
        sym = key if isinstance(key, sp.Symbol) and key in expr.free_symbols else by_name.get(
            str(key), _symbol(key))
        out[sym] = _exact(value)
    return expr, out


def _symbol(key: Any) -> sp.Symbol:
    return key if isinstance(key, sp.Symbol) else sp.Symbol(str(key))


def _json_exact(value: Any) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, Fraction):
        return str(value) if value.denominator != 1 else value.numerator
    value = sp.sympify(value)
    return int(value) if value.is_Integer else sp.sstr(value)


@dataclass
class Audit:
    """The independent auditor's answer about one :class:`Evidence`."""

    status: str
    engine: str
    checked: int = 0
    detail: str | None = None
    #: ``all`` when every item was decided; ``sample`` when an identity residual was only
    #: evaluated at its points (no decision procedure applies to it).
    coverage: str = "all"
    #: The normal forms of the identity residuals the audit decided (printed, size, hash).
    identities: list[dict[str, Any]] = field(default_factory=list)
    #: How the column groups' residuals were decided (:class:`GroupResidual`): how many,
    #: through how many generic identities, how many decided as they stand.
    groups: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        if self.status not in AUDIT_STATUSES:
            raise ValueError(f"audit status={self.status!r}; use one of {AUDIT_STATUSES}")
        if self.coverage not in ("all", "sample"):
            raise ValueError(f"audit coverage={self.coverage!r}; use 'all' or 'sample'")

    @property
    def agrees(self) -> bool:
        return self.status in ("confirmed", "nothing to audit")

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"status": self.status, "engine": self.engine,
                               "checked": self.checked}
        if self.detail:
            out["detail"] = self.detail
        if self.coverage != "all":
            out["coverage"] = self.coverage
        if self.identities:
            out["identities"] = self.identities
        if self.groups:
            out["groups"] = self.groups
        return out


@dataclass
class Evidence:
    """What decided a verdict.

    ``method`` says how (``"symbolic identity"``, ``"certified scan"``, ``"exact integers"``,
    ``"exhaustive comparison"`` …); ``coverage`` what it looked at (:data:`COVERAGES`),
    with ``covered`` of ``total`` cases for a sample; ``items`` the exact quantities
    whose signs or enclosures decided it; ``details`` anything else JSON-ready (the scan's
    error bound, its margin, the cases it covered); ``unaudited`` why there is no item
    (evidence without items states what the verdict rests on instead).

    >>> Evidence("exact integer comparison", unaudited="bucket indices compared as integers"
    ...          ).to_dict()["unaudited"]
    'bucket indices compared as integers'
    """

    method: str
    coverage: str = "all"
    items: list[Sign | Spot] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)
    covered: int | None = None
    total: int | None = None
    audit: Audit | None = None
    #: Why ``items`` is empty, when it is: what the verdict rests on instead (exact integer
    #: comparisons, a dtype's rounding done by NumPy, nothing measured …). The auditor
    #: reports it with "nothing to audit"; evidence without items says why, never silently.
    unaudited: str | None = None
    #: Every column group's residual of an identity proof (the items above are points of
    #: a few groups): the auditor decides each one (:class:`GroupResidual`).
    groups: list[GroupResidual] = field(default_factory=list)
    #: How many column groups the statement has, when :attr:`groups` holds only some of them
    #: (an evenly spread selection past a cap): the audit's coverage is then a sample.
    groups_total: int | None = None

    def __post_init__(self) -> None:
        if self.coverage not in COVERAGES:
            raise ValueError(f"coverage={self.coverage!r}; use one of {COVERAGES}")
        if self.coverage == "sample" and (self.covered is None or self.total is None):
            raise ValueError("a sample says how many cases it covered of how many")

    @property
    def sampled(self) -> bool:
        return self.coverage == "sample" and self.covered != self.total

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"method": self.method, "coverage": self.coverage,
                               "items": [i.to_dict() for i in self.items]}
        if self.coverage == "sample":
            out["covered"], out["total"] = self.covered, self.total
        if self.details:
            out["details"] = self.details
        if self.unaudited:
            out["unaudited"] = self.unaudited
        if self.groups:
            out["group_residuals"] = {"count": len(self.groups),
                                      "total": self.groups_total or len(self.groups),
                                      "variables": sorted({v for g in self.groups
                                                           for v in g.variables})}
        out["audit"] = self.audit.to_dict() if self.audit else None
        return out


def sampled_label(covered: int, total: int, what: str = "entries") -> str:
    """How a sampled pass is printed: never as a bare "pass".

    >>> sampled_label(16384, 134217728)
    'pass (sampled: 16384 of 134217728 entries)'
    """
    return f"pass (sampled: {covered} of {total} {what})"
