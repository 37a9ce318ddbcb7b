"""The limits and defaults of a sweep: a leaf module, cheap to import (the CLI's help uses it)."""

#: Points a grid may have without ``confirm=True`` (``--yes``).
MAX_POINTS = 10_000
#: Points no grid may have (the grid is enumerated in memory).
HARD_MAX_POINTS = 1_000_000
#: Values one range may produce.
MAX_RANGE_VALUES = 100_000
#: Seconds to wait for a Dask scheduler to answer.
DEFAULT_TIMEOUT = 5.0
