"""Print the confusion matrix of posproof's explanations over the bug corpus in tests/bug_corpus.py.

    python scripts/bug_confusion.py [--markdown]

Each classic bug is built the way real code builds it and checked with
``check_encoding`` (tables) or ``check_rotary`` (rotations, spec "rope") against
the spec its author meant; the explanation given is
the key of the *confirmed* hypothesis (its regeneration reproduces the impl
within the dtype's tolerance), "" when none is confirmed, "pass" when the
table passes.  Rows: the explanation each bug must get; columns: the one
given.  Correct tables must pass with no explanation.  Exit status 1 when a
bug gets another explanation (or none) or a correct table does not pass.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import bug_corpus  # noqa: E402


def _residual(report: object) -> str:
    hyps = getattr(report, "hypotheses", None) or []
    if hyps and hyps[0].get("fits"):
        return f"{hyps[0]['residual']:.2g} ({hyps[0]['score']:.2f})"
    return ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", action="store_true", help="print Markdown tables")
    args = parser.parse_args(argv)
    rows = []
    start = time.perf_counter()
    for bug in bug_corpus.ALL_BUGS + bug_corpus.ALL_CORRECT:
        t0 = time.perf_counter()
        report, given = bug_corpus.run(bug)
        rows.append((bug, given or "none", _residual(report), time.perf_counter() - t0))
    total = time.perf_counter() - start
    want = [(b.expected or "pass") for b, *_ in rows]
    bad = [r for r, w in zip(rows, want, strict=True) if r[1] != w]
    md = args.markdown
    print("| bug | seen in | spec | must get | given | residual (worst/tol) |" if md else
          f"{'bug':42s} {'spec':14s} {'must get':18s} {'given':18s} residual (worst/tol)")
    if md:
        print("|---|---|---|---|---|---|")
    for (bug, given, resid, _), w in zip(rows, want, strict=True):
        mark = "" if given == w else "  ✗"
        if md:
            print(f"| {bug.id} | {bug.source} | {bug.spec} | {w} | {given}{mark} | {resid} |")
        else:
            print(f"{bug.id:42s} {bug.spec:14s} {w:18s} {given + mark:18s} {resid}")
    counts = Counter(zip(want, (r[1] for r in rows), strict=True))
    keys = sorted(set(want))
    given_keys = keys + sorted({g for _, g in counts} - set(keys))
    print()
    print("confusion matrix (rows: must get; then each explanation given, with its count)")
    if md:
        print()
        print("| must get | given (count) |")
        print("|---|---|")
        for k in keys:
            print(f"| {k} | " + ", ".join(f"{g}: {counts[k, g]}" + ("" if g == k else " ✗")
                                          for g in given_keys if counts[k, g]) + " |")
    else:
        width = max(map(len, keys)) + 1
        for k in keys:
            cells = [f"{g}={counts[k, g]}" for g in given_keys if counts[k, g]]
            print(f"{k:{width}s} " + "  ".join(cells))
    n_bugs, n_ok = len(bug_corpus.ALL_BUGS), len(bug_corpus.ALL_CORRECT)
    right = sum(1 for r, w in zip(rows, want, strict=True) if r[1] == w and w != "pass")
    print()
    print(f"{right} of {n_bugs} bugs get their own confirmed explanation; "
          f"{n_ok - sum(1 for r in bad if r[0].expected == '')} of {n_ok} correct impls pass "
          f"with none; {total:.2f} s in all ({total / len(rows):.3f} s per check)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
