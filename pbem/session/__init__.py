"""The operations behind each command, with files, homes and the archive.

The CLI parses arguments and prints; everything it does goes through here, so the demo
and the tests drive exactly the code people use.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Collection, Iterator
from pathlib import Path
from typing import Any

from pbem import atomic
from pbem.errors import IntegrityError, MoveError, OptionError, PbemError, TurnError, UsageError
from pbem.game import Game, State, copy_state, play_move
from pbem.home import gameindex, sealed, stockdigest
from pbem.home.archive import Archive
from pbem.home.contacts import Contacts, SeatKey
from pbem.protocol.crypto.edkeys import is_sound_key
from pbem.protocol.crypto.identity import Home, Identity, check_address, check_handle, fingerprint
from pbem.protocol.replay import engine, signing
from pbem.protocol.saveformat import savefile, timing
from pbem.protocol.saveformat.canonical import digest
from pbem.protocol.saveformat.savefile import HEX64, Save
from pbem.protocol.state import headers
from pbem.protocol.state.table import Duty, Report, Table, silent
from pbem.protocol.state.turns import apply_moves
from pbem.protocol.timekeeping import absence, clock
from pbem.record import Record
from pbem.registry import load as load_game
from pbem.session import holding, invitation, steps
from pbem.session.branches import OwnLinks, guard_branches, lock_path, went_on
from pbem.session.verified import Verified


def verify(save: Save, home: Home | None, *, full: bool = False, record: bool = True,
           path: Path | None = None, on_entry: engine.OnEntry | None = None,
           told_from: int = 0, signed_here: str | None = None) -> Verified:
    """Every check of PROTOCOL.md section 9, re-using the archive unless ``full``.

    ``path``: where the save was read or written; the home's game index records it as
    its newest save of the game (:func:`remember`). ``on_entry`` is told of every entry
    from seq ``told_from`` on (engine.replay): the archive's cached table is then used
    only if it lies before that entry, so one replay serves both. ``signed_here``: the
    hash of the entry this process just signed (:func:`write`; engine.replay checks that
    it did)."""
    header_hash = digest(save.header)
    archive = Archive(home.archive_dir, save.game_id) if home is not None else None
    same_game = archive is not None and archive.data["header"] == header_hash
    # A save with reveals is audited from its first entry (the audit re-computes every
    # secret-deck chore), so the archive's cache is not used for it.
    complete = any(e["kind"] == "reveal" for e in save.entries)

    def resume(hashes: list[str]) -> tuple[int, Table] | None:
        if archive is None or full or complete or not same_game:
            return None
        cached = archive.cached_table(hashes)
        if cached is None:
            return None
        start_at, table_json = cached
        if on_entry is not None and start_at > told_from:
            return None
        try:
            return start_at, Table.from_json(save.header, table_json)
        except (KeyError, TypeError, ValueError):
            return None  # a damaged cache only costs a full replay

    vouched = archive.verified_at if archive is not None and same_game and not full else None
    checks: dict[str, Any] = {"vouched": vouched, "resume": resume, "header_hash": header_hash,
                              "witness": archive.check_fork if archive is not None else None}
    whole, at, whole_hashes = save, timing.now(), list[str]()
    me = holding.own_handle(home)
    in_effect = holding.cut(save, archive if same_game else None, me, at)
    cut = in_effect.upto
    if cut < len(save.entries):
        # The whole file is checked all the same (its audit waits with it); the save this
        # home goes by ends before the first entry dated ahead (PROTOCOL.md section 11).
        # Not resumed: a replay applies entries to the resumed table in place, and the
        # archive's cached table must stay as it is for the replay of that save.
        whole_hashes = engine.replay(save, audit_secrets=False,
                                     **{**checks, "resume": None}).hashes
        save = Save(save.header, save.entries[:cut], save.state)
        complete = any(e["kind"] == "reveal" for e in save.entries)
    report = engine.replay(save, on_entry=on_entry, signed_here=signed_here,
                           check_snapshot=save is whole, **checks)
    hashes = report.hashes
    waiting = whole_hashes[cut:] if save is not whole else []
    # The digest of the components, for the note on them: worked out by the replay from
    # entry 0, or kept in the archive with this header's hash, or worked out here.
    components = (report.components_digest
                  or (archive.components_digest(header_hash) if archive is not None else None)
                  or digest(save.header["components"]))
    out = Verified(save, report)
    out.whole, out.waiting = whole, in_effect.waiting(whole)
    if archive is not None and archive.data["header"] and archive.data["header"] != header_hash:
        out.id_reused = True
        out.notes.append(id_reused_message(save.game_id))
    elif archive is not None:
        note = archive.staleness(hashes)
        if note:
            out.notes.append(note)
            out.stale = True
        elif record:
            try:
                archive.record(header_hash, save.entries, hashes, report.table.to_json(),
                               components, seen=timing.stamp(at) or "",
                               waiting=tuple(waiting), later=timing.signed_after(whole.entries))
            except OSError as exc:
                out.notes.append(f"(could not update the archive in {home.path if home else ''}: "
                                 f"{exc.strerror})")
        branches = archive.branch_notes(save.entries, hashes,
                                        holding.counted_rule(save, hashes, archive, me, at))
        out.branches = [b.note for b in branches]
        out.void = next((b.note for b in branches if b.void), "")
        out.branches_void = bool(branches) and all(b.decided and not b.void for b in branches)
        if record and not out.stale and path is not None and home is not None:
            remember(home, out, path)
        out.late = archive.late(whole.entries, [*hashes, *waiting], clock.late_after(
            save.header))
        if out.branches and home is not None:
            out.revealed_elsewhere = _revealed_elsewhere(archive, home, save)
        if out.revealed_elsewhere is not None:
            out.branches.append(
                f"You revealed your seed on another branch of this game (entry "
                f"{out.revealed_elsewhere}), so pbem signs nothing more for you on this save: "
                "for you the game goes on where you revealed.")
        out.notes.extend(out.branches)
    out.notes.extend(component_notes(save, home, components))
    out.notes.extend(skip_notes(report.table))
    out.notes.extend(_waiting_notes(out.waiting, cut, at))
    out.notes.extend(late["words"] for late in out.late)
    return out


def _waiting_notes(waiting: list[timing.Waiting], cut: int, at: Any) -> list[str]:
    """verify's sentences on the entries of the file not in effect here."""
    if not waiting:
        return []
    builds = ("pbem builds on the save before them" if waiting[0].reason
              else "pbem builds on none of them")
    return [*(w.words(at) for w in waiting),
            f"This home goes by the save up to entry {cut - 1} until then: nothing comes "
            f"from the entries that wait, and {builds}."]


