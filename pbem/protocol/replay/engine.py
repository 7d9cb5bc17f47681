"""Replay: header -> entries -> state.

One function, :func:`step`, applies an entry to a table. ``verify`` runs it over every
entry of a save (checking signatures and links first); ``play``/``join``/``new`` run it
once on the entry they are about to sign, so a signed entry is always exactly what
verification will accept. Checks follow PROTOCOL.md section 9 and raise the error whose
exit code CLI.md documents. The rooms around it: the table it steps
(pbem.protocol.state.table), the header checks and the empty table (headers), the audit at the
end (audit), signing the next entry (signing).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pbem import recent
from pbem.errors import (
    IntegrityError,
    MoveError,
    PbemError,
    TurnError,
)
from pbem.game import State
from pbem.protocol.crypto import beacon
from pbem.protocol.crypto.derive import seed_commitment
from pbem.protocol.replay import pairdraw
from pbem.protocol.replay.audit import finish, reveal_seeds, sealed_salt_findings
from pbem.protocol.replay.chain import Vouch, Witness, authenticate
from pbem.protocol.replay.roundentry import check_round, enter_round
from pbem.protocol.saveformat import timing
from pbem.protocol.saveformat.canonical import canonical, digest
from pbem.protocol.saveformat.savefile import Entry, Save
from pbem.protocol.state import evidence, result
from pbem.protocol.state.headers import (
    components_digest,
    empty_table,
    game_data_text,
    header_fits,
)
from pbem.protocol.state.rounds import sealed_commitment
from pbem.protocol.state.table import Duty, Report, SeatRecord, Table, name_seats
from pbem.protocol.state.turns import apply_moves, play_turn, resolve_pending, stamp_pending
from pbem.protocol.timekeeping import absence, clock
from pbem.terminal import shown


def entry_hash(entry: Entry) -> str:
    return digest(entry)


def arrive(table: Table, seat: int, link: bytes, seq: int) -> list[dict[str, Any]]:
    """In place, what happens at the start of an entry by ``seat`` with beacon ``link``
    before its own moves: the chance it resolves, then the turns of absent seats that
    the bot plays in it (PROTOCOL.md section 11). Returns those turns (the entry's
    ``bot`` field)."""
    _resolve_for(table, seat, link)
    if not table.bots:
        return []
    return absence.play_bot_turns(table, seat, link, seq)


def _resolve_for(table: Table, seat: int, link: bytes) -> None:
    """Resolve what an entry by ``seat`` with beacon ``link`` resolves, in place: nothing
    while the chance waits for the two links of a round's draw (pairdraw)."""
    if pairdraw.waiting(table):
        return
    def rng_for(seq: int) -> beacon.Sampler:
        return beacon.sampler(table.game_id, seq, bytes.fromhex(table.beacons[seq]), link)

    resolve_pending(
        table.game, table.gstate, rng_for,
        signer=None if table.solo else seat,
        signer_of=lambda seq: table.signers[seq] if 0 <= seq < len(table.signers) else -1,
    )


