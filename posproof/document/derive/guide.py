"""The guided derivation: from counting to rotations, each guess with what it breaks.

Each ``_guide_*`` function builds one :class:`GuideStep` (the raw index, the
index over the length, binary digits, sine-only dials on binary and on
geometric frequencies, sin/cos pairs) from numbers the toolkit computes at
generation time: NumPy, SymPy, :func:`posproof.prove` and
:func:`posproof.check`.  :func:`_recipe` finds the preset options that rebuild
an encoding (for the calls a step shows and for the document's command).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy as sp

from ...errors import PosproofError
from ...measure.checks import DEFAULT_MAX_LEN, run_checks
from ...model.encoding import Encoding, X
from ...proofs.theorems import prove
from ...report import Report
from .document import check_result, lit, num, pow2, proof_reason, status_word

__all__ = [
    "GUIDE_DIM",
    "GuideStep",
    "command_for",
    "guide_binary_digits",
    "guide_pairs",
    "guide_ratio",
    "guide_raw",
    "guide_sine_binary",
    "guide_sine_geometric",
]

#: Dimension of the small encodings of the guided derivation (8 binary dials).
GUIDE_DIM = 16


# =========================================================================== guided derivation
@dataclass
class GuideStep:
    """One guess of the guided derivation, the property it breaks, and the evidence.

    ``formula`` is LaTeX, ``text`` and ``evidence`` use the document markup,
    ``calls`` are the posproof / NumPy / SymPy calls that produced the numbers
    in ``values`` (JSON-ready).
    """

    key: str
    title: str
    formula: str
    breaks: str
    text: str
    evidence: list[str]
    calls: list[str]
    values: dict[str, Any]
    fixes: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "title": self.title, "breaks": self.breaks,
                "formula": self.formula, "calls": self.calls, "values": self.values}


def guide_raw(length: int) -> GuideStep:
    positions = np.arange(length, dtype=np.int64)
    largest = int(positions.max())
    limit = sp.limit(X, X, sp.oo)
    return GuideStep(
        "raw_index", "The raw index", r"\mathrm{PE}(x) = x", "unbounded",
        "The simplest code for a position is the position itself.",
        [f"Over the first $L = {length}$ positions the largest value is "
         f"**{largest}** ($L - 1$), while token embeddings are of order 1; and "
         f"$\\lim_{{x\\to\\infty}} x = {sp.latex(limit)}$: no bound holds for every length."],
        [f"numpy.arange({length}).max()", "sympy.limit(x, x, sympy.oo)"],
        {"length": length, "max_value": largest, "limit": str(limit)},
        "the sinusoids of the final answer stay in $[-1, 1]$ (theorem `bounded`).")


def guide_ratio(length: int) -> GuideStep:
    short = 100
    x = 10
    a, b = sp.Rational(x, short), sp.Rational(x, length)
    return GuideStep(
        "index_over_length", "The index divided by the length", r"\mathrm{PE}(x) = x / L",
        "depends on the sequence length",
        "Dividing by the length $L$ of the sequence keeps every value in $[0, 1)$.",
        [f"The same position $x = {x}$ is encoded as ${sp.latex(a)}$ in a sequence of "
         f"{short} tokens and as ${sp.latex(b)}$ in one of {length}: the code of a position "
         "changes with the length of the text around it.",
         f"Neighbours are $1/L$ apart: ${sp.latex(sp.Rational(1, short))}$ for $L = {short}$, "
         f"${sp.latex(sp.Rational(1, length))}$ for $L = {length}$."],
        [f"sympy.Rational({x}, {short})", f"sympy.Rational({x}, {length})"],
        {"position": x, "short_length": short, "short_code": str(a), "long_length": length,
         "long_code": str(b)},
        "the final encoding of $x$ does not involve $L$.")


def guide_binary_digits(bits: int) -> GuideStep:
    x = np.arange(2 ** bits, dtype=np.int64)
    table = (x[:, None] >> np.arange(bits)) & 1
    steps = np.sqrt(((table[1:] - table[:-1]) ** 2).sum(axis=1))
    worst = int(np.argmax(steps))
    distinct = int(np.unique(table, axis=0).shape[0])
    return GuideStep(
        "binary_digits", "Binary digits",
        r"\mathrm{PE}(x)_j = \left\lfloor x / 2^{j} \right\rfloor \bmod 2",
        "jumps",
        f"Write $x$ in binary with {bits} digits: bounded, the same for every length, and "
        f"all {2 ** bits} positions below $2^{{{bits}}}$ distinct (NumPy finds {distinct} "
        "distinct rows).",
        [f"Every entry is 0 or 1 and flips with nothing in between, so neighbours are not "
         f"equally far apart: $\\lVert \\mathrm{{PE}}(1) - \\mathrm{{PE}}(0) \\rVert = "
         f"{num(steps[0])}$ but $\\lVert \\mathrm{{PE}}({worst + 1}) - \\mathrm{{PE}}({worst}) "
         f"\\rVert = \\sqrt{{{round(steps[worst] ** 2)}}} \\approx {num(steps[worst], 4)}$ "
         f"({round(steps[worst] ** 2)} digits flip at once)."],
        [f"(numpy.arange({2 ** bits})[:, None] >> numpy.arange({bits})) & 1"],
        {"bits": bits, "distinct_rows": distinct, "min_step": float(steps.min()),
         "max_step_squared": round(steps.max() ** 2), "max_step_at": worst},
        "each digit becomes a smooth dial.")


def guide_sine_binary(dials: int, dim: int, seed: int) -> GuideStep:
    from ...model.presets import preset

    cols = [("sin", sp.pi / 2 ** (j + 1)) for j in range(dials)]
    sine = Encoding.from_columns(cols, name="sine-only binary dials")
    own = prove(sine, theorems=["periodicity"], seed=seed).theorems[0]
    pairs = prove(preset("binary", dim=2 * dials), theorems=["periodicity"],
                  seed=seed).theorems[0]
    period = own.exact
    values: dict[str, Any] = {"dials": dials, "period_proof": own.status,
                              "period": (own.values or {}).get("period"),
                              "binary_preset_period": (pairs.values or {}).get("period")}
    calls = [f"prove(Encoding.from_columns([('sin', pi/2**(j+1)) for j in range({dials})]), "
             "theorems=['periodicity'])",
             f"prove(preset('binary', dim={2 * dials}), theorems=['periodicity'])"]
    evidence = []
    if own.status == "proved" and period is not None and period.is_Integer:
        p = int(period)
        sep = run_checks(preset("binary", dim=2 * dials), max_len=2 * p, checks=["separation"],
                         seed=seed)[0]
        calls.append(f"check(preset('binary', dim={2 * dials}), max_len={2 * p}, "
                     "checks=['separation'])")
        values.update(separation=sep.status, collide_at=sep.values.get("at_offset"),
                      distance_mp=sep.values.get("min_distance_mp"))
        evidence.append(
            f"The proof engine finds the exact period $P = {pow2(p)} = {p}$: "
            f"{lit(own.steps[-1].statement)} (**{own.status}**).")
        evidence.append(
            f"The sin/cos binary preset has the same period, {lit(pairs.statement)} "
            f"(**{pairs.status}**): the schedule is at fault, not the sine.")
        evidence.append(
            f"Measured: check `separation` over {2 * p} positions is **{sep.status}**: "
            f"{lit(sep.values.get('summary', ''))}, distance "
            f"{num(sep.values.get('min_distance_mp', 'nan'))} in mpmath at 50 digits.")
    else:  # pragma: no cover - the engine proves this period
        evidence.append(f"The proof engine answered **{own.status}**: {lit(own.note or '')}")
    if dim != 2 * dials and dim <= 4096:
        big = prove(preset("binary", dim=dim), theorems=["periodicity"], seed=seed).theorems[0]
        if big.status == "proved" and big.exact is not None:
            q = int(big.exact) if big.exact.is_Integer else None
            calls.append(f"prove(preset('binary', dim={dim}), theorems=['periodicity'])")
            values["period_at_dim"] = str(big.exact)
            shown = f"{pow2(q)}" if q is not None else sp.latex(big.exact)
            evidence.append(f"At $d = {dim}$ the binary dials close after exactly ${shown}$ "
                            "positions: far away, but a period all the same.")
    return GuideStep(
        "sine_binary", "Sine-only dials on binary frequencies",
        r"\mathrm{PE}(x)_j = \sin\!\left(\frac{\pi x}{2^{j+1}}\right)",
        "closes on itself with an exact period",
        f"Replace digit $j$ by a dial turning once every $2^{{j+2}}$ positions "
        f"({dials} dials): smooth and bounded.",
        evidence, calls, values,
        "frequencies with irrational ratios never realign.")


def guide_sine_geometric(dim: int, base: Any, seed: int) -> GuideStep:
    from ...model.presets import preset

    enc = preset("sine-only", dim=dim, base=base)
    report = prove(enc, theorems=["translation[row]", "dot_product", "periodicity"], seed=seed)
    trans, dot, period = report.theorems
    values: dict[str, Any] = {"dim": dim, "base": str(base), "translation": trans.status,
                              "dot_product": dot.status, "periodicity": period.status,
                              "period": (period.values or {}).get("period")}
    evidence = [f"Periodicity: **{period.status}**, {lit(period.statement)} "
                f"({lit(period.steps[1].statement) if len(period.steps) > 1 else ''})."]
    ce = trans.counterexample or {}
    if trans.status == "refuted":
        values["counterexample"] = ce
        col = ce.get("column", 0)
        evidence.append(
            f"Translation: **REFUTED**. {lit(ce.get('explanation', ''))}: "
            f"$\\mathrm{{PE}}(0) = 0$ exactly, so $\\mathrm{{PE}}(0)\\,T = 0$ for every matrix "
            f"$T$, but $\\mathrm{{PE}}(1)_{{{col}}} = {num(ce.get('lhs', 'nan'))} \\neq 0$ "
            f"(mpmath, {ce.get('dps')} digits). No matrix independent of $x$ moves the code "
            "of $x$ to the code of $x + \\Delta$.")
    else:  # pragma: no cover - the engine refutes this
        evidence.append(f"Translation: **{trans.status}** (expected a refutation).")
    dce = dot.counterexample or {}
    if dot.status == "refuted":
        evidence.append(
            f"Dot product: **REFUTED**: $\\mathrm{{PE}}({dce.get('x')})\\cdot"
            f"\\mathrm{{PE}}({dce.get('y')}) = {num(dce.get('lhs', 'nan'))}$ but "
            f"$\\mathrm{{PE}}({dce['x'] + dce['shift']})\\cdot"
            f"\\mathrm{{PE}}({dce['y'] + dce['shift']}) = {num(dce.get('rhs', 'nan'))}$: same "
            "offset, different similarity.")
    return GuideStep(
        "sine_geometric", "Sine-only dials on a slowed geometric schedule",
        rf"\mathrm{{PE}}(x)_j = \sin\!\left(x \cdot {sp.latex(sp.sympify(base))}^{{-j/d}}\right)",
        "admits no linear translation",
        f"Slow the dials down geometrically, $\\omega_j = b^{{-j/d}}$ with $b = {base}$, "
        f"shown at $d = {dim}$: the ratios are irrational, so the curve never closes.",
        evidence,
        [f"prove(preset('sine-only', dim={dim}, base={base}), "
         "theorems=['translation[row]', 'dot_product', 'periodicity'])"],
        values, "pair every sine with a cosine of the same frequency.")


def guide_pairs(enc: Encoding, report: Report) -> GuideStep:
    by = {p.name: p for p in report.theorems}
    trans = by.get("translation[row]")
    period = by.get("periodicity")
    evidence = []
    if trans is not None:
        if trans.status == "proved":
            evidence.append(
                "Translation: **proved** for this encoding (see *Proofs*, *Translation*): "
                "$\\sin(\\omega(x+\\Delta)) = \\sin(\\omega x)\\cos(\\omega\\Delta) + "
                "\\cos(\\omega x)\\sin(\\omega\\Delta)$ and "
                "$\\cos(\\omega(x+\\Delta)) = \\cos(\\omega x)\\cos(\\omega\\Delta) - "
                "\\sin(\\omega x)\\sin(\\omega\\Delta)$: each pair turns by the angle "
                "$\\omega\\Delta$, whatever $x$ is.")
        else:
            evidence.append(f"Translation: **{status_word(trans)}** for this encoding: "
                            f"{proof_reason(trans)}")
    if period is not None:
        evidence.append(f"Periodicity: **{status_word(period)}**: {lit(period.statement)}.")
    sep = next((c for c in report.checks if c.name == "separation"), None)
    if sep is not None:
        evidence.append(f"Check `separation`: **{sep.status}**: {check_result(sep)}.")
    return GuideStep(
        "sin_cos_pairs", "Sine and cosine pairs",
        r"\mathrm{PE}(x)_{2k} = \sin(\omega_k x),\quad \mathrm{PE}(x)_{2k+1} = \cos(\omega_k x)",
        "nothing: bounded, independent of L, smooth, aperiodic for irrational ratios, "
        "and translated by a rotation" if report.ok else "see the verdict of this document",
        f"Give each frequency a sine and a cosine. This document's encoding, "
        f"`{lit(enc.name)}` ($d = {enc.dim}$, layout `{enc.layout.name}`), is checked below.",
        evidence, [f"prove({_python(enc)}, general=True)", f"check({_python(enc)})"],
        {"translation": None if trans is None else trans.status,
         "periodicity": None if period is None else period.status})


def _python(enc: Encoding) -> str:
    recipe = _recipe(enc)
    return recipe[1] if recipe is not None else "encoding"



def _recipe(enc: Encoding) -> tuple[list[str], str] | None:
    """CLI options and a Python expression that rebuild ``enc`` (checked), or None."""
    from ...model.presets import PRESETS, preset

    info = enc.to_dict()
    name = enc.name
    if name not in PRESETS:
        return None
    flag = {"base": "--base", "min_timescale": "--min-timescale",
            "max_timescale": "--max-timescale", "max_period": "--max-period",
            "numerator": "--numerator", "expression": "--expression",
            "frequencies": "--frequencies", "layout": "--layout", "offset": "--offset",
            "start_index": "--start-index", "padding_idx": "--padding-idx",
            "odd_dim": "--odd-dim"}
    from ...model.presets import parameters

    allowed = parameters(PRESETS[name])
    params: dict[str, Any] = {k: v for k, v in info.get("schedule", {}).items()
                              if k in flag and k in allowed}
    if "odd_dim" in info and "odd_dim" in allowed:
        params["odd_dim"] = info["odd_dim"]
    if name == "explicit" and "frequencies" in params:
        params["frequencies"] = [f.strip() for f in str(params["frequencies"]).split(",")]
    try:
        default = preset(name, dim=enc.dim, **params)
    except (PosproofError, TypeError):
        return None
    if default.layout.name != enc.layout.name:
        params["layout"] = enc.layout.name
    if default.offset != enc.offset:
        key = {"tensor2tensor": "start_index", "fairseq": "padding_idx"}.get(name, "offset")
        params[key] = enc.offset - (1 if key == "padding_idx" else 0)
    try:
        rebuilt = preset(name, dim=enc.dim, **params)
    except (PosproofError, TypeError):
        return None
    if rebuilt.to_dict() != info:
        return None
    options = [f"--preset {name}", f"--dim {enc.dim}"]
    args = [repr(name), f"dim={enc.dim}"]
    for key, value in params.items():
        text = ", ".join(value) if isinstance(value, list) else str(value)
        shown = text if re.fullmatch(r"[\w.+-]+", text) else "'" + text.replace("'", "") + "'"
        options.append(f"{flag[key]} {shown}")
        args.append(f"{key}={value!r}" if not isinstance(value, str) or not value.isdigit()
                    else f"{key}={value}")
    return options, f"preset({', '.join(args)})"


def command_for(enc: Encoding, max_len: int, seed: int, convention: str, *,
                 general: bool = True, checks: bool = True,
                 figures: Sequence[str] | None = None,
                 guide_dim: int = GUIDE_DIM) -> str | None:
    """The command that rebuilds this document byte for byte into ``DIR``, or None.

    ``posproof derive`` when its options say everything (the figures all or
    none); otherwise a ``python -c`` call of :func:`derive` and
    :func:`write_derivation`; None for an encoding no preset rebuilds.

    >>> from posproof import preset
    >>> print(command_for(preset("vaswani", dim=4), 64, 0, "row", general=False, figures=[]))
    ... # doctest: +NORMALIZE_WHITESPACE
    posproof derive --preset vaswani --dim 4 --base 10000 --max-len 64 --no-general
    --no-figures --out DIR
    >>> print(command_for(preset("vaswani", dim=4), 64, 0, "row", checks=False, figures=[]))
    ... # doctest: +NORMALIZE_WHITESPACE
    python -c "from posproof import preset; from posproof.document.derive import derive,
    write_derivation; write_derivation(derive(preset('vaswani', dim=4, base=10000),
    max_len=64, checks=False, figures=[]), 'DIR')"
    >>> from posproof import Encoding
    >>> command_for(Encoding.from_columns([("sin", 1), ("cos", 1)]), 64, 0, "row") is None
    True
    """
    from ..plots import FIGURES

    recipe = _recipe(enc)
    if recipe is None:
        return None
    every = tuple(f.name for f in FIGURES)
    names = every if figures is None else tuple(figures)
    if checks and guide_dim == GUIDE_DIM and names in (every, ()):
        options = list(recipe[0])
        if max_len != DEFAULT_MAX_LEN:
            options.append(f"--max-len {max_len}")
        if seed:
            options.append(f"--seed {seed}")
        if convention != "row":
            options.append(f"--convention {convention}")
        if not general:
            options.append("--no-general")
        if not names:
            options.append("--no-figures")
        return "posproof derive " + " ".join(options) + " --out DIR"
    args = [recipe[1]]                 # what the CLI cannot say: derive() itself
    for key, value, default in (("max_len", max_len, DEFAULT_MAX_LEN), ("seed", seed, 0),
                                ("general", general, True), ("convention", convention, "row"),
                                ("checks", checks, True), ("figures", list(names), list(every)),
                                ("guide_dim", guide_dim, GUIDE_DIM)):
        if value != default:
            args.append(f"{key}={value!r}")
    code = ("from posproof import preset; from posproof.document.derive import derive, "
            f"write_derivation; write_derivation(derive({', '.join(args)}), 'DIR')")
    if any(c in code for c in '"$`\\!'):   # not safe inside a double-quoted shell word
        return None
    return f'python -c "{code}"'
