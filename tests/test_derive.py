"""Derivation documents: numbers from the toolkit, refutations stated plainly, bytes reproducible.

Covers ``posproof.document.derive`` (the document model, the guided derivation) and
``posproof derive`` (``posproof.cli.derive``): exit status 0 / 1 / 2, bad
input as one line, the figures drawn in a second process giving the same
bytes as in one, and the LaTeX compiling with ``pdflatex -halt-on-error``
when pdflatex is on PATH.
"""

from __future__ import annotations

import filecmp
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import sympy as sp

from posproof import Encoding, preset, prove
from posproof.document.derive import Derivation, derive, latex_text, write_derivation
from posproof.errors import InvalidParameter, PosproofError, UnknownName

ROOT = Path(__file__).resolve().parents[1]
SMALL = {"max_len": 1000}


@pytest.fixture(scope="module")
def vaswani8() -> Derivation:
    return derive(preset("vaswani", dim=8), **SMALL)


@pytest.fixture(scope="module")
def sine_only() -> Derivation:
    return derive(preset("sine-only", dim=4), max_len=200, figures=[])


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Run ``posproof derive`` through posproof.cli.app once it is wired, else cli_derive alone."""
    from posproof.cli import app as cli
    from posproof.cli import derive as cli_derive

    parser = cli.make_parser()
    wired = any(getattr(a, "choices", None) and "derive" in a.choices for a in parser._actions)
    status = cli.main(["derive", *args]) if wired else cli_derive.main(args)
    out, err = capsys.readouterr()
    return status, out, err


# --------------------------------------------------------------------------- numbers
def test_guide_numbers_are_the_toolkits(vaswani8: Derivation) -> None:
    """Each guided step's numbers equal what posproof computes independently."""
    steps = {g.key: g for g in vaswani8.guide}
    assert [g.key for g in vaswani8.guide] == [
        "raw_index", "index_over_length", "binary_digits", "sine_binary", "sine_geometric",
        "sin_cos_pairs"]
    assert steps["raw_index"].values["max_value"] == SMALL["max_len"] - 1
    assert steps["binary_digits"].values["max_step_squared"] == 8
    binary = prove(preset("binary", dim=16), theorems=["periodicity"])["periodicity"]
    assert steps["sine_binary"].values["period"] == str(binary.exact) == "512"
    assert steps["sine_binary"].values["collide_at"] == 512
    witness = prove(preset("sine-only", dim=16), theorems=["translation[row]"])
    assert steps["sine_geometric"].values["counterexample"] == witness["translation[row]"]. \
        counterexample
    md = vaswani8.markdown()
    assert "$P = 2^{9} = 512$" in md
    assert witness["translation[row]"].counterexample["lhs"] in md       # 0.841470984808


def test_translation_blocks_are_sympy_latex_of_the_encoding() -> None:
    """The printed 2×2 blocks are sympy.latex of Encoding.translation, for the chosen convention."""
    enc = preset("tensor2tensor", dim=8)
    for convention in ("row", "column"):
        doc = derive(enc, max_len=300, general=False, checks=False, figures=[],
                     convention=convention)
        t = enc.translation(convention=convention)
        s, c = enc.pairs[1]                                      # split layout: columns 1, 5
        block = sp.Matrix([[t[s, s], t[s, c]], [t[c, s], t[c, c]]])
        md = doc.markdown()
        assert f"T(\\Delta)_{{[{s},{c}]}} = {sp.latex(block)}" in md
        assert f"convention='{convention}'" in md
        transposed = doc.extras["transposed"]["proof"]
        assert transposed.status == "refuted"
        assert "The transposed block: a classic bug" in md


def test_document_states_verdict_and_certification(vaswani8: Derivation) -> None:
    md = vaswani8.markdown()
    assert vaswani8.ok
    assert vaswani8.exit_status() == 0
    line = next(x for x in md.splitlines() if x.startswith("**Verdict: "))
    assert line.startswith("**Verdict: OK — 23 proved, 0 refuted, 0 unknown; checks 8/8 pass; "
                           "audit (python-flint arb): ")
    audited = vaswani8.report.audit_summary()
    assert f"{audited['confirmed']} confirmed" in line
    assert audited["refuted"] == audited["undecided"] == 0
    for c in vaswani8.report.checks:
        assert c.certified
        assert c.certified.split(";")[0].replace("|", "\\|").replace(
            "*", "\\*").replace("_", "\\_")[:20] in md
    assert vaswani8.command == ("posproof derive --preset vaswani --dim 8 --base 10000 "
                                "--max-len 1000 --out DIR")
    assert "$ posproof derive --preset vaswani --dim 8 --base 10000 --max-len 1000 \\\n" in md


def test_refuted_document_says_so_plainly(sine_only: Derivation) -> None:
    """A refuted theorem is printed as REFUTED with its counterexample, never as proved."""
    md, tex = sine_only.markdown(), sine_only.latex()
    assert sine_only.exit_status() == 1
    assert "**Verdict: REFUTED" in md
    assert "**`translation[row]` — REFUTED.**" in md
    assert "`translation[row]` — proved" not in md
    assert "Counterexample: x = 0, Δ = 1, column = 0" in md
    assert r"\textbf{REFUTED}" in tex
    assert "No translation matrix exists" in md


