"""Signing a game forward in tests and benchmarks, one entry at a time, each in the home
of the seat that owes it."""

from __future__ import annotations

from collections.abc import Mapping

from pbem import session
from pbem.protocol.identity import Home


def sign_duty(homes: Mapping[str, Home], written: session.Written,
              bot: str | None = None) -> session.Written:
    """The entry ``written``'s game owes next, signed in the home of the seat that owes it:
    its join, or its turn played by ``bot``; any other duty (start, vote, reveal) as the
    session signs it with no moves. The signer's handle is the new entry's ``seat``."""
    duty = written.table.duty()
    assert duty is not None, "the game owes no entry"
    handle = written.table.seats[duty.seat].handle
    return session.sign_next(homes[handle], written.path,
                             "join" if duty.kind == "join" else None, [],
                             bot if duty.kind == "turn" else None, None)
