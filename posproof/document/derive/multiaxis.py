"""The derivation document of a multi-axis encoding: "From one axis to several".

:func:`derive_multi` takes a :class:`~posproof.model.multiaxis.MultiAxisEncoding`
(``sincos-2d``, ``pe-2d``, ``pe-3d``) or a :class:`~posproof.model.multirope.MultiAxisRotary`
(``mrope``, ``axial-rope``) and checks, on the model's exact SymPy objects, each equation the
section states:

1. PE(p) is the blocks of 1-D encodings, one per axis: every column of ``vector()`` is rebuilt
   from the block's own frequencies and layout (sin ω_k p_a or cos ω_k p_a) and the difference
   expands to exactly 0;
2. T(Δ) = ⊕ of the 1-D blocks: every non-zero entry of ``translation()`` is an entry of a
   block's ``translation_entries(Δ_a)`` placed on the block's columns, and nothing else;
   with the 1-D theorems (:func:`posproof.prove`: translation in both conventions, dot
   product, norm) proved for every block, PE(p + Δ) = PE(p)·T(Δ) for every vector Δ;
3. the dot product depends only on the offset vector: the blocks' columns partition
   0 … d−1, so PE(p)·PE(q) = Σ_a Σ_k cos(ω_k (p_a − q_a)) by the 1-D dot-product theorems;
4. for a rotary: R(p) = ⊕ over axes of the 1-D rotaries of each axis (entrywise), the
   relative property per axis (:func:`posproof.proofs.rotary.prove_rotary`), and on the
   diagonal (every axis at position m, text tokens) M-RoPE equals 1-D RoPE with the same
   base and head_dim, entry by entry; axial RoPE does not (a pair whose frequency differs,
   certified by :func:`posproof.validated.exceeds`).

A statement is ``proved`` only when every identity it rests on expands to exactly 0 and
every 1-D theorem it uses is proved; a difference that does not expand to 0 is ``refuted``
only when an enclosure certifies it non-zero at a point, else ``unknown``.  The document
holds no dates or timings: the same inputs give the same bytes.

>>> from posproof import multi_preset
>>> doc = derive_multi(multi_preset("sincos-2d", dim=8), grid=(4, 4), figures=[])
>>> doc.ok, [p.name for p in doc.report.theorems][:3]
(True, ['multiaxis:blocks', 'multiaxis:translation_direct_sum', 'multiaxis:translation'])
>>> "From one axis to several" in doc.markdown()
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import sympy as sp

from ...errors import InvalidParameter
from ...model.multiaxis import MultiAxisEncoding, axis_symbols
from ...model.multirope import MultiAxisRotary
from ...proofs.rotary import prove_rotary
from ...proofs.theorems import prove
from ...report import Proof, Report, Step
from .document import Doc, lit, proof_reason, status_word, tex, verdict

__all__ = ["MULTI_FIGURES", "MultiAxisDerivation", "derive_multi", "write_multi_derivation"]

#: Figures of a multi-axis derivation (drawn by :mod:`posproof.document.plots_multiaxis`).
MULTI_FIGURES = ("similarity",)
_BLOCK_THEOREMS = ("translation[row]", "translation[column]", "dot_product", "norm")


def _zero(expr: Any) -> bool:
    """True when ``expr`` expands to exactly 0 (a SymPy identity, never a numeric test)."""
    return sp.expand(sp.sympify(expr)) == 0


def _decide(name: str, statement: str, bad: list[tuple[str, Any]], rule: str,
            uses: Sequence[Proof] = (), point: dict[Any, Any] | None = None) -> Proof:
    """``proved`` when no difference is left and every theorem used is proved; ``refuted``
    when a left difference is certified non-zero at ``point``; else ``unknown``."""
    from ...validated import exceeds

    steps = [Step(rule, "exact: each difference expands to 0")]
    steps += [Step(f"{p.name}: {p.status}", "1-D theorem (posproof.prove)") for p in uses]
    if not bad and all(p.status == "proved" for p in uses):
        from ...evidence import Evidence

        # the 1-D theorems' own items go to the audit; the expansions to 0 are SymPy's
        items = [i for p in uses if p.evidence is not None for i in p.evidence.items]
        return Proof(name, statement, "proved", steps, evidence=Evidence(
            "exact expansion + the 1-D theorems used", "structural", items=items,
            details={"uses": [p.name for p in uses]},
            unaudited=None if items else "each difference expands to exactly 0 (SymPy "
            "expand): an exact identity, no number to re-check"))
    for where, diff in bad:
        value = sp.sympify(diff).subs(point or {})
        if not value.free_symbols and exceeds(value, 0):
            return Proof(name, statement, "refuted", steps,
                         counterexample={"where": where, "difference": str(diff),
                                         "at": {str(k): str(v) for k, v in (point or {}).items()},
                                         "confirmed": "certified non-zero by an enclosure"})
    failed = [p.name for p in uses if p.status != "proved"]
    note = ("not proved: " + ", ".join(failed)) if failed else \
        f"{len(bad)} difference(s) not reduced to 0 and not certified non-zero"
    return Proof(name, statement, "unknown", steps, note=note)


# --------------------------------------------------------------------------- checks
def _sinusoidal_checks(enc: MultiAxisEncoding, seed: int) -> tuple[list[Proof], list[Proof]]:
    """Blocks, T(Δ) as a direct sum, translation, offset-only dot product, norm."""
    xs, ds = axis_symbols(enc.axes), axis_symbols(enc.axes, "delta")
    vector, point = enc.vector(), {x: sp.Integer(3 + 2 * a + seed) for a, x in enumerate(xs)}
    bad_vec, bad_t, expected = [], [], {}
    for b, block in enumerate(enc.blocks):
        e = block.encoding
        sin_cols, cos_cols = e.layout.columns(e.n_pairs)
        for k, w in enumerate(e.frequencies):
            for col, fn in ((sin_cols[k], sp.sin), (cos_cols[k], sp.cos)):
                diff = vector[block.columns[col]] - fn(w * xs[block.axis])
                if not _zero(diff):
                    bad_vec.append((f"block {b} column {block.columns[col]}", diff))
        for j in range(2 * e.n_pairs, e.dim):
            if not _zero(vector[block.columns[j]]):
                bad_vec.append((f"block {b} padding column {block.columns[j]}",
                                vector[block.columns[j]]))
        for (i, j), v in e.translation_entries(ds[block.axis]).items():
            expected[(block.columns[i], block.columns[j])] = v
    got = enc.translation_entries(ds)
    for key in sorted(set(got) | set(expected)):
        diff = got.get(key, 0) - expected.get(key, 0)
        if not _zero(diff):
            bad_t.append((f"T entry {key}", diff))
    blocks_1d: list[Proof] = []
    seen: dict[Any, list[Proof]] = {}
    for b, block in enumerate(enc.blocks):
        key = repr(block.encoding)
        if key not in seen:
            seen[key] = prove(block.encoding, theorems=_BLOCK_THEOREMS, seed=seed).theorems
        name = enc.axis_names[block.axis]
        blocks_1d += [replace(p, name=f"block {b} (axis {name}): {p.name}") for p in seen[key]]
    by = {t: [p for p in blocks_1d if p.name.endswith(": " + t)] for t in _BLOCK_THEOREMS}
    columns = sorted(c for block in enc.blocks for c in block.columns)
    partition = [] if columns == list(range(enc.dim)) else [("columns", 1)]
    delta_point = {d: sp.Integer(2 + a) for a, d in enumerate(ds)}
    out = [
        _decide("multiaxis:blocks", "PE(p) = the 1-D encodings PE_a(p_a) of the axes, each on "
                "its own columns", bad_vec, "every column rebuilt as sin(ω_k p_a) or "
                "cos(ω_k p_a) from the block's frequencies and layout", point=point),
        _decide("multiaxis:translation_direct_sum", "T(Δ) = ⊕_a T_a(Δ_a): the 1-D translation "
                "blocks of the axes, on their columns, and nothing else", bad_t,
                "every entry of T(Δ) compared with the blocks' 1-D T_a(Δ_a)",
                point=delta_point),
    ]
    out.append(_decide("multiaxis:translation", "PE(p + Δ) = PE(p)·T(Δ) for every position "
                       "vector p and offset vector Δ (row convention; column: T(Δ)·PE(p)ᵀ)",
                       [], "T(Δ) is the direct sum of the blocks (above), so each block of "
                       "columns moves by its own 1-D T_a(Δ_a)",
                       [out[1], *by["translation[row]"], *by["translation[column]"]]))
    out.append(_decide("multiaxis:dot_product", "PE(p)·PE(q) = Σ_a Σ_k cos(ω_k (p_a − q_a)), a "
                       "function of the offset vector p − q only", partition,
                       "the blocks' columns partition 0 … d−1, so the dot product is the sum "
                       "of the blocks' dot products", [out[0], *by["dot_product"]]))
    out.append(_decide("multiaxis:norm", f"‖PE(p)‖² = {sum(b.encoding.n_pairs for b in enc.blocks)}"
                       " for every p (the sum of the blocks' pair counts)", partition,
                       "sum of the blocks' norms", [out[0], *by["norm"]]))
    return out, blocks_1d


def _rotary_checks(rot: MultiAxisRotary, seed: int) -> tuple[list[Proof], list[Proof]]:
    """R(p) = ⊕ of the axes' 1-D rotaries, the relative property, the diagonal."""
    from ...model.rope import rotary

    ms = axis_symbols(rot.axes, "m")
    got, expected = rot.rotation_entries(ms), {}
    for a in range(rot.axes):
        channels = rot.axis_channels(a)
        for (i, j), v in rot.axis_rotary(a).rotation_entries(ms[a]).items():
            expected[(channels[i], channels[j])] = v
    for c in range(2 * rot.n_pairs, rot.head_dim):
        expected[(c, c)] = sp.Integer(1)
    bad = [(f"R entry {k}", got.get(k, 0) - expected.get(k, 0))
           for k in sorted(set(got) | set(expected)) if not _zero(got.get(k, 0) -
                                                                 expected.get(k, 0))]
    relative = []
    for a in range(rot.axes):
        rep = prove_rotary(rot.axis_rotary(a), theorems=["relative"], general=False,
                           scaling=False, hazards=False, seed=seed)
        relative += [replace(p, name=f"axis {rot.axis_names[a]}: {p.name}")
                     for p in rep.theorems]
    point = {m: sp.Integer(3 + a + seed) for a, m in enumerate(ms)}
    out = [_decide("multiaxis:rotation_direct_sum", "R(p) = ⊕_a R_a(p_a): each axis's 1-D "
                   "rotary on its channels (pass-through channels fixed)", bad,
                   "every entry of R(p) compared with the axes' 1-D rotations", point=point)]
    out.append(_decide("multiaxis:relative", "⟨R(p)q, R(p′)k⟩ = ⟨q, R(p′ − p)k⟩ for every "
                       "position vectors p, p′", [], "R(p)ᵀR(p′) = ⊕_a R_a(p_a)ᵀR_a(p′_a) = "
                       "⊕_a R_a(p′_a − p_a)", [out[0], *relative]))
    m = sp.Symbol("m")
    diagonal = {k: v.subs(dict.fromkeys(ms, m)) for k, v in got.items()}
    base = _geometric_base(rot)
    if base is not None:
        plain = rotary(base, rot.head_dim, rotary_dim=2 * rot.n_pairs,
                       layout=rot.layout).rotation_entries(m)
        bad_d = [(f"R entry {k}", diagonal.get(k, 0) - plain.get(k, 0))
                 for k in sorted(set(diagonal) | set(plain))
                 if not _zero(diagonal.get(k, 0) - plain.get(k, 0))]
        diag = _decide("multiaxis:diagonal_is_rope", f"R(m, …, m) = R_RoPE(m): on the "
                           f"diagonal (text tokens) {rot.name} is 1-D RoPE with base {base} "
                           f"and head_dim {rot.head_dim}", bad_d, "every entry of R(m, …, m) "
                           "compared with 1-D RoPE's R(m)", point={m: sp.Integer(5)})
        if rot.name.startswith("axial"):   # a contrast, expected refuted: not a theorem of it
            relative.append(diag)
        else:
            out.append(diag)
    return out, relative


