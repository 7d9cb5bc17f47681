"""Signing a game forward in tests and benchmarks, one entry at a time, each in the home
of the seat that owes it."""

from __future__ import annotations

from collections.abc import Mapping

from pbem import session
from pbem.protocol.identity import Home, Identity


def fixed_identities(n: int, first: int = 1) -> list[Identity]:
    """Seats p0, p1, ... with Ed25519 keys fixed by their number (seat i's private key
    is 32 bytes of ``first + i``): the same players on every run."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    out = []
    for i in range(n):
        key = Ed25519PrivateKey.from_private_bytes(bytes([first + i]) * 32)
        out.append(Identity(f"p{i}", key.public_key().public_bytes_raw(), key))
    return out


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
