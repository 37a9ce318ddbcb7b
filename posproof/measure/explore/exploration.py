"""Side-by-side comparisons: :func:`explore` runs every metric (and the proofs) per encoding.

:class:`Exploration` holds the results, renders the table and the JSON;
:func:`plot_exploration` overlays the curves.  Re-exported by
:mod:`posproof.explore`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import mpmath
import numpy as np
import sympy as sp

from ...errors import InvalidParameter, check_int, check_sequence
from ...model.encoding import Encoding
from ...model.schedules import Schedule
from ...precise import mp_value
from .basebound import TIME_LIMIT, WORK_BUDGET, BaseBound, base_bound, work_arg
from .metrics import (
    DTYPES,
    MAX_LENGTH,
    band_coverage,
    check_explore_size,
    critical_dimension,
    decay_curve,
    decay_deltas,
    dtype_audit,
    kernel_first_negative,
    length_arg,
    offset_kernel,
    pair_frequencies,
)

__all__ = [
    "PLOT_DPI",
    "Exploration",
    "Subject",
    "as_subject",
    "explore",
    "jsonable",
    "plot_exploration",
]


@dataclass
class Subject:
    """One encoding in a comparison: its label, object and pair frequencies.

    >>> from posproof.model.rope import rotary
    >>> s = as_subject(rotary(10000, 4))
    >>> s.kind, s.dim, s.base
    ('rotary', 4, 10000)
    """

    label: str
    obj: Any
    frequencies: tuple[sp.Expr, ...]
    notes: list[str] = field(default_factory=list)

    @property
    def kind(self) -> str:
        from ...model.rope import Rotary

        return "rotary" if isinstance(self.obj, Rotary) else "sinusoidal"

    @property
    def dim(self) -> int:
        return 2 * len(self.frequencies)

    @property
    def schedule(self) -> Schedule | None:
        return getattr(self.obj, "schedule", None)

    @property
    def base(self) -> sp.Expr | None:
        from ...model.scaling import schedule_base

        return None if self.schedule is None else schedule_base(self.schedule)


@dataclass
class Exploration:
    """Proofs and numbers for several encodings at one context length.

    >>> from posproof.model.rope import rotary
    >>> ex = explore([rotary(10000, 4)], 16, dtypes=[])
    >>> ex.ok, sorted(ex.to_dict())[:3], "rotary:relative" in ex.table()
    (True, ['base_bounds', 'checks', 'encodings'], True)
    """

    length: int
    subjects: list[Subject]
    reports: list[Any]
    numbers: list[dict[str, Any]]
    base_bounds: dict[int, BaseBound]
    seconds: float = 0.0
    #: Only the base bound was computed (``explore(..., only_base_bound=True)``).
    only_base_bound: bool = False

    @property
    def ok(self) -> bool:
        from ...proofs.rotary import exit_status

        return all(exit_status(r) == 0 for r in self.reports)

    def to_dict(self) -> dict[str, Any]:
        from ...proofs.rotary import EXPECTED_REFUTATIONS

        encodings, theorems = [], []
        for subject, report, numbers in zip(self.subjects, self.reports, self.numbers, strict=True):
            proofs = []
            for p in report.theorems:
                item = p.to_dict()
                item["expected"] = p.name in EXPECTED_REFUTATIONS
                proofs.append(item)
                theorems.append({"encoding": subject.label, "name": p.name, "status": p.status,
                                 "expected": item["expected"]})
            encodings.append({"label": subject.label, "kind": subject.kind,
                              "encoding": report.encoding, "notes": subject.notes,
                              "theorems": proofs, "numbers": jsonable(numbers)})
        return {"length": self.length, "ok": self.ok, "encodings": encodings,
                "theorems": theorems, "checks": [],
                "base_bounds": {str(d): b.to_dict() for d, b in self.base_bounds.items()}}

    def table(self) -> str:
        """The side-by-side verdict and number table."""
        labels = [s.label for s in self.subjects]
        width = max(12, *(len(x) for x in labels))
        names: list[str] = []
        for r in self.reports:
            for p in r.theorems:
                if p.name not in names:
                    names.append(p.name)
        from ...proofs.rotary import EXPECTED_REFUTATIONS

        symbol = {"proved": "✓ proved", "refuted": "✗ refuted", "unknown": "? unknown"}
        starred = False
        body = []
        for name in names:
            cells = []
            for r in self.reports:
                p = next((p for p in r.theorems if p.name == name), None)
                star = p is not None and p.name in EXPECTED_REFUTATIONS and p.status == "refuted"
                starred |= star
                cell = "—" if p is None else symbol[p.status] + ("*" if star else "")
                cells.append(f"{cell:<{width + 2}}")
            body.append((name, cells))
        rows = [("dim (rotated)", lambda n: str(n["dim"])),
                ("base", lambda n: n.get("base") or "—"),
                ("effective base", lambda n: _cell(n.get("effective_base_float"))),
                ("first B(m) < 0",
                 lambda n: (f"undecided at {n['first_negative']['undecided_at']}"
                            if not n["first_negative"].get("decided", True) else
                            str(n["first_negative"]["m"] or f"none ≤ {self.length}"))),
                ("base bound (geom.)", lambda n: n.get("base_bound") or "—"),
                ("base is good", lambda n: n.get("base_ok", "—")),
                ("pairs covered by L",
                 lambda n: f"{n['bands']['pairs_covered']}/{n['bands']['pairs']}"),
                ("d_extra (T_train)", lambda n: str(n.get("critical_dimension", {})
                                                    .get("d_extra", "—"))),
                ("decay at L", lambda n: _cell(n["decay"].get("last", {}).get("value_mp"))),
                ("decay min (Δ>0)", lambda n: _cell(n["decay"].get("min", {}).get("value_mp"))),
                ("attention factor", lambda n: _cell(n.get("attention_factor_float", "1"))),
                *((f"{short} max phase err",
                   lambda n, t=name: _cell(n["dtypes"].get(t, {}).get("max_phase_error")))
                  for short, name in (("fp32", "float32"), ("fp16", "float16"),
                                      ("bf16", "bfloat16"))),
                ("fp16 first overflow", lambda n: str(n["dtypes"].get("float16", {})
                                                      .get("first_overflow_position") or "—"))]
        if self.only_base_bound:
            rows = [r for r in rows if r[0] in ("dim (rotated)", "base", "base bound (geom.)",
                                                "base is good")]
        first = max(len(n) for n in [*names, *(title for title, _ in rows)]) + 2
        lines = [f"posproof explore — context length L = {self.length}", "",
                 " " * first + "".join(f"{x:<{width + 2}}" for x in labels)]
        lines += [f"{name:<{first}}" + "".join(cells) for name, cells in body]
        lines.append("")
        for title, get in rows:
            lines.append(f"{title:<{first}}" + "".join(f"{get(n):<{width + 2}}"
                                                       for n in self.numbers))
        lines.append("")
        if starred:
            lines.append("* expected refutation: the statement documents a pitfall of the rule")
        for d, bb in self.base_bounds.items():
            lines.append(f"base bound, rotary dim {d}: {bb.summary()}")
        for s, n in zip(self.subjects, self.numbers, strict=True):
            for note in s.notes:
                lines.append(f"note [{s.label}]: {note}")
            if n.get("base_ok") == "unknown" and n.get("base_ok_note"):
                lines.append(f"note [{s.label}]: base is good: unknown ({n['base_ok_note']})")
            elif n.get("base_ok") == "no" and n.get("base_ok_witness") is not None:
                lines.append(f"note [{s.label}]: base is good: no, B({n['base_ok_witness']}) < 0 "
                             "at this base (certified, audited)")
            if n.get("effective_base", n.get("base")) != n.get("base"):
                at = (f" at sequence length {n['effective_base_seq_len']}"
                      if "effective_base_seq_len" in n else "")
                lines.append(f"note [{s.label}]: effective base{at} {n['effective_base']} ≈ "
                             f"{n['effective_base_float']} (b·r^(d/(d−2)), d = {n['dim']}): "
                             "the frequencies are those of this base")
        from ...report import audit_summary
        from ...verdict import verdict_text

        theorems = [p for r in self.reports for p in r.theorems]
        verdict = (verdict_text(theorems, expected=EXPECTED_REFUTATIONS, ok=self.ok,
                                audited=audit_summary(theorems)) if theorems
                   else f"{'OK' if self.ok else 'INCOMPLETE'} — the base bound of "
                        f"{len(self.subjects)} encoding(s), nothing else computed"
                   if self.only_base_bound
                   else f"{'OK' if self.ok else 'INCOMPLETE'} — {len(self.subjects)} "
                        "encoding(s) measured, no theorems (proofs off)")
        lines.append(f"verdict: {verdict} ({self.seconds:.1f} s)")
        return "\n".join(lines)


def _cell(text: Any) -> str:
    """A number for the table: 6 significant digits (exponent kept), or a dash."""
    if text is None:
        return "—"
    try:
        return f"{float(text):.6g}"
    except (TypeError, ValueError):
        return str(text)[:12]


def jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items() if k not in ("deltas", "values",
                                                                         "kernel_curve")}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating,)):
        return float(value)
    if isinstance(value, (sp.Basic, mpmath.mpf)):
        return str(value)
    return value


def as_subject(item: Any, label: str | None = None) -> Subject:
    from ...model.rope import Rotary

    if isinstance(item, Subject):
        return item
    if isinstance(item, (Rotary, Encoding)):
        return Subject(label or item.name, item, pair_frequencies(item))
    raise InvalidParameter(f"{item!r} is not an encoding; pass Rotary or Encoding objects")


def explore(encodings: Sequence[Any], length: int = 4096, *, proofs: bool = True,
            base_bounds: bool = False, dtypes: Sequence[str] = DTYPES,
            train_length: int | None = None, seed: int = 0,
            base_range: tuple[float, float] = (2.0, 1e12), integer_bases: bool = False,
            first_only: bool = False,
            progress: Callable[[str, int, int], None] | None = None,
            base_work: int | None = WORK_BUDGET,
            base_time_limit: float | None = TIME_LIMIT,
            only_base_bound: bool = False, islands: str = "auto") -> Exploration:
    """Compare encodings (Rotary or sinusoidal Encoding) at context length L.

    For each: the theorems (:func:`posproof.proofs.rotary.prove_rotary`, or
    :func:`posproof.prove` for a sinusoidal encoding), the first m with
    B(m) < 0, RoFormer's decay curve, the pairs whose wavelength fits in L,
    the dtype audit, Liu et al.'s critical dimension for the training length
    ``train_length`` (default L; computed from the base, i.e. for the
    unscaled schedule); with ``base_bounds``, once per rotated dim, the
    geometric base bound for L: :func:`base_bound`'s certified search over
    ``base_range`` (``integer_bases``: integer bases only; ``first_only``: up to
    the first island, see :func:`base_bound`), ``progress`` its
    progress callback, ``base_work`` the work budget all of them share (work units, see
    :func:`base_bound`'s ``work_budget``: the rest of a range is then undecided, the same on
    every machine), ``base_time_limit`` each search's safety net (CPU seconds, see its
    ``time_budget``); each encoding gets ``base_ok`` = 'yes', 'no' or
    'unknown' (is its own base good, certified; ``base_ok_evidence`` the audited evidence).
    ``islands``: :func:`base_bound`'s ``islands`` ('auto', 'all' or 'ends').
    ``only_base_bound``: the base bound and ``base_ok`` alone (no theorems, no other number;
    ``posproof explore --base-bound``).

    >>> from posproof.model.rope import rotary
    >>> ex = explore([rotary(10000, 8), rotary(10000, 8, scaling="linear", factor=2)], 64,
    ...              base_bounds=False, dtypes=["float32"])
    >>> [n["first_negative"]["m"] for n in ex.numbers], ex.ok
    ([None, None], True)
    """
    from ...model.rope import Rotary
    from ...model.scaling import attention_factor, effective_base_numbers
    from ...proofs.rotary import prove_rotary
    from ...proofs.theorems import prove

    start = time.perf_counter()
    length = length_arg(length)
    subjects = [as_subject(e) for e in check_sequence("encodings", encodings)]
    dtypes = check_sequence("dtypes", dtypes, strings=True)
    seed = check_int("seed", seed, minimum=0)
    if train_length is not None:
        train_length = check_int("train_length", train_length, minimum=1, maximum=MAX_LENGTH)
    if not subjects:
        raise InvalidParameter("explore needs at least one encoding")
    for s in subjects:                  # refuse before proving: see docs/cli.md, "Limits"
        check_explore_size(length, s.dim)
    seen: dict[str, int] = {}
    for s in subjects:
        seen[s.label] = seen.get(s.label, 0) + 1
        if seen[s.label] > 1:
            s.label = f"{s.label}#{seen[s.label]}"
    base_work = work_arg(base_work, "base_work")
    reports, numbers = [], []
    bounds: dict[int, BaseBound] = {}

    def bound_of(dim: int) -> BaseBound:
        """The base bound of the rotated dim ``dim`` (one search each; one work budget for
        every rotated dim's search together)."""
        if dim not in bounds:
            left = (None if base_work is None else
                    max(0, base_work - sum(b.work for b in bounds.values())))
            bounds[dim] = base_bound(length, dim, lowest=base_range[0],
                                     highest=base_range[1], integer_bases=integer_bases,
                                     first_only=first_only, progress=progress,
                                     time_budget=base_time_limit, work_budget=left,
                                     islands=islands)
        return bounds[dim]

    for s in subjects:
        if only_base_bound:
            from ...report import Report

            if s.base is None:
                raise InvalidParameter(f"{s.label} has no geometric base: the base bound is "
                                       "for base^(-2k/d) schedules (rope, vaswani)")
            reports.append(Report(s.obj.to_dict()))
            entry = {"dim": s.dim, "base": str(s.base)}
            entry.update(bound_of(s.dim).entry(s.base))
            numbers.append(entry)
            continue
        if proofs and isinstance(s.obj, Rotary):
            reports.append(prove_rotary(s.obj, seed=seed))
        elif proofs:
            reports.append(prove(s.obj, theorems=["translation[row]", "dot_product", "norm",
                                                  "orthogonal", "layout_equivalence"], seed=seed))
        else:
            from ...report import Report

            reports.append(Report(s.obj.to_dict()))
        kernel = offset_kernel(s.obj)
        first = kernel_first_negative(s.frequencies, length, kernel=kernel)
        deltas = decay_deltas(length)
        curve_len = min(length, 1 << 22)
        entry: dict[str, Any] = {
            "dim": s.dim, "base": None if s.base is None else str(s.base),
            "first_negative": first,
            "decay": decay_curve(s.frequencies, deltas),
            "bands": band_coverage(s.frequencies, length,
                                   _bands(s.schedule, s.dim) if s.schedule is not None else None),
            "dtypes": dtype_audit(s.frequencies, length, dtypes) if dtypes else {},
            "kernel_curve": kernel.values(0, curve_len + 1),
        }
        if s.schedule is not None:
            af = attention_factor(s.schedule)
            entry["attention_factor"] = str(af)
            entry["attention_factor_float"] = f"{float(mp_value(af, 20)):.10g}"
            entry.update(effective_base_numbers(s.schedule, s.dim))
        if s.base is not None:
            entry["critical_dimension"] = critical_dimension(s.base, s.dim,
                                                             train_length or length)
        if base_bounds and s.base is not None:
            entry.update(bound_of(s.dim).entry(s.base))
        numbers.append(entry)
    out = Exploration(length, subjects, reports, numbers, bounds,
                      only_base_bound=only_base_bound)
    out.seconds = time.perf_counter() - start
    return out


def _bands(schedule: Schedule, dim: int) -> list[str] | None:
    from ...model.scaling import Scaling

    return schedule.bands(dim) if isinstance(schedule, Scaling) else None


def plot_exploration(exploration: Exploration, path: str) -> str:
    """Overlay the decay curves, the kernels and the wavelengths (bands marked); save to ``path``.

    matplotlib is imported here only (``pip install posproof[plot]``).

    >>> import importlib.util, os, tempfile
    >>> ex = explore([Encoding(Geometric(10000), "interleaved", 4)], 32, proofs=False,
    ...              dtypes=[])
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "curves.png")
    ...     ok = importlib.util.find_spec("matplotlib") is None or plot_exploration(ex, path)
    >>> bool(ok)
    True
    """
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise InvalidParameter("--plot needs matplotlib; install it with "
                               "pip install 'posproof[plot]'") from None
    _exploration_figure(exploration).savefig(path, dpi=PLOT_DPI, metadata={"Software": None})
    return path


#: Resolution of :func:`plot_exploration`'s PNG: 16 × 4.6 inches → 1760 × 506 pixels.
PLOT_DPI = 110


def _exploration_figure(exploration: Exploration) -> Any:
    """The matplotlib Figure :func:`plot_exploration` saves: three panels, one curve per
    subject in each, labelled with the subject."""
    # An explicit Figure, no pyplot: the caller's backend and figures are left alone.
    from matplotlib.figure import Figure

    fig = Figure(figsize=(16, 4.6))
    axes = fig.subplots(1, 3)
    length = exploration.length
    for s, n in zip(exploration.subjects, exploration.numbers, strict=True):
        d = n["decay"]
        axes[0].plot(d["deltas"], d["values"], label=s.label, lw=1)
        k = n["kernel_curve"] / len(s.frequencies)
        width = max(1, k.size // 4000)            # min/max envelope per bucket: no aliasing
        cut = k[:k.size - k.size % width].reshape(-1, width)
        x = np.arange(cut.shape[0]) * width
        axes[1].fill_between(x, cut.min(axis=1), cut.max(axis=1), alpha=0.35, lw=0,
                             label=s.label)
        wl = np.array(n["bands"]["wavelengths"])
        line, = axes[2].semilogy(np.arange(wl.size), wl, marker=".", ms=3, lw=1, label=s.label)
        bands = n["bands"].get("bands")
        if bands:
            changes = [i for i in range(1, len(bands)) if bands[i] != bands[i - 1]]
            for i in changes:
                axes[2].axvline(i - 0.5, color=line.get_color(), ls=":", lw=0.8)
    axes[0].set(title="RoFormer long-term decay (1/n)Σ|S_j|", xlabel="relative distance Δ",
                xscale="symlog")
    axes[1].set(title="B(m)/n = (1/n)Σ cos(mθ_k) (min/max envelope)", xlabel="m")
    axes[1].axhline(0, color="k", lw=0.5)
    axes[2].axhline(length, color="k", ls="--", lw=0.8, label=f"L = {length}")
    axes[2].set(title="wavelength 2π/θ_k per pair (band edges dotted)", xlabel="pair k")
    for ax in axes:
        ax.legend(fontsize=7)
    fig.tight_layout()
    return fig
