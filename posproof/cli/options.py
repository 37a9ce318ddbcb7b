"""What every ``posproof`` command shares: the parser class, the option groups, the typed
option readers, the progress bar, the Encoding the options describe, and :func:`run_main`.

:mod:`posproof.cli.app` (the parser and ``verify`` / ``prove`` / ``check``) and each
command module (``derive``, ``rope``, ``sweep``, ``testing``) import from here; this
module imports none of them, so the command line has no import cycle.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import sys
from collections.abc import Callable, Sequence
from typing import Any, TextIO

from ..errors import InvalidParameter, PosproofError

__all__ = [
    "JSON_KEYS",
    "PROGRESS_INTERVAL",
    "Busy",
    "Parser",
    "PlainProgress",
    "ProgressBar",
    "build_encoding",
    "build_multi",
    "check_options",
    "emit_json",
    "encoding_options",
    "int_at_least",
    "int_list",
    "is_multi",
    "length",
    "output_options",
    "parse_grid",
    "parse_int",
    "progress_interval",
    "run_main",
]


class Parser(argparse.ArgumentParser):
    """argparse, but bad usage is one line and exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message}\n")


def encoding_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("encoding")
    from ..model.families import families_help

    group.add_argument("--preset", default=None,
                       help="a name of a family (another spelling of SPEC; default vaswani): "
                            + families_help())
    group.add_argument("--dim", "-d", help="encoded dimension d (default 512; mrope: head_dim, "
                       "default 128; axial-rope: the sum of --axes-dims)")
    group.add_argument("--base", help="base b of the geometric schedule (default 10000)")
    group.add_argument("--layout", help="interleaved, interleaved-cos, split, split-cos")
    group.add_argument("--frequencies", help="explicit frequencies, e.g. '1, 1/100, pi/4'")
    group.add_argument("--expression", help="frequency in k, d, n, b, e.g. 'b**(-2*k/d)'")
    group.add_argument("--first-position", "--offset", dest="offset", metavar="X",
                       help="position of the first token (row 0 of a table)")
    group.add_argument("--odd-dim", choices=["error", "pad"], help="policy for odd d")
    group.add_argument("--min-timescale", help="tensor2tensor min_timescale")
    group.add_argument("--max-timescale", help="tensor2tensor max_timescale")
    group.add_argument("--start-index", help="tensor2tensor start_index")
    group.add_argument("--padding-idx", help="fairseq padding_idx")
    group.add_argument("--max-period", help="diffusion max_period")
    group.add_argument("--numerator", help="binary dials numerator (pi or 2*pi)")
    multi = parser.add_argument_group(
        "several position axes (--preset sincos-2d, pe-2d, pe-3d, mrope, axial-rope)")
    multi.add_argument("--grid", metavar="H,W", help="grid of positions, rows × columns "
                       "(H,W) or frames × rows × columns (T,H,W), e.g. 16,16")
    multi.add_argument("--first", choices=["column", "row"],
                       help="sincos-2d: which coordinate the first half encodes (default "
                            "column: MAE's meshgrid order; row: meshgrid indexing='ij')")
    multi.add_argument("--mrope-section", metavar="T,H,W",
                       help="mrope: frequency pairs per axis, e.g. 16,24,24 (head_dim = --dim)")
    multi.add_argument("--mrope-interleaved", action="store_true",
                       help="mrope: Qwen3-VL's interleaved assignment of pairs to axes")
    multi.add_argument("--axes-dims", metavar="D1,D2,…",
                       help="axial-rope: rotary dims per axis, e.g. 16,56,56 (FLUX)")


def output_options(parser: argparse.ArgumentParser, *, report: bool = True) -> None:
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    if report:
        parser.add_argument("--report", metavar="DIR",
                            help="also write DIR/report.json and DIR/summary.md")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random test points")


def parse_int(name: str, text: str) -> int:
    try:
        return int(text)
    except (TypeError, ValueError):  # argparse passes [] for '--dim=--'
        raise InvalidParameter(f"--{name}={text!r} is not an integer") from None


