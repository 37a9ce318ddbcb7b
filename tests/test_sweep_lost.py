"""Points a sweep could not compute are an error the caller cannot miss, and the Python
snippet of docs/sweep.md, pasted into a script, runs as written."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import posproof.sweep
from posproof.cli.app import main
from posproof.sweep import InlineExecutor, Sweep, SweepIncomplete, WorkerLost, parse_grid

ROOT = Path(__file__).resolve().parent.parent

TINY = 'metrics = ["pairs"]\nlength = 16\n[[family]]\nkind = "rope"\ndim = [4, 8, 12]\n'


class LosingExecutor(InlineExecutor):
    """Computes the first point, then loses the others as a dying pool would."""

    name = "local"
    workers = 2

    def __init__(self, *_: object, **__: object) -> None:
        pass

    def map_unordered(self, fn, items):
        for n, item in enumerate(items):
            yield item, fn(item) if n == 0 else WorkerLost("worker processes died 4 times")


def test_lost_points_raise_with_the_summary_and_the_records_that_finished(tmp_path):
    out = tmp_path / "r.jsonl"
    with pytest.raises(SweepIncomplete, match=r"2 of 3 points were not computed") as info:
        Sweep(parse_grid(TINY), out).run(LosingExecutor())
    summary = info.value.summary
    assert (summary.computed, summary.lost, summary.complete) == (1, 2, False)
    assert "--resume" in str(info.value)
    assert len(out.read_text().splitlines()) == 1          # the finished point is recorded
    resumed = Sweep(parse_grid(TINY), out, resume=True).run(InlineExecutor())
    assert (resumed.recorded_before, resumed.computed, resumed.complete) == (1, 2, True)


def test_cli_exits_1_and_names_the_lost_points(tmp_path, capsys, monkeypatch):
    grid = tmp_path / "g.toml"
    grid.write_text(TINY)
    monkeypatch.setattr(posproof.sweep, "LocalExecutor", LosingExecutor)
    status = main(["sweep", str(grid), "--workers", "2", "--quiet"])
    out, err = capsys.readouterr()
    assert status == 1
    assert "not computed 2" in out
    assert "error: 2 of 3 points were not computed" in err
    assert "Traceback" not in err


def _doc_snippet() -> str:
    text = (ROOT / "docs" / "sweep.md").read_text(encoding="utf-8")
    section = text.split("## From Python", 1)[1]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match, "docs/sweep.md has no Python snippet under 'From Python'"
    return match.group(1)


def _run_script(tmp_path: Path, code: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "examples").mkdir(exist_ok=True)
    (tmp_path / "examples" / "sweep-small.toml").write_text(TINY)   # same name, tiny grid
    (tmp_path / "tmp").mkdir(exist_ok=True)
    script = tmp_path / "script.py"
    script.write_text(code, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmp_path / "tmp")}
    return subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300, check=False)


@pytest.mark.slow  # full tier: two sweeps with worker processes
def test_the_doc_snippet_runs_as_a_script_twice(tmp_path):
    """The snippet as written, run twice in a row: both runs succeed (issue 22 §4: it once
    wrote examples/sweep-small.jsonl, and the second run refused the existing file)."""
    for run in (1, 2):
        done = _run_script(tmp_path, _doc_snippet())
        assert done.returncode == 0, done.stderr
        lines = done.stdout.splitlines()
        assert lines[0] == "3 0 0"                 # computed, errors, lost: every point
        assert lines[-1] == "3 0"                  # resumed: 3 recorded before, 0 computed
        results = sorted((tmp_path / "tmp").glob("*/sweep-small.jsonl"))
        assert len(results) == run                 # a new results file each run
        assert all(len(r.read_text().splitlines()) == 3 for r in results)
    assert not (tmp_path / "examples" / "sweep-small.jsonl").exists()   # nothing by the grid


def test_a_script_without_the_main_guard_gets_an_error_naming_it(tmp_path):
    code = ("from posproof.sweep import run_sweep\n"
            "summary = run_sweep('examples/sweep-small.toml', workers=2)\n"
            "print('returned', summary.computed, summary.lost)\n")
    done = _run_script(tmp_path, code)
    assert done.returncode == 1
    assert "returned" not in done.stdout
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("posproof.sweep.run.SweepIncomplete: 3 of 3 points were not computed")
    assert 'if __name__ == "__main__":' in last
