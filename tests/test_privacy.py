"""Private means private: no posproof module uses another module's underscore names.

A name another module needs is public within its package (no underscore, in that module's
``__all__``); see docs/architecture.md.  The check reads the source with ``ast``: a
``from .x import _name`` (relative or absolute, at any depth, including a package façade
re-exporting its own submodules' names) or a ``module._name`` attribute on another posproof
module fails.  Dunder names are not private; a package may import its own private submodule
(``from . import _moved``).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__") and len(name) > 1


def _modules(package_dir: Path) -> dict[str, tuple[Path, bool]]:
    """Dotted module name -> (file, is_package) for every module under ``package_dir``."""
    found = {}
    for path in sorted(package_dir.rglob("*.py")):
        parts = path.relative_to(package_dir.parent).with_suffix("").parts
        is_package = parts[-1] == "__init__"
        found[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return found


def _absolute(module: str, is_package: bool, node: ast.ImportFrom) -> str | None:
    if node.level == 0:
        return node.module
    parts = module.split(".") if is_package else module.split(".")[:-1]
    if node.level - 1 > len(parts):
        return None
    parts = parts[: len(parts) - (node.level - 1)]
    return ".".join([*parts, node.module] if node.module else parts)


def _dotted(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return None if base is None else f"{base}.{node.attr}"
    return None


def private_uses(package_dir: Path) -> list[str]:
    """Every use, in the package, of another of its modules' underscore names, as
    ``file:line: text``."""
    package = package_dir.name
    modules = _modules(package_dir)
    found = []
    for module, (path, is_package) in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        where = path.relative_to(package_dir.parent).as_posix()
        aliases: dict[str, str] = {}      # local name -> package module it names
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name == package or alias.name.startswith(package + "."):
                        if alias.asname:
                            aliases[alias.asname] = alias.name
                        else:
                            aliases[package] = package
            elif isinstance(node, ast.ImportFrom):
                source = _absolute(module, is_package, node)
                if source is None or not (source == package or source.startswith(package + ".")):
                    continue
                for alias in node.names:
                    full = f"{source}.{alias.name}"
                    if full in modules:
                        aliases[alias.asname or alias.name] = full
                        if _private(alias.name) and source != module:
                            found.append(f"{where}:{node.lineno}: from {source} import "
                                         f"{alias.name} (a private module of another package)")
                    elif _private(alias.name) and source != module:
                        found.append(f"{where}:{node.lineno}: from {source} import {alias.name}")
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and _private(node.attr):
                dotted = _dotted(node.value)
                if dotted is None:
                    continue
                head, _, rest = dotted.partition(".")
                if head not in aliases:
                    continue
                target = ".".join(filter(None, [aliases[head], rest]))
                if target in modules and target != module:
                    found.append(f"{where}:{node.lineno}: {target}.{node.attr}")
    return found


def test_no_module_uses_another_modules_private_names() -> None:
    uses = private_uses(ROOT / "posproof")
    assert uses == [], (
        "make these names public within their package (drop the underscore, list them in the "
        "defining module's __all__), e.g. with the privacy tool of issue 14:\n  "
        + "\n  ".join(uses))


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / "pkg" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return tmp_path / "pkg"


def test_the_check_catches_planted_violations(tmp_path: Path) -> None:
    package = _tree(tmp_path, {
        "__init__.py": "from .a import _helper as _helper\nfrom . import _hidden\n",
        "_hidden.py": "",
        "a.py": "_helper = 1\n__version__ = '1'\n\ndef _own():\n    return _helper\n",
        "sub/__init__.py": "",
        "sub/b.py": ("import pkg.a as alias\nfrom pkg import a\nfrom ..a import __version__\n\n"
                     "def f():\n    from .. import a as lazily\n    from pkg.a import _helper\n"
                     "    return alias._helper + a._own() + lazily._helper + _helper\n"),
        "sub/c.py": "import pkg.a\n\nprint(pkg.a._helper)\n",
        "sub/d.py": "from .. import _hidden\n",
    })
    uses = private_uses(package)
    assert sorted(uses) == sorted([
        "pkg/__init__.py:1: from pkg.a import _helper",
        "pkg/sub/b.py:7: from pkg.a import _helper",
        "pkg/sub/b.py:8: pkg.a._helper",
        "pkg/sub/b.py:8: pkg.a._own",
        "pkg/sub/b.py:8: pkg.a._helper",
        "pkg/sub/c.py:3: pkg.a._helper",
        "pkg/sub/d.py:1: from pkg import _hidden (a private module of another package)",
    ])


def test_the_check_passes_public_names_and_own_helpers(tmp_path: Path) -> None:
    package = _tree(tmp_path, {
        "__init__.py": "from .a import helper as helper\nfrom . import _hidden\n",
        "_hidden.py": "",
        "a.py": ("__all__ = ['helper']\nhelper = 1\n\nclass K:\n    def _m(self):\n"
                 "        return self._x, _own()\n\ndef _own():\n    return helper\n"),
        "b.py": "import pkg.a as alias\nfrom .a import helper, __doc__\n\nprint(alias.helper)\n",
    })
    assert private_uses(package) == []
