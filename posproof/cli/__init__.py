"""The ``posproof`` command: ``app`` (the parser, main, verify/prove/check) and one
module per command group.

The top of the pipeline: it may import every stage, and it is the only one that imports
argparse.  The command modules share ``options`` and never import ``app`` (which imports them).

Modules:

* ``alibi`` — ``--alibi``: ALiBi in ``posproof prove``, ``check-impl``, ``identify`` and
  ``explain``.
* ``app`` — The ``posproof`` command (also ``python -m posproof``).
* ``options`` — What every command shares: the parser class, the option groups, ``build_encoding``,
  ``run_main``.
* ``derive`` — ``posproof derive``: write a derivation document (Markdown, LaTeX, figures) for an
  encoding.
* ``rope`` — ``posproof explore`` and ``posproof explain``: the command-line side of rotary
  embeddings.
* ``sweep`` — ``posproof sweep``: run a grid of encodings × parameters × metrics, locally or on
  Dask.
* ``testing`` — ``posproof identify`` and ``posproof check-impl``: the command-line side of
  posproof.testing.
"""
from typing import Any

from . import app
from .app import console as console
from .app import main as main


def __getattr__(name: str) -> Any:
    # the other names of the old module posproof.cli (make_parser, render_table, ...) now in .app
    return getattr(app, name)
