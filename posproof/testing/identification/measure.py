"""Measuring a table for :func:`~posproof.testing.identification.identify`: the ways of pairing
its columns, the frequency of each (sin, cos) pair read from the phase advance between rows,
and the residual of a fitted encoding against the table.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.arrays import phasors, tolerance
from .families import TOLERANCE

__all__ = [
    "Pairs",
    "column_frequencies",
    "layout_name",
    "longest_run",
    "measure_phases",
    "pairings",
    "residual",
]


@dataclass
class Pairs:
    """Per-pair measurements for one pairing of the columns."""

    pairing: str                 # "adjacent" or "halves"
    layout: str                  # one of the four LAYOUTS
    sin_cols: np.ndarray
    cos_cols: np.ndarray
    omega: np.ndarray            # measured frequency per pair
    sigma: np.ndarray            # its standard error
    phase0: np.ndarray           # phase at the first fitted row
    first_row: int               # index of the first fitted row


def pairings(n: int) -> list[tuple[str, np.ndarray, np.ndarray]]:
    k = np.arange(n)
    out = [("adjacent", 2 * k, 2 * k + 1)]
    if n > 1:
        out.append(("halves", k, n + k))
    return out


def longest_run(mask: np.ndarray) -> tuple[int, int]:
    """(start, stop) of the longest run of True."""
    best, start = (0, 0), None
    for i, value in enumerate(np.append(mask, False)):
        if value and start is None:
            start = i
        elif not value and start is not None:
            if i - start > best[1] - best[0]:
                best = (start, i)
            start = None
    return best


def measure_phases(first: np.ndarray, second: np.ndarray, noise: float
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Signed phase advance per pair, treating ``first`` as sin and ``second`` as cos.

    Returns (omega, sigma, phase0, reliable, signs) where omega ≥ 0 and signs
    is +1 when ``first`` is the sine.
    """
    m = first.shape[0]
    z = second + 1j * first
    step = np.angle(np.sum(z[1:] * np.conj(z[:-1]), axis=0))
    reliable = (np.abs(step) * (m - 1) > 50 * noise) & (np.abs(step) < np.pi - 1e-6)
    signs = np.where(step < 0, -1.0, 1.0)
    z = np.where(signs > 0, z, first + 1j * second)
    w0 = np.abs(step)
    rows = np.arange(m, dtype=np.float64)
    rot = z * np.exp(-1j * np.multiply.outer(rows, w0))
    centre = np.angle(rot.sum(axis=0))
    rho = np.angle(rot * np.exp(-1j * centre))
    xc = rows - rows.mean()
    sxx = float((xc * xc).sum())
    beta = (xc[:, None] * rho).sum(axis=0) / sxx
    alpha = rho.mean(axis=0)
    resid = rho - alpha - np.multiply.outer(xc, beta)
    rms = np.sqrt((resid * resid).mean(axis=0))
    sigma = np.maximum(rms, noise) * math.sqrt(12.0 / max(m, 2) ** 3)
    omega = w0 + beta
    phase0 = centre + alpha - beta * rows.mean()
    return omega, sigma, phase0, reliable, signs


def column_frequencies(block: np.ndarray, noise: float) -> tuple[np.ndarray, np.ndarray]:
    """Per column: frequency from the recurrence c(x+1) + c(x−1) = 2cos(ω)·c(x), and
    whether the column is a sinusoid of the position at all."""
    mid, around = block[1:-1], block[2:] + block[:-2]
    energy = (mid * mid).sum(axis=0)
    cos_w = np.divide((mid * around).sum(axis=0), 2 * energy, out=np.ones(block.shape[1]),
                      where=energy > 0)
    omega = np.arccos(np.clip(cos_w, -1.0, 1.0))
    resid = np.abs(around - 2 * cos_w * mid).max(axis=0)
    return omega, resid <= 64 * noise


# --------------------------------------------------------------------------- validation
def residual(table: np.ndarray, rows: np.ndarray, omega: np.ndarray, pairs: Pairs,
              offset: int, eps: float, zero: np.ndarray, pad: bool, tol: Any = None,
              coverage: Any = None, worst: list[Any] | None = None) -> tuple[float, float]:
    """(max |table − fitted|, max ratio to tolerance) over ``rows`` of the table.

    The tolerance is ``16·eps·(1 + |x·ω|)`` (angles formed in the dtype: the search), or
    the :class:`~posproof.testing.core.judging.Tolerance` ``tol`` of assert_encoding (the
    verdict), whose judged entries are counted in ``coverage``; with ``tol``, ``worst``
    (a list) receives the entry with the largest ratio, ``[ratio, row, column, tolerance]``
    (the last such entry on ties: the farthest position)."""
    live = rows[~zero[rows]]
    resid = score = 0.0
    for lo in range(0, live.size, 1024):
        chunk = live[lo:lo + 1024]
        pos = (offset + chunk).astype(np.float64)
        e = phasors(omega, pos)
        if tol is None:
            inv_tol = 1.0 / tolerance(eps, pos, omega)
        else:
            entry = tol.entries(np.abs(pos), omega)
            inv_tol = 1.0 / entry
        block = table[chunk]
        for cols, expected in ((pairs.sin_cols, e.imag), (pairs.cos_cols, e.real)):
            if coverage is not None:
                coverage.add(entry, np.abs(pos), cols, tol)
            diff = np.abs(block[:, cols] - expected)
            resid = max(resid, float(diff.max()))
            diff *= inv_tol
            score = max(score, float(diff.max()))
            if worst is not None and tol is not None and diff.size:
                k = int(np.argmax(diff))
                r, c = divmod(k, diff.shape[1])
                if not worst or float(diff.flat[k]) >= worst[0]:
                    worst[:] = [float(diff.flat[k]), int(chunk[r]), int(cols[c]),
                                float(entry[r, c])]
    if pad:
        col = float(np.abs(table[rows, -1]).max())
        out = TOLERANCE * eps if tol is None else tol.out
        resid, score = max(resid, col), max(score, col / out)
        if coverage is not None:
            coverage.total += rows.size
            coverage.judged += rows.size
    return resid, score


def layout_name(pairing: str, sin_first: bool) -> str:
    if pairing == "adjacent":
        return "interleaved" if sin_first else "interleaved-cos"
    return "split" if sin_first else "split-cos"
