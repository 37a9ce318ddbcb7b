"""The document model of a derivation, and the wording it shares with the guided derivation.

:class:`Doc` is a list of blocks (headings, paragraphs, display math, lists,
tables, figures, code, notes) rendered to GitHub Markdown by
:meth:`Doc.markdown` and to a standalone LaTeX file by :meth:`Doc.latex`, so
the two formats never disagree.  Text uses a small markup (``$math$``,
``**bold**``, ``*italic*``, ```code```, ``\\x``) that :func:`_inline` renders
for either format; :func:`latex_text` escapes engine statements for LaTeX.
Numbers are printed by :func:`n` and :func:`_up`, SymPy expressions by
:func:`tex`; proofs and checks are put into words by :func:`status_word`,
:func:`proof_reason`, :func:`counterexample`, :func:`check_result` and
:func:`verdict`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import sympy as sp

from ...report import Check, Proof, Report

__all__ = [
    "Doc",
    "check_result",
    "counterexample",
    "latex_text",
    "lit",
    "num",
    "pow2",
    "proof_reason",
    "status_word",
    "tex",
    "tidy",
    "verdict",
]

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


def lit(text: Any) -> str:
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


class Doc:
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
def num(value: Any, digits: int = 12) -> str:
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


def tidy(expr: Any) -> sp.Expr:
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


def tex(expr: Any) -> str:
    return sp.latex(tidy(expr))


def pow2(value: int) -> str:
    """``512`` → ``2^{9}`` when a power of two (LaTeX), else the integer."""
    if value > 0 and value & (value - 1) == 0 and value >= 4:
        return f"2^{{{value.bit_length() - 1}}}"
    return str(value)


# =========================================================================== proofs and checks
def status_word(p: Proof) -> str:
    return {"proved": "proved", "refuted": "REFUTED", "unknown": "unknown (not proved)"}[p.status]


def proof_reason(p: Proof) -> str:
    if p.status == "refuted":
        return "counterexample " + counterexample(p.counterexample or {})
    if p.status == "unknown":
        return lit(p.note or "the engine could neither prove nor refute it")
    return ""


def counterexample(ce: dict[str, Any]) -> str:
    shown = []
    for key in ("x", "y", "delta", "shift", "column", "columns"):
        if key in ce:
            name = {"delta": "Δ"}.get(key, key)
            shown.append(f"{name} = {ce[key]}")
    text = ", ".join(shown)
    if "lhs" in ce and "rhs" in ce:
        text += f": left side {num(ce['lhs'])}, right side {num(ce['rhs'])}"
    if "residual" in ce:
        text += f", residual {num(ce['residual'], 6)}"
    if ce.get("dps"):
        text += f" (confirmed in mpmath at {ce['dps']} digits)"
    if ce.get("explanation"):
        text += f"; {ce['explanation']}"
    return lit(text)


# =========================================================================== checks rendering
def check_result(c: Check) -> str:
    """One line per check, from values that do not depend on the BLAS (bounds for float64
    noise), with the check's note when it fails."""
    if c.values.get("applicable") is False:
        return lit(c.note or "not applicable")
    try:
        text = _check_text(c)
    except (KeyError, TypeError, ValueError):  # pragma: no cover - a check changed shape
        text = None
    return lit(_with_note(text if text is not None else str(c.values.get("summary", "")), c))


def _check_text(c: Check) -> str | None:
    v, name = c.values, c.name
    if name == "bounds" and "max_abs_entry" in v:
        text = f"max |PE_i| = {num(v['max_abs_entry'], 6)} ≤ 1 on {v['rows']} rows"
        if v.get("max_norm_deviation") is not None:
            text += (f"; ‖PE(x)‖ − √{round(v['norm_expected'] ** 2)} "
                     f"{_up(v['max_norm_deviation'])}")
        return text
    if name == "separation" and v.get("min_distance_mp") is not None:
        return (f"min ‖PE(x+Δ) − PE(x)‖ = {num(v['min_distance_mp'])} at Δ = "
                f"{v['at_offset']}, over Δ = 1 … {v['length'] - 1}")
    if name == "near_return" and "closest_distance_mp" in v:
        lo, hi = v["range"]
        return (f"closest return {num(v['closest_distance_mp'])} at Δ = {v['at_offset']} "
                f"in [{lo}, {hi}); first Δ closer than neighbouring positions: "
                f"{v['effective_period']}")
    if name == "translation_residual" and "max_residual" in v:
        return (f"max |PE(x+Δ) − PE(x)·T(Δ)| {_up(v['max_residual'])}, at most "
                f"{_up(v['max_residual_over_tolerance'])[2:]} of its rounding "
                f"tolerance, at {v['pairs']} random pairs x < x + Δ ≤ {v['position_max']}")
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


def verdict(report: Report) -> str:
    """``OK``, ``REFUTED`` (a theorem is false), ``CHECK FAILED`` or ``INCOMPLETE``, with counts.

    What the independent audit said of the verdicts' evidence closes it (the clause of
    every command's verdict line, :func:`posproof.verdict.audit_clause`).

    >>> verdict(Report({}, [Proof("norm", "", "proved")], [Check("separation", "fail")]))
    'CHECK FAILED — 1 proved, 0 refuted, 0 unknown; checks 0/1 pass; audit (python-flint arb): \
0 confirmed, 2 without evidence'
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
    from ...verdict import audit_clause

    clause = audit_clause(report.audit_summary())
    return f"{word} — {text}" + (f"; {clause}" if clause else "")