def _revealed_elsewhere(archive: Archive, home: Home, save: Save) -> int | None:
    """The seq of this home's reveal of its seat's seed on another branch than ``save``'s
    (it signs nothing more on this one: :func:`guard_branches`), else None."""
    if not archive.data["revealed"] or not home.has_identity():
        return None
    try:
        handle = str(home.info()["handle"])
    except PbemError:
        return None
    seq = archive.revealed(handle)
    if seq is None or any(e["seat"] == handle and e["kind"] == "reveal" for e in save.entries):
        return None
    return seq


def skip_notes(table: Table) -> list[str]:
    """A sentence for each entry that skipped links of its seat's beacon chain: only on
    evidence, the signed entries of a branch an answer to a proposal voided, on which that
    seat published the links it skips (PROTOCOL.md section 5); shown, never hidden."""
    skips = sorted((seq, count, record.handle) for record in table.seats
                   for seq, count in record.skips)
    return [f"Entry {seq} ({handle}) skips {count} link{'s' if count > 1 else ''} of "
            f"{handle}'s beacon chain, which {handle} published on a branch that an answer "
            "to a proposal voided; it carries that branch's signed entries as evidence, and "
            "they hold." for seq, count, handle in skips]


def remember(home: Home, verified: Verified, path: Path) -> None:
    """Record ``path`` as this home's newest save of the game, if this home has a seat in
    it (its handle, not yet joined or joined with its key) and the save is not older
    than the one known. A home that cannot be written loses only the listing."""
    record = index_record(home, verified, path)
    if record is not None:
        # The game's branch replaces a void one listed before, however long that is.
        remember_record(home, record, replace=verified.branches_void)


def index_record(home: Home, verified: Verified, path: Path) -> gameindex.GameRecord | None:
    """What :func:`remember` would record of this save (None: nothing)."""
    if verified.stale or verified.id_reused or verified.void or not home.has_identity():
        return None
    try:
        info = home.info()
    except PbemError:
        return None
    seat = verified.table.seat_of(str(info.get("handle", "")))
    if seat is None or verified.table.seats[seat].pubkey not in ("", info.get("public_key")):
        return None
    return gameindex.summarize(verified.save, verified.report, Path(path), str(info["handle"]),
                               tuple(w.to_json() for w in verified.waiting))


def remember_record(home: Home, record: gameindex.GameRecord, replace: bool = False) -> None:
    with contextlib.suppress(OSError):
        gameindex.GameIndex(home.path).remember(record, replace)


def id_reused_message(game_id: str) -> str:
    return (f"This home has already seen another game with the id {game_id[:8]} (a different "
            "header). A game id is never used twice: whoever made this save re-used it, "
            "perhaps to learn the players' secrets. pbem will not sign in this game.")


