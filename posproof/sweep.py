"""Sweeps: grids of encodings × parameters × metrics, run locally or on a Dask cluster.

A grid file (TOML) names families of encodings, the parameters to sweep and
the metrics to compute::

    metrics = ["first_negative", "decay_at_length", "pairs_covered"]
    length = [4096, 32768]                        # context lengths L (every family)

    [[family]]
    kind = "rope"                                 # rope, or a preset: vaswani, binary, …
    dim = 128                                     # a scalar is fixed
    base = [10000, 500000]                        # a list is swept
    scaling = "linear"
    factor = { start = 2, stop = 8, factor = 2 }  # a range: 2, 4, 8

Each point is the product of its family's lists; it is built from the spec
string that ``posproof explore`` reads (``rope:base=10000,dim=128,…``) and
measured by :func:`posproof.explore.explore` (or :func:`posproof.checks.run_checks`
for the numbers of ``posproof check``) at its context length L, certified the
same way.  :data:`METRICS` lists the metrics.

Results go to an append-only JSON Lines file, one record per point, written
by the driver alone (one ``write`` + ``fsync`` per record).  Every record has a
stable ``key`` (a hash of its canonical parameters, metrics and seed): with
``resume=True`` recorded points are skipped, a last line cut short by a kill
is repaired first, and points whose worker died are never recorded, so they
run again.  A point that raises is recorded with its error.  Records are
deterministic: the same grid gives byte-identical records (see
:func:`canonical`) apart from the ``"timing"`` sub-object (seconds, host, pid).

Points run in a local process pool (:class:`LocalExecutor`, ``spawn``
processes, BLAS limited to one thread each) or on an existing
``dask.distributed`` cluster (:class:`DaskExecutor`, ``pip install
'posproof[distributed]'``).

>>> grid = parse_grid('''
... metrics = ["first_negative", "pairs_covered"]
... length = [64, 128]
... [[family]]
... kind = "rope"
... dim = 8
... base = [100, 10000]
... ''')
>>> grid.size, grid.points[0].spec, grid.points[0].params["length"]
(4, 'rope:base=100,dim=8', 64)
>>> record = evaluate_point(grid.points[2])
>>> record["status"], record["metrics"]
('ok', {'first_negative': None, 'pairs_covered': 2})
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import math
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path
from typing import Any

from .errors import InvalidParameter, PosproofError, UnknownName

__all__ = [
    "DEFAULT_TIMEOUT",
    "HARD_MAX_POINTS",
    "MAX_POINTS",
    "METRICS",
    "DaskExecutor",
    "Grid",
    "Heatmap",
    "InlineExecutor",
    "LocalExecutor",
    "Point",
    "ResultFile",
    "SchedulerUnreachable",
    "Sweep",
    "WorkerLost",
    "canonical",
    "evaluate_point",
    "heatmap",
    "load_grid",
    "parse_grid",
    "plot_heatmap",
    "run_sweep",
]

#: Points a grid may have without ``confirm=True`` (``--yes``).
MAX_POINTS = 10_000
#: Points no grid may have (the grid is enumerated in memory).
HARD_MAX_POINTS = 1_000_000
#: Values one range may produce.
MAX_RANGE_VALUES = 100_000
#: Seconds to wait for a Dask scheduler to answer.
DEFAULT_TIMEOUT = 5.0
#: Environment given to local worker processes (unless already set): one BLAS thread each,
#: so that N workers use N cores instead of fighting over them.
WORKER_ENV = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
              "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")

_DTYPES = ("float32", "float16", "bfloat16")
_SWEEP_KEYS = ("length", "train_length")
_INT_KEYS = ("dim", "rotary_dim", "seq_len", "original_max_position_embeddings", "offset",
             "padding_idx", "start_index", "length", "train_length")
_ROPE_COMMON = ("base", "dim", "rotary_dim", "partial_rotary_factor", "layout", "scaling")
_KIND_ALIASES = {"rotary": "rope", "sin": "vaswani", "sinusoidal": "vaswani",
                 "original": "vaswani", "transformer": "vaswani", "pytorch": "vaswani",
                 "t2t": "tensor2tensor", "binary-dials": "binary", "timestep": "diffusion"}
_UNSUPPORTED_KINDS = {"explicit": "its frequency list cannot be written in a spec",
                      "expression": "its expression cannot be swept safely in a spec; use "
                                    "kind = \"rope\" or a preset"}


# =========================================================================== metrics
@dataclass(frozen=True)
class Metric:
    """One number a sweep can record: where it comes from and what it means.

    ``source`` is ``explore`` (the numbers of :func:`posproof.explore.explore`),
    ``dtype:NAME`` (its dtype audit), ``proofs``, ``base_bound``, or
    ``check:NAME`` (a check of :func:`posproof.checks.run_checks`).

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
         lambda n: n["bands"]["count"]),
        ("pairs", "explore", "bands", "number of frequency pairs", lambda n: n["bands"]["pairs"]),
        ("critical_dimension", "explore", "critical_dimension",
         "Liu et al.'s d_extra for T = train_length (default L); null without a base",
         lambda n: n.get("critical_dimension", {}).get("d_extra")),
        ("attention_factor", "explore", "",
         "attention (temperature) factor of the scaling rule, 10 digits",
         lambda n: n.get("attention_factor_float")),
    ]
    for dt in _DTYPES:
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
         "smallest good base for (L, rotated dim), geometric rule (Men et al.; ~0.1–1 s a point)",
         lambda b: b["bound"]),
        ("base_ok", "base_bound", "base_bound", "'yes' when the point's base ≥ base_bound",
         lambda b: b["base_ok"]),
        ("base_all_good_above", "base_bound", "base_bound",
         "every scanned base above this is good (null when the good set is an interval)",
         lambda b: b["all_good_above"]),
        ("base_good_set_is_interval", "base_bound", "base_bound",
         "whether the good bases form one interval on the scan grid",
         lambda b: b["interval"]),
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
        ("kernel_first_negative", "check:decay", "decay",
         "first Δ < L with f(Δ) < 0 (check decay; text when none)",
         lambda c: c.get("first_negative")),
        ("kernel_first_increase", "check:decay", "decay",
         "first Δ < L where f(Δ) rises (check decay)", lambda c: c.get("first_increase")),
    ]
    for dt in _DTYPES:
        rows.append((f"{dt}_phase_exceeds_from", f"check:dtype_audit:{dt}", "dtype_audit",
                     f"first position whose phase error in {dt} exceeds 0.01 rad (check)",
                     lambda c, dt=dt: _phase_from(c.get(dt, {}))))
    from .checks import CHECKS

    for name in CHECKS:
        rows.append((f"{name}_status", f"check:{name}", name, f"'pass' or 'fail' of check {name}",
                     lambda c: c["status"]))
    return {name: Metric(name, source, section, text, get)
            for name, source, section, text, get in rows}


METRICS: dict[str, Metric] = _metric_table()


def _check_metrics(names: Any, where: str) -> tuple[str, ...]:
    if isinstance(names, str):
        names = [names]
    if not isinstance(names, list) or not names:
        raise InvalidParameter(f"{where}: metrics must be a non-empty list of names, e.g. "
                               'metrics = ["first_negative", "decay_at_length"]')
    out: list[str] = []
    for name in names:
        if not isinstance(name, str) or name not in METRICS:
            raise UnknownName(f"{where}: metric {name!r} is not known; use any of "
                              f"{', '.join(METRICS)} (posproof sweep --list-metrics)")
        if name not in out:
            out.append(name)
    return tuple(out)


