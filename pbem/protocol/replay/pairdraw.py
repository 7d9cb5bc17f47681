"""Chance a round of deck work draws from two of its links (docs/protocol-rounds.md,
"Drawn from two links of the round").

Where the game says so (``Game.deck_round_pair``: Red Dog Junction's Posse opens from
rules version 6), the chance pending when a round of deck work begins is drawn from two
links published in that round: the link of the seat that queued it and the resolver's,
by whichever of their two entries is applied second (an entry of the round, or the
answer signed on top of a proposal in its slot, which publishes the link the slot would
have). Neither link was published before the round: the choices of the round of choices
that queued the chance (the Posse's last picks) were all fixed before either was, so no
seat made its choice knowing the outcome. A lone resolver's own next link it knows in
advance: with the queuing entry in hand before its own choice in that round of choices,
it could work the outcome out first.
"""

from __future__ import annotations

from typing import Any

from pbem.errors import TurnError
from pbem.protocol.crypto import beacon
from pbem.protocol.saveformat.savefile import Entry
from pbem.protocol.state.table import Table, silent
from pbem.protocol.state.turns import resolve_pending


def begun(before: Table) -> dict[str, Any]:
    """The draw of the round of deck work that ``before``'s next entry begins: the seats
    whose links draw the chance pending (the queuing seat, then the resolver) and their
    links as they come in ({} where no two links draw it)."""
    pending = before.gstate.get("pending", [])
    if not pending or not before.game.deck_round_pair(before.gstate):
        return {}
    seats = before.deck_round_drawers(before.deck_round(), pending)
    return {"seats": seats, "links": ["", ""]} if len(seats) == 2 else {}


def answer_begins(new: Table, seat: int) -> None:
    """In place, after ``seat``'s answer to a proposal outside a round (the proposal void,
    its turn owing the seat's deck work): an answer before the round of deck work it would
    begin begins the draw, and its link counts for it (:func:`record`); it draws nothing
    alone. The engine applies it so, and the signer's preview shows it so."""
    if seat in new.deck_duty() and not new.pair_draw:
        new.pair_draw = begun(new)


def ahead(table: Table) -> dict[str, Any]:
    """The draw the next entry in the order of play would begin, where none is under way
    (before the round of deck work, or an answer before it), whatever the proposals
    before the round settle to (the seats owing work then): :func:`begun` ({} if none)."""
    if table.pair_draw or table.stopped or table.round_first >= 0:
        return {}
    return begun(Table(**{**vars(table), "proposal": {}, "queue": []}))


def refuse_resign(table: Table, seat: int, entry: Entry) -> None:
    """A resignation signed in the order of play before the round of deck work whose two
    links draw the chance pending (:func:`ahead`) is refused: as any entry there it would
    draw that chance alone, from the queuing entry's link and its signer's own, both known
    to the signer before its last choice (the ranking a resignation leaves reads the
    outcome). pbem signs none there (the seat's next entry goes in its slot of the round);
    a seat resigns on a turn of its own after the round."""
    if entry["kind"] == "resign" and ahead(table):
        raise TurnError(f"Entry {entry['seq']} ({table.seats[seat].handle}) resigns before the "
                        "round of secret-deck work whose entries draw the chance pending: it "
                        "would draw it alone, from links its signer knew before its last "
                        "choice. A seat resigns on a turn of its own after the round.",
                        seq=entry["seq"], code="round")


def holds_work(table: Table) -> bool:
    """Whether an entry out of the order of play (``absent``, ``vote``, ``confirm``,
    ``away``) signed on ``table`` does no secret-deck work: while chance the game draws
    from two links of a round of deck work is pending (Game.deck_round_pair), before or
    in that round. Such an entry publishes no link, so the work of the queuing seat done
    there would leave the round without it, and a lone entry of the other seat would draw
    the chance from the queuing entry's link and its own, both known to it before its
    last choice; the work waits for the seat's entry in the order of play."""
    return (not table.stopped and bool(table.gstate.get("pending"))
            and table.game.deck_round_pair(table.gstate))


def waiting(table: Table) -> bool:
    """Whether the chance pending waits for the two links of its round's draw. Once a
    remedy silences one of the two seats (the bot plays it, or it is dropped), it never
    will: the next entry in the order of play resolves it, as any (PROTOCOL.md
    section 5)."""
    draw = table.pair_draw
    return bool(draw) and not table.stopped and not (set(draw["seats"]) & silent(table))


def drawers(table: Table) -> list[int]:
    """The seats whose links the chance pending waits for, those not in yet ([] if it
    waits for none)."""
    if not waiting(table):
        return []
    draw = table.pair_draw
    return [s for s, link in zip(draw["seats"], draw["links"], strict=True) if not link]


def record(new: Table, seat: int, entry: Entry) -> None:
    """After ``seat``'s entry did its deck work: if its link is one the draw waits for,
    keep it; with both in, draw the chance, in place."""
    if seat not in drawers(new) or not entry.get("beacon"):
        return
    seats, links = new.pair_draw["seats"], list(new.pair_draw["links"])
    links[seats.index(seat)] = str(entry["beacon"])
    # A new dict: the table's may be shared with a cached one (Table.from_json).
    new.pair_draw = {"seats": seats, "links": links}
    if all(links):
        queued, drawn = (bytes.fromhex(link) for link in links)
        new.pair_draw = {}
        # R as PROTOCOL.md section 5 has it for the queuing entry k, with the queuing
        # seat's link in the round in place of beacon_k (which the resolver may have read
        # before its own last choice).
        resolve_pending(new.game, new.gstate,
                        lambda seq: beacon.sampler(new.game_id, seq, queued, drawn))
