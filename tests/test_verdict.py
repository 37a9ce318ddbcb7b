"""The verdict line, computed directly from small Reports (issue 29 item 6).

An unknown theorem or an unknown check never gives OK, nor does a report where nothing was
decided; a refutation counts apart only when it was expected by name.  These run in
milliseconds: the command-level tests (tests/test_one_language_output.py) build encodings and
ran past 300 s on a mutant that broke this very computation.
"""

from __future__ import annotations

import pytest

from posproof.cli.app import _verdict
from posproof.evidence import Audit, Evidence
from posproof.report import Check, Proof, Report
from posproof.verdict import VERDICTS, verdict_text


def _proof(status: str, name: str = "t") -> Proof:
    return Proof(name, f"statement {name}", status)


def _check(status: str, name: str = "c") -> Check:
    return Check(name, status)


def _word(line: str) -> str:
    word = line.split(" — ")[0]
    assert word in VERDICTS
    return word


@pytest.mark.parametrize(("theorems", "checks", "word"), [
    (["proved", "proved"], [], "OK"),
    (["proved", "unknown"], [], "INCOMPLETE"),
    (["unknown"], [], "INCOMPLETE"),
    (["proved"], ["pass", "unknown"], "INCOMPLETE"),
    ([], ["pass", "unknown"], "INCOMPLETE"),
    ([], ["unknown"], "INCOMPLETE"),
    ([], ["pass", "pass"], "OK"),
    (["proved", "refuted"], ["pass"], "REFUTED"),
    (["proved", "refuted"], ["fail"], "REFUTED"),
    (["proved"], ["pass", "fail"], "CHECK FAILED"),
    (["unknown"], ["fail"], "CHECK FAILED"),
    ([], [], "INCOMPLETE"),
])
def test_the_verdict_word_of_a_report(theorems: list[str], checks: list[str], word: str) -> None:
    report = Report({}, [_proof(s, f"t{i}") for i, s in enumerate(theorems)],
                    [_check(s, f"c{i}") for i, s in enumerate(checks)])
    # the default computation, and the one the commands print (ok=report.ok)
    assert _word(verdict_text(report.theorems, report.checks)) == word
    assert _word(_verdict(report)) == word
    assert report.ok is (word == "OK")
    assert report.exit_status() == (0 if word == "OK" else 1)


def test_an_unknown_theorem_is_never_ok() -> None:
    line = verdict_text([_proof("proved"), _proof("unknown")])
    assert line == "INCOMPLETE — 1 proved, 0 refuted, 1 unknown"


def test_an_unknown_check_is_never_ok() -> None:
    line = verdict_text(checks=[{"status": "pass"}, {"status": "unknown"}])
    assert line == "INCOMPLETE — checks 1/2 pass, 1 unknown"
    assert _word(verdict_text([_proof("proved")], [{"status": "unknown"}])) == "INCOMPLETE"


def test_only_the_expected_refutation_counts_apart() -> None:
    theorems = [_proof("refuted", "x"), _proof("refuted", "y")]
    assert _word(verdict_text(theorems, expected=["x", "y"])) == "OK"
    line = verdict_text(theorems, expected=["x"])
    assert line == "REFUTED — 0 proved, 1 refuted, 0 unknown, 1 refuted as expected"


def test_an_unconfirmed_audit_is_counted_on_the_verdict_line() -> None:
    check = _check("pass")
    check.evidence = Evidence("planted", items=[])
    check.evidence.audit = Audit("undecided", "python-flint arb", 1, "planted")
    report = Report({}, [], [check])
    line = _verdict(report)
    assert "audit (python-flint arb): 0 confirmed, 1 undecided" in line
