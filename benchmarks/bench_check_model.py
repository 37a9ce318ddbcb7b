"""``posproof check-model`` on a 2-layer Llama config, whole process, this tree beside another.

    python benchmarks/bench_check_model.py                  # against b25f540 (issue 27)
    python benchmarks/bench_check_model.py --old /tmp/old --runs 5 --phases
    python benchmarks/bench_check_model.py --every-type          # issue 28: each model type

The config is Llama-3-8B's (tests/model_configs.py: 32 heads of 128, rope_theta 500000, 8192
positions), shrunk by check-model to 2 layers of 2 heads.  The old tree is ``--old`` (default
/tmp/old, made with ``git worktree add /tmp/old b25f540`` when absent).  The two trees run
alternately in fresh interpreters (``PYTHONPATH`` set to the tree, from a neutral directory),
so the machine's load falls on both alike.  Per run, stdout is read line by line:

- whole: from the start of the process to its end, torch and transformers imports included
  (issue 27's target: at most 15 s on the 2-core machine);
- after verdict: from the verdict line to the end of the process (the teardown; issue 27 §3).

The minimum over the runs is compared (the least disturbed run), the median beside it, with
the load average.  ``--phases`` also times, in this process, each phase of the new tree:
importing torch + transformers, building the tiny model, deriving the tolerance and each of
the four checks.

``--every-type`` (issue 28) runs ``posproof check-model CONFIG`` of this tree once per model
type of ``posproof check-model --list``, on its published config (tests/model_configs.py
``PUBLISHED``, shrunk by check-model to 2 layers), each in a fresh process, and prints each
time, the median and the maximum against the 15 s target (``--types a,b`` for a few).  With
``--compare`` it also runs the old tree on each type, alternately, and prints new/old:

    python benchmarks/bench_check_model.py --every-type --compare --old /tmp/old28 --rev 8cd1d9c
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
TARGET = 15.0


def _old_tree(path: Path, rev: str) -> Path:
    if not (path / "posproof").is_dir():
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(path), rev],
                       check=True, capture_output=True)
    return path


def _one_run(tree: Path, config: Path, cwd: Path) -> tuple[float, float, int]:
    """(whole seconds, seconds from the verdict line to the end, exit status)."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    start = time.perf_counter()
    verdict = None
    with subprocess.Popen([sys.executable, "-m", "posproof", "check-model", str(config)],
                          cwd=cwd, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, text=True) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith("verdict:") and verdict is None:
                verdict = time.perf_counter()
        status = proc.wait()
    end = time.perf_counter()
    return end - start, end - (verdict if verdict is not None else end), status


def _phases(config: Path) -> None:
    phases: dict[str, float] = {}
    t = time.perf_counter()
    import torch
    import transformers  # noqa: F401
    phases["import torch + transformers"] = time.perf_counter() - t

    from posproof.whole.api import load
    from posproof.whole.checks import (
        check_cache_boundary,
        check_kv_cache,
        check_left_padding,
        check_shift,
        derive_tolerance,
    )

    torch.set_num_threads(1)
    t = time.perf_counter()
    runner = load(config)
    phases["build the tiny model"] = time.perf_counter() - t
    gen = torch.Generator().manual_seed(0)
    ids = torch.randint(1, runner.vocab - 12, (1, 64), generator=gen)
    ids2 = torch.randint(1, runner.vocab - 12, (1, 64), generator=gen)
    runner.memo = {}
    with runner.float64_angles():
        t = time.perf_counter()
        tol = derive_tolerance(runner, ids, True)
        phases["derive the tolerance"] = time.perf_counter() - t
        for name, fn in [("shift_invariance", lambda: check_shift(runner, ids, tol)),
                         ("kv_cache", lambda: check_kv_cache(runner, ids, 64, tol)),
                         ("left_padding", lambda: check_left_padding(runner, ids, ids2, tol)),
                         ("cache_boundary", lambda: check_cache_boundary(runner, ids, tol))]:
            t = time.perf_counter()
            fn()
            phases[f"check {name}"] = time.perf_counter() - t
    total = sum(phases.values())
    print("phases of the new tree, in this process:")
    for name, seconds in sorted(phases.items(), key=lambda kv: -kv[1]):
        print(f"  {name:<28} {seconds:6.2f} s  ({100 * seconds / total:4.1f} %)")


