"""The derivation of one encoding: :class:`Derivation`, :func:`derive` and the files it writes.

:func:`derive` proves, refutes and measures an encoding, works through the
guided derivation of :mod:`posproof.document.derive.guide` and returns a
:class:`Derivation`, whose :meth:`~Derivation.markdown` and
:meth:`~Derivation.latex` build one :class:`~posproof.document.derive.document.Doc`
and render it.  The files it writes come from
:mod:`posproof.document.derive.files`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import mpmath
import sympy as sp

from ...errors import InvalidParameter, PosproofError, UnknownName, check_int
from ...measure.checks import DEFAULT_MAX_LEN, run_checks
from ...model.encoding import DELTA, Encoding
from ...precise import DEFAULT_DPS, mp_value
from ...proofs.theorems import prove
from ...report import Proof, Report
from .document import (
    Doc,
    check_result,
    counterexample,
    lit,
    num,
    proof_reason,
    status_word,
    tex,
    tidy,
    verdict,
)
from .guide import (
    GUIDE_DIM,
    GuideStep,
    command_for,
    guide_binary_digits,
    guide_pairs,
    guide_ratio,
    guide_raw,
    guide_sine_binary,
    guide_sine_geometric,
)
from .why_positions import why_positions_section

#: Largest d whose T(Δ) is printed in full.
FULL_MATRIX_DIM = 8


@dataclass
class Derivation:
    """Everything a derivation document says, computed; render with :meth:`markdown`/:meth:`latex`.

    ``report`` holds the encoding's theorems (concrete and, with
    ``general``, for every even d) and its numeric checks; ``guide`` the
    guided derivation; ``extras`` the translation-matrix demonstrations.

    >>> from posproof import preset
    >>> doc = derive(preset("vaswani", dim=4), max_len=100, general=False, figures=[])
    >>> sorted(doc.to_dict())[:4], doc.latex().splitlines()[2].endswith("{article}")
    (['audit', 'checks', 'command', 'encoding'], True)
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
    #: True when :attr:`command` rebuilds the document byte for byte (False: the encoding
    #: was built by hand, and no command names it).
    reproducible: bool = True
    _documents: dict[str, Doc] = field(default_factory=dict, repr=False, compare=False)

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
        out["reproducible"] = self.reproducible
        return out

    def title(self) -> str:
        enc = self.encoding
        return f"Deriving the positional encoding `{lit(enc.name)}`, $d = {enc.dim}$"

    def markdown(self, figure_dir: str = "figures") -> str:
        """The document in GitHub Markdown (``$…$`` and ``$$…$$`` math)."""
        return self._doc(figure_dir).markdown()

    def latex(self, figure_dir: str = "figures") -> str:
        """The document as a standalone LaTeX file (pdflatex; packages of texlive-latex-*)."""
        return self._doc(figure_dir).latex(self.title())

    # ------------------------------------------------------------------ the document
    def _doc(self, figure_dir: str) -> Doc:
        """The document model, built once per figure directory (both formats share it)."""
        if figure_dir not in self._documents:
            self._documents[figure_dir] = self._build(figure_dir)
        return self._documents[figure_dir]

    def _build(self, figure_dir: str) -> Doc:
        doc = Doc()
        _enc, report = self.encoding, self.report
        doc.h(1, self.title())
        doc.p("Every equation, matrix and number in this document was produced by posproof "
              "at generation time: matrices by SymPy from the encoding itself, proofs by the "
              "proof engine (each cross-checked in mpmath at random large positions), "
              "counterexamples confirmed in mpmath, measurements by NumPy and certified in "
              "mpmath." + (" Regenerate it (byte for byte) with:" if self.reproducible else
                           " Its encoding was built by hand, not from a preset, so no command "
                           "rebuilds it: `posproof.derive(...)` on the same encoding, with "
                           "the same options, gives the same document."))
        if self.reproducible:
            doc.code(_wrap_command(f"$ {self.command}"))
        doc.p(f"**Verdict: {verdict(report)}**")
        if not report.ok:
            bad = [p for p in report.theorems if p.status != "proved"]
            bad_checks = [c for c in report.checks if not c.ok]
            items, grouped = [], {}
            for p in bad:
                if p.general:
                    grouped.setdefault((p.status, proof_reason(p)), []).append(p.name)
                else:
                    items.append(f"`{lit(p.name)}`: **{status_word(p)}** — {proof_reason(p)}")
            for (status, reason), names in grouped.items():
                items.append(f"{len(names)} theorem(s) for every even d "
                             f"(`{lit(names[0])}` …): **{status_word(Proof('', '', status))}**"
                             f" — {reason}")
            items += [f"check `{c.name}`: **fail** — {check_result(c)}" for c in bad_checks]
            doc.note("This encoding does not satisfy everything the sinusoidal encoding is "
                     "known for. What fails is stated plainly below, with its counterexample.")
            doc.ul(items)
        why_positions_section(doc, self.seed)
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

    def _encoding_section(self, doc: Doc) -> None:
        enc = self.encoding
        info = enc.to_dict()
        doc.h(2, "The encoding")
        rows = [["name", f"`{lit(enc.name)}`"], ["dimension", f"$d = {enc.dim}$ "
                f"($n = {enc.n_pairs}$ pairs)"], ["layout", f"`{enc.layout.name}` — "
                f"{lit(enc.layout.description)}"], ["first position", str(enc.offset)]]
        if enc.schedule is not None:
            rows.insert(1, ["schedule", f"`{enc.schedule.family}`"])
            general = enc.schedule.general()
            if general is not None:
                rows.insert(2, ["frequency", f"$\\omega_k = {sp.latex(general)}$"])
            for key, value in enc.schedule.params().items():
                rows.append([lit(key), lit(value)])
        if enc.padding_idx is not None:
            rows.append(["padding row", f"position {enc.padding_idx} is all zeros"])
        if "odd_dim" in info:
            rows.append(["odd d", "one zero column appended"])
        doc.table(["property", "value"], rows, "@{}lX@{}")
        freqs = enc.frequencies
        if freqs:
            shown = [(k, f) for k, f in enumerate(freqs)][:3]
            tail = [(len(freqs) - 1, freqs[-1])] if len(freqs) > 3 else []
            parts = [f"\\omega_{{{k}}} = {tex(f)}" for k, f in shown]
            if tail:
                parts.append("\\ldots")
                parts += [f"\\omega_{{{k}}} = {tex(f)}" for k, f in tail]
            doc.p("Its exact frequencies (SymPy), first and last:")
            doc.math(",\\quad ".join(parts))
            lo = mp_value(2 * sp.pi / freqs[0], 30)
            hi_expr = 2 * sp.pi / freqs[-1]
            hi = mp_value(hi_expr, 30)
            doc.p(f"so the wavelengths $2\\pi/\\omega_k$ run from {num(lo, 10)} to "
                  f"$2\\pi/\\omega_{{{len(freqs) - 1}}} = {tex(sp.nsimplify(hi_expr))}"
                  f" \\approx {num(hi, 10)}$ positions.")
            params = enc.schedule.params() if enc.schedule is not None else {}
            base = params.get("base") or params.get("max_timescale")
            if base is not None and enc.schedule is not None and \
                    enc.schedule.family in ("geometric", "tensor2tensor"):
                claimed = 2 * sp.pi * sp.sympify(base)
                close = abs(hi - mp_value(claimed, 30)) < mpmath.mpf(10) ** -20 * hi
                exact = close and bool(sp.simplify(hi_expr - claimed) == 0)
                claim = f"$2\\pi$ to ${sp.latex(sp.sympify(base))}\\cdot 2\\pi$"
                doc.p(f"The original paper's \"from {claim}\""
                      f" ($\\approx {num(mp_value(claimed, 30), 10)}$) holds "
                      + ("**exactly** for this schedule." if exact else
                         f"only approximately here: the slowest wavelength is "
                         f"{num(hi / mp_value(claimed, 30), 6)} of it (exactly "
                         f"${tex(sp.nsimplify(hi_expr / claimed))}$)."))
        vec = enc.vector()
        cols = list(range(min(enc.dim, 4)))
        entries = [tex(vec[j]) for j in cols]
        if enc.dim > 6:
            entries += ["\\ldots", tex(vec[enc.dim - 2]), tex(vec[enc.dim - 1])]
        elif enc.dim > 4:
            entries += [tex(vec[j]) for j in range(4, enc.dim)]
        doc.p("The exact row vector, as `Encoding.vector()` builds it:")
        doc.math("\\mathrm{PE}(x) = \\left(" + ",\\ ".join(entries) + "\\right)")

    def _guide_section(self, doc: Doc) -> None:
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
            doc.ul([f"`{lit(c)}`" for c in step.calls])
        rows = [[str(i), lit(g.title), lit(g.breaks)] for i, g in enumerate(self.guide, start=1)]
        doc.p("In one table:")
        doc.table(["", "guess", "breaks"], rows, "@{}lXX@{}")

    def _proofs_section(self, doc: Doc) -> None:
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
                       if cc else proof_reason(p))
                rows.append([f"`{lit(p.name)}`", f"**{status_word(p)}**", lit(how)])
            doc.table(["theorem", "status", "cross-check"], rows, "@{}llX@{}")
            if general[0].steps:
                doc.p("The argument, as the engine states it:")
                doc.ol([f"{lit(s.statement)} (*{lit(s.rule)}*)" for s in general[0].steps[:2]])

    def _translation_matrix(self, doc: Doc) -> None:
        enc = self.encoding
        conv = self.convention
        if enc.broken_pairs():
            doc.p("No translation matrix exists for this encoding: " +
                  "; ".join(lit(p) for p in enc.broken_pairs()[:3]) + ".")
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
            block = sp.Matrix(2, 2, [tidy(t.get(ij, 0)) for ij in cells])
            doc.p(f"Pair $k = {k}$ sits in rows and columns ${i}, {j}$ "
                  f"({names[i]}, {names[j]}); its block of `Encoding.translation"
                  f"(convention='{conv}')`:")
            doc.math(f"T(\\Delta)_{{[{i},{j}]}} = {sp.latex(block)}")
        small = self.extras.get("structure")
        if small is not None:
            doc.p(small["text"])
            doc.math(small["latex"])

    def _proof(self, doc: Doc, p: Proof, heading: bool = True) -> None:
        status = status_word(p)
        if heading:
            doc.p(f"**`{lit(p.name)}` — {status}.** {lit(p.statement)}.")
        else:
            doc.p(f"**{status}.** {lit(p.statement)}.")
        if p.status == "refuted":
            doc.note(f"REFUTED: this statement is false for this encoding. Counterexample: "
                     f"{counterexample(p.counterexample or {})}.")
        steps = []
        for s in p.steps:
            text = f"{lit(s.statement)} (*{lit(s.rule)}*)"
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
                      f"{lit(pts)}: largest residual {lit(cc.get('max_residual'))}.")
            elif "method" in cc:
                doc.p(f"Checked: {lit(cc['method'])}.")
        if p.status == "unknown" and p.note:
            doc.p(f"Not proved: {lit(p.note)}.")

    def _checks_section(self, doc: Doc) -> None:
        checks = self.report.checks
        if not checks:
            return
        doc.h(2, "Numeric checks")
        doc.p(f"Positions $0 \\ldots L-1$ with $L = {self.max_len}$ (offsets from "
              f"{self.encoding.offset}), seed {self.seed}. Pairwise questions go through the "
              "offset kernel $f(\\Delta) = \\sum_k \\cos(\\omega_k\\Delta)$ (the dot-product "
              "theorem); float64 rounding noise is shown as a bound (`<`).")
        rows = [[f"`{c.name}`", f"**{c.status}**", check_result(c)] for c in checks]
        doc.table(["check", "status", "result"], rows, "@{}llX@{}")
        doc.p("How each number was certified:")
        doc.ul([f"`{c.name}`: {lit(c.certified or 'nothing to certify')}" for c in checks])

    def _figures_section(self, doc: Doc, figure_dir: str) -> None:
        from ..plots import FIGURES

        doc.h(2, "Figures")
        captions = {f.name: f.caption for f in FIGURES}
        for name in self.figures:
            doc.figure(f"{figure_dir}/{name}", lit(captions.get(name, name)))


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
    from ...proofs.theorems import W

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


