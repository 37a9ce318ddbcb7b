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
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import InvalidParameter
from .options import (
    Parser,
    ProgressBar,
    build_encoding,
    build_multi,
    check_options,
    emit_json,
    encoding_options,
    int_list,
    length,
    output_options,
    parse_grid,
    parse_int,
    run_main,
)
from .spec import add_spec_argument, apply_spec, normalise_options

if TYPE_CHECKING:  # the report is built by the command that runs, not at start-up
    from ..report import Check, Proof, Report

__all__ = ["main"]

#: The ``--theorem`` about self-attention itself (no encoding): see cli.biases_perm.
PERMUTATION_THEOREM = "permutation-equivariance"

_SYMBOL = {"proved": "✓", "refuted": "✗", "unknown": "?", "pass": "✓", "fail": "✗"}


def _how(item: Proof) -> str:
    if item.status == "refuted" and item.counterexample:
        ce = item.counterexample
        where = ", ".join(f"{k}={ce[k]}" for k in ("x", "y", "delta", "shift", "column", "columns",
                                                    "position", "pair", "row", "sections_sum",
                                                    "pairs") if k in ce)
        where = where or ", ".join(f"{k}={v}" for k, v in ce.items()
                                   if k not in ("certified", "dps", "note", "statement", "exact")
                                   and not isinstance(v, dict))
        certified = str(ce.get("certified", ""))
        method = getattr(item.evidence, "method", None)
        how = ("interval arithmetic, certified" if certified.startswith("interval")
               else f"{certified}, certified" if certified
               else f"mpmath, {ce['dps']} digits" if ce.get("dps") is not None
               else str(method) if method
               else "exact arithmetic" if ce.get("exact") else "method not recorded")
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
    witness = (item.values or {}).get("witness") if item.status == "proved" else None
    if isinstance(witness, dict) and "difference enclosure" in witness:  # an existence proof
        lo, hi = witness["difference enclosure"]
        return f"witness: entry {witness.get('entry')} differs by [{lo}, {hi}]; "
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
    """``WORD — counts``, the same form on every command (:func:`posproof.verdict.verdict_text`)."""
    from ..verdict import verdict_text

    return verdict_text(report.theorems, report.checks, audited=report.audit_summary(),
                        ok=report.ok)


def _columns_per_axis(enc: dict[str, Any]) -> str:
    """``; columns 0–7 encode col, 8–15 row``: which dims each axis of the position drives,
    in the order of the dims (MAE's first half is the column, though the position is
    (row, col)).

    >>> _columns_per_axis({"axis_names": ["row", "col"],
    ...                    "blocks": [{"axis": 1, "columns": [0, 1, 2, 3]},
    ...                               {"axis": 0, "columns": [4, 5, 6, 7]}]})
    '; columns 0–3 encode col, 4–7 row'
    >>> _columns_per_axis({"axis_names": ["t", "h"], "blocks": [
    ...     {"axis": 0, "columns": [0, 1, 4, 5]}, {"axis": 1, "columns": [2, 3, 6, 7]}]})
    '; columns 0–1,4–5 encode t, 2–3,6–7 h'
    """
    blocks = enc.get("blocks")
    names = enc.get("axis_names")
    if not blocks or not names:
        return ""
    parts = []
    for block in sorted(blocks, key=lambda b: min(b["columns"])):
        cols, runs = sorted(block["columns"]), []
        for c in cols:
            if runs and c == runs[-1][1] + 1:
                runs[-1][1] = c
            else:
                runs.append([c, c])
        spans = ",".join(f"{a}–{b}" if b > a else f"{a}" for a, b in runs)
        parts.append(f"{spans} {'encode ' if not parts else ''}{names[block['axis']]}")
    return "; columns " + ", ".join(parts)


