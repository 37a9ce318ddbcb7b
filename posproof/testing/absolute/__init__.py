"""Tables of absolute positions (sinusoidal and learned-free schedules), on one axis or on a grid:
``read`` (reading a table or a callable impl, the spec's values, the comparison), ``check``
(:func:`check_encoding`, :func:`assert_encoding`), ``hypotheses`` and ``explain`` (why a table
disagrees: each hypothesis regenerates the table, named only when confirmed), ``grid`` (the same
over a ``grid=`` of 2 or 3 axes).
"""
