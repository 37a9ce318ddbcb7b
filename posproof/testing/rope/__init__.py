"""Rotations: ``check`` (:func:`check_rotary`, :func:`assert_rotary`, the fingerprint),
``explain`` (why a rotation disagrees), ``grid`` (several position axes: axial RoPE, M-RoPE) and
``xpos`` (what ``assert_rotary`` checks for an xPos spec).
"""
