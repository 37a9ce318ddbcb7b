"""One decision for every table check: the tolerance of an entry, and which entries it judges.

:class:`Tolerance` is the tolerance of :func:`~posproof.testing.assert_encoding`,
:func:`~posproof.testing.assert_rotary` and of :func:`~posproof.testing.identify`'s
validation.  An entry whose tolerance is at least ``VACUOUS·|scale|`` (2 for an unscaled
table) judges nothing: every value of the table and of its spec lies in
``[−|scale|, |scale|]``, so any value there is accepted.  :class:`Coverage` counts the
entries a check could judge; a check passes only on judged entries (a pass with none is
no pass), and a pass that judged only part says so.

>>> tol = Tolerance.of("float16", angles="float16")       # float16's rounding model
>>> cov = Coverage(2)
>>> x = np.arange(2048, dtype=np.float64)
>>> cov.add(tol.entries(x, np.array([1.0, 0.01])), x, np.arange(2), tol)
>>> cov.judged, cov.total, cov.first_position()
(3068, 4096, 1020)
>>> cov.label()
'pass (judged 3068 of 4096 entries; positions ≥ 1020 not judged at this dtype)'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .arrays import TOLERANCE, dtype_eps

__all__ = ["OUTPUT_ULPS", "VACUOUS", "Coverage", "Tolerance", "axes_coverage", "axes_note",
           "axes_shortfall", "partial_label", "ranges"]

#: Ulps of the output a correct table may be off by in its own dtype (rounding, sin/cos).
OUTPUT_ULPS = 4.0

#: A tolerance of at least this many times |scale| judges nothing (|entries| ≤ |scale|).
VACUOUS = 2.0


@dataclass(frozen=True)
class Tolerance:
    """|impl − spec| ≤ ``out + angle·|x·ω|`` entrywise, for a table of ``dtype``.

    The default (``angles=None``): the exact table rounded to ``dtype`` is
    accepted within ``max(4·eps, 16·eps64)`` of the output, plus
    ``16·eps64·|x·ω|`` for angles formed in float64 — so a float16 table whose
    angles were formed in float16 fails.  ``angles="float16"`` (or another
    dtype) says the impl forms x·ω in that dtype on purpose: then its rounding model,
    ``4·eps + eps_angles + γ_k·|x·ω|``, ``γ_k = k·u/(1 − k·u)``, ``k = 2·|ln ω| + 4``
    (ω formed in that dtype from its exponent, x·ω rounded once more).

    >>> t = Tolerance.of("float16")
    >>> t.out == 4 * 2**-10, t.angle == 16 * 2**-52
    (True, True)
    >>> u = 2**-11                                # float16: γ_4 at ω = 1
    >>> Tolerance.of("float16", angles="float16").angle == 4 * u / (1 - 4 * u) * (1 + 2**-40)
    True
    >>> t.formula
    '4·eps + 16·eps64·|x·ω|, eps of float16 (angles formed in float64)'
    """

    dtype: str
    angles: str | None
    out: float
    angle: float
    scale: float = 1.0
    #: The rounding model of angles formed in ``angles`` (``model=True``): ω formed in that
    #: dtype from its exponent, x·ω rounded to it; the angle term is then per frequency,
    #: γ_k(ω)·|x·ω| with k(ω) = 2·|ln ω| + 4 (``angle`` is γ_4, its value at ω = 1).
    model: bool = False

    @classmethod
    def of(cls, dtype: str, angles: str | None = None, scale: float = 1.0,
           model: bool = True) -> Tolerance:
        """``model`` (the default, and what every check uses: tables, grids, rotary,
        identify): the angle term from the rounding model of ``angles``; ``model=False``
        the old flat 16·eps_angles, kept only to test the judging rule with."""
        eps = dtype_eps(dtype)
        if angles is None:
            out = max(OUTPUT_ULPS * eps, TOLERANCE * dtype_eps("float64"))
            angle = TOLERANCE * dtype_eps("float64")
            model = False
        elif model:
            # sin/cos of the rounded angle: within one ulp of ``angles``, then the output's
            out, angle = OUTPUT_ULPS * eps + dtype_eps(angles), _gamma(4.0, angles)
        else:
            out, angle = TOLERANCE * eps, TOLERANCE * dtype_eps(angles)
        return cls(dtype, angles, out * abs(scale), angle * abs(scale), abs(scale), model)

    def angle_of(self, w: np.ndarray) -> np.ndarray:
        """The angle coefficient of each frequency ``w`` (times ``|x·ω|``)."""
        w = np.abs(np.asarray(w, dtype=np.float64))
        if not self.model:
            return np.full(w.shape, self.angle)
        with np.errstate(divide="ignore"):
            k = 2 * np.abs(np.log(np.where(w > 0, w, 1.0))) + 4
        return _gamma(k, self.angles or "float64") * self.scale

    @property
    def eps_angle(self) -> float:
        """eps of the dtype the angles are formed in (float64 by default)."""
        return dtype_eps(self.angles or "float64")

    @property
    def vacuous(self) -> float:
        """The tolerance from which an entry is not judged: ``VACUOUS·|scale|``."""
        return VACUOUS * self.scale

    def at(self, x: float, w: float) -> float:
        """The tolerance of one entry: position ``x``, frequency ``w``."""
        return self.out + float(self.angle_of(np.array([w]))[0]) * abs(x * w)

    def bound(self, angle: np.ndarray, w: np.ndarray) -> np.ndarray:
        """The tolerance of entries whose angle is ``angle`` (``|x·ω|``, any shape) and whose
        frequency is ``w`` (one per last-axis column): ``out + angle_of(w)·|x·ω|``.

        >>> t = Tolerance.of("float64", angles="bfloat16", model=True)
        >>> float(t.bound(np.array([[16.0]]), np.array([1.0]))[0, 0]) == t.at(16, 1.0)
        True
        """
        return self.out + self.angle_of(w) * np.abs(angle)

    def entries(self, xabs: np.ndarray, w: np.ndarray) -> np.ndarray:
        """The tolerance of every entry: rows at |positions| ``xabs``, columns of frequency
        ``w``."""
        tol = np.multiply.outer(xabs, np.abs(w) * self.angle_of(w))
        tol += self.out
        return tol

    @property
    def formula(self) -> str:
        """The tolerance as text (``|scale|·(…)`` for a scaled table).

        >>> Tolerance.of("float32", scale=0.0625).formula
        '0.0625·(4·eps + 16·eps64·|x·ω|), eps of float32 (angles formed in float64)'
        """
        if self.angles is None:
            lead = ("16·eps64" if self.out == self.angle
                    else f"{OUTPUT_ULPS:g}·eps")
            text, where = (f"{lead} + 16·eps64·|x·ω|",
                           f"eps of {self.dtype} (angles formed in float64)")
        elif self.model:
            p = _BITS.get(self.angles, 53)
            text = (f"{OUTPUT_ULPS:g}·eps + eps_{self.angles} + γ_k·|x·ω|, γ_k = k·u/(1 − k·u), "
                    f"k = 2·|ln ω| + 4, u = 2^−{p}")
            where = (f"eps of {self.dtype} (the model: ω formed in {self.angles} from its "
                     f"exponent, x·ω rounded to {self.angles})")
        else:
            text, where = f"16·(eps + eps_{self.angles}·|x·ω|)", f"eps of {self.dtype}"
        if self.scale != 1.0:
            text = f"{self.scale:.8g}·({text})"
        return f"{text}, {where}"


#: Significand bits (with the implicit one) of the dtypes angles are formed in.
_BITS = {"float64": 53, "float32": 24, "float16": 11, "bfloat16": 8}


def _gamma(k: Any, angles: str) -> Any:
    """γ_k = k·u/(1 − k·u), u = 2^(−p) of ``angles``: the relative error of k roundings
    (inf from k·u ≥ 1/2: nothing is bounded there)."""
    u = 2.0 ** -_BITS.get(angles, 53)
    ku = np.asarray(k, dtype=np.float64) * u
    out = np.where(ku < 0.5, ku / (1 - np.minimum(ku, 0.5)), np.inf) * (1 + 2.0 ** -40)
    return float(out) if out.ndim == 0 else out


@dataclass
class Coverage:
    """The entries a check judged: those whose tolerance is below :attr:`Tolerance.vacuous`.

    ``first[c]``: the smallest |position| column ``c`` was not judged at (inf when judged
    everywhere).  ``total`` counts every entry compared; a sampled check (a callable impl
    at some positions) also sets ``population``, the entries it stands for.
    """

    dim: int
    judged: int = 0
    total: int = 0
    population: int | None = None
    first: np.ndarray = field(default=None)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        if self.first is None:
            self.first = np.full(self.dim, np.inf)

    def add(self, tol: np.ndarray, xabs: np.ndarray, cols: Any, tolerance: Tolerance,
            weight: int = 1) -> None:
        """Count a block: ``tol`` (rows × len(cols)) at |positions| ``xabs`` (per row, or per
        entry when the columns read different axes), each entry standing for ``weight``
        compared values (the input channels of a rotary)."""
        vac = tol >= tolerance.vacuous
        n = int(np.count_nonzero(vac))
        self.total += tol.size * weight
        self.judged += (tol.size - n) * weight
        if n:
            worst = np.where(vac, xabs if xabs.ndim == 2 else xabs[:, None], np.inf).min(axis=0)
            self.first[cols] = np.minimum(self.first[cols], worst)

    @property
    def complete(self) -> bool:
        return self.judged == self.total

    @property
    def meaningful(self) -> bool:
        """Judged at half the entries at least: enough for a hypothesis to be suggested."""
        return self.judged > 0 and 2 * self.judged >= self.total

    def first_position(self) -> int | None:
        """The smallest |position| some column was not judged at (None: all judged)."""
        low = float(self.first.min()) if self.first.size else np.inf
        return None if not np.isfinite(low) else int(low)

    def unjudged(self) -> str:
        """Which entries were not judged, in words ('' when all were)."""
        x = self.first_position()
        if x is None:
            return ""
        cols = np.flatnonzero(np.isfinite(self.first))
        order = cols[np.argsort(self.first[cols], kind="stable")]
        last = int(order[-1])
        text = (f"{self.total - self.judged} of {self.total} entries not judged: the tolerance "
                f"there is ≥ {VACUOUS:g}×|scale|, wider than the range of the values — "
                f"positions ≥ {x} (dim {int(order[0])})")
        if last != int(order[0]):
            text += f" up to positions ≥ {int(self.first[last])} (dim {last})"
        return text + f"; dims {ranges([int(c) for c in cols])}"

    def label(self) -> str:
        """How a pass over these entries prints: never a bare "pass" when some were not
        judged or the entries were a sample."""
        parts = []
        if not self.complete:
            parts.append(f"judged {self.judged} of {self.total} entries; positions ≥ "
                         f"{self.first_position()} not judged at this dtype")
        if self.population is not None and self.population > self.total:
            parts.append(f"sampled: {self.total} of {self.population} entries")
        return "pass" + (f" ({'; '.join(parts)})" if parts else "")

    def evidence(self, method: str, details: dict[str, Any] | None = None) -> Any:
        """The :class:`~posproof.evidence.Evidence` of a check over these entries: ``all``
        when every entry was judged (and not sampled), else a sample of judged entries."""
        from ...evidence import Evidence

        info = {"judged": self.judged, "entries": self.total, **(details or {})}
        if self.population is not None:
            info["population"] = self.population
        if self.complete and (self.population is None or self.population <= self.total):
            return Evidence(method, "all", details=info)
        if not self.complete:
            info["not judged"] = self.unjudged()
        return Evidence(method, "sample", covered=self.judged,
                        total=max(self.total, self.population or 0), details=info)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"judged": self.judged, "entries": self.total}
        if self.population is not None:
            out["population"] = self.population
        if not self.complete:
            out["not_judged_from_position"] = self.first_position()
            out["not_judged"] = self.unjudged()
        return out


def judge(check: dict[str, Any], score: float, coverage: Coverage) -> str:
    """The status of a comparison (worst |difference|/tolerance ``score``), written into
    ``check``: "fail" when an entry is beyond its tolerance, "pass" when every entry is
    within and some were judged, "unknown" when none was (the tolerance accepted anything).
    A pass that judged part, or a sample, carries its coverage and label."""
    within = score <= 1.0
    status = "pass" if within and coverage.judged > 0 else "unknown" if within else "fail"
    check["status"] = status
    if not coverage.complete or coverage.population is not None:
        check["coverage"] = coverage.to_dict()
        check["label"] = coverage.label() if status == "pass" else status
    return status


def axes_coverage(tol: np.ndarray, xabs: np.ndarray, axis_of_col: np.ndarray,
                  names: Any, tolerance: Tolerance, weight: int = 1) -> dict[str, Coverage]:
    """One :class:`Coverage` per axis of a multi-axis check: the entries of the columns that
    axis turns (``axis_of_col[c]``; a negative axis, e.g. a channel passed through, belongs
    to none).  ``tol`` and ``xabs`` are (rows × columns).

    >>> t = Tolerance.of("float32", angles="bfloat16")
    >>> x = np.array([[1.0, 1000.0], [2.0, 2000.0]])
    >>> covs = axes_coverage(t.bound(x, np.ones(2)), x, np.array([0, 1]), ["h", "w"], t)
    >>> {k: (c.judged, c.total) for k, c in covs.items()}
    {'h': (2, 2), 'w': (0, 2)}
    """
    out: dict[str, Coverage] = {}
    for a, name in enumerate(names):
        cols = np.flatnonzero(np.asarray(axis_of_col) == a)
        if cols.size == 0:
            continue
        cov = Coverage(int(cols.size))
        cov.add(tol[:, cols], xabs[:, cols], np.arange(cols.size), tolerance, weight)
        out[str(name)] = cov
    return out


def axes_shortfall(covs: dict[str, Coverage], declared: bool) -> str | None:
    """The axis a pass cannot rest on, in words (None when every axis is judged enough): the
    rule of a pass — some entries judged, half of them with a declared angle dtype — holds
    per axis, so an axis left unjudged cannot hide behind the others.

    >>> c = Coverage(1, judged=1, total=4)
    >>> axes_shortfall({"h": Coverage(1, judged=4, total=4), "w": c}, declared=True)
    'axis w: 1 of its 4 entries judged'
    >>> axes_shortfall({"w": c}, declared=False) is None
    True
    """
    for name, cov in covs.items():
        if not (cov.meaningful if declared else cov.judged > 0):
            return f"axis {name}: {cov.judged} of its {cov.total} entries judged"
    return None


def axes_note(covs: dict[str, Coverage]) -> str:
    """The axes judged in part, for a partial pass's label ('' when every axis is whole).

    >>> axes_note({"h": Coverage(1, judged=4, total=4), "w": Coverage(1, judged=3, total=4)})
    'axis w: 3 of 4 entries judged'
    """
    return "; ".join(f"axis {name}: {cov.judged} of {cov.total} entries judged"
                     for name, cov in covs.items() if not cov.complete)


def partial_label(label: str, covs: dict[str, Coverage]) -> str:
    """A pass's label with the axes judged in part named: 'pass (…; axis w: a of b …)'."""
    note = axes_note(covs)
    if not note or not label.startswith("pass"):
        return label
    return f"{label[:-1]}; {note})" if label.endswith(")") else f"pass (partial: {note})"


