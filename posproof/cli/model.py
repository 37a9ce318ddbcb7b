"""``posproof check-model CONFIG_OR_DIR``: positions checked end to end on a tiny model.

Wiring (done in :mod:`posproof.cli.app`)::

    from . import model as cli_model
    cli_model.add_command(sub)                         # in make_parser()
    if args.command == cli_model.COMMAND:              # in _run()
        return cli_model.run(args)

Exit status: 0 when every check passes, 1 when one fails or stays unknown, 2 for bad input
(an unknown or refused model type — judged before torch is imported —, torch not installed,
a forward without position_ids, a model over 1 GiB, an exception inside torch or transformers:
one line).  ``--list`` prints the table of model types (:mod:`posproof.whole.types`).
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import TYPE_CHECKING, Any

from ..errors import InvalidParameter
from .options import int_at_least

if TYPE_CHECKING:  # built when the command runs, not when the parser is
    from ..report import Report

__all__ = ["COMMAND", "add_command", "prove_theorem", "render", "run",
           "wants_theorem"]

COMMAND = "check-model"
_SYMBOL = {"pass": "✓", "fail": "✗", "unknown": "?"}


def add_command(subparsers: Any) -> None:
    from .constants import MODEL_CHECKS as CHECKS

    p = subparsers.add_parser(
        COMMAND, help="build a tiny float64 model from a Hugging Face config (nothing is "
        "downloaded) and check its positions end to end: shift invariance, KV cache, left "
        "padding, the cache boundary of dynamic scaling")
    p.add_argument("config", metavar="CONFIG_OR_DIR", nargs="?",
                   help="a config.json, or a directory holding one")
    p.add_argument("--list", action="store_true",
                   help="list the model types check-model builds, with how positions enter")
    p.add_argument("--length", "-L", type=int_at_least(4), default=64,
                   help="tokens per sequence (default 64; switch lengths such as "
                        "original_max_position_embeddings are straddled whatever L)")
    p.add_argument("--check", "--checks", metavar="NAME[,NAME…]", default=None,
                   action="append", dest="checks",
                   help=f"only these checks: one name or a comma list (repeatable; --checks: "
                        f"the old spelling; default all: {', '.join(CHECKS)})")
    p.add_argument("--layers", type=int_at_least(1), default=None,
                   help="layers of the tiny model (default 2); with saved weights, the first N "
                        "layers of the saved model (default all)")
    p.add_argument("--random-weights", action="store_true",
                   help="a directory saved with save_pretrained is checked with its own "
                        "weights (float64 upcast); this builds the tiny random model instead")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--seed", type=int, default=0, help="seed of the weights and the tokens")


def render(report: Report, seconds: float) -> str:
    spec = report.encoding
    head = ", ".join(f"{k}={v}" for k, v in spec.items()
                     if k not in ("kind", "seed", "notes", "weights"))
    lines = ["posproof check-model", f"model: {head}"]
    if "weights" in spec:
        lines.append(f"weights: {spec['weights']}")
    lines += [f"note: {note}" for note in spec.get("notes", [])]
    lines.append("")
    width = max([len(c.name) for c in report.checks] + [8])
    status_width = max([8, *(len(c.label) for c in report.checks)])
    for c in report.checks:
        lines.append(f"  {_SYMBOL[c.status]} {c.name:<{width}}  {c.label:<{status_width}}  "
                     f"{c.values.get('summary', '')}")
        if c.note:
            lines.append(f"      {c.note}")
    passed = sum(c.ok for c in report.checks)
    verdict = "OK" if report.ok else ("CHECK FAILED" if report.refuted else "INCOMPLETE")
    lines += ["", f"verdict: {verdict} — checks {passed}/{len(report.checks)} pass "
                  f"(sampled) ({seconds:.1f} s)"]
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    from ..audit import audit_report
    from ..whole import check_model

    if args.list:
        from ..whole.types import table_lines

        print("\n".join(table_lines()))
        return 0
    if args.config is None:
        raise InvalidParameter("check-model needs CONFIG_OR_DIR (a config.json or its "
                               "directory), or --list")
    # the model type is judged before torch and transformers are imported (a refusal is fast)
    from ..whole.build import read_config_dict, refuse_before_torch

    refuse_before_torch(read_config_dict(args.config))
    checks = None
    if args.checks is not None:
        checks = [c.strip() for item in args.checks for c in item.split(",") if c.strip()]
        if not checks:
            raise InvalidParameter("--check is empty; name at least one check")
    if args.length > 1024:
        raise InvalidParameter(f"--length={args.length} is too large; at most 1024 (switch "
                               "lengths are straddled separately)")
    try:                          # transformers' advice about legacy config keys is not ours
        import torch  # noqa: F401
        from transformers.utils import logging as hf_logging
    except ImportError as exc:    # one line naming the extra, never a traceback
        raise InvalidParameter(f"check-model needs torch and transformers ({exc}); install "
                               "them with pip install 'posproof[impl]'") from None
    hf_logging.set_verbosity_error()
    start = time.perf_counter()
    report = check_model(args.config, length=args.length, checks=checks, seed=args.seed,
                         layers=args.layers, weights=not args.random_weights)
    audit_report(report)
    report.spec = args.config
    if args.json:
        from .options import emit_json

        emit_json(report, args)
    else:
        print(render(report, time.perf_counter() - start))
    sys.stdout.flush()
    return report.exit_status()


# --------------------------------------------------------------------------- prove --theorem
def wants_theorem(args: argparse.Namespace) -> bool:
    """True when ``prove`` is asked for cache-consistency (issue 23)."""
    from ..proofs.cache_consistency import THEOREM

    return THEOREM in (getattr(args, "theorem", None) or [])


def _config_family(text: Any) -> str | None:
    """How positions enter the model of a config.json SPEC, as check-model reads it (its
    model-type table); ``None`` when SPEC is not such a config."""
    from pathlib import Path

    if not isinstance(text, str):
        return None
    path = Path(text)
    if not (path.is_file() or (path / "config.json").is_file()):
        return None
    from ..whole.build import KNOWN, read_config_dict

    try:
        kind = read_config_dict(path).get("model_type")
    except InvalidParameter:
        return None
    if kind not in KNOWN:
        return None
    family = KNOWN[kind][0]
    if family == "rope|alibi":                     # Falcon: ALiBi when its config says so
        family = "alibi" if read_config_dict(path).get("alibi") else "rope"
    return family


def prove_theorem(args: argparse.Namespace) -> Report:
    """The Report of ``posproof prove SPEC --theorem cache-consistency`` (SPEC a rotary spec
    or a config.json; without one, plain RoPE of ``--base`` / ``--dim``)."""
    from ..errors import InvalidParameter
    from ..model.rope import Rotary, rotary
    from ..model.specs import parse_spec
    from ..proofs.cache_consistency import THEOREM, prove_cache_consistency

    others = [t for t in args.theorem if t != THEOREM]
    if others:
        raise InvalidParameter(f"--theorem {THEOREM} stands alone; drop {', '.join(others)}")
    text = getattr(args, "spec", None)
    family = _config_family(text)
    if family in ("alibi", "t5", "absolute"):       # issue 28: the same configs as check-model
        from ..proofs.cache_consistency import prove_no_rotation_cache

        report = prove_no_rotation_cache(family)
        report.spec = text
        return report
    if text:
        rot = parse_spec(text)
    else:
        from .options import parse_int

        base = getattr(args, "base", None) or 10000
        dim = parse_int("dim", args.dim) if getattr(args, "dim", None) else 128
        rot = rotary(base, dim)
        text = f"rope:base={base},dim={dim}"
    if not isinstance(rot, Rotary):
        raise InvalidParameter(f"--theorem {THEOREM} is about a rotary spec; {text!r} is not "
                               "one (write e.g. posproof prove rope:dim=64,base=10000,"
                               "scaling=dynamic,factor=2,original_max_position_embeddings=64 "
                               f"--theorem {THEOREM})")
    report = prove_cache_consistency(rot)
    report.spec = text
    return report