def _geometric_base(rot: MultiAxisRotary) -> Any:
    """The base b that 1-D RoPE over the whole head would need, θ_k = b^(−k/n) read off θ_1
    (M-RoPE); for axial RoPE the first axis's own base (θ_1 = b^(−1/n_0)).  The check then
    compares every entry, so a wrong guess can only fail it, never pass it."""
    n = rot.n_pairs if not rot.name.startswith("axial") else len(rot.axis_pairs(0))
    if rot.n_pairs < 2 or n < 2 or rot.frequencies[1] == 0:
        return None
    return sp.Pow(rot.frequencies[1], -n)


# --------------------------------------------------------------------------- the document
@dataclass
class MultiAxisDerivation:
    """The checks of "From one axis to several" and the document that states them."""

    subject: Any
    report: Report
    grid: tuple[int, ...]
    command: str | None
    figures: tuple[str, ...] = ()
    one_axis: list[Proof] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.report.ok

    def exit_status(self) -> int:
        return self.report.exit_status()

    @property
    def encoding(self) -> MultiAxisEncoding:
        s = self.subject
        return s.encoding() if isinstance(s, MultiAxisRotary) else s

    def to_dict(self) -> dict[str, Any]:
        out = self.report.to_dict()
        out.update(command=self.command, reproducible=self.command is not None,
                   grid=list(self.grid), one_axis=[p.to_dict() for p in self.one_axis])
        return out

    def title(self) -> str:
        s = self.subject
        dim = s.head_dim if isinstance(s, MultiAxisRotary) else s.dim
        return f"Deriving the multi-axis encoding `{lit(s.name)}`, $d = {dim}$, {s.axes} axes"

    def markdown(self, figure_dir: str = "figures") -> str:
        return self._doc(figure_dir).markdown()

    def latex(self, figure_dir: str = "figures") -> str:
        return self._doc(figure_dir).latex(self.title())

    def _doc(self, figure_dir: str) -> Doc:
        doc = Doc()
        doc.h(1, self.title())
        doc.p("Every equation in this document was produced by posproof from the encoding's "
              "exact SymPy objects and checked: an identity is stated as proved only when it "
              "expands to exactly 0, and the 1-D theorems it uses are the proof engine's."
              + (" Regenerate it (byte for byte) with:" if self.command else
                 " Its encoding was built in Python, so no command rebuilds it."))
        if self.command:
            doc.code(f"$ {self.command}")
        doc.p(f"**Verdict: {verdict(self.report)}**")
        _encoding_table(doc, self.subject)
        doc.h(2, "From one axis to several", label="sec:several-axes")
        _section(doc, self.subject, self.report.theorems)
        if self.one_axis:
            doc.h(3, "The 1-D theorems used, and contrasts")
            doc.ul([f"`{lit(p.name)}`: **{status_word(p)}** — {lit(p.statement)}"
                    for p in self.one_axis])
        if "similarity" in self.figures:
            size = "×".join(map(str, self.grid))
            doc.h(2, "The similarity map")
            doc.p(f"The dot product of the centre patch's encoding with every patch of a "
                  f"{size} grid, PE(c)·PE(p), computed from the table in float64. By the "
                  "offset-vector theorem above it is Σ_a Σ_k cos(ω_k (p_a − c_a)): it depends "
                  "on p − c only and peaks at the centre.")
            doc.figure(f"{figure_dir}/similarity", f"PE(c)·PE(p) over a {size} grid, c the "
                       "centre patch (+)")
        return doc


