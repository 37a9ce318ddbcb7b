"""The documentation site (mkdocs.yml): it builds with no warning and documents the public API.

The site is built with ``mkdocs build --strict`` into a temporary directory,
in a subprocess (mkdocs and its plugins are not imported into the test
process, whose warnings are errors).  The tests skip when the ``docs`` extra
is not installed (``pip install -e ".[docs]"``).
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

import posproof
import posproof.sweep
import posproof.testing

ROOT = Path(__file__).resolve().parents[1]
REQUIRED = ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python", "griffe")
_MISSING = [name for name in REQUIRED if importlib.util.find_spec(name.split(".")[0]) is None
            or importlib.util.find_spec(name) is None]
pytestmark = pytest.mark.skipif(
    bool(_MISSING), reason=f"the docs extra is not installed ({', '.join(_MISSING)} missing): "
                           "pip install -e '.[docs]' to build the documentation site")

# Public names documented under another path than the one they are imported by:
# ``posproof.explore`` is also the name of the package that holds the metrics, so the
# reference documents the function as ``posproof.measure.explore.explore``; posproof.testing
# re-exports the identifier of ``posproof.testing.identification`` (issue 14 keeps that path).
DOCUMENTED_AS = {
    "posproof.explore": "posproof.measure.explore.explore",
    "posproof.testing.identify": "posproof.testing.identification.identify",
    "posproof.testing.Identification": "posproof.testing.identification.Identification",
}


def _build(config: Path, site: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}  # Material's banner about MkDocs 2
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(config),
         "--site-dir", str(site)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    result = _build(ROOT / "mkdocs.yml", out)
    log = result.stdout + result.stderr
    warnings = [line for line in log.splitlines() if "WARNING" in line or "ERROR" in line]
    report = "\n".join(warnings or [log[-3000:]])
    assert result.returncode == 0, f"mkdocs build --strict failed:\n{report}"
    assert not warnings, f"mkdocs build printed warnings:\n{report}"
    return out


def _anchors(site: Path) -> set[str]:
    ids: set[str] = set()
    for page in (site / "reference").rglob("index.html"):
        ids.update(re.findall(r'id="(posproof[\w.]*)"', page.read_text(encoding="utf-8")))
    return ids


@pytest.mark.slow  # full tier: the site is built with mkdocs
def test_site_builds_without_warnings(site: Path) -> None:
    for page in ("index.html", "guide/index.html", "theory/index.html", "cli/index.html",
                 "sweep/index.html", "derivations/vaswani-d512/derivation/index.html",
                 "reference/index.html"):
        assert (site / page).is_file(), f"{page} is missing from the site"


@pytest.mark.slow  # full tier: the site is built with mkdocs
def test_every_public_name_has_a_reference_entry(site: Path) -> None:
    """posproof.__all__, posproof.testing.__all__ and the sweep API each have an anchor."""
    public = [f"posproof.{name}" for name in posproof.__all__]
    public += [f"posproof.testing.{name}" for name in posproof.testing.__all__]
    public += [f"posproof.sweep.{module}.{name}"
               for module, names in posproof.sweep._LAZY.items() for name in names]
    anchors = _anchors(site)
    missing = [name for name in public if DOCUMENTED_AS.get(name, name) not in anchors]
    assert not missing, f"not in the API reference (add them to docs/reference/): {missing}"


@pytest.mark.slow  # full tier: the site is built with mkdocs
def test_docstring_doctests_render_as_code(site: Path) -> None:
    """A bare doctest is a highlighted block, not a Markdown block quote of '>>>' lines."""
    html = (site / "reference" / "encodings" / "index.html").read_text(encoding="utf-8")
    assert '<span class="gp">&gt;&gt;&gt; </span><span class="n">preset</span>' in html
    assert "<blockquote>" not in html


@pytest.mark.slow  # full tier: a second mkdocs build
def test_a_broken_link_fails_the_build(tmp_path: Path) -> None:
    """The build is strict: one broken link in a page is an error, not a silent 404."""
    docs = tmp_path / "docs"
    for path in (ROOT / "docs").rglob("*.md"):
        target = docs / path.relative_to(ROOT / "docs")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    (docs / "index.md").write_text("# posproof\n\n[a page](missing.md)\n", encoding="utf-8")
    yaml = pytest.importorskip("yaml")                       # installed with mkdocs
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    config["docs_dir"] = str(docs)
    config["watch"] = []
    for plugin in config["plugins"]:
        if isinstance(plugin, dict) and "mkdocstrings" in plugin:
            plugin["mkdocstrings"]["handlers"]["python"]["paths"] = [str(ROOT)]
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    result = _build(tmp_path / "mkdocs.yml", tmp_path / "site")
    assert result.returncode != 0
    assert "missing.md" in result.stderr


def _extension() -> ModuleType:
    path = ROOT / "scripts" / "griffe_rest.py"
    spec = importlib.util.spec_from_file_location("griffe_rest", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(("rest", "markdown"), [
    ("Use :func:`~posproof.measure.explore.explore` or :class:`posproof.Encoding`.",
     "Use `explore` or `posproof.Encoding`."),
    ("A grid file::\n\n    metrics = []", "A grid file:\n\n    metrics = []"),
    ("Text.\n\n>>> x = [1]\n>>> x[0]  # doctest: +ELLIPSIS\n1\n\nMore.",
     "Text.\n\n```pycon\n>>> x = [1]\n>>> x[0]\n1\n```\n\nMore."),
    ("Args\n\n    >>> 1\n    1", "Args\n\n    ```pycon\n    >>> 1\n    1\n    ```"),
    ("Examples\n--------\n>>> f(:func:`g`)\n1", "Examples\n--------\n>>> f(:func:`g`)\n1"),
])
def test_docstrings_become_markdown(rest: str, markdown: str) -> None:
    assert _extension().rest_to_markdown(rest) == markdown
