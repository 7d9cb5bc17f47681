"""The end of a replay: the audit of every seat's revealed secrets against its
commitments (``audit``, ``reveal_seeds``) and the result it leads to (``finish``,
``outcome_of``). Below the engine, whose ``replay`` finishes each report here.
"""

from __future__ import annotations

from typing import Any

from pbem.game import Outcome, State, copy_state
from pbem.protocol.crypto import beacon
from pbem.protocol.saveformat.savefile import Save
from pbem.protocol.state.headers import game_data
from pbem.protocol.state.table import Report, Table, name_seats, silent
from pbem.protocol.timekeeping import absence


def finish(report: Report) -> None:
    """Audit and score a finished game (PROTOCOL.md section 7)."""
    table = report.table
    if not table.over() or table.duty() is not None:
        report.audit = "pending"
        return
    violations, opened = audit(table)
    report.audit = violations or "clean"
    report.closed = closed_cards(table)
    report.unaudited = absence.unaudited(table) + [card["text"] for card in report.closed]
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
        from pbem.protocol.crypto import mental_open

        options, components = game_data(table.header)
        uids = table.game.secret_decks(components, options, len(table.seats))
        claims = table.game.secret_claims(table.gstate)
        for name, d in decks.items():
            cards, found = mental_open.open_held(d, table.game_id, name, seeds, list(uids[name]),
                                                 unaudited=gone)
            opened[name] = cards
            found += mental_open.check_claims(
                d, cards, {s: c for s, c in claims.get(name, {}).items() if s not in gone})
            problems.extend(name_seats(table, line) for line in found)
    return problems, opened


def closed_cards(table: Table) -> list[dict[str, Any]]:
    """Each card a seat drew or holds that stays closed under the layer of a seat that
    never revealed (declared absent or played by the bot): PROTOCOL.md section 7 says
    which secrets could not be opened. The rules never see its card (Game.on_reveal gets
    no uid for its slot), so they score its holder without it. Each is
    ``{"deck", "slot", "holder", "status", "under", "text"}``, handles for seats."""
    decks = {n: d for n, d in table.gstate.get("secret", {}).items() if d.get("mode") == "mental"}
    gone = silent(table)
    if not decks or not gone:
        return []
    from pbem.protocol.crypto import mental_open

    handle = [s.handle for s in table.seats]
    out: list[dict[str, Any]] = []
    for name, d in decks.items():
        for sid, status, owner, under in mental_open.closed(d, gone):
            who = " and ".join(handle[s] for s in under)
            kept = "holds" if status == "held" else "drew (not yet kept)"
            text = (f"the card {handle[owner]} {kept} in slot {sid} of deck {name!r} stays "
                    f"closed under {who}'s layer: {who} never revealed, so nobody can open "
                    f"it, and the rules scored {handle[owner]} without it.")
            out.append({"deck": name, "slot": sid, "holder": handle[owner], "status": status,
                        "under": [handle[s] for s in under], "text": text})
    return out


def outcome_of(table: Table, gstate: State) -> Outcome | None:
    game = table.game
    if table.dropped or table.resigned >= 0:
        # Left by choice or declared absent: the rules' scoring of the position, the
        # seats that left last (PROTOCOL.md section 11).
        return absence.outcome(table, gstate)
    return game.outcome(gstate)
