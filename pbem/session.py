"""The operations behind each command, with files, homes and the archive.

The CLI parses arguments and prints; everything it does goes through here, so the demo
and the tests drive exactly the code people use.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pbem.errors import IntegrityError, TurnError, UsageError
from pbem.play import bots
from pbem.protocol import engine, savefile
from pbem.protocol.archive import Archive, equivocation
from pbem.protocol.canonical import canonical, digest
from pbem.protocol.identity import Home, Identity, check_address, check_handle
from pbem.protocol.savefile import Save
from pbem.registry import load as load_game


@dataclass
class Verified:
    save: Save
    report: engine.Report
    notes: list[str] = field(default_factory=list)
    stale: bool = False

    @property
    def table(self) -> engine.Table:
        return self.report.table


def verify(save: Save, home: Home | None, *, full: bool = False, record: bool = True) -> Verified:
    """Every check of PROTOCOL.md section 9, re-using the archive unless ``full``."""
    header_hash = digest(save.header)
    engine.check_header_game(save.header)
    if save.entries[0]["prev"] != header_hash:
        raise IntegrityError(
            "The header was altered after the game was created (its hash no longer matches "
            "entry 0). Ask the sender for an untouched save.", seq=0, code="header")
    hashes = [engine.entry_hash(e) for e in save.entries]
    archive = Archive(home.archive_dir, save.game_id) if home is not None else None
    start: engine.Table | None = None
    start_at = 0
    # A save with reveals is audited from its first entry (the audit re-computes every
    # secret-deck chore), so the archive's cache is not used for it.
    complete = any(e["kind"] == "reveal" for e in save.entries)
    if archive is not None and not full and not complete and archive.data["header"] == header_hash:
        cached = archive.cached_table(hashes)
        if cached is not None:
            start_at, table_json = cached
            start = engine.Table.from_json(save.header, copy.deepcopy(table_json))
    witness = None
    if archive is not None:
        def witness(entry: savefile.Entry, entry_hash: str) -> None:
            other = archive.fork_with(entry, entry_hash)
            if other is not None and other["seat"] == entry["seat"]:
                raise equivocation(entry, other)

    report = engine.replay(save, start=start, start_at=start_at, hashes=hashes, witness=witness)
    out = Verified(save, report)
    if archive is not None:
        note = archive.staleness(hashes)
        if note:
            out.notes.append(note)
            out.stale = True
        elif record:
            try:
                archive.record(header_hash, save.entries, hashes, report.table.to_json())
            except OSError as exc:
                out.notes.append(f"(could not update the archive in {home.path if home else ''}: "
                                 f"{exc.strerror})")
    out.notes.extend(component_notes(save))
    return out


def component_notes(save: Save) -> list[str]:
    game = load_game(save.ruleset)
    if canonical(game.stock_components()) != canonical(save.header["components"]):
        return [f"Note: this game was created with {game.info.title} component data that "
                "differs from the data installed here; the save's own copy is used."]
    return []


def load(path: str | Path, home: Home | None, *, full: bool = False) -> Verified:
    return verify(savefile.read(path), home, full=full)


# ---- writing -----------------------------------------------------------------------------
def output_path(save: Save, entry: savefile.Entry, near: Path | None, out: str | None) -> Path:
    if out:
        return Path(out)
    name = savefile.default_name(save.ruleset, save.game_id, entry["seq"], entry["seat"])
    return (near.parent if near else Path(".")) / name


def appended(save: Save, entry: savefile.Entry, table: engine.Table) -> Save:
    return Save(save.header, save.entries + [entry], engine.public_state(table))


def write(save: Save, path: Path, home: Home | None) -> Path:
    """Write a new save atomically, then record it in the writer's archive."""
    written = savefile.write_new(path, savefile.dumps(save))
    if home is not None:
        verify(save, home)  # files the new entry in the writer's archive (one entry's work)
    return written


@dataclass
class Written:
    path: Path
    save: Save
    table: engine.Table
    entry: savefile.Entry
    previous: engine.Table | None = None  # the table the entry was signed on

    def changes(self) -> list[str]:
        """What the entry changed, in the game's words (Game.describe)."""
        if self.previous is None or self.entry["kind"] not in ("turn", "reveal"):
            return []
        seat = self.table.seat_of(self.entry["seat"])
        assert seat is not None
        return self.table.game.describe(self.previous.gstate, self.table.gstate, seat)

    def next_step(self) -> str:
        duty = self.table.duty()
        if duty is None:
            return "The game is complete and audited. Send this save to everyone; " \
                   "'pbem verify' shows the final scores."
        who = self.table.seats[duty.seat]
        action = {"join": "join it with 'pbem join'", "start": "start it with 'pbem play'",
                  "turn": "play with 'pbem play'", "reveal": "reveal with 'pbem play'"}[duty.kind]
        mail = f" <{who.email}>" if who.email else ""
        return f"Send it to {who.handle}{mail}, who will {action}."


