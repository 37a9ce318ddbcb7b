"""The proof engine: true theorems proved, false claims refuted with confirmed counterexamples.

Every refutation is confirmed here *independently* of the engine: the test
rebuilds both sides of the broken identity from the exact SymPy objects
(``Encoding.vector``, the claimed matrix) and evaluates them in mpmath through
``posproof.precise.mp_value``; the residual must be large, not rounding noise.
"""

from __future__ import annotations

import json
from fractions import Fraction

import corpus
import mpmath
import pytest
import sympy as sp
from hypothesis import assume, example, given
from hypothesis import strategies as st

from posproof import Encoding, preset, prove
from posproof.model.encoding import DELTA
from posproof.proofs.theorems import CONCRETE_THEOREMS, GENERAL_THEOREMS, W, parse_block
from posproof.testing.strategies import encodings, perturbed_encodings

W0 = W[0]
COS, SIN = sp.cos(W0 * DELTA), sp.sin(W0 * DELTA)
#: The true block on each (sin, cos) pair in the row convention PE(x+Δ) = PE(x)·T(Δ):
#: sin(w(x+Δ)) = sin·cos wΔ + cos·sin wΔ, cos(w(x+Δ)) = cos·cos wΔ − sin·sin wΔ.
TRUE_BLOCK = sp.Matrix([[COS, -SIN], [SIN, COS]])
TRUE_BLOCK_TEXT = "cos(w*delta), -sin(w*delta); sin(w*delta), cos(w*delta)"
TRANSPOSED_BLOCK_TEXT = "cos(w*delta), sin(w*delta); -sin(w*delta), cos(w*delta)"

#: (preset name, extra parameters) of every sound preset; dims are added per test.
SOUND_PRESETS = [
    ("vaswani", {}),
    ("tensor2tensor", {}),
    ("fairseq", {}),
    ("diffusion", {}),
    ("binary", {}),
    ("explicit", {}),
    ("expression", {"expression": "b**(-2*k/d)"}),
]
MIN_DIM = {"fairseq": 4}


