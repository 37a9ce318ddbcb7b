"""Grid files: the metrics a sweep can record, and TOML grids parsed into points.

:data:`METRICS` lists the metrics (:mod:`posproof.sweep.metrics`); :func:`parse_grid`
(:func:`load_grid` for a file) validates a grid's keys, values and ranges and enumerates its
:class:`Point` objects in a fixed order; each family's keys and values
are checked by :mod:`posproof.sweep.grid_values`.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InvalidParameter
from .grid_values import SWEEP_KEYS, family_axes, value_text
from .limits import HARD_MAX_POINTS, MAX_POINTS
from .metrics import METRICS as METRICS
from .metrics import Metric as Metric
from .metrics import check_metrics


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



def _spec_of(params: Mapping[str, Any]) -> str:
    if "spec" in params:
        return str(params["spec"])
    body = ",".join(f"{k}={value_text(v)}" for k, v in params.items()
                    if k not in ("kind", *SWEEP_KEYS))
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
    metrics = check_metrics(data["metrics"], source)
    seed = data.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise InvalidParameter(f"{source}: seed={seed!r} must be an integer ≥ 0")
    families = data.get("family")
    if not isinstance(families, list) or not families or not all(
            isinstance(f, dict) for f in families):
        raise InvalidParameter(f"{source}: no [[family]] tables; add at least one, e.g. "
                               '[[family]] with kind = "rope" and base = [10000, 500000]')
    defaults = {k: data[k] for k in SWEEP_KEYS if k in data}
    axes_per_family: list[dict[str, list[Any]]] = []
    size = 0
    for i, fam in enumerate(families, start=1):
        where = f"{source} [[family]] {i}"
        axes = family_axes(fam, defaults, where)
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
