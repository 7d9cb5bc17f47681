"""How many random games the long property runs play.

`make test` plays every property at a few games each (every option set and player count
still reached); PBEM_TEST_LONG=1 (`make test-long`) plays the full counts, as the nightly
hunt for rare states. PBEM_CONFORMANCE_GAMES still sets the conformance count outright."""

from __future__ import annotations

import os

LONG = os.environ.get("PBEM_TEST_LONG", "") not in ("", "0")


def games(quick: int, long: int) -> int:
    """``long`` under PBEM_TEST_LONG=1, else ``quick``."""
    return long if LONG else quick
