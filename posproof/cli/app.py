"""The ``posproof`` command (also ``python -m posproof``).

Exit status: 0 when every theorem is proved (and every check passes), 1 when
something is refuted, fails or stays unknown, 2 for bad input (one line on
stderr, never a traceback).

``posproof verify`` proves the theorems and runs the numeric checks on
positions 0 … L−1, L = 10⁶ by default (``--max-len``); ``posproof check``
runs the checks alone.  ``--report DIR`` writes ``report.json`` and
``summary.md``, byte-identical from run to run.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

from ..errors import InvalidParameter, PosproofError
from ..report import Check, Proof, Report

__all__ = ["main"]

_SYMBOL = {"proved": "✓", "refuted": "✗", "unknown": "?", "pass": "✓", "fail": "✗"}


class _Parser(argparse.ArgumentParser):
    """argparse, but bad usage is one line and exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message}\n")


def _encoding_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("encoding")
    group.add_argument("--preset", default=None,
                       help="vaswani (default), tensor2tensor, fairseq, diffusion, binary, "
                            "sine-only, column-exponent")
    group.add_argument("--dim", "-d", default="512", help="encoded dimension d (default 512)")
    group.add_argument("--base", help="base b of the geometric schedule (default 10000)")
    group.add_argument("--layout", help="interleaved, interleaved-cos, split, split-cos")
    group.add_argument("--frequencies", help="explicit frequencies, e.g. '1, 1/100, pi/4'")
    group.add_argument("--expression", help="frequency in k, d, n, b, e.g. 'b**(-2*k/d)'")
    group.add_argument("--offset", help="position of the first token")
    group.add_argument("--odd-dim", choices=["error", "pad"], help="policy for odd d")
    group.add_argument("--min-timescale", help="tensor2tensor min_timescale")
    group.add_argument("--max-timescale", help="tensor2tensor max_timescale")
    group.add_argument("--start-index", help="tensor2tensor start_index")
    group.add_argument("--padding-idx", help="fairseq padding_idx")
    group.add_argument("--max-period", help="diffusion max_period")
    group.add_argument("--numerator", help="binary dials numerator (pi or 2*pi)")


def _output_options(parser: argparse.ArgumentParser, *, report: bool = True) -> None:
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    if report:
        parser.add_argument("--report", metavar="DIR",
                            help="also write DIR/report.json and DIR/summary.md")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random test points")


def _int(name: str, text: str) -> int:
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


def _length(name: str, text: str) -> int:
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


def _check_options(parser: argparse.ArgumentParser) -> None:
    from ..measure.checks import CHECKS, DEFAULT_MAX_LEN

    group = parser.add_argument_group("numeric checks")
    group.add_argument("--max-len", default=str(DEFAULT_MAX_LEN), metavar="L",
                       help=f"positions 0 … L−1 to scan (default {DEFAULT_MAX_LEN}, which keeps "
                            "`posproof verify` under 5 s on two cores; at most 1e9, and "
                            "L·d at most 2^35, e.g. L ≤ 67108864 at d = 512: the scans "
                            "stream, time is the limit)")
    group.add_argument("--dps", default="50",
                       help="digits of the mpmath certification (default 50; 50 to 1000)")
    group.add_argument("--dtype", action="append", metavar="NAME",
                       help="dtype audited by dtype_audit (repeatable; default float32, "
                            "float16, bfloat16)")
    group.add_argument("--check", action="append", metavar="NAME", dest="check_names",
                       help=f"only this check (repeatable): {', '.join(CHECKS)}")