def int_at_least(minimum: int, hint: str = "") -> Callable[[str], int]:
    """An argparse ``type``: an integer ≥ ``minimum``, written 1000000 or 1e6.

    >>> int_at_least(1)("1e6"), int_at_least(0, " (0: in this process)")("0")
    (1000000, 0)
    """
    def parse(text: str) -> int:
        try:
            value = int(text)
        except (TypeError, ValueError):
            try:
                number = float(text)
            except (TypeError, ValueError):
                number = float("nan")
            if not (math.isfinite(number) and number.is_integer()):
                raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
            value = int(number)
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{value} must be >= {minimum}{hint}")
        return value
    return parse


def length(name: str, text: str) -> int:
    """An integer option that may be written 1000000 or 1e6."""
    try:
        return int(text)
    except (TypeError, ValueError):
        pass
    try:
        value = float(text)
    except (TypeError, ValueError):
        value = float("nan")
    if value == value and value not in (float("inf"), float("-inf")) and value.is_integer():
        return int(value)
    raise InvalidParameter(f"--{name}={text!r} is not an integer; pass e.g. 1000000 or 1e6")


def check_options(parser: argparse.ArgumentParser) -> None:
    from .constants import CHECKS, DEFAULT_MAX_LEN

    group = parser.add_argument_group("numeric checks")
    group.add_argument("--length", "-L", "--max-len", dest="max_len",
                       default=None, metavar="L",
                       help=f"the L positions to scan, from the first position (default "
                            f"{DEFAULT_MAX_LEN}: `python benchmarks/bench_startup.py` "
                            "times `posproof verify` at it; at most 1e9, and "
                            "L·d at most 2^35, e.g. L ≤ 67108864 at d = 512: the scans "
                            "stream, time is the limit)")
    group.add_argument("--dps", default=None,
                       help="digits of the mpmath certification (default 50; 50 to 1000)")
    group.add_argument("--dtype", "--dtypes", action="append", metavar="NAME[,NAME…]",
                       dest="dtype",
                       help="dtypes audited by dtype_audit: one name or a comma list "
                            "(repeatable; default float32,float16,bfloat16; --dtypes: the "
                            "old spelling)")
    group.add_argument("--check", "--checks", action="append", metavar="NAME[,NAME…]",
                       dest="check_names",
                       help=f"only these checks: one name or a comma list (repeatable; "
                            f"--checks: the old spelling): {', '.join(CHECKS)}; on a "
                            "--grid of a multi-axis preset: bounds, separation, "
                            "translation_residual, dtype_audit (--max-len is then unused)")


#: Seconds between two plain progress lines when stderr is not a terminal (a CI log); the
#: environment variable ``POSPROOF_PROGRESS_INTERVAL`` sets another (0: no progress lines).
PROGRESS_INTERVAL = 10.0


def progress_interval(environ: Any = None) -> float:
    """Seconds between two plain progress lines: ``POSPROOF_PROGRESS_INTERVAL`` (a number ≥ 0;
    0 turns the lines off), else :data:`PROGRESS_INTERVAL`.

    >>> progress_interval({}), progress_interval({"POSPROOF_PROGRESS_INTERVAL": "0.5"})
    (10.0, 0.5)
    >>> progress_interval({"POSPROOF_PROGRESS_INTERVAL": "soon"})
    Traceback (most recent call last):
    ...
    posproof.errors.InvalidParameter: POSPROOF_PROGRESS_INTERVAL='soon' is not a number of seconds >= 0; unset it (a line every 10 s) or set 0 (no progress lines)
    """  # noqa: E501
    import os

    text = (os.environ if environ is None else environ).get("POSPROOF_PROGRESS_INTERVAL")
    if text is None or not text.strip():
        return PROGRESS_INTERVAL
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not (math.isfinite(value) and value >= 0):
        raise InvalidParameter(f"POSPROOF_PROGRESS_INTERVAL={text!r} is not a number of "
                               f"seconds >= 0; unset it (a line every {PROGRESS_INTERVAL:g} s) "
                               "or set 0 (no progress lines)")
    return value