# =========================================================================== grid
@dataclass(frozen=True)
class Point:
    """One point of a grid: its parameters, the spec ``posproof explore`` reads, its key.

    ``params`` holds ``kind`` (or ``spec``), the encoding parameters and
    ``length`` (and ``train_length`` when given), JSON values only.

    >>> p = Point.make(0, 0, {"kind": "rope", "base": 10000, "dim": 8, "length": 64},
    ...                ("pairs",), 0)
    >>> p.spec, len(p.key)
    ('rope:base=10000,dim=8', 16)
    """

    index: int
    family: int
    key: str
    params: dict[str, Any]
    spec: str
    metrics: tuple[str, ...]
    seed: int = 0

    @classmethod
    def make(cls, index: int, family: int, params: Mapping[str, Any],
             metrics: Sequence[str], seed: int = 0) -> Point:
        params = dict(sorted(params.items()))
        ident = json.dumps({"params": params, "metrics": sorted(metrics), "seed": seed},
                           sort_keys=True, ensure_ascii=False)
        key = hashlib.sha256(ident.encode()).hexdigest()[:16]
        return cls(index, family, key, params, _spec_of(params), tuple(metrics), seed)

    @property
    def length(self) -> int:
        return int(self.params["length"])


def _value_text(value: Any) -> str:
    """A parameter value as the spec language writes it.

    >>> _value_text(True), _value_text(0.25), _value_text(10000)
    ('true', '0.25', '10000')
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _spec_of(params: Mapping[str, Any]) -> str:
    if "spec" in params:
        return str(params["spec"])
    body = ",".join(f"{k}={_value_text(v)}" for k, v in params.items()
                    if k not in ("kind", *_SWEEP_KEYS))
    return f"{params['kind']}:{body}"


@dataclass
class Grid:
    """A parsed grid: its points (in a fixed order) and the metrics they compute.

    >>> g = parse_grid('metrics = ["pairs"]\\n[[family]]\\nkind = "vaswani"\\ndim = [8, 16]\\n'
    ...                'length = 32')
    >>> [p.spec for p in g.points], g.varying
    (['vaswani:dim=8', 'vaswani:dim=16'], ['dim'])
    """

    source: str
    metrics: tuple[str, ...]
    seed: int
    points: list[Point]
    families: list[dict[str, list[Any]]]

    @property
    def size(self) -> int:
        return len(self.points)

    @property
    def keys(self) -> set[str]:
        return {p.key for p in self.points}

    @property
    def varying(self) -> list[str]:
        """Parameters that take more than one value over the grid."""
        seen: dict[str, set[str]] = {}
        for p in self.points:
            for k, v in p.params.items():
                seen.setdefault(k, set()).add(json.dumps(v))
        return [k for k, vals in seen.items() if len(vals) > 1]


def load_grid(path: str | os.PathLike[str], *, confirm: bool = False) -> Grid:
    """Read and validate a grid file (TOML); see :func:`parse_grid`.

    >>> load_grid("missing.toml")
    Traceback (most recent call last):
    ...
    posproof.errors.InvalidParameter: grid file 'missing.toml' cannot be read (No such file or directory); pass the path of a TOML grid file
    """  # noqa: E501
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise InvalidParameter(f"grid file {str(path)!r} cannot be read ({exc.strerror}); "
                               "pass the path of a TOML grid file") from None
    except UnicodeDecodeError:
        raise InvalidParameter(f"grid file {str(path)!r} is not UTF-8 text; pass a TOML "
                               "grid file") from None
    return parse_grid(text, source=str(path), confirm=confirm)


def _toml(text: str, source: str) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InvalidParameter(f"{source}: not valid TOML ({exc}); see docs/sweep.md for the "
                               "grid format") from None


def parse_grid(text: str, *, source: str = "<grid>", confirm: bool = False) -> Grid:
    """Parse a grid (TOML text): validate keys, ranges and metrics, enumerate the points.

    Grids larger than :data:`MAX_POINTS` are refused unless ``confirm`` is true.

    >>> parse_grid('metrics = ["pairs"]\\n[[family]]\\nkind = "rope"\\nbse = 10\\nlength = 8')
    Traceback (most recent call last):
    ...
    posproof.errors.InvalidParameter: <grid> [[family]] 1: unknown key 'bse' for kind 'rope'; it takes base, dim, rotary_dim, partial_rotary_factor, layout, scaling, length, train_length (and the keys of its scaling rule)
    """  # noqa: E501
    data = _toml(text, source)
    allowed_top = ("metrics", "length", "train_length", "seed", "family", "name", "description")
    for key in data:
        if key not in allowed_top:
            raise InvalidParameter(f"{source}: unknown top-level key {key!r}; a grid takes "
                                   f"{', '.join(allowed_top)} (families under [[family]])")
    if "metrics" not in data:
        raise InvalidParameter(f"{source}: no metrics; add e.g. metrics = [\"first_negative\"] "
                               "(posproof sweep --list-metrics lists them)")
    metrics = _check_metrics(data["metrics"], source)
    seed = data.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise InvalidParameter(f"{source}: seed={seed!r} must be an integer ≥ 0")
    families = data.get("family")
    if not isinstance(families, list) or not families or not all(
            isinstance(f, dict) for f in families):
        raise InvalidParameter(f"{source}: no [[family]] tables; add at least one, e.g. "
                               '[[family]] with kind = "rope" and base = [10000, 500000]')
    defaults = {k: data[k] for k in _SWEEP_KEYS if k in data}
    axes_per_family: list[dict[str, list[Any]]] = []
    size = 0
    for i, fam in enumerate(families, start=1):
        where = f"{source} [[family]] {i}"
        axes = _family_axes(fam, defaults, where)
        axes_per_family.append(axes)
        size += math.prod(len(v) for v in axes.values())
    if size > HARD_MAX_POINTS:
        raise InvalidParameter(f"{source}: the grid has {size} points; at most "
                               f"{HARD_MAX_POINTS} are accepted; split it into several grids")
    if size > MAX_POINTS and not confirm:
        raise InvalidParameter(f"{source}: the grid has {size} points, more than the limit of "
                               f"{MAX_POINTS}; pass --yes (confirm=True) to run it")
    points: list[Point] = []
    seen: dict[str, int] = {}
    for fam_index, axes in enumerate(axes_per_family):
        names = list(axes)
        for combo in itertools.product(*(axes[n] for n in names)):
            point = Point.make(len(points), fam_index, dict(zip(names, combo, strict=True)),
                               metrics, seed)
            if point.key in seen:
                raise InvalidParameter(f"{source}: the point {point.spec} (length "
                                       f"{point.length}) appears twice (points {seen[point.key]}"
                                       f" and {point.index}); remove the overlap")
            seen[point.key] = point.index
            points.append(point)
    return Grid(source, metrics, seed, points, axes_per_family)


def _family_axes(fam: dict[str, Any], defaults: dict[str, Any], where: str
                 ) -> dict[str, list[Any]]:
    """The swept values of each parameter of one family (``kind`` or ``spec`` first)."""
    from .configs import _SPEC_ALIASES

    if ("kind" in fam) == ("spec" in fam):
        raise InvalidParameter(f"{where}: give exactly one of kind = \"rope\" (or a preset "
                               "name) and spec = \"rope:base=10000,dim=128\"")
    axes: dict[str, list[Any]] = {}
    raw: dict[str, Any] = {}
    for key, value in fam.items():
        canon = key if key in ("kind", "spec") else _SPEC_ALIASES.get(key.lower(), key.lower())
        if canon in raw:
            raise InvalidParameter(f"{where}: {canon} is given twice (as {key!r})")
        raw[canon] = value
    for key, value in defaults.items():
        raw.setdefault(key, value)
    if "length" not in raw:
        raise InvalidParameter(f"{where}: no length; set length = [4096, 32768] at the top "
                               "or in the family (the context length L of every point)")
    if "spec" in raw:
        axes["spec"] = _values("spec", raw.pop("spec"), where)
        for spec in axes["spec"]:
            _check_spec(spec, where)
        extra = [k for k in raw if k not in _SWEEP_KEYS]
        if extra:
            raise InvalidParameter(f"{where}: with spec = … only {', '.join(_SWEEP_KEYS)} may "
                                   f"be set; got {', '.join(extra)} (write them in the spec)")
    else:
        kinds = _values("kind", raw.pop("kind"), where)
        if len(kinds) != 1 or not isinstance(kinds[0], str):
            raise InvalidParameter(f"{where}: kind must be one name, e.g. \"rope\"; sweep "
                                   "several kinds with several [[family]] tables")
        kind = _kind(kinds[0], where)
        axes["kind"] = [kind]
        values = {key: _values(key, value, where) for key, value in raw.items()}
        _check_keys(kind, values, where)
        axes.update((k, v) for k, v in values.items() if k not in _SWEEP_KEYS)
        raw = {k: v for k, v in raw.items() if k in _SWEEP_KEYS}
    for key in _SWEEP_KEYS:
        if key in raw:
            vals = _values(key, raw[key], where)
            from .explore import MAX_LENGTH

            for v in vals:
                if not 1 <= v <= MAX_LENGTH:
                    raise InvalidParameter(f"{where}: {key}={v} is out of range; it must be in "
                                           f"1 … {MAX_LENGTH}")
            axes[key] = vals
    return axes


def _kind(name: str, where: str) -> str:
    from .presets import PRESETS

    kind = _KIND_ALIASES.get(name.lower(), name.lower())
    if kind in _UNSUPPORTED_KINDS:
        raise InvalidParameter(f"{where}: kind {name!r} is not supported in sweeps "
                               f"({_UNSUPPORTED_KINDS[kind]})")
    if kind != "rope" and kind not in PRESETS:
        raise UnknownName(f"{where}: kind {name!r} is not known; use rope or a preset ("
                          + ", ".join(sorted(set(PRESETS) - set(_UNSUPPORTED_KINDS))) + ")")
    return kind


def _check_keys(kind: str, values: dict[str, list[Any]], where: str) -> None:
    """Refuse keys the family's kind (and each of its scaling rules) does not take."""
    if kind != "rope":
        from .presets import PRESETS, _parameters

        allowed = ["dim", *(p for p in _parameters(PRESETS[kind]) if p != "name"), *_SWEEP_KEYS]
        for key in values:
            if key not in allowed:
                raise InvalidParameter(f"{where}: unknown key {key!r} for kind {kind!r}; it "
                                       f"takes {', '.join(allowed)}")
        return
    from .scaling import _ALIASES, SCALINGS

    rules = []
    for rule in values.get("scaling", [None]):
        name = "default" if rule is None else _ALIASES.get(str(rule).lower(), str(rule).lower())
        if name not in SCALINGS:
            raise UnknownName(f"{where}: scaling={rule!r} is not known; use one of "
                              f"{', '.join(SCALINGS)}")
        rules.append(name)
    for key in values:
        if key in (*_ROPE_COMMON, *_SWEEP_KEYS):
            continue
        takers = [r for r in SCALINGS if key in getattr(SCALINGS[r], "__dataclass_fields__", ())
                  and key != "base"]
        if not takers:
            raise InvalidParameter(f"{where}: unknown key {key!r} for kind 'rope'; it takes "
                                   f"{', '.join((*_ROPE_COMMON, *_SWEEP_KEYS))} (and the keys "
                                   "of its scaling rule)")
        missing = [r for r in rules if r not in takers]
        if missing:
            raise InvalidParameter(f"{where}: {key} does not apply to scaling="
                                   f"{missing[0]!r} (only {', '.join(takers)}); put each "
                                   "scaling rule in its own [[family]]")


