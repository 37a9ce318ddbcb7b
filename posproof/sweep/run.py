"""The driver: a grid bound to its results file, run on an executor (resumable)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InvalidParameter, PosproofError
from .executors import DaskExecutor, InlineExecutor, LocalExecutor, WorkerLost
from .grid import Grid, Point, load_grid
from .limits import DEFAULT_TIMEOUT, MAX_POINTS
from .points import evaluate_point
from .store import ResultFile

Progress = Callable[[int, int, "float | None"], None]

#: Why every worker of a local pool dies before computing a point, nine times in ten.
SPAWN_HINT = ("the local pool starts its workers with 'spawn', and each worker re-imports "
              "the script that called the sweep: put that call under "
              "`if __name__ == \"__main__\":` (see docs/sweep.md, From Python)")


class SweepIncomplete(PosproofError, RuntimeError):
    """Points of the grid were not computed (their workers died): raised after the run.

    The points that finished are recorded; ``summary`` says what the run did, and
    ``resume=True`` (``--resume``) computes the rest.
    """

    def __init__(self, summary: Summary, hint: str = "") -> None:
        self.summary = summary
        first = summary.lost_reasons[0] if summary.lost_reasons else "no reason given"
        text = (f"{summary.lost} of {summary.todo} points were not computed "
                f"({summary.computed} computed, recorded in {summary.results}); first: "
                f"{first}")
        if hint:
            text += f"; likely cause: {hint}"
        super().__init__(text + "; rerun with resume=True (--resume) to compute them")


def _refuse_while_spawning() -> None:
    """Refuse to sweep from a worker process that is importing the caller's script."""
    import multiprocessing

    if getattr(multiprocessing.current_process(), "_inheriting", False):
        raise InvalidParameter(f"a sweep was started while a worker process imports its "
                               f"parent's script; {SPAWN_HINT}")


def _lost_hint(summary: Summary) -> str:
    """The likely cause when every point of a local pool was lost to dying workers."""
    import sys

    main = sys.modules.get("__main__")
    from_script = getattr(main, "__file__", None) is not None and \
        getattr(main, "__spec__", None) is None
    died = all("worker processes died" in r for r in summary.lost_reasons)
    if summary.executor == "local" and summary.computed == 0 and died and from_script:
        return SPAWN_HINT
    return ""


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
    >>> from posproof.sweep import parse_grid
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
        workers are stopped, and the interrupt is raised again.  When points were not
        computed (their workers died), :class:`SweepIncomplete` is raised after the
        run, carrying the summary: the records that finished are written.
        """
        _refuse_while_spawning()
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
        if summary.lost:
            raise SweepIncomplete(summary, _lost_hint(summary))
        return summary


def run_sweep(grid: Grid | str | os.PathLike[str], out: str | os.PathLike[str] | None = None,
              *, resume: bool = False, workers: int | None = None, scheduler: str | None = None,
              timeout: float = DEFAULT_TIMEOUT, confirm: bool = False,
              progress: Progress | None = None) -> Summary:
    """Run a grid (a :class:`Grid` or a path) to ``out`` (default: the grid's path, ``.jsonl``).

    ``workers=0`` computes in this process; ``scheduler`` submits to a Dask
    cluster instead of the local pool.  Raises :class:`SweepIncomplete` when
    points could not be computed (a point that raises is recorded with its
    error instead: ``summary.errors``).  From a script, call it under
    ``if __name__ == "__main__":`` (local workers re-import the script).

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "g.toml")
    ...     _ = Path(path).write_text('metrics = ["pairs"]\\nlength = 8\\n[[family]]\\n'
    ...                               'kind = "vaswani"\\ndim = [4, 6]\\n')
    ...     s = run_sweep(path, workers=0)
    >>> s.complete, s.computed, os.path.basename(s.results)
    (True, 2, 'g.jsonl')
    """
    _refuse_while_spawning()
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
