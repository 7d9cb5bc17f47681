"""Replay and signing: header -> entries -> state; who acts next; the audit.

One function, :func:`step`, applies an entry to a table. ``verify`` runs it over every
entry of a save (checking signatures and links first); ``play``/``join``/``new`` run it
once on the entry they are about to sign, so a signed entry is always exactly what
verification will accept. Checks follow PROTOCOL.md section 9 and raise the error whose
exit code CLI.md documents.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Callable, Collection, Iterator
from typing import Any

from pbem import recent
from pbem.errors import (
    IdentityError,
    IntegrityError,
    MoveError,
    OptionError,
    PbemError,
    SaveFileError,
    TurnError,
)
from pbem.game import Game, Outcome, State, copy_state
from pbem.protocol import absence, beacon, clock, entropy, result, timing
from pbem.protocol.canonical import canonical, digest
from pbem.protocol.chain import Vouch, Witness, authenticate, check_new_key
from pbem.protocol.derive import NONCE_BYTES, seed_commitment
from pbem.protocol.identity import Identity
from pbem.protocol.savefile import FORMAT, MAX_HEADER_INT, Entry, Save
from pbem.protocol.table import Duty, Report, SeatRecord, Table, bot_signer, silent
from pbem.protocol.turns import apply_moves, play_turn, resolve_pending, stamp_pending
from pbem.registry import for_save
from pbem.terminal import shortened, shown


# ---- building a game ---------------------------------------------------------------
def parse_options(game: Game, pairs: list[str]) -> dict[str, Any]:
    """``KEY=VALUE`` strings -> typed options with defaults filled in."""
    options: dict[str, Any] = {name: spec.default for name, spec in game.info.options.items()}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        key = key.strip()
        if not sep:
            raise OptionError(f"Option '{pair}' should be KEY=VALUE.")
        spec = game.info.options.get(key)
        if spec is None:
            known = ", ".join(game.info.options) or "none"
            raise OptionError(f"{game.info.id} has no option '{key}'. Its options: {known}.")
        options[key] = _typed(key, value.strip(), spec)
    return options


def _typed(key: str, value: str, spec: Any) -> bool | int | str:
    if spec.kind == "bool":
        lowered = value.lower()
        if lowered in ("true", "yes", "on", "1"):
            return True
        if lowered in ("false", "no", "off", "0"):
            return False
        raise OptionError(f"Option {key} takes true or false, not '{value}'.")
    if spec.kind == "int":
        try:
            number = int(value)
        except ValueError:
            raise OptionError(f"Option {key} takes a whole number, not '{value}'.") from None
        if (spec.minimum is not None and number < spec.minimum) or (
            spec.maximum is not None and number > spec.maximum
        ):
            raise OptionError(f"Option {key} must be between {spec.minimum} and {spec.maximum}.")
        return number
    if spec.choices and value not in spec.choices:
        raise OptionError(f"Option {key} takes one of {', '.join(spec.choices)}, not '{value}'.")
    return value


def new_header(
    game: Game, seats: list[tuple[str, str]], options: dict[str, Any], created: str | None = None,
    keys: dict[str, str] | None = None, patience: str = timing.DEFAULT_PATIENCE,
    away: int = timing.DEFAULT_AWAY_DAYS,
) -> dict[str, Any]:
    """A new game's header. ``keys`` (handle -> hex public key) pins seats to keys: a join
    by any other key is refused (PROTOCOL.md section 3; header ``seats[i].key``).
    ``patience`` and ``away`` are the game clock (PROTOCOL.md section 11)."""
    info = game.info
    n = len(seats)
    if not info.min_players <= n <= info.max_players:
        raise OptionError(
            f"{info.title} takes {info.min_players} to {info.max_players} players, not {n}."
        )
    game.validate_options(options, n)
    if timing.patience_problem(patience):
        raise OptionError(f"--patience {shown(patience)} {timing.patience_problem(patience)}.")
    if timing.away_problem(away):
        raise OptionError(f"--away {shown(away)} {timing.away_problem(away)}.")
    components = game.stock_components()
    return {
        "format": FORMAT,
        "game": info.id,
        "rules_version": info.rules_version,
        "id": entropy.fresh_bytes(16).hex(),
        "created": created or timing.now_stamp(),
        "options": options,
        "patience": patience,
        "away": away,
        "seats": [_seat(h, e, (keys or {}).get(h, "")) for h, e in seats],
        "components": components,
    }


def _seat(handle: str, email: str, key: str) -> dict[str, str]:
    seat = {"handle": handle}
    if email:
        seat["email"] = email
    if key:
        seat["key"] = key
    return seat


GameDataText = tuple[bytes, bytes]


def game_data(header: dict[str, Any], text: GameDataText | None = None
              ) -> tuple[dict[str, Any], dict[str, Any]]:
    """The header's options and component data as game code may see them: copies with
    every table's keys in sorted order (read back from ``text``, if given, which
    ``game_data_text`` made of this header: set-up takes several copies).

    Canonical JSON sorts keys, so no signature covers the order in which a file lists a
    table's keys: anyone could re-order them without breaking a signature. Game code that
    iterates a table (set-up, chance, legal moves) would then replay another game from the
    same signed entries. Sorted order is the signed value's own order (found by the fuzzer)."""
    options, components = game_data_text(header) if text is None else text
    return json.loads(options), json.loads(components)


def game_data_text(header: dict[str, Any]) -> GameDataText:
    """The options and component data as canonical JSON (sorted keys): read back, deep
    copies with every table's keys in sorted order. Both halves run in C, several times
    faster than a walk in Python, and JSON keeps every integer exact; the header's nesting
    is bounded (check_signable) before this is called. Being canonical, the components'
    text also gives their digest (:func:`components_digest`) for the cost of a hash."""
    return canonical(header["options"]), canonical(header["components"])


