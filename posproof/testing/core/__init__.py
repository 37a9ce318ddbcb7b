"""The one pipeline every family's impl check goes through: reading the impl as a float64 array
and its dtype (``arrays``), the working precision and the tolerance it implies, the verdict judged
over covered entries (``judging``), and the report and its failure message (``reports``).

Imports nothing else of :mod:`posproof.testing` (every family package imports it).
"""
