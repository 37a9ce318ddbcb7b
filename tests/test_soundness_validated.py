"""Soundness, section "validated decisions" (issue 12 §0): tests/corpus_validated.py.

Bars: no false statement proved, no true statement refuted, every refutation
confirmed by an independent interval computation, no crash and no hang (each
statement runs under a hard time limit).  Unknown is allowed on either side.
"""

from __future__ import annotations

import json
from fractions import Fraction

import corpus
import corpus_validated as cv
import pytest
import sympy as sp

from posproof import preset, prove
from posproof.validated import exact_ratio, irrational

FALSE = cv.false_statements()
TRUE = cv.true_statements()


def _ids(statements: list[corpus.Statement]) -> list[str]:
    return [s.id for s in statements]


def test_the_section_holds_every_reproduction_and_thirty_disguises() -> None:
    groups = [s.group for s in FALSE + TRUE]
    assert groups.count("§0 reproduction") >= 12
    assert groups.count("disguised rational") >= 30
    assert {s.truth for s in FALSE} == {False}
    assert {s.truth for s in TRUE} == {True}


@pytest.mark.parametrize(("key", "text", "value"), cv.DISGUISES, ids=[d[0] for d in cv.DISGUISES])
def test_the_disguises_are_the_integers_they_claim(key: str, text: str, value: int) -> None:
    """The truth labels rest on these: text − value is enclosed in a tiny interval around 0
    (the confirmer's own interval arithmetic, 4096 bits), and a clear offset is seen."""
    x = cv.iv_enclose(sp.sympify(text) - value, 4096)
    assert x is not None
    assert 0 in x
    assert x.delta < sp.Float(10) ** -1000
    assert cv.iv_enclose(sp.sympify(text) - value - sp.Rational(1, 10**30), 4096) < 0


@pytest.mark.parametrize("statement", FALSE, ids=_ids(FALSE))
def test_a_false_statement_is_never_proved(statement: corpus.Statement) -> None:
    outcome = cv.evaluate_safely(statement)
    assert outcome.status in ("refuted", "unknown"), (statement.description, outcome.detail)
    if outcome.status == "refuted":
        assert outcome.confirmed, outcome.detail


@pytest.mark.parametrize("statement", TRUE, ids=_ids(TRUE))
def test_a_true_statement_is_never_refuted(statement: corpus.Statement) -> None:
    outcome = cv.evaluate_safely(statement)
    assert outcome.status in ("proved", "unknown"), (statement.description, outcome.detail,
                                                    outcome.proof and outcome.proof.note)


#: Sound but not decided: the identity engine does not normalise a disguised constant
#: factor of a claimed block (the block times 1 + 0·10^100 stays "unknown").
UNDECIDED = {"validated:block-scaled-by-one"}


def test_the_issue_reproductions_are_decided_not_left_unknown() -> None:
    """§0 as reported: each is answered (proved/refuted), not only kept sound."""
    bad = {s.id: o.status for s in cv.reproductions()
           if (o := cv.evaluate_safely(s)).status != ("proved" if s.truth else "refuted")}
    assert set(bad) <= UNDECIDED, bad


# --------------------------------------------------------------------------- the confirmers
def test_the_confirmers_reject_points_where_the_statement_holds() -> None:
    enc = preset("binary", dim=8)
    proof = prove(enc, theorems=[], claim_period="32").theorems[0]
    proof.counterexample = {"x": "1.5", "column": 0}
    with pytest.raises(AssertionError, match="no certified sign"):
        cv.confirm_period(enc, "32")(proof)
    proof.counterexample = {"x": "0", "x_exact": "0", "column": 1}   # cos(0) = 1 = the bound
    with pytest.raises(AssertionError, match="not certainly above"):
        cv.confirm_bound(enc, "1 + (log(8)/log(2) - 3)*10**90")(proof)