# (state, seat, entry kind, the work a round's entry must do or None) -> chores
ChoreMaker = Callable[[State, int, str, dict[str, list[dict[str, Any]]] | None],
                      list[dict[str, Any]]]


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
    duty, target, answer, in_round = _admit(table, seat, entry)
    if not in_round:
        pairdraw.refuse_resign(table, seat, entry)
    work, deck_only = _asked_work(table, seat, kind, in_round)
    ahead = kind == "turn" and not in_round and bool(table.chance_before_round())
    # Resolving nothing either: a commitment signed after its round (Table.late_commits);
    # an answer whose slot in a round would have drawn nothing (absence.answer_draws).
    quiet = (kind == "turn" and not in_round and seat in table.late_commits()) or (
        answer and not absence.answer_draws(table, seat))
    new = table if in_place else table.copy()
    if in_round:
        enter_round(new, table, seat if target < 0 else target, entry)
    else:
        new.signers.append(seat)
        new.beacons.append(entry.get("beacon", ""))  # '' : signed out of the order of play
    absence.note_away(new, seat, entry)
    if kind in absence.KINDS:
        # No deck work in it where a draw from two links waits for the seats' work, each
        # in an entry that publishes its link (pairdraw.holds_work).
        _absence_entry(new, seat, entry, target, make_chores, audit_seeds, proved,
                       {} if in_round or pairdraw.holds_work(table) else None)
        if in_round:
            absence.round_entered(new)
        return new, []
    if answer:
        duty, deck_only = _answer(new, seat, entry, duty, in_round, deck_only)
    _start_clock(new, entry, in_round)
    duty, bot_turns = _arrival(new, seat, entry, duty, replay, in_round, quiet)
    allowed = {duty.kind} | ({"resign"} if duty.kind == "turn" else set())
    # The signer's own turn after the bot's, or after the chance pending ahead of a sealed
    # step, is in a round of a simultaneous step: it is signed there, in its slot, so
    # this entry plays the bot's turns or resolves the chance only.
    in_step = kind == "turn" and (ahead or (bool(bot_turns)
                                            and new.round_place(seat) is not None))
    if in_step and entry["moves"]:
        raise TurnError(f"Entry {seq} ({handle}) carries moves, but it plays the bot's turns "
                        "or resolves the chance pending before the round of a simultaneous "
                        "step that its signer is in: its own turn goes in its slot there.",
                        seq=seq, code="round")
    if kind == "turn" and not entry["moves"] and (in_step or (bot_turns and seat != duty.seat)):
        # The bot's turns handed the game to another seat than the signer, or to a round:
        # the entry plays them only (never in a game whose turns go round in seat order).
        new.seats[seat].advance(entry)
        _chores(new, seat, entry, make_chores, audit_seeds, proved)
        stamp_pending(new.gstate, seq)
        return new, []
    owed = answer and deck_only and new.owes_deck_work(seat) and not new.over()  # see _answer
    if not owed and ((seat != duty.seat and not in_round) or kind not in allowed):
        raise TurnError(
            f"Entry {seq} is a {kind} by {handle}, but the next entry must be a "
            f"{duty.kind} by {new.seats[duty.seat].handle}.", seq=seq)
    if deck_only or kind in ("create", "join"):
        _without_moves(new, seat, entry, make_chores, audit_seeds, proved, work)
        pairdraw.record(new, seat, entry)
        if in_round and deck_only:
            absence.round_entered(new)
        return new, []
    moves: list[str] = list(entry["moves"])
    new.seats[seat].advance(entry)
    if kind == "turn" and _seal_or_open(new, seat, entry, in_round):
        _chores(new, seat, entry, make_chores, audit_seeds, proved, work)
        if in_round:  # it may complete a round whose slots hold proposals
            absence.round_entered(new)
        return new, []  # a commitment: the moves it hides are applied when opened
    canonical_moves = _in_order(new, seat, entry, in_place)
    if replay and canonical_moves != moves:
        raise TurnError(
            f"Entry {seq} ({handle}): its moves are not written in canonical form "
            f"({shown(moves, 80)}); pbem never writes them so.", seq=seq)
    # In a round, the work its moves leave owed is done after it (never by a later
    # entry of the round, signed before them).
    _chores(new, seat, entry, make_chores, audit_seeds, proved, work)
    # An answer while another proposal stands (not deck-only, above) does its work here.
    pairdraw.record(new, seat, entry)
    stamp_pending(new.gstate, seq)
    if in_round:
        absence.round_entered(new)
    return new, canonical_moves


def _arrival(new: Table, seat: int, entry: Entry, duty: Duty, replay: bool, in_round: bool,
             quiet: bool) -> tuple[Duty, list[dict[str, Any]]]:
    """What an entry resolves and the bot turns it plays before its content (the duty
    after them, and the turns): none for a ``quiet`` one or an entry of a round, but the
    one of a round of deck work whose seat draws the chance (Table.deck_round_resolver)."""
    if quiet or (in_round and seat != new.deck_round_resolver()):
        _check_bot_turns(entry, [], replay, new.seats[seat].handle)
        return duty, []
    if entry["kind"] in ("create", "join"):
        return duty, []
    return _arrive_at(new, seat, entry, duty, replay)


