"""Theorems about multi-axis encodings (issue 15): ``prove_multi``, its claims and the CLI.

Every theorem is proved for several presets at small dims; each refutation's counterexample
is recomputed here independently (mpmath from the model's own table / rotation, or the
numpy table) and must show the difference it claims; broken copies (axes swapped,
``with_axes``, a lone sine) must not prove what does not hold for them.
"""

from __future__ import annotations

import json

import corpus
import corpus_multiaxis
import mpmath
import numpy as np
import pytest
import sympy as sp

from posproof import prove_multi
from posproof.cli.app import main
from posproof.errors import InvalidEncoding, InvalidParameter, UnknownName
from posproof.model.encoding import Encoding
from posproof.model.multiaxis import MultiAxisEncoding, axis_symbols, multi_preset
from posproof.model.multirope import MultiAxisRotary, axial_rope, mrope
from posproof.model.schedules import Geometric
from posproof.proofs.multiaxis import direct_sum_problems, rotary_direct_sum_problems
from posproof.proofs.multiaxis.check import (
    MULTI_ROTARY_THEOREMS,
    MULTI_THEOREMS,
    CrossCheckMismatch,
    encoding_residual,
    rotary_residual,
)
from posproof.proofs.multiaxis.claims import (
    axis_claim,
    certified_difference,
    convention_claim,
    meshgrid_claim,
    sections_claim,
)
from posproof.proofs.multiaxis.general import (
    general_multi,
    mrope_diagonal,
    mrope_diagonal_general,
    mrope_diagonal_of,
)

ENCODINGS = {
    "sincos-2d": lambda: multi_preset("sincos-2d", dim=8),
    "sincos-2d-ij": lambda: multi_preset("sincos-2d", dim=8, first="row"),
    "pe-2d": lambda: multi_preset("pe-2d", dim=8),
    "pe-2d-cut-pair": lambda: multi_preset("pe-2d", dim=6),
    "pe-3d": lambda: multi_preset("pe-3d", dim=12),
}
ROTARIES = {
    "mrope": lambda: mrope(10000, 16, [2, 3, 3]),
    "mrope-interleaved": lambda: mrope(1000000, 16, [4, 2, 2], interleaved=True),
    "axial-adjacent": lambda: axial_rope((4, 4, 8)),
    "axial-half": lambda: axial_rope((4, 8), layout="half"),
}


def _statuses(report):
    return {p.name: p.status for p in report.theorems}


# ---------------------------------------------------------------------- theorems
@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_every_encoding_theorem_is_proved(name):
    enc = ENCODINGS[name]()
    report = prove_multi(enc)
    assert _statuses(report) == {f"multi:{t}": "proved" for t in MULTI_THEOREMS}
    for proof in report.theorems:
        assert proof.crosscheck
        assert float(proof.crosscheck["max_residual"]) < 1e-30
        # each composed theorem cites the 1-D proof of every block it rests on
        if MULTI_THEOREMS[proof.name.removeprefix("multi:")] is not None:
            assert sum("1-D, proved" in s.statement for s in proof.steps) == len(enc.blocks)


@pytest.mark.parametrize("name", sorted(ROTARIES))
def test_every_rotary_theorem_is_proved(name):
    rot = ROTARIES[name]()
    report = prove_multi(rot)
    expected = {f"multi-rotary:{t}": "proved" for t in MULTI_ROTARY_THEOREMS}
    if name.startswith("mrope"):
        expected["mrope:diagonal"] = "proved"
    assert _statuses(report) == expected


@pytest.mark.parametrize("name", ["sincos-2d", "pe-3d"])
def test_general_forms_for_encodings(name):
    report = prove_multi(ENCODINGS[name](), general=True, theorems=["translation[row]",
                                                                    "dot_product"])
    general = [p for p in report.theorems if p.general]
    assert [(p.name, p.status) for p in general] == [
        ("general:multi:translation[row]", "proved"), ("general:multi:dot_product", "proved")]
    # rests on the 1-D theorem for every even d, and was checked on random splits
    assert all(any(s.rule.startswith("general:") for s in p.steps) for p in general)
    assert all(p.crosscheck["splits"] for p in general)


