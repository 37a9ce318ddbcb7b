"""A `posproof sweep` killed with SIGKILL takes its local workers with it (issue 12, part 2)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from posproof.sweep import load_grid

ROOT = Path(__file__).resolve().parent.parent

# 16 points of about 0.4 s each: the grid is far from done when its first record appears
GRID = """
metrics = ["first_negative", "separation"]
length = 2000000

[[family]]
kind = "rope"
dim = [32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256, 272]
"""

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(),
                                reason="finds child processes through /proc")


def _stat(pid: int) -> tuple[int, str, int] | None:
    """(parent pid, state, start time) of a live process, None when it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()       # the name may hold spaces and ')'
    return int(fields[1]), fields[0], int(fields[19])


def _descendants(pid: int) -> dict[int, int]:
    """Every live descendant of ``pid``: {pid: start time} (the start time tells a reused pid)."""
    parents: dict[int, list[tuple[int, int]]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            st = _stat(int(entry.name))
            if st is not None and st[1] != "Z":
                parents.setdefault(st[0], []).append((int(entry.name), st[2]))
    out: dict[int, int] = {}
    todo = [pid]
    while todo:
        for child, start in parents.get(todo.pop(), []):
            out[child] = start
            todo.append(child)
    return out


def _alive(pid: int, start: int) -> bool:
    st = _stat(pid)
    return st is not None and st[2] == start and st[1] not in "ZX"


def _keys(path: Path) -> list[str]:
    """The keys recorded; a last line torn by the kill is skipped (resume drops it)."""
    lines = path.read_text().splitlines()
    keys = []
    for i, line in enumerate(lines):
        try:
            keys.append(json.loads(line)["key"])
        except json.JSONDecodeError:
            assert i == len(lines) - 1, f"line {i + 1} of {len(lines)} is not JSON"
    return keys


@pytest.mark.slow
def test_sigkilled_sweep_leaves_no_worker_and_resume_completes(tmp_path):
    grid = tmp_path / "g.toml"
    grid.write_text(GRID)
    out = tmp_path / "g.jsonl"
    cmd = [sys.executable, "-m", "posproof", "sweep", str(grid), "--workers", "2"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(cmd, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and (not out.exists() or not out.read_text()):
            assert proc.poll() is None, "the sweep ended before its first record"
            time.sleep(0.05)
        children = _descendants(proc.pid)
        direct = [p for p in children if (_stat(p) or (0,))[0] == proc.pid]
        proc.kill()                                     # SIGKILL: no handler, no cleanup
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
    # a spawn worker's parent is the driver itself (what PR_SET_PDEATHSIG relies on)
    assert len(direct) >= 2, children
    assert len(_keys(out)) < 16, "the grid finished before the kill: nothing was tested"
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(_alive(p, s) for p, s in children.items()):
        time.sleep(0.2)
    survivors = [p for p, s in children.items() if _alive(p, s)]
    for pid in survivors:                               # do not leave them behind either way
        os.kill(pid, signal.SIGKILL)
    assert not survivors, f"processes of the killed sweep still alive after 10 s: {survivors}"

    first = _keys(out)
    done = subprocess.run([*cmd, "--resume"], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    assert f"already recorded {len(first)}" in done.stdout
    keys = _keys(out)
    assert keys[:len(first)] == first
    assert sorted(keys) == sorted(p.key for p in load_grid(grid).points)   # each exactly once