def test_the_confirmer_sees_a_residual_of_ten_to_minus_thirty() -> None:
    assert cv.certainly_positive(sp.sin(1 + sp.Rational(1, 10**30)) - sp.sin(1))
    assert not cv.certainly_positive(sp.log(8) / sp.log(2) - 3)


# --------------------------------------------------------------------------- the ratio test
@pytest.mark.parametrize("text", [d[1] for d in cv.DISGUISES])
def test_a_disguised_integer_is_never_called_irrational(text: str) -> None:
    value = sp.sympify(text)
    assert irrational(value) is None
    assert exact_ratio(value, sp.Integer(1)) is not False


def test_irrationality_needs_a_named_proof() -> None:
    assert "unique factorisation" in irrational(sp.sqrt(2))
    assert "Lindemann" in irrational(sp.pi / 3)
    assert "√2 is irrational" in irrational((1 + sp.sqrt(2)) ** 2)    # 3 + 2√2
    assert irrational(2 + sp.sqrt(2) / sp.Integer(10) ** 200) is None   # 2 to 200 digits
    assert irrational(sp.log(3) / sp.log(2)) is None           # irrational, unproved here


# --------------------------------------------------------------------------- the issue's commands
def _prove_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, dict]:
    from posproof.cli.app import main

    status = main(["prove", *argv, "--json"])
    out, err = capsys.readouterr()
    assert status in (0, 1), err
    return {t["name"]: t for t in json.loads(out)["theorems"]}


@pytest.mark.parametrize(("argv", "name", "status", "check"), [
    (("--preset", "explicit", "--dim", "4", "--frequencies", "1, (1/(sqrt(2)-1) - 1)**2",
      "--theorem", "periodicity"), "periodicity", "proved",
     lambda t: t["values"]["period"] == "2*pi"),
    (("--dim", "6", "--expression", "(1/(sqrt(2)-1)-1)**(2*k)", "--theorem", "periodicity"),
     "periodicity", "proved", lambda t: t["values"]["period"] != "none"),
    (("--dim", "4", "--theorem", "bounded", "--claim-bound",
      "1/2 + (log(8)/log(2) - 3)*10**85"), "claim:bound", "refuted",
     lambda t: t["counterexample"]["certified"].startswith("certified")),
    (("--dim", "4", "--theorem", "bounded", "--claim-bound",
      "1 + (log(27)/log(3) - 3)*10**100"), "claim:bound", "proved", lambda t: True),
    (("--preset", "explicit", "--dim", "2", "--frequencies",
      "1 + (log(1000)/log(10) - 3)*10**60", "--claim-period", "2*pi", "--theorem", "bounded"),
     "claim:period", "proved", lambda t: True),
    (("--preset", "explicit", "--dim", "2", "--frequencies",
      "1 + (log(8)/log(2) - 3)*10**80", "--claim-period", "2*pi", "--theorem", "bounded"),
     "claim:period", "proved", lambda t: True),
    (("--preset", "explicit", "--dim", "2", "--frequencies",
      "1 + 10**-30 + (log(8)/log(2) - 3)*10**80", "--claim-period", "2*pi",
      "--theorem", "bounded"),
     "claim:period", "refuted",
     lambda t: t["counterexample"]["certified"] == "interval arithmetic"),
], ids=["periodic-conjugate", "periodic-expression", "bound-half", "bound-one", "period-1e60",
        "period-witness", "period-off-1e-30"])
def test_the_issue_commands(capsys: pytest.CaptureFixture[str], argv, name, status, check) -> None:
    theorem = _prove_json(capsys, *argv)[name]
    assert theorem["status"] == status, theorem.get("note")
    assert check(theorem)


