"""Hand-made mutants of the code that decides verdicts, and the tests that must kill them.

    python scripts/mutants.py                 # every mutant (about 4 minutes on 2 cores)
    python scripts/mutants.py --quick         # the mutants marked quick (CI's full tier)
    python scripts/mutants.py --list          # the mutants, without running anything
    python scripts/mutants.py --only audit-zero-excluding verdict-unknown-theorem
    python scripts/mutants.py --check         # only that every old text occurs exactly once

Each mutant is a file, an exact old text (occurring exactly once in it), a new text, and the
pytest node ids that must fail once the old text is replaced.  The tree is copied to a
temporary directory (tracked and untracked-but-not-ignored files, never the checkout
itself); in the copy, each mutant is written, the named tests run in their own process
group under a timeout (killed as a group when it expires), and the file is restored and
compared with its original before the next mutant.  A mutant is

* ``killed``   — the tests failed (pytest exit status 1);
* ``survived`` — they passed: a test is missing;
* ``timeout``  — no verdict within the timeout (the issue-29 verdict.py mutant ran its tests
  past 300 s): not a kill, the killing test must be fast;
* ``error``    — any other exit status (a collection error, no test collected).

Before the mutants, the named tests run once on the unmutated copy: a test that fails there
kills nothing.  A stale mutant (its old text found 0 or several times, e.g. after the code
was edited) is an error reported before anything runs.  Exit status 0 when every mutant is
killed, 1 when one is not, 2 for a stale mutant or a failing baseline.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Mutant:
    """One change of a verdict-deciding line and the tests that must notice it."""

    id: str
    file: str
    old: str
    new: str
    tests: tuple[str, ...]
    what: str
    quick: bool = False      # in the --quick subset (CI's full tier)


def _m(id: str, file: str, old: str, new: str, tests: Sequence[str], what: str, *,
       quick: bool = False) -> Mutant:
    return Mutant(id, file, old, new, tuple(tests), what, quick)


AUDIT_T = "tests/test_audit.py"
KERNEL_T = "tests/test_kernel_certified.py"
JUDGED_T = "tests/test_judged.py"
CACHE_T = "tests/test_cache_consistency.py"
VALID_T = "tests/test_soundness_validated.py"
ROTMODEL_T = "tests/test_rotary_rounding_model.py"
IMPL_T = "tests/test_impl_evidence.py"
LAYERS_T = "tests/test_whole_layers.py"
TYPES_T = "tests/test_model_types.py"
WEIGHTS_T = "tests/test_whole_weights.py"
ALIBIMODEL_T = "tests/test_alibi_rounding_model.py"
ROTEV_T = "tests/test_rotary_check_evidence.py"
GROUPS_T = "tests/test_audit_groups.py"

MUTANTS: list[Mutant] = [
    # ---------------------------------------------------------------- posproof/verdict.py
    _m("verdict-unknown-theorem", "posproof/verdict.py",
       'ok = bool(theorems or checks) and counts["refuted"] == 0 and counts["unknown"] == 0 \\',
       'ok = bool(theorems or checks) and counts["refuted"] == 0 \\',
       ["tests/test_verdict.py::test_an_unknown_theorem_is_never_ok"],
       "an unknown theorem still gives OK", quick=True),
    _m("verdict-unknown-check", "posproof/verdict.py",
       'and failed == 0 and all(_get(c, "status") == "pass" for c in checks)',
       "and failed == 0",
       ["tests/test_verdict.py::test_an_unknown_check_is_never_ok"],
       "an unknown check still gives OK", quick=True),
    _m("verdict-nothing-decided", "posproof/verdict.py",
       "ok = bool(theorems or checks) and", "ok = True and",
       ["tests/test_verdict.py::test_the_verdict_word_of_a_report"],
       "a verdict with nothing decided is OK"),
    _m("verdict-any-refutation-expected", "posproof/verdict.py",
       '_get(p, "status") == "refuted" and _get(p, "name") in expected',
       '_get(p, "status") == "refuted" and bool(expected)',
       ["tests/test_verdict.py::test_only_the_expected_refutation_counts_apart"],
       "any refutation counts as expected once one name is expected"),
    # ---------------------------------------------------------------- posproof/report.py
    _m("report-ok-ignores-checks", "posproof/report.py",
       "and all(c.ok for c in self.checks)", "and True",
       ["tests/test_verdict.py::test_the_verdict_word_of_a_report"],
       "Report.ok ignores the checks", quick=True),
    _m("report-empty-ok", "posproof/report.py",
       "return bool(self.theorems or self.checks) and all(p.ok",
       "return True and all(p.ok",
       ["tests/test_verdict.py::test_the_verdict_word_of_a_report"],
       "an empty Report is ok"),
    _m("report-sampled-bare-pass", "posproof/report.py",
       'if self.status == "pass" and self.sampled:', "if False:",
       [f"{AUDIT_T}::test_a_sampled_pass_never_prints_as_a_bare_pass"],
       "a sampled pass prints as a bare pass"),
    # ---------------------------------------------------------------- posproof/evidence.py
    _m("evidence-undecided-agrees", "posproof/evidence.py",
       'return self.status in ("confirmed", "nothing to audit")',
       'return self.status != "refuted"',
       [f"{AUDIT_T}::test_an_undecided_audit_turns_a_pass_unknown_and_the_report_not_ok"],
       "an undecided audit agrees with the verdict", quick=True),
    _m("evidence-sample-not-sampled", "posproof/evidence.py",
       'return self.coverage == "sample" and self.covered != self.total',
       'return self.coverage == "sample" and self.covered > self.total',
       [f"{AUDIT_T}::test_a_sampled_pass_never_prints_as_a_bare_pass"],
       "a sample of part of the cases is not labelled sampled"),
    # ---------------------------------------------------------------- posproof/audit.py
    _m("audit-zero-excluding", "posproof/audit.py",
       'return "refuted" if (ball > 0 or ball < 0) else "zero-consistent"',
       'return "zero-consistent"',
       [f"{AUDIT_T}::test_a_sign_a_hair_from_zero_is_decided_both_ways"],
       "zero confirmed for a ball that excludes 0", quick=True),
    _m("audit-positive-upper-end", "posproof/audit.py",
       'return "confirmed" if ball > 0 else ("refuted" if ball <= 0 else None)',
       'return "confirmed" if ball.upper() > 0 else ("refuted" if ball <= 0 else None)',
       [f"{AUDIT_T}::test_a_sign_a_hair_from_zero_is_decided_both_ways"],
       "positive confirmed by the upper end of the ball"),
    _m("audit-negative-straddling", "posproof/audit.py",
       'return "confirmed" if ball < 0 else ("refuted" if ball >= 0 else None)',
       'return "confirmed" if not ball > 0 else ("refuted" if ball >= 0 else None)',
       [f"{AUDIT_T}::test_a_sign_a_hair_from_zero_is_decided_both_ways"],
       "negative confirmed for a ball straddling 0"),
    _m("audit-disjoint-enclosure", "posproof/audit.py",
       "return not (ball.upper() < a.lower() or ball.lower() > b.upper())",
       "return True",
       [f"{AUDIT_T}::test_an_enclosure_the_engine_reported_must_meet_the_auditors_ball"],
       "an engine enclosure disjoint from the auditor's ball is accepted"),
    _m("audit-zero-at-64-bits", "posproof/audit.py",
       "if prec >= min(ZERO_BITS, max_bits):", "if True:",
       [f"{AUDIT_T}::test_a_sign_a_hair_from_zero_is_decided_both_ways",
        f"{AUDIT_T}::test_exact_zero_is_consistent_and_never_certified_nonzero"],
       "an exact zero confirmed at 64 bits"),
    _m("audit-refuted-item", "posproof/audit.py",
       '        if status == "refuted":\n            result = Audit("refuted", name, n, why,',
       '        if False:\n            result = Audit("refuted", name, n, why,',
       [f"{AUDIT_T}::test_a_planted_wrong_evidence_value_turns_the_verdict_unknown"],
       "a refuted item does not refute the evidence"),
    _m("audit-refuted-verdict-kept", "posproof/audit.py",
       '_DOWNGRADE = {"proved": "unknown", "refuted": "unknown", "pass": "unknown",',
       '_DOWNGRADE = {"proved": "unknown", "pass": "unknown",',
       [f"{AUDIT_T}::test_a_planted_wrong_evidence_value_turns_the_verdict_unknown",
        f"{KERNEL_T}::test_planted_wrong_sign_turns_the_check_unknown"],
       "a refuted verdict on false evidence stays refuted"),
    _m("audit-spot-overlap", "posproof/audit.py",
       "if ball.lower() >= lo.upper() and ball.upper() <= hi.lower():",
       "if ball.upper() >= lo.lower() and ball.lower() <= hi.upper():",
       [f"{AUDIT_T}::test_a_spot_at_the_edge_of_its_radius_is_confirmed_only_inside"],
       "a spot confirmed when its ball only overlaps the radius"),
    _m("audit-undecided-confirmed", "posproof/audit.py",
       '    if undecided:\n        result = Audit("undecided", name, len(evidence.items), '
       'undecided,',
       '    if False:\n        result = Audit("undecided", name, len(evidence.items), '
       'undecided,',
       [f"{AUDIT_T}::test_unevaluable_quantities_are_undecided_not_confirmed",
        f"{AUDIT_T}::test_an_undecided_audit_turns_a_pass_unknown_and_the_report_not_ok"],
       "an undecided item leaves the evidence confirmed"),
    _m("audit-undecided-no-downgrade", "posproof/audit.py",
       "if not result.agrees and status in _DOWNGRADE:",
       'if result.status == "refuted" and status in _DOWNGRADE:',
       [f"{AUDIT_T}::test_an_undecided_audit_turns_a_pass_unknown_and_the_report_not_ok"],
       "an undecided audit leaves a pass standing"),
    _m("audit-nonzero-straddling", "posproof/audit.py",
       'return "confirmed" if (ball > 0 or ball < 0) else None',
       'return "confirmed" if ball.mid() != 0 else None',
       [f"{AUDIT_T}::test_exact_zero_is_consistent_and_never_certified_nonzero"],
       "nonzero confirmed for a ball around 0 whose midpoint is not 0"),
    # ---------------------------------------------------------------- posproof/validated.py
    _m("validated-first-surd-only", "posproof/validated.py",
       "roots = [t for t in expr.args if not t.is_Rational]\n",
       "roots = [t for t in expr.args if not t.is_Rational][:1]\n",
       [f"{VALID_T}::test_two_surds_that_cancel_are_never_called_irrational",
        f"{VALID_T}::test_a_ratio_with_cancelling_surds_has_a_period_not_none"],
       "_irrational_quadratic: only the first of several non-rational terms checked",
       quick=True),
    _m("validated-sign-touching-zero", "posproof/validated.py",
       "            if x > 0:\n                return 1\n",
       "            if x >= 0:\n                return 1\n",
       [f"{VALID_T}::test_sign_of_an_enclosure_touching_zero_is_not_certified"],
       "sign: an enclosure [0, b] certified positive"),
    _m("validated-abs-straddling", "posproof/validated.py",
       "return ctx.mpf([0, max(-a, b)])", "return ctx.mpf([0, max(a, b)])",
       [f"{VALID_T}::test_abs_of_an_interval_straddling_zero_reaches_both_ends"],
       "|x| of a straddling interval misses its lower end"),
    _m("validated-exceeds-one-end", "posproof/validated.py",
       "if a > t_hi or -b > t_hi:", "if b > t_hi or -a > t_hi:",
       ["posproof/validated.py::posproof.validated.exceeds"],
       "exceeds: one end of the enclosure beyond the threshold is enough"),
    _m("validated-rewrite-unchecked", "posproof/validated.py",
       "if rewritten is not None and not _overlap(x, enclose(rewritten, prec=400)):",
       "if False:",
       [f"{VALID_T}::test_a_rewrite_that_changes_the_value_proves_nothing"],
       "irrational: the a + b·√n rewrite's value not compared with the expression's"),
    # ---------------------------------------------------------------- proofs/multiaxis/claims.py
    _m("mrope-odd-head-dim", "posproof/proofs/multiaxis/claims.py",
       "if head_dim % 2 or sum(secs) != n:", "if sum(secs) != n:",
       ["tests/test_multiaxis_proofs.py::test_mrope_section_claim_with_an_odd_head_dim_is_refuted"],
       "mrope_section_claim: odd head_dim 9, sections [2,1,1] proved", quick=True),
    _m("mrope-sum-short", "posproof/proofs/multiaxis/claims.py",
       "if head_dim % 2 or sum(secs) != n:", "if head_dim % 2 or sum(secs) > n:",
       ["tests/test_multiaxis_proofs.py::test_mrope_section_claim_without_a_rotary"],
       "mrope_section_claim: sections summing short of head_dim/2 proved"),
    # ---------------------------------------------------------------- measure/kernel.py
    _m("kernel-uncertified-crossing", "posproof/measure/kernel.py",
       "found = (i, dec, dec.sign is not None and holds(dec.sign))",
       "found = (i, dec, dec.sign is None or holds(dec.sign))",
       [f"{KERNEL_T}::test_an_undecided_sign_is_unknown"],
       "an undecided sign taken as a crossing", quick=True),
    _m("kernel-exact-tie", "posproof/measure/kernel.py",
       "return sign == (-1 if below else 1)", "return sign in ((-1, 0) if below else (1, 0))",
       [f"{KERNEL_T}::test_decay_at_an_exact_zero_is_not_negative"],
       "an exact tie counted as a crossing"),
    _m("kernel-undecided-collision", "posproof/measure/kernel.py",
       "        if gap.sign == 0:\n            collision: bool | None = True",
       "        if gap.sign != 1:\n            collision: bool | None = True",
       [f"{KERNEL_T}::test_an_undecided_distance_at_the_maximum_is_no_collision"],
       "an undecided distance at the maximum taken as a collision"),
    _m("kernel-candidates-at-float-max", "posproof/measure/kernel.py",
       "idx = np.flatnonzero(values >= best - 2 * eps)",
       "idx = np.flatnonzero(values >= best)",
       [f"{KERNEL_T}::test_maximum_near_ties_from_both_sides"],
       "maximum: offsets within the float64 error of the largest value dropped"),
    _m("kernel-float-decides", "posproof/measure/kernel.py",
       "sure = v < thr - eps if below else v > thr + eps",
       "sure = v < thr if below else v > thr",
       [f"{KERNEL_T}::test_decay_on_both_sides_of_zero",
        f"{KERNEL_T}::test_kernel_first_negative_from_both_sides"],
       "a float64 value within its error bound settles a crossing"),
    # ---------------------------------------------------------------- testing/core/judging.py
    _m("judging-vacuous-judged", "posproof/testing/core/judging.py",
       "vac = tol >= tolerance.vacuous", "vac = tol > 100 * tolerance.vacuous",
       [f"{JUDGED_T}::test_an_entry_is_judged_only_below_two"],
       "an entry whose tolerance covers every value counted as judged", quick=True),
    _m("judging-pass-with-nothing-judged", "posproof/testing/core/judging.py",
       'status = "pass" if within and coverage.judged > 0 else',
       'status = "pass" if within else',
       [f"{JUDGED_T}::test_a_table_judged_nowhere_does_not_pass"],
       "a check that judged no entry passes"),
    _m("judging-meaningful-at-any", "posproof/testing/core/judging.py",
       "return self.judged > 0 and 2 * self.judged >= self.total",
       "return self.judged > 0",
       [f"{JUDGED_T}::test_identify_refuses_a_match_judged_at_less_than_half",
        f"{JUDGED_T}::test_the_column_index_bug_is_not_offered_angles_bfloat16"],
       "a hypothesis judged at under half the entries is offered"),
    _m("judging-sample-evidence-all", "posproof/testing/core/judging.py",
       "if self.complete and (self.population is None or self.population <= self.total):",
       "if self.complete:",
       [f"{JUDGED_T}::test_a_callable_checked_at_some_positions_is_a_sample"],
       "a sampled check's evidence claims every entry"),
    # the rounding model of a declared angle dtype (rotary, grids, explanations)
    _m("judging-model-gamma-wide", "posproof/testing/core/judging.py",
       "u = 2.0 ** -_BITS.get(angles, 53)", "u = 2.0 ** (3 - _BITS.get(angles, 53))",
       [f"{ROTMODEL_T}::test_the_old_rule_hid_them",
        "tests/test_tolerances.py::test_rotary_float32_angles_fail_by_default_and_pass_when_"
        "declared"],
       "a declared dtype's rounding model 8× wider (near the old 16·eps_angles): a 3 % "
       "frequency error under bfloat16 angles passes", quick=True),
    _m("rotary-far-positions-unjudged", "posproof/testing/rope/check.py",
       "not (cov.meaningful and far.meaningful)", "not cov.meaningful",
       [f"{ROTMODEL_T}::test_bfloat16_angles_at_65536_positions_are_unknown_not_pass"],
       "a rotary under a declared dtype judged at the first 64 positions only passes"),
    _m("explain-noop-16-eps-angles", "posproof/testing/absolute/explain.py",
       "eps_check=eps_angle if check is None else check)\n    if not any",
       "eps_check=eps_angle)\n    if not any",
       ["tests/test_bug_corpus_names.py::test_column_index_bug_under_bfloat16_angles_is_"
        "named_first"],
       "a regeneration within 16·eps_angles of the spec counted a no-op: the column-index "
       "bug under angles=bfloat16 goes unnamed"),
    _m("grid-flat-16-eps-angles", "posproof/testing/absolute/grid.py",
       "bound = tol.bound(ang, omega)\n    cov = Coverage(enc.dim)",
       "bound = tol.out + 16 * tol.eps_angle * ang\n    cov = Coverage(enc.dim)",
       [f"{ROTMODEL_T}::test_multi_axis_grid_is_judged_under_the_model"],
       "a multi-axis grid under a declared dtype judged by the old 16·eps_angles: a 1 % "
       "frequency error under float16 passes"),
    # ---------------------------------------------------------------- proofs/cache_consistency.py
    _m("cache-longrope-no-switch", "posproof/proofs/cache_consistency.py",
       "s = length + 1\n", "s = length\n",
       [f"{CACHE_T}::test_longrope_switch_from_both_sides"],
       "LongRoPE compared with itself before the switch: proved"),
    _m("cache-lower-frequency-unchanged", "posproof/proofs/cache_consistency.py",
       "elif c != 0:", "elif c > 0:",
       [f"{CACHE_T}::test_dynamic_ntk_is_refuted_with_a_certified_counterexample"],
       "a frequency that fell after the switch counted as unchanged"),
    _m("cache-undecided-proved", "posproof/proofs/cache_consistency.py",
       "        if undecided:\n            return Report(",
       "        if False:\n            return Report(",
       [f"{CACHE_T}::test_undecided_frequencies_are_not_proved_equal"],
       "frequencies not certified equal or different proved consistent"),
    # ---------------------------------------------------------------- posproof/families
    _m("options-zero-not-given", "posproof/families/options.py",
       "    if value is None or value is False:\n        return True\n",
       "    if not value:\n        return True\n",
       ["tests/test_families.py::test_an_option_given_as_zero_is_given"],
       "an option given as 0 is not given (0 == False)"),
    _m("families-extra-option-accepted", "posproof/families/__init__.py",
       "extra = [k for k in options.given() if k not in taken]", "extra = []",
       ["tests/test_families.py::test_an_option_given_as_zero_is_given"],
       "an option the family does not take is ignored"),
    _m("families-no-audit", "posproof/families/__init__.py",
       "    audit_report(report)          # every verdict's evidence, re-checked by the auditor",
       "    pass",
       [f"{AUDIT_T}::test_every_family_report_is_audited"],
       "a family's report is not audited"),
    # ------------------------------------------ second wave: posproof/testing/core/audited.py
    _m("audited-entry-gap-signed", "posproof/testing/core/audited.py",
       "gap = sp.Abs(_V - exact)", "gap = _V - exact",
       [f"{IMPL_T}::test_the_worst_entry_sign_reads_the_difference_in_both_directions"],
       "the worst entry's evidence without |·|: an impl far below the exact value confirmed"),
    _m("audited-entry-pass-always", "posproof/testing/core/audited.py",
       'expr, text = _TOL - gap, "tolerance − |impl − exact|"',
       'expr, text = _TOL + gap, "tolerance − |impl − exact|"',
       [f"{IMPL_T}::test_the_worst_entry_sign_reads_the_difference_in_both_directions"],
       "a pass's worst-entry evidence confirmed whatever the difference"),
    _m("audited-entry-fail-always", "posproof/testing/core/audited.py",
       'expr, text = gap - _TOL, "|impl − exact| − tolerance"',
       'expr, text = gap + _TOL, "|impl − exact| − tolerance"',
       [f"{IMPL_T}::test_the_worst_entry_sign_reads_the_difference_in_both_directions"],
       "a fail's worst-entry evidence confirmed though the entry is within its tolerance"),
    _m("audited-refuted-kept", "posproof/testing/core/audited.py",
       '        status = impl_status(report)\n'
       '        if not (result.agrees or status == "unknown"):',
       '        status = impl_status(report)\n        if False:',
       [f"{IMPL_T}::test_planted_wrong_evidence_makes_the_verdict_unknown"],
       "a verdict whose evidence the audit refutes is kept"),
    # ---------------------------------------------------------- posproof/whole/checks.py
    _m("whole-reference-shared-always", "posproof/whole/checks.py",
       "    if rows_free_of_length(runner):\n        memo = _memo(runner)",
       "    if isinstance(runner, HFRunner):\n        memo = _memo(runner)",
       [f"{LAYERS_T}::test_a_length_rule_gets_one_forward_per_prefix_not_a_shared_one"],
       "one full forward's rows shared though a rule depends on the length (dynamic, LongRoPE)"),
    _m("whole-rows-free-always", "posproof/whole/checks.py",
       "    if not isinstance(runner, HFRunner):\n        return False\n    info = runner.info\n"
       '    if any(k != "sliding window"',
       "    if True:\n        return isinstance(runner, HFRunner)\n    info = runner.info\n"
       '    if any(k != "sliding window"',
       [f"{LAYERS_T}::test_a_length_rule_gets_one_forward_per_prefix_not_a_shared_one"],
       "every transformers model's rows taken as free of the sequence length"),
    # ----------------------------------------------------------- posproof/whole/build.py
    _m("whole-spec-note-dropped", "posproof/whole/build.py",
       "    if not diff:\n        return None\n", "    if True:\n        return None\n",
       [f"{TYPES_T}::test_the_spec_note_names_every_difference_from_what_transformers_builds"],
       "posproof's SPEC reading differing from transformers' goes unsaid"),
    _m("whole-spec-field-ignored", "posproof/whole/build.py",
       "if theirs[k] is not None and ours[k] != theirs[k]]",
       "if theirs[k] is not None and ours[k] != theirs[k] and k == 'rope_type']",
       [f"{TYPES_T}::test_the_spec_note_names_every_difference_from_what_transformers_builds"],
       "a different rotated width or pair layout not named"),
    _m("whole-spec-theta-loose", "posproof/whole/build.py",
       "if abs(float(theta) - info.rope_theta) > 1e-9 * abs(info.rope_theta):",
       "if abs(float(theta) - info.rope_theta) > 1e-3 * abs(info.rope_theta):",
       [f"{TYPES_T}::test_the_spec_note_names_every_difference_from_what_transformers_builds"],
       "a base differing by under 0.1 % not named"),
    # --------------------------------------------------------- posproof/whole/weights.py
    _m("whole-missing-tensor-accepted", "posproof/whole/weights.py",
       "    if missing:\n        raise InvalidParameter(\n            f\"the weights in",
       "    if False:\n        raise InvalidParameter(\n            f\"the weights in",
       [f"{WEIGHTS_T}::test_a_tensor_missing_from_the_file_is_refused"],
       "a weight the files lack left at its random initialisation, reported as real weights"),
    # --------------------------------------------------------- posproof/measure/alibi.py
    _m("alibi-k-no-product-rounding", "posproof/measure/alibi.py",
       "return tuple(s + 1 for s in self.slope_k)", "return tuple(s for s in self.slope_k)",
       [f"{ALIBIMODEL_T}::test_the_model_is_stated_and_no_wider_than_its_rounding",
        f"{ALIBIMODEL_T}::test_correct_biases_computed_the_usual_ways_pass"],
       "k_h without the rounding of m·Δ: correct float16 biases fail"),
    _m("alibi-k-wider", "posproof/measure/alibi.py",
       "return tuple(s + 1 for s in self.slope_k)", "return tuple(2 * s + 1 for s in self.slope_k)",
       [f"{ALIBIMODEL_T}::test_the_model_is_stated_and_no_wider_than_its_rounding"],
       "k_h twice the roundings of the slope: a tolerance wider than the computation's"),
    _m("alibi-k-pow-dropped", "posproof/measure/alibi.py",
       'pow_term = power if spec.rule == "reference" and unit.denominator != 1 else 0',
       "pow_term = 0",
       [f"{ALIBIMODEL_T}::test_the_model_is_stated_and_no_wider_than_its_rounding",
        f"{ALIBIMODEL_T}::test_correct_biases_computed_the_usual_ways_pass"],
       "k_h without the power of an inexact base: BLOOM's pow(base, k) slopes fail"),
    # ---------------------------------------------------------------- rotary checks' evidence
    _m("rotary-subcheck-unaudited", "posproof/testing/core/audited.py",
       '    for name, sub in (getattr(report, "check_evidence", None) or {}).items():',
       "    for name, sub in {}.items():",
       [f"{ROTEV_T}::test_a_lying_value_in_a_further_check_is_refuted"],
       "the evidence of relative_property, norm_preservation, convention is not audited: "
       "a lying value passes"),
    _m("rotary-convention-direction-sign", "posproof/testing/rope/check.py",
       '"positive" if fp.direction == 1 else "negative",', '"positive",',
       [f"{ROTEV_T}::test_flipped_direction_rests_on_a_negative_sign",
        f"{ROTEV_T}::test_every_rotary_check_carries_evidence_the_audit_confirms"],
       "the convention's direction Sign claims the same direction for a flipped rotation"),
    _m("xpos-declared-angles-ignored", "posproof/testing/rope/xpos.py",
       "    xpos_angles(angles)\n", "    pass\n",
       ["tests/test_xpos.py::test_a_declared_angle_dtype_without_a_model_is_refused"],
       "xPos checked under a declared bfloat16 angle dtype it has no model for (ignored)"),
    _m("grid-axis-hides-behind-others", "posproof/testing/core/judging.py",
       "        if not (cov.meaningful if declared else cov.judged > 0):",
       "        if False:",
       ["tests/test_multiaxis_judged.py::test_grid_table_with_one_axis_mostly_unjudged_is_"
        "unknown_not_pass",
        "tests/test_multiaxis_judged.py::test_multi_axis_rotary_with_one_axis_unjudged_is_"
        "unknown_not_pass"],
       "the judging rule counts every axis together: an axis mostly unjudged hides behind "
       "the others"),
    _m("grid-rotary-axis-rule-dropped", "posproof/testing/rope/grid.py",
       "    if status == \"pass\" and ((angles is not None and not cov.meaningful) or short):",
       "    if status == \"pass\" and angles is not None and not cov.meaningful:",
       ["tests/test_multiaxis_judged.py::test_multi_axis_rotary_with_one_axis_unjudged_is_"
        "unknown_not_pass"],
       "a multi-axis rotary judged over all channels together: axis t unjudged passes"),
    _m("identify-no-audit-clause", "posproof/cli/testing.py",
       "verdict = _identified([r.matched for r in results.values()], any, audited)",
       "verdict = _identified([r.matched for r in results.values()], any)",
       ["tests/test_identify_audit.py::test_identify_verdict_line_carries_the_audit_clause"],
       "identify's verdict line without the audit clause"),
    _m("identify-refuted-match-kept", "posproof/testing/identification/table.py",
       "    if not verdict.agrees:\n        result.matched = False",
       "    if False:\n        result.matched = False",
       ["tests/test_identify_audit.py::test_a_lying_value_makes_the_match_no_match"],
       "a match whose evidence the audit refutes is still a match"),
    _m("multirope-text-evidence-dropped", "posproof/testing/rope/grid.py",
       '    report.check_evidence["text_tokens_plain_rope"] = _text_evidence(',
       '    _unused = _text_evidence(',
       [f"{ROTEV_T}::test_text_tokens_check_of_a_multi_axis_rotary_carries_audited_evidence"],
       "the text-token check of a multi-axis rotary carries no evidence (a lying value "
       "passes)"),
    _m("rotary-norm-angles-wide", "posproof/testing/rope/check.py",
       "norm_tol = TOLERANCE * 4 * eps + (2 * tol.eps_angle if tol.angles is not None else 0.0)",
       "norm_tol = TOLERANCE * 4 * eps + (4 * tol.eps_angle if tol.angles is not None else 0.0)",
       [f"{ROTEV_T}::test_norm_tolerance_under_declared_angles_from_both_sides"],
       "norm preservation under declared angles twice as wide as the rounding model"),
    _m("rotary-norm-angles-flat", "posproof/testing/rope/check.py",
       "norm_tol = TOLERANCE * 4 * eps + (2 * tol.eps_angle if tol.angles is not None else 0.0)",
       "norm_tol = TOLERANCE * 4 * eps",
       [f"{ROTEV_T}::test_norm_preservation_under_declared_angles_follows_the_rounding_model"],
       "norm preservation under declared angles: the flat 64·eps (a correct impl fails)"),
    # ------------------------------------------- posproof/audit.py: every column group decided
    _m("audit-groups-ignored", "posproof/audit.py",
       "    if evidence.groups:\n", "    if False:\n",
       [f"{GROUPS_T}::test_a_lying_engine_wrong_in_a_middle_group_only_is_not_proved"],
       "the column groups' residuals are not decided (the points' two groups only)",
       quick=True),
    _m("audit-generic-ratio-dropped", "posproof/audit.py",
       "args = [sp.Rational(m[0] / r), w, *[a for a in args if not a.is_number]]",
       "args = [w, *[a for a in args if not a.is_number]]",
       [f"{GROUPS_T}::test_a_group_that_is_not_an_identity_is_refuted"],
       "a multiple q·f of a group's frequency becomes w, not q·w (sin 2fx − sin fx is 0)"),
    _m("audit-generic-any-constant", "posproof/audit.py",
       "                if m[1] == b:\n", "                if True:\n",
       [f"{GROUPS_T}::test_a_wrong_hint_is_never_trusted"],
       "any constant times a variable becomes the formal frequency (√2 and f are one)"),
    _m("audit-generic-key-shared", "posproof/audit.py",
       "        key = (group.build, generic, group.variables)",
       "        key = (group.build, group.variables)",
       [f"{GROUPS_T}::test_a_lying_engine_wrong_in_a_middle_group_only_is_not_proved",
        f"{GROUPS_T}::test_a_group_built_from_its_data_is_decided_on_its_own_data"],
       "one decision reused for every group of a statement, whatever its own data"),
    _m("audit-generic-open-confirmed", "posproof/audit.py",
       '        if found[0] == "zero":\n', "        if True:\n",
       [f"{GROUPS_T}::test_a_group_built_from_its_data_is_decided_on_its_own_data"],
       "a generic residual whose normal form is not 0 confirms the group"),
    _m("engine-groups-total-dropped", "posproof/proofs/theorems/engine.py",
       "            ev.groups_total = len(every)", "            pass",
       [f"{GROUPS_T}::test_past_the_cap_the_audit_is_labelled_a_sample"],
       "past the cap, the selection of groups is audited as if it were every group"),
    _m("audit-groups-total-not-sample", "posproof/audit.py",
       '    elif sampled or (groups and (groups.get("sampled") or groups.get("total"))):',
       '    elif sampled or (groups and groups.get("sampled")):',
       [f"{GROUPS_T}::test_past_the_cap_the_audit_is_labelled_a_sample"],
       "a capped selection of groups confirmed with coverage all"),
    _m("expoly-parameter-certain", "posproof/expoly.py",
       '        w.uncertain.add(f"formal parameters {sorted(w.parameters)}")',
       "        pass",
       [f"{GROUPS_T}::test_a_non_zero_form_with_a_formal_frequency_is_never_certain"],
       "a non-zero normal form with a formal frequency counts as certainly non-zero"),
    # ------------------------------------------- posproof/measure/explore/basebound.py
    _m("basebound-top-down-stops-on-good", "posproof/measure/explore/basebound.py",
       '            top.append(Piece(a, c, state, witness, why))\n        return state == "bad"',
       '            top.append(Piece(a, c, state, witness, why))\n        return state == "good"',
       ["tests/test_basebound_mixed.py::test_mixed_summary_agrees_with_full_enumeration"],
       "the search down from the top stops at a good piece: all_good_above not bracketed"),
    _m("basebound-mixed-top-integer-unbracketed", "posproof/measure/explore/basebound.py",
       '        n = last\n        while n >= first:',
       '        n = last + 1\n        while False:',
       ["tests/test_basebound_mixed.py::test_mixed_summary_agrees_with_full_enumeration"],
       "integer bases: the top island's first integer left without a bad integer below it"),
]


# ------------------------------------------------------------------------------- running
def stale(mutants: Sequence[Mutant], root: Path = ROOT) -> list[str]:
    """One message per mutant whose old text does not occur exactly once in its file."""
    out = []
    for m in mutants:
        path = root / m.file
        if not path.is_file():
            out.append(f"stale mutant {m.id}: {m.file} does not exist")
            continue
        n = path.read_text("utf-8").count(m.old)
        if n != 1:
            where = "not found" if n == 0 else f"found {n} times"
            out.append(f"stale mutant {m.id}: its old text is {where} in {m.file} (the code "
                       f"changed: refresh the mutant in scripts/mutants.py): {m.old!r}")
        if m.old == m.new:
            out.append(f"mutant {m.id}: the new text is the old one")
    return out


def _files(root: Path) -> list[str]:
    """Tracked and untracked-but-not-ignored files (what a checkout plus new work holds)."""
    try:
        out = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=root,
                             capture_output=True, check=True).stdout.decode()
        return [f for f in out.split("\0") if f and (root / f).is_file()]
    except (OSError, subprocess.CalledProcessError):
        skip = {".git", ".venv", ".venv-ci", "__pycache__", ".pytest_cache", "site"}
        return [str(p.relative_to(root)) for p in root.rglob("*")
                if p.is_file() and not skip & set(p.relative_to(root).parts)]


def copy_tree(root: Path, dest: Path) -> None:
    for rel in _files(root):
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / rel, target)


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def run_tests(tree: Path, tests: Sequence[str], timeout: float) -> tuple[str, int | None, str]:
    """Run pytest on ``tests`` in ``tree``: (``passed`` | ``failed`` | ``timeout`` | ``error``,
    exit status, the tail of its output).  Its own process group, killed whole on timeout."""
    env = {k: v for k, v in os.environ.items()      # not a worker of an outer pytest-xdist
           if not k.startswith(("PYTEST_XDIST", "PYTEST_CURRENT_TEST"))}
    env.update(PYTHONPATH=str(tree), PYTHONDONTWRITEBYTECODE="1", PYTHONHASHSEED="0")
    cmd = [sys.executable, "-m", "pytest", "-x", "-q", "--no-header", "-p", "no:cacheprovider",
           "-p", "no:randomly", *tests]
    proc = subprocess.Popen(cmd, cwd=tree, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        return "timeout", None, out.decode(errors="replace")[-2000:]
    text = out.decode(errors="replace")[-2000:]
    status = {0: "passed", 1: "failed"}.get(proc.returncode, "error")
    return status, proc.returncode, text


def apply_and_run(tree: Path, m: Mutant, timeout: float) -> tuple[str, float, str]:
    """Write the mutant into ``tree``, run its tests, restore the file (checked)."""
    path = tree / m.file
    original = path.read_bytes()
    text = original.decode("utf-8")
    if text.count(m.old) != 1:
        raise RuntimeError(f"stale mutant {m.id} in the copy")
    start = time.perf_counter()
    try:
        path.write_text(text.replace(m.old, m.new), encoding="utf-8")
        status, _rc, out = run_tests(tree, m.tests, timeout)
    finally:
        path.write_bytes(original)
    if _digest(path.read_bytes()) != _digest(original):
        raise RuntimeError(f"{m.file} was not restored after mutant {m.id}")
    outcome = {"failed": "killed", "passed": "survived"}.get(status, status)
    return outcome, time.perf_counter() - start, out


def module_of(m: Mutant) -> str:
    return m.file


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="only the mutants marked quick")
    parser.add_argument("--only", nargs="+", metavar="ID", help="only these mutants")
    parser.add_argument("--list", action="store_true", help="list the mutants and exit")
    parser.add_argument("--check", action="store_true",
                        help="only check that every old text occurs exactly once")
    parser.add_argument("--timeout", type=float, default=120.0,
                        help="seconds per mutant's tests (default 120)")
    parser.add_argument("--no-baseline", action="store_true",
                        help="skip running the tests on the unmutated tree first")
    parser.add_argument("--verbose", "-v", action="store_true",
                        help="print the test output of mutants not killed")
    args = parser.parse_args(argv)

    ids = [m.id for m in MUTANTS]
    dup = [i for i, n in Counter(ids).items() if n > 1]
    if dup:
        print(f"mutants.py: duplicate mutant ids {dup}", file=sys.stderr)
        return 2
    chosen = [m for m in MUTANTS if (not args.quick or m.quick)]
    if args.only:
        unknown = sorted(set(args.only) - set(ids))
        if unknown:
            print(f"mutants.py: unknown mutant ids {unknown}; see --list", file=sys.stderr)
            return 2
        chosen = [m for m in chosen if m.id in args.only]
    if args.list:
        for m in chosen:
            print(f"{m.id:36} {m.file:40} {m.what}")
        return 0
    problems = stale(MUTANTS)
    if problems:
        for p in problems:
            print(p, file=sys.stderr)
        return 2
    if args.check:
        print(f"{len(MUTANTS)} mutants, every old text found exactly once")
        return 0

    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="posproof-mutants-") as tmp:
        tree = Path(tmp) / "tree"
        copy_tree(ROOT, tree)
        if not args.no_baseline:
            tests = sorted({t for m in chosen for t in m.tests})
            status, rc, out = run_tests(tree, tests, args.timeout * 4)
            if status != "passed":
                print(out, file=sys.stderr)
                print(f"mutants.py: the named tests do not pass on the unmutated tree "
                      f"({status}, exit {rc}): a failing test kills nothing", file=sys.stderr)
                return 2
            print(f"baseline: {len(tests)} named tests pass on the unmutated tree "
                  f"({time.perf_counter() - start:.0f} s)", flush=True)
        results: list[tuple[Mutant, str]] = []
        for m in chosen:
            outcome, seconds, out = apply_and_run(tree, m, args.timeout)
            results.append((m, outcome))
            print(f"{outcome:9} {m.id:36} {seconds:5.1f} s  {m.what}", flush=True)
            if outcome != "killed" and args.verbose:
                print(out)
    per_module: dict[str, Counter] = {}
    for m, outcome in results:
        per_module.setdefault(module_of(m), Counter())[outcome] += 1
    print("\nkill rate per module:")
    for module, counts in sorted(per_module.items()):
        total = sum(counts.values())
        print(f"  {module:44} {counts['killed']}/{total}")
    killed = sum(outcome == "killed" for _, outcome in results)
    print(f"\n{killed}/{len(results)} mutants killed "
          f"({100 * killed / max(len(results), 1):.0f} %) in {time.perf_counter() - start:.0f} s")
    missed = [m.id for m, outcome in results if outcome != "killed"]
    if missed:
        print(f"not killed: {', '.join(missed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
