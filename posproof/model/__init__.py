"""Describe an encoding exactly: expressions, schedules, layouts, Encoding, presets,
the rotary model, RoPE scaling rules and the Hugging Face config reader.

The first stage of the pipeline (model → proofs → measure → document / testing / sweep → cli).
It may import the shared leaves (errors, precise, validated, report, version) and nothing
downstream: no proofs (the proofs about the rotary model and the scaling rules are
:mod:`posproof.proofs`), no matplotlib, no torch.

Modules:

* ``alibi`` — ALiBi (attention with linear biases): exact per-head slopes (reference and MPT
  rules) and the bias they define.
* ``configs`` — Model configs (HF ``config.json``) → rotary embeddings.
* ``encoding`` — Encoding: a schedule, a layout, a dimension and an offset.
* ``expressions`` — Turn user-typed frequency expressions into exact SymPy objects, without running
  code.
* ``layouts`` — Where each (sin, cos) pair sits, and the permutations between layouts.
* ``multiaxis`` — Multi-axis sinusoidal encodings: a position p = (p_1, …, p_k) such as (row,
  column).
* ``multirope`` — Multi-axis rotary embeddings: axial RoPE and multimodal RoPE (M-RoPE).
* ``presets`` — Named encodings as published, with their parameters explicit.
* ``rope`` — Rotary embeddings (RoPE): the rotation R(m) and its layouts.
* ``scaling`` — RoPE scaling rules as exact frequency schedules (HF transformers
  ``modeling_rope_utils``).
* ``schedules`` — Frequency schedules as exact SymPy expressions.
* ``specs`` — Spec strings: the small language ``posproof explore`` (and sweeps, the pytest plugin)
  read.
* ``t5_buckets`` — T5 relative position buckets, exactly: every bucket's range of relative
  positions in integers.
* ``xpos`` — xPos (Sun et al. 2022, "A Length-Extrapolatable Transformer"): RoPE times a
  per-pair decay.
"""
