"""The end of a replay: the audit of every seat's revealed secrets against its
commitments (``audit``, ``reveal_seeds``) and the result it leads to (``finish``,
``outcome_of``). Below the engine, whose ``replay`` finishes each report here.
"""

from __future__ import annotations

from typing import Any

from pbem.game import Outcome, State, copy_state
from pbem.protocol.crypto import beacon
from pbem.protocol.crypto.derive import sealed_salt
from pbem.protocol.saveformat.savefile import HEX64, Save
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


def sealed_salt_findings(save: Save, table: Table, seeds: dict[int, bytes]) -> list[str]:
    """Each opening of a sealed step whose ``salt`` is not the one derived from its
    seat's revealed seed, in words (engine.replay adds them to the table's findings, which
    the audit reports with the others) (docs/protocol-rounds.md, "Sealed steps"): the engine checks
    only that the salt opens the commitment, and cannot check more before the seed is
    public. A salt of the seat's own choosing could be known to others before it opened
    its moves (so could the moves: a sealed bid is guessed in a few tries). Seats that
    never revealed are not audited (Report.unaudited). The engine's replay refuses the
    save if any entry is unsound, so this reads the entries as they stand."""
    committed: dict[str, tuple[int, str]] = {}  # handle -> (seq, link) of its commitment
    found = []
    for entry in save.entries:
        handle = str(entry["seat"])
        if entry["kind"] != "turn":
            continue
        if "sealed" in entry:
            committed[handle] = (int(entry["seq"]), str(entry.get("beacon", "")))
        if "salt" not in entry or handle not in committed:
            continue
        at, link = committed.pop(handle)
        seat = table.seat_of(handle)
        seed = seeds.get(seat) if seat is not None else None
        if seed is None or not HEX64.fullmatch(link):
            continue
        if sealed_salt(seed, table.game_id, at, bytes.fromhex(link)).hex() != entry["salt"]:
            found.append(
                f"{handle}: the salt {handle} published in entry {entry['seq']}, opening "
                f"the moves sealed in entry {at}, is not the one derived from "
                f"{handle}'s revealed seed: {handle} chose it, so others may have known "
                "it, and the moves it hid, before they were opened.")
    return found


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
    decks = table.mental_decks()
    if decks:
        from pbem.protocol.crypto import mental_open

        options, components = game_data(table.header)
        uids = table.game.secret_decks(components, options, len(table.seats))
        claims = table.game.secret_claims(table.gstate)
        for name, d in decks.items():
            found: list[str] = []
            if table.game.opens_at_reveal():
                # Each reveal opened its seat's held cards with proofs; nothing else opens.
                cards = mental_open.shown(d)
            else:
                cards, found = mental_open.open_held(d, table.game_id, name, seeds,
                                                     list(uids[name]), unaudited=gone)
            opened[name] = cards
            found += mental_open.check_claims(
                d, cards, {s: c for s, c in claims.get(name, {}).items() if s not in gone})
            problems.extend(name_seats(table, line) for line in found)
    return problems, opened


def closed_cards(table: Table) -> list[dict[str, Any]]:
    """Each card a seat drew or holds that stays closed under the layer of a seat that
    never revealed (declared absent or played by the bot): PROTOCOL.md section 7 says
    which secrets could not be opened; so does each held card a reveal could not open,
    where each reveal opens its seat's held cards (:func:`_left_closed`). The rules never
    see its card (Game.on_reveal gets no uid for its slot), so they score its holder
    without it. Each is
    ``{"deck", "slot", "holder", "status", "under", "text"}``, handles for seats."""
    decks = table.mental_decks()
    gone = silent(table)
    opens = table.game.opens_at_reveal()
    if not decks or not (gone or opens):
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
        if opens:
            out += _left_closed(d, name, gone, handle)
    return out


def _left_closed(d: dict[str, Any], name: str, gone: set[int],
                 handle: list[str]) -> list[dict[str, Any]]:
    """closed_cards' entries for the held cards a reveal could not open (Game.opens_at_reveal:
    another seat's layer, or work, was still on them when their holder revealed)."""
    from pbem.protocol.crypto import mental_open

    out = []
    for sid, owner, under in mental_open.left_closed(d, gone):
        who = " and ".join(handle[s] for s in under)
        why = f"{who}'s layer was" if under else "deck work was"
        text = (f"the card {handle[owner]} holds in slot {sid} of deck {name!r} stays closed: "
                f"{handle[owner]} revealed while {why} still on it, so nobody can open it, "
                f"and the rules scored {handle[owner]} without it.")
        out.append({"deck": name, "slot": sid, "holder": handle[owner], "status": "held",
                    "under": [handle[s] for s in under], "text": text})
    return out


def outcome_of(table: Table, gstate: State) -> Outcome | None:
    game = table.game
    if table.dropped or table.resigned >= 0:
        # Left by choice or declared absent: the rules' scoring of the position, the
        # seats that left last (PROTOCOL.md section 11).
        return absence.outcome(table, gstate)
    return game.outcome(gstate)
