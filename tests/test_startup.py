"""Instant start (issue 27 §2): ``posproof --help``, ``--version``, ``limits`` and every
``COMMAND --help`` import neither SymPy, NumPy, mpmath nor python-flint; ``--version`` and every
``--json`` name the versions of the libraries a verdict depends on.

The imports are read from ``python -X importtime`` (its stderr lists every module imported), in
a fresh process.  How fast each prints is measured by benchmarks/bench_startup.py, not here.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

import posproof
from posproof.cli import constants
from posproof.cli.app import make_parser, render_markdown
from posproof.version import LIBRARIES, OPTIONAL_LIBRARIES, versions

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("sympy", "numpy", "mpmath", "flint")


def imported(*argv: str) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """Run ``python -X importtime -m posproof ARGV``: the process and the modules it imported."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("PYTHONIOENCODING", None)
    result = subprocess.run([sys.executable, "-X", "importtime", "-m", "posproof", *argv],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
                            check=False)
    modules = {line.rsplit("|", 1)[1].strip() for line in result.stderr.splitlines()
               if line.startswith("import time:") and "|" in line}
    return result, modules


def heavy_of(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if m.split(".")[0] in HEAVY)


def commands() -> list[str]:
    """Every COMMAND the parser lists."""
    parser = make_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sorted(sub.choices)


def test_the_import_list_is_read() -> None:
    """The reader of -X importtime sees a heavy import where there is one (``verify``)."""
    result, modules = imported("verify", "--max-len", "8", "--dim", "4", "--check", "bounds")
    assert result.returncode == 0, result.stderr[-2000:]
    assert {"sympy", "numpy", "mpmath"} <= set(heavy_of(modules))
    assert "posproof.cli.app" in modules


def test_every_command_is_listed() -> None:
    assert {"verify", "check", "prove", "limits", "check-impl", "derive"} <= set(commands())


@pytest.mark.parametrize("argv", [("--help",), ("--version",), ("limits",),
                                  *((name, "--help") for name in commands())],
                         ids=lambda argv: " ".join(argv))
def test_start_imports_no_heavy_library(argv: tuple[str, ...]) -> None:
    result, modules = imported(*argv)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip(), "nothing printed"
    assert "posproof.cli.app" in modules            # the list is the real one
    assert heavy_of(modules) == [], f"posproof {' '.join(argv)} imports {heavy_of(modules)}"


def test_version_names_the_libraries() -> None:
    result, _ = imported("--version")
    lines = result.stdout.splitlines()
    assert lines[0] == f"posproof {posproof.__version__}"
    shown = dict(line.split() for line in lines[1:])
    for name in LIBRARIES:
        assert shown[name] == metadata.version(name), name
    for name in OPTIONAL_LIBRARIES:
        try:
            assert shown[name] == metadata.version(name)
        except metadata.PackageNotFoundError:
            assert name not in shown


def test_versions_are_read_without_importing_the_libraries() -> None:
    code = ("import sys; from posproof.version import versions; v = versions(); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            f"{HEAVY!r} or m.split('.')[0] in ('torch', 'transformers')))")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=60, check=True).stdout
    assert out.strip() == "[]"


