"""The pytest plugin: marker, fixtures and options, run in throw-away pytest sessions."""

from __future__ import annotations

from importlib.metadata import entry_points

import pytest

pytest_plugins = ["pytester"]


def plugin_args() -> list[str]:
    """``-p posproof.testing.pytest_plugin`` unless the installed entry point already loads it."""
    installed = any(ep.name == "posproof" for ep in entry_points(group="pytest11"))
    return [] if installed else ["-p", "posproof.testing.pytest_plugin"]


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest(*plugin_args(), "-p", "no:cacheprovider", *args)


TESTS = '''
import numpy as np
import pytest
import posproof


@pytest.mark.posproof("vaswani", dim=32, base=10000)
def test_table_passes(posproof_check, posproof_spec):
    assert posproof_spec.dim == 32
    posproof_check(posproof.preset("vaswani", dim=32).table(300))


@pytest.mark.posproof("vaswani", dim=32)
def test_swapped_table_fails(posproof_check):
    posproof_check(posproof.preset("vaswani", dim=32, layout="interleaved-cos").table(300))


@pytest.mark.posproof("rope", head_dim=16, base=10000, layout="adjacent")
def test_rope_passes(posproof_check):
    posproof_check(posproof.rotary(10000, 16, layout="adjacent").apply)


@pytest.mark.posproof("rope", head_dim=16)
def test_flipped_rope_fails(posproof_check):
    rot = posproof.rotary(10000, 16)
    posproof_check(lambda x, pos: rot.apply(x, -pos))


def test_default_spec(posproof_spec, posproof_options):
    assert posproof_spec.dim == 512 and posproof_spec.name == "vaswani"
    print("OPTIONS", posproof_options.max_len, posproof_options.seed)


@pytest.mark.posproof("vaswani", dim=16)
def test_callable_uses_max_len(posproof_check):
    seen = []

    def impl(pos):
        seen.append(int(pos.max()))
        return posproof.preset("vaswani", dim=16).table(pos)

    posproof_check(impl)
    print("MAXPOS", max(seen))
'''


def test_marker_fixtures_and_explanations(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_impl=TESTS)
    result = run(pytester, "--strict-markers", "-s", "--posproof-max-len", "1000")
    result.assert_outcomes(passed=4, failed=2)
    result.stdout.fnmatch_lines([
        "*posproof: max_len=1000, max_position=65536, seed=0*",
        "*OPTIONS 1000 0*",
        "*MAXPOS 999*",
        "*AssertionError: impl disagrees with preset(\"vaswani\", dim=32)*",
        "*most likely: matches the spec with sin and cos swapped*",
        "*most likely: rotation direction is flipped*",
    ])
    # the failure points at the user's line, not at the plugin's internals
    assert "posproof_check(posproof.preset(\"vaswani\", dim=32, layout=" in result.stdout.str()


def test_ini_option_and_marker_registration(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nposproof_max_len = 300\n")
    pytester.makepyfile(test_ini='''
def test_options(posproof_options):
    assert posproof_options.max_len == 300
''')
    run(pytester, "--strict-markers").assert_outcomes(passed=1)
    result = run(pytester, "--markers")
    result.stdout.fnmatch_lines(["*@pytest.mark.posproof(spec='vaswani', **params)*"])
    result = run(pytester, "--help")
    result.stdout.fnmatch_lines(["*--posproof-max-len=L*"])


def test_bad_marker_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_bad='''
import pytest

@pytest.mark.posproof("no-such-preset", dim=8)
def test_x(posproof_spec):
    pass
''')
    result = run(pytester)
    assert result.ret != 0
    result.stdout.fnmatch_lines(["*preset='no-such-preset' is not known*"])


ANGLES = '''
import numpy as np
import pytest
import posproof


@pytest.mark.posproof("vaswani", dim=32)
def test_float32_angles(posproof_check, posproof_options):
    enc = posproof.preset("vaswani", dim=32)
    x = np.arange(3000, dtype=np.float32)[:, None] * enc.frequencies_float.astype(np.float32)
    table = np.empty((3000, 32), np.float32)
    table[:, 0::2], table[:, 1::2] = np.sin(x), np.cos(x)
    print("TOLERANCE", posproof_check(table).tolerance["angles"])
'''


def test_angles_option(pytester: pytest.Pytester) -> None:
    """The plugin uses the same rule as assert_encoding: float32 angles fail by default, with
    the message naming angles=, and pass with --posproof-angles float32."""
    pytester.makepyfile(test_angles=ANGLES)
    result = run(pytester, "-s")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(['*pass angles="float32"*'])
    result = run(pytester, "-s", "--posproof-angles", "float32")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*angles=float32*", "*TOLERANCE float32*"])
    result = run(pytester, "--posproof-angles", "float8")
    assert result.ret != 0
    result.stderr.fnmatch_lines(["*--posproof-angles: angles='float8' is not a dtype name*"])


def test_bad_option_value(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_opt="def test_x(posproof_options):\n    pass\n")
    result = run(pytester, "--posproof-max-len", "0")
    assert result.ret != 0
    result.stderr.fnmatch_lines(["*--posproof-max-len=0 must be >= 1*"])