def derive(encoding: Encoding, *, max_len: int = DEFAULT_MAX_LEN, seed: int = 0,
           general: bool = True, convention: str = "row", checks: bool = True,
           figures: Sequence[str] | None = None, guide_dim: int = GUIDE_DIM,
           progress: Any = None) -> Derivation:
    """Prove, refute and measure ``encoding``, and work through the guided derivation.

    ``max_len`` is the number of positions the numeric checks scan (as in
    :func:`posproof.check`), ``general`` adds the proofs for every even d,
    ``convention`` (``"row"`` or ``"column"``) is the one the translation
    matrix is shown in, ``figures`` names the figures the document will show
    (default: all of :data:`posproof.document.plots.FIGURES`; drawn by
    :func:`write_derivation`), ``guide_dim`` the dimension of the small
    encodings of the guided derivation.  ``progress(label, done, total)`` follows the
    proofs, the checks and the guided derivation from the start.

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
    from ...measure.checks import check_scan_options
    from ..plots import FIGURES

    max_len = check_scan_options(encoding, max_len, DEFAULT_DPS)[0]
    names = tuple(f.name for f in FIGURES) if figures is None else tuple(figures)
    known = {f.name for f in FIGURES}
    for name in names:
        if name not in known:
            raise UnknownName(f"figure={name!r} is not known; use one of {', '.join(known)}")
    try:
        report = prove(encoding, general=general, seed=seed, progress=progress)
        if checks:
            if progress is not None:
                progress("numeric checks", 0, 1)
            report.checks = run_checks(encoding, max_len=max_len, seed=seed,
                                       proofs=report.theorems, progress=progress)
        if progress is not None:
            progress("guided derivation", 0, 1)
        params = encoding.schedule.params() if encoding.schedule is not None else {}
        base = params.get("base", 10000) if encoding.schedule is not None and \
            encoding.schedule.family == "geometric" else 10000
        guide = [
            guide_raw(max_len),
            guide_ratio(max_len),
            guide_binary_digits(guide_dim // 2),
            guide_sine_binary(guide_dim // 2, encoding.dim, seed),
            guide_sine_geometric(guide_dim, base, seed),
            guide_pairs(encoding, report),
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
    command = command_for(encoding, max_len, seed, convention, general=general,
                           checks=checks, figures=names, guide_dim=guide_dim)
    return Derivation(encoding, report, guide, max_len, seed, convention, command or "",
                      extras, names, reproducible=command is not None)