@pytest.mark.parametrize("argv", [
    ["check", "--dim", "4", "--max-len", "16", "--check", "bounds", "--json"],
    ["explain", "--xpos", "8", "--json"],
])
def test_json_carries_the_versions(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    from posproof.cli import main

    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["versions"] == versions()
    assert data["versions"]["python-flint"] == metadata.version("python-flint")


# -- the light copies of the heavy registries and limits (posproof/cli/constants.py)

def source_of(name: str) -> object:
    module, attribute = constants.SOURCES[name]
    value = getattr(importlib.import_module(module), attribute)
    if name == "FIGURES":
        return tuple(figure.name for figure in value)
    if isinstance(value, dict):
        return tuple(value)
    return value


@pytest.mark.parametrize("name", sorted(constants.SOURCES))
def test_each_light_copy_equals_its_source(name: str) -> None:
    copy = getattr(constants, name)
    assert copy == source_of(name), f"posproof.cli.constants.{name} differs from its source"
    assert type(copy) is type(source_of(name))


def test_every_copy_has_its_source() -> None:
    assert set(constants.SOURCES) == set(constants.__all__) - {"SOURCES"}


def test_the_help_lists_the_checks_of_the_registry() -> None:
    from posproof.measure.checks import CHECKS

    text = make_parser()._subparsers._group_actions[0].choices["check"].format_help()
    text = " ".join(text.split())
    assert ", ".join(CHECKS) in text


# -- the lazy façade (PEP 562)

def test_the_facade_is_lazy_and_complete() -> None:
    code = ("import sys, posproof; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            f"{HEAVY!r})); print(sorted(set(posproof.__all__) - set(dir(posproof))))")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=60, check=True).stdout.splitlines()
    assert out == ["[]", "[]"]
    assert set(posproof._LAZY) == set(posproof.__all__)     # each public name has its module
    for name in posproof.__all__:
        module = importlib.import_module(f"posproof.{posproof._LAZY[name]}")
        assert getattr(posproof, name) is getattr(module, name), name
    from posproof import prove
    from posproof.proofs.theorems import prove as defined

    assert prove is defined
    with pytest.raises(AttributeError, match="no_such_name"):
        posproof.no_such_name  # noqa: B018


def test_an_old_module_path_does_not_shadow_a_lazy_name() -> None:
    """``import posproof.explore`` (the old path of the package) leaves ``posproof.explore``
    the function, before and after the name is first used."""
    code = ("import posproof, posproof.explore, posproof.numeric; "
            "import posproof.measure.explore as m, posproof.measure.numeric as n; "
            "print(callable(posproof.explore) and posproof.explore is m.explore, "
            "posproof.numeric is n, sys.modules['posproof.explore'] is m)")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", "import sys; " + code], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=60, check=True).stdout
    assert out.split() == ["True", "True", "True"]


def test_sympy_ground_types_are_set_before_sympy() -> None:
    code = ("import os; os.environ.pop('SYMPY_GROUND_TYPES', None); import posproof, sympy; "
            "from sympy.external.gmpy import GROUND_TYPES; print(GROUND_TYPES)")
    env = {k: v for k, v in os.environ.items() if k != "SYMPY_GROUND_TYPES"}
    env["PYTHONPATH"] = str(ROOT)
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=60, check=True).stdout.strip()
    assert out in ("gmpy", "python"), out                 # not flint


def test_render_markdown_still_needs_no_eager_report() -> None:
    from posproof.report import Report

    text = render_markdown(Report({"name": "demo", "dim": 2, "layout": "interleaved",
                                   "offset": 0}), "posproof check")
    assert text.startswith("# posproof check")


# -- the process entry (python -m posproof, the posproof script): status, output, atexit, threads

def console_run(prelude: str, *argv: str) -> subprocess.CompletedProcess[str]:
    code = (f"import sys\n{prelude}\nsys.argv = ['posproof', *{list(argv)!r}]\n"
            "from posproof.cli import console\nconsole()\nprint('not reached')")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120, check=False)


@pytest.mark.parametrize(("argv", "status"), [
    (("prove", "--preset", "sine-only", "--dim", "4", "--theorem", "norm"), 1),
    (("prove", "--preset", "vaswani", "--dim", "4", "--theorem", "norm"), 0),
    (("prove", "--preset", "no-such-family"), 2),
    (("--version",), 0),
])
def test_console_keeps_the_status_the_output_and_the_atexit_handlers(
        argv: tuple[str, ...], status: int) -> None:
    result = console_run("import atexit; atexit.register(print, 'atexit ran')", *argv)
    assert result.returncode == status, result.stderr
    assert result.stdout.endswith("atexit ran\n")       # output flushed, handlers run, in order
    assert "not reached" not in result.stdout
    if status == 2:
        assert result.stderr.count("\n") == 1
        assert "no-such-family" in result.stderr
    elif argv[0] == "prove":
        assert "verdict: " in result.stdout


def test_console_waits_for_a_running_thread() -> None:
    """A non-daemon thread still running: the ordinary exit, which waits for it."""
    prelude = ("import threading, time\n"
               "threading.Thread(target=lambda: (time.sleep(0.5), print('thread done'))).start()")
    result = console_run(prelude, "--version")
    assert result.returncode == 0, result.stderr
    assert result.stdout.rstrip().endswith("thread done")