def _check_spec(spec: Any, where: str) -> None:
    from .configs import parse_spec

    if not isinstance(spec, str):
        raise InvalidParameter(f"{where}: spec={spec!r} must be a string such as "
                               "\"rope:base=10000,dim=128\"")
    kind = spec.partition(":")[0].strip().lower()
    if "config=" in spec.replace(" ", "") or spec.strip().lower().endswith(".json") or \
            not spec.partition(":")[1]:
        raise InvalidParameter(f"{where}: spec {spec!r}: config files are not supported in "
                               "sweeps (workers may not see them); write the parameters "
                               "(posproof explain CONFIG shows them)")
    if _KIND_ALIASES.get(kind, kind) in _UNSUPPORTED_KINDS:
        _kind(kind, where)
    try:
        parse_spec(spec)
    except PosproofError as exc:
        raise type(exc)(f"{where}: {exc}") from None


def _values(key: str, value: Any, where: str) -> list[Any]:
    """The values a TOML entry stands for: a scalar, a list, or a range table."""
    if isinstance(value, dict):
        vals = _range(key, value, where)
    elif isinstance(value, list):
        if not value:
            raise InvalidParameter(f"{where}: {key} = [] is an empty range; give at least one "
                                   "value")
        vals = [_scalar(key, v, where) for v in value]
    else:
        vals = [_scalar(key, value, where)]
    if key in _INT_KEYS:
        for v in vals:
            if isinstance(v, bool) or not isinstance(v, int):
                raise InvalidParameter(f"{where}: {key}={v!r} is not an integer; {key} takes "
                                       "whole numbers")
    seen: set[str] = set()
    for v in vals:
        text = json.dumps(v)
        if text in seen:
            raise InvalidParameter(f"{where}: {key} lists {_value_text(v)} twice; each value "
                                   "once")
        seen.add(text)
    return vals


def _scalar(key: str, value: Any, where: str) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidParameter(f"{where}: {key}={value!r} is not a finite number")
        return int(value) if value.is_integer() and abs(value) < 2 ** 53 else value
    if isinstance(value, str):
        bad = [c for c in ",=" if c in value]
        if key not in ("spec", "kind") and (bad or (";" in value and key not in (
                "short_factor", "long_factor"))):
            raise InvalidParameter(f"{where}: {key}={value!r} contains "
                                   f"{(bad or [';'])[0]!r}, which the spec language reserves")
        if not value.strip():
            raise InvalidParameter(f"{where}: {key} is an empty string")
        return value
    kind = "a list inside a list" if isinstance(value, list) else type(value).__name__
    raise InvalidParameter(f"{where}: {key} holds {kind} ({value!r}); use numbers, strings, "
                           "true/false, a list of them or a range table")