def _encoding_table(doc: Doc, s: Any) -> None:
    from ...measure.explore.axes import pair_ranges

    doc.h(2, "The encoding")
    if isinstance(s, MultiAxisRotary):
        rows = [[f"{a} (`{lit(s.axis_names[a])}`)", pair_ranges(s.axis_pairs(a)),
                 str(len(s.axis_pairs(a))), f"${tex(s.frequencies[s.axis_pairs(a)[0]])}$"]
                for a in range(s.axes)]
        doc.p(f"Rotary, head_dim $= {s.head_dim}$, layout `{s.layout}`; pair $k$ turns by "
              "$p_{a_k}\\theta_k$.")
        doc.table(["axis", "pairs", "count", "fastest $\\theta$"], rows, "@{}llrX@{}")
        return
    rows = []
    for b, block in enumerate(s.blocks):
        e = block.encoding
        cols = f"{block.columns[0]}…{block.columns[-1]}"
        rows.append([str(b), f"{block.axis} (`{lit(s.axis_names[block.axis])}`)", cols,
                     f"`{lit(e.layout.name)}`, $d_b = {e.dim}$, "
                     f"$\\omega_0 = {tex(e.frequencies[0])}$" if e.frequencies else "—"])
    doc.table(["block", "axis", "columns", "1-D encoding"], rows, "@{}lllX@{}")