def _encoding_line(report: Report, spelled: dict[str, str] | None = None) -> str:
    """The encoding's header line; ``spelled``: parameters as the user typed them (the human
    output says ``pi-1+10**-45``, ``--json`` keeps the exact value)."""
    enc = report.encoding
    if str(enc.get("kind", "")).startswith("multi-axis"):
        return (f"encoding: {enc['name']}, d={enc.get('dim', enc.get('head_dim'))}, "
                f"position=({', '.join(enc['axis_names'])})"
                + (f", layout={enc['layout']}" if "layout" in enc else "")
                + (f", grid={'×'.join(map(str, enc['grid']))}" if "grid" in enc else "")
                + _columns_per_axis(enc))
    if enc.get("kind") == "rotary":
        skip = ("name", "kind", "head_dim", "layout")
        return (f"rotary: {enc['name']}, head_dim={enc['head_dim']}, layout={enc['layout']}, "
                + ", ".join(f"{k}={v}" for k, v in enc.items() if k not in skip)
                + (f"  [spec {report.spec}]" if report.spec else ""))
    if "name" not in enc or "dim" not in enc:  # a bias, xPos, self-attention: as they are
        fields = ", ".join(f"{k}={v}" for k, v in enc.items()
                           if not isinstance(v, (list, dict)))
        return f"spec: {report.spec}  ({fields})" if report.spec else f"spec: {fields}"
    params = ", ".join(f"{k}={(spelled or {}).get(k, v)}"
                       for k, v in enc.get("schedule", {}).items() if k != "family")
    return (f"encoding: {enc['name']}, d={enc['dim']}, layout={enc['layout']}"
            + (f", {params}" if params else "") + f", offset={enc['offset']}")


def render_markdown(report: Report, title: str) -> str:
    """A short Markdown summary (no timings: identical from run to run).

    >>> from posproof.report import Report
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
            result = _result(c) + (f" — {c.note}" if c.note and c.status != "pass" else "")
            result = result.replace("|", "\\|")                   # a cell, not a column
            lines.append(f"| {_SYMBOL[c.status]} | {c.name} | {c.label} | {result} |")
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


def render_table(report: Report, title: str, seconds: float, details: Sequence[str] = (),
                 spelled: dict[str, str] | None = None) -> str:
    """The verdict table a person reads at a glance."""
    lines = [title, _encoding_line(report, spelled), ""]
    width = max([len(p.name) for p in report.theorems] + [len(c.name) for c in report.checks]
                + [8])
    for p in report.theorems:
        lines.append(f"  {_SYMBOL[p.status]} {p.name:<{width}}  {p.status:<8}  {_how(p)}")
        if p.status == "refuted":
            lines.append(f"      {p.statement}")
    status_width = max([8, *(len(c.label) for c in report.checks)])
    for c in report.checks:
        lines.append(f"  {_SYMBOL[c.status]} {c.name:<{width}}  {c.label:<{status_width}}  "
                     f"{_result(c)}")
        if c.note and c.status != "pass":
            lines.append(f"      {c.note}")
    lines += list(details)
    lines += ["", f"verdict: {_verdict(report)} ({seconds:.1f} s)"]
    return "\n".join(lines)


def _family_and_object(args: argparse.Namespace) -> tuple[str, Any]:
    """The family and model object of what was typed: a SPEC, a config.json, or the old flags
    (``--preset``, ``--alibi --heads``, ``--t5``, ``--xpos``), built from the flags as typed."""
    from ..model.families import family_of
    spec = getattr(args, "spec_obj", None)
    if spec is not None:
        return spec.family, None            # built by the pipeline, from the SPEC
    if getattr(args, "alibi", False):
        from .alibi import alibi_of_args

        return "alibi", alibi_of_args(args)
    if getattr(args, "t5", None) is not None:
        from .biases_t5 import parse_t5_spec, refuse_encoding_options

        refuse_encoding_options(args)
        return "t5", parse_t5_spec(args.t5)[0]
    if getattr(args, "xpos", None) is not None:
        from .biases_perm import xpos_spec

        return "xpos", xpos_spec(args)
    multi = build_multi(args)
    if multi is not None:
        return family_of(multi.name if multi.name in ("mrope", "axial-rope")
                         else "sincos-2d"), multi
    return "vaswani", build_encoding(args)


def _options(args: argparse.Namespace, family: str) -> Any:
    """The families' :class:`~posproof.families.Options` of the parsed options."""
    from ..families import Options

    claims: dict[str, Any] = {}
    for name in ("claim_block", "claim_period", "claim_bound", "claim_permutation",
                 "claim_first", "claim_meshgrid"):
        if getattr(args, name, None) is not None:
            claims[name] = getattr(args, name)
    if getattr(args, "claim_sections", None) is not None:
        claims["claim_sections"] = int_list("claim-sections", args.claim_sections)
    if getattr(args, "claim_interleaved", False):
        claims["claim_interleaved"] = True
    if "claim_block" in claims:
        claims["convention"] = getattr(args, "convention", "row")
    timeout = _timeout(args)
    grid = getattr(args, "grid", None)
    multi = family in ("sincos-2d", "mrope", "axial-rope")
    if grid is not None and not multi:
        raise InvalidParameter(f"--grid is for the families with several position axes "
                               f"(sincos-2d, mrope, axial-rope); {args.spec_text} has one")
    bar = ProgressBar.on(sys.stderr)
    max_len = getattr(args, "max_len", None)
    dps = getattr(args, "dps", None)
    return Options(theorems=getattr(args, "theorem", None) or None,
                   general=bool(getattr(args, "general", False)),
                   seed=args.seed, timeout=timeout.get("timeout"),
                   timeout_given="timeout" in timeout, budget=timeout.get("budget"),
                   budget_given="budget" in timeout,
                   length=None if max_len is None else length("length", max_len),
                   dps=None if dps is None else parse_int("dps", dps),
                   dtypes=getattr(args, "dtype", None) or None,
                   checks=_names(getattr(args, "check_names", None)) or None,
                   grid=None if grid is None else parse_grid(grid), claims=claims,
                   progress=bar)


