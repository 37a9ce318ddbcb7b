"""Permutation equivariance (issue 16 §1): proved, its refutations confirmed, and the same
facts on torch's real ``nn.MultiheadAttention`` (no mask: equivariant; causal: not)."""

from __future__ import annotations

import mpmath
import pytest
import sympy as sp

from posproof.errors import InvalidParameter
from posproof.proofs.permutation import attention, prove_permutation


@pytest.fixture(scope="module")
def report():
    return prove_permutation(n_max=4)


def test_statuses_and_lemma_chain(report):
    assert [(p.name, p.status) for p in report.theorems] == [
        ("permutation:equivariance", "proved"), ("permutation:sinusoidal-pe", "proved"),
        ("permutation:causal-mask", "proved"), ("permutation:rope-offsets", "proved")]
    assert report.ok      # the documented, expected results: nothing is reported as refuted
    eq = report["permutation:equivariance"]
    rules = " ".join(s.rule for s in eq.steps)
    assert "softmax commutes with permutations" in rules
    assert "orthogonal" in rules
    assert "n = 1 … 4" in eq.steps[-1].statement
    assert float(eq.crosscheck["max_abs_difference"]) < 1e-30


@pytest.mark.parametrize("name", ["permutation:sinusoidal-pe", "permutation:causal-mask"])
def test_counterexamples_recomputed_independently(report, name):
    assert "≠" in report[name].statement
    assert report[name].counterexample is None
    cex = report[name].values["witness"]
    x = [[sp.Rational(v) for v in row] for row in cex["X"]]
    eye = [[1, 0], [0, 1]]
    pe = name.endswith("pe")
    with mpmath.workdps(40):
        add = ([[mpmath.sin(p), mpmath.cos(p)] for p in range(3)] if pe
               else [[0, 0]] * 3)

        def f(rows):
            shifted = [[mpmath.mpf(a.p) / a.q + b for a, b in zip(r, s, strict=True)]
                       for r, s in zip(rows, add, strict=True)]
            return attention(shifted, eye, eye, eye, exp=mpmath.exp, sqrt_d=mpmath.sqrt(2),
                             causal=not pe)

        swapped = [x[1], x[0], x[2]]
        lhs, rhs = f(swapped), f(x)
        i, j = cex["entry"]
        rhs_perm = [rhs[1], rhs[0], rhs[2]]
        assert abs(lhs[i][j] - rhs_perm[i][j]) > mpmath.mpf("1e-3")
        assert float(cex["A(PX)"]) == pytest.approx(float(lhs[i][j]), abs=1e-10)


def test_symbolic_equivariance_catches_a_broken_attention(monkeypatch):
    """A softmax over columns instead of rows is not equivariant-in-rows of the same shape:
    the symbolic lemma check must not call it proved."""
    import posproof.proofs.permutation as perm

    def column_softmax(x, wq, wk, wv, *, exp, sqrt_d, causal=False):
        out = attention(x, wq, wk, wv, exp=exp, sqrt_d=sqrt_d, causal=causal)
        return [[v + i for v in row] for i, row in enumerate(out)]  # adds the row index

    monkeypatch.setattr(perm, "attention", column_softmax)
    assert perm.prove_permutation(n_max=2).theorems[0].status == "unknown"


def test_torch_multihead_attention():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    mha = torch.nn.MultiheadAttention(8, 2, batch_first=True).double()
    x = torch.randn(1, 6, 8, dtype=torch.float64)
    perm = torch.randperm(6)
    out, _ = mha(x, x, x, need_weights=False)
    xp = x[:, perm]
    out_p, _ = mha(xp, xp, xp, need_weights=False)
    assert torch.allclose(out_p, out[:, perm], atol=1e-12)
    mask = torch.nn.Transformer.generate_square_subsequent_mask(6, dtype=torch.float64)
    out, _ = mha(x, x, x, attn_mask=mask, need_weights=False)
    out_p, _ = mha(xp, xp, xp, attn_mask=mask, need_weights=False)
    assert not torch.allclose(out_p, out[:, perm], atol=1e-6)


def test_bad_input():
    for bad in ({"n_max": 0}, {"n_max": 9}, {"seed": -1}, {"n_max": "3"}):
        with pytest.raises(InvalidParameter) as info:
            prove_permutation(**bad)
        assert "\n" not in str(info.value)


def test_cli_prove_permutation(capsys):
    import json

    from posproof.cli.app import main

    assert main(["prove", "--theorem", "permutation-equivariance", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [t["status"] for t in out["theorems"]] == ["proved"] * 4
    assert out["ok"] is True
    assert main(["prove", "--theorem", "permutation-equivariance"]) == 0
    text = capsys.readouterr().out
    assert text.strip().splitlines()[-1].startswith("verdict: OK — 4 proved, 0 refuted")
    assert "counterexample  (" not in text      # no blank counterexample line
    assert "witness: entry [0, 0] differs by [-0.666325335852" in text
    assert main(["prove", "--theorem", "permutation-equivariance", "--theorem", "norm"]) == 2
    assert "stands alone" in capsys.readouterr().err


def test_derive_opens_with_why_positions():
    from posproof import preset
    from posproof.document.derive import derive

    md = derive(preset("vaswani", dim=4), max_len=100, general=False, figures=[]).markdown()
    sections = [line for line in md.splitlines() if line.startswith("## ")]
    assert sections[0] == "## 0. Why positions at all"
    assert "(**proved** for every n" in md
    assert md.count("**proved** (a witness): with a") == 2
    assert "**refuted**" not in md
