"""``posproof explore`` and ``posproof explain``: the command-line side of rotary embeddings.

Wiring (done in :mod:`posproof.cli.app`)::

    from . import rope as cli_rope
    cli_rope.add_commands(sub, encoding_options)       # in make_parser()
    if args.command in cli_rope.COMMANDS:              # in _run()
        return cli_rope.run(args)

``run`` returns the exit status: 0 when every theorem is proved (expected
refutations, marked ``*``, aside), 1 otherwise, 2 for bad input (one line on
stderr; :class:`posproof.errors.PosproofError` is also caught here).

Encoding specs (see :func:`posproof.model.configs.parse_spec`)::

    rope:base=500000,dim=128,scaling=llama3,factor=8,original_max_position_embeddings=8192
    rope:base=10000,dim=64,partial_rotary_factor=0.25,layout=adjacent
    rope:config=config.json,seq_len=65536
    vaswani:dim=512,base=10000
    rope:dim=128,base=1e6,mrope_section=16;24;24       (M-RoPE: explored on the diagonal,
    axial-rope:axes_dims=16;56;56,theta=10000           plus the pairs of each axis)
    path/to/config.json

>>> import argparse
>>> parser = argparse.ArgumentParser(prog="posproof")
>>> add_commands(parser.add_subparsers(dest="command"), lambda p: None)
>>> args = parser.parse_args(["explore", "rope:base=10000,dim=8", "--length", "64",
...                           "--dtypes", "float32"])
>>> args.command, args.length, args.specs
('explore', 64, ['rope:base=10000,dim=8'])
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from ..errors import InvalidParameter, PosproofError
from .options import Busy, int_at_least

__all__ = ["COMMANDS", "add_commands", "run"]

COMMANDS = ("explore", "explain")

_SPEC_HELP = ("encodings to compare, each a SPEC FAMILY:key=value,… of an encoding family "
              "(vaswani and its presets, rope, sincos-2d, mrope, axial-rope; the bias "
              "families alibi, t5, xpos are proved and checked by prove / check): "
              "rope:key=value,… (base, dim, rotary_dim, "
              "partial_rotary_factor, layout=half|adjacent, scaling=linear|ntk|dynamic|yarn|llama3|"
              "longrope, factor, low_freq_factor, high_freq_factor, "
              "original_max_position_embeddings, seq_len, beta_fast, beta_slow, attention, "
              "short_factor=a;b;…, long_factor=…, name; M-RoPE: mrope_section=16;24;24, "
              "mrope_interleaved=true), axial-rope:axes_dims=16;56;56,theta=10000, "
              "rope:config=PATH,…, a preset (vaswani:dim=512,base=10000) or a path to "
              "config.json")


def add_commands(subparsers: Any, encoding_options: Callable[[argparse.ArgumentParser], None]
                 ) -> None:
    """Add ``explore`` and ``explain`` to ``subparsers`` (from ``add_subparsers``).

    ``encoding_options`` adds the standard encoding options (``--preset``,
    ``--dim``, …) to ``explore``: when any of them is given, that encoding is
    compared too.

    >>> parser = argparse.ArgumentParser(prog="posproof")
    >>> add_commands(parser.add_subparsers(dest="command"), lambda p: None)
    >>> parser.parse_args(["explain", "config.json", "--seq-len", "8192"]).seq_len
    8192
    """
    explore = subparsers.add_parser(
        "explore", help="compare encodings side by side: theorems, base bound, decay, bands, "
                        "dtype audit", description="Compare sinusoidal and rotary encodings "
                        "side by side. " + _SPEC_HELP)
    explore.add_argument("specs", nargs="*", metavar="SPEC", help=_SPEC_HELP)
    encoding_options(explore)
    _common(explore)
    explore.add_argument("--no-proofs", action="store_true", help="skip the theorems")

    explain = subparsers.add_parser(
        "explain", help="print the effective RoPE frequencies of a config.json and the numbers "
                        "that matter (a T5-style config: its exact bucket table)",
        description="Read a HF config.json (old and new spellings), print its effective "
                    "frequencies, bands and numbers. A T5-style config "
                    "(relative_attention_num_buckets, relative_attention_max_distance, "
                    "is_decoder) prints the exact relative position bucket table of each "
                    "stack, the bucket theorems and the float32/float16 audit.")
    explain.add_argument("config", metavar="CONFIG", nargs="?",
                         help="path to a model config.json (not with --xpos)")
    explain.add_argument("--xpos", metavar="HEAD_DIM",
                         help="explain xPos of this head dim instead: ζ_k, the distance at "
                              "which each pair's scale halves, the dtype limits")
    explain.add_argument("--default-theta", metavar="B",
                         help="rope_theta to use when the config has none (reported)")
    explain.add_argument("--layout", choices=["half", "adjacent"],
                         help="override the layout (default: what HF's modeling code uses)")
    explain.add_argument("--layer", metavar="TYPE",
                         help="layer type of a rope_parameters nested per layer")
    _common(explain)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--length", "-L", type=int_at_least(1), default=None,
                        help="context length L (explore default 4096; explain default "
                             "max_position_embeddings)")
    parser.add_argument("--seq-len", type=int_at_least(1), default=None,
                        help="sequence length s for dynamic NTK / LongRoPE (default L)")
    parser.add_argument("--train-length", type=int_at_least(1), default=None,
                        help="training length T of the critical dimension (explore default L; "
                             "explain default the config's (original_)max_position_embeddings)")
    parser.add_argument("--base-bound", action="store_true",
                        help="Men et al.'s base bound at L (what base does L need?): a "
                             "certified branch and bound, every island of good bases. explore "
                             "then computes the base bound alone (and whether each SPEC's base "
                             "is good), no theorems or other numbers; explain adds it to its "
                             "table")
    parser.add_argument("--base-range", metavar="LO,HI", default="2,1e12",
                        help="bases searched by --base-bound (default 2,1e12)")
    parser.add_argument("--integer-bases", action="store_true",
                        help="--base-bound over integer bases only: island ends exact")
    parser.add_argument("--first-island", action="store_true",
                        help="--base-bound stops after the first island: the smallest good "
                             "base, certified, much faster at long L (islands above, the "
                             "all-good threshold and 'interval' are then not computed)")
    parser.add_argument("--islands", choices=("auto", "all", "ends"), default="auto",
                        help="--base-bound's islands above the first: 'all' enumerates every "
                             "one; 'ends' only the first island and the all-good top, the "
                             "range between reported 'mixed' (good and bad bases alternate, "
                             "its ends certified); 'auto' (default) enumerates them until 2e9 "
                             "work units past the first island, then as 'ends'")
    # the defaults are basebound.WORK_BUDGET and TIME_LIMIT (not imported here: --help stays
    # light; tests/test_explore.py checks that the two agree)
    parser.add_argument("--base-work", metavar="N", type=int_at_least(0), default=None,
                        help="--base-bound's work budget, in work units (default 2e10): past "
                             "it the rest of the range is reported undecided, the same on "
                             "every machine at any load; raise it to decide more")
    parser.add_argument("--base-time-limit", metavar="S", type=_seconds, default=None,
                        help="--base-bound's safety net in CPU seconds of the process "
                             "(default 3600): stops runaway work only; an answer it cuts says so")
    parser.add_argument("--dtype", "--dtypes", dest="dtypes", default="float32,float16,bfloat16",
                        help="dtypes of the audit, comma-separated ('' for none)")
    parser.add_argument("--plot", metavar="FILE", help="write the overlaid curves to FILE "
                        "(needs matplotlib: pip install 'posproof[plot]')")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random test points")


def _base_options(args: argparse.Namespace, bar: Any = None) -> dict[str, Any]:
    """explore's base-bound options from --base-range / --integer-bases (progress on a tty:
    ``bar``, e.g. the command's :class:`~posproof.cli.options.Busy`)."""
    from ..measure.explore.basebound import parse_base_range
    from .options import ProgressBar

    if bar is None:
        bar = ProgressBar.on(sys.stderr)
    options = {"base_range": parse_base_range(getattr(args, "base_range", "2,1e12")),
               "integer_bases": bool(getattr(args, "integer_bases", False)),
               "first_only": bool(getattr(args, "first_island", False)), "progress": bar,
               "islands": getattr(args, "islands", "auto")}
    if getattr(args, "base_work", None) is not None:
        options["base_work"] = args.base_work
    if getattr(args, "base_time_limit", None) is not None:
        options["base_time_limit"] = args.base_time_limit
    return options