def _seal_or_open(new: Table, seat: int, entry: Entry, in_round: bool) -> bool:
    """A turn's sealed part (docs/protocol-rounds.md): whether ``entry`` is a commitment
    to moves (recorded, nothing applied), checked. A seat with a commitment not opened
    yet opens it (its moves and their salt must hash to it, and then apply as any
    turn's); in a sealed round a seat commits (no moves, no salt); elsewhere a turn
    carries neither."""
    seq, handle = entry["seq"], new.seats[seat].handle
    committed = new.commitment(seat)
    if committed is not None:
        at, sealed = committed
        if "sealed" in entry or "salt" not in entry:
            raise TurnError(f"Entry {seq} ({handle}) must open the moves {handle} sealed in "
                            f"entry {at}: it carries those moves and their salt, and "
                            "nothing sealed.", seq=seq, code="sealed")
        if sealed_commitment(new.game_id, at, entry["moves"], entry["salt"]) != sealed:
            raise IntegrityError(f"Entry {seq} ({handle}) opens moves that do not match the "
                                 f"commitment {handle} signed in entry {at}: {handle} "
                                 "changed its sealed moves, or the entry was forged.",
                                 seq=seq, code="sealed")
        new.commits = [c for c in new.commits if c[0] != seat]
        return False
    if (in_round and new.round_kind == "sealed") or (not in_round
                                                     and seat in new.late_commits()):
        if "salt" in entry:
            raise TurnError(f"Entry {seq} ({handle}) opens moves in the round where the seats "
                            "of a sealed step commit to theirs: moves are opened only once "
                            "every seat of the step has committed.", seq=seq, code="sealed")
        if entry["moves"] or "sealed" not in entry:
            raise TurnError(f"Entry {seq} ({handle}) is a turn of a sealed step but carries "
                            "its moves in the open: it must carry only their commitment "
                            "('sealed').", seq=seq, code="sealed")
        place = sum(1 for c in new.commits if c[0] < seat)
        new.commits.insert(place, [seat, seq, entry["sealed"]])
        return True
    _refuse_sealed(entry, handle)
    return False


def _refuse_sealed(entry: Entry, handle: str) -> None:
    """A turn that neither commits to sealed moves nor opens them carries neither."""
    if "sealed" in entry or "salt" in entry:
        raise TurnError(f"Entry {entry['seq']} ({handle}) carries a sealed move, but no sealed "
                        "step is under way here.", seq=entry["seq"], code="sealed")


def _answer(new: Table, seat: int, entry: Entry, duty: Duty, in_round: bool,
            deck_only: bool) -> tuple[Duty, bool]:
    """``seat``'s entry answers the proposal that it is absent (:func:`_answered`): the
    duty it is checked against, and whether it does only secret-deck work. Outside a round
    the proposal is void, so the game may wait on its work; such an answer before the
    round of a draw from two links would begin begins that draw (pairdraw). An answer
    doing its seat's owed work is let through whoever the game names after it (step),
    unless the chance it drew ended the game: that chance, or the next withholder's
    proposal it opens (with its votes), may name another seat."""
    duty = _answered(new, seat, entry, duty)
    if not in_round and entry["kind"] == "turn":
        # Its owed work only, even while another withholder's proposal stands (which
        # empties deck_duty): the game is not asked, as for any entry of deck work.
        deck_only = new.owes_deck_work(seat)
        pairdraw.answer_begins(new, seat)
    return duty, deck_only


