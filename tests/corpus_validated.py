"""Soundness corpus, section "validated decisions" (issue 12, §0: flags and unvalidated digits).

Every reproduction of issue 12 §0 (but the hangs, in ``corpus_hair.py``), then
statements built the same way around *disguised* rationals and integers: logs
of powers (``log(8)/log(2)``), nested radicals that denest
(``sqrt(3+2*sqrt(2)) - sqrt(2)``), conjugates and (a ± √b)^k expansions,
telescoping sums — multiplied by 10^60 … 10^100 so that any decision taken from
SymPy's assumption flags or from digits without an error bound goes wrong.

- **true** (must be proved or unknown, never refuted): a bound ``1 + (d − n)·10^100``,
  a period 2π for frequencies ``1, d``, the periodicity of that curve, a
  permutation between two frequencies equal once simplified, the true block scaled
  by ``1 + (d − n)·10^100``;
- **false** (must be refuted or unknown, never proved): the same around
  ``1 − 10⁻⁴⁰``, ``d + 10⁻³⁰``, ``d/n + 10⁻³⁰`` …

A refutation is confirmed *independently of the engine and validated*: the
residual at the counterexample's exact point is rebuilt here from the exact SymPy
objects (``Encoding.vector``, the claimed matrix) and enclosed with plain
:mod:`mpmath` interval arithmetic in a context of this module
(:func:`iv_enclose`, not :mod:`posproof.validated`); the enclosure must exclude 0
(for a bound: the excess over the claim must be certainly positive).
Each statement runs under a time limit (``corpus_hair.evaluate_within``): a hang
or a crash is a failure.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from functools import cache
from typing import Any

import sympy as sp
from corpus import DELTA, TRUE_BLOCK, Outcome, Statement, block_matrix
from corpus_hair import evaluate_within
from mpmath.ctx_iv import MPIntervalContext

from posproof import Encoding, preset, prove
from posproof.model.rope import rotary
from posproof.proofs.rotary import EXPECTED_REFUTATIONS, prove_rotary
from posproof.report import Proof

#: Seconds a statement may take (engine and confirmation together).
LIMIT = 60.0
#: Bits of the confirmer's interval arithmetic (a residual of 10^-30 next to 10^100 terms).
BITS = (256, 1024, 4096)

#: Disguised integers: (name, text, exact value).  Each equality holds exactly; the test
#: suite checks it independently (``test_the_disguises_are_the_integers_they_claim``).
DISGUISES: list[tuple[str, str, int]] = [
    ("log8/log2", "log(8)/log(2)", 3),
    ("log27/log3", "log(27)/log(3)", 3),
    ("log1000/log10", "log(1000)/log(10)", 3),
    ("log16/log4", "log(16)/log(4)", 2),
    ("log-sum", "log(4)/log(2) + log(9)/log(3)", 4),
    ("telescoping-log", "(log(2) + log(3/2) + log(4/3) + log(5/4) + log(6/5) + log(7/6)"
                        " + log(8/7) + log(9/8) + log(10/9))/log(10)", 1),
    ("denest:3+2sqrt2", "sqrt(3 + 2*sqrt(2)) - sqrt(2)", 1),
    ("denest:7+4sqrt3", "sqrt(7 + 4*sqrt(3)) - sqrt(3)", 2),
    ("denest:5+2sqrt6", "sqrt(5 + 2*sqrt(6)) - sqrt(2) - sqrt(3) + 1", 1),
    ("conjugate", "(1/(sqrt(2) - 1) - 1)**2", 2),
    ("binomial:(1±sqrt2)^2", "(1 + sqrt(2))**2 + (1 - sqrt(2))**2", 6),
    ("binomial:(2±sqrt3)^3", "(2 + sqrt(3))**3 + (2 - sqrt(3))**3", 52),
    ("binomial:product^5", "((1 + sqrt(2))*(sqrt(2) - 1))**5", 1),
    ("telescoping-radicals", " + ".join(f"1/(sqrt({k}) + sqrt({k + 1}))" for k in range(1, 9)),
     2),
]


# --------------------------------------------------------------------------- the confirmer
def iv_enclose(expr: Any, prec: int) -> Any:
    """An interval containing the value of the constant SymPy ``expr``, in a private
    mpmath interval context at ``prec`` bits (outward rounding); None when the precision
    is too low for a domain condition."""
    ctx = MPIntervalContext()
    ctx.prec = prec
    funcs = {sp.sin: ctx.sin, sp.cos: ctx.cos, sp.exp: ctx.exp, sp.log: ctx.log}

    def walk(e: sp.Expr) -> Any:
        if e.is_Rational:
            return ctx.mpf(int(e.p)) / int(e.q)
        if e is sp.pi:
            return ctx.pi
        if e is sp.E:
            return ctx.e
        if e.is_Add or e.is_Mul:
            parts = [walk(a) for a in e.args]
            out = parts[0]
            for p in parts[1:]:
                out = out + p if e.is_Add else out * p
            return out
        if e.is_Pow:
            base, exp = e.args
            if exp.is_Integer:
                b = walk(base)
                if exp < 0 and 0 in b:
                    raise ZeroDivisionError
                return b ** int(exp)
            b = walk(base)
            if not b > 0:
                raise ZeroDivisionError
            return ctx.exp(walk(exp) * ctx.log(b))
        if isinstance(e, sp.Abs):
            return abs(walk(e.args[0]))
        if e.func in funcs:
            x = walk(e.args[0])
            if e.func is sp.log and not x > 0:
                raise ZeroDivisionError
            return funcs[e.func](x)
        raise AssertionError(f"the confirmer cannot enclose {e.func}")

    try:
        return walk(sp.sympify(expr))
    except ZeroDivisionError:
        return None


def certainly_positive(expr: Any) -> bool:
    """Whether an interval enclosure of ``expr`` lies in (0, ∞) at some precision of BITS."""
    for prec in BITS:
        x = iv_enclose(expr, prec)
        if x is not None and x > 0:
            return True
        if x is not None and x < 0:
            return False
    return False


def _certify_nonzero(residual: sp.Expr, proof: Proof) -> None:
    assert certainly_positive(residual) or certainly_positive(-residual), (
        f"{proof.name}: the recomputed residual has no certified sign: no counterexample "
        f"({proof.counterexample})")


def point(value: Any) -> sp.Expr:
    """A counterexample coordinate as the exact number it denotes ("1.5707…" is a decimal)."""
    if isinstance(value, int):
        return sp.Integer(value)
    text = str(value)
    if any(c.isalpha() for c in text):
        return sp.sympify(text)       # an exact expression such as pi/2
    return sp.Rational(text)


def confirm_period(enc: Encoding, period: str) -> Callable[[Proof], None]:
    def confirm(proof: Proof) -> None:
        ce = proof.counterexample
        x, col, p = point(ce["x"]), ce["column"], sp.sympify(period)
        _certify_nonzero(enc.vector(x + p)[col] - enc.vector(x)[col], proof)
    return confirm


def confirm_bound(enc: Encoding, bound: str) -> Callable[[Proof], None]:
    def confirm(proof: Proof) -> None:
        ce = proof.counterexample
        value = enc.vector(point(ce.get("x_exact", ce["x"])))[ce["column"]]
        assert certainly_positive(sp.Abs(value) - sp.sympify(bound)), (
            f"|PE| at the witness is not certainly above {bound}")
    return confirm


def confirm_permutation(enc: Encoding, layout: str, perm: list[int]) -> Callable[[Proof], None]:
    def confirm(proof: Proof) -> None:
        ce = proof.counterexample
        x, j = point(ce["x"]), ce["column"]
        assert ce["source_column"] == perm[j]
        other = Encoding(enc.schedule, layout, enc.dim)
        _certify_nonzero(other.vector(x)[j] - enc.vector(x)[perm[j]], proof)
    return confirm


def confirm_translation(enc: Encoding, matrix: sp.Matrix) -> Callable[[Proof], None]:
    def confirm(proof: Proof) -> None:
        ce = proof.counterexample
        if ce.get("kind") is not None:
            raise AssertionError(f"unexpected witness kind {ce['kind']}")
        x, dl, col = point(ce["x"]), point(ce["delta"]), ce["column"]
        rhs = (enc.vector(x) * matrix.subs(DELTA, dl))[col]
        _certify_nonzero(enc.vector(x + dl)[col] - rhs, proof)
    return confirm


# --------------------------------------------------------------------------- asking
def _explicit(frequencies: str) -> Encoding:
    parts = frequencies.split(";")
    return preset("explicit", dim=2 * len(parts), frequencies=parts)


def _claim(enc: Encoding, **kw: Any) -> Callable[[], Proof]:
    return lambda: prove(enc, theorems=[], **kw).theorems[0]


def _periodic(enc: Encoding, periodic: bool) -> Callable[[], Proof]:
    """The periodicity theorem read as the statement "the curve is (a)periodic": proved
    when the engine concludes that, refuted (with no counterexample) when it concludes
    the opposite."""
    def ask() -> Proof:
        proof = prove(enc, theorems=["periodicity"]).theorems[0]
        if proof.status != "proved":
            return proof
        says = (proof.values or {}).get("period") != "none"
        return dataclasses.replace(proof, status="proved" if says == periodic else "refuted",
                                   counterexample=None)
    return ask


@cache
def _rotary_report() -> dict[str, Proof]:
    rot = rotary(10000, 8, scaling="linear", factor="4+(log(27)/log(3)-3)*10**100")
    return {p.name: p for p in prove_rotary(rot).theorems}


# --------------------------------------------------------------------------- statements
def reproductions() -> list[Statement]:
    """Every reproduction of issue 12 §0 but the hangs."""
    out: list[Statement] = []
    group = "§0 reproduction"

    def add(id_: str, truth: bool, ask: Callable[[], Proof],
            confirm: Callable[[Proof], None] | None, description: str) -> None:
        out.append(Statement(f"validated:{id_}", truth, group, ask, confirm, description))

    conj = "(1/(sqrt(2)-1) - 1)**2"
    add("periodic-conjugate", True, _periodic(_explicit(f"1; {conj}"), True), None,
        "frequencies 1 and (1/(√2−1) − 1)² = 2: periodic with period 2π")
    expr_enc = preset("expression", dim=6, expression="(1/(sqrt(2)-1)-1)**(2*k)")
    add("periodic-expression", True, _periodic(expr_enc, True), None,
        "frequencies (1/(√2−1) − 1)^(2k) = 2^k: periodic")
    d4 = preset("vaswani", dim=4)
    bad = "1/2 + (log(8)/log(2) - 3)*10**85"
    add("bound-half-in-disguise", False, _claim(d4, claim_bound=bad), confirm_bound(d4, bad),
        "|PE| ≤ 1/2 + 0·10^85")
    add("bound-one-in-disguise", True,
        _claim(d4, claim_bound="1 + (log(27)/log(3) - 3)*10**100"), None, "|PE| ≤ 1 + 0·10^100")
    d8 = preset("vaswani", dim=8)
    scale = sp.sympify(f"1 + ({conj} - 2)*10**100")
    add("block-scaled-by-one", True, _claim(d8, claim_block=scale * TRUE_BLOCK), None,
        "the true block times 1 + 0·10^100")
    f60 = _explicit("1 + (log(1000)/log(10) - 3)*10**60")
    add("period-2pi-disguised-frequency", True, _claim(f60, claim_period="2*pi"), None,
        "frequency 1 + 0·10^60, period 2π")
    f80 = _explicit("1 + (log(8)/log(2) - 3)*10**80")
    add("period-witness-2pi", True, _claim(f80, claim_period="2*pi"), None,
        "frequency 1 + 0·10^80, period 2π (crashed the period witness)")
    add("period-witness-3", False, _claim(f80, claim_period="3"), confirm_period(f80, "3"),
        "frequency 1 + 0·10^80, period 3")
    equal = _explicit("1; 1 + (log(8)/log(2) - 3)*10**80")
    perm = [2, 3, 0, 1]
    add("permutation-equal-frequencies", True,
        _claim(equal, claim_permutation=("interleaved", perm)), None,
        "swapping two frequencies equal once simplified")
    zero = Encoding.from_columns([("zero", 0), ("zero", 0)])
    add("all-zero:bound-minus-one", False, _claim(zero, claim_bound=-1),
        confirm_bound(zero, "-1"), "|0| ≤ −1 (crashed with AttributeError)")
    add("all-zero:bounded", True, lambda: prove(zero, theorems=["bounded"]).theorems[0], None,
        "the all-zero encoding is bounded (crashed with StopIteration)")
    add("all-zero:bound-zero", True, _claim(zero, claim_bound=0), None, "|0| ≤ 0")
    for name in ("rotary:relative", "rotary:orthogonal", "scaling:uniform[linear]"):
        assert name not in EXPECTED_REFUTATIONS
        add(f"rotary-linear-disguised-factor:{name}", True,
            lambda n=name: _rotary_report()[n], None,
            "linear scaling by 4 + 0·10^100 (crashed the mpmath walker)")
    return out


def disguised() -> list[Statement]:
    """Claims around disguised integers: true ones and false ones off by a hair."""
    out: list[Statement] = []
    group = "disguised rational"
    d4 = preset("vaswani", dim=4)

    def add(id_: str, truth: bool, ask: Callable[[], Proof],
            confirm: Callable[[Proof], None] | None, description: str) -> None:
        out.append(Statement(f"disguise:{id_}", truth, group, ask, confirm, description))

    for key, text, n in DISGUISES:
        zero = f"(({text}) - {n})"
        true_bound = f"1 + {zero}*10**100"
        add(f"{key}:bound", True, _claim(d4, claim_bound=true_bound), None,
            f"|PE| ≤ {true_bound}")
        false_bound = f"1 - 10**-40 + {zero}*10**100"
        add(f"{key}:bound-1e-40", False, _claim(d4, claim_bound=false_bound),
            confirm_bound(d4, false_bound), f"|PE| ≤ {false_bound}")
        pair = _explicit(f"1; {text}")
        add(f"{key}:periodic", True, _periodic(pair, True), None,
            f"frequencies 1 and {text} = {n}: periodic")
        add(f"{key}:period-2pi", True, _claim(pair, claim_period="2*pi"), None,
            f"frequencies 1 and {text} = {n}: period 2π")
        off = _explicit(f"1; {text} + 10**-30")
        add(f"{key}:period-2pi-off-1e-30", False, _claim(off, claim_period="2*pi"),
            confirm_period(off, "2*pi"), f"frequencies 1 and {text} + 10⁻³⁰: period 2π")
        one = _explicit(f"1; 1 + {zero}*10**60")
        add(f"{key}:permutation", True,
            _claim(one, claim_permutation=("interleaved", [2, 3, 0, 1])), None,
            "swap two frequencies equal once simplified")
        near = _explicit(f"1; 1 + 10**-30 + {zero}*10**60")
        add(f"{key}:permutation-off-1e-30", False,
            _claim(near, claim_permutation=("interleaved", [2, 3, 0, 1])),
            confirm_permutation(near, "interleaved", [2, 3, 0, 1]),
            "swap two frequencies 10⁻³⁰ apart")
    # Genuinely irrational ratios: aperiodic (proved only with a named irrationality proof).
    for key, text in [("sqrt2", "sqrt(2)"), ("(1+sqrt2)^2", "(1 + sqrt(2))**2"),
                      ("2^(1/3)", "2**(1/3)"), ("pi", "pi"), ("e", "E")]:
        add(f"aperiodic:{key}", True, _periodic(_explicit(f"1; {text}"), False), None,
            f"frequencies 1 and {text}: aperiodic")
    # The true block scaled by a disguised 1 (true), and by 1 + 10⁻⁴⁰ (false).
    d8 = preset("vaswani", dim=8)
    for key, text, n in DISGUISES[:4] + DISGUISES[6:8]:
        one = sp.sympify(f"1 + (({text}) - {n})*10**100")
        add(f"{key}:block-scaled-by-one", True, _claim(d8, claim_block=one * TRUE_BLOCK), None,
            "the true block times a disguised 1")
        hair = sp.sympify(f"1 + 10**-40 + (({text}) - {n})*10**100")
        matrix = block_matrix(d8, hair * TRUE_BLOCK)
        add(f"{key}:block-scaled-by-1+1e-40", False, _claim(d8, claim_block=hair * TRUE_BLOCK),
            confirm_translation(d8, matrix), "the true block times 1 + 10⁻⁴⁰ in disguise")
    return out


def false_statements() -> list[Statement]:
    return [s for s in reproductions() + disguised() if not s.truth]


def true_statements() -> list[Statement]:
    return [s for s in reproductions() + disguised() if s.truth]


def statements() -> list[Statement]:
    return reproductions() + disguised()


def evaluate_safely(statement: Statement, limit: float = LIMIT) -> Outcome:
    """:func:`corpus_hair.evaluate_within`, with a crash reported as the status "crash"."""
    try:
        return evaluate_within(statement, limit)
    except Exception as exc:  # a crash is an outcome to count, not a stop
        return Outcome(statement, "crash", None, 0.0, f"{type(exc).__name__}: {exc}")


def sound(outcome: Outcome) -> bool:
    """The bar of this section: false never proved, true never refuted, every refutation
    confirmed, no crash and no hang."""
    if outcome.status in ("crash", "hang"):
        return False
    if outcome.status == "refuted":
        return not outcome.statement.truth and bool(outcome.confirmed)
    return outcome.status == "unknown" or outcome.statement.truth


__all__ = ["DISGUISES", "disguised", "evaluate_safely", "false_statements", "iv_enclose",
           "print_section", "reproductions", "section", "sound", "statements",
           "true_statements"]


COLUMNS = ("proved", "refuted", "refuted_unconfirmed", "unknown", "crash", "hang")


def section(listing: bool = False) -> dict[str, Any]:
    """Run the section: its confusion matrix, bars and time (for scripts/confusion_matrix.py);
    with ``listing`` one line per statement is printed as it is decided."""
    start = time.perf_counter()
    table = {t: dict.fromkeys(COLUMNS, 0) for t in ("false", "true")}
    groups: dict[str, int] = {}
    for statement in statements():
        o = evaluate_safely(statement)
        column = "refuted_unconfirmed" if o.status == "refuted" and not o.confirmed else o.status
        table["true" if statement.truth else "false"][column] += 1
        groups[statement.group] = groups.get(statement.group, 0) + 1
        if listing:
            print(f"{'ok' if sound(o) else 'WRONG':5} {'true ' if statement.truth else 'false'} "
                  f"{o.status:8} {o.seconds:6.2f}s  {statement.id}")
    f, t = table["false"], table["true"]
    bars = {
        "validated: every §0 reproduction, >= 30 disguised statements": (
            groups.get("§0 reproduction", 0) >= 12 and groups.get("disguised rational", 0) >= 30),
        "validated: false statements proved == 0": f["proved"] == 0,
        "validated: true statements refuted == 0": t["refuted"] + t["refuted_unconfirmed"] == 0,
        "validated: every refutation confirmed (interval arithmetic)": (
            f["refuted_unconfirmed"] == 0),
        "validated: no crash, no hang": f["crash"] + f["hang"] + t["crash"] + t["hang"] == 0,
    }
    return {"section": "validated decisions: §0 reproductions and disguised rationals "
                       "(tests/corpus_validated.py)",
            "matrix": table, "groups": groups, "bars": bars,
            "seconds": round(time.perf_counter() - start, 1)}


def print_section(result: dict[str, Any]) -> None:
    width = 10
    print(f"\n{result['section']}")
    print(f"{'':14}" + "".join(f"{c.replace('_unconfirmed', '?'):>{width}}" for c in COLUMNS)
          + f"{'total':>{width}}")
    for truth in ("false", "true"):
        row = result["matrix"][truth]
        print(f"{truth + ' statement':14}" + "".join(f"{row[c]:>{width}}" for c in COLUMNS)
              + f"{sum(row.values()):>{width}}")
    print("by group: " + ", ".join(f"{g}: {n}" for g, n in sorted(result["groups"].items())))
    for name, ok in result["bars"].items():
        print(f"  {'✓' if ok else '✗'} {name}")
    print(f"{sum(result['groups'].values())} statements in {result['seconds']:.1f} s")
