"""Step 0 of every derivation: why positions at all (self-attention is permutation equivariant).

Built from :func:`posproof.proofs.permutation.prove_permutation` (memoised per seed): the
theorem, its lemma chain, and the two ways it breaks (a sinusoidal PE added, a causal
mask), each proved by a witness with an interval-certified difference.
"""

from __future__ import annotations

from functools import lru_cache

from ...proofs.permutation import prove_permutation
from ...report import Report
from .document import Doc, lit

__all__ = ["why_positions_section"]


@lru_cache(maxsize=4)
def _report(seed: int) -> Report:
    return prove_permutation(seed=seed)


def why_positions_section(doc: Doc, seed: int = 0) -> None:
    """Append the section "0. Why positions at all" to ``doc``."""
    report = _report(seed)
    eq, pe, causal = (report["permutation:equivariance"], report["permutation:sinusoidal-pe"],
                      report["permutation:causal-mask"])
    doc.h(2, "0. Why positions at all")
    doc.p("Self-attention without positions, $A(X) = \\mathrm{softmax}(X W_q (X W_k)^T / "
          "\\sqrt{d})\\, X W_v$ with a row-wise softmax and no mask, cannot tell word order: "
          f"for every permutation matrix $P$, $A(PX) = P\\,A(X)$ (**{eq.status}** for every n "
          "by the chain below).")
    doc.ol(["$(PX)W = P(XW)$ (associativity), so the scores of $PX$ are $P S P^T$.",
            "Row-wise softmax commutes with permutations: $\\mathrm{softmax}(P S P^T) = "
            "P\\,\\mathrm{softmax}(S)\\,P^T$ (entry $(i, j)$ of $P S P^T$ is "
            "$S_{\\pi(i)\\pi(j)}$, and each row's normaliser is the same sum reindexed by "
            "the bijection $\\pi$).",
            "$P^T P = I$, so $A(PX) = P\\,\\mathrm{softmax}(S)\\,P^T P X W_v = P\\,A(X)$."])
    doc.p(f"Checked exactly with symbolic $X$ and $W$: {lit(eq.steps[-1].statement)}; in "
          f"mpmath at random sizes (largest difference "
          f"{lit((eq.crosscheck or {}).get('max_abs_difference'))}).")
    items = []
    for p, what in ((pe, "with a sinusoidal PE added, $A(PX + PE) \\ne P\\,A(X + PE)$"),
                    (causal, "with a causal mask, $A_{causal}(PX) \\ne P\\,A_{causal}(X)$")):
        cex = (p.values or {}).get("witness") or {}
        lo, hi = cex.get("difference enclosure", ["?", "?"])
        rows = ", ".join("(" + ", ".join(r) + ")" for r in cex.get("X", []))
        items.append(f"**{p.status}** (a witness): {what}: swapping tokens 0 and 1 of "
                     f"$X$ = ({lit(rows)}) ($W = I$), entry {lit(tuple(cex.get('entry', ())))} "
                     f"differs by a value in [{lit(lo)}, {lit(hi)}] (interval arithmetic).")
    doc.ul(items)
    doc.p("The positional encoding is what breaks the symmetry: it is attached to the place, "
          "not to the token. A causal mask also breaks it, yet decoders still need positions: "
          "the mask tells a token which tokens precede it, not how far away each one is, and "
          "among the earlier tokens the softmax is again a permutation-invariant sum. With "
          "RoPE the scores depend on positions only through the offset $n - m$ "
          f"(**{report['permutation:rope-offsets'].status}**, the rotary relative "
          "identity). Reproduce: `posproof prove --theorem permutation-equivariance`.")
