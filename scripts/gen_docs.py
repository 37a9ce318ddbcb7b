"""Regenerate the generated parts of ``docs/``: the derivations and the CLI reference.

Run from the repository root after changing anything they show::

    python scripts/gen_docs.py            # rewrite docs/derivations/* and docs/cli.md
    python scripts/gen_docs.py --cli      # rewrite docs/cli.md only (the command line changed)
                                          # and the model types of docs/check-model.md
    python scripts/gen_docs.py --check    # compare only; exit 1 and list stale files

``tests/test_docs.py`` runs the same generation into a temporary directory and
fails, with this command in its message, when a committed file differs.

- ``docs/derivations/<name>/derivation.md``, ``derivation.tex`` and
  ``figures/*.png``: ``posproof derive`` for the main presets (PNG only, to keep
  the repository small; ``posproof derive`` also writes SVG by default).
- ``docs/derivations/README.md``: the index.
- ``docs/derivations/versions.json``: the versions of matplotlib, sympy, numpy
  and mpmath that generated them, and the SIMD extensions NumPy used.  Figure bytes
  depend on the matplotlib version and (by a pixel, through NumPy's vectorised log) on the
  CPU's SIMD extensions, so the test compares figures only under the recorded ones.
- ``docs/cli.md``: every command and option, rendered from the argparse
  definitions of ``posproof.cli.app`` (so it cannot drift from ``--help``).
"""

from __future__ import annotations

import argparse
import filecmp
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DOCS = ROOT / "docs"
#: name → (posproof derive options, one line for the index)
DERIVATIONS: dict[str, tuple[list[str], str]] = {
    "vaswani-d512": (["--preset", "vaswani", "--dim", "512"],
                     "the original encoding (Vaswani et al. 2017), the default of every command"),
    "vaswani-d16": (["--preset", "vaswani", "--dim", "16"],
                    "the same schedule at d = 16: every matrix small enough to read"),
    "tensor2tensor-d512": (["--preset", "tensor2tensor", "--dim", "512"],
                           "tensor2tensor / fairseq: split halves, exponent over n − 1"),
    "binary-d16": (["--preset", "binary", "--dim", "16"],
                   "binary dials: every theorem holds, yet positions 512 apart collide "
                   "(the document says so: exit status 1)"),
}
REGENERATE = "python scripts/gen_docs.py"


def generate_derivation(name: str, out: Path) -> list[Path]:
    """Write the derivation ``name`` (of :data:`DERIVATIONS`) into ``out/name``, exactly as
    ``posproof derive OPTIONS --figures png --out out/name`` does."""
    from posproof.cli.derive import write_document

    options, _ = DERIVATIONS[name]
    _, files = write_document([*options, "--figures", "png", "--jobs", "1",
                               "--out", str(out / name)])
    return files


def _versions() -> dict[str, str]:
    import matplotlib
    import mpmath
    import numpy
    import sympy

    return {"matplotlib": matplotlib.__version__, "mpmath": mpmath.__version__,
            "numpy": numpy.__version__, "numpy_simd": _numpy_simd(), "sympy": sympy.__version__}


def _numpy_simd() -> str:
    """The SIMD extensions NumPy dispatches to on this CPU (as ``numpy.show_runtime`` lists them).

    NumPy's vectorised ``log10`` (which matplotlib's log scale uses) can differ in the last bit
    between, say, AVX2 and AVX-512 code paths, and that moves a pixel: figure bytes are
    comparable only between machines that dispatch to the same extensions."""
    try:
        from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__
    except ImportError:                          # NumPy 1.x keeps them under numpy.core
        try:
            from numpy.core._multiarray_umath import __cpu_dispatch__, __cpu_features__
        except ImportError:
            return "unknown"
    return ",".join(f for f in __cpu_dispatch__ if __cpu_features__.get(f))


def derivations_index() -> str:
    lines = ["# Generated derivations", "",
             "Each document below was written by `posproof derive`: every equation, matrix "
             "and number in it was produced and checked by posproof. Do not edit them: "
             f"regenerate with `{REGENERATE}` (the test suite fails when they are stale).", "",
             "| document | encoding | command |", "|---|---|---|"]
    for name, (options, what) in DERIVATIONS.items():
        command = "posproof derive " + " ".join(options)
        lines.append(f"| [{name}]({name}/derivation.md) ([LaTeX]({name}/derivation.tex)) "
                     f"| {what} | `{command}` |")
    lines += ["", "Compile a LaTeX version with "
              "`cd docs/derivations/vaswani-d512 && pdflatex derivation.tex` "
              "(TeX packages: texlive-latex-base and texlive-latex-recommended).", ""]
    return "\n".join(lines)


