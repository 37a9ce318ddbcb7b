"""The RoPE base bound of Men et al. (2024), certified over a whole range of bases.

A base b is *good* for (d, L) when B(m; b) = Σ_{k<d/2} cos(m·b^(−2k/d)) ≥ 0 for
every m ∈ 0 … L.  The good set is a union of islands, some far narrower than
any grid, so :func:`base_bound` runs a branch and bound over the whole range
in t = ln b; every interval ends *all good*, *all bad* (a witness m) or
*undecided* at the resolution limit.  Re-exported by :mod:`posproof.explore`.

Why it is rigorous (docs/base-bound.md has the long form):

* slope: with c_k = 2k/d and θ_k = e^(−c_k t), ∂B(m)/∂t = Σ_k m·c_k·θ_k·sin(mθ_k),
  so |∂B(m)/∂t| ≤ m·S(t), S(t) = Σ_k c_k e^(−c_k t), which decreases in t; on
  [a, c] the bound m·S(a) holds everywhere (S rounded up by a factor 1 + 10⁻⁹);
* value: B(m; p) at the float midpoint p, from float64 θ_k = exp(−c_k p)
  (relative error ρ = (2.1|p| + 4)u) — the whole vector m = 0 … L by the GEMM
  trick of :func:`_kernel_values` (bound stated there), or only the m still in
  doubt directly, within ε_m = 1.01·(m·Σθ·(ρ + 2u) + 4u·n + γ_n·n);
* second order: |∂²B(m)/∂t²| ≤ m²·Σc_k²θ_k(a)² + m·Σc_k²θ_k(a) on [a, c], so
  with D_m = ∂B(m)/∂t at p (float64, within δ_m) the spread over the radius R
  is also ≤ (|D_m| + δ_m)·R + ½(m²S₂ + mS₃)·R²; the smaller bound is used;
* so B(m; t) ∈ [V_m − ε_m − spread_m, V_m + ε_m + spread_m] on [p − R, p + R];
  an interval is all good when every lower end is > 0, all bad when one upper
  end is < 0; otherwise the ball around p that one m keeps negative (or every
  doubtful m keeps positive) is settled and the rest bisected.  A child interval
  only re-evaluates the m its parent could not certify good (the others are
  good on the whole parent), so the work goes to the few m that decide each
  island's ends;
* blocks (:mod:`.basekernel`): over m ∈ [m0, m1] and t ∈ [a, c] each term's phase
  lies in [m0·θ_k(c), m1·θ_k(a)], so cos is ≥ −1 if that range holds an odd
  multiple of π and ≥ its smaller end value otherwise.  This certifies the top of
  the range in one good piece (then swept down to the last gap) and, in intervals
  that look good, most m before any evaluation.  The kernel sits in
  :mod:`.basekernel` (``_kernel_values``, ``Kernel``); the search is here;
* the bad stretch from the bottom of the range is first swept left to right
  (:mod:`.basesweep`: one-sided Taylor bounds from each evaluation point, checked
  again in float64 at the shrunk ends); where it stops, the branch and bound takes a
  window of ``WINDOW`` in ln b, and the sweep resumes after it.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal, localcontext
from fractions import Fraction
from typing import Any

import numpy as np
import sympy as sp

from ...errors import MAX_DIM, InvalidParameter, check_finite, check_int
from ...evidence import Evidence, Sign, Spot
from ...validated import BUDGET_BITS, is_exact_zero
from ...verdict import Verdict
from .basekernel import (
    BASE,
    LN_B,
    Kernel,
    block_doubt,
    certified_value,
    good_tail,
    kernel_expr,
    sweep_good_down,
)
from .basesweep import sweep_bad
from .metrics import U, length_arg

HIGHEST = 1e15          # ln b ≤ 34.6 keeps the θ error bound ρ small
# a settled ball must be wide enough that its 10⁻⁶ relative slack dwarfs the rounding of p ± r
_TINY = 4e6 * U
WINDOW = 4e-3           # ln b (× 65536/L below L = 65536) for the branch and bound per stop
#: the windows of the search down from the all-good top (islands="ends"), the same way: in
#: its long good stretches a narrower window lets the blocks of m certify more m (at L = 2^20
#: on [8.8e9, 9.28e9]: 0.85 s CPU against 7.2 s with WINDOW, 1.8 s with 5e-4, 3.5 s with 2e-3)
TOP_WINDOW = 1e-3
#: m in doubt × pairs: up to this, an interval's doubtful m are re-evaluated exactly
SHARPEN_WORK = 256
#: The work budget of a search by default, in work units (:attr:`Kernel.work`: about one per
#: multiply-add of the float64 kernel, plus a fixed charge per call and per exact enclosure).
#: Past it the rest of the range is undecided: the same answer on every machine, at any load.
WORK_BUDGET = 2 * 10**10
#: The safety net, in CPU seconds of the process (``time.process_time``, which machine load
#: barely changes): it stops runaway work only, far past what the work budget allows
#: (docs/base-bound.md), and an answer it cuts says so.
TIME_LIMIT = 3600.0
#: islands="auto": once the first island is found, the islands above it are enumerated until
#: the search has spent this many more work units; past it the search goes down from the
#: all-good top to its first bad piece and the range between is one "mixed" piece.
ISLAND_WORK = 2 * 10**9
ISLANDS = ("auto", "all", "ends")
#: An exact base whose tiny interval leaves more m than this in doubt is answered unknown.
EXACT_MAX = 32
METHOD = ("certified branch and bound in ln b (float64 with rigorous error bounds, exact "
          "interval re-evaluation of near-degenerate B(m))")


@dataclass
class Piece:
    """A closed interval [e^lo, e^hi] of bases and what is certified on all of it."""

    lo: float
    hi: float
    state: str                 # "good", "bad", "undecided" or "mixed" (see BaseBound.mixed)
    witness: int | None = None  # for "bad": B(witness; b) < 0 on the whole piece
    why: str | None = None      # for "undecided": "resolution" or "budget" (work or time)


@dataclass
class BaseAnswer:
    """Is one exact base good (every B(m) ≥ 0, m ≤ L)?  ``status`` a :class:`Verdict`
    (``YES``, ``NO`` or ``UNKNOWN``; no truth value, compare it: ``status is Verdict.YES``).

    ``witness``: an m with B(m) < 0 at the base (for 'no'); ``evidence``: the certified
    signs that decided it (B(witness) < 0; or, for 'yes', B(m) > 0 at the m with the
    smallest value, and its float64 value with a rigorous bound), audited by
    :mod:`posproof.audit` unless the search was built with ``audit=False``."""

    base: str
    status: Verdict
    witness: int | None = None
    how: str = ""
    note: str | None = None
    evidence: Evidence | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"base": self.base, "good": Verdict(self.status).value, "witness": self.witness,
                "decided_by": self.how, "note": self.note,
                "evidence": None if self.evidence is None else self.evidence.to_dict()}


@dataclass
class Island:
    """A maximal run of certified good bases; each end bracketed (exact for integers)."""

    start: tuple[Any, Any]      # the island's first good base lies in [start[0], start[1]]
    end: tuple[Any, Any]        # its last good base lies in [end[0], end[1]]
    witness_below: int | None   # the m that kills the bases just below it

    def to_dict(self) -> dict[str, Any]:
        return {"start": [_text(v) for v in self.start], "end": [_text(v) for v in self.end],
                "witness_below": self.witness_below}


@dataclass
class BaseBound:
    """The good bases of (d, L) in a range, certified: islands, smallest good base, undecided.

    ``bound`` is the smallest good base (an upper end of its bracket: itself
    good); ``smallest`` its bracket ``(lower, upper)`` and ``witness_m`` the m
    with B(m) < 0 on the bad bases just below.  ``interval``: one island
    reaching the top of the range.  ``all_good_above``: the start of the last island
    when it reaches the top (every base above is good; ``threshold`` is its old name).
    The same names are the keys of :meth:`to_dict`, of :meth:`entry` (explore's numbers)
    and the sweep metrics.

    >>> bb = base_bound(64, 8, lowest=2, highest=1e4)
    >>> bb.undecided, bb.bound == bb.islands[0].start[1], bb.summary().startswith("good")
    (0, True, True)
    """

    length: int
    dim: int
    lowest: float
    highest: float
    integer_bases: bool
    rel_tol: float
    pieces: list[Piece] = field(default_factory=list)
    islands: list[Island] = field(default_factory=list)
    undecided: int = 0
    undecided_where: list[tuple[Any, Any]] = field(default_factory=list)
    evaluations: int = 0
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)
    top_good: bool = False
    searched_to: float | None = None   # first_only: ln b where the search stopped
    time_budget: float | None = None   # the safety net (seconds)
    work_budget: int | None = None     # the deterministic budget (work units)
    work: int = 0                      # work units the search used (deterministic)
    stopped_by: str | None = None      # "work budget" or "time limit" when one cut the range
    evidence: dict[str, Evidence] = field(default_factory=dict)
    answers: dict[str, BaseAnswer] = field(default_factory=dict)
    smallest_status: str = "certified"  # or "unknown: …" when its evidence is not confirmed
    audit: bool = True
    audit_seconds: float = 0.0          # time spent in posproof.audit (included in seconds)
    islands_mode: str = "all"           # "all", "ends", "auto" (or "first": first_only)
    island_work: int | None = None      # islands="auto": the work units of enumeration
    mixed_ints: tuple[int, int] | None = None   # integer_bases: the mixed integers
    _kernel: Any = None

    @property
    def bound(self) -> Any:
        """The smallest good base found (good itself; certified minimal when undecided == 0)."""
        return self.smallest[1] if self.smallest else None

    @property
    def smallest(self) -> tuple[Any, Any] | None:
        if not self.islands or self.smallest_status != "certified":
            return None
        return self.islands[0].start

    @property
    def witness_m(self) -> int | None:
        return self.islands[0].witness_below if self.smallest else None

    @property
    def interval(self) -> bool | None:
        """One island reaching the top of the range (None: not searched that far)."""
        if self.searched_to is not None:
            return None
        return len(self.islands) == 1 and self.reaches_top

    @property
    def mixed(self) -> tuple[Any, Any] | None:
        """The range between the islands listed and :attr:`all_good_above` whose islands were
        not enumerated (``islands="ends"``, or "auto" past ``island_work``), or None.  Its
        ends are certified: good bases end where it starts (the island listed just below,
        the first one at least) and bad bases begin where it ends (a certified bad piece
        just below ``all_good_above``), so good and bad bases alternate across it; the bases
        inside are decided one by one by :meth:`is_good`.  Rounded outward."""
        if self.mixed_ints is not None:
            return self.mixed_ints
        piece = next((p for p in self.pieces if p.state == "mixed"), None)
        return None if piece is None else (outward(piece.lo, False), outward(piece.hi, True))

    @property
    def reaches_top(self) -> bool:
        return self.top_good

    @property
    def all_good_above(self) -> Any:
        """Every base from here to ``highest`` is good (None unless the last island reaches it)."""
        return self.islands[-1].start[1] if self.islands and self.reaches_top else None

    @property
    def threshold(self) -> Any:
        """The old name of :attr:`all_good_above`."""
        return self.all_good_above

    def is_good(self, base: Any) -> Verdict:
        """Is this exact base (in the range) good, certified: ``Verdict.YES``, ``NO`` or
        ``UNKNOWN`` (see :meth:`decide`, which also gives the witness and the evidence).
        A Verdict has no truth value: write ``bb.is_good(b) is Verdict.YES`` (or
        ``.is_yes``), never ``if bb.is_good(b):``.

        >>> bb = base_bound(30, 4, lowest=2, highest=1e9)
        >>> b = (22 / (22 - 7 * sp.pi)) ** 2       # B(22) = 0 exactly here, < 0 just below
        >>> [bb.is_good(b + s * sp.Rational(1, 10**30)) for s in (-1, 0, 1)]
        [Verdict.NO, Verdict.YES, Verdict.YES]
        """
        return self.decide(base).status

    def status(self, base: Any) -> Verdict:
        """The same certified answer as :meth:`is_good`, without building and auditing its
        evidence (for many bases: each audit re-evaluates B(m) in Arb).

        >>> base_bound(30, 4, lowest=2, highest=1e9).status(10**7)
        Verdict.YES
        """
        exact = _exact_base(base)
        key = sp.sstr(exact)
        if key in self.answers:
            return self.answers[key].status
        return Verdict(_point(self, exact, _safety(self), key)[0])

    def decide(self, base: Any) -> BaseAnswer:
        """The certified answer for one exact base (int, float as its binary value,
        Fraction, Decimal, SymPy number or expression), with its evidence (cached)."""
        exact = _exact_base(base)
        key = sp.sstr(exact)
        if key not in self.answers:
            answer = _decide(self, exact, key)
            if answer.evidence is not None and self.audit:
                from ...audit import audit as run_audit

                began = time.perf_counter()
                result = run_audit(answer.evidence)
                self.audit_seconds += time.perf_counter() - began
                if not result.agrees and answer.status != "unknown":
                    verb = "disagrees with" if result.status == "refuted" else "could not confirm"
                    answer.note = (f"unknown: the independent audit ({result.engine}) {verb} "
                                   f"the evidence for '{answer.status}': {result.detail}")
                    answer.status, answer.witness = Verdict.UNKNOWN, None
            self.answers[key] = answer
        return self.answers[key]

    def entry(self, base: Any) -> dict[str, Any]:
        """The numbers explore and the sweep metrics report for an encoding of this base."""
        answer = self.decide(base)
        return {"base_bound": None if self.bound is None else _short(self.bound),
                "base_ok": answer.status.value,
                "base_ok_witness": answer.witness,
                "base_ok_note": answer.note,
                "base_ok_evidence": None if answer.evidence is None
                else answer.evidence.to_dict(),
                "all_good_above": None if self.all_good_above is None
                else _short(self.all_good_above),
                "base_good_set_is_interval": self.interval,
                "base_undecided": self.undecided}

    def to_dict(self) -> dict[str, Any]:
        return {"length": self.length, "dim": self.dim,
                "range": [_text(self.lowest), _text(self.highest)],
                "searched_up_to": None if self.searched_to is None
                else _text(outward(self.searched_to, False)),
                "integer_bases": self.integer_bases,
                "resolution": "exact integers" if self.integer_bases
                else f"relative {self.rel_tol:g}",
                "bound": _text(self.bound),
                "smallest_good_base": None if self.smallest is None else
                {"bracket": [_text(v) for v in self.smallest], "witness_m": self.witness_m},
                "all_good_above": _text(self.all_good_above),
                "good_set_is_interval": self.interval,
                "islands": [i.to_dict() for i in self.islands],
                "islands_mode": self.islands_mode, "island_work": self.island_work,
                "mixed": None if self.mixed is None else {
                    "range": [_text(v) for v in self.mixed],
                    "islands_listed_below": len(self.islands) - 1,
                    "state": "mixed: good and bad bases alternate; islands not enumerated "
                             "(good bases end at its start, bad bases begin at its end, "
                             "both certified; islands='all' enumerates them)"},
                "undecided": self.undecided,
                "undecided_where": [[_text(a), _text(b)] for a, b in self.undecided_where],
                "evaluations": self.evaluations, "seconds": round(self.seconds, 2),
                "exact_reevaluations": getattr(self._kernel, "sharpened", 0),
                "work": self.work, "work_budget": self.work_budget,
                "time_budget": self.time_budget, "stopped_by": self.stopped_by,
                "audit_seconds": round(self.audit_seconds, 3),
                "smallest_status": self.smallest_status,
                "notes": self.notes,
                "evidence": {k: v.to_dict() for k, v in self.evidence.items()},
                "answers": [a.to_dict() for a in self.answers.values()],
                "certified": "branch and bound in ln b: float64 values with rigorous error "
                             "bounds plus the slope bound |dB(m)/d ln b| <= m*sum_k (2k/d) "
                             "b^(-2k/d); near-degenerate B(m) and single bases (integer "
                             "island ends, is_good) decided by certified interval signs "
                             "(posproof.validated), precision raised as needed; evidence "
                             "audited with python-flint Arb"}

    def summary(self) -> str:
        where = (f"for L={self.length}, d={self.dim}, bases in [{_text(self.lowest)}, "
                 f"{_text(self.highest)}]")
        if self.islands and self.smallest_status != "certified":
            text = (f"good bases {where}: {len(self.islands)} island(s); the smallest good "
                    f"base is {self.smallest_status}")
        elif not self.islands:
            text = (f"no good base {where}" if not self.undecided else
                    f"no good base certified {where} (the undecided intervals may hold some)")
        else:
            lo, hi = self.smallest  # type: ignore[misc]
            first = (f"= {_text(hi)}" if lo == hi else f"∈ [{_text(lo)}, {_text(hi)}]")
            count = (f"{len(self.islands)} island(s)" if self.mixed is None else
                     f"{len(self.islands)} island(s) listed (the mixed range may hold more)")
            text = (f"good bases {where}: {count}; smallest good base "
                    f"{first} (B({self.witness_m}) < 0 just below)")
            if self.searched_to is not None:
                text += (f"; searched only up to {_short(outward(self.searched_to, False))} "
                         "(first_only): islands above it not searched")
            elif self.interval:
                text += "; the good set is one interval up to the top of the range"
            elif self.all_good_above is not None:
                text += (f"; NOT an interval; every base ≥ {_text(self.all_good_above)} is good")
                if self.mixed is not None:
                    lo, hi = self.mixed
                    text += (f"; [{_text(lo)}, {_text(hi)}] mixed: good and bad bases "
                             "alternate, islands not enumerated (--islands all lists them; "
                             "is_good decides one base)")
            else:
                text += "; NOT an interval; the top of the range is not good"
        text += f"; {self.undecided} undecided"
        if self.undecided_where:
            shown = ", ".join(f"[{_text(a)}, {_text(b)}]" for a, b in self.undecided_where[:3])
            more = "" if len(self.undecided_where) <= 3 else ", …"
            text += f" ({shown}{more})"
        if self.stopped_by == "work budget":
            text += (f"; the work budget ({self.work_budget:g} units) ran out: raise it with "
                     "--base-work N (work_budget= in Python)")
        elif self.stopped_by == "time limit":
            text += (f"; stopped by the safety time limit ({self.time_budget:g} CPU s), not the "
                     "work budget: raise it with --base-time-limit S (time_budget= in Python)")
        return text


def work_arg(value: Any, name: str = "work_budget") -> int | None:
    """A checked work budget: a whole number of work units ≥ 0 (1e10 is accepted), or None.

    >>> work_arg(1e10), work_arg(None)
    (10000000000, None)
    """
    if value is None:
        return None
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        value = int(value)
    return check_int(name, value, minimum=0, maximum=10**18)


def islands_arg(value: Any) -> str:
    """A checked ``islands`` mode of :func:`base_bound`: 'auto', 'all' or 'ends'.

    >>> islands_arg("all")
    'all'
    """
    if value not in ISLANDS:
        raise InvalidParameter(f"islands={value!r}: expected one of {', '.join(ISLANDS)}")
    return str(value)


def parse_base_range(text: str) -> tuple[float, float]:
    """'LO,HI' (numbers like 2 or 1e12) as a checked base range for :func:`base_bound`.

    >>> parse_base_range("2, 1e12")
    (2.0, 1000000000000.0)
    """
    parts = str(text).split(",")
    if len(parts) != 2:
        raise InvalidParameter(f"--base-range {text!r}: expected LO,HI, e.g. 2,1e12")
    values = []
    for part in parts:
        try:
            values.append(float(part))
        except ValueError:
            raise InvalidParameter(f"--base-range {text!r}: {part.strip()!r} is not a number"
                                   ) from None
    lo, hi = values
    if not (math.isfinite(lo) and math.isfinite(hi) and 1 < lo < hi <= HIGHEST):
        raise InvalidParameter(f"--base-range {text!r}: need 1 < LO < HI <= {HIGHEST:g}")
    return lo, hi


def _text(value: Any) -> Any:
    if value is None or isinstance(value, (int, sp.Integer)):
        return None if value is None else int(value)
    return float(value) if float(value).is_integer() and abs(value) < 2**53 else str(value)


def outward(t: float, up: bool) -> Decimal:
    """e^t rounded outward to 12 significant digits (math.exp is within 1e-15)."""
    value = Decimal(math.exp(t) * (1 + 1e-14 if up else 1 - 1e-14))
    digits = value.adjusted() - 11
    return value.quantize(Decimal(1).scaleb(digits), ROUND_CEILING if up else ROUND_FLOOR)


def _short(value: Any) -> str:
    if isinstance(value, (int, sp.Integer)):
        return str(int(value))
    return f"{float(value):.7g}"


def _classify(kernel: Kernel, a: float, c: float, cand: np.ndarray | None,
              tries: np.ndarray, likely_good: bool = False
              ) -> tuple[str, Any, np.ndarray, np.ndarray]:
    """State of [a, c]: ("good" | "bad" | "open", witness, m still in doubt, best witnesses).

    When open, ``witness`` may be a settled core (state, witness, lo, hi) ⊂ [a, c]
    around the midpoint (or None).  ``likely_good``: first let blocks of m
    (:func:`block_doubt`) certify most m, so only the rest is evaluated.
    ``kernel.likely_good`` tells whether the midpoint's values were all ≥ 0."""
    kernel.likely_good = False
    p = 0.5 * (a + c)
    radius = max(c - p, p - a) * (1 + 4 * U)
    if tries.size:  # the parent's best witnesses first: one m settles most bad intervals
        ms, vals, spread = kernel.spread(p, tries, a, radius)
        upper = vals + spread
        if upper.min() < 0:
            return "bad", int(ms[int(np.argmin(upper))]), tries, tries
        neg = np.flatnonzero(vals < 0)
        if neg.size:  # no try covers [a, c], but one may cover a good part of it
            reach = kernel.reach(-vals[neg], neg)
            j = int(np.argmax(reach))
            lo, hi = max(a, p - float(reach[j])), min(c, p + float(reach[j]))
            if reach[j] > _TINY * (abs(p) + 1) and hi - lo >= 0.25 * (c - a):
                return "open", ("bad", int(ms[neg[j]]), lo, hi), cand, tries
    if likely_good and (cand is None or cand.size > (kernel.length + 1) // 8):
        doubt = block_doubt(kernel, a, c, (kernel.length + 1) // 8)
        if doubt is not None and cand is not None:
            doubt = _common(doubt, cand)
        if doubt is not None and not doubt.size:
            return "good", None, doubt, doubt
        cand = cand if doubt is None else doubt
    ms, vals, spread = kernel.spread(p, cand, a, radius)
    kernel.likely_good = bool(vals.min() >= 0)

    def decided() -> tuple | None:
        """'bad' (an m certainly negative) or 'good' (none possibly negative), else None."""
        i = int(np.argmin(vals + spread))
        if vals[i] + spread[i] < 0:
            return "bad", int(ms[i]), ms, ms[i:i + 1]
        if not (vals - spread <= 0).any():
            return "good", None, ms[:0], ms[:0]
        return None
    if (answer := decided()) is not None:
        return answer
    # a few m whose float64 error is a large part of their value (B(m) near-degenerate, e.g.
    # m near an odd multiple of π): their exact values at p settle far wider balls
    pick = np.flatnonzero(vals - spread <= 0)
    if pick.size * kernel.n <= SHARPEN_WORK:
        heavy = pick[kernel.parts[0][pick] > 0.25 * np.abs(vals[pick])]
        if heavy.size:
            vals, spread, _ = kernel.sharpen(p, ms, vals, spread, heavy)
            if (answer := decided()) is not None:
                return answer
    upper = vals + spread
    doubt = vals - spread <= 0
    # the guesses below (no rigour needed) look only at the m in doubt: every other m is
    # certified positive on all of [a, c], so it is no witness in it
    sub = np.flatnonzero(doubt)
    best = _lowest(ms[sub], upper[sub])
    # what the midpoint settles around itself: the widest bad ball of one m, or the good
    # ball where every m in doubt keeps its sign
    if vals.min() < 0:
        pick = np.flatnonzero(vals < 0)
        reach = kernel.reach(-vals[pick], pick)
        j = int(np.argmax(reach))
        core = ("bad", int(ms[pick[j]]), float(reach[j]))
    else:
        pick = np.flatnonzero(doubt)
        core = ("good", None, float(kernel.reach(vals[pick], pick).min()))
    lo, hi = max(a, p - core[2]), min(c, p + core[2])
    settled = core[2] > _TINY * (abs(p) + 1) and hi - lo >= 0.01 * (c - a)
    if not settled:
        lo = hi = p
    # a guess (no rigour needed): the m predicted most negative at the sides' midpoints
    for side in (0.5 * (a + lo), 0.5 * (hi + c)):
        guess = vals[sub] + kernel.deriv[sub] * (side - p)
        best = np.union1d(best, _lowest(ms[sub], guess))
    if not settled:
        return "open", None, ms[doubt], best
    return "open", (core[0], core[1], lo, hi), ms[doubt], best


def _lowest(ms: np.ndarray, values: np.ndarray, count: int = 4) -> np.ndarray:
    """The ``count`` m with the lowest values (all of them when there are no more)."""
    return ms[np.argpartition(values, count - 1)[:count]] if ms.size > count else ms


def _common(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The sorted distinct values in both sorted distinct arrays (a binary search of the
    shorter one's values in the longer one: no sort of their union)."""
    short, long = (a, b) if a.size <= b.size else (b, a)
    if not short.size or not long.size:
        return short[:0]
    where = np.minimum(np.searchsorted(long, short), long.size - 1)
    return short[long[where] == short]


def _exact_base(base: Any) -> sp.Expr:
    """A base as an exact SymPy number: a float is its binary value, a Decimal its digits."""
    if isinstance(base, bool):
        raise InvalidParameter(f"base={base!r} is not a number")
    if isinstance(base, (int, np.integer)):
        return sp.Integer(int(base))
    if isinstance(base, (float, np.floating)):
        value = check_finite("base", float(base))
        return sp.Rational(*value.as_integer_ratio())
    if isinstance(base, Decimal):
        return sp.Rational(str(base))
    if isinstance(base, str):   # a decimal number only: text is never evaluated
        try:
            value = Decimal(base.strip())
        except ArithmeticError:
            raise InvalidParameter(f"base={base!r} is not a decimal number") from None
        if not value.is_finite():
            raise InvalidParameter(f"base={base!r} is not a finite number")
        return sp.Rational(str(value))
    try:
        exact = sp.sympify(base)
    except (sp.SympifyError, TypeError, ValueError):
        raise InvalidParameter(f"base={base!r} is not a number") from None
    if exact.free_symbols or not exact.is_number:
        raise InvalidParameter(f"base={base!r} is not a number")
    return exact


def _float_down(x: Fraction) -> float:
    f = float(x)
    return f if Fraction(f) <= x else math.nextafter(f, -math.inf)


def _float_up(x: Fraction) -> float:
    f = float(x)
    return f if Fraction(f) >= x else math.nextafter(f, math.inf)


def _ln_enclosure(exact: sp.Expr, deadline: float | None) -> tuple[float, float] | None:
    """Floats [a, c] with a ≤ ln(base) ≤ c, certified (None: the base is not certainly > 0)."""
    got = certified_value(sp.log(BASE), {BASE: exact}, 64, BUDGET_BITS, want=1e-15,
                          deadline=deadline)
    if got is None or got[0] is None:
        return None
    # the enclosure of ln(base) must be a float interval a few ulps wide at most
    return _float_down(got[1]), _float_up(got[2])


def _sign_item(m: int, dim: int, env: dict[Any, Any], where: str, deadline: float | None,
               charge: Any = None) -> tuple[int | None, Sign | None, str]:
    """The certified sign of B(m) at one exact point (``env``: {BASE: b} or {LN_B: t}), as
    a Sign item; (None, None, why) when it cannot be decided."""
    var = "t" if LN_B in env else "b"
    expr = kernel_expr(m, dim, var)
    bits = 64 + m.bit_length() + 16
    got = certified_value(expr, env, bits, BUDGET_BITS, deadline=deadline, charge=charge)
    if got is not None and got[0] is not None:
        sign, lo, hi, prec = got
        relation = "positive" if sign > 0 else "negative"
        return sign, Sign(f"B({m}) at {where}", expr, relation, env=dict(env),
                          lo=_num(lo, False), hi=_num(hi, True),
                          engine=f"posproof.validated (mpmath intervals, {prec} bits)"), ""
    if dim <= 16:   # B(m) may be exactly 0 (e.g. cos 22 + cos(22 − 7π)): prove it
        value = env.get(BASE)
        concrete = expr.xreplace({BASE: value}) if value is not None else None
        if concrete is not None and is_exact_zero(concrete):
            return 0, Sign(f"B({m}) at {where}", expr, "zero", env=dict(env),
                           engine="posproof.validated (exact rewriting)"), ""
    late = (" (stopped by the safety time limit: raise it with --base-time-limit or "
            "time_budget=)" if deadline is not None and time.process_time() > deadline else "")
    why = (f"not enclosed{late}" if got is None
           else f"every enclosure up to {got[3]} bits holds 0{late}")
    return None, None, f"the sign of B({m}) at {where}: {why}"


def _num(x: Fraction, up: bool) -> str:
    """x as a decimal string of 20 significant digits, rounded outward (down, or ``up``)."""
    with localcontext() as ctx:
        ctx.prec, ctx.rounding = 20, (ROUND_CEILING if up else ROUND_FLOOR)
        return str(Decimal(x.numerator) / Decimal(x.denominator))


def _good_items(kernel: Kernel, dim: int, t: float, env: dict[Any, Any], where: str,
                deadline: float | None, skip: set[int] | None = None
                ) -> tuple[list[Sign | Spot], str]:
    """For a base decided good: the decisive margin, i.e. the m with the smallest float64
    B(m) at the float t near it: its certified sign at the base (``env``), and its float64
    value at t with the rigorous bound (a Spot).  ([], why) when the sign is not certified."""
    ms, vals, errs, _ = kernel.values(t, None, small_products=True)
    order = np.argsort(vals)
    m = int(ms[order[0]])
    if skip and m in skip:
        return [], ""
    sign, item, why = _sign_item(m, dim, env, where, deadline)
    if sign is None or sign < 0:
        return [], why or f"B({m}) at {where} is negative"
    spot = Spot(f"B({m}) at ln b = {t!r} (float64, the smallest of every m ≤ {kernel.length})",
                kernel_expr(m, dim, "t"), float(vals[order[0]]), float(errs[order[0]]),
                env={LN_B: Fraction(t)})
    return [item, spot], ""


def _point(out: BaseBound, exact: sp.Expr, deadline: float | None, key: str
           ) -> tuple[str, int | None, list[Sign], str, str | None, float, np.ndarray | None]:
    """Is one exact base good: (status 'yes' | 'no' | 'unknown', witness, the Signs of the
    m decided exactly, how, why unknown, a float t near ln b, the m decided exactly).

    ln b is enclosed (certified); a decided piece of the search holding the enclosure
    answers; otherwise float64 with rigorous bounds on that enclosure certifies every m
    it can, and each m left in doubt gets its certified sign at the exact base."""
    kernel = out._kernel
    span = _ln_enclosure(exact, deadline)
    if span is None:
        return "unknown", None, [], "", "ln(base) could not be enclosed", 0.0, None
    a, c = span
    t = 0.5 * (a + c)
    outside = a < math.log(out.lowest) * (1 - 4 * U) or c > math.log(out.highest) * (1 + 4 * U)
    if outside and _certainly_outside(exact, out.lowest, out.highest):
        return ("unknown", None, [], "", f"outside the searched range "
                    f"[{_text(out.lowest)}, {_text(out.highest)}]", t, None)
    piece = next((p for p in out.pieces if p.state in ("good", "bad") and p.lo <= a
                  and c <= p.hi),
                 None)
    if piece is not None:
        how = "its certified piece of the search"
        return ("yes" if piece.state == "good" else "no"), piece.witness, [], how, None, t, None
    how = "float64 with rigorous bounds on an enclosure of ln b, exact signs for the rest"
    state, witness, doubt, _ = _classify(kernel, a, c, None, np.zeros(0, dtype=np.int64))
    if state != "open":
        return ("yes" if state == "good" else "no"), witness, [], how, None, t, None
    if doubt.size > EXACT_MAX:
        return ("unknown", None, [], how, f"{doubt.size} offsets m are within float64's error "
                f"bound at this base (more than {EXACT_MAX} to decide exactly)", t, doubt)
    _, vals, _, _ = kernel.values(t, doubt)
    items: list[Sign] = []
    for m in doubt[np.argsort(vals)]:
        sign, item, why = _sign_item(int(m), out.dim, {BASE: exact}, f"b = {key}", deadline,
                                     kernel.charge)
        if sign is None:
            return "unknown", None, [], how, why, t, doubt
        if sign < 0:
            return "no", int(m), [item], how, None, t, doubt
        items.append(item)
    return "yes", None, items[:4], how, None, t, doubt


def _decide(out: BaseBound, exact: sp.Expr, key: str) -> BaseAnswer:
    """The certified answer for one exact base, with its evidence (see :meth:`BaseBound.decide`):
    for 'no' the certified sign of B(witness) < 0 at the base; for 'yes' the signs of the m
    decided exactly and the decisive margin (:func:`_good_items`)."""
    deadline = _safety(out)
    where = f"b = {key}"
    env = {BASE: exact}
    status, witness, items, how, why, t, doubt = _point(out, exact, deadline, key)
    if status == "unknown":
        return BaseAnswer(key, Verdict.UNKNOWN, how=how, note=why)
    method = f"{METHOD}; this base by {how}"
    if status == "no":
        if not items:
            sign, item, why = _sign_item(int(witness), out.dim, env, where, deadline)
            if sign != -1:
                return BaseAnswer(key, Verdict.UNKNOWN, how=how, note=why or
                                  f"B({witness}) at this base was not certified negative")
            items = [item]
        return BaseAnswer(key, Verdict.NO, int(witness), how, None,
                          Evidence(method, items=items, details={"witness_m": int(witness)}))
    skip = None if doubt is None else {int(m) for m in doubt}
    extra, why = _good_items(out._kernel, out.dim, t, env, where, deadline, skip)
    if why:
        return BaseAnswer(key, Verdict.UNKNOWN, how=how, note=why)
    return BaseAnswer(key, Verdict.YES, None, how, None,
                      Evidence(method, items=[*items, *extra],
                               details={"m_decided_exactly":
                                        [] if doubt is None else [int(m) for m in doubt]}))


def _certainly_outside(exact: sp.Expr, lowest: float, highest: float) -> bool:
    from ...validated import compare

    return compare(exact, sp.Rational(*lowest.as_integer_ratio())) == -1 or compare(
        exact, sp.Rational(*highest.as_integer_ratio())) == 1


def base_bound(length: int, dim: int, *, lowest: float = 2.0, highest: float = 1e12,
               integer_bases: bool = False, rel_tol: float = 1e-9, first_only: bool = False,
               progress: Callable[[str, int, int], None] | None = None,
               time_budget: float | None = TIME_LIMIT, audit: bool = True,
               work_budget: int | None = WORK_BUDGET, islands: str = "auto",
               island_work: int | None = ISLAND_WORK) -> BaseBound:
    """Every good base in [lowest, highest] for (d, L), certified by branch and bound.

    Bases are searched in t = ln b; an interval is split until it is all good,
    all bad, or narrower than ``rel_tol`` relative (with ``integer_bases``:
    until it holds no integer, whose bases are then decided one by one, exactly).
    ``progress(label, done, total)`` is called (in thousandths of the range) from the
    start (0 before any work) to the end.  ``first_only``: stop once the first island
    is found (the smallest good base and its witness, certified the same way); the
    islands above it, ``threshold`` and ``interval`` are then not computed (None), and
    ``searched_to`` says where the search stopped.  ``work_budget`` (work units,
    :data:`WORK_BUDGET` by default, None: no limit): past it the rest of the range is left
    undecided (reported, never guessed; ``stopped_by`` and a note say so), the same on every
    machine whatever its load.  ``time_budget`` (CPU seconds, :data:`TIME_LIMIT`
    by default, None: none) is only a safety net against runaway work; an answer it cuts
    says so (``stopped_by == "time limit"``).
    ``islands``: "all" enumerates every island (each end bracketed); "ends" stops the
    bottom-up search once the first island is found (as ``first_only``), then searches from
    the all-good top down to its first certified bad piece (which brackets
    ``all_good_above``), and reports the range between as one "mixed" piece
    (:attr:`BaseBound.mixed`: good bases end where it starts, bad ones begin where it ends,
    both certified; its islands are not enumerated and never counted undecided); "auto" (the
    default) enumerates until the search has spent ``island_work`` work units
    (:data:`ISLAND_WORK`) past the window where the first island was found, then goes on as
    "ends" from there (deterministic: no clock).
    ``audit``: the evidence of the smallest good base (and of each :meth:`BaseBound.decide`)
    is re-checked by :mod:`posproof.audit`; an answer it cannot confirm becomes unknown.

    >>> bb = base_bound(64, 8, lowest=2, highest=1e4, integer_bases=True)
    >>> bb.bound, bb.witness_m, bb.interval, bb.undecided
    (3889, 22, False, 0)
    >>> ev = bb.evidence["smallest_good_base"]
    >>> [i.relation for i in ev.items[:2]], ev.audit.status
    (['negative', 'positive'], 'confirmed')
    """
    start = time.perf_counter()
    length, dim = length_arg(length), check_int("dim", dim, minimum=2, maximum=MAX_DIM)
    lowest, highest = check_finite("lowest", lowest), check_finite("highest", highest)
    if not 1 < lowest < highest <= HIGHEST:
        raise InvalidParameter(f"base range [{lowest!r}, {highest!r}] must satisfy "
                               f"1 < lowest < highest <= {HIGHEST:g}")
    rel_tol = check_finite("rel_tol", rel_tol)
    if not 1e-13 <= rel_tol <= 0.1:
        raise InvalidParameter(f"rel_tol={rel_tol!r} must be in [1e-13, 0.1]")
    if time_budget is not None:
        time_budget = check_finite("time_budget", time_budget)
        if time_budget < 0:
            raise InvalidParameter(f"time_budget={time_budget!r} must be >= 0 (or None)")
    work_budget = work_arg(work_budget)
    islands = islands_arg(islands)
    island_work = work_arg(island_work, "island_work")
    if island_work is None:
        islands = "all" if islands == "auto" else islands
    out = BaseBound(length, dim, lowest, highest, bool(integer_bases), rel_tol,
                    time_budget=time_budget, audit=bool(audit), work_budget=work_budget,
                    islands_mode="first" if first_only else islands,
                    island_work=island_work if islands == "auto" and not first_only else None)
    kernel = out._kernel = Kernel(dim, length)
    kernel.budget = work_budget
    kernel.deadline = None if time_budget is None else time.process_time() + time_budget
    t_lo = math.log(lowest) * (1 - 4 * U)
    t_hi = math.log(highest) * (1 + 4 * U)
    span = t_hi - t_lo
    if progress is not None:     # the bar from the start: the tail below can take seconds
        progress("certified base search", 0, 1000)
    t_tail = t_hi
    if not first_only:
        t_tail = good_tail(kernel, t_lo, t_hi)    # [t_tail, t_hi]: all good in one piece
        t_tail = sweep_good_down(kernel, t_lo, t_tail)
    pieces = out.pieces
    shown = progress is not None  # (kept for the close below)

    def add(lo: float, hi: float, state: str, witness: int | None) -> None:
        if pieces and pieces[-1].state == state and pieces[-1].witness == witness:
            pieces[-1].hi = hi
        else:
            pieces.append(Piece(lo, hi, state, witness))

    def tick(t: float) -> None:
        nonlocal shown
        if progress is not None:
            progress("certified base search", round(1000 * (t - t_lo) / span), 1000)

    spent = kernel.spent

    def emit(a: float, c: float, state: str, witness: int | None, why: str | None) -> bool:
        if pieces and pieces[-1].state == state and state != "undecided" and (
                state == "good" or pieces[-1].witness == witness):
            pieces[-1].hi = c
        else:
            pieces.append(Piece(a, c, state, witness, why))
        return False

    # the bad stretch from the bottom by a sweep; the rest by branch and bound
    recent: list[int] = []   # the last witnesses: a bad interval's neighbour's often works
    t_from = t_lo
    work_first: int | None = None   # the work spent when the first island was found
    switch = False
    while t_from < t_tail:   # sweep each bad stretch; branch and bound a window past it
        if spent():
            pieces.append(Piece(t_from, t_tail, "undecided", why="budget"))
            break
        t_stop = sweep_bad(kernel, t_from, t_tail, add, tick)
        t_from = min(t_tail, t_stop + WINDOW * max(1.0, 65536 / length))
        _branch(kernel, out, t_stop, t_from, recent, emit, tick)
        if t_from < t_tail and any(p.state == "good" for p in pieces):
            if first_only:
                out.searched_to = t_from
                break
            work_first = kernel.work if work_first is None else work_first
            if t_tail >= t_hi:      # no all-good top to search down from: enumerate
                continue
            if islands == "ends" or (islands == "auto" and kernel.work - work_first
                                     >= island_work):
                switch = True
                break
    if switch:
        _top_down(kernel, out, t_from, t_tail)
    if t_tail < t_hi:
        if pieces and pieces[-1].state == "good":
            pieces[-1].hi = t_hi
        else:
            pieces.append(Piece(t_tail, t_hi, "good"))
    if shown and progress is not None:
        progress("certified base search", 1000, 1000)
        getattr(progress, "close", lambda: None)()   # the CLI's bar clears its line
    (_integer_islands if integer_bases else _real_islands)(out)
    _smallest_evidence(out)
    if kernel.stopped is not None and (out.undecided or any(p.why == "budget"
                                                            for p in pieces)):
        out.stopped_by, note = _stop_note(out)
        out.notes.append(note)
    out.work = kernel.work
    out.evaluations = kernel.evals
    out.seconds = time.perf_counter() - start
    return out


def _branch(kernel: Kernel, out: BaseBound, a0: float, c0: float, recent: list[int],
            emit: Callable[[float, float, str, int | None, str | None], bool],
            tick: Callable[[float], None], down: bool = False) -> bool:
    """The branch and bound on [a0, c0]: each decided interval (or undecided one: at the
    resolution, or past the budget) goes to ``emit(a, c, state, witness, why)`` in order, left
    to right (right to left with ``down``); ``emit`` returns True to stop the search, and so
    does this function then (else False).  ``recent``: the last witnesses (updated)."""
    none = np.zeros(0, dtype=np.int64)
    stack: list[tuple[float, float, Any, Any, bool]] = [(a0, c0, None, none, True)] * (c0 > a0)
    while stack:
        a, c, cand, tries, likely = stack.pop()
        if isinstance(cand, str):      # a core settled by its parent
            state, witness = cand, tries
        elif kernel.spent():
            if emit(a, c, "undecided", None, "budget"):
                return True
            continue
        else:
            if recent:
                tries = np.union1d(tries, recent)
            state, witness, doubt, best = _classify(kernel, a, c, cand, tries, likely)
            likely = kernel.likely_good
        if state == "bad" and witness not in recent:
            recent[:] = [witness, *recent[:5]]
        if state == "open" and witness is None and not _splittable(a, c, out):
            state = "undecided"
        if state == "open":
            if witness is not None:   # [a, lo], the core, [hi, c]
                core_state, core_witness, lo, hi = witness
                parts = [(a, lo, doubt, best, likely)] * (a < lo)
                parts.append((lo, hi, core_state, core_witness, likely))
                parts += [(hi, c, doubt, best, likely)] * (hi < c)
            else:
                mid = 0.5 * (a + c)
                parts = [(a, mid, doubt, best, likely), (mid, c, doubt, best, likely)]
            stack.extend(parts if down else parts[::-1])
        elif emit(a, c, state, witness, "resolution" if state == "undecided" else None):
            return True
        tick(c if state != "open" else a)
    return False


def _top_down(kernel: Kernel, out: BaseBound, t_floor: float, t_top: float) -> None:
    """The search from the all-good top [t_top, …] down (islands="ends"/"auto" past
    ``island_work``): windows of the branch and bound right to left, from t_top down to
    t_floor (where the bottom-up search stopped), until the first certified bad piece, which
    brackets ``all_good_above``.  The range between the last good piece of the bottom-up
    search and that bad piece becomes one "mixed" piece (certified good bases end where it
    starts, certified bad bases begin where it ends; the islands inside are not enumerated).
    If no bad piece lies above t_floor the pieces simply meet (every island enumerated);
    past the work budget the rest is undecided."""
    pieces, top = out.pieces, []        # top: pieces from t_top down, in decreasing order

    def emit(a: float, c: float, state: str, witness: int | None, why: str | None) -> bool:
        if state == "undecided" and why == "budget":
            top.append(Piece(t_floor, c, "undecided", why="budget"))
            return True
        if top and top[-1].state == state and state != "undecided" and (
                state == "good" or top[-1].witness == witness):
            top[-1].lo = a
        else:
            top.append(Piece(a, c, state, witness, why))
        return state == "bad"

    recent: list[int] = []
    width = TOP_WINDOW * max(1.0, 65536 / kernel.length)
    t, found = t_top, False
    while t > t_floor and not found:
        if kernel.spent():
            top.append(Piece(t_floor, t, "undecided", why="budget"))
            break
        a = max(t_floor, t - width)
        found = _branch(kernel, out, a, t, recent, emit, lambda _t: None, down=True)
        t = a
    found = found and top[-1].state == "bad"
    last_good = max((i for i, p in enumerate(pieces) if p.state == "good"), default=None)
    if found and last_good is not None and pieces[last_good].hi < top[-1].lo:
        del pieces[last_good + 1:]     # certified, but inside the mixed range: not listed
        pieces.append(Piece(pieces[last_good].hi, top[-1].lo, "mixed"))
    elif top and pieces and pieces[-1].hi < top[-1].lo:   # (not reached: no gap is left)
        pieces.append(Piece(pieces[-1].hi, top[-1].lo, "undecided", why="budget"))
    pieces.extend(reversed(top))


def _stop_note(out: BaseBound) -> tuple[str, str]:
    """("work budget" | "time limit", the note saying so and naming the option that raises it)."""
    if out._kernel.stopped == "time":
        return "time limit", (
            f"stopped by the safety time limit ({out.time_budget:g} CPU s), not by "
            "the work budget: the rest of the range is undecided and this answer depends on "
            "the machine's speed and load (raise it: --base-time-limit SECONDS on explore, "
            "time_budget= in Python)")
    return "work budget", (
        f"the work budget ({out.work_budget:g} units) ran out: the rest of the range is "
        "undecided, the same on every machine (raise it: --base-work N on explore, "
        "work_budget= in Python)")


def _safety(out: BaseBound) -> float | None:
    """The safety net's deadline for one more exact decision (None: no time limit)."""
    return None if out.time_budget is None else time.process_time() + out.time_budget


def _splittable(a: float, c: float, out: BaseBound) -> bool:
    if c - a <= 4 * U * max(abs(a), abs(c)) + 1e-300:
        return False
    if out.integer_bases:  # stop once the interval holds no integer
        return math.floor(math.exp(c) * (1 + 1e-12)) >= math.ceil(math.exp(a) * (1 - 1e-12))
    return c - a > out.rel_tol


def _real_islands(out: BaseBound) -> None:
    """Islands from the pieces: an undecided run between bad and good brackets an end."""
    pieces = _merge(out.pieces)
    out.top_good = bool(pieces) and pieces[-1].state == "good" and out.searched_to is None
    for i, p in enumerate(pieces):
        if p.state != "undecided":
            continue
        left = pieces[i - 1].state if i else None
        right = pieces[i + 1].state if i + 1 < len(pieces) else None
        if {left, right} != {"good", "bad"} or p.why == "budget":
            out.undecided += 1
            out.undecided_where.append((outward(p.lo, False), outward(p.hi, True)))
    first_undecided = next((p.lo for p in pieces if p.state == "undecided" and (
        p.why == "budget" or not _bracket(pieces, p))), None)
    for i, p in enumerate(pieces):
        if p.state != "good":
            continue
        before = pieces[i - 1] if i else None
        after = pieces[i + 1] if i + 1 < len(pieces) else None
        if not out.islands and first_undecided is not None and first_undecided < p.lo:
            out.smallest_status = (f"not certified: an undecided interval from "
                                   f"{outward(first_undecided, False)} lies below the first "
                                   "island found")
        if before is None or before.state == "bad":
            start = (outward(p.lo, False),) * 2 if before is None else (
                outward(p.lo, False), outward(p.lo, True))
        elif before.state == "mixed":             # (not made by the search)
            start = (None, outward(p.lo, True))
        else:
            start = (outward(before.lo, False), outward(p.lo, True))
        if after is None or after.state == "bad":
            end = (outward(p.hi, False), outward(p.hi, True))
        elif after.state == "mixed":              # the island may go on into it
            end = (outward(p.hi, False), None)
        else:
            end = (outward(p.hi, False), outward(after.hi, True))
        if before is None:
            start = (Decimal(repr(out.lowest)),) * 2
        if after is None and out.searched_to is not None:
            end = (outward(p.hi, False), None)    # the island goes on past the search
        elif after is None:
            end = (Decimal(repr(out.highest)),) * 2
        below = before if before is None or before.state == "bad" else (
            pieces[i - 2] if i >= 2 and before.why != "budget" else None)
        out.islands.append(Island(start, end, below.witness if below else None))
    if out.undecided:
        out.notes.append(f"{out.undecided} undecided interval(s) (resolution limit or work "
                         "budget): "
                         "the smallest good base is certified only if none lies below it")


def _merge(pieces: list[Piece]) -> list[Piece]:
    merged: list[Piece] = []
    for p in pieces:
        if merged and merged[-1].state == p.state:
            why = "budget" if "budget" in (merged[-1].why, p.why) else p.why
            merged[-1] = Piece(merged[-1].lo, p.hi, p.state, p.witness, why)
        else:
            merged.append(Piece(p.lo, p.hi, p.state, p.witness, p.why))
    return merged


def _bracket(pieces: list[Piece], p: Piece) -> bool:
    """Whether the undecided piece ``p`` (of the merged ``pieces``) lies between a bad and a
    good piece (an island end at the resolution limit)."""
    i = pieces.index(p)
    left = pieces[i - 1].state if i else None
    right = pieces[i + 1].state if i + 1 < len(pieces) else None
    return {left, right} == {"good", "bad"}


def _integer_status(out: BaseBound, n: int) -> tuple[str, int | None]:
    """One integer base decided on its own (:func:`_point`); unknown once the search's budget
    is spent (:meth:`Kernel.spent`)."""
    if out._kernel.spent():
        return "unknown", None
    status, witness = _point(out, sp.Integer(n), out._kernel.deadline, str(n))[:2]
    return status, witness


def _integer_islands(out: BaseBound) -> None:
    """Islands of good integers: integers well inside a piece take its state, the rest are
    decided one by one (the tiny interval around ln n, else exact frequencies)."""
    lo_int, hi_int = math.ceil(out.lowest), math.floor(out.highest)
    points: dict[int, tuple[str, int | None]] = {}
    inner: list[tuple[int, int, str, int | None]] = []
    for p in out.pieces:
        low, high = math.exp(p.lo), math.exp(p.hi)
        first = max(lo_int, math.ceil(low * (1 + 1e-12)))
        last = min(hi_int, math.floor(high * (1 - 1e-12)))
        if p.state == "mixed":        # not enumerated: its neighbours decide the edges
            if first <= last:
                inner.append((first, last, "mixed", None))
            continue
        if first <= last and (p.state != "undecided" or last - first > 8):
            inner.append((first, last, {"good": "yes", "bad": "no"}.get(p.state, "unknown"),
                          p.witness))
            edges = range(max(lo_int, math.floor(low * (1 - 1e-12))), first)
            edges2 = range(last + 1, min(hi_int, math.ceil(high * (1 + 1e-12))) + 1)
        else:
            edges = range(max(lo_int, math.floor(low * (1 - 1e-12))),
                          min(hi_int, math.ceil(high * (1 + 1e-12))) + 1)
            edges2 = range(0)
        for n in (*edges, *edges2):
            if n not in points and n >= lo_int:
                points[n] = _integer_status(out, n)
    for j, (first, last, state, _) in enumerate(inner):
        if state != "mixed":
            continue
        # the integers just below all_good_above's bad piece: decided one by one down to a
        # bad one (or an unknown one), which brackets the top island's first integer
        n = last
        while n >= first:
            points[n] = _integer_status(out, n)
            if points[n][0] != "yes":
                break
            n -= 1
        inner[j] = (first, n - 1, "mixed", None)
    inner = [r for r in inner if r[0] <= r[1]]
    runs: list[list[Any]] = []   # [first, last, state, witness]
    for first, last, state, witness in sorted(inner + [(n, n, s, w) for n, (s, w) in
                                                        points.items()]):
        if runs:  # an integer decided twice (by its piece and by itself) keeps its first answer
            first = max(first, runs[-1][1] + 1)
            if first > last:
                continue
        if runs and runs[-1][2] == state and first == runs[-1][1] + 1:
            runs[-1][1] = last
            runs[-1][3] = witness if witness is not None else runs[-1][3]
        else:
            runs.append([first, last, state, witness])
    for i, (first, last, state, _) in enumerate(runs):
        if state == "unknown":
            out.undecided += 1
            out.undecided_where.append((first, last))
            if not out.islands and any(r[2] == "yes" for r in runs[i:]):
                out.smallest_status = (f"not certified: the integers {first}…{last} are "
                                       "undecided, below the first island found")
        elif state == "mixed":
            out.mixed_ints = (first, last)
        elif state == "yes":
            below = runs[i - 1] if i else None
            after = runs[i + 1] if i + 1 < len(runs) else None
            out.islands.append(Island((first, first), (last, None if after and after[2] ==
                                                       "mixed" else last),
                                      below[3] if below and below[2] == "no" else None))
    out.top_good = (bool(runs) and runs[-1][2] == "yes" and runs[-1][1] == hi_int
                    and out.searched_to is None)
    if out.searched_to is not None and out.islands and runs and runs[-1][2] == "yes":
        last = out.islands[-1]      # the island goes on past the search
        out.islands[-1] = Island(last.start, (last.end[0], None), last.witness_below)


def _smallest_evidence(out: BaseBound) -> None:
    """The evidence of the smallest good base (``evidence["smallest_good_base"]``): B(witness)
    < 0 at the end of the bad piece just below it (certified sign), and at the reported
    smallest good base the certified sign of B(m) > 0 for the m with the smallest value
    there, with its float64 value and rigorous bound (a Spot); or, when no base is good,
    B(witness) < 0 at the top of the range (``evidence["no_good_base"]``).  Audited unless
    ``out.audit`` is False; an evidence that is not confirmed makes the answer unknown."""
    kernel, dim = out._kernel, out.dim
    deadline = _safety(out)
    items: list[Sign | Spot] = []
    merged = _merge(out.pieces)
    if out.smallest is None:
        if out.islands or out.undecided or not merged or merged[-1].state != "bad":
            return
        top = merged[-1]
        sign, item, why = _sign_item(int(top.witness), dim, {LN_B: Fraction(top.hi)},
                                     f"ln b = {top.hi!r} (the top of the range)", deadline)
        key, details = "no_good_base", {"witness_m": top.witness}
        if sign != -1:
            out.notes.append(f"no good base: its evidence failed ({why})")
            return
        items.append(item)
    else:
        lo, hi = out.smallest
        w = out.witness_m
        key, details = "smallest_good_base", {"bracket": [_text(lo), _text(hi)],
                                              "witness_m": w}
        why = ""
        if w is not None:
            if out.integer_bases:
                env: dict[Any, Any] = {BASE: sp.Integer(int(lo) - 1)}
                where = f"b = {int(lo) - 1} (the integer just below the smallest good base)"
            else:
                first = next(p for p in merged if p.state == "good")
                below = [p for p in merged if p.state == "bad" and p.hi <= first.lo
                         and p.witness == w]
                t = below[-1].hi if below else math.log(float(lo))
                env = {LN_B: Fraction(t)}
                where = (f"ln b = {t!r} (b ≈ {math.exp(t):.12g}, the end of the bad piece "
                         "below the smallest good base)")
            sign, item, why = _sign_item(int(w), dim, env, where, deadline)
            if sign == -1:
                items.append(item)
            else:
                why = why or f"B({w}) was not certified negative at {where}"
        if not why:
            exact = _exact_base(hi)
            extra, why = _good_items(kernel, dim, math.log(float(hi)), {BASE: exact},
                                     f"b = {_text(hi)} (the smallest good base)", deadline)
            items.extend(extra)
        if why:
            out.smallest_status = f"unknown: its evidence failed ({why})"
            out.notes.append(f"smallest good base: {out.smallest_status}")
            return
    evidence = Evidence(METHOD, items=items, details=details)
    out.evidence[key] = evidence
    if out.audit:
        from ...audit import audit as run_audit

        began = time.perf_counter()
        result = run_audit(evidence)
        out.audit_seconds += time.perf_counter() - began
        if not result.agrees:
            verb = "disagrees with" if result.status == "refuted" else "could not confirm"
            status = (f"unknown: the independent audit ({result.engine}) {verb} its evidence: "
                      f"{result.detail}")
            out.notes.append(f"{key.replace('_', ' ')}: {status}")
            if key == "smallest_good_base":
                out.smallest_status = status
