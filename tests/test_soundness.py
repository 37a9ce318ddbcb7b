"""Soundness: no false statement is ever proved; every true one is proved, none unknown.

The corpus lives in ``tests/corpus.py``; ``python scripts/confusion_matrix.py``
prints the same results as a confusion matrix.  A refutation counts only when
its counterexample is recomputed here, independently of the engine, and holds
at 50 digits.
"""

from __future__ import annotations

import corpus
import corpus_hair
import mpmath
import pytest
import sympy as sp
from hypothesis import event, given, settings
from hypothesis import strategies as st

from posproof import Encoding, Geometric, preset, prove
from posproof.model.layouts import permutation

FALSE = corpus.false_statements()
TRUE = corpus.true_statements(rotary=False)
#: The small cases (d = 8, the general-d theorems, the claims) run in the fast tier; the
#: same statements at d = 33 (odd, padded) only in the full one (marked slow).
SMALL = {s.id for s in corpus.true_statements(dims=(8,), rotary=False)}


def _ids(statements: list[corpus.Statement]) -> list[str]:
    return [s.id for s in statements]


def test_the_corpus_covers_every_kind_of_mistake() -> None:
    groups = {s.group for s in FALSE}
    assert len(FALSE) >= 40
    assert groups >= {"wrong block", "wrong convention", "wrong layout", "off-by-one schedule",
                      "broken encoding", "wrong permutation", "wrong period", "wrong bound",
                      "rotary q ≠ k frequencies"}
    presets = {s.id.split("[")[0] for s in TRUE if s.group == "preset theorems"}
    assert presets == set(corpus.SOUND_PRESETS)


@pytest.mark.parametrize("statement", FALSE, ids=_ids(FALSE))
def test_false_statement_is_refuted_with_a_confirmed_counterexample(
        statement: corpus.Statement) -> None:
    outcome = corpus.evaluate(statement)
    assert outcome.status == "refuted", (statement.description, outcome.proof.note)
    assert outcome.confirmed, outcome.detail
    assert outcome.proof.counterexample["dps"] >= 50


@pytest.mark.parametrize("statement", [
    pytest.param(s, id=s.id, marks=() if s.id in SMALL else pytest.mark.slow) for s in TRUE])
def test_true_statement_is_proved(statement: corpus.Statement) -> None:
    outcome = corpus.evaluate(statement)
    assert outcome.status == "proved", outcome.proof.note
    assert outcome.proof.crosscheck, "every proof is cross-checked"


@pytest.mark.parametrize("layout", ["half", "adjacent"])
@pytest.mark.parametrize("variant", sorted(corpus.ROTARY_VARIANTS))
def test_every_rotary_variant_statement_is_proved(variant: str, layout: str) -> None:
    statements = corpus.rotary_statements(variant, layout)
    assert len(statements) >= 8
    bad = {s.id: o.status for s in statements if (o := corpus.evaluate(s)).status != "proved"}
    assert bad == {}


# --------------------------------------------------------------------------- the checkers
# The confirmation must be able to fail: a made-up counterexample to a true statement is
# rejected, so "confirmed" means something.
def test_a_fake_counterexample_to_a_true_translation_is_not_confirmed() -> None:
    enc = preset("vaswani", dim=8)
    matrix = corpus.block_matrix(enc, corpus.TRUE_BLOCK)
    proof = prove(enc, theorems=[], claim=matrix).theorems[0]
    assert proof.status == "proved"
    proof.counterexample = {"x": 3, "delta": 2, "column": 1, "residual": "1", "dps": 50}
    with pytest.raises(AssertionError, match="no counterexample"):
        corpus.confirm_translation(enc, matrix)(proof)


@pytest.mark.parametrize(("confirm", "ce"), [
    (lambda e: corpus.confirm_period(e, "32"), {"x": 1, "column": 0}),
    (lambda e: corpus.confirm_bound(e, "1"), {"x": 0, "column": 1}),
    (lambda e: corpus.confirm_permutation(e, "split", permutation("interleaved", "split", 4)),
     {"x": "1/3", "column": 2, "source_column": 4}),
    (lambda e: corpus.confirm_dot(e), {"x": 1, "y": 3, "shift": 5}),
    (lambda e: corpus.confirm_norm(e), {"x": 7}),
])
def test_confirmers_reject_points_where_the_statement_holds(confirm, ce) -> None:
    enc = preset("binary", dim=8)
    proof = prove(enc, theorems=["norm"]).theorems[0]
    proof.counterexample = ce
    with pytest.raises(AssertionError):
        confirm(enc)(proof)


# --------------------------------------------------------------------------- random claims
_ENTRY = st.sampled_from([0, 1, -1]) | st.tuples(
    st.sampled_from([1, -1]), st.sampled_from(["sin", "cos"]),
    st.sampled_from([sp.Integer(1), sp.Integer(2), sp.Rational(1, 2)]))