def _answered(new: Table, seat: int, entry: Entry, duty: Duty) -> Duty:
    """``seat`` answered the proposal that it is absent: the proposal is void; the duty
    its entry is checked against. A seat proposed in a round's slot acts whenever it
    answers: the reveals left after a reveal round, and the turns left of a simultaneous
    step, are independent (docs/protocol-rounds.md)."""
    absence.answered(new, entry)
    kind = entry["kind"]
    in_step = kind == "turn" and seat in new.game.simultaneous(new.gstate)
    # So is secret-deck work the game waits on: nobody decides before it is done, and
    # it is done in any order (a round of it is formed only where none is under way),
    # whether the other withholders' proposals are settled yet or not.
    owes = kind == "turn" and new.owes_deck_work(seat)
    return Duty(seat, kind) if kind == "reveal" or in_step or owes else new.duty() or duty


def _start_clock(new: Table, entry: Entry, in_round: bool) -> None:
    """This entry makes whoever the game waits for next to act now (PROTOCOL.md 11): its
    clock starts at the latest signed time so far, so a signer who back-dates its own
    entry (or leaves the time out) cannot start the next seat's clock before the entries
    that came before it. In a round, see _round_clock; the other seats' reveals in a
    reveal round make nobody newly to act: the clock of a seat still to reveal runs from
    the entry before the round."""
    if in_round and entry["kind"] == "turn":
        _round_clock(new, entry)
    elif not (in_round and entry["kind"] == "reveal"):
        new.since = clock.later(new.since, str(entry.get("time", "")))


def _round_clock(new: Table, entry: Entry) -> None:
    """A turn signed in a round: the other seats' turns make nobody newly to act (the
    clock of a seat still missing runs from the entry before the round); the entry that
    completes the round starts the clock of whoever acts next at the latest signed time
    of the round's entries."""
    if not new.round_missing():  # enter_round took its time into round_latest
        new.since = clock.later(new.since, new.round_latest)


def _admit(table: Table, seat: int, entry: Entry) -> tuple[Duty, int, bool, bool]:
    """Whether ``seat`` may sign ``entry`` here at all, before anything is applied: (the
    duty, the seat a proposal names or -1, whether it answers a proposal, whether it is
    signed in a round). TurnError if the game is complete or it is not the seat's to
    sign; the absence procedure's own checks for its kinds."""
    seq, kind, handle = entry["seq"], entry["kind"], table.seats[seat].handle
    duty = table.duty()
    if duty is None:
        raise TurnError(f"Entry {seq} ({handle}) comes after the game was complete.", seq=seq)
    target = absence.check_proposal(table, seat, entry) if kind == "absent" else -1
    if kind == "vote":
        absence.check_vote(table, seat, entry)
    if kind == "confirm":
        absence.check_confirm(table, seat, entry)
    if kind == "away":
        absence.check_away_entry(table, seat, entry)
    # The seat a proposal names answers it by signing its turn or reveal on top of it.
    answer = absence.answers(table, seat) and kind in ("turn", "reveal", "resign")
    in_round = check_round(table, seat, entry)
    if seat != duty.seat and kind not in absence.OUT_OF_TURN and not answer and not in_round:
        raise TurnError(
            f"Entry {seq} is by {handle}, but the next entry must be by "
            f"{table.seats[duty.seat].handle} (a {duty.kind}).",
            seq=seq,
        )
    return duty, target, answer, in_round


def _arrive_at(new: Table, seat: int, entry: Entry, duty: Duty, replay: bool
               ) -> tuple[Duty, list[dict[str, Any]]]:
    """Chance queued by earlier seats is resolved first, then any turn the bot plays for
    an absent seat; either may end the game, in which case this seat's entry becomes the
    first reveal. The duty after that, and the bot's turns."""
    arriving = bool(new.gstate.get("pending")) or bool(new.bots)
    bot_turns = arrive(new, seat, bytes.fromhex(entry["beacon"]), entry["seq"])
    _check_bot_turns(entry, bot_turns, replay, new.seats[seat].handle)
    if arriving:  # else arrive changed nothing: the duty stands
        if duty.kind == "turn" and new.over() and new.reveal_first < 0:
            new.reveal_first = seat
        duty = new.duty() or duty
    return duty, bot_turns


