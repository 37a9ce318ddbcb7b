"""Issue 27 §3: every command exits as soon as it has printed its verdict.

Each command runs as a process with stdout a pipe, read line by line: the moment its verdict
line arrives and the moment the process ends are recorded, and the end must follow the
verdict within :data:`HANG`.  This measures a hang, not speed: the bound is generous (a
quiet machine needs 0.05–0.3 s; the old code needed 0.1–1.5 s, 2.5 s with 8 busy processes
on 2 cores), so only a process kept alive by something (a non-daemon thread, a pool waiting
for work, a timer, CPython's teardown re-scanning hundreds of thousands of objects under a
heavy load) fails it, not a slow machine.  How long the command takes before its verdict is
not measured (speed is benchmarks/'s business).

What kept ``check-impl`` and ``check-model`` alive was CPython's own teardown: with torch
(and transformers, SymPy, NumPy) imported, clearing the modules ran a full garbage
collection at each step over 200 000 objects and more.  The command line now freezes them
at exit (posproof.cli.options._quick_teardown); ``test_the_command_line_sets_its_process_up``
checks the hook itself, without a clock.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest

import posproof

ROOT = Path(__file__).resolve().parents[1]

#: Seconds the end of the process may follow its verdict line: a hang, not a speed, bound.
HANG = 5.0


def verdict_then_exit(args: list[str], cwd: Path) -> tuple[float, int, str]:
    """Run ``posproof ARGS``: (seconds from the verdict line to the process's end, status,
    stdout)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("POSPROOF_PROGRESS_INTERVAL", None)
    with tempfile.TemporaryFile() as err:
        lines, verdict_at = [], None
        with subprocess.Popen([sys.executable, "-m", "posproof", *args], cwd=cwd, env=env,
                              stdout=subprocess.PIPE, stderr=err, text=True) as proc:
            assert proc.stdout is not None
            for line in proc.stdout:
                lines.append(line)
                if line.startswith("verdict:") and verdict_at is None:
                    verdict_at = time.monotonic()
            status = proc.wait(timeout=600)
            ended_at = time.monotonic()
        err.seek(0)
        stderr = err.read().decode()
    out = "".join(lines)
    assert verdict_at is not None, f"no verdict line: {out}\n{stderr}"
    assert "Traceback" not in stderr, stderr
    return ended_at - verdict_at, status, out


@pytest.fixture
def files(tmp_path: Path) -> Path:
    np.save(tmp_path / "fairseq.npy",
            posproof.preset("fairseq", dim=64).table(np.arange(300)).astype(np.float32))
    (tmp_path / "numpy_rope.py").write_text(
        "import posproof\n"
        "_R = posproof.rotary(10000, 64)\n"
        "def rope(x, pos):\n"
        "    return _R.apply(x, pos)\n")
    (tmp_path / "torch_rope.py").write_text(
        "import torch\n"
        "def rope(x, pos):\n"
        "    x, pos = torch.as_tensor(x), torch.as_tensor(pos)\n"
        "    d = x.shape[-1]\n"
        "    inv = 1.0 / 10000 ** (torch.arange(0, d, 2, dtype=torch.float64) / d)\n"
        "    ang = torch.cat([pos[..., None].double() * inv] * 2, -1)\n"
        "    rot = torch.cat([-x[..., d // 2:], x[..., :d // 2]], -1)\n"
        "    return (x * ang.cos() + rot * ang.sin()).to(x.dtype)\n")
    return tmp_path


def test_check_impl_exits_after_its_verdict(files: Path) -> None:
    gap, status, out = verdict_then_exit(
        ["check-impl", f"{files / 'numpy_rope.py'}:rope", "rope:dim=64,base=10000"], ROOT)
    assert status == 0, out
    assert "verdict: OK" in out
    assert gap < HANG


def test_check_impl_of_a_torch_function_exits_after_its_verdict(files: Path) -> None:
    pytest.importorskip("torch")
    gap, status, out = verdict_then_exit(
        ["check-impl", f"{files / 'torch_rope.py'}:rope", "rope:dim=64,base=10000"], ROOT)
    assert status == 0, out
    assert gap < HANG


def test_identify_exits_after_its_verdict(files: Path) -> None:
    gap, status, out = verdict_then_exit(["identify", str(files / "fairseq.npy")], ROOT)
    assert status == 0, out
    assert "matches fairseq" in out
    assert gap < HANG


def test_verify_exits_after_its_verdict() -> None:
    gap, status, out = verdict_then_exit(["verify"], ROOT)
    assert status == 0, out
    assert gap < HANG


def test_check_model_exits_after_its_verdict(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    import model_configs as mc

    config = mc.write(tmp_path, mc.LLAMA3_8B)      # shrunk by check-model to 2 layers
    gap, status, out = verdict_then_exit(["check-model", str(config)], ROOT)
    assert status == 0, out
    assert "layers=2" in out
    assert gap < HANG


def test_the_command_line_sets_its_process_up() -> None:
    """``posproof`` (main() on sys.argv) registers the teardown once and line-buffers stdout;
    ``main([...])``, a library call, leaves its caller's process alone."""
    code = ("import atexit, sys\n"
            "from posproof.cli import main, options\n"
            "before = atexit._ncallbacks()\n"
            "main(['limits'])\n"
            "library = (atexit._ncallbacks() - before, sys.stdout.line_buffering)\n"
            "sys.argv = ['posproof', 'limits']\n"
            "main(); main()\n"
            "print(library, atexit._ncallbacks() - before, sys.stdout.line_buffering,\n"
            "      options._TEARDOWN_REGISTERED, file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip() == "(0, False) 1 True [True]"
