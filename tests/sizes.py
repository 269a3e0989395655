"""Checks that play many games run a reduced number in the default run and the full number
under ``pytest -m slow`` (``make test-slow``), so that the suite stays quick on a loaded machine
while the large runs are still one command away."""

from __future__ import annotations

from typing import Any

import pytest


def reduced_or_full(reduced: int, full: int) -> Any:
    """Parametrize a test's ``size``: ``reduced`` by default, ``full`` marked slow."""
    return pytest.mark.parametrize("size", [
        pytest.param(reduced, id=f"{reduced}"),
        pytest.param(full, id=f"{full}", marks=pytest.mark.slow),
    ])
