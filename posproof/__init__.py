"""posproof: prove, refute and measure claims about positional encodings."""

from .checks import CHECKS, check
from .encoding import Encoding
from .errors import InvalidEncoding, InvalidExpression, InvalidParameter, PosproofError, UnknownName
from .layouts import LAYOUTS, get_layout, permutation
from .numeric import (
    OffsetKernel,
    first_unrepresentable_integer,
    gram_is_toeplitz,
    lambdify_encoding,
    translation_matrix,
)
from .presets import PRESETS, preset
from .report import Check, Proof, Report, Step
from .schedules import (
    BinaryDials,
    Diffusion,
    Explicit,
    Expression,
    Geometric,
    Schedule,
    TensorToTensor,
)
from .theorems import prove

__version__ = "0.1.0"

__all__ = [
    "CHECKS", "LAYOUTS", "PRESETS", "BinaryDials", "Check", "Diffusion", "Encoding", "Explicit",
    "Expression", "Geometric", "InvalidEncoding", "InvalidExpression", "InvalidParameter",
    "OffsetKernel", "PosproofError", "Proof", "Report", "Schedule", "Step", "TensorToTensor",
    "UnknownName", "check", "first_unrepresentable_integer", "get_layout", "gram_is_toeplitz",
    "lambdify_encoding", "permutation", "preset", "prove", "translation_matrix",
]
