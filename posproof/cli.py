"""The ``posproof`` command (also ``python -m posproof``).

Exit status: 0 when every theorem is proved (and every check passes), 1 when
something is refuted, fails or stays unknown, 2 for bad input (one line on
stderr, never a traceback).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from typing import Any

from .errors import PosproofError
from .report import Proof, Report

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


def _int(name: str, text: str) -> int:
    from .errors import InvalidParameter

    try:
        return int(text)
    except ValueError:
        raise InvalidParameter(f"--{name}={text!r} is not an integer") from None


def build_encoding(args: argparse.Namespace) -> Any:
    """The Encoding the encoding options describe."""
    from .presets import preset

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
        return f"counterexample {where} (mpmath, {ce.get('dps')} digits)"
    if item.status == "unknown":
        return item.note or ""
    rules = []
    for step in item.steps:
        if step.rule not in rules:
            rules.append(step.rule)
    checked = " + mpmath cross-check" if item.crosscheck else ""
    return ", ".join(rules[:3]) + checked


def render_table(report: Report, title: str, seconds: float) -> str:
    """The verdict table a person reads at a glance."""
    enc = report.encoding
    params = ", ".join(f"{k}={v}" for k, v in enc.get("schedule", {}).items() if k != "family")
    lines = [title, f"encoding: {enc['name']}, d={enc['dim']}, layout={enc['layout']}"
             + (f", {params}" if params else "") + f", offset={enc['offset']}", ""]
    width = max([len(p.name) for p in report.theorems] + [len(c.name) for c in report.checks]
                + [8])
    for p in report.theorems:
        lines.append(f"  {_SYMBOL[p.status]} {p.name:<{width}}  {p.status:<8}  {_how(p)}")
        if p.status == "refuted":
            lines.append(f"      {p.statement}")
    for c in report.checks:
        values = ", ".join(f"{k}={v}" for k, v in list(c.values.items())[:3])
        lines.append(f"  {_SYMBOL[c.status]} {c.name:<{width}}  {c.status:<8}  {values}")
    counts = {s: sum(p.status == s for p in report.theorems)
              for s in ("proved", "refuted", "unknown")}
    summary = ", ".join(f"{v} {k}" for k, v in counts.items())
    if report.checks:
        passed = sum(c.ok for c in report.checks)
        summary += f"; checks {passed}/{len(report.checks)} pass"
    verdict = "OK" if report.ok else ("REFUTED" if report.refuted else "INCOMPLETE")
    lines += ["", f"verdict: {verdict} — {summary} ({seconds:.1f} s)"]
    return "\n".join(lines)


def _run_prove(args: argparse.Namespace, general: bool) -> int:
    from .theorems import prove

    enc = build_encoding(args)
    start = time.perf_counter()
    report = prove(enc, general=general or getattr(args, "general", False),
                   theorems=getattr(args, "theorem", None) or None,
                   claim_block=getattr(args, "claim_block", None),
                   convention=getattr(args, "convention", "row"),
                   seed=args.seed)
    seconds = time.perf_counter() - start
    if args.json:
        print(report.to_json())
    else:
        print(render_table(report, f"posproof {args.command}", seconds))
    return report.exit_status()


def make_parser() -> argparse.ArgumentParser:
    from . import __version__

    parser = _Parser(prog="posproof", description="Prove, refute and measure claims about "
                     "sinusoidal and rotary positional encodings.")
    parser.add_argument("--version", action="version", version=f"posproof {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    verify = sub.add_parser("verify", help="the main job: prove everything about an encoding "
                            "(default: the original, d=512, base 10000)")
    _encoding_options(verify)
    verify.add_argument("--json", action="store_true", help="print the report as JSON")
    verify.add_argument("--seed", type=int, default=0, help="seed of the random test points")

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
    prove.add_argument("--json", action="store_true", help="print the report as JSON")
    prove.add_argument("--seed", type=int, default=0, help="seed of the random test points")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = make_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    try:
        if args.command in ("verify", "prove"):
            return _run_prove(args, general=args.command == "verify")
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
