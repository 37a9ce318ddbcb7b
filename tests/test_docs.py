"""docs/: the generated files are up to date, the examples run, the links resolve.

The derivations under ``docs/derivations/`` and the CLI reference
``docs/cli.md`` are regenerated into a temporary directory and compared byte
for byte with the committed files; when they differ, the failure says how to
regenerate them (``python scripts/gen_docs.py``).  Figure bytes depend on the
matplotlib version and, by a pixel, on the SIMD extensions NumPy dispatches to,
so figures are compared only under the ones recorded in
``docs/derivations/versions.json`` (the documents always are).
"""

from __future__ import annotations

import doctest
import filecmp
import importlib.util
import json
import re
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def _gen_docs() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_docs", ROOT / "scripts" / "gen_docs.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every generated file, regenerated from the current code into a temporary docs/."""
    pytest.importorskip("matplotlib")
    out = tmp_path_factory.mktemp("docs")
    _gen_docs().generate(out)
    return out


def _stale_message(stale: list[str], gen: ModuleType) -> str:
    recorded = json.loads((DOCS / "derivations" / "versions.json").read_text(encoding="utf-8"))
    return (f"{len(stale)} generated doc file(s) are stale: {', '.join(stale[:8])}"
            f"{' …' if len(stale) > 8 else ''}. Regenerate them with `{gen.REGENERATE}` and "
            f"commit the result (generated with {recorded}, installed {gen._versions()}).")


def test_derivation_documents_are_up_to_date(fresh: Path) -> None:
    """The committed derivation.md / derivation.tex are what the code writes now."""
    gen = _gen_docs()
    stale = [rel for rel in gen.stale_files(fresh)
             if not rel.endswith(".png") and rel != "cli.md"]        # cli.md: its own test
    assert not stale, _stale_message(stale, gen)


def test_derivation_figures_are_up_to_date(fresh: Path) -> None:
    """The committed figures are byte-identical (under the matplotlib that made them)."""
    gen = _gen_docs()
    recorded = json.loads((DOCS / "derivations" / "versions.json").read_text(encoding="utf-8"))
    here = gen._versions()
    for key in ("matplotlib", "numpy_simd"):
        if recorded.get(key) != here[key]:
            pytest.skip(f"figures were generated under {key} {recorded.get(key)}, this machine has "
                        f"{here[key]}: their bytes are not comparable (the documents are compared "
                        "by the previous test)")
    stale = [rel for rel in gen.stale_files(fresh) if rel.endswith(".png")]
    assert not stale, _stale_message(stale, gen)


def test_every_derivation_is_committed_with_its_figures(fresh: Path) -> None:
    gen = _gen_docs()
    for name in gen.DERIVATIONS:
        folder = DOCS / "derivations" / name
        assert (folder / "derivation.md").is_file(), f"{name}: run `{gen.REGENERATE}`"
        assert (folder / "derivation.tex").is_file()
        md = (folder / "derivation.md").read_text(encoding="utf-8")
        for figure in re.findall(r"\]\((figures/[\w.-]+\.png)\)", md):
            assert (folder / figure).is_file(), f"{name}: {figure} is missing"


def test_cli_reference_is_up_to_date() -> None:
    gen = _gen_docs()
    committed = (DOCS / "cli.md").read_text(encoding="utf-8")
    assert committed == gen.cli_reference(), (
        "docs/cli.md is stale (the argparse definitions changed); regenerate it with "
        "`python scripts/gen_docs.py --cli`")


def test_cli_reference_lists_every_command() -> None:
    gen = _gen_docs()
    parser = gen._full_parser()
    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    sub = next(a for a in parser._actions if getattr(a, "choices", None))
    for name in sub.choices:
        assert f"## posproof {name}" in text
    assert "`--out DIR`" in text
    assert "`--format LIST`" in text


@pytest.mark.parametrize(("page", "examples"), [("guide.md", 10), ("base-bound.md", 2)])
def test_examples_in_the_docs_run(page: str, examples: int) -> None:
    """The Python examples of the guide (and the base-bound page) are doctests."""
    result = doctest.testfile(str(DOCS / page), module_relative=False, verbose=False,
                              optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    assert result.attempted > examples
    assert result.failed == 0


def test_relative_links_resolve() -> None:
    """Every relative link in docs/*.md (and the derivations index) points at a file."""
    pages = [*DOCS.glob("*.md"), DOCS / "derivations" / "README.md"]
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
            if "://" in target:
                continue
            assert (page.parent / target).exists(), f"{page.relative_to(ROOT)} links {target}"


def test_committed_figures_match_the_documents() -> None:
    """No committed figure is orphaned (every PNG is shown by its document)."""
    for folder in sorted((DOCS / "derivations").iterdir()):
        if not folder.is_dir():
            continue
        md = (folder / "derivation.md").read_text(encoding="utf-8")
        shown = set(re.findall(r"\]\(figures/([\w.-]+\.png)\)", md))
        present = {p.name for p in (folder / "figures").glob("*.png")}
        assert present == shown, f"{folder.name}: figures {sorted(present ^ shown)}"


def test_stale_files_detects_a_change(fresh: Path, tmp_path: Path) -> None:
    """The comparison really compares: one changed byte makes a file stale."""
    gen = _gen_docs()
    copy = tmp_path / "docs"
    for path in fresh.rglob("*"):
        if path.is_file():
            target = copy / path.relative_to(fresh)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(path.read_bytes())
    md = copy / "derivations" / "vaswani-d16" / "derivation.md"
    md.write_bytes(md.read_bytes().replace(b"proved", b"proven", 1))
    assert gen.stale_files(fresh, copy) == ["derivations/vaswani-d16/derivation.md"]
    assert filecmp.cmp(fresh / "cli.md", copy / "cli.md", shallow=False)
