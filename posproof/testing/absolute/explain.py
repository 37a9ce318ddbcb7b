"""Why a table disagrees with its spec: an explanation is confirmed, never guessed.

Every candidate explanation (see :mod:`posproof.testing.absolute.hypotheses`) regenerates
the table under its hypothesis; they are ranked by the residual of that
regeneration against the impl, and the first (simplest) one that reproduces
the impl within the dtype's tolerance is reported with its residual.  When
none does, the report says so and shows what :func:`~posproof.testing.identification.identify`
finds in the table (its structure) instead of a guess.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ...errors import PosproofError
from ..core.reports import ImplReport
from ..identification import TOLERANCE, identify
from .hypotheses import (
    Hypothesis,
    Model,
    Outcome,
    fitted,
    measured_frequencies,
    order,
    padding,
    precision,
    rank,
    structural,
)

__all__ = ["explain_encoding"]

_EPS32 = 2.0**-23


def _sample(n: int) -> np.ndarray:
    """Row indices for hypothesis tests: the first 256, the last 128, 128 between."""
    if n <= 512:
        return np.arange(n)
    return np.unique(np.concatenate([np.arange(256), np.linspace(256, n - 129, 128)
                                     .astype(np.int64), np.arange(n - 128, n)]))


def _confirmed_text(best: Outcome) -> str:
    return (f"{best.cause} — confirmed: regenerating with {best.how} reproduces the impl to "
            f"{best.residual:.2g} (every entry within its tolerance, the worst at "
            f"{best.score:.2g} of it)")


def explain_encoding(report: ImplReport, table: np.ndarray, pos: np.ndarray, enc: Any,
                      eps: float, eps_angle: float,
                      calls: Callable[[np.ndarray], np.ndarray] | None, dtname: str,
                      check: Any = None) -> None:
    """Rank the hypotheses against the impl; report the first confirmed one, or none.

    ``check``: the check's :class:`~posproof.testing.core.judging.Tolerance` under a
    declared angle dtype (its rounding model decides which regeneration is a no-op, not
    16·eps_angles)."""
    rows = _sample(pos.size)
    t, p = table[rows], pos[rows]
    # a structural bug is confirmed whatever precision the impl formed x·ω in (up to float32,
    # or the angles= the caller allowed); a precision hypothesis only beyond what was allowed
    eps_path = max(min(eps_angle, _EPS32), min(eps, _EPS32))
    block = _consecutive_block(table, pos, calls)
    omega_meas = measured_frequencies(block[0] if block is not None else None, eps)
    hyps: list[Hypothesis] = [*structural(enc), *padding(enc, table, pos),
                              *precision(enc, eps_angle), *fitted(enc, t, p, omega_meas),
                              *_truncation(enc)]
    found = None
    outcomes = rank(table, pos, hyps, eps=eps, eps_path=eps_path, spec=Model.of(enc),
                    eps_check=eps_angle if check is None else check)
    if not any(o.confirmed for o in outcomes) and block is not None:
        try:
            found = identify(block[0], dtype=dtname)
        except PosproofError:
            found = None
    if found is not None:
        report.identification = found.to_dict()
        combined = _identified(found, enc, int(block[1]))
        if combined is not None:
            outcomes = sorted(outcomes + rank(table, pos, [combined], eps=eps, eps_path=eps_path,
                                                  spec=Model.of(enc),
                                                  eps_check=eps_angle if check is None
                                                  else check),
                              key=order)
    confirmed = [o for o in outcomes if o.confirmed]
    report.hypotheses = [o.to_dict() for o in outcomes[:12]]
    if confirmed:
        # simplest first: the order the hypotheses were listed in, not the smallest residual
        keys = [h.key for h in hyps] + ["identified"]
        best = min(confirmed, key=lambda o: (keys.index(o.key), o.score))
        report.hypotheses = [best.to_dict()] + [o.to_dict() for o in outcomes[:12]
                                                if o is not best]
        report.explanation = _confirmed_text(best)
        # several explanations reproduce the impl: every other one is named too (by kind)
        others, seen = [], {best.key}
        for o in sorted(confirmed, key=lambda o: (keys.index(o.key), o.score)):
            if o.key not in seen:
                seen.add(o.key)
                others.append(o.cause.split(":")[0].split(" — ")[0])
        if others:
            report.explanation += "; also reproduced by: " + "; ".join(others[:3])
        return
    closest = outcomes[0] if outcomes else None
    facts = []
    pairs = _pair_frequency_mismatch(block[0] if block is not None else None, enc, eps)
    if pairs:
        facts.append(pairs)
    valid = _valid_pairs(block[0] if block is not None else None, enc)
    if valid:                       # pairs at speeds no schedule has: not a random table
        facts.append(valid)
    if found is not None:
        facts.append(f"identify: {found.summary}")
    text = (f"no explanation confirmed: none of {len(outcomes)} hypotheses reproduces the "
            "impl within its tolerance")
    if closest is not None and math.isfinite(closest.residual):
        text += (f" (closest: {closest.cause.split(':')[0]}, off by {closest.residual:.2g} > "
                 f"{closest.tolerance:.2g})")
    report.explanation = text + ("; what the table shows: " + "; ".join(facts) if facts else "")


def _truncation(enc: Any) -> list[Hypothesis]:
    """An odd-d impl that truncates the even table of d+1 columns instead of padding."""
    from ...model.encoding import Encoding

    if enc.dim % 2 == 0 or enc.schedule is None:
        return []
    even = Encoding(enc.schedule, enc.layout, enc.dim + 1, offset=enc.offset)
    model = Model.of(even)
    model.keep = np.arange(enc.dim)
    return [Hypothesis("truncated", f"dim {enc.dim} is odd: the spec pads with a zero last "
                       f"column (odd_dim='pad'), but the impl is the table of dim "
                       f"{enc.dim + 1} with its last column cut off", f"dim {enc.dim + 1}, "
                       "last column dropped", model)]


def _identified(found: Any, enc: Any, first: int) -> Hypothesis | None:
    """What identify found, as a hypothesis (several changes at once)."""
    text = _diff_identification(found, enc, first)
    if text is None:
        return None
    model = Model.of(found.encoding)
    model.shift = found.offset - first
    return Hypothesis("identified", text, found.presets[0], model)


def _consecutive_block(table: np.ndarray, pos: np.ndarray,
                       calls: Callable[[np.ndarray], np.ndarray] | None
                       ) -> tuple[np.ndarray, int] | None:
    """(table rows at consecutive positions, first position) for identify."""
    if pos.size >= 8 and np.all(np.diff(pos[: min(pos.size, 256)]) == 1):
        n = min(pos.size, 2048)
        if np.all(np.diff(pos[:n]) == 1):
            return table[:n], int(pos[0])
        return table[:256], int(pos[0])
    if calls is not None:
        start = int(pos.min()) if pos.size else 0
        block = np.arange(start, start + 256, dtype=np.int64)
        return calls(block), start
    return None


def _diff_identification(found: Any, enc: Any, first: int) -> str | None:
    """How what identify found differs from the spec, in words."""
    if not found.matched or found.encoding is None:
        return None
    spec_sched = enc.schedule
    diffs: list[str] = []
    lay, flay = enc.layout.name, found.layout
    if flay != lay:
        same_pairing = lay.split("-")[0] == flay.split("-")[0]
        diffs.append(f"sin and cos swapped (layout {flay}, not {lay})" if same_pairing
                     else f"matches the {flay} layout, not {lay}")
    family = getattr(spec_sched, "family", None)
    fam = {"diffusion": "geometric"}.get(family, family)
    params = found.params
    if fam != found.family:
        if found.family == "tensor2tensor" and fam == "geometric":
            diffs.append("frequencies follow an exponent over n−1, as in tensor2tensor")
        elif found.family == "geometric" and fam == "tensor2tensor":
            diffs.append("frequencies follow an exponent over n, as in the original paper, "
                         "not over n−1")
        else:
            diffs.append(f"{found.family} frequencies, not {family}")
    if found.family == "geometric" and fam == "geometric":
        base = getattr(spec_sched, "base", None) or getattr(spec_sched, "max_period", None)
        if params.get("base") != str(base).replace("**", "^"):
            diffs.append(f"base {params.get('base')}, not {base}")
    if found.family == "tensor2tensor" and fam == "tensor2tensor":
        for key in ("min_timescale", "max_timescale"):
            if params.get(key) != str(getattr(spec_sched, key)):
                diffs.append(f"{key} {params.get(key)}, not {getattr(spec_sched, key)}")
    if found.family == "binary" and fam == "binary" and params.get("numerator") != str(
            spec_sched.numerator):
        diffs.append(f"numerator {params.get('numerator')}, not {spec_sched.numerator}")
    shift = found.offset - first
    if shift:
        diffs.append(f"offset by {_positions(shift)}: the impl at x equals the spec at x "
                     f"{'+' if shift > 0 else '−'} {abs(shift)}")
    if not diffs:
        return None
    return "; ".join(diffs) + f" (identified as {found.presets[0]})"


def _pair_frequency_mismatch(block: np.ndarray | None, enc: Any, eps: float) -> str | None:
    """'dims 2i and 2i+1 use different frequencies', with the dims named."""
    from ..identification.measure import column_frequencies

    if block is None or block.shape[0] < 8 or block.shape[1] != enc.dim:
        return None
    omega, sinusoid = column_frequencies(block, TOLERANCE * eps)
    bad = []
    for s, c in enc.pairs:
        if sinusoid[s] and sinusoid[c] and abs(omega[s] - omega[c]) > 1e-3 * max(omega[s], 1e-3):
            bad.append((s, c))
    if not bad:
        return None
    shown = ", ".join(f"dims {s} and {c}: ω = {omega[s]:.6g} and {omega[c]:.6g}"
                      for s, c in bad[:3])
    return (f"dims 2i and 2i+1 use different frequencies ({shown}"
            f"{', …' if len(bad) > 3 else ''}; {len(bad)} of {len(enc.pairs)} pairs): "
            "no rotation T(Δ) exists")


def _positions(n: int) -> str:
    """``1 position``, ``2 positions``, ``-1 position``.

    >>> _positions(1), _positions(-2), _positions(-1)
    ('1 position', '-2 positions', '-1 position')
    """
    return f"{n} position{'' if abs(n) == 1 else 's'}"


def _valid_pairs(block: np.ndarray | None, enc: Any) -> str | None:
    """When the columns are (sin, cos) pairs turning at constant speeds the spec does not
    have: say so, with the measured sin² + cos² − 1, the speeds and their constancy.

    Pairings tried: the spec's, then adjacent (2i, 2i+1) and split (i, i+n).  A pair
    counts when |sin² + cos² − 1| ≤ 1e-6 at every row and its angle step
    z(x+1)·conj(z(x)) (z = cos + i·sin) varies by at most 1e-6 over the rows: the
    measured values are printed, so the statement can be checked.
    """
    if block is None or block.ndim != 2 or block.shape[0] < 8 or block.shape[1] < 2:
        return None
    t = np.asarray(block, dtype=np.float64)
    d = t.shape[1]
    n = d // 2
    pairings = [list(enc.pairs), [(2 * i, 2 * i + 1) for i in range(n)],
                [(i, i + n) for i in range(n)]]
    for pairs in pairings:
        if len(pairs) != n or not pairs:
            continue
        s_idx = np.array([a for a, _ in pairs])
        c_idx = np.array([b for _, b in pairs])
        z = t[:, c_idx] + 1j * t[:, s_idx]
        norm_err = float(np.abs(np.abs(z) ** 2 - 1).max())
        step = z[1:] * np.conj(z[:-1])
        mean = step.mean(axis=0)
        drift = float(np.abs(step - mean).max())
        if norm_err > 1e-6 or drift > 1e-6:
            continue
        speeds = np.angle(mean)
        shown = ", ".join(f"{w:.6g}" for w in speeds[:6]) + (", …" if n > 6 else "")
        names = "; ".join(f"dims {a} and {b}" for a, b in pairs[:2]) + ("; …" if n > 2 else "")
        text = (f"valid (sin, cos) pairs ({names}: |sin² + cos² − 1| ≤ {norm_err:.1g}) "
                f"turning by constant angles per position (within {drift:.1g}) of {shown} "
                "rad (mod 2π), which no known schedule gives")
        spec = np.asarray(enc.frequencies_float, dtype=np.float64)
        if spec.size == n and np.all(spec > 0):
            gap = float(np.abs(np.exp(1j * speeds) - np.exp(1j / spec)).max())
            if gap <= 1e-6:
                text += (f"; they are the spec's frequencies inverted (1/ω_k, within "
                         f"{gap:.1g}): the base multiplies where it should divide")
        return text
    return None
