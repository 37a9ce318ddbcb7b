"""Issue 27's speed targets for the certified base search, new code vs the old (b25f540).

    python benchmarks/bench_basebound.py                 # the table and L = 2^20, both codes
    python benchmarks/bench_basebound.py --old /tmp/old  # the old checkout (default /tmp/old)
    python benchmarks/bench_basebound.py --only table    # or: --only whole
    python benchmarks/bench_basebound.py --only table --jobs 2   # rows on both cores
    python benchmarks/bench_basebound.py --only table --jobs 0   # every row in one process
    python benchmarks/bench_basebound.py --table-up-to 131072 --whole-length 262144
    python benchmarks/bench_basebound.py --only whole --no-old --whole-work 1e11
    python benchmarks/bench_basebound.py --only whole --no-old --whole-islands all

Targets (issue 27 §6): Men et al.'s table (d = 128, L = 1K … 1M, each row's certified
smallest good base in [2, 1e12], searched up to the first island) in ≤ 60 s, and the base
bound at L = 2^20 over the whole range [2, 1e12] decided with no undecided range in ≤ 60 s.
Each side runs in its own subprocess (``PYTHONPATH`` = this checkout, or the old one:
``git worktree add /tmp/old b25f540`` if it is absent), one after the other, and prints
wall and CPU seconds, the work units used (new code only), the number of undecided
intervals and, for the old code, whether its 45 s wall-clock budget cut the search.
The old code runs as it is used: ``base_bound(...)`` with its defaults (the 45 s budget
of ``explore --base-bound``). Timings on the shared machine are noisy: compare the two
columns of one run, and read the load average printed with them.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TABLE = [2**k for k in range(10, 21)]   # Men et al.'s context lengths 1K … 1M
TARGET = 60.0

CHILD = r"""
import json, sys, time
from posproof.measure.explore import base_bound
task = json.loads(sys.argv[1])
kwargs = {"first_only": task["first_only"]}
if task.get("work_budget", "default") != "default":
    kwargs["work_budget"] = task["work_budget"]
if task.get("islands"):
    kwargs["islands"] = task["islands"]
wall, cpu = time.perf_counter(), time.process_time()
bb = base_bound(task["length"], 128, **kwargs)
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
notes = " ".join(bb.notes)
print(json.dumps({"wall": wall, "cpu": cpu, "undecided": bb.undecided,
                  "bound": None if bb.bound is None else str(bb.bound),
                  "witness": bb.witness_m, "islands": len(bb.islands),
                  "above": None if bb.all_good_above is None else str(bb.all_good_above),
                  "work": getattr(bb, "work", None),
                  "mixed": None if getattr(bb, "mixed", None) is None else
                           [str(v) for v in bb.mixed],
                  "stopped": getattr(bb, "stopped_by", None) or
                             ("time budget" if "time budget" in notes else None)}))