def _every_type(kinds: list[str], old: Path | None = None) -> None:
    import model_configs as mc

    trees = {"new": ROOT, **({"old": old} if old is not None else {})}
    times: dict[str, dict[str, tuple[float, int]]] = {name: {} for name in trees}
    with tempfile.TemporaryDirectory() as tmp:
        for kind in kinds:
            config = Path(tmp) / f"{kind}.json"
            config.write_text(json.dumps(mc.PUBLISHED[kind]), encoding="utf-8")
            line = f"  {kind:<14}"
            for name, tree in trees.items():          # alternately: the load falls on both
                whole, _, status = _one_run(tree, config, Path(tmp))
                times[name][kind] = (whole, status)
                line += f" {name} {whole:6.2f} s (exit {status})"
            if old is not None:
                line += f"  new/old {times['new'][kind][0] / times['old'][kind][0]:.2f}×"
            print(line, flush=True)
    print(f"posproof check-model, {len(kinds)} model types, one fresh process each; load "
          f"average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores:")
    for name, tree in trees.items():
        values = [t for t, _ in times[name].values()]
        worst = max(times[name], key=lambda k: times[name][k][0])
        print(f"  {name} ({tree}): median {statistics.median(values):.2f} s, max "
              f"{max(values):.2f} s ({worst}); target ≤ {TARGET:g} s: "
              f"{'met' if max(values) <= TARGET else 'NOT met'}; exit statuses "
              f"{sorted({s for _, s in times[name].values()})}")
    if old is not None:
        ratios = [times["new"][k][0] / times["old"][k][0] for k in kinds]
        slowest = sorted(kinds, key=lambda k: -times["old"][k][0])[:8]
        print(f"  new/old per type: median {statistics.median(ratios):.2f}×; the old tree's "
              "slowest: " + ", ".join(f"{k} {times['old'][k][0]:.1f} → "
                                      f"{times['new'][k][0]:.1f} s" for k in slowest))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old", type=Path, default=Path("/tmp/old"),
                        help="the old tree (default /tmp/old; created from --rev if absent)")
    parser.add_argument("--rev", default="b25f540", help="revision of the old tree")
    parser.add_argument("--runs", type=int, default=3, help="runs of each tree (default 3)")
    parser.add_argument("--phases", action="store_true", help="also time each phase")
    parser.add_argument("--every-type", action="store_true",
                        help="time check-model on each model type's published config")
    parser.add_argument("--types", default=None, help="with --every-type: only these types")
    parser.add_argument("--compare", action="store_true",
                        help="with --every-type: also run the old tree (--old, --rev) on each "
                             "type, alternately, and print the ratios")
    args = parser.parse_args()
    import model_configs as mc

    if args.every_type:
        _every_type(args.types.split(",") if args.types else sorted(mc.PUBLISHED),
                    _old_tree(args.old, args.rev) if args.compare else None)
        return

    old = _old_tree(args.old, args.rev)
    trees = {"new": ROOT, "old": old}
    results: dict[str, list[tuple[float, float, int]]] = {name: [] for name in trees}
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "config.json"
        config.write_text(json.dumps(mc.LLAMA3_8B), encoding="utf-8")
        for _ in range(args.runs):
            for name, tree in trees.items():
                results[name].append(_one_run(tree, config, Path(tmp)))
        print(f"posproof check-model (Llama-3-8B config, 2 layers), whole process, "
              f"{args.runs} runs each, alternating; load average "
              f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        best = {}
        for name, tree in trees.items():
            whole = [r[0] for r in results[name]]
            after = [r[1] for r in results[name]]
            statuses = sorted({r[2] for r in results[name]})
            best[name] = (min(whole), min(after))
            print(f"  {name} ({tree}): whole min {min(whole):5.2f} s, median "
                  f"{statistics.median(whole):5.2f} s; verdict to exit min {min(after):4.2f} s, "
                  f"median {statistics.median(after):4.2f} s; exit status {statuses}")
        print(f"  new / old: whole {best['new'][0] / best['old'][0]:.2f}×, verdict to exit "
              f"{best['new'][1] / max(best['old'][1], 1e-9):.2f}×; target whole ≤ {TARGET:g} s: "
              f"{'met' if best['new'][0] <= TARGET else 'NOT met'}")
        if args.phases:
            _phases(config)


if __name__ == "__main__":
    main()