def component_notes(save: Save, home: Home | None = None,
                    components_digest: str | None = None) -> list[str]:
    """A note if the save's component data (whose digest is ``components_digest``, if
    the caller has it) differs from the data installed here."""
    game = load_game(save.ruleset)
    installed = stockdigest.stock_digest(home.path if home is not None else None, game)
    if components_digest is None:
        components_digest = digest(save.header["components"])
    if installed != components_digest:
        return [f"Note: this game was created with {game.info.title} component data that "
                "differs from the data installed here; the save's own copy is used."]
    return []


def load(path: str | Path, home: Home | None, *, full: bool = False,
         on_entry: engine.OnEntry | None = None, told_from: int = 0) -> Verified:
    return verify(savefile.read(path), home, full=full, path=Path(path), on_entry=on_entry,
                  told_from=told_from)


# ---- writing -----------------------------------------------------------------------------
def output_path(save: Save, entry: savefile.Entry, near: Path | None, out: str | None) -> Path:
    if out:
        return Path(out)
    name = savefile.default_name(save.ruleset, save.game_id, entry["seq"], entry["seat"])
    if "round" in entry:  # named by every signer of the round it ends in (PROTOCOL.md 4)
        from pbem.protocol.state.rounds import save_name

        name = save_name(save)
    return (near.parent if near else Path(".")) / name


def appended(save: Save, entry: savefile.Entry, table: Table) -> Save:
    entries = save.entries + [entry]
    if "round" in entry:  # a round's entries are stored in seat order (PROTOCOL.md 4)
        entries.sort(key=lambda e: int(e["seq"]))
    return Save(save.header, entries, engine.public_state(table))


def write(save: Save, path: Path, home: Home | None, links: OwnLinks | None = None,
          signed: savefile.Entry | None = None) -> Path:
    """Write a new save atomically, then record it in the writer's archive. Every caller
    writes the save it has just made with signing.sign_entry, on the table of the save
    before it. ``links`` journals the file first (a crash then leaves where to look,
    pbem.home.claims), and releases its claim if the file cannot be written (it exists,
    no room): the new entry's beacon link was then never published."""
    text = ""
    try:
        text = savefile.dumps(save)
        if links is not None:
            links.writing(path, save.entries[-1] if signed is None else signed)
        written = savefile.write_new(path, text)
    except BaseException as exc:  # Ctrl-C too: the claim must not outlive an unwritten save
        if links is not None and not (text and savefile.holds(path, text)):
            links.release()
        if isinstance(exc, OSError):  # no room, no permission: one sentence, not a bug
            raise UsageError(f"Could not write {path} ({exc.strerror}); nothing was "
                             "written.") from None
        raise
    if home is not None:
        # the entry just signed: the last, unless it went into a round before a later
        # seat's entry (appended)
        new_entry = digest(save.entries[-1] if signed is None else signed)
        Archive(home.archive_dir, save.game_id).written(new_entry)  # its claim is settled
        # Verified once more as it is filed in the archive. The secret-deck proofs of an
        # entry signed in this process were checked as it was signed, moments ago, so not
        # twice; engine.replay makes sure this one was (any other has them all checked).
        verify(save, home, path=written, signed_here=new_entry)
    return written


class Written(Record):
    def __init__(self, path: Path, save: Save, table: Table, entry: savefile.Entry,
                 previous: Table | None = None, keys: list[SeatKey] | None = None
                 ) -> None:
        self.path = path
        self.save = save
        self.table = table
        self.entry = entry
        self.previous = previous  # the table the entry was signed on
        self.keys = [] if keys is None else keys  # every seat's key, new/known/CHANGED

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
            gone = [self.table.seats[s].handle for s in sorted(silent(self.table))]
            audited = "audited" if not gone else (
                f"audited but for {', '.join(gone)}, who never revealed (declared absent)")
            return f"The game is complete and {audited}. Send this save to everyone; " \
                   "'pbem verify' shows the final scores."
        missing = self.table.round_missing()
        if duty.kind == "join" and missing:
            return steps.joins_step(self.table, missing)
        if duty.kind == "reveal" and missing:
            return steps.reveals_step(self.table, missing,
                                      self.table.seat_of(self.entry["seat"]))
        if duty.kind == "turn" and missing:
            return steps.turns_step(self.table, missing, self.table.seat_of(self.entry["seat"]))
        who = self.table.seats[duty.seat]
        action = {"join": "join it with 'pbem join'", "start": "start it with 'pbem play'",
                  "turn": "play with 'pbem play'", "reveal": "reveal with 'pbem play'",
                  "vote": "vote with 'pbem vote SAVE accept' (or refuse)"}[duty.kind]
        if who.handle == self.entry["seat"]:  # the signer acts again (a solo game)
            return f"You ({who.handle}) are next: {action} on this save."
        mail = f" <{who.email}>" if who.email else ""
        return f"Send it to {who.handle}{mail}, who will {action}."