def _take_keys(record: SeatRecord, entry: Entry) -> None:
    """A create or join entry: the seat's key, seed commitment, nonce and beacon anchor."""
    record.pubkey = entry["pubkey"]
    record.seed_commit = entry["seed_commit"]
    record.nonce = entry["nonce"]
    record.anchor = record.last_beacon = entry["beacon"]


def _in_order(new: Table, seat: int, entry: Entry, in_place: bool) -> list[str]:
    """Apply a start, turn, resign or reveal entry's own content; its moves in canonical
    form."""
    seq, kind, handle = entry["seq"], entry["kind"], new.seats[seat].handle
    moves: list[str] = list(entry["moves"])
    canonical_moves: list[str] = []
    if kind in ("start", "resign") and moves:
        article = "the" if kind == "start" else "a"
        raise TurnError(f"Entry {seq}: {article} {kind} entry carries no moves.", seq=seq)
    if kind == "start":
        new.started = True
    elif kind == "turn":
        try:
            new.gstate, canonical_moves = play_turn(new.game, new.gstate, seat, moves,
                                                    in_place=in_place)
        except MoveError as exc:
            raise type(exc)(f"Entry {seq} ({handle}): {exc.message}", seq=seq) from None
        new.last_turn_seat = seat
    elif kind == "resign":
        new.resigned = seat
        new.last_turn_seat = seat
    elif kind == "reveal":
        canonical_moves = _reveal(new, seat, entry)
    return canonical_moves


def _reveal(new: Table, seat: int, entry: Entry) -> list[str]:
    """A reveal: its moves (the rules' last choices, if they ended the game), its seed
    checked against the commitment the seat published when it joined."""
    seq, handle, moves = entry["seq"], new.seats[seat].handle, list(entry["moves"])
    if moves and not new.reveals_take_moves():
        raise TurnError(f"Entry {seq} ({handle}): " + (
            "the game was stopped (a player was declared absent)" if new.stopped else
            f"the game ended when {new.seats[new.resigned].handle} resigned"
        ) + ", so a reveal carries no moves.", seq=seq, code="reveal-moves")
    canonical_moves: list[str] = []
    if moves:
        try:
            canonical_moves = apply_moves(new.game, new.gstate, seat, moves)
        except MoveError as exc:
            raise type(exc)(f"Entry {seq} ({handle}): {exc.message}", seq=seq) from None
    seed = bytes.fromhex(entry["seed"])
    record = new.seats[seat]
    if seed_commitment(seed) != record.seed_commit:
        raise IntegrityError(
            f"Entry {seq}: {handle} revealed a seed that does not match the commitment "
            f"published when {handle} joined. {handle} cheated or the entry is forged.",
            seq=seq, code="seed-commit",
        )
    record.seed = entry["seed"]
    if new.game.opens_at_reveal():
        # Its own cards are opened by its entry, each with its proof; its seed opens none.
        from pbem.protocol.crypto import mental_deck

        for d in new.mental_decks().values():
            mental_deck.owe_reveal_opens(d, seat)
    return canonical_moves


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


def _asked_work(table: Table, seat: int, kind: str, in_round: bool
                ) -> tuple[dict[str, list[dict[str, Any]]] | None, bool]:
    """(the work an entry signed in a round must do, {} in a round of another kind than
    deck work, None outside a round; whether the entry is one the engine asked for
    secret-deck work, Table.deck_duty), asked of the table before the entry."""
    work = (table.work_in_round(seat) or {}) if in_round else None
    return work, kind == "turn" and (bool(work) and table.deck_work_next() if in_round
                                     else bool(table.deck_duty()))