# --------------------------------------------------------------------------- CLI reference
def _full_parser() -> argparse.ArgumentParser:
    """``posproof.cli.app.make_parser()``, with ``derive`` added if the CLI does not wire it yet."""
    from posproof.cli import app as cli
    from posproof.cli import derive as cli_derive

    parser = cli.make_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    if cli_derive.COMMAND not in sub.choices:
        cli_derive.add_command(sub)
    return parser


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _option_rows(parser: argparse.ArgumentParser) -> list[tuple[str, list[list[str]]]]:
    groups = []
    for group in parser._action_groups:
        rows = []
        for action in group._group_actions:
            if isinstance(action, argparse._HelpAction) or action.help == argparse.SUPPRESS:
                continue
            if action.option_strings:
                names = ", ".join(action.option_strings)
                if action.nargs != 0:
                    names += " " + (action.metavar or action.dest.upper())
            else:
                names = action.metavar or action.dest
            help_text = (action.help or "") % {"default": action.default, "prog": parser.prog}
            if action.choices is not None and not isinstance(action, argparse._SubParsersAction):
                help_text += " (one of: " + ", ".join(map(str, action.choices)) + ")"
            default = action.default
            hidden = default is None or default is False or default == argparse.SUPPRESS
            shown = "" if hidden or action.nargs == 0 else f"`{default}`"
            rows.append([f"`{names}`", shown, _cell(help_text)])
        if rows:
            groups.append((group.title or "options", rows))
    return groups


def cli_reference() -> str:
    """docs/cli.md: every command and option of ``posproof``, from argparse itself."""
    parser = _full_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    helps = {a.dest: a.help for a in sub._choices_actions}
    lines = ["# Command-line reference", "",
             "Generated from the argparse definitions by "
             f"`{REGENERATE}`; do not edit (the test suite fails when it is stale). "
             "`posproof COMMAND --help` prints the same.", "",
             _cell(parser.description or ""), "",
             "Exit status: 0 when every theorem is proved and every check passes, 1 when "
             "something is refuted, fails or stays unknown, 2 for bad input (one line on "
             "stderr).", "",
             *output_section(),
             "| command | what it does |", "|---|---|"]
    for name in sub.choices:
        lines.append(f"| [`posproof {name}`](#posproof-{name}) | {_cell(helps.get(name, ''))} |")
    lines += ["", *limits_section()]
    for name, child in sub.choices.items():
        while lines and lines[-1] == "":
            lines.pop()
        lines += ["", f"## posproof {name}", ""]
        if child.description:
            lines += [_cell(child.description), ""]
        elif helps.get(name):
            lines += [_cell(helps[name]), ""]
        for title, rows in _option_rows(child):
            lines += [f"**{title}**", "", "| option | default | meaning |", "|---|---|---|"]
            lines += ["| " + " | ".join(r) + " |" for r in rows]
            lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def output_section() -> list[str]:
    """stdout, stderr and the end of the process: posproof/cli/options.py (run_main, the
    progress classes)."""
    from posproof.cli.options import PROGRESS_INTERVAL

    every = f"{PROGRESS_INTERVAL:g} s"
    return ["Output: stdout carries the report (or its JSON) and nothing else; it is "
            "line-buffered, so a redirected log receives each line when it is printed. "
            "Progress goes to stderr: on a terminal a bar (or `… N s` while the work counts "
            "no steps); when stderr is redirected (a CI log), work longer than "
            f"{every} writes a plain line every {every}, `posproof: STAGE: P% done, N s "
            "elapsed` (or `posproof: STAGE: N s elapsed` while the stage counts no steps), "
            "with no carriage return or colour. The environment variable "
            "`POSPROOF_PROGRESS_INTERVAL=SECONDS` sets another interval (`0`: no progress "
            "lines; anything but a number ≥ 0 exits 2). A command ends as soon as it has "
            "printed its verdict: at exit posproof freezes the objects torch, SymPy and NumPy "
            "hold instead of letting CPython collect them module by module (that took up to "
            "1.3 s after `check-model`'s verdict on a quiet machine; `python "
            "benchmarks/bench_check_model.py`, which needs torch and transformers "
            "(`posproof[impl]`), measures it).", ""]


