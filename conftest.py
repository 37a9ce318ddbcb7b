"""Names every doctest in posproof/ and the Markdown docs may use without importing."""

import numpy as np
import pytest
import sympy as sp

import posproof
from posproof.model.schedules import Geometric


@pytest.fixture(autouse=True)
def _doctest_names(doctest_namespace: dict) -> None:
    doctest_namespace.update(np=np, sp=sp, posproof=posproof, Geometric=Geometric)
