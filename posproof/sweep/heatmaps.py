"""Heatmaps of recorded metrics over two parameters (matplotlib imported only to draw)."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidParameter, UnknownName
from .grid_values import value_text
from .metrics import METRICS, RENAMED


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
        fixed = ", ".join(f"{k}={value_text(v)}" for k, v in self.fixed.items())
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
    if value_text(value) == wanted:
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

    metric = RENAMED.get(metric, metric)
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
                               f" --where {example}={value_text(value)} (--where family=N picks "
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
    ax.set_xticks(range(nx), [value_text(v) for v in data.x_values], rotation=45, ha="right")
    ax.set_yticks(range(ny), [value_text(v) for v in data.y_values])
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
