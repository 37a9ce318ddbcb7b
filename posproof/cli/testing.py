"""``posproof identify`` and ``posproof check-impl``: the command-line side of posproof.testing.

Wiring (done in :mod:`posproof.cli.app`, like :mod:`posproof.cli.rope`)::

    from . import testing as cli_testing
    cli_testing.add_commands(sub, encoding_options)    # in make_parser()
    if args.command in cli_testing.COMMANDS:           # in _run()
        return cli_testing.run(args)

``posproof identify FILE`` reads a table from ``.npy``, ``.npz`` (``--key``
picks the array; without it every 2-d float array is identified), ``.pt`` /
``.pth`` (needs torch) or ``.safetensors`` (needs safetensors) and says which
schedule, layout, parameters and offset produced it — or that it matches no
known schedule.  ``posproof check-impl MODULE:ATTR`` imports the module (a
dotted name, or a path ``dir/file.py``) and checks the attribute — a table, a
callable of positions, or a module with a ``weight`` — against the encoding
options (``--preset``, ``--base``, ``--layout``, …; ``--dim`` defaults to the
table's width); ``--rotary`` checks an ``apply_fn(x, positions)`` instead.  Several
position axes: ``--preset sincos-2d|pe-2d|pe-3d --grid H,W`` (a table of H·W rows,
row-major) or ``--preset mrope|axial-rope --rotary`` (positions of shape (axes, seq)).

Exit status: 0 when the table is identified / the impl passes, 1 when it
matches no known schedule / fails, 2 for bad input (``run`` raises
:class:`posproof.errors.PosproofError`; the main CLI prints one line).

>>> import argparse
>>> parser = argparse.ArgumentParser(prog="posproof")
>>> add_commands(parser.add_subparsers(dest="command"), lambda p: None)
>>> parser.parse_args(["identify", "pe.npz", "--key", "pos"]).key
'pos'
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import math
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..errors import InvalidParameter, PosproofError
from ..verdict import verdict_text
from .identify_clause import identify_audit
from .options import Busy, int_at_least, parse_grid, parse_int

__all__ = ["COMMANDS", "add_commands", "cli_message", "load_arrays", "load_target", "main",
           "render_impl", "run"]

COMMANDS = ("identify", "check-impl")


def add_commands(subparsers: Any, encoding_options: Callable[[argparse.ArgumentParser], None]
                 ) -> None:
    """Add ``identify`` and ``check-impl`` to ``subparsers`` (from ``add_subparsers``).

    ``encoding_options`` adds the standard encoding options to ``check-impl``.

    >>> parser = argparse.ArgumentParser(prog="posproof")
    >>> add_commands(parser.add_subparsers(dest="command"), lambda p: None)
    >>> args = parser.parse_args(["check-impl", "mymodel:table", "--max-len", "1024"])
    >>> args.target, args.max_len, args.dim
    ('mymodel:table', 1024, None)
    """
    ident = subparsers.add_parser(
        "identify", help="say which schedule, layout, parameters and offset produced a "
                         "table (.npy, .npz, .pt, .safetensors)",
        description="Identify an unknown sinusoidal table: layout, schedule family and "
                    "parameters, offset, odd-d padding, padding rows; or say plainly that it "
                    "matches no known schedule.")
    ident.add_argument("file", metavar="FILE", help="a .npy, .npz, .pt/.pth or .safetensors file")
    ident.add_argument("--key", help="the array inside an .npz / .pt / .safetensors file "
                                     "(default: every array, each reported by name; a "
                                     "(max_len, 1, d) buffer is read as its .squeeze(1); "
                                     "arrays that cannot be tables are skipped with a note)")
    ident.add_argument("--dtype", help="precision to assume for the noise level (default: the "
                                       "array's dtype, or the narrower working precision "
                                       "read from the values)")
    ident.add_argument("--grid", metavar="H,W", help="the rows are the positions of an H × W "
                                                     "(or T,H,W) grid in row-major order (MAE's "
                                                     "2-D sin-cos table, a flattened "
                                                     "PositionalEncoding2D): say which columns "
                                                     "encode which axis (default: 1-D first, "
                                                     "then the factorisations of the row count)")
    ident.add_argument("--xpos", nargs="?", const=True, default=False, metavar="HEAD_DIM",
                       help="FILE holds an xPos ζ vector (torchscale's scale buffer): name "
                            "its γ and head dim (HEAD_DIM, as elsewhere, may be given; it is "
                            "read from the vector's length)")
    ident.add_argument("--json", action="store_true", help="print JSON")

    check = subparsers.add_parser(
        "check-impl", help="check your implementation (MODULE:ATTR: a table, a callable of "
                           "positions, or an embedding module) against an encoding",
        description="Import MODULE (a dotted name or a path to a .py file; importing runs its "
                    "code) and check ATTR against the encoding options: the table at large "
                    "positions, with tolerances that scale with the angle and the dtype; on "
                    "failure, the most likely explanation.")
    check.add_argument("target", metavar="MODULE:ATTR",
                       help="e.g. mypkg.model:POS_TABLE, ./pe.py:make_table, mypkg:rope_apply")
    from .spec import add_spec_argument

    add_spec_argument(check)
    encoding_options(check)
    check.set_defaults(dim=None)
    check.add_argument("--length", "-L", "--max-len", dest="max_len", type=int_at_least(1),
                       default=8192, metavar="L",
                       help="the L positions of a table checked, from the first position "
                            "(default 8192; not used with --rotary, which takes "
                            "--max-position, nor with --grid)")
    check.add_argument("--rotary", action="store_true",
                       help="ATTR is apply_fn(x, positions) of a rotary embedding; --dim is "
                            "the head dim, --layout half (default) or adjacent, --base; with "
                            "--preset mrope or axial-rope, positions have shape (axes, seq)")
    check.add_argument("--rotary-dim", type=int_at_least(1), default=None,
                       help="rotated channels of a partial rotary embedding")
    check.add_argument("--max-position", type=int_at_least(1), default=1 << 16, metavar="P",
                       help="largest position of the rotary checks (default 65536; 4096 "
                            "with --preset mrope or axial-rope)")
    check.add_argument("--angles", default=None, metavar="DTYPE",
                       help="the impl forms its angles x·ω (m·θ) in DTYPE on purpose (float32, "
                            "float16, bfloat16): tolerance its rounding model, 4·eps + eps_DTYPE "
                            "+ γ_k·|x·ω| (k = 2·|ln ω| + 4), instead of the default, the exact "
                            "table rounded to the impl's dtype; with --xpos only float32 "
                            "(torchscale's contract, which its tolerance models)")
    check.add_argument("--dtype", default=None, metavar="NAME",
                       help="the precision the impl computes in (float64, float32, float16, "
                            "bfloat16): a float32 result stored as float64 is judged at "
                            "float32's tolerance. Default for a table or a callable of "
                            "positions: the dtype of its values; with --rotary, x is fed in "
                            "NAME (default float32) and the result judged at NAME's tolerance; "
                            "not used with --xpos (judged at its output's dtype, at least "
                            "float32)")
    check.add_argument("--scale", type=float, default=1.0, metavar="S",
                       help="the impl multiplies the table by S (e.g. 0.0625 = 1/√256); "
                            "not with --rotary")
    check.add_argument("--seed", type=int, default=0, help="seed of the random positions")
    check.add_argument("--xpos", metavar="HEAD_DIM",
                       help="ATTR is an xPos apply_fn(x, downscale) as torchscale's XPOS "
                            "(x: batch, L, head_dim); checked against XPos(HEAD_DIM, --base)")
    check.add_argument("--json", action="store_true", help="print the report as JSON")
    from .biases_t5 import add_check_impl_options

    add_check_impl_options(check)


# --------------------------------------------------------------------------- loading
def load_target(text: str) -> tuple[Any, str]:
    """Import ``MODULE:ATTR`` (ATTR may be dotted; MODULE may be a path to a .py file).

    >>> obj, label = load_target("posproof.model.presets:PRESETS")
    >>> label, "vaswani" in obj
    ('posproof.model.presets:PRESETS', True)
    >>> load_target("posproof.model.presets:NOPE")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    posproof.errors.InvalidParameter: posproof.model.presets has no attribute 'NOPE'; ...
    """
    module_name, sep, attr = str(text).rpartition(":")
    if not sep or not module_name or not attr:
        raise InvalidParameter(f"target {text!r} is not MODULE:ATTR; write e.g. "
                               "mypkg.model:POS_TABLE or ./pe.py:make_table")
    is_path = module_name.endswith(".py") or os.sep in module_name or "/" in module_name
    try:
        if is_path:
            path = Path(module_name)
            if not path.is_file():
                raise InvalidParameter(f"{module_name}: no such file")
            spec = importlib.util.spec_from_file_location(path.stem, path)
            if spec is None or spec.loader is None:
                raise InvalidParameter(f"{module_name}: not an importable Python file")
            module = importlib.util.module_from_spec(spec)
            sys.modules.setdefault(path.stem, module)
            spec.loader.exec_module(module)
        else:
            if "" not in sys.path and os.getcwd() not in sys.path:
                sys.path.insert(0, os.getcwd())
            module = importlib.import_module(module_name)
    except PosproofError:
        raise
    except Exception as exc:
        raise InvalidParameter(f"cannot import {module_name!r}: {type(exc).__name__}: "
                               f"{exc}") from None
    obj: Any = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            names = [n for n in dir(obj) if not n.startswith("_")][:12]
            where = module_name if obj is module else f"{module_name}:{attr}"
            raise InvalidParameter(f"{where} has no attribute {part!r}; it has "
                                   f"{', '.join(names) or 'no public names'}")
        obj = getattr(obj, part)
    return obj, f"{module_name}:{attr}"


def load_arrays(path: str, key: str | None = None) -> dict[str, Any]:
    """The arrays in a ``.npy`` / ``.npz`` / ``.pt`` / ``.safetensors`` file, by name.

    >>> import tempfile, os
    >>> f = os.path.join(tempfile.mkdtemp(), "t.npz")
    >>> np.savez(f, pe=np.zeros((4, 2)), ids=np.arange(3))
    >>> sorted(load_arrays(f)), list(load_arrays(f, key="pe"))
    (['ids', 'pe'], ['pe'])
    """
    p = Path(path)
    if not p.is_file():
        raise InvalidParameter(f"{path}: no such file")
    suffix = p.suffix.lower()
    size = _unpacked_size(p, suffix)
    if size > MAX_TABLE_BYTES:
        raise InvalidParameter(f"{path} holds {size} bytes of arrays; at most {MAX_TABLE_BYTES} "
                               f"({MAX_TABLE_BYTES >> 20} MiB) are read (identify widens them "
                               "to float64); pass a slice of the table, e.g. its first rows")
    try:
        arrays = _read(p, suffix)
    except PosproofError:
        raise
    except Exception as exc:
        raise InvalidParameter(f"{path} is not a readable {suffix or 'array'} file "
                               f"({type(exc).__name__}: {exc}); pass a .npy, .npz, .pt or "
                               ".safetensors table") from None
    if key is not None:
        if key not in arrays:
            raise InvalidParameter(f"{path} has no array {key!r}; it has "
                                   f"{', '.join(sorted(arrays)) or 'none'}")
        return {key: arrays[key]}
    return arrays


#: Largest array data read from a file (identify, check-impl tables): widened to
#: float64 and measured, a table takes a few times its size in memory.
MAX_TABLE_BYTES = 1 << 28


def _unpacked_size(p: Path, suffix: str) -> int:
    """Bytes of array data in the file: the file size, or for .npz the members' sizes."""
    if suffix == ".npz":
        import zipfile

        try:
            with zipfile.ZipFile(p) as z:
                return sum(info.file_size for info in z.infolist())
        except (zipfile.BadZipFile, OSError):
            pass                                    # _read names the problem
    return p.stat().st_size