def limits_section() -> list[str]:
    """The table of the accepted values: posproof/cli/limits.py, the list the tests walk."""
    from posproof.cli.limits import render as render_limits

    lines = ["## Limits", "",
             "The largest values each command accepts (`posproof limits` prints this table). "
             "At these values every command finishes within 4 GiB of memory (address space) "
             "and a minute on two cores; one step beyond, it exits 2 at once with one line "
             "naming the limit. The scans cost time in proportion to L·d, hence the joint "
             "limit. The table and its corners are one list, `posproof/cli/limits.py`: "
             "`python -m pytest tests/test_limits.py --durations=0` runs every corner under "
             "`RLIMIT_AS` = 4 GiB and prints the times.", ""]
    lines += render_limits()
    return [*lines, ""]


# --------------------------------------------------------------------------- driver
def generate(out: Path, names: list[str] | None = None, jobs: int | None = None) -> list[Path]:
    """Write every generated file under ``out`` (a docs/ directory); return the paths.

    ``jobs`` processes generate the derivations side by side (default: 2 when the
    machine has two CPUs or more); the files are the same either way.
    """
    import os

    if jobs is None:
        jobs = 2 if (os.cpu_count() or 1) >= 2 else 1
    written: list[Path] = []
    deriv = out / "derivations"
    todo = names or list(DERIVATIONS)
    if jobs > 1 and len(todo) > 1:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        from posproof.cli.derive import write_document

        ctx = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as pool:
            runs = [pool.submit(write_document, [*DERIVATIONS[name][0], "--figures", "png",
                                                 "--jobs", "1", "--out", str(deriv / name)])
                    for name in todo]
            for run in runs:
                written += run.result()[1]
    else:
        for name in todo:
            written += generate_derivation(name, deriv)
    deriv.mkdir(parents=True, exist_ok=True)
    index = deriv / "README.md"
    index.write_text(derivations_index(), encoding="utf-8")
    versions = deriv / "versions.json"
    versions.write_text(json.dumps(_versions(), indent=2, sort_keys=True) + "\n",
                        encoding="utf-8")
    cli_md = out / "cli.md"
    cli_md.write_text(cli_reference(), encoding="utf-8")
    return [*written, index, versions, cli_md]


def stale_files(fresh: Path, committed: Path = DOCS) -> list[str]:
    """Relative paths that differ between a fresh generation and the committed docs."""
    out = []
    for path in sorted(p for p in fresh.rglob("*") if p.is_file()):
        rel = path.relative_to(fresh)
        if rel.name == "versions.json":
            continue
        target = committed / rel
        if not target.exists() or not filecmp.cmp(path, target, shallow=False):
            out.append(str(rel))
    for name in DERIVATIONS:                       # files that should no longer be there
        folder = committed / "derivations" / name
        for path in sorted(p for p in folder.rglob("*") if p.is_file()) if folder.exists() else []:
            rel = path.relative_to(committed)
            if not (fresh / rel).exists():
                out.append(f"{rel} (no longer generated)")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="compare with the committed files instead of writing them")
    parser.add_argument("--cli", action="store_true",
                        help="rewrite docs/cli.md only (after a change of the command line)")
    parser.add_argument("names", nargs="*", help=f"derivations to regenerate (default all: "
                                                 f"{', '.join(DERIVATIONS)})")
    args = parser.parse_args(argv)
    if args.cli:
        from posproof.whole.types import doc_with_table

        (DOCS / "cli.md").write_text(cli_reference(), encoding="utf-8")
        print("wrote docs/cli.md")
        model = DOCS / "check-model.md"         # its table is `check-model --list`
        model.write_text(doc_with_table(model.read_text(encoding="utf-8")), encoding="utf-8")
        print("wrote the model types of docs/check-model.md")
        return 0
    if args.check:
        with tempfile.TemporaryDirectory() as tmp:
            generate(Path(tmp))
            stale = stale_files(Path(tmp))
        for rel in stale:
            print(f"stale: docs/{rel}")
        print("docs are up to date" if not stale else f"regenerate with: {REGENERATE}")
        return 1 if stale else 0
    for name in args.names or list(DERIVATIONS):
        target = DOCS / "derivations" / name
        if target.exists():
            shutil.rmtree(target)
    for path in generate(DOCS, args.names or None):
        print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
