"""xPos (issue 16 §4): the exact model against torchscale 0.3.0's ``XPOS`` (the real one, when
installed: ``pip install torchscale --no-deps``), its theorems, the validated dtype thresholds
of its scales, and ``assert_rotary`` with an XPos spec (broken copies must fail, explained)."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from posproof.errors import InvalidParameter, UnknownName
from posproof.measure.xpos import xpos_scale_limits
from posproof.model.xpos import XPos
from posproof.proofs.xpos import prove_xpos
from posproof.testing import assert_rotary, check_rotary

torch = pytest.importorskip("torch")


def torchscale_xpos():
    return pytest.importorskip("torchscale.component.xpos_relative_position")


def test_zeta_is_the_paper_formula_exactly():
    xp = XPos(16)
    for k, z in enumerate(xp.zetas()):
        assert z == (sp.Rational(2 * k, 16) + sp.Rational(2, 5)) / sp.Rational(7, 5)
    assert XPos(16, gamma=0.4).gamma == sp.Rational(2, 5)


@pytest.mark.parametrize("head_dim", [2, 8, 64])
@pytest.mark.parametrize("length", [5, 64])
def test_model_equals_torchscale(head_dim, length):
    ts = torchscale_xpos()
    module = ts.XPOS(head_dim).double()
    x = np.random.default_rng(head_dim + length).standard_normal((2, length, head_dim))
    for down in (False, True):
        got = module(torch.from_numpy(x), downscale=down).numpy()
        want = XPos(head_dim).apply(x, np.arange(length), key=down)
        # torchscale forms its angles in float32 (fixed_pos_embedding): 1e-6 relative
        assert np.abs(got - want).max() <= 1e-5 * np.abs(want).max()
    assert XPos(head_dim).scale_base == module.scale_base == 512


def test_uncentred_model_differs_per_vector_but_not_in_scores():
    x = np.random.default_rng(0).standard_normal((1, 40, 8))
    c, u = XPos(8), XPos(8, centred=False)
    pos = np.arange(40)
    assert not np.allclose(c.apply(x, pos), u.apply(x, pos))
    sc = c.apply(x, pos)[0] @ c.apply(x, pos, key=True)[0].T
    su = u.apply(x, pos)[0] @ u.apply(x, pos, key=True)[0].T
    assert np.allclose(sc, su, rtol=1e-10)


def test_theorems_proved_and_score_is_relative_numerically():
    report = prove_xpos(XPos(8))
    assert [p.status for p in report.theorems] == ["proved", "proved"]
    decay = report["xpos:decay"]
    assert decay.values["zeta"][0] == "2/7"
    halves = [float(h) for h in decay.values["half_distance"]]
    assert halves == sorted(halves)  # the lowest pair decays fastest
    xp = XPos(8)
    rng = np.random.default_rng(1)
    q, k = rng.standard_normal(8), rng.standard_normal(8)

    def score(m, n):
        return float(xp.apply(q[None], [m])[0] @ xp.apply(k[None], [n], key=True)[0])

    assert score(30, 10) == pytest.approx(score(130, 110), rel=1e-9)
    # not inverted keys would give ζ^((m+n)/B): a shift changes the score
    assert score(30, 10) != pytest.approx(score(30, 30), rel=1e-3)


def test_scale_limits_equal_the_rounding_of_the_exact_scales():
    rows = {r["dtype"]: r for r in xpos_scale_limits(XPos(64))}
    np_types = {"float32": np.float32, "float16": np.float16}
    z = 2 / 7
    for name, row in rows.items():
        p_over, p_under = row["overflow_position"], row["underflow_position"]
        if name in np_types:
            t = np_types[name]
            with np.errstate(over="ignore"):
                assert np.isfinite(t(z ** (-(p_over - 1) / 512)))
                assert np.isinf(t(z ** (-p_over / 512)))
            assert t(z ** ((p_under - 1) / 512)) != 0
            assert t(z ** (p_under / 512)) == 0
        else:
            def bf(v):
                return torch.tensor(v, dtype=torch.float64).to(torch.bfloat16)

            assert torch.isfinite(bf(z ** (-(p_over - 1) / 512)))
            assert torch.isinf(bf(z ** (-p_over / 512)))
            assert bf(z ** ((p_under - 1) / 512)) != 0
            assert bf(z ** (p_under / 512)) == 0
        first = min(p_over, p_under)
        assert row["first_length_uncentred"] == first + 1
        assert row["first_length_centred"] == 2 * first - 1
    assert rows["float16"]["first_length_uncentred"] < rows["float32"]["first_length_uncentred"]


def test_torchscale_centred_scales_survive_where_uncentred_overflow():
    ts = torchscale_xpos()
    row = xpos_scale_limits(XPos(8), ["float16"])[0]
    module = ts.XPOS(8).half()
    n = row["first_length_centred"]

    def unit(length):  # (1, 0) in every pair: each output is scale·cos or scale·sin
        x = torch.zeros((1, length, 8), dtype=torch.float16)
        x[..., ::2] = 1
        return x

    # torchscale rounds ζ and p/B to float16 before the power, which moves the threshold of
    # the exact scales by about a position: a margin of 16 on each side
    ok = module(unit(n - 16), downscale=False)
    assert torch.isfinite(ok).all()
    bad = module(unit(n + 16), downscale=False)
    assert not torch.isfinite(bad).all()
    # uncentred, the same scales would already overflow at half that length
    assert row["first_length_uncentred"] == (n + 1) // 2 + 1
    assert torch.isfinite(module(unit(n - 16), downscale=True)).all()
    # the outputs, not only the scales, overflow earlier: scale·(x·cos − y·sin) reaches
    # √2·scale, so a (1, 1) pair overflows before n
    assert not torch.isfinite(module(torch.ones((1, n - 16, 8), dtype=torch.float16))).all()


def test_assert_rotary_accepts_torchscale():
    ts = torchscale_xpos()
    module = ts.XPOS(16)
    report = assert_rotary(lambda x, down: module(x, downscale=down), XPos(16))
    assert [c["status"] for c in report.checks] == ["pass", "pass"]


def _broken(invert_keys: bool, centred: bool):
    """A copy of torchscale's forward built on its own helpers, with one thing changed."""
    ts = torchscale_xpos()
    zeta = (torch.arange(0, 16, 2) + 0.4 * 16) / (1.4 * 16)

    def apply(x, downscale):
        length = x.shape[1]
        start = -length // 2 if centred else 0
        scale = zeta ** torch.arange(start, start + length).to(zeta).div(512)[:, None]
        sin, cos = ts.fixed_pos_embedding(scale)
        if downscale and invert_keys:
            scale = 1 / scale
        return ts.apply_rotary_pos_emb(x, sin, cos, scale)

    return apply