def _section(doc: Doc, s: Any, proofs: list[Proof]) -> None:
    enc = s.encoding() if isinstance(s, MultiAxisRotary) else s
    by = {p.name: p for p in proofs}
    xs = axis_symbols(enc.axes)

    def status(name: str) -> None:
        p = by[name]
        how = lit(p.steps[0].statement) if p.steps else ""
        used = len(p.steps) - 1
        tail = proof_reason(p) if p.status != "proved" else (
            f"{how}" + (f"; using {used} proved statement(s), above and below" if used > 0 else ""))
        doc.p(f"**{status_word(p)}** (`{lit(name)}`): {lit(p.statement)}. *How:* {tail}.")

    doc.p(f"A position is a vector $p = ({', '.join(sp.latex(x) for x in xs)})$; the columns "
          "are divided among the axes and each block is an ordinary 1-D encoding of one "
          "coordinate." + (" For a rotary, PE is its sinusoidal view (`encoding()`), whose "
                           "translation T(Δ) is exactly the rotation R(Δ)."
                           if isinstance(s, MultiAxisRotary) else ""))
    v = enc.vector()
    shown = [(b, block.columns[0]) for b, block in enumerate(enc.blocks)]
    doc.math(",\\quad ".join(f"PE(p)_{{{c}}} = {tex(v[c])}" for _b, c in shown))
    status("multiaxis:blocks")
    ds = axis_symbols(enc.axes, "delta")
    t = enc.translation_entries(ds)
    parts = []
    for block in enc.blocks:
        e = block.encoding
        if not e.n_pairs:
            continue
        sin_cols, cos_cols = e.layout.columns(e.n_pairs)
        i, j = block.columns[sin_cols[0]], block.columns[cos_cols[0]]
        m = sp.Matrix([[t.get((i, i), 0), t.get((i, j), 0)], [t.get((j, i), 0), t.get((j, j), 0)]])
        parts.append(f"T(\\Delta)_{{\\{{{i},{j}\\}}}} = {sp.latex(m)}")
    doc.p("Its translation is the direct sum of the 1-D blocks, $T(\\Delta) = \\bigoplus_a "
          "T_a(\\Delta_a)$; the first pair of each block:")
    doc.math(",\\quad ".join(parts))
    status("multiaxis:translation_direct_sum")
    status("multiaxis:translation")
    ys = axis_symbols(enc.axes, "y")
    terms = [f"\\sum_{{k \\in B_{{{sp.latex(xs[a])}}}}} \\cos\\big(\\omega_k "
             f"({sp.latex(xs[a])} - {sp.latex(ys[a])})\\big)" for a in range(enc.axes)]
    doc.p("The dot product of two positions $p = x$, $q = y$ depends only on the offset "
          "vector ($B_{x_a}$: the pairs of the blocks reading axis $a$):")
    doc.math(f"PE(x)\\cdot PE(y) = {' + '.join(terms)}")
    status("multiaxis:dot_product")
    status("multiaxis:norm")
    if isinstance(s, MultiAxisRotary):
        doc.h(3, "Rotary over several axes")
        doc.p("The rotation is the same direct sum, $R(p) = \\bigoplus_a R_a(p_a)$, so the "
              "relative property of 1-D RoPE holds per axis and for the whole:")
        status("multiaxis:rotation_direct_sum")
        status("multiaxis:relative")
        if "multiaxis:diagonal_is_rope" in by:
            doc.p("On the diagonal $p = (m, \\ldots, m)$ (text tokens):")
            status("multiaxis:diagonal_is_rope")


