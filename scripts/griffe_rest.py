"""A Griffe extension for the documentation site: posproof's reST-flavoured docstrings as Markdown.

posproof's docstrings are written for ``help()`` and doctest: Sphinx roles
(``:func:`explore```), reST literal blocks (a paragraph ending in ``::``) and
bare doctest blocks (``>>>`` lines).  mkdocstrings renders docstrings as
Markdown, where a ``>>>`` line is a nested block quote and ``x["m"][:8]``
looks like a reference link.  Before Griffe parses a docstring this extension
rewrites, for the site only (the source is not touched):

* a run of doctest lines (from ``>>>`` to the next blank line) into a fenced
  ``pycon`` block without its ``# doctest:`` flags, except inside a NumPy-style
  ``Examples`` section, which Griffe parses (and trims) itself;
* ``:role:`target``` into a code span (``~a.b.c`` shows ``c``, as in Sphinx);
* a paragraph's closing ``::`` into ``:`` (the indented block after it stays a
  Markdown code block).

mkdocs.yml loads it with ``extensions: [scripts/griffe_rest.py]``.

>>> print(rest_to_markdown("See :func:`~posproof.measure.explore.explore`::\\n\\n    x = 1"))
See `explore`:
<BLANKLINE>
    x = 1
>>> rest_to_markdown(">>> 1 + 1  # doctest" ": +SKIP\\n2\\n\\nText.").splitlines()
['```pycon', '>>> 1 + 1', '2', '```', '', 'Text.']
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_ROLE = re.compile(r":(?:func|class|mod|data|meth|attr|exc|obj):`(~?)([^`]+)`")
_EXAMPLES = re.compile(r"^\s*Examples\s*$")
_UNDERLINE = re.compile(r"^\s*-{3,}\s*$")
_FLAGS = re.compile(r"\s*#\s*doctest:.*$")


def _role(match: re.Match[str]) -> str:
    target = match.group(2)
    return f"`{target.rsplit('.', 1)[-1] if match.group(1) else target}`"


def rest_to_markdown(text: str) -> str:
    """The docstring ``text`` with its doctests fenced, its roles as code spans, ``::`` as ``:``."""
    lines = text.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if _EXAMPLES.match(line) and i + 1 < len(lines) and _UNDERLINE.match(lines[i + 1]):
            out.extend(lines[i:])                     # a NumPy Examples section: Griffe's own
            break
        stripped = line.lstrip()
        if stripped.startswith(">>>"):
            indent = line[: len(line) - len(stripped)]
            out.append(f"{indent}```pycon")
            while i < len(lines) and lines[i].strip():
                out.append(_FLAGS.sub("", lines[i]))
                i += 1
            out.append(f"{indent}```")
            continue
        line = _ROLE.sub(_role, line)
        if line.endswith("::") and not line.endswith(":::"):
            line = line[:-2].rstrip() + ":" if line[:-2].strip() else ""
        out.append(line)
        i += 1
    return "\n".join(out)


class RestToMarkdown(griffe.Extension):
    """Rewrite every docstring with :func:`rest_to_markdown` before it is parsed."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = rest_to_markdown(obj.docstring.value)
