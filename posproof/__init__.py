"""posproof: prove, refute and measure claims about positional encodings."""

from .encoding import Encoding
from .errors import InvalidEncoding, InvalidExpression, InvalidParameter, PosproofError, UnknownName
from .layouts import LAYOUTS, get_layout, permutation
from .presets import PRESETS, preset
from .report import Check, Proof, Report, Step
from .schedules import BinaryDials, Diffusion, Explicit, Expression, Geometric, Schedule, TensorToTensor
from .theorems import prove

__version__ = "0.1.0"

__all__ = [
    "LAYOUTS", "PRESETS", "BinaryDials", "Check", "Diffusion", "Encoding", "Explicit",
    "Expression", "Geometric", "InvalidEncoding", "InvalidExpression", "InvalidParameter",
    "PosproofError", "Proof", "Report", "Schedule", "Step", "TensorToTensor", "UnknownName",
    "get_layout", "permutation", "preset", "prove",
]