def test_broken_copies_fail_with_the_right_explanation():
    assert check_rotary(_broken(True, True), XPos(16)).ok
    report = check_rotary(_broken(False, True), XPos(16))
    assert not report.ok
    assert "key scale is not inverted" in report.explanation
    report = check_rotary(_broken(True, False), XPos(16))
    assert not report.ok
    assert "not centred" in report.explanation
    with pytest.raises(AssertionError, match="not centred"):
        assert_rotary(_broken(True, False), XPos(16))


def test_bad_input_is_one_named_line():
    for bad in (lambda: XPos(7), lambda: XPos(8, gamma="-1"), lambda: XPos(8, scale_base=0),
                lambda: prove_xpos("xpos")):
        with pytest.raises(InvalidParameter) as info:
            bad()
        assert "\n" not in str(info.value)
    with pytest.raises(UnknownName, match="float8"):
        xpos_scale_limits(XPos(8), ["float8"])


def test_cli_prove_and_check_xpos(capsys):
    import json

    from posproof.cli.app import main

    assert main(["prove", "--xpos", "16", "--json"]) == 0
    assert [t["status"] for t in json.loads(capsys.readouterr().out)["theorems"]] == [
        "proved", "proved"]
    assert main(["check", "--xpos", "16", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["checks"]
    assert [r.pop("evidence")["audit"]["status"] for r in rows] == ["confirmed"] * 3
    assert rows == [{"name": f"xpos_scale_limits[{r['dtype']}]", "status": "pass",
                     "certified": rows[0]["certified"], **r}
                    for r in xpos_scale_limits(XPos(16))]
    for bad in (["prove", "--xpos", "7"], ["check", "--xpos", "x"]):
        assert main(bad) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1
        assert "Traceback" not in err


def test_cli_check_impl_xpos(tmp_path, capsys):
    torchscale_xpos()
    from posproof.cli.app import main

    impl = tmp_path / "ts_impl.py"
    impl.write_text("from torchscale.component.xpos_relative_position import XPOS\n"
                    "_m = XPOS(16)\n"
                    "def apply(x, downscale):\n    return _m(x, downscale=downscale)\n"
                    "def no_invert(x, downscale):\n    return _m(x, downscale=False)\n")
    assert main(["check-impl", f"{impl}:apply", "--xpos", "16"]) == 0
    assert main(["check-impl", f"{impl}:no_invert", "--xpos", "16"]) == 1
    assert "key scale is not inverted" in capsys.readouterr().out
    assert main(["check-impl", f"{impl}:apply", "--xpos", "15"]) == 2


def test_cli_explain_xpos(capsys):
    import json

    from posproof.cli.app import main

    assert main(["explain", "--xpos", "8", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["numbers"]["zeta"] == [str(z) for z in XPos(8).zetas()]
    assert out["numbers"]["limits"] == xpos_scale_limits(XPos(8))
    assert main(["explain"]) == 2
    assert "CONFIG" in capsys.readouterr().err


def test_identify_names_torchscale_buffer_and_refuses_others(tmp_path, capsys):
    ts = torchscale_xpos()
    from posproof.cli.app import main
    from posproof.testing.rope.xpos import identify_xpos

    buffer = ts.XPOS(64).scale.numpy()
    found = identify_xpos(buffer)
    assert (found["matched"], found["gamma"], found["head_dim"]) == (True, "2/5", 64)
    # a copy with the pair index over d/2 instead of d: not the xPos family
    wrong = ((np.arange(0, 64, 2) * 2 + 0.4 * 64) / (1.4 * 64)).astype(np.float32)
    assert not identify_xpos(wrong)["matched"]
    np.save(tmp_path / "zeta.npy", buffer)
    assert main(["identify", str(tmp_path / "zeta.npy"), "--xpos"]) == 0
    assert "XPos(64, gamma='2/5')" in capsys.readouterr().out
    np.save(tmp_path / "ids.npy", np.arange(4))
    assert main(["identify", str(tmp_path / "ids.npy"), "--xpos"]) == 2


# ------------------------------------------------------ a declared angle dtype (issue 29 item 1b)
@pytest.mark.parametrize("angles", ["bfloat16", "float16", "float64", np.float16])
def test_a_declared_angle_dtype_without_a_model_is_refused(angles):
    """The xPos tolerance models torchscale's float32 angles: another declared dtype is
    refused with one clear line, never silently ignored (a bfloat16 model would widen it)."""
    xp = XPos(8)

    def ok(x, down):
        return xp.apply(np.asarray(x), np.arange(x.shape[1]), key=down)

    with pytest.raises(InvalidParameter, match=r"no rounding model for angles formed in "
                                               r"(bfloat16|float16|float64).*float32"):
        check_rotary(ok, xp, angles=angles)
    report = check_rotary(ok, xp, angles="float32")      # the contract the tolerance models
    assert report.ok, report.message
    assert report.check_evidence["float32_long_length"].unaudited


def test_cli_check_impl_xpos_refuses_a_declared_angle_dtype(tmp_path, capsys):
    from posproof.cli.app import main

    path = tmp_path / "xp.py"
    path.write_text("import numpy as np\nfrom posproof.model.xpos import XPos\nXP = XPos(8)\n"
                    "def apply(x, down):\n    x = np.asarray(x)\n"
                    "    return XP.apply(x, np.arange(x.shape[1]), key=down)\n")
    assert main(["check-impl", f"{path}:apply", "--xpos", "8", "--angles", "bfloat16"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert "no rounding model for angles formed in bfloat16" in err[0]
    assert main(["check-impl", f"{path}:apply", "--xpos", "8", "--angles", "float32"]) == 0
    verdict = capsys.readouterr().out.strip().splitlines()[-1]
    assert "audit (python-flint arb): 1 confirmed, 1 nothing to audit" in verdict