def test_general_forms_for_rotaries():
    report = prove_multi(ROTARIES["mrope"](), general=True)
    general = {p.name: p.status for p in report.theorems if p.general}
    assert general == {"general:multi-rotary:relative": "proved",
                       "general:multi-rotary:orthogonal": "proved",
                       "general:multi-rotary:direct_sum": "proved",
                       "general:mrope:diagonal": "proved"}


# ---------------------------------------------------------------------- M-RoPE diagonal
@pytest.mark.parametrize(("base", "head_dim", "sections", "interleaved"), [
    (10000, 8, [2, 1, 1], False), (1000000, 128, [16, 24, 24], False),
    (5000000, 128, [24, 20, 20], True), (10000, 12, [1, 5], False), (10000, 16, [8], True)])
def test_mrope_reduces_to_rope_on_the_diagonal(base, head_dim, sections, interleaved):
    from posproof.model.rope import Rotary

    proof = mrope_diagonal(base, head_dim, sections, interleaved=interleaved)
    assert proof.status == "proved"
    # independently: the float tables agree on the diagonal, and not off it
    rot = mrope(base, head_dim, sections, interleaved=interleaved)
    plain = Rotary(Geometric(base), head_dim)
    x = np.random.default_rng(0).normal(size=(5, head_dim))
    pos = np.array([3, 17, 100, 1000, 4097])
    np.testing.assert_allclose(rot.apply(x, np.tile(pos, (len(sections), 1))),
                               plain.apply(x, pos), atol=1e-9)
    if len(sections) > 1:
        off = np.tile(pos, (len(sections), 1))
        off[-1] += 7
        assert np.abs(rot.apply(x, off) - plain.apply(x, pos)).max() > 1e-3


def test_mrope_diagonal_general_and_of_a_built_rotary():
    general = mrope_diagonal_general(seed=3)
    assert general.status == "proved"
    assert general.general
    assert len(general.crosscheck["instances"]) >= 1
    assert mrope_diagonal_of(mrope(1000000, 32, [4, 6, 6])).status == "proved"
    # a misread assignment is still RoPE on the diagonal: that is the theorem
    broken = mrope(10000, 16, [2, 3, 3]).with_axes([2, 1, 0, 0, 1, 2, 0, 1])
    assert mrope_diagonal_of(broken).status == "proved"


def test_mrope_diagonal_refuses_bad_sections_in_one_line():
    with pytest.raises(InvalidEncoding, match="sums to 7"):
        mrope_diagonal(10000, 16, [2, 2, 3])


# ---------------------------------------------------------------------- refutations
def _mp_column(enc, j, position):
    """Column j of PE(position) from the float64 table (independent of the symbolic vector
    the proof evaluates)."""
    table = enc.table(np.array([position]))
    return table[0, j]


def test_axis_claim_refutes_swapped_axes_with_a_real_difference():
    enc = multi_preset("sincos-2d", dim=8)
    proof = axis_claim(enc, "row")
    assert proof.status == "refuted"
    ce = proof.counterexample
    assert (ce["claimed_axis"], ce["actual_axis"]) == ("row", "col")
    j, before, after = ce["column"], ce["position"], ce["moved_position"]
    # only the column coordinate moved, and column j (in "the row's half") changed
    assert before[0] == after[0]
    assert before[1] != after[1]
    assert abs(_mp_column(enc, j, after) - _mp_column(enc, j, before)) > 0.1
    assert axis_claim(enc, "column").status == "proved"
    assert axis_claim(enc, ["col", "row"]).status == "proved"
    # the meshgrid "ij" port is the swapped copy: the claim flips with it
    assert axis_claim(enc.swapped((1, 0)), "row").status == "proved"
    assert axis_claim(enc.swapped((1, 0)), "column").status == "refuted"


def test_axis_claim_on_pe_3d_blocks():
    enc = multi_preset("pe-3d", dim=12)
    assert axis_claim(enc, ["x", "y", "z"]).status == "proved"
    proof = axis_claim(enc, ["x", "z", "y"])
    assert proof.status == "refuted"
    assert proof.counterexample["block"] == 1


