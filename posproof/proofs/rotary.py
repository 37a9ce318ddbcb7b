"""What is proved about a rotary embedding: :func:`prove_rotary`, the stale-cache hazard.

Every statement about R(m) (:class:`posproof.model.rope.Rotary`) is reduced to ONE
generic 2×2 identity in a free real symbol w (the pair's frequency), proved by
:func:`posproof.proofs.theorems.is_zero` and cached by name, plus the block-diagonal
structure of R(m) checked entry by entry.  Nothing d×d is ever simplified.  Each
"proved" is cross-checked in mpmath at random large positions; a disagreement turns it
into "unknown".  The invariants of the scaling rules are :mod:`posproof.proofs.scaling`.

>>> from posproof.model.rope import rotary
>>> report = prove_rotary(rotary(10000, 8), general=False)
>>> [(p.name, p.status) for p in report.theorems][:2]
[('rotary:relative', 'proved'), ('rotary:orthogonal', 'proved')]
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import Any

import mpmath
import sympy as sp

from ..errors import InvalidEncoding, InvalidParameter, UnknownName, check_int, check_sequence
from ..model.encoding import DELTA
from ..model.rope import ENCODING_LAYOUT, ROTARY_LAYOUTS, M, Rotary
from ..model.schedules import Schedule
from ..precise import DEFAULT_DPS, mp_value, mp_values

__all__ = [
    "EXPECTED_REFUTATIONS",
    "GENERAL_ROTARY_THEOREMS",
    "GENERIC_IDENTITIES",
    "ROTARY_THEOREMS",
    "exit_status",
    "generic_identity",
    "prove_rotary",
    "stale_cache",
]


def _mp_freqs(rot: Rotary) -> list[mpmath.mpf]:
    """The exact frequencies in mpmath at 60 digits (memoised per schedule and dim)."""
    return list(_mp_cached(rot.schedule, rot.rotary_dim))


@lru_cache(maxsize=256)
def _mp_cached(schedule: Schedule, r: int) -> tuple[mpmath.mpf, ...]:
    return tuple(mp_values(schedule.frequencies(r), DEFAULT_DPS + 10))


# Every statement about R(m) is reduced to ONE generic 2×2 identity in a free
# real symbol w (the pair's frequency), proved by posproof.proofs.theorems.is_zero and
# cached by name, plus the block-diagonal structure of R(m) checked entry by
# entry.  Nothing d×d is ever simplified.  Each "proved" is cross-checked in
# mpmath at random large positions; a disagreement turns it into "unknown".
W = sp.Symbol("w", real=True)
W2 = sp.Symbol("w'", real=True)
N = sp.Symbol("n", real=True)
_Q = sp.Matrix(sp.symbols("q_0 q_1", real=True))
_K = sp.Matrix(sp.symbols("k_0 k_1", real=True))


def _block(angle: sp.Expr) -> sp.Matrix:
    return sp.Matrix([[sp.cos(angle), -sp.sin(angle)], [sp.sin(angle), sp.cos(angle)]])


GENERIC_IDENTITIES: dict[str, tuple[Any, str]] = {
    "relative": (lambda: [(_block(W * M) * _Q).dot(_block(W * N) * _K)
                          - _Q.dot(_block(W * (N - M)) * _K)],
                 r"\langle G(wm)q, G(wn)k\rangle = \langle q, G(w(n-m))k\rangle"),
    "orthogonal": (lambda: list(_block(W * M).T * _block(W * M) - sp.eye(2)),
                   r"G(wm)^\top G(wm) = I"),
    "determinant": (lambda: [_block(W * M).det() - 1], r"\det G(wm) = 1"),
    "mixed": (lambda: [(_block(W * M) * _Q).dot(_block(W2 * N) * _K)
                       - _Q.dot(_block(W2 * N - W * M) * _K)],
              r"\langle G(wm)q, G(w'n)k\rangle = \langle q, G(w'n - wm)k\rangle"),
}
_GENERIC_CACHE: dict[str, bool | None] = {}


def generic_identity(name: str) -> tuple[bool | None, str]:
    """Prove one generic 2×2 identity (``relative``, ``orthogonal``, ``determinant``, ``mixed``).

    Returns ``(True, latex)`` when proved for every real w (and w'), ``(None, latex)`` if not.

    >>> generic_identity("relative")[0]
    True
    """
    from .theorems import is_zero

    if name not in GENERIC_IDENTITIES:
        raise UnknownName(f"identity={name!r} is not known; use one of "
                          f"{', '.join(GENERIC_IDENTITIES)}")
    build, latex = GENERIC_IDENTITIES[name]
    if name not in _GENERIC_CACHE:
        _GENERIC_CACHE[name] = True if all(is_zero(e) is True for e in build()) else None
    return _GENERIC_CACHE[name], latex


def _split_trig(expr: sp.Expr) -> tuple[int, str, sp.Expr] | None:
    """(sign, 'sin'|'cos', coefficient of M) of ±sin(c·m)/±cos(c·m), else None."""
    sign = 1
    if expr.is_Mul and len(expr.args) == 2 and expr.args[0] == -1:
        sign, expr = -1, expr.args[1]
    if expr.func not in (sp.sin, sp.cos):
        return None
    arg = expr.args[0]
    if arg == M:
        return sign, expr.func.__name__, sp.Integer(1)
    if not arg.is_Mul or list(arg.args).count(M) != 1:
        return None
    rest = [a for a in arg.args if a != M]
    if any(a.has(M) for a in rest):
        return None
    return sign, expr.func.__name__, rest[0] if len(rest) == 1 else sp.Mul(*rest)


def _same(a: sp.Expr, b: sp.Expr) -> bool:
    return a == b or bool(sp.simplify(sp.Add(a, -b).doit()) == 0)


def _structure(rot: Rotary, entries: dict[tuple[int, int], sp.Expr]) -> list[str]:
    """Problems with the claim "R(m) = diag(G(m; θ_k) on each pair, 1 on pass-through)"."""
    group = {}
    for g, (i, j) in enumerate(rot.pairs):
        group[i] = group[j] = g
    for c in rot.passthrough:
        group[c] = ("pass", c)
    problems = []
    for (i, j), value in entries.items():
        if value != 0 and group.get(i, -1) != group.get(j, -2):
            problems.append(f"entry ({i}, {j}) = {value} lies outside the pair/pass-through blocks")
    for c in rot.passthrough:
        if entries.get((c, c)) != 1:
            problems.append(f"pass-through channel {c} has R[{c},{c}] = {entries.get((c, c), 0)}, "
                            "not 1")
    template = {(0, 0): (1, "cos"), (0, 1): (-1, "sin"), (1, 0): (1, "sin"), (1, 1): (1, "cos")}
    for (i, j), w in zip(rot.pairs, rot.frequencies, strict=True):
        for (a, b), (sign, func) in template.items():
            entry = entries.get(((i, j)[a], (i, j)[b]), sp.Integer(0))
            parts = _split_trig(entry)
            if parts is None or parts[:2] != (sign, func) or not _same(parts[2], w):
                problems.append(f"pair ({i}, {j}): entry {entry} is not {'-' if sign < 0 else ''}"
                                f"{func}({w}·m)")
                break
    return problems


def _rng(seed: int) -> Any:
    import random

    return random.Random(seed)


def _points(seed: int) -> list[tuple[int, int]]:
    """(m, n) pairs of positions, large and negative ones included."""
    rng = _rng(seed)
    return [(rng.choice([1, 7, 123]), rng.randrange(10**3, 10**5)),
            (rng.randrange(10**6, 10**7), rng.randrange(10**3, 10**5)),
            (-rng.randrange(10**4, 10**6), rng.randrange(10**6, 10**7)),
            (rng.randrange(10**5, 10**6), -rng.randrange(10**5, 10**6))]


def _rotate_mp(rot: Rotary, freqs: list[mpmath.mpf], m: int, vec: dict[int, mpmath.mpf],
               pairs: Iterable[int] | None = None) -> dict[int, mpmath.mpf]:
    """R(m)·vec in mpmath at the working precision, for a sparse vector {channel: value}
    (only the listed pairs are rotated: callers pass vectors that vanish elsewhere)."""
    out = dict(vec)
    zero = mpmath.mpf(0)
    for k in (range(rot.n_pairs) if pairs is None else pairs):
        i, j = rot.pairs[k]
        x, y = vec.get(i, zero), vec.get(j, zero)
        c, s = mpmath.mp.cos_sin(freqs[k] * m)
        out[i], out[j] = c * x - s * y, s * x + c * y
    return out


def _dot(a: dict[int, mpmath.mpf], b: dict[int, mpmath.mpf]) -> mpmath.mpf:
    return mpmath.fsum(v * b[c] for c, v in a.items() if c in b)


def _sample_pairs(rot: Rotary, seed: int, limit: int = 6) -> list[int]:
    """The pairs a cross-check looks at: first, last and random others (all when few)."""
    n = rot.n_pairs
    if n <= limit:
        return list(range(n))
    return sorted({0, n - 1, *_rng(seed).sample(range(1, n - 1), limit - 2)})


def _tol(scale: Any) -> mpmath.mpf:
    return mpmath.mpf(10) ** -(DEFAULT_DPS - 15) * (1 + abs(mpmath.mpf(scale)))


def _crosscheck(rot: Rotary, name: str, seed: int) -> dict[str, Any]:
    """Residual of a proved statement in mpmath at random (large) positions; raises if wrong.

    q and k are random integer vectors on a sample of pairs (first, last, random
    others) and on every pass-through channel; each statement restricted to
    those channels is the same statement.
    """
    rng = _rng(seed + 1)
    worst = mpmath.mpf(0)
    pts = _points(seed)
    sample = _sample_pairs(rot, seed)
    live = sorted({c for k in sample for c in rot.pairs[k]} | set(rot.passthrough))
    if name == "layout_permutation":
        other = rot.with_layout("adjacent" if rot.layout == "half" else "half")
        half, adj = (rot, other) if rot.layout == "half" else (other, rot)
        perm = rot.permutation()
    if name == "encoding_correspondence":
        table = rot.encoding().translation_entries(DELTA, "row")
    with mpmath.workdps(DEFAULT_DPS):
        freqs = _mp_freqs(rot)
        for m, n in pts:
            q = {c: mpmath.mpf(rng.randint(-9, 9)) for c in live}
            k = {c: mpmath.mpf(rng.randint(-9, 9)) for c in live}
            if name == "relative":
                lhs = _dot(_rotate_mp(rot, freqs, m, q, sample), _rotate_mp(rot, freqs, n, k,
                                                                            sample))
                residual = abs(lhs - _dot(q, _rotate_mp(rot, freqs, n - m, k, sample)))
            elif name == "orthogonal":
                rq, rk = _rotate_mp(rot, freqs, m, q, sample), _rotate_mp(rot, freqs, m, k, sample)
                residual = max(abs(_dot(rq, rq) - _dot(q, q)), abs(_dot(rq, rk) - _dot(q, k)))
            elif name == "pass_through":
                rq = _rotate_mp(rot, freqs, m, q, sample)
                residual = max((abs(rq[c] - q[c]) for c in rot.passthrough), default=mpmath.mpf(0))
            elif name == "layout_permutation":
                # q is read in rot's layout; q_adj is the same vector in the adjacent layout
                inv = _inverse(perm)
                q_adj = q if rot.layout == "adjacent" else {perm[c]: v for c, v in q.items()}
                q_half = {inv[c]: v for c, v in q_adj.items()}
                r_half = _rotate_mp(half, freqs, m, q_half, sample)
                r_adj = _rotate_mp(adj, freqs, m, q_adj, sample)
                residual = max(abs(v - r_adj[perm[j]]) for j, v in r_half.items())
            else:  # encoding_correspondence: R(m)·e_b vs column b of T(m) from Encoding
                residual = mpmath.mpf(0)
                for i, j in (rot.pairs[kk] for kk in sample[:3]):
                    for b in (i, j):
                        col = _rotate_mp(rot, freqs, m, {b: mpmath.mpf(1)}, sample)
                        for a in (i, j):
                            theirs = mp_value(table.get((a, b), sp.Integer(0)), DEFAULT_DPS,
                                              {DELTA: m})
                            residual = max(residual, abs(col[a] - theirs))
            scale = 100 * rot.head_dim * (abs(m) + abs(n) + 1)
            if residual > _tol(scale):
                raise _CrossCheckError(
                    f"{name}: proved symbolically but the residual at m={m}, n={n} is "
                    f"{mpmath.nstr(residual, 5)} in mpmath at {DEFAULT_DPS} digits")
            worst = max(worst, residual)
    return {"points": [list(p) for p in pts], "max_residual": mpmath.nstr(worst, 3),
            "dps": DEFAULT_DPS, "pairs_checked": sample,
            "passthrough_checked": len(rot.passthrough)}


def _inverse(perm: list[int]) -> list[int]:
    inv = [0] * len(perm)
    for j, p in enumerate(perm):
        inv[p] = j
    return inv


class _CrossCheckError(Exception):
    """A symbolic proof disagreed with mpmath: never reported as proved."""


_STATEMENTS = {
    "relative": "⟨a·R(m)q, a·R(n)k⟩ = a²·⟨q, R(n−m)k⟩ for all q, k and positions m, n",
    "orthogonal": "R(m)ᵀR(m) = I (and det R(m) = 1)",
    "pass_through": "R(m) is the identity on the pass-through channels rotary_dim … head_dim−1",
    "layout_permutation": "R_half(m) = Pᵀ·R_adjacent(m)·P, P the permutation (2k, 2k+1) ↦ "
                          "(k, k + r/2)",
    "encoding_correspondence": "R(m) equals Encoding.translation(m, 'row') of the matching "
                               "sinusoidal layout on the rotated channels",
}
ROTARY_THEOREMS = tuple(_STATEMENTS)
GENERAL_ROTARY_THEOREMS = ("relative", "orthogonal", "layout_permutation")


def rotary_residual(data: tuple[Any, ...]) -> sp.Expr:
    """One pair's residual of a rotary statement, from the pair's own data (its 2 × 2
    blocks of R, exact): relative ⟨R(m)q, R(n)k⟩ − ⟨q, R(n−m)k⟩; orthogonal
    ‖R(m)q‖² − ‖q‖²; layout_permutation and encoding_correspondence the weighted
    differences of two blocks (the encoding's T(Δ) at Δ = m)."""
    name = data[0]

    def apply(blk: tuple[tuple[sp.Expr, ...], ...], vec: tuple[int, ...]) -> list[sp.Expr]:
        return [sp.Add(*[v * c for v, c in zip(row, vec, strict=True)]) for row in blk]

    def weighted(p: tuple, q: tuple) -> sp.Expr:
        return sp.Add(*[(p[a][b] - q[a][b]) * (3 + 2 * a + b)
                        for a in range(len(p)) for b in range(len(p))])

    if name == "relative":
        _, q, kv, rm, rn, rd = data
        a, b, c = apply(rm, q), apply(rn, kv), apply(rd, kv)
        return sp.Add(*[a[i] * b[i] - q[i] * c[i] for i in range(len(q))])
    if name == "orthogonal":
        _, q, rm = data
        return sp.Add(*[v ** 2 - w ** 2 for v, w in zip(apply(rm, q), q, strict=True)])
    if name == "layout_permutation":
        return weighted(data[1], data[2])
    if name == "encoding_correspondence":
        _, rm, tm, m = data
        return weighted(rm, tuple(tuple(v.xreplace({DELTA: m}) for v in row) for row in tm))
    raise ValueError(f"no rotary statement named {name!r}")


def _evidence(rot: Rotary, name: str, seed: int) -> Any:
    """The exact residuals of a proved rotary statement at two points, on the first and
    the last pair (each must be exactly 0: the auditor re-checks them in Arb), and every
    pair's residual in the symbols m, n (the auditor decides each, through the generic
    pair identity in a formal frequency)."""
    from ..evidence import Evidence, GroupResidual, Sign
    from .theorems.residuals import audited_groups

    rng = _rng(seed + 11)
    items = []
    picks = sorted({0, rot.n_pairs - 1}) if rot.n_pairs else []
    # the residuals are kept in the symbols m, n (their exact values beside them), so the
    # auditor decides each identity for every m, n, not only at this point
    m, n = sp.symbols("m n")
    entries: dict[Any, dict] = {}

    def rotation(t: sp.Expr) -> dict:
        if t not in entries:
            entries[t] = rot.rotation_entries(t)
        return entries[t]

    def block(dok: dict, rows: tuple[int, ...], cols: tuple[int, ...] | None = None
              ) -> tuple[tuple[sp.Expr, ...], ...]:
        return tuple(tuple(sp.sympify(dok.get((i, j), 0)) for j in cols or rows) for i in rows)

    perm = half = eh = ea = table = None
    if name == "layout_permutation":
        other = rot.with_layout("adjacent" if rot.layout == "half" else "half")
        half, adj = (rot, other) if rot.layout == "half" else (other, rot)
        perm = rot.permutation()
        eh, ea = half.rotation_entries(m), adj.rotation_entries(m)
    elif name == "encoding_correspondence":
        table = rot.encoding().translation_entries(DELTA, "row")

    def data(k: int, q: tuple[int, ...], kv: tuple[int, ...]) -> tuple[Any, ...] | None:
        """Pair k's own data for :func:`rotary_residual`."""
        ch = tuple(rot.pairs[k])
        if name == "relative":
            return (name, q, kv, block(rotation(m), ch), block(rotation(n), ch),
                    block(rotation(n - m), ch))
        if name == "orthogonal":
            return (name, q, block(rotation(m), ch))
        if name == "layout_permutation":
            hk = tuple(half.pairs[k])
            return (name, block(eh, hk), block(ea, tuple(perm[i] for i in hk)))
        if name == "encoding_correspondence":
            return (name, block(rotation(m), ch), block(table, ch), m)
        return None

    for k in picks:
        ch = tuple(rot.pairs[k])
        env = {m: rng.randrange(10**3, 10**6), n: -rng.randrange(10**3, 10**6)}
        q = tuple(rng.randint(-9, 9) for _ in ch)
        kv = tuple(rng.randint(-9, 9) for _ in ch)
        got = data(k, q, kv)
        if got is None:
            break
        expr = rotary_residual(got)
        items.append(Sign(f"pair {k}: residual at m={env[m]}, n={env[n]}", expr, "zero",
                          env={s: v for s, v in env.items() if s in expr.free_symbols}))
    groups, total = [], None
    if items:
        # every pair (an evenly spread selection past the cap), with one draw of the
        # vectors' entries (by position in the pair: the pairs share one generic identity)
        qs = tuple(rng.randint(1, 9) for _ in range(2))
        ks = tuple(rng.randint(1, 9) for _ in range(2))
        variables = tuple(sorted({str(s) for i in items for s in i.expr.free_symbols}))
        pairs = [(k,) for k in range(rot.n_pairs)]
        chosen = audited_groups(pairs)
        total = len(pairs) if len(chosen) < len(pairs) else None
        for (k,) in chosen:
            ch = tuple(rot.pairs[k])
            groups.append(GroupResidual(f"{name}: pair {k} (dims {list(ch)})", None, variables,
                                        (rot.frequencies[k],), data(k, qs, ks), rotary_residual))
    if name == "pass_through":
        items = [Sign(f"R(m)[{c},{c}] − 1 at m = 12345", rot.rotation_entries(m).get(
            (c, c), sp.Integer(0)) - 1, "zero", env={m: 12345}) for c in rot.passthrough[:2]]
    return Evidence("symbolic identity (block structure, generic pair identity)",
                    "structural", items, {"pairs": rot.n_pairs},
                    unaudited=None if items else "no column of this kind: the statement holds "
                    "by the block structure alone", groups=groups, groups_total=total)


def _proof(rot: Rotary, name: str, seed: int) -> Any:
    from ..report import Proof, Step

    statement = _STATEMENTS[name]
    entries = rot.rotation_entries(M)
    problems = _structure(rot, entries)
    if problems:
        return Proof(f"rotary:{name}", statement, "unknown",
                     [Step(p, "block structure") for p in problems[:3]],
                     note="R(m) is not block-diagonal with rotation blocks")
    layout_note = ("adjacent pairs (2k, 2k+1)" if rot.layout == "adjacent"
                   else f"half pairs (k, k+{rot.n_pairs})")
    steps = [Step(f"R(m) is block-diagonal: {rot.n_pairs} {layout_note}, each the block "
                  f"G(θ_k m) of its own frequency θ_k; {len(rot.passthrough)} pass-through "
                  "channel(s) with R = 1 (checked entry by entry)", "block-diagonal structure")]
    if name == "pass_through":
        if not rot.passthrough:
            steps.append(Step("rotary_dim = head_dim: there are no pass-through channels",
                              "vacuous"))
        else:
            steps.append(Step(f"rows and columns {rot.rotary_dim} … {rot.head_dim - 1} of R(m) "
                              "hold 1 on the diagonal and 0 elsewhere", "entrywise"))
    elif name == "layout_permutation":
        other = rot.with_layout("adjacent" if rot.layout == "half" else "half")
        perm = rot.permutation()
        half, adj = (rot, other) if rot.layout == "half" else (other, rot)
        e_half, e_adj = half.rotation_entries(M), adj.rotation_entries(M)
        mapped = {(i, j): e_adj.get((perm[i], perm[j]), sp.Integer(0))
                  for i in range(rot.head_dim) for j in range(rot.head_dim)
                  if (perm[i], perm[j]) in e_adj or (i, j) in e_half}
        bad = [ij for ij, v in mapped.items() if v != e_half.get(ij, sp.Integer(0))]
        if bad:
            return Proof(f"rotary:{name}", statement, "unknown", steps,
                         note=f"entry {bad[0]} differs after the permutation")
        steps.append(Step(f"perm = {perm[:8]}{'…' if len(perm) > 8 else ''} sends half pair "
                          "(k, k+r/2) to adjacent pair (2k, 2k+1); both carry the same block "
                          "G(θ_k m), so (PᵀR_adj P)[i, j] = R_adj[perm i, perm j] = R_half[i, j] "
                          "for every entry", "permutation"))
    elif name == "encoding_correspondence":
        enc = rot.encoding()
        t = enc.translation_entries(M, "row")
        bad = [ij for ij in set(t) | {ij for ij in entries if max(ij) < rot.rotary_dim}
               if not _entry_equal(t.get(ij, sp.Integer(0)), entries.get(ij, sp.Integer(0)))]
        if bad:
            return Proof(f"rotary:{name}", statement, "unknown", steps,
                         note=f"entry {bad[0]} differs from Encoding.translation")
        steps.append(Step(f"Encoding(schedule, {ENCODING_LAYOUT[rot.layout]!r}, "
                          f"{rot.rotary_dim}).translation(m, 'row') has the same entries as "
                          "R(m) on the rotated channels (equivalently the cos-first layout's "
                          "translation in the column convention)", "entrywise"))
    else:
        generic = ["relative"] if name == "relative" else ["orthogonal", "determinant"]
        for g in generic:
            ok, latex = generic_identity(g)
            if ok is not True:
                return Proof(f"rotary:{name}", statement, "unknown", steps,
                             note=f"the generic identity {latex} did not reduce to 0")
            steps.append(Step(f"generic pair identity ${latex}$ for every real w (q, k symbolic "
                              "per pair)", "expand_trig", latex))
        if rot.passthrough:
            steps.append(Step("pass-through channels are 1×1 identity blocks: q_c·k_c = q_c·k_c",
                              "identity block"))
        steps.append(Step(f"summing the {rot.n_pairs} pair identities (one generic shape) and "
                          "the pass-through terms", "block-diagonal structure"))
        if name == "relative" and rot.attention_factor != 1:
            steps.append(Step(f"the attention factor a = {rot.attention_factor} multiplies both "
                              "rotations, so both sides scale by a²", "linearity"))
    try:
        cc = _crosscheck(rot, name, seed)
    except _CrossCheckError as exc:
        return Proof(f"rotary:{name}", statement, "unknown", steps,
                     note=f"internal error, please report: {exc}")
    return Proof(f"rotary:{name}", statement, "proved", steps, crosscheck=cc,
                 evidence=_evidence(rot, name, seed))


def _entry_equal(a: sp.Expr, b: sp.Expr) -> bool:
    if a == b:
        return True
    pa, pb = _split_trig(a), _split_trig(b)
    if pa is None or pb is None:
        return bool(sp.simplify(a.doit() - b.doit()) == 0)
    return pa[:2] == pb[:2] and _same(pa[2], pb[2])


@lru_cache(maxsize=64)
def _general_formula(schedule: Schedule, k: sp.Symbol, d: sp.Symbol) -> sp.Expr | None:
    return schedule.general(k, d)


def _general(rot: Rotary, name: str, seed: int) -> Any:
    """The statement for every even rotary dim at once (symbolic pair index k)."""
    from ..model.layouts import get_layout, partition_lemma
    from ..model.schedules import D, K
    from ..report import Proof, Step

    statement = _STATEMENTS[name] + " — for every even rotary_dim (pair index k symbolic)"
    steps = []
    for layout in ((rot.layout,) if name != "layout_permutation" else ROTARY_LAYOUTS):
        ok, why = partition_lemma(get_layout(ENCODING_LAYOUT[layout]))
        if not ok:  # pragma: no cover - both layouts are affine partitions
            return Proof(f"general:rotary:{name}", statement, "unknown", general=True, note=why)
        steps.append(Step(f"{layout} layout: {why}", "partition of channels (affine maps)"))
    omega = _general_formula(rot.schedule, K, D)
    steps.append(Step("pair k carries one frequency ω(k) on both of its channels"
                      + (f", ω(k) = {omega}" if omega is not None else "")
                      + "; replacing ω(k) by a free real symbol w reduces the statement to the "
                        "pair identity below", "generic pair"))
    if name == "layout_permutation":
        steps.append(Step("perm(k) = 2k, perm(k + n) = 2k + 1 maps the half partition onto the "
                          "adjacent one and carries block G(wm) to the same block, so "
                          "PᵀR_adj P = R_half entrywise for every n", "permutation (affine)"))
    else:
        for g in (["relative"] if name == "relative" else ["orthogonal", "determinant"]):
            ok, latex = generic_identity(g)
            if ok is not True:
                return Proof(f"general:rotary:{name}", statement, "unknown", steps, general=True,
                             note=f"the generic identity {latex} was not proved")
            steps.append(Step(f"${latex}$ for every real w", "expand_trig", latex))
    steps.append(Step("pass-through channels (if any) are 1×1 identity blocks",
                      "identity block"))
    dims, worst = [], mpmath.mpf(0)
    rng = _rng(seed + 7)
    for d in (2, 4, 2 * rng.randrange(3, 24)):
        try:
            inst = rot.with_schedule(rot.schedule) if d == rot.rotary_dim else Rotary(
                rot.schedule, d + 2, rotary_dim=d, layout=rot.layout)
        except (InvalidEncoding, InvalidParameter):
            continue  # the rule is not defined at this d (NTK needs d ≥ 4; LongRoPE fixes d)
        try:
            cc = _crosscheck(inst, name, seed + d)
        except _CrossCheckError as exc:
            return Proof(f"general:rotary:{name}", statement, "unknown", steps, general=True,
                         note=f"internal error, please report: {exc}")
        dims.append(d)
        worst = max(worst, mpmath.mpf(cc["max_residual"]))
    if not dims:
        dims.append(rot.rotary_dim)
        worst = mpmath.mpf(_crosscheck(rot, name, seed)["max_residual"])
    evidence = _evidence(rot, name, seed)
    evidence.method = "symbolic identity for every even rotary dim (generic pair)"
    return Proof(f"general:rotary:{name}", statement, "proved", steps, general=True,
                 crosscheck={"rotary_dims": dims, "max_residual": mpmath.nstr(worst, 3),
                             "dps": DEFAULT_DPS}, evidence=evidence)


# --------------------------------------------------------------------------- hazards
def stale_cache(before: Rotary, after: Rotary, *, seed: int = 0) -> Any:
    """Refute ⟨R_θ(m)q, R_θ'(n)k⟩ = f(n − m) when keys were rotated with other frequencies.

    This is what happens when keys are cached before a dynamic-NTK (or
    LongRoPE short→long) rescale.  Returns a ``refuted`` Proof whose
    counterexample is confirmed in mpmath at 50 digits, or ``unknown`` when the
    two tables are equal (then the statement holds).

    >>> from posproof.model.scaling import DynamicNTKScaling
    >>> rule = DynamicNTKScaling(10000, 2, 2048)
    >>> p = stale_cache(Rotary(rule, 64), Rotary(rule.at(8192), 64))
    >>> p.status, p.counterexample["dps"]
    ('refuted', 50)
    """
    from ..report import Proof, Step

    name = "hazard:stale_cache"
    statement = ("⟨R_θ(m)q, R_θ'(n)k⟩ is a function of n − m when queries use θ and cached keys "
                 "use θ' (keys cached before a rescale)")
    if (before.head_dim, before.rotary_dim, before.layout) != (
            after.head_dim, after.rotary_dim, after.layout):
        raise InvalidParameter("both rotary embeddings need the same head_dim, rotary_dim and "
                               "layout")
    ok, latex = generic_identity("mixed")
    steps = [Step(f"per pair: ${latex}$ ({'proved' if ok else 'NOT proved'} for all real w, "
                  "w'), a function of w'n − wm; it is a function of n − m only when w = w'",
                  "expand_trig", latex)]
    with mpmath.workdps(DEFAULT_DPS):
        fa, fb = _mp_freqs(before), _mp_freqs(after)
        diffs = [(abs(a - b), k) for k, (a, b) in enumerate(zip(fa, fb, strict=True))]
        gap, k = max(diffs)
        i = before.pairs[k][0]
        shift = int(mpmath.nint(mpmath.pi / gap)) if gap > 0 else 1
        shift = shift or 1
        rng = _rng(seed)
        m0, dl = rng.randrange(10**3, 10**4), rng.randrange(1, 100)
        e = {i: mpmath.mpf(1)}

        def logit(m: int, n: int) -> mpmath.mpf:
            return _dot(_rotate_mp(before, fa, m, e, [k]), _rotate_mp(after, fb, n, e, [k]))
        a, b = logit(m0, m0 + dl), logit(m0 + shift, m0 + shift + dl)
        residual = abs(a - b)
    # Exactly: with q = k = e_i, ⟨R_θ(m)e_i, R_θ'(n)e_i⟩ = cos(θ'_k n − θ_k m).  The
    # refutation needs the certified sign of the difference of the two logits.
    from .witness import witness_sign

    th, th2 = sp.sympify(before.frequencies[k]), sp.sympify(after.frequencies[k])
    mm, nn, ss = sp.symbols("m n s", integer=True)
    diff = sp.cos(th2 * nn - th * mm) - sp.cos(th2 * (nn + ss) - th * (mm + ss))
    env = {mm: m0, nn: m0 + dl, ss: shift}
    found = witness_sign(f"logit(m, n) − logit(m + s, n + s) on pair {k}, q = k = e_{i}",
                         diff, env)
    if found is None:
        return Proof(name, statement, "unknown", steps,
                     note="no certified counterexample (the two frequency tables may be equal: "
                          "then the statement holds)")
    item, bits = found
    steps.append(Step(f"pair {k} (channel {i}): θ_k − θ'_k = {mpmath.nstr(fa[k] - fb[k], 6)}; "
                      f"q = k = e_{i}: the logit at (m, n) = ({m0}, {m0 + dl}) is "
                      f"{mpmath.nstr(a, 12)} but at ({m0 + shift}, {m0 + shift + dl}) — same "
                      f"n − m — it is {mpmath.nstr(b, 12)}",
                      f"interval arithmetic at {bits} bits"))
    from ..audit import apply
    from ..evidence import Evidence

    return apply(Proof(name, statement, "refuted", steps, counterexample={
        "q": f"e_{i}", "k": f"e_{i}", "m": m0, "n": m0 + dl, "shift": shift,
        "lhs": mpmath.nstr(a, 20), "rhs": mpmath.nstr(b, 20),
        "residual": mpmath.nstr(residual, 10), "residual_enclosure": [item.lo, item.hi],
        "bits": bits, "dps": DEFAULT_DPS, "pair": k,
        "certified": "interval arithmetic: the difference's enclosure excludes 0"},
        evidence=Evidence("certified sign", items=[item]),
        note="expected refutation: it documents a pitfall (recompute or re-rotate cached keys "
             "after a frequency change)"))


#: Theorems whose refutation is the expected answer (they document pitfalls).
EXPECTED_REFUTATIONS = frozenset({"hazard:stale_cache", "scaling:factor_one[dynamic]"})


def prove_rotary(rot: Rotary, *, theorems: Iterable[str] | None = None, general: bool = True,
                 scaling: bool = True, hazards: bool = True, seed: int = 0) -> Any:
    """Prove (or refute) what holds for a rotary embedding; returns a :class:`~posproof.Report`.

    Concrete theorems ``rotary:*`` (see ``ROTARY_THEOREMS``), with ``general``
    the same for every even rotary dim, with ``scaling`` the invariants of the
    scaling rule (:func:`posproof.proofs.scaling.scaling_theorems`), and with
    ``hazards`` the stale-cache refutation for rules whose table changes with
    the sequence length (dynamic NTK, LongRoPE).

    >>> from posproof.model.rope import rotary
    >>> report = prove_rotary(rotary(10000, 8), general=False)
    >>> [(p.name, p.status) for p in report.theorems][:2]
    [('rotary:relative', 'proved'), ('rotary:orthogonal', 'proved')]
    """
    from ..model.scaling import DynamicNTKScaling, LongRoPEScaling
    from ..report import Report
    from .scaling import scaling_theorems

    if not isinstance(rot, Rotary):
        raise InvalidParameter(
            f"{rot!r} is not a Rotary; build one with posproof.model.rope.rotary()")
    names = list(ROTARY_THEOREMS) if theorems is None else check_sequence("theorems", theorems,
                                                                          strings=True)
    seed = check_int("seed", seed, minimum=0)
    for n in names:
        if not isinstance(n, str) or n not in ROTARY_THEOREMS:
            raise UnknownName(f"theorem={n!r} is not known; use one of "
                              f"{', '.join(ROTARY_THEOREMS)}")
    report = Report(rot.to_dict())
    for n in names:
        report.theorems.append(_proof(rot, n, seed))
    if general:
        for n in GENERAL_ROTARY_THEOREMS:
            if n in names:
                report.theorems.append(_general(rot, n, seed))
    if scaling:
        report.theorems.extend(scaling_theorems(rot.schedule, rot.rotary_dim))
    if hazards:
        sched = rot.schedule
        if isinstance(sched, DynamicNTKScaling):
            length = sched.original_max_position_embeddings
            later = max(2 * length, sched.effective_length)
            report.theorems.append(stale_cache(rot.with_schedule(sched.at(length)),
                                               rot.with_schedule(sched.at(later)), seed=seed))
        elif isinstance(sched, LongRoPEScaling) and sched.short_factor != sched.long_factor:
            length = sched.original_max_position_embeddings
            report.theorems.append(stale_cache(rot.with_schedule(sched.at(length)),
                                               rot.with_schedule(sched.at(length + 1)), seed=seed))
    from ..audit import audit_report

    return audit_report(report)


def exit_status(report: Any) -> int:
    """0 when every theorem is proved (expected refutations aside), else 1.

    >>> from posproof.model.rope import rotary
    >>> exit_status(prove_rotary(rotary(10000, 4), general=False))
    0
    """
    bad = [p for p in report.theorems
           if p.status != "proved" and not (p.name in EXPECTED_REFUTATIONS
                                            and p.status == "refuted")]
    return 1 if bad or any(not c.ok for c in report.checks) else 0