def _without_moves(new: Table, seat: int, entry: Entry, make_chores: ChoreMaker | None,
                   audit_seeds: dict[int, bytes] | None, proved: bool,
                   work: dict[str, list[dict[str, Any]]] | None) -> None:
    """A create or a join (its keys), or a turn the engine asked for secret-deck work
    (Table.deck_duty; the game is not asked): no moves, and its chores, in a round of
    deck work exactly ``work``."""
    seq, kind = entry["seq"], entry["kind"]
    if entry["moves"] and kind != "turn":
        raise TurnError(f"Entry {seq}: a {kind} entry carries no moves.", seq=seq)
    if entry["moves"]:
        raise TurnError(f"Entry {seq} ({new.seats[seat].handle}) carries moves, but the game "
                        "waits on secret-deck work: the entry does the work its seat owes, "
                        "and nothing else.", seq=seq)
    # (nor a commitment or its opening: the entry would be told as a sealed turn)
    _refuse_sealed(entry, new.seats[seat].handle)
    if kind == "turn":
        new.seats[seat].advance(entry)
    else:
        _take_keys(new.seats[seat], entry)
    _chores(new, seat, entry, make_chores, audit_seeds, proved, work)
    if kind == "turn":
        stamp_pending(new.gstate, seq)


def _absence_entry(new: Table, seat: int, entry: Entry, target: int,
                   make_chores: ChoreMaker | None, audit_seeds: dict[int, bytes] | None,
                   proved: bool, work: dict[str, list[dict[str, Any]]] | None) -> Table:
    """An ``absent``, ``vote``, ``confirm`` or ``away`` entry (PROTOCOL.md section 11): no
    moves, no beacon link, no chance resolved, no bot turn; only owed secret-deck work
    besides the proposal, the vote, the confirm or the away note."""
    seq = entry["seq"]
    if entry["moves"] or "bot" in entry:
        raise TurnError(f"Entry {seq}: a {entry['kind']} entry carries no moves and plays "
                        "no bot turn.", seq=seq, code="bot-move")
    if entry["kind"] == "absent":
        absence.propose(new, seat, target, entry)
    elif entry["kind"] == "vote":
        absence.vote(new, seat, entry)
    elif entry["kind"] == "confirm":
        absence.confirm(new, entry)
    _chores(new, seat, entry, make_chores, audit_seeds, proved, work)
    return new