def _plain_every(stream: TextIO) -> float:
    """The interval of plain progress lines on ``stream``; 0 (none) unless ``stream`` is the
    process's own stderr and not a terminal: a library call's or a test's captured stderr
    gets no progress lines."""
    if stream is not sys.__stderr__ or _isatty(stream):
        return 0.0
    return progress_interval()


def _isatty(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):   # no isatty, or closed
        return False


class PlainProgress:
    """Progress for a log (stderr not a terminal): every ``every`` seconds a daemon thread
    writes one plain line, ``posproof: STAGE: P% done, N s elapsed`` (or ``posproof: STAGE:
    N s elapsed`` while the stage reports no steps), no carriage return, no colour.  Work
    shorter than ``every`` writes nothing.  :meth:`update` sets the stage; the lines run from
    :meth:`start` to :meth:`stop`; the elapsed time counts from the object's creation.

    >>> import io
    >>> plain = PlainProgress(io.StringIO(), every=10, label="checking model.json")
    >>> plain.line(now=plain.began + 12.3)
    'posproof: checking model.json: 12 s elapsed'
    >>> plain.update("proving theorems", 0.25)
    >>> plain.line(now=plain.began + 20)
    'posproof: proving theorems: 25% done, 20 s elapsed'
    """

    def __init__(self, stream: TextIO, every: float, label: str = "") -> None:
        import time

        self.stream, self.every = stream, every
        self.began = time.perf_counter()
        self.state: tuple[str, float | None] = (label, None)
        self.thread: Any = None
        self._stop: Any = None

    def update(self, label: str, frac: float | None) -> None:
        self.state = (label, frac)      # one assignment: the thread reads a whole state

    def line(self, now: float | None = None) -> str:
        """The line at ``now`` (a ``time.perf_counter()`` reading; default: now)."""
        import time

        label, frac = self.state
        now = time.perf_counter() if now is None else now
        elapsed = f"{now - self.began:.0f} s elapsed"
        return (f"posproof: {label}: {elapsed}" if frac is None else
                f"posproof: {label}: {frac:.0%} done, {elapsed}")

    def start(self) -> None:
        import threading

        if self.thread is not None or not self.every > 0:
            return
        stop = self._stop = threading.Event()

        def tick() -> None:
            while not stop.wait(self.every):
                try:
                    self.stream.write(self.line() + "\n")
                    self.stream.flush()
                except (OSError, ValueError):      # the log went away: the work goes on
                    return

        self.thread = threading.Thread(target=tick, name="posproof-progress", daemon=True)
        self.thread.start()

    def stop(self) -> None:
        if self.thread is not None:
            self._stop.set()
            self.thread.join()
            self.thread = None


class ProgressBar:
    """A one-line progress bar on stderr when it is a terminal; with ``plain=True`` (a log),
    :class:`PlainProgress` lines instead, every ``every`` seconds (default:
    :func:`progress_interval`) from the first step to :meth:`close`.  :meth:`on`
    picks the mode for the command's stderr."""

    def __init__(self, stream: TextIO, *, plain: bool = False,
                 every: float | None = None) -> None:
        self.stream = stream
        self.shown = ""
        self.plain = (PlainProgress(stream, progress_interval() if every is None else every)
                      if plain and not _isatty(stream) else None)

    @classmethod
    def on(cls, stream: TextIO) -> ProgressBar | None:
        """A command's progress on ``stream`` (its stderr): a bar on a terminal, plain lines
        in a log (the process's stderr redirected, ``POSPROOF_PROGRESS_INTERVAL`` not 0),
        else ``None`` (e.g. a test's captured stderr).

        >>> import io
        >>> ProgressBar.on(io.StringIO()) is None
        True
        """
        if _isatty(stream):
            return cls(stream)
        every = _plain_every(stream)
        return cls(stream, plain=True, every=every) if every > 0 else None

    def __call__(self, label: str, done: int, total: int) -> None:
        frac = min(max(done / total, 0.0), 1.0) if total else 1.0
        if self.plain is not None:
            self.plain.update(label, frac)
            self.plain.start()
            return
        filled = int(frac * 24)
        text = f"  {label:<21} [{'#' * filled}{'.' * (24 - filled)}] {frac:4.0%}"
        if text != self.shown:
            self.stream.write("\r" + text)
            self.stream.flush()
            self.shown = text

    def close(self) -> None:
        if self.plain is not None:
            self.plain.stop()
        if self.shown:
            self.stream.write("\r" + " " * len(self.shown) + "\r")
            self.stream.flush()
            self.shown = ""


