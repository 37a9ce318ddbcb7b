"""Every ``posproof …`` command a page shows runs, and says what the page says (issue 27 §7).

The commands of README.md and docs/*.md are read from their fenced blocks:

- ``$ posproof …`` followed by output lines (console blocks): the command runs and each
  run of consecutive shown lines appears, in that order, among the lines it prints
  (whitespace collapsed; ``…`` or ``...`` alone on a line stands for lines left out, inside a
  line for any text; timings ``(0.3 s)`` match any time).  A shown ``verdict:`` line is
  compared like any other: the verdict is always checked when the page shows it.
- ``posproof …`` lines of bash and plain blocks (commands listed without output): the
  command runs and exits 0 or 1, never 2 (bad input) or a traceback; a comment
  ``# exit N`` says which, and is checked.

A command naming a file the page only describes (``config.json``, ``mpt.json``,
``qwen2-vl.json`` …) runs on the fixture below written from the page's description; a
placeholder the page leaves to the reader (``path/to/config.json``, ``tcp://HOST:8786``,
``mypkg``, ``...``) is not run, and :data:`PLACEHOLDERS` lists each.  Commands that import
torch or transformers are skipped only when those are missing; commands taking longer than a
few seconds are marked ``slow`` (:data:`SLOW`).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

#: Tokens of commands left to the reader (a file or address the page does not describe).
PLACEHOLDERS = ("path/to/", "tcp://", "mypkg", "MOD:", " ... ", "slopes.npy", "zeta.npy",
                "pe.npy", "pids.py",
                "--plot first_negative.png")    # draws the results of a sweep run before it

#: Files the pages describe, written where the commands run.
FIXTURES = {
    # docs/biases-alibi.md: the comment of the command gives the file
    "mpt.json": {"model_type": "mpt", "n_heads": 6,
                 "attn_config": {"alibi": True, "alibi_bias_max": 16}},
    # README: "Qwen2-VL-7B-Instruct's rope keys (rope_theta 1e6, mrope_section [16, 24, 24],
    # hidden 3584, 28 heads)"; its max_position_embeddings is 32768
    "qwen2-vl.json": {"model_type": "qwen2_vl", "hidden_size": 3584,
                      "num_attention_heads": 28, "rope_theta": 1000000.0,
                      "max_position_embeddings": 32768,
                      "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]}},
    # "posproof explain config.json" (README: a Hugging Face config; biases-t5.md: a T5 one)
    "config.json": {"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32,
                    "rope_theta": 500000.0, "max_position_embeddings": 131072,
                    "rope_scaling": {"rope_type": "llama3", "factor": 8.0,
                                     "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                                     "original_max_position_embeddings": 8192}},
}
T5_CONFIG = {"model_type": "t5", "d_model": 512, "num_heads": 8, "num_layers": 6,
             "relative_attention_num_buckets": 32, "relative_attention_max_distance": 128}
ALIBI_CONFIG = {"model_type": "bloom", "n_head": 12, "hidden_size": 768}

#: Commands (a distinctive part of them) that take more than about 2 s (measured with
#: ``--durations``); the fast tier (``-m "not slow"``) runs the others.
SLOW = ("verify", "derive", "sweep", "--general", "--length 1048576", "--max-len 1e6",
        "--max-len 100000", "check-impl", "check-model", "--xpos", "dim=768", "explain",
        "--theorem permutation-equivariance", "--base 500000 --dim 128", "llama3",
        "--check separation", "--check decay", "--base-bound", "--claim-period 32",
        "--claim-block \"cos(w*delta), sin", "--alibi --heads 12")


@dataclass
class Shown:
    page: str
    line: int
    command: str
    output: list[str]
    status: int | None          # "# exit N" (None: 0 or 1)

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"


def _blocks(text: str) -> list[tuple[int, str, list[str]]]:
    """(line number of the first line, language, lines) of each fenced block."""
    out, lines, i = [], text.splitlines(), 0
    while i < len(lines):
        if lines[i].startswith("```"):
            lang, start, body = lines[i][3:].strip(), i + 2, []
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                body.append(lines[i])
                i += 1
            out.append((start, lang, body))
        i += 1
    return out


def _status(comment: str) -> int | None:
    found = re.search(r"\bexit (?:status )?(\d)\b", comment)
    return int(found[1]) if found else None


def shown_commands(page: Path) -> list[Shown]:
    """The posproof commands of ``page``, each with its shown output (may be empty)."""
    found = []
    rel = page.relative_to(ROOT).as_posix()
    for start, lang, body in _blocks(page.read_text(encoding="utf-8")):
        if lang in ("python", "toml", "json", "mermaid"):
            continue
        j = 0
        while j < len(body):
            line, first = body[j], start + j
            prompt = line.startswith("$ ")
            text = line[2:] if prompt else line
            while text.rstrip().endswith("\\") and j + 1 < len(body):    # continued lines
                j += 1
                text = text.rstrip()[:-1] + " " + body[j].strip()
            if not re.match(r"posproof\s", text):
                j += 1
                continue
            command, _, comment = text.partition("  #")
            if " #" in command and "'" not in command and '"' not in command:
                command, _, comment = text.partition(" #")
            output = []
            j += 1
            while prompt and j < len(body) and not body[j].startswith("$ "):
                output.append(body[j])
                j += 1
            while output and not output[-1].strip():
                output.pop()
            found.append(Shown(rel, first, command.strip(), output, _status(comment)))
    return found


def _runnable(shown: list[Shown]) -> list[Shown]:
    """The commands to run: no placeholder; a command listed without output on several pages
    (``posproof verify``) runs once, with the exit status any of them states."""
    out: list[Shown] = []
    listed: dict[str, Shown] = {}
    for s in shown:
        if any(p in f" {s.command} " for p in PLACEHOLDERS):
            continue
        if s.output or "config.json" in s.command:      # config.json: the page's own file
            out.append(s)
        elif s.command in listed:
            if listed[s.command].status is None:
                listed[s.command].status = s.status
        else:
            listed[s.command] = s
            out.append(s)
    return out


ALL = [s for page in PAGES for s in shown_commands(page)]
RUN = _runnable(ALL)


def _norm(line: str) -> str:
    return " ".join(line.split())


def _pattern(line: str) -> re.Pattern[str]:
    """A shown line as a pattern: ``…`` any text, timings any time, whitespace collapsed."""
    parts = re.split(r"(…|\.\.\.|\(\d+(?:\.\d+)? s\))", _norm(line))
    regex = "".join(".*?" if p in ("…", "...") else r"\(\d+(?:\.\d+)? s\)"
                    if re.fullmatch(r"\(\d+(?:\.\d+)? s\)", p) else re.escape(p)
                    for p in parts)
    return re.compile(regex + "$")


def chunks(output: list[str]) -> list[list[str]]:
    """The shown output as runs of consecutive lines (``…`` alone ends a run)."""
    out: list[list[str]] = [[]]
    for line in output:
        if _norm(line) in ("…", "...", ""):
            if out[-1]:
                out.append([])
        else:
            out[-1].append(line)
    return [c for c in out if c]


def missing(shown: list[str], printed: str) -> list[str]:
    """The runs of ``shown`` not found, in order, among the lines of ``printed``."""
    lines = [_norm(x) for x in printed.splitlines()]
    at, lost = 0, []
    for chunk in chunks(shown):
        pats = [_pattern(x) for x in chunk]
        for i in range(at, len(lines) - len(pats) + 1):
            if all(p.match(lines[i + k]) for k, p in enumerate(pats)):
                at = i + len(pats)
                break
        else:
            lost.append("\n".join(chunk))
    return lost


def test_the_pages_show_commands_and_the_reader_placeholders_are_few() -> None:
    """The collection works: the pages show commands with output, most commands run."""
    with_output = [s for s in RUN if s.output]
    assert len(with_output) >= 10, [s.id for s in with_output]
    left = [s.command for s in ALL if any(p in f" {s.command} " for p in PLACEHOLDERS)]
    assert len(RUN) >= 4 * len(left), left
    assert any("verdict:" in " ".join(s.output) for s in with_output)


def test_the_comparison_can_fail() -> None:
    shown = ["  ✗ translation[row]  refuted  counterexample x=0 (interval arithmetic, certified)",
             "...", "verdict: REFUTED — 2 proved, … (0.3 s)"]
    printed = ("posproof prove\n  ✗ translation[row]   refuted   counterexample x=0 "
               "(interval arithmetic, certified)\n  ✓ bounded\n"
               "verdict: REFUTED — 2 proved, 4 refuted (1.0 s)\n")
    assert missing(shown, printed) == []
    assert missing([shown[0].replace("interval arithmetic, certified", "mpmath, 50 digits")],
                   printed)
    assert missing(["verdict: OK — 2 proved"], printed)
    assert missing(list(reversed(shown)), printed)        # the order counts


def _environment(tmp: Path) -> dict[str, str]:
    for name, content in FIXTURES.items():
        (tmp / name).write_text(json.dumps(content), encoding="utf-8")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env["COLUMNS"] = "200"
    return env


def _params() -> list[object]:
    out = []
    for s in RUN:
        marks = [pytest.mark.slow] if any(k in s.command for k in SLOW) else []
        out.append(pytest.param(s, id=f"{s.id} {s.command[:60]}", marks=marks))
    return out


@pytest.mark.parametrize("shown", _params())
def test_a_shown_command_prints_what_the_page_shows(shown: Shown, tmp_path: Path) -> None:
    if re.search(r"\b(check-model|transformers\.)", shown.command):
        pytest.importorskip("torch")
        pytest.importorskip("transformers")
    env = _environment(tmp_path)
    if shown.page == "docs/biases-t5.md":          # its "config.json" is a T5 config
        (tmp_path / "config.json").write_text(json.dumps(T5_CONFIG), encoding="utf-8")
    if "--alibi" in shown.command and "config.json" in shown.command:
        (tmp_path / "config.json").write_text(json.dumps(ALIBI_CONFIG), encoding="utf-8")
    if "sweep" in shown.command:
        (tmp_path / "examples").mkdir()
        (tmp_path / "examples" / "sweep-small.toml").write_bytes(
            (ROOT / "examples" / "sweep-small.toml").read_bytes())
    pipe = shown.command.split(" | ", 1)
    argv = shlex.split(pipe[0])
    run = subprocess.run([sys.executable, "-m", *argv], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=900)
    where = f"{shown.id}: `{shown.command}`"
    assert "Traceback" not in run.stderr, f"{where}\n{run.stderr[-2000:]}"
    printed = run.stdout
    if len(pipe) == 2:                              # `… --json | python -c "…"`
        after = shlex.split(pipe[1])
        piped = subprocess.run([sys.executable, *after[1:]], input=run.stdout, cwd=tmp_path,
                               env=env, capture_output=True, text=True, timeout=60)
        assert piped.returncode == 0, f"{where}\n{piped.stderr[-2000:]}"
        printed = piped.stdout
    shows_error = any(line.startswith("posproof: error:") for line in shown.output)
    if shows_error:
        assert run.returncode == 2, f"{where}: exit {run.returncode}"
        printed = run.stderr
    elif shown.status is not None:
        assert run.returncode == shown.status, (
            f"{where}: the page says exit {shown.status}, it exits {run.returncode}\n"
            f"{run.stderr[-1000:]}")
    else:
        assert run.returncode in (0, 1), f"{where}: exit {run.returncode}\n{run.stderr[-1000:]}"
    lost = missing(shown.output, printed)
    assert not lost, (f"{where}: the page shows\n" + "\n---\n".join(lost)
                      + f"\n\nthe command prints\n{printed[-3000:]}")


# --------------------------------------------------------------------------- extras
def _pyproject() -> dict[str, object]:
    try:
        import tomllib
    except ModuleNotFoundError:                 # Python 3.10
        import tomli as tomllib
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_all_installs_every_runtime_extra_and_the_guide_lists_the_core() -> None:
    project = _pyproject()["project"]
    extras = project["optional-dependencies"]
    runtime = set(extras) - {"test", "docs", "dev", "all"}
    named = re.fullmatch(r"posproof\[([\w,]+)\]", extras["all"][0])
    assert len(extras["all"]) == 1
    assert named, extras["all"]
    assert set(named[1].split(",")) == runtime
    guide = (ROOT / "docs" / "guide.md").read_text(encoding="utf-8")
    line = next(x for x in guide.splitlines() if x.startswith("pip install .  "))
    core = {re.split(r"[<>=;\[ ]", d)[0] for d in project["dependencies"]
            if "python_version" not in d}
    assert core == {w.strip() for w in line.split("#")[1].split(":")[1].split(",")}, line


EXTRA_CASES = {      # the README table's rows: a command of the row, the modules it needs
    "`check-model`": (["check-model", "config.json", "--length", "8"], ["torch", "transformers"]),
    "`identify FILE.pt`": (["identify", "t.pt"], ["torch"]),
    "`derive` (its figures)": (["derive", "--dim", "8", "--out", "doc"], ["matplotlib"]),
    "`explore --plot`": (["explore", "rope:base=10000,dim=8", "--length", "64", "--plot",
                        "a.png"], ["matplotlib"]),
    "`sweep --scheduler ADDRESS`": (["sweep", "grid.toml", "--scheduler", "tcp://127.0.0.1:9"],
                          ["distributed", "dask"]),
}


def _extras_table() -> dict[str, str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("### Which extra a command needs"):]
    section = section[:section.index("\n## ")]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 3 and cells[2].startswith("`pip install"):
            rows[cells[0]] = cells[2]
    return rows


@pytest.mark.parametrize("case", sorted(EXTRA_CASES))
def test_the_readme_says_which_extra_a_command_needs(case: str, tmp_path: Path) -> None:
    """The README's table "command → extra": with the row's modules missing, the command
    exits 2 at once with one line naming that extra."""
    argv, modules = EXTRA_CASES[case]
    row = next((cmds, extra) for cmds, extra in _extras_table().items() if case in cmds)
    extra = re.search(r'"\.\[(\w+)\]"', row[1])
    assert extra, row
    assert extra[1] in _pyproject()["project"]["optional-dependencies"]
    env = _environment(tmp_path)
    if "FILE.pt" in case:
        torch = pytest.importorskip("torch")
        torch.save({"pe": torch.zeros(8, 8)}, tmp_path / "t.pt")
    (tmp_path / "config.json").write_text(json.dumps({
        "model_type": "llama", "hidden_size": 64, "num_attention_heads": 4,
        "num_hidden_layers": 2, "intermediate_size": 128, "vocab_size": 100,
        "rope_theta": 10000.0, "max_position_embeddings": 128}), encoding="utf-8")
    (tmp_path / "grid.toml").write_bytes((ROOT / "examples" / "sweep-small.toml").read_bytes())
    code = (f"import sys\nfor m in {modules!r}: sys.modules[m] = None\n"
            f"from posproof.cli import main\nraise SystemExit(main({argv!r}))\n")
    run = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 2, run.stderr[-2000:]
    assert run.stderr.count("\n") == 1, run.stderr
    assert f"posproof[{extra[1]}]" in run.stderr
