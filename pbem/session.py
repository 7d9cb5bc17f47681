"""The operations behind each command, with files, homes and the archive.

The CLI parses arguments and prints; everything it does goes through here, so the demo
and the tests drive exactly the code people use.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pbem.errors import IntegrityError, MoveError, TurnError, UsageError
from pbem.game import Game, State
from pbem.play import bots
from pbem.protocol import engine, savefile
from pbem.protocol.archive import Archive, equivocation
from pbem.protocol.canonical import canonical, digest
from pbem.protocol.identity import Home, Identity, check_address, check_handle
from pbem.protocol.savefile import Save
from pbem.protocol.turns import apply_moves
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
             out: str | None, folder: Path | None = None, host_email: str = "") -> Written:
    """Create a game; ``host_email`` is the host seat's address when its spec has none."""
    identity = home.load()
    game = load_game(ruleset)
    parsed: list[tuple[str, str]] = []
    for spec in seats:
        handle, _, email = spec.partition("=")
        parsed.append((check_handle(handle.strip()),
                       check_address(email) if email.strip() else ""))
    handles = [h for h, _ in parsed]
    host_email = check_address(host_email) if host_email else ""
    if identity.handle not in handles:
        parsed.insert(0, (identity.handle, host_email))
    elif not parsed[0][1] and handles[0] == identity.handle:
        parsed[0] = (identity.handle, host_email)
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


def refuse_stale(verified: Verified) -> None:
    """A save older than one this home has seen must not be played on (a fork)."""
    if verified.stale:
        raise TurnError(verified.notes[0] + " Playing on it would fork the game.")


def sign_next(home: Home, path: str | Path, kind: str | None, moves: list[str],
              bot: str | None, out: str | None, dry_run: bool = False,
              identity: Identity | None = None) -> Written:
    """Join, start, play a turn, resign or reveal: whatever ``kind`` (or the duty) is."""
    identity = identity or home.load()
    verified = load(path, home)
    refuse_stale(verified)
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
    if bot and duty.kind in ("turn", "reveal"):
        # A bot knows what its seat knows: the seat's own secret cards, nobody else's.
        secrets = engine.secrets_for(shown, duty.seat, identity)
        if duty.kind == "turn":
            moves = bots.choose_turn(shown.game, shown.gstate, duty.seat, bot, salt=salt,
                                     secrets=secrets)
        else:  # choices still owed after the game (secret cards drawn in a last turn)
            moves = bots.choose_free_moves(shown.game, shown.gstate, duty.seat, bot, salt=salt,
                                           secrets=secrets)
    entry, new_table = engine.sign_entry(table, identity, wanted, moves)
    save = appended(verified.save, entry, new_table)
    target = output_path(save, entry, Path(path), out)
    if dry_run:
        return Written(target, save, new_table, entry, table)
    written = write(save, target, home)
    return Written(written, save, new_table, entry, table)