def components_digest(text: GameDataText) -> str:
    """``digest(header["components"])`` of the header ``text`` was made of."""
    return hashlib.sha256(text[1]).hexdigest()


def check_header_game(header: dict[str, Any], text: GameDataText | None = None) -> Game:
    """The header's game, rules version, options and components, or SaveFileError.

    Runs after chain.authenticate (the header is the one entry 0 signed). Options are
    checked against their Option spec, by type (a "false" string is not a boolean) and
    range; component data by the game's validator. Game code that fails on data it was
    given (a TypeError, a KeyError, ...) makes the save malformed, never a traceback."""
    game = header_fits(header)
    n = len(header["seats"])
    if text is None:
        text = game_data_text(header)
    options, components = game_data(header, text)
    try:
        unknown = sorted(set(options) - set(game.info.options))
        if unknown:
            raise OptionError(f"unknown option {', '.join(unknown)}")
        for key, spec in game.info.options.items():
            if key not in options:
                raise OptionError(f"option {key} is missing")
            _check_stored_option(key, options[key], spec)
        with _game_code(game, "options"):
            game.validate_options(options, n)
    except OptionError as exc:
        raise SaveFileError(f"The save's options are not valid: {exc.message}") from None
    # Component data is validated once per process for each validator, game, rules
    # version and digest of its canonical JSON: the same bytes pass or fail the same way,
    # and any change to them (a tampered save) is another digest, validated afresh.
    validator = game.validate_components
    record = (getattr(validator, "__func__", validator), game.info.id,
              game.info.rules_version, components_digest(text))
    if record not in _VALID_COMPONENTS:
        with _game_code(game, "component data"):
            validator(components)
        _VALID_COMPONENTS.add(record)
    return game


_VALID_COMPONENTS: set[tuple[Any, str, Any, str]] = set()


def header_fits(header: dict[str, Any]) -> Game:
    """The header's game, if this pbem plays its rules version for its number of seats."""
    game = for_save(header["game"])
    version = header["rules_version"]
    if version != game.info.rules_version:
        raise SaveFileError(
            f"This save needs {game.info.title} rules version {version}; this pbem plays "
            f"version {game.info.rules_version}. Install a pbem that supports version {version}."
        )
    n = len(header["seats"])
    if not game.info.min_players <= n <= game.info.max_players:
        raise SaveFileError(f"The header seats {n} players; {game.info.title} takes "
                            f"{game.info.min_players} to {game.info.max_players}.")
    return game


def _check_stored_option(key: str, value: Any, spec: Any) -> None:
    """An option as the header stores it: of the spec's type, within its range/choices."""
    given = shown(value)
    if spec.kind == "bool":
        if not isinstance(value, bool):
            raise OptionError(f"option {key} must be true or false, not {given}")
    elif spec.kind == "int":
        if not isinstance(value, int) or isinstance(value, bool):
            raise OptionError(f"option {key} must be a whole number, not {given}")
        low = spec.minimum if spec.minimum is not None else -MAX_HEADER_INT
        high = spec.maximum if spec.maximum is not None else MAX_HEADER_INT
        if not low <= value <= high:
            raise OptionError(f"option {key} must be between {low} and {high}")
    elif not isinstance(value, str):
        raise OptionError(f"option {key} must be a text, not {given}")
    elif spec.choices and value not in spec.choices:
        raise OptionError(f"option {key} takes one of {', '.join(spec.choices)}")