def _read(p: Path, suffix: str) -> dict[str, Any]:
    import numpy as np

    if suffix == ".npy":
        return {p.stem: np.load(p, allow_pickle=False)}
    if suffix == ".npz":
        # open the file ourselves: np.load leaks its handle when the zip is corrupt
        with open(p, "rb") as fh, np.load(fh, allow_pickle=False) as data:
            return {k: data[k] for k in data.files}
    if suffix in (".pt", ".pth", ".bin"):
        try:
            import torch
        except ImportError:
            raise InvalidParameter(f"{p} needs torch to read; pip install 'posproof[impl]' "
                                   "(or torch)") from None
        return _flatten(torch.load(p, map_location="cpu", weights_only=True))
    if suffix == ".safetensors":
        try:
            from safetensors.numpy import load_file
        except ImportError:
            raise InvalidParameter(f"{p} needs safetensors to read; "
                                   "pip install 'posproof[impl]' (or safetensors)") from None
        try:
            return dict(load_file(str(p)))
        except (TypeError, ValueError):
            from safetensors.torch import load_file as load_torch  # bfloat16 needs torch
            return dict(load_torch(str(p)))
    raise InvalidParameter(f"{p}: unknown file type {suffix!r}; pass a .npy, .npz, .pt/.pth "
                           "or .safetensors file")