def _range(key: str, spec: dict[str, Any], where: str) -> list[Any]:
    """``{start, stop, step}``, ``{start, stop, num[, scale="log"]}`` or ``{start, stop, factor}``.

    ``stop`` is included when the progression reaches it.

    >>> _range("length", {"start": 1024, "stop": 8192, "factor": 2}, "g")
    [1024, 2048, 4096, 8192]
    >>> _range("base", {"start": 100, "stop": 10000, "num": 3, "scale": "log"}, "g")
    [100, 1000, 10000]
    >>> _range("dim", {"start": 8, "stop": 4, "step": 2}, "g")
    Traceback (most recent call last):
    ...
    posproof.errors.InvalidParameter: g: dim = {start = 8, stop = 4, step = 2} is an empty range (stop < start)
    """  # noqa: E501
    text = "{" + ", ".join(f"{k} = {v!r}" for k, v in spec.items()) + "}"
    known = ("start", "stop", "step", "num", "scale", "factor")
    for k in spec:
        if k not in known:
            raise InvalidParameter(f"{where}: {key} = {text}: unknown range key {k!r}; a range "
                                   "takes start, stop and one of step, num (with scale = "
                                   "\"linear\" or \"log\") or factor")
    kinds = [k for k in ("step", "num", "factor") if k in spec]
    if "start" not in spec or "stop" not in spec or len(kinds) != 1:
        raise InvalidParameter(f"{where}: {key} = {text}: a range needs start, stop and exactly "
                               "one of step, num, factor")
    numbers = {k: spec[k] for k in ("start", "stop", *kinds)}
    for k, v in numbers.items():
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise InvalidParameter(f"{where}: {key} = {text}: {k}={v!r} is not a finite number")
    start, stop = numbers["start"], numbers["stop"]
    scale = spec.get("scale", "linear")
    if scale not in ("linear", "log") or (scale == "log" and kinds[0] != "num"):
        raise InvalidParameter(f"{where}: {key} = {text}: scale must be \"linear\" or \"log\" "
                               "(log goes with num)")
    if stop < start:
        raise InvalidParameter(f"{where}: {key} = {text} is an empty range (stop < start)")
    integer = key in _INT_KEYS
    vals: list[Any]
    if kinds[0] == "step":
        step = numbers["step"]
        if step <= 0:
            raise InvalidParameter(f"{where}: {key} = {text}: step must be > 0")
        count = math.floor((stop - start) / step * (1 + 1e-12) + 1e-9) + 1
        _count(key, count, text, where)
        vals = [start + i * step for i in range(count)]
    elif kinds[0] == "num":
        num = numbers["num"]
        if not isinstance(num, int) or num < 1:
            raise InvalidParameter(f"{where}: {key} = {text}: num must be a whole number ≥ 1")
        _count(key, num, text, where)
        if scale == "log" and start <= 0:
            raise InvalidParameter(f"{where}: {key} = {text}: a log range needs start > 0")
        if num == 1:
            vals = [start]
        elif scale == "log":
            ratio = math.log(stop / start) / (num - 1)
            vals = [start * math.exp(ratio * i) for i in range(num)]
            vals[-1] = stop
        else:
            vals = [start + (stop - start) * i / (num - 1) for i in range(num)]
    else:
        factor = numbers["factor"]
        if factor <= 1 or start <= 0:
            raise InvalidParameter(f"{where}: {key} = {text}: factor must be > 1 and start > 0")
        count = math.floor(math.log(stop / start) / math.log(factor) + 1e-9) + 1
        _count(key, count, text, where)
        vals = [start * factor ** i for i in range(count)]
    out = []
    for v in vals:
        if integer:
            out.append(round(v))
        else:
            v = float(f"{v:.12g}")
            out.append(int(v) if v.is_integer() and abs(v) < 2 ** 53 else v)
    if len({json.dumps(v) for v in out}) != len(out):
        raise InvalidParameter(f"{where}: {key} = {text} gives repeated values once rounded "
                               f"({', '.join(map(str, out[:8]))}…); use fewer values")
    return out


def _count(key: str, count: int, text: str, where: str) -> None:
    if count > MAX_RANGE_VALUES:
        raise InvalidParameter(f"{where}: {key} = {text} gives {count} values; at most "
                               f"{MAX_RANGE_VALUES} per range")


# =========================================================================== one point
def _encoding(point: Point) -> Any:
    """The Rotary or Encoding of a point, exactly as ``posproof explore SPEC --length L``."""
    from .configs import parse_spec

    return parse_spec(point.spec, seq_len=point.length)


@lru_cache(maxsize=32)
def _base_bound(length: int, dim: int) -> Any:
    """explore's geometric base bound for (L, rotated dim), once per worker process."""
    from .explore import base_bound

    return base_bound(length, dim)


def _compute(point: Point) -> tuple[dict[str, Any], dict[str, str], list[str]]:
    """The point's metrics, how each was certified, and notes (metrics that do not apply)."""
    from .explore import _short, _subject, explore

    obj = _encoding(point)
    length = point.length
    wanted = [METRICS[m] for m in point.metrics]
    sources = {m.source for m in wanted}
    values: dict[str, Any] = {}
    certified: dict[str, str] = {}
    notes: list[str] = []
    if any(s in ("explore", "proofs", "base_bound") or s.startswith("dtype:") for s in sources):
        dtypes = [dt for dt in _DTYPES if f"dtype:{dt}" in sources]
        ex = explore([obj], length, proofs="proofs" in sources, base_bounds=False,
                     dtypes=dtypes, train_length=point.params.get("train_length"),
                     seed=point.seed)
        numbers = ex.to_dict()["encodings"][0]["numbers"]
        for m in wanted:
            if m.source == "explore" or m.source.startswith("dtype:"):
                values[m.name] = m.get(numbers)
                section = numbers
                for part in m.section.split(".") if m.section else ():
                    section = section.get(part, {})
                if isinstance(section, dict) and "certified" in section:
                    certified[m.name] = section["certified"]
                elif m.name == "attention_factor":
                    certified[m.name] = ("exact expression of the scaling rule, 20-digit mpmath"
                                         if values[m.name] is not None else "")
                if values[m.name] is None and m.section and m.section not in numbers and \
                        not m.section.startswith("dtypes"):
                    notes.append(f"{m.name}: not applicable (the schedule has no base)")
            elif m.source == "proofs":
                from .rope import EXPECTED_REFUTATIONS, exit_status

                report = ex.reports[0]
                summary = {"ok": exit_status(report) == 0,
                           "not_proved": [f"{p.name}: {p.status}" for p in report.theorems
                                          if p.status != "proved" and not (
                                              p.name in EXPECTED_REFUTATIONS
                                              and p.status == "refuted")]}
                values[m.name] = m.get(summary)
                certified[m.name] = ("proof engine (SymPy), each proof cross-checked in mpmath; "
                                     "refutations confirmed in mpmath")
        if "base_bound" in sources:
            subject = _subject(obj)
            entry: dict[str, Any] = {"bound": None, "base_ok": None, "all_good_above": None,
                                     "interval": None}
            cert = ""
            if subject.base is None:
                notes.append("base_bound: not applicable (the schedule has no base)")
            else:   # as explore(base_bounds=True) does, for this one encoding
                bb = _base_bound(length, subject.dim)
                cert = bb.to_dict()["certified"]
                if bb.bound is not None:
                    entry["bound"] = _short(bb.bound)
                    entry["base_ok"] = "yes" if bool(subject.base >= bb.bound) else "no"
                    if not bb.interval and bb.threshold.upper is not None:
                        entry["all_good_above"] = _short(bb.threshold.upper)
                entry["interval"] = bb.interval
                notes.extend(f"base_bound: {n}" for n in bb.notes if "resolution" not in n)
            for m in wanted:
                if m.source == "base_bound":
                    values[m.name] = m.get(entry)
                    certified[m.name] = cert
    checks = sorted({m.source.split(":")[1] for m in wanted if m.source.startswith("check:")})
    if checks:
        from .checks import run_checks
        from .rope import Rotary

        enc = obj.encoding() if isinstance(obj, Rotary) else obj
        audit = [dt for dt in _DTYPES if f"check:dtype_audit:{dt}" in sources]
        results = {c.name: c for c in run_checks(enc, max_len=length, checks=checks,
                                                  seed=point.seed, dtypes=audit or None)}
        for m in wanted:
            if m.source.startswith("check:"):
                check = results[m.source.split(":")[1]]
                values[m.name] = m.get({**check.values, "status": check.status})
                certified[m.name] = check.certified
                if check.note:
                    notes.append(f"{m.name}: {check.note}")
    ordered = {m.name: _jsonable(values.get(m.name)) for m in wanted}
    return ordered, {k: certified.get(k, "") for k in ordered}, list(dict.fromkeys(notes))


