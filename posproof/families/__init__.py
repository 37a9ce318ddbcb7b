"""The family is the unit of extension: one module per family of position codes, each with
the same operations, and one pipeline that runs them for every command.

A family is two things (docs/architecture.md, "Adding a family"):

* its SPEC grammar — an entry in :data:`posproof.model.families.FAMILIES` (names, keys,
  aliases, example, docs page) and its branch of :func:`posproof.model.specs.build`;
* its operations — a module here registered in :data:`OPERATIONS`, with ``prove(obj,
  options) -> Report``, ``check(obj, options) -> Report``, ``TAKES`` (the options each of
  them reads; any other option given is refused in one line rather than silently ignored)
  and optionally ``details(report) -> list[str]`` (extra text lines).

``tests/test_families.py`` walks every family through SPEC parsing, prove, check,
check-impl (correct, broken and float32 implementations), the JSON keys and the docs, so a
family cannot be added half-way.

>>> report = prove("alibi:heads=8")
>>> report.spec, report.ok
('alibi:heads=8', True)
>>> check("t5:buckets=32,max_distance=128", dtypes=["float64"])
Traceback (most recent call last):
...
posproof.errors.InvalidParameter: check of t5:buckets=32,max_distance=128 does not take dtypes (it takes no option): its dtype audit covers float32 and float16
"""  # noqa: E501

from __future__ import annotations

import importlib
from typing import Any

from ..errors import InvalidParameter
from .options import Options

__all__ = ["OPERATIONS", "Options", "check", "grid_of", "operations", "prove", "run",
           "verify"]

#: family → the module of its operations.
OPERATIONS = {"vaswani": "vaswani", "rope": "rope", "sincos-2d": "grids", "mrope": "grids",
              "axial-rope": "grids", "alibi": "alibi", "t5": "t5", "xpos": "xpos"}


def operations(family: str) -> Any:
    """The module of ``family``'s operations."""
    try:
        name = OPERATIONS[family]
    except KeyError:
        raise InvalidParameter(f"family {family!r} has no operations; register a module in "
                               "posproof.families.OPERATIONS") from None
    return importlib.import_module(f"{__name__}.{name}")


def run(command: str, spec: Any, options: Options | None = None, *, obj: Any = None,
        family: str | None = None, **given: Any) -> Any:
    """``prove`` / ``check`` / ``verify`` of any SPEC (a string, a config.json or a Spec):
    the family's operations on its model object, as one Report whose ``spec`` is the
    canonical SPEC.  ``obj`` (with its ``family``) is a model object already built (the
    command line's old flags build theirs as typed; ``spec`` is then its label)."""
    from ..model.families import parse
    from ..model.specs import build

    options = (options or Options()).replace(**given)
    if obj is None:
        parsed = parse(spec)
        family = parsed.family
        text = parsed.text
        if "grid" in parsed.params and options.grid is None:
            options = options.replace(grid=grid_of(parsed.params["grid"]))
        obj = build(parsed, seq_len=options.length if command != "prove" else None)
    else:
        text = str(spec)
    if family is None:                        # pragma: no cover - internal misuse
        raise TypeError("run(obj=...) needs family=")
    ops = operations(family)
    if command == "verify" and "general" in ops.TAKES.get("prove", ()):
        options = options.replace(general=True)     # verify proves for every d too
    wanted = {"prove": ("prove",), "check": ("check",), "verify": ("prove", "check")}
    if command not in wanted:
        raise InvalidParameter(f"command {command!r}: use prove, check or verify")
    steps = wanted[command]
    for step in steps:
        if not hasattr(ops, step):
            has = ", ".join(s for s in ("prove", "check") if hasattr(ops, s))
            raise InvalidParameter(f"{command} does not apply to the {family} family; it has "
                                   f"{has}")
    taken = set().union(*(ops.TAKES.get(s, ()) for s in steps))
    extra = [k for k in options.given() if k not in taken]
    if extra:
        why = getattr(ops, "WHY_NOT", {}).get(extra[0], "")
        raise InvalidParameter(f"{command} of {text} does not take {extra[0]} (it takes "
                               f"{', '.join(sorted(taken)) or 'no option'})"
                               + (f": {why}" if why else ""))
    if command == "verify" and hasattr(ops, "validate_check"):
        ops.validate_check(obj, options)          # refuse a too large scan before proving
    report = None
    for step in steps:
        if report is None:
            report = getattr(ops, step)(obj, options)
        else:          # verify: the checks reuse what the proofs established
            if options.progress is not None:
                options.progress("numeric checks", 0, 1)
            report.checks = ops.check(obj, options, proofs=report.theorems).checks
    report.spec = text
    from ..audit import audit_report

    audit_report(report)          # every verdict's evidence, re-checked by the auditor
    return report


def grid_of(text: str) -> tuple[int, ...]:
    """A SPEC's ``grid=16x16`` (or ``4x16x16``) as sizes.

    >>> grid_of("4x16x16")
    (4, 16, 16)
    """
    try:
        sizes = tuple(int(p) for p in str(text).replace("×", "x").replace(";", "x").split("x"))
    except ValueError:
        sizes = ()
    if not sizes or len(sizes) > 8 or any(n < 1 for n in sizes):
        raise InvalidParameter(f"grid={text!r}: give 1 to 8 sizes, each at least 1, e.g. "
                               "grid=16x16")
    return sizes


def prove(spec: Any, **options: Any) -> Any:
    """Prove (or refute) the theorems of any SPEC; a :class:`~posproof.report.Report`."""
    return run("prove", spec, **options)


def check(spec: Any, **options: Any) -> Any:
    """The numeric checks of any SPEC; a :class:`~posproof.report.Report`."""
    return run("check", spec, **options)


def verify(spec: Any, **options: Any) -> Any:
    """Prove, then check (the families with both)."""
    return run("verify", spec, **options)
