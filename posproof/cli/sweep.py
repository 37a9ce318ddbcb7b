"""``posproof sweep``: run a grid of encodings × parameters × metrics, locally or on Dask.

Wiring (done in :mod:`posproof.cli.app`)::

    from . import sweep as cli_sweep
    cli_sweep.add_command(sub)                       # in make_parser()
    if args.command == cli_sweep.COMMAND:            # in _run()
        return cli_sweep.run(args)

Exit status: 0 when every point of the grid is recorded without error, 1
when some point failed (recorded with its error) or could not be computed (a
worker died: rerun with ``--resume``), 2 for bad input (one line on stderr),
130 when interrupted (what finished is recorded; rerun with ``--resume``).

>>> import argparse
>>> parser = argparse.ArgumentParser(prog="posproof")
>>> _ = add_command(parser.add_subparsers(dest="command"))
>>> args = parser.parse_args(["sweep", "grid.toml", "--workers", "2", "--resume"])
>>> args.command, args.grid, args.workers, args.resume, args.scheduler
('sweep', 'grid.toml', 2, True, None)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..errors import InvalidParameter, PosproofError
from .options import int_at_least

__all__ = ["COMMAND", "add_command", "run"]

COMMAND = "sweep"


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value <= 600:
        raise argparse.ArgumentTypeError(f"{value:g} must be in (0, 600] seconds")
    return value


def add_command(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``sweep`` to ``subparsers`` (from ``add_subparsers``).

    >>> parser = argparse.ArgumentParser(prog="posproof")
    >>> _ = add_command(parser.add_subparsers(dest="command"))
    >>> parser.parse_args(["sweep", "g.toml", "--plot", "h.png", "--metric", "first_negative",
    ...                    "--x", "base", "--y", "length"]).plot
    'h.png'
    """
    from ..sweep.limits import DEFAULT_TIMEOUT, MAX_POINTS

    p = subparsers.add_parser(
        COMMAND, help="run a grid of encodings × parameters × metrics (TOML) locally or on a "
                      "Dask cluster; resumable, results in JSON Lines",
        description="Run a grid of encodings × parameters × metrics, each point computed as "
                    "`posproof explore` (or `check`) computes it, certified the same way. "
                    "Records stream to an append-only JSON Lines file; --resume skips the "
                    "points already recorded. See docs/sweep.md for the grid format.")
    p.add_argument("grid", nargs="?", metavar="GRID", help="the grid file (TOML)")
    p.add_argument("--out", "-o", metavar="FILE",
                   help="results file (JSON Lines; default: GRID with the suffix .jsonl)")
    p.add_argument("--resume", action="store_true",
                   help="continue an existing results file: skip the points it records")
    p.add_argument("--workers", "-j", type=int_at_least(0, " (0: in this process)"),
                   default=None, metavar="N",
                   help="local worker processes (default: the number of CPUs; 0: compute in "
                        "this process)")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="submit the points to this dask.distributed scheduler "
                        "(tcp://HOST:PORT) instead of the local pool; needs "
                        "pip install 'posproof[distributed]'")
    p.add_argument("--timeout", type=_seconds, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                   help=f"seconds to wait for the scheduler (default {DEFAULT_TIMEOUT:g})")
    p.add_argument("--yes", "-y", action="store_true",
                   help=f"run grids larger than {MAX_POINTS} points")
    p.add_argument("--dry-run", action="store_true",
                   help="validate the grid, print its size and first points, compute nothing")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--list-metrics", action="store_true", help="list the metrics and exit")
    plot = p.add_argument_group("heatmap (reads the results; computes nothing)")
    plot.add_argument("--plot", metavar="FILE", help="draw --metric over --x and --y to FILE "
                      "(PNG; needs matplotlib: pip install 'posproof[plot]')")
    plot.add_argument("--metric", help="the metric to draw")
    plot.add_argument("--x", metavar="PARAM", help="parameter along the x axis")
    plot.add_argument("--y", metavar="PARAM", help="parameter along the y axis")
    plot.add_argument("--where", action="append", metavar="KEY=VALUE", default=[],
                      help="fix another parameter (repeatable)")
    return p


