"""Signing a game forward in tests and benchmarks, one entry at a time, each in the home
of the seat that owes it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pbem import session
from pbem.protocol.crypto.identity import Home, Identity
from pbem.protocol.saveformat.savefile import Save


def keyed_homes(folder: Path, handles: Sequence[str]) -> dict[str, Home]:
    """A home with a key for each of ``handles`` under ``folder``/homes (kept if made)."""
    made = {}
    for handle in handles:
        home = Home(folder / "homes" / handle)
        if not home.has_identity():
            home.keygen(handle)
        made[handle] = home
    return made


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


def bot_game(ruleset: str, players: int, options: list[str], seed: bytes, bot: str = "greedy",
             max_entries: int = 3000, game_id: str = "", rules: int | None = None,
             begun: Save | None = None) -> Save:
    """A whole game by ``bot`` (up to ``max_entries`` entries) signed in memory by the
    seats of :func:`fixed_identities`, every fresh value from ``seed`` and the clock
    standing still (tests.support.stream.fixed_entropy): the same game on every run and
    by every version of the code. ``game_id`` names it where given; ``rules``, an older
    rules version of the game (GameInfo.older_rules) it is played under; ``begun``, a
    save of such a game to play on from (verified first), its header and entries kept."""
    from pbem import registry
    from pbem.play import bots
    from pbem.protocol.replay import engine, signing
    from pbem.protocol.state import headers
    from tests.support.stream import fixed_entropy

    with fixed_entropy(seed):
        game = registry.load(ruleset)
        game = game if rules is None else game.for_rules(rules)
        ids = fixed_identities(players)
        header = headers.new_header(game, [(i.handle, "") for i in ids],
                                    headers.parse_options(game, options))
        if game_id:
            header["id"] = game_id
        table = headers.empty_table(header)
        entries: list[dict[str, Any]] = []
        if begun is not None:
            header, entries = begun.header, list(begun.entries)
            table = engine.replay(begun).table
        while (duty := table.duty()) is not None and len(entries) < max_entries:
            missing = table.round_missing()  # a round's entries go in seat order
            seat = missing[0] if missing else duty.seat
            who = ids[seat]
            shown = signing.preview(table, who)
            kind = shown.duty().kind  # type: ignore[union-attr]
            moves = (bots.choose_turn(shown.game, shown.gstate, seat, bot,
                                      salt=str(len(entries))) if kind == "turn" else [])
            entry, table = signing.sign_entry(table, who, kind, moves)
            entries.append(entry)
    return Save(header, entries, engine.public_state(table))
