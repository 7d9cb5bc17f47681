"""Helpers for engine tests: play whole games in separate homes, forge entries."""

from __future__ import annotations

import datetime
import os
from pathlib import Path
from typing import Any

from pbem import session
from pbem.protocol.crypto.identity import Home, Identity
from pbem.protocol.replay import engine, signing
from pbem.protocol.saveformat import savefile, timing
from pbem.protocol.saveformat.canonical import canonical
from pbem.protocol.saveformat.savefile import Save
from pbem.protocol.state import headers
from pbem.protocol.state.table import Table
from pbem.session import absentees

MAX_ENTRIES = 2500


def tick(**delta: float) -> str:
    """Move this process's clock forward (PBEM_CLOCK, undone after the test by
    tests/conftest.py) by ``delta`` (timedelta's keywords); return the new time."""
    when = timing.stamp(timing.now() + datetime.timedelta(**delta))
    assert when is not None
    os.environ["PBEM_CLOCK"] = when
    return when


def play_game(homes: dict[str, Home], folder: Path, game: str = "dice-race",
              options: list[str] | None = None, bot: str = "random:7",
              stop_after: int | None = None, saves: dict[Path, Save] | None = None,
              rules: int | None = None) -> list[Path]:
    """Create, join, start and play to the end (or ``stop_after`` entries). Returns every
    save written, in order; each hop loads the previous file in the signer's home.
    ``saves``, if given, gets the save written at each path, as it was written (each but
    the last is then read back and verified by the next hop). ``rules``: an older rules
    version of the game."""
    handles = list(homes)
    host = homes[handles[0]]
    folder.mkdir(parents=True, exist_ok=True)
    written = session.new_game(host, game, handles, options or [], None, folder=folder,
                               rules=rules)
    paths = [written.path]
    if saves is not None:
        saves[written.path] = written.save
    while written.table.duty() is not None:
        if stop_after is not None and len(paths) >= stop_after:
            break
        assert len(paths) < MAX_ENTRIES, f"{game} did not end within {MAX_ENTRIES} entries"
        duty = written.table.duty()
        assert duty is not None
        handle = written.table.seats[duty.seat].handle
        kind = "join" if duty.kind == "join" else None
        written = session.sign_next(homes[handle], written.path, kind, [],
                                    bot if duty.kind in ("turn", "reveal") else None, None)
        paths.append(written.path)
        if saves is not None:
            saves[written.path] = written.save
    return paths


def actor(path: Path) -> str:
    """The handle of the seat the save at ``path`` waits for."""
    table = session.load(path, None).table
    duty = table.duty()
    assert duty is not None
    return table.seats[duty.seat].handle


def forge(entry: dict[str, Any], identity: Identity) -> dict[str, Any]:
    """Re-sign an (altered) entry with ``identity``'s key, as a cheating client would."""
    body = {k: v for k, v in entry.items() if k != "sig"}
    body["sig"] = identity.sign(canonical(body)).hex()
    return body


def seed_of(home: Home, save: Save) -> bytes | None:
    """The seed of ``home``'s seat in ``save`` (from the nonce its create/join entry
    published), or None if that seat has not joined in this save."""
    identity = home.load()
    for entry in save.entries:
        if entry["kind"] in ("create", "join") and entry["seat"] == identity.handle:
            return identity.seed(save.game_id, bytes.fromhex(entry["nonce"]))
    return None


def deck_root_of(identity: Identity, save: Save, nonce_hex: str) -> bytes:
    """The root of ``identity``'s mental-deck secrets for the seat whose create/join entry
    published ``nonce_hex`` (its deck seed or, in older rules versions, its seed)."""
    game = headers.header_fits(save.header)
    return signing.deck_root(game, identity, save.game_id, bytes.fromhex(nonce_hex))


def with_entries(save: Save, entries: list[dict[str, Any]], state: dict[str, Any] | None = None
                 ) -> Save:
    return Save(save.header, entries, save.state if state is None else state)


def write(tmp: Path, name: str, save: Save) -> Path:
    path = tmp / name
    path.write_text(savefile.dumps(save), "utf-8")
    return path


def table_after(save: Save) -> Table:
    return engine.replay(save, check_snapshot=False).table


def next_entry(save: Save, home: Home, kind: str, moves: list[str] | None = None,
               **fields: Any) -> dict[str, Any]:
    """The next entry of ``save`` by ``home``'s seat, built and signed by hand as a
    cheating client would (its right beacon link, but no rules check at all)."""
    identity = home.load()
    table = engine.replay(save, check_snapshot=False, audit_secrets=False).table
    seat = table.seat_of(identity.handle)
    assert seat is not None
    entry = {"seq": len(save.entries), "game": save.game_id, "seat": identity.handle,
             "kind": kind, "prev": engine.entry_hash(save.entries[-1]),
             "moves": list(moves or []), "chores": [], "time": timing.now_stamp(), **fields}
    place = table.round_place(seat) if kind not in absence_kinds() else None
    if place is not None:  # its slot of the round under way (PROTOCOL.md 4)
        entry.update({"round": place[0], "seq": place[1], "prev": table.head})
    if kind in savefile.LINK_KINDS:  # only entries in the order of play carry links
        entry["beacon"] = signing.next_link(table, seat, identity).hex()
    return forge(entry, identity)


def absence_kinds() -> tuple[str, ...]:
    from pbem.protocol.timekeeping import absence

    return absence.KINDS


def sign_as(home: Home, path: Path, kind: str | None = None, bot: str | None = "greedy",
            **fields: str) -> session.Written:
    """Whatever ``home`` owes on the save at ``path`` (a bot chooses moves), or an
    absent/vote/confirm entry when ``kind`` says so; written next to ``path``. A proposal
    is signed eight days on (PBEM_CLOCK): past the default patience of 7 days."""
    if kind == "absent":
        tick(days=8)
    if kind in ("absent", "vote", "confirm"):
        return absentees.sign_absence(home, path, kind, dict(fields), None)
    return session.sign_next(home, path, kind, [], bot, None)


def greedy_to_the_end(homes: dict[str, Home], path: Path, limit: int = 80) -> Path:
    """Each entry owed on the save at ``path``, signed in turn by its seat's home (a greedy
    bot choosing the moves), until the game is complete; the last save's path."""
    for _ in range(limit):
        table = session.load(path, next(iter(homes.values()))).table
        duty = table.duty()
        if duty is None:
            return path
        path = session.sign_next(homes[table.seats[duty.seat].handle], path, None, [],
                                 "greedy", None).path
    raise AssertionError(f"the game did not end within {limit} entries")


def relinked(header: dict[str, Any], bodies: list[dict[str, Any]], homes: dict[str, Home]
             ) -> list[dict[str, Any]]:
    """``bodies`` (entries, altered) chained again from ``header`` and each re-signed by its
    own seat's key: every ``prev`` as the protocol sets it, the entries of a round on the
    entry before it and the entry after a round on its round digest (PROTOCOL.md 4)."""
    from pbem.protocol.saveformat.canonical import digest
    from pbem.protocol.state.rounds import round_digest

    entries: list[dict[str, Any]] = []
    head, current, digests = digest(header), None, list[str]()
    for body in bodies:
        first = body.get("round")
        if current is not None and first != current:
            head, current = round_digest(digests), None
        if first is not None and current is None:
            current, digests = first, []
        signed = forge({**body, "prev": head}, homes[body["seat"]].load())
        entries.append(signed)
        if current is None:
            head = digest(signed)
        else:
            digests.append(digest(signed))
    return entries