def new_game(home: Home, ruleset: str, seats: list[str], options: list[str],
             out: str | None, folder: Path | None = None, host_email: str = "",
             patience: str = timing.DEFAULT_PATIENCE, away: int = timing.DEFAULT_AWAY_DAYS,
             rules: int | None = None) -> Written:
    """Create a game; ``host_email`` is the host seat's address when its spec has none;
    ``patience`` and ``away`` set the game clock (PROTOCOL.md section 11); ``rules``, an
    older rules version the game still plays (GameInfo.older_rules), else the current."""
    identity = home.load()
    game = load_game(ruleset)
    if rules is not None:
        try:
            game = game.for_rules(rules)
        except ValueError:
            raise UsageError(f"{game.info.title} has no rules version {rules}.") from None
    parsed: list[tuple[str, str]] = []
    for spec in seats:
        handle, _, email = spec.partition("=")
        parsed.append((check_handle(handle.strip()),
                       check_address(email) if email.strip() else ""))
    handles = [h for h, _ in parsed]
    host_email = check_address(host_email) if host_email else ""
    if identity.handle not in handles:  # the host left out is seat 1 ('pbem new' says so)
        parsed.insert(0, (identity.handle, host_email))
        info = game.info
        if not info.min_players <= len(parsed) <= info.max_players:
            given = f"{len(handles)} seat{'s' if len(handles) != 1 else ''} given"
            raise OptionError(f"{info.title} takes {info.min_players} to {info.max_players} "
                              f"players; with you and the {given} that is {len(parsed)}.")
    elif not parsed[0][1] and handles[0] == identity.handle:
        parsed[0] = (identity.handle, host_email)
    elif handles[0] != identity.handle:
        raise UsageError(f"Seat 1 is the host: list yourself ({identity.handle}) first, or "
                         "leave yourself out and you will be added as seat 1.")
    if len({h for h, _ in parsed}) != len(parsed):
        raise UsageError("Each handle may sit only once.")
    typed = headers.parse_options(game, options)
    headers.refuse_repeated_options(options)
    header = headers.new_header(game, parsed, typed, keys=pins_from_contacts(home, identity, parsed),
                               patience=patience, away=away)
    if Archive.seen(home.archive_dir, header["id"]):  # only a broken random generator
        raise IntegrityError(f"This home has already seen a game with the id {header['id'][:8]}; "
                             "a new game needs a new id. Check the system's random generator.",
                             code="game-id-reused")
    try:
        table = headers.empty_table(header)
    except headers.SetupOptionError as exc:  # the options were the user's: exit 2
        raise OptionError(exc.reason) from None
    entry, table = signing.sign_entry(table, identity, "create")
    save = appended(Save(header, []), entry, table)
    near = (folder / "x") if folder else None
    path = write(save, output_path(save, entry, near, out), home)
    return Written(path, save, table, entry,
                   keys=Contacts(home).seat_keys(save))


def pins_from_contacts(home: Home, identity: Identity,
                       seats: list[tuple[str, str]]) -> dict[str, str]:
    """handle -> key for the host and every seat whose key this home's contacts know
    (PROTOCOL.md section 3): a join by another key is then refused. A key that is not
    sound, or that two handles share, is not pinned."""
    contacts = Contacts(home)
    pins = {identity.handle: identity.public_hex}
    for handle, _ in seats:
        key = contacts.key_for(handle)
        if handle == identity.handle or not HEX64.match(key):
            continue
        if is_sound_key(bytes.fromhex(key)) and key not in pins.values():
            pins[handle] = key
    return pins


def refuse_stale(verified: Verified, home: Home | None = None) -> None:
    """A save this home must not sign on: a game id it has seen with another header (the
    re-used id attack, PROTOCOL.md section 2), or a save older than one it has seen (a
    fork). Where this home's own unsent entry is what made it stale, the message says
    how to take that entry back (``pbem undo``, PROTOCOL.md section 10)."""
    if verified.id_reused:
        raise IntegrityError(id_reused_message(verified.save.game_id), code="game-id-reused")
    if verified.stale:
        raise TurnError(verified.notes[0] + " Playing on it would fork the game."
                        + (undo_hint(verified, home) if home is not None else ""))
    if verified.void:
        raise TurnError(f"{verified.void} Nothing was written; go on from the save of the "
                        "other branch.", code="void")
    refuse_future(verified)