def run(args: argparse.Namespace) -> int:
    """Run ``sweep``; returns the exit status (0, 1, 2 for bad input, 130 interrupted).

    >>> run(argparse.Namespace(command="sweep", grid="missing.toml", list_metrics=False,
    ...                        plot=None, dry_run=False, yes=False))
    2
    """
    try:
        return _run(args)
    except PosproofError as exc:
        print(f"posproof: error: {exc}", file=sys.stderr)
        return 2


def _out(args: argparse.Namespace) -> Path:
    return Path(args.out) if getattr(args, "out", None) else Path(args.grid).with_suffix(".jsonl")


def _run(args: argparse.Namespace) -> int:
    from ..sweep import load_grid

    if args.list_metrics:
        return _list_metrics()
    if not args.grid:
        raise InvalidParameter("sweep needs a GRID file (TOML); see docs/sweep.md, or "
                               "posproof sweep --list-metrics")
    grid = load_grid(args.grid, confirm=args.yes or bool(args.plot) or args.dry_run)
    if args.plot:
        return _plot(args, grid)
    if args.dry_run:
        return _dry_run(args, grid)
    return _sweep(args, grid)


def _list_metrics() -> int:
    from ..sweep import METRICS

    rows = []
    for m in METRICS.values():
        source = {"explore": "explore", "proofs": "explore (proofs)",
                  "base_bound": "explore --base-bound"}.get(m.source, m.source)
        if source.startswith("dtype:"):
            source = f"explore --dtypes {source[6:]}"
        elif source.startswith("check:"):
            source = "check --check " + source.split(":")[1]
        rows.append((m.name, source, m.description))
    width = max(len(r[0]) for r in rows) + 2
    middle = max(len(r[1]) for r in rows) + 2
    print(f"{'metric':<{width}}{'computed as by':<{middle}}meaning")
    for name, source, text in rows:
        print(f"{name:<{width}}{source:<{middle}}{text}")
    return 0


def _dry_run(args: argparse.Namespace, grid: Any) -> int:
    from ..sweep import Sweep

    sweep = Sweep(grid, _out(args), resume=True)
    print(f"posproof sweep {args.grid}: {grid.size} points × {len(grid.metrics)} metrics "
          f"({', '.join(grid.metrics)})")
    print(f"  varying: {', '.join(grid.varying) or 'nothing'}")
    print(f"  results: {_out(args)} ({len(sweep.recorded)} recorded, {len(sweep.todo)} to do)")
    for p in grid.points[:5]:
        print(f"  point {p.index}: {p.spec} L={p.length}  key {p.key}")
    if grid.size > 5:
        print(f"  … {grid.size - 5} more")
    return 0


