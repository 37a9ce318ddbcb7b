"""Relative-position biases: ``alibi`` (:func:`assert_alibi`, :func:`check_alibi`,
:func:`identify_alibi`), ``t5`` (:func:`assert_t5_buckets`) and ``t5_identify`` (which T5
configuration produced a matrix of buckets).
"""
