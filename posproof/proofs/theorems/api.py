"""The entry point :func:`prove`: theorems by name, the general-d proofs, claims.

:func:`concrete` runs one concrete theorem on an :class:`Engine`;
:func:`general_proofs` proves the same theorems for every even d with a symbolic
pair index k; :func:`parse_block`, :func:`claimed_matrix` and :func:`claim_entries`
turn a claimed T(Δ) (a 2×2 block or a d×d matrix) into entries, refusing
anything that is not a SymPy expression or a number.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import replace
from fractions import Fraction
from typing import Any

import mpmath
import sympy as sp

from ...audit import apply_all
from ...errors import InvalidParameter, PosproofError, UnknownName, check_int, check_sequence
from ...evidence import Evidence
from ...model.encoding import DELTA, Encoding
from ...model.layouts import partition_lemma
from ...precise import DEFAULT_DPS
from ...report import Proof, Report, Step
from .budget import DEFAULT_BUDGET, DEFAULT_TIMEOUT, Budget, check_budget, check_timeout, within
from .engine import Engine
from .identities import DSYM, KSYM, CrossCheckFailure, W, fmt

__all__ = [
    "CONCRETE_THEOREMS",
    "GENERAL_THEOREMS",
    "claim_entries",
    "claimed_matrix",
    "concrete",
    "dims_from",
    "general_crosscheck",
    "general_proofs",
    "parse_block",
    "prove",
]

CONCRETE_THEOREMS = (
    "translation[row]", "translation[column]", "dot_product", "norm", "bounded",
    "orthogonal", "determinant", "identity_at_zero", "group_law", "inverse_is_transpose",
    "layout_equivalence", "periodicity",
)
GENERAL_THEOREMS = (
    "translation[row]", "translation[column]", "dot_product", "norm", "bounded",
    "orthogonal", "determinant", "identity_at_zero", "group_law", "inverse_is_transpose",
    "layout_equivalence",
)


_STATEMENTS = {"translation[row]": "PE(x+Δ) = PE(x)·T(Δ)",
               "translation[column]": "PE(x+Δ)ᵀ = T(Δ)·PE(x)ᵀ",
               "dot_product": "PE(x)·PE(y) = Σ_{k<n} cos(ω_k(x−y))",
               "norm": "‖PE(x)‖² = d/2", "bounded": "|PE_i(x)| ≤ 1",
               "orthogonal": "T(Δ)ᵀT(Δ) = I", "determinant": "det T(Δ) = 1",
               "identity_at_zero": "T(0) = I", "group_law": "T(a)T(b) = T(a+b)",
               "inverse_is_transpose": "T(−a) = T(a)ᵀ",
               "layout_equivalence": "T_L = P_LᵀT P_L for every layout L",
               "periodicity": "the curve of positions is periodic or aperiodic",
               "claim[row]": "PE(x+Δ) = PE(x)·T(Δ), T(Δ) as claimed",
               "claim[column]": "PE(x+Δ)ᵀ = T(Δ)·PE(x)ᵀ, T(Δ) as claimed",
               "claim:period": "PE(x+P) = PE(x) for every real x, P as claimed",
               "claim:bound": "|PE_i(x)| ≤ c for every column i and real x, c as claimed",
               "claim:permutation": "PE_L(x) = PE(x)·P, P as claimed"}


def _budgeted(engines: Sequence[Engine], limits: tuple[int | None, float | None], name: str,
              statement: str, attempt: Callable[[], Proof]) -> Proof:
    """One theorem within its budget (``limits``: work units, safety-net seconds): the proof,
    or ``unknown`` saying what ran out."""
    budget = Budget(*limits)
    for engine in engines:
        engine.budget = budget
    try:
        proof, why = within(budget, attempt)
    except CrossCheckFailure as exc:
        # The numbers contradict a symbolic proof: never proved, and the other theorems go on.
        return Proof(name, statement, "unknown", note=f"internal error, please report: {exc}")
    finally:
        for engine in engines:
            engine.budget = Budget(None)
    if proof is not None:
        return proof
    return Proof(name, statement, "unknown", note=why)


# --------------------------------------------------------------------------- general d
def general_proofs(enc: Encoding, names: Sequence[str], seed: int,
                   limits: tuple[int | None, float | None] = (None, None),
                   share: Engine | None = None) -> list[Proof]:
    """Proofs for every even d at once, with a symbolic pair index k (each theorem within
    ``limits``: work units, safety-net seconds).  The engines of the instances share one
    identity cache (with ``share``'s, when given): an identity proved once is not expanded
    again; every instance still runs its own numeric cross-check."""
    if enc.schedule is None:
        return [Proof(f"general:{n}", "for every even d", "unknown",
                      note="only for schedule-built encodings") for n in names]
    layout = enc.layout
    ok, why = partition_lemma(layout)
    omega = enc.schedule.general(KSYM, DSYM)
    lemma = Step(f"layout {layout.name}: {why}", "partition of columns (affine maps)")
    instance = (f"ω(k) = {omega}" if omega is not None else "ω(k) any positive frequency")
    small = Encoding(enc.schedule, layout, dims_from(enc, 2)[0])
    engine = Engine(small, seed, share)
    rng = random.Random(seed)
    engines = []
    for d in dims_from(enc, 2, rng.randrange(2, 64, 2), rng.randrange(64, 1024, 2)):
        inst = Engine(Encoding(enc.schedule, enc.layout, d), rng.randrange(10**6), engine)
        inst.m.groups = inst.m.sample_groups(3)  # the pairs the numbers are checked on
        inst.m._samples.clear()
        engines.append(inst)
    out = []
    for name in names:
        statement = (f"{_STATEMENTS[name]} for every even d (pair index k symbolic, "
                     f"{instance})")
        if not ok:
            out.append(Proof(name, statement, "unknown", [lemma], general=True, note=why))
            continue

        def attempt(name: str = name, statement: str = statement) -> Proof:
            generic = concrete(engine, name)
            if generic.status != "proved":
                return Proof(name, statement, "unknown", [lemma, *generic.steps], general=True,
                             note="the generic pair identity was not proved")
            steps = [lemma, Step("pair k holds sin(ω(k)x) and cos(ω(k)x); replacing ω(k) by "
                                 "a free symbol w, the statement reduces to the pair identity "
                                 "below", "generic pair"), *generic.steps]
            cc, items = general_crosscheck(engines, name)
            ev = Evidence("symbolic identity for every even d (a generic pair identity)",
                          coverage="structural", items=items,
                          details={"dims_checked": cc["dims"]})
            return Proof(name, statement, "proved", steps, general=True, crosscheck=cc,
                         evidence=ev)
        out.append(_budgeted([engine, *engines], limits, name, statement, attempt))
    for proof in out:
        proof.name = f"general:{proof.name}"
    return out


def general_crosscheck(engines: list[Engine], name: str) -> tuple[dict[str, Any], list[Any]]:
    """Check the theorem numerically on instances at random even d (2 included); returns the
    cross-check and one evidence item per instance (its residual at an exact point, 0)."""
    worst = mpmath.mpf(0)
    items = []
    for engine in engines:
        proof = concrete(engine, name)
        if proof.status != "proved":
            raise CrossCheckFailure(f"{name} fails at dim={engine.enc.dim}: {proof.status}")
        worst = max(worst, mpmath.mpf((proof.crosscheck or {}).get("max_residual", "0")))
        for item in (proof.evidence.items if proof.evidence else [])[:1]:
            items.append(replace(item, label=f"d = {engine.enc.dim}: {item.label}"))
    return ({"dims": [e.enc.dim for e in engines], "max_residual": fmt(worst, 3),
             "dps": DEFAULT_DPS}, items)


def dims_from(enc: Encoding, *dims: int) -> list[int]:
    """The even dims, among those asked, that the schedule accepts (an explicit list: its own)."""
    if enc.schedule is not None and enc.schedule.family == "explicit":
        return [2 * enc.n_pairs]
    out = []
    for d in dims:
        try:
            enc.schedule.frequencies(d)  # type: ignore[union-attr]
        except PosproofError:
            continue
        out.append(d)
    return out or [2 * enc.n_pairs]


def concrete(engine: Engine, name: str, crosscheck_only: bool = False) -> Any:
    proof = {
        "translation[row]": lambda: engine.translation_proof("row", None),
        "translation[column]": lambda: engine.translation_proof("column", None),
        "dot_product": engine.dot_product,
        "norm": engine.norm,
        "bounded": engine.bounded,
        "layout_equivalence": engine.layout_equivalence,
        "periodicity": engine.periodicity,
    }.get(name, lambda: engine.structure(name))()
    if crosscheck_only:
        if proof.status != "proved":
            raise CrossCheckFailure(f"{name} fails at dim={engine.enc.dim}: {proof.status}")
        return (proof.crosscheck or {}).get("max_residual", "0")
    return proof


# --------------------------------------------------------------------------- claims
def parse_block(text: str) -> sp.Matrix:
    """A 2×2 block typed as ``"a, b; c, d"`` in w (the pair's frequency) and delta.

    >>> parse_block("cos(w*delta), sin(w*delta); -sin(w*delta), cos(w*delta)")
    Matrix([
    [ cos(delta*w_0), sin(delta*w_0)],
    [-sin(delta*w_0), cos(delta*w_0)]])
    """
    from ...model.expressions import parse_expression

    rows = str(text).split(";")
    cells = [[c.strip() for c in r.split(",")] for r in rows]
    if len(cells) != 2 or any(len(r) != 2 for r in cells):
        raise InvalidParameter(
            f"block={text!r} is not 2×2; write 'a, b; c, d' in w and delta, e.g. "
            "'cos(w*delta), -sin(w*delta); sin(w*delta), cos(w*delta)'")
    symbols = {"w": W[0], "delta": DELTA, "t": DELTA}
    trig = {"sin": sp.sin, "cos": sp.cos}
    return sp.Matrix([[parse_expression(c, symbols, what="block entry", functions=trig)
                       for c in r] for r in cells])


def claimed_matrix(name: str, value: Any) -> sp.Matrix:
    """A claimed matrix from SymPy objects and numbers only: text inside a list is refused
    (``sp.Matrix`` would run it through ``sympify``, that is through ``eval``)."""
    if isinstance(value, sp.MatrixBase):
        rows = value.tolist()
    elif isinstance(value, (list, tuple)) and all(isinstance(r, (list, tuple)) for r in value):
        rows = [list(r) for r in value]
    else:
        raise InvalidParameter(f"{name}={value!r:.80} is not a matrix; pass a SymPy Matrix or a "
                               "list of rows" + (" or 'a, b; c, d' text" if "block" in name
                                                 else ""))
    if not rows or len({len(r) for r in rows}) != 1:
        raise InvalidParameter(f"{name} has rows of different lengths or none")
    out = []
    for i, row in enumerate(rows):
        for j, entry in enumerate(row):
            if isinstance(entry, (str, bytes)) or not isinstance(
                    entry, (sp.Basic, int, float, Fraction)) or isinstance(entry, bool):
                raise InvalidParameter(
                    f"{name}[{i}][{j}]={entry!r:.60} is not a SymPy expression or a number; "
                    "write text claims as 'a, b; c, d' (claim_block), which is parsed safely")
            out.append(sp.sympify(entry, strict=True))
    return sp.Matrix(len(rows), len(rows[0]), out)


def claim_entries(enc: Encoding, claim: Any, claim_block: Any) -> dict[tuple[int, int], sp.Expr]:
    if claim_block is not None:
        block = (parse_block(claim_block) if isinstance(claim_block, str)
                 else claimed_matrix("claim_block", claim_block))
        if block.shape != (2, 2):
            raise InvalidParameter(f"claim_block has shape {block.shape}; a 2×2 block is needed")
        out: dict[tuple[int, int], sp.Expr] = {}
        for s, c in enc.pairs:
            w = enc.column_frequency(s)
            cols = (s, c)
            for i in range(2):
                for j in range(2):
                    value = block[i, j].xreplace({W[0]: w})
                    if value != 0:
                        out[(cols[i], cols[j])] = value
        for j in range(2 * enc.n_pairs, enc.dim):
            out[(j, j)] = sp.Integer(1)
        return out
    matrix = sp.SparseMatrix(claimed_matrix("claim", claim(DELTA) if callable(claim) else claim))
    if matrix.shape != (enc.dim, enc.dim):
        raise InvalidParameter(
            f"claim has shape {matrix.shape}; T(Δ) for dim={enc.dim} is {enc.dim}×{enc.dim}")
    extra = matrix.free_symbols - {DELTA}
    if extra:
        raise InvalidParameter(f"claim uses symbols {sorted(map(str, extra))}; write it in "
                               "posproof.model.encoding.DELTA only")
    return dict(matrix.todok())


# --------------------------------------------------------------------------- public
def prove(encoding: Encoding, *, theorems: Sequence[str] | None = None, general: bool = False,
          claim: Any = None, claim_block: Any = None, convention: str = "row",
          claim_period: Any = None, claim_bound: Any = None, claim_permutation: Any = None,
          seed: int = 0, budget: int | None = DEFAULT_BUDGET,
          timeout: float | None = DEFAULT_TIMEOUT, audit: bool = True,
          progress: Callable[[str, int, int], None] | None = None) -> Report:
    """Prove (or refute) the theorems about ``encoding``; returns a :class:`Report`.

    ``claim`` is a d×d SymPy matrix in ``delta`` (or a callable of delta)
    claimed to satisfy the translation law in ``convention``; ``claim_block``
    a 2×2 block in w and delta (text or matrix) applied to every pair in
    (sin, cos) order.  ``claim_period`` (P with PE(x+P) = PE(x)), ``claim_bound``
    (c with |PE_i(x)| ≤ c) and ``claim_permutation`` (``(layout, perm)`` or
    ``"layout:i,j,…"``: column j of PE in that layout is column perm[j] of this
    one) are decided by :mod:`posproof.proofs.claims`.  ``general=True`` adds the
    proofs for every even d.

    ``budget`` is the work budget of each theorem in deterministic work units
    (:data:`~posproof.proofs.theorems.budget.DEFAULT_BUDGET` by default; ``0`` or ``None``: no
    limit): the same input decides the same way on every machine, at any load.  A theorem
    whose next step would exceed it is ``unknown``, with the reason in its note.  ``timeout``
    is only a wall-clock safety net against a single runaway symbolic step, in seconds per
    theorem (:data:`~posproof.proofs.theorems.budget.DEFAULT_TIMEOUT` by default; ``None``:
    none); when it fires, the note says so (that answer may depend on the machine).  See
    :mod:`posproof.proofs.theorems.budget` for how both are enforced.

    Every proved or refuted theorem carries its :class:`~posproof.evidence.Evidence` (the
    identity residuals at the cross-check's exact points; a refutation's certified residual
    at its witness).  With ``audit=True`` (the default) each is re-checked by the independent
    auditor (:func:`posproof.audit.apply`, Arb balls): a verdict it cannot confirm becomes
    ``unknown`` with the reason in its note.  ``progress(label, done, total)`` is called
    before the first theorem (0) and after each one.
    """
    from .. import claims

    if not isinstance(encoding, Encoding):
        raise InvalidParameter(f"encoding={encoding!r} is not an Encoding; use posproof.preset()")
    names = (list(CONCRETE_THEOREMS) if theorems is None
             else check_sequence("theorems", theorems, strings=True))
    if convention not in ("row", "column"):
        raise InvalidParameter(f"convention={convention!r} is not known; use 'row' (PE(x)·T) "
                               "or 'column' (T·PE(x)ᵀ)")
    seed = check_int("seed", seed, minimum=0)
    limits = (check_budget(budget), check_timeout(timeout))
    for n in names:
        if not isinstance(n, str) or n not in CONCRETE_THEOREMS:
            raise UnknownName(f"theorem={n!r} is not known; "
                              f"use one of {', '.join(CONCRETE_THEOREMS)}")
    engine = Engine(encoding, seed)
    report = Report(encoding.to_dict())
    total = (len(names) + sum(c is not None for c in (claim_period, claim_bound,
                                                       claim_permutation))
             + int(general) + int(claim is not None or claim_block is not None))
    if progress is not None:
        progress("proving theorems", 0, total)

    def add(name: str, attempt: Callable[[], Proof]) -> None:
        report.theorems.append(_budgeted([engine], limits, name, _STATEMENTS[name], attempt))
        if progress is not None:
            progress("proving theorems", min(len(report.theorems), total), total)
    try:
        if claim is not None or claim_block is not None:
            entries = claim_entries(encoding, claim, claim_block)

            def claimed() -> Proof:
                proof = engine.translation_proof(convention, entries, "as claimed")
                proof.name = f"claim[{convention}]"
                return proof
            add(f"claim[{convention}]", claimed)
            names = [n for n in names if n != f"translation[{convention}]"]
        if claim_period is not None:
            add("claim:period", lambda: claims.period_claim(engine, claim_period))
        if claim_bound is not None:
            add("claim:bound", lambda: claims.bound_claim(engine, claim_bound))
        if claim_permutation is not None:
            layout, perm = (claims.parse_permutation(claim_permutation)
                            if isinstance(claim_permutation, str) else claim_permutation)
            add("claim:permutation", lambda: claims.permutation_claim(engine, layout, perm))
        for name in names:
            add(name, lambda name=name: concrete(engine, name))
        if general:
            gen = [n for n in GENERAL_THEOREMS if theorems is None or n in theorems]
            report.theorems.extend(general_proofs(encoding, gen, seed, limits, engine))
            if progress is not None:
                progress("proving theorems", total, total)
    except CrossCheckFailure as exc:  # pragma: no cover - caught per theorem by _budgeted
        report.theorems.append(Proof("crosscheck", "every proof agrees with mpmath", "unknown",
                                     note=f"internal error, please report: {exc}"))
    if audit:
        apply_all(report.theorems)
    return report