def build(name: str, dim: int, **params: object) -> Encoding:
    """preset(name, dim) with odd dims padded and explicit lists sized to the dim."""
    if dim % 2:
        params.setdefault("odd_dim", "pad")
    if name == "explicit":
        params.setdefault("frequencies", [Fraction(1, 2 * k + 1) for k in range(dim // 2)])
    return preset(name, dim=dim, **params)


block_claim = corpus.block_matrix  # the d×d matrix a 2×2 claim_block stands for


exact, mp = corpus.exact, corpus.mp


def confirm_translation(enc: Encoding, claim: sp.Matrix, ce: dict, convention: str = "row",
                        minimum: float = 0.01) -> None:
    """Recompute the counterexample of a refuted translation claim and check it is real."""
    residual = corpus.translation_residual(enc, claim, ce, convention)
    assert residual > minimum, f"residual {residual} at {ce} is not a counterexample"
    assert abs(residual - mpmath.mpf(ce["residual"])) < mpmath.mpf(10) ** -10 * (1 + residual)


def confirm_dot(enc: Encoding, ce: dict, minimum: float = 0.01) -> None:
    residual = corpus.dot_residual(enc, ce)
    assert residual > minimum
    assert abs(residual - mpmath.mpf(ce["residual"])) < mpmath.mpf(10) ** -10


def confirm_norm(enc: Encoding, ce: dict, minimum: float = 0.01) -> None:
    assert corpus.norm_residual(enc, ce) > minimum


def assert_refuted(proof, enc: Encoding, claim: sp.Matrix | None = None,
                   convention: str = "row", minimum: float = 0.01) -> None:
    """``proof`` is refuted with a counterexample whose residual exceeds ``minimum``.

    ``minimum`` is 0.01 for the fixed mutants (a wrong rotation is off by O(1));
    random encodings with tiny frequencies (1/1000) give honest residuals of
    O(ω) at x = Δ = 1, so the properties ask for 1e-12 — still 20 orders of
    magnitude above the noise of a 50-digit evaluation.
    """
    assert proof.status == "refuted", (proof.name, proof.status, proof.note)
    ce = proof.counterexample
    assert isinstance(ce, dict)
    assert ce["dps"] >= 30
    assert mpmath.mpf(ce["residual"]) > minimum
    if ce.get("kind") == "zero witness":
        assert all(v == 0 for v in enc.vector(exact(ce["x"])))
        assert abs(mp(enc.vector(exact(ce["delta"]))[ce["column"]])) > minimum
    elif ce.get("kind") == "pair witness":
        assert corpus.pair_witness_residual(enc, ce) > minimum
    elif claim is not None:
        confirm_translation(enc, claim, ce, convention, minimum)


# --------------------------------------------------------------------------- presets
PRESET_CASES = [(name, params, dim) for name, params in SOUND_PRESETS
                for dim in (2, 7, 8, 64) if dim >= MIN_DIM.get(name, 1)]


@pytest.mark.parametrize(("name", "params", "dim"), PRESET_CASES,
                         ids=[f"{n}-d{d}" for n, _, d in PRESET_CASES])
def test_every_preset_proves_every_theorem(name: str, params: dict, dim: int) -> None:
    """Each sound preset at d ∈ {2, 7 (padded), 8, 64}: all concrete theorems proved."""
    report = prove(build(name, dim, **params))
    assert [p.name for p in report.theorems] == list(CONCRETE_THEOREMS)
    assert {p.name: p.status for p in report.theorems} == dict.fromkeys(CONCRETE_THEOREMS,
                                                                       "proved")
    assert report.ok
    assert report.exit_status() == 0
    for p in report.theorems:
        assert p.steps, p.name
        if p.crosscheck and "max_residual" in p.crosscheck:
            assert float(p.crosscheck["max_residual"]) < 1e-20, p.name


@pytest.mark.parametrize(("name", "params"), SOUND_PRESETS, ids=[n for n, _ in SOUND_PRESETS])
def test_general_proofs_are_proved(name: str, params: dict) -> None:
    """general=True adds one proof per general theorem, each for every even d, all proved."""
    report = prove(build(name, 8, **params), general=True)
    general = [p for p in report.theorems if p.general]
    assert [p.name for p in general] == [f"general:{n}" for n in GENERAL_THEOREMS]
    assert all(p.status == "proved" for p in report.theorems), [
        (p.name, p.status, p.note) for p in report.theorems if p.status != "proved"]
    for p in general:
        assert "for every even d" in p.statement
        assert p.crosscheck
        assert float(p.crosscheck["max_residual"]) < 1e-30


def test_general_proof_with_theorem_subset() -> None:
    """``theorems=[...]`` restricts the general proofs too."""
    report = prove(preset("vaswani", dim=8), theorems=["norm", "group_law"], general=True)
    assert [p.name for p in report.theorems] == ["norm", "group_law", "general:norm",
                                                  "general:group_law"]
    assert report.ok


@pytest.mark.parametrize("dim", [2, 3, 7, 8, 64])
def test_binary_dials_period_is_two_to_the_n_plus_one(dim: int) -> None:
    """ω_j = π/2^(j+1), j < n: the slowest dial turns once in 2^(n+1) steps, and so do all."""
    enc = build("binary", dim)
    proof = prove(enc, theorems=["periodicity"]).theorems[0]
    assert proof.status == "proved"
    n = dim // 2
    assert proof.statement.endswith(f"exact period {2 ** (n + 1)}")
    # Independent check: every frequency times the period is a whole number of turns,
    # and half the period is not a period of the slowest dial.
    period = sp.Integer(2 ** (n + 1))
    assert all((w * period / (2 * sp.pi)).is_integer for w in enc.frequencies)
    assert not (enc.frequencies[-1] * period / 2 / (2 * sp.pi)).is_integer


def test_binary_dials_with_numerator_two_pi_halve_the_period() -> None:
    proof = prove(preset("binary", dim=8, numerator="2*pi"), theorems=["periodicity"])
    assert proof.theorems[0].statement.endswith("exact period 16")


@pytest.mark.parametrize("dim", [64, 512])
def test_vaswani_is_aperiodic(dim: int) -> None:
    """b = 10000, d = 64: ω_1/ω_0 = 10^(−1/8) is irrational, so no period exists."""
    proof = prove(preset("vaswani", dim=dim), theorems=["periodicity"]).theorems[0]
    assert proof.status == "proved"
    assert "aperiodic" in proof.statement


def test_vaswani_small_dims_are_periodic_because_the_ratios_are_rational() -> None:
    """d = 8: ω_k = 10^(−k), so the curve closes after 2π·1000 (a fact, not a bug)."""
    proof = prove(preset("vaswani", dim=8), theorems=["periodicity"]).theorems[0]
    assert proof.statement.endswith("exact period 2000*pi")


# --------------------------------------------------------------------------- mutants
@pytest.fixture(scope="module")
def enc8() -> Encoding:
    return preset("vaswani", dim=8)


def test_true_block_claim_is_proved(enc8: Encoding) -> None:
    report = prove(enc8, theorems=["translation[row]"], claim_block=TRUE_BLOCK)
    assert [(p.name, p.status) for p in report.theorems] == [("claim[row]", "proved")]


def test_true_matrix_claim_is_proved(enc8: Encoding) -> None:
    for claim in (enc8.translation(DELTA), lambda d: enc8.translation(d)):
        report = prove(enc8, theorems=["translation[row]"], claim=claim)
        assert report.theorems[0].status == "proved"
    column = prove(enc8, theorems=["translation[column]"], convention="column",
                   claim=enc8.translation(DELTA, convention="column"))
    assert column.theorems[0].status == "proved"


@pytest.mark.parametrize("layout", ["interleaved", "interleaved-cos", "split", "split-cos"])
def test_true_block_claim_is_proved_in_every_layout(layout: str) -> None:
    """claim_block is in (sin, cos) order, so the same block is right for every layout."""
    enc = preset("vaswani", dim=8, layout=layout)
    assert prove(enc, theorems=[], claim_block=TRUE_BLOCK).ok


MUTANT_BLOCKS = {
    "transposed": sp.Matrix([[COS, SIN], [-SIN, COS]]),
    "sign flip (1,0)": sp.Matrix([[COS, -SIN], [-SIN, COS]]),
    "sign flip (0,0)": sp.Matrix([[-COS, -SIN], [SIN, COS]]),
    "sin and cos swapped": sp.Matrix([[SIN, -COS], [COS, SIN]]),
    "frequency doubled": TRUE_BLOCK.subs(DELTA, 2 * DELTA),
}


@pytest.mark.parametrize("block", list(MUTANT_BLOCKS.values()), ids=list(MUTANT_BLOCKS))
def test_mutant_blocks_are_refuted(enc8: Encoding, block: sp.Matrix) -> None:
    report = prove(enc8, theorems=["translation[row]"], claim_block=block)
    assert_refuted(report.theorems[0], enc8, block_claim(enc8, block))
    assert report.exit_status() == 1


def test_parse_block_reads_trig_entries() -> None:
    """Regression: parse_block once rejected sin and cos, the alphabet of every block."""
    assert parse_block(TRANSPOSED_BLOCK_TEXT) == MUTANT_BLOCKS["transposed"]


def test_parse_block_refuses_hostile_entries() -> None:
    with pytest.raises(ValueError, match="block entry"):
        parse_block("__import__('os').system('true'), 0; 0, 1")


def test_transposed_block_typed_as_text_is_refuted(enc8: Encoding) -> None:
    """The classic transposed block, typed as text, is refuted; the true block is proved."""
    report = prove(enc8, theorems=["translation[row]"], claim_block=TRANSPOSED_BLOCK_TEXT)
    assert_refuted(report.theorems[0], enc8, block_claim(enc8, MUTANT_BLOCKS["transposed"]))
    true = prove(enc8, theorems=["translation[row]"], claim_block=TRUE_BLOCK_TEXT)
    assert true.theorems[0].status == "proved"


def test_mutant_matrices_are_refuted(enc8: Encoding) -> None:
    """T(−Δ), T(Δ)ᵀ and the column-convention T, each claimed in the row convention."""
    mutants = {
        "T(-delta)": enc8.translation(-DELTA),
        "T(delta).T": enc8.translation(DELTA).T,
        "column convention used as row": enc8.translation(DELTA, convention="column"),
    }
    for label, claim in mutants.items():
        proof = prove(enc8, theorems=["translation[row]"], claim=claim).theorems[0]
        assert proof.status == "refuted", label
        assert_refuted(proof, enc8, claim)


def test_row_matrix_claimed_in_the_column_convention_is_refuted(enc8: Encoding) -> None:
    claim = enc8.translation(DELTA, convention="row")
    proof = prove(enc8, theorems=["translation[column]"], claim=claim,
                  convention="column").theorems[0]
    assert proof.name == "claim[column]"
    assert_refuted(proof, enc8, claim, convention="column")


def test_split_table_claimed_with_the_interleaved_t_is_refuted() -> None:
    split = preset("vaswani", dim=8, layout="split")
    claim = preset("vaswani", dim=8).translation(DELTA)
    assert_refuted(prove(split, theorems=[], claim=claim).theorems[0], split, claim)


def test_full_dense_claim_off_the_blocks_is_not_proved(enc8: Encoding) -> None:
    """A dense claim (every entry non-zero) cannot be the block-diagonal T(Δ)."""
    claim = enc8.translation(DELTA).as_mutable() + sp.ones(8, 8) * sp.sin(DELTA) / 7
    proof = prove(enc8, theorems=[], claim=claim).theorems[0]
    assert proof.status == "refuted"
    assert_refuted(proof, enc8, claim)


def test_sine_only_translation_refuted_by_the_zero_witness() -> None:
    """PE(0) = 0 for a sine-only table, so no linear T maps it to PE(Δ) ≠ 0."""
    enc = preset("sine-only", dim=8)
    report = prove(enc)
    for name in ("translation[row]", "translation[column]"):
        proof = report[name]
        assert_refuted(proof, enc)
        assert proof.counterexample["kind"] == "zero witness"
        assert proof.counterexample["x"] == 0
    assert_refuted(report["dot_product"], enc)
    confirm_dot(enc, report["dot_product"].counterexample)
    assert_refuted(report["norm"], enc)
    confirm_norm(enc, report["norm"].counterexample)
    assert not any(report[n].status == "proved" for n in (
        "orthogonal", "determinant", "group_law", "identity_at_zero", "inverse_is_transpose"))
    assert report.exit_status() == 1


@pytest.mark.parametrize("dim", [4, 8, 64])
def test_column_exponent_bug_is_refuted(dim: int) -> None:
    """Column j with b^(−2j/d) instead of b^(−2⌊j/2⌋/d): no T(Δ), dot product not offset-only."""
    enc = preset("column-exponent", dim=dim)
    assert enc.broken_pairs()[0].startswith("dims 0 and 1 use different frequencies")
    report = prove(enc)
    for name in ("translation[row]", "translation[column]"):
        assert_refuted(report[name], enc)
    confirm_dot(enc, report["dot_product"].counterexample)
    confirm_norm(enc, report["norm"].counterexample)
    assert report["bounded"].status == "proved"  # still true: |sin|, |cos| ≤ 1


def test_mismatched_pair_from_columns_is_refuted() -> None:
    """One pair whose cos has frequency 2 and sin frequency 1 (from_columns)."""
    enc = Encoding.from_columns([("sin", 1), ("cos", 2), ("sin", sp.Rational(1, 100)),
                                 ("cos", sp.Rational(1, 100))])
    report = prove(enc)
    for name in ("translation[row]", "translation[column]", "dot_product", "norm"):
        assert_refuted(report[name], enc)
    assert not report.ok


# --------------------------------------------------------------------------- properties
TINY = 1e-12  # smallest residual accepted as a counterexample in the random properties


@given(encodings(max_dim=24))
@example(preset("vaswani", dim=1, odd_dim="pad"))
@example(preset("vaswani", dim=2))
@example(preset("vaswani", dim=3, odd_dim="pad"))
@example(preset("tensor2tensor", dim=2))
@example(preset("fairseq", dim=4))
@example(preset("binary", dim=3, odd_dim="pad", layout="split-cos"))
@example(preset("explicit", dim=2, frequencies=[Fraction(3, 7)]))
@example(preset("binary", dim=2, numerator=Fraction(107, 14)))
@example(preset("vaswani", dim=40, base=500000))
@example(preset("vaswani", dim=20, base=21048))   # 21048^(-1/10): a 33-digit radicand
def test_valid_encodings_are_never_refuted(enc: Encoding) -> None:
    """Random sound encodings (dims 1, 2, 3 included): every theorem proved, none refuted."""
    report = prove(enc)
    statuses = {p.name: p.status for p in report.theorems}
    assert "refuted" not in statuses.values(), statuses
    assert list(statuses) == list(CONCRETE_THEOREMS), statuses
    for p in report.theorems:
        assert p.status == "proved", (p.name, p.status, p.note)


@given(perturbed_encodings(max_dim=12), st.sampled_from(["row", "column"]))
@example((Encoding.from_columns([("sin", sp.Rational(3, 2)), ("cos", 1)]), 0), "row")
def test_perturbed_frequency_is_never_proved(case: tuple[Encoding, int], convention: str) -> None:
    """Soundness: scale one column's frequency by r ≠ 1 and the pair identities are false."""
    enc, column = case
    assert enc.broken_pairs()
    report = prove(enc, theorems=[f"translation[{convention}]", "dot_product", "norm"])
    for proof in report.theorems:
        assert proof.status != "proved", (proof.name, column)
        if proof.status == "refuted":
            assert_refuted(proof, enc, minimum=TINY)
            if proof.name == "dot_product":
                confirm_dot(enc, proof.counterexample, TINY)
            if proof.name == "norm":
                confirm_norm(enc, proof.counterexample, TINY)


@given(encodings(max_dim=12, names=("vaswani", "binary", "explicit", "tensor2tensor")),
       st.integers(0, 3), st.sampled_from(["row", "column"]))
@example(preset("binary", dim=2, numerator="2*pi"), 0, "row")
@example(preset("binary", dim=2, numerator="pi"), 3, "row")
def test_block_with_one_sign_flipped_is_never_proved(enc: Encoding, entry: int,
                                                     convention: str) -> None:
    """Soundness: negate any one entry of the true block and the claim is refuted."""
    assume(enc.n_pairs > 0)  # with no pair there is no block entry to flip
    i, j = divmod(entry, 2)
    block = TRUE_BLOCK.as_mutable()
    block[i, j] = -block[i, j]
    if convention == "column":
        block = block.T
    report = prove(enc, theorems=[], claim_block=block, convention=convention)
    proof = report.theorems[0]
    assert proof.status == "refuted", (proof.status, proof.note)
    assert_refuted(proof, enc, block_claim(enc, block), convention, minimum=TINY)


@pytest.mark.parametrize(("numerator", "entry"), [("2*pi", (0, 0)), ("pi", (1, 1))])
def test_flip_invisible_at_integers(numerator: str, entry: tuple[int, int]) -> None:
    """Regression: ω = π makes sin(ωx) = 0 at every integer x, and with ω = π/2 the old
    integer candidates all had an odd coordinate where a flipped (1, 1) entry agrees; both
    false claims once stayed 'unknown'."""
    enc = preset("binary", dim=2, numerator=numerator)
    block = TRUE_BLOCK.as_mutable()
    block[entry] = -block[entry]
    proof = prove(enc, theorems=[], claim_block=block).theorems[0]
    assert proof.status == "refuted"
    assert_refuted(proof, enc, block_claim(enc, block), minimum=TINY)


@given(encodings(max_dim=12, names=("vaswani", "binary", "explicit")))
def test_true_block_is_proved_for_random_encodings(enc: Encoding) -> None:
    """The true block, in either convention, is proved for random sound encodings."""
    assume(enc.n_pairs > 0)  # with no pair the claimed block is never used
    for convention, block in (("row", TRUE_BLOCK), ("column", TRUE_BLOCK.T)):
        proof = prove(enc, theorems=[], claim_block=block, convention=convention).theorems[0]
        assert proof.status == "proved", (convention, proof.note)


@given(st.lists(st.fractions(min_value=Fraction(1, 30), max_value=20, max_denominator=30)
                .filter(lambda f: f > 0), min_size=1, max_size=6))
@example([Fraction(2), Fraction(4)])
@example([Fraction(4), Fraction(6)])
@example([Fraction(123, 10)])
def test_period_of_rational_frequencies(freqs: list[Fraction]) -> None:
    """ω_k = a_k/b_k (reduced): the exact period is 2π·lcm(b_k)/gcd(a_k), computed here.

    P is a period iff ω_k·P/2π ∈ ℤ for every k, i.e. P/2π ∈ ⋂ (b_k/a_k)ℤ, and the
    generator of that intersection is lcm(b_k)/gcd(a_k).
    """
    enc = preset("explicit", dim=2 * len(freqs), frequencies=freqs)
    proof = prove(enc, theorems=["periodicity"]).theorems[0]
    assert proof.status == "proved", proof.note
    expected = 2 * sp.pi * sp.ilcm(*[f.denominator for f in freqs], 1) / sp.igcd(
        *[f.numerator for f in freqs], 0)
    head, _, period = proof.statement.partition("exact period ")
    assert head, proof.statement
    assert sp.simplify(sp.sympify(period) - expected) == 0, (period, expected)


def test_period_is_not_approximated_by_nsimplify() -> None:
    """Regression: sp.nsimplify once turned the period 20π/123 (ω = 123/10) into the
    approximation 2**(56/233)*3**(81/233)*5**(129/233)*7**(203/233)/45."""
    enc = preset("explicit", dim=2, frequencies=[Fraction(123, 10)])
    proof = prove(enc, theorems=["periodicity"]).theorems[0]
    assert proof.status == "proved"
    assert proof.statement.endswith("exact period 20*pi/123")


# --------------------------------------------------------------------------- JSON
def test_json_contract_and_determinism() -> None:
    enc = preset("vaswani", dim=8)
    first = prove(enc, general=True).to_json()
    second = prove(preset("vaswani", dim=8), general=True).to_json()
    assert first == second
    data = json.loads(first)
    assert isinstance(data["theorems"], list)
    assert data["theorems"]
    for item in data["theorems"]:
        assert set(item) >= {"name", "status"}
        assert item["status"] in ("proved", "refuted", "unknown")
    assert isinstance(data["checks"], list)
    assert data["ok"] is True


def test_json_of_a_refutation_carries_the_counterexample() -> None:
    data = json.loads(prove(preset("sine-only", dim=4)).to_json())
    refuted = [t for t in data["theorems"] if t["status"] == "refuted"]
    assert refuted
    assert all("counterexample" in t for t in refuted)
    assert data["ok"] is False


def test_seed_changes_points_not_verdicts() -> None:
    a, b = prove(preset("vaswani", dim=8), seed=1), prove(preset("vaswani", dim=8), seed=2)
    assert [p.status for p in a.theorems] == [p.status for p in b.theorems]
    points = {seed: [p.crosscheck["points"] for p in r.theorems
                  if p.crosscheck and "points" in p.crosscheck]
              for seed, r in ((1, a), (2, b))}
    assert points[1]
    assert len(points[1]) == len(points[2])
    # the seed moves the cross-check points; the same seed gives the same points
    assert points[1] != points[2]
    assert points[1] == [p.crosscheck["points"] for p in
                         prove(preset("vaswani", dim=8), seed=1).theorems
                         if p.crosscheck and "points" in p.crosscheck]


# --------------------------------------------------------------------------- bad input
def test_unknown_theorem_and_non_encoding_are_refused() -> None:
    with pytest.raises(ValueError, match="theorem='nosuch' is not known"):
        prove(preset("vaswani", dim=4), theorems=["nosuch"])
    with pytest.raises(ValueError, match="is not an Encoding"):
        prove("vaswani")  # type: ignore[arg-type]


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"claim": sp.eye(4)}, r"claim has shape \(4, 4\); T\(Δ\) for dim=8 is 8×8"),
    ({"claim": sp.eye(8) * sp.Symbol("z")}, r"claim uses symbols \['z'\]"),
    ({"claim_block": sp.eye(3)}, r"claim_block has shape \(3, 3\)"),
    ({"claim_block": "1, 2, 3"}, "is not 2×2"),
])
def test_malformed_claims_are_refused(kwargs: dict, match: str) -> None:
    from posproof import PosproofError

    with pytest.raises(PosproofError, match=match) as info:
        prove(preset("vaswani", dim=8), **kwargs)
    assert isinstance(info.value, ValueError)


