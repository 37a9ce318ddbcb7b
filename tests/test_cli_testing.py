"""``posproof identify FILE`` and ``posproof check-impl MODULE:ATTR``: output, JSON, exit 0/1/2."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import pytest

import posproof
from posproof.cli import app as cli
from posproof.cli import testing as cli_testing


def _hooked() -> bool:
    """True once posproof.cli.app dispatches identify / check-impl itself."""
    parser = cli.make_parser()
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return bool(subs) and "identify" in subs[0].choices


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """The command → (status, stdout, stderr), through posproof.cli.app when it is hooked."""
    main = cli.main if _hooked() else cli_testing.main
    try:
        status = main(list(argv))
    except SystemExit as exc:
        status = exc.code if isinstance(exc.code, int) else 2
    out, err = capsys.readouterr()
    return status, out, err


def one_line_error(status: int, out: str, err: str, needle: str) -> None:
    assert status == 2
    assert out == ""
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    assert needle in err, err


@pytest.fixture
def files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Tables and a user module in a temporary directory (the working directory)."""
    np.save(tmp_path / "fairseq.npy",
            posproof.preset("fairseq", dim=64).table(np.arange(300)).astype(np.float32))
    np.save(tmp_path / "random.npy", np.random.default_rng(0).normal(size=(200, 32)))
    np.savez(tmp_path / "model.npz", ids=np.arange(5),
             pe=posproof.preset("diffusion", dim=33).table(100),
             rnd=np.random.default_rng(1).normal(size=(50, 8)))
    (tmp_path / "text.npy").write_text("not an array")
    (tmp_path / "usermod.py").write_text(
        "import numpy as np, posproof\n"
        "TABLE = posproof.preset('vaswani', dim=64).table(1000).astype(np.float32)\n"
        "SPLIT = posproof.preset('vaswani', dim=64, layout='split').table(1000)\n"
        "_E = posproof.preset('vaswani', dim=32)\n"
        "def shifted(pos):\n"
        "    return _E.table(pos + 2)\n"
        "_R = posproof.rotary(10000, 16)\n"
        "def rope(x, pos):\n"
        "    return _R.apply(x, pos)\n"
        "def rope32(x, pos):\n"
        "    ang = np.outer(np.asarray(pos, np.float32), "
        "_R.frequencies_float.astype(np.float32)).astype(float)\n"
        "    half = np.concatenate([-x[..., 8:], x[..., :8]], -1)\n"
        "    return x * np.tile(np.cos(ang), 2) + half * np.tile(np.sin(ang), 2)\n"
        "def flipped(x, pos):\n"
        "    return _R.apply(x, -pos)\n"
        "_X = np.arange(3000, dtype=np.float32)[:, None] * "
        "_E.frequencies_float.astype(np.float32)[None]\n"
        "F32_ANGLES = np.empty((3000, 32), np.float32)\n"
        "F32_ANGLES[:, 0::2], F32_ANGLES[:, 1::2] = np.sin(_X), np.cos(_X)\n"
        "SCALED = TABLE * 0.125\n"
        "class Model:\n"
        "    pe = TABLE\n"
        "NUMBER = 3\n")
    (tmp_path / "broken_import.py").write_text("raise RuntimeError('boom at import')\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("usermod", "broken_import"):
        sys.modules.pop(name, None)
    return tmp_path


def test_identify_npy(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "identify", "fairseq.npy")
    assert status == 0
    assert "result: matches fairseq (padding_idx=1), layout split, offset 0" in out
    assert out.count("verdict:") == 1
    assert out.strip().splitlines()[-1] == ("verdict: OK — arrays 1/1 identified; audit "
                                            "(python-flint arb): 1 confirmed")
    assert "zero rows: 1" in out
    assert 'preset("fairseq", dim=64, padding_idx=1)' in out


def test_identify_json(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "identify", "fairseq.npy", "--json")
    data = json.loads(out)
    assert status == 0
    assert data["matched"]
    assert data["theorems"] == []
    check = data["checks"][0]
    assert check["name"] == "identify[fairseq]"
    assert check["status"] == "pass"
    assert check["params"] == {"min_timescale": "1", "max_timescale": "10000"}


def test_identify_reads_precision_and_scale(files: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    enc = posproof.preset("vaswani", dim=64)
    np.save("double.npy", enc.table(500, dtype="float32").astype(np.float64))
    np.save("scaled.npy", enc.table(500) / 8)
    status, out, _ = run(capsys, "identify", "double.npy")
    assert status == 0
    assert "values carry float32 precision (stored as float64)" in out
    status, out, _ = run(capsys, "identify", "double.npy", "--dtype", "float64")
    assert status == 1
    status, out, _ = run(capsys, "identify", "scaled.npy", "--json")
    data = json.loads(out)
    assert status == 0
    assert data["matched"]
    check = data["checks"][0]
    assert check["status"] == "pass"
    assert check["scale"] == 0.125
    assert check["precision"] is None
    assert check["summary"].endswith("scaled by 0.125 = 1/√64")


def test_identify_random_is_status_1(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "identify", "random.npy")
    assert status == 1
    assert "matches no known schedule" in out


def test_identify_npz_picks_the_table(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "identify", "model.npz")
    assert status == 0
    assert "[pe]" in out
    assert "matches diffusion" in out
    assert "1 other array(s) match no known schedule: rnd" in out
    status, out, _ = run(capsys, "identify", "model.npz", "--key", "rnd")
    assert status == 1


@pytest.mark.parametrize(("argv", "needle"), [
    (("identify", "missing.npy"), "no such file"),
    (("identify", "text.npy"), "is not a readable .npy file"),
    (("identify", "model.npz", "--key", "nope"), "has no array 'nope'; it has ids, pe, rnd"),
    (("identify", "model.npz", "--key", "ids"),
     "'ids': shape (5,), dtype int64: not a 2-d float table"),
    (("identify", "usermod.py"), "unknown file type '.py'"),
    (("check-impl", "usermod"), "is not MODULE:ATTR"),
    (("check-impl", "nosuchmodule:X"), "cannot import 'nosuchmodule'"),
    (("check-impl", "broken_import:X"), "RuntimeError: boom at import"),
    (("check-impl", "usermod:NOPE"), "usermod has no attribute 'NOPE'"),
    (("check-impl", "usermod:NUMBER"), "neither a table nor a callable"),
    (("check-impl", "usermod:TABLE", "--preset", "nope"), "'nope' is not known"),
    (("check-impl", "usermod:rope", "--rotary"), "--rotary needs --dim"),
])
def test_bad_input_is_one_line_and_status_2(files: Path, capsys: pytest.CaptureFixture[str],
                                            argv: tuple[str, ...], needle: str) -> None:
    one_line_error(*run(capsys, *argv), needle)


def test_check_impl_passes(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "check-impl", "usermod:TABLE")
    assert status == 0
    assert 'spec: preset("vaswani", dim=64)' in out
    assert "verdict: OK" in out
    assert run(capsys, "check-impl", "usermod:Model.pe")[0] == 0
    assert run(capsys, "check-impl", "./usermod.py:TABLE")[0] == 0


def test_check_impl_failure_is_explained(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "check-impl", "usermod:SPLIT")
    assert status == 1
    assert "most likely: matches the split layout, not interleaved" in out
    status, out, _ = run(capsys, "check-impl", "usermod:SPLIT", "--layout", "split")
    assert status == 0


def test_check_impl_angles_option(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """float32 angles fail the default (which names --angles / angles=) and pass --angles."""
    status, out, _ = run(capsys, "check-impl", "usermod:F32_ANGLES")
    assert status == 1
    assert 'pass angles="float32"' in out
    status, out, _ = run(capsys, "check-impl", "usermod:F32_ANGLES", "--angles", "float32",
                         "--json")
    assert status == 0
    assert json.loads(out)["tolerance"]["angles"] == "float32"
    one_line_error(*run(capsys, "check-impl", "usermod:TABLE", "--angles", "float8"),
                   "angles='float8' is not a dtype name")


def test_check_impl_scale_option(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "check-impl", "usermod:SCALED")[0] == 1
    assert run(capsys, "check-impl", "usermod:SCALED", "--scale", "0.125")[0] == 0
    assert run(capsys, "check-impl", "usermod:SCALED", "--scale", "0.126")[0] == 1
    one_line_error(*run(capsys, "check-impl", "usermod:rope", "--rotary", "--dim", "16",
                        "--scale", "2"), "--scale applies to a table")


def test_check_impl_callable_json(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "check-impl", "usermod:shifted", "--dim", "32",
                         "--max-len", "2000", "--json")
    data = json.loads(out)
    assert status == 1
    assert data["status"] == "fail"
    assert data["max_position"] == 1999
    assert data["checks"][0] == {**data["checks"][0], "name": "matches_spec", "status": "fail"}
    assert data["explanation"].startswith("offset by 2 positions")


def test_check_impl_json_carries_the_verdict_lines_audit_counts(
        files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "check-impl", "usermod:rope", "--rotary", "--dim", "16")
    assert status == 0
    line = out.strip().splitlines()[-1]
    status, out, _ = run(capsys, "check-impl", "usermod:rope", "--rotary", "--dim", "16",
                         "--json")
    audit = json.loads(out)["audit"]
    assert audit["confirmed"] >= 4
    assert audit["refuted"] == 0
    assert f"{audit['confirmed']} confirmed" in line


def test_check_impl_rotary(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "check-impl", "usermod:rope", "--rotary", "--dim", "16")
    assert status == 0
    assert "✓ convention" in out
    # angles formed in float32 (HF's inv_freq @ position_ids): fail by default, pass declared
    status, out, _ = run(capsys, "check-impl", "usermod:rope32", "--rotary", "--dim", "16")
    assert status == 1
    assert 'angles="float32"' in out
    assert run(capsys, "check-impl", "usermod:rope32", "--rotary", "--dim", "16",
               "--angles", "float32")[0] == 0
    status, out, _ = run(capsys, "check-impl", "usermod:flipped", "--rotary", "--dim", "16")
    assert status == 1
    assert "rotation direction is flipped" in out


def test_safetensors_and_pt(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    torch = pytest.importorskip("torch")
    safetensors_torch = pytest.importorskip("safetensors.torch")
    table = torch.from_numpy(posproof.preset("vaswani", dim=32).table(128)).float()
    safetensors_torch.save_file({"pos.weight": table.contiguous()}, "t.safetensors")
    torch.save({"encoder": {"pe": table}, "step": 3}, "t.pt")
    status, out, _ = run(capsys, "identify", "t.safetensors")
    assert status == 0
    assert "matches vaswani" in out
    status, out, _ = run(capsys, "identify", "t.pt", "--key", "encoder.pe")
    assert status == 0
    assert "matches vaswani" in out


def test_command_names() -> None:
    assert cli_testing.COMMANDS == ("identify", "check-impl")