class Busy:
    """A terminal line for work from its start: ``label … N s``, redrawn twice a second by a
    daemon thread until the work reports steps.  It is also a progress callable: called
    as ``busy(label, done, total)`` it stops ticking and draws a :class:`ProgressBar`;
    ``close()`` clears that bar and ticks again until the ``with`` block ends.  On a
    terminal (``stream.isatty()``); in a log (the process's stderr redirected, or
    ``plain=True``) :class:`PlainProgress` lines every ``every_plain`` seconds (default
    :func:`progress_interval`) name the label or the step and its percent; elsewhere
    (a library call's or a test's captured stderr) it writes nothing.

    >>> import io
    >>> with Busy("checking", io.StringIO()) as busy:
    ...     busy("a step", 1, 2)
    ...     busy.thread is None
    True
    """

    def __init__(self, label: str, stream: TextIO | None = None, every: float = 0.5, *,
                 plain: bool | None = None, every_plain: float | None = None) -> None:
        self.label, self.every = label, every
        self.stream = sys.stderr if stream is None else stream
        self.tty = _isatty(self.stream)
        self.bar = ProgressBar(self.stream)
        self.thread: Any = None
        self.shown = ""
        self.active = False
        if plain is None:
            plain_every = _plain_every(self.stream) if every_plain is None else every_plain
            plain = plain_every > 0 and not self.tty
        else:
            plain_every = progress_interval() if every_plain is None else every_plain
        self.plain = (PlainProgress(self.stream, plain_every, label)
                      if plain and not self.tty else None)

    def _start(self) -> None:
        import threading
        import time

        if not (self.tty and self.active) or self.thread is not None:
            return
        stop = self._stop = threading.Event()
        start = time.perf_counter()

        def draw() -> None:
            while True:
                text = f"  {self.label} … {time.perf_counter() - start:.0f} s"
                self.stream.write("\r" + text.ljust(len(self.shown)))
                self.stream.flush()
                self.shown = text
                if stop.wait(self.every):
                    return

        self.thread = threading.Thread(target=draw, name="posproof-busy", daemon=True)
        self.thread.start()

    def _halt(self) -> None:
        if self.thread is not None:
            self._stop.set()
            self.thread.join()
            self.thread = None
            self.stream.write("\r" + " " * len(self.shown) + "\r")
            self.stream.flush()
            self.shown = ""

    def __enter__(self) -> Busy:
        self.active = True
        if self.plain is not None:
            self.plain.start()
        self._start()
        return self

    def __call__(self, label: str, done: int, total: int) -> None:
        if self.plain is not None:
            self.plain.update(label, min(max(done / total, 0.0), 1.0) if total else 1.0)
            return
        self._halt()
        if self.tty:
            self.bar(label, done, total)

    def close(self) -> None:
        if self.plain is not None:
            self.plain.update(self.label, None)
            return
        self.bar.close()
        self._start()

    def __exit__(self, *exc: object) -> None:
        self.active = False
        if self.plain is not None:
            self.plain.stop()
        self._halt()
        self.bar.close()


