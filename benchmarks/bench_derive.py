"""Benchmark of ``posproof derive`` on the default encoding (vaswani, d = 512), against its bar.

Run from the repository root (no arguments; about a minute)::

    python benchmarks/bench_derive.py             # 3 cold runs + the phase breakdown
    python benchmarks/bench_derive.py --runs 1    # quicker

It prints, in one process:

1. the command, run cold in a fresh interpreter ``--runs`` times, each into its
   own directory: wall-clock time from start to exit (the bar: ≤ 10 s,
   figures included) and the CPU time of the process and of its children
   (the figures are drawn in a second process when two CPUs are available);
2. whether all runs wrote byte-identical files (documents and figures);
3. the same work phase by phase in this process (import, proofs, checks,
   guided derivation, rendering, figures), CPU and wall, for finding what to
   make faster;
4. the machine: CPUs and the load average at the start, since a busy machine
   stretches wall-clock times (CPU times are less sensitive to it).
"""

from __future__ import annotations

import argparse
import filecmp
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TARGET_SECONDS = 10.0


def _command(out: Path) -> list[str]:
    from posproof.cli import app as cli

    parser = cli.make_parser()
    wired = any(getattr(a, "choices", None) and "derive" in a.choices for a in parser._actions)
    entry = ["-m", "posproof", "derive"] if wired else ["-m", "posproof.cli.derive"]
    return [sys.executable, *entry, "--out", str(out)]


def cold_runs(runs: int, base: Path) -> list[tuple[float, float, float, int]]:
    """(wall, own CPU, children CPU, exit status) of each cold run of the command."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = []
    for i in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(_command(base / f"run{i}"), env=env, cwd=ROOT,
                              capture_output=True, text=True, check=False)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        if done.returncode not in (0, 1):
            print(done.stderr)
            raise SystemExit(f"the command failed with exit status {done.returncode}")
        out.append((wall, cpu, 0.0, done.returncode))
    return out


def identical(base: Path, runs: int) -> tuple[bool, int]:
    first = base / "run0"
    files = sorted(p.relative_to(first) for p in first.rglob("*") if p.is_file())
    same = all(filecmp.cmp(first / f, base / f"run{i}" / f, shallow=False)
               for i in range(1, runs) for f in files)
    return same, len(files)


def phases(base: Path) -> list[tuple[str, float, float]]:
    """The work of the command, phase by phase, in this process (figures serial)."""
    out = []
    clock = [time.process_time(), time.perf_counter()]

    def lap(label: str) -> None:
        cpu, wall = time.process_time(), time.perf_counter()
        out.append((label, cpu - clock[0], wall - clock[1]))
        clock[:] = [cpu, wall]

    import posproof  # noqa: F401  (already imported by _command: measured as warm)
    from posproof import preset, prove
    from posproof.document.derive import derive, draw_figures_for
    from posproof.measure.checks import run_checks
    lap("imports (warm)")
    enc = preset("vaswani", dim=512)
    report = prove(enc, general=True)
    lap("prove, general=True")
    run_checks(enc, proofs=report.theorems)
    lap("checks, L = 1e6")
    doc = derive(enc)
    lap("derive (proofs + checks + guide again)")
    doc.markdown()
    doc.latex()
    lap("render Markdown + LaTeX")
    import matplotlib.figure  # noqa: F401
    lap("import matplotlib")
    draw_figures_for(enc, base / "phases", doc.figures, formats=["png"])
    lap("7 figures, PNG")
    draw_figures_for(enc, base / "phases", doc.figures, formats=["png", "svg"])
    lap("7 figures, PNG + SVG")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="cold runs of the command")
    args = parser.parse_args(argv)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"machine: {platform.machine()}, {os.cpu_count()} CPU(s), Python "
          f"{platform.python_version()}, load average {load:.2f} at start")
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        command = " ".join(_command(Path("DIR"))).replace(sys.executable, "python")
        print(f"\ncommand: {command}")
        results = cold_runs(args.runs, base)
        for i, (wall, cpu, _, status) in enumerate(results):
            print(f"  run {i}: {wall:5.2f} s wall, {cpu:5.2f} s CPU (process + children), "
                  f"exit status {status}")
        walls = [r[0] for r in results]
        best, median = min(walls), statistics.median(walls)
        same, count = identical(base, args.runs) if args.runs > 1 else (True, 0)
        print(f"  best {best:.2f} s, median {median:.2f} s; target ≤ {TARGET_SECONDS:.0f} s: "
              f"{'PASS' if median <= TARGET_SECONDS else 'MISS'}")
        if args.runs > 1:
            print(f"  {count} files, byte-identical across {args.runs} runs: "
                  f"{'PASS' if same else 'MISS'}")
        print("\nphases in this process (CPU s, wall s):")
        for label, cpu, wall in phases(base):
            print(f"  {label:42s} {cpu:6.2f} {wall:6.2f}")
    return 0 if median <= TARGET_SECONDS and same else 1


if __name__ == "__main__":
    raise SystemExit(main())
