"""The CLI of issue 16 §1 and §4: permutation equivariance and xPos.

``posproof prove --theorem permutation-equivariance`` proves that self-attention without
positions is permutation equivariant (and refutes it with a sinusoidal PE or a causal
mask); ``posproof prove --xpos HEAD_DIM`` proves xPos's relative and decay theorems;
``posproof check --xpos HEAD_DIM`` reports where its scales leave float32, float16 and
bfloat16 (centred and not); ``posproof check-impl MODULE:ATTR --xpos HEAD_DIM`` checks an
xPos ``apply_fn(x, downscale)`` (torchscale's contract).  ``--base`` is the rotary
base, ``--seed`` the cross-checks' seed; ``--json`` as everywhere.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from ..errors import InvalidParameter
from ..model.specs import build as _build

if TYPE_CHECKING:  # imported when a command runs, not when the parser is built
    from ..model.xpos import XPos
    from ..report import Report

__all__ = ["PERMUTATION_THEOREM", "add_options", "exit_status", "explain_xpos", "report", "wants",
           "xpos_spec"]

#: The ``--theorem`` name that reaches :func:`posproof.proofs.permutation.prove_permutation`.
PERMUTATION_THEOREM = "permutation-equivariance"


def add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--xpos", metavar="HEAD_DIM",
                        help="xPos (Sun et al. 2022) of this even head dim instead of an "
                             "encoding: prove its theorems (prove) or its dtype limits (check)")


def wants(args: argparse.Namespace) -> bool:
    """True when the command is about xPos or permutation equivariance."""
    theorems = getattr(args, "theorem", None) or []
    return getattr(args, "xpos", None) is not None or PERMUTATION_THEOREM in theorems


def xpos_spec(args: argparse.Namespace) -> XPos:
    """The XPos of ``--xpos HEAD_DIM`` (and ``--base``), refusing a non-integer in one line."""
    from ..model.xpos import XPos

    spec = getattr(args, "spec_obj", None)
    if spec is not None and spec.family == "xpos":
        return _build(spec)
    text = args.xpos
    try:
        head_dim = int(text)
    except (TypeError, ValueError):
        raise InvalidParameter(f"--xpos={text!r} is not an integer head dim; pass e.g. "
                               "--xpos 64") from None
    base = getattr(args, "base", None) or 10000
    return XPos(head_dim, base=base)


def exit_status(report: Report) -> int:
    """0 when everything holds as expected (the two permutation refutations are expected)."""
    from ..proofs.permutation import exit_status as permutation_exit_status

    if report.encoding.get("kind") == "self-attention":
        return permutation_exit_status(report)
    return report.exit_status()


def report(args: argparse.Namespace) -> Report:
    """The Report of ``prove`` / ``check`` for ``--xpos`` or ``--theorem permutation-…``."""
    from ..proofs.permutation import prove_permutation
    from ..proofs.xpos import prove_xpos
    from ..report import Report

    theorems = getattr(args, "theorem", None) or []
    if PERMUTATION_THEOREM in theorems:
        others = [t for t in theorems if t != PERMUTATION_THEOREM]
        if others or getattr(args, "xpos", None) is not None:
            raise InvalidParameter(f"--theorem {PERMUTATION_THEOREM} stands alone; drop "
                                   f"{', '.join(others) or '--xpos'}")
        return prove_permutation(seed=args.seed)
    xp = xpos_spec(args)
    if theorems:
        raise InvalidParameter("--xpos proves xpos:relative and xpos:decay together; drop "
                               "--theorem")
    if args.command == "check":
        from ..measure.xpos import xpos_scale_checks

        checks = xpos_scale_checks(xp)
        return Report(xp.to_dict(), [], checks)
    return prove_xpos(xp, seed=args.seed)


def explain_xpos(args: argparse.Namespace) -> int:
    """``posproof explain --xpos HEAD_DIM [--json]``: ζ_k, half distances, dtype limits."""
    from ..audit import apply_all
    from ..measure.xpos import xpos_scale_checks
    from ..proofs.xpos import prove_xpos
    from ..report import audit_summary
    from ..verdict import verdict_text

    xp = xpos_spec(args)
    proved = prove_xpos(xp, seed=0)
    decay = proved["xpos:decay"]
    checks = xpos_scale_checks(xp)
    apply_all(checks)
    limits = [{"dtype": c.values["dtype"], "zeta_0": c.values["zeta_0"],
               "scale_base": c.values["scale_base"],
               **{k: c.values[k] for k in ("overflow_position", "underflow_position",
                                           "first_length_uncentred", "first_length_centred")}}
              for c in checks]
    if getattr(args, "json", False):
        from .options import emit_json

        emit_json({"encoding": xp.to_dict(),
                   "numbers": {"zeta": decay.values["zeta"],
                               "half_distance": decay.values["half_distance"],
                               "limits": limits}}, args, ok=True)
        return 0
    lines = [f"posproof explain {xp!r}", "", "pair k   ζ_k (exact)   scale halves after Δ ="]
    for k, (z, half) in enumerate(zip(decay.values["zeta"], decay.values["half_distance"],
                                      strict=True)):
        lines.append(f"{k:>6}   {z:<12}  {half}")
    lines += ["", "dtype      scale → inf at p   → 0 at p   first lost length: uncentred  centred"]
    for r in limits:
        lines.append(f"{r['dtype']:<9}  {r['overflow_position']!s:>16}   "
                     f"{r['underflow_position']!s:>8}   {r['first_length_uncentred']!s:>27}  "
                     f"{r['first_length_centred']!s:>7}")
    ok = proved.ok and all(c.ok for c in checks)
    lines += ["", "verdict: " + verdict_text(proved.theorems, checks, ok=ok,
                                             audited=audit_summary([*proved.theorems, *checks]))]
    print("\n".join(lines))
    return 0 if ok else 1
