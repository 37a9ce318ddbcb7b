"""``prove`` / ``check`` / ``verify`` / ``check-impl`` of a ``rope:`` SPEC or a RoPE config.json.

A rotary embedding (with its scaling rule) is proved by
:func:`posproof.proofs.rotary.prove_rotary`, its frequencies are checked as the sinusoidal
table with the same frequencies (``Rotary.encoding()``: what every query and key is rotated
by), and an implementation is checked by :func:`posproof.testing.check_rotary`.  An M-RoPE
config gives the multi-axis rotary (prove; check on a ``--grid``; check-impl).
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from ..errors import InvalidParameter
from ..model.specs import build as _build

__all__ = ["run_rotary"]

#: Options of the 1-D sinusoidal tables that a rotary spec does not take.
_TABLE_ONLY = ("claim_block", "claim_period", "claim_bound", "claim_permutation")


def run_rotary(args: argparse.Namespace, app: Any) -> int:
    """Run ``args.command`` on ``args.rope_spec``; ``app`` is :mod:`posproof.cli.app` (passed
    in: this module is imported by it, never the other way round)."""
    from ..model.multirope import MultiAxisRotary
    from .options import length

    command = args.command
    if command == "derive":
        raise InvalidParameter("derive writes derivations for the vaswani, sincos-2d, mrope and "
                               f"axial-rope families; for {args.spec_text} use posproof prove / "
                               "check / verify")
    for option in _TABLE_ONLY:
        if getattr(args, option, None) is not None:
            raise InvalidParameter(f"--{option.replace('_', '-')} is about a sinusoidal table; "
                                   f"{args.spec_text} is a rotary embedding")
    seq_len = (length("length", args.max_len) if command in ("check", "verify")
               else None)
    built = _build(args.rope_spec, seq_len=seq_len)
    if command == "check-impl":
        return _check_impl(args, built)
    if isinstance(built, MultiAxisRotary):
        return _multi(args, built, app)
    from ..report import Report

    start = time.perf_counter()
    report = Report(built.to_dict(), spec=args.spec_text)
    if command in ("prove", "verify"):
        from ..proofs.rotary import prove_rotary

        app._timeout(args)           # validated, as for every other family
        report = prove_rotary(built, theorems=getattr(args, "theorem", None) or None,
                              general=command == "verify" or bool(getattr(args, "general",
                                                                          False)),
                              seed=args.seed)
        report.spec = args.spec_text
    if command in ("check", "verify"):
        from ..measure.checks import check_scan_options

        enc = built.encoding()
        check_scan_options(enc, length("length", args.max_len), int(args.dps))
        report.checks = app._run_checks(enc, args, proofs=())
    return app._output(report, args, time.perf_counter() - start)


def _multi(args: argparse.Namespace, multi: Any, app: Any) -> int:
    args.preset = args.preset or multi.name
    if args.command == "prove":
        return app._run_prove_multi(args, multi)
    if args.command == "check":
        return app._run_check_grid(multi, args)
    raise InvalidParameter(f"verify takes a 1-D encoding; {args.spec_text} has {multi.axes} "
                           "position axes: use posproof prove, and check with --grid")


def _check_impl(args: argparse.Namespace, rot: Any) -> int:
    from ..testing import check_rotary
    from .options import emit_json
    from .testing import _render, load_target

    impl, label = load_target(args.target)
    if getattr(args, "scale", 1.0) != 1.0:
        raise InvalidParameter("--scale applies to a table, not to a rotary embedding")
    report = check_rotary(impl, rot, max_position=args.max_position, seed=args.seed,
                          angles=args.angles)
    if args.json:
        out = {"target": label, **report.to_dict()}
        emit_json(out, args, ok=bool(report.ok))
    else:
        print(_render(report, label))
    return 0 if report.ok else 1