def _run_family(args: argparse.Namespace) -> int:
    """``prove`` / ``check`` / ``verify`` of any family, through :mod:`posproof.families`."""
    from .. import families

    family, obj = _family_and_object(args)
    options = _options(args, family)
    _report_dir(getattr(args, "report", None))
    start = time.perf_counter()
    if options.progress is not None:        # drawn from the start of the work
        options.progress("proving" if args.command != "check" else "numeric checks", 0, 1)
    try:
        report = families.run(args.command, args.spec_obj or args.spec_text, options,
                              obj=obj, family=family)
    finally:
        if options.progress is not None:
            options.progress.close()
    ops = families.operations(family)
    args.details = ops.details(report) if hasattr(ops, "details") else []
    return _output(report, args, time.perf_counter() - start)


def _timeout(args: argparse.Namespace) -> dict[str, Any]:
    """prove's work ``budget`` (``--budget``) and safety-net ``timeout`` (``--time-limit``, old
    spelling ``--timeout``), those given (0: no limit; absent: the default)."""
    out: dict[str, Any] = {}
    text = getattr(args, "timeout", None)
    if text is not None:
        try:
            seconds = float(text)
        except (TypeError, ValueError):
            seconds = float("nan")
        if not (math.isfinite(seconds) and seconds >= 0):
            raise InvalidParameter(f"--time-limit (--timeout)={text!r} is not a number of "
                                   "seconds >= 0; pass e.g. --time-limit 1200 (0: no limit)")
        out["timeout"] = seconds or None
    text = getattr(args, "budget", None)
    if text is not None:
        units = str(text).strip()
        if not (units.isascii() and units.isdigit() and len(units) <= 18):
            raise InvalidParameter(f"--budget={text!r} is not a whole number of work units >= 0; "
                                   "pass e.g. --budget 20000000 (0: no limit)")
        out["budget"] = int(units) or None
    return out


def _output(report: Report, args: argparse.Namespace, seconds: float) -> int:
    from ..audit import audit_report

    title = f"posproof {args.command}"
    audit_report(report)      # evidence not audited where it was built is audited here
    report.spec = report.spec or getattr(args, "spec_text", None)
    if getattr(args, "report", None):
        _write_report(report, title, args.report)
    if args.json:
        emit_json(report, args)
    else:
        print(render_table(report, title, seconds, getattr(args, "details", ()),
                           spelled=_as_typed(args)))
    return report.exit_status()