def _seconds(text: str) -> float:
    """An argparse ``type``: a number of seconds > 0.

    >>> _seconds("90"), _seconds("1e3")
    (90.0, 1000.0)
    """
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not (value > 0 and value < float("inf")):
        raise argparse.ArgumentTypeError(f"{text!r} must be a number of seconds > 0")
    return value


def _dtypes(text: str) -> list[str]:
    from ..measure.numeric import dtype_model

    names = [t.strip() for t in str(text).split(",") if t.strip()]
    for name in names:
        dtype_model(name)  # raises UnknownName with the allowed list
    return names


def _encoding_given(args: argparse.Namespace) -> bool:
    options = ("preset", "base", "layout", "frequencies", "expression", "offset", "odd_dim",
               "min_timescale", "max_timescale", "start_index", "padding_idx", "max_period",
               "numerator")
    return any(getattr(args, o, None) is not None for o in options)


def run(args: argparse.Namespace) -> int:
    """Run ``explore`` or ``explain``; returns the exit status (0, 1, or 2 for bad input).

    >>> run(argparse.Namespace(command="explain", config="missing.json", default_theta=None,
    ...                        layout=None, layer=None))
    2
    """
    try:
        if args.command == "explore":
            return _explore(args)
        if args.command == "explain":
            return _explain(args)
        raise InvalidParameter(f"command {args.command!r} is not explore or explain")
    except PosproofError as exc:
        print(f"posproof: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:     # the reader went away (| head): run_main ends quietly
        raise
    except OSError as exc:
        print(f"posproof: error: {exc}", file=sys.stderr)
        return 2


def _explore(args: argparse.Namespace) -> int:
    from ..measure.explore import explore, plot_exploration
    from ..model.specs import parse_spec

    length = args.length or 4096
    seq_len = args.seq_len or length
    if args.base_bound and args.plot:
        raise InvalidParameter("--base-bound computes the base bound alone; --plot draws the "
                               "curves of explore without --base-bound: run them separately")
    parsed = [parse_spec(s, seq_len=seq_len, multi=True) for s in args.specs]
    if _encoding_given(args):
        from .options import build_encoding, build_multi

        parsed.insert(0, build_multi(args) or build_encoding(args))
    encodings, multis = _diagonal_views(parsed, length)
    if not encodings:
        raise InvalidParameter("explore needs at least one SPEC, e.g. "
                               "posproof explore rope:base=10000,dim=128 "
                               "rope:base=500000,dim=128,scaling=llama3,factor=8")
    with Busy("exploring") as busy:       # from the start; the base search draws its bar
        result = explore(encodings, length, proofs=not args.no_proofs,
                         base_bounds=args.base_bound, dtypes=_dtypes(args.dtypes),
                         only_base_bound=args.base_bound,
                         train_length=getattr(args, "train_length", None), seed=args.seed,
                         **_base_options(args, busy))
    if args.plot:
        plot_exploration(result, args.plot)
    if args.json:
        out = result.to_dict()
        if multis:
            out["axes"] = multis
        from .options import emit_json

        emit_json(out, args, ok=bool(result.ok))
    else:
        print(result.table())
        print(_axes_text(multis), end="")
        if args.plot:
            print(f"plot written to {args.plot}")
    return 0 if result.ok else 1


def _diagonal_views(parsed: list[Any], length: int) -> tuple[list[Any], dict[str, Any]]:
    """explore's subjects: a multi-axis rotary is explored on the diagonal (every axis at the
    same position: text tokens, where M-RoPE is RoPE), and its per-axis bands kept aside."""
    from ..measure.explore.axes import axis_bands
    from ..model.multiaxis import MultiAxisEncoding
    from ..model.multirope import MultiAxisRotary

    encodings, multis = [], {}
    for obj in parsed:
        if isinstance(obj, MultiAxisEncoding):
            raise InvalidParameter(f"explore compares 1-D encodings and rotaries; {obj.name} is a "
                                   "multi-axis sinusoidal table: use posproof derive --preset "
                                   f"{obj.name} --grid 16,16")
        if isinstance(obj, MultiAxisRotary):
            multis[obj.name] = {"rotary": obj.to_dict(), "bands": axis_bands(obj, length),
                                "explored": "the diagonal (every axis at one position)"}
            obj = obj.rotary
        encodings.append(obj)
    return encodings, multis


def _axes_text(multis: dict[str, Any]) -> str:
    from ..measure.explore.axes import axis_bands_table

    out = ""
    for name, info in multis.items():
        out += (f"\n{name}: pairs per axis (the columns above explore its diagonal: every axis "
                f"at one position)\n{axis_bands_table(info['bands'])}\n")
    return out


def _explain(args: argparse.Namespace) -> int:
    import numpy as np

    if getattr(args, "xpos", None) is not None:  # issue 16 §4
        from .biases_perm import explain_xpos

        return explain_xpos(args)
    if args.config is None:
        raise InvalidParameter("explain needs CONFIG (a config.json) or --xpos HEAD_DIM")
    from .alibi import config_kind
    from .alibi import run as run_alibi
    from .biases_t5 import explain_t5, is_t5_config

    if config_kind(args.config) is not None:  # BLOOM, MPT, Falcon with alibi: its slopes
        return run_alibi(args)

    if is_t5_config(args.config):            # T5-style relative attention: the bucket table
        return explain_t5(args)

    from ..measure.explore import explore, plot_exploration
    from ..model.configs import read_config
    from ..model.scaling import Scaling, float_frequencies

    probe = read_config(args.config, default_theta=args.default_theta, layout=args.layout,
                        layer=args.layer, theta_hint="--default-theta 10000")
    length = args.length or probe.max_position_embeddings
    if length is None:
        raise InvalidParameter(f"{args.config}: no max_position_embeddings; pass --length")
    seq_len = args.seq_len or length
    cfg = read_config(args.config, default_theta=args.default_theta, layout=args.layout,
                      seq_len=seq_len, layer=args.layer, theta_hint="--default-theta 10000")
    rot = cfg.rotary(seq_len)
    train = (getattr(args, "train_length", None) or cfg.params.get(
        "original_max_position_embeddings") or cfg.max_position_embeddings)
    with Busy(f"explaining {args.config}") as busy:
        result = explore([rot], length, base_bounds=args.base_bound,
                         dtypes=_dtypes(args.dtypes), train_length=train, seed=args.seed,
                         **_base_options(args, busy))
    theta = rot.frequencies_float
    default = float_frequencies(_default_schedule(rot.schedule), rot.rotary_dim)
    bands = rot.schedule.bands(rot.rotary_dim) if isinstance(rot.schedule, Scaling) else None
    covered = set(result.numbers[0]["bands"]["covered"])
    multi = cfg.multi_rotary() if cfg.mrope_section is not None else None
    rows = []
    for k in range(rot.n_pairs):
        rows.append({"pair": k, "channels": list(rot.pairs[k]), "theta_default": default[k],
                     "theta": theta[k], "ratio": theta[k] / default[k],
                     "wavelength": 2 * np.pi / theta[k],
                     "band": bands[k] if bands else "—", "fits_in_L": k in covered})
        if multi is not None:
            rows[-1]["axis"] = multi.axis_names[multi.pair_axes[k]]
    axes = None
    if multi is not None:
        from ..measure.explore.axes import axis_bands, axis_bands_table

        axes = axis_bands(multi, length)
    if args.plot:
        plot_exploration(result, args.plot)
    if args.json:
        out = {"config": cfg.to_dict(), "rotary": rot.to_dict(), "length": length,
               "seq_len": seq_len, "frequencies": rows, **result.to_dict()}
        if axes is not None:
            out["axes"] = axes
        from .options import emit_json

        emit_json(out, args, ok=bool(result.ok))
        return 0 if result.ok else 1
    lines = [f"posproof explain {cfg.source}",
             f"model_type={cfg.model_type}, rope_type={cfg.rope_type}, "
             f"rope_theta={cfg.rope_theta}, "
             f"head_dim={cfg.head_dim}, rotary_dim={cfg.rotary_dim}, layout={cfg.layout}, "
             f"attention factor={rot.attention_factor}",
             *(f"effective base: {eb['effective_base']} ≈ {eb['effective_base_float']}"
               + (f" at sequence length {eb['effective_base_seq_len']}"
                  if "effective_base_seq_len" in eb else "")
               for eb in [result.numbers[0]] if "effective_base" in eb),
             "scaling parameters: " + (", ".join(f"{k}={v}" for k, v in rot.schedule.params()
                                                    .items() if len(str(v)) < 60) or "none"),
             *(f"note: {n}" for n in cfg.notes), "",
             f"{'k':>3} {'channels':>10} {'θ default':>12} {'θ effective':>12} {'ratio':>9} "
             f"{'wavelength':>11} {'band':>11} fits L={length}"
             + ("  axis" if axes is not None else "")]
    for r in rows:
        fits = "yes" if r["fits_in_L"] else "no"
        lines.append((f"{r['pair']:>3} {tuple(r['channels'])!s:>10} {r['theta_default']:>12.5e} "
                      f"{r['theta']:>12.5e} {r['ratio']:>9.5f} {r['wavelength']:>11.4g} "
                      f"{r['band']:>11} {fits:<{7 + len(str(length))}}"
                      + (f"  {r['axis']}" if "axis" in r else "")).rstrip())
    if axes is not None:
        lines += ["", "M-RoPE: frequency pairs per position axis (the numbers below are the "
                  "text-token view, every axis at one position)", axis_bands_table(axes)]
    lines += ["", result.table()]
    if args.plot:
        lines.append(f"plot written to {args.plot}")
    print("\n".join(lines))
    return 0 if result.ok else 1


def _default_schedule(schedule: Any) -> Any:
    from ..model.schedules import Geometric

    base = getattr(schedule, "base", None)
    return Geometric(base) if base is not None else schedule