def _flatten(obj: Any, prefix: str = "") -> dict[str, Any]:
    """Tensors of a (nested) state dict by dotted name."""
    if hasattr(obj, "detach") or hasattr(obj, "__array__"):
        return {prefix or "tensor": obj}
    out: dict[str, Any] = {}
    if isinstance(obj, dict):
        for k, v in obj.items():
            out.update(_flatten(v, f"{prefix}.{k}" if prefix else str(k)))
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            out.update(_flatten(v, f"{prefix}.{i}" if prefix else str(i)))
    return out


def _tables(arrays: dict[str, Any], notes: dict[str, str] | None = None) -> dict[str, Any]:
    """The entries that can be tables: floating, 2-d once axes of length 1 are dropped.

    A (max_len, 1, d) buffer (the PyTorch tutorial's ``pe``) is read as its
    ``.squeeze(1)``.  ``notes`` receives, by name, why each other entry is not a
    table, and how each squeezed one was read.

    >>> import numpy as np
    >>> notes = {}
    >>> sorted(_tables({"pe": np.zeros((8, 1, 4)), "ids": np.arange(3)}, notes)), notes["ids"]
    (['pe'], 'shape (3,), dtype int64: not a 2-d float table (n_positions, dim)')
    """
    notes = {} if notes is None else notes
    out = {}
    for name, value in arrays.items():
        full = tuple(int(n) for n in getattr(value, "shape", ()))
        shape = full
        if len(shape) > 2:
            shape = tuple(n for n in shape if n != 1)
        kind = str(getattr(value, "dtype", "")).replace("torch.", "")
        if len(shape) == 2 and ("float" in kind or "half" in kind or "double" in kind):
            out[name] = value.reshape(shape) if shape != full else value
            if shape != full:
                notes[name] = (f"shape {full} read as {shape} (axes of length 1 dropped, as "
                               ".squeeze() does)")
        else:
            notes[name] = (f"shape {full}, dtype {kind or '?'}: not a 2-d float table "
                           "(n_positions, dim)")
    return out