# ------------------------------------------------------------------ mutants (issue 21 §4)
def test_abs_of_an_interval_straddling_zero_reaches_both_ends() -> None:
    """|x| for x in [−3, 1] is [0, 3]: the upper end is max(−a, b), not max(a, b) (= 1), and
    the lower end is 0 (a straddling interval contains 0)."""
    import mpmath

    from posproof.validated import bounds, enclose, sign

    s = sp.Symbol("s")
    for lo_, hi_, top in ((-3, 1, 3), (-1, 3, 3), (-2, 2, 2)):
        lo, hi = bounds(enclose(sp.Abs(s), {s: mpmath.iv.mpf([lo_, hi_])}, prec=64))
        assert lo == 0
        assert hi == top
    for lo_, hi_ in ((-3, -1), (1, 3)):                 # one-signed: [1, 3] either way
        assert bounds(enclose(sp.Abs(s), {s: mpmath.iv.mpf([lo_, hi_])}, prec=64)) == (1, 3)
    # |s| − 2.5 over s in [−3, 1] may be positive (at s = −3): its sign is not certified
    # negative; over s in [−2, 1] it is (|s| ≤ 2 < 2.5)
    assert sign(sp.Abs(s) - sp.Rational(5, 2), {s: mpmath.iv.mpf([-3, 1])}) is None
    assert sign(sp.Abs(s) - sp.Rational(5, 2), {s: mpmath.iv.mpf([-2, 1])}) == -1


def test_sign_of_an_enclosure_touching_zero_is_not_certified() -> None:
    """An enclosure [0, b] (or [a, 0]) does not exclude 0: no sign; just off 0 it does."""
    import mpmath

    from posproof.validated import sign

    s = sp.Symbol("s")
    assert sign(sp.Abs(s), {s: 0}) is None            # exactly 0: enclosure [0, 0]
    assert sign(-sp.Abs(s), {s: 0}) is None
    assert sign(s, {s: mpmath.iv.mpf([0, 1])}) is None
    assert sign(s, {s: mpmath.iv.mpf([-1, 0])}) is None
    tiny = Fraction(1, 10**30)
    assert sign(sp.Abs(s), {s: tiny}) == 1
    assert sign(-sp.Abs(s), {s: tiny}) == -1


def test_mp_value_keeps_its_digit_promise_under_cancellation() -> None:
    """((√2 + 1)²·10⁶⁰ − (3 + 2√2)·10⁶⁰ + π is π; the first enclosure (about 190 bits) is
    thousands wide, so only the width check forces the precision up until 50 digits hold."""
    import mpmath

    from posproof.precise import mp_value
    from posproof.validated import enclose, width_ok

    big = sp.Integer(10) ** 60
    expr = (sp.sqrt(2) + 1) ** 2 * big - (3 + 2 * sp.sqrt(2)) * big + sp.pi
    assert not width_ok(enclose(expr, prec=int(50 * 3.33) + 24), 50)
    value = mp_value(expr, 50)
    with mpmath.workdps(120):
        assert abs(value - mpmath.pi) <= mpmath.mpf(10) ** -49 * mpmath.pi
    # width_ok from both sides: a width just under / just over 10^-digits of the scale
    with mpmath.workprec(400):
        eps = mpmath.mpf(10) ** -50
        assert width_ok(mpmath.iv.mpf([1, 1 + eps * (1 - mpmath.mpf(2) ** -40)]), 50)
        assert not width_ok(mpmath.iv.mpf([1, 1 + eps * (1 + mpmath.mpf(2) ** -40)]), 50)
        assert width_ok(mpmath.iv.mpf([0, eps / 2]), 50)
        assert not width_ok(mpmath.iv.mpf([0, 2 * eps]), 50)


DISGUISED = (sp.sqrt(2) + sp.sqrt(3)) ** 2 - 2 * sp.sqrt(6) + sp.Rational(1, 10**13 + 1)


def test_a_sum_of_radicals_that_is_rational_is_never_called_irrational() -> None:
    """(√2 + √3)² − 2√6 + 1/(10¹³+1) = 5 + 1/(10¹³+1): rational, of height above the
    small-rational guess (10¹²), so only the exact expansion can tell."""
    exact = sp.Rational(5 * (10**13 + 1) + 1, 10**13 + 1)
    assert irrational(DISGUISED) is None
    assert exact_ratio(DISGUISED, sp.Integer(1)) == exact
    from posproof.validated import rational_value

    assert rational_value(DISGUISED) == exact
    # the other side: a + b·√6 with b ≠ 0 is irrational, even 1/(10¹³+1)·√6 away
    near = DISGUISED + sp.sqrt(6) / (10**13 + 1)
    assert irrational(near) is not None
    assert rational_value(near) is None


