"""The soundness corpus: false statements that must be refuted, true ones that must be proved.

Every entry is a :class:`Statement`: a thunk that asks posproof for a verdict
(one :class:`~posproof.report.Proof`) and whether the statement is true.  A
false statement must come back ``refuted`` with a counterexample that
:func:`confirm` re-evaluates here, *independently of the engine*: from the
exact SymPy objects (``Encoding.vector``, the claimed matrix, the rotation
entries of a ``Rotary``) through :func:`posproof.precise.mp_value` at 50
digits.  A true statement must come back ``proved``.

Used by ``tests/test_soundness.py`` (the bars) and ``scripts/confusion_matrix.py``
(the table).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from typing import Any

import mpmath
import sympy as sp

from posproof import Encoding, Explicit, Geometric, preset, prove
from posproof.model.encoding import DELTA
from posproof.model.layouts import LAYOUTS, permutation
from posproof.model.rope import ROTARY_LAYOUTS, Rotary, rotary
from posproof.model.scaling import DynamicNTKScaling, LinearScaling
from posproof.precise import mp_value
from posproof.proofs.rotary import EXPECTED_REFUTATIONS, prove_rotary, stale_cache
from posproof.proofs.theorems import CONCRETE_THEOREMS, GENERAL_THEOREMS, W
from posproof.report import Proof

W0 = W[0]
C, S = sp.cos(W0 * DELTA), sp.sin(W0 * DELTA)
#: The true block on a (sin, cos) pair, row convention PE(x+Δ) = PE(x)·T(Δ).
TRUE_BLOCK = sp.Matrix([[C, -S], [S, C]])
DPS = 50
#: A counterexample is confirmed when its residual, recomputed here, exceeds this.
CONFIRM = mpmath.mpf(10) ** -20


@dataclass
class Statement:
    """One statement of the corpus, its truth, and how posproof is asked about it."""

    id: str
    truth: bool
    group: str
    ask: Callable[[], Proof]
    confirm: Callable[[Proof], None] | None = None
    description: str = ""


@dataclass
class Outcome:
    statement: Statement
    status: str
    confirmed: bool | None
    seconds: float
    detail: str = ""
    proof: Proof | None = field(default=None, repr=False)


# --------------------------------------------------------------------------- evaluation
def mp(expr: Any) -> mpmath.mpf:
    return mp_value(sp.sympify(expr), DPS)


def exact(value: Any) -> sp.Expr:
    """A counterexample coordinate: an int, an exact fraction "1/3", or a decimal string."""
    if isinstance(value, int):
        return sp.Integer(value)
    text = str(value)
    return sp.Rational(text) if "/" in text or "." not in text else sp.Float(text, 60)


def evaluate(statement: Statement) -> Outcome:
    """Ask posproof, then (for a refutation) confirm the counterexample independently."""
    start = time.perf_counter()
    proof = statement.ask()
    seconds = time.perf_counter() - start
    confirmed, detail = None, ""
    if proof.status == "refuted":
        try:
            if statement.confirm is None or not proof.counterexample:
                raise AssertionError("no counterexample to confirm")
            statement.confirm(proof)
            confirmed = True
        except AssertionError as exc:
            confirmed, detail = False, str(exc)
    return Outcome(statement, proof.status, confirmed, seconds, detail, proof)


def _check(residual: mpmath.mpf, proof: Proof) -> None:
    assert residual > CONFIRM, (f"{proof.name}: recomputed residual {residual} is no "
                                f"counterexample ({proof.counterexample})")


# --------------------------------------------------------------------------- residuals
# Each recomputes, from the exact objects, how far a counterexample is from the statement.
def translation_residual(enc: Encoding, claim: sp.Matrix, ce: dict, convention: str = "row"
                         ) -> mpmath.mpf:
    """|PE(x+Δ)[j] − (PE(x)·T(Δ))[j]| (row) or |… − (T(Δ)·PE(x)ᵀ)[j]| (column)."""
    x, dl, col = exact(ce["x"]), exact(ce["delta"]), ce["column"]
    t = sp.Matrix(claim).subs(DELTA, dl)
    rhs = (enc.vector(x) * t)[col] if convention == "row" else (t * enc.vector(x).T)[col]
    return abs(mp(enc.vector(x + dl)[col]) - mp(rhs))


def pair_witness_residual(enc: Encoding, ce: dict) -> mpmath.mpf:
    """How far the only 2×2 block mapping the pair at two positions misses at a third."""
    s, c = ce["columns"]
    dl = exact(ce["delta"])
    with mpmath.workdps(DPS):
        def row(x: Any) -> list[mpmath.mpf]:
            v = enc.vector(x)
            return [mp(v[s]), mp(v[c])]
        for xs in ([0, 1], [1, 2]):
            mat = mpmath.matrix([row(x) for x in xs])
            if abs(mpmath.det(mat)) > mpmath.mpf(10) ** -10:
                break
        forced = mpmath.inverse(mat) * mpmath.matrix([row(x + dl) for x in xs])
        x = exact(ce["x"])
        pred = mpmath.matrix([row(x)]) * forced
        true = row(x + dl)
        return max(abs(pred[0, i] - true[i]) for i in range(2))


def dot_residual(enc: Encoding, ce: dict) -> mpmath.mpf:
    """|PE(x)·PE(y) − PE(x+s)·PE(y+s)|: nonzero when the dot product is not a function of x − y."""
    x, y, s = exact(ce["x"]), exact(ce["y"]), exact(ce["shift"])
    a = mp((enc.vector(x) * enc.vector(y).T)[0])
    b = mp((enc.vector(x + s) * enc.vector(y + s).T)[0])
    return abs(a - b)


def norm_residual(enc: Encoding, ce: dict) -> mpmath.mpf:
    """|‖PE(x)‖² − d/2|."""
    x = exact(ce["x"])
    return abs(mp((enc.vector(x) * enc.vector(x).T)[0]) - enc.n_pairs)


# --------------------------------------------------------------------------- confirmers
def confirm_translation(enc: Encoding, claim: sp.Matrix, convention: str = "row"
                        ) -> Callable[[Proof], None]:
    """PE(x+Δ)[j] ≠ (PE(x)·T(Δ))[j] (row) or (T(Δ)·PE(x)ᵀ)[j] (column), recomputed."""
    def confirm(proof: Proof) -> None:
        ce = proof.counterexample
        if ce.get("kind") == "zero witness":
            return confirm_zero_witness(enc)(proof)
        if ce.get("kind") == "pair witness":
            return confirm_pair_witness(enc)(proof)
        _check(translation_residual(enc, claim, ce, convention), proof)
        return None
    return confirm


def confirm_zero_witness(enc: Encoding) -> Callable[[Proof], None]:
    """PE(0) = 0 exactly, PE(1) ≠ 0: no linear map sends one to the other."""
    def confirm(proof: Proof) -> None:
        assert all(v == 0 for v in enc.vector(0)), "PE(0) is not the zero vector"
        _check(max(abs(mp(v)) for v in enc.vector(1)), proof)
    return confirm


def confirm_pair_witness(enc: Encoding) -> Callable[[Proof], None]:
    """The only 2×2 block mapping the pair at two positions fails at a third."""
    return lambda proof: _check(pair_witness_residual(enc, proof.counterexample), proof)


def confirm_dot(enc: Encoding) -> Callable[[Proof], None]:
    """PE(x)·PE(y) ≠ PE(x+s)·PE(y+s): not a function of x − y."""
    return lambda proof: _check(dot_residual(enc, proof.counterexample), proof)


def confirm_norm(enc: Encoding) -> Callable[[Proof], None]:
    return lambda proof: _check(norm_residual(enc, proof.counterexample), proof)


def confirm_period(enc: Encoding, period: Any) -> Callable[[Proof], None]:
    def confirm(proof: Proof) -> None:
        ce = proof.counterexample
        x, col = exact(ce["x"]), ce["column"]
        p = sp.sympify(period)
        with mpmath.workdps(DPS + 20):
            _check(abs(mp_value(enc.vector(x + p)[col], DPS + 20)
                       - mp_value(enc.vector(x)[col], DPS + 20)), proof)
    return confirm


def confirm_bound(enc: Encoding, bound: Any) -> Callable[[Proof], None]:
    def confirm(proof: Proof) -> None:
        ce = proof.counterexample
        value = abs(mp(enc.vector(exact(ce["x"]))[ce["column"]]))
        with mpmath.workdps(DPS):
            assert value - mp(sp.sympify(bound)) > 0, f"|PE| = {value} does not exceed {bound}"
    return confirm


def confirm_permutation(enc: Encoding, layout: str, perm: list[int]) -> Callable[[Proof], None]:
    def confirm(proof: Proof) -> None:
        ce = proof.counterexample
        x, j = exact(ce["x"]), ce["column"]
        assert ce["source_column"] == perm[j]
        other = Encoding(enc.schedule, layout, enc.dim)
        _check(abs(mp(other.vector(x)[j]) - mp(enc.vector(x)[perm[j]])), proof)
    return confirm


def confirm_logit(before: Rotary, after: Rotary) -> Callable[[Proof], None]:
    """⟨R(m)e_i, R'(n)e_i⟩ differs at two (m, n) with the same n − m: from rotation entries."""
    def confirm(proof: Proof) -> None:
        ce = proof.counterexample
        i = int(str(ce["q"]).removeprefix("e_"))
        m_sym = sp.Symbol("m", real=True)
        rb, ra = before.rotation_entries(m_sym), after.rotation_entries(m_sym)

        def logit(m: int, n: int) -> mpmath.mpf:
            rows = {r for (r, c) in rb if c == i} | {r for (r, c) in ra if c == i}
            return mpmath.fsum(mp(rb.get((r, i), 0).subs(m_sym, m))
                               * mp(ra.get((r, i), 0).subs(m_sym, n)) for r in rows)
        m, n, shift = ce["m"], ce["n"], ce["shift"]
        _check(abs(logit(m, n) - logit(m + shift, n + shift)), proof)
    return confirm


