"""The command-line side of T5 relative position buckets and padding-aware position ids.

Hooks in the existing commands (each a few lines there, the logic here):

* ``posproof prove --t5 [SPEC]`` — the bucket theorems (:func:`posproof.proofs.t5.prove_t5`);
* ``posproof check --t5 [SPEC]`` — the float32 / float16 dtype audit of the buckets;
* ``posproof identify FILE`` — an integer (query, key) matrix of buckets: num_buckets,
  bidirectional or causal, and the max_distance that fit;
* ``posproof explain CONFIG`` — a T5-style ``config.json`` (``relative_attention_num_buckets``,
  ``relative_attention_max_distance``, ``is_decoder``) prints the exact bucket table;
* ``posproof check-impl MODULE:ATTR --t5-buckets [SPEC]`` — :func:`assert_t5_buckets`;
* ``posproof check-impl MODULE:ATTR --position-ids input_ids|attention_mask`` —
  :func:`assert_position_ids` (``--first-position``, ``--pad-fill``, ``--pad-token-id``).

SPEC is ``NUM_BUCKETS,MAX_DISTANCE`` optionally followed by ``causal`` (default
bidirectional) and, for check-impl, a declared dtype ``float32`` / ``float16``; without a
SPEC the HF default ``32,128`` (bidirectional).

>>> parse_t5_spec("128,1000000,causal,float32")
(T5Buckets(num_buckets=128, max_distance=1000000, bidirectional=False), 'float32')
>>> parse_t5_spec("32")
Traceback (most recent call last):
...
posproof.errors.InvalidParameter: --t5 '32' is not NUM_BUCKETS,MAX_DISTANCE[,causal][,float32]; \
e.g. --t5 32,128 or --t5 32,128,causal
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

from ..errors import InvalidParameter
from ..verdict import verdict_text
from .options import Busy

__all__ = ["DEFAULT_SPEC", "add_check_impl_options", "add_t5_option", "check_impl",
           "explain_t5", "identify_buckets", "is_t5_config", "parse_t5_spec",
           "refuse_encoding_options", "table_lines"]

DEFAULT_SPEC = "32,128"


def parse_t5_spec(text: str, option: str = "--t5") -> tuple[Any, str | None]:
    """``NB,MD[,causal|bidirectional][,float32|float16]`` → (T5Buckets, declared dtype)."""
    from ..model.t5_buckets import T5Buckets

    parts = [p.strip() for p in str(text).split(",") if p.strip()]
    shown = str(text) if len(str(text)) <= 60 else str(text)[:57] + "…"
    bad = InvalidParameter(f"{option} {shown!r} is not NUM_BUCKETS,MAX_DISTANCE[,causal]"
                           f"[,float32]; e.g. {option} 32,128 or {option} 32,128,causal")
    if len(parts) < 2 or not all(re.fullmatch(r"-?[0-9]{1,30}", p) for p in parts[:2]):
        raise bad
    bidirectional, dtype = True, None
    for word in parts[2:]:
        if word in ("causal", "bidirectional"):
            bidirectional = word == "bidirectional"
        elif word in ("float32", "float16"):
            dtype = word
        else:
            raise bad
    return T5Buckets(int(parts[0]), int(parts[1]), bidirectional), dtype


def add_t5_option(parser: argparse.ArgumentParser) -> None:
    """``--t5 [SPEC]`` on ``prove`` and ``check``."""
    parser.add_argument("--t5", nargs="?", const=DEFAULT_SPEC, default=None, metavar="SPEC",
                        help="T5 relative position buckets instead of an encoding: SPEC = "
                             "NUM_BUCKETS,MAX_DISTANCE[,causal] (default 32,128, bidirectional)"
                             "; prove: the bucket theorems in integers; check: where float32 / "
                             "float16 change a bucket")


def add_check_impl_options(parser: argparse.ArgumentParser) -> None:
    """``--t5-buckets``, ``--position-ids`` and their options on ``check-impl``."""
    group = parser.add_argument_group("attention biases")
    group.add_argument("--t5", "--t5-buckets", dest="t5_buckets", nargs="?",
                       const=DEFAULT_SPEC, default=None,
                       metavar="SPEC", help="ATTR is a T5 bucket function fn(relative_position,"
                       " bidirectional, num_buckets, max_distance); SPEC = NUM_BUCKETS,"
                       "MAX_DISTANCE[,causal][,float32|float16] (a declared dtype accepts its "
                       "rounding; default 32,128)")
    group.add_argument("--up-to", type=int, default=None, metavar="N",
                       help="--t5-buckets: check every |Δ| ≤ N (default 2·max_distance)")
    group.add_argument("--position-ids", choices=["input_ids", "attention_mask"], default=None,
                       help="ATTR maps input_ids (or an attention_mask) of shape (batch, L) to "
                            "position ids; checked under left, right, no and all padding from "
                            "--first-position (default 0)")
    group.add_argument("--pad-fill", type=int, default=None, metavar="N",
                       help="--position-ids: the position pads must get (default: unchecked)")
    group.add_argument("--pad-token-id", type=int, default=1, metavar="N",
                       help="--position-ids input_ids: the pad token (default 1, RoBERTa)")


_ENCODING_OPTIONS = ("preset", "dim", "base", "layout", "frequencies", "expression", "offset",
                     "claim_block", "claim_period", "claim_bound", "claim_permutation")


def refuse_encoding_options(args: argparse.Namespace) -> None:
    given = [o for o in _ENCODING_OPTIONS if getattr(args, o, None) is not None]
    if given or getattr(args, "general", False):
        name = (given or ["general"])[0].replace("_", "-")
        raise InvalidParameter(f"--t5 describes T5 buckets, not an encoding: drop --{name}")


def check_impl(args: argparse.Namespace, impl: Any, label: str) -> int:
    """``check-impl --t5-buckets`` / ``--position-ids``: 0 pass, 1 fail."""
    if args.t5_buckets is not None:
        from ..testing.bias.t5 import check_t5_buckets

        spec, dtype = parse_t5_spec(args.t5_buckets, "--t5-buckets")
        dtype = dtype or getattr(args, "dtype", None)
        with Busy(f"checking {label}"):   # from the start, on a terminal
            report = check_t5_buckets(impl, spec.num_buckets, spec.max_distance,
                                      bidirectional=spec.bidirectional, up_to=args.up_to,
                                      dtype=dtype)
        message = report.checks[0].note or ""
        head = f"spec: {spec.describe()}" + (f", declared {dtype}" if dtype else "")
    else:
        from ..testing.position_ids import check_position_ids

        report = check_position_ids(impl, takes=args.position_ids,
                                    first=_first(args), pad_fill=args.pad_fill,
                                    pad_token_id=args.pad_token_id)
        message = report.encoding["message"]
        head = (f"spec: position ids from {args.position_ids}, real tokens from "
                f"{_first(args)}, pads " + ("unchecked" if args.pad_fill is None
                                                        else f"= {args.pad_fill}"))
    if args.json:
        from .options import emit_json

        emit_json({"target": label, **report.to_dict()}, args, ok=bool(report.ok))
    else:
        lines = [f"posproof check-impl {label}", head, ""]
        for c in report.checks:
            shown = {k: v for k, v in c.values.items() if k not in ("differ", "summary")}
            lines.append(f"  {'✓' if c.ok else '✗'} {c.name:<28} {c.label:<5} "
                         + ", ".join(f"{k}={v}" for k, v in shown.items()))
        if message:
            lines += ["", message]
        verdict = verdict_text(checks=report.checks, ok=report.ok,
                               audited=report.audit_summary())
        lines += ["", f"verdict: {verdict}"]
        print("\n".join(lines))
    return 0 if report.ok else 1


def identify_buckets(args: argparse.Namespace, arrays: dict[str, Any]) -> int:
    """``posproof identify`` on integer (query, key) matrices: T5 bucket configurations."""
    import numpy as np

    from ..testing.bias.t5_identify import identify_t5

    results = {name: identify_t5(np.asarray(value)) for name, value in arrays.items()}
    matched = any(r.matched for r in results.values())
    if args.json:
        out = {"file": args.file, "matched": matched, "theorems": [],
               "checks": [{"name": f"identify_t5[{name}]",
                           "status": "pass" if r.matched else "fail", **r.to_dict()}
                          for name, r in results.items()]}
        from .options import emit_json

        emit_json(out, args, ok=bool(matched))
    else:
        statuses = [{"status": "pass" if r.matched else "fail"} for r in results.values()]
        from .identify_clause import identify_audit

        audited = identify_audit([(r.matched, None) for r in results.values()],
                                 "bucket indices compared as integers: no number to re-check")
        verdict = verdict_text(checks=statuses, noun="arrays", verb="identified", ok=matched,
                               audited=audited)
        print("\n\n".join([f"posproof identify {args.file}"]
                           + [f"[{name}]\n{r}" if len(results) > 1 else str(r)
                              for name, r in results.items()] + [f"verdict: {verdict}"]))
    return 0 if matched else 1


def is_t5_config(path: str) -> bool:
    """Whether ``path`` is a JSON config with T5 relative attention (and no RoPE)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):   # the RoPE reader reports these in one line
        return False
    return isinstance(data, dict) and "relative_attention_num_buckets" in data