# --------------------------------------------------------------------------- known bugs
@pytest.mark.parametrize("name", ["vaswani", "binary", "tensor2tensor", "diffusion"])
def test_dim_one_is_proved(name: str) -> None:
    """Regression: d = 1 (one zero column, no pairs) once crashed periodicity with IndexError."""
    report = prove(preset(name, dim=1, odd_dim="pad"), general=True)
    assert report.ok
    assert report["periodicity"].statement.endswith("constant (no frequencies)")


@pytest.mark.parametrize(("base", "dim"), [(500000, 40), (Fraction(5, 2), 32),
                                           (Fraction(11, 10), 10)])
def test_periodicity_decided_for_composite_bases(base: object, dim: int) -> None:
    """Regression: ω_1/ω_0 = 2**(3/4)*5**(7/10)/10 (base 500000, d = 40) was left undecided."""
    proof = prove(preset("vaswani", dim=dim, base=base), theorems=["periodicity"]).theorems[0]
    assert proof.status == "proved"
    assert "aperiodic" in proof.statement


def test_large_frequencies_keep_every_theorem() -> None:
    """Regression: ω = 10**20 once aborted the whole report with 'crosscheck unknown'."""
    report = prove(preset("explicit", dim=4, frequencies=[10**20, 1]))
    assert [p.name for p in report.theorems] == list(CONCRETE_THEOREMS)
    assert report.ok