def derive_multi(subject: Any, *, grid: Sequence[int] | None = None, seed: int = 0,
                 figures: Sequence[str] = MULTI_FIGURES, command: str | None = None
                 ) -> MultiAxisDerivation:
    """Check the equations of "From one axis to several" for ``subject``; see the module."""
    from ..plots_multiaxis import DEFAULT_GRID

    if isinstance(subject, MultiAxisRotary):
        checks, one_axis = _sinusoidal_checks(subject.encoding(), seed)
        more, relative = _rotary_checks(subject, seed)
        checks, one_axis = checks + more, one_axis + relative
    elif isinstance(subject, MultiAxisEncoding):
        checks, one_axis = _sinusoidal_checks(subject, seed)
    else:
        raise InvalidParameter(f"{subject!r} is not a multi-axis encoding or rotary; build "
                               "one with posproof.multi_preset, mrope or axial_rope")
    for name in figures:
        if name not in MULTI_FIGURES:
            raise InvalidParameter(f"figure={name!r} is not a multi-axis figure; use "
                                   f"{', '.join(MULTI_FIGURES)}")
    shape = tuple(DEFAULT_GRID if grid is None else grid)
    if grid is None and subject.axes != 2:
        shape = (4,) * (subject.axes - 2) + DEFAULT_GRID
    if len(shape) != subject.axes:
        raise InvalidParameter(f"grid={shape} has {len(shape)} sizes but {subject.name} has "
                               f"{subject.axes} axes; give one size per axis (--grid "
                               f"{','.join(['16'] * subject.axes)})")
    info = subject.to_dict()
    from ...audit import audit_report

    report = audit_report(Report(encoding=info, theorems=checks))
    return MultiAxisDerivation(subject, report, shape, command, tuple(figures), one_axis)


