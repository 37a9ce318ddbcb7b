"""Every check of an implementation carries evidence the independent audit re-checks (issue 29
item 3): the deciding entry's exact value against the impl's value and the tolerance, for a
pass ("tolerance − |impl − exact| > 0") and for a fail ("|impl − exact| − tolerance > 0");
evidence the audit refutes turns the verdict unknown; check-impl's verdict line says what the
audit found."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import posproof
from posproof.cli.testing import main as cli_main
from posproof.model.multiaxis import multi_preset
from posproof.model.multirope import mrope
from posproof.model.xpos import XPos
from posproof.testing import check_encoding, check_position_ids, check_rotary, check_t5_buckets
from posproof.testing.bias.t5 import T5Buckets
from posproof.testing.core import audited as core_audited

ENC = posproof.preset("vaswani", dim=32)
ROT = posproof.rotary(10000, 16, layout="half")
MROT = mrope(10000, 16, [4, 2, 2])
GRID = multi_preset("sincos-2d", dim=16)
XP = XPos(8)
T5 = T5Buckets(32, 128)


def _broken_table():
    t = ENC.table(512)
    t[300, 5] += 0.01
    return t


def _xpos(key_bug: bool):
    def fn(x, down):
        return XP.apply(np.asarray(x), np.arange(x.shape[1]), key=False if key_bug else down)
    return fn


def _cumsum(m):
    return np.where(m == 1, np.cumsum(m, -1) - 1, 0)


def _arange(m):
    return np.broadcast_to(np.arange(m.shape[1]), m.shape)


#: (kind, a correct impl's check, a broken impl's check): each returns an ImplReport
KINDS = {
    "vaswani table": (lambda: check_encoding(ENC.table(512), ENC),
                      lambda: check_encoding(_broken_table(), ENC)),
    "vaswani callable": (lambda: check_encoding(lambda p: ENC.table(p), ENC, max_len=4096),
                         lambda: check_encoding(lambda p: ENC.table(p + 2), ENC, max_len=4096)),
    "rope": (lambda: check_rotary(ROT.apply, head_dim=16),
             lambda: check_rotary(lambda x, p: ROT.apply(x, np.asarray(p) * 1.0001),
                                  head_dim=16)),
    "mrope": (lambda: check_rotary(MROT.apply, MROT),
              lambda: check_rotary(lambda x, p: MROT.apply(x, np.asarray(p)[[0, 2, 1]]), MROT)),
    "sincos-2d grid": (
        lambda: check_encoding(GRID.table(GRID.grid((8, 8))), GRID, grid=(8, 8)),
        lambda: check_encoding(GRID.table(GRID.grid((8, 8)))[:, ::-1].copy(), GRID,
                               grid=(8, 8))),
    "xpos": (lambda: check_rotary(_xpos(False), XP), lambda: check_rotary(_xpos(True), XP)),
}


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_correct_impl_passes_on_audited_evidence(kind):
    report = KINDS[kind][0]()
    assert report.status == "pass", report.message
    ev = report.evidence
    assert ev is not None, kind
    assert ev.items, kind
    assert ev.audit is not None
    assert ev.audit.status == "confirmed"
    assert "tolerance − |impl − exact|" in ev.items[0].label


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_broken_impl_fails_on_audited_evidence(kind):
    report = KINDS[kind][1]()
    assert report.status == "fail", kind
    ev = report.evidence
    assert ev is not None, kind
    assert ev.items, kind
    assert ev.audit is not None
    assert ev.audit.status == "confirmed"
    assert "|impl − exact| − tolerance" in ev.items[0].label


def _planted(real):
    """An entry_sign that records a wrong impl value: off by 1 for a pass, the exact value
    itself for a fail (the entry is then within its tolerance)."""
    def wrong(where, exact, impl, tolerance, within):
        value = impl + 1.0 if within else float(sp.N(sp.sympify(exact), 30))
        return real(where, exact, value, tolerance, within)
    return wrong


_MODULES = ("posproof.testing.absolute.check", "posproof.testing.absolute.grid",
            "posproof.testing.rope.check", "posproof.testing.rope.grid",
            "posproof.testing.core.audited")


@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize("which", [0, 1], ids=["correct", "broken"])
def test_planted_wrong_evidence_makes_the_verdict_unknown(kind, which, monkeypatch):
    import importlib

    wrong = _planted(core_audited.entry_sign)
    for name in _MODULES:
        module = importlib.import_module(name)
        if hasattr(module, "entry_sign"):
            monkeypatch.setattr(module, "entry_sign", wrong)
    report = KINDS[kind][which]()
    assert report.status == "unknown", (kind, report.status)
    assert not report.ok
    assert report.evidence.audit.status == "refuted"
    assert report.message.startswith("unknown: the independent audit")
    assert report.to_dict()["status"] == "unknown"


def test_position_ids_rows_carry_integer_evidence_the_audit_recomputes():
    good = check_position_ids(_cumsum, takes="attention_mask", pad_fill=0, use_torch=False)
    bad = check_position_ids(_arange, takes="attention_mask", use_torch=False)
    assert good.ok
    assert not bad.ok
    for report in (good, bad):
        for c in report.checks:
            assert c.evidence.items
            assert c.evidence.audit.status == "confirmed"
    assert {c.status for c in bad.checks} == {"pass", "fail"}


def test_position_ids_planted_wrong_id_is_refuted(monkeypatch):
    import posproof.testing.position_ids as pid

    real = pid._row_evidence

    def wrong(name, real_ids, expect, pads, pad_fill):
        ev = real(name, real_ids, expect, pads, pad_fill)
        item = ev.items[0]
        env = dict(item.env)
        env["id_0"] = env["id_0"] + 1                 # the id recorded is not the impl's
        ev.items[0] = type(item)(item.label, item.expr, item.relation, env=env,
                                 engine=item.engine)
        return ev
    monkeypatch.setattr(pid, "_row_evidence", wrong)
    report = check_position_ids(_cumsum, takes="attention_mask", pad_fill=0, use_torch=False)
    assert [c.status for c in report.checks] == ["unknown"] * len(report.checks)
    assert not report.ok


def _t5_ok(rel, **_):
    return T5.buckets(np.asarray(rel))


def _t5_bad(rel, **_):
    return T5.buckets(np.asarray(rel)) + (np.asarray(rel) == 40)


def test_t5_buckets_carry_integer_evidence_for_pass_and_fail(monkeypatch):
    ok = check_t5_buckets(_t5_ok, use_torch=False).checks[0]
    bad = check_t5_buckets(_t5_bad, use_torch=False).checks[0]
    assert (ok.status, bad.status) == ("pass", "fail")
    for c in (ok, bad):
        assert c.evidence.items
        assert c.evidence.audit.status == "confirmed"
    import posproof.testing.bias.t5 as t5

    real = t5._bucket_sign
    monkeypatch.setattr(t5, "_bucket_sign", lambda spec, d, got, exact, bad: real(
        spec, d, got + 1, exact, bad))                # planted: buckets off by one
    assert check_t5_buckets(_t5_ok, use_torch=False).checks[0].status == "unknown"


CLI_TARGET = """
import numpy as np, posproof
TABLE = posproof.preset("vaswani", dim=32).table(512)
BAD = TABLE.copy(); BAD[300, 5] += 0.01
"""


def test_check_impl_verdict_line_carries_the_audit_clause(tmp_path, capsys, monkeypatch):
    path = tmp_path / "impls.py"
    path.write_text(CLI_TARGET)
    assert cli_main(["check-impl", f"{path}:TABLE"]) == 0
    verdict = capsys.readouterr().out.strip().splitlines()[-1]
    assert verdict.startswith("verdict: OK")
    assert "audit (python-flint arb): 1 confirmed" in verdict
    assert cli_main(["check-impl", f"{path}:BAD"]) == 1
    verdict = capsys.readouterr().out.strip().splitlines()[-1]
    assert verdict.startswith("verdict: CHECK FAILED")
    assert "1 confirmed" in verdict
    import posproof.testing.absolute.check as check

    monkeypatch.setattr(check, "entry_sign", _planted(core_audited.entry_sign))
    assert cli_main(["check-impl", f"{path}:TABLE"]) == 1
    out = capsys.readouterr().out
    assert "unknown: the independent audit" in out
    assert out.strip().splitlines()[-1].startswith("verdict: INCOMPLETE")
    assert "1 refuted" in out.strip().splitlines()[-1]


# ------------------------------------------------------------------ periodicity (item 3)
def test_periodicity_is_unknown_when_the_proof_engine_is_undecided():
    from posproof.measure.checks import run_checks
    from posproof.report import Proof

    enc = posproof.preset("vaswani", dim=8)
    undecided = Proof("periodicity", "PE is periodic", "unknown", note="planted: undecided")
    (c,) = run_checks(enc, max_len=64, checks=["periodicity"], proofs=[undecided])
    assert c.status == "unknown"
    assert "undecided" in c.note
    assert c.evidence.unaudited


def test_periodicity_is_unknown_when_the_period_is_neither_proved_rational_nor_irrational():
    from posproof.measure.checks import run_checks
    from posproof.report import Proof

    enc = posproof.preset("vaswani", dim=8)
    # e + π: whether it is rational is an open problem, so no integer period can be decided
    open_problem = Proof("periodicity", "PE is periodic", "proved", values={"period": "e + pi"},
                         exact=sp.E + sp.pi)
    (c,) = run_checks(enc, max_len=64, checks=["periodicity"], proofs=[open_problem])
    assert c.status == "unknown"
    assert "not proved rational or irrational" in c.note


# ------------------------------------------------------------------ ALiBi
def _alibi_bias(factor: float):
    from posproof.model.alibi import alibi

    slopes = alibi(8).slopes_array() * factor
    i = np.arange(32)
    return -slopes[:, None, None] * np.abs(i[None, :] - i[:, None])[None]


@pytest.mark.parametrize(("factor", "status"), [(1.0, "pass"), (1.02, "fail")])
def test_alibi_pass_and_fail_rest_on_a_sign_the_audit_confirms(factor, status):
    from posproof.testing import check_alibi

    report = check_alibi(_alibi_bias(factor), n_heads=8)
    assert report.status == status
    assert report.evidence.items
    assert report.evidence.audit.status == "confirmed"


@pytest.mark.parametrize("factor", [1.0, 1.02])
def test_alibi_planted_wrong_impl_value_makes_the_verdict_unknown(factor, monkeypatch):
    import posproof.testing.bias.alibi as mod
    from posproof.testing import check_alibi

    real = mod._worst_sign

    def wrong(target, spec):
        sign = real(target, spec)
        env = dict(sign.env)
        env["v"] = float(env["v"]) + 1.0        # a pass recorded one off
        return type(sign)(sign.label, sign.expr, sign.relation, env=env, engine=sign.engine)
    if factor == 1.0:
        monkeypatch.setattr(mod, "_worst_sign", wrong)
        assert check_alibi(_alibi_bias(factor), n_heads=8).status == "unknown"
    else:
        def at_exact(target, spec):
            sign = real(target, spec)
            env = dict(sign.env)
            exact = -sp.sympify(env["m"]) * sp.sympify(env.get("Delta", 0)) if "Delta" in env \
                else sp.sympify(env["m"])
            env["v"] = float(exact)            # the recorded impl value within its bound
            return type(sign)(sign.label, sign.expr, sign.relation, env=env,
                              engine=sign.engine)
        monkeypatch.setattr(mod, "_worst_sign", at_exact)
        report = check_alibi(_alibi_bias(factor), n_heads=8)
        assert report.status == "unknown"
        assert not report.ok


def test_the_worst_entry_sign_reads_the_difference_in_both_directions():
    """entry_sign judges |impl − exact| against the tolerance: an impl above or below the exact
    value by more than the tolerance is refuted as a pass and confirmed as a fail; one within
    it is confirmed as a pass and refuted as a fail."""
    from posproof.audit import decide

    exact = sp.sin(3)
    value = float(sp.N(exact, 30))
    for off in (1e-9, -1e-9):
        assert decide(core_audited.entry_sign("p", exact, value + off, 1e-12, True))[0] == \
            "refuted", off
        assert decide(core_audited.entry_sign("p", exact, value + off, 1e-12, False))[0] == \
            "confirmed", off
    assert decide(core_audited.entry_sign("p", exact, value, 1e-12, True))[0] == "confirmed"
    assert decide(core_audited.entry_sign("p", exact, value, 1e-12, False))[0] == "refuted"
