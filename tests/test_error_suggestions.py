"""Every option an error message suggests is accepted by the command that printed it (issue 29
item 8: ``prove`` of a config without rope_theta told the user to pass ``--default-theta``, which
only ``explain`` takes).

Two nets: the source (every ``--option`` written in a ``raise …(…)`` message under posproof/ is
an option of some command, or of the pytest plugin), and the commands themselves (bad input
given to prove / check / verify / explore / explain / check-impl / identify / check-model: each
``--option`` on stderr is parsed by that command's own parser).
"""

from __future__ import annotations

import argparse
import ast
import json
import re
from pathlib import Path

import pytest

from posproof.cli.app import main, make_parser

ROOT = Path(__file__).resolve().parents[1]
OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]+")


def _commands() -> dict[str, argparse.ArgumentParser]:
    parser = make_parser()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    raise AssertionError("the parser has no commands")


COMMANDS = _commands()


def _accepts(command: str, option: str) -> bool:
    """Whether ``posproof COMMAND … OPTION VALUE`` parses (the option itself, not a prefix)."""
    return option in COMMANDS[command]._option_string_actions


def _plugin_options() -> set[str]:
    """The options posproof's pytest plugin registers (``addoption("--posproof-…")``)."""
    tree = ast.parse((ROOT / "posproof" / "testing" / "pytest_plugin.py").read_text("utf-8"))
    return {a.value for node in ast.walk(tree) if isinstance(node, ast.Call)
            and getattr(node.func, "attr", None) == "addoption"
            for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)}


def _suggested_in_source() -> list[tuple[str, int, str]]:
    """(file, line, option) for every ``--option`` in the text of a ``raise`` under posproof/."""
    out = []
    for path in sorted((ROOT / "posproof").rglob("*.py")):
        tree = ast.parse(path.read_text("utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Raise) and node.exc is not None:
                for sub in ast.walk(node.exc):
                    if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
                        out += [(str(path.relative_to(ROOT)), node.lineno, opt)
                                for opt in OPTION.findall(sub.value)]
    return out


def test_the_source_scan_finds_the_messages() -> None:
    """The scan sees the suggestions it guards (a scan finding nothing would pass anything)."""
    found = {opt for _, _, opt in _suggested_in_source()}
    assert {"--grid", "--dtype", "--timeout", "--odd-dim"} <= found


def test_every_option_a_message_suggests_exists() -> None:
    known = set().union(*(p._option_string_actions for p in COMMANDS.values()))
    known |= _plugin_options()
    assert "--posproof-max-len" in known
    unknown = [f"{f}:{line}: {opt}" for f, line, opt in _suggested_in_source()
               if opt not in known]
    assert not unknown, unknown


def test_default_theta_is_suggested_only_to_explain() -> None:
    """--default-theta is explain's option; a message naming it comes from explain only."""
    assert _accepts("explain", "--default-theta")
    assert not _accepts("prove", "--default-theta")
    where = {str(path.relative_to(ROOT)) for path in (ROOT / "posproof").rglob("*.py")
             if "--default-theta" in path.read_text("utf-8")}
    assert where == {"posproof/cli/rope.py"}, where


NO_THETA = {"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4,
            "max_position_embeddings": 128}


def _cases() -> list[tuple[str, list[str]]]:
    spec_commands = ["prove", "check", "verify", "explore", "check-impl", "identify"]
    out = [(c, ["{config}"]) for c in [*spec_commands, "explain"]]
    out += [(c, args) for c in spec_commands for args in (
        ["vaswani:dim=7"], ["rope:dim=7"], ["nosuch:dim=8"], ["vaswani:dim=8", "--grid", "4,4"],
        ["/nonexistent/config.json"])]
    out += [("prove", ["--dim", "7"]), ("check", ["--dim", "7"]),
            ("explain", ["/nonexistent/config.json"]), ("check-model", ["/nonexistent/c.json"]),
            ("check-model", ["{config}", "--length", "0"]),
            ("prove", ["t5:num_buckets=32,max_distance=128", "--max-len", "64"]),
            ("check", ["xpos:dim=64", "--dps", "0"]),
            ("check", ["sincos-2d:dim=8", "--grid", "4"])]
    return out


@pytest.mark.parametrize(("command", "args"), _cases(),
                         ids=lambda v: v if isinstance(v, str) else " ".join(v))
def test_a_suggestion_is_accepted_by_the_command_that_printed_it(
        command: str, args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
        ) -> None:
    config = tmp_path / "config.json"
    config.write_text(json.dumps(NO_THETA), encoding="utf-8")
    argv = [command, *(a.replace("{config}", str(config)) for a in args)]
    status = main(argv)
    err = capsys.readouterr().err
    assert status in (0, 1, 2), err
    suggested = set(OPTION.findall(err)) - set(argv)          # not an echo of the input
    rejected = sorted(opt for opt in suggested if not _accepts(command, opt))
    assert not rejected, f"posproof {' '.join(argv)} suggests {rejected}: {err.strip()}"


@pytest.mark.parametrize("command", ["prove", "check", "verify", "explore"])
def test_a_config_without_rope_theta_names_a_spelling_the_command_takes(
        command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The refusal names the SPEC spelling (every SPEC command takes it), and it works."""
    config = tmp_path / "config.json"
    config.write_text(json.dumps(NO_THETA), encoding="utf-8")
    assert main([command, str(config)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "--default-theta" not in err
    spelled = f"rope:config={config},default_theta=10000"
    assert spelled in err
    extra = ["--max-len", "64"] if command in ("check", "verify") else []
    assert main([command, spelled, *extra]) in (0, 1)
    assert "verdict:" in capsys.readouterr().out


def test_explain_names_its_own_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "config.json"
    config.write_text(json.dumps(NO_THETA), encoding="utf-8")
    assert main(["explain", str(config)]) == 2
    err = capsys.readouterr().err
    assert "--default-theta 10000" in err
    assert main(["explain", str(config), "--default-theta", "10000", "--length", "64"]) in (0, 1)