def new_game(home: Home, ruleset: str, seats: list[str], options: list[str],
             out: str | None, folder: Path | None = None) -> Written:
    identity = home.load()
    game = load_game(ruleset)
    parsed: list[tuple[str, str]] = []
    for spec in seats:
        handle, _, email = spec.partition("=")
        parsed.append((check_handle(handle.strip()),
                       check_address(email) if email.strip() else ""))
    handles = [h for h, _ in parsed]
    if identity.handle not in handles:
        parsed.insert(0, (identity.handle, ""))
    elif handles[0] != identity.handle:
        raise UsageError(f"Seat 1 is the host: list yourself ({identity.handle}) first, or "
                         "leave yourself out and you will be added as seat 1.")
    if len({h for h, _ in parsed}) != len(parsed):
        raise UsageError("Each handle may sit only once.")
    typed = engine.parse_options(game, options)
    header = engine.new_header(game, parsed, typed)
    table = engine.empty_table(header)
    entry, table = engine.sign_entry(table, identity, "create")
    save = appended(Save(header, []), entry, table)
    near = (folder / "x") if folder else None
    path = write(save, output_path(save, entry, near, out), home)
    return Written(path, save, table, entry)


def sign_next(home: Home, path: str | Path, kind: str | None, moves: list[str],
              bot: str | None, out: str | None, dry_run: bool = False,
              identity: Identity | None = None) -> Written:
    """Join, start, play a turn, resign or reveal: whatever ``kind`` (or the duty) is."""
    identity = identity or home.load()
    verified = load(path, home)
    if verified.stale:
        raise TurnError(verified.notes[0] + " Playing on it would fork the game.")
    table = verified.table
    engine.owed(table, identity)
    shown = engine.preview(table, identity)
    duty = shown.duty()
    assert duty is not None
    wanted = kind or duty.kind
    if wanted == "join" and duty.kind != "join":
        raise TurnError("You have already joined this game." if table.seats[duty.seat].pubkey
                        else f"This game is not waiting for a join but for a {duty.kind}.")
    if duty.kind == "join" and wanted != "join":
        raise TurnError("You have not joined this game yet: run 'pbem join SAVE' first.")
    if moves and duty.kind not in ("turn", "reveal"):
        raise TurnError(f"You owe a {duty.kind} now, which takes no moves; run 'pbem play "
                        "SAVE' with no moves.")
    salt = f"{table.game_id}/{len(table.signers)}"
    # The greedy bot knows what its seat knows: its own readable secret cards, nobody
    # else's (reading them is as loud about a wrong peel as 'show' is).
    weighs = bot is not None and bots.parse_bot(bot)[0] == "greedy" and duty.kind in ("turn", "reveal")
    mine = engine.secrets_for(shown, duty.seat, identity) if weighs else {}
    if bot and duty.kind == "turn":
        moves = bots.choose_turn(shown.game, shown.gstate, duty.seat, bot, salt=salt,
                                 secrets=mine)
    elif bot and duty.kind == "reveal":
        # Choices still owed after the game (secret cards drawn in a last turn).
        moves = bots.choose_free_moves(shown.game, shown.gstate, duty.seat, bot, salt=salt,
                                       secrets=mine)
    entry, new_table = engine.sign_entry(table, identity, wanted, moves)
    save = appended(verified.save, entry, new_table)
    target = output_path(save, entry, Path(path), out)
    if dry_run:
        return Written(target, save, new_table, entry, table)
    written = write(save, target, home)
    return Written(written, save, new_table, entry, table)


def legal_moves(home: Home, path: str | Path, moves: list[str]) -> tuple[str, list[str], bool]:
    """(seat handle, legal moves after ``moves``, whether the turn may end there)."""
    from pbem.protocol.turns import apply_moves

    identity = home.load()
    verified = load(path, home)
    table = verified.table
    engine.owed(table, identity)
    shown = engine.preview(table, identity)
    duty = shown.duty()
    if duty is None or duty.kind not in ("turn", "reveal"):
        return identity.handle, [], True
    state = copy.deepcopy(shown.gstate)
    game = shown.game
    apply_moves(game, state, duty.seat, moves)
    legal = game.legal_moves(state, duty.seat)
    if duty.kind == "reveal":
        return identity.handle, legal, True
    return identity.handle, legal, game.can_end_turn(state, duty.seat)


def seat_view(home: Home | None, verified: Verified) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """(seat handle or '', the view that seat may see, its private part)."""
    table = verified.table
    identity = None
    if home is not None and home.has_identity():
        identity = home.load()
    seat = table.seat_of(identity.handle) if identity else None
    if identity is None or seat is None or table.seats[seat].pubkey not in ("", identity.public_hex):
        return "", table.game.view(table.gstate, None), {}
    shown = engine.preview(table, identity)
    secrets = engine.secrets_for(shown, seat, identity)
    return identity.handle, shown.game.view(shown.gstate, seat, secrets), secrets
