"""Shared test configuration: Hypothesis profiles, the mpmath-state guard, helpers.

Hypothesis profiles:

- ``default``: a modest number of random examples for a quick local run;
- ``ci``: a fixed example count, derandomized (the same examples on every run,
  so a red CI run is reproducible), no deadline (SymPy and mpmath have slow
  first calls), no example database.  Selected when the environment variable
  ``CI`` is set;
- ``thorough``: many more examples, for hunting bugs before a release.

``HYPOTHESIS_PROFILE=name`` overrides the choice.
"""

from __future__ import annotations

import contextlib
import os
import signal
import warnings
from collections.abc import Iterator

import mpmath
import pytest
from hypothesis import HealthCheck, settings

import posproof

# The façade is lazy (a command's --help imports no SymPy: tests/test_startup.py runs it in
# subprocesses). Tests reach modules as attributes (``posproof.measure.checks.run_checks``)
# whichever test ran first: load every public name once, as the eager façade did.
for _name in posproof.__all__:
    getattr(posproof, _name)

# When a property fails, Hypothesis's pytest plugin imports its patch writer (libcst),
# which triggers a DeprecationWarning from mypy_extensions in this environment; with
# warnings as errors that turns a readable failure into an INTERNALERROR.  Import it
# once here, with that one warning ignored.
with warnings.catch_warnings(), contextlib.suppress(ImportError):
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    import hypothesis.extra._patching  # noqa: F401

settings.register_profile(
    "default",
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "ci",
    max_examples=25,
    derandomize=True,
    deadline=None,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "thorough",
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI")
                                                               else "default"))


def global_state() -> dict[str, object]:
    """The process-wide state posproof must never change: mpmath's context, NumPy's error
    handling, print options and global random state, matplotlib's rcParams, backend and
    pyplot figures (the last two only once matplotlib is imported)."""
    import sys

    import numpy as np

    rng = np.random.get_state()
    state: dict[str, object] = {
        "mpmath": (mpmath.mp.prec, mpmath.mp.dps, mpmath.mp.pretty, mpmath.mp.trap_complex),
        "numpy.errstate": np.geterr(),
        "numpy.printoptions": {k: v for k, v in np.get_printoptions().items()
                               if k != "override_repr"},
        "numpy.random": (rng[0], rng[1].tobytes(), *rng[2:]),
    }
    if "matplotlib" in sys.modules:
        import matplotlib

        state["matplotlib.rcParams"] = {k: repr(v) for k, v in matplotlib.rcParams.items()
                                        if k != "backend"}
        state["matplotlib.backend"] = dict.__getitem__(matplotlib.rcParams, "backend")
    if "matplotlib.pyplot" in sys.modules:
        state["pyplot.figures"] = sys.modules["matplotlib.pyplot"].get_fignums()
    return state


# --------------------------------------------------------------------------- the two tiers
# The full suite (`python -m pytest -n 2`, what .ci/run runs) and the fast tier
# (`python -m pytest -m "not slow" -n 2`): a test marked ``slow`` runs only in the full one.
# The tests below are in files other work owns at the moment; they are marked here, by what
# makes them slow, instead of with a decorator in their file.
def _full_tier_only(item: pytest.Item) -> str | None:
    """Why ``item`` runs only in the full tier, or None."""
    if item.path.name == "test_docs.py" and "fresh" in getattr(item, "fixturenames", ()):
        return "regenerates every committed document and figure (scripts/gen_docs.py)"
    return None


@pytest.hookimpl(tryfirst=True)      # before -m deselects by marker
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if _full_tier_only(item):
            item.add_marker(pytest.mark.slow)
    if os.environ.get("PYTEST_XDIST_WORKER"):
        # Under pytest-xdist the long tests start first, so that the many short ones fill the
        # other worker instead of one worker finishing alone (the same order in every worker).
        items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.fixture(autouse=True)
def _global_state_unchanged() -> Iterator[None]:
    """Every test leaves global mpmath, NumPy and matplotlib state as it found it
    (posproof works in local contexts: ``mpmath.workdps``, explicit Figures, ``rc_context``)."""
    before = global_state()
    yield
    after = global_state()
    mpmath.mp.prec = before["mpmath"][0]  # restore first, so one leak does not fail every test
    changed = {k: (before.get(k), after[k]) for k in after
               if k in before and before[k] != after[k]}
    assert not changed, f"global state changed by this test: {sorted(changed)}"


class Timeout(BaseException):
    """Raised inside a :func:`time_limit` block that ran too long; a BaseException, so that
    no ``except Exception`` in the code under test can swallow it."""


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Interrupt the block with :class:`Timeout` after ``seconds`` (main thread, POSIX).

    For inputs that must be refused at once (exponent towers): a hang becomes a
    failure that costs ``seconds``, not a stuck suite.
    """
    def handler(signum: int, frame: object) -> None:
        raise Timeout(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, handler)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture
def limit() -> object:
    """The :func:`time_limit` context manager, for tests that must not hang."""
    return time_limit