# --------------------------------------------------------------------------- commands
def run(args: argparse.Namespace) -> int:
    """Run ``identify`` or ``check-impl``; 0 match / pass, 1 no match / fail.

    Bad input raises :class:`posproof.errors.PosproofError` (exit status 2 in the CLI).

    >>> run(argparse.Namespace(command="identify", file="missing.npy", key=None, dtype=None,
    ...                        json=False))
    Traceback (most recent call last):
    ...
    posproof.errors.InvalidParameter: missing.npy: no such file
    """
    if args.command == "identify":
        return _identify(args)
    if args.command == "check-impl":
        return _check_impl(args)
    raise InvalidParameter(f"command {args.command!r} is not identify or check-impl")


def _identify(args: argparse.Namespace) -> int:
    from ..testing.identification import identify

    grid = parse_grid(getattr(args, "grid", None))
    arrays = load_arrays(args.file, args.key)
    if getattr(args, "xpos", False):  # issue 16 §4
        from ..testing.rope.xpos import identify_xpos

        found = {name: identify_xpos(value) for name, value in arrays.items()}
        if args.xpos is not True:                 # --xpos HEAD_DIM: the head dim claimed
            claimed = parse_int("xpos", args.xpos)
            for r in found.values():
                if r["head_dim"] != claimed:
                    r["matched"] = False
                    r["note"] = (f"the vector has {r['head_dim'] // 2} pairs: head_dim "
                                 f"{r['head_dim']}, not --xpos {claimed}")
        if args.json:
            from .options import emit_json

            emit_json({"file": args.file, "xpos": found}, args,
                      ok=all(r["matched"] for r in found.values()))
        else:
            for name, r in found.items():
                print(f"{name}: " + (f"{r['spec']} (residual {r['residual']:.2g})"
                                     if r["matched"] else r["note"] if "note" in r else
                                     f"no xPos γ fits (residual {r['residual']:.2g} for "
                                     f"γ = {r['gamma']})"))
            audited = identify_audit(
                [(r["matched"], None) for r in found.values()],
                "ζ compared with (2k/d + γ)/(1 + γ) within 8·eps of the array's dtype; no "
                "exact quantity recorded")
            print(f"\nverdict: {_identified([r['matched'] for r in found.values()], all, audited)}")
        return 0 if all(r["matched"] for r in found.values()) else 1
    from .biases_t5 import identify_buckets

    if arrays and all(getattr(v, "ndim", 0) == 2 and str(getattr(v, "dtype", "")).replace(
            "torch.", "").startswith(("int", "uint")) for v in arrays.values()):
        return identify_buckets(args, arrays)       # integer matrices: T5 relative buckets
    notes: dict[str, str] = {}
    tables = _tables(arrays, notes)
    results, skipped = {}, {k: v for k, v in notes.items() if k not in tables}
    with Busy(f"identifying {args.file}"):     # from the start, on a terminal
        for name, value in tables.items():
            if grid is not None and math.prod(grid) != value.shape[0]:
                text = (f"--grid {args.grid} has {math.prod(grid)} positions but the table has "
                        f"{value.shape[0]} rows")
                if len(tables) == 1:
                    raise InvalidParameter(text)
                skipped[name] = text
                continue
            try:
                results[name] = identify(value, dtype=args.dtype, grid=grid)
            except PosproofError as exc:            # e.g. a 3-row array beside the table
                read = f"{notes[name]}; " if name in notes else ""
                skipped[name] = f"{read}not identified: {exc}"
    if not results:
        why = "; ".join(f"{name!r}: {text}" for name, text in skipped.items()) or "no arrays"
        raise InvalidParameter(f"{args.file} holds no table posproof can identify ({why}); "
                               "pass a float table of shape (n_positions, dim)")
    matched = any(r.matched for r in results.values())
    if args.json:
        out = {"file": args.file, "matched": matched, "theorems": [],
               "checks": [{"name": f"identify[{name}]",
                           "status": "pass" if r.matched else "fail", **r.to_dict()}
                          for name, r in results.items()],
               "skipped": [{"name": name, "reason": text} for name, text in skipped.items()]}
        from .options import emit_json

        emit_json(out, args, ok=bool(matched))
    else:
        shown = {k: r for k, r in results.items() if r.matched} or results
        blocks = [f"posproof identify {args.file}"]
        for name, r in shown.items():
            head = f"[{name}]\n" if len(arrays) > 1 else ""
            read = f"({notes[name]})\n" if name in notes else ""
            # the command's one verdict line closes the output: the table's own is its result
            blocks.append(head + read + str(r).replace("\nverdict: ", "\nresult: ", 1))
        unmatched = [k for k in results if k not in shown]
        if unmatched:
            blocks.append(f"({len(unmatched)} other array(s) match no known schedule: "
                          f"{', '.join(unmatched[:8])}; pass --key to see one)")
        if skipped:
            blocks.append("\n".join(f"skipped [{name}]: {text}" for name, text in skipped.items()))
        audited = identify_audit([(r.matched, r.evidence) for r in results.values()],
                                 "matched without an entry to re-check")
        verdict = _identified([r.matched for r in results.values()], any, audited)
        blocks.append(f"verdict: {verdict}")
        print("\n\n".join(blocks))
    return 0 if matched else 1


