"""Soundness corpus, section "claims wrong by a hair" (issue 12, §5 and the hangs of §0).

Claimed translation blocks typed as a user types them (``'a, b; c, d'`` text in
w and delta), each asked through :func:`posproof.prove` with its work budget:

- **false by a hair**: the true row block perturbed by constants and
  high-frequency terms from 10⁻⁵ to 10⁻⁴⁰, by a wrong sign on a term that vanishes
  only at integer Δ, or with a frequency / an angle off by 10⁻³⁰;
- **large multiples** (the hangs): ``cos(M·w·Δ)`` at M = 100 … 1000;
- **true in disguise**: Pythagoras, cubes, double and triple angles, sums of
  angles, exact zeros with 10⁻⁴⁰ in front or a multiple of 10⁶ inside.

A refutation is confirmed *independently of the engine* and *validated*: the
claimed block is rebuilt here with SymPy from the text, the residual
PE(x+Δ)[j] − (PE(x)·T(Δ))[j] is rebuilt from ``Encoding.vector`` at the
counterexample's exact point, and its sign is certified with interval
arithmetic (:func:`posproof.validated.sign`): it must be ±1, never 0 or
unknown.  Confirmers in ``corpus.py`` compare against 10⁻²⁰ at 50 digits and
cannot see a residual of 10⁻⁴⁰; this one can.
"""

from __future__ import annotations

import _thread
import threading
import time
from collections.abc import Callable

import mpmath
import sympy as sp
from corpus import DELTA, W0, Outcome, Statement, block_matrix, evaluate, exact

from posproof import Encoding, Geometric, preset, prove
from posproof.proofs.theorems.budget import DEFAULT_BUDGET
from posproof.report import Proof
from posproof.validated import sign

#: Work units each statement may spend inside posproof (the engine's budget per theorem:
#: deterministic, so a verdict here never depends on the machine's load).
BUDGET = DEFAULT_BUDGET
#: Seconds a test allows for one statement, engine and confirmation together.
LIMIT = 30.0

TRUE = ("cos(w*delta)", "-sin(w*delta)", "sin(w*delta)", "cos(w*delta)")


def _text(entries: tuple[str, str, str, str]) -> str:
    return f"{entries[0]}, {entries[1]}; {entries[2]}, {entries[3]}"


def _with(**changes: str) -> tuple[str, str, str, str]:
    """The true row block with entries replaced: a00=…, a01=…, a10=…, a11=…."""
    out = list(TRUE)
    for key, value in changes.items():
        out[int(key[1]) * 2 + int(key[2])] = value
    return tuple(out)  # type: ignore[return-value]


def _matrix(entries: tuple[str, str, str, str]) -> sp.Matrix:
    """The block rebuilt here, with SymPy, from the text (not through posproof's parser)."""
    names = {"w": W0, "delta": DELTA, "pi": sp.pi, "sin": sp.sin, "cos": sp.cos}
    return sp.Matrix(2, 2, [sp.sympify(e, locals=names) for e in entries])


def confirm_validated(enc: Encoding, claim: sp.Matrix, convention: str
                      ) -> Callable[[Proof], None]:
    """The counterexample's residual, rebuilt from exact objects, has a certified sign."""
    def confirm(proof: Proof) -> None:
        ce = proof.counterexample
        x, dl, col = exact(ce["x"]), exact(ce["delta"]), ce["column"]
        t = claim.subs(DELTA, dl)
        v = enc.vector(x)
        rhs = (v * t)[col] if convention == "row" else (t * v.T)[col]
        residual = enc.vector(x + dl)[col] - rhs
        certified = sign(residual)
        assert certified in (-1, 1), (f"{proof.name}: residual {residual} at x={x}, Δ={dl}, "
                                      f"column {col} has no certified sign ({certified})")
        # A second evaluation, independent of posproof: SymPy's lambdify into plain mpmath
        # at 120 digits more than the reported residual's magnitude.  It must agree with the
        # certified sign and with the size of the residual the engine reported.
        reported = mpmath.mpf(str(ce["residual"]))
        assert reported != 0, f"{proof.name}: the engine reported a zero residual"
        with mpmath.workdps(120 + max(0, -int(mpmath.floor(mpmath.log10(abs(reported)))))):
            value = sp.lambdify([], residual, "mpmath")()
            assert (value > 0) == (certified > 0), (proof.name, value, certified)
            assert abs(abs(value) - abs(reported)) <= abs(value) * mpmath.mpf("1e-6"), (
                f"{proof.name}: the engine reported a residual of {reported}, "
                f"recomputed {mpmath.nstr(value, 12)}")
    return confirm


