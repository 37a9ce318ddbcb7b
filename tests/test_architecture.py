"""The layer contract of docs/architecture.md: ``lint-imports`` keeps it, and it can break.

The contract is ``[tool.importlinter]`` in pyproject.toml: cli > document | testing | sweep >
measure > proofs > model > the shared leaves, no cycle between the siblings of any package,
argparse only in cli, no plotting or deep-learning library below measure, no import of the
root façade ``posproof`` from inside the package.  ``lint-imports`` runs in a subprocess (it
reads the package from disk, so a planted copy in a temporary directory is linted instead of
the imported one).  A separate grimp check finds any import cycle between two modules.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parents[1]
LINT = ("import sys; from importlinter.cli import lint_imports; "
        "raise SystemExit(lint_imports(config_filename='pyproject.toml', no_cache=True, "
        "no_logo=True))")


def lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` on the package and pyproject.toml found in ``root``."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run([sys.executable, "-c", LINT], cwd=root, env=env, capture_output=True,
                          text=True, timeout=120, check=False)


def test_lint_imports_keeps_every_contract() -> None:
    result = lint_imports(ROOT)
    assert result.returncode == 0, f"lint-imports:\n{result.stdout}\n{result.stderr}"
    assert "0 broken" in result.stdout


PLANTS = {
    # contract id: (module, planted line, what lint-imports names in its report)
    "layers": ("model/layouts.py", "from ..cli import app as _app  # noqa",
               "posproof.model.layouts -> posproof.cli.app"),
    "argparse": ("measure/numeric.py", "import argparse as _argparse  # noqa",
                 "posproof.measure.numeric -> argparse"),
    "facade": ("sweep/store.py", "import posproof as _posproof  # noqa",
               "posproof.sweep.store -> posproof"),
    # no module cycle: theorems.api imports claims, claims would import theorems.budget
    "acyclic": ("proofs/claims.py", "from .theorems import budget as _budget  # noqa",
                "No cycles are allowed in posproof.proofs"),
}


@pytest.mark.parametrize("contract", sorted(PLANTS))
def test_a_planted_import_breaks_the_contract(contract: str, tmp_path: Path) -> None:
    """A copy of the package with one bad import: lint-imports fails and names it."""
    module, line, named = PLANTS[contract]
    shutil.copytree(ROOT / "posproof", tmp_path / "posproof",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    path = tmp_path / "posproof" / module
    path.write_text(path.read_text(encoding="utf-8") + f"\n{line}\n", encoding="utf-8")
    result = lint_imports(tmp_path)
    assert result.returncode == 1, f"lint-imports kept the contract:\n{result.stdout}"
    assert "BROKEN" in result.stdout, result.stdout
    assert named in result.stdout, result.stdout


def cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph.modules):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.find_modules_directly_imported_by(start))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.find_modules_directly_imported_by(
                        child)))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_module_imports_another_that_imports_it_back() -> None:
    graph = grimp.build_graph("posproof", cache_dir=None)
    found = cycles(graph)
    described = []
    for component in found:
        a, b = component[0], component[1]
        chain = graph.find_shortest_chain(importer=a, imported=b) or ()
        back = graph.find_shortest_chain(importer=b, imported=a) or ()
        described.append(" -> ".join(chain) + " and back: " + " -> ".join(back))
    assert not found, "import cycles:\n" + "\n".join(described)


def test_the_cycle_finder_finds_cycles() -> None:
    graph = grimp.ImportGraph()
    for importer, imported in [("p.a", "p.b"), ("p.b", "p.c"), ("p.c", "p.a"), ("p.c", "p.d"),
                               ("p.d", "p.e"), ("p.e", "p.d"), ("p.f", "p.a")]:
        graph.add_import(importer=importer, imported=imported)
    assert sorted(cycles(graph)) == [["p.a", "p.b", "p.c"], ["p.d", "p.e"]]


def test_old_paths_of_split_modules_see_both_halves() -> None:
    """posproof.rope and posproof.scaling (before issue 14) hold the model and its proofs."""
    import posproof.rope
    import posproof.scaling.invariants
    from posproof.scaling import rules

    import posproof
    import posproof.model.rope
    import posproof.model.scaling
    import posproof.proofs.rotary
    import posproof.proofs.scaling

    assert posproof.rope.Rotary is posproof.model.rope.Rotary
    assert posproof.rope.prove_rotary is posproof.proofs.rotary.prove_rotary
    assert posproof.scaling.make_scaling is posproof.model.scaling.make_scaling
    assert posproof.scaling.scaling_theorems is posproof.proofs.scaling.scaling_theorems
    assert posproof.scaling.invariants is posproof.proofs.scaling
    assert rules is posproof.model.scaling.rules
    assert posproof.prove_rotary is posproof.proofs.rotary.prove_rotary
    with pytest.raises(AttributeError):
        posproof.rope.no_such_name  # noqa: B018