def confirm_factor_one(rule: DynamicNTKScaling, dim: int) -> Callable[[Proof], None]:
    """Dynamic NTK with factor 1 beyond L differs from the unscaled frequencies."""
    def confirm(proof: Proof) -> None:
        ce = proof.counterexample
        base = rule.base
        one = DynamicNTKScaling(base, 1, rule.original_max_position_embeddings,
                                seq_len=ce["seq_len"])
        k = ce["pair"]
        _check(abs(mp(one.frequencies(dim)[k]) - mp(Geometric(base).frequencies(dim)[k])),
               proof)
    return confirm


# --------------------------------------------------------------------------- builders
@cache
def _report(name: str, dim: int, layout: str | None) -> dict[str, Proof]:
    """Every theorem, with the general-d ones at d = 8 (one engine run serves both)."""
    report = prove(_encoding(name, dim, layout), general=dim == 8)
    return {p.name: p for p in report.theorems}


def _encoding(name: str, dim: int, layout: str | None = None) -> Encoding:
    params: dict[str, Any] = {}
    if layout is not None:
        params["layout"] = layout
    if dim % 2:
        params["odd_dim"] = "pad"
    if name == "explicit":
        params["frequencies"] = [Fraction(1, 2 * k + 1) for k in range(dim // 2)]
    if name == "expression":
        params["expression"] = "b**(-2*k/d)"
    return preset(name, dim=dim, **params)


def block_matrix(enc: Encoding, block: sp.Matrix) -> sp.Matrix:
    """The d×d matrix a 2×2 block in w and delta stands for, pair by pair in (sin, cos) order."""
    out = sp.zeros(enc.dim, enc.dim)
    for s, c in enc.pairs:
        w = enc.column_frequency(s)
        for i, row in enumerate((s, c)):
            for j, col in enumerate((s, c)):
                out[row, col] = block[i, j].xreplace({W0: w})
    for j in range(2 * enc.n_pairs, enc.dim):
        out[j, j] = 1
    return out


def _claim(enc: Encoding, matrix: sp.Matrix, convention: str = "row") -> Proof:
    report = prove(enc, theorems=[], claim=matrix, convention=convention)
    return report.theorems[0]


def _one(enc: Encoding, name: str) -> Proof:
    return prove(enc, theorems=[name]).theorems[0]


def _claim_kw(enc: Encoding, **kw: Any) -> Proof:
    return prove(enc, theorems=[], **kw).theorems[0]


def _rotary_proof(rot: Rotary, name: str) -> Proof:
    report = prove_rotary(rot)
    return next(p for p in report.theorems if p.name == name)


# --------------------------------------------------------------------------- false
def false_statements() -> list[Statement]:
    out: list[Statement] = []

    def add(id_: str, group: str, ask: Callable[[], Proof], confirm: Callable[[Proof], None],
            description: str) -> None:
        out.append(Statement(id_, False, group, ask, confirm, description))

    enc8 = preset("vaswani", dim=8)
    # Mutant 2×2 blocks, claimed for every pair, row convention.
    mutants = {
        "transposed": (sp.Matrix([[C, S], [-S, C]]), "the transpose of the true block"),
        "flip[0,0]": (sp.Matrix([[-C, -S], [S, C]]), "one sign flipped"),
        "flip[0,1]": (sp.Matrix([[C, S], [S, C]]), "one sign flipped"),
        "flip[1,0]": (sp.Matrix([[C, -S], [-S, C]]), "one sign flipped"),
        "flip[1,1]": (sp.Matrix([[C, -S], [S, -C]]), "one sign flipped"),
        "sin-cos-swapped": (sp.Matrix([[S, -C], [C, S]]), "sin and cos swapped"),
        "identity": (sp.eye(2), "T(Δ) = I: a shift changes nothing"),
        "double-angle": (TRUE_BLOCK.subs(DELTA, 2 * DELTA), "angle 2wΔ"),
        "half-frequency": (TRUE_BLOCK.subs(W0, W0 / 2), "frequency w/2"),
        "off-by-one-shift": (TRUE_BLOCK.subs(DELTA, DELTA + 1), "angle w(Δ+1)"),
        "scaled": (2 * TRUE_BLOCK, "twice the rotation"),
    }
    for key, (block, why) in mutants.items():
        matrix = block_matrix(enc8, block)
        add(f"block:{key}", "wrong block", lambda m=matrix: _claim(enc8, m),
            confirm_translation(enc8, matrix), f"vaswani d=8 with the block: {why}")
    # The right block in the wrong convention (and the column block in the row convention).
    row_true = block_matrix(enc8, TRUE_BLOCK)
    add("convention:row-block-as-column", "wrong convention",
        lambda: _claim(enc8, row_true, "column"), confirm_translation(enc8, row_true, "column"),
        "the row-convention T used as T·PEᵀ")
    col_true = row_true.T
    add("convention:column-block-as-row", "wrong convention",
        lambda: _claim(enc8, col_true, "row"), confirm_translation(enc8, col_true, "row"),
        "the column-convention T used as PE·T")
    # A layout's T claimed for a table built in another layout (swapped layouts).
    for src in LAYOUTS:
        for dst in LAYOUTS:
            if src == dst:
                continue
            enc = Encoding(Geometric(10000), dst, 8)
            matrix = sp.Matrix(Encoding(Geometric(10000), src, 8).translation(DELTA))
            add(f"layout:T[{src}]-for-{dst}", "wrong layout",
                lambda e=enc, m=matrix: _claim(e, m), confirm_translation(enc, matrix),
                f"the {src} T(Δ) claimed for a {dst} table")
    # Off-by-one and wrong schedules: T built from other frequencies.
    wrong_t = {
        "fairseq-n-1": Encoding(preset("fairseq", dim=8).schedule, "interleaved", 8),
        "pair-index+1": Encoding(Explicit([sp.Integer(10000) ** sp.Rational(-(k + 1), 4)
                                           for k in range(4)]), "interleaved", 8),
        "base-1000": Encoding(Geometric(1000), "interleaved", 8),
    }
    for key, other in wrong_t.items():
        matrix = sp.Matrix(other.translation(DELTA))
        add(f"schedule:{key}", "off-by-one schedule", lambda m=matrix: _claim(enc8, m),
            confirm_translation(enc8, matrix), f"vaswani d=8 with T from {key} frequencies")
    # Broken encodings: the theorems are false for them.
    broken = {
        "sine-only": preset("sine-only", dim=8),
        "column-exponent": preset("column-exponent", dim=8),
        "mismatched-pair": Encoding.from_columns(
            [("sin", 1), ("cos", sp.Rational(1, 2)), ("sin", sp.Rational(1, 3)),
             ("cos", sp.Rational(1, 3))], name="mismatched"),
    }
    # Columns that regroup by frequency into a cos twice and a sin twice: no pair at all.
    doubled = Encoding.from_columns([("sin", 2), ("cos", 1), ("cos", 1), ("sin", 2)])
    add("doubled-columns:dot_product", "broken encoding", lambda: _one(doubled, "dot_product"),
        confirm_dot(doubled), "dot product with cos(x) twice and sin(2x) twice")
    add("doubled-columns:norm", "broken encoding", lambda: _one(doubled, "norm"),
        confirm_norm(doubled), "norm with cos(x) twice and sin(2x) twice")
    for key, enc in broken.items():
        for name, confirm in (("translation[row]", confirm_translation),
                              ("translation[column]", confirm_translation),
                              ("dot_product", confirm_dot), ("norm", confirm_norm)):
            if key == "mismatched-pair" and name == "norm":
                continue  # sin² + cos² at two frequencies is not 1, but see the dot product
            if name.startswith("translation"):
                conv = name[12:-1]
                cf = confirm_translation(enc, sp.zeros(enc.dim), conv)
            else:
                cf = confirm(enc)
            add(f"{key}:{name}", "broken encoding", lambda e=enc, n=name: _one(e, n), cf,
                f"{name} for the {key} encoding")
    # Wrong permutations between layouts.
    n = 4
    right = permutation("interleaved", "split", n)
    wrong_perms = {
        "identity-for-split": ("split", list(range(8))),
        "inverse-for-split": ("split", [right.index(j) for j in range(8)]),
        "split-cos-map-for-split": ("split", permutation("interleaved", "split-cos", n)),
        "one-swap": ("split", [right[1], right[0], *right[2:]]),
        "split-map-for-interleaved-cos": ("interleaved-cos", right),
    }
    for key, (layout, perm) in wrong_perms.items():
        add(f"permutation:{key}", "wrong permutation",
            lambda lay=layout, p=perm: _claim_kw(enc8, claim_permutation=(lay, p)),
            confirm_permutation(enc8, layout, perm), f"column map {perm} to {layout}")
    # Wrong periods.
    binary = preset("binary", dim=8)
    wrong_periods = [
        ("vaswani-2pi", enc8, "2*pi", "2π (only the first pair has it)"),
        ("vaswani-512-2pi*10000", preset("vaswani", dim=512), "2*pi*10000",
         "2π·10⁴ for the aperiodic d=512 curve"),
        ("vaswani-no-pi", enc8, "10000", "10000 without the factor 2π"),
        ("binary-half", binary, "16", "half of the exact period 32"),
        ("binary-period-minus-one", binary, "31", "the exact period minus one"),
        ("t2t-2pi", preset("tensor2tensor", dim=8), "2*pi", "2π for tensor2tensor d=8"),
    ]
    for key, enc, period, why in wrong_periods:
        add(f"period:{key}", "wrong period",
            lambda e=enc, p=period: _claim_kw(e, claim_period=p), confirm_period(enc, period),
            f"claimed period {why}")
    # Wrong bounds.
    for key, bound in [("half", "1/2"), ("0.99", "99/100"), ("sqrt2/2", "sqrt(2)/2"),
                       ("zero", "0"), ("1-1e-30", "1 - 10**-30")]:
        add(f"bound:{key}", "wrong bound",
            lambda b=bound: _claim_kw(enc8, claim_bound=b), confirm_bound(enc8, bound),
            f"|PE_i(x)| ≤ {bound}")
    # Rotary: queries and keys rotated with different frequencies.
    rot_pairs = {
        "base-10000-vs-500000": (rotary(10000, 16), rotary(500000, 16)),
        "linear-1-vs-4": (Rotary(LinearScaling(10000, 1), 16), Rotary(LinearScaling(10000, 4), 16)),
        "adjacent-ntk": (rotary(10000, 16, layout="adjacent"),
                         rotary(10000, 16, layout="adjacent", scaling="ntk", factor=4)),
    }
    for key, (before, after) in rot_pairs.items():
        add(f"rotary:q-k-{key}", "rotary q ≠ k frequencies",
            lambda b=before, a=after: stale_cache(b, a), confirm_logit(before, after),
            f"⟨R_θ(m)q, R_θ'(n)k⟩ a function of n − m with {key}")
    dyn = DynamicNTKScaling(10000, 2, 64)
    add("rotary:stale-cache[dynamic]", "rotary q ≠ k frequencies",
        lambda: _rotary_proof(Rotary(dyn, 16), "hazard:stale_cache"),
        confirm_logit(Rotary(dyn.at(64), 16), Rotary(dyn.at(128), 16)),
        "keys cached before a dynamic-NTK rescale")
    add("scaling:dynamic-factor-one-is-identity", "scaling",
        lambda: _rotary_proof(Rotary(dyn, 16), "scaling:factor_one[dynamic]"),
        confirm_factor_one(dyn, 16), "dynamic NTK with factor 1 is the unscaled table")
    assert len({s.id for s in out}) == len(out)
    return out


# --------------------------------------------------------------------------- true
SOUND_PRESETS = ("vaswani", "tensor2tensor", "fairseq", "diffusion", "binary", "explicit",
                 "expression")
ROTARY_VARIANTS: dict[str, dict[str, Any]] = {
    "default": {},
    "linear": {"scaling": "linear", "factor": 4},
    "ntk": {"scaling": "ntk", "factor": 4},
    "dynamic": {"scaling": "dynamic", "factor": 2, "original_max_position_embeddings": 64},
    "yarn": {"scaling": "yarn", "factor": 4, "original_max_position_embeddings": 256},
    "llama3": {"scaling": "llama3", "factor": 8, "original_max_position_embeddings": 256},
    "longrope": {"scaling": "longrope", "short_factor": [1, 1.5, 2, 3],
                 "long_factor": [1, 2, 4, 8], "original_max_position_embeddings": 256,
                 "factor": 16},
    "partial": {"partial_rotary_factor": 0.5},
}


def true_statements(dims: tuple[int, ...] = (8, 33), rotary: bool = True) -> list[Statement]:
    """True statements; with ``rotary`` those of every rotary variant too (which proves
    each variant once, to learn the names of its scaling theorems)."""
    out: list[Statement] = []

    def add(id_: str, group: str, ask: Callable[[], Proof], description: str = "") -> None:
        out.append(Statement(id_, True, group, ask, None, description))

    for name in SOUND_PRESETS:
        for layout in LAYOUTS:
            for dim in dims:
                if name == "fairseq" and dim < 4:
                    continue
                for theorem in CONCRETE_THEOREMS:
                    add(f"{name}[{layout},d={dim}]:{theorem}", "preset theorems",
                        lambda n=name, d=dim, lay=layout, t=theorem: _report(n, d, lay)[t])
            for theorem in GENERAL_THEOREMS:
                add(f"{name}[{layout}]:general:{theorem}", "general-d theorems",
                    lambda n=name, lay=layout, t=theorem:
                        _report(n, 8, lay)[f"general:{t}"])
    # True claims: the right block in each layout and convention, the right permutations,
    # exact periods and their multiples, valid bounds.
    for layout in LAYOUTS:
        enc = Encoding(Geometric(10000), layout, 8)
        for conv, block in (("row", TRUE_BLOCK), ("column", TRUE_BLOCK.T)):
            add(f"claim:true-block[{layout},{conv}]", "true claims",
                lambda e=enc, b=block, c=conv: _claim_kw(e, claim_block=b, convention=c))
        for other in LAYOUTS:
            if other != layout:
                perm = permutation(layout, other, 4)
                add(f"claim:permutation[{layout}->{other}]", "true claims",
                    lambda e=enc, o=other, p=perm: _claim_kw(e, claim_permutation=(o, p)))
    for key, enc, period in [("binary-8", preset("binary", dim=8), "32"),
                             ("binary-8-twice", preset("binary", dim=8), "64"),
                             ("vaswani-8", preset("vaswani", dim=8), "2*pi*10000"),
                             ("explicit-6", _encoding("explicit", 6), "30*pi")]:
        add(f"claim:period[{key}]", "true claims",
            lambda e=enc, p=period: _claim_kw(e, claim_period=p))
    # Pairs in unexpected columns: the sums regroup by frequency.
    crossed = Encoding.from_columns([("sin", 2), ("cos", 1), ("sin", 1), ("cos", 2),
                                     ("zero", 0)])
    for theorem in ("dot_product", "norm", "bounded"):
        add(f"crossed-pairs:{theorem}", "true claims", lambda t=theorem: _one(crossed, t),
            "[sin 2x, cos x, sin x, cos 2x, 0]: the pairs are not where the layout puts them")
    for bound in ("1", "3/2", "sqrt(2)", "10**9"):
        add(f"claim:bound[{bound}]", "true claims",
            lambda b=bound: _claim_kw(preset("vaswani", dim=8), claim_bound=b))
    if rotary:
        for key in ROTARY_VARIANTS:
            for layout in ROTARY_LAYOUTS:
                out += rotary_statements(key, layout)
    assert len({s.id for s in out}) == len(out)
    return out


def rotary_statements(key: str, layout: str) -> list[Statement]:
    """Every theorem posproof states for a rotary variant (expected refutations aside: they
    are false statements, above)."""
    return [Statement(f"rotary[{key},{layout}]:{name}", True, "rotary variants",
                      lambda p=name: _rotary_report(key, layout)[p])
            for name in _rotary_report(key, layout) if name not in EXPECTED_REFUTATIONS]


@cache
def _rotary_report(key: str, layout: str) -> dict[str, Proof]:
    spec = dict(ROTARY_VARIANTS[key])
    spec.setdefault("layout", layout)
    report = prove_rotary(rotary(10000, 8 if key != "partial" else 16, **spec))
    return {p.name: p for p in report.theorems}


def statements() -> list[Statement]:
    import corpus_multiaxis  # the section "several axes" (issue 15); it imports this module

    return (false_statements() + true_statements() + corpus_multiaxis.false_statements()
            + corpus_multiaxis.true_statements())


def confusion(outcomes: list[Outcome]) -> dict[str, dict[str, int]]:
    """Counts by truth (rows "false", "true") and verdict (columns)."""
    table = {"false": {"proved": 0, "refuted": 0, "unknown": 0, "refuted_unconfirmed": 0},
             "true": {"proved": 0, "refuted": 0, "unknown": 0, "refuted_unconfirmed": 0}}
    for o in outcomes:
        row = table["true" if o.statement.truth else "false"]
        if o.status == "refuted" and o.confirmed is False:
            row["refuted_unconfirmed"] += 1
        else:
            row[o.status] += 1
    return table


__all__ = ["ROTARY_VARIANTS", "Outcome", "Statement", "confusion", "evaluate",
           "false_statements", "rotary_statements", "statements", "true_statements"]
