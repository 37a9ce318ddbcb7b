"""posproof: prove, refute and measure claims about positional encodings."""

from .errors import InvalidEncoding, InvalidExpression, InvalidParameter, PosproofError, UnknownName
from .measure.checks import CHECKS, check
from .measure.explore import base_bound, explore
from .measure.numeric import (
    OffsetKernel,
    first_unrepresentable_integer,
    gram_is_toeplitz,
    lambdify_encoding,
    translation_matrix,
)
from .model.configs import RopeConfig, read_config
from .model.encoding import Encoding
from .model.layouts import LAYOUTS, get_layout, permutation
from .model.multiaxis import MultiAxisEncoding, multi_preset
from .model.multirope import MultiAxisRotary, axial_rope, mrope
from .model.presets import PRESETS, preset
from .model.rope import Rotary, rotary
from .model.scaling import (
    DynamicNTKScaling,
    LinearScaling,
    Llama3Scaling,
    LongRoPEScaling,
    NTKScaling,
    YaRNScaling,
    make_scaling,
)
from .model.schedules import (
    BinaryDials,
    Diffusion,
    Explicit,
    Expression,
    Geometric,
    Schedule,
    TensorToTensor,
)
from .model.specs import parse_spec
from .proofs.rotary import prove_rotary
from .proofs.theorems import prove
from .report import Check, Proof, Report, Step
from .version import __version__ as __version__

__all__ = [
    "CHECKS", "LAYOUTS", "PRESETS", "BinaryDials", "Check", "Diffusion", "DynamicNTKScaling",
    "Encoding", "Explicit", "Expression", "Geometric", "InvalidEncoding", "InvalidExpression",
    "InvalidParameter", "LinearScaling", "Llama3Scaling", "LongRoPEScaling", "MultiAxisEncoding",
    "MultiAxisRotary", "NTKScaling", "OffsetKernel", "PosproofError", "Proof", "Report",
    "RopeConfig", "Rotary", "Schedule", "Step", "TensorToTensor", "UnknownName", "YaRNScaling",
    "axial_rope", "base_bound", "check", "explore", "first_unrepresentable_integer",
    "get_layout", "gram_is_toeplitz", "lambdify_encoding", "make_scaling", "mrope",
    "multi_preset", "parse_spec", "permutation", "preset", "prove", "prove_rotary",
    "read_config", "rotary", "translation_matrix",
]

# Old module paths (posproof.numeric, posproof.identify, ...) keep working: see posproof/_moved.py.
from . import _moved

_moved.install(__name__)