def _check_impl(args: argparse.Namespace) -> int:
    impl, label = load_target(args.target)
    if getattr(args, "t5_buckets", None) is not None or getattr(args, "position_ids", None):
        from .biases_t5 import check_impl

        return check_impl(args, impl, label)
    with Busy(f"checking {label}"):       # from the start, on a terminal
        report = _impl_report(impl, args)
    if args.json:
        from ..testing.core.audited import audit_counts
        from .options import emit_json

        out = {"target": label, **report.to_dict()}
        out.setdefault("audit", audit_counts(report))   # the verdict line's audit clause
        emit_json(out, args, ok=bool(report.ok))
    else:
        print(render_impl(report, label))
    return 0 if report.ok else 1


def _impl_report(impl: Any, args: argparse.Namespace) -> Any:
    """The check of ``impl`` against the options (table, rotary, multi-axis or xPos)."""
    from ..testing import check_encoding, check_rotary

    xpos = getattr(args, "xpos", None) is not None
    multi = None if xpos else _multi_spec(impl, args)
    if xpos:  # issue 16 §4: apply_fn(x, downscale)
        from .biases_perm import xpos_spec

        report = check_rotary(impl, xpos_spec(args), seed=args.seed, angles=args.angles)
    elif multi is not None and args.rotary:
        report = check_rotary(impl, multi, max_position=args.max_position, seed=args.seed,
                              **_dtype(args),
                              angles=args.angles)
    elif multi is not None:
        report = check_encoding(impl, multi, grid=parse_grid(args.grid, axes=multi.axes),
                                **_dtype(args),
                                angles=args.angles, scale=args.scale)
    elif args.rotary:
        if args.dim is None:
            raise InvalidParameter("--rotary needs --dim, the head dim of the rotary embedding")
        from ..model.rope import rotary

        rot = rotary(args.base or 10000, parse_int("dim", args.dim),
                     layout=args.layout or "half", rotary_dim=args.rotary_dim)
        if args.scale != 1.0:
            raise InvalidParameter("--scale applies to a table, not to --rotary")
        report = check_rotary(impl, rot, max_position=args.max_position, seed=args.seed,
                              **_dtype(args),
                              angles=args.angles)
    else:
        from .options import build_encoding

        if args.dim is None:
            args.dim = str(_width(impl, args))
        enc = build_encoding(args)
        report = check_encoding(impl, enc, max_len=args.max_len, seed=args.seed,
                                **_dtype(args),
                                first_position=None, angles=args.angles,
                                scale=args.scale)
    return report