@dataclass
class Owed:
    """What this home's seat owes in a save, as it will sign it: the chance its own next
    beacon link resolves is resolved already (engine.preview). ``moves``, the prompt and
    ``play``'s hints try moves on copies of ``state``, never on the save."""

    verified: Verified
    identity: Identity
    table: engine.Table  # the preview
    kind: str  # the duty: join, start, turn or reveal
    seat: int
    _secrets: dict[str, dict[str, str]] | None = field(default=None, repr=False)

    @property
    def handle(self) -> str:
        return self.identity.handle

    @property
    def game(self) -> Game:
        return self.table.game

    @property
    def state(self) -> State:
        return self.table.gstate

    @property
    def takes_moves(self) -> bool:
        return self.kind in ("turn", "reveal")

    def after(self, moves: list[str]) -> tuple[State, list[str]]:
        """A copy of the state after ``moves`` and their canonical forms; a MoveError
        names the move that fails (pbem.protocol.turns.apply_moves, as signing does)."""
        state = copy.deepcopy(self.state)
        return state, apply_moves(self.game, state, self.seat, moves)

    def step(self, state: State, text: str) -> tuple[State, str]:
        """A copy of ``state`` after one more typed move, and its canonical form; the
        game's own MoveError when it does not parse or is not legal there."""
        after = copy.deepcopy(state)
        move = self.game.normalize(after, self.seat, text)
        self.game.apply(after, self.seat, move)
        return after, move

    def options(self, state: State) -> list[str]:
        """The legal next moves in ``state`` (a copy from ``after``)."""
        return self.game.legal_moves(state, self.seat) if self.takes_moves else []

    def unfinished(self, state: State) -> str | None:
        """Why the entry cannot be signed in ``state`` yet (the game's words), or None."""
        if self.kind != "turn" or self.game.can_end_turn(state, self.seat):
            return None
        try:
            self.game.end_turn(copy.deepcopy(state), self.seat)
        except MoveError as exc:
            return exc.message
        return None

    def arrival(self) -> list[str]:
        """What the chance resolved by this seat's link changed since the last entry."""
        return self.game.describe(self.verified.table.gstate, self.state, self.seat)

    def view(self, state: State) -> dict[str, Any]:
        """What this seat may see of ``state``, its own secret cards included."""
        if self._secrets is None:
            self._secrets = engine.secrets_for(self.table, self.seat, self.identity)
        return self.game.view(copy.deepcopy(state), self.seat, self._secrets)


def owed(home: Home, path: str | Path) -> Owed:
    """What this home owes in the save at ``path``, or the TurnError ``play`` would give."""
    identity = home.load()
    verified = load(path, home)
    engine.owed(verified.table, identity)
    shown = engine.preview(verified.table, identity)
    duty = shown.duty()
    assert duty is not None
    return Owed(verified, identity, shown, duty.kind, duty.seat)


def legal_moves(home: Home, path: str | Path, moves: list[str]) -> tuple[str, list[str], bool]:
    """(seat handle, legal moves after ``moves``, whether the turn may end there)."""
    turn = owed(home, path)
    if not turn.takes_moves:
        return turn.handle, [], True
    state, _ = turn.after(moves)
    return turn.handle, turn.options(state), turn.unfinished(state) is None


def seat_view(home: Home | None, verified: Verified) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """(seat handle or '', the view that seat may see, its private part).

    Once the game is complete and audited the view is of the final state (the cards the
    audit opened recorded) and carries the final result (see :func:`final_result`)."""
    table = verified.table
    identity = None
    if home is not None and home.has_identity():
        identity = home.load()
    seat = table.seat_of(identity.handle) if identity else None
    if identity is None or seat is None or table.seats[seat].pubkey not in ("", identity.public_hex):
        return "", public_view(verified), {}
    shown = engine.preview(table, identity)
    secrets = engine.secrets_for(shown, seat, identity)
    final = verified.report.final
    view = shown.game.view(shown.gstate if final is None else final, seat, secrets)
    return identity.handle, _with_result(verified.report, view), secrets


def public_view(verified: Verified) -> dict[str, Any]:
    """The view everyone may see (in mail, and for a home with no seat in the game), of
    the final state with the final result once the game is complete and audited."""
    table = verified.table
    final = verified.report.final
    return _with_result(verified.report,
                        table.game.view(table.gstate if final is None else final, None))


def final_result(report: engine.Report) -> dict[str, Any] | None:
    """What the pictures show of a complete, audited game, as the view's ``result``
    (see pbem.drawing.panels.result_section); None until the audit has run."""
    if report.outcome is None:
        return None
    from pbem.drawing.panels import result_section

    return result_section(report.outcome, [s.handle for s in report.table.seats], report.audit)


def _with_result(report: engine.Report, view: dict[str, Any]) -> dict[str, Any]:
    result = final_result(report)
    return view if result is None else {**view, "result": result}
