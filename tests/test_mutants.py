"""scripts/mutants.py: the hand-made mutants of the verdict-deciding code (issue 29 item 6).

The fast tier checks the list itself (every old text occurs exactly once, every named test
exists, a stale mutant is reported); the full tier (CI) runs every mutant and requires each
to be killed by its named tests.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "mutants.py"


def _load():
    spec = importlib.util.spec_from_file_location("posproof_mutants_script", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module        # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


mutants = _load()


def test_every_old_text_occurs_exactly_once() -> None:
    assert mutants.stale(mutants.MUTANTS) == []
    assert len(mutants.MUTANTS) >= 30
    assert len({m.id for m in mutants.MUTANTS}) == len(mutants.MUTANTS)


def test_a_stale_mutant_is_reported(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\nx = 1\ny = 2\n", encoding="utf-8")
    make = mutants.Mutant
    found = mutants.stale([make("twice", "a.py", "x = 1", "x = 0", ("t",), "w"),
                           make("gone", "a.py", "z = 3", "z = 0", ("t",), "w"),
                           make("fine", "a.py", "y = 2", "y = 0", ("t",), "w"),
                           make("missing", "b.py", "y", "z", ("t",), "w")], root=tmp_path)
    assert len(found) == 3
    assert "twice" in found[0]
    assert "found 2 times" in found[0]
    assert "gone" in found[1]
    assert "not found" in found[1]
    assert "refresh the mutant in scripts/mutants.py" in found[1]
    assert "b.py does not exist" in found[2]


def test_every_named_test_exists() -> None:
    """A node id naming a test that does not exist would 'kill' by a collection error."""
    for m in mutants.MUTANTS:
        assert m.tests, m.id
        for node in m.tests:
            path, _, name = node.partition("::")
            assert (ROOT / path).is_file(), (m.id, node)
            text = (ROOT / path).read_text("utf-8")
            if path.endswith(".py") and path.startswith("tests/"):
                assert re.search(rf"^def {re.escape(name)}\(", text, re.M), (m.id, node)
            else:                                   # a doctest: module::module.function
                assert f"def {name.rsplit('.', 1)[-1]}(" in text, (m.id, node)


def test_the_mutants_cover_the_verdict_deciding_modules() -> None:
    files = {m.file for m in mutants.MUTANTS}
    assert {"posproof/verdict.py", "posproof/audit.py", "posproof/validated.py",
            "posproof/evidence.py", "posproof/measure/kernel.py",
            "posproof/testing/core/judging.py", "posproof/proofs/multiaxis/claims.py",
            "posproof/proofs/cache_consistency.py", "posproof/testing/core/audited.py",
            "posproof/whole/checks.py", "posproof/whole/build.py", "posproof/whole/weights.py",
            "posproof/measure/alibi.py"} <= files


@pytest.mark.slow
def test_every_mutant_is_killed() -> None:
    """The whole list, each mutant against its named tests (minutes: the full tier)."""
    run = subprocess.run([sys.executable, str(SCRIPT)], cwd=ROOT, capture_output=True,
                         text=True, timeout=1800)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
    assert "mutants killed (100 %)" in run.stdout


def test_the_killing_tests_are_in_the_fast_tier() -> None:
    """Each mutant is killed by a test of the fast tier: none of the named tests is marked
    slow (on the function, or on its whole module)."""
    for m in mutants.MUTANTS:
        for node in m.tests:
            path, _, name = node.partition("::")
            if not path.startswith("tests/"):
                continue
            text = (ROOT / path).read_text("utf-8")
            assert not re.search(r"^pytestmark\s*=.*slow", text, re.M), (m.id, path)
            head = re.search(rf"((?:^@.*\n(?:^ .*\n)*)*)^def {re.escape(name)}\(", text, re.M)
            assert head is not None, (m.id, node)
            assert "mark.slow" not in head.group(1), (m.id, node)
