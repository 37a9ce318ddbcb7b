"""Start-up and ``posproof verify``, whole processes: this tree against the old code, side by
side (issue 27 §2 and §6).

    python benchmarks/bench_startup.py                 # against b25f540, 5 runs each
    python benchmarks/bench_startup.py --runs 9 --old /tmp/old

Each command runs as a fresh ``python -m posproof …`` with ``PYTHONPATH`` set to a tree, the
two trees alternately, so the machine's load falls on both alike:

- ``--help``, ``--version`` and ``limits`` (the target: well under half a second, importing
  no SymPy, NumPy, mpmath or python-flint: tests/test_startup.py checks the imports);
- ``verify`` (the default encoding, d = 512, L = 10⁶; the target: ≤ 2.0 s on a quiet 2-core
  machine and ≤ 0.55 × the old code).

The old tree is a ``git worktree`` of ``--before`` (default b25f540, main before issue 27) at
``--old`` (default /tmp/old), added when absent.  The minimum over the runs is the number
compared (the least disturbed run); the median is printed beside it, with the load average
before and after, so a busy machine shows.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = {"--help": ["--help"], "--version": ["--version"], "limits": ["limits"],
            "verify": ["verify"]}


def old_tree(before: str, where: Path) -> Path:
    """The old code: a git worktree of ``before`` at ``where`` (added when absent)."""
    if not (where / "posproof" / "__init__.py").exists():
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(where),
                        before], check=True, capture_output=True)
    return where


def one_run(tree: Path, argv: list[str], bytecode: bool = True) -> tuple[float, float]:
    """Seconds of ``python -m posproof ARGV`` in ``tree``, whole process (start to exit):
    wall clock and CPU (user + system, which a busy machine inflates less)."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    if bytecode:       # as an installed posproof runs: from its .pyc files
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "posproof", *argv], cwd=tree, env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", default="b25f540",
                        help="git revision of the old code (default b25f540)")
    parser.add_argument("--old", default="/tmp/old", help="where its worktree is (or goes)")
    parser.add_argument("--runs", type=int, default=5, help="alternating runs per tree")
    parser.add_argument("--only", choices=sorted(COMMANDS), action="append",
                        help="only this command (repeatable)")
    parser.add_argument("--no-bytecode", action="store_true",
                        help="keep PYTHONDONTWRITEBYTECODE as set (default: unset it, so both "
                             "trees run from .pyc files as an installed posproof does)")
    args = parser.parse_args()
    trees = {"old": old_tree(args.before, Path(args.old)), "new": ROOT}
    names = args.only or list(COMMANDS)
    load = os.getloadavg()[0]
    bytecode = not args.no_bytecode
    times: dict[tuple[str, str], list[float]] = {}
    cpu: dict[tuple[str, str], list[float]] = {}
    for name in names:
        for tree in trees.values():             # warm the caches (.pyc, the file system)
            one_run(tree, COMMANDS[name], bytecode)
        for _ in range(args.runs):
            for tree_name, tree in trees.items():
                wall, used = one_run(tree, COMMANDS[name], bytecode)
                times.setdefault((name, tree_name), []).append(wall)
                cpu.setdefault((name, tree_name), []).append(used)
    print(f"whole process, {args.runs} alternating runs per tree; load average {load:.1f} "
          f"before, {os.getloadavg()[0]:.1f} after (old = {args.before} at {args.old}, "
          f"new = {ROOT}); {os.cpu_count()} CPUs; "
          f"{'from .pyc' if bytecode else 'PYTHONDONTWRITEBYTECODE as set'}")
    print(f"  {'command':<10} {'wall s: old min':>15} {'new min':>8} {'old med':>8} "
          f"{'new med':>8} {'new/old':>8}   {'CPU s: old min':>14} {'new min':>8} {'new/old':>8}")
    for name in names:
        old, new = times[(name, "old")], times[(name, "new")]
        cold, cnew = cpu[(name, "old")], cpu[(name, "new")]
        print(f"  {name:<10} {min(old):15.3f} {min(new):8.3f} {statistics.median(old):8.3f} "
              f"{statistics.median(new):8.3f} {min(new) / min(old):8.3f}   {min(cold):14.3f} "
              f"{min(cnew):8.3f} {min(cnew) / min(cold):8.3f}")


if __name__ == "__main__":
    main()
