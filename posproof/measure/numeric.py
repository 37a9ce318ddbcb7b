"""The numeric half: lambdified tables, the offset kernel at GEMM speed, error bounds.

Everything here is derived from the exact expressions of an :class:`Encoding` and carries an
explicit error bound, so that :mod:`posproof.measure.checks` can certify the few numbers that
matter in mpmath.  This module gathers the public names of its parts:

* :mod:`~posproof.measure.lambdified` — NumPy code from the exact expressions;
* :mod:`~posproof.measure.translation` — T(Δ) applied pair by pair, and its residual;
* :mod:`~posproof.measure.kernel` — the offset kernel, its error bound, extremes and crossings;
* :mod:`~posproof.measure.gram` — Gram / Toeplitz tests of a table;
* :mod:`~posproof.measure.dtypes` — how float16, bfloat16, float32… round;
* :mod:`~posproof.measure.scan_limits` — the longest scan accepted.
"""

from .dtypes import TRIG_ULPS as TRIG_ULPS
from .dtypes import DtypeModel as DtypeModel
from .dtypes import U as U
from .dtypes import angles_in_dtype as angles_in_dtype
from .dtypes import dtype_model as dtype_model
from .dtypes import first_unrepresentable_integer as first_unrepresentable_integer
from .dtypes import round_to_dtype as round_to_dtype
from .gram import gram_is_toeplitz as gram_is_toeplitz
from .gram import toeplitz_deviation as toeplitz_deviation
from .kernel import CACHE_VALUES as CACHE_VALUES
from .kernel import CHUNK_VALUES as CHUNK_VALUES
from .kernel import Crossing as Crossing
from .kernel import Extreme as Extreme
from .kernel import OffsetKernel as OffsetKernel
from .lambdified import Lambdified as Lambdified
from .lambdified import W as W
from .lambdified import lambdify_encoding as lambdify_encoding
from .lambdified import lambdify_pair as lambdify_pair
from .scan_limits import MAX_LEN as MAX_LEN
from .scan_limits import MAX_SCAN_WORK as MAX_SCAN_WORK
from .scan_limits import check_max_len as check_max_len
from .scan_limits import check_scan as check_scan
from .scan_limits import check_scan_work as check_scan_work
from .translation import MAX_DENSE_DIM as MAX_DENSE_DIM
from .translation import apply_translation as apply_translation
from .translation import rotate_pairs as rotate_pairs
from .translation import translation_blocks as translation_blocks
from .translation import translation_matrix as translation_matrix
from .translation import translation_residual as translation_residual

__all__ = [
    "MAX_DENSE_DIM",
    "MAX_LEN",
    "MAX_SCAN_WORK",
    "Crossing",
    "DtypeModel",
    "Extreme",
    "Lambdified",
    "OffsetKernel",
    "U",
    "angles_in_dtype",
    "apply_translation",
    "check_scan",
    "check_scan_work",
    "dtype_model",
    "first_unrepresentable_integer",
    "gram_is_toeplitz",
    "lambdify_encoding",
    "lambdify_pair",
    "rotate_pairs",
    "round_to_dtype",
    "toeplitz_deviation",
    "translation_blocks",
    "translation_matrix",
    "translation_residual",
]
