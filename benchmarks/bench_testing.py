"""Benchmarks for posproof.testing and posproof.testing.identification, measured, with the bars.

    python benchmarks/bench_testing.py            # the full bar (a few minutes)
    python benchmarks/bench_testing.py --quick    # d = 64 only

Bars (issue 5):

- identification of every preset family — vaswani, tensor2tensor, fairseq,
  diffusion, binary, in every layout where the family allows one — at
  d ∈ {64, 512, 1024}, with and without offsets, in float64 and float32:
  100 % correct; random tables (also one overwritten by random init): 100 %
  "no match".  A table counts as correctly identified when identify matches,
  names the generating preset among the presets that rebuild it, and finds
  its layout, its offset and exactly its frequencies (SymPy equality).
- ``assert_encoding`` on a d = 1024, 8192-position table: ≤ 1 s.

Wall-clock seconds are printed as measured, with the machine's load average.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import posproof
from posproof.testing import assert_encoding, check_encoding
from posproof.testing.identification import identify

LAYOUTS = ("interleaved", "interleaved-cos", "split", "split-cos")
LENGTH = 256


def cases(dims: tuple[int, ...]) -> list[tuple[str, str, dict, np.ndarray | None]]:
    """(label, expected preset, preset params, explicit positions or None)."""
    out = []
    for dim in dims:
        for offset in (0, 2, 1000):
            for layout in LAYOUTS:
                out.append((f"vaswani/{layout}", "vaswani",
                            {"dim": dim, "layout": layout, "offset": offset}, None))
                out.append((f"tensor2tensor/{layout}", "tensor2tensor",
                            {"dim": dim, "layout": layout, "start_index": offset}, None))
                out.append((f"binary/{layout}", "binary",
                            {"dim": dim, "layout": layout, "offset": offset}, None))
            out.append(("diffusion/split-cos", "diffusion", {"dim": dim, "offset": offset},
                        None))
            pad = offset - 1 if offset else 1
            # fairseq as posproof's preset writes it (rows from padding_idx + 1 = offset) …
            out.append(("fairseq/split", "fairseq", {"dim": dim, "padding_idx": pad}, None))
            # … and as fairseq stores its weights: rows are positions 0 … with the
            # padding_idx row zero (padding_idx 1, 2 or 100, inside the table)
            out.append(("fairseq-weights/split", "fairseq",
                        {"dim": dim, "padding_idx": {0: 1, 2: 2}.get(offset, 100)},
                        np.arange(LENGTH)))
    return out


def random_tables(dims: tuple[int, ...]) -> list[tuple[str, np.ndarray]]:
    out = []
    for dim in dims:
        for seed in range(3):
            rng = np.random.default_rng(1000 * dim + seed)
            phases = rng.uniform(0, 2 * np.pi, size=(LENGTH, dim // 2))
            sinusoidal = posproof.preset("vaswani", dim=dim).table(LENGTH)
            out += [
                ("normal", rng.normal(size=(LENGTH, dim))),
                ("uniform", rng.uniform(-1, 1, size=(LENGTH, dim))),
                ("random-init-0.02", rng.normal(scale=0.02, size=(LENGTH, dim))
                 .astype(np.float32)),
                ("unit-circle-pairs", np.concatenate([np.sin(phases), np.cos(phases)], 1)),
                ("shuffled-rows", sinusoidal[rng.permutation(LENGTH)]),
            ]
    return out


def correct(found: object, expected: str, enc: object, first: int) -> bool:
    return bool(found.matched
                and any(p.startswith(f'preset("{expected}"') for p in found.presets)
                and found.layout == enc.layout.name and found.offset == first
                and tuple(found.encoding.frequencies) == tuple(enc.frequencies))


def timed(func):
    start = time.perf_counter()
    result = func()
    return result, time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="d = 64 only")
    parser.add_argument("--repeat", type=int, default=3, help="runs of the timing bar")
    args = parser.parse_args()
    dims = (64,) if args.quick else (64, 512, 1024)
    print(f"load average at start: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")

    confusion: Counter = Counter()
    totals: Counter = Counter()
    hits: Counter = Counter()
    failures = []
    seconds = 0.0
    for label, expected, params, positions in cases(dims):
        enc = posproof.preset(expected, **params)
        for dtype in ("float64", "float32"):
            table = enc.table(LENGTH if positions is None else positions, dtype=dtype)
            first = enc.offset if positions is None else int(positions[0])
            found, s = timed(lambda table=table: identify(table))
            seconds += s
            predicted = found.preset if found.matched else "no match"
            confusion[(label, predicted)] += 1
            key = (label.split("/")[0], dtype)
            totals[key] += 1
            if correct(found, expected, enc, first):
                hits[key] += 1
            else:
                failures.append((label, params, dtype, found.summary))
    randoms = 0
    no_match = 0
    for label, table in random_tables(dims):
        found, s = timed(lambda table=table: identify(table))
        seconds += s
        randoms += 1
        no_match += not found.matched
        confusion[(f"random/{label}", "no match" if not found.matched else found.preset)] += 1
        if found.matched:
            failures.append((label, {}, str(table.dtype), found.summary))

    labels = sorted({t for t, _ in confusion})
    columns = sorted({p for _, p in confusion}, key=lambda c: (c == "no match", c))
    width = max(len(x) for x in labels) + 2
    print(f"\nidentification, d ∈ {dims}, offsets 0 / 2 / 1000, {LENGTH} rows "
          f"(rows: truth; columns: identified preset)")
    print(" " * width + "".join(f"{c:>15}" for c in columns))
    for t in labels:
        print(f"{t:<{width}}" + "".join(f"{confusion[(t, c)] or '.':>15}" for c in columns))
    print("\ncorrect (preset named, layout, offset and exact frequencies):")
    for key in sorted(totals):
        print(f"  {key[0]:<16} {key[1]:<8} {hits[key]:>4} / {totals[key]:<4}")
    all_hits, all_total = sum(hits.values()), sum(totals.values())
    print(f"  presets: {all_hits} / {all_total} = {100 * all_hits / all_total:.1f} % "
          f"(bar 100 %: {'met' if all_hits == all_total else 'NOT met'})")
    print(f"  random tables: {no_match} / {randoms} 'no match' = "
          f"{100 * no_match / randoms:.1f} % (bar 100 %: "
          f"{'met' if no_match == randoms else 'NOT met'})")
    print(f"  identify: {seconds:.1f} s for {all_total + randoms} tables "
          f"({1000 * seconds / (all_total + randoms):.0f} ms each)")
    for f in failures[:20]:
        print("  FAILED:", *f)

    enc = posproof.preset("vaswani", dim=1024)
    table = enc.table(8192, dtype="float32")
    assert_encoding(table, "vaswani")  # warm-up: frequencies, imports
    runs = [timed(lambda: assert_encoding(table, "vaswani"))[1] for _ in range(args.repeat)]
    best = min(runs)
    print(f"\nassert_encoding, d=1024, 8192 positions, float32, preset name: {best:.3f} s "
          f"best of {args.repeat} (bar 1 s: {'met' if best <= 1 else 'NOT met'}); "
          f"runs {', '.join(f'{r:.3f}' for r in runs)}")
    bad = posproof.preset("vaswani", dim=1024, base=500000).table(8192, dtype="float32")
    report, s = timed(lambda: check_encoding(bad, "vaswani"))
    print(f"failing table (base 500000), with the explanation: {s:.2f} s — "
          f"{report.explanation}")
    found, s = timed(lambda: identify(table))
    print(f"identify, d=1024, 8192 positions: {s:.2f} s — {found.summary}")
    ok = all_hits == all_total and no_match == randoms and best <= 1
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
