"""Check padding-aware position ids: real tokens count from the declared first position.

``fn`` maps a batch of ``input_ids`` (``takes="input_ids"``: pads are ``pad_token_id``) or
an ``attention_mask`` (``takes="attention_mask"``: 1 real, 0 pad) of shape (batch, L) to
position ids of the same shape.  One batch holds rows with no padding, left padding (1 and
3 pads), right padding (3 pads) and all padding; in every row the j-th real token must get
``first + j`` (0, or ``padding_idx + 1`` as RoBERTa / fairseq) and, when ``pad_fill`` is
given, every pad must get ``pad_fill``.  A failure says what happened, e.g. "left padding
shifts the real tokens' positions by the number of pads".

>>> import numpy as np
>>> cumsum = lambda m: np.where(m == 1, np.cumsum(m, -1) - 1, 0)
>>> assert_position_ids(cumsum, takes="attention_mask", pad_fill=0, use_torch=False).ok
True
>>> arange = lambda m: np.broadcast_to(np.arange(m.shape[1]), m.shape)
>>> assert_position_ids(arange, takes="attention_mask", use_torch=False)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
AssertionError: position ids: left padding shifts the real tokens' positions by the number of \
pads (row 'left 1 pad': +1; row 'left 3 pads': +3)...: the positions count the pads ...
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import sympy as sp

from ..audit import apply
from ..errors import InvalidParameter, check_int
from ..evidence import Evidence, Sign
from ..report import Check, Report
from .bias.t5 import call_array_fn

__all__ = ["assert_position_ids", "check_position_ids"]

_ROWS = (("no padding", 0, 0), ("left 1 pad", 1, 0), ("left 3 pads", 3, 0),
         ("right 3 pads", 0, 3), ("all padding", None, None))


def _batch(seq_len: int) -> tuple[np.ndarray, list[tuple[str, int, int]]]:
    mask = np.ones((len(_ROWS), seq_len), dtype=np.int64)
    rows = []
    for i, (name, left, right) in enumerate(_ROWS):
        if left is None:
            mask[i] = 0
            left, right = seq_len, 0
        mask[i, :left] = 0
        if right:
            mask[i, seq_len - right:] = 0
        rows.append((name, left, right))
    return mask, rows


def _row_evidence(name: str, real: np.ndarray, expect: np.ndarray, pads: np.ndarray,
                  pad_fill: int | None) -> Evidence:
    """A row's verdict as a Sign the audit recomputes from the ids: Σ|id − expected id| over
    its tokens (real ones against first + j, pads against ``pad_fill`` when given) is below 1/2 (so
    0) for a pass, positive for a fail."""
    got = [int(v) for v in real]
    want = [int(v) for v in expect]
    if pad_fill is not None:
        got += [int(v) for v in pads]
        want += [pad_fill] * len(pads)
    env: dict[str, int] = {}
    expr: sp.Expr = sp.Integer(abs(len(real) - len(expect)))
    for j, (g, w) in enumerate(zip(got, want, strict=False)):
        env[f"id_{j}"] = g
        expr += sp.Abs(sp.Symbol(f"id_{j}") - w)
    differ = any(g != w for g, w in zip(got, want, strict=False)) or len(real) != len(expect)
    label = f"row {name!r}: Σ|id − expected id|"
    if not differ:      # integers: a sum below 1/2 is 0 (a point check, not an identity)
        expr, label = sp.Rational(1, 2) - expr, f"row {name!r}: 1/2 − Σ|id − expected id|"
    return Evidence("exact integer comparison", "all",
                    items=[Sign(label, expr, "positive", env=env, engine="exact integers")])


def check_position_ids(fn: Callable[..., Any], *, takes: str = "input_ids", first: int = 0,
                       pad_fill: int | None = None, pad_token_id: int = 1, seq_len: int = 8,
                       use_torch: bool | None = None) -> Report:
    """The report of :func:`assert_position_ids`, without raising on a mismatch."""
    if takes not in ("input_ids", "attention_mask"):
        raise InvalidParameter(f"takes={takes!r}: the function takes 'input_ids' or "
                               "'attention_mask'")
    first = check_int("first", first)
    pad_token_id = check_int("pad_token_id", pad_token_id, minimum=0)
    seq_len = check_int("seq_len", seq_len, minimum=5, maximum=4096)
    if pad_fill is not None:
        pad_fill = check_int("pad_fill", pad_fill)
    mask, rows = _batch(seq_len)
    if takes == "input_ids":
        real_ids = (np.arange(mask.size).reshape(mask.shape) % 97) + pad_token_id + 1
        arg = np.where(mask == 1, real_ids, pad_token_id)
    else:
        arg = mask
    got = call_array_fn(fn, arg, use_torch)
    if got.dtype.kind not in "iu":
        raise InvalidParameter(f"the position ids are {got.dtype}, not integers")
    got = got.astype(np.int64)
    checks, problems = [], []
    shifts: dict[str, int] = {}
    pad_values: set[int] = set()
    for i, (name, _left, _right) in enumerate(rows):
        real = got[i][mask[i] == 1]
        pads = got[i][mask[i] == 0]
        expect = first + np.arange(real.size)
        real_ok = np.array_equal(real, expect)
        pad_ok = pad_fill is None or bool(np.all(pads == pad_fill))
        if not real_ok and real.size and np.array_equal(real - real[0], expect - first):
            shifts[name] = int(real[0] - first)
        if not pad_ok:
            pad_values.update(int(v) for v in np.unique(pads)[:4])
        values = {"real_positions": real.tolist(), "pad_positions": pads.tolist(),
                  "expected_real": expect.tolist()}
        checks.append(apply(Check(f"position_ids[{name}]", "pass" if real_ok and pad_ok
                                  else "fail", values, certified="exact integers",
                                  evidence=_row_evidence(name, real, expect, pads, pad_fill))))
        if not real_ok and name not in shifts:
            problems.append(f"row {name!r}: real tokens get {real.tolist()} instead of "
                            f"{expect.tolist()}")
    left_rows = {name: left for name, left, _ in rows if left and name != "all padding"}
    message = []
    if shifts and all(shifts.get(n) == k for n, k in left_rows.items()) and \
            not any(n not in left_rows for n in shifts):
        message.append("left padding shifts the real tokens' positions by the number of pads ("
                       + "; ".join(f"row {n!r}: +{k}" for n, k in left_rows.items())
                       + "): the positions count the pads (a plain arange?); derive them from "
                         "the mask: attention_mask.cumsum(-1) − 1")
    elif shifts and len(set(shifts.values())) == 1 and len(shifts) == len(rows) - 1:
        c = next(iter(shifts.values()))
        message.append(f"real tokens start at {first + c}, not at the declared first position "
                       f"{first} (off by {c:+d}; RoBERTa / fairseq start at padding_idx + 1)")
    elif shifts:
        message += [f"row {n!r}: real tokens shifted by {k:+d}" for n, k in shifts.items()]
    message += problems
    if pad_values:
        message.append(f"padding tokens get {sorted(pad_values)} instead of the declared fill "
                       f"{pad_fill}")
    return Report({"kind": "position_ids", "takes": takes, "first": first,
                   "pad_fill": pad_fill, "pad_token_id": pad_token_id, "seq_len": seq_len,
                   "message": "; ".join(message)}, [], checks)


def assert_position_ids(fn: Callable[..., Any], **kwargs: Any) -> Report:
    """Raise ``AssertionError`` saying what happened unless ``fn``'s position ids count the
    real tokens from ``first`` under left, right, no and all padding (keywords as
    :func:`check_position_ids`); return the report otherwise."""
    report = check_position_ids(fn, **kwargs)
    if not report.ok:
        failed = ", ".join(c.name.split("[")[1].rstrip("]") for c in report.checks if not c.ok)
        raise AssertionError(f"position ids: {report.encoding['message']} (failing rows: "
                             f"{failed})")
    return report