def cli_message(text: str) -> str:
    """A helper's message with its Python options also spelled as the command's options.

    >>> cli_message('pass dtype="float32" to check it')
    'pass dtype="float32" (--dtype float32) to check it'
    """
    import re

    text = re.sub(r'dtype="(\w+)"', r'dtype="\1" (--dtype \1)', str(text))
    return re.sub(r'angles="(\w+)"', r'angles="\1" (--angles \1)', text)


def _dtype(args: argparse.Namespace) -> dict[str, Any]:
    """``dtype=`` of the helpers when ``--dtype`` is given (else each reads its default)."""
    dtype = getattr(args, "dtype", None)
    return {} if dtype is None else {"dtype": dtype}


def _multi_spec(impl: Any, args: argparse.Namespace) -> Any:
    """The multi-axis spec of ``--preset`` (None for a 1-D one), checked against --rotary
    and --grid; a table's width is the default --dim of a multi-axis table preset."""
    from ..model.multiaxis import is_multi_preset
    from ..model.multirope import MULTI_ROTARIES
    from ..testing.absolute.read import table_of
    from .options import build_multi

    name = (args.preset or "").lower()
    if name in MULTI_ROTARIES and not args.rotary:
        raise InvalidParameter(f"--preset {name} is a rotary embedding: add --rotary (ATTR is "
                               "apply_fn(x, positions), positions of shape (axes, seq))")
    if is_multi_preset(name):
        if args.rotary:
            raise InvalidParameter(f"--preset {name} is a table of several axes, not a rotary "
                                   "embedding: drop --rotary, pass --grid")
        if args.grid is None:
            raise InvalidParameter(f"--preset {name} needs --grid (e.g. --grid 16,16): the grid "
                                   "the table's rows enumerate, row-major")
        if args.dim is None:
            if table_of(impl) is None:
                raise InvalidParameter(f"--preset {name} with a callable ATTR needs --dim")
            args.dim = str(_width(impl, args))
    multi = build_multi(args)
    if multi is None and args.grid is not None:
        raise InvalidParameter(f"--grid is for a multi-axis --preset (sincos-2d, pe-2d, pe-3d); "
                               f"{args.preset or 'vaswani'} has one position axis")
    return multi


