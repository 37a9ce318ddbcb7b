"""``posproof check-model`` on a 2-layer Llama config: the whole command, and what dominates.

    python benchmarks/bench_check_model.py

The config is Llama-3-8B's (tests/model_configs.py: 32 heads of 128, rope_theta 500000, 8192
positions), shrunk by check-model to 2 layers of 2 heads.  Printed: the wall clock of the
command in a fresh process (imports included; target ≤ 20 s on the 2-core machine), then, in
this process, each phase: importing torch + transformers, building the tiny model, deriving the
tolerance (which includes a float32 copy), and each of the four checks.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]


def main() -> None:
    import model_configs as mc

    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "config.json"
        config.write_text(json.dumps(mc.LLAMA3_8B), encoding="utf-8")
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "posproof", "check-model", str(config)],
                              cwd=ROOT, capture_output=True, text=True, check=False)
        whole = time.perf_counter() - start
        print(f"posproof check-model (2-layer Llama, L=64), fresh process: {whole:.1f} s "
              f"(exit {done.returncode}; target ≤ 20 s)")

        phases: dict[str, float] = {}
        t = time.perf_counter()
        import torch
        import transformers  # noqa: F401
        phases["import torch + transformers"] = time.perf_counter() - t

        from posproof.whole.api import load
        from posproof.whole.checks import (
            check_cache_boundary,
            check_kv_cache,
            check_left_padding,
            check_shift,
            derive_tolerance,
        )

        torch.set_num_threads(1)
        t = time.perf_counter()
        runner = load(config)
        phases["build the tiny model"] = time.perf_counter() - t
        gen = torch.Generator().manual_seed(0)
        ids = torch.randint(1, runner.vocab - 12, (1, 64), generator=gen)
        ids2 = torch.randint(1, runner.vocab - 12, (1, 64), generator=gen)
        runner.memo = {}
        with runner.float64_angles():
            t = time.perf_counter()
            tol = derive_tolerance(runner, ids, True)
            phases["derive the tolerance"] = time.perf_counter() - t
            for name, fn in [("shift_invariance", lambda: check_shift(runner, ids, tol)),
                             ("kv_cache", lambda: check_kv_cache(runner, ids, 64, tol)),
                             ("left_padding", lambda: check_left_padding(runner, ids, ids2,
                                                                         tol)),
                             ("cache_boundary", lambda: check_cache_boundary(runner, ids, tol))]:
                t = time.perf_counter()
                fn()
                phases[f"check {name}"] = time.perf_counter() - t
        total = sum(phases.values())
        for name, seconds in sorted(phases.items(), key=lambda kv: -kv[1]):
            print(f"  {name:<28} {seconds:6.2f} s  ({100 * seconds / total:4.1f} %)")


if __name__ == "__main__":
    main()