def _entry(spec) -> sp.Expr:
    if not isinstance(spec, tuple):
        return sp.Integer(spec)
    sign, func, a = spec
    return sign * getattr(sp, func)(a * corpus.W0 * corpus.DELTA)


@settings(max_examples=60)
@given(mutations=st.lists(st.tuples(st.integers(0, 3), _ENTRY), max_size=2),
       layout=st.sampled_from(["interleaved", "interleaved-cos", "split", "split-cos"]),
       convention=st.sampled_from(["row", "column"]))
def test_random_claimed_blocks_are_never_wrongly_decided(mutations, layout, convention) -> None:
    """The true block with up to two entries replaced by signed sin/cos terms or constants:
    "proved" only when the block is still right (checked here numerically at real points),
    "refuted" only with a confirmed counterexample."""
    entries = list(corpus.TRUE_BLOCK if convention == "row" else corpus.TRUE_BLOCK.T)
    for position, spec in mutations:
        entries[position] = _entry(spec)
    block = sp.Matrix(2, 2, entries)
    enc = Encoding(Geometric(10000), layout, 6)
    proof = prove(enc, theorems=[], claim_block=block, convention=convention).theorems[0]
    matrix = corpus.block_matrix(enc, block)
    t = matrix if convention == "row" else matrix.T  # T·PEᵀ = (PE·Tᵀ)ᵀ
    with mpmath.workdps(50):
        worst = max(abs(corpus.mp(enc.vector(x + dl)[j] - (enc.vector(x) * t.subs(corpus.DELTA,
                                                                                   dl))[j]))
                    for x, dl in [(sp.Rational(1, 3), sp.Rational(5, 7)), (2, 3), (11, -4)]
                    for j in range(enc.dim))
    true = worst < mpmath.mpf(10) ** -30
    event(f"{'true' if true else 'false'} block: {proof.status}")
    assert proof.status == ("proved" if true else "refuted"), (block, worst, proof.note)
    if not true:
        corpus.confirm_translation(enc, matrix, convention)(proof)


# --------------------------------------------------------------------------- claims wrong by a hair
# Issue 12 §5 and the hangs of §0 (tests/corpus_hair.py): every item runs under a hard time
# limit; a refutation counts only when its residual has a certified sign (interval
# arithmetic) and an independent 120-digit recomputation agrees with the engine's residual.
HAIR_FALSE = corpus_hair.false_statements()
HAIR_TRUE = corpus_hair.true_statements()


def test_the_hair_corpus_is_large_enough() -> None:
    thin = [s for s in HAIR_FALSE if s.group == "hair-thin claim"]
    assert len(thin) >= 20
    assert len(HAIR_TRUE) >= 20
    assert not any(s.truth for s in HAIR_FALSE)
    assert all(s.truth for s in HAIR_TRUE)


@pytest.mark.parametrize("statement", HAIR_FALSE, ids=_ids(HAIR_FALSE))
def test_a_claim_wrong_by_a_hair_is_refuted_within_the_limit(
        statement: corpus.Statement) -> None:
    outcome = corpus_hair.evaluate_within(statement)
    assert outcome.status == "refuted", (statement.description, outcome.detail,
                                         outcome.proof and outcome.proof.note)
    assert outcome.confirmed, outcome.detail


@pytest.mark.parametrize("statement", HAIR_TRUE, ids=_ids(HAIR_TRUE))
def test_a_true_claim_in_disguise_is_never_refuted(statement: corpus.Statement) -> None:
    outcome = corpus_hair.evaluate_within(statement)
    assert outcome.status in ("proved", "unknown"), (statement.description, outcome.detail)
    if outcome.status == "unknown":  # within the budget, with the reason
        assert outcome.proof.note


def test_the_hair_confirmer_rejects_a_point_where_the_claim_holds() -> None:
    """A made-up counterexample to a true disguised block has no certified sign."""
    statement = next(s for s in HAIR_TRUE if s.id == "disguise:cube[0,0]")
    proof = statement.ask()
    enc = preset("vaswani", dim=8)
    claim = corpus.block_matrix(enc, corpus_hair._matrix(corpus_hair.TRUE_BLOCKS["cube[0,0]"][1]))
    proof.counterexample = {"x": 1, "delta": 1, "column": 0, "residual": "1e-40", "dps": 57}
    with pytest.raises(AssertionError, match="no certified sign"):
        corpus_hair.confirm_validated(enc, claim, "row")(proof)


def test_the_time_limit_stops_a_statement_that_runs_away() -> None:
    def forever():
        while True:
            sum(range(100))
    outcome = corpus_hair.evaluate_within(corpus.Statement("loop", True, "g", forever), 0.5)
    assert outcome.status == "hang"
    assert outcome.seconds < 5
