"""Issue 27 §4: logs that speak.  With stderr redirected (a CI log), long work writes a plain
progress line (stage, percent, elapsed) every POSPROOF_PROGRESS_INTERVAL seconds (default 10)
to stderr, never to stdout; stdout is line-buffered, so each line reaches the log when it is
printed.  The interval is shortened here so the lines come within a short command.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from posproof.cli.options import (
    PROGRESS_INTERVAL,
    Busy,
    PlainProgress,
    ProgressBar,
    progress_interval,
)

ROOT = Path(__file__).resolve().parents[1]
#: A plain line: the stage, its percent when it reports steps, the seconds since the start.
LINE = re.compile(r"posproof: (?P<stage>.+?): (?:(?P<pct>\d+)% done, )?(?P<s>\d+) s elapsed")


def posproof(*args: str, interval: str | None, cwd: Path = ROOT,
             merged: bool = False) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("POSPROOF_PROGRESS_INTERVAL", None)
    if interval is not None:
        env["POSPROOF_PROGRESS_INTERVAL"] = interval
    return subprocess.run([sys.executable, "-m", "posproof", *args], cwd=cwd, env=env,
                          stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT if merged else subprocess.PIPE,
                          text=True, timeout=600)


class Log(io.StringIO):
    """A log that tells when it has ``n`` lines (no sleeping on a clock)."""

    def __init__(self) -> None:
        super().__init__()
        self.changed = threading.Condition()

    def write(self, text: str) -> int:
        with self.changed:
            n = super().write(text)
            self.changed.notify_all()
            return n

    def wait_lines(self, n: int) -> list[str]:
        with self.changed:
            assert self.changed.wait_for(lambda: self.getvalue().count("\n") >= n, timeout=60)
            return self.getvalue().splitlines()


def test_interval_default_env_and_bad_values() -> None:
    assert progress_interval({}) == PROGRESS_INTERVAL == 10.0
    assert progress_interval({"POSPROOF_PROGRESS_INTERVAL": " 2.5 "}) == 2.5
    assert progress_interval({"POSPROOF_PROGRESS_INTERVAL": "0"}) == 0
    for bad in ("-1", "nan", "inf", "10s"):
        with pytest.raises(Exception, match="POSPROOF_PROGRESS_INTERVAL") as info:
            progress_interval({"POSPROOF_PROGRESS_INTERVAL": bad})
        assert type(info.value).__name__ == "InvalidParameter"


def test_plain_bar_writes_stage_percent_elapsed_then_stops() -> None:
    log = Log()
    bar = ProgressBar(log, plain=True, every=0.01)
    bar("proving theorems", 3, 12)
    lines = log.wait_lines(2)
    bar.close()
    assert bar.plain is not None
    assert bar.plain.thread is None
    after_close = log.getvalue()
    m = LINE.fullmatch(lines[0])
    assert m, lines
    assert (m["stage"], m["pct"]) == ("proving theorems", "25")
    assert "\r" not in after_close
    assert "\x1b" not in after_close
    bar.close()                         # closing twice is harmless, and nothing more is written
    assert log.getvalue() == after_close


def test_plain_lines_follow_the_latest_stage() -> None:
    log = Log()
    plain = PlainProgress(log, every=10, label="checking")
    assert LINE.fullmatch(plain.line())["pct"] is None
    plain.update("bounds", 1.0)
    assert LINE.fullmatch(plain.line()).group("stage", "pct") == ("bounds", "100")


def test_busy_in_a_log_names_its_label_then_the_step() -> None:
    log = Log()
    with Busy("checking mymod:rope", log, plain=True, every_plain=0.01) as busy:
        first = log.wait_lines(1)[0]
        busy("a step", 1, 4)
        n = len(log.wait_lines(1))
        lines = log.wait_lines(n + 2)
        assert busy.thread is None                         # no terminal ticker
    end = log.getvalue()
    assert LINE.fullmatch(first).group("stage", "pct") == ("checking mymod:rope", None)
    assert LINE.fullmatch(lines[-1]).group("stage", "pct") == ("a step", "25")
    assert "\r" not in end
    assert busy.plain is not None
    assert busy.plain.thread is None


def test_a_captured_stream_gets_nothing() -> None:
    """A library call's or a test's stderr (not the process's) gets no progress lines, and a
    terminal keeps its bar."""
    assert ProgressBar.on(io.StringIO()) is None
    busy = Busy("checking", io.StringIO())
    assert busy.plain is None

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    term = Terminal()
    bar = ProgressBar.on(term)
    assert bar is not None
    assert bar.plain is None
    bar("step", 1, 2)
    assert term.getvalue().startswith("\r")


def test_redirected_verify_writes_plain_progress_to_stderr_only() -> None:
    done = posproof("verify", "--json", interval="0.1")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)                      # stdout: the JSON and nothing else
    assert data["ok"] is True
    assert "posproof:" not in done.stdout
    lines = done.stderr.splitlines()
    assert lines, "no progress line"
    assert "\r" not in done.stderr
    assert "\x1b" not in done.stderr
    matches = [LINE.fullmatch(line) for line in lines]
    assert all(matches), lines
    assert all(m["pct"] is not None for m in matches if m)    # verify reports its steps
    assert [int(m["s"]) for m in matches if m] == sorted(int(m["s"]) for m in matches if m)
    quiet = posproof("verify", "--json", interval="0")    # 0: no progress lines at all
    assert quiet.returncode == 0
    assert quiet.stderr == ""
    assert json.loads(quiet.stdout)["theorems"] == data["theorems"]


def test_check_impl_in_a_log_shows_its_busy_label(tmp_path: Path) -> None:
    """The implementation waits until the command's progress line has reached the log, so
    the work outlasts the interval whatever the machine's speed."""
    err = tmp_path / "err.log"
    (tmp_path / "slow.py").write_text(
        "import time, posproof\n"
        "from pathlib import Path\n"
        "_R = posproof.rotary(10000, 16)\n"
        f"_LOG, _UNTIL = Path({str(err)!r}), time.monotonic() + 60\n"
        "def rope(x, pos):\n"
        "    while 'posproof: checking' not in _LOG.read_text() and time.monotonic() < _UNTIL:\n"
        "        time.sleep(0.01)\n"
        "    return _R.apply(x, pos)\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "POSPROOF_PROGRESS_INTERVAL": "0.05"}
    with err.open("w") as stderr:
        done = subprocess.run([sys.executable, "-m", "posproof", "check-impl",
                               f"{tmp_path / 'slow.py'}:rope", "rope:dim=16,base=10000"],
                              cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=stderr,
                              text=True, timeout=600)
    assert done.returncode == 0, err.read_text()
    first = err.read_text().splitlines()[0]
    m = LINE.fullmatch(first)
    assert m
    assert m["stage"] == f"checking {tmp_path / 'slow.py'}:rope"
    assert m["pct"] is None
    assert "verdict: OK" in done.stdout


def test_stdout_lines_reach_a_redirected_log_when_printed(tmp_path: Path) -> None:
    """stdout and stderr into one pipe: a line the user's module prints to stdout at import
    comes before the line it then prints to stderr; block-buffered, stdout would arrive
    at exit, after it."""
    (tmp_path / "chatty.py").write_text(
        "import sys, posproof\n"
        "print('stdout: importing chatty')\n"
        "print('stderr: imported chatty', file=sys.stderr)\n"
        "_R = posproof.rotary(10000, 16)\n"
        "def rope(x, pos):\n"
        "    return _R.apply(x, pos)\n")
    done = posproof("check-impl", f"{tmp_path / 'chatty.py'}:rope", "rope:dim=16,base=10000",
                    interval=None, merged=True)
    assert done.returncode == 0, done.stdout
    lines = done.stdout.splitlines()
    assert lines.index("stdout: importing chatty") < lines.index("stderr: imported chatty")
    assert lines[-1].startswith("verdict: OK")


def test_a_bad_interval_is_one_line_and_status_2() -> None:
    done = posproof("verify", interval="soon")
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1
    assert "POSPROOF_PROGRESS_INTERVAL='soon'" in done.stderr
