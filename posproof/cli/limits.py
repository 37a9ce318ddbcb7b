"""Limits as a contract: every accepted range, with the commands at its corners.

One table (:func:`limits`) is the single source of three things: the "Limits" section of
docs/cli.md (``scripts/gen_docs.py``), ``posproof limits`` on the command line, and
tests/test_limits.py, which runs every ``at`` command under ``RLIMIT_AS`` = 4 GiB and
requires it to finish (exit 0 or 1) within :data:`SECONDS`, and every ``beyond`` command to
be refused at once with one line naming the limit and exit status 2.

>>> rows = limits()
>>> sum(1 for row in rows if row.at or row.beyond) >= 10
True
>>> any("heads" in row.value for row in rows)
True
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["MEMORY_BYTES", "SECONDS", "Limit", "limits", "render"]

#: Every command at an accepted corner finishes within this many seconds on two cores...
SECONDS = 60
#: ... and this much address space.
MEMORY_BYTES = 4 << 30


@dataclass(frozen=True)
class Limit:
    """One accepted range: its value, the commands that take it, the range in words, the
    command lines at its corners (``at``) and one step beyond (``beyond``: the arguments
    and the words the one-line refusal must name)."""

    value: str
    commands: str
    accepted: str
    at: tuple[tuple[str, ...], ...] = ()
    beyond: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = field(default=())


def limits() -> list[Limit]:
    """The table (the constants of the modules that enforce them, through their light copies in
    :mod:`posproof.cli.constants`: ``posproof limits`` imports no SymPy or NumPy)."""
    from ..errors import MAX_DIM
    from ..sweep.limits import HARD_MAX_POINTS, MAX_POINTS, MAX_RANGE_VALUES
    from .constants import HIGHEST_BASE as HIGHEST
    from .constants import (
        MAX_BIAS_DENOMINATOR,
        MAX_BIAS_MAX,
        MAX_CHECK_DIM,
        MAX_DPS_WORK,
        MAX_EXPLORE_DIM,
        MAX_EXPLORE_WORK,
        MAX_GRID_VALUES,
        MAX_HEAD_DIM,
        MAX_HEADS,
        MAX_LEN,
        MAX_LENGTH,
        MAX_SCAN_WORK,
        MAX_TEXT,
    )
    from .testing import MAX_TABLE_BYTES

    scan_len = MAX_SCAN_WORK // MAX_CHECK_DIM
    check_dps = MAX_DPS_WORK // MAX_CHECK_DIM
    explore_len = MAX_EXPLORE_WORK // MAX_EXPLORE_DIM
    side = int(MAX_GRID_VALUES ** 0.5) // 64      # a square grid well inside the value limit
    return [
        Limit("dimension d (`--dim`, `dim=` of a spec, a config's head_dim)",
              "prove (and every command; explore: see below)", f"2 … {MAX_DIM}",
              at=(("prove", "--dim", str(MAX_DIM), "--json"),),
              beyond=((("prove", "--dim", str(MAX_DIM + 2)), ("dim",)),)),
        Limit("dimension d of the numeric checks", "check, verify, derive",
              f"2 … {MAX_CHECK_DIM} (each check certifies its values from every exact "
              "frequency; verify and derive also prove, each stage within the minute)",
              beyond=((("check", "--dim", str(MAX_CHECK_DIM + 2), "--max-len", "10"),
                       ("dim", str(MAX_CHECK_DIM))),
                      (("verify", "--dim", str(MAX_DIM), "--max-len", "10"),
                       ("dim", str(MAX_CHECK_DIM))))),
        Limit("scan length L (`--max-len`)", "verify, check, derive",
              f"1 … {MAX_LEN:.0e}".replace("e+0", "e")
              + f", and L·d ≤ 2^{MAX_SCAN_WORK.bit_length() - 1} = {MAX_SCAN_WORK}: "
              f"L ≤ {MAX_SCAN_WORK // 512} at d = 512, L ≤ {scan_len} at d = {MAX_CHECK_DIM}",
              at=(("check", "--dim", str(MAX_CHECK_DIM), "--max-len", str(scan_len), "--dps",
                   str(check_dps), "--json"),),
              beyond=((("check", "--dim", "2", "--max-len", str(MAX_LEN + 1)), ("max_len",)),
                      (("check", "--dim", str(MAX_CHECK_DIM), "--max-len", str(scan_len + 1)),
                       ("max_len", str(scan_len))),
                      (("verify", "--dim", str(MAX_CHECK_DIM), "--max-len", "1e7"),
                       ("max_len",)))),
        Limit("digits of the certification (`--dps`)", "verify, check",
              f"50 … 1000, and dps·d ≤ {MAX_DPS_WORK}: dps ≤ {check_dps} at d = {MAX_CHECK_DIM}",
              beyond=((("check", "--dim", "8", "--max-len", "10", "--dps", "1001"), ("dps",)),
                      (("check", "--dim", str(MAX_CHECK_DIM), "--max-len", "10", "--dps",
                        str(check_dps + 1)), ("dps", str(check_dps))))),
        Limit("context length L (`--length`, `--train-length`)", "explore, explain",
              f"1 … {MAX_LENGTH} (2^24), and L·d ≤ 2^{MAX_EXPLORE_WORK.bit_length() - 1} for "
              f"each encoding: L ≤ {explore_len} at d = {MAX_EXPLORE_DIM}",
              beyond=((("explore", "rope:base=10000,dim=128", "--length", str(MAX_LENGTH + 1),
                        "--no-proofs"), ("length",)),
                      (("explore", f"rope:base=10000,dim={MAX_EXPLORE_DIM}", "--length",
                        str(explore_len + 1)), ("length", str(explore_len))))),
        Limit("dimension d of an explored encoding", "explore, explain, sweep",
              f"2 … {MAX_EXPLORE_DIM} (its proofs take minutes beyond)",
              beyond=((("explore", f"rope:base=10000,dim={MAX_EXPLORE_DIM + 2}", "--no-proofs"),
                       ("dim", str(MAX_EXPLORE_DIM))),)),
        Limit("base range of the base bound (`--base-range LO,HI`)", "explore --base-bound",
              f"1 < LO < HI ≤ {HIGHEST:g}; ranges past the search's work budget are reported "
              "undecided, never guessed",
              at=(("explore", "rope:base=10000,dim=4", "--length", "355", "--base-bound",
                   "--base-range", "2,1e15", "--no-proofs"),),
              beyond=((("explore", "rope:base=10000,dim=4", "--length", "30", "--base-bound",
                        "--base-range", f"2,{HIGHEST * 10:g}"), ("--base-range",)),)),
        Limit("attention heads (`--heads`, `heads=`)", "prove, check, explain, check-impl "
              "(`--alibi`)", f"1 … {MAX_HEADS}; check: heads × L ≤ 2^26 (every Δ of every "
              f"head is scanned): L ≤ {(1 << 26) // MAX_HEADS} at {MAX_HEADS} heads",
              at=(("check", "--alibi", "--heads", str(MAX_HEADS), "--max-len",
                   str((1 << 26) // MAX_HEADS)),
                  ("check", "--alibi", "--heads", "64", "--max-len", "1000000"),
                  ("prove", "--alibi", "--heads", str(MAX_HEADS), "--general")),
              beyond=((("prove", "--alibi", "--heads", str(MAX_HEADS + 1)), ("heads",)),
                      (("check", "--alibi", "--heads", str(MAX_HEADS), "--max-len", "1000000"),
                       ("heads", str((1 << 26) // MAX_HEADS))))),
        Limit("MPT's alibi_bias_max (`--alibi-bias-max`, a config's `alibi_bias_max`)",
              "prove, check, explain (`--alibi --rule mpt`)",
              f"0 < B ≤ {MAX_BIAS_MAX}, at most {len(str(MAX_BIAS_DENOMINATOR)) - 1} decimals "
              f"(denominator ≤ {MAX_BIAS_DENOMINATOR})",
              at=(("prove", "--alibi", "--heads", str(MAX_HEADS), "--rule", "mpt",
                   "--alibi-bias-max", "999.999999", "--general"),),
              beyond=((("prove", "--alibi", "--heads", "5", "--rule", "mpt",
                        "--alibi-bias-max", "20000"), ("alibi_bias_max",)),
                      (("prove", "--alibi", "--heads", "8", "--rule", "mpt",
                        "--alibi-bias-max", "1e-100000"), ("alibi_bias_max",)))),
        Limit("T5 buckets and max_distance (`--t5 B,M[,causal]`, `t5:buckets=,max_distance=`)",
              "prove, check, explain", "buckets 2 … 4096, max_distance 1 … 1e12",
              at=(("prove", "--t5", "4096,1000000000000,causal"),
                  ("check", "--t5", "4096,1000000000000,causal")),
              beyond=((("prove", "--t5", "4097,128"), ("num_buckets",)),
                      (("prove", "--t5", "32,1000000000001"), ("max_distance",)))),
        Limit("grid of positions (`--grid`)", "check (multi-axis presets)",
              f"product of the sides × d ≤ {MAX_GRID_VALUES} values",
              at=(("check", "--preset", "sincos-2d", "--dim", "16", "--grid",
                   f"{side},{side}"),),
              beyond=((("check", "--preset", "sincos-2d", "--dim", "1024", "--grid",
                        f"{2 * side * 8},{2 * side * 8}"), ("grid",)),)),
        Limit("positions of a callable (`--max-len`)", "check-impl",
              "1 … 1e9 (576 of them are evaluated)",
              beyond=((("check-impl", "math:pi", "--dim", "8", "--max-len", str(MAX_LEN + 1)),
                       ("max_len",)),)),
        Limit("head dim and largest position of a rotary embedding (`--rotary --dim`, "
              "`--max-position`)", "check-impl",
              f"head_dim ≤ {MAX_HEAD_DIM} (every basis vector is rotated), position 64 … 2^40",
              beyond=((("check-impl", "math:pi", "--rotary", "--dim", str(MAX_HEAD_DIM + 2)),
                       ("head_dim", str(MAX_HEAD_DIM))),)),
        Limit("array data in a table file (.npy, .npz unpacked, .pt, .safetensors)",
              "identify", f"{MAX_TABLE_BYTES >> 20} MiB"),
        Limit("grid size", "sweep", f"{MAX_POINTS} points without `--yes`, {HARD_MAX_POINTS} "
              f"with it; {MAX_RANGE_VALUES} values per range; each point's length and dim as "
              "explore's"),
        Limit("an expression (`--frequencies`, `--expression`, claims)",
              "verify, check, prove, derive",
              f"{MAX_TEXT} characters (and bounded depth, digits and exponents)",
              beyond=((("check", "--preset", "explicit", "--dim", "2", "--frequencies",
                        "1" + "+1" * MAX_TEXT), ("characters",)),)),
    ]


def render() -> list[str]:
    """The Markdown table (docs/cli.md, ``posproof limits``)."""
    lines = ["| value | commands | accepted |", "|---|---|---|"]
    lines += [f"| {row.value} | {row.commands} | {row.accepted} |" for row in limits()]
    return lines