def test_sections_claim_refutes_a_wrong_sum_and_a_misread():
    rot = mrope(10000, 16, [2, 3, 3])
    assert sections_claim(rot, [2, 3, 3]).status == "proved"
    wrong_sum = sections_claim(rot, [2, 3, 2])
    assert wrong_sum.status == "refuted"
    assert (wrong_sum.counterexample["sections_sum"], wrong_sum.counterexample["pairs"]) == (7, 8)
    assert wrong_sum.counterexample["unassigned_pairs"] == [7]
    misread = sections_claim(rot, [3, 3, 2])
    assert misread.status == "refuted"
    ce = misread.counterexample
    # independently: at that position (only the actual axis moved) the pair really turns
    angles = rot.angles(np.array(ce["position"]).reshape(-1, 1))
    assert abs(np.cos(angles[0, ce["pair"]]) - 1) > 1e-6
    interleaved = mrope(10000, 16, [4, 2, 2], interleaved=True)
    assert sections_claim(interleaved, [4, 2, 2], interleaved=True).status == "proved"
    assert sections_claim(interleaved, [4, 2, 2]).status == "refuted"


def test_meshgrid_ij_refuted_where_the_spec_says_xy():
    enc = multi_preset("sincos-2d", dim=8)
    proof = meshgrid_claim(enc, (3, 4))
    assert proof.status == "refuted"
    ce = proof.counterexample
    # rebuild both tables the way MAE's code does and compare that row and column
    gh, gw = np.arange(3, dtype=float), np.arange(4, dtype=float)
    for indexing, key in (("xy", "spec_position"), ("ij", "built_position")):
        grid = np.meshgrid(gw, gh, indexing=indexing)
        row_col = (grid[1].reshape(-1)[ce["row"]], grid[0].reshape(-1)[ce["row"]])
        assert list(row_col) == ce[key]
    assert abs(_mp_column(enc, ce["column"], ce["built_position"])
               - _mp_column(enc, ce["column"], ce["spec_position"])) > 1e-3
    assert meshgrid_claim(enc, (3, 4), indexing="xy").status == "proved"
    assert meshgrid_claim(enc, (1, 5)).status == "proved"   # one row: both builds agree


def test_convention_claim():
    enc = multi_preset("pe-2d", dim=8)
    assert convention_claim(enc, "row").status == "proved"
    proof = convention_claim(enc, "column")
    assert proof.status == "refuted"
    ce = proof.counterexample
    xs, ds = ce["x"], ce["delta"]
    t = np.array(enc.translation([sp.Integer(d) for d in ds], "column").evalf(), dtype=float)
    lhs = enc.table(np.array([[a + b for a, b in zip(xs, ds, strict=True)]]))[0]
    rhs = enc.table(np.array([xs]))[0] @ t
    assert abs(lhs[ce["column"]] - rhs[ce["column"]]) > 1e-3


def test_certified_difference_is_none_for_an_exact_zero():
    assert certified_difference(sp.sin(sp.pi / 6), sp.Rational(1, 2)) is None
    ce = certified_difference(sp.cos(sp.Integer(1)), sp.Rational(54, 100))
    assert ce is not None
    assert ce["bits"] == 192


# ---------------------------------------------------------------------- broken copies
def test_broken_copies_do_not_prove_what_fails():
    # a lone sine (pe-2d cut inside a pair): no T(Δ), no constant norm: never proved
    report = prove_multi(multi_preset("pe-2d", dim=5))
    assert all(p.status == "unknown" for p in report.theorems)
    assert direct_sum_problems(multi_preset("pe-2d", dim=5))
    # sections misread: still a direct sum over axes (other axes), but not the claimed one
    rot = mrope(10000, 8, [2, 1, 1])
    broken = rot.with_axes([0, 1, 2, 0])
    assert sections_claim(broken, [2, 1, 1]).status == "refuted"
    assert rotary_direct_sum_problems(broken) == []       # still a direct sum, other axes


