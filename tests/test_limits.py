"""Every command at its largest accepted values runs within 4 GiB, or is refused up front.

Issue 12, part 3.

Each command runs in a subprocess under ``RLIMIT_AS`` = 4 GiB.  At its limits it
must finish with exit 0 or 1; one step beyond, it must exit 2 at once with one
line naming the limit — never a traceback or a MemoryError.  The limits are
tabulated in docs/cli.md ("Limits").
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from posproof.cli.limits import SECONDS, limits, render
from posproof.cli.testing import MAX_TABLE_BYTES
from posproof.errors import MAX_DIM
from posproof.measure.checks import MAX_DPS_WORK
from posproof.measure.explore import MAX_EXPLORE_DIM, MAX_EXPLORE_WORK, MAX_LENGTH
from posproof.measure.numeric import MAX_LEN, MAX_SCAN_WORK
from posproof.measure.scan_limits import MAX_CHECK_DIM
from posproof.sweep.limits import HARD_MAX_POINTS
from posproof.testing.rope.check import MAX_HEAD_DIM

resource = pytest.importorskip("resource")

ROOT = Path(__file__).resolve().parent.parent
GIB4 = 4 << 30
MAX_SCAN_LEN = MAX_SCAN_WORK // MAX_CHECK_DIM   # the longest scan at the checks' largest dim
MAX_EXPLORE_LEN = MAX_EXPLORE_WORK // MAX_EXPLORE_DIM   # the longest context at explore's dim


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (GIB4, GIB4))


def _posproof(*args: str, cwd: Path, timeout: float = 600) -> tuple[int, str, str, float]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200"}
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "posproof", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout,
                          preexec_fn=_limit_memory)
    return proc.returncode, proc.stdout, proc.stderr, time.perf_counter() - start


def _clean(stderr: str) -> None:
    assert "Traceback" not in stderr, stderr[-2000:]
    assert "MemoryError" not in stderr, stderr[-2000:]


# One process imports posproof once, then forks one child per command line: each child sets
# RLIMIT_AS, changes into its own directory and runs the command exactly as ``python -m
# posproof`` does (``SystemExit(main())``, an uncaught exception printed as a traceback, exit
# 1), with stdout and stderr on files.  The refusals below cost a fork each instead of a
# Python start and the imports of SymPy, NumPy and FLINT.
_FORKED = r"""
import json, os, resource, sys, time, traceback
from pathlib import Path

from posproof.cli.app import main

