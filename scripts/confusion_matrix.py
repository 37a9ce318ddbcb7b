"""Print the soundness confusion matrix of posproof over the corpus in tests/corpus.py.

    python scripts/confusion_matrix.py [--list] [--json]

Rows: the truth of each statement.  Columns: posproof's verdict.  A refutation
is counted only when its counterexample is recomputed independently (from the
exact SymPy objects, in mpmath at 50 digits); one that is not confirmed gets
its own column.  Exit status 1 when a bar is missed: a false statement proved,
a true one not proved, fewer than 40 false statements.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import corpus  # noqa: E402

COLUMNS = ("proved", "refuted", "refuted_unconfirmed", "unknown")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="one line per statement")
    parser.add_argument("--json", action="store_true", help="the matrix as JSON")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    outcomes = []
    for statement in corpus.statements():
        outcome = corpus.evaluate(statement)
        outcomes.append(outcome)
        if args.list:
            mark = ("ok" if (outcome.status == "proved") == statement.truth
                    and (statement.truth or outcome.confirmed) else "WRONG")
            print(f"{mark:5} {'true ' if statement.truth else 'false'} {outcome.status:8} "
                  f"{outcome.seconds:6.2f}s  {statement.id}")
    seconds = time.perf_counter() - start
    table = corpus.confusion(outcomes)
    false_total, true_total = sum(table["false"].values()), sum(table["true"].values())
    bars = {
        "false statements >= 40": false_total >= 40,
        "false statements proved == 0": table["false"]["proved"] == 0,
        "false statements refuted with a confirmed counterexample": (
            table["false"]["refuted"] == false_total),
        "true statements unknown == 0": table["true"]["unknown"] == 0,
        "true statements proved": table["true"]["proved"] == true_total,
    }
    if args.json:
        print(json.dumps({"matrix": table, "bars": bars, "seconds": round(seconds, 1)},
                         indent=2))
    else:
        width = 12
        print(f"{'':14}" + "".join(f"{c.replace('_unconfirmed', '?'):>{width}}"
                                    for c in COLUMNS) + f"{'total':>{width}}")
        for truth in ("false", "true"):
            row = table[truth]
            print(f"{truth + ' statement':14}" + "".join(f"{row[c]:>{width}}" for c in COLUMNS)
                  + f"{sum(row.values()):>{width}}")
        groups = Counter((o.statement.group, o.statement.truth) for o in outcomes)
        print("\nby group: " + ", ".join(f"{g} ({'true' if t else 'false'}): {n}"
                                        for (g, t), n in sorted(groups.items())))
        print("refuted? = refuted, but the counterexample did not survive recomputation")
        for name, ok in bars.items():
            print(f"  {'✓' if ok else '✗'} {name}")
        print(f"{len(outcomes)} statements in {seconds:.1f} s")
    return 0 if all(bars.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
