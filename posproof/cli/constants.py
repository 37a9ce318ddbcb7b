"""The names and numbers the parser and ``posproof limits`` show, in a module that imports
nothing: building the parser (``posproof --help``, ``--version``, ``limits``, every
``COMMAND --help``) then imports no SymPy, NumPy, mpmath or python-flint.

Each is a copy of the registry or constant of the module that defines and enforces it, named
beside it; tests/test_startup.py checks that every copy equals its source, so a renamed check
or a changed limit fails the tests rather than the help.
"""

from __future__ import annotations

__all__ = [
    "CHECKS",
    "DEFAULT_MAX_LEN",
    "FIGURES",
    "HIGHEST_BASE",
    "MAX_BIAS_DENOMINATOR",
    "MAX_BIAS_MAX",
    "MAX_CHECK_DIM",
    "MAX_DPS_WORK",
    "MAX_EXPLORE_DIM",
    "MAX_EXPLORE_WORK",
    "MAX_GRID_VALUES",
    "MAX_HEADS",
    "MAX_HEAD_DIM",
    "MAX_LEN",
    "MAX_LENGTH",
    "MAX_SCAN_WORK",
    "MAX_TEXT",
    "MODEL_CHECKS",
    "SOURCES",
]

#: The numeric checks, in their order: ``posproof.measure.checks.CHECKS``.
CHECKS = ("bounds", "separation", "near_return", "periodicity", "translation_residual",
          "toeplitz", "decay", "dtype_audit")
#: The default scan length L of the numeric checks: ``posproof.measure.checks.DEFAULT_MAX_LEN``.
DEFAULT_MAX_LEN = 10**6
#: The figures ``derive`` draws, in order: the names of ``posproof.document.plots.FIGURES``.
FIGURES = ("heatmap", "dot_product", "distance", "curve3d", "gram", "wavelength", "dtype_error")
#: The checks of ``check-model``: ``posproof.whole.checks.CHECKS``.
MODEL_CHECKS = ("shift_invariance", "kv_cache", "left_padding", "cache_boundary")

# The limits of ``posproof limits`` (posproof/cli/limits.py)
MAX_DPS_WORK = 1 << 22           # posproof.measure.checks
MAX_EXPLORE_DIM = 4096           # posproof.measure.explore
MAX_EXPLORE_WORK = 1 << 33       # posproof.measure.explore
MAX_LENGTH = 1 << 24             # posproof.measure.explore
HIGHEST_BASE = 1e15              # posproof.measure.explore.basebound.HIGHEST
MAX_GRID_VALUES = 1 << 28        # posproof.measure.multiaxis
MAX_LEN = 10**9                  # posproof.measure.scan_limits (and measure.numeric)
MAX_SCAN_WORK = 1 << 35          # posproof.measure.scan_limits (and measure.numeric)
MAX_CHECK_DIM = 1 << 15          # posproof.measure.scan_limits
MAX_HEADS = 1 << 12              # posproof.model.alibi
MAX_BIAS_MAX = 1000              # posproof.model.alibi
MAX_BIAS_DENOMINATOR = 10**6     # posproof.model.alibi
MAX_TEXT = 500                   # posproof.model.expressions.MAX_LENGTH
MAX_HEAD_DIM = 512               # posproof.testing.rope.check

#: Each copy above: (module, name) of its source; the name lists are the keys (CHECKS,
#: MODEL_CHECKS) or the ``.name`` (FIGURES) of the source's registry.
SOURCES = {
    "CHECKS": ("posproof.measure.checks", "CHECKS"),
    "DEFAULT_MAX_LEN": ("posproof.measure.checks", "DEFAULT_MAX_LEN"),
    "FIGURES": ("posproof.document.plots", "FIGURES"),
    "MODEL_CHECKS": ("posproof.whole.checks", "CHECKS"),
    "MAX_DPS_WORK": ("posproof.measure.checks", "MAX_DPS_WORK"),
    "MAX_EXPLORE_DIM": ("posproof.measure.explore", "MAX_EXPLORE_DIM"),
    "MAX_EXPLORE_WORK": ("posproof.measure.explore", "MAX_EXPLORE_WORK"),
    "MAX_LENGTH": ("posproof.measure.explore", "MAX_LENGTH"),
    "HIGHEST_BASE": ("posproof.measure.explore.basebound", "HIGHEST"),
    "MAX_GRID_VALUES": ("posproof.measure.multiaxis", "MAX_GRID_VALUES"),
    "MAX_LEN": ("posproof.measure.numeric", "MAX_LEN"),
    "MAX_SCAN_WORK": ("posproof.measure.numeric", "MAX_SCAN_WORK"),
    "MAX_CHECK_DIM": ("posproof.measure.scan_limits", "MAX_CHECK_DIM"),
    "MAX_HEADS": ("posproof.model.alibi", "MAX_HEADS"),
    "MAX_BIAS_MAX": ("posproof.model.alibi", "MAX_BIAS_MAX"),
    "MAX_BIAS_DENOMINATOR": ("posproof.model.alibi", "MAX_BIAS_DENOMINATOR"),
    "MAX_TEXT": ("posproof.model.expressions", "MAX_LENGTH"),
    "MAX_HEAD_DIM": ("posproof.testing.rope.check", "MAX_HEAD_DIM"),
}
