"""Grid files: the metrics a sweep can record, and TOML grids parsed into points.

:data:`METRICS` lists the metrics; :func:`parse_grid` (:func:`load_grid` for a
file) validates a grid's keys, values and ranges and enumerates its
:class:`Point` objects in a fixed order.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InvalidParameter, PosproofError, UnknownName
from .limits import HARD_MAX_POINTS, MAX_POINTS, MAX_RANGE_VALUES

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
         "smallest good base for (L, rotated dim) in [2, 1e12], geometric rule (Men et al.), "
         "certified branch and bound (an upper end of its bracket)",
         lambda b: b["base_bound"]),
        ("base_ok", "base_bound", "base_bound",
         "'yes'/'no'/'unknown': the point's own base is good (B(m) >= 0 for all m <= L), "
         "certified", lambda b: b["base_ok"]),
        ("base_all_good_above", "base_bound", "base_bound",
         "every base from here to 1e12 is good (null when the good set is an interval)",
         lambda b: b["base_all_good_above"]),
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
    from ..measure.checks import CHECKS

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
            dim = point.params.get("dim")
            if isinstance(dim, int) and dim > 0:      # refuse a too long scan before running
                from ..measure.explore.metrics import check_explore_size

                try:
                    check_explore_size(point.length, dim)
                except InvalidParameter as exc:
                    raise InvalidParameter(f"{source}: the point {point.spec}: {exc}") from None
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
    from ..model.configs import _SPEC_ALIASES

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
            from ..measure.explore import MAX_LENGTH

            for v in vals:
                if not 1 <= v <= MAX_LENGTH:
                    raise InvalidParameter(f"{where}: {key}={v} is out of range; it must be in "
                                           f"1 … {MAX_LENGTH}")
            axes[key] = vals
    return axes


def _kind(name: str, where: str) -> str:
    from ..model.presets import PRESETS

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
        from ..model.presets import PRESETS, _parameters

        allowed = ["dim", *(p for p in _parameters(PRESETS[kind]) if p != "name"), *_SWEEP_KEYS]
        for key in values:
            if key not in allowed:
                raise InvalidParameter(f"{where}: unknown key {key!r} for kind {kind!r}; it "
                                       f"takes {', '.join(allowed)}")
        return
    from ..model.scaling import _ALIASES, SCALINGS

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
    from ..model.configs import parse_spec

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