def refuse_future(verified: Verified) -> None:
    """TurnError("future") if an entry of the file is not yet in effect for this home
    (dated more than an hour ahead of its clock, PROTOCOL.md section 11): this home
    neither votes on it nor builds on it until its clock gets there, so nobody skips a
    wait (a seat's patience, a withheld reveal) by dating an entry ahead. The save before
    it is not stale: a player may go on from there. An entry held back because it counts
    a patience from entries this home had only late (pbem.protocol.timekeeping.holdback) is no such
    wait: the save before it is the one this home plays on, so the seat it names answers
    on the very file it got."""
    if verified.dated_ahead:
        first = verified.waiting[0]
        raise TurnError(
            f"{first.words(timing.now())} pbem does not vote on or build on an entry that "
            "is not in effect, so that nobody can skip a wait by dating an entry ahead. "
            "Nothing was written. Run this again from "
            f"{timing.shown(verified.waiting[-1].from_)}, or go on from the save before "
            f"entry {first.seq} (or check this computer's clock).", code="future")


def undo_hint(verified: Verified, home: Home) -> str:
    """' To take back ... run pbem undo FILE.' if this home signed the entry that follows
    this save and has not mailed it; else ''."""
    if not home.has_identity():
        return ""
    save = verified.save
    archive = Archive(home.archive_dir, save.game_id)
    after = archive.successors(verified.report.hashes[-1])
    mine = [h for h in after if archive.data["entries"][h][1] == home.load().handle]
    if not mine or archive.successors(mine[0]) or archive.was_sent(mine[0]):
        return ""
    seq = archive.data["entries"][mine[0]][0]
    # The game's short id names the newest save this home holds of it, the one with that
    # entry, wherever -o wrote it (a file name guessed from the entry may not exist).
    return (f" You signed entry {seq} on it and have not mailed it: to take it back and "
            f"play again, run 'pbem undo {save.game_id[:8]}' (this game's newest save "
            "here, which holds it).")


@contextlib.contextmanager
def game_lock(home: Home, path: str | Path) -> Iterator[None]:
    """Hold HOME/locks/GAME_ID.lock for the game of the save at ``path``, from reading
    it to writing the next save: another pbem process signing in the same game from this
    home waits, then finds the entry this one wrote (stale: it refuses to fork)."""
    game_id = savefile.read(path).game_id
    if not gameindex.GAME_ID.fullmatch(game_id):
        yield  # not an id pbem writes: verify refuses the save anyway
        return
    with atomic.locked(lock_path(home, game_id)):
        yield


def sign_next(home: Home, path: str | Path, kind: str | None, moves: list[str],
              bot: str | None, out: str | None, dry_run: bool = False,
              identity: Identity | None = None, accept_keys: Collection[str] = (),
              confirm: Callable[[SeatKey], bool] | None = None,
              fields: dict[str, str] | None = None,
              leave_branch: bool = False, current_rules: bool = False) -> Written:
    """:func:`_sign_next` with the game locked in this home (:func:`game_lock`)."""
    with game_lock(home, path):
        return _sign_next(home, path, kind, moves, bot, out, dry_run, identity, accept_keys,
                          confirm, leave_branch, fields, current_rules)


