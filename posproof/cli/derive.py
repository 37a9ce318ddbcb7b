"""``posproof derive``: write a derivation document (Markdown, LaTeX, figures) for an encoding.

Wiring (done in :mod:`posproof.cli.app`)::

    from . import derive as cli_derive
    cli_derive.add_command(sub)                     # in make_parser()
    if args.command == cli_derive.COMMAND:          # in _run()
        return cli_derive.run(args)

``run`` returns the exit status: 0 when every theorem about the encoding is
proved and every numeric check passes (the refutations of the guided
derivation's wrong guesses do not count), 1 otherwise — the document then
says what failed, plainly.  Bad input (an unknown format, an unwritable
``--out``) raises a :class:`posproof.errors.PosproofError`, which
``posproof.cli.app.main`` turns into one line on stderr and exit status 2.

>>> import argparse
>>> parser = argparse.ArgumentParser(prog="posproof")
>>> _ = add_command(parser.add_subparsers(dest="command"))
>>> args = parser.parse_args(["derive", "--dim", "8", "--format", "md", "--out", "doc"])
>>> args.command, args.dim, args.format, args.out
('derive', '8', 'md', 'doc')
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from ..errors import InvalidParameter, PosproofError
from .options import ProgressBar

__all__ = ["COMMAND", "add_command", "main", "run", "write_document"]

COMMAND = "derive"
#: Figures drawn by the second process (the slower ones), when there is one.
_WORKER_FIGURES = ("heatmap", "dot_product", "curve3d", "dtype_error")


def add_command(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``derive`` to ``subparsers`` (from ``add_subparsers``); return its parser."""
    from .constants import DEFAULT_MAX_LEN, FIGURES
    from .options import encoding_options

    parser = subparsers.add_parser(
        COMMAND, help="write a derivation document (Markdown, LaTeX, figures) in which every "
                      "equation and number is produced and checked by posproof",
        description="Write DIR/derivation.md (GitHub math), DIR/derivation.tex (pdflatex) and "
                    "DIR/figures/: the guided derivation from counting to rotations, the "
                    "proofs step by step, the numeric checks with their certification, and "
                    "the figures. The same inputs give byte-identical files.")
    from .spec import add_spec_argument

    add_spec_argument(parser)
    encoding_options(parser)
    group = parser.add_argument_group("document")
    group.add_argument("--out", default="derivation", metavar="DIR",
                       help="directory to write into (created; default ./derivation)")
    group.add_argument("--format", default="md,tex", metavar="LIST",
                       help="documents to write, comma-separated: md, tex (default md,tex)")
    group.add_argument("--figures", default="png,svg", metavar="LIST",
                       help="figure formats, comma-separated: png (needed by the documents), "
                            "svg, pdf (default png,svg)")
    group.add_argument("--no-figures", action="store_true",
                       help="write no figures (and need no matplotlib)")
    group.add_argument("--convention", choices=["row", "column"], default="row",
                       help="convention the translation matrix is shown in (default row: "
                            "PE(x+Δ) = PE(x)·T(Δ))")
    group.add_argument("--length", "-L", "--max-len", dest="max_len",
                       default=str(DEFAULT_MAX_LEN), metavar="L",
                       help=f"positions 0 … L−1 the numeric checks scan (default "
                            f"{DEFAULT_MAX_LEN})")
    group.add_argument("--no-general", action="store_true",
                       help="skip the proofs for every even d at once")
    group.add_argument("--seed", type=int, default=0, help="seed of the random test points")
    group.add_argument("--jobs", type=int, choices=[1, 2], default=1,
                       help="1: one process (default); 2: draw the slower figures in a second "
                            "process while the proofs run (faster only with a spare, idle "
                            "CPU core; the files are the same)")
    group.add_argument("--json", action="store_true",
                       help="print the report (theorems, checks, guide, files) as JSON")
    parser.set_defaults(figure_names=list(FIGURES))
    return parser