# issue 29 item 5: √2 − 1 − √(3 − 2√2) = 0 (√(3 − 2√2) = √2 − 1), so this is the rational
# 1 + 1/(10¹³+1), of height above the small-rational guess: two surds remain after
# expansion, and a + b·√n may only be concluded from a single one
CANCELLING_SURDS = (sp.Integer(1) + sp.Rational(1, 10**13 + 1)
                    + (sp.sqrt(2) - 1 - sp.sqrt(3 - 2 * sp.sqrt(2))))


def test_two_surds_that_cancel_are_never_called_irrational() -> None:
    exact = sp.Rational(10**13 + 2, 10**13 + 1)
    assert irrational(CANCELLING_SURDS) is None
    assert exact_ratio(CANCELLING_SURDS, sp.Integer(1)) == exact


def test_a_ratio_with_cancelling_surds_has_a_period_not_none() -> None:
    enc = preset("explicit", dim=4, frequencies=[sp.Integer(1), CANCELLING_SURDS])
    theorem = prove(enc, theorems=["periodicity"]).theorems[0]
    assert theorem.status in ("proved", "unknown")
    if theorem.status == "proved":
        assert theorem.values["period"] == "20000000000002*pi"


def test_a_root_of_an_integer_with_a_big_radicand_is_irrational() -> None:
    """SymPy writes 21048^(-1/10) as (2^7·3^9·877^9)^(1/10)/5262: a 33-digit radicand."""
    value = sp.Integer(21048) ** sp.Rational(-1, 10)
    assert sp.Pow(value, 1).as_coeff_Mul()[1].base > 10**30    # the radicand SymPy keeps
    assert "unique factorisation" in irrational(value)
    assert exact_ratio(value, sp.Integer(1)) is False
    # a big radicand that is a perfect power of a rational power stays rational
    assert irrational(sp.Integer(21048) ** sp.Rational(10, 10)) is None
    assert irrational((sp.Integer(877) ** 9 * 2**10 * 3**10) ** sp.Rational(1, 9)
                      / sp.Integer(877)) is not None      # (2·3)^(10/9): irrational
    theorem = prove(preset("vaswani", dim=20, base=21048), theorems=["periodicity"]).theorems[0]
    assert theorem.status == "proved"
    assert theorem.values["period"] == "none"


def test_big_integers_are_factored_completely_or_not_at_all() -> None:
    from posproof.validated import _prime_factors

    assert _prime_factors(2**7 * 3**9 * 877**9) == {2: 7, 3: 9, 877: 9}
    assert _prime_factors((10007 * 10009) ** 5 * 12) == {2: 2, 3: 1, 10007: 5, 10009: 5}
    assert _prime_factors((2**521 - 1) * (2**607 - 1)) is None     # no partial answer
    assert _prime_factors((2**127 - 1) ** 3 * 10) is None          # root 2^127−1 > 10^30
    assert _prime_factors(2**5000) is None                          # above 4096 bits


def test_a_rewrite_that_changes_the_value_proves_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """irrational() concludes from SymPy's a + b·√n rewrite only when the rewrite's value
    agrees with the expression's: a planted SymPy bug (radsimp answering 1 + √2 for the
    rational CANCELLING_SURDS) must not make a rational irrational."""
    from posproof import validated

    assert irrational(CANCELLING_SURDS) is None
    monkeypatch.setattr(validated.sp, "radsimp", lambda expr: 1 + sp.sqrt(2))
    assert irrational(CANCELLING_SURDS) is None
    assert irrational(1 + sp.sqrt(2)) is not None          # the planted rewrite's own value
