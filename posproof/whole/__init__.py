"""Whole models: positions checked end to end (issue 23).

A tiny model built from a Hugging Face config (or a user's forward) is checked for
``shift_invariance``, ``kv_cache``, ``left_padding`` and ``cache_boundary``: structural
properties that hold or fail for any weights, so random float64 weights show them.  Failures
are explained, and an explanation is *confirmed* only when re-running the model with the
hypothesised bug reproduces the difference.

Modules: ``build`` (configs → tiny float64 models), ``runner`` (one interface over a
transformers model and a user's forward), ``checks`` (the four checks, the derived
tolerance), ``explain`` (hypotheses confirmed by regeneration), ``api`` (:func:`check_model`).
"""

from .api import assert_model_positions as assert_model_positions
from .api import check_model as check_model
from .api import load as load
from .build import KNOWN as KNOWN
from .build import MAX_BYTES as MAX_BYTES
from .checks import CHECKS as CHECKS

__all__ = ["CHECKS", "KNOWN", "MAX_BYTES", "assert_model_positions", "check_model", "load"]
