"""An entry signed in a round (docs/protocol-rounds.md): whether it is one, checked
against the round's set and slots before anything is applied (:func:`check_round`), and
recorded in the round under way at its slot (:func:`enter_round`)."""

from __future__ import annotations

from pbem.errors import TurnError
from pbem.protocol.replay import pairdraw
from pbem.protocol.saveformat.savefile import Entry
from pbem.protocol.state.rounds import admits_slot_proposals
from pbem.protocol.state.table import Table
from pbem.protocol.timekeeping import absence, clock


def check_round(table: Table, seat: int, entry: Entry) -> bool:
    """Whether ``entry`` is signed in the round the game waits on (PROTOCOL.md section
    4): it may carry ``round`` only where the order of play names a round, and must once
    the round has started; then it is by a seat of the round's set that has not signed in
    it, at the seq its seat's place in the set fixes, and of the round's kind (the
    caller's duty check). A first join without ``round`` is an entry in seat order."""
    seq, handle = entry["seq"], table.seats[seat].handle
    seats = table.round_seats()  # cheap, and [] for nearly every entry: asked first
    duty = table.duty() if seats else None
    if duty is not None and admits_slot_proposals(duty.kind) and entry["kind"] == "absent" \
            and "round" in entry:
        return _absent_in_round(table, seat, entry, seats)
    if table.round_first >= 0 and "round" not in entry and entry["kind"] in absence.KINDS:
        raise TurnError(f"Entry {seq} ({handle}) is a {entry['kind']} signed in no slot of the "
                        "round under way: nothing follows a round until each of its slots is "
                        "signed.", seq=seq, code="round")
    if duty is None or entry["kind"] != duty.kind:
        if "round" in entry:
            raise TurnError(f"Entry {seq} ({handle}) says it is signed in a round, but the "
                            "order of play names no round here.", seq=seq, code="round")
        if table.round_first >= 0 and entry["kind"] == "resign":  # it may follow the round
            raise TurnError(f"Entry {seq} ({handle}) is a {entry['kind']} signed in no slot "
                            "of the round under way: nothing follows a round until each of "
                            "its slots is signed.", seq=seq, code="round")
        return False
    if "round" not in entry and table.round_first < 0 and entry["kind"] != "turn":
        # Joins (or two reveals) signed one after another, as pbem signed them before
        # rounds: accepted in seat order (the duty check), and the ones after it follow in
        # seat order too. The turns of a simultaneous step never had another form.
        return False
    place = table.round_place(seat)
    names = ", ".join(table.seats[s].handle for s in seats)
    if place is None:
        why = ("has signed in it already" if seat in table.round_signed
               else "is not one of its seats")
        raise TurnError(f"Entry {seq} is a {entry['kind']} by {handle} in the round of "
                        f"{names}, but {handle} {why}.", seq=seq, code="round")
    _check_slot(table, seat, entry, place, names)
    if entry["kind"] == "reveal" and entry["moves"] and table.reveals_take_moves():
        # (else _reveal refuses the moves, saying why: the game was stopped or resigned)
        raise TurnError(f"Entry {seq} ({handle}) is a reveal signed in the round of {names}, "
                        "but carries moves: a reveal round is only formed where no seat has "
                        "a choice left.", seq=seq, code="round")
    return True


def _check_slot(table: Table, seat: int, entry: Entry, place: tuple[int, int],
                names: str) -> None:
    """``entry`` carries the ``round`` and ``seq`` of the slot ``place`` of the round."""
    first, expected = place
    if entry.get("round") != first or entry["seq"] != expected:
        raise TurnError(
            f"Entry {entry['seq']} ({table.seats[seat].handle}) must be signed in the round "
            f"of {names} that starts at entry {first}, as its entry {expected} "
            f"(round = {first}).", seq=entry["seq"], code="round")


def _absent_in_round(table: Table, seat: int, entry: Entry, seats: list[int]) -> bool:
    """An ``absent`` entry signed in a reveal round or a turn round (admits_slot_proposals,
    docs/protocol-rounds.md): by a seat that signed in the round, naming a seat still
    missing in it, in that seat's slot.
    It completes the slot; absence.check_proposal made the proposal's own checks."""
    seq, handle = entry["seq"], table.seats[seat].handle
    names = ", ".join(table.seats[s].handle for s in seats)
    target = table.seat_of(entry["player"])
    if seat not in seats or (seat in table.round_signed and not table.round_revealed(seat)):
        raise absence.unrevealed_proposer(table, seat, seq)
    # A proposer whose own slot comes later in the save signs there: checked as the
    # round fills (absence.round_entered) and where a save ends in it (replay).
    place = None if target is None else table.round_place(target)
    if target is None or place is None:
        raise TurnError(f"Entry {seq} ({handle}) proposes {entry['player']} absent inside the "
                        f"round of {names}, but {entry['player']} has no slot left in it.",
                        seq=seq, code="round")
    _check_slot(table, seat, entry, place, names)
    return True


def enter_round(new: Table, before: Table, slot: int, entry: Entry) -> None:
    """Record an entry in the round under way at the slot of seat ``slot`` (its signer's,
    or the seat an ``absent`` entry names), in seat order (it may be signed on a save
    that holds the entries of later seats of the round): its signer and beacon at its
    seq, the slot's seat among the round's, and a place for its digest
    (Table.settle_head fills it). The round's set is fixed at its first entry."""
    if new.round_first < 0:
        # Asked before anything changes: ``new`` may be ``before`` itself (in place).
        seats = before.round_seats()
        kind = before.step_kind()  # the first entry may be a proposal in a slot
        plan = before.deck_round_plan()
        if plan:
            kind = "deck"
            # (an answer before the round may have begun it: the draw keeps its seats)
            new.pair_draw = before.pair_draw or pairdraw.begun(before)
        else:  # a step's round: the adoptions its seats owe, done after their moves
            plan = before.step_work()
        if plan:
            new.round_work = [[s, deck, item] for s, decks in sorted(plan.items())
                              for deck, items in decks.items() for item in items]
        new.round_first, new.round_prev = entry["round"], before.head
        new.round_set, new.round_kind = seats, kind
    new.round_latest = clock.later(new.round_latest, str(entry.get("time", "")))
    place = sum(1 for s in new.round_signed if s < slot)
    new.round_signed.insert(place, slot)
    new.round_digests.insert(place, "")
    signer = before.seat_of(entry["seat"])
    assert signer is not None  # chain.authenticate ran first
    new.signers.insert(new.round_first + place, signer)
    new.beacons.insert(new.round_first + place, entry.get("beacon", ""))
