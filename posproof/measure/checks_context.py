"""What every numeric check shares: the :class:`Context` of one run (the encoding, the offset
kernel scanned once, cached extremes and translations), the dtypes audited by default, and the
helpers that format numbers and notes.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import mpmath
import numpy as np

from ..errors import InvalidEncoding
from ..evidence import Evidence
from ..model.encoding import Encoding
from ..precise import mp_values
from ..report import Check, Proof
from .kernel import Extreme, OffsetKernel
from .translation import translation_blocks

__all__ = [
    "AUDIT_DTYPES",
    "Context",
    "NotApplicable",
    "fmt",
    "g",
    "inconsistent",
    "not_applicable",
]


AUDIT_DTYPES = ("float32", "float16", "bfloat16")


Progress = Callable[[str, int, int], None]


def fmt(value: Any, digits: int = 17) -> str:
    """An mpmath number as a decimal string (for JSON: exact digits, deterministic)."""
    return mpmath.nstr(value, digits, min_fixed=-5, max_fixed=8)


def g(value: float) -> str:
    return f"{value:.4g}"


class NotApplicable(Exception):
    """A kernel check on an encoding whose columns are not (sin, cos) pairs."""


class Context:
    """What the checks share: the encoding, the kernel (scanned once), cached extremes."""

    def __init__(self, enc: Encoding, length: int, dps: int, seed: int,
                 progress: Progress | None, proofs: Sequence[Proof] | None,
                 near_range: tuple[int, int] | None, near_tol: float | None,
                 dtypes: Sequence[str] = AUDIT_DTYPES) -> None:
        self.enc, self.length, self.dps, self.seed = enc, length, dps, seed
        self.dtypes = tuple(dtypes)
        self.progress = progress
        self.proofs = proofs
        self.near_range = near_range
        self.near_tol = near_tol
        self._kernel: OffsetKernel | None = None
        self._separation: Extreme | None = None
        self._omega_mp: dict[int, list[mpmath.mpf]] = {}
        self._translations: dict[float, tuple[np.ndarray, np.ndarray]] = {}
        self.label = ""

    def omega_mp(self, position: float = 0) -> list[mpmath.mpf]:
        """The encoding's exact frequencies in mpmath at :meth:`work_dps` ``(position)``
        digits: enough for every angle ω·x with |x| ≤ |position| to keep dps + 30 digits."""
        # one precision for the whole run: enough for the last position scanned (computing
        # all n frequencies again at each new precision cost seconds at large d)
        digits = max(self.work_dps(position), self.work_dps(self.enc.offset + self.length))
        if digits not in self._omega_mp:
            self._omega_mp[digits] = mp_values(self.enc.frequencies, digits)
        return self._omega_mp[digits]

    def work_dps(self, position: float = 0) -> int:
        """dps + 30 digits, plus the digits of max|ω|·|position| (in steps of 10)."""
        freq = np.abs(self.enc.frequencies_float)
        top = float(freq.max()) * abs(float(position)) if freq.size else 0.0
        extra = math.ceil(math.log10(top + 1) / 10) * 10 if math.isfinite(top) else 400
        return self.dps + 30 + extra

    def translation(self, delta: float) -> tuple[np.ndarray, np.ndarray]:
        """The blocks of the numeric T(Δ): sin and cos per pair (O(d), never d × d), cached."""
        key = float(delta)
        if key not in self._translations:
            self._translations[key] = translation_blocks(self.enc, key)
        return self._translations[key]

    def tick(self, done: int, total: int) -> None:
        if self.progress is not None:
            self.progress(self.label, done, total)

    @property
    def kernel(self) -> OffsetKernel:
        if self._kernel is None:
            try:
                self._kernel = OffsetKernel(self.enc)
            except InvalidEncoding as exc:
                problems = self.enc.broken_pairs()
                reason = (f"{problems[0]}, so PE(x)·PE(y) is not a function of x − y"
                          if problems else str(exc))
                raise NotApplicable(reason) from None
            self._kernel.materialize(self.length, progress=self.tick)
        return self._kernel

    def separation(self) -> Extreme | None:
        if self.length < 2:
            return None
        if self._separation is None:
            self._separation = self.kernel.maximum(1, self.length, dps=self.dps,
                                                   progress=self.tick)
        return self._separation


def inconsistent(what: str) -> str:
    return (f"toolkit inconsistency: {what} disagrees with its certified value beyond its "
            "bound; please report this as a bug")


def not_applicable(name: str, reason: str) -> Check:
    return Check(name, "fail", {"applicable": False, "summary": "not applicable"}, "",
                 note=f"not applicable: {reason}",
                 evidence=Evidence("structure of the encoding", "structural",
                                   unaudited=f"not applicable: {reason}"))