class _ProgressBar:
    """A one-line progress bar on stderr, drawn only when stderr is a terminal."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.shown = ""

    def __call__(self, label: str, done: int, total: int) -> None:
        frac = min(max(done / total, 0.0), 1.0) if total else 1.0
        filled = int(frac * 24)
        text = f"  {label:<21} [{'#' * filled}{'.' * (24 - filled)}] {frac:4.0%}"
        if text != self.shown:
            self.stream.write("\r" + text)
            self.stream.flush()
            self.shown = text

    def close(self) -> None:
        if self.shown:
            self.stream.write("\r" + " " * len(self.shown) + "\r")
            self.stream.flush()
            self.shown = ""


def _run_checks(enc: Any, args: argparse.Namespace, proofs: Sequence[Proof] = ()
                ) -> list[Check]:
    from ..measure.checks import run_checks

    bar = _ProgressBar(sys.stderr) if sys.stderr.isatty() else None
    try:
        return run_checks(enc, max_len=_length("max-len", args.max_len),
                          dps=_int("dps", args.dps), checks=args.check_names,
                          dtypes=args.dtype, seed=args.seed, proofs=proofs, progress=bar)
    finally:
        if bar is not None:
            bar.close()


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
    for option in ("base", "layout", "min_timescale", "max_timescale", "max_period",
                   "numerator", "odd_dim"):
        value = getattr(args, option)
        if value is not None:
            params[option] = value
    for option in ("offset", "start_index", "padding_idx"):
        value = getattr(args, option)
        if value is not None:
            params[option] = _int(option.replace("_", "-"), value)
    return preset(name, dim=_int("dim", args.dim), **params)


def _how(item: Proof) -> str:
    if item.status == "refuted" and item.counterexample:
        ce = item.counterexample
        where = ", ".join(f"{k}={ce[k]}" for k in ("x", "y", "delta", "shift", "column", "columns")
                          if k in ce)
        how = ("interval arithmetic, certified" if ce.get("certified")
               else f"mpmath, {ce.get('dps')} digits")
        return f"counterexample {where} ({how})"
    if item.status == "unknown":
        return item.note or ""
    rules = []
    for step in item.steps:
        if step.rule not in rules:
            rules.append(step.rule)
    method = str((item.crosscheck or {}).get("method", "mpmath"))
    checked = ("" if not item.crosscheck else " + exact check" if method.startswith("exact")
               else " + mpmath cross-check")
    return _proved_value(item) + ", ".join(rules[:3]) + checked


def _proved_value(item: Proof) -> str:
    """What a proof established, when it is a number (a period), before how it was proved."""
    period = (item.values or {}).get("period") if item.status == "proved" else None
    if period is None:
        return ""
    if period == "none":
        return "aperiodic: "
    if period == "any":
        return "constant (every P is a period): "
    exact = "exact period" if item.name == "periodicity" else "period"
    return f"{exact} {period}: "


def _result(check: Check) -> str:
    """One readable line for a check: its summary, else its first scalar values."""
    if "summary" in check.values:
        return str(check.values["summary"])
    return ", ".join(f"{k}={v}" for k, v in list(check.values.items())[:3]
                     if not isinstance(v, (dict, list)))


def _verdict(report: Report) -> str:
    counts = {s: sum(p.status == s for p in report.theorems)
              for s in ("proved", "refuted", "unknown")}
    summary = ", ".join(f"{v} {k}" for k, v in counts.items()) if report.theorems else ""
    if report.checks:
        passed = sum(c.ok for c in report.checks)
        summary += ("; " if summary else "") + f"checks {passed}/{len(report.checks)} pass"
    if report.ok:
        verdict = "OK"
    elif counts["refuted"]:
        verdict = "REFUTED"
    elif not all(c.ok for c in report.checks):
        verdict = "CHECK FAILED"
    else:
        verdict = "INCOMPLETE"
    return f"{verdict} — {summary}"


def _encoding_line(report: Report) -> str:
    enc = report.encoding
    params = ", ".join(f"{k}={v}" for k, v in enc.get("schedule", {}).items() if k != "family")
    return (f"encoding: {enc['name']}, d={enc['dim']}, layout={enc['layout']}"
            + (f", {params}" if params else "") + f", offset={enc['offset']}")


def render_markdown(report: Report, title: str) -> str:
    """A short Markdown summary (no timings: identical from run to run).

    >>> enc = {"name": "demo", "dim": 2, "layout": "interleaved", "offset": 0}
    >>> render_markdown(Report(enc), "posproof check").splitlines()[:3]
    ['# posproof check', '', 'encoding: demo, d=2, layout=interleaved, offset=0']
    """
    lines = [f"# {title}", "", _encoding_line(report), "", f"**verdict: {_verdict(report)}**", ""]
    if report.theorems:
        lines += ["| | theorem | status | how |", "|---|---|---|---|"]
        lines += [f"| {_SYMBOL[p.status]} | {p.name} | {p.status} | {_how(p)} |"
                  for p in report.theorems]
        lines.append("")
    if report.checks:
        lines += ["| | check | status | result |", "|---|---|---|---|"]
        for c in report.checks:
            result = _result(c) + (f" — {c.note}" if c.note and c.status == "fail" else "")
            result = result.replace("|", "\\|")                   # a cell, not a column
            lines.append(f"| {_SYMBOL[c.status]} | {c.name} | {c.status} | {result} |")
        lines += ["", "How each number was certified:", ""]
        lines += [f"- **{c.name}**: {c.certified}" for c in report.checks if c.certified]
        lines.append("")
    return "\n".join(lines)


def _report_dir(directory: str | None) -> None:
    """Create the --report directory before the work starts (bad paths fail fast)."""
    if directory:
        try:
            Path(directory).mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InvalidParameter(f"--report={directory!r} cannot be created ({exc.strerror}); "
                                   "pass a writable directory") from None


def _write_report(report: Report, title: str, directory: str) -> None:
    path = Path(directory)
    try:
        path.mkdir(parents=True, exist_ok=True)
        (path / "report.json").write_text(report.to_json() + "\n", encoding="utf-8")
        (path / "summary.md").write_text(render_markdown(report, title), encoding="utf-8")
    except OSError as exc:
        raise InvalidParameter(f"--report={directory!r} cannot be written ({exc.strerror}); "
                               "pass a writable directory") from None


def render_table(report: Report, title: str, seconds: float) -> str:
    """The verdict table a person reads at a glance."""
    lines = [title, _encoding_line(report), ""]
    width = max([len(p.name) for p in report.theorems] + [len(c.name) for c in report.checks]
                + [8])
    for p in report.theorems:
        lines.append(f"  {_SYMBOL[p.status]} {p.name:<{width}}  {p.status:<8}  {_how(p)}")
        if p.status == "refuted":
            lines.append(f"      {p.statement}")
    for c in report.checks:
        lines.append(f"  {_SYMBOL[c.status]} {c.name:<{width}}  {c.status:<8}  {_result(c)}")
        if c.note and c.status == "fail":
            lines.append(f"      {c.note}")
    lines += ["", f"verdict: {_verdict(report)} ({seconds:.1f} s)"]
    return "\n".join(lines)


def _run_prove(args: argparse.Namespace, general: bool) -> int:
    from ..proofs.theorems import prove

    enc = build_encoding(args)
    if args.command == "verify":                     # refuse a too large scan before proving
        from ..measure.checks import check_scan_options

        check_scan_options(enc, _length("max-len", args.max_len), _int("dps", args.dps))
    _report_dir(getattr(args, "report", None))
    start = time.perf_counter()
    report = prove(enc, general=general or getattr(args, "general", False),
                   theorems=getattr(args, "theorem", None) or None,
                   claim_block=getattr(args, "claim_block", None),
                   convention=getattr(args, "convention", "row"),
                   claim_period=getattr(args, "claim_period", None),
                   claim_bound=getattr(args, "claim_bound", None),
                   claim_permutation=getattr(args, "claim_permutation", None),
                   seed=args.seed, **_timeout(args))
    if args.command == "verify":
        report.checks = _run_checks(enc, args, proofs=report.theorems)
    return _output(report, args, time.perf_counter() - start)


def _timeout(args: argparse.Namespace) -> dict[str, float | None]:
    """prove's ``timeout`` from ``--timeout`` (0: no limit; absent: the default)."""
    text = getattr(args, "timeout", None)
    if text is None:
        return {}
    try:
        seconds = float(text)
    except (TypeError, ValueError):
        seconds = float("nan")
    if not (math.isfinite(seconds) and seconds >= 0):
        raise InvalidParameter(f"--timeout={text!r} is not a number of seconds >= 0; pass e.g. "
                               "--timeout 30 (0: no limit)")
    return {"timeout": seconds or None}