def test_to_dict_is_the_json_contract(vaswani8: Derivation) -> None:
    data = json.loads(json.dumps(vaswani8.to_dict()))
    assert {t["status"] for t in data["theorems"]} == {"proved"}
    assert all({"name", "status"} <= set(c) for c in data["checks"])
    assert [g["breaks"] for g in data["guide"]][:2] == ["unbounded",
                                                        "depends on the sequence length"]


# --------------------------------------------------------------------------- text
def test_latex_text_is_ascii_and_escaped() -> None:
    text = "‖PE(x)‖² ≤ 1, Δ ∈ 2πℤ, 50% & #1_k {a} ~ ^ \\ | < > “q” — ωᵀ"
    out = latex_text(text)
    assert out.isascii()
    for raw in ("%", "&", "#", "_"):
        assert "\\" + raw in out
    assert r"\ensuremath{\Delta}" in out
    assert r"\ensuremath{^{\mathsf{T}}}" in out


def test_documents_have_github_math_and_ascii_latex(vaswani8: Derivation) -> None:
    md, tex = vaswani8.markdown(), vaswani8.latex()
    assert "\n$$\n" in md
    assert "$d = 8$" in md
    assert tex.isascii()
    assert tex.startswith("% Generated by posproof derive")
    assert tex.rstrip().endswith(r"\end{document}")


# --------------------------------------------------------------------------- reproducibility
def _same_tree(a: Path, b: Path) -> list[str]:
    files_a = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    files_b = sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    assert files_a == files_b
    return [str(p) for p in files_a if not filecmp.cmp(a / p, b / p, shallow=False)]


