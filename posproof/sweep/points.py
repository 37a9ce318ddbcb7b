"""One point of a sweep: its encoding, its metrics, and the record that holds them.

:func:`evaluate_point` is what workers run (local processes pickle it by its
module path, ``posproof.sweep.points.evaluate_point``); :func:`canonical` is a
record without its timing, equal for equal results.
"""

from __future__ import annotations

import json
import math
import os
import socket
import threading
import time
from collections.abc import Mapping
from datetime import datetime, timezone
from functools import lru_cache
from typing import Any

from .grid import Point
from .grid_values import DTYPES
from .metrics import METRICS


def _encoding(point: Point) -> Any:
    """The Rotary or Encoding of a point, exactly as ``posproof explore SPEC --length L``."""
    from ..model.configs import parse_spec

    return parse_spec(point.spec, seq_len=point.length)


@lru_cache(maxsize=32)
def _base_bound(length: int, dim: int) -> Any:
    """explore's geometric base bound for (L, rotated dim), once per worker process."""
    from ..measure.explore import base_bound

    return base_bound(length, dim)


def _compute(point: Point) -> tuple[dict[str, Any], dict[str, str], list[str]]:
    """The point's metrics, how each was certified, and notes (metrics that do not apply)."""
    from ..measure.explore import explore
    from ..measure.explore.exploration import as_subject

    obj = _encoding(point)
    length = point.length
    wanted = [METRICS[m] for m in point.metrics]
    sources = {m.source for m in wanted}
    values: dict[str, Any] = {}
    certified: dict[str, str] = {}
    notes: list[str] = []
    if any(s in ("explore", "proofs", "base_bound") or s.startswith("dtype:") for s in sources):
        dtypes = [dt for dt in DTYPES if f"dtype:{dt}" in sources]
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
                from ..proofs.rotary import EXPECTED_REFUTATIONS, exit_status

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
            subject = as_subject(obj)
            entry: dict[str, Any] = {"base_bound": None, "base_ok": None,
                                     "all_good_above": None,
                                     "base_good_set_is_interval": None}
            cert = ""
            if subject.base is None:
                notes.append("base_bound: not applicable (the schedule has no base)")
            else:   # as explore(base_bounds=True) does, for this one encoding
                bb = _base_bound(length, subject.dim)
                cert = bb.to_dict()["certified"]
                entry.update(bb.entry(subject.base))
                notes.extend(f"base_bound: {n}" for n in bb.notes)
            for m in wanted:
                if m.source == "base_bound":
                    values[m.name] = m.get(entry)
                    certified[m.name] = cert
    checks = sorted({m.source.split(":")[1] for m in wanted if m.source.startswith("check:")})
    if checks:
        from ..measure.checks import run_checks
        from ..model.rope import Rotary

        enc = obj.encoding() if isinstance(obj, Rotary) else obj
        audit = [dt for dt in DTYPES if f"check:dtype_audit:{dt}" in sources]
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
    from ..version import __version__

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