class SetupOptionError(SaveFileError):
    """An option the game refuses only when it sets the game up (Road Master's ``first``
    naming no player): a malformed save (exit 4); ``new`` turns it back into the user's
    OptionError (exit 2) with ``reason``."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


@contextlib.contextmanager
def _game_code(game: Game, what: str) -> Iterator[None]:
    """Game code running on a save's header: its failure is the save's fault (exit 4)."""
    try:
        yield
    except PbemError as exc:  # the game's own words, which may quote the header at length
        exc.message = shortened(exc.message)
        raise
    except (TypeError, KeyError, ValueError, AttributeError, IndexError, RecursionError,
            OverflowError, ZeroDivisionError) as exc:
        raise SaveFileError(
            f"The save's {what} cannot be used by {game.info.title} ({type(exc).__name__}): "
            "it was not made by pbem. Ask for the file exactly as pbem wrote it.") from None


# A secret deck costs a hash to the curve per card and a layer per seat: a bound no game
# comes near (Road Master's Super Bonus deck has 20 cards).
MAX_SECRET_CARDS = 1024


def empty_table(header: dict[str, Any], header_hash: str | None = None,
                text: GameDataText | None = None) -> Table:
    """The table before entry 0, once the header's game, options and components pass
    check_header_game (``text``: ``game_data_text(header)``, if the caller made it)."""
    if text is None:
        text = game_data_text(header)
    game = check_header_game(header, text)
    handles = [s["handle"] for s in header["seats"]]
    options, components = game_data(header, text)
    with _game_code(game, "component data"):
        try:
            gstate = game.setup(handles, options, components)
        except OptionError as exc:  # e.g. first = "zed": in a save, the host signed it
            raise SetupOptionError(f"The save's options are not valid: {exc.message}",
                                   reason=exc.message) from None
        options, components = game_data(header, text)  # set-up may have changed its copies
        decks = game.secret_decks(components, options, len(handles))
    gstate["seats"] = handles
    # Set-up chance is resolved by the start entry, from the last joiner's link and the
    # host's: stamp it with the seq of the last join (the create in a solo game).
    stamp_pending(gstate, len(handles) - 1)
    if decks:
        from pbem.protocol import mental_deck

        for name, uids in decks.items():
            if len(uids) > MAX_SECRET_CARDS or len(set(uids)) != len(uids):
                raise SaveFileError(f"The save's secret deck {name!r} has {len(uids)} cards "
                                    f"(at most {MAX_SECRET_CARDS}, each once).")
        # Card points in the clear, replaced at once by the create entry's shuffle pass.
        gstate["secret"] = {name: mental_deck.blank(header["id"], name, list(uids), len(handles))
                            for name, uids in decks.items()}
    seats = [SeatRecord(s["handle"], s.get("email", "")) for s in header["seats"]]
    head = digest(header) if header_hash is None else header_hash
    return Table(header=header, seats=seats, gstate=gstate, head=head)


# ---- applying one entry --------------------------------------------------------------
def entry_hash(entry: Entry) -> str:
    return digest(entry)


def _arrive(table: Table, seat: int, link: bytes, seq: int) -> list[dict[str, Any]]:
    """In place, what happens at the start of an entry by ``seat`` with beacon ``link``
    before its own moves: the chance it resolves, then the turns of absent seats that
    the bot plays in it (PROTOCOL.md section 11). Returns those turns (the entry's
    ``bot`` field)."""
    _resolve_for(table, seat, link)
    if not table.bots:
        return []
    return absence.play_bot_turns(table, seat, link, seq)


def _resolve_for(table: Table, seat: int, link: bytes) -> None:
    """Resolve what an entry by ``seat`` with beacon ``link`` resolves, in place."""
    def rng_for(seq: int) -> beacon.Sampler:
        return beacon.sampler(table.game_id, seq, bytes.fromhex(table.beacons[seq]), link)

    resolve_pending(
        table.game, table.gstate, rng_for,
        signer=None if table.solo else seat,
        signer_of=lambda seq: table.signers[seq] if 0 <= seq < len(table.signers) else -1,
    )


ChoreMaker = Callable[[State, int, str], list[dict[str, Any]]]


def step(table: Table, entry: Entry, *, replay: bool = True,
         make_chores: ChoreMaker | None = None,
         audit_seeds: dict[int, bytes] | None = None,
         in_place: bool = False, proved: bool = False) -> tuple[Table, list[str]]:
    """A new table after ``entry``; the entry's moves in canonical form.

    With ``replay`` (verification) the logged moves must already be canonical. When
    signing, ``make_chores`` fills the entry's chores (secret-deck work the seat owes
    after its moves). With ``audit_seeds`` (every seed, known once the game is over),
    each chore is re-computed and violations are added to the table's findings.
    ``in_place``: apply the entry to ``table`` itself and return it, copying nothing (a
    verify that needs no table twice); if it raises, ``table`` is left half-changed and
    must be thrown away. Otherwise ``table`` is never changed.
    ``proved``: this home verified this very entry before (the archive vouches for its
    hash, chain.py), so its secret-deck proofs and points are not checked again; the
    work they prove is still applied and checked for what was owed.
    Raises TurnError/MoveError (exit 1) for a rules violation, IntegrityError (exit 3)."""
    seq = entry["seq"]
    seat = table.seat_of(entry["seat"])
    assert seat is not None  # chain.authenticate ran first
    kind = entry["kind"]
    handle = table.seats[seat].handle
    duty = table.duty()
    if duty is None:
        raise TurnError(f"Entry {seq} ({handle}) comes after the game was complete.", seq=seq)
    target = absence.check_proposal(table, seat, entry) if kind == "absent" else -1
    if kind == "vote" and (duty.kind != "vote" or seat != duty.seat):
        raise absence.wrong_voter(table, seat, entry)
    if kind == "confirm":
        absence.check_confirm(table, seat, entry)
    if kind == "away":
        absence.check_away_entry(table, seat, entry)
    # The seat a proposal names answers it by signing its turn or reveal on top of it.
    answer = (bool(table.proposal) and seat == table.proposal["player"]
              and kind in ("turn", "reveal", "resign"))
    if seat != duty.seat and kind not in absence.OUT_OF_TURN and not answer:
        raise TurnError(
            f"Entry {seq} is by {handle}, but the next entry must be by "
            f"{table.seats[duty.seat].handle} (a {duty.kind}).",
            seq=seq,
        )
    new = table if in_place else _copy_table(table)
    new.signers.append(seat)
    new.beacons.append(entry["beacon"])
    absence.note_away(new, seat, entry)
    if kind in absence.KINDS:
        return _absence_entry(new, seat, entry, target, make_chores, audit_seeds, proved), []
    if answer:
        absence.answered(new, entry)
        duty = new.duty() or duty
    # This entry makes whoever the game waits for next to act now (PROTOCOL.md 11): its
    # clock starts at the latest signed time so far, so a signer who back-dates its own
    # entry (or leaves the time out) cannot start the next seat's clock before the
    # entries that came before it.
    new.since = clock.later(new.since, str(entry.get("time", "")))
    bot_turns: list[dict[str, Any]] = []
    if kind not in ("create", "join"):
        # Chance queued by earlier seats is resolved first, then any turn the bot plays
        # for an absent seat; either may end the game, in which case this seat's entry
        # becomes the first reveal.
        arriving = bool(new.gstate.get("pending")) or bool(new.bots)
        bot_turns = _arrive(new, seat, bytes.fromhex(entry["beacon"]), seq)
        _check_bot_turns(entry, bot_turns, replay, handle)
        if arriving:  # else _arrive changed nothing: the duty stands
            if duty.kind == "turn" and new.over() and new.reveal_first < 0:
                new.reveal_first = seat
            duty = new.duty() or duty
    allowed = {duty.kind} | ({"resign"} if duty.kind == "turn" else set())
    if bot_turns and kind == "turn" and seat != duty.seat and not entry["moves"]:
        # The bot's turns handed the game to another seat than the signer: the entry
        # plays them only (never in a game whose turns go round in seat order).
        new.seats[seat].advance(entry)
        _chores(new, seat, entry, make_chores, audit_seeds, proved)
        stamp_pending(new.gstate, seq)
        return new, []
    if seat != duty.seat or kind not in allowed:
        raise TurnError(
            f"Entry {seq} is a {kind} by {handle}, but the next entry must be a "
            f"{duty.kind} by {new.seats[duty.seat].handle}.",
            seq=seq,
        )
    record = new.seats[seat]
    moves: list[str] = list(entry["moves"])
    if kind in ("create", "join"):
        if moves:
            raise TurnError(f"Entry {seq}: a {kind} entry carries no moves.", seq=seq)
        record.pubkey = entry["pubkey"]
        record.seed_commit = entry["seed_commit"]
        record.nonce = entry["nonce"]
        record.anchor = record.last_beacon = entry["beacon"]
        _chores(new, seat, entry, make_chores, audit_seeds, proved)
        return new, []
    record.advance(entry)
    canonical_moves: list[str] = []
    if kind == "start":
        if moves:
            raise TurnError(f"Entry {seq}: the start entry carries no moves.", seq=seq)
        new.started = True
    elif kind == "turn":
        try:
            new.gstate, canonical_moves = play_turn(new.game, new.gstate, seat, moves,
                                                    in_place=in_place)
        except MoveError as exc:
            raise type(exc)(f"Entry {seq} ({handle}): {exc.message}", seq=seq) from None
        new.last_turn_seat = seat
    elif kind == "resign":
        if moves:
            raise TurnError(f"Entry {seq}: a resign entry carries no moves.", seq=seq)
        new.resigned = seat
        new.last_turn_seat = seat
    elif kind == "reveal":
        if moves and new.stopped:
            raise TurnError(f"Entry {seq} ({handle}): the game was stopped (a player was "
                            "declared absent), so a reveal carries no moves.", seq=seq)
        if moves:
            try:
                canonical_moves = apply_moves(new.game, new.gstate, seat, moves)
            except MoveError as exc:
                raise type(exc)(f"Entry {seq} ({handle}): {exc.message}", seq=seq) from None
        seed = bytes.fromhex(entry["seed"])
        if seed_commitment(seed) != record.seed_commit:
            raise IntegrityError(
                f"Entry {seq}: {handle} revealed a seed that does not match the commitment "
                f"published when {handle} joined. {handle} cheated or the entry is forged.",
                seq=seq, code="seed-commit",
            )
        record.seed = entry["seed"]
    if replay and canonical_moves != moves:
        raise TurnError(
            f"Entry {seq} ({handle}): its moves are not written in canonical form "
            f"({shown(moves, 80)}); pbem never writes them so.",
            seq=seq,
        )
    _chores(new, seat, entry, make_chores, audit_seeds, proved)
    stamp_pending(new.gstate, seq)
    return new, canonical_moves


def _copy_table(table: Table) -> Table:
    """A table sharing nothing that ``step`` changes with ``table``."""
    return Table(
        header=table.header,
        seats=[s.copy() for s in table.seats],
        gstate=copy_state(table.gstate),
        signers=list(table.signers),
        beacons=list(table.beacons),
        head=table.head,
        started=table.started,
        last_turn_seat=table.last_turn_seat,
        resigned=table.resigned,
        reveal_first=table.reveal_first,
        findings=list(table.findings),
        bots=list(table.bots),
        dropped=list(table.dropped),
        stopped=table.stopped,
        proposal=copy_state(table.proposal),
        since=table.since,
        against=list(table.against),
        away_until=list(table.away_until),
        away_used=list(table.away_used),
    )


def _check_bot_turns(entry: Entry, turns: list[dict[str, Any]], replay: bool,
                     handle: str) -> None:
    """The entry's ``bot`` field must be exactly the turns the bot plays (PROTOCOL.md
    section 11); when signing, it is filled in."""
    if not replay:
        if turns:
            entry["bot"] = turns
        else:
            entry.pop("bot", None)
        return
    listed = entry.get("bot", [])
    if listed == turns:
        return
    seq = entry["seq"]
    if not turns:
        raise TurnError(f"Entry {seq} ({handle}) lists turns played by the bot, but no absent "
                        "player's turn falls to it here.", seq=seq, code="bot-move")
    who = turns[0]["seat"]
    raise TurnError(
        f"Entry {seq} ({handle}) plays {who}'s turn for the bot as "
        f"{[t['moves'] for t in listed] if listed else 'nothing'}, but the bot plays "
        f"{[t['moves'] for t in turns]}. The bot's moves follow from the public game alone, "
        "so every verifier computes them; no other moves are accepted.", seq=seq,
        code="bot-move")


def _absence_entry(new: Table, seat: int, entry: Entry, target: int,
                   make_chores: ChoreMaker | None, audit_seeds: dict[int, bytes] | None,
                   proved: bool) -> Table:
    """An ``absent``, ``vote``, ``confirm`` or ``away`` entry (PROTOCOL.md section 11): no
    moves, no chance resolved, no bot turn; only owed secret-deck work besides the
    proposal, the vote, the confirm or the away note."""
    seq = entry["seq"]
    if entry["moves"] or "bot" in entry:
        raise TurnError(f"Entry {seq}: a {entry['kind']} entry carries no moves and plays "
                        "no bot turn.", seq=seq, code="bot-move")
    new.seats[seat].advance(entry)
    if entry["kind"] == "absent":
        absence.propose(new, seat, target, entry)
    elif entry["kind"] == "vote":
        absence.vote(new, seat, entry)
    elif entry["kind"] == "confirm":
        absence.take_effect(new)
    _chores(new, seat, entry, make_chores, audit_seeds, proved)
    return new


def _chores(new: Table, seat: int, entry: Entry, make: ChoreMaker | None,
            audit_seeds: dict[int, bytes] | None, proved: bool = False) -> None:
    """Apply the entry's secret-deck chores; refuse one that omits work it owed. With
    ``proved`` (an entry this home verified before) its proofs and points are not checked
    again."""
    decks = {name: d for name, d in new.gstate.get("secret", {}).items()
             if d.get("mode") == "mental"}
    if not decks:
        if entry["chores"]:
            raise IntegrityError(f"Entry {entry['seq']} carries chores, but this game has no "
                                 "secret deck.", seq=entry["seq"], code="chore")
        return
    from pbem.protocol import mental_deck

    seq, kind, handle = entry["seq"], entry["kind"], new.seats[seat].handle
    if make is not None:
        entry["chores"] = make(new.gstate, seat, kind)
    done: set[str] = set()
    for chore in entry["chores"]:
        name = chore.get("deck")
        if not isinstance(name, str) or name not in decks or name in done:
            raise IntegrityError(f"Entry {seq} ({handle}) has a chore for deck {shown(name)}, which "
                                 "is unknown or listed twice.", seq=seq, code="chore")
        done.add(name)
        before = (mental_deck.copy_deck(decks[name]) if audit_seeds and seat in audit_seeds
                  else None)
        try:
            mental_deck.apply_chore(decks[name], seat, chore, new.game_id, seq,
                                    check=not proved)
        except IntegrityError as exc:
            raise IntegrityError(f"Entry {seq} ({handle}): {_name_seats(new, exc.message)}",
                                 seq=seq, code="chore") from None
        except PbemError:
            raise
        except (TypeError, KeyError, ValueError, AttributeError, IndexError) as exc:
            # A signed chore of the wrong shape: its signer's doing, never a traceback.
            raise IntegrityError(f"Entry {seq} ({handle}) carries secret-deck work pbem "
                                 f"cannot read ({type(exc).__name__}).", seq=seq,
                                 code="chore") from None
        if before is not None and audit_seeds is not None:
            for problem in mental_deck.audit_chore(before, name, seat, chore, audit_seeds[seat]):
                new.findings.append(f"entry {seq} ({handle}): {_name_seats(new, problem)}")
    for name, d in decks.items():
        if name not in done and mental_deck.owed(d, seat):
            raise TurnError(
                f"Entry {seq} ({handle}) omits the secret-deck work it owed on deck {name!r} "
                "(peels or re-locks for another player's draw).", seq=seq)


def _name_seats(table: Table, text: str) -> str:
    """'seat 2' -> 'seat 2 (cy)' in messages from the mental deck."""
    import re

    return re.sub(r"seat (\d+)", lambda m: f"{table.seats[int(m.group(1))].handle}"
                  if int(m.group(1)) < len(table.seats) else m.group(0), text)


# ---- reading a whole save -----------------------------------------------------------
def public_state(table: Table, *, whole_view: bool = False) -> dict[str, Any]:
    """The [state] snapshot: derived, recomputed and compared by verify. ``whole_view``:
    as saves written before Game.snapshot carried it (the view with nothing left out)."""
    duty = table.duty()
    game = table.game
    snap: dict[str, Any] = {
        "phase": table.phase(),
        "entries": len(table.signers),
        "to_act": table.seats[duty.seat].handle if duty else "",
        "next": duty.kind if duty else "",
        "view": game.view(table.gstate, None) if whole_view else game.snapshot(table.gstate),
    }
    if table.resigned >= 0:
        snap["resigned"] = table.seats[table.resigned].handle
    # Absent players (PROTOCOL.md section 11); only present once someone was proposed.
    if table.bots or table.dropped:
        snap["absent"] = {table.seats[s].handle: "bot" for s in table.bots}
        snap["absent"].update({table.seats[s].handle: "end" for s in table.dropped})
    if table.proposal:
        snap["proposal"] = {"player": table.seats[table.proposal["player"]].handle,
                            "remedy": table.proposal["remedy"],
                            "by": table.seats[table.proposal["by"]].handle,
                            "votes_due": [table.seats[s].handle
                                          for s in table.proposal["voters"]]}
    return snap


Resume = Callable[[list[str]], "tuple[int, Table] | None"]
# Told of each entry the rules replay applies: the table before it, the table after it
# (both kept unchanged by later entries) and the entry itself.
OnEntry = Callable[[Table, Table, Entry], None]


def replay(save: Save, *, vouched: Vouch | None = None, witness: Witness | None = None,
           resume: Resume | None = None, check_snapshot: bool = True,
           audit_secrets: bool = True, on_entry: OnEntry | None = None,
           header_hash: str | None = None, signed_here: str | None = None) -> Report:
    """Verify a parsed save (PROTOCOL.md section 9, steps 2-4).

    Step 2 (pbem.protocol.chain.authenticate: header hash, every prev, hash, key,
    signature and beacon link) runs on the whole file before any game code sees the
    header. ``vouched``/``witness`` are the archive's: entries this home verified before
    skip their second signature check and their second check of secret-deck proofs and
    points (see chain.py for why that is safe; their moves are still replayed), and each
    other entry is shown to ``witness`` (the fork check). Then ``resume(hashes)`` may give
    a table the archive cached after entry ``start_at - 1`` of this authenticated chain: the
    rules replay starts there. ``audit_secrets=False`` leaves out the end-of-game audit
    (for benchmarks comparing its cost). ``on_entry`` is told of every entry the rules
    replay applies (from ``start_at``: a resumed replay skips the cached ones), for
    ``log`` and the history in ``show``; nothing is done for it when it is None.
    ``header_hash``: ``digest(save.header)`` when the caller has it already (a header
    carries the game's component data: hashed once per verify). ``signed_here``: the
    hash of the writer's own new entry, verified once more as it is filed: if
    :func:`sign_entry` built that entry in this process (:func:`signed_in_this_process`),
    its secret-deck proofs were checked as it was signed, on the same table, so they are
    not checked again; any other entry has them checked, whatever the caller says. Its
    signature, chain, fork check, moves and snapshot are checked either way."""
    if header_hash is None:
        header_hash = digest(save.header)
    hashes = authenticate(save, vouched=vouched, witness=witness, header_hash=header_hash)
    # Game code sees the header from here on (empty_table checks it first).
    resumed = resume(hashes) if resume is not None else None
    components: str | None = None
    if resumed is None:
        text = game_data_text(save.header)
        components = components_digest(text)
        start_at, table = 0, empty_table(save.header, header_hash, text)
    else:
        # The archive resumes only a game whose header has the hash of the one this home
        # replayed (session.verify), so these options and components passed
        # check_header_game here before; the table it cached from them is trusted already.
        header_fits(save.header)
        start_at, table = resumed
    if start_at == 0 and save.entries[0]["kind"] != "create":
        raise IntegrityError("The save does not begin with its create entry.", seq=0,
                             code="sequence")
    # Chores are audited as they are replayed once every seed is known (a complete save);
    # the archive's cache is never used for such a save (see session.verify).
    audit_seeds = reveal_seeds(save, table) if start_at == 0 and audit_secrets else None
    # With no one to tell, each entry is applied to the one table in place: nothing is
    # copied per entry (a refused entry ends the replay, so no before-state is needed).
    in_place = on_entry is None
    for index in range(start_at, len(save.entries)):
        entry, entry_digest = save.entries[index], hashes[index]
        before = table
        # An entry this home verified before had its secret-deck proofs and points checked
        # then: like its signature (chain.py), they are a function of its hash. So had
        # the entry this process has just signed (``signed_here``), as it was signed.
        proved = ((entry_digest == signed_here and signed_in_this_process(entry_digest))
                  or (vouched is not None and vouched(index, entry_digest)))
        table, _ = step(table, entry, replay=True, audit_seeds=audit_seeds, in_place=in_place,
                        proved=proved)
        table.head = entry_digest
        if on_entry is not None:
            on_entry(before, table, entry)
    if check_snapshot and not _snapshot_matches(save.state, table):
        raise IntegrityError(
            "The [state] table differs from the state replayed from the signed history: "
            "it was edited by hand. The history itself is intact; ask for an untouched save.",
            seq=len(save.entries) - 1, code="snapshot",
        )
    report = Report(table=table, hashes=hashes, checked_from=start_at)
    report.components_digest = components
    if audit_secrets:
        finish(report)
    report.result = result.summary(report, save.entries)
    return report


def _snapshot_matches(snapshot: dict[str, Any], table: Table) -> bool:
    """The save's [state] is the one replay derives: as pbem writes it now, or as a save
    written before Game.snapshot existed carries it (the whole view)."""
    text = canonical(snapshot)
    return (text == canonical(public_state(table))
            or text == canonical(public_state(table, whole_view=True)))


def finish(report: Report) -> None:
    """Audit and score a finished game (PROTOCOL.md section 7)."""
    table = report.table
    if not table.over() or table.duty() is not None:
        report.audit = "pending"
        return
    violations, opened = audit(table)
    report.audit = violations or "clean"
    report.unaudited = absence.unaudited(table)
    final = copy_state(table.gstate)
    if opened:
        table.game.on_reveal(final, opened)
    report.final = final
    report.outcome = outcome_of(table, final)


def reveal_seeds(save: Save, table: Table) -> dict[int, bytes] | None:
    """The seeds revealed in this save, seat -> seed, or None if none is: the chores of
    each seat that revealed are audited as they are replayed (an absent seat never
    reveals, so the audit cannot wait for every seat; PROTOCOL.md section 11)."""
    seeds: dict[int, bytes] = {}
    for entry in save.entries:
        if entry["kind"] == "reveal":
            seat = table.seat_of(entry["seat"])
            if seat is not None:
                seeds[seat] = bytes.fromhex(entry["seed"])
    return seeds or None


def audit(table: Table) -> tuple[list[str], dict[str, dict[str, str]]]:
    """Re-check every secret now that every seed is public; open every secret card.

    Returns the violations (each naming the seat, and the entry where one is known) and
    the opened cards, deck -> slot -> uid."""
    problems: list[str] = list(table.findings)
    seeds: dict[int, bytes] = {}
    gone = silent(table)  # never revealed: listed as unaudited (Report.unaudited)
    for i, record in enumerate(table.seats):
        if i in gone:
            continue
        seed = bytes.fromhex(record.seed)
        seeds[i] = seed
        if beacon.anchor(seed).hex() != record.anchor:
            problems.append(
                f"{record.handle}: the revealed seed does not produce the beacon anchor "
                f"{record.handle} published at joining, so {record.handle}'s links were not "
                "fixed in advance."
            )
        for number, (seq, fresh) in enumerate(record.anchors, start=1):
            if beacon.anchor(seed, number).hex() != fresh:
                problems.append(
                    f"{record.handle}: the fresh beacon anchor {record.handle} published in "
                    f"entry {seq} does not come from the revealed seed, so "
                    f"{record.handle}'s links after it were not fixed in advance."
                )
    opened: dict[str, dict[str, str]] = {}
    decks = {n: d for n, d in table.gstate.get("secret", {}).items() if d.get("mode") == "mental"}
    if decks:
        from pbem.protocol import mental_deck

        options, components = game_data(table.header)
        uids = table.game.secret_decks(components, options, len(table.seats))
        claims = table.game.secret_claims(table.gstate)
        for name, d in decks.items():
            cards, found = mental_deck.open_held(d, table.game_id, name, seeds, list(uids[name]),
                                                 unaudited=gone)
            opened[name] = cards
            found += mental_deck.check_claims(
                d, cards, {s: c for s, c in claims.get(name, {}).items() if s not in gone})
            problems.extend(_name_seats(table, line) for line in found)
    return problems, opened


def outcome_of(table: Table, gstate: State) -> Outcome | None:
    game = table.game
    if table.dropped or table.resigned >= 0:
        # Left by choice or declared absent: the rules' scoring of the position, the
        # seats that left last (PROTOCOL.md section 11).
        return absence.outcome(table, gstate)
    return game.outcome(gstate)


# ---- signing ---------------------------------------------------------------------------
def seat_for(table: Table, identity: Identity) -> int:
    seat = table.seat_of(identity.handle)
    if seat is None:
        seated = ", ".join(s.handle for s in table.seats)
        raise TurnError(
            f"You ({identity.handle}) have no seat in this game; its seats are {seated}."
        )
    record = table.seats[seat]
    if record.pubkey and record.pubkey != identity.public_hex:
        raise IdentityError(
            f"This home's key is not the one that took the seat {identity.handle} in this "
            "game. Use the home you joined with (--home)."
        )
    return seat


def owed(table: Table, identity: Identity) -> Duty:
    """What this identity must sign now, or a TurnError saying whose move it is."""
    duty = table.duty()
    if duty is None:
        gone = sorted(silent(table))
        if gone:
            names = ", ".join(table.seats[s].handle for s in gone)
            raise TurnError(f"This game is complete: nothing more is owed (every seat revealed "
                            f"but {names}, declared absent). Run 'pbem verify'.")
        raise TurnError("This game is complete: every seat has revealed. Run 'pbem verify'.")
    seat = seat_for(table, identity)
    if seat in silent(table):
        what = (f"the bot plays your turns, each signed by "
                f"{table.seats[bot_signer(table, seat)].handle}" if seat in table.bots
                else "the game went on to its end without you")
        raise TurnError(f"You ({identity.handle}) were declared absent in this game and sign "
                        f"nothing more in it: {what}.")
    if table.proposal and seat == table.proposal["player"]:
        # The seat proposed absent answers by signing what it owes (PROTOCOL.md 11).
        waiting = table.waiting_duty()
        assert waiting is not None and waiting.seat == seat
        return waiting
    if duty.seat != seat:
        who = table.seats[duty.seat]
        action = {"create": "create", "join": "join", "start": "start the game",
                  "turn": "play", "reveal": "reveal", "vote": "vote on the proposal that "
                  "a player is absent"}[duty.kind]
        to = f" ({who.email})" if who.email else ""
        confirm = ""
        if table.proposal and table.proposal["by"] == seat and not table.proposal["voters"]:
            confirm = (f" Your proposal that {who.handle} is absent can be confirmed with "
                       f"'pbem confirm' from {timing.shown(absence.confirm_from(table))} on.")
        raise TurnError(f"It is {who.handle}'s turn to {action}, not yours. Send the save "
                        f"to {who.handle}{to}.{confirm}")
    return duty


def seat_seed(table: Table, seat: int, identity: Identity) -> bytes:
    """``identity``'s seed for ``seat``, with the nonce the seat published when it joined.

    Only a seat that has joined has one; the create/join entry draws a fresh nonce."""
    nonce = table.seats[seat].nonce
    if not nonce:
        raise TurnError(f"{table.seats[seat].handle} has not joined this game yet.")
    return identity.seed(table.game_id, bytes.fromhex(nonce))


# The places of its chains a home published in a game, on any branch (beacon.Position
# numbers; pbem.protocol.archive keeps them): its next entry never signs at one of them.
Used = Collection[int]


def next_position(table: Table, seat: int, used: Used = ()) -> beacon.Position:
    """Where ``seat``'s next link lies: the first place after its newest one on this
    save's branch that its home has not published (``used``), PROTOCOL.md section 5.
    TurnError if its home used every place a verifier would accept (more than
    beacon.MAX_SKIP of them on another branch since this save)."""
    place = table.seats[seat].tip().next_free(used)
    if place is None:
        raise TurnError(
            f"This save is too far behind for you ({table.seats[seat].handle}) to sign on "
            f"it: you have signed more than {beacon.MAX_SKIP} entries of this game on "
            "another branch since, and a link is never published twice. Play on the save "
            "the game goes on with.", code="branch-behind")
    return place


def next_link(table: Table, seat: int, identity: Identity, used: Used = ()) -> bytes:
    """``seat``'s next beacon value (see :func:`next_position`)."""
    place = next_position(table, seat, used)
    return beacon.published(_own_seed(table, seat, identity), place.depth, place.chain)


def _own_seed(table: Table, seat: int, identity: Identity) -> bytes:
    seed = seat_seed(table, seat, identity)
    record = table.seats[seat]
    if record.seed_commit and seed_commitment(seed) != record.seed_commit:
        raise IdentityError(
            "This home's key does not reproduce the seed committed for this seat; use the "
            "home you joined with."
        )
    return seed


def preview(table: Table, identity: Identity, used: Used = ()) -> Table:
    """The table as the seat about to sign sees it: pending chance resolved with its own
    next link (PROTOCOL.md section 5, last point), the one :func:`sign_entry` will sign
    with the same ``used``. Others get the table unchanged."""
    seat = table.seat_of(identity.handle)
    answering = bool(table.proposal) and seat == table.proposal["player"]
    # The seat proposed absent sees the game as its answer will leave it: no proposal.
    duty = table.waiting_duty() if answering else table.duty()
    if duty is None or seat is None or duty.seat != seat or duty.kind in ("create", "join",
                                                                          "vote"):
        return table
    if table.seats[seat].pubkey != identity.public_hex:
        return table
    view = Table(**{**vars(table), "gstate": copy_state(table.gstate),
                    "seats": [s.copy() for s in table.seats], "bots": list(table.bots),
                    "proposal": {} if answering else copy_state(table.proposal)})
    _arrive(view, seat, next_link(table, seat, identity, used), len(table.signers))
    if duty.kind == "turn" and view.over() and view.reveal_first < 0:
        view.reveal_first = seat
    return view


def sign_entry(
    table: Table, identity: Identity, kind: str, moves: list[str] | None = None,
    fields: dict[str, str] | None = None, used: Used = (),
    claim: Callable[[beacon.Position], None] | None = None,
) -> tuple[Entry, Table]:
    """Build, check and sign the next entry for ``identity``; return it and the table.

    ``fields`` are the kind's own (``player`` and ``remedy`` of an ``absent`` entry, which
    any seated player may sign while another is to act; ``vote`` of a ``vote``), and
    ``away_until``, an away note any entry may carry (PROTOCOL.md section 11).
    ``used``: the places of its chains this home published in the game (on any branch);
    the entry takes the first free one (:func:`next_position`). ``claim`` is told of that
    place once the entry is checked and before it is signed: the home records it
    (PROTOCOL.md section 5); if it raises, nothing is signed."""
    if kind in absence.OUT_OF_TURN:
        seat = seat_for(table, identity)
        if not table.seats[seat].pubkey:
            raise TurnError("You have not joined this game yet.")
    else:
        seat = owed(table, identity).seat
        duty = preview(table, identity, used).duty()
        assert duty is not None
        bot_only = duty.seat != seat  # the bot's turns hand the game to another seat
        if bot_only and (kind != "turn" or moves):
            raise TurnError(f"You sign the bot's turn only; the game then waits for "
                            f"{table.seats[duty.seat].handle}. Sign it with no moves.")
        if not bot_only and kind != duty.kind and not (kind == "resign" and duty.kind == "turn"):
            raise TurnError(f"You owe a {duty.kind} entry now, not a {kind}.")
    nonce = b""
    if kind in ("create", "join"):
        # A fresh nonce per seat and game (PROTOCOL.md section 2), published below.
        nonce = entropy.fresh_bytes(NONCE_BYTES)
        seed = identity.seed(table.game_id, nonce)
    else:
        seed = _own_seed(table, seat, identity)
    entry: Entry = {
        "seq": len(table.signers),
        "game": table.game_id,
        "seat": identity.handle,
        "kind": kind,
        "prev": table.head,
        "moves": list(moves or []),
        "chores": [],
        "time": timing.now_stamp(),  # the signer's clock (PROTOCOL.md section 11)
        **(fields or {}),
    }
    if kind in ("create", "join"):
        entry["pubkey"] = identity.public_hex
        entry["nonce"] = nonce.hex()
        entry["seed_commit"] = seed_commitment(seed)
        entry["beacon"] = beacon.published(seed, 0).hex()
        place = None
    else:
        place = next_position(table, seat, used)
        entry["beacon"] = beacon.published(seed, place.depth, place.chain).hex()
        if place.renew:  # a chain never runs out (PROTOCOL.md section 5)
            entry["anchor"] = beacon.anchor(seed, place.chain + 1).hex()
    if kind == "reveal":
        entry["seed"] = seed.hex()
    if kind in ("create", "join"):
        # Refuse here what verification would refuse, before anything is signed or written.
        pinned = str(table.header["seats"][seat].get("key", ""))
        others = {s.handle: s.pubkey for s in table.seats if s.pubkey}
        check_new_key(entry, entry["seq"], pinned, others)

    def make(gstate: State, who: int, what: str) -> list[dict[str, Any]]:
        return owed_chores(gstate, who, seed, table.game_id, entry["seq"])

    new, canonical_moves = step(table, entry, replay=False, make_chores=make)
    entry["moves"] = canonical_moves
    if claim is not None and place is not None:
        claim(place)
    entry["sig"] = identity.sign(canonical(entry)).hex()
    new.head = entry_hash(entry)
    recent.keep(_SIGNED_HERE, new.head, None, SIGNED_HERE_KEPT)
    return entry, new


# The hashes of the entries sign_entry built lately in this process, oldest dropped first.
# Writing a save verifies it once more; only an entry found here skips its second check of
# secret-deck proofs there (replay's ``signed_here``), so no other entry can be passed off
# as one.
_SIGNED_HERE: dict[str, None] = {}
SIGNED_HERE_KEPT = 64


def signed_in_this_process(entry_digest: str) -> bool:
    """Whether :func:`sign_entry` built the entry with this hash in this process lately."""
    return entry_digest in _SIGNED_HERE


def owed_chores(gstate: State, seat: int, seed: bytes, game_id: str, seq: int
                ) -> list[dict[str, Any]]:
    """The secret-deck work ``seat`` owes in ``gstate``, done with its seed, with proofs
    bound to entry ``seq`` of the game."""
    out = []
    for name, d in gstate.get("secret", {}).items():
        if d.get("mode") != "mental":
            continue
        from pbem.protocol import mental_deck

        chore = mental_deck.perform(d, name, seat, seed, game_id, seq)
        if chore is not None:
            out.append(chore)
    return out


def secrets_for(table: Table, seat: int, identity: Identity) -> dict[str, dict[str, str]]:
    """Slot -> card for the cards ``seat`` drew or holds, peeled with its own key.

    Raises IntegrityError, loudly, if a slot decrypts to no possible card."""
    decks = table.gstate.get("secret", {})
    if not decks or not table.seats[seat].nonce:  # nothing drawn before the seat joins
        return {}
    from pbem.protocol import mental_deck

    options, components = game_data(table.header)
    uids = table.game.secret_decks(components, options, len(table.seats))
    seed = seat_seed(table, seat, identity)
    out: dict[str, dict[str, str]] = {}
    for name, d in decks.items():
        if d.get("mode") == "mental":
            out[name] = mental_deck.read(d, table.game_id, name, seat, seed, list(uids[name]))
    return out