def _width(impl: Any, args: argparse.Namespace) -> int:
    """The dim of the impl's table (called at two positions for a callable)."""
    import numpy as np

    from ..testing.absolute.read import call, table_of

    table = table_of(impl)
    if table is not None:
        shape = tuple(getattr(table, "shape", np.shape(table)))
        if len(shape) < 2:
            raise InvalidParameter(f"{args.target} has shape {shape}; a table is 2-d "
                                   "(n_positions, dim)")
        return int(shape[-1])
    if not callable(impl):
        from ..testing import InvalidImplementation

        raise InvalidImplementation(
            f"{args.target} is a {type(impl).__name__}, neither a table nor a callable")
    return int(call(impl, np.arange(2, dtype=np.int64))[0].shape[1])


def _shown(key: str, value: Any) -> str:
    """One value of a check line: the score as error/tolerance, floats to 3 digits.

    >>> _shown("score", 281474976710656.0), _shown("max_error", 1.9999968), _shown("n", 3)
    ('error/tolerance=2.81e+14', 'max_error=2', 'n=3')
    """
    if key == "score":
        key = "error/tolerance"
    if isinstance(value, float):
        return f"{key}={value:.3g}"
    return f"{key}={value}"


def render_impl(report: Any, label: str) -> str:
    symbol = {"pass": "✓", "fail": "✗"}
    from ..testing.core.reports import spec_label

    lines = [f"posproof check-impl {label}", f"spec: {spec_label(report.spec)}",
             f"{report.n_positions} positions up to {report.max_position}, dtype {report.dtype}",
             ""]
    for c in report.checks:
        values = ", ".join(_shown(k, v) for k, v in c.items()
                           if k not in ("name", "status", "label")
                           and not isinstance(v, (dict, list)))
        lines.append(f"  {symbol.get(c['status'], '?')} {c['name']:<18} "
                     f"{c.get('label', c['status']):<5} {values}")
    if any("score" in c for c in report.checks):
        lines.append("  (error/tolerance: the worst |impl − expected| over its tolerance at "
                     "that place; a check passes when it is ≤ 1)")
    lines.append("")
    if not report.ok:
        lines += [cli_message(report.message), ""]
    label = getattr(report, "label", "pass")
    from ..testing.core.audited import audit_counts

    audited = audit_counts(report)
    lines.append(f"verdict: {verdict_text(checks=report.checks, ok=report.ok, audited=audited)}"
                 + (f" ({label[len('pass ('):-1]})" if report.ok and label != "pass" else "")
                 + (": the implementation matches the specification" if report.ok else ""))
    return "\n".join(lines)


def _identified(matched: list[bool], rule: Any, audited: Any = None) -> str:
    """The verdict of ``identify``: OK when ``rule`` (any / all) of the arrays matched;
    ``audited``: :func:`~posproof.cli.identify_clause.identify_audit`'s counts, the audit clause.

    >>> _identified([True, False], any), _identified([False], any)
    ('OK — arrays 1/2 identified', 'CHECK FAILED — arrays 0/1 identified')
    """
    return verdict_text(checks=[{"status": "pass" if m else "fail"} for m in matched],
                        noun="arrays", verb="identified", ok=bool(rule(matched)),
                        audited=audited)


def main(argv: Sequence[str] | None = None) -> int:
    """What ``posproof identify|check-impl`` does once hooked into :mod:`posproof.cli.app`
    (used by the tests before and after the hook): bad input is one line, status 2."""
    from .options import Parser, encoding_options

    parser = Parser(prog="posproof")
    add_commands(parser.add_subparsers(dest="command", parser_class=Parser),
                 encoding_options)
    args = parser.parse_args(argv)
    try:
        return run(args)
    except PosproofError as exc:
        print(f"posproof: error: {exc}", file=sys.stderr)
        return 2