def _chores(new: Table, seat: int, entry: Entry, make: ChoreMaker | None,
            audit_seeds: dict[int, bytes] | None, proved: bool = False,
            work: dict[str, list[dict[str, Any]]] | None = None) -> None:
    """Apply the entry's secret-deck chores; refuse one that omits work it owed. With
    ``proved`` (an entry this home verified before) its proofs and points are not checked
    again. ``work``: in a round, the work the entry must do, deck by deck, no more and no
    less (what its seat owed when the round began, deck_rounds; {} outside a round of
    deck work); None outside a round."""
    decks = new.mental_decks()
    if not decks:
        if entry["chores"]:
            raise IntegrityError(f"Entry {entry['seq']} carries chores, but this game has no "
                                 "secret deck.", seq=entry["seq"], code="chore")
        return
    from pbem.protocol.crypto import deck_hooks, deck_rounds, mental_deck, mental_open

    seq, kind, handle = entry["seq"], entry["kind"], new.seats[seat].handle
    if work is not None and kind == "reveal":
        # A reveal in a round opens its own seat's cards (_reveal), no one else's: the
        # work of each entry is its own, so the round's entries stay independent.
        work = {name: mental_deck.owed(d, seat) for name, d in decks.items()}
    kept = new.game.opens_at_reveal()  # deck keys come from no revealed seed to audit
    if make is not None:
        entry["chores"] = make(new.gstate, seat, kind, work)
    done: set[str] = set()
    for chore in entry["chores"]:
        name = chore.get("deck")
        if not isinstance(name, str) or name not in decks or name in done:
            raise IntegrityError(f"Entry {seq} ({handle}) has a chore for deck {shown(name)}, which "
                                 "is unknown or listed twice.", seq=seq, code="chore")
        done.add(name)
        why = "" if work is None else ("it is a shuffle pass" if chore.get("op") != "work"
                                       else deck_rounds.mismatch(chore.get("items"),
                                                                 work.get(name, [])))
        if why:
            # (a reveal's work in a round is what its own reveal made owed, not what its
            # seat owed when the round began: nothing, as a reveal round needs)
            owed_what = ("the opens of its own held cards that its reveal owes"
                         if kind == "reveal" and kept else
                         "what its seat owed when the round began")
            raise IntegrityError(f"Entry {seq} ({handle}) is signed in a round, but its work "
                                 f"on deck {name!r} is not {owed_what}: "
                                 f"{name_seats(new, why)}.", seq=seq, code="chore")
        before = audit_view(decks[name]) if (audit_seeds and seat in audit_seeds
                                             and not kept) else None
        try:
            deck_hooks.apply_chore(decks[name], seat, chore, new.game_id, seq,
                                    check=not proved, complete=work is None)
        except IntegrityError as exc:
            raise IntegrityError(f"Entry {seq} ({handle}): {name_seats(new, exc.message)}",
                                 seq=seq, code="chore") from None
        except PbemError:
            raise
        except (TypeError, KeyError, ValueError, AttributeError, IndexError) as exc:
            # A signed chore of the wrong shape: its signer's doing, never a traceback.
            raise IntegrityError(f"Entry {seq} ({handle}) carries secret-deck work pbem "
                                 f"cannot read ({type(exc).__name__}).", seq=seq,
                                 code="chore") from None
        if before is not None and audit_seeds is not None:
            for problem in mental_open.audit_chore(before, name, seat, chore, audit_seeds[seat]):
                new.findings.append(f"entry {seq} ({handle}): {name_seats(new, problem)}")
    for name, d in decks.items():
        missing = work.get(name) if work is not None else mental_deck.owed(d, seat)
        if name not in done and missing:
            what = ("its shuffle pass" if missing[0]["op"] == "shuffle" and "slots" not in missing[0]
                    else mental_deck.describe_item(missing[0]))
            more = f" and {len(missing) - 1} more item(s)" if len(missing) > 1 else ""
            raise TurnError(
                f"Entry {seq} ({handle}) omits the secret-deck work it owed on deck {name!r}: "
                f"{what}{more}.", seq=seq)




def audit_view(deck: dict[str, Any]) -> dict[str, Any]:
    """What ``mental_open.audit_chore`` reads of a deck as it stood before a chore: its
    next serial (to name the earlier slot key a chore re-uses). Kept in place of a copy
    of the whole deck, which an audited replay used to make for every entry."""
    return {"serial": deck["serial"]}


