"""The options every family's operations read: one meaning each, on every family."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any

__all__ = ["Options"]


@dataclass(frozen=True)
class Options:
    """What a command asked for. ``None`` (or an empty list, or ``general=False``) is "not
    given": an operation uses its own default, and an option given to an operation that does
    not read it is refused — whatever its value (``length=0`` and ``dps=0`` are given).

    >>> Options(length=0, dps=0, dtypes=(), general=False).given()
    ['length', 'dps']
    >>> Options(claims={"claim_block": 0, "claim_first": None}).given()
    ['claim_block']
    """

    theorems: Sequence[str] | None = None
    general: bool = False
    seed: int = 0
    #: the wall-clock safety net, seconds per theorem (``0``/``None`` given explicitly: no
    #: limit); absent: the default
    timeout: float | None = None
    timeout_given: bool = False
    #: the work budget, units per theorem (``0``/``None`` given explicitly: no limit)
    budget: int | None = None
    budget_given: bool = False
    length: int | None = None
    dps: int | None = None
    dtypes: Sequence[str] | None = None
    checks: Sequence[str] | None = None
    grid: tuple[int, ...] | None = None
    #: claims to prove or refute (``claim_block``, ``claim_first`` …), by option name
    claims: dict[str, Any] = field(default_factory=dict)
    progress: Callable[[str, int, int], None] | None = field(default=None, compare=False)

    def replace(self, **changes: Any) -> Options:
        return replace(self, **changes) if changes else self

    def given(self) -> list[str]:
        """The options given (not at their "absent" value), by name."""
        out = []
        for f in fields(self):
            if f.name in ("progress", "seed", "timeout_given", "budget_given", "claims"):
                continue
            value = getattr(self, f.name)
            if f.name in ("timeout", "budget"):
                if getattr(self, f"{f.name}_given"):
                    out.append(f.name)
            elif not _absent(value):
                out.append(f.name)
        out += [k for k, v in self.claims.items() if not _absent(v)]
        return out

    def timeout_kw(self) -> dict[str, Any]:
        """The proof budgets given (work ``budget``, safety-net ``timeout``), as keywords."""
        out: dict[str, Any] = {"timeout": self.timeout} if self.timeout_given else {}
        return {**out, "budget": self.budget} if self.budget_given else out

    def scan_length(self) -> int:
        from ..measure.checks import DEFAULT_MAX_LEN

        return DEFAULT_MAX_LEN if self.length is None else self.length


def _absent(value: Any) -> bool:
    """``None``, ``False`` or an empty sequence: not given. Compared by identity and type, so
    that ``0`` (``0 == False``) and ``0.0`` count as given."""
    if value is None or value is False:
        return True
    return isinstance(value, (tuple, list, dict, set)) and len(value) == 0
