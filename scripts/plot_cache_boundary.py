"""The figure of docs/check-model.md: logit difference against position for a dynamic-NTK model.

    python scripts/plot_cache_boundary.py             # writes docs/figures/cache_boundary.png

A 2-layer Llama with ``rope_scaling={"rope_type": "dynamic", "factor": 2}`` and 64 positions
(tests/model_configs.py: LLAMA_DYNAMIC), float64, random weights.  A prompt of 16 tokens is
decoded one token at a time with the model's own cache up to position 127; at each position the
cached logits are compared with the full forward of the same prefix.  Plotted: max |Δlogit| per
position (log scale), the derived tolerance, and the switch at original_max_position_embeddings.
Also the same for plain RoPE (no scaling), which stays at the float64 rounding.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
OUT = ROOT / "docs" / "figures" / "cache_boundary.png"


def differences(config: dict, prompt: int = 16, stop: int = 128) -> tuple[list[float], float]:
    import torch

    from posproof.whole.api import load
    from posproof.whole.checks import _references, derive_tolerance

    torch.set_num_threads(1)
    runner = load(config)
    ids = torch.randint(1, runner.vocab - 12, (1, stop), generator=torch.Generator().manual_seed(0))
    with runner.float64_angles():
        tol = derive_tolerance(runner, ids[:, :prompt], True)
        inc = runner.decode(ids, prompt)
        ref = _references(runner, ids, prompt, stop)
    return [float((a - b).abs().max()) for a, b in zip(inc, ref, strict=True)], tol.value


def main() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import model_configs as mc

    prompt, stop = 16, 128
    dynamic, tol = differences(mc.LLAMA_DYNAMIC, prompt, stop)
    plain, _ = differences({**mc.LLAMA_DYNAMIC, "rope_scaling": None}, prompt, stop)
    positions = list(range(prompt, stop))
    floor = 1e-17
    fig, ax = plt.subplots(figsize=(7, 3.6), dpi=120)
    ax.semilogy(positions, [max(d, floor) for d in dynamic], ".-", ms=3,
                label="dynamic NTK, factor 2 (KV cache vs full forward)")
    ax.semilogy(positions, [max(d, floor) for d in plain], ".-", ms=3, color="0.5",
                label="plain RoPE (same weights)")
    ax.axhline(tol, color="tab:green", ls="--", lw=1, label=f"derived tolerance {tol:.1e}")
    ax.axvline(64, color="tab:red", ls=":", lw=1, label="original_max_position_embeddings = 64")
    ax.set_xlabel("decoded position")
    ax.set_ylabel("max |Δlogit|")
    ax.set_title("Keys cached before the switch, queries after it", fontsize=10)
    ax.legend(fontsize=7, loc="center right")
    fig.tight_layout()
    OUT.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(OUT)
    first = next(p for p, d in zip(positions, dynamic, strict=True) if d > tol)
    print(f"wrote {OUT.relative_to(ROOT)}: first position over tolerance {first}, "
          f"max |Δlogit| {max(dynamic):.3g} (plain RoPE max {max(plain):.3g})")


if __name__ == "__main__":
    main()