def build_encoding(args: argparse.Namespace) -> Any:
    """The Encoding the encoding options describe."""
    from ..model.presets import preset

    params: dict[str, Any] = {}
    name = args.preset
    if args.frequencies is not None:
        name = name or "explicit"
        params["frequencies"] = [f for f in args.frequencies.replace(";", ",").split(",")
                                 if f.strip()]
    if args.expression is not None:
        name = name or "expression"
        params["expression"] = args.expression
    name = name or "vaswani"
    _known_family(name)
    if is_multi(name):      # by name: building it would only be thrown away
        raise InvalidParameter(f"--preset {name} has several position axes; this command "
                               "takes a 1-D encoding (multi-axis encodings: prove, check, "
                               "identify, check-impl, derive)")
    for option in ("base", "layout", "min_timescale", "max_timescale", "max_period",
                   "numerator", "odd_dim"):
        value = getattr(args, option)
        if value is not None:
            params[option] = value
    for option in ("offset", "start_index", "padding_idx"):
        value = getattr(args, option)
        if value is not None:
            params[option] = parse_int(option.replace("_", "-"), value)
    return preset(name, dim=parse_int("dim", "512" if args.dim is None else args.dim), **params)


def _known_family(name: str) -> None:
    """Refuse in one line a ``--preset`` that names no family, listing every family."""
    from ..errors import UnknownName
    from ..model.families import FAMILIES, families_help, family_of

    family = family_of(name)
    if family is None:
        raise UnknownName(f"--preset {name!r} is not known; the families are "
                          f"{families_help()}")
    if family in ("rope", "alibi", "t5", "xpos"):
        raise InvalidParameter(f"--preset {name} names the {family} family, which takes its "
                               f"own keys: write it as a SPEC, e.g. {FAMILIES[family].example}")


def parse_grid(text: str | None, axes: int | None = None) -> tuple[int, ...] | None:
    """``--grid`` as a tuple of positive sizes (``None`` when not given).

    >>> parse_grid("16,16"), parse_grid("4x8x8"), parse_grid(None)
    ((16, 16), (4, 8, 8), None)
    >>> parse_grid("16", axes=2)
    Traceback (most recent call last):
    ...
    posproof.errors.InvalidParameter: --grid='16' has 1 size, but the encoding has 2 axes; pass e.g. --grid 16,16
    """  # noqa: E501
    if text is None:
        return None
    parts = [p.strip() for p in str(text).replace("x", ",").replace("×", ",").split(",")]
    try:
        sizes = tuple(int(p) for p in parts)
    except ValueError:
        raise InvalidParameter(f"--grid={text!r} is not a list of sizes; pass e.g. 16,16 "
                               "(rows,columns) or 4,16,16 (frames,rows,columns)") from None
    if not sizes or any(n < 1 for n in sizes) or len(sizes) > 8:
        raise InvalidParameter(f"--grid={text!r}: give 1 to 8 sizes, each at least 1")
    if axes is not None and len(sizes) != axes:
        example = ",".join(["16"] * axes)
        raise InvalidParameter(f"--grid={text!r} has {len(sizes)} size"
                               f"{'s' if len(sizes) != 1 else ''}, but the encoding has "
                               f"{axes} axes; pass e.g. --grid {example}")
    return sizes


def int_list(option: str, text: str) -> list[int]:
    """``16,24,24`` (or ``16;24;24``) as integers; anything else is one line naming ``--option``."""
    try:
        return [int(p) for p in text.replace(";", ",").split(",") if p.strip()]
    except ValueError:
        raise InvalidParameter(f"--{option}={text!r} is not a list of integers; pass e.g. "
                               "16,24,24") from None


def is_multi(name: str | None) -> bool:
    """Whether ``--preset name`` is a multi-axis encoding or rotary (see :func:`build_multi`).

    >>> is_multi("MAE"), is_multi("mrope"), is_multi("vaswani"), is_multi(None)
    (True, True, False, False)
    """
    from ..model.multiaxis import is_multi_preset
    from ..model.multirope import MULTI_ROTARIES

    key = (name or "").lower()
    return key in MULTI_ROTARIES or is_multi_preset(key)