def _output(report: Report, args: argparse.Namespace, seconds: float) -> int:
    title = f"posproof {args.command}"
    if getattr(args, "report", None):
        _write_report(report, title, args.report)
    if args.json:
        print(report.to_json())
    else:
        print(render_table(report, title, seconds))
    return report.exit_status()


def _run_check(args: argparse.Namespace) -> int:
    enc = build_encoding(args)
    _report_dir(args.report)
    start = time.perf_counter()
    report = Report(enc.to_dict(), [], _run_checks(enc, args))
    return _output(report, args, time.perf_counter() - start)


def make_parser() -> argparse.ArgumentParser:
    from .. import __version__

    parser = _Parser(prog="posproof", description="Prove, refute and measure claims about "
                     "sinusoidal and rotary positional encodings.")
    parser.add_argument("--version", action="version", version=f"posproof {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    verify = sub.add_parser("verify", help="the main job: prove everything about an encoding "
                            "and run the numeric checks on positions 0 … L−1 (default: the "
                            "original, d=512, base 10000, L=1e6)")
    _encoding_options(verify)
    _check_options(verify)
    _output_options(verify)

    check = sub.add_parser("check", help="numeric checks of one encoding (separation, "
                           "near returns, decay, dtypes…), certified in mpmath")
    _encoding_options(check)
    _check_options(check)
    _output_options(check)

    prove = sub.add_parser("prove", help="prove or refute the theorems for one encoding")
    _encoding_options(prove)
    prove.add_argument("--general", action="store_true",
                       help="also prove for every even d at once (symbolic pair index)")
    prove.add_argument("--theorem", action="append", metavar="NAME",
                       help="only this theorem (repeatable)")
    prove.add_argument("--claim-block", metavar="'a, b; c, d'",
                       help="a claimed 2×2 translation block in w and delta, e.g. the transposed "
                            "'cos(w*delta), sin(w*delta); -sin(w*delta), cos(w*delta)'")
    prove.add_argument("--convention", choices=["row", "column"], default="row",
                       help="convention of the claimed block (default row: PE(x)·T)")
    prove.add_argument("--claim-period", metavar="P",
                       help="a claimed period P (PE(x+P) = PE(x) for every x), e.g. '2*pi*10000'")
    prove.add_argument("--claim-bound", metavar="C",
                       help="a claimed bound C on every entry (|PE_i(x)| ≤ C), e.g. '1/2'")
    prove.add_argument("--claim-permutation", metavar="LAYOUT:PERM",
                       help="a claimed column map to another layout: column j of PE in LAYOUT "
                            "is column PERM[j] of this one, e.g. 'split:0,2,1,3'")
    prove.add_argument("--timeout", metavar="SECONDS",
                       help="budget per theorem in seconds (default 5); a theorem not "
                            "decided within it is unknown, with the reason (0: no limit)")
    _output_options(prove, report=False)
    from . import derive as cli_derive
    from . import rope as cli_rope
    from . import sweep as cli_sweep
    from . import testing as cli_testing

    cli_rope.add_commands(sub, _encoding_options)
    cli_testing.add_commands(sub, _encoding_options)
    cli_derive.add_command(sub)
    cli_sweep.add_command(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = make_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # usage errors (2), --help and --version (0): a status, not a raise
        return exc.code if isinstance(exc.code, int) else 2
    if args.command is None:
        parser.print_help()
        return 2
    try:
        from . import derive as cli_derive
        from . import rope as cli_rope
        from . import sweep as cli_sweep
        from . import testing as cli_testing

        if args.command == cli_derive.COMMAND:
            return cli_derive.run(args)
        if args.command == cli_sweep.COMMAND:
            return cli_sweep.run(args)
        if args.command in cli_rope.COMMANDS:
            return cli_rope.run(args)
        if args.command in cli_testing.COMMANDS:
            return cli_testing.run(args)
        if args.command in ("verify", "prove"):
            return _run_prove(args, general=args.command == "verify")
        if args.command == "check":
            return _run_check(args)
    except PosproofError as exc:
        print(f"posproof: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("posproof: interrupted", file=sys.stderr)
        return 130
    parser.error(f"unknown command {args.command!r}")  # pragma: no cover
    return 2


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
