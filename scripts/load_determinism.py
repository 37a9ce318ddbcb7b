"""Do verdicts depend on the machine's load?  Run commands quietly, then again with CPU
burners competing for the cores, and compare every verdict, count and number byte for byte.

Issue 27, item 1: no verdict, count or reported number may depend on wall-clock time or
load.  Each command below runs once on the machine as it is, then once more while
``--burners`` processes (default 8) spin on the CPU.  JSON outputs are compared after the
keys that hold seconds are removed (``seconds``, ``elapsed``, ``*_seconds``, ``wall``,
``cpu`` …); ``derive`` is compared by the files it writes (byte for byte) and its stdout
with durations such as ``(3.2 s)`` removed.  One line per command: ``identical`` or
``differs`` with the keys that differ; exit status 1 on any difference.

    python scripts/load_determinism.py              # every command
    python scripts/load_determinism.py --only prove,verify,derive
    python scripts/load_determinism.py --burners 8 --list

Takes several minutes (the loaded runs are slow by design): wrap it in
``flock /tmp/heavy.lock`` on a shared machine.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

LLAMA3 = ("rope:dim=128,base=500000,scaling=llama3,factor=8,low_freq_factor=1,"
          "high_freq_factor=4,original_max_position_embeddings=8192")
#: name → (argv after ``posproof``, kind): "json" compares stdout as JSON, "derive" the files.
COMMANDS: dict[str, tuple[list[str], str]] = {
    "verify": (["verify", "--json"], "json"),
    "prove-sine-only": (["prove", "--preset", "sine-only", "--dim", "8", "--json"], "json"),
    "prove-llama3": (["prove", LLAMA3, "--json"], "json"),
    "explore-base-bound": (["explore", "rope:base=10000,dim=128", "--length", "65536",
                            "--base-bound", "--json"], "json"),
    "derive": (["derive", "--dim", "16", "--no-figures"], "derive"),
}
#: Which commands each --only word selects.
GROUPS = {"verify": ["verify"], "prove": ["prove-sine-only", "prove-llama3"],
          "explore": ["explore-base-bound"], "derive": ["derive"]}

_TIME_KEY = re.compile(r"(^|_)(seconds?|elapsed|wall|cpu|time|timings?|duration)(_|$)"
                       r"|_s$|^t_")
_DURATION = re.compile(r"\(?\b\d+(\.\d+)?\s?(s|ms|min)\b\)?")


def _timeless(value: Any) -> Any:
    """``value`` without the keys that hold seconds (recursively)."""
    if isinstance(value, dict):
        return {k: _timeless(v) for k, v in value.items() if not _TIME_KEY.search(str(k))}
    if isinstance(value, list):
        return [_timeless(v) for v in value]
    return value


def _paths(value: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """(path, leaf) pairs of a JSON document, paths like ``theorems[3].note``."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, f"{prefix}.{k}" if prefix else str(k))
    elif isinstance(value, list):
        yield f"{prefix}#len", len(value)
        for i, v in enumerate(value):
            yield from _paths(v, f"{prefix}[{i}]")
    else:
        yield prefix, value


def _differences(a: Any, b: Any) -> list[str]:
    left, right = dict(_paths(a)), dict(_paths(b))
    return sorted(k for k in left.keys() | right.keys()
                  if (k in left) != (k in right) or left.get(k) != right.get(k))


def _run(argv: list[str], out_dir: Path | None) -> tuple[int, str, str, float]:
    args = [*argv, *(["--out", str(out_dir)] if out_dir is not None else [])]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200"}
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "posproof", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, check=False)
    return proc.returncode, proc.stdout, proc.stderr, time.perf_counter() - start


def _snapshot(name: str, work: Path) -> tuple[dict[str, Any], float]:
    """What one run of the command produced, timings removed."""
    argv, kind = COMMANDS[name]
    out_dir = work / name if kind == "derive" else None
    code, out, err, seconds = _run(argv, out_dir)
    snap: dict[str, Any] = {"exit_status": code}
    if kind == "json":
        try:
            snap["json"] = _timeless(json.loads(out))
        except json.JSONDecodeError:
            snap["stdout"] = out
            snap["stderr"] = err[-2000:]
    else:
        snap["stdout"] = _DURATION.sub("(…)", out.replace(str(out_dir), "OUT"))
        for path in sorted(out_dir.rglob("*")) if out_dir is not None else []:
            if path.is_file():
                snap[f"file {path.relative_to(out_dir)}"] = path.read_bytes().hex()
    return snap, seconds


class Burners:
    """``n`` processes spinning on the CPU (started and stopped by their pids)."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.procs: list[subprocess.Popen[bytes]] = []

    def __enter__(self) -> Burners:
        code = "import itertools\nfor _ in itertools.count():\n    pass\n"
        self.procs = [subprocess.Popen([sys.executable, "-c", code]) for _ in range(self.n)]
        time.sleep(1.0)
        return self

    def __exit__(self, *exc: Any) -> None:
        for p in self.procs:
            p.kill()
        for p in self.procs:
            p.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", metavar="LIST", help="comma list among "
                        f"{', '.join(GROUPS)} (default: all)")
    parser.add_argument("--burners", type=int, default=8,
                        help="CPU-burning processes during the loaded runs (default 8)")
    parser.add_argument("--list", action="store_true", help="print the commands and exit")
    args = parser.parse_args(argv)
    names = list(COMMANDS)
    if args.only:
        wanted = [w.strip() for w in args.only.split(",") if w.strip()]
        unknown = [w for w in wanted if w not in GROUPS]
        if unknown:
            parser.error(f"--only: {unknown[0]!r} is not one of {', '.join(GROUPS)}")
        names = [n for n in names if any(n in GROUPS[w] for w in wanted)]
    if args.burners < 1:
        parser.error("--burners must be at least 1")
    if args.list:
        for n in names:
            print(f"{n}: posproof {' '.join(COMMANDS[n][0])}")
        return 0
    with tempfile.TemporaryDirectory(prefix="load-determinism-") as tmp:
        quiet_dir, loaded_dir = Path(tmp, "quiet"), Path(tmp, "loaded")
        quiet = {n: _snapshot(n, quiet_dir) for n in names}
        with Burners(args.burners):
            loaded = {n: _snapshot(n, loaded_dir) for n in names}
    worst = 0
    print(f"load determinism: each command quietly, then with {args.burners} CPU burners "
          f"(load average now {os.getloadavg()[0]:.1f})")
    for n in names:
        (a, ta), (b, tb) = quiet[n], loaded[n]
        diff = _differences(a, b)
        line = f"{n}: posproof {' '.join(COMMANDS[n][0])[:70]} — "
        if diff:
            worst = 1
            shown = ", ".join(diff[:8]) + (f" … ({len(diff)} in all)" if len(diff) > 8 else "")
            line += f"differs: {shown}"
        else:
            line += "identical"
        print(f"{line} (exit {a['exit_status']}; {ta:.1f} s quiet, {tb:.1f} s loaded)")
    return worst


if __name__ == "__main__":
    sys.exit(main())