class VersionAction(argparse.Action):
    """``--version``: posproof's version and, one a line, the libraries' (read from their
    metadata when asked, not imported: :func:`posproof.version.versions_text`)."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS,
                 default: str = argparse.SUPPRESS, help: str | None = None) -> None:
        super().__init__(option_strings=option_strings, dest=dest, default=default, nargs=0,
                         help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        from ..version import versions_text

        print(versions_text())
        parser.exit()


def _names(given: Sequence[str] | None) -> list[str]:
    """``--check a,b --check c`` as ``[a, b, c]`` (one name or a comma list, repeatable).

    >>> _names(["decay,separation", "bounds"])
    ['decay', 'separation', 'bounds']
    """
    names = [n.strip() for item in given or () for n in str(item).split(",")]
    if not all(names):
        raise InvalidParameter(f"--check={','.join(given or ())!r} names an empty check; pass "
                               "one name or a comma list, e.g. --check decay,separation")
    return names


def _as_typed(args: argparse.Namespace) -> dict[str, str]:
    """The encoding parameters as the user typed them (``--frequencies "1, pi-1+10**-45"``)."""
    text = getattr(args, "frequencies", None)
    if not isinstance(text, str):
        return {}
    return {"frequencies": ", ".join(f.strip() for f in text.replace(";", ",").split(",")
                                     if f.strip())}


def make_parser() -> argparse.ArgumentParser:
    from . import biases_perm
    from . import biases_t5 as cli_t5

    parser = Parser(prog="posproof", description="Prove, refute and measure claims about "
                     "sinusoidal and rotary positional encodings.",
                    epilog="Every accepted range (d, L, heads, buckets, base ranges, grids…) "
                           "and what happens beyond it: posproof limits.")
    parser.add_argument("--version", action=VersionAction,
                        help="print posproof's version and those of the libraries a verdict "
                             "depends on (sympy, mpmath, python-flint, numpy; torch and "
                             "transformers when installed), and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)

    verify = sub.add_parser("verify", help="the main job: prove everything about an encoding "
                            "and run the numeric checks on positions 0 … L−1 (default: the "
                            "original, d=512, base 10000, L=1e6)")
    add_spec_argument(verify)
    encoding_options(verify)
    check_options(verify)
    biases_perm.add_options(verify)
    output_options(verify)
    cli_t5.add_t5_option(verify)

    check = sub.add_parser("check", help="numeric checks of one encoding (separation, "
                           "near returns, decay, dtypes…), certified in mpmath")
    add_spec_argument(check)
    encoding_options(check)
    check_options(check)
    biases_perm.add_options(check)
    output_options(check)
    cli_t5.add_t5_option(check)

    prove = sub.add_parser("prove", help="prove or refute the theorems for one encoding")
    add_spec_argument(prove)
    encoding_options(prove)
    prove.add_argument("--general", action="store_true",
                       help="also prove for every even d at once (symbolic pair index)")
    prove.add_argument("--theorem", action="append", metavar="NAME",
                       help="only this theorem (repeatable); 'permutation-equivariance': "
                            "self-attention without positions (no encoding needed)")
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
    prove.add_argument("--claim-first", metavar="AXIS",
                       help="multi-axis presets: a claimed axis of the first block of columns, "
                            "e.g. 'row' for \"the first half of sincos-2d encodes the row\" "
                            "(refuted: MAE puts the column first)")
    prove.add_argument("--claim-sections", metavar="S1,S2,S3",
                       help="mrope: a claimed mrope_section for the pairs (refuted when it does "
                            "not sum to head_dim/2 or assigns a pair another axis)")
    prove.add_argument("--claim-interleaved", action="store_true",
                       help="with --claim-sections: the claimed assignment is Qwen3-VL's "
                            "interleaved one")
    prove.add_argument("--claim-meshgrid", choices=["ij", "xy"],
                       help="sincos-2d (2 axes) with --grid H,W: a claim that the table built "
                            "with np.meshgrid(grid_w, grid_h, indexing=...) is the spec's "
                            "(refuted for 'ij': the transposed grid)")
    prove.add_argument("--budget", metavar="UNITS",
                       help="work budget per theorem in deterministic work units (default "
                            "1000000; 0: no limit): the same on every machine at any load; a "
                            "theorem whose next step would exceed it is unknown, with the reason")
    prove.add_argument("--time-limit", "--timeout", dest="timeout", metavar="SECONDS",
                       help="wall-clock safety net per theorem against a runaway symbolic step "
                            "(default 600; 0: none); when it fires the theorem is unknown and "
                            "says so. --timeout is its old spelling")
    biases_perm.add_options(prove)
    output_options(prove, report=False)
    cli_t5.add_t5_option(prove)
    from . import derive as cli_derive
    from . import rope as cli_rope
    from . import sweep as cli_sweep
    from . import testing as cli_testing

    cli_rope.add_commands(sub, encoding_options)
    cli_testing.add_commands(sub, encoding_options)
    cli_derive.add_command(sub)
    cli_sweep.add_command(sub)
    from . import alibi as cli_alibi

    cli_alibi.add_options(sub)
    from . import model as cli_model  # issue 23: posproof check-model

    cli_model.add_command(sub)
    sub.add_parser("limits", help="every accepted range: at these values each command finishes "
                   "within a minute and 4 GiB; beyond them it exits 2 at once")
    from ..model.families import families_help

    families = (f"SPEC families: {families_help()}. A SPEC is FAMILY:key=value,... or a "
                "config.json (docs/spec.md).")
    for command in sub.choices.values():
        command.epilog = families if not command.epilog else f"{command.epilog}\n\n{families}"
    parser.epilog = f"{parser.epilog} {families}"
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    return run_main(make_parser(), argv, _run)


def console() -> None:
    """The process entry (``python -m posproof``, the ``posproof`` script): :func:`main` on
    the command line, its status the exit status.

    The cyclic garbage collector rarely rescans the old generation (SymPy's hundreds of
    thousands of import-time objects: a full pass costs tens of milliseconds, ``verify`` used
    to make two).  The exit itself is quick because :func:`main`, run as the process, freezes
    the heap at exit (``posproof.cli.options._quick_teardown``): CPython's teardown then no
    longer rescans it module by module.
    """
    import gc

    gc.set_threshold(700, 10, 1000)      # the young generations as by default
    raise SystemExit(main())


def _run(args: argparse.Namespace) -> int:
    from . import derive as cli_derive
    from . import rope as cli_rope
    from . import sweep as cli_sweep
    from . import testing as cli_testing

    if args.command == "limits":
        from .limits import render

        print("\n".join(render()))
        return 0
    normalise_options(args)
    if hasattr(args, "spec"):
        apply_spec(args)
    elif getattr(args, "config", None):      # explain: a config.json is a SPEC
        args.spec_text = args.config
    if getattr(args, "rope_spec", None) is not None and args.command in ("check-impl",
                                                                          "derive"):
        from .rotary import run_rotary

        return run_rotary(args)
    if getattr(args, "alibi", False) and args.command not in ("prove", "check", "verify"):
        from . import alibi as cli_alibi

        return cli_alibi.run(args)
    if args.command == cli_derive.COMMAND:
        return cli_derive.run(args)
    if args.command == "check-model":  # issue 23
        from . import model as cli_model

        return cli_model.run(args)
    if args.command == cli_sweep.COMMAND:
        return cli_sweep.run(args)
    if args.command in cli_rope.COMMANDS:
        return cli_rope.run(args)
    if args.command in cli_testing.COMMANDS:
        return cli_testing.run(args)
    if args.command in ("verify", "prove", "check"):
        from . import biases_perm
        from . import model as cli_model

        if args.command == "prove" and cli_model.wants_theorem(args):  # issue 23
            start = time.perf_counter()
            return _output(cli_model.prove_theorem(args), args, time.perf_counter() - start)

        if PERMUTATION_THEOREM in (getattr(args, "theorem", None) or []):
            start = time.perf_counter()      # self-attention: no encoding, no family
            report = biases_perm.report(args)
            _output(report, args, time.perf_counter() - start)
            return biases_perm.exit_status(report)
        return _run_family(args)
    raise InvalidParameter(f"unknown command {args.command!r}")  # pragma: no cover


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