def test_crosscheck_catches_a_wrong_statement():
    """The numeric cross-check is not vacuous: a table whose translation is wrong fails it."""
    enc = multi_preset("pe-2d", dim=4)

    class Wrong(MultiAxisEncoding):
        def translation_entries(self, delta=None, convention="row"):
            out = super().translation_entries(delta, convention)
            return {ij: 2 * v for ij, v in out.items()}

    wrong = Wrong([(b.axis, b.encoding) for b in enc.blocks])
    with pytest.raises(CrossCheckMismatch):
        encoding_residual(wrong, "translation[row]", 0)
    with pytest.raises(CrossCheckMismatch):
        encoding_residual(wrong, "orthogonal", 0)
    assert float(encoding_residual(enc, "translation[row]", 0)) < 1e-30

    rot = mrope(10000, 8, [2, 1, 1])
    assert float(rotary_residual(rot, "relative", 0)) < 1e-30


def test_general_split_sample_mixes_axes_and_layouts():
    blocks = [(0, Encoding(Geometric(100), "split", 4)), (1, Encoding(Geometric(10000),
                                                                      "interleaved", 6)),
              (0, Encoding(Geometric(10000), "interleaved", 2))]
    enc = MultiAxisEncoding(blocks)
    report = prove_multi(enc, general=True, theorems=["group_law", "norm"])
    assert all(p.status == "proved" for p in report.theorems)
    assert [p.status for p in general_multi(enc, ["orthogonal"])] == ["proved"]


# ---------------------------------------------------------------------- bad input
def test_bad_input_is_one_named_line():
    enc = multi_preset("sincos-2d", dim=8)
    cases = [
        (lambda: prove_multi("sincos-2d"), InvalidParameter),
        (lambda: prove_multi(enc, theorems=["relative"]), UnknownName),
        (lambda: prove_multi(enc, claim_sections=[1, 1]), InvalidParameter),
        (lambda: prove_multi(mrope(10000, 8, [2, 1, 1]), claim_axes="row"), InvalidParameter),
        (lambda: axis_claim(enc, "depth"), UnknownName),
        (lambda: axis_claim(enc, [0, 1, 0]), InvalidParameter),
        (lambda: meshgrid_claim(multi_preset("pe-3d", dim=12), (2, 2)), InvalidParameter),
        (lambda: meshgrid_claim(enc, (2, 2), indexing="yx"), InvalidParameter),
        (lambda: convention_claim(enc, "diagonal"), InvalidParameter),
        (lambda: sections_claim(mrope(10000, 8, [2, 1, 1]), "2,1,1"), InvalidParameter),
    ]
    for call, error in cases:
        with pytest.raises(error) as info:
            call()
        assert "\n" not in str(info.value)


# ---------------------------------------------------------------------- CLI
@pytest.mark.parametrize("argv", [
    ["--preset", "sincos-2d", "--dim", "8"], ["--preset", "pe-2d", "--dim", "8"],
    ["--preset", "pe-3d", "--dim", "12"],
    ["--preset", "mrope", "--dim", "16", "--mrope-section", "2,3,3"],
    ["--preset", "mrope", "--dim", "16", "--mrope-section", "4,2,2", "--mrope-interleaved"],
    ["--preset", "axial-rope", "--axes-dims", "4,4"],
    ["--preset", "axial-rope", "--axes-dims", "4,4", "--layout", "half"]])