def write_multi_derivation(doc: MultiAxisDerivation, out: str | Path, *,
                           formats: Sequence[str] = ("md", "tex"),
                           figure_formats: Sequence[str] = ("png", "svg"),
                           stem: str = "derivation") -> list[Path]:
    """Write ``stem.md`` / ``stem.tex`` and ``figures/similarity.*``; byte for byte the same
    from run to run.  An unwritable ``out`` raises InvalidParameter."""
    written: list[Path] = []
    directory = Path(out)
    try:
        if doc.figures:
            from ..figure_style import save_figure
            from ..plots_multiaxis import similarity_figure

            (directory / "figures").mkdir(parents=True, exist_ok=True)
            written += save_figure(similarity_figure(doc.subject, doc.grid),
                                   directory / "figures" / "similarity", list(figure_formats))
        directory.mkdir(parents=True, exist_ok=True)
        for fmt in formats:
            path = directory / f"{stem}.{fmt}"
            path.write_text(doc.markdown() if fmt == "md" else doc.latex(),
                            encoding="utf-8" if fmt == "md" else "ascii")
            written.append(path)
    except OSError as exc:
        raise InvalidParameter(f"--out={str(out)!r} cannot be written "
                               f"({exc.strerror or exc}); pass a writable directory") from None
    return written