def run(args: argparse.Namespace) -> int:
    """Build the encoding, derive, write the files, print a summary; return the exit status.

    With ``--jobs 2`` the slower figures are drawn in a second process
    (spawned, so nothing is shared but the arguments) while the proofs and
    checks run; on a machine without an idle core this is no faster.

    >>> import argparse, tempfile
    >>> parser = argparse.ArgumentParser(prog="posproof")
    >>> _ = add_command(parser.add_subparsers(dest="command"))
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     run(parser.parse_args(["derive", "--dim", "4", "--max-len", "64", "--no-general",
    ...                            "--no-figures", "--out", tmp]))  # doctest: +ELLIPSIS
    posproof derive: vaswani, d=4, layout=interleaved
      wrote .../derivation.md
      wrote .../derivation.tex
    verdict: OK — 12 proved, 0 refuted, 0 unknown; checks 8/8 pass; audit (python-flint arb): \
19 confirmed, 1 nothing to audit (... s)
    0
    """
    start = time.perf_counter()
    doc, files = _execute(args)
    seconds = time.perf_counter() - start
    if args.json:
        from .options import emit_json

        out = doc.to_dict()
        out["files"] = [str(p) for p in files]
        emit_json(out, args, ok=bool(doc.ok))
    else:
        from ..document.derive.document import verdict

        enc = doc.encoding
        print(f"posproof derive: {enc.name}, d={enc.dim}, "
              + (f"{enc.axes} axes" if hasattr(enc, "axes") else f"layout={enc.layout.name}"))
        for path in files:
            if path.suffix in (".md", ".tex"):
                print(f"  wrote {path}")
        figures = [p for p in files if p.parent.name == "figures"]
        if figures:
            print(f"  wrote {len(figures)} figure file(s) in {figures[0].parent}")
        print(f"verdict: {verdict(doc.report)} ({seconds:.1f} s)")
        if not doc.ok:
            print("  the document states what failed, with its counterexample")
    return doc.exit_status()


def write_document(options: list[str]) -> tuple[int, list[Path]]:
    """``posproof derive OPTIONS`` without printing: (exit status, files written).

    Raises :class:`posproof.errors.PosproofError` on bad input, as :func:`run` does.

    >>> write_document(["--format", "pdf"])
    Traceback (most recent call last):
    ...
    posproof.errors.UnknownName: --format='pdf' is not known; use md, tex (comma-separated)
    """
    from .options import Parser

    parser = Parser(prog="posproof")
    add_command(parser.add_subparsers(dest="command", parser_class=Parser))
    doc, files = _execute(parser.parse_args([COMMAND, *options]))
    return doc.exit_status(), files


def _execute(args: argparse.Namespace) -> tuple[Any, list[Path]]:
    from ..document.derive import DOCUMENT_FORMATS, derive, write_derivation
    from ..document.derive.files import parse_formats
    from ..document.plots import FIGURE_FORMATS
    from .options import build_encoding, length

    formats = parse_formats(args.format, DOCUMENT_FORMATS, "--format")
    figure_formats = [] if args.no_figures else parse_formats(args.figures, FIGURE_FORMATS,
                                                         "--figures")
    if figure_formats and "png" not in figure_formats:
        raise InvalidParameter(f"--figures={args.figures!r} lacks png, which the documents "
                               "include; add png, or pass --no-figures")
    if figure_formats:
        from ..document.plots import require_matplotlib

        require_matplotlib()                              # fail fast when matplotlib is missing
    from .options import build_multi

    multi = build_multi(args)
    if multi is not None:
        return _execute_multi(args, multi, formats, figure_formats)
    enc = build_encoding(args)
    from ..measure.checks import check_scan_options
    from ..precise import DEFAULT_DPS

    max_len = check_scan_options(enc, length("length", args.max_len), DEFAULT_DPS)[0]
    names = [] if args.no_figures else list(args.figure_names)
    _prepare(args.out)
    jobs = args.jobs
    # The slower figures go to the worker; this process draws the others after the proofs.
    remote = [n for n in names if n in _WORKER_FIGURES] if jobs >= 2 else []
    local = [n for n in names if n not in remote]
    worker = _FigureWorker(args, remote, max_len, figure_formats) if remote else None
    bar = ProgressBar.on(sys.stderr)   # from the start
    try:
        doc = derive(enc, max_len=max_len, seed=args.seed, general=not args.no_general,
                     convention=args.convention, figures=names, progress=bar)
        if bar is not None:
            bar("writing the documents", 0, 1)
        docs = write_derivation(doc, args.out, formats=formats, draw_figures=False)
        drawn: list[Path] = []
        if local:
            from ..document.derive import draw_figures_for

            for i, name in enumerate(local):
                if bar is not None:
                    bar("drawing figures", i, len(local))
                drawn += draw_figures_for(enc, args.out, [name], length=max_len,
                                          formats=figure_formats)
        if worker is not None:
            if bar is not None:
                bar("figures (worker)", 0, 1)
            drawn += worker.result()
    finally:
        if bar is not None:
            bar.close()
        if worker is not None:
            worker.stop()
    order = {name: i for i, name in enumerate(names)}
    drawn.sort(key=lambda p: (order.get(p.stem, len(order)), p.name))
    return doc, drawn + docs


