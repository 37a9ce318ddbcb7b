"""pytest plugin: fixtures, a marker and options for checking your positional encodings.

Registered by the ``pytest11`` entry point ``posproof`` (or ``-p posproof.testing.pytest_plugin``)::

    import pytest

    @pytest.mark.posproof("vaswani", dim=512, base=10000)
    def test_table(posproof_check):
        posproof_check(model.pos_table)          # assert_encoding against the marker's spec

    @pytest.mark.posproof("rope", head_dim=64, base=500000, layout="half")
    def test_rope(posproof_check):
        posproof_check(apply_rope)               # assert_rotary against the marker's spec

Fixtures: ``posproof_spec`` (the :class:`~posproof.Encoding` or
:class:`~posproof.Rotary` named by the closest ``posproof`` marker; the
original encoding, d = 512, without one), ``posproof_check`` (asserts an
implementation against it) and ``posproof_options``.  Options:
``--posproof-max-len L`` (positions checked for callables, default 8192; ini
``posproof_max_len``), ``--posproof-max-position P`` (largest rotary position,
default 65536), ``--posproof-seed S`` and ``--posproof-angles DTYPE`` (the
implementations form their angles in DTYPE on purpose: ``angles=DTYPE``).

Importing this module is cheap: posproof itself is imported only when a
fixture is used, so the plugin costs nothing in suites that do not use it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

__all__ = ["PosproofOptions", "posproof_check", "posproof_options", "posproof_spec",
           "spec_from_marker"]

_MARKER = ("posproof(spec='vaswani', **params): the specification posproof_spec and "
           "posproof_check use — a preset name with its parameters (dim=, base=, layout=, …), "
           "'rope' with head_dim=, base=, layout=, rotary_dim=, a 'rope:…' spec string, a "
           "multi-axis name ('sincos-2d', 'pe-2d', 'pe-3d' with dim=; 'mrope' with "
           "mrope_section=, 'axial-rope' with axes_dims=), or an Encoding / Rotary object")


@dataclass(frozen=True)
class PosproofOptions:
    """The command-line / ini settings of the plugin.

    >>> PosproofOptions().max_len
    8192
    """

    max_len: int = 8192
    max_position: int = 1 << 16
    seed: int = 0
    angles: str | None = None


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--posproof-max-len``, ``--posproof-max-position``, ``--posproof-seed`` (and ini).

    >>> class Group:
    ...     def addoption(self, *args, **kwargs): print(args[0])
    >>> class Parser:
    ...     def getgroup(self, name, description=""): return Group()
    ...     def addini(self, name, help, default=None): print(name)
    >>> pytest_addoption(Parser())
    --posproof-max-len
    --posproof-max-position
    --posproof-seed
    --posproof-angles
    posproof_max_len
    """
    group = parser.getgroup("posproof", "posproof: positional-encoding checks")
    group.addoption("--posproof-max-len", type=int, default=None, metavar="L",
                    help="positions 0 … L−1 (from the spec's offset) at which posproof_check "
                         "calls a callable implementation (default: ini posproof_max_len, "
                         "else 8192)")
    group.addoption("--posproof-max-position", type=int, default=None, metavar="P",
                    help="largest position of the rotary checks (default 65536)")
    group.addoption("--posproof-seed", type=int, default=None, metavar="S",
                    help="seed of the random positions and vectors (default 0)")
    group.addoption("--posproof-angles", default=None, metavar="DTYPE",
                    help="the implementations form their angles in DTYPE on purpose "
                         "(float32, float16, bfloat16): posproof_check passes angles=DTYPE, "
                         "whose tolerance is its rounding model, 4·eps + eps_DTYPE + γ_k·|x·ω|; "
                         "default: the exact "
                         "table rounded to the impl's dtype")
    parser.addini("posproof_max_len", "default of --posproof-max-len", default="8192")


def pytest_configure(config: pytest.Config) -> None:
    """Register the ``posproof`` marker (so ``--strict-markers`` accepts it).

    >>> class Config:
    ...     def addinivalue_line(self, name, line): print(name, line.split("(")[0])
    >>> pytest_configure(Config())
    markers posproof
    """
    config.addinivalue_line("markers", _MARKER)


def _options(config: pytest.Config) -> PosproofOptions:
    max_len = config.getoption("--posproof-max-len", default=None)
    if max_len is None:
        try:
            max_len = int(config.getini("posproof_max_len"))
        except (ValueError, TypeError):
            raise pytest.UsageError(
                f"posproof_max_len = {config.getini('posproof_max_len')!r} is not an "
                "integer") from None
    max_position = config.getoption("--posproof-max-position", default=None) or (1 << 16)
    seed = config.getoption("--posproof-seed", default=None) or 0
    if max_len < 1:
        raise pytest.UsageError(f"--posproof-max-len={max_len} must be >= 1")
    if max_position < 64:
        raise pytest.UsageError(f"--posproof-max-position={max_position} must be >= 64")
    angles = config.getoption("--posproof-angles", default=None)
    if angles is not None:
        from ..errors import InvalidParameter
        from .absolute.check import angles_name

        try:
            angles = angles_name(angles)
        except InvalidParameter as exc:
            raise pytest.UsageError(f"--posproof-angles: {exc}") from None
    return PosproofOptions(max_len, max_position, seed, angles)


