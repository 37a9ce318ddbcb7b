"""posproof: prove, refute and measure claims about positional encodings."""

from .checks import CHECKS, check
from .configs import RopeConfig, parse_spec, read_config
from .encoding import Encoding
from .errors import InvalidEncoding, InvalidExpression, InvalidParameter, PosproofError, UnknownName
from .explore import base_bound, explore
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
from .rope import Rotary, prove_rotary, rotary
from .scaling import (
    DynamicNTKScaling,
    LinearScaling,
    Llama3Scaling,
    LongRoPEScaling,
    NTKScaling,
    YaRNScaling,
    make_scaling,
)
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
    "CHECKS", "LAYOUTS", "PRESETS", "BinaryDials", "Check", "Diffusion", "DynamicNTKScaling",
    "Encoding", "Explicit", "Expression", "Geometric", "InvalidEncoding", "InvalidExpression",
    "InvalidParameter", "LinearScaling", "Llama3Scaling", "LongRoPEScaling", "NTKScaling",
    "OffsetKernel", "PosproofError", "Proof", "Report", "RopeConfig", "Rotary", "Schedule",
    "Step", "TensorToTensor", "UnknownName", "YaRNScaling", "base_bound", "check", "explore",
    "first_unrepresentable_integer", "get_layout", "gram_is_toeplitz", "lambdify_encoding",
    "make_scaling", "parse_spec", "permutation", "preset", "prove", "prove_rotary",
    "read_config", "rotary", "translation_matrix",
]
