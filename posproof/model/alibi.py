"""ALiBi (attention with linear biases): exact per-head slopes and the bias they define.

Head h (0-based) of an n-head model adds ``−m_h·(i − j)`` to the score of query i and key j,
with ``m_h = 2^(−e_h)`` for an exact rational exponent e_h.  Two published rules give the e_h:

* ``reference`` — the ALiBi paper's ``get_slopes`` (ofirpress/attention_with_linear_biases),
  also HF BLOOM's ``_get_alibi_slopes``: for n a power of two, e_h = 8(h+1)/n; otherwise the
  slopes of the next lower power of two P, then every other slope of 2P
  (e = 8(2j+1)/(2P), j = 0 …).
* ``mpt`` — MPT's ``gen_slopes`` (llm-foundry, HF ``build_mpt_alibi_tensor``) with
  ``alibi_bias_max`` = B: with Q = 2^⌈log₂ n⌉ and e_k = B·k/Q (k = 1 … Q), the even k first,
  then the odd k, the first n of them.

With B = 8 the two rules give the same slopes for every n (e_k = 8k/Q: the even k are the
slopes of Q/2 = P, the odd k are every other slope of Q = 2P); they differ only when B ≠ 8
(:func:`slope_difference`, proved in :mod:`posproof.proofs.alibi`).

>>> alibi(3).exponents
(Fraction(4, 1), Fraction(8, 1), Fraction(2, 1))
>>> [str(s) for s in alibi(3).slopes]
['1/16', '1/256', '1/4']
>>> alibi(3, "mpt").exponents == alibi(3).exponents
True
>>> slope_difference(6, 16)[0]
(0, Fraction(2, 1), Fraction(4, 1))
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import Any

import numpy as np
import sympy as sp

from ..errors import InvalidParameter, UnknownName, check_int

__all__ = [
    "ALIBI_RULES",
    "MAX_BIAS_MAX",
    "MAX_HEADS",
    "Alibi",
    "alibi",
    "alibi_config_kind",
    "alibi_from_config",
    "exact_slope",
    "exponents",
    "is_power_of_two",
    "mpt_exponents",
    "reference_exponents",
    "slope_difference",
]

#: The rules :func:`alibi` knows.
ALIBI_RULES = ("reference", "mpt")
#: Largest head count accepted (the exact slopes are cheap, but a bound keeps input sane).
MAX_HEADS = 1 << 12


def is_power_of_two(n: int) -> bool:
    """``True`` when n = 2^a, a ≥ 0 (exact, on integers).

    >>> [n for n in range(1, 10) if is_power_of_two(n)]
    [1, 2, 4, 8]
    """
    return n >= 1 and n & (n - 1) == 0


def _heads(n_heads: object) -> int:
    n = check_int("n_heads", n_heads, maximum=MAX_HEADS)
    if n < 1:
        raise InvalidParameter(f"n_heads={n}: ALiBi needs at least one head; pass n_heads >= 1")
    return n


#: Largest alibi_bias_max accepted: every slope 2^(−e) with e ≤ B stays a normal float64
#: (MPT uses 8; a larger B only makes the last heads' slopes vanish).
MAX_BIAS_MAX = 1000
#: Largest denominator of alibi_bias_max (a decimal with at most 6 digits after the point):
#: keeps every exponent B·k/Q a small exact rational.
MAX_BIAS_DENOMINATOR = 10**6
_NUMBER = re.compile(r"[+-]?(\d{1,30}(\.\d{0,30})?|\.\d{1,30})([eE][+-]?\d{1,12})?"
                     r"|\d{1,30}/\d{1,30}")


def _bias_max(value: object) -> Fraction:
    """alibi_bias_max as an exact rational in (0, 1000] with denominator ≤ 10⁶, else refused.

    Parsed without building any large integer (the text is checked first), so
    ``1e-100000`` or ``1e1000000000`` is refused in one line, not computed.

    >>> _bias_max("8"), _bias_max(0.5), _bias_max("1/3")
    (Fraction(8, 1), Fraction(1, 2), Fraction(1, 3))
    >>> _bias_max("1e9")
    Traceback (most recent call last):
    ...
    posproof.errors.InvalidParameter: alibi_bias_max='1e9' is out of range: pass 0 < alibi_bias_max <= 1000 (MPT's default is 8)
    """  # noqa: E501
    hint = "pass a positive number such as 8 (MPT's default)"
    if isinstance(value, bool):
        raise InvalidParameter(f"alibi_bias_max={value!r} is not a number; {hint}")
    if isinstance(value, Fraction):
        out = value
    elif isinstance(value, int):
        if value.bit_length() > 64:
            raise InvalidParameter("alibi_bias_max is an integer of "
                                   f"{value.bit_length()} bits: out of range: pass 0 < "
                                   f"alibi_bias_max <= {MAX_BIAS_MAX} (MPT's default is 8)")
        out = Fraction(value)
    else:
        text = repr(value) if isinstance(value, float) else str(value)
        text = text.strip()
        if len(text) > 64 or not _NUMBER.fullmatch(text):
            shown = text if len(text) <= 64 else text[:60] + "…"
            raise InvalidParameter(f"alibi_bias_max={shown!r} is not a number; {hint}")
        _, _, exp = text.lower().partition("e")
        if exp and abs(int(exp)) > 30:
            raise InvalidParameter(f"alibi_bias_max={text!r} is out of range: pass 0 < "
                                   f"alibi_bias_max <= {MAX_BIAS_MAX} (MPT's default is 8)")
        try:
            out = Fraction(text)
        except (ValueError, ZeroDivisionError):
            raise InvalidParameter(f"alibi_bias_max={text!r} is not a number; {hint}") from None
    shown = value if not isinstance(value, Fraction) else str(value)
    if not 0 < out <= MAX_BIAS_MAX:
        raise InvalidParameter(f"alibi_bias_max={shown!r} is out of range: pass 0 < "
                               f"alibi_bias_max <= {MAX_BIAS_MAX} (MPT's default is 8)")
    if out.denominator > MAX_BIAS_DENOMINATOR:
        raise InvalidParameter(f"alibi_bias_max={shown!r} needs a denominator above 10^6; pass "
                               "a decimal with at most 6 digits after the point (or p/q, "
                               "q <= 10^6)")
    return out


def exact_slope(e: Fraction) -> sp.Expr:
    """2^(−e) as an exact SymPy number, built without SymPy's root search (cheap for any
    exact e ≥ 0): 2^(−⌈e⌉)·2^(⌈e⌉ − e), SymPy's own canonical form.

    >>> exact_slope(Fraction(1, 4)), exact_slope(Fraction(8))
    (2**(3/4)/2, 1/256)
    """
    if e.denominator == 1:
        return sp.Rational(1, 1 << e.numerator) if e >= 0 else sp.Integer(1 << -e.numerator)
    c = -((-e.numerator) // e.denominator)                 # ⌈e⌉
    r = Fraction(c) - e                                   # in (0, 1)
    root = sp.Pow(sp.Integer(2), sp.Rational(r.numerator, r.denominator), evaluate=False)
    if c == 0:
        return root
    scale = sp.Rational(1, 1 << c) if c > 0 else sp.Integer(1 << -c)
    return sp.Mul(scale, root, evaluate=False)


def reference_exponents(n_heads: int) -> tuple[Fraction, ...]:
    """The exponents e_h (slope 2^(−e_h)) of the ALiBi paper's ``get_slopes``.

    >>> reference_exponents(4)
    (Fraction(2, 1), Fraction(4, 1), Fraction(6, 1), Fraction(8, 1))
    >>> reference_exponents(6)[4:]
    (Fraction(1, 1), Fraction(3, 1))
    """
    n = _heads(n_heads)
    p = 1 << (n.bit_length() - 1)                       # the next lower power of two
    low = [Fraction(8 * k, p) for k in range(1, p + 1)]
    high = [Fraction(8 * k, 2 * p) for k in range(1, 2 * p + 1, 2)]
    return tuple(low + high[:n - p])


def mpt_exponents(n_heads: int, alibi_bias_max: object = 8) -> tuple[Fraction, ...]:
    """The exponents of MPT's ``gen_slopes(n_heads, alibi_bias_max)``.

    >>> mpt_exponents(3, 16)
    (Fraction(8, 1), Fraction(16, 1), Fraction(4, 1))
    """
    n = _heads(n_heads)
    bmax = _bias_max(alibi_bias_max)
    q = 1 << (n - 1).bit_length()                       # the next higher power of two
    all_e = [bmax * k / q for k in range(1, q + 1)]
    if q == n:
        return tuple(all_e)
    return tuple((all_e[1::2] + all_e[::2])[:n])


def exponents(n_heads: int, rule: str = "reference", alibi_bias_max: object = 8
              ) -> tuple[Fraction, ...]:
    """The exponents of ``rule`` (``reference`` or ``mpt``); ``reference`` has B = 8 only."""
    if rule == "reference":
        if _bias_max(alibi_bias_max) != 8:
            raise InvalidParameter(f"alibi_bias_max={alibi_bias_max!r} is an MPT parameter; "
                                   "the reference rule has 8 only: pass rule='mpt'")
        return reference_exponents(n_heads)
    if rule == "mpt":
        return mpt_exponents(n_heads, alibi_bias_max)
    raise UnknownName(f"rule={rule!r} is not an ALiBi rule; use one of {', '.join(ALIBI_RULES)}")


def slope_difference(n_heads: int, alibi_bias_max: object = 8
                     ) -> list[tuple[int, Fraction, Fraction]]:
    """(head, reference exponent, MPT exponent) for every head where the two rules differ.

    >>> slope_difference(12)
    []
    """
    ref, mpt = reference_exponents(n_heads), mpt_exponents(n_heads, alibi_bias_max)
    return [(h, a, b) for h, (a, b) in enumerate(zip(ref, mpt, strict=True)) if a != b]


@dataclass(frozen=True)
class Alibi:
    """The ALiBi bias of ``n_heads`` heads under ``rule``: slopes exact, bias −m_h·(i − j)."""

    n_heads: int
    rule: str = "reference"
    alibi_bias_max: Fraction = Fraction(8)

    @cached_property
    def exponents(self) -> tuple[Fraction, ...]:
        """e_h with slope m_h = 2^(−e_h), exact rationals."""
        return exponents(self.n_heads, self.rule, self.alibi_bias_max)

    @cached_property
    def slopes(self) -> tuple[sp.Expr, ...]:
        """The slopes m_h = 2^(−e_h) as exact SymPy numbers."""
        return tuple(exact_slope(e) for e in self.exponents)

    def slopes_array(self) -> np.ndarray:
        """The slopes in float64 (each within one float64 ulp: 2^(−e) with e exact)."""
        return np.exp2(-np.array([float(e) for e in self.exponents], dtype=np.float64))

    def bias(self, head: int, i: Any, j: Any) -> sp.Expr:
        """The exact bias −m_h·(i − j) of head ``head`` (0-based), query i, key j."""
        h = check_int("head", head, minimum=0, maximum=self.n_heads - 1)
        return -self.slopes[h] * (sp.sympify(i) - sp.sympify(j))

    def to_dict(self) -> dict[str, Any]:
        return {"name": "alibi", "rule": self.rule, "n_heads": self.n_heads,
                "alibi_bias_max": str(self.alibi_bias_max),
                "slopes": [str(s) for s in self.slopes]}


def alibi(n_heads: object, rule: str = "reference", alibi_bias_max: object = 8) -> Alibi:
    """The ALiBi preset: ``alibi(12)`` (BLOOM / the paper), ``alibi(12, "mpt", 8)`` (MPT).

    >>> alibi(0)
    Traceback (most recent call last):
    ...
    posproof.errors.InvalidParameter: n_heads=0: ALiBi needs at least one head; pass n_heads >= 1
    """
    out = Alibi(_heads(n_heads), rule, _bias_max(alibi_bias_max))
    out.exponents  # noqa: B018 - validate the rule now, not at first use
    return out


def alibi_config_kind(cfg: Any) -> str | None:
    """Which ALiBi model a config dict describes: ``"mpt"``, ``"bloom"``, ``"falcon"``, or
    ``None`` when it uses no ALiBi.

    MPT: ``attn_config.alibi`` true (or ``model_type`` mpt without the key, HF's default);
    Falcon (and the older RefinedWeb configs): a top-level ``alibi`` true (false: Falcon's
    rotary, so ``None`` even though its config also carries ``rope_theta``); BLOOM:
    ``model_type`` bloom (or ``n_head`` with BLOOM's ``apply_residual_connection_post_layernorm``
    and no ``alibi`` key).

    >>> alibi_config_kind({"model_type": "falcon", "alibi": True, "num_attention_heads": 8})
    'falcon'
    >>> alibi_config_kind({"model_type": "falcon", "alibi": False, "rope_theta": 10000.0})
    >>> alibi_config_kind({"model_type": "mpt", "attn_config": {"alibi": False}})
    >>> alibi_config_kind({"model_type": "bloom", "n_head": 16}), alibi_config_kind([])
    ('bloom', None)
    """
    if not isinstance(cfg, dict):
        return None
    kind = str(cfg.get("model_type", "")).lower()
    attn = cfg.get("attn_config") if isinstance(cfg.get("attn_config"), dict) else {}
    if "alibi" in attn:
        return "mpt" if attn["alibi"] is True else None
    if kind == "mpt":
        return "mpt"
    if "alibi" in cfg:
        return "falcon" if cfg["alibi"] is True else None
    if kind == "bloom" or ("n_head" in cfg and cfg.get("apply_residual_connection_post_layernorm"
                                                      ) is not None):
        return "bloom"
    return None


def alibi_from_config(cfg: dict[str, Any]) -> Alibi:
    """The ALiBi of an HF config dict: MPT (``attn_config.alibi``, ``n_heads``,
    ``attn_config.alibi_bias_max``), BLOOM (``model_type`` bloom, ``n_head``) or Falcon
    (``alibi`` true, ``num_attention_heads`` or ``n_head``; HF's Falcon builds BLOOM's
    bias, the reference rule).  :func:`alibi_config_kind` says which.

    >>> alibi_from_config({"model_type": "mpt", "n_heads": 12,
    ...                    "attn_config": {"alibi": True, "alibi_bias_max": 8}}).rule
    'mpt'
    >>> alibi_from_config({"model_type": "falcon", "alibi": True, "num_attention_heads": 4}
    ...                   ).exponents
    (Fraction(2, 1), Fraction(4, 1), Fraction(6, 1), Fraction(8, 1))
    >>> alibi_from_config({"model_type": "llama"})
    Traceback (most recent call last):
    ...
    posproof.errors.InvalidParameter: config (model_type 'llama') has no ALiBi: expected an MPT config with attn_config.alibi true, a BLOOM config or a Falcon config with alibi true
    """  # noqa: E501
    if not isinstance(cfg, dict):
        raise InvalidParameter("config is not a JSON object; pass a model config.json")
    found = alibi_config_kind(cfg)
    attn = cfg.get("attn_config") if isinstance(cfg.get("attn_config"), dict) else {}
    if found == "mpt":
        heads = cfg.get("n_heads", cfg.get("num_attention_heads"))
        return alibi(heads, "mpt", attn.get("alibi_bias_max", 8))
    if found == "bloom":
        return alibi(cfg.get("n_head", cfg.get("num_attention_heads")))
    if found == "falcon":
        return alibi(cfg.get("num_attention_heads", cfg.get("n_head")))
    if attn.get("alibi") is False:
        raise InvalidParameter("config has attn_config.alibi = false: this MPT uses no ALiBi")
    if cfg.get("alibi") is False:
        raise InvalidParameter("config has alibi = false: this model uses rotary embeddings, "
                               "not ALiBi (drop --alibi)")
    raise InvalidParameter(f"config (model_type {cfg.get('model_type')!r}) has no ALiBi: "
                           "expected an MPT config with attn_config.alibi true, a BLOOM config "
                           "or a Falcon config with alibi true")