def _sign_next(home: Home, path: str | Path, kind: str | None, moves: list[str],
               bot: str | None, out: str | None, dry_run: bool = False,
               identity: Identity | None = None, accept_keys: Collection[str] = (),
               confirm: Callable[[SeatKey], bool] | None = None,
               leave_branch: bool = False, fields: dict[str, str] | None = None,
               current_rules: bool = False) -> Written:
    """Join, start, play a turn, resign or reveal: whatever ``kind`` (or the duty) is.
    ``fields``: ``away_until``, an away note (PROTOCOL.md 11); ``note``, table talk (4).
    ``current_rules``: a join only under the game's current rules (invitation.py).

    Before signing, every seat's key is compared with this home's contacts: a CHANGED key
    for a known handle stops here (IntegrityError "key-changed", nothing written) unless
    the handle is in ``accept_keys`` or ``confirm`` (a question at the terminal) says
    yes; the accepted key then replaces the known one. Written.keys lists every seat.

    A home that knows another branch of the game signs no reveal on this one (its seed
    would be public there too) unless ``leave_branch`` says the players dropped the
    other; a turn, start or resign leaves the others (see :func:`guard_branches`)."""
    identity = identity or home.load()
    verified = load(path, home)
    refuse_stale(verified, home)
    table = verified.table
    owed = signing.owed(table, identity)
    links = OwnLinks(home, table, identity, verified.report.hashes, held=True)
    shown = signing.preview(table, identity, links.used, links.voided)
    # A reveal is the signer's own (in a round, or answering a proposal queued behind
    # another), and so is a proposed seat's answer: the game may name another seat first.
    duty = owed if owed.kind == "reveal" or absence.answers(table, owed.seat) else shown.duty()
    assert duty is not None
    if table.round_place(owed.seat) is not None:  # a round: this seat acts, not its first
        duty = Duty(owed.seat, duty.kind)
    elif signing.bot_then_round(table, shown, owed.seat):
        moves, bot = [], None  # the bot's turns only: this seat's own goes in the round
    if duty.kind == "vote":
        raise TurnError(f"It is your vote on {absence.proposal_words(table)}: run 'pbem vote "
                        "SAVE accept' or 'pbem vote SAVE refuse' ('pbem show SAVE' shows the "
                        "proposal and its deadlines).")
    wanted = kind or duty.kind
    if wanted == "join" and duty.kind != "join":
        raise TurnError("You have already joined this game." if table.seats[duty.seat].pubkey
                        else f"This game is not waiting for a join but for a {duty.kind}.")
    if duty.kind == "join" and wanted != "join":
        raise TurnError("You have not joined this game yet: run 'pbem join SAVE' first.")
    if current_rules and duty.kind == "join":
        invitation.refuse_older_rules(table.header)
    if moves and (duty.kind not in ("turn", "reveal") or table.asks_deck_work(owed.seat)):
        what = "secret-deck work" if duty.kind == "turn" else f"a {duty.kind}"
        raise TurnError(f"You owe {what} now, which takes no moves; run 'pbem play SAVE' with "
                        "no moves.")
    salt = f"{table.game_id}/{len(table.signers)}"
    # A bot knows what its seat knows: its own readable secret cards, nobody else's
    # (reading them is as loud about a wrong peel as 'show' is).
    mine = signing.secrets_for(shown, duty.seat, identity) if bot and duty.kind in (
        "turn", "reveal") else {}
    opening = shown.commitment(duty.seat) if duty.kind == "turn" and wanted == "turn" else None
    if opening is not None and not moves:  # a sealed step's moves, opened as sealed
        moves = sealed.opening_moves(home.path, table.game_id, opening[0])
    if bot:
        from pbem.play import bots  # only for a bot's move: it costs start-up time
    if bot and duty.kind == "turn" and opening is None:
        moves = bots.choose_turn(shown.game, shown.gstate, duty.seat, bot, salt=salt,
                                 secrets=mine)
    elif bot and duty.kind == "reveal" and shown.reveals_take_moves():
        # Choices still owed after the game (secret cards drawn in a last turn).
        moves = bots.choose_free_moves(shown.game, shown.gstate, duty.seat, bot, salt=salt,
                                       secrets=mine)
    guard_branches(home, verified, identity, wanted, leave_branch)
    contacts = Contacts(home)
    keys = contacts.seat_keys(verified.save)
    accepted = _confirm_changed_keys(keys, accept_keys, confirm)
    try:
        entry, new_table = signing.sign_entry(table, identity, wanted, moves, fields,
                                             used=links.used, voided=links.voided,
                                             claim=None if dry_run else links.claim)
    except TurnError as exc:
        if exc.code != "branch-behind":
            raise
        raise TurnError(exc.message + links.branch_words(verified.report.hashes),
                        code=exc.code) from None
    try:
        new_table = signing.in_seat_order(verified.save, entry, new_table)
        save = appended(verified.save, entry, new_table)
        keys = contacts.seat_keys(save)
        target = output_path(save, entry, Path(path), out)
        if dry_run:
            return Written(target, save, new_table, entry, table, keys=keys)
        if "sealed" in entry:  # kept before the save is written: the opening needs them
            sealed.keep(home.path, table.game_id, entry["seq"], moves)
    except BaseException:  # a refusal, or Ctrl-C: nothing written, the link never published
        links.release()
        raise
    written = write(save, target, home, links, entry)
    went_on(home, save, entry, leave_branch)
    where = f"{save.ruleset} {save.game_id[:8]}"
    for seat_key in accepted:
        contacts.accept_key(seat_key.handle, seat_key.key, where)
    contacts.check_save(save)  # learn the players this entry was signed on top of
    with contextlib.suppress(OSError):
        contacts.write()
    return Written(written, save, new_table, entry, table, keys=keys)


