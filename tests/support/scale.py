"""How many random games the long property runs play.

`make test` plays every property at a few games each (every option set and player count
still reached); PBEM_TEST_LONG=1 (`make test-long`) plays the full counts, as the nightly
hunt for rare states. PBEM_CONFORMANCE_GAMES still sets the conformance count outright."""

from __future__ import annotations

import os
from typing import TypeVar

T = TypeVar("T")

LONG = os.environ.get("PBEM_TEST_LONG", "") not in ("", "0")


def games(quick: int, long: int) -> int:
    """``long`` under PBEM_TEST_LONG=1, else ``quick``."""
    return long if LONG else quick


def cases(every: list[T], quick: list[T]) -> list[T]:
    """Parametrized cases: ``every`` under PBEM_TEST_LONG=1, else the ``quick`` few (which
    must be among ``every``; chosen to reach each player count and option set)."""
    assert all(case in every for case in quick)
    return every if LONG else quick