def table_lines(spec: Any) -> list[str]:
    """The exact bucket table, one line per bucket."""
    def fmt(v: Any, inf: str) -> str:
        return inf if v is None else str(v)

    lines = [f"{'bucket':>6} {'kind':>6} {'Δ from':>10} {'Δ to':>10}"]
    for r in spec.table():
        if r["empty"]:
            lines.append(f"{r['bucket']:>6} {r['kind']:>6} {'(empty)':>21}")
        else:
            lines.append(f"{r['bucket']:>6} {r['kind']:>6} {fmt(r['delta_min'], '−∞'):>10} "
                         f"{fmt(r['delta_max'], '+∞'):>10}")
    return lines


def explain_t5(args: argparse.Namespace) -> int:
    """``posproof explain`` on a T5-style config: the bucket table, theorems, dtype audit."""
    from ..errors import check_int
    from ..measure.t5_dtype import AUDIT_DTYPES, dtype_audit
    from ..model.t5_buckets import T5Buckets
    from ..proofs.t5 import prove_t5

    data = json.loads(Path(args.config).read_text(encoding="utf-8"))
    nb = check_int("relative_attention_num_buckets", data["relative_attention_num_buckets"])
    md = check_int("relative_attention_max_distance",
                   data.get("relative_attention_max_distance", 128))
    decoder = data.get("is_decoder", False)
    if not isinstance(decoder, bool):
        raise InvalidParameter(f"{args.config}: is_decoder={decoder!r} is not true/false")
    # an encoder-decoder config describes both stacks: the encoder is bidirectional, the
    # decoder's self-attention causal
    stacks = [("decoder", False)] if decoder else [("encoder", True), ("decoder", False)]
    results = []
    for name, bidirectional in stacks:
        spec = T5Buckets(nb, md, bidirectional)
        results.append((name, spec, prove_t5(spec), [dtype_audit(spec, dt)
                                                      for dt in AUDIT_DTYPES]))
    ok = all(p.ok for _, _, proofs, _ in results for p in proofs)
    if args.json:
        out = {"config": args.config, "model_type": data.get("model_type"),
               "theorems": [p.to_dict() | {"stack": n} for n, _, ps, _ in results for p in ps],
               "checks": [c.to_dict() | {"stack": n} for n, _, _, cs in results for c in cs],
               "stacks": [{"stack": n, **s.to_dict(), "table": s.table()}
                          for n, s, _, _ in results]}
        from .options import emit_json

        emit_json(out, args, ok=bool(ok))
        return 0 if ok else 1
    lines = [f"posproof explain {args.config}",
             f"model_type={data.get('model_type')}, relative_attention_num_buckets={nb}, "
             f"relative_attention_max_distance={md}, is_decoder={decoder}"]
    for name, spec, proofs, checks in results:
        lines += ["", f"[{name} self-attention] {spec.describe()}", *table_lines(spec), ""]
        lines += [f"  {'✓' if p.ok else '?'} {p.name:<26} {p.statement}" for p in proofs]
        lines += [f"  {'·'} {c.name:<26} {c.values['summary']}" for c in checks]
    from ..report import audit_summary

    proofs = [p for _, _, ps, _ in results for p in ps]
    audited = audit_summary([*proofs, *(c for _, _, _, cs in results for c in cs)])
    lines += ["", f"verdict: {verdict_text(proofs, ok=ok, audited=audited)}"]
    print("\n".join(lines))
    return 0 if ok else 1


def _first(args: argparse.Namespace) -> int:
    """``--first-position`` (0 when not given)."""
    from .options import parse_int

    return 0 if args.offset is None else parse_int("first-position", args.offset)