def _confirm_changed_keys(keys: list[SeatKey], accept: Collection[str],
                          confirm: Callable[[SeatKey], bool] | None) -> list[SeatKey]:
    """The CHANGED keys the user accepted; IntegrityError for the first one refused."""
    accepted = []
    for seat_key in keys:
        if seat_key.status != "changed":
            continue
        if seat_key.handle in accept or (confirm is not None and confirm(seat_key)):
            accepted.append(seat_key)
            continue
        handle = seat_key.handle
        raise IntegrityError(
            f"{handle} signs this game with the key {seat_key.fingerprint}, not the key "
            f"{fingerprint(bytes.fromhex(seat_key.known_key))} this home knows for {handle}: "
            f"it may be someone else using the name. Nothing was written. Check the "
            f"fingerprint with {handle} another way; if it is right, run again with "
            f"--accept-key {handle}.", code="key-changed")
    return accepted


class Owed(Record):
    """What this home's seat owes in a save, as it will sign it: the chance its own next
    beacon link resolves is resolved already (signing.preview). ``moves``, the prompt and
    ``play``'s hints try moves on copies of ``state``, never on the save."""

    def __init__(self, verified: Verified, identity: Identity, table: Table, kind: str,
                 seat: int) -> None:
        self.verified = verified
        self.identity = identity
        self.table = table  # the preview
        self.kind = kind  # the duty: join, start, turn or reveal
        self.seat = seat
        # A game stopped by remedy "end" or by a resignation takes no more moves, not
        # even in a reveal; nor does a turn the engine asks for secret-deck work only
        # (asked once: the prompt and auto-answer read it at every step).
        self.takes_moves = (not table.asks_deck_work(seat) if kind == "turn" else
                            kind == "reveal" and table.reveals_take_moves())
        self._secrets: dict[str, dict[str, str]] | None = None  # not shown by repr

    @property
    def handle(self) -> str:
        return self.identity.handle

    @property
    def game(self) -> Game:
        return self.table.game

    @property
    def state(self) -> State:
        return self.table.gstate

    def after(self, moves: list[str]) -> tuple[State, list[str]]:
        """A copy of the state after ``moves`` and their canonical forms; a MoveError
        names the move that fails (pbem.protocol.state.turns.apply_moves, as signing does)."""
        state = copy_state(self.state)
        return state, apply_moves(self.game, state, self.seat, moves)

    def step(self, state: State, text: str) -> tuple[State, str]:
        """A copy of ``state`` after one more typed move, and its canonical form; the
        game's own MoveError when it does not parse or is not legal there."""
        after = copy_state(state)
        return after, play_move(self.game, after, self.seat, text)  # as signing reads it

    def options(self, state: State) -> list[str]:
        """The legal next moves in ``state`` (a copy from ``after``)."""
        return self.game.legal_moves(state, self.seat) if self.takes_moves else []

    def unfinished(self, state: State) -> str | None:
        """Why the entry cannot be signed in ``state`` yet (the game's words), or None."""
        if self.kind != "turn" or not self.takes_moves or self.game.can_end_turn(state,
                                                                                 self.seat):
            return None
        try:
            self.game.end_turn(copy_state(state), self.seat)
        except MoveError as exc:
            return exc.message
        return None

    def arrival(self) -> list[str]:
        """What the chance resolved by this seat's link changed since the last entry."""
        return self.game.describe(self.verified.table.gstate, self.state, self.seat)

    def view(self, state: State) -> dict[str, Any]:
        """What this seat may see of ``state``, its own secret cards included."""
        if self._secrets is None:
            self._secrets = signing.secrets_for(self.table, self.seat, self.identity)
        return with_engine_to_act(self.verified.table,
                                  self.game.view(copy_state(state), self.seat, self._secrets))


def owed(home: Home, path: str | Path) -> Owed:
    """What this home owes in the save at ``path``, or the TurnError ``play`` would give."""
    identity = home.load()
    verified = load(path, home)
    mine = signing.owed(verified.table, identity)
    links = OwnLinks(home, verified.table, identity, verified.report.hashes)
    shown = signing.preview(verified.table, identity, links.used, links.voided)
    own = mine.kind == "reveal" or absence.answers(verified.table, mine.seat)  # as sign_next
    duty = mine if own else shown.duty()  # an answer to a proposal is no vote due
    assert duty is not None
    in_round = verified.table.round_place(mine.seat) is not None  # this seat, not the first
    return Owed(verified, identity, shown, duty.kind, mine.seat if in_round else duty.seat)


def legal_moves(home: Home, path: str | Path, moves: list[str]) -> tuple[str, list[str], bool]:
    """(seat handle, legal moves after ``moves``, whether the turn may end there)."""
    handle, legal, _, signable = legal_moves_shown(home, path, moves)
    return handle, legal, signable is not None


