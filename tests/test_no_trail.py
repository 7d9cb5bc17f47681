"""Cards leave no trail (PROTOCOL.md section 6), over whole signed bot games: Road Master
with Super Bonus at 3 to 6 seats and the Red Dog Junction Posse draft at 3 to 5.

At every save of a game each seat's private view (``show --json``: the cards it can read,
by slot), the public moves (``log --json``) and the save itself are followed, and for every
slot id the test keeps the seats that can tell its card:

* a seat that reads a slot in its own view can tell it;
* a return or a pass gives the cards new ids: whoever returned or passed them (who read
  them in the clear) can still tell the new ids in the order the move names, until a seat
  that could not tell them re-locks the batch in a secret order (a shuffle chore);
* a re-key slot by slot (a ``rekey`` item) keeps every link.

The rule: when a seat reads a slot, or names it in a public move, nobody else can tell
that slot's card. At the table a player knows which cards went under the pile or left in
a hand, never which of them the next holder keeps. Both findings of issue 22 break it on
the code before this rule: ann named the three cards bob kept from her returned six (the
bottom order gave the new ids), and ann learned bob took the tow cable from its slot id
(a passed hand kept its ids).
"""

from __future__ import annotations

import hashlib
from contextlib import AbstractContextManager
from typing import Any

import pytest

from pbem import registry
from pbem.errors import PbemError
from pbem.play import bots
from pbem.protocol.crypto import mental_deck, mental_open
from pbem.protocol.crypto.identity import Identity
from pbem.protocol.replay import engine, signing
from pbem.protocol.saveformat.savefile import Save
from pbem.protocol.state import headers
from tests.enginekit import deck_root_of
from tests.support.duty import fixed_identities
from tests.support.stream import fixed_entropy


def _fixed_entropy(label: str) -> AbstractContextManager[None]:
    return fixed_entropy(hashlib.sha256(b"no-trail/" + label.encode()).digest())


def _build(ruleset: str, players: int, options: list[str], stop: Any = None,
           extra: str = "", rules: int | None = None) -> tuple[Save, list[Identity]]:
    """A whole bot game signed in memory, the same on every run (``stop(gstate)``: end
    early once it says so, for the Posse draft; ``extra``: a move each bot turn ends with
    where it is legal, every other turn the only action of every seat but the last, so
    that the greedy bot draws Super Bonus cards often and from each other's returns)."""
    with _fixed_entropy(f"{ruleset}/{players}/{options}"):
        game = registry.load(ruleset)
        game = game if rules is None else game.for_rules(rules)
        ids = fixed_identities(players, first=7)
        header = headers.new_header(game, [(i.handle, "") for i in ids],
                                   headers.parse_options(game, options))
        table = headers.empty_table(header)
        entries = []
        while (duty := table.duty()) is not None and len(entries) < 3000:
            if stop is not None and stop(table.gstate):
                break
            who = ids[duty.seat]
            shown = signing.preview(table, who)
            kind = shown.duty().kind  # type: ignore[union-attr]
            moves = (bots.choose_turn(shown.game, shown.gstate, duty.seat, "greedy",
                                      salt=str(len(entries))) if kind == "turn" else [])
            if extra and kind == "turn" and len(entries) % 2 and duty.seat != players - 1:
                # The bot's choice of cards (if due), then only ``extra``.
                first = [m for m in moves if m.split()[0] in ("place", "keep", "bottom")]
                tried = first + [extra]
            else:
                tried = moves + ([extra] if extra and kind == "turn" else [])
            try:
                entry, table = signing.sign_entry(table, who, kind, tried)
            except PbemError:  # the extra move is not legal now
                entry, table = signing.sign_entry(table, who, kind, moves)
            entries.append(entry)
    return Save(header, entries, engine.public_state(table)), ids


