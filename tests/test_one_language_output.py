"""Issue 22 §2, "one set of options, one output": three-valued answers without a truth value,
the Python spellings of rotary, no traceback into a closed pipe, progress from the start on a
terminal, one verdict line per command, one name per quantity, and ``explain`` on ALiBi
configs."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

from posproof.cli.app import main
from posproof.errors import InvalidParameter
from posproof.verdict import Verdict, verdict_text

ROOT = Path(__file__).resolve().parents[1]
VERDICT = re.compile(r"^verdict: (OK|REFUTED|CHECK FAILED|INCOMPLETE) — \S.*$")


# --------------------------------------------------------------------------- a) Verdict
def test_a_verdict_has_no_truth_value() -> None:
    for v in Verdict:
        with pytest.raises(TypeError, match=r"Verdict\.YES"):
            bool(v)
        with pytest.raises(TypeError):
            _ = "taken" if v else "not taken"  # the accident the type exists to stop
    assert [v.is_yes for v in Verdict] == [True, False, False]
    assert [v.is_no for v in Verdict] == [False, True, False]
    assert [v.is_unknown for v in Verdict] == [False, False, True]
    assert json.dumps([Verdict.YES, Verdict.NO, Verdict.UNKNOWN]) == '["yes", "no", "unknown"]'
    assert Verdict("no") is Verdict.NO
    assert Verdict.NO == "no"
    assert Verdict.NO != "yes"
    assert f"{Verdict.UNKNOWN}" == "unknown"


@pytest.fixture(scope="module")
def bb2048():
    from posproof.measure.explore.basebound import base_bound

    return base_bound(2048, 128, first_only=True)


def test_a_is_good_of_the_issue_is_a_verdict(bb2048) -> None:
    """base_bound(2048, 128).is_good(11587) is 'no': a Verdict now, whose `if` raises; the
    base just above the certified smallest good base (11587.24…) is YES."""
    below, above = bb2048.is_good(11587), bb2048.is_good(11588)
    assert below is Verdict.NO
    assert above is Verdict.YES
    with pytest.raises(TypeError):
        bool(below)
    assert bb2048.status(11587) is Verdict.NO
    assert bb2048.decide(11587).status is Verdict.NO
    entry = bb2048.entry(11587)           # JSON keeps the text
    assert entry["base_ok"] == "no"
    assert type(entry["base_ok"]) is str
    assert type(bb2048.decide(11588).to_dict()["good"]) is str


def test_a_is_good_from_both_sides_of_an_exact_zero() -> None:
    from posproof.measure.explore.basebound import base_bound

    bb = base_bound(30, 4, lowest=2, highest=1e9)
    b = (22 / (22 - 7 * sp.pi)) ** 2       # B(22) = 0 exactly here, < 0 just below
    eps = sp.Rational(1, 10**30)
    assert [bb.is_good(b + s * eps) for s in (-1, 0, 1)] == [Verdict.NO, Verdict.YES,
                                                             Verdict.YES]
    assert bb.is_good(1.5) is Verdict.UNKNOWN       # outside the range


# --------------------------------------------------------------------------- b) spellings
def test_b_rotary_takes_head_dim_and_theta() -> None:
    import posproof
    from posproof.model.specs import parse_spec

    ref = posproof.rotary(500000, 64).to_dict()
    assert posproof.rotary(500000, head_dim=64).to_dict() == ref
    assert posproof.rotary(theta=500000, head_dim=64).to_dict() == ref
    assert posproof.rotary(rope_theta=500000, dim=64).to_dict() == ref
    assert parse_spec("rope:theta=500000,head_dim=64").to_dict() == ref
    assert posproof.rotary(10000, head_dim=64, scaling="linear", factor=2).head_dim == 64
    with pytest.raises(InvalidParameter, match="dim=32 and head_dim=64"):
        posproof.rotary(10000, 32, head_dim=64)
    with pytest.raises(InvalidParameter, match="theta"):
        posproof.rotary(10000, 64, theta=500000)
    assert posproof.rotary(10000, 64, head_dim=64).head_dim == 64    # the same value twice
    yarn = {"factor": 4, "original_max_position_embeddings": 1024}
    assert (posproof.rotary(10000, 64, rope_type="yarn", attention_factor=2, **yarn).to_dict()
            == posproof.rotary(10000, 64, scaling="yarn", attention=2, **yarn).to_dict()
            == parse_spec("rope:dim=64,rope_type=yarn,factor=4,original=1024,"
                          "attention_factor=2").to_dict())
    with pytest.raises(InvalidParameter, match="rope_type='yarn'"):
        posproof.rotary(10000, 64, scaling="linear", rope_type="yarn", factor=2)


def test_b_check_rotary_takes_dim_and_theta() -> None:
    from posproof.testing.rotary import check_rotary

    import posproof

    rot = posproof.rotary(500000, 16)
    assert check_rotary(rot.apply, dim=16, theta=500000).ok
    assert check_rotary(rot.apply, head_dim=16, base=500000).ok
    assert not check_rotary(rot.apply, dim=16, theta=10000).ok      # the base is checked
    with pytest.raises(InvalidParameter, match="head_dim=8 and dim=16"):
        check_rotary(rot.apply, dim=16, head_dim=8)


# --------------------------------------------------------------------------- c) pipes
@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from posproof.model.presets import preset

    tmp = tmp_path_factory.mktemp("out")
    np.save(tmp / "table.npy", np.asarray(preset("vaswani", dim=16).table(64), np.float32))
    np.save(tmp / "slopes.npy", np.array([2.0 ** (-(h + 1)) for h in range(8)]))
    (tmp / "impl.py").write_text(
        "import numpy as np\n"
        "def table(positions, dim=16):\n"
        "    pos = np.asarray(positions, dtype=np.float64)[:, None]\n"
        "    inv = 10000.0 ** (-np.arange(0, dim, 2) / dim)\n"
        "    out = np.zeros((len(pos), dim))\n"
        "    out[:, 0::2], out[:, 1::2] = np.sin(pos * inv), np.cos(pos * inv)\n"
        "    return out\n", encoding="utf-8")
    (tmp / "bloom.json").write_text(json.dumps(
        {"model_type": "bloom", "n_head": 16, "hidden_size": 1024, "n_layer": 24,
         "apply_residual_connection_post_layernorm": False}), encoding="utf-8")
    (tmp / "grid.toml").write_text(
        'metrics = ["pairs_covered", "first_negative"]\nlength = 64\n\n[[family]]\n'
        'kind = "rope"\ndim = 8\nbase = [100, 10000]\n', encoding="utf-8")
    return tmp


PIPED = [
    ["identify", "{tmp}/table.npy"],
    ["check-impl", "{tmp}/impl.py:table", "--dim", "16"],
    ["sweep", "--list-metrics"],
    ["check", "--alibi", "--heads", "12"],
    ["explain", "{tmp}/bloom.json", "--alibi"],
    ["prove", "--theorem", "permutation-equivariance"],
    ["prove", "--alibi", "--heads", "8"],
    ["--help"],
    # JSON larger than the pipe's buffer: the write inside the command fails
    ["explore", "rope:dim=512", "rope:dim=256", "--length", "64", "--dtypes", "", "--json",
     "--no-proofs"],
]


def _piped(argv: list[str], tmp: Path, read_first: bool) -> tuple[int, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # a real user's
    env["PYTHONPATH"] = str(ROOT)
    args = [a.format(tmp=tmp) for a in argv]
    proc = subprocess.Popen([sys.executable, "-m", "posproof", *args], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if read_first:
        proc.stdout.readline()
    proc.stdout.close()          # the reader goes away (| head -1)
    err = proc.stderr.read().decode()
    proc.stderr.close()
    return proc.wait(timeout=120), err


@pytest.mark.parametrize("argv", PIPED, ids=lambda a: " ".join(a[:2]))
def test_c_no_traceback_into_a_closed_pipe(argv: list[str], files: Path) -> None:
    """The pipe closes before the command writes (its whole output is still buffered when
    it returns): the flush at exit used to print "Exception ignored … BrokenPipeError" and
    exit 120."""
    status, err = _piped(argv, files, read_first=False)
    assert "Traceback" not in err
    assert "BrokenPipeError" not in err
    assert err == ""
    assert status in (0, 141)


@pytest.mark.parametrize("argv", PIPED[:3], ids=lambda a: " ".join(a[:2]))
def test_c_no_traceback_after_one_line(argv: list[str], files: Path) -> None:
    status, err = _piped(argv, files, read_first=True)
    assert err == ""
    assert status in (0, 141)


def test_c_run_main_flushes_into_a_closed_pipe(monkeypatch: pytest.MonkeyPatch) -> None:
    """In process: a command that only buffers its output returns 141 from run_main (the
    flush is inside it), and stdout then points at /dev/null (the flush at exit is quiet)."""
    from posproof.cli.options import Parser, run_main

    read, write = os.pipe()
    os.close(read)
    stream = io.TextIOWrapper(io.BufferedWriter(io.FileIO(write, "w")), encoding="utf-8")
    monkeypatch.setattr(sys, "stdout", stream)
    parser = Parser(prog="demo")
    parser.add_subparsers(dest="command").add_parser("go")

    def run(args: object) -> int:
        print("one line, buffered")
        return 0

    try:
        assert run_main(parser, ["go"], run) == 141
        stream.write("more")
        stream.flush()          # /dev/null now: no error
    finally:
        stream.close()


# --------------------------------------------------------------------------- d) progress
class FakeTty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_d_base_bound_draws_zero_before_any_work(monkeypatch: pytest.MonkeyPatch) -> None:
    import posproof.measure.explore.basebound as bbmod

    calls: list[tuple[str, int, int]] = []
    seen: list[int] = []
    real = bbmod.good_tail

    def tail(*args: object, **kw: object) -> object:
        seen.append(len(calls))
        return real(*args, **kw)

    monkeypatch.setattr(bbmod, "good_tail", tail)
    bbmod.base_bound(64, 8, lowest=2, highest=1e4, progress=lambda *a: calls.append(a))
    assert calls[0] == ("certified base search", 0, 1000)
    assert seen == [1]                      # the 0 % came before the first piece of work
    assert calls[-1] == ("certified base search", 1000, 1000)


def _first_theorem_sees(monkeypatch: pytest.MonkeyPatch, fake: FakeTty) -> list[str]:
    import posproof.proofs.theorems.api as api

    seen: list[str] = []
    real = api.concrete

    def concrete(*args: object, **kw: object) -> object:
        seen.append(fake.getvalue())
        return real(*args, **kw)

    monkeypatch.setattr(api, "concrete", concrete)
    return seen


def test_d_verify_draws_its_bar_before_the_first_theorem(monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture) -> None:
    fake = FakeTty()
    monkeypatch.setattr(sys, "stderr", fake)
    seen = _first_theorem_sees(monkeypatch, fake)
    assert main(["verify", "--dim", "8", "--max-len", "200"]) == 0
    assert "proving theorems" in seen[0]
    assert "0%" in seen[0]
    assert "numeric checks" in fake.getvalue()
    assert fake.getvalue().endswith("\r")                      # cleared at the end
    assert capsys.readouterr().out.strip().splitlines()[-1].startswith("verdict: OK — ")


def test_d_no_bar_when_stderr_is_not_a_terminal(monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture) -> None:
    plain = io.StringIO()
    monkeypatch.setattr(sys, "stderr", plain)
    assert main(["prove", "--dim", "8"]) == 0
    assert plain.getvalue() == ""


def test_d_derive_draws_its_bar_before_the_first_theorem(monkeypatch: pytest.MonkeyPatch,
                                                         tmp_path: Path, capsys) -> None:
    fake = FakeTty()
    monkeypatch.setattr(sys, "stderr", fake)
    seen = _first_theorem_sees(monkeypatch, fake)
    assert main(["derive", "--dim", "4", "--max-len", "64", "--no-general", "--no-figures",
                 "--out", str(tmp_path)]) == 0
    assert "proving theorems" in seen[0]
    assert "0%" in seen[0]
    assert "writing the documents" in fake.getvalue()


def test_d_check_impl_shows_work_before_the_check(monkeypatch: pytest.MonkeyPatch, files: Path,
                                                  capsys: pytest.CaptureFixture) -> None:
    import posproof.testing as testing

    fake = FakeTty()
    monkeypatch.setattr(sys, "stderr", fake)
    seen: list[str] = []
    real = testing.check_encoding

    def check(*args: object, **kw: object) -> object:
        seen.append(fake.getvalue())
        return real(*args, **kw)

    monkeypatch.setattr(testing, "check_encoding", check)
    assert main(["check-impl", f"{files}/impl.py:table", "--dim", "16"]) == 0
    assert f"checking {files}/impl.py:table … 0 s" in seen[0]


def test_d_sweep_prints_its_header_and_bar_before_the_first_point(
        monkeypatch: pytest.MonkeyPatch, files: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture) -> None:
    import posproof.sweep.run as run

    fake = FakeTty()
    monkeypatch.setattr(sys, "stderr", fake)
    seen: list[tuple[str, str]] = []
    real = run.evaluate_point

    def point(p: object) -> object:
        seen.append((capsys.readouterr().out, fake.getvalue()))
        return real(p)

    monkeypatch.setattr(run, "evaluate_point", point)
    assert main(["sweep", str(files / "grid.toml"), "--workers", "0",
                 "--out", str(tmp_path / "r.jsonl")]) == 0
    out, err = seen[0]
    assert out.startswith(f"posproof sweep {files / 'grid.toml'}: 2 points × 2 metrics")
    assert "0/2 points" in err
    assert "0%" in err


# --------------------------------------------------------------------------- e) verdicts
def test_e_verdict_text_counts_expected_refutations_apart() -> None:
    from types import SimpleNamespace as P

    proofs = [P(name="a", status="proved"), P(name="b", status="refuted")]
    assert verdict_text(proofs).startswith("REFUTED — 1 proved, 1 refuted, 0 unknown")
    assert verdict_text(proofs, expected=["b"]) == ("OK — 1 proved, 0 refuted, 0 unknown, "
                                                    "1 refuted as expected")
    assert verdict_text([*proofs, P(name="c", status="unknown")], expected=["b"]).startswith(
        "INCOMPLETE — 1 proved, 0 refuted, 1 unknown")
    assert verdict_text(checks=[{"status": "pass"}, {"status": "unknown"}]) == (
        "INCOMPLETE — checks 1/2 pass, 1 unknown")
    assert verdict_text(checks=[{"status": "fail"}, {"status": "unknown"}]).startswith(
        "CHECK FAILED")


def _last_line(argv: list[str], capsys: pytest.CaptureFixture) -> tuple[int, str, str]:
    status = main(argv)
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if line.strip()]
    assert sum(line.startswith("verdict:") for line in lines) == 1, out
    return status, lines[-1], out


@pytest.mark.parametrize(("argv", "status", "verdict"), [
    (["prove", "--alibi", "--heads", "8"], 0, "verdict: OK — 5 proved, 0 refuted, 0 unknown"),
    (["prove", "--alibi", "--heads", "12"], 1, "verdict: REFUTED — 4 proved, 1 refuted"),
    (["prove", "--t5"], 0, "verdict: OK — 6 proved, 0 refuted, 0 unknown"),
    (["check", "--t5"], 0, "verdict: OK — checks 2/2 pass"),
    (["check", "--alibi", "--heads", "8"], 0, "verdict: OK — checks 1/1 pass"),
    (["explain", "--xpos", "8"], 0, "verdict: OK — 2 proved, 0 refuted, 0 unknown"),
    (["prove", "--theorem", "permutation-equivariance"], 0, "verdict: OK — 4 proved"),
    (["identify", "{tmp}/table.npy"], 0, "verdict: OK — arrays 1/1 identified"),
    (["identify", "{tmp}/slopes.npy", "--alibi"], 0, "verdict: OK — arrays 1/1 identified"),
    (["check-impl", "{tmp}/impl.py:table", "--dim", "16"], 0, "verdict: OK — checks 1/1 pass"),
    (["check-impl", "{tmp}/impl.py:table", "--dim", "16", "--base", "500"], 1,
     "verdict: CHECK FAILED — checks 0/1 pass"),
    (["explore", "rope:dim=8", "--length", "64", "--dtypes", ""], 0, "verdict: OK — "),
    (["explore", "rope:dim=8", "--length", "64", "--dtypes", "", "--no-proofs"], 0,
     "verdict: OK — 1 encoding(s) measured"),
    (["explain", "{tmp}/bloom.json"], 0, "verdict: OK — 16 exact slopes (reference rule)"),
])
def test_e_every_command_ends_with_one_verdict_line(argv, status, verdict, files: Path,
                                                    capsys: pytest.CaptureFixture) -> None:
    got, last, out = _last_line([a.format(tmp=files) for a in argv], capsys)
    assert got == status, out
    assert VERDICT.match(last), last
    assert last.startswith(verdict), last


def test_e_sweep_ends_with_its_verdict(files: Path, tmp_path: Path,
                                       capsys: pytest.CaptureFixture) -> None:
    status, last, _ = _last_line(["sweep", str(files / "grid.toml"), "--workers", "0",
                                  "--out", str(tmp_path / "r.jsonl")], capsys)
    assert status == 0
    assert last == "verdict: OK — points 2/2 computed"


def test_e_explain_of_a_rope_config_ends_with_counts(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"model_type": "llama", "rope_theta": 10000, "hidden_size": 32,
                                "num_attention_heads": 4, "max_position_embeddings": 64}),
                    encoding="utf-8")
    status, last, _ = _last_line(["explain", str(path), "--dtypes", ""], capsys)
    assert status == 0
    assert re.match(r"verdict: OK — \d+ proved, 0 refuted, 0 unknown", last), last


# --------------------------------------------------------------------------- f) names
def test_f_pairs_covered_is_one_name() -> None:
    from posproof.measure.explore.axes import axis_bands
    from posproof.measure.explore.metrics import band_coverage, critical_dimension
    from posproof.model.multirope import mrope

    out = band_coverage([1, sp.Rational(1, 100), sp.Rational(1, 1000)], 629)
    assert out["pairs_covered"] == 2
    assert "count" not in out
    assert critical_dimension(10000, 128, 4096)["pairs_covered"] == 46
    rows = axis_bands(mrope(10000, 8, [2, 1, 1]), 100)
    assert [r["pairs_covered"] for r in rows] == [2, 0, 0]
    assert all("fits_in_L" not in r for r in rows)


def test_f_all_good_above_is_one_name() -> None:
    from posproof.measure.explore.basebound import base_bound

    bb = base_bound(64, 8, lowest=2, highest=1e4)
    assert bb.all_good_above is not None
    assert bb.all_good_above == bb.threshold                    # the old name
    assert bb.to_dict()["all_good_above"] is not None
    entry = bb.entry(10000)
    assert "all_good_above" in entry
    assert "base_all_good_above" not in entry
    assert float(entry["all_good_above"]) == pytest.approx(float(bb.all_good_above), rel=1e-6)


def test_f_sweep_metrics_have_one_name_and_accept_the_old_ones() -> None:
    from posproof.sweep.metrics import METRICS, RENAMED, check_metrics

    for old, new in RENAMED.items():
        assert old not in METRICS
        assert new in METRICS
    assert check_metrics(["kernel_first_negative", "first_negative", "base_all_good_above",
                          "kernel_first_increase"], "grid") == (
        "first_negative", "all_good_above", "first_increase")
    assert METRICS["pairs_covered"].get({"bands": {"pairs_covered": 3}}) == 3


def test_f_the_docs_use_the_new_names() -> None:
    for page in ("sweep.md", "base-bound.md"):
        text = (ROOT / "docs" / page).read_text(encoding="utf-8")
        assert "`all_good_above`" in text
        # the old names only in the paragraph that says they are still accepted
        kept = [para for para in text.split("\n\n") if "The old metric names" not in para]
        assert not [para for para in kept if "base_all_good_above" in para
                    or "kernel_first_increase" in para]


# --------------------------------------------------------------------------- g) explain ALiBi
CONFIGS = {   # modelled on the real config.json files (trimmed)
    "bloom": ({"model_type": "bloom", "n_head": 16, "hidden_size": 1024, "n_layer": 24,
               "apply_residual_connection_post_layernorm": False, "vocab_size": 250880},
              ("reference", 16, 8)),
    "mpt": ({"model_type": "mpt", "n_heads": 32, "d_model": 4096, "max_seq_len": 2048,
             "attn_config": {"alibi": True, "alibi_bias_max": 16, "attn_impl": "torch"}},
            ("mpt", 32, 16)),
    "falcon": ({"model_type": "falcon", "alibi": True, "num_attention_heads": 12,
                "hidden_size": 768, "rope_theta": 10000.0, "max_position_embeddings": 2048},
               ("reference", 12, 8)),
}


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_g_explain_gives_the_slopes_of_an_alibi_config(name: str, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture) -> None:
    from posproof.model.alibi import alibi

    cfg, (rule, heads, bias_max) = CONFIGS[name]
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg), encoding="utf-8")
    assert main(["explain", str(path)]) == 0
    captured = capsys.readouterr()
    assert "--default-theta" not in captured.out + captured.err
    assert f"ALiBi ({name}), {heads} heads" in captured.out
    assert main(["explain", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    spec = alibi(heads, rule, bias_max)
    assert data["model"] == name
    assert data["encoding"]["rule"] == rule
    assert data["spec"].startswith(f"alibi:heads={heads}")
    assert data["numbers"]["slopes"] == [str(s) for s in spec.slopes]
    assert data["numbers"]["exponents"] == [str(e) for e in spec.exponents]


def test_g_falcon_without_alibi_is_explained_as_rotary(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture) -> None:
    """The other side: Falcon with alibi false uses RoPE (its rope_theta), not slopes."""
    cfg = {"model_type": "falcon", "alibi": False, "num_attention_heads": 4, "hidden_size": 32,
           "rope_theta": 10000.0, "max_position_embeddings": 64}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg), encoding="utf-8")
    assert main(["explain", str(path), "--dtypes", ""]) == 0
    out = capsys.readouterr().out
    assert "ALiBi" not in out
    assert "rope_theta=10000" in out


def test_g_alibi_config_kind() -> None:
    from posproof.model.alibi import alibi_config_kind, alibi_from_config

    assert [alibi_config_kind(c) for c, _ in CONFIGS.values()] == ["bloom", "mpt", "falcon"]
    assert alibi_config_kind({"model_type": "mpt", "attn_config": {"alibi": False}}) is None
    assert alibi_config_kind({"model_type": "RefinedWebModel", "alibi": False, "n_head": 71,
                              "apply_residual_connection_post_layernorm": False}) is None
    assert alibi_config_kind({"model_type": "llama", "rope_theta": 10000}) is None
    with pytest.raises(InvalidParameter, match="rotary"):
        alibi_from_config({"model_type": "falcon", "alibi": False})
