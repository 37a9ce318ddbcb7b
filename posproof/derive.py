"""Derivation documents: Markdown and LaTeX in which every equation and number is the toolkit's.

:func:`derive` runs the proof engine and the numeric checks on an encoding,
works through the guided derivation (from counting to rotations: the raw
index, the index over the length, binary digits, sine-only dials on binary
and on geometric frequencies, sin/cos pairs), each guess with the property it
breaks and the proof, counterexample or measurement that shows it, and
returns a :class:`Derivation`.  :meth:`Derivation.markdown` and
:meth:`Derivation.latex` render the same document model, so the two never
disagree; :func:`write_derivation` writes them with the figures of
:mod:`posproof.plots`.

Nothing in a document is typed by hand: matrices are ``sympy.latex`` of
:meth:`Encoding.translation`, proofs are the engine's steps, numbers come from
:func:`posproof.prove`, :func:`posproof.check`, NumPy or SymPy at generation
time.  A refuted statement is printed as refuted, with its counterexample.
Documents hold no dates or timings: the same inputs give the same bytes.

>>> from posproof import preset
>>> doc = derive(preset("vaswani", dim=8), max_len=2000)
>>> doc.ok, doc.exit_status()
(True, 0)
>>> [step.breaks for step in doc.guide][:3]
['unbounded', 'depends on the sequence length', 'jumps']
>>> "REFUTED" in derive(preset("sine-only", dim=4), max_len=100).markdown()
True
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import mpmath
import numpy as np
import sympy as sp

from .checks import DEFAULT_MAX_LEN, run_checks
from .encoding import DELTA, Encoding, X
from .errors import InvalidParameter, PosproofError, UnknownName, check_int
from .precise import mp_value
from .report import Check, Proof, Report
from .theorems import prove

__all__ = [
    "DOCUMENT_FORMATS",
    "Derivation",
    "GuideStep",
    "derive",
    "draw_figures_for",
    "latex_text",
    "write_derivation",
]

#: Document formats :func:`write_derivation` writes.
DOCUMENT_FORMATS = ("md", "tex")
#: Dimension of the small encodings of the guided derivation (8 binary dials).
GUIDE_DIM = 16
#: Largest d whose T(Δ) is printed in full.
FULL_MATRIX_DIM = 8


# =========================================================================== text
#: Unicode in engine statements → LaTeX that works in text and in math mode.
_UNICODE = {
    "Δ": r"\ensuremath{\Delta}", "ω": r"\ensuremath{\omega}", "θ": r"\ensuremath{\theta}",
    "λ": r"\ensuremath{\lambda}", "π": r"\ensuremath{\pi}", "φ": r"\ensuremath{\varphi}",
    "ψ": r"\ensuremath{\psi}", "ε": r"\ensuremath{\varepsilon}", "η": r"\ensuremath{\eta}",
    "γ": r"\ensuremath{\gamma}", "δ": r"\ensuremath{\delta}", "α": r"\ensuremath{\alpha}",
    "β": r"\ensuremath{\beta}", "Σ": r"\ensuremath{\Sigma}", "∑": r"\ensuremath{\sum}",
    "‖": r"\ensuremath{\|}", "·": r"\ensuremath{\cdot}", "×": r"\ensuremath{\times}",
    "−": "-", "–": "--", "—": "---", "…": r"\ldots{}", "≤": r"\ensuremath{\le}",
    "≥": r"\ensuremath{\ge}", "≠": r"\ensuremath{\neq}", "≈": r"\ensuremath{\approx}",
    "∈": r"\ensuremath{\in}", "ℤ": r"\ensuremath{\mathbb{Z}}", "ℝ": r"\ensuremath{\mathbb{R}}",
    "√": r"\ensuremath{\surd}", "∞": r"\ensuremath{\infty}", "↦": r"\ensuremath{\mapsto}",
    "→": r"\ensuremath{\to}", "⟨": r"\ensuremath{\langle}", "⟩": r"\ensuremath{\rangle}",
    "±": r"\ensuremath{\pm}", "∓": r"\ensuremath{\mp}", "⌊": r"\ensuremath{\lfloor}",
    "⌋": r"\ensuremath{\rfloor}", "⌈": r"\ensuremath{\lceil}", "⌉": r"\ensuremath{\rceil}",
    "∀": r"\ensuremath{\forall}", "°": r"\ensuremath{^\circ}", "ᵀ": r"\ensuremath{^{\mathsf{T}}}",
    "²": r"\ensuremath{^2}", "³": r"\ensuremath{^3}", "⁻": r"\ensuremath{^-}",
    "¹": r"\ensuremath{^1}", "⁰": r"\ensuremath{^0}", "ᵢ": r"\ensuremath{_i}",
    "✓": r"\ensuremath{\checkmark}", "✗": r"\ensuremath{\times}", "“": "``", "”": "''",
    "‘": "`", "’": "'", "\u00a0": "~", "\u2009": r"\,", "\u202f": r"\,",
    **{chr(0x2080 + i): rf"\ensuremath{{_{i}}}" for i in range(10)},
    **{chr(c): rf"\ensuremath{{^{i}}}" for i, c in ((4, 0x2074), (5, 0x2075), (6, 0x2076),
                                                      (7, 0x2077), (8, 0x2078), (9, 0x2079))},
}
_TEX_SPECIAL = {
    "\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&", "#": r"\#",
    "%": r"\%", "_": r"\_", "^": r"\textasciicircum{}", "~": r"\textasciitilde{}",
    "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}", '"': "''",
}


def latex_text(text: str) -> str:
    r"""Text (engine statements, notes) as LaTeX text: specials escaped, unicode converted.

    The result is ASCII; characters without a translation become ``?``.

    >>> print(latex_text("‖PE(x)‖² ≤ 1 & 50% of dims_k"))
    \ensuremath{\|}PE(x)\ensuremath{\|}\ensuremath{^2} \ensuremath{\le} 1 \& 50\% of dims\_k
    """
    out = []
    for ch in str(text):
        if ch in _TEX_SPECIAL:
            out.append(_TEX_SPECIAL[ch])
        elif ch in _UNICODE:
            out.append(_UNICODE[ch])
        elif ord(ch) < 128:
            out.append(ch)
        else:
            out.append("?")
    return "".join(out)


_MD_SPECIAL = set("\\`*_[]<>|$~#")


def _md_text(text: str) -> str:
    return "".join("\\" + ch if ch in _MD_SPECIAL else ch for ch in text)


def _lit(text: Any) -> str:
    """A raw string made safe for the document markup (``$``, ``*``, backticks literal)."""
    return re.sub(r"([\\$*`])", r"\\\1", str(text))


_TOKEN = re.compile(r"\\(.)|\$([^$]+)\$|\*\*(.+?)\*\*|\*([^*]+)\*|`([^`]+)`", re.S)


def _inline(text: str, fmt: str) -> str:
    """Render the document markup: ``$math$``, ``**bold**``, ``*italic*``, ```code```, ``\\x``."""
    out, pos = [], 0
    plain = _md_text if fmt == "md" else latex_text

    def flush(upto: int) -> None:
        if upto > pos:
            out.append(plain(text[pos:upto]))

    for m in _TOKEN.finditer(text):
        flush(m.start())
        escaped, math_, bold, italic, code = m.groups()
        if escaped is not None:
            out.append(plain(escaped))
        elif math_ is not None:
            out.append(f"${math_.strip()}$")
        elif bold is not None:
            inner = _inline(bold, fmt)
            out.append(f"**{inner}**" if fmt == "md" else rf"\textbf{{{inner}}}")
        elif italic is not None:
            inner = _inline(italic, fmt)
            out.append(f"*{inner}*" if fmt == "md" else rf"\emph{{{inner}}}")
        else:
            code = re.sub(r"\\(.)", r"\1", code)
            if fmt == "md":
                out.append(f"`{code}`")
            else:
                out.append(r"\texttt{" + _breakable(latex_text(code)) + "}")
        pos = m.end()
    flush(len(text))
    return "".join(out)


# =========================================================================== document model
@dataclass
class _Block:
    kind: str
    text: str = ""
    level: int = 0
    items: list[Any] = field(default_factory=list)
    extra: Any = None


class _Doc:
    """A small document model rendered to Markdown (GitHub math) and to LaTeX."""

    def __init__(self) -> None:
        self.blocks: list[_Block] = []

    def h(self, level: int, text: str, label: str | None = None) -> None:
        self.blocks.append(_Block("h", text, level, extra=label))

    def p(self, text: str) -> None:
        self.blocks.append(_Block("p", text))

    def math(self, latex: str) -> None:
        self.blocks.append(_Block("math", latex))

    def ul(self, items: Sequence[str]) -> None:
        self.blocks.append(_Block("ul", items=list(items)))

    def ol(self, items: Sequence[str]) -> None:
        self.blocks.append(_Block("ol", items=list(items)))

    def table(self, header: Sequence[str], rows: Sequence[Sequence[str]], spec: str) -> None:
        self.blocks.append(_Block("table", items=[list(header), *map(list, rows)], extra=spec))

    def figure(self, path: str, caption: str) -> None:
        self.blocks.append(_Block("figure", caption, extra=path))

    def code(self, text: str) -> None:
        self.blocks.append(_Block("code", text))

    def note(self, text: str) -> None:
        self.blocks.append(_Block("note", text))

    # ------------------------------------------------------------------ Markdown
    def markdown(self) -> str:
        out: list[str] = []
        for b in self.blocks:
            if b.kind == "h":
                out.append("#" * b.level + " " + _inline(b.text, "md"))
            elif b.kind == "p":
                out.append(_inline(b.text, "md"))
            elif b.kind == "note":
                out.append("> " + _inline(b.text, "md"))
            elif b.kind == "math":
                out.append("$$\n" + b.text.strip() + "\n$$")
            elif b.kind in ("ul", "ol"):
                out.append("\n".join(
                    ("- " if b.kind == "ul" else f"{i}. ") + _inline(item, "md")
                    for i, item in enumerate(b.items, start=1)))
            elif b.kind == "table":
                header, *rows = b.items
                lines = ["| " + " | ".join(_inline(c, "md") for c in header) + " |",
                         "|" + "|".join("---" for _ in header) + "|"]
                lines += ["| " + " | ".join(_inline(c, "md") for c in row) + " |" for row in rows]
                out.append("\n".join(lines))
            elif b.kind == "figure":
                out.append(f"![{_md_text(_plain(b.text))}]({b.extra}.png)\n\n"
                           f"*{_inline(b.text, 'md')}*")
            elif b.kind == "code":
                out.append("```console\n" + b.text.rstrip() + "\n```")
        return "\n\n".join(out) + "\n"

    # ------------------------------------------------------------------ LaTeX
    def latex(self, title: str) -> str:
        body: list[str] = []
        sections = {1: None, 2: "section", 3: "subsection", 4: "subsubsection"}
        for b in self.blocks:
            if b.kind == "h":
                if b.level == 1:
                    continue
                cmd = sections.get(b.level, "paragraph")
                label = f"\\label{{{b.extra}}}" if b.extra else ""
                body.append(f"\\{cmd}*{{{_inline(b.text, 'tex')}}}{label}")
            elif b.kind == "p":
                body.append(_inline(b.text, "tex"))
            elif b.kind == "note":
                body.append("\\begin{quote}\\itshape " + _inline(b.text, "tex") + "\\end{quote}")
            elif b.kind == "math":
                body.append("\\begin{equation*}\n" + b.text.strip() + "\n\\end{equation*}")
            elif b.kind in ("ul", "ol"):
                env = "itemize" if b.kind == "ul" else "enumerate"
                items = "\n".join(f"  \\item {_inline(item, 'tex')}" for item in b.items)
                body.append(f"\\begin{{{env}}}\n{items}\n\\end{{{env}}}")
            elif b.kind == "table":
                header, *rows = b.items
                lines = [f"\\begin{{tabularx}}{{\\linewidth}}{{{b.extra}}}", "\\toprule",
                         " & ".join(_inline(c, "tex") for c in header) + r" \\", "\\midrule"]
                lines += [" & ".join(_inline(c, "tex") for c in row) + r" \\" for row in rows]
                lines += ["\\bottomrule", "\\end{tabularx}"]
                body.append("{\\small\n" + "\n".join(lines) + "\n}")
            elif b.kind == "figure":
                body.append("\\begin{figure}[H]\n\\centering\n"
                            f"\\includegraphics[width=\\linewidth,height=0.42\\textheight,"
                            f"keepaspectratio]{{{b.extra}.png}}\n"
                            f"\\caption*{{{_inline(b.text, 'tex')}}}\n\\end{{figure}}")
            elif b.kind == "code":
                text = b.text.rstrip().encode("ascii", "replace").decode("ascii")
                body.append("\\begin{verbatim}\n" + text + "\n\\end{verbatim}")
        return _PREAMBLE.replace("@TITLE@", _inline(title, "tex")) + "\n\n".join(body) + \
            "\n\n\\end{document}\n"


def _breakable(tex: str) -> str:
    """Let LaTeX break long code after ``,``, ``(``, ``.``, ``=`` and ``/``; no ``--`` ligature."""
    tex = tex.replace("-", "-{}")
    return re.sub(r"([,(.=/])(?![^{]*\})", r"\1\\allowbreak{}", tex)


def _plain(text: str) -> str:
    """The markup without its marks (for alt texts)."""
    return re.sub(r"\\(.)|\*\*|`|\$", lambda m: m.group(1) or "", text)


_PREAMBLE = r"""% Generated by posproof derive: every equation and number below was produced and
% checked by posproof. Do not edit by hand; regenerate instead.
\documentclass[10pt,a4paper]{article}
\usepackage[margin=2.2cm]{geometry}
\usepackage{amsmath,amssymb}
\usepackage{graphicx}
\usepackage{booktabs,tabularx}
\usepackage{caption,float}
\usepackage[hidelinks]{hyperref}
\setcounter{MaxMatrixCols}{20}
\renewcommand{\tabularxcolumn}[1]{>{\raggedright\arraybackslash}p{#1}}
\renewcommand{\labelitemi}{\ensuremath{\bullet}}  % cmsy, not a bitmap TS1 font
\setlength{\parindent}{0pt}
\setlength{\parskip}{0.6ex plus 0.3ex}
\sloppy
\title{@TITLE@}
\author{generated by posproof}
\date{}
\begin{document}
\maketitle

"""


# =========================================================================== numbers
def _n(value: Any, digits: int = 12) -> str:
    """A number (mpmath string, float, int) with at most ``digits`` significant digits."""
    import mpmath

    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return str(int(value))
    if isinstance(value, str):
        try:
            value = mpmath.mpf(value)
        except (ValueError, TypeError):
            return value
    return mpmath.nstr(mpmath.mpf(value), digits, min_fixed=-4, max_fixed=7)


def _up(value: float) -> str:
    """A float64 rounding-level number as a bound with one significant digit: ``< 2e-10``.

    >>> _up(1.744e-10), _up(0.0)
    ('< 2e-10', '= 0')
    """
    value = abs(float(value))
    if value == 0:
        return "= 0"
    exponent = math.floor(math.log10(value))
    mantissa = math.floor(value / 10 ** exponent + 1e-9) + 1
    if mantissa == 10:
        mantissa, exponent = 1, exponent + 1
    return f"< {mantissa}e{exponent}" if not -3 <= exponent <= 2 else \
        f"< {mantissa * 10.0 ** exponent:g}"


def _tidy(expr: Any) -> sp.Expr:
    """Drop unit factors from unevaluated products (``1*x`` → ``x``) for printing only."""
    expr = sp.sympify(expr)

    def fix(e: sp.Expr) -> sp.Expr:
        if e.is_Mul:
            args = [a for a in e.args if a != 1]
            if not args:
                return sp.Integer(1)
            return args[0] if len(args) == 1 else sp.Mul(*args, evaluate=False)
        return e
    return expr.replace(lambda e: e.is_Mul and any(a == 1 for a in e.args), fix)


def _tex(expr: Any) -> str:
    return sp.latex(_tidy(expr))


def _pow2(value: int) -> str:
    """``512`` → ``2^{9}`` when a power of two (LaTeX), else the integer."""
    if value > 0 and value & (value - 1) == 0 and value >= 4:
        return f"2^{{{value.bit_length() - 1}}}"
    return str(value)


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


def _guide_raw(length: int) -> GuideStep:
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


def _guide_ratio(length: int) -> GuideStep:
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


def _guide_binary_digits(bits: int) -> GuideStep:
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
         f"{_n(steps[0])}$ but $\\lVert \\mathrm{{PE}}({worst + 1}) - \\mathrm{{PE}}({worst}) "
         f"\\rVert = \\sqrt{{{round(steps[worst] ** 2)}}} \\approx {_n(steps[worst], 4)}$ "
         f"({round(steps[worst] ** 2)} digits flip at once)."],
        [f"(numpy.arange({2 ** bits})[:, None] >> numpy.arange({bits})) & 1"],
        {"bits": bits, "distinct_rows": distinct, "min_step": float(steps.min()),
         "max_step_squared": round(steps.max() ** 2), "max_step_at": worst},
        "each digit becomes a smooth dial.")


def _guide_sine_binary(dials: int, dim: int, seed: int) -> GuideStep:
    from .presets import preset

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
            f"The proof engine finds the exact period $P = {_pow2(p)} = {p}$: "
            f"{_lit(own.steps[-1].statement)} (**{own.status}**).")
        evidence.append(
            f"The sin/cos binary preset has the same period, {_lit(pairs.statement)} "
            f"(**{pairs.status}**): the schedule is at fault, not the sine.")
        evidence.append(
            f"Measured: check `separation` over {2 * p} positions is **{sep.status}**: "
            f"{_lit(sep.values.get('summary', ''))}, distance "
            f"{_n(sep.values.get('min_distance_mp', 'nan'))} in mpmath at 50 digits.")
    else:  # pragma: no cover - the engine proves this period
        evidence.append(f"The proof engine answered **{own.status}**: {_lit(own.note or '')}")
    if dim != 2 * dials and dim <= 4096:
        big = prove(preset("binary", dim=dim), theorems=["periodicity"], seed=seed).theorems[0]
        if big.status == "proved" and big.exact is not None:
            q = int(big.exact) if big.exact.is_Integer else None
            calls.append(f"prove(preset('binary', dim={dim}), theorems=['periodicity'])")
            values["period_at_dim"] = str(big.exact)
            shown = f"{_pow2(q)}" if q is not None else sp.latex(big.exact)
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


def _guide_sine_geometric(dim: int, base: Any, seed: int) -> GuideStep:
    from .presets import preset

    enc = preset("sine-only", dim=dim, base=base)
    report = prove(enc, theorems=["translation[row]", "dot_product", "periodicity"], seed=seed)
    trans, dot, period = report.theorems
    values: dict[str, Any] = {"dim": dim, "base": str(base), "translation": trans.status,
                              "dot_product": dot.status, "periodicity": period.status,
                              "period": (period.values or {}).get("period")}
    evidence = [f"Periodicity: **{period.status}**, {_lit(period.statement)} "
                f"({_lit(period.steps[1].statement) if len(period.steps) > 1 else ''})."]
    ce = trans.counterexample or {}
    if trans.status == "refuted":
        values["counterexample"] = ce
        col = ce.get("column", 0)
        evidence.append(
            f"Translation: **REFUTED**. {_lit(ce.get('explanation', ''))}: "
            f"$\\mathrm{{PE}}(0) = 0$ exactly, so $\\mathrm{{PE}}(0)\\,T = 0$ for every matrix "
            f"$T$, but $\\mathrm{{PE}}(1)_{{{col}}} = {_n(ce.get('lhs', 'nan'))} \\neq 0$ "
            f"(mpmath, {ce.get('dps')} digits). No matrix independent of $x$ moves the code "
            "of $x$ to the code of $x + \\Delta$.")
    else:  # pragma: no cover - the engine refutes this
        evidence.append(f"Translation: **{trans.status}** (expected a refutation).")
    dce = dot.counterexample or {}
    if dot.status == "refuted":
        evidence.append(
            f"Dot product: **REFUTED**: $\\mathrm{{PE}}({dce.get('x')})\\cdot"
            f"\\mathrm{{PE}}({dce.get('y')}) = {_n(dce.get('lhs', 'nan'))}$ but "
            f"$\\mathrm{{PE}}({dce['x'] + dce['shift']})\\cdot"
            f"\\mathrm{{PE}}({dce['y'] + dce['shift']}) = {_n(dce.get('rhs', 'nan'))}$: same "
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


def _guide_pairs(enc: Encoding, report: Report) -> GuideStep:
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
            evidence.append(f"Translation: **{_status_word(trans)}** for this encoding: "
                            f"{_proof_reason(trans)}")
    if period is not None:
        evidence.append(f"Periodicity: **{_status_word(period)}**: {_lit(period.statement)}.")
    sep = next((c for c in report.checks if c.name == "separation"), None)
    if sep is not None:
        evidence.append(f"Check `separation`: **{sep.status}**: {_check_result(sep)}.")
    return GuideStep(
        "sin_cos_pairs", "Sine and cosine pairs",
        r"\mathrm{PE}(x)_{2k} = \sin(\omega_k x),\quad \mathrm{PE}(x)_{2k+1} = \cos(\omega_k x)",
        "nothing: bounded, independent of L, smooth, aperiodic for irrational ratios, "
        "and translated by a rotation" if report.ok else "see the verdict of this document",
        f"Give each frequency a sine and a cosine. This document's encoding, "
        f"`{_lit(enc.name)}` ($d = {enc.dim}$, layout `{enc.layout.name}`), is checked below.",
        evidence, [f"prove({_python(enc)}, general=True)", f"check({_python(enc)})"],
        {"translation": None if trans is None else trans.status,
         "periodicity": None if period is None else period.status})


def _python(enc: Encoding) -> str:
    recipe = _recipe(enc)
    return recipe[1] if recipe is not None else "encoding"


def _status_word(p: Proof) -> str:
    return {"proved": "proved", "refuted": "REFUTED", "unknown": "unknown (not proved)"}[p.status]


def _proof_reason(p: Proof) -> str:
    if p.status == "refuted":
        return "counterexample " + _counterexample(p.counterexample or {})
    if p.status == "unknown":
        return _lit(p.note or "the engine could neither prove nor refute it")
    return ""


def _counterexample(ce: dict[str, Any]) -> str:
    shown = []
    for key in ("x", "y", "delta", "shift", "column", "columns"):
        if key in ce:
            name = {"delta": "Δ"}.get(key, key)
            shown.append(f"{name} = {ce[key]}")
    text = ", ".join(shown)
    if "lhs" in ce and "rhs" in ce:
        text += f": left side {_n(ce['lhs'])}, right side {_n(ce['rhs'])}"
    if "residual" in ce:
        text += f", residual {_n(ce['residual'], 6)}"
    if ce.get("dps"):
        text += f" (confirmed in mpmath at {ce['dps']} digits)"
    if ce.get("explanation"):
        text += f"; {ce['explanation']}"
    return _lit(text)


# =========================================================================== checks rendering
def _check_result(c: Check) -> str:
    """One line per check, from values that do not depend on the BLAS (bounds for float64
    noise), with the check's note when it fails."""
    if c.values.get("applicable") is False:
        return _lit(c.note or "not applicable")
    try:
        text = _check_text(c)
    except (KeyError, TypeError, ValueError):  # pragma: no cover - a check changed shape
        text = None
    return _lit(_with_note(text if text is not None else str(c.values.get("summary", "")), c))


def _check_text(c: Check) -> str | None:
    v, name = c.values, c.name
    if name == "bounds" and "max_abs_entry" in v:
        text = f"max |PE_i| = {_n(v['max_abs_entry'], 6)} ≤ 1 on {v['rows']} rows"
        if v.get("max_norm_deviation") is not None:
            text += (f"; ‖PE(x)‖ − √{round(v['norm_expected'] ** 2)} "
                     f"{_up(v['max_norm_deviation'])}")
        return text
    if name == "separation" and v.get("min_distance_mp") is not None:
        return (f"min ‖PE(x+Δ) − PE(x)‖ = {_n(v['min_distance_mp'])} at Δ = "
                f"{v['at_offset']}, over Δ = 1 … {v['length'] - 1}")
    if name == "near_return" and "closest_distance_mp" in v:
        lo, hi = v["range"]
        return (f"closest return {_n(v['closest_distance_mp'])} at Δ = {v['at_offset']} "
                f"in [{lo}, {hi}); first Δ closer than neighbouring positions: "
                f"{v['effective_period']}")
    if name == "translation_residual" and "max_residual" in v:
        return (f"max |PE(x+Δ) − PE(x)·T(Δ)| {_up(v['max_residual'])}, at most "
                f"{_up(v['max_residual_over_tolerance'])[2:]} of its rounding "
                f"tolerance, at {v['pairs']} random pairs with x ≤ {v['x_max']}")
    if name == "toeplitz" and "blocks" in v:
        worst = max(b["deviation"] for b in v["blocks"])
        rows = ", ".join(f"{b['rows']} rows from x = {b['first_position']}" for b in v["blocks"])
        verdict = "Toeplitz" if c.ok else "NOT Toeplitz"
        return f"Gram matrix {verdict}: max |G[i,j] − G[i+1,j+1]| {_up(worst)} ({rows})"
    return None


def _with_note(text: str, c: Check) -> str:
    if c.note and c.status == "fail" and c.note not in text:
        text += f" — {c.note}"
    return text


# =========================================================================== the derivation
@dataclass
class Derivation:
    """Everything a derivation document says, computed; render with :meth:`markdown`/:meth:`latex`.

    ``report`` holds the encoding's theorems (concrete and, with
    ``general``, for every even d) and its numeric checks; ``guide`` the
    guided derivation; ``extras`` the translation-matrix demonstrations.

    >>> from posproof import preset
    >>> doc = derive(preset("vaswani", dim=4), max_len=100, general=False, figures=[])
    >>> sorted(doc.to_dict())[:4], doc.latex().splitlines()[2].endswith("{article}")
    (['checks', 'command', 'encoding', 'guide'], True)
    """

    encoding: Encoding
    report: Report
    guide: list[GuideStep]
    max_len: int
    seed: int
    convention: str
    command: str
    extras: dict[str, Any] = field(default_factory=dict)
    figures: tuple[str, ...] = ()
    _documents: dict[str, _Doc] = field(default_factory=dict, repr=False, compare=False)

    @property
    def ok(self) -> bool:
        """True when every theorem about the encoding is proved and every check passes."""
        return self.report.ok

    def exit_status(self) -> int:
        """0 when :attr:`ok`, 1 otherwise (the guided derivation's refutations do not count)."""
        return self.report.exit_status()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the report's ``theorems`` and ``checks``, and the guided steps."""
        out = self.report.to_dict()
        out["guide"] = [g.to_dict() for g in self.guide]
        out["command"] = self.command
        return out

    def title(self) -> str:
        enc = self.encoding
        return f"Deriving the positional encoding `{_lit(enc.name)}`, $d = {enc.dim}$"

    def markdown(self, figure_dir: str = "figures") -> str:
        """The document in GitHub Markdown (``$…$`` and ``$$…$$`` math)."""
        return self._doc(figure_dir).markdown()

    def latex(self, figure_dir: str = "figures") -> str:
        """The document as a standalone LaTeX file (pdflatex; packages of texlive-latex-*)."""
        return self._doc(figure_dir).latex(self.title())

    # ------------------------------------------------------------------ the document
    def _doc(self, figure_dir: str) -> _Doc:
        """The document model, built once per figure directory (both formats share it)."""
        if figure_dir not in self._documents:
            self._documents[figure_dir] = self._build(figure_dir)
        return self._documents[figure_dir]

    def _build(self, figure_dir: str) -> _Doc:
        doc = _Doc()
        _enc, report = self.encoding, self.report
        doc.h(1, self.title())
        doc.p("Every equation, matrix and number in this document was produced by posproof "
              "at generation time: matrices by SymPy from the encoding itself, proofs by the "
              "proof engine (each cross-checked in mpmath at random large positions), "
              "counterexamples confirmed in mpmath, measurements by NumPy and certified in "
              "mpmath. Regenerate it with:")
        doc.code(_wrap_command(f"$ {self.command}"))
        doc.p(f"**Verdict: {_verdict(report)}**")
        if not report.ok:
            bad = [p for p in report.theorems if p.status != "proved"]
            bad_checks = [c for c in report.checks if not c.ok]
            items, grouped = [], {}
            for p in bad:
                if p.general:
                    grouped.setdefault((p.status, _proof_reason(p)), []).append(p.name)
                else:
                    items.append(f"`{_lit(p.name)}`: **{_status_word(p)}** — {_proof_reason(p)}")
            for (status, reason), names in grouped.items():
                items.append(f"{len(names)} theorem(s) for every even d "
                             f"(`{_lit(names[0])}` …): **{_status_word(Proof('', '', status))}**"
                             f" — {reason}")
            items += [f"check `{c.name}`: **fail** — {_check_result(c)}" for c in bad_checks]
            doc.note("This encoding does not satisfy everything the sinusoidal encoding is "
                     "known for. What fails is stated plainly below, with its counterexample.")
            doc.ul(items)
        self._encoding_section(doc)
        self._guide_section(doc)
        self._proofs_section(doc)
        self._checks_section(doc)
        if self.figures:
            self._figures_section(doc, figure_dir)
        doc.h(2, "How to read this document")
        doc.ul([
            "**proved**: the proof engine reduced the statement to identities that expand to "
            "exactly 0 (never by a numeric test alone), then evaluated it in mpmath at random "
            "points, large positions included.",
            "**REFUTED**: a counterexample was found and confirmed in mpmath at 50 digits; the "
            "statement is false for this encoding.",
            "**unknown**: neither a proof nor a counterexample; nothing is claimed.",
            "**pass / fail**: numeric checks in float64 with a rigorous error bound; the "
            "numbers that decide them are recomputed in mpmath (see *certified*).",
        ])
        return doc

    def _encoding_section(self, doc: _Doc) -> None:
        enc = self.encoding
        info = enc.to_dict()
        doc.h(2, "The encoding")
        rows = [["name", f"`{_lit(enc.name)}`"], ["dimension", f"$d = {enc.dim}$ "
                f"($n = {enc.n_pairs}$ pairs)"], ["layout", f"`{enc.layout.name}` — "
                f"{_lit(enc.layout.description)}"], ["first position", str(enc.offset)]]
        if enc.schedule is not None:
            rows.insert(1, ["schedule", f"`{enc.schedule.family}`"])
            general = enc.schedule.general()
            if general is not None:
                rows.insert(2, ["frequency", f"$\\omega_k = {sp.latex(general)}$"])
            for key, value in enc.schedule.params().items():
                rows.append([_lit(key), _lit(value)])
        if enc.padding_idx is not None:
            rows.append(["padding row", f"position {enc.padding_idx} is all zeros"])
        if "odd_dim" in info:
            rows.append(["odd d", "one zero column appended"])
        doc.table(["property", "value"], rows, "@{}lX@{}")
        freqs = enc.frequencies
        if freqs:
            shown = [(k, f) for k, f in enumerate(freqs)][:3]
            tail = [(len(freqs) - 1, freqs[-1])] if len(freqs) > 3 else []
            parts = [f"\\omega_{{{k}}} = {_tex(f)}" for k, f in shown]
            if tail:
                parts.append("\\ldots")
                parts += [f"\\omega_{{{k}}} = {_tex(f)}" for k, f in tail]
            doc.p("Its exact frequencies (SymPy), first and last:")
            doc.math(",\\quad ".join(parts))
            lo = mp_value(2 * sp.pi / freqs[0], 30)
            hi_expr = 2 * sp.pi / freqs[-1]
            hi = mp_value(hi_expr, 30)
            doc.p(f"so the wavelengths $2\\pi/\\omega_k$ run from {_n(lo, 10)} to "
                  f"$2\\pi/\\omega_{{{len(freqs) - 1}}} = {_tex(sp.nsimplify(hi_expr))}"
                  f" \\approx {_n(hi, 10)}$ positions.")
            params = enc.schedule.params() if enc.schedule is not None else {}
            base = params.get("base") or params.get("max_timescale")
            if base is not None and enc.schedule is not None and \
                    enc.schedule.family in ("geometric", "tensor2tensor"):
                claimed = 2 * sp.pi * sp.sympify(base)
                close = abs(hi - mp_value(claimed, 30)) < mpmath.mpf(10) ** -20 * hi
                exact = close and bool(sp.simplify(hi_expr - claimed) == 0)
                claim = f"$2\\pi$ to ${sp.latex(sp.sympify(base))}\\cdot 2\\pi$"
                doc.p(f"The original paper's \"from {claim}\""
                      f" ($\\approx {_n(mp_value(claimed, 30), 10)}$) holds "
                      + ("**exactly** for this schedule." if exact else
                         f"only approximately here: the slowest wavelength is "
                         f"{_n(hi / mp_value(claimed, 30), 6)} of it (exactly "
                         f"${_tex(sp.nsimplify(hi_expr / claimed))}$)."))
        vec = enc.vector()
        cols = list(range(min(enc.dim, 4)))
        entries = [_tex(vec[j]) for j in cols]
        if enc.dim > 6:
            entries += ["\\ldots", _tex(vec[enc.dim - 2]), _tex(vec[enc.dim - 1])]
        elif enc.dim > 4:
            entries += [_tex(vec[j]) for j in range(4, enc.dim)]
        doc.p("The exact row vector, as `Encoding.vector()` builds it:")
        doc.math("\\mathrm{PE}(x) = \\left(" + ",\\ ".join(entries) + "\\right)")

    def _guide_section(self, doc: _Doc) -> None:
        doc.h(2, "From counting to rotations: a guided derivation")
        doc.p("Each guess below fixes the previous one and breaks something else. What it "
              "breaks is not asserted: it is computed, proved or refuted by posproof, with "
              "the numbers shown.")
        for i, step in enumerate(self.guide, start=1):
            doc.h(3, f"{i}. {step.title}")
            doc.math(step.formula)
            doc.p(step.text)
            doc.p(f"**Breaks: {step.breaks}.**")
            doc.ul(step.evidence)
            if step.fixes:
                doc.p(f"What the next guess keeps in view: {step.fixes}")
            doc.p("Computed by:")
            doc.ul([f"`{_lit(c)}`" for c in step.calls])
        rows = [[str(i), _lit(g.title), _lit(g.breaks)] for i, g in enumerate(self.guide, start=1)]
        doc.p("In one table:")
        doc.table(["", "guess", "breaks"], rows, "@{}lXX@{}")

    def _proofs_section(self, doc: _Doc) -> None:
        _enc, report = self.encoding, self.report
        by = {p.name: p for p in report.theorems}
        doc.h(2, "Proofs")
        doc.p("Each proof is the engine's own sequence of steps (statement, then the rule "
              "used). `expand_trig` means the identity was expanded to exactly 0 by SymPy for "
              "a free frequency symbol $w$, so one generic identity covers every pair.")
        doc.h(3, "Translation", label="translation")
        self._translation_matrix(doc)
        for name in ("translation[row]", "translation[column]"):
            if name in by:
                self._proof(doc, by[name])
                if name == "translation[column]" and by[name].status == "proved":
                    doc.p("The engine proves the column form through its transpose: "
                          "$\\mathrm{PE}(x+\\Delta)^{\\mathsf T} = T_c(\\Delta)\\,"
                          "\\mathrm{PE}(x)^{\\mathsf T}$ is $\\mathrm{PE}(x+\\Delta) = "
                          "\\mathrm{PE}(x)\\,T_c(\\Delta)^{\\mathsf T}$, so the generic block in "
                          "its steps is the row block; the column block $T_c$ is its transpose.")
        claim = self.extras.get("transposed")
        if claim is not None:
            doc.h(4, "The transposed block: a classic bug")
            doc.p(f"Claimed (wrongly), on the same schedule and layout at $d = "
                  f"{claim['dim']}$, in the {self.convention} convention:")
            doc.math(claim["block"])
            self._proof(doc, claim["proof"], heading=False)
        sections = [
            ("The dot product depends on the offset only", ["dot_product"]),
            ("Norm and bounds", ["norm", "bounded"]),
            ("Structure of T", ["orthogonal", "determinant", "identity_at_zero", "group_law",
                                "inverse_is_transpose"]),
            ("Layouts are permutations of each other", ["layout_equivalence"]),
            ("Periodicity", ["periodicity"]),
        ]
        for title, names in sections:
            present = [by[n] for n in names if n in by]
            if not present:
                continue
            doc.h(3, title)
            for p in present:
                self._proof(doc, p)
        general = [p for p in report.theorems if p.general]
        if general:
            doc.h(3, "For every even d at once")
            doc.p("The same theorems with a symbolic pair index $k$ (the layout's columns are "
                  "affine in $k$, so one generic pair identity covers every $d$), each "
                  "cross-checked numerically at random even $d$.")
            rows = []
            for p in general:
                cc = p.crosscheck or {}
                how = (f"dims {cc.get('dims')}, max residual {cc.get('max_residual')}"
                       if cc else _proof_reason(p))
                rows.append([f"`{_lit(p.name)}`", f"**{_status_word(p)}**", _lit(how)])
            doc.table(["theorem", "status", "cross-check"], rows, "@{}llX@{}")
            if general[0].steps:
                doc.p("The argument, as the engine states it:")
                doc.ol([f"{_lit(s.statement)} (*{_lit(s.rule)}*)" for s in general[0].steps[:2]])

    def _translation_matrix(self, doc: _Doc) -> None:
        enc = self.encoding
        conv = self.convention
        if enc.broken_pairs():
            doc.p("No translation matrix exists for this encoding: " +
                  "; ".join(_lit(p) for p in enc.broken_pairs()[:3]) + ".")
            return
        if enc.n_pairs == 0:  # pragma: no cover - d = 1
            doc.p("This encoding has no (sin, cos) pair.")
            return
        eq = ("\\mathrm{PE}(x+\\Delta) = \\mathrm{PE}(x)\\,T(\\Delta)" if conv == "row" else
              "\\mathrm{PE}(x+\\Delta)^{\\mathsf T} = T(\\Delta)\\,\\mathrm{PE}(x)^{\\mathsf T}")
        doc.p(f"In the **{conv}** convention ($\\mathrm{{PE}}$ a row vector"
              + (", multiplied on the right" if conv == "row" else
                 ", transposed to a column and multiplied on the left") + "):")
        doc.math(eq)
        t = enc.translation_entries(DELTA, convention=conv)     # the entries of translation()
        shown = sorted({0, 1, enc.n_pairs - 1} & set(range(enc.n_pairs)))
        for k in shown:
            s, c = enc.pairs[k]
            i, j = sorted((s, c))
            names = {s: "sin", c: "cos"}
            cells = ((i, i), (i, j), (j, i), (j, j))
            block = sp.Matrix(2, 2, [_tidy(t.get(ij, 0)) for ij in cells])
            doc.p(f"Pair $k = {k}$ sits in rows and columns ${i}, {j}$ "
                  f"({names[i]}, {names[j]}); its block of `Encoding.translation"
                  f"(convention='{conv}')`:")
            doc.math(f"T(\\Delta)_{{[{i},{j}]}} = {sp.latex(block)}")
        small = self.extras.get("structure")
        if small is not None:
            doc.p(small["text"])
            doc.math(small["latex"])

    def _proof(self, doc: _Doc, p: Proof, heading: bool = True) -> None:
        status = _status_word(p)
        if heading:
            doc.p(f"**`{_lit(p.name)}` — {status}.** {_lit(p.statement)}.")
        else:
            doc.p(f"**{status}.** {_lit(p.statement)}.")
        if p.status == "refuted":
            doc.note(f"REFUTED: this statement is false for this encoding. Counterexample: "
                     f"{_counterexample(p.counterexample or {})}.")
        steps = []
        for s in p.steps:
            text = f"{_lit(s.statement)} (*{_lit(s.rule)}*)"
            steps.append(text)
        if steps:
            doc.ol(steps)
        for s in p.steps:
            if s.latex:
                doc.math(s.latex)
        if p.latex and p.name == "periodicity":
            doc.math(f"P = {p.latex}")
        if p.status == "proved" and p.crosscheck:
            cc = p.crosscheck
            if "points" in cc:
                pts = ", ".join(f"({a}, {b})" for a, b in cc["points"])
                doc.p(f"Cross-checked in mpmath at {cc.get('dps')} digits at (x, Δ or y) = "
                      f"{_lit(pts)}: largest residual {_lit(cc.get('max_residual'))}.")
            elif "method" in cc:
                doc.p(f"Checked: {_lit(cc['method'])}.")
        if p.status == "unknown" and p.note:
            doc.p(f"Not proved: {_lit(p.note)}.")

    def _checks_section(self, doc: _Doc) -> None:
        checks = self.report.checks
        if not checks:
            return
        doc.h(2, "Numeric checks")
        doc.p(f"Positions $0 \\ldots L-1$ with $L = {self.max_len}$ (offsets from "
              f"{self.encoding.offset}), seed {self.seed}. Pairwise questions go through the "
              "offset kernel $f(\\Delta) = \\sum_k \\cos(\\omega_k\\Delta)$ (the dot-product "
              "theorem); float64 rounding noise is shown as a bound (`<`).")
        rows = [[f"`{c.name}`", f"**{c.status}**", _check_result(c)] for c in checks]
        doc.table(["check", "status", "result"], rows, "@{}llX@{}")
        doc.p("How each number was certified:")
        doc.ul([f"`{c.name}`: {_lit(c.certified or 'nothing to certify')}" for c in checks])

    def _figures_section(self, doc: _Doc, figure_dir: str) -> None:
        from .plots import FIGURES

        doc.h(2, "Figures")
        captions = {f.name: f.caption for f in FIGURES}
        for name in self.figures:
            doc.figure(f"{figure_dir}/{name}", _lit(captions.get(name, name)))


def _wrap_command(command: str, width: int = 78) -> str:
    """Break a long shell command before options, with backslash continuations.

    >>> print(_wrap_command("$ posproof derive --preset x --dim 8 --out DIR", width=28))
    $ posproof derive \\
        --preset x --dim 8 \\
        --out DIR
    """
    parts = re.split(r" (?=--)", command)
    lines, line = [], parts[0]
    for part in parts[1:]:
        if len(line) + 1 + len(part) + 2 > width:
            lines.append(line + " \\")
            line = "    " + part
        else:
            line += " " + part
    return "\n".join([*lines, line])


def _verdict(report: Report) -> str:
    """``OK``, ``REFUTED`` (a theorem is false), ``CHECK FAILED`` or ``INCOMPLETE``, with counts.

    >>> _verdict(Report({}, [Proof("norm", "", "proved")], [Check("separation", "fail")]))
    'CHECK FAILED — 1 proved, 0 refuted, 0 unknown; checks 0/1 pass'
    """
    counts = {s: sum(p.status == s for p in report.theorems)
              for s in ("proved", "refuted", "unknown")}
    text = ", ".join(f"{v} {k}" for k, v in counts.items())
    if report.checks:
        text += f"; checks {sum(c.ok for c in report.checks)}/{len(report.checks)} pass"
    if report.ok:
        word = "OK"
    elif counts["refuted"]:
        word = "REFUTED"
    elif counts["unknown"]:
        word = "INCOMPLETE"
    else:
        word = "CHECK FAILED"
    return f"{word} — {text}"


# =========================================================================== building
def _structure(enc: Encoding, convention: str) -> dict[str, str] | None:
    """T(Δ) with c_k = cos(ω_kΔ), s_k = sin(ω_kΔ), for this d (≤ 8) or the same family at d = 8."""
    small = enc
    if enc.dim > FULL_MATRIX_DIM:
        if enc.schedule is None:
            return None
        try:
            small = Encoding(enc.schedule, enc.layout, FULL_MATRIX_DIM)
        except PosproofError:
            return None
    t = small.translation(convention=convention)
    subs = {}
    for k, (s, _c) in enumerate(small.pairs):
        w = small.column_frequency(s)
        subs[sp.cos(w * DELTA)] = sp.Symbol(f"c_{k}")
        subs[sp.sin(w * DELTA)] = sp.Symbol(f"s_{k}")
    sym = sp.Matrix(t).applyfunc(lambda e: e.xreplace(subs))
    where = ("the full matrix of this encoding" if small is enc else
             f"the same schedule and layout at $d = {small.dim}$ (the pattern repeats for "
             "every $d$: the layout places pair $k$ by an affine map of $k$)")
    text = (f"Where the blocks sit: {where}, with $c_k = \\cos(\\omega_k\\Delta)$ and "
            f"$s_k = \\sin(\\omega_k\\Delta)$:")
    return {"text": text, "latex": f"T(\\Delta) = {sp.latex(sym)}", "dim": str(small.dim)}


def _transposed_claim(enc: Encoding, convention: str, seed: int) -> dict[str, Any] | None:
    """The transposed block, claimed on a small encoding of the same family: refuted."""
    from .theorems import W

    small = enc
    if enc.dim > FULL_MATRIX_DIM:
        if enc.schedule is None:
            return None
        try:
            small = Encoding(enc.schedule, enc.layout, FULL_MATRIX_DIM, offset=enc.offset)
        except PosproofError:
            return None
    if small.broken_pairs() or small.n_pairs == 0:
        return None
    w = W[0]
    c, s = sp.cos(w * DELTA), sp.sin(w * DELTA)
    right = sp.Matrix([[c, -s], [s, c]])            # row convention, (sin, cos) order
    if convention == "column":
        right = right.T
    wrong = right.T
    proof = prove(small, claim_block=wrong, theorems=[], convention=convention,
                  seed=seed).theorems[0]
    shown = wrong.subs(w, sp.Symbol("omega"))
    return {"dim": small.dim, "proof": proof,
            "block": f"T(\\Delta)_{{\\text{{pair}}}} \\overset{{?}}{{=}} {sp.latex(shown)}"}


def _recipe(enc: Encoding) -> tuple[list[str], str] | None:
    """CLI options and a Python expression that rebuild ``enc`` (checked), or None."""
    from .presets import PRESETS, preset

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
    from .presets import _parameters

    allowed = _parameters(PRESETS[name])
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


def _command_for(enc: Encoding, max_len: int, seed: int, convention: str) -> str:
    """The ``posproof derive`` command that rebuilds this document (or a Python hint)."""
    recipe = _recipe(enc)
    if recipe is None:
        return f"python -c 'posproof.derive(...)'  # for {enc!r}"
    options = list(recipe[0])
    if max_len != DEFAULT_MAX_LEN:
        options.append(f"--max-len {max_len}")
    if seed:
        options.append(f"--seed {seed}")
    if convention != "row":
        options.append(f"--convention {convention}")
    return "posproof derive " + " ".join(options) + " --out DIR"


def derive(encoding: Encoding, *, max_len: int = DEFAULT_MAX_LEN, seed: int = 0,
           general: bool = True, convention: str = "row", checks: bool = True,
           figures: Sequence[str] | None = None, guide_dim: int = GUIDE_DIM) -> Derivation:
    """Prove, refute and measure ``encoding``, and work through the guided derivation.

    ``max_len`` is the number of positions the numeric checks scan (as in
    :func:`posproof.check`), ``general`` adds the proofs for every even d,
    ``convention`` (``"row"`` or ``"column"``) is the one the translation
    matrix is shown in, ``figures`` names the figures the document will show
    (default: all of :data:`posproof.plots.FIGURES`; drawn by
    :func:`write_derivation`), ``guide_dim`` the dimension of the small
    encodings of the guided derivation.

    >>> from posproof import preset
    >>> doc = derive(preset("binary", dim=8), max_len=100, general=False)
    >>> doc.report["periodicity"].values, doc.exit_status()
    ({'period': '32'}, 1)
    """
    if not isinstance(encoding, Encoding):
        raise InvalidParameter(f"encoding={encoding!r} is not an Encoding; use posproof.preset()")
    if convention not in ("row", "column"):
        raise UnknownName(f"convention={convention!r} is not known; use 'row' or 'column'")
    seed = check_int("seed", seed, minimum=0)
    guide_dim = check_int("guide_dim", guide_dim, minimum=4, maximum=32)
    if guide_dim % 2:
        raise InvalidParameter(f"guide_dim={guide_dim} is odd; pass an even number such as 16")
    from .numeric import check_max_len
    from .plots import FIGURES

    max_len = check_max_len(max_len)
    names = tuple(f.name for f in FIGURES) if figures is None else tuple(figures)
    known = {f.name for f in FIGURES}
    for name in names:
        if name not in known:
            raise UnknownName(f"figure={name!r} is not known; use one of {', '.join(known)}")
    try:
        report = prove(encoding, general=general, seed=seed)
        if checks:
            report.checks = run_checks(encoding, max_len=max_len, seed=seed,
                                       proofs=report.theorems)
        params = encoding.schedule.params() if encoding.schedule is not None else {}
        base = params.get("base", 10000) if encoding.schedule is not None and \
            encoding.schedule.family == "geometric" else 10000
        guide = [
            _guide_raw(max_len),
            _guide_ratio(max_len),
            _guide_binary_digits(guide_dim // 2),
            _guide_sine_binary(guide_dim // 2, encoding.dim, seed),
            _guide_sine_geometric(guide_dim, base, seed),
            _guide_pairs(encoding, report),
        ]
        extras: dict[str, Any] = {}
        if not encoding.broken_pairs() and encoding.n_pairs:
            structure = _structure(encoding, convention)
            if structure is not None:
                extras["structure"] = structure
            claim = _transposed_claim(encoding, convention, seed)
            if claim is not None:
                extras["transposed"] = claim
    except PosproofError as exc:
        raise type(exc)(f"{encoding.name}: derive: {exc}") from None
    return Derivation(encoding, report, guide, max_len, seed, convention,
                      _command_for(encoding, max_len, seed, convention), extras, names)


def write_derivation(derivation: Derivation, out: str | Path, *,
                     formats: Sequence[str] = DOCUMENT_FORMATS,
                     figure_formats: Sequence[str] = ("png", "svg"),
                     draw_figures: bool = True, stem: str = "derivation") -> list[Path]:
    """Write ``stem.md`` / ``stem.tex`` and ``figures/*`` into ``out``; return the paths.

    The files are byte-identical from run to run.  ``draw_figures=False``
    writes the documents only (their figures drawn elsewhere, e.g. by
    :func:`draw_figures` in another process).  An unwritable ``out`` raises
    :class:`posproof.errors.InvalidParameter`.

    >>> import tempfile
    >>> from posproof import preset
    >>> doc = derive(preset("vaswani", dim=4), max_len=50, general=False, figures=["gram"])
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     [p.name for p in write_derivation(doc, tmp, figure_formats=["png"])]
    ['gram.png', 'derivation.md', 'derivation.tex']
    """
    formats = _formats(formats, DOCUMENT_FORMATS, "format")
    written: list[Path] = []
    if derivation.figures and draw_figures:
        written += draw_figures_for(derivation.encoding, out, derivation.figures,
                                    length=derivation.max_len, formats=figure_formats)
    directory = Path(out)
    try:
        directory.mkdir(parents=True, exist_ok=True)
        for fmt in formats:
            text = derivation.markdown() if fmt == "md" else derivation.latex()
            path = directory / f"{stem}.{fmt}"
            path.write_text(text, encoding="utf-8" if fmt == "md" else "ascii")
            written.append(path)
    except OSError as exc:
        raise InvalidParameter(f"--out={str(out)!r} cannot be written "
                               f"({exc.strerror or exc}); pass a writable directory") from None
    return written


def draw_figures_for(encoding: Encoding, out: str | Path, names: Sequence[str], *,
                     length: int = DEFAULT_MAX_LEN,
                     formats: Sequence[str] = ("png", "svg")) -> list[Path]:
    """Draw the named figures of a derivation into ``out/figures``; return the paths.

    ``length`` is the context length L of the document (its ``max_len``).

    >>> import tempfile
    >>> from posproof import preset
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     [p.name for p in draw_figures_for(preset("vaswani", dim=8), tmp, ["gram"])]
    ['gram.png', 'gram.svg']
    >>> draw_figures_for(preset("vaswani", dim=8), ".", ["gram"], formats=["svg"])
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    posproof.errors.InvalidParameter: figure formats ['svg'] lack png, which the documents ...
    """
    from .plots import FIGURE_FORMATS, FIGURES, save_figure

    figure_formats = _formats(formats, FIGURE_FORMATS, "figure format")
    if "png" not in figure_formats:
        raise InvalidParameter(f"figure formats {figure_formats} lack png, which the "
                               "documents include; add png")
    specs = {f.name: f for f in FIGURES}
    for name in names:
        if name not in specs:
            raise UnknownName(f"figure={name!r} is not known; use one of {', '.join(specs)}")
    written: list[Path] = []
    fig_dir = Path(out) / "figures"
    try:
        fig_dir.mkdir(parents=True, exist_ok=True)
        for name in names:
            fig = specs[name].draw(encoding, length)
            written += save_figure(fig, fig_dir / name, figure_formats)
    except OSError as exc:
        raise InvalidParameter(f"--out={str(out)!r} cannot be written "
                               f"({exc.strerror or exc}); pass a writable directory") from None
    return written


def _formats(given: Sequence[str] | str, allowed: Sequence[str], what: str) -> list[str]:
    items = given.split(",") if isinstance(given, str) else list(given)
    out = []
    for item in (str(i).strip().lower().lstrip(".") for i in items):
        if not item:
            continue
        if item not in allowed:
            raise UnknownName(f"{what}={item!r} is not known; use {', '.join(allowed)} "
                              "(comma-separated)")
        if item not in out:
            out.append(item)
    if not out:
        raise InvalidParameter(f"no {what} given; use {', '.join(allowed)}")
    return out