def pytest_report_header(config: pytest.Config) -> str | None:
    """One header line with the settings, shown when the options are used.

    >>> class Config:
    ...     def getoption(self, name, default=None):
    ...         return 4096 if name == "--posproof-max-len" else None
    ...     def getini(self, name): return "8192"
    >>> pytest_report_header(Config())
    'posproof: max_len=4096, max_position=65536, seed=0'
    """
    if any(config.getoption(o, default=None) is not None for o in (
            "--posproof-max-len", "--posproof-max-position", "--posproof-seed",
            "--posproof-angles")):
        o = _options(config)
        angles = f", angles={o.angles}" if o.angles else ""
        return (f"posproof: max_len={o.max_len}, max_position={o.max_position}, "
                f"seed={o.seed}{angles}")
    return None


def spec_from_marker(args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None) -> Any:
    """The Encoding or Rotary a ``posproof`` marker's arguments name.

    >>> spec_from_marker(("vaswani",), {"dim": 8, "base": 100})
    Encoding(vaswani, dim=8, layout=interleaved, base=100, offset=0)
    >>> spec_from_marker(("rope",), {"head_dim": 16, "layout": "adjacent"}).pairs[:2]
    [(0, 1), (2, 3)]
    >>> spec_from_marker()
    Encoding(vaswani, dim=512, layout=interleaved, base=10000, offset=0)
    >>> spec_from_marker(("mrope",), {"head_dim": 16, "mrope_section": [4, 2, 2]}).pair_axes
    (0, 0, 0, 0, 1, 1, 2, 2)
    >>> spec_from_marker(("sincos-2d",), {"dim": 16}).axes
    2
    """
    from ..errors import InvalidParameter
    from ..model.configs import parse_spec
    from ..model.encoding import Encoding
    from ..model.presets import preset
    from ..model.rope import Rotary, rotary

    params = dict(kwargs or {})
    if len(args) > 1:
        raise InvalidParameter(f"@pytest.mark.posproof takes one positional argument (the "
                               f"spec), got {len(args)}: {args!r}")
    spec = args[0] if args else params.pop("spec", "vaswani")
    from ..model.multiaxis import MultiAxisEncoding, is_multi_preset, multi_preset
    from ..model.multirope import MULTI_ROTARIES, MultiAxisRotary, multi_rotary

    if isinstance(spec, str) and spec.lower() in MULTI_ROTARIES:
        return multi_rotary(spec, **params)
    if isinstance(spec, str) and is_multi_preset(spec):
        return multi_preset(spec, **params)
    if isinstance(spec, (Encoding, Rotary, MultiAxisEncoding, MultiAxisRotary)):
        if params:
            raise InvalidParameter(f"@pytest.mark.posproof: parameters {sorted(params)} apply "
                                   "only to a preset name or 'rope'")
        return spec
    if not isinstance(spec, str):
        raise InvalidParameter(f"@pytest.mark.posproof spec={spec!r} is not a preset name, "
                               "'rope', a spec string or an Encoding / Rotary")
    if spec.lower() in ("rope", "rotary"):
        head_dim = params.pop("head_dim", params.pop("dim", 128))
        return rotary(params.pop("base", 10000), head_dim, **params)
    if ":" in spec:
        return parse_spec(spec)
    return preset(spec, dim=params.pop("dim", 512), **params)


@pytest.fixture
def posproof_options(request: pytest.FixtureRequest) -> PosproofOptions:
    """The plugin's settings (``--posproof-max-len`` and friends)."""
    return _options(request.config)


@pytest.fixture
def posproof_spec(request: pytest.FixtureRequest) -> Any:
    """The spec of the closest ``@pytest.mark.posproof(...)``; vaswani, d = 512 without one."""
    from ..errors import PosproofError

    marker = request.node.get_closest_marker("posproof")
    try:
        return spec_from_marker(marker.args if marker else (),
                                dict(marker.kwargs) if marker else {})
    except PosproofError as exc:
        raise pytest.UsageError(f"{request.node.nodeid}: {exc}") from None


@pytest.fixture
def posproof_check(posproof_spec: Any, posproof_options: PosproofOptions
                   ) -> Callable[..., Any]:
    """``posproof_check(impl, **kwargs)``: assert ``impl`` against ``posproof_spec``.

    An :class:`~posproof.Encoding` spec runs :func:`posproof.testing.assert_encoding`
    (``impl`` a table or a callable of positions), a :class:`~posproof.Rotary`
    spec :func:`posproof.testing.assert_rotary` (``impl(x, positions)``); a multi-axis
    spec (``@pytest.mark.posproof("sincos-2d", dim=768)``, ``("mrope", head_dim=128,
    mrope_section=[16, 24, 24])``) the same, a table with ``posproof_check(table,
    grid=(H, W))``, a rotary with positions of shape ``(axes, seq)``.
    Keyword arguments go to those functions (``angles=`` defaults to
    ``--posproof-angles``).  Returns the report.
    """
    from ..model.multirope import MultiAxisRotary
    from ..model.rope import Rotary
    from . import assert_encoding, assert_rotary

    def check(impl: Any, **kwargs: Any) -> Any:
        __tracebackhide__ = True
        kwargs.setdefault("angles", posproof_options.angles)
        if isinstance(posproof_spec, (Rotary, MultiAxisRotary)):
            kwargs.setdefault("max_position", posproof_options.max_position)
            kwargs.setdefault("seed", posproof_options.seed)
            return assert_rotary(impl, posproof_spec, **kwargs)
        kwargs.setdefault("max_len", posproof_options.max_len)
        kwargs.setdefault("seed", posproof_options.seed)
        return assert_encoding(impl, posproof_spec, **kwargs)

    return check