@pytest.mark.slow  # full tier: figures drawn twice, once in a spawned process
def test_two_runs_give_identical_bytes(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    """Two independent runs — the API in this process, the CLI drawing its figures in a spawned
    second process (--jobs 2) — write byte-identical documents and figures.  (SVG and PDF
    bytes are checked figure by figure in test_plots.py.)"""
    pytest.importorskip("matplotlib")
    enc = preset("vaswani", dim=8, layout="split")
    write_derivation(derive(enc, max_len=500, general=False), tmp_path / "api",
                     figure_formats=["png"])
    status, out, err = _cli(["--dim", "8", "--layout", "split", "--max-len", "500",
                             "--no-general", "--jobs", "2", "--figures", "png",
                             "--out", str(tmp_path / "cli")], capsys)
    assert status == 0, err
    assert "wrote 7 figure file(s)" in out
    assert _same_tree(tmp_path / "api", tmp_path / "cli") == []


# --------------------------------------------------------------------------- CLI
def test_cli_exit_status_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = _cli(["--dim", "8", "--max-len", "500", "--no-figures", "--json",
                             "--out", str(tmp_path / "ok")], capsys)
    assert status == 0, err
    data = json.loads(out)
    assert data["ok"] is True
    assert data["theorems"]
    assert data["checks"]
    assert data["guide"]
    assert sorted(Path(f).name for f in data["files"]) == ["derivation.md", "derivation.tex"]
    status, out, _ = _cli(["--preset", "sine-only", "--dim", "4", "--max-len", "100",
                           "--no-figures", "--format", "md", "--out", str(tmp_path / "bad")],
                          capsys)
    assert status == 1
    assert "verdict: REFUTED" in out
    assert not (tmp_path / "bad" / "derivation.tex").exists()
    assert "REFUTED" in (tmp_path / "bad" / "derivation.md").read_text(encoding="utf-8")


@pytest.mark.parametrize(("args", "message"), [
    (["--format", "html"], "--format='html' is not known; use md, tex"),
    (["--figures", "svg"], "lacks png"),
    (["--figures", "gif"], "--figures='gif' is not known; use png, svg, pdf"),
    (["--dim", "7"], "dim=7 is odd"),
    (["--preset", "nope"], "'nope' is not known"),
])
def test_cli_bad_input_is_one_line_and_status_2(args: list[str], message: str, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    status, _out, err = _cli([*args, "--no-general", "--out", str(tmp_path / "x")], capsys)
    assert status == 2
    assert message in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_cli_unwritable_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--out below a regular file cannot be created: exit 2 before any work."""
    blocker = tmp_path / "file.txt"
    blocker.write_text("not a directory", encoding="ascii")
    status, _, err = _cli(["--dim", "8", "--out", str(blocker / "doc")], capsys)
    assert status == 2
    assert "cannot be written" in err
    assert "pass a writable directory" in err
    with pytest.raises(InvalidParameter, match="cannot be written"):
        write_derivation(derive(preset("vaswani", dim=4), max_len=50, general=False,
                                figures=[]), blocker / "doc")


def test_api_bad_input() -> None:
    with pytest.raises(UnknownName, match="convention='diagonal'"):
        derive(preset("vaswani", dim=4), convention="diagonal")
    with pytest.raises(UnknownName, match="figure='pie'"):
        derive(preset("vaswani", dim=4), figures=["pie"])
    with pytest.raises(InvalidParameter, match="not an Encoding"):
        derive("vaswani")  # type: ignore[arg-type]
    with pytest.raises(PosproofError, match="max_len=0"):
        derive(preset("vaswani", dim=4), max_len=0)


def test_encodings_without_a_preset_recipe() -> None:
    """A hand-built encoding still gets a document (and a hint instead of a command)."""
    enc = Encoding.from_columns([("sin", 1), ("cos", 2)], name="mismatched")
    doc = derive(enc, max_len=100, figures=[])
    md = doc.markdown()
    assert doc.exit_status() == 1
    assert "dims 0 and 1 use different frequencies" in md
    assert "posproof.derive(...)" in md


def test_derive_modules_do_not_import_matplotlib() -> None:
    code = ("import sys, posproof.document.derive, posproof.document.plots, posproof.cli.derive; "
            "print('matplotlib' in sys.modules)")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, check=True, timeout=120)
    assert done.stdout.strip() == "False"


# --------------------------------------------------------------------------- LaTeX
@pytest.mark.skipif(shutil.which("pdflatex") is None,
                    reason="pdflatex is not on PATH (CI installs texlive-latex-base and "
                           "texlive-latex-recommended)")
@pytest.mark.parametrize("which", ["vaswani8", "sine_only"])
def test_latex_compiles(which: str, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    """The standalone .tex compiles with pdflatex -halt-on-error (a refuted document too)."""
    pytest.importorskip("matplotlib")
    doc: Derivation = request.getfixturevalue(which)
    if doc.figures:
        doc = derive(doc.encoding, max_len=300, general=False, figures=["gram", "curve3d"])
    write_derivation(doc, tmp_path, formats=["tex"], figure_formats=["png"])
    done = subprocess.run(["pdflatex", "-halt-on-error", "-interaction=nonstopmode",
                           "derivation.tex"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=180, check=False)
    log = done.stdout[-3000:]
    assert done.returncode == 0, log
    assert (tmp_path / "derivation.pdf").stat().st_size > 10_000


def _unwrap(md: str) -> str:
    """The command of a document, as printed after 'Regenerate it (byte for byte) with:'."""
    block = md.split("Regenerate it (byte for byte) with:", 1)[1].split("```")[1]
    lines = block.strip().splitlines()[1:]            # after the fence's language tag
    return " ".join(line.strip().rstrip("\\").strip() for line in lines)


@pytest.mark.parametrize("options", [
    ["--preset", "vaswani", "--dim", "4", "--max-len", "64", "--no-general", "--no-figures"],
    ["--preset", "binary", "--dim", "6", "--max-len", "80", "--seed", "3", "--no-general",
     "--convention", "column", "--no-figures"],
    ["--preset", "fairseq", "--dim", "4", "--max-len", "64", "--padding-idx", "0",
     "--no-figures"],
    pytest.param(["--preset", "vaswani", "--dim", "4", "--max-len", "64", "--no-general",
                  "--figures", "png"], marks=pytest.mark.slow),      # full tier: figures twice
])
def test_the_regenerate_command_reproduces_the_document(options, tmp_path, capsys) -> None:
    """The command a document prints rebuilds it byte for byte (with or without the general
    proofs, figures, a seed, a convention)."""
    import shlex

    first = tmp_path / "first"
    assert _cli([*options, "--out", str(first)], capsys)[0] in (0, 1)
    md = (first / "derivation.md").read_text(encoding="utf-8")
    command = shlex.split(_unwrap(md).replace("DIR", str(tmp_path / "again")))
    assert command[:3] == ["$", "posproof", "derive"]
    assert _cli(command[3:], capsys)[0] in (0, 1)
    for name in ("derivation.md", "derivation.tex"):
        assert (tmp_path / "again" / name).read_bytes() == (first / name).read_bytes(), name


def test_api_options_the_cli_lacks_give_an_exact_python_command(tmp_path) -> None:
    """checks=False (no CLI flag) gives a python -c command, and it rebuilds the document."""
    doc = derive(preset("vaswani", dim=4), max_len=50, general=False, checks=False, figures=[])
    assert doc.reproducible
    assert doc.command.startswith('python -c "')
    write_derivation(doc, tmp_path / "first")
    code = doc.command.removeprefix('python -c "').removesuffix('"')
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "-c", code.replace("DIR", str(tmp_path / "again"))],
                   env=env, check=True, timeout=300)
    assert (tmp_path / "again" / "derivation.md").read_bytes() == \
        (tmp_path / "first" / "derivation.md").read_bytes()
    hand_built = derive(Encoding.from_columns([("sin", 1), ("cos", 1)], name="mine"),
                        max_len=20, general=False, figures=[])
    assert not hand_built.reproducible
    assert "no command rebuilds it" in hand_built.markdown()