# ---- reading a whole save -----------------------------------------------------------
def public_state(table: Table) -> dict[str, Any]:
    """The [state] snapshot: derived, recomputed and compared by verify."""
    duty = table.duty()
    game = table.game
    snap: dict[str, Any] = {
        "phase": table.phase(),
        "entries": len(table.signers),
        "to_act": table.seats[duty.seat].handle if duty else "",
        "next": duty.kind if duty else "",
        "view": game.snapshot(table.gstate),
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

    Step 2 (pbem.protocol.replay.chain.authenticate: header hash, every prev, hash, key,
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
    forks = evidence.forks(save.entries)
    if resumed is not None and any(fork < start_at <= index for index, fork in forks.items()):
        # An entry to replay skips links on evidence of a branch parted before the cached
        # table: the table at that parting is needed, so the replay starts from entry 0.
        text = game_data_text(save.header)
        components = components_digest(text)
        start_at, table = 0, empty_table(save.header, header_hash, text)
    if start_at == 0 and save.entries[0]["kind"] != "create":
        raise IntegrityError("The save does not begin with its create entry.", seq=0,
                             code="sequence")
    # Chores are audited as they are replayed once every seed is known (a complete save);
    # the archive's cache is never used for such a save (see session.verify).
    audit_seeds = reveal_seeds(save, table) if start_at == 0 and audit_secrets else None
    if audit_seeds:  # the salts of sealed steps: nothing proved them before the seeds
        table.findings.extend(sealed_salt_findings(save, table, audit_seeds))
    # With no one to tell, each entry is applied to the one table in place: nothing is
    # copied per entry (a refused entry ends the replay, so no before-state is needed).
    in_place = on_entry is None
    parted: dict[int, Table] = {}  # the table before each entry a skip's evidence parts at
    for index in range(start_at, len(save.entries)):
        entry, entry_digest = save.entries[index], hashes[index]
        if index in forks.values():
            parted[index] = table.copy()
        if index in forks and not (vouched is not None and vouched(entry["seq"], entry_digest)):
            _replay_voided(parted[forks[index]].copy(), entry)
        before = table
        # An entry this home verified before had its secret-deck proofs and points checked
        # then: like its signature (chain.py), they are a function of its hash. So had
        # the entry this process has just signed (``signed_here``), as it was signed.
        proved = ((entry_digest == signed_here and signed_in_this_process(entry_digest))
                  or (vouched is not None and vouched(entry["seq"], entry_digest)))
        table, _ = step(table, entry, replay=True, audit_seeds=audit_seeds, in_place=in_place,
                        proved=proved)
        table.settle_head(entry_digest)
        if on_entry is not None:
            on_entry(before, table, entry)
    absence.check_proposers(table, done=True)
    if check_snapshot and not _snapshot_matches(save.state, table):
        raise IntegrityError(
            "The [state] table differs from the state replayed from the signed history: "
            "it was edited by hand, or written by another version of pbem. The history "
            "itself is intact; ask for an untouched save, or for one written by this version.",
            seq=int(save.entries[-1]["seq"]) if save.entries else -1, code="snapshot",
        )
    report = Report(table=table, hashes=hashes, checked_from=start_at)
    report.components_digest = components
    if audit_secrets:
        finish(report)
    report.result = result.summary(report, save.entries)
    return report


def _replay_voided(table: Table, entry: Entry) -> None:
    """The rules replay of the voided branch an entry's ``evidence`` carries, from the
    table where it parted from this save (PROTOCOL.md section 5): its entries must be a
    valid branch of this game, signed in effect (not dated ahead of this home's clock),
    or the skip rests on entries its signer made up. IntegrityError (exit 3, code beacon)."""
    seq, handle = entry["seq"], entry["seat"]
    carried = entry["evidence"]
    at = timing.now()
    ahead = next((e for e in carried if (when := timing.signed_time(e)) is not None
                  and when - at > timing.AHEAD_LIMIT), None)
    try:
        if ahead is not None:
            raise IntegrityError(
                f"its entry {ahead['seq']} is dated more than an hour ahead of this "
                f"computer's clock ({timing.shown(at)}), so not in effect here yet")
        for voided in carried:
            table, _ = step(table, voided, replay=True, in_place=True)
    except PbemError as exc:
        raise IntegrityError(
            f"Entry {seq} ({handle}) skips beacon links on evidence that is not a valid branch "
            f"of this game ({exc.message.rstrip('.')}), so its randomness cannot be trusted.",
            seq=seq, code="beacon") from None


def _snapshot_matches(snapshot: dict[str, Any], table: Table) -> bool:
    """The save's [state] is the one replay derives."""
    return canonical(snapshot) == canonical(public_state(table))


# The hashes of the entries sign_entry built lately in this process, oldest dropped first.
# Writing a save verifies it once more; only an entry found here skips its second check of
# secret-deck proofs there (replay's ``signed_here``), so no other entry can be passed off
# as one.
_SIGNED_HERE: dict[str, None] = {}
SIGNED_HERE_KEPT = 64


def signed_in_this_process(entry_digest: str) -> bool:
    """Whether :func:`sign_entry` built the entry with this hash in this process lately."""
    return entry_digest in _SIGNED_HERE


def note_signed(entry_digest: str) -> None:
    """Remember that :func:`pbem.protocol.replay.signing.sign_entry` built this entry here."""
    recent.keep(_SIGNED_HERE, entry_digest, None, SIGNED_HERE_KEPT)