def evaluate_within(statement: Statement, limit: float = LIMIT) -> Outcome:
    """:func:`corpus.evaluate` with a hard time limit: a statement still running after
    ``limit`` seconds is stopped and comes back with the status ``"hang"``.

    The statement runs in the calling thread (so the engine's own SIGALRM safety net
    stays usable there); a watchdog thread interrupts it with
    :func:`_thread.interrupt_main`, which raises ``KeyboardInterrupt`` between
    bytecodes — no signal handler of ours is installed.
    """
    done = threading.Event()
    fired = threading.Event()

    def watchdog() -> None:
        if not done.wait(limit):
            fired.set()
            _thread.interrupt_main()

    guard = threading.Thread(target=watchdog, daemon=True)
    start = time.perf_counter()
    try:
        guard.start()
        try:
            outcome = evaluate(statement)
        finally:
            done.set()
            guard.join()
    except KeyboardInterrupt:
        if not fired.is_set():
            raise  # a real ^C
        outcome = None
    if fired.is_set():  # late interrupt after the result: still over the limit
        return Outcome(statement, "hang", None, time.perf_counter() - start,
                       f"still running after {limit:g} s")
    return outcome  # type: ignore[return-value]


def _ask(enc: Encoding, text: str, convention: str) -> Callable[[], Proof]:
    return lambda: prove(enc, theorems=[], claim_block=text, convention=convention,
                         budget=BUDGET).theorems[0]


def _encodings() -> dict[str, Encoding]:
    return {"d=8": preset("vaswani", dim=8),
            "split,d=8": Encoding(Geometric(10000), "split", 8),
            "d=512": preset("vaswani", dim=512)}


# --------------------------------------------------------------------------- false
FALSE_BLOCKS: dict[str, tuple[str, tuple[str, str, str, str]]] = {
    "const-1e-5[0,0]": ("d=8", _with(a00="cos(w*delta) + 10**-5")),
    "const-1e-10[1,1]": ("d=8", _with(a11="cos(w*delta) + 10**-10")),
    "const-1e-20[0,1]": ("d=8", _with(a01="-sin(w*delta) + 10**-20")),
    "const-1e-30[1,0]": ("d=8", _with(a10="sin(w*delta) - 10**-30")),
    "const-1e-40[0,0]": ("d=8", _with(a00="cos(w*delta) + 10**-40")),
    "const-1e-40[0,0],split": ("split,d=8", _with(a00="cos(w*delta) + 10**-40")),
    "const-1e-40[0,0],d=512": ("d=512", _with(a00="cos(w*delta) + 10**-40")),
    "sin(pi*delta)/1e20": ("d=8", _with(a00="cos(w*delta) + sin(pi*delta)/10**20")),
    "sin(pi*delta)**2/1e10[0,1]": ("d=8", _with(a01="-sin(w*delta) + sin(pi*delta)**2/10**10")),
    "wrong-sign-integer-vanishing[0,0]": (
        "d=8", _with(a00="cos(w*delta)*(cos(pi*delta)**2 - sin(pi*delta)**2)")),
    "wrong-sign-integer-vanishing[1,0]": (
        "d=8", _with(a10="sin(w*delta)*(cos(pi*delta)**2 - sin(pi*delta)**2)")),
    "high-freq-1e-5*sin(1e6)": ("d=8", _with(a00="cos(w*delta) + 10**-5*sin(w*delta*10**6)")),
    "high-freq-1e-15*sin(1e3)": ("d=8", _with(a00="cos(w*delta) + 10**-15*sin(1000*w*delta)")),
    "high-freq-1e-25*cos(1e8)": ("d=8", _with(a11="cos(w*delta) + 10**-25*cos(10**8*w*delta)")),
    "high-freq-1e-40*sin(1e50)": ("d=8",
                                  _with(a00="cos(w*delta) + 10**-40*sin(w*delta*10**50)")),
    "disguised+1e-30": ("d=8", _with(a00="cos(w*delta)*(sin(delta)**2 + cos(delta)**2) "
                                         "+ 10**-30")),
    "cube-disguise+1e-35": ("d=8", _with(a00="cos(w*delta)**3 + cos(w*delta)*sin(w*delta)**2 "
                                             "+ 10**-35")),
    "double-angle*(1+1e-12)": ("d=8", _with(a00="(cos(w*delta/2)**2 - sin(w*delta/2)**2)"
                                                "*(1 + 10**-12)")),
    "double-angle-sin+1e-18": ("d=8", _with(a10="2*sin(w*delta/2)*cos(w*delta/2) + 10**-18")),
    "scaled-(1+1e-40)": ("d=8", tuple(f"(1 + 10**-40)*({e})" for e in TRUE)),  # type: ignore
    "frequency*(1+1e-30)": ("d=8", tuple(e.replace("w*delta", "(1 + 10**-30)*w*delta")
                                         for e in TRUE)),  # type: ignore
    "angle+1e-25": ("d=8", tuple(e.replace("w*delta", "w*(delta + 10**-25)")
                                 for e in TRUE)),  # type: ignore
    "pythagoras-999+1e-20": ("d=8", _with(a00="cos(w*delta) + sin(999*w*delta)**2 "
                                              "+ cos(999*w*delta)**2 - 1 + 10**-20")),
    "const-1e-1000[0,0]": ("d=8", _with(a00="cos(w*delta) + 10**-1000")),
    "angle+1e-1000[0,0]": ("d=8", _with(a00="cos(w*delta + 10**-1000)")),
}
#: Blocks that hung the engine for minutes (issue 12 §0): large multiples in one entry.
MULTIPLE_BLOCKS = {f"cos({m}*w*delta)[0,0]": ("d=8", _with(a00=f"cos({m}*w*delta)"))
                   for m in (100, 200, 1000)}


