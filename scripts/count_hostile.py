"""Run the hostile-input suite and print how many hostile inputs it fed (issue 7).

    CI=1 python scripts/count_hostile.py [extra pytest args]

The count is measured: ``tests/test_hostile.py`` counts every input its helpers feed
(API calls, CLI runs, subprocesses) in ``COUNT``; this script runs both hostile test files
in-process and reads that counter afterwards.  Exit status: pytest's.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str]) -> int:
    start = time.perf_counter()
    status = pytest.main(["-q", "-p", "no:cacheprovider", str(ROOT / "tests" / "test_hostile.py"),
                          str(ROOT / "tests" / "test_hostile_cli.py"), *argv])
    module = sys.modules.get("test_hostile")
    if module is None:
        print("test_hostile was not imported; nothing counted", file=sys.stderr)
        return 2
    count = module.COUNT
    width = max(map(len, count), default=10)
    for name, n in sorted(count.items()):
        print(f"  {name:<{width}}  {n:5d}")
    print(f"hostile inputs fed: {sum(count.values())} in {time.perf_counter() - start:.0f} s "
          f"(pytest exit status {int(status)})")
    return int(status)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