cases, root, limit = json.loads(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
entry = str(Path(sys.modules["posproof"].__file__).with_name("__main__.py"))
results = {}
for n, (key, argv) in enumerate(sorted(cases.items())):
    cwd = root / f"case{n}"
    cwd.mkdir()
    sys.stdout.flush()
    sys.stderr.flush()
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.chdir(cwd)
            for fd, name in ((1, "stdout"), (2, "stderr")):
                target = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
                os.dup2(target, fd)
                os.close(target)
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
            sys.argv = [entry, *argv]
            try:
                code = main(argv)
            except SystemExit as exc:
                code = exc.code
            if code is None:
                code = 0
            elif not isinstance(code, int):
                print(code, file=sys.stderr)
                code = 1
        except BaseException:
            traceback.print_exc()
            code = 1
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    deadline = start + 120
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.perf_counter() > deadline:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            status = 9
            break
        time.sleep(0.01)
    seconds = time.perf_counter() - start
    results[key] = [os.waitstatus_to_exitcode(status), (cwd / "stdout").read_text(),
                    (cwd / "stderr").read_text(), seconds, str(cwd)]
print(json.dumps(results))
"""


def _posproof_each(cases: dict[str, list[str]], root: Path
                   ) -> dict[str, tuple[int, str, str, float, Path]]:
    """``python -m posproof ARGS`` for every command line of ``cases``, each in a fresh
    directory under ``root`` and under ``RLIMIT_AS`` = 4 GiB: key → (exit status, stdout,
    stderr, seconds, directory)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200"}
    proc = subprocess.run([sys.executable, "-c", _FORKED, json.dumps(cases), str(root),
                           str(GIB4)], cwd=root, env=env, capture_output=True, text=True,
                          timeout=120 * len(cases) + 60, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return {key: (code, out, err, seconds, Path(cwd))
            for key, (code, out, err, seconds, cwd) in json.loads(proc.stdout).items()}


def _refused(args: list[str], tmp_path: Path, *names: str) -> str:
    code, _, err, seconds = _posproof(*args, cwd=tmp_path, timeout=120)
    return _refusal(code, err, seconds, *names)


def _refusal(code: int, err: str, seconds: float, *names: str) -> str:
    _clean(err)
    lines = err.strip().splitlines()
    assert code == 2, (code, err[-2000:])
    assert len(lines) == 1, err
    assert lines[0].startswith("posproof: error: "), err
    for name in names:
        assert name in lines[0], (name, lines[0])
    assert seconds < 30, f"refused only after {seconds:.0f} s: not up front"
    return lines[0]


# ----------------------------------------------------------------- the table's corners
# posproof/cli/limits.py is the table of docs/cli.md ("Limits") and `posproof limits`: every
# command one step beyond a limit is refused up front, every command at a corner finishes
# within SECONDS under RLIMIT_AS = 4 GiB.
BEYOND = {f"{' '.join(argv)[:60]}": (list(argv), list(names))
          for row in limits() for argv, names in row.beyond}
ALL_AT = {f"{' '.join(argv)[:70]}": list(argv) for row in limits() for argv in row.at}


@pytest.fixture(scope="module")
def beyond(tmp_path_factory):
    """Every ``beyond`` command line of the table, run once (one forked child each)."""
    return _posproof_each({case: args for case, (args, _) in BEYOND.items()},
                          tmp_path_factory.mktemp("beyond"))


@pytest.mark.parametrize("case", sorted(BEYOND))
def test_one_step_beyond_a_limit_is_refused_up_front(case, beyond):
    code, _, err, seconds, cwd = beyond[case]
    _refusal(code, err, seconds, *BEYOND[case][1])
    assert not (cwd / "doc").exists()               # derive refuses before creating --out


def test_the_forked_runner_reports_what_the_command_does(tmp_path):
    """The runner of the refusals above tells exit 0, 1 and 2 apart and keeps a traceback:
    its results are the command's, not the runner's."""
    runs = _posproof_each({
        "ok": ["limits"],
        "refuted": ["prove", "--preset", "sine-only", "--dim", "4", "--theorem",
                    "translation[row]"],
        "bad": ["prove", "--dim", "3"],
        "usage": ["prove", "--no-such-option"],
    }, tmp_path)
    assert (runs["ok"][0], "heads" in runs["ok"][1]) == (0, True), runs["ok"]
    assert (runs["refuted"][0], "REFUTED" in runs["refuted"][1]) == (1, True), runs["refuted"]
    assert runs["bad"][0] == 2, runs["bad"]
    assert runs["bad"][2].startswith("posproof: error: dim=3"), runs["bad"]
    assert runs["usage"][0] == 2, runs["usage"]
    assert "--no-such-option" in runs["usage"][2], runs["usage"]
    assert len({cwd for *_, cwd in runs.values()}) == 4      # a directory of its own each


def _corner(args: list[str], tmp_path: Path) -> str:
    """``args`` finishes with exit 0 or 1, cleanly, within SECONDS if it is a corner of the
    table (the tests below that run a corner hold it to the contract too)."""
    timeout = SECONDS + 30 if args in ALL_AT.values() else 600
    code, out, err, seconds = _posproof(*args, cwd=tmp_path, timeout=timeout)
    _clean(err)
    assert code in (0, 1), (code, err[-2000:])
    if args in ALL_AT.values():
        assert seconds <= SECONDS, f"{args}: {seconds:.0f} s, beyond the contract's {SECONDS} s"
    return out


# The corners that a test further down runs with more assertions (the same command line, run
# once): the checks at the largest dim and its longest scan, prove at the largest dim.
RUN_BELOW = [
    ["check", "--dim", str(MAX_CHECK_DIM), "--max-len", str(MAX_SCAN_LEN), "--dps",
     str(MAX_DPS_WORK // MAX_CHECK_DIM), "--json"],
    ["prove", "--dim", str(MAX_DIM), "--json"],
]
AT = {case: argv for case, argv in ALL_AT.items() if argv not in RUN_BELOW}


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(AT))
def test_every_corner_of_the_table_finishes_within_the_contract(case, tmp_path):
    _corner(AT[case], tmp_path)


def test_the_table_is_what_docs_and_the_command_print():
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    for line in render():
        assert line in text, line
    assert len(ALL_AT) >= 6
    assert len(BEYOND) >= 12


def test_a_table_file_beyond_the_size_limit_is_refused_before_reading(tmp_path):
    import numpy as np

    path = tmp_path / "big.npy"
    np.save(path, np.zeros((4, 4), dtype=np.float32))
    with open(path, "r+b") as fh:                   # sparse: no disk written
        fh.truncate(MAX_TABLE_BYTES + 1)
    _refused(["identify", "big.npy"], tmp_path, str(MAX_TABLE_BYTES))


def test_a_grid_beyond_the_hard_limit_is_refused(tmp_path):
    side = int(HARD_MAX_POINTS ** 0.5) + 1
    (tmp_path / "grid.toml").write_text(
        'metrics = ["first_negative"]\nlength = 100\n\n[[family]]\nkind = "rope"\n'
        f'dim = {{ start = 2, stop = {2 * side + 2}, step = 2 }}\n'
        f'base = {{ start = 100, stop = {100 + side}, step = 1 }}\n')
    _refused(["sweep", "grid.toml", "--dry-run", "--yes"], tmp_path, str(HARD_MAX_POINTS))


def test_a_grid_point_beyond_the_scan_limit_is_refused_before_running(tmp_path):
    (tmp_path / "grid.toml").write_text(
        f'metrics = ["first_negative"]\nlength = {MAX_EXPLORE_LEN + 1}\n\n[[family]]\n'
        f'kind = "rope"\ndim = [8, {MAX_EXPLORE_DIM}]\n')
    _refused(["sweep", "grid.toml", "--workers", "0"], tmp_path, "length", str(MAX_EXPLORE_LEN))
    assert not (tmp_path / "grid.jsonl").exists()


# ----------------------------------------------------------------- at the limits: exit 0 or 1
@pytest.mark.slow
def test_check_at_the_largest_dim_and_its_longest_scan(tmp_path):
    out = _corner(RUN_BELOW[0], tmp_path)
    assert len(json.loads(out)["checks"]) == 8


@pytest.mark.slow
def test_check_at_the_longest_scan_and_the_most_digits(tmp_path):
    _corner(["check", "--dim", "2", "--max-len", str(MAX_LEN), "--dps", "1000"], tmp_path)


@pytest.mark.slow
def test_check_at_the_most_digits_and_their_largest_dim(tmp_path):
    dim = MAX_DPS_WORK // 1000 // 2 * 2
    _corner(["check", "--dim", str(dim), "--max-len", str(MAX_SCAN_WORK // dim), "--dps", "1000"],
          tmp_path)


@pytest.mark.slow
def test_prove_at_the_largest_dim(tmp_path):
    out = _corner(RUN_BELOW[1], tmp_path)
    assert json.loads(out)["theorems"]


@pytest.mark.slow
def test_explore_at_the_largest_dim_and_its_longest_context(tmp_path):
    out = _corner(["explore", f"rope:base=10000,dim={MAX_EXPLORE_DIM}", "--length",
                 str(MAX_EXPLORE_LEN),
                 "--json"], tmp_path)
    assert json.loads(out)["length"] == MAX_EXPLORE_LEN


@pytest.mark.slow
def test_explore_at_the_longest_context(tmp_path):
    _corner(["explore", "rope:base=10000,dim=128", "--length", str(MAX_LENGTH)], tmp_path)


@pytest.mark.slow
def test_check_impl_at_the_longest_scan(tmp_path):
    (tmp_path / "impl.py").write_text(
        "import numpy as np\n\n\ndef table(pos):\n"
        "    inv = 10000.0 ** (-np.arange(0, 64, 2) / 64)\n"
        "    ang = np.asarray(pos, dtype=np.float64)[:, None] * inv\n"
        "    out = np.empty((len(pos), 64))\n"
        "    out[:, 0::2], out[:, 1::2] = np.sin(ang), np.cos(ang)\n"
        "    return out\n")
    out = _corner(["check-impl", "./impl.py:table", "--dim", "64", "--max-len", str(MAX_LEN)],
                tmp_path)
    assert out


@pytest.mark.slow
def test_verify_at_the_largest_dim_and_its_longest_scan(tmp_path):
    out = _corner(["verify", "--dim", str(MAX_CHECK_DIM), "--max-len", str(MAX_SCAN_LEN), "--json"],
                tmp_path)
    report = json.loads(out)
    assert report["theorems"]
    assert len(report["checks"]) == 8


@pytest.mark.slow
def test_derive_at_the_largest_dim_and_its_longest_scan(tmp_path):
    _corner(["derive", "--dim", str(MAX_CHECK_DIM), "--max-len", str(MAX_SCAN_LEN), "--out", "doc",
           "--figures", "png"], tmp_path)
    assert (tmp_path / "doc" / "derivation.md").stat().st_size > 0


@pytest.mark.slow
def test_check_impl_rotary_at_the_largest_head_and_position(tmp_path):
    (tmp_path / "rimpl.py").write_text(
        "import posproof\n\n"
        f"apply = posproof.rotary(10000, {MAX_HEAD_DIM}, layout='half').apply\n")
    out = _corner(["check-impl", "./rimpl.py:apply", "--rotary", "--dim", str(MAX_HEAD_DIM),
                 "--max-position", str(2**40)], tmp_path)
    assert "matches_spec" in out


@pytest.mark.slow
def test_identify_at_the_largest_table(tmp_path):
    import numpy as np

    from posproof import preset

    dim = 4096
    rows = (MAX_TABLE_BYTES - 1024) // (4 * dim)     # float32, and room for the .npy header
    np.save(tmp_path / "pe.npy", preset("vaswani", dim=dim).table(np.arange(rows))
            .astype(np.float32))
    assert (tmp_path / "pe.npy").stat().st_size <= MAX_TABLE_BYTES
    out = _corner(["identify", "pe.npy", "--json"], tmp_path)
    found = json.loads(out)
    assert found["matched"] is True
    assert found["checks"][0]["rows"] == rows
