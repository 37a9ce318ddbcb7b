"""notebooks/: committed without outputs, and every notebook runs top to bottom without error.

The notebooks are executed with nbclient in a fresh kernel whose working
directory is ``notebooks/`` and whose ``PYTHONPATH`` starts with the
repository, so they test this checkout.  Each must finish in well under 30 s
on two cores; nothing may be written to stderr (warnings included).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
#: Seconds one cell may take before the run is declared hung.
CELL_TIMEOUT = 120


def test_there_are_notebooks() -> None:
    names = [p.name for p in NOTEBOOKS]
    assert names == ["01_derivation_walkthrough.ipynb", "02_check_your_implementation.ipynb",
                     "03_exploring_schedules.ipynb", "04_attention_biases.ipynb",
                     "05_whole_models.ipynb"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_committed_without_outputs(path: Path) -> None:
    """Outputs and execution counts are stripped in git (they are produced by running)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    for i, cell in enumerate(data["cells"]):
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [], f"{path.name} cell {i} has outputs"
            assert cell["execution_count"] is None, f"{path.name} cell {i} has a count"
    assert data["metadata"]["kernelspec"]["name"] == "python3"


@pytest.mark.slow  # full tier: a kernel per notebook
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    nbformat = pytest.importorskip(
        "nbformat", reason="nbformat is not installed (pip install '.[test]' brings it)")
    nbclient = pytest.importorskip(
        "nbclient", reason="nbclient is not installed (pip install '.[test]' brings it)")
    pytest.importorskip("ipykernel", reason="ipykernel is not installed (pip install '.[test]')")
    pytest.importorskip("matplotlib", reason="the notebooks draw figures (posproof[plot])")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]))
    monkeypatch.setenv("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    notebook = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(notebook, timeout=CELL_TIMEOUT, kernel_name="python3",
                                     resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    for i, cell in enumerate(notebook.cells):
        if cell.cell_type != "code":
            continue
        for output in cell.outputs:
            assert output.output_type != "error", f"{path.name} cell {i}: {output.get('ename')}"
            if output.output_type == "stream":
                assert output.name == "stdout", f"{path.name} cell {i} wrote to stderr: " \
                                                f"{output.text[:500]}"
