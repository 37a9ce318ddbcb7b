"""The version of posproof, in one place: ``posproof.__version__`` and ``posproof --version``;
and :func:`versions`, posproof's with those of the libraries a verdict depends on, which
``posproof --version`` prints and every ``--json`` carries (``"versions"``), so that a verdict
can be reproduced from its header.

The versions are read from the installed distributions' metadata (:mod:`importlib.metadata`):
no library is imported to learn its version, so ``posproof --version`` starts at once.
"""

from __future__ import annotations

__all__ = ["LIBRARIES", "OPTIONAL_LIBRARIES", "__version__", "versions", "versions_text"]

__version__ = "0.1.0"

#: The distributions every verdict depends on: the engine (SymPy, mpmath), the independent
#: auditor (python-flint's Arb) and the numeric scans (NumPy).
LIBRARIES = ("sympy", "mpmath", "python-flint", "numpy")
#: Read by the implementation and model checks; listed only when installed.
OPTIONAL_LIBRARIES = ("torch", "transformers")


def versions() -> dict[str, str]:
    """``{"posproof": …, "python": …, "sympy": …, …}`` in that order; a missing required
    library is ``"not installed"``, a missing optional one is left out.

    >>> v = versions()
    >>> list(v)[:6]
    ['posproof', 'python', 'sympy', 'mpmath', 'python-flint', 'numpy']
    >>> v["posproof"] == __version__
    True
    """
    import platform
    from importlib import metadata

    found = {"posproof": __version__, "python": platform.python_version()}
    for name in LIBRARIES + OPTIONAL_LIBRARIES:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            if name in LIBRARIES:
                found[name] = "not installed"
    return found


def versions_text() -> str:
    """What ``posproof --version`` prints: ``posproof X`` and one line per library.

    >>> versions_text().splitlines()[0] == f"posproof {__version__}"
    True
    """
    found = versions()
    lines = [f"posproof {found.pop('posproof')}"]
    lines += [f"  {name} {version}" for name, version in found.items()]
    return "\n".join(lines)
