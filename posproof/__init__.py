"""posproof: prove, refute and measure claims about positional encodings."""

# python-flint (the independent auditor's Arb) is installed with posproof, and SymPy picks
# it up as its integer type when it finds it ("auto" ground types); SymPy is tested less
# with it (its perfect-power search overflows on fmpz integers of 300+ digits). posproof's
# engine is tested on SymPy's own ground types, so unless the user chose (or SymPy is
# already imported), keep what SymPy used before flint was around: gmpy2 if installed,
# else pure Python. The auditor uses flint directly and does not need SymPy to.
import importlib as _importlib
import importlib.util as _util
import os as _os
import sys as _sys
import typing as _typing

if "sympy" not in _sys.modules:
    _os.environ.setdefault("SYMPY_GROUND_TYPES",
                           "gmpy" if _util.find_spec("gmpy2") is not None else "python")

from . import _moved
from .version import __version__ as __version__

# The façade is lazy (PEP 562): ``import posproof`` imports no SymPy, NumPy or mpmath, so the
# command line starts at once (``posproof --help``, ``--version``); a name is imported from its
# defining module the first time it is used (``posproof.prove``, ``from posproof import prove``).
#: Each public name and the module (relative to posproof) that defines it.
_LAZY = {
    **dict.fromkeys(("InvalidEncoding", "InvalidExpression", "InvalidParameter",
                     "PosproofError", "UnknownName"), "errors"),
    **dict.fromkeys(("CHECKS", "check"), "measure.checks"),
    **dict.fromkeys(("base_bound", "explore"), "measure.explore"),
    **dict.fromkeys(("GridKernel", "check_grid"), "measure.multiaxis"),
    **dict.fromkeys(("OffsetKernel", "first_unrepresentable_integer", "gram_is_toeplitz",
                     "lambdify_encoding", "translation_matrix"), "measure.numeric"),
    "xpos_scale_limits": "measure.xpos",
    **dict.fromkeys(("Alibi", "alibi"), "model.alibi"),
    **dict.fromkeys(("RopeConfig", "read_config"), "model.configs"),
    "Encoding": "model.encoding",
    **dict.fromkeys(("LAYOUTS", "get_layout", "permutation"), "model.layouts"),
    **dict.fromkeys(("MultiAxisEncoding", "multi_preset"), "model.multiaxis"),
    **dict.fromkeys(("MultiAxisRotary", "axial_rope", "mrope"), "model.multirope"),
    **dict.fromkeys(("PRESETS", "preset"), "model.presets"),
    **dict.fromkeys(("Rotary", "rotary"), "model.rope"),
    **dict.fromkeys(("DynamicNTKScaling", "LinearScaling", "Llama3Scaling", "LongRoPEScaling",
                     "NTKScaling", "YaRNScaling", "make_scaling"), "model.scaling"),
    **dict.fromkeys(("BinaryDials", "Diffusion", "Explicit", "Expression", "Geometric",
                     "Schedule", "TensorToTensor"), "model.schedules"),
    "parse_spec": "model.specs",
    **dict.fromkeys(("T5Buckets", "t5_buckets"), "model.t5_buckets"),
    "XPos": "model.xpos",
    "prove_alibi": "proofs.alibi",
    "prove_multi": "proofs.multiaxis",
    "prove_permutation": "proofs.permutation",
    "prove_rotary": "proofs.rotary",
    "prove_t5": "proofs.t5",
    "prove": "proofs.theorems",
    "prove_xpos": "proofs.xpos",
    **dict.fromkeys(("Check", "Proof", "Report", "Step"), "report"),
}

if _typing.TYPE_CHECKING:  # what a type checker and an IDE see: the eager imports
    from .errors import (
        InvalidEncoding,
        InvalidExpression,
        InvalidParameter,
        PosproofError,
        UnknownName,
    )
    from .measure.checks import CHECKS, check
    from .measure.explore import base_bound, explore
    from .measure.multiaxis import GridKernel, check_grid
    from .measure.numeric import (
        OffsetKernel,
        first_unrepresentable_integer,
        gram_is_toeplitz,
        lambdify_encoding,
        translation_matrix,
    )
    from .measure.xpos import xpos_scale_limits
    from .model.alibi import Alibi, alibi
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
    from .model.t5_buckets import T5Buckets, t5_buckets
    from .model.xpos import XPos
    from .proofs.alibi import prove_alibi
    from .proofs.multiaxis import prove_multi
    from .proofs.permutation import prove_permutation
    from .proofs.rotary import prove_rotary
    from .proofs.t5 import prove_t5
    from .proofs.theorems import prove
    from .proofs.xpos import prove_xpos
    from .report import Check, Proof, Report, Step


def __getattr__(name: str) -> object:
    """A public name, imported from its defining module on first use (then cached)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(_importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "CHECKS", "LAYOUTS", "PRESETS", "Alibi", "BinaryDials", "Check", "Diffusion",
    "DynamicNTKScaling", "Encoding", "Explicit", "Expression", "Geometric", "GridKernel",
    "InvalidEncoding", "InvalidExpression", "InvalidParameter", "LinearScaling", "Llama3Scaling",
    "LongRoPEScaling", "MultiAxisEncoding", "MultiAxisRotary", "NTKScaling", "OffsetKernel",
    "PosproofError", "Proof", "Report", "RopeConfig", "Rotary", "Schedule", "Step", "T5Buckets",
    "TensorToTensor", "UnknownName", "XPos", "YaRNScaling", "alibi", "axial_rope", "base_bound",
    "check", "check_grid", "explore", "first_unrepresentable_integer", "get_layout",
    "gram_is_toeplitz", "lambdify_encoding", "make_scaling", "mrope", "multi_preset",
    "parse_spec", "permutation", "preset", "prove", "prove_alibi", "prove_multi",
    "prove_permutation", "prove_rotary", "prove_t5", "prove_xpos", "read_config", "rotary",
    "t5_buckets", "translation_matrix", "xpos_scale_limits",
]

# Old module paths (posproof.numeric, posproof.identify, ...) keep working: see posproof/_moved.py.
_moved.install(__name__)