class Links:
    """Slot id -> the seats that can tell its card, followed entry by entry."""

    def __init__(self, save: Save, ids: list[Identity], deck: str) -> None:
        self.save, self.deck = save, deck
        self.seeds: dict[int, bytes] = {}
        for entry in save.entries:
            if entry["kind"] in ("create", "join"):
                seat = [i.handle for i in ids].index(entry["seat"])
                self.seeds[seat] = deck_root_of(ids[seat], save, entry["nonce"])
        self.tell: dict[str, set[int]] = {}
        self.problems: list[str] = []
        self.reads = 0
        self.named = 0

    def _slot_words(self, moves: list[str]) -> list[str]:
        return [w for m in moves for w in m.split()[1:]
                if m.split()[0] in ("keep", "bottom", "pick") and w[:1] == "s" and w[1:].isdigit()]

    def check(self) -> None:
        table = headers.empty_table(self.save.header)
        uids = list(table.gstate["secret"][self.deck]["cards"])
        for entry in self.save.entries:
            seat = table.seat_of(entry["seat"])
            assert seat is not None
            for chore in entry["chores"]:
                for item in chore.get("items", []):
                    # An adopt re-locks in a secret order (only its adopter links), and the
                    # entry's own moves name its slots as the adopt leaves them.
                    if item["op"] == "adopt":
                        for slot in item["slots"]:
                            self.tell[slot] = self.tell.get(slot, set()) & {seat}
            for slot in self._slot_words(entry["moves"]):
                self.named += 1
                self._only(slot, seat, f"entry {entry['seq']}: p{seat} names {slot} in a move")
            before = set(table.gstate.get("secret", {}).get(self.deck, {}).get("slots", {}))
            table, _ = engine.step(table, entry, replay=True)
            table.settle_head(engine.entry_hash(entry))
            d = table.gstate["secret"][self.deck]
            fresh = [s for s in d["slots"] if s not in before]
            if before:
                for slot in fresh:  # made by this entry's return or pass: its mover can tell
                    self.tell[slot] = {seat}
            for chore in entry["chores"]:
                for item in chore.get("items", []):
                    if item["op"] == "shuffle":  # a secret order: only its shuffler links
                        for slot in item["slots"]:
                            self.tell[slot] = self.tell.get(slot, set()) & {seat}
            for reader, seed in sorted(self.seeds.items()):
                mine = mental_open.read(d, self.save.game_id, self.deck, reader, seed, uids)
                # A hand the reader owes the adopt of is read as its adopt will leave it:
                # those slots are followed once adopted (the entry that adopts them).
                adopting = {s for item in mental_deck.owed(d, reader) if item["op"] == "adopt"
                            for s in item["slots"]}
                for slot in [s for s in mine if s not in adopting]:
                    self.reads += 1
                    self._only(slot, reader, f"entry {entry['seq']}: p{reader} reads {slot}")
                    self.tell.setdefault(slot, set()).add(reader)

    def _only(self, slot: str, seat: int, what: str) -> None:
        others = sorted(self.tell.get(slot, set()) - {seat})
        if others:
            self.problems.append(f"{what}, whose card p{others[0]} can tell")


def _rm(players: int) -> Links:
    save, ids = _build("road-master", players, [], extra="superbonus")
    return Links(save, ids, "superbonus")


def _posse(players: int, rules: int | None = None) -> Links:
    save, ids = _build("red-dog-junction", players, ["variant=posse"],
                       stop=lambda g: g.get("phase") == "play", rules=rules)
    return Links(save, ids, "posse")


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_super_bonus_cards_leave_no_trail(players: int) -> None:
    """Issue 22 finding 2: returned cards get fresh ids and every other seat shuffles them,
    so nobody can tell which of them a later drawer reads or keeps."""
    links = _rm(players)
    links.check()
    returns = sum(m.startswith("bottom") for e in links.save.entries for m in e["moves"])
    assert returns and links.reads and links.named
    assert links.problems == [], links.problems[:5]


@pytest.mark.parametrize("players", [3, 4, 5])
@pytest.mark.parametrize("rules", [3, 4, 5, 7])
def test_posse_picks_leave_no_trail(players: int, rules: int) -> None:
    """Issue 22 finding 3: a passed hand is re-locked in a secret order by its receiver
    (version 3: under fresh ids, re-lock then peel; version 4: a one-step pass, whose
    adopt re-locks it), so a seat that held the hand cannot tell which card a later
    holder picks. Version 5 (one-step passes too) deals as the last shuffle pass lands,
    the last joiner peeling in its join: no seat can tell a dealt card either."""
    links = _posse(players, None if rules == 7 else rules)
    links.check()
    ops = {i["op"] for e in links.save.entries for c in e["chores"] for i in c.get("items", [])}
    assert ("adopt" in ops) == (rules >= 4)
    join_peels = [i for e in links.save.entries if e["kind"] == "join"
                  for c in e["chores"] for i in c.get("items", [])]
    assert len(join_peels) == (9 * (players - 1) if rules >= 5 else 0)
    picks = sum(m.startswith("pick") for e in links.save.entries for m in e["moves"])
    assert picks == 8 * players and links.reads
    assert links.problems == [], links.problems[:5]