def _execute_multi(args: argparse.Namespace, multi: Any, formats: list[str],
                   figure_formats: list[str]) -> tuple[Any, list[Path]]:
    """A multi-axis preset: the document "From one axis to several" and its similarity map."""
    from ..document.derive.multiaxis import MULTI_FIGURES, derive_multi, write_multi_derivation
    from .options import parse_grid

    grid = parse_grid(getattr(args, "grid", None), axes=multi.axes)
    figures = [] if args.no_figures else list(MULTI_FIGURES)
    bar = ProgressBar.on(sys.stderr)   # from the start
    try:
        if bar is not None:
            bar("proving and checking", 0, 2)
        doc = derive_multi(multi, grid=grid, seed=args.seed, figures=figures,
                           command=_multi_command(args, multi, grid))
        if bar is not None:
            bar("writing the documents", 1, 2)
        _prepare(args.out)
        return doc, write_multi_derivation(doc, args.out, formats=formats,
                                           figure_formats=figure_formats)
    finally:
        if bar is not None:
            bar.close()


def _multi_command(args: argparse.Namespace, multi: Any, grid: Any) -> str:
    """The ``posproof derive`` command that rebuilds this multi-axis document into DIR."""
    parts = ["posproof derive", f"--preset {args.preset}"]
    for option, flag in (("dim", "--dim"), ("base", "--base"), ("layout", "--layout"),
                         ("first", "--first"), ("mrope_section", "--mrope-section"),
                         ("axes_dims", "--axes-dims")):
        value = getattr(args, option, None)
        if value is not None:
            parts.append(f"{flag} {value}")
    if getattr(args, "mrope_interleaved", False):
        parts.append("--mrope-interleaved")
    if grid is not None:
        parts.append("--grid " + ",".join(map(str, grid)))
    if args.seed:
        parts.append(f"--seed {args.seed}")
    if args.no_figures:
        parts.append("--no-figures")
    return " ".join([*parts, "--out DIR"])


def _figure_job(args: argparse.Namespace, names: list[str], max_len: int,
                formats: list[str], conn: Any) -> None:
    """In the worker process: rebuild the encoding from the arguments and draw the figures."""
    try:
        from ..document.derive import draw_figures_for
        from .options import build_encoding

        paths = draw_figures_for(build_encoding(args), args.out, names, length=max_len,
                                 formats=formats)
        conn.send(("ok", [str(p) for p in paths]))
    except PosproofError as exc:
        conn.send(("posproof", f"{type(exc).__name__}\0{exc}"))
    except BaseException as exc:  # report, never hang the parent
        conn.send(("error", f"{type(exc).__name__}: {exc}"))
    finally:
        conn.close()


class _FigureWorker:
    """One spawned process drawing the figures; ``result()`` waits, ``stop()`` cleans up."""

    def __init__(self, args: argparse.Namespace, names: list[str], max_len: int,
                 formats: list[str]) -> None:
        import multiprocessing

        ctx = multiprocessing.get_context("spawn")
        self._recv, send = ctx.Pipe(duplex=False)
        self._proc = ctx.Process(target=_figure_job, args=(args, names, max_len, formats, send),
                                 name="posproof-figures", daemon=True)
        self._proc.start()
        send.close()

    def result(self) -> list[Path]:
        from .. import errors

        try:
            kind, payload = self._recv.recv()
        except EOFError:
            self._proc.join()
            raise RuntimeError(f"the figure process ended without a result (exit code "
                               f"{self._proc.exitcode})") from None
        self._proc.join()
        if kind == "ok":
            return [Path(p) for p in payload]
        if kind == "posproof":
            name, message = payload.split("\0", 1)
            raise getattr(errors, name, errors.PosproofError)(message)
        raise RuntimeError(f"drawing the figures failed: {payload}")

    def stop(self) -> None:
        if self._proc.is_alive():
            self._proc.terminate()
        self._proc.join()
        self._recv.close()


def _prepare(out: str) -> None:
    """Create ``--out`` and try a write before the work starts (bad paths fail fast)."""
    path = Path(out)
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / ".posproof-write-test"
        probe.write_text("", encoding="ascii")
        probe.unlink()
    except OSError as exc:
        raise InvalidParameter(f"--out={out!r} cannot be written ({exc.strerror or exc}); "
                               "pass a writable directory") from None


def main(argv: list[str] | None = None) -> int:
    """``posproof derive`` on its own (``python -m posproof.cli.derive``): ``argv`` are
    derive's options, run as ``posproof derive`` runs them (exit 0, 1, or 2).

    >>> main(["--format", "html"])
    2
    """
    from .options import Parser, run_main

    parser = Parser(prog="posproof")
    add_command(parser.add_subparsers(dest="command", parser_class=Parser))
    return run_main(parser, [COMMAND, *(sys.argv[1:] if argv is None else argv)], run)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
