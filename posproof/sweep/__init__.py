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
measured by :func:`posproof.measure.explore.explore` (or :func:`posproof.measure.checks.run_checks`
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

Stage: on top of measure, beside document and testing (which it does not import); it
may import measure, proofs, model and the shared leaves (errors, precise, validated,
report, version); not cli.

Points run in a local process pool (:class:`LocalExecutor`, ``spawn``
processes, BLAS limited to one thread each) or on an existing
``dask.distributed`` cluster (:class:`DaskExecutor`, ``pip install
'posproof[distributed]'``).

>>> from posproof.sweep import evaluate_point, parse_grid
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

The package holds one concept a module: ``metrics`` (what a sweep can record),
``grid`` (grid files, points; it re-exports the metrics), ``grid_values`` (a family's
keys, values and ranges), ``points`` (computing one point), ``store`` (the results
file), ``executors`` (inline, local pool, Dask), ``run`` (the driver) and ``heatmaps``.
"""

from __future__ import annotations

import importlib
from typing import Any

from .limits import DEFAULT_TIMEOUT, HARD_MAX_POINTS, MAX_POINTS
from .limits import MAX_RANGE_VALUES as MAX_RANGE_VALUES

# The submodules load on first use (PEP 562), so that ``posproof --help`` and every other
# command, which build the sweep subcommand's parser from .limits, do not pay for them.
_LAZY = {
    "executors": ("DaskExecutor", "InlineExecutor", "LocalExecutor", "SchedulerUnreachable",
                  "WorkerLost", "WORKER_ENV"),
    "grid": ("METRICS", "Grid", "Metric", "Point", "load_grid", "parse_grid"),
    "heatmaps": ("Heatmap", "heatmap", "plot_heatmap"),  # not "heatmap": the function's name
    "points": ("canonical", "evaluate_point"),
    "run": ("Progress", "Summary", "Sweep", "SweepIncomplete", "run_sweep"),
    "store": ("ResultFile", "read_records"),
}
_WHERE = {name: module for module, names in _LAZY.items() for name in names}


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = importlib.import_module(f".{_WHERE[name]}", __name__)
    for exported in _LAZY[_WHERE[name]]:
        globals()[exported] = getattr(module, exported)
    return globals()[name]


def __dir__() -> list[str]:
    return sorted([*globals(), *_WHERE])


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
    "SweepIncomplete",
    "WorkerLost",
    "canonical",
    "evaluate_point",
    "heatmap",
    "load_grid",
    "parse_grid",
    "plot_heatmap",
    "run_sweep",
]