def build_multi(args: argparse.Namespace) -> Any:
    """The multi-axis encoding the options describe: a
    :class:`~posproof.model.multiaxis.MultiAxisEncoding` (``sincos-2d``, ``pe-2d``, ``pe-3d``),
    a :class:`~posproof.model.multirope.MultiAxisRotary` (``mrope``, ``axial-rope``), or
    ``None`` when ``--preset`` names a 1-D encoding."""
    from ..model.multiaxis import multi_preset
    from ..model.multirope import MULTI_ROTARIES, multi_rotary

    name = (args.preset or "").lower()
    if name:
        _known_family(name)
    if not is_multi(name):
        return None
    if name in MULTI_ROTARIES:
        params: dict[str, Any] = {}
        if name == "mrope":
            if args.dim is not None:
                params["head_dim"] = parse_int("dim", args.dim)
            if args.mrope_section is not None:
                params["mrope_section"] = int_list("mrope-section", args.mrope_section)
            params["interleaved"] = bool(args.mrope_interleaved)
            if args.base is not None:
                params["base"] = args.base
        else:
            if args.axes_dims is not None:
                params["axes_dims"] = int_list("axes-dims", args.axes_dims)
            if args.base is not None:
                params["theta"] = args.base
        if args.layout is not None:
            params["layout"] = args.layout
        rot = multi_rotary(name, **params)
        if name != "mrope" and args.dim is not None and parse_int("dim", args.dim) != rot.head_dim:
            raise InvalidParameter(f"--dim={args.dim} but --axes-dims sum to {rot.head_dim}; "
                                   "drop --dim or make them agree")
        return rot
    params = {}
    for option in ("base", "layout", "first"):
        value = getattr(args, option, None)
        if value is not None:
            params[option] = value
    dim = parse_int("dim", "512" if args.dim is None else args.dim)
    return multi_preset(name, dim=dim, **params)


