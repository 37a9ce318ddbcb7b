"""Soundness corpus, section "several axes" (issue 15): multi-axis statements, true and false.

False: the real mistakes — a block claimed to encode the other axis (MAE's sincos-2d, whose
first half is the column; pe-3d blocks in the wrong order), ``mrope_section`` misread or
interleaving confused, a 2-D table built with ``meshgrid(indexing="ij")`` where the spec
says ``"xy"``, T(Δ) applied in the wrong convention.  Each refutation is confirmed here,
independently of the engine, from the exact model objects (``MultiAxisEncoding.vector``,
``translation``, ``MultiAxisRotary.rotation_entries``) through
:func:`posproof.precise.mp_value` at 50 digits.

True: the same claims stated correctly, and every theorem of
:func:`posproof.prove_multi` for each multi-axis preset (with the general forms).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import sympy as sp
from corpus import CONFIRM, Statement, mp

from posproof import prove_multi
from posproof.model.multiaxis import MultiAxisEncoding, axis_symbols, multi_preset
from posproof.model.multirope import MultiAxisRotary, axial_rope, mrope
from posproof.proofs.multiaxis.claims import (
    axis_claim,
    convention_claim,
    meshgrid_claim,
    sections_claim,
)
from posproof.report import Proof

__all__ = ["false_statements", "true_statements"]


def _check(residual, proof: Proof) -> None:
    assert residual > CONFIRM, (f"{proof.name}: recomputed residual {residual} is no "
                                f"counterexample ({proof.counterexample})")


def _at(enc: MultiAxisEncoding, j: int, position: list) -> sp.Expr:
    xs = axis_symbols(enc.axes)
    return enc.vector()[0, j].subs(dict(zip(xs, map(sp.Integer, position), strict=True)))


def confirm_axes(enc: MultiAxisEncoding) -> Callable[[Proof], None]:
    def confirm(proof: Proof) -> None:
        ce = proof.counterexample
        moved = [a != b for a, b in zip(ce["position"], ce["moved_position"], strict=True)]
        claimed = list(enc.axis_names).index(ce["claimed_axis"])
        assert not moved[claimed], "the counterexample moved the claimed axis"
        _check(abs(mp(_at(enc, ce["column"], ce["moved_position"])
                      - _at(enc, ce["column"], ce["position"]))), proof)
    return confirm


def confirm_sections(rot: MultiAxisRotary) -> Callable[[Proof], None]:
    def confirm(proof: Proof) -> None:
        ce = proof.counterexample
        claimed = list(rot.axis_names).index(ce["claimed_axis"])
        assert ce["position"][claimed] == 0, "the counterexample moved the claimed axis"
        i = ce["channel"]
        entry = rot.rotation_entries([sp.Integer(p) for p in ce["position"]])[(i, i)]
        _check(abs(mp(entry) - 1), proof)
    return confirm


def confirm_meshgrid(enc: MultiAxisEncoding) -> Callable[[Proof], None]:
    def confirm(proof: Proof) -> None:
        ce = proof.counterexample
        _check(abs(mp(_at(enc, ce["column"], ce["built_position"])
                      - _at(enc, ce["column"], ce["spec_position"]))), proof)
    return confirm


def confirm_convention(enc: MultiAxisEncoding, convention: str) -> Callable[[Proof], None]:
    def confirm(proof: Proof) -> None:
        ce = proof.counterexample
        x, dl, j = ce["x"], ce["delta"], ce["column"]
        t = enc.translation([sp.Integer(d) for d in dl], convention)
        here = enc.vector([sp.Integer(v) for v in x])
        lhs = enc.vector([sp.Integer(a + b) for a, b in zip(x, dl, strict=True)])[0, j]
        rhs = sum((here[0, i] * t[i, j] for i in range(enc.dim)), sp.Integer(0))
        _check(abs(mp(lhs) - mp(rhs)), proof)
    return confirm


def false_statements() -> list[Statement]:
    out: list[Statement] = []

    def add(id_: str, group: str, ask: Callable[[], Proof], confirm: Callable[[Proof], None],
            description: str) -> None:
        out.append(Statement(id_, False, group, ask, confirm, description))

    mae = multi_preset("sincos-2d", dim=8)
    add("multi:sincos-2d:first-half-is-row", "multi-axis: axes swapped",
        lambda: axis_claim(mae, "row"), confirm_axes(mae),
        "MAE's sincos-2d: 'the first half encodes the row' (it is the column)")
    ij = mae.swapped((1, 0))
    add("multi:sincos-2d-ij:first-half-is-column", "multi-axis: axes swapped",
        lambda: axis_claim(ij, "column"), confirm_axes(ij),
        "a meshgrid 'ij' port claimed to keep MAE's column-first order")
    pe3 = multi_preset("pe-3d", dim=12)
    add("multi:pe-3d:blocks-x-z-y", "multi-axis: axes swapped",
        lambda: axis_claim(pe3, ["x", "z", "y"]), confirm_axes(pe3),
        "positional-encodings 3-D blocks claimed in the order x, z, y")
    for key, rot, secs, inter in [
            ("reversed", mrope(10000, 16, [2, 3, 3]), [3, 3, 2], False),
            ("not-interleaved", mrope(1000000, 16, [4, 2, 2], interleaved=True), [4, 2, 2],
             False),
            ("interleaved", mrope(1000000, 16, [4, 2, 2]), [4, 2, 2], True)]:
        add(f"multi:mrope:sections-{key}", "multi-axis: sections misread",
            lambda r=rot, s=secs, i=inter: sections_claim(r, s, interleaved=i),
            confirm_sections(rot), f"mrope_section {secs} (interleaved={inter}) claimed for "
                                   f"{rot.name}")
    for shape in ((3, 4), (2, 2)):
        add(f"multi:sincos-2d:meshgrid-ij{list(shape)}", "multi-axis: meshgrid ij vs xy",
            lambda s=shape: meshgrid_claim(mae, s), confirm_meshgrid(mae),
            f"a {shape} table built with meshgrid(indexing='ij') where MAE says 'xy'")
    for name in ("pe-2d", "sincos-2d"):
        enc = multi_preset(name, dim=8)
        add(f"multi:{name}:column-T-as-row", "multi-axis: wrong convention",
            lambda e=enc: convention_claim(e, "column"), confirm_convention(enc, "column"),
            "PE(x+Δ) = PE(x)·T(Δ) with T built in the column convention")
    return out


@cache
def _report(key: str) -> dict[str, Proof]:
    obj = {"sincos-2d": lambda: multi_preset("sincos-2d", dim=8),
           "pe-2d": lambda: multi_preset("pe-2d", dim=8),
           "pe-3d": lambda: multi_preset("pe-3d", dim=12),
           "mrope": lambda: mrope(10000, 16, [2, 3, 3]),
           "mrope-interleaved": lambda: mrope(1000000, 16, [4, 2, 2], interleaved=True),
           "axial-rope": lambda: axial_rope((4, 4, 8)),
           "axial-rope-half": lambda: axial_rope((4, 8), layout="half")}[key]()
    return {p.name: p for p in prove_multi(obj, general=True).theorems}


def true_statements() -> list[Statement]:
    out: list[Statement] = []
    for key in ("sincos-2d", "pe-2d", "pe-3d", "mrope", "mrope-interleaved", "axial-rope",
                "axial-rope-half"):
        for name in _report(key):
            out.append(Statement(f"multi[{key}]:{name}", True, "multi-axis theorems",
                                 lambda k=key, n=name: _report(k)[n]))
    mae = multi_preset("sincos-2d", dim=8)
    rot = mrope(10000, 16, [2, 3, 3])
    for id_, ask in [
            ("multi:sincos-2d:first-half-is-column", lambda: axis_claim(mae, "column")),
            ("multi:sincos-2d-ij:first-half-is-row",
             lambda: axis_claim(mae.swapped((1, 0)), "row")),
            ("multi:mrope:sections-as-built", lambda: sections_claim(rot, [2, 3, 3])),
            ("multi:sincos-2d:meshgrid-xy", lambda: meshgrid_claim(mae, (3, 4), indexing="xy")),
            ("multi:pe-2d:row-T-as-row",
             lambda: convention_claim(multi_preset("pe-2d", dim=8), "row"))]:
        out.append(Statement(id_, True, "multi-axis true claims", ask))
    return out
