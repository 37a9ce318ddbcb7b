"""Print the soundness confusion matrix of posproof over the corpus in tests/corpus.py.

    python scripts/confusion_matrix.py [--list] [--json]
    python scripts/confusion_matrix.py --count    # the sizes of the corpora only (seconds)

Rows: the truth of each statement.  Columns: posproof's verdict.  A refutation
is counted only when its counterexample is recomputed independently (from the
exact SymPy objects, in mpmath at 50 digits); one that is not confirmed gets
its own column.  Exit status 1 when a bar is missed: a false statement proved,
a true one not proved, fewer than 40 false statements.

A second matrix covers tests/corpus_hair.py (claims wrong by a hair, true claims
in disguise), each statement under a hard time limit (a "hang" column): false
ones must be refuted with a certified counterexample, true ones proved or
unknown, never refuted.

A third covers tests/corpus_validated.py (issue 12 §0: every reproduction, and
claims around disguised rationals such as log(8)/log(2) or (1/(√2−1) − 1)²
times 10^100): false never proved, true never refuted, every refutation
confirmed by an independent interval evaluation, no crash, no hang.

A fourth covers tests/corpus_numeric.py (issue 21): numeric verdicts — decay, the
first negative kernel value, separation, the base bound, pair frequencies — on
statements true or false by 10⁻³⁰ … 10⁻⁶⁰, their truth decided at 400 digits
independently of posproof: no false statement holds, no true one fails.
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
import corpus_hair  # noqa: E402
import corpus_numeric  # noqa: E402
import corpus_validated  # noqa: E402

COLUMNS = ("proved", "refuted", "refuted_unconfirmed", "unknown")


def counts() -> dict[str, dict[str, int]]:
    """How many false and true statements each matrix runs, without deciding any: the
    numbers README.md quotes (tests/test_docs_examples.py compares them)."""
    main = corpus.statements()
    hair = corpus_hair.statements()
    return {
        "corpus": {"false": sum(not s.truth for s in main), "true": sum(s.truth for s in main)},
        "hair": {"false": sum(not s.truth for s in hair), "true": sum(s.truth for s in hair)},
    }


def print_counts(numbers: dict[str, dict[str, int]]) -> None:
    main, hair = numbers["corpus"], numbers["hair"]
    print(f"tests/corpus.py + tests/corpus_multiaxis.py: {main['false']} false statements, "
          f"{main['true']} true")
    print(f"tests/corpus_hair.py: {hair['false']} false statements, {hair['true']} true")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="one line per statement")
    parser.add_argument("--json", action="store_true", help="the matrix as JSON")
    parser.add_argument("--count", action="store_true",
                        help="only count the statements of each corpus (decides none)")
    args = parser.parse_args(argv)
    if args.count:
        numbers = counts()
        if args.json:
            print(json.dumps(numbers, indent=2))
        else:
            print_counts(numbers)
        return 0
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
    hair = _hair_section(args)
    validated = corpus_validated.section(listing=args.list)
    numeric = corpus_numeric.section(listing=args.list)
    if args.json:
        print(json.dumps({"matrix": table, "bars": bars, "seconds": round(seconds, 1),
                          "hair": hair, "validated": validated,
                          "numeric": numeric}, indent=2))
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
        _print_hair(hair)
        corpus_validated.print_section(validated)
        corpus_numeric.print_section(numeric)
    sections_ok = (all(hair["bars"].values()) and all(validated["bars"].values())
                   and all(numeric["bars"].values()))
    return 0 if all(bars.values()) and sections_ok else 1


def _hair_section(args: argparse.Namespace) -> dict:
    """Claims wrong by a hair and true claims in disguise (tests/corpus_hair.py), each under
    a hard time limit: false ones must be refuted with a certified counterexample, true
    ones proved or unknown (never refuted), none may hang."""
    start = time.perf_counter()
    outcomes = []
    for statement in corpus_hair.statements():
        outcome = corpus_hair.evaluate_within(statement)
        outcomes.append(outcome)
        if args.list:
            ok = (outcome.status in ("proved", "unknown") if statement.truth
                  else outcome.status == "refuted" and outcome.confirmed)
            print(f"{'ok' if ok else 'WRONG':5} {'true ' if statement.truth else 'false'} "
                  f"{outcome.status:8} {outcome.seconds:6.2f}s  {statement.id}")
    seconds = time.perf_counter() - start
    table = {truth: Counter() for truth in ("false", "true")}
    for o in outcomes:
        column = ("refuted_unconfirmed" if o.status == "refuted" and o.confirmed is False
                  else o.status)
        table["true" if o.statement.truth else "false"][column] += 1
    false_total, true_total = (sum(table[t].values()) for t in ("false", "true"))
    bars = {
        "hair: false statements >= 20, true statements >= 20": (
            false_total >= 20 and true_total >= 20),
        "hair: false statements refuted with a confirmed counterexample": (
            table["false"]["refuted"] == false_total),
        "hair: true statements refuted == 0": (
            table["true"]["refuted"] + table["true"]["refuted_unconfirmed"] == 0),
        f"hair: no statement ran past {corpus_hair.LIMIT:g} s": (
            table["false"]["hang"] + table["true"]["hang"] == 0),
    }
    columns = (*COLUMNS, "hang")
    return {"section": "claims wrong by a hair / true claims in disguise (tests/corpus_hair.py)",
            "matrix": {t: {c: row[c] for c in columns} for t, row in table.items()},
            "bars": bars, "seconds": round(seconds, 1), "statements": len(outcomes)}


def _print_hair(hair: dict) -> None:
    width = 12
    columns = (*COLUMNS, "hang")
    print(f"\n{hair['section']}")
    print(f"{'':14}" + "".join(f"{c.replace('_unconfirmed', '?'):>{width}}"
                                for c in columns) + f"{'total':>{width}}")
    for truth in ("false", "true"):
        row = hair["matrix"][truth]
        print(f"{truth + ' statement':14}" + "".join(f"{row[c]:>{width}}" for c in columns)
              + f"{sum(row.values()):>{width}}")
    for name, ok in hair["bars"].items():
        print(f"  {'✓' if ok else '✗'} {name}")
    print(f"{hair['statements']} statements in {hair['seconds']:.1f} s "
          f"(budget {corpus_hair.BUDGET} work units per theorem, limit {corpus_hair.LIMIT:g} s "
          "each)")


if __name__ == "__main__":
    raise SystemExit(main())