def false_statements() -> list[Statement]:
    encs = _encodings()
    out = []
    for group, blocks in (("hair-thin claim", FALSE_BLOCKS),
                          ("large multiple", MULTIPLE_BLOCKS)):
        for key, (enc_key, entries) in blocks.items():
            enc = encs[enc_key]
            out.append(Statement(
                f"hair:{key}", False, group, _ask(enc, _text(entries), "row"),
                confirm_validated(enc, block_matrix(enc, _matrix(entries)), "row"),
                f"{enc_key}: {_text(entries)}"))
    # The column convention: the transposed true block, perturbed.
    enc = encs["d=8"]
    col = ("cos(w*delta) + 10**-20", "sin(w*delta)", "-sin(w*delta)", "cos(w*delta)")
    out.append(Statement("hair:column-convention+1e-20", False, "hair-thin claim",
                         _ask(enc, _text(col), "column"),
                         confirm_validated(enc, block_matrix(enc, _matrix(col)), "column"),
                         f"column convention: {_text(col)}"))
    return out


# --------------------------------------------------------------------------- true
TRUE_BLOCKS: dict[str, tuple[str, tuple[str, str, str, str]]] = {
    "pythagoras(delta)[0,0]": ("d=8", _with(a00="cos(w*delta)*(sin(delta)**2 + cos(delta)**2)")),
    "pythagoras(3*delta)[1,0]": ("d=8",
                                 _with(a10="sin(w*delta)*(cos(3*delta)**2 + sin(3*delta)**2)")),
    "pythagoras(pi*delta)[0,0]": ("d=8", _with(
        a00="cos(w*delta)*(cos(pi*delta)**2 + sin(pi*delta)**2)")),
    "pythagoras(1e6*delta)[1,1]": ("d=8", _with(
        a11="cos(w*delta)*(sin(10**6*delta)**2 + cos(10**6*delta)**2)")),
    "cube[0,0]": ("d=8", _with(a00="cos(w*delta)**3 + cos(w*delta)*sin(w*delta)**2")),
    "cube[1,0]": ("d=8", _with(a10="sin(w*delta)**3 + sin(w*delta)*cos(w*delta)**2")),
    "double-angle-all": ("d=8", ("cos(w*delta/2)**2 - sin(w*delta/2)**2",
                                 "-2*sin(w*delta/2)*cos(w*delta/2)",
                                 "2*sin(w*delta/2)*cos(w*delta/2)",
                                 "cos(w*delta/2)**2 - sin(w*delta/2)**2")),
    "double-angle-1-2sin2[0,0]": ("d=8", _with(a00="1 - 2*sin(w*delta/2)**2")),
    "double-angle-2cos2-1[1,1]": ("d=8", _with(a11="2*cos(w*delta/2)**2 - 1")),
    "triple-angle-sin[1,0]": ("d=8", _with(a10="3*sin(w*delta/3) - 4*sin(w*delta/3)**3")),
    "triple-angle-cos[0,0]": ("d=8", _with(a00="4*cos(w*delta/3)**3 - 3*cos(w*delta/3)")),
    "sum-of-angles-cos[0,0]": ("d=8", _with(
        a00="cos(w*delta/3)*cos(2*w*delta/3) - sin(w*delta/3)*sin(2*w*delta/3)")),
    "sum-of-angles-sin[1,0]": ("d=8", _with(
        a10="sin(w*delta/4)*cos(3*w*delta/4) + cos(w*delta/4)*sin(3*w*delta/4)")),
    "pythagoras-999-added[0,0]": ("d=8", _with(
        a00="cos(w*delta) + sin(999*w*delta)**2 + cos(999*w*delta)**2 - 1")),
    "pythagoras-1e6-added[0,1]": ("d=8", _with(
        a01="-sin(w*delta) + sin(w*delta*10**6)**2 + cos(w*delta*10**6)**2 - 1")),
    "exact-zero-times-1e-40[0,0]": ("d=8", _with(
        a00="cos(w*delta) + 10**-40*(sin(delta)**2 + cos(delta)**2 - 1)")),
    "double-angle-zero-added[0,0]": ("d=8", _with(
        a00="cos(w*delta) + sin(2*pi*delta) - 2*sin(pi*delta)*cos(pi*delta)")),
    "hair-cancelled[0,0]": ("d=8", _with(
        a00="cos(w*delta) + 10**-30*sin(w*delta)**2 + 10**-30*cos(w*delta)**2 - 10**-30")),
    "disguise,split": ("split,d=8", _with(a00="cos(w*delta)**3 + cos(w*delta)*sin(w*delta)**2")),
    "disguise,d=512": ("d=512", _with(a00="cos(w*delta)*(sin(delta)**2 + cos(delta)**2)")),
    "huge-times-exact-zero[0,0]": ("d=8", _with(
        a00="cos(w*delta) + (sin(w*delta)**2 + cos(w*delta)**2 - 1)*10**1000")),
    "power-100-cancelled[0,0]": ("d=8", _with(
        a00="cos(w*delta) + sin(w*delta)**100 - (1 - cos(w*delta)**2)**50")),
    "all-entries-disguised": ("d=8", (
        "cos(w*delta)*(sin(delta)**2 + cos(delta)**2)",
        "-sin(w*delta)**3 - sin(w*delta)*cos(w*delta)**2",
        "2*sin(w*delta/2)*cos(w*delta/2)",
        "2*cos(w*delta/2)**2 - 1")),
}


def true_statements() -> list[Statement]:
    encs = _encodings()
    out = [Statement(f"disguise:{key}", True, "true claim in disguise",
                     _ask(encs[enc_key], _text(entries), "row"), None,
                     f"{enc_key}: {_text(entries)}")
           for key, (enc_key, entries) in TRUE_BLOCKS.items()]
    col = ("cos(w*delta)*(cos(2*delta)**2 + sin(2*delta)**2)", "sin(w*delta)",
           "-sin(w*delta)", "cos(w*delta)")
    out.append(Statement("disguise:column-convention", True, "true claim in disguise",
                         _ask(encs["d=8"], _text(col), "column"), None,
                         f"column convention: {_text(col)}"))
    return out


def statements() -> list[Statement]:
    return false_statements() + true_statements()


__all__ = ["BUDGET", "LIMIT", "confirm_validated", "evaluate_within", "false_statements",
           "statements", "true_statements"]