def test_cli_prove_multi_axis(argv, capsys):
    assert main(["prove", *argv]) == 0
    out = capsys.readouterr().out
    assert "verdict: OK" in out
    assert "✗" not in out
    assert main(["prove", *argv, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["ok"]
    assert {t["status"] for t in data["theorems"]} == {"proved"}


def test_cli_claims_refute_and_exit_1(capsys):
    assert main(["prove", "--preset", "sincos-2d", "--dim", "8", "--claim-first", "row"]) == 1
    out = capsys.readouterr().out
    assert "claim:axes" in out
    assert "refuted" in out
    assert main(["prove", "--preset", "sincos-2d", "--dim", "8", "--claim-first",
                 "column"]) == 0
    capsys.readouterr()
    assert main(["prove", "--preset", "mrope", "--dim", "16", "--mrope-section", "2,3,3",
                 "--claim-sections", "2,3,2", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    claim = next(t for t in data["theorems"] if t["name"] == "claim:mrope_section")
    assert claim["status"] == "refuted"
    assert main(["prove", "--preset", "sincos-2d", "--dim", "8", "--grid", "3,4",
                 "--claim-meshgrid", "ij", "--json"]) == 1
    mesh = json.loads(capsys.readouterr().out)["theorems"][0]
    assert (mesh["name"], mesh["status"]) == ("claim:meshgrid", "refuted")
    assert main(["prove", "--preset", "sincos-2d", "--dim", "8", "--grid", "3,4",
                 "--claim-meshgrid", "xy"]) == 0
    capsys.readouterr()
    assert main(["prove", "--preset", "mrope", "--dim", "16", "--mrope-section", "2,3,3",
                 "--claim-sections", "2,3,2", "--json"]) == 1
    claim = next(t for t in json.loads(capsys.readouterr().out)["theorems"]
                 if t["name"] == "claim:mrope_section")
    assert claim["status"] == "refuted"
    assert claim["counterexample"]["sections_sum"] == 7


@pytest.mark.parametrize("argv", [
    ["--preset", "mrope", "--dim", "16", "--mrope-section", "2,3,2"],
    ["--preset", "sincos-2d", "--dim", "8", "--claim-period", "3"],
    ["--preset", "sincos-2d", "--dim", "8", "--claim-first", "depth"],
    ["--preset", "mrope", "--dim", "16", "--mrope-section", "2,3,3", "--claim-sections", "a"],
    ["--preset", "sincos-2d", "--dim", "8", "--theorem", "relative"],
    ["--preset", "sincos-2d", "--dim", "8", "--claim-meshgrid", "ij"],
    ["--preset", "sincos-2d", "--dim", "8", "--grid", "3", "--claim-meshgrid", "ij"],
    ["--preset", "mrope", "--dim", "8", "--mrope-section", "2,1,1", "--claim-first", "row"],
    ["--preset", "pe-2d", "--dim", "8", "--claim-sections", "1,1"],
    ["--preset", "vaswani", "--dim", "8", "--claim-first", "row"]])
def test_cli_bad_input_exits_2_in_one_line(argv, capsys):
    assert main(["prove", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "Traceback" not in err


def test_mpmath_precision_is_untouched():
    before = mpmath.mp.dps, mpmath.iv.prec
    prove_multi(multi_preset("sincos-2d", dim=8), claim_axes="row", general=True)
    assert (mpmath.mp.dps, mpmath.iv.prec) == before
    assert axis_symbols(2) == (sp.Symbol("x_1", real=True), sp.Symbol("x_2", real=True))


# ---------------------------------------------------------------------- soundness corpus
MULTI_FALSE = corpus_multiaxis.false_statements()
MULTI_TRUE = corpus_multiaxis.true_statements()


def test_the_multiaxis_corpus_covers_the_mistakes():
    assert {s.group for s in MULTI_FALSE} == {
        "multi-axis: axes swapped", "multi-axis: sections misread",
        "multi-axis: meshgrid ij vs xy", "multi-axis: wrong convention"}
    assert not any(s.truth for s in MULTI_FALSE)
    assert all(s.truth for s in MULTI_TRUE)
    assert {s.id for s in MULTI_FALSE + MULTI_TRUE} <= {s.id for s in corpus.statements()}


@pytest.mark.parametrize("statement", MULTI_FALSE, ids=[s.id for s in MULTI_FALSE])
def test_false_multiaxis_statement_is_refuted_and_confirmed(statement):
    outcome = corpus.evaluate(statement)
    assert outcome.status == "refuted", (statement.description, outcome.proof.note)
    assert outcome.confirmed, outcome.detail
    assert outcome.proof.counterexample["dps"] >= 50


@pytest.mark.parametrize("statement", MULTI_TRUE, ids=[s.id for s in MULTI_TRUE])
def test_true_multiaxis_statement_is_proved(statement):
    outcome = corpus.evaluate(statement)
    assert outcome.status == "proved", outcome.proof.note
    assert outcome.proof.crosscheck


def test_the_confirmer_rejects_a_made_up_counterexample():
    """A refutation whose counterexample does not move the real axis is not confirmed."""
    statement = next(s for s in MULTI_FALSE if s.id == "multi:sincos-2d:first-half-is-row")
    proof = statement.ask()
    proof.counterexample = {**proof.counterexample, "moved_position": proof.counterexample[
        "position"]}
    with pytest.raises(AssertionError):
        statement.confirm(proof)


def test_mrope_section_claim_without_a_rotary():
    from posproof.proofs.multiaxis.claims import mrope_section_claim

    bad = mrope_section_claim(128, [16, 24, 20])
    assert bad.status == "refuted"
    assert bad.counterexample["unassigned_pairs"] == [60, 61, 62, 63]
    over = mrope_section_claim(16, [4, 4, 4])
    assert over.status == "refuted"
    assert over.counterexample["over_assigned"] == 4
    assert mrope_section_claim(16, [2, 3, 3], interleaved=True).status == "refuted"  # overruns
    good = mrope_section_claim(128, [16, 24, 24])
    assert good.status == "proved"
    assert good.crosscheck["pairs_per_axis"] == [16, 24, 24]
    # the claim agrees with the constructor: what it proves builds, what it refutes does not
    with pytest.raises(InvalidEncoding):
        mrope(10000, 128, [16, 24, 20])
    assert mrope(10000, 128, [16, 24, 24]).n_pairs == 64


def test_mrope_section_claim_with_an_odd_head_dim_is_refuted():
    """head_dim 9: 9 // 2 = 4 = 2 + 1 + 1, yet a head of odd size has no pairs to split
    (issue 29 item 6: the parity test is what refutes it, the sum alone agrees)."""
    from posproof.proofs.multiaxis.claims import mrope_section_claim

    odd = mrope_section_claim(9, [2, 1, 1])
    assert odd.status == "refuted"
    assert "head_dim=9 is odd" in odd.steps[0].statement
    assert mrope_section_claim(9, [2, 1, 1], interleaved=True).status == "refuted"
    assert mrope_section_claim(8, [2, 1, 1]).status == "proved"        # the even neighbour
    with pytest.raises(InvalidEncoding):
        mrope(10000, 9, [2, 1, 1])


def test_prove_multi_convention_claim():
    enc = multi_preset("pe-3d", dim=12)
    statuses = _statuses(prove_multi(enc, claim_convention="column", theorems=["norm"]))
    assert statuses == {"claim:convention": "refuted", "multi:norm": "proved"}
    statuses = _statuses(prove_multi(enc, claim_convention="row", theorems=["norm"]))
    assert statuses["claim:convention"] == "proved"
    with pytest.raises(InvalidParameter):
        prove_multi(mrope(10000, 8, [2, 1, 1]), claim_convention="row")


def test_mrope_diagonal_with_pass_through_channels():
    """θ over rotary_dim = 8 inside head_dim = 12: the base is read back from rotary_dim."""
    rot = MultiAxisRotary(Geometric(10000).frequencies(8), [0, 1, 2, 2], 12)
    proof = mrope_diagonal_of(rot)
    assert proof.status == "proved"
    assert "base=10000" in proof.statement
    # a rotary whose θ is not one geometric schedule is not called plain RoPE
    odd = MultiAxisRotary([1, sp.Rational(1, 3), sp.Rational(1, 5)], [0, 1, 1], 6)
    assert mrope_diagonal_of(odd).status == "unknown"


def test_multiaxis_proofs_are_one_subpackage_and_the_old_paths_still_import() -> None:
    """Issue 22 §4: proofs/multi*.py became the package posproof.proofs.multiaxis; the old
    module paths are aliases of the new modules (the same objects), and the package exports
    what the module posproof.proofs.multiaxis exported."""
    import importlib
    from pathlib import Path

    import posproof
    import posproof.proofs.multiaxis as package
    from posproof.proofs.multiaxis import check, claims, general, prove

    for old, new in (("multicheck", check), ("multiclaims", claims), ("multigeneral", general)):
        assert importlib.import_module(f"posproof.proofs.{old}") is new
    assert package.__all__ == ["MULTI_ROTARY_THEOREMS", "MULTI_THEOREMS", "direct_sum_problems",
                               "padding_clause", "prove_multi", "rotary_direct_sum_problems"]
    assert package.prove_multi is prove.prove_multi is posproof.prove_multi
    assert package.sections_claim is claims.sections_claim
    assert package.MULTI_THEOREMS is check.MULTI_THEOREMS
    flat = sorted(p.name for p in Path(prove.__file__).parents[1].glob("multi*.py"))
    assert flat == [], f"flat multi-axis modules left in posproof/proofs/: {flat}"
