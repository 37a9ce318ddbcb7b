"""``--alibi``: ALiBi in ``posproof prove``, ``check-impl``, ``identify`` and ``explain``.

Wiring (done in :mod:`posproof.cli.app`)::

    cli_alibi.add_options(sub)                 # in make_parser(), after every command
    if getattr(args, "alibi", False):          # in _run(), first
        return cli_alibi.run(args)

* ``posproof prove --alibi --heads 12 [--rule mpt --alibi-bias-max 8] [--general]`` — the ALiBi
  theorems (Toeplitz, scores through offsets, monotone, geometric, MPT vs reference).
* ``posproof check --alibi --heads 12 [--max-len L] [--dtype NAME]`` — how each dtype stores
  the bias over Δ < L: the first distance it merges with the next, the first overflow (fails
  only for a dtype named with ``--dtype``).
* ``posproof check-impl MODULE:ATTR --alibi --heads 12`` — slopes, a bias tensor or a callable
  (BLOOM's ``build_alibi_tensor``, MPT's ``build_mpt_alibi_tensor``, or bias(q, k)).
* ``posproof identify slopes.npy --alibi`` — the rule of a 1-D slopes vector.
* ``posproof explain config.json --alibi`` — the slopes per head of an MPT / BLOOM config.

Exit status 0 proved / pass / identified, 1 otherwise, 2 for bad input (raised as
:class:`posproof.errors.PosproofError`, printed as one line by :func:`run_main`).

>>> import argparse
>>> parser = argparse.ArgumentParser(prog="posproof")
>>> sub = parser.add_subparsers(dest="command")
>>> _ = sub.add_parser("prove")
>>> add_options(sub)
>>> parser.parse_args(["prove", "--alibi", "--heads", "12"]).heads
12
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from ..errors import InvalidParameter
from ..verdict import verdict_text
from .options import Busy, int_at_least

__all__ = ["COMMANDS", "add_options", "alibi_of_args", "config_kind", "run"]

#: Commands with ``--alibi`` (prove / check / verify go through posproof.families).
COMMANDS = ("prove", "check", "verify", "check-impl", "identify", "explain")


def add_options(subparsers: Any) -> None:
    """Add the ALiBi options to each of :data:`COMMANDS` that ``subparsers`` holds."""
    for name in COMMANDS:
        parser = subparsers.choices.get(name)
        if parser is None:
            continue
        group = parser.add_argument_group("ALiBi (attention with linear biases)")
        group.add_argument("--alibi", action="store_true",
                           help="work on ALiBi instead of a positional encoding: prove its "
                                "theorems, check an impl, identify slopes, explain a config")
        if name in ("prove", "check", "verify", "check-impl"):
            group.add_argument("--heads", type=int_at_least(1), default=None, metavar="N",
                               help="number of attention heads (with --alibi)")
            group.add_argument("--rule", choices=["reference", "mpt"], default="reference",
                               help="reference (the ALiBi paper, BLOOM; default) or mpt "
                                    "(gen_slopes with --alibi-bias-max)")
            group.add_argument("--alibi-bias-max", default="8", metavar="B",
                               help="MPT's alibi_bias_max (default 8; needs --rule mpt "
                                    "otherwise)")


def alibi_of_args(args: argparse.Namespace) -> Any:
    from ..model.alibi import alibi

    if args.heads is None:
        raise InvalidParameter("--alibi needs --heads N (the number of attention heads)")
    return alibi(args.heads, args.rule, args.alibi_bias_max)


def run(args: argparse.Namespace) -> int:
    """Run the ``--alibi`` form of ``args.command``; 0 proved / pass, 1 otherwise.

    >>> run(argparse.Namespace(command="check-impl", alibi=True, heads=None, rule="reference",
    ...                        alibi_bias_max="8"))
    Traceback (most recent call last):
    ...
    posproof.errors.InvalidParameter: --alibi needs --heads N (the number of attention heads)
    """
    if args.command == "check-impl":
        return _check_impl(args)
    if args.command == "identify":
        return _identify(args)
    if args.command == "explain":
        return _explain(args)
    raise InvalidParameter(f"--alibi does not apply to {args.command!r}; use it with "
                           + ", ".join(COMMANDS))


_SYMBOL = {"proved": "✓", "refuted": "✗", "unknown": "?"}


def _check_impl(args: argparse.Namespace) -> int:
    from ..testing.bias.alibi import check_alibi
    from .testing import load_target

    spec = alibi_of_args(args)
    obj, label = load_target(args.target)
    with Busy(f"checking {label}"):       # from the start, on a terminal
        report = check_alibi(obj, n_heads=spec.n_heads, rule=spec.rule,
                             dtype=getattr(args, "dtype", None),
                             alibi_bias_max=spec.alibi_bias_max, seq_len=min(args.max_len, 4096))
    if args.json:
        from .options import emit_json

        emit_json(report.to_dict(), args, ok=bool(report.ok))
    else:
        print(f"posproof check-impl --alibi {label}: {report.kind}, "
              + (report.label.upper() if report.label in ("pass", "fail") else report.label))
        if not report.ok:
            from .testing import cli_message

            print(cli_message(report.message))
        else:
            for line in (report.precision_note, report.form,
                         report.model and f"within the model: {report.model}"):
                if line:
                    print(f"  {line}")
        from ..testing.core.audited import audit_counts

        verdict = verdict_text(checks=report.checks, ok=report.ok, audited=audit_counts(report))
        print(f"\nverdict: {verdict}")
    return 0 if report.ok else 1


def _identify(args: argparse.Namespace) -> int:
    from ..testing.bias.alibi import identify_alibi
    from .testing import load_arrays

    arrays = load_arrays(args.file, args.key)
    found = {name: identify_alibi(arr) for name, arr in arrays.items()
             if getattr(arr, "ndim", 0) == 1}
    if not found:
        raise InvalidParameter(f"{args.file}: no 1-D array of slopes; --alibi identifies a "
                               "slopes vector (one per head)")
    if args.json:
        from .options import emit_json

        emit_json({"identified": found}, args,
                  ok=all(r["rule"] in ("reference", "mpt") for r in found.values()))
    else:
        for name, res in found.items():
            print(f"{name}: {res['n_heads']} heads: {res['note']}")
        statuses = [{"status": "pass" if r["rule"] in ("reference", "mpt") else "fail"}
                    for r in found.values()]
        from .identify_clause import identify_audit

        audited = identify_audit(
            [(s["status"] == "pass", None) for s in statuses],
            "slopes compared with the rule's within the array's rounding; no exact quantity "
            "recorded")
        print("\nverdict: " + verdict_text(checks=statuses, noun="arrays", verb="identified",
                                           audited=audited))
    return 0 if all(r["rule"] in ("reference", "mpt") for r in found.values()) else 1


def config_kind(path: str) -> str | None:
    """``"mpt"``, ``"bloom"`` or ``"falcon"`` when ``path`` is a JSON config of an ALiBi
    model (:func:`posproof.model.alibi.alibi_config_kind`), else ``None`` (also when it
    cannot be read: the caller's reader reports that in one line)."""
    from pathlib import Path

    from ..model.alibi import alibi_config_kind

    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    return alibi_config_kind(data)


def _explain(args: argparse.Namespace) -> int:
    from ..model.alibi import alibi_config_kind, alibi_from_config, slope_difference

    try:
        with open(args.config, encoding="utf-8") as fh:
            cfg = json.load(fh)
    except OSError as exc:
        raise InvalidParameter(f"{args.config}: {exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise InvalidParameter(f"{args.config} is not JSON ({exc.msg}, line {exc.lineno})"
                               ) from None
    except (ValueError, RecursionError) as exc:      # e.g. an integer beyond int's digit limit
        raise InvalidParameter(f"{args.config}: unreadable JSON ({str(exc).splitlines()[0]})"
                               ) from None
    spec = alibi_from_config(cfg)
    model = alibi_config_kind(cfg)
    diff = slope_difference(spec.n_heads, spec.alibi_bias_max) if spec.rule == "mpt" else []
    out = {**spec.to_dict(), "model": model, "exponents": [str(e) for e in spec.exponents],
           "differs_from_reference": [{"head": h, "reference": f"2^(-{a})", "mpt": f"2^(-{b})"}
                                      for h, a, b in diff]}
    if getattr(args, "json", False):
        from .options import emit_json

        text = f"alibi:heads={spec.n_heads}" + (
            f",rule=mpt,alibi_bias_max={spec.alibi_bias_max}" if spec.rule == "mpt" else "")
        emit_json({"encoding": spec.to_dict(), "spec": text, "model": model,
                   "numbers": {"slopes": [str(s) for s in spec.slopes],
                               **{k: out[k] for k in ("exponents", "differs_from_reference")}}},
                  args, ok=True)
        return 0
    rule = ("the reference rule (ALiBi paper, BLOOM)" if spec.rule == "reference" else
            f"MPT's gen_slopes, alibi_bias_max={spec.alibi_bias_max}")
    lines = [f"posproof explain {args.config}: ALiBi ({model or 'config'}), {spec.n_heads} "
             f"heads, {rule}", "",
             "  head  slope              exponent e (slope 2^(-e))"]
    lines += [f"  {h:>4}  {s!s:<17}  {e}"
              for h, (s, e) in enumerate(zip(spec.slopes, spec.exponents, strict=True))]
    lines.append("")
    if spec.rule == "mpt":
        lines.append(f"differs from the reference rule at {len(diff)} heads" if diff else
                     "same slopes as the reference rule (alibi_bias_max = 8: proved for every n)")
    from ..audit import audit
    from ..evidence import Evidence

    # the slopes are read from the rule, exactly: the audit clause says there is nothing
    # numeric behind them, as every command's verdict line says what its audit found
    result = audit(Evidence("exact rationals", details={"heads": spec.n_heads},
                            unaudited="the slopes 2^(−e) are exact, read from the rule"))
    lines += ["", f"verdict: OK — {spec.n_heads} exact slopes ({spec.rule} rule); audit "
              f"(python-flint arb): 0 confirmed, 1 {result.status}"]
    print("\n".join(lines))
    return 0