def run_main(parser: argparse.ArgumentParser, argv: Sequence[str] | None,
             run: Callable[[argparse.Namespace], int]) -> int:
    """Parse ``argv`` and ``run`` the command: the exit status, never a traceback.

    Usage errors (2), ``--help`` and ``--version`` (0) are a status, not a raise; no
    command prints the help (2); a :class:`~posproof.errors.PosproofError` is one line on
    stderr (2); Ctrl-C is 130; a closed pipe (``| head``) ends quietly with 141.

    >>> parser = Parser(prog="demo")
    >>> _ = parser.add_subparsers(dest="command").add_parser("go")
    >>> run_main(parser, ["go"], lambda args: 0), run_main(parser, ["stop"], lambda args: 0)
    (0, 2)

    With ``argv=None`` the call is the process's command line (``posproof``, ``python -m
    posproof``), and :func:`_as_the_process` sets the process up: stdout line-buffered, a
    quick teardown at exit.
    """
    if argv is None:
        _as_the_process()
    try:
        try:
            args = parser.parse_args(argv)
        except SystemExit as exc:  # usage errors (2), --help and --version (0): a status
            status = exc.code if isinstance(exc.code, int) else 2
        else:
            if args.command is None:
                parser.print_help()
                status = 2
            else:
                status = run(args)
        # flushed here, not at interpreter exit: a reader gone by then (``| head``) would
        # otherwise print "Exception ignored … BrokenPipeError" and exit 120
        sys.stdout.flush()
        return status
    except PosproofError as exc:
        print(f"posproof: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("posproof: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader (head, less) went away: stop quietly, as a Unix filter does; what is
        # still buffered goes to /dev/null, so the flush at exit cannot fail again
        _silence_stdout()
        return 141


#: The top level of every command's ``--json`` (docs/spec.md, tests/test_families.py).
JSON_KEYS = ("ok", "spec", "theorems", "checks", "numbers", "versions")


def emit_json(out: Any, args: argparse.Namespace, *, ok: bool | None = None) -> None:
    """Print ``out`` (a Report or a dict) as every command's JSON: sorted keys and the same top
    level, ``ok`` (bool), ``spec`` (the canonical SPEC), ``theorems``, ``checks`` and
    ``numbers`` (empty where a command has none) beside the command's own keys, and
    ``versions``: posproof's and the libraries' a verdict depends on
    (:func:`posproof.version.versions`), so that a verdict can be reproduced from its header.

    >>> import argparse
    >>> emit_json({"found": 1}, argparse.Namespace(spec_text="alibi:heads=8"), ok=True)
    ... # doctest: +ELLIPSIS
    {
      "checks": [],
      "found": 1,
      "numbers": {},
      "ok": true,
      "spec": "alibi:heads=8",
      "theorems": [],
      "versions": {
        "mpmath": "...",
        "numpy": "...",
        "posproof": "...",
        ...
      }
    }
    """
    import json

    from ..version import versions

    if hasattr(out, "to_dict"):
        report = out
        out = report.to_dict()
        if ok is None:
            ok = bool(report.ok)
    out = dict(out)
    if ok is None:
        ok = out.get("ok")
    if not isinstance(ok, bool):   # pragma: no cover - internal misuse
        raise TypeError("emit_json needs ok= (a bool) for a dict without one")
    out["ok"] = ok
    if not isinstance(out.get("spec"), str):   # a model's own description: its encoding
        if out.get("spec") is not None:
            out.setdefault("encoding", out["spec"])
        out["spec"] = ""
    if not out["spec"]:
        out["spec"] = getattr(args, "spec_text", None) or ""
    out.setdefault("theorems", [])
    out.setdefault("checks", [])
    out.setdefault("numbers", {})
    out.setdefault("versions", versions())
    print(json.dumps(out, indent=2, sort_keys=True, ensure_ascii=False, default=str))
_TEARDOWN_REGISTERED: list[bool] = []


def _as_the_process() -> None:
    """Set up the process of a command: stdout line-buffered (a redirected log receives each
    line when it is printed, not in one block at exit), and :func:`_quick_teardown` at exit.
    A library call (``main([...])``) leaves its caller's process as it is."""
    reconfigure = getattr(sys.stdout, "reconfigure", None)
    if reconfigure is not None:
        with contextlib.suppress(ValueError, OSError, TypeError):  # detached, closed, …
            reconfigure(line_buffering=True)
    if not _TEARDOWN_REGISTERED:
        import atexit

        atexit.register(_quick_teardown)   # first registered: runs after every later hook
        _TEARDOWN_REGISTERED.append(True)


def _quick_teardown() -> None:
    """At interpreter exit (the last atexit hook): collect the young garbage (the objects of
    the command's last steps: their finalizers run), then freeze what is left.

    Without this, CPython's teardown clears module after module and runs a full garbage
    collection at each step over everything torch, transformers, SymPy and NumPy keep
    alive (200 000 objects or more): 0.5 s (check-impl of a torch function) to 1.3 s
    (check-model) of CPU after the verdict on a quiet machine, stretched by the load of a
    busy runner (2.5 s with 8 busy processes on 2 cores).  Frozen objects are left to the
    operating system, as every process's memory is at exit; nothing is skipped that a
    normal exit guarantees (atexit hooks, non-daemon threads, flushed stdout and stderr,
    the exit status; CPython never promised finalizers for objects alive at exit).  A full
    collection here would cost 0.15 s of the 0.3 s that remain; the young one costs little.
    """
    import gc

    gc.collect(1)
    gc.freeze()


def _silence_stdout() -> None:
    """Point stdout at /dev/null (after a broken pipe), whatever object sys.stdout is."""
    import os

    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):   # not a file (captured by a test)
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)
