"""Smoke tests of every command, in the fast tier (``python -m pytest -m "not slow"``).

One small run of each command of the parser, in process: it exits 0 or 1 (a verdict, not an
error), prints something, and with ``--json`` prints one JSON object with the top level every
command shares.  A new command without a case here fails
:func:`test_every_command_has_a_smoke_case`; the families are walked the same way by
tests/test_families.py, and the README and CONTRIBUTING.md name the two tiers
(tests/test_tiers.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from posproof.cli.app import main, make_parser
from posproof.cli.options import JSON_KEYS

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = ROOT / "tests" / "fixtures" / "configs"

IMPL = '''
import numpy as np

def table(pos):
    inv = 10000.0 ** (-np.arange(0, 8, 2) / 8)
    ang = np.asarray(pos, dtype=np.float64)[:, None] * inv
    out = np.empty((len(pos), 8))
    out[:, 0::2], out[:, 1::2] = np.sin(ang), np.cos(ang)
    return out
'''

#: command → (arguments after it, the arguments of its ``--json`` run or None).  Small sizes:
#: the point is that each command runs end to end; its behaviour is tested in its own files.
SMOKE: dict[str, tuple[list[str], list[str] | None]] = {
    "verify": (["--dim", "8", "--max-len", "256"], []),
    "check": (["vaswani:dim=8", "--max-len", "256"], []),
    "prove": (["--preset", "sine-only", "--dim", "4"], []),
    "explore": (["rope:base=10000,dim=16", "--length", "64", "--no-proofs"], []),
    "explain": ([str(CONFIGS / "pythia-160m.json"), "--length", "64"], []),
    "identify": (["table.npy"], []),
    "check-impl": (["./impl.py:table", "--dim", "8", "--max-len", "64"], []),
    "derive": (["vaswani:dim=4", "--max-len", "32", "--no-general", "--no-figures",
                "--format", "md", "--out", "doc"], ["--out", "doc-json"]),
    "sweep": (["grid.toml", "--workers", "0"], ["--out", "grid-json.jsonl"]),
    "check-model": (["model.json", "--length", "8", "--checks", "kv_cache"], []),
    "limits": ([], None),
}

def _commands() -> list[str]:
    parser = make_parser()
    return [name for action in parser._actions
            if isinstance(getattr(action, "choices", None), dict)
            for name in action.choices]


def test_every_command_has_a_smoke_case() -> None:
    missing = sorted(set(_commands()) - set(SMOKE))
    assert not missing, (f"add a small run of {missing} to SMOKE in tests/test_smoke.py, so the "
                         "fast tier runs every command")
    assert sorted(SMOKE) == sorted(_commands())


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The files the cases read: a table, an implementation, a grid, a model config."""
    from posproof import preset

    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    np.save(tmp_path / "table.npy", preset("vaswani", dim=8).table(np.arange(64)))
    (tmp_path / "impl.py").write_text(IMPL, encoding="utf-8")
    (tmp_path / "grid.toml").write_text('metrics = ["pairs"]\nlength = 16\n[[family]]\n'
                                        'kind = "rope"\ndim = [8, 4]\n', encoding="utf-8")
    (tmp_path / "model.json").write_text(json.dumps({
        "model_type": "llama", "hidden_size": 64, "num_attention_heads": 4,
        "num_hidden_layers": 2, "intermediate_size": 128, "vocab_size": 64,
        "max_position_embeddings": 64, "rope_theta": 10000.0}), encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("command", sorted(SMOKE))
def test_command_runs(command: str, workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    if command == "check-model":
        pytest.importorskip("torch")
        pytest.importorskip("transformers")
    argv, json_argv = SMOKE[command]
    status = main([command, *argv])
    out, err = capsys.readouterr()
    assert status in (0, 1), err
    assert out.strip(), f"{command} printed nothing"
    assert "Traceback" not in err
    if json_argv is not None:
        status = main([command, *argv, *json_argv, "--json"])
        out, err = capsys.readouterr()
        assert status in (0, 1), err
        data = json.loads(out)
        assert set(JSON_KEYS) <= set(data), sorted(data)

@pytest.mark.parametrize("command", sorted(SMOKE))
def test_command_help(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([command, "--help"]) == 0
    assert f"posproof {command}" in capsys.readouterr().out