def legal_moves_shown(home: Home, path: str | Path, moves: list[str],
                      warn: Callable[[str], None] | None = None
                      ) -> tuple[str, list[str], list[str], str | None]:
    """As legal_moves, with the lines ``pbem moves`` prints (Game.move_lines), and the kind
    owed (Owed.kind, or "deck" for a turn that only does secret-deck work) if it may be
    signed after ``moves``; ``warn``: what play refuses."""
    turn = owed(home, path)
    if warn is not None:
        try:
            refuse_stale(turn.verified, home)
        except TurnError as exc:
            warn(f"{exc.message} 'pbem play' refuses it.")
    if not turn.takes_moves:  # "deck": a turn the engine asks for secret-deck work only
        return turn.handle, [], [], "deck" if turn.kind == "turn" else turn.kind
    state, typed = turn.after(moves)
    kept = steps.kept_opening(home.path, turn.table, turn.kind, turn.seat)
    if kept is not None:  # opening a sealed step: only the moves sealed are accepted
        sealed_now = turn.after(kept[1])[1]
        legal = steps.opening_next(kept[0], sealed_now, typed)
        done = typed == sealed_now
    else:
        legal, done = turn.options(state), turn.unfinished(state) is None
    return turn.handle, legal, turn.game.move_lines(legal), turn.kind if done else None


def seat_view(home: Home | None, verified: Verified) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """(seat handle or '', the view that seat may see, its private part).

    The seat about to sign sees the chance its own next link resolves (signing.preview),
    as signing it will leave it. Not on a stale save: this home has signed on past it,
    the link that entry resolved with is published, and no entry will ever be signed here,
    so a preview would show chance resolved by a link no entry carries; the chance is
    shown pending, as it stands in the save.

    Once the game is complete and audited the view is of the final state (the cards the
    audit opened recorded) and carries the final result (see :func:`final_result`)."""
    table = verified.table
    identity = None
    if home is not None and home.has_identity():
        identity = home.load()
    seat = table.seat_of(identity.handle) if identity else None
    if identity is None or seat is None or table.seats[seat].pubkey not in ("", identity.public_hex):
        return "", public_view(verified), {}
    # A stale save shows its pending chance as pending: the links this home would resolve
    # it with are spent on the newer save, so none is looked up.
    links = OwnLinks(home, table, identity, verified.report.hashes) \
        if home is not None and not verified.stale else None
    shown = table if verified.stale else signing.preview(
        table, identity, links.used if links else (), links.voided if links else None)
    secrets = signing.secrets_for(shown, seat, identity)
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


def final_result(report: Report) -> dict[str, Any] | None:
    """What the pictures show of a complete, audited game, as the view's ``result``
    (see pbem.drawing.panels.result_section); None until the audit has run."""
    if report.outcome is None:
        return None
    from pbem.drawing.panels import result_section
    from pbem.protocol.state import result

    told = {**report.result, "verdict": result.audit_words(report.result)}
    return result_section(report.outcome, [s.handle for s in report.table.seats], report.audit,
                          told)


def _with_result(report: Report, view: dict[str, Any]) -> dict[str, Any]:
    """The view with the final result once audited, and ``ended`` once play is over
    (a resignation or an absence remedy ends it where the game's own state does not):
    how it ended and whose reveals are awaited, so no picture says who is to act."""
    result = final_result(report)
    table = report.table
    if table.over():
        awaiting = [table.seats[s].handle for s in table.awaiting_reveals()]
        view = {**view, "ended": {"text": str(report.result.get("ending", {}).get("text", "")),
                                  "awaiting": awaiting}}
    elif table.proposal and (duty := table.duty()) is not None and duty.kind == "vote":
        view = {**view, "vote": {"text": vote_text(table, duty.seat)}}
    view = with_engine_to_act(table, view)
    return view if result is None else {**view, "result": result}


def with_engine_to_act(table: Table, view: dict[str, Any]) -> dict[str, Any]:
    """The view with its ``to_act`` naming the seat the engine waits for while it asks for
    secret-deck work (Table.deck_work_next): the game is not asked whose turn it is then,
    and its own answer may name another seat. In the game's own form (a handle or a seat
    number); the view unchanged otherwise, and the save's ``[state]`` is never this."""
    duty = table.duty()
    if "to_act" not in view or duty is None or duty.kind != "turn" or not table.deck_work_next():
        return view
    told = view["to_act"]
    return {**view, "to_act": duty.seat if isinstance(told, int) else table.seats[duty.seat].handle}


def vote_text(table: Table, voter: int) -> str:
    """"Vote: cy votes next on ann's proposal that bob is absent (entry 6, remedy 'end');
    bob may still answer it by playing.": what a view says in place of who is to act
    while an absence vote is due (pbem.game.waiting_line)."""
    absent = table.seats[table.proposal["player"]].handle
    return (f"Vote: {table.seats[voter].handle} votes next on "
            f"{absence.proposal_words(table)}; {absent} may still answer it by playing.")
