"""Determinism and isolation: the same bytes in every process, no global state touched.

``tests/conftest.py`` snapshots the global state (:func:`conftest.global_state`)
around *every* test; here the snapshot is shown to catch a leak, one battery of
calls touches every subsystem with matplotlib and pyplot already imported, and
the CLI's JSON is compared byte for byte across processes with different hash
seeds.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import mpmath
import numpy as np
import pytest

import posproof
from conftest import global_state
from posproof import preset, prove

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("leak", ["mpmath", "numpy.errstate", "numpy.random",
                                  "numpy.printoptions", "matplotlib"])
def test_the_snapshot_sees_each_kind_of_leak(leak: str) -> None:
    """The guard is not vacuous: each kind of change it watches is seen, then undone."""
    import matplotlib

    before = global_state()
    undo = {
        "mpmath": lambda: setattr(mpmath.mp, "dps", 15),
        "numpy.errstate": lambda: np.seterr(**old_err),
        "numpy.random": lambda: np.random.set_state(old_rng),
        "numpy.printoptions": lambda: np.set_printoptions(precision=old_precision),
        "matplotlib": lambda: matplotlib.rcParams.update({"lines.linewidth": old_lw}),
    }[leak]
    old_err, old_rng = np.geterr(), np.random.get_state()
    old_precision = np.get_printoptions()["precision"]
    old_lw = matplotlib.rcParams["lines.linewidth"]
    try:
        {"mpmath": lambda: setattr(mpmath.mp, "dps", 40),
         "numpy.errstate": lambda: np.seterr(all="raise"),
         "numpy.random": lambda: np.random.seed(1234),
         "numpy.printoptions": lambda: np.set_printoptions(precision=3),
         "matplotlib": lambda: matplotlib.rcParams.update({"lines.linewidth": 7.5}),
         }[leak]()
        changed = [k for k in before if before[k] != global_state()[k]]
        assert changed
        assert changed[0].startswith(leak)
    finally:
        undo()
    assert global_state() == before


@pytest.mark.slow  # full tier: every subsystem once more (the autouse
# fixture of conftest.py checks the state around every test of both tiers)
def test_every_subsystem_leaves_global_state_alone(tmp_path: Path) -> None:
    """Proofs, checks, RoPE, exploration with its plot, figures, derivations, identification,
    with matplotlib and pyplot imported first (so their state is in the snapshot)."""
    import matplotlib.pyplot  # noqa: F401

    from posproof import testing
    from posproof.document import derive, plots
    from posproof.measure.checks import check
    from posproof.measure.explore import explore, plot_exploration
    from posproof.model import rope
    from posproof.testing.identification import identify

    before = global_state()
    enc = preset("vaswani", dim=16)
    prove(enc, general=True)
    prove(preset("sine-only", dim=4), claim_period="2*pi", claim_bound="1/2")
    check(enc, max_len=2000)
    posproof.prove_rotary(rope.rotary(10000, 8, scaling="yarn", factor=4,
                                      original_max_position_embeddings=64))
    ex = explore([enc], 512, proofs=False)
    plot_exploration(ex, str(tmp_path / "explore.png"))
    plots.save_figure(plots.encoding_heatmap(enc, 64), tmp_path / "heatmap")
    doc = derive.derive(preset("vaswani", dim=8), max_len=4096, figures=["heatmap"])
    derive.write_derivation(doc, tmp_path / "derivation")
    testing.assert_encoding(enc.table(64), enc)
    identify(enc.table(64))
    assert global_state() == before


def _cli(*args: str, seed: str) -> bytes:
    env = {**os.environ, "PYTHONHASHSEED": seed}
    done = subprocess.run([sys.executable, "-m", "posproof", *args], cwd=ROOT, env=env,
                          capture_output=True, check=False, timeout=300)
    assert done.returncode in (0, 1), done.stderr.decode()
    return done.stdout


@pytest.mark.slow
@pytest.mark.parametrize("args", [
    ("verify", "--dim", "16", "--max-len", "20000", "--json"),
    ("prove", "--preset", "sine-only", "--dim", "6", "--claim-bound", "1/2", "--json"),
    ("explore", "--base", "10000", "--dim", "32", "--length", "4096", "--json"),
])
def test_json_reports_are_byte_identical_across_processes(args: tuple[str, ...]) -> None:
    """Two processes with different hash seeds (set iteration order differs) print the
    same bytes."""
    first, second = _cli(*args, seed="0"), _cli(*args, seed="4242")
    assert first == second
    assert first.startswith(b"{")


def test_posproof_does_not_import_matplotlib_or_change_state_on_import() -> None:
    code = ("import sys, numpy as np, mpmath; s = np.random.get_state()[1].sum(); "
            "import posproof, posproof.proofs.theorems, posproof.measure.checks; "
            "assert 'matplotlib' not in sys.modules; "
            "assert np.random.get_state()[1].sum() == s and mpmath.mp.dps == 15; print('ok')")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False, cwd=ROOT)
    assert done.stdout.strip() == "ok", done.stderr
    assert posproof.__version__