def _jsonable(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if hasattr(value, "item"):            # numpy scalars
        return _jsonable(value.item())
    return str(value)


#: mpmath's working precision belongs to the process (``workdps`` sets it for the block), so
#: points computed by several threads of one process (a Dask worker with nthreads > 1) could
#: change each other's precision: one point at a time per process.
_ONE_POINT_AT_A_TIME = threading.Lock()


def evaluate_point(point: Point) -> dict[str, Any]:
    """Compute one point; always returns its record (errors are recorded, not raised).

    The record holds ``key``, ``index``, ``family``, ``params``, ``spec``,
    ``status`` (``ok`` | ``error``), ``metrics``, ``certified``, ``notes``,
    ``error`` (``{"type", "message"}`` or null), ``posproof`` (the version) and
    ``timing`` (``seconds``, ``host``, ``pid``, ``finished``: the only fields
    that change from run to run).

    >>> bad = Point.make(0, 0, {"kind": "rope", "dim": 7, "length": 8}, ("pairs",))
    >>> r = evaluate_point(bad)
    >>> r["status"], r["error"]["type"]
    ('error', 'InvalidEncoding')
    """
    from . import __version__

    with _ONE_POINT_AT_A_TIME:
        start = time.perf_counter()
        record: dict[str, Any] = {"key": point.key, "index": point.index,
                                  "family": point.family, "params": point.params,
                                  "spec": point.spec, "posproof": __version__}
        return _evaluate(point, record, start)


def _evaluate(point: Point, record: dict[str, Any], start: float) -> dict[str, Any]:
    try:
        metrics, certified, notes = _compute(point)
        record.update(status="ok", metrics=metrics, certified=certified, notes=notes, error=None)
    except Exception as exc:  # a failing point is a result: recorded, the sweep goes on
        record.update(status="error", metrics={}, certified={}, notes=[],
                      error={"type": type(exc).__name__, "message": str(exc)})
    record["timing"] = {"seconds": round(time.perf_counter() - start, 4),
                        "host": socket.gethostname(), "pid": os.getpid(),
                        "finished": datetime.now(timezone.utc).isoformat(timespec="seconds")}
    return record


def canonical(record: Mapping[str, Any]) -> str:
    """A record as sorted JSON without its ``timing``: equal for equal results.

    >>> canonical({"key": "k", "timing": {"seconds": 1.5}, "metrics": {"pairs": 4}})
    '{"key": "k", "metrics": {"pairs": 4}}'
    """
    return json.dumps({k: v for k, v in record.items() if k != "timing"}, sort_keys=True,
                      ensure_ascii=False)


# =========================================================================== results file
class ResultFile:
    """An append-only JSON Lines file of records, one line per point.

    Lines are written whole by one ``write`` and made durable with ``fsync``;
    a last line cut short (the process was killed mid-write) is detected by
    :meth:`read` and, with ``repair=True``, removed before anything is appended.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     results = ResultFile(os.path.join(tmp, "r.jsonl"))
    ...     with results:
    ...         results.append({"key": "a", "metrics": {}})
    ...     with open(results.path, "a") as f:
    ...         _ = f.write('{"key": "b", "met')          # a write cut short
    ...     records, dropped = results.read(repair=True)
    ...     lines = results.path.read_text().count("\\n")
    >>> [r["key"] for r in records], dropped, lines
    (['a'], 17, 1)
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._fd: int | None = None

    def exists(self) -> bool:
        return self.path.exists() and self.path.stat().st_size > 0

    def read(self, *, repair: bool = False) -> tuple[list[dict[str, Any]], int]:
        """The complete records, and the bytes of a partial last line (removed if ``repair``)."""
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return [], 0
        except OSError as exc:
            raise InvalidParameter(f"results file {str(self.path)!r} cannot be read "
                                   f"({exc.strerror})") from None
        lines = data.split(b"\n")
        tail = lines.pop()                    # b"" when the file ends with a newline
        records = [self._parse(line, n) for n, line in enumerate(lines, start=1) if line.strip()]
        dropped = 0
        if tail:
            try:
                record = self._parse(tail, len(lines) + 1)
            except InvalidParameter:
                dropped = len(tail)
                if repair:
                    os.truncate(self.path, len(data) - len(tail))
            else:                             # complete but for its newline
                records.append(record)
                if repair:
                    with open(self.path, "ab") as f:
                        f.write(b"\n")
        return records, dropped

    def _parse(self, line: bytes, number: int) -> dict[str, Any]:
        try:
            record = json.loads(line)
        except (ValueError, UnicodeDecodeError):
            record = None
        if not isinstance(record, dict) or not isinstance(record.get("key"), str):
            raise InvalidParameter(f"{self.path}: line {number} is not a sweep record; this "
                                   "is not a posproof sweep results file (or it was edited): "
                                   "fix that line or pass another --out")
        return record

    def open(self) -> ResultFile:
        """Open for appending, with an exclusive lock (one sweep writes a file at a time)."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        except OSError as exc:
            raise InvalidParameter(f"results file {str(self.path)!r} cannot be written "
                                   f"({exc.strerror}); pass a writable --out") from None
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows: no advisory lock
            fcntl = None
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                raise InvalidParameter(f"results file {str(self.path)!r} is being written by "
                                       "another sweep; wait for it or pass another --out"
                                       ) from None
        self._fd = fd
        return self

    def append(self, record: Mapping[str, Any]) -> None:
        """Append one record as one line: a single write, then fsync."""
        if self._fd is None:
            raise InvalidParameter("the results file is not open; use it as a context manager")
        data = (json.dumps(record, sort_keys=True, ensure_ascii=False) + "\n").encode()
        view = memoryview(data)
        while view:
            written = os.write(self._fd, view)
            view = view[written:]
        os.fsync(self._fd)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> ResultFile:
        return self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()


# =========================================================================== executors
class WorkerLost(Exception):
    """A point whose worker died (or cluster failed): not recorded, so it runs on resume."""


class SchedulerUnreachable(InvalidParameter):
    """No Dask scheduler answered at the address given."""


def _init_worker() -> None:
    """Local worker processes ignore Ctrl-C: the driver stops them and keeps the records."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for name in WORKER_ENV:
        os.environ.setdefault(name, "1")


@contextlib.contextmanager
def _worker_environment() -> Iterator[None]:
    """While worker processes start: one BLAS thread each, and Ctrl-C ignored.

    Both are inherited: the environment variables, and SIGINT's "ignore"
    disposition (kept across exec, so a Ctrl-C that reaches the whole process
    group while a worker is still importing cannot print its traceback).  The
    driver's own environment and handler are restored at once.
    """
    added = [name for name in WORKER_ENV if name not in os.environ]
    for name in added:
        os.environ[name] = "1"
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
        for name in added:
            os.environ.pop(name, None)


class InlineExecutor:
    """Points computed one after the other in this process (``workers=0``: for debugging)."""

    name = "inline"
    workers = 0

    def map_unordered(self, fn: Callable[[Point], Any], items: Sequence[Point]
                      ) -> Iterator[tuple[Point, Any]]:
        for item in items:
            yield item, fn(item)

    def drain(self) -> list[tuple[Point, Any]]:
        return []

    def close(self) -> None:
        pass

    def __enter__(self) -> InlineExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class LocalExecutor:
    """A pool of ``workers`` local processes (``spawn``), one BLAS thread each.

    A worker that dies breaks the pool: the points it and its siblings were
    computing are resubmitted to a fresh pool (at most ``max_restarts`` times),
    never recorded twice.
    """

    name = "local"

    def __init__(self, workers: int | None = None, *, max_restarts: int = 3) -> None:
        from .errors import check_int

        self.workers = check_int("workers", workers if workers is not None else
                                 (os.cpu_count() or 1), minimum=1, maximum=1024)
        self.max_restarts = max_restarts
        self._pool: Any = None
        self._futures: dict[Any, Point] = {}
        self._yielded: set[str] = set()

    def map_unordered(self, fn: Callable[[Point], Any], items: Sequence[Point]
                      ) -> Iterator[tuple[Point, Any]]:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor, as_completed
        from concurrent.futures.process import BrokenProcessPool

        pending = list(items)
        restarts = 0
        while pending:
            with _worker_environment():
                pool = ProcessPoolExecutor(max_workers=min(self.workers, len(pending)),
                                           mp_context=multiprocessing.get_context("spawn"),
                                           initializer=_init_worker)
                self._pool = pool
                self._futures = {pool.submit(fn, item): item for item in pending}
            broken: list[Point] = []
            try:
                for future in as_completed(self._futures):
                    item = self._futures[future]
                    exc = future.exception()
                    if exc is None:
                        self._yielded.add(item.key)
                        yield item, future.result()
                    elif isinstance(exc, BrokenProcessPool):
                        broken.append(item)
                    else:
                        self._yielded.add(item.key)
                        yield item, WorkerLost(f"{type(exc).__name__}: {exc}")
            except BaseException:
                self._terminate(pool)
                raise
            pool.shutdown(wait=True)
            pending = sorted(broken, key=lambda p: p.index)
            if pending:
                restarts += 1
                if restarts > self.max_restarts:
                    for item in pending:
                        yield item, WorkerLost(f"worker processes died {restarts} times; "
                                               "the pool was not restarted again")
                    return

    def drain(self) -> list[tuple[Point, Any]]:
        """Results that finished but were not yet handed out (after an interrupt)."""
        out = []
        for future, item in list(self._futures.items()):
            if item.key not in self._yielded and future.done() and not future.cancelled() \
                    and future.exception() is None:
                out.append((item, future.result()))
        return out

    def _terminate(self, pool: Any) -> None:
        pool.shutdown(wait=False, cancel_futures=True)
        terminate = getattr(pool, "terminate_workers", None)      # Python ≥ 3.14
        if terminate is not None:
            terminate()
        else:  # the executor keeps its processes here; stop them instead of waiting
            for process in list((getattr(pool, "_processes", None) or {}).values()):
                with contextlib.suppress(Exception):
                    process.terminate()
        with contextlib.suppress(Exception):
            pool.shutdown(wait=True)

    def close(self) -> None:
        if self._pool is not None:
            self._terminate(self._pool)
            self._pool = None

    def __enter__(self) -> LocalExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _probe(address: str, timeout: float) -> None:
    """Open and close one Dask comm to ``address`` (raises if nothing Dask answers in time)."""
    import asyncio

    from distributed.comm import connect

    async def handshake() -> None:
        comm = await connect(address, timeout=timeout)
        await comm.close()

    asyncio.run(asyncio.wait_for(handshake(), timeout + 1))


class DaskExecutor:
    """Points submitted as tasks to an existing ``dask.distributed`` scheduler.

    The workers need posproof installed (the same version).  Each worker
    process computes one point at a time (mpmath's precision is per process),
    so start workers as processes: ``dask worker ADDRESS --nworkers N
    --nthreads 1``.  A worker that dies has its tasks rescheduled by Dask; a
    task that keeps killing workers comes back as :class:`WorkerLost` (not
    recorded).  Connecting waits at most ``timeout`` seconds; the client
    does not become the default Dask scheduler of the process.
    """

    name = "dask"

    def __init__(self, address: str, *, timeout: float = DEFAULT_TIMEOUT) -> None:
        try:
            from distributed import Client
        except ImportError:
            raise InvalidParameter("--scheduler needs dask.distributed, which is not installed; "
                                   "install it with pip install 'posproof[distributed]'"
                                   ) from None
        self.address = address
        try:
            # a bare handshake first: a bad or silent address fails here, within the timeout,
            # without leaving a half-built Client behind (its finaliser would wait to close)
            _probe(address, timeout)
            self.client = Client(address, timeout=f"{float(timeout)}s", set_as_default=False)
        except Exception as exc:
            if isinstance(exc, ValueError):
                what = "is not a scheduler address"
            elif isinstance(exc, (OSError, TimeoutError)):
                what = f"no Dask scheduler answered within {timeout:g} s"
            else:
                what = "what answered there does not speak Dask's protocol"
            raise SchedulerUnreachable(
                f"--scheduler {address!r}: {what} ({type(exc).__name__}: {str(exc)[:160]}); "
                "check the address (tcp://HOST:PORT) and that the scheduler is running"
                ) from None
        self._futures: dict[str, tuple[Any, Point]] = {}
        self._yielded: set[str] = set()

    @property
    def workers(self) -> int:
        return len(self.client.scheduler_info().get("workers", {}))

    def map_unordered(self, fn: Callable[[Point], Any], items: Sequence[Point]
                      ) -> Iterator[tuple[Point, Any]]:
        import uuid

        from distributed import as_completed

        items = list(items)
        if not items:
            return
        token = uuid.uuid4().hex[:8]
        futures = self.client.map(fn, items, key=[f"posproof-sweep-{token}-{p.key}"
                                                  for p in items])
        self._futures = {f.key: (f, p) for f, p in zip(futures, items, strict=True)}
        try:
            for future in as_completed(futures, loop=self.client.loop):
                _, item = self._futures[future.key]
                self._yielded.add(item.key)
                if future.status == "finished":
                    result = future.result()
                else:
                    exc = future.exception()
                    result = WorkerLost(f"{type(exc).__name__}: {exc}")
                future.release()
                yield item, result
        finally:
            left = [f for f, p in self._futures.values() if p.key not in self._yielded]
            if left:
                with contextlib.suppress(Exception):
                    self.client.cancel(left)

    def drain(self) -> list[tuple[Point, Any]]:
        out = []
        for future, item in self._futures.values():
            if item.key not in self._yielded and future.status == "finished":
                with contextlib.suppress(Exception):
                    out.append((item, future.result(timeout=DEFAULT_TIMEOUT)))
        return out

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.client.close()

    def __enter__(self) -> DaskExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# =========================================================================== driver
Progress = Callable[[int, int, "float | None"], None]


@dataclass
class Summary:
    """What a sweep did (updated while it runs, so it is right after an interrupt too)."""

    points: int
    recorded_before: int
    todo: int
    computed: int = 0
    errors: int = 0
    lost: int = 0
    stale: int = 0
    repaired_bytes: int = 0
    seconds: float = 0.0
    executor: str = ""
    workers: int = 0
    results: str = ""
    lost_reasons: list[str] = field(default_factory=list)
    interrupted: bool = False

    @property
    def complete(self) -> bool:
        return self.recorded_before + self.computed == self.points

    def to_dict(self) -> dict[str, Any]:
        return {"points": self.points, "recorded_before": self.recorded_before,
                "todo": self.todo, "computed": self.computed, "errors": self.errors,
                "not_computed": self.lost, "stale_records": self.stale,
                "repaired_bytes": self.repaired_bytes, "seconds": round(self.seconds, 3),
                "executor": self.executor, "workers": self.workers, "results": self.results,
                "complete": self.complete, "interrupted": self.interrupted,
                "lost_reasons": self.lost_reasons[:5]}


class Sweep:
    """A grid bound to its results file: what is recorded, what is left; :meth:`run` runs it.

    >>> import tempfile
    >>> grid = parse_grid('metrics = ["pairs"]\\nlength = 16\\n[[family]]\\nkind = "rope"\\n'
    ...                   'dim = [4, 8]')
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     out = os.path.join(tmp, "r.jsonl")
    ...     first = Sweep(grid, out).run(InlineExecutor())
    ...     again = Sweep(grid, out, resume=True).run(InlineExecutor())
    ...     lines = Path(out).read_text().count("\\n")
    >>> (first.computed, again.recorded_before, again.computed, lines)
    (2, 2, 0, 2)
    """

    def __init__(self, grid: Grid, out: str | os.PathLike[str], *, resume: bool = False
                 ) -> None:
        self.grid = grid
        self.results = ResultFile(out)
        if self.results.exists() and not resume:
            raise InvalidParameter(f"results file {str(out)!r} exists; pass --resume "
                                   "(resume=True) to continue it, or another --out")
        self.summary = Summary(grid.size, 0, 0, results=str(out))
        self._load(*self.results.read(repair=False))

    def _load(self, records: list[dict[str, Any]], dropped: int) -> None:
        keys = self.grid.keys
        self.recorded = {r["key"] for r in records if r["key"] in keys}
        self.todo = [p for p in self.grid.points if p.key not in self.recorded]
        self.summary.recorded_before, self.summary.todo = len(self.recorded), len(self.todo)
        self.summary.stale = len({r["key"] for r in records} - keys)
        self.summary.repaired_bytes = dropped

    def run(self, executor: Any, progress: Progress | None = None) -> Summary:
        """Compute the points not recorded yet; stream each record to the results file.

        ``progress(done, total, seconds_left)`` is called after each record
        (``seconds_left`` is ``None`` until a point has finished).  On
        ``KeyboardInterrupt`` the results that finished are written, the
        workers are stopped, and the interrupt is raised again.
        """
        summary = self.summary
        summary.executor, summary.workers = executor.name, executor.workers
        start = time.perf_counter()
        written: set[str] = set()

        def record(point: Point, result: Any) -> None:
            if isinstance(result, WorkerLost):
                summary.lost += 1
                summary.lost_reasons.append(f"{point.spec} (L={point.length}): {result}")
                return
            if result["key"] in written:          # never twice (drain after an interrupt)
                return
            self.results.append(result)
            written.add(result["key"])
            summary.computed += 1
            summary.errors += result["status"] != "ok"

        with self.results:                 # locked: the file cannot change under us now
            self._load(*self.results.read(repair=True))
            total = len(self.todo)
            results = executor.map_unordered(evaluate_point, self.todo)
            try:
                for point, result in results:
                    record(point, result)
                    done = summary.computed + summary.lost
                    elapsed = time.perf_counter() - start
                    left = elapsed / done * (total - done) if done else None
                    summary.seconds = elapsed
                    if progress is not None:
                        progress(done, total, left)
            except KeyboardInterrupt:
                summary.interrupted = True
                for point, result in executor.drain():
                    record(point, result)
                raise
            finally:
                summary.seconds = time.perf_counter() - start
                results.close()               # stops the workers when interrupted
                executor.close()
        return summary


def run_sweep(grid: Grid | str | os.PathLike[str], out: str | os.PathLike[str] | None = None,
              *, resume: bool = False, workers: int | None = None, scheduler: str | None = None,
              timeout: float = DEFAULT_TIMEOUT, confirm: bool = False,
              progress: Progress | None = None) -> Summary:
    """Run a grid (a :class:`Grid` or a path) to ``out`` (default: the grid's path, ``.jsonl``).

    ``workers=0`` computes in this process; ``scheduler`` submits to a Dask
    cluster instead of the local pool.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "g.toml")
    ...     _ = Path(path).write_text('metrics = ["pairs"]\\nlength = 8\\n[[family]]\\n'
    ...                               'kind = "vaswani"\\ndim = [4, 6]\\n')
    ...     s = run_sweep(path, workers=0)
    >>> s.complete, s.computed, os.path.basename(s.results)
    (True, 2, 'g.jsonl')
    """
    if not isinstance(grid, Grid):
        path = Path(grid)
        grid = load_grid(path, confirm=confirm)
        if out is None:
            out = path.with_suffix(".jsonl")
    elif grid.size > MAX_POINTS and not confirm:
        raise InvalidParameter(f"the grid has {grid.size} points, more than the limit of "
                               f"{MAX_POINTS}; pass --yes (confirm=True) to run it")
    if out is None:
        raise InvalidParameter("pass out= (the results file) with a Grid object")
    sweep = Sweep(grid, out, resume=resume)
    if scheduler:
        executor: Any = DaskExecutor(scheduler, timeout=timeout)
    elif workers == 0:
        executor = InlineExecutor()
    else:
        executor = LocalExecutor(workers)
    return sweep.run(executor, progress)


def read_records(path: str | os.PathLike[str], grid: Grid | None = None
                 ) -> list[dict[str, Any]]:
    """The complete records of a results file (of ``grid``'s points only, when given),
    in grid order (else file order); a partial last line is ignored, the file untouched.

    >>> read_records("missing.jsonl")
    []
    """
    records, _ = ResultFile(path).read(repair=False)
    if grid is None:
        return records
    keys = grid.keys
    return sorted((r for r in records if r["key"] in keys), key=lambda r: r.get("index", 0))


# =========================================================================== heatmap
@dataclass
class Heatmap:
    """A metric over two parameters: ``values[i, j]`` at ``y_values[i]``, ``x_values[j]``.

    ``text`` holds what each cell shows (the recorded value, ``—`` when
    missing, ``error`` for a failed point); shape ``(len(y_values), len(x_values))``.
    """

    metric: str
    x: str
    y: str
    x_values: list[Any]
    y_values: list[Any]
    values: Any
    text: list[list[str]]
    fixed: dict[str, Any]
    missing: int

    @property
    def title(self) -> str:
        fixed = ", ".join(f"{k}={_value_text(v)}" for k, v in self.fixed.items())
        return f"{self.metric} over {self.x} × {self.y}" + (f" ({fixed})" if fixed else "")


def _as_float(value: Any) -> float:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        if value in ("yes", "pass"):
            return 1.0
        if value in ("no", "fail"):
            return 0.0
        try:
            return float(value)
        except ValueError:
            return math.nan
    return math.nan


def _sort_values(values: Iterable[Any]) -> list[Any]:
    vals = list(values)
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals):
        return sorted(vals)
    return vals


def _matches(value: Any, wanted: str) -> bool:
    if _value_text(value) == wanted:
        return True
    try:
        return float(wanted) == float(value)
    except (TypeError, ValueError):
        return False


def heatmap(records: Sequence[Mapping[str, Any]], metric: str, x: str, y: str, *,
            where: Mapping[str, str] | None = None) -> Heatmap:
    """Arrange ``metric`` of the records on a grid over parameters ``x`` and ``y``.

    ``where`` fixes other parameters (``{"factor": "4"}``); every other
    parameter must take one value over the selected records.

    >>> recs = [{"params": {"base": b, "length": n}, "status": "ok",
    ...          "metrics": {"pairs_covered": b // 100 + n}} for b in (100, 200) for n in (1, 2)]
    >>> h = heatmap(recs, "pairs_covered", "base", "length")
    >>> h.x_values, h.y_values, h.values.tolist()
    ([100, 200], [1, 2], [[2.0, 3.0], [3.0, 4.0]])
    """
    import numpy as np

    if metric not in METRICS:
        raise UnknownName(f"--metric {metric!r} is not known; use one of {', '.join(METRICS)}")
    where = dict(where or {})
    chosen = []
    for r in records:
        params = {**r.get("params", {}), "family": r.get("family")}
        if all(k in params and _matches(params[k], v) for k, v in where.items()):
            chosen.append(r)
    if not chosen:
        raise InvalidParameter("no records to plot" + (f" with {where}" if where else "")
                               + "; run the sweep first, or check --where")
    for axis, name in (("--x", x), ("--y", y)):
        if not all(name in r.get("params", {}) for r in chosen):
            present = sorted({k for r in chosen for k in r.get("params", {})})
            raise InvalidParameter(f"{axis} {name!r} is not a parameter of every point; the "
                                   f"points have {', '.join(present)}")
    if x == y:
        raise InvalidParameter(f"--x and --y are both {x!r}; pass two different parameters")
    names = {k for r in chosen for k in r["params"] if k not in (x, y)}
    others = {k: {json.dumps(r["params"].get(k, "(absent)")) for r in chosen} for k in names}
    varying = sorted(k for k, v in others.items() if len(v) > 1)
    if varying:
        example = varying[0]
        value = json.loads(sorted(others[example] - {json.dumps("(absent)")})[0])
        raise InvalidParameter(f"{', '.join(varying)} also vary (or are absent from some points):"
                               f" one cell would hold several points; fix them with --where, e.g."
                               f" --where {example}={_value_text(value)} (--where family=N picks "
                               "one [[family]], counted from 0)")
    fixed = {k: json.loads(next(iter(v))) for k, v in others.items() if k != "kind"}
    xs = _sort_values(dict.fromkeys(r["params"][x] for r in chosen))
    ys = _sort_values(dict.fromkeys(r["params"][y] for r in chosen))
    values = np.full((len(ys), len(xs)), np.nan)
    text = [["—"] * len(xs) for _ in ys]
    filled = 0
    for r in chosen:
        i, j = ys.index(r["params"][y]), xs.index(r["params"][x])
        filled += 1
        if r.get("status") != "ok":
            text[i][j] = "error"
            continue
        value = r.get("metrics", {}).get(metric)
        if metric not in r.get("metrics", {}):
            raise InvalidParameter(f"the records do not hold metric {metric!r}; the grid "
                                   f"computes {', '.join(r.get('metrics', {}))}")
        values[i, j] = _as_float(value)
        text[i][j] = "none" if value is None else _short_text(value)
    return Heatmap(metric, x, y, xs, ys, values, text, fixed, len(xs) * len(ys) - filled)


def _short_text(value: Any) -> str:
    number = _as_float(value)
    if isinstance(value, (bool, int)) or math.isnan(number) or (
            isinstance(value, str) and value in ("yes", "no", "pass", "fail")):
        return str(value)[:10]
    return f"{number:.4g}"


def plot_heatmap(data: Heatmap, path: str | os.PathLike[str]) -> str:
    """Draw a :class:`Heatmap` to ``path`` (PNG, SVG or PDF by its suffix).

    matplotlib is imported here only (``pip install 'posproof[plot]'``); the
    figure is drawn on its own Agg canvas (no pyplot, no global state).
    """
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise InvalidParameter("--plot needs matplotlib; install it with "
                               "pip install 'posproof[plot]'") from None
    import numpy as np

    nx, ny = len(data.x_values), len(data.y_values)
    fig = Figure(figsize=(min(3 + 0.9 * nx, 16), min(2.2 + 0.5 * ny, 12)))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    masked = np.ma.masked_invalid(data.values)
    image = ax.imshow(masked, aspect="auto", origin="lower", cmap="viridis",
                      interpolation="nearest")
    ax.set_xticks(range(nx), [_value_text(v) for v in data.x_values], rotation=45, ha="right")
    ax.set_yticks(range(ny), [_value_text(v) for v in data.y_values])
    ax.set_xlabel(data.x)
    ax.set_ylabel(data.y)
    ax.set_title(data.title, fontsize=10)
    ax.set_facecolor("#dddddd")
    if masked.count():
        fig.colorbar(image, ax=ax, label=data.metric)
    if nx * ny <= 400:
        finite = data.values[np.isfinite(data.values)]
        mid = float(finite.min() + finite.max()) / 2 if finite.size else 0.0
        for i in range(ny):
            for j in range(nx):
                v = data.values[i, j]
                color = "black" if not np.isfinite(v) or v > mid else "white"
                ax.text(j, i, data.text[i][j], ha="center", va="center", fontsize=7,
                        color=color)
    fig.tight_layout()
    fig.savefig(os.fspath(path), dpi=110)
    return os.fspath(path)
