"""``check-impl MODULE:ATTR SPEC`` for a ``rope:`` SPEC or a RoPE / M-RoPE config.json.

(``prove`` / ``check`` / ``verify`` of every family go through :mod:`posproof.families`.)
An implementation ``apply_fn(x, positions)`` is checked by
:func:`posproof.testing.check_rotary` against the rotary the SPEC builds, its scaling rule
included.
"""

from __future__ import annotations

import argparse

from ..errors import InvalidParameter
from ..model.specs import build as _build

__all__ = ["run_rotary"]


def run_rotary(args: argparse.Namespace) -> int:
    """Run ``check-impl`` (or refuse ``derive``) for ``args.rope_spec``."""
    if args.command != "check-impl":
        raise InvalidParameter("derive writes derivations for the vaswani, sincos-2d, mrope and "
                               f"axial-rope families; for {args.spec_text} use posproof prove / "
                               "check / verify / check-impl")
    from ..testing import check_rotary
    from .options import Busy, emit_json
    from .testing import load_target, render_impl

    rot = _build(args.rope_spec)
    impl, label = load_target(args.target)
    if getattr(args, "scale", 1.0) != 1.0:
        raise InvalidParameter("--scale applies to a table, not to a rotary embedding")
    dtype = getattr(args, "dtype", None)
    with Busy(f"checking {label}"):       # from the start, on a terminal or in a log
        report = check_rotary(impl, rot, max_position=args.max_position, seed=args.seed,
                              **({} if dtype is None else {"dtype": dtype}),
                              angles=args.angles)
    if args.json:
        emit_json({"target": label, **report.to_dict()}, args, ok=bool(report.ok))
    else:
        print(render_impl(report, label))
    return 0 if report.ok else 1
