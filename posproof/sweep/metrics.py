"""The metrics a sweep can record: :class:`Metric` (where a number comes from and what it means)
and the table :data:`METRICS` of every metric, with the check of a grid's metric names.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import InvalidParameter, UnknownName
from .grid_values import DTYPES

__all__ = [
    "METRICS",
    "RENAMED",
    "Metric",
    "check_metrics",
]


@dataclass(frozen=True)
class Metric:
    """One number a sweep can record: where it comes from and what it means.

    ``source`` is ``explore`` (the numbers of :func:`posproof.measure.explore.explore`),
    ``dtype:NAME`` (its dtype audit), ``proofs``, ``base_bound``, or
    ``check:NAME`` (a check of :func:`posproof.measure.checks.run_checks`).

    >>> METRICS["first_negative"].source
    'explore'
    """

    name: str
    source: str
    section: str
    description: str
    get: Callable[[Any], Any] = field(repr=False, compare=False)


def _phase_from(entry: Mapping[str, Any]) -> Any:
    return next((v for k, v in entry.items() if k.startswith("phase_error_above_")), None)


def _metric_table() -> dict[str, Metric]:
    rows: list[tuple[str, str, str, str, Callable[[Any], Any]]] = [
        ("first_negative", "explore", "first_negative",
         "first m ∈ 0 … L with B(m) = Σ_k cos(mθ_k) < 0 (null: none)",
         lambda n: n["first_negative"]["m"]),
        ("first_negative_value", "explore", "first_negative",
         "B(m) at that m, mpmath (null: none)", lambda n: n["first_negative"].get("value_mp")),
        ("decay_at_length", "explore", "decay",
         "RoFormer's decay (1/n)·Σ|S_j| at Δ = L, mpmath",
         lambda n: n["decay"].get("last", {}).get("value_mp")),
        ("decay_min", "explore", "decay", "smallest decay value over Δ > 0 (scanned offsets), "
         "mpmath", lambda n: n["decay"].get("min", {}).get("value_mp")),
        ("decay_min_at", "explore", "decay", "the Δ of decay_min",
         lambda n: n["decay"].get("min", {}).get("delta")),
        ("pairs_covered", "explore", "bands", "pairs whose wavelength 2π/θ_k fits in L",
         lambda n: n["bands"]["pairs_covered"]),
        ("pairs", "explore", "bands", "number of frequency pairs", lambda n: n["bands"]["pairs"]),
        ("critical_dimension", "explore", "critical_dimension",
         "Liu et al.'s d_extra for T = train_length (default L); null without a base",
         lambda n: n.get("critical_dimension", {}).get("d_extra")),
        ("attention_factor", "explore", "",
         "attention (temperature) factor of the scaling rule, 10 digits",
         lambda n: n.get("attention_factor_float")),
    ]
    for dt in DTYPES:
        rows += [
            (f"{dt}_max_phase_error", f"dtype:{dt}", f"dtypes.{dt}",
             f"largest |m·θ formed in {dt} − m·θ| over m < L (radians, mpmath)",
             lambda n, dt=dt: n["dtypes"][dt]["max_phase_error"]),
            (f"{dt}_first_unrepresentable", f"dtype:{dt}", f"dtypes.{dt}",
             f"first integer position {dt} cannot hold",
             lambda n, dt=dt: n["dtypes"][dt]["first_unrepresentable_integer"]),
            (f"{dt}_first_overflow", f"dtype:{dt}", f"dtypes.{dt}",
             f"first position that overflows {dt} (null: none below L)",
             lambda n, dt=dt: n["dtypes"][dt]["first_overflow_position"]),
        ]
    rows += [
        ("base_bound", "base_bound", "base_bound",
         "smallest good base for (L, rotated dim) in [2, 1e12], geometric rule (Men et al.), "
         "certified branch and bound (an upper end of its bracket)",
         lambda b: b["base_bound"]),
        ("base_ok", "base_bound", "base_bound",
         "'yes'/'no'/'unknown': the point's own base is good (B(m) >= 0 for all m <= L), "
         "certified", lambda b: b["base_ok"]),
        ("all_good_above", "base_bound", "base_bound",
         "every base from here to 1e12 is good (the start of the last island; null when no "
         "island reaches 1e12)", lambda b: b["all_good_above"]),
        ("base_good_set_is_interval", "base_bound", "base_bound",
         "whether the certified good bases form one interval up to 1e12",
         lambda b: b["base_good_set_is_interval"]),
        ("theorems_ok", "proofs", "proofs",
         "every theorem explore proves holds (expected refutations aside)",
         lambda r: r["ok"]),
        ("theorems_not_proved", "proofs", "proofs",
         "the theorems that did not hold, as 'name: status'", lambda r: r["not_proved"]),
        # the numbers of `posproof check` (positions 0 … L−1)
        ("bounds_max_abs_entry", "check:bounds", "bounds", "max |PE_i| on the sampled rows",
         lambda c: c["max_abs_entry"]),
        ("separation", "check:separation", "separation",
         "min ‖PE(x+Δ) − PE(x)‖ over Δ = 1 … L−1, mpmath", lambda c: c.get("min_distance_mp")),
        ("separation_at", "check:separation", "separation", "the Δ of separation",
         lambda c: c.get("at_offset")),
        ("near_return", "check:near_return", "near_return",
         "closest return over Δ ∈ [L/2, L), mpmath", lambda c: c.get("closest_distance_mp")),
        ("near_return_at", "check:near_return", "near_return", "the Δ of near_return",
         lambda c: c.get("at_offset")),
        ("effective_period", "check:near_return", "near_return",
         "first Δ closer than neighbouring positions", lambda c: c.get("effective_period")),
        ("period", "check:periodicity", "periodicity",
         "exact period from the proof engine ('aperiodic' when proved aperiodic)",
         lambda c: c.get("period")),
        ("translation_residual", "check:translation_residual", "translation_residual",
         "max |PE(x+Δ) − PE(x)·T(Δ)| over its tolerance (float64)",
         lambda c: c.get("max_residual_over_tolerance")),
        ("toeplitz_deviation", "check:toeplitz", "toeplitz",
         "largest deviation of the Gram matrix from Toeplitz (float64)",
         lambda c: max((b["deviation"] for b in c.get("blocks", [])), default=None)),
        ("first_increase", "check:decay", "decay",
         "first Δ < L where f(Δ) rises (check decay)", lambda c: c.get("first_increase")),
    ]
    for dt in DTYPES:
        rows.append((f"{dt}_phase_exceeds_from", f"check:dtype_audit:{dt}", "dtype_audit",
                     f"first position whose phase error in {dt} exceeds 0.01 rad (check)",
                     lambda c, dt=dt: _phase_from(c.get(dt, {}))))
    from ..measure.checks import CHECKS

    for name in CHECKS:
        rows.append((f"{name}_status", f"check:{name}", name, f"'pass' or 'fail' of check {name}",
                     lambda c: c["status"]))
    return {name: Metric(name, source, section, text, get)
            for name, source, section, text, get in rows}


METRICS: dict[str, Metric] = _metric_table()

#: Old metric names, still accepted in grid files and ``--metric``: one name per quantity
#: (``kernel_first_negative`` was check decay's ``first_negative``, the same first offset
#: with B < 0 that ``first_negative`` records).
RENAMED = {"base_all_good_above": "all_good_above", "kernel_first_negative": "first_negative",
           "kernel_first_increase": "first_increase"}


def check_metrics(names: Any, where: str) -> tuple[str, ...]:
    if isinstance(names, str):
        names = [names]
    if not isinstance(names, list) or not names:
        raise InvalidParameter(f"{where}: metrics must be a non-empty list of names, e.g. "
                               'metrics = ["first_negative", "decay_at_length"]')
    out: list[str] = []
    for name in names:
        name = RENAMED.get(name, name) if isinstance(name, str) else name
        if not isinstance(name, str) or name not in METRICS:
            raise UnknownName(f"{where}: metric {name!r} is not known; use any of "
                              f"{', '.join(METRICS)} (posproof sweep --list-metrics)")
        if name not in out:
            out.append(name)
    return tuple(out)