"""


#: every row of the table in this one process, one after the other (``--jobs 0``)
CHILD_ROWS = ("import json, sys\n"
              "for task in json.loads(sys.argv[1]):\n"
              "    sys.argv[1:] = [json.dumps(task)]\n"
              "    exec(CHILD)\n")


def run(root: str, task: dict | list, child: str = CHILD) -> dict | list:
    env = dict(os.environ, PYTHONPATH=root)
    code = child if child is CHILD else f"CHILD = {CHILD!r}\n" + child
    done = subprocess.run([sys.executable, "-c", code, json.dumps(task)], env=env,
                          capture_output=True, text=True, check=False, cwd=root)
    if done.returncode:
        raise SystemExit(f"{root}: {done.stderr.strip()[-2000:]}")
    lines = done.stdout.strip().splitlines()
    if isinstance(task, list):
        return [json.loads(line) for line in lines[-len(task):]]
    return json.loads(lines[-1])


def load() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def table(root: str, rows: list[int], label: str, jobs: int = 1) -> tuple[float, float, int]:
    """The table's rows, ``jobs`` subprocesses at a time (largest L first; 0: every row in
    one subprocess, one after the other): the wall time of the whole batch as this process
    measures it, the rows' CPU summed, undecided summed."""
    from concurrent.futures import ThreadPoolExecutor

    start = time.perf_counter()
    order = sorted(rows, reverse=True)
    if jobs == 0:       # one process: the imports once, every row in it, one after the other
        got = run(root, [{"length": n, "first_only": True} for n in order], CHILD_ROWS)
    else:
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            got = list(pool.map(lambda n: run(root, {"length": n, "first_only": True}), order))
    results = dict(zip(order, got, strict=True))
    wall = time.perf_counter() - start
    cpu = 0.0
    undecided = 0
    for length in rows:
        r = results[length]
        cpu += r["cpu"]
        undecided += r["undecided"]
        print(f"  {label} L={length:>8}: smallest good base {r['bound']}  witness m="
              f"{r['witness']}  undecided {r['undecided']}  {r['wall']:.1f} s wall "
              f"({r['cpu']:.1f} s CPU)" + (f"  work {r['work']:.3g}" if r["work"] else "")
              + (f"  stopped by the {r['stopped']}" if r["stopped"] else ""), flush=True)
    return wall, cpu, undecided


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", default="/tmp/old",
                        help="checkout of the old code, b25f540 (default /tmp/old)")
    parser.add_argument("--only", choices=["table", "whole"], help="one of the two targets")
    parser.add_argument("--table-up-to", type=int, default=TABLE[-1], metavar="L",
                        help="last row of the table (default 1048576)")
    parser.add_argument("--whole-length", type=int, default=2**20, metavar="L",
                        help="context length of the whole-range search (default 1048576)")
    parser.add_argument("--whole-work", type=float, default=None, metavar="N",
                        help="work budget of the whole-range search, new code only "
                             "(default: the code's default, 2e10)")
    parser.add_argument("--whole-islands", choices=["auto", "all", "ends"], default=None,
                        help="islands= of the whole-range search, new code only (default: "
                             "the code's default, auto)")
    parser.add_argument("--no-old", action="store_true", help="run the new code only")
    parser.add_argument("--jobs", "-j", type=int, default=1, metavar="N",
                        help="table rows computed N processes at a time, largest first, as "
                             "`posproof sweep --workers N` would (default 1: one after the "
                             "other); the table's wall time is then the batch's; 0: every row "
                             "in one process, one after the other (the imports once)")
    args = parser.parse_args()
    sides = [("new", HERE)] + ([] if args.no_old else [("old", args.old)])
    if not args.no_old and not os.path.isdir(os.path.join(args.old, "posproof")):
        raise SystemExit(f"no old checkout at {args.old}: git worktree add {args.old} b25f540")
    print(f"load average at start: {load()}")
    if args.only in (None, "table"):
        rows = [n for n in TABLE if n <= args.table_up_to]
        print(f"Men et al.'s table, d=128, L={rows[0]}…{rows[-1]}, up to the first island "
              + ("(every row in one process, one after the other):" if args.jobs == 0 else
                 f"({args.jobs} process{'es' if args.jobs > 1 else ''} at a time):"))
        got = {name: table(root, rows, name, args.jobs) for name, root in sides}
        new = got["new"]
        print(f"table new: {new[0]:.1f} s wall ({new[1]:.1f} s CPU), undecided {new[2]}; "
              f"target ≤ {TARGET:g} s: {'met' if new[0] <= TARGET else 'NOT met'}")
        if "old" in got:
            old = got["old"]
            print(f"table old: {old[0]:.1f} s wall ({old[1]:.1f} s CPU), undecided {old[2]}; "
                  f"ratio new/old {new[0] / old[0]:.2f} (wall), {new[1] / old[1]:.2f} (CPU)")
    if args.only in (None, "whole"):
        length = args.whole_length
        print(f"base bound, d=128, L={length}, the whole range [2, 1e12]:")
        got = {}
        for name, root in sides:
            task = {"length": length, "first_only": False}
            if args.whole_work is not None and name == "new":
                task["work_budget"] = int(args.whole_work)
            if args.whole_islands is not None and name == "new":
                task["islands"] = args.whole_islands
            r = got[name] = run(root, task)
            print(f"  {name}: {r['wall']:.1f} s wall ({r['cpu']:.1f} s CPU); undecided "
                  f"{r['undecided']}; smallest good base {r['bound']}; islands {r['islands']}; "
                  f"all good from {r['above']}"
                  + (f"; work {r['work']:.3g}" if r["work"] else "")
                  + (f"; mixed {r['mixed'][0]} … {r['mixed'][1]}" if r.get("mixed") else "")
                  + (f"; stopped by the {r['stopped']}" if r["stopped"] else ""), flush=True)
        new = got["new"]
        met = new["wall"] <= TARGET and new["undecided"] == 0
        print(f"whole range new: {new['wall']:.1f} s, undecided {new['undecided']}; target "
              f"(≤ {TARGET:g} s, no undecided range): {'met' if met else 'NOT met'}")
        if "old" in got:
            old = got["old"]
            print(f"whole range old: {old['wall']:.1f} s, undecided {old['undecided']} "
                  f"({'an undecided range' if old['undecided'] else 'no undecided range'}); "
                  f"ratio new/old {new['wall'] / old['wall']:.2f} (wall)")
    print(f"load average at end: {load()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