@pytest.mark.parametrize("exponent", [60, 100])
def test_crosschecks_stay_meaningful_for_huge_frequencies(exponent: int) -> None:
    """Regression: cross-checks once loosened their tolerance by |ω·x| instead of raising the
    precision, so for ω = 1e60 a residual of 1.06 was accepted as agreement."""
    report = prove(preset("explicit", dim=4, frequencies=[10**exponent, 1]))
    residuals = {p.name: float(p.crosscheck["max_residual"]) for p in report.theorems
                 if p.crosscheck and "max_residual" in p.crosscheck}
    assert residuals
    assert max(residuals.values()) < 1e-20, residuals


def test_period_of_explicit_rationals() -> None:
    """ω = 1, 1/3, 1/5, 1/7: P = 2π·lcm(1, 3, 5, 7) = 210π."""
    proof = prove(build("explicit", 8), theorems=["periodicity"]).theorems[0]
    assert proof.statement.endswith("exact period 210*pi")


def test_general_proofs_same_with_a_shared_identity_cache() -> None:
    """The general proofs give the same answers, cross-checks and evidence whether their
    engines start from an empty identity cache or from the one the concrete proofs filled
    (which keeps every entry it had)."""
    from posproof.proofs.theorems.api import concrete, general_proofs
    from posproof.proofs.theorems.engine import Engine

    enc = preset("vaswani", dim=12)
    alone = [p.to_dict() for p in general_proofs(enc, GENERAL_THEOREMS, 3)]
    engine = Engine(enc, 3)
    for name in CONCRETE_THEOREMS:
        assert concrete(engine, name).status == "proved"
    before = dict(engine.identity_cache)
    shared = [p.to_dict() for p in general_proofs(enc, GENERAL_THEOREMS, 3, share=engine)]
    assert shared == alone
    assert all(p["status"] == "proved" for p in shared)
    assert before.items() <= engine.identity_cache.items()