def nothing_judged(tol: Tolerance, coverage: Coverage) -> str:
    """Why a check whose every entry was within a vacuous tolerance is no pass."""
    return (f"nothing judged: the tolerance {tol.formula} is ≥ {VACUOUS:g}×|scale| at every "
            f"one of the {coverage.total} entries, wider than the range of the values, so it "
            "accepts any values; check smaller positions or a narrower angles=")


def judges_little(tol: np.ndarray, amplitude: float = 1.0) -> bool:
    """Whether a tolerance array judges fewer than half its entries (``≥ VACUOUS·amplitude``
    at more than half): a hypothesis confirmed under it would have shown little.

    >>> judges_little(np.array([0.1, 3.0, 3.0])), judges_little(np.array([0.1, 0.1, 3.0]))
    (True, False)
    """
    return bool(2 * int(np.count_nonzero(tol < VACUOUS * amplitude)) < tol.size)


def ranges(values: list[int], limit: int = 8) -> str:
    """Compact 'a–b, c' text for sorted integers.

    >>> ranges([0, 1, 2, 5, 7, 8])
    '0–2, 5, 7–8'
    """
    out: list[str] = []
    i = 0
    while i < len(values):
        j = i
        while j + 1 < len(values) and values[j + 1] == values[j] + 1:
            j += 1
        out.append(str(values[i]) if i == j else f"{values[i]}–{values[j]}")
        i = j + 1
    text = ", ".join(out[:limit])
    return text + (f", … ({len(values)} in all)" if len(out) > limit else "")
