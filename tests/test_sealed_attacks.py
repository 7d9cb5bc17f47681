"""Attacks on simultaneous and sealed steps (docs/protocol-rounds.md) by a cheating player
who holds the source, their own key and every save they received, and signs entries by
hand: each is refused. The set-ups are those of tests/test_simultaneous.py (Sealed Bids,
three seats)."""

from __future__ import annotations

import copy
import time
from pathlib import Path

import pytest

from pbem.errors import IntegrityError, PbemError
from pbem.protocol.crypto.identity import Home
from pbem.protocol.replay import chain
from pbem.protocol.saveformat import savefile
from pbem.protocol.saveformat.savefile import Save
from tests.enginekit import relinked, with_entries
from tests.test_simultaneous import at_first_step, one_step


def authenticated(save: Save, bodies: list[dict[str, object]], homes: dict[str, Home]
                  ) -> PbemError:
    """The error chain.authenticate raises on ``bodies`` re-chained and re-signed."""
    forged = with_entries(save, relinked(save.header, bodies, homes))
    with pytest.raises(PbemError) as info:
        chain.authenticate(forged)
    return info.value


# ---- resource bounds ----------------------------------------------------------------------
def test_a_round_entry_past_the_rounds_slots_is_refused_at_once(homes: dict[str, Home],
                                                                 tmp_path: Path) -> None:
    """bob signs his turn of a three-seat round at a seq past its three slots: refused
    before any game code, however far past (the check for missing entries once read every
    seq up to it: a seq of 10**15 made every home that verified the save hang)."""
    start = at_first_step(homes, tmp_path / "s", options=["open=true"])
    save = savefile.read(one_step(homes, start, tmp_path, {"ann": "bid 4", "bob": "bid 5"}))
    bodies = copy.deepcopy(save.entries)
    for seq in (7, 10**15):
        bodies[5]["seq"] = seq
        error = authenticated(save, bodies, homes)  # the save ends in the round
        assert isinstance(error, IntegrityError) and error.code == "round"
        assert "at most 3 entries (one a seat), entries 4 to 6" in error.message
        began = time.monotonic()
        after = {**bodies[3], "seq": seq + 1}  # and an entry after the round
        error = authenticated(save, [*bodies, after], homes)
        assert error.code == "round" and "at most 3 entries" in error.message
        assert time.monotonic() - began < 5
