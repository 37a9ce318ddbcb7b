"""Three-valued answers: :class:`Verdict` (``YES``, ``NO``, ``UNKNOWN``).

A certified question ("is this base good?") has three answers, and "unknown" must never
be read as "yes" by accident.  A string would be: ``if bb.is_good(b):`` is true for
``'no'``.  A :class:`Verdict` has no truth value (``bool()`` raises ``TypeError``), so the
caller says which answer it means:

>>> v = Verdict.NO
>>> v is Verdict.YES, v.is_yes, v.is_no, v.is_unknown
(False, False, True, False)
>>> if v:
...     pass
Traceback (most recent call last):
...
TypeError: a Verdict (Verdict.NO) has no truth value: it is one of yes, no, unknown; compare it (verdict is Verdict.YES) or use .is_yes / .is_no / .is_unknown

It is a ``str`` too, equal to its text, so JSON and the comparisons ``== "yes"`` of existing
code keep working (``json.dumps(Verdict.YES)`` is ``'"yes"'``):

>>> Verdict.YES == "yes", str(Verdict.UNKNOWN), f"{Verdict.NO}", Verdict("yes")
(True, 'unknown', 'no', Verdict.YES)
"""

from __future__ import annotations

from enum import Enum

__all__ = ["Verdict"]


class Verdict(str, Enum):
    """A certified three-valued answer; its truth value cannot be taken (see the module)."""

    YES = "yes"
    NO = "no"
    UNKNOWN = "unknown"

    def __bool__(self) -> bool:
        raise TypeError(f"a Verdict ({self!r}) has no truth value: it is one of yes, no, "
                        "unknown; compare it (verdict is Verdict.YES) or use .is_yes / "
                        ".is_no / .is_unknown")

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)

    def __repr__(self) -> str:
        return f"Verdict.{self.name}"

    @property
    def is_yes(self) -> bool:
        return self is Verdict.YES

    @property
    def is_no(self) -> bool:
        return self is Verdict.NO

    @property
    def is_unknown(self) -> bool:
        return self is Verdict.UNKNOWN

    @classmethod
    def of(cls, value: bool | None) -> Verdict:
        """``True`` → YES, ``False`` → NO, ``None`` → UNKNOWN.

        >>> Verdict.of(True), Verdict.of(False), Verdict.of(None)
        (Verdict.YES, Verdict.NO, Verdict.UNKNOWN)
        """
        return cls.UNKNOWN if value is None else cls.YES if value else cls.NO