def _eta(seconds: float | None) -> str:
    """``1:05`` / ``2:03:04`` / ``?``.

    >>> _eta(65.2), _eta(7384), _eta(None)
    ('1:05', '2:03:04', '?')
    """
    if seconds is None:
        return "?"
    s = round(seconds)
    h, rest = divmod(s, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def _sweep(args: argparse.Namespace, grid: Any) -> int:
    from ..sweep import DaskExecutor, InlineExecutor, LocalExecutor, Sweep, SweepIncomplete

    out = _out(args)
    sweep = Sweep(grid, out, resume=args.resume)
    if args.scheduler:
        executor: Any = DaskExecutor(args.scheduler, timeout=args.timeout)
    elif args.workers == 0:
        executor = InlineExecutor()
    else:
        executor = LocalExecutor(args.workers)
    bar = None
    if not args.quiet:      # a bar on a terminal, plain lines in a log
        from .options import ProgressBar

        bar = ProgressBar.on(sys.stderr)

    def progress(done: int, total: int, left: float | None) -> None:
        if bar is not None:
            bar(f"{done}/{total} points, ETA {_eta(left)}", done, total)

    where = (f"Dask scheduler {args.scheduler}" if args.scheduler else
             f"{executor.workers} local worker{'s' if executor.workers != 1 else ''}"
             if executor.workers else "this process")
    header = (f"posproof sweep {args.grid}: {grid.size} points × {len(grid.metrics)} metrics "
              f"on {where}")
    if not args.json:         # what runs, before it runs (the summary follows at the end)
        print(header, flush=True)
    progress(0, grid.size, None)   # the bar from the start, at 0%
    cause = ""
    try:
        summary = sweep.run(executor, progress)
    except SweepIncomplete as exc:
        summary, cause = exc.summary, str(exc)
    except KeyboardInterrupt:
        if bar is not None:
            bar.close()
        s = sweep.summary
        print(f"posproof sweep: interrupted; {s.recorded_before + s.computed} of {s.points} "
              f"points recorded in {out}; rerun with --resume to finish", file=sys.stderr)
        return 130
    finally:
        executor.close()
    if bar is not None:
        bar.close()
    if args.json:
        from .options import emit_json

        emit_json({"sweep": {"grid": args.grid, **summary.to_dict()}}, args,
                  ok=bool(summary.complete and not summary.errors and not summary.lost))
    else:
        lines = [f"  already recorded {summary.recorded_before}, computed {summary.computed} "
                 f"({summary.errors} with an error), not computed {summary.lost}",
                 f"  results: {out} ({summary.seconds:.1f} s)"]
        if summary.repaired_bytes:
            lines.append(f"  repaired: a partial last line ({summary.repaired_bytes} bytes) of "
                         "an interrupted write was removed")
        if summary.stale:
            lines.append(f"  note: {summary.stale} records in {out} are not points of this grid "
                         "(kept, ignored)")
        lines += [f"  not computed: {reason}" for reason in summary.lost_reasons[:3]]
        if summary.lost:
            lines.append("  rerun with --resume to compute the points not computed")
        if summary.errors:
            lines.append(f"  {summary.errors} point(s) failed: their records hold the error")
        lines += ["", f"verdict: {_verdict(summary)}"]
        print("\n".join(lines))
    if cause:
        print(f"posproof sweep: error: {cause}", file=sys.stderr)
    return 0 if summary.complete and not summary.errors and not summary.lost else 1


def _verdict(summary: Any) -> str:
    """The sweep's verdict: every point recorded (OK), some failed (CHECK FAILED) or some
    not computed (INCOMPLETE), with the counts.

    >>> from posproof.sweep.run import Summary
    >>> _verdict(Summary(points=4, recorded_before=1, todo=3, computed=3))
    'OK — points 4/4 computed'
    >>> _verdict(Summary(points=4, recorded_before=0, todo=4, computed=3, errors=1, lost=1))
    'CHECK FAILED — points 2/4 computed, 1 unknown'
    """
    from ..verdict import verdict_text

    done = summary.recorded_before + summary.computed
    fine = max(done - summary.errors, 0)
    statuses = (["pass"] * fine + ["fail"] * summary.errors
                + ["unknown"] * max(summary.points - fine - summary.errors, 0))
    return verdict_text(checks=[{"status": x} for x in statuses], noun="points",
                        verb="computed", ok=summary.complete and not summary.errors
                        and not summary.lost)


def _plot(args: argparse.Namespace, grid: Any) -> int:
    from ..sweep import heatmap, plot_heatmap, read_records

    missing = [f"--{n}" for n in ("metric", "x", "y") if not getattr(args, n)]
    if missing:
        raise InvalidParameter(f"--plot needs {', '.join(missing)}, e.g. --plot heat.png "
                               "--metric first_negative --x base --y length")
    from ..sweep.metrics import RENAMED

    args.metric = RENAMED.get(args.metric, args.metric)
    if args.metric not in grid.metrics:
        raise InvalidParameter(f"--metric {args.metric!r} is not computed by {args.grid}; it "
                               f"computes {', '.join(grid.metrics)}")
    where = {}
    for item in args.where:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise InvalidParameter(f"--where {item!r} is not KEY=VALUE, e.g. --where factor=4")
        where[key.strip()] = value.strip()
    out = _out(args)
    records = read_records(out, grid)
    if not records:
        raise InvalidParameter(f"{out} holds no records of {args.grid}; run posproof sweep "
                               f"{args.grid} first")
    data = heatmap(records, args.metric, args.x, args.y, where=where)
    plot_heatmap(data, args.plot)
    cells = len(data.x_values) * len(data.y_values)
    print(f"heatmap of {data.title}: {cells} cells ({data.missing} without a record) "
          f"written to {args.plot}")
    return 0
