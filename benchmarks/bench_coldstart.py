"""Cold start of ``posproof verify``: this tree against another revision, side by side.

    python benchmarks/bench_coldstart.py          # against 36b2217, main before the package move
    python benchmarks/bench_coldstart.py --before REV --runs 9

The other revision is extracted with ``git archive REV`` into a temporary
directory; both trees run alternately in fresh interpreters (``PYTHONPATH`` set
to the tree), so the machine's load falls on both alike.  Per run:

- the wall clock of ``python -m posproof verify --json`` (the README's main job);
- ``python -X importtime -m posproof --help``'s cumulative import time of the
  top-level ``posproof`` package (what every command pays before it starts).

The minimum over the runs is the number compared (the least disturbed run);
the median is printed beside it, with the load average.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _extract(rev: str, into: Path) -> Path:
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev], capture_output=True,
                             check=True).stdout
    tar_path = into / "tree.tar"
    tar_path.write_bytes(archive)
    with tarfile.open(tar_path) as tar:
        tar.extractall(into / "tree", filter="data")
    return into / "tree"


def _one_run(tree: Path) -> tuple[float, float]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "posproof", "verify", "--json"], cwd=tree, env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - start
    err = subprocess.run([sys.executable, "-X", "importtime", "-m", "posproof", "--help"],
                         cwd=tree, env=env, capture_output=True, text=True, check=True).stderr
    found = re.search(r"\|\s*(\d+) \| posproof$", err, re.M)
    return wall, int(found.group(1)) / 1e6 if found else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", default="36b2217",
                        help="git revision to compare with (default: 36b2217, main before "
                             "the move to packages by stage)")
    parser.add_argument("--runs", type=int, default=7, help="alternating runs per tree")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        trees = {"before": _extract(args.before, Path(tmp)), "after": ROOT}
        wall: dict[str, list[float]] = {k: [] for k in trees}
        imp: dict[str, list[float]] = {k: [] for k in trees}
        for _ in range(args.runs):
            for name, tree in trees.items():
                w, i = _one_run(tree)
                wall[name].append(w)
                imp[name].append(i)
    print(f"cold start, {args.runs} alternating runs per tree; load average "
          f"{os.getloadavg()[0]:.1f} (before = {args.before}, after = this tree)")
    for name in trees:
        print(f"  {name:6}  verify wall: min {min(wall[name]):.3f} s, median "
              f"{statistics.median(wall[name]):.3f} s;  import posproof: min "
              f"{min(imp[name]):.3f} s, median {statistics.median(imp[name]):.3f} s")
    print(f"  ratio after/before (min): verify {min(wall['after']) / min(wall['before']):.3f}, "
          f"import {min(imp['after']) / min(imp['before']):.3f}")


if __name__ == "__main__":
    main()
