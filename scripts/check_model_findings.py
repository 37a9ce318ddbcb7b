"""The findings table of docs/check-model.md: check-model on each test config.

    python scripts/check_model_findings.py            # Markdown table on stdout (≈ 2 min)

Each config of tests/model_configs.py (modelled on the real config.json files) is written to a
temporary directory and checked with ``posproof check-model CONFIG --json`` (default L = 64),
in a fresh process, as a user would run it.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests")]

MODELS = ["LLAMA3_8B", "LLAMA_DYNAMIC", "MISTRAL_7B", "MISTRAL_SMALL_WINDOW", "QWEN2_7B",
          "GEMMA_7B", "PHI3_MINI_128K", "PHI3_SMALL_SWITCH", "GPT2", "OPT_125M", "BLOOM_560M",
          "T5_SMALL", "QWEN2_VL_7B", "GEMMA2_SMALL_WINDOW", "GEMMA3_SMALL_WINDOW", "PHI2",
          "PYTHIA_160M", "BART_LARGE"]
MARK = {"pass": "✓", "fail": "✗", "unknown": "?"}


def row(name: str, report: dict) -> str:
    checks = {c["name"]: c for c in report["checks"]}
    cells = []
    for key in ("shift_invariance", "kv_cache", "left_padding", "cache_boundary"):
        c = checks.get(key)
        if c is None:
            cells.append("—")
            continue
        text = MARK[c["status"]]
        if key == "shift_invariance" and c.get("positions") == "absolute":
            text += " absolute"
        elif c["status"] != "pass" and "max_difference" in c:
            text += f" {c['max_difference']:.2g}"
            if c.get("first_position") is not None:
                text += f" from {c['first_position']}"
        cells.append(text)
    return f"| {name} | " + " | ".join(cells) + " |"


def main() -> None:
    import model_configs as mc

    print("| config | shift_invariance | kv_cache | left_padding | cache_boundary |")
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for name in MODELS:
            path = mc.write(Path(tmp), getattr(mc, name), f"{name}.json")
            done = subprocess.run([sys.executable, "-m", "posproof", "check-model", str(path),
                                   "--json"], cwd=ROOT, capture_output=True, text=True,
                                  check=False)
            if done.returncode not in (0, 1):
                print(f"| {name} | error: {done.stderr.strip()} | | | |")
                continue
            print(row(name, json.loads(done.stdout)), flush=True)


if __name__ == "__main__":
    main()
