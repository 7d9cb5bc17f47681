"""Road Master from rules version 5 (Game.opens_at_reveal): each reveal opens its seat's
held Super Bonus cards, each with its proof, and the seeds the reveals publish open no
other card. The pile and the cards returned under it stay closed after the game, as at
a real table (PROTOCOL.md sections 3, 6 and 7). Version 4, whose revealed seeds open every
slot of the deck, is pinned beside it: that is the leak version 5 closes."""

from __future__ import annotations

import copy
import hashlib
from functools import cache
from typing import Any

import pytest

from pbem.errors import IntegrityError, TurnError
from pbem.protocol.crypto import mental, mental_deck
from pbem.protocol.replay import audit, engine
from pbem.protocol.saveformat import savefile
from pbem.protocol.saveformat.savefile import Save
from tests.enginekit import deck_root_of, forge, with_entries
from tests.support.duty import bot_game, fixed_identities

DECK = "superbonus"
PLAYERS = 3


@cache
def whole_game(rules: int | None = None) -> Save:
    """A whole game by the random bot, which draws Super Bonus cards often (fixed: the
    same game on every run)."""
    return bot_game("road-master", PLAYERS, [], hashlib.sha256(b"reveal-opens/0").digest(),
                    bot="random", rules=rules)


def final_deck(save: Save) -> dict[str, Any]:
    return engine.replay(save).table.mental_decks()[DECK]


def revealed_seeds(save: Save) -> dict[int, bytes]:
    handles = [i.handle for i in fixed_identities(PLAYERS)]
    return {handles.index(e["seat"]): bytes.fromhex(e["seed"])
            for e in save.entries if e["kind"] == "reveal"}


def deck_roots(save: Save) -> dict[int, bytes]:
    """Each seat's real deck secrets, which only its own home can compute."""
    ids = fixed_identities(PLAYERS)
    return {i: deck_root_of(ids[i], save, e["nonce"])
            for i, e in enumerate(e for e in save.entries if e["kind"] in ("create", "join"))}


def opened_with(d: dict[str, Any], game_id: str, roots: dict[int, bytes]) -> dict[str, str]:
    """Slot -> card of every slot no proof opened that the keys derived from ``roots``
    open (every layer peeled)."""
    points = mental.card_points(game_id, DECK, list(d["cards"]))
    out = {}
    for sid, slot in d["slots"].items():
        if "card" in slot:
            continue
        key = 1
        for seat, layer in slot["layers"].items():
            key = key * mental_deck.layer_key(roots[int(seat)], DECK, layer) % mental.L
        point = mental.point_bytes(slot["ct"])
        point = mental.decrypt(key, point) if key != 1 else point
        if point in points:
            out[sid] = points[point]
    return out


def closed_slots(d: dict[str, Any]) -> list[str]:
    return sorted(sid for sid, slot in d["slots"].items() if "card" not in slot)


@pytest.mark.heavy
def test_RM_A10_the_seeds_a_reveal_publishes_open_no_super_bonus_card() -> None:
    save = whole_game()
    assert save.header["rules_version"] == 5 and engine.replay(save).audit == "clean"
    d = final_deck(save)
    assert closed_slots(d)  # the pile, and the cards returned under it
    assert opened_with(d, save.game_id, revealed_seeds(save)) == {}
    # The deck seeds, which no entry publishes, do open every one of them: what the test
    # looks for is there to find.
    assert sorted(opened_with(d, save.game_id, deck_roots(save))) == closed_slots(d)


@pytest.mark.heavy
def test_RM_A10_version_4_seeds_still_open_every_card_of_the_pile() -> None:
    save = whole_game(rules=4)
    assert save.header["rules_version"] == 4 and engine.replay(save).audit == "clean"
    d = final_deck(save)
    assert sorted(opened_with(d, save.game_id, revealed_seeds(save))) == closed_slots(d)


@pytest.mark.heavy
def test_RM_A10_each_reveal_opens_exactly_its_seats_held_cards_and_they_are_scored() -> None:
    save = whole_game()
    report = engine.replay(save)
    d = report.table.mental_decks()[DECK]
    held = {sid: slot for sid, slot in d["slots"].items() if slot["status"] == "held"}
    assert held and all("card" in slot for slot in held.values())
    for entry in save.entries:
        if entry["kind"] != "reveal":
            continue
        seat = [i.handle for i in fixed_identities(PLAYERS)].index(entry["seat"])
        opens = [item["slot"] for chore in entry["chores"] for item in chore["items"]
                 if item["op"] == "open"]
        assert opens == sorted((sid for sid, slot in held.items() if slot["owner"] == seat),
                               key=lambda sid: int(sid[1:]))
    assert report.final is not None
    assert report.final["sb"]["opened"] == {sid: slot["card"] for sid, slot in held.items()}


def _reveal_with_opens(save: Save) -> int:
    return next(i for i, e in enumerate(save.entries) if e["kind"] == "reveal"
                and any(item["op"] == "open" for c in e["chores"] for item in c["items"]))


def _forged(save: Save, index: int, change: Any) -> Save:
    """The save up to its entry ``index``, that entry changed by ``change`` and re-signed
    by its seat, as a cheating client would send it."""
    ids = {i.handle: i for i in fixed_identities(PLAYERS)}
    entry = copy.deepcopy(save.entries[index])
    change(entry)
    entries = [*save.entries[:index], forge(entry, ids[entry["seat"]])]
    return with_entries(save, entries)


@pytest.mark.heavy
def test_a_reveal_that_leaves_its_held_cards_closed_is_refused() -> None:
    save = whole_game()
    index = _reveal_with_opens(save)

    def drop_opens(entry: dict[str, Any]) -> None:
        for chore in entry["chores"]:
            chore["items"] = [i for i in chore["items"] if i["op"] != "open"]
        entry["chores"] = [c for c in entry["chores"] if c["items"]]

    with pytest.raises(TurnError, match="omits the secret-deck work it owed"):
        engine.replay(_forged(save, index, drop_opens), check_snapshot=False)


@pytest.mark.heavy
def test_a_reveal_that_names_another_card_is_refused() -> None:
    save = whole_game()
    index = _reveal_with_opens(save)
    d = final_deck(save)
    elsewhere = next(uid for uid in d["cards"]
                     if uid not in {s.get("card") for s in d["slots"].values()})

    def other_card(entry: dict[str, Any]) -> None:
        item = next(i for c in entry["chores"] for i in c["items"] if i["op"] == "open")
        item["card"] = elsewhere

    with pytest.raises(IntegrityError, match="fails its proof"):
        engine.replay(_forged(save, index, other_card), check_snapshot=False)


@pytest.mark.heavy
def test_no_deck_seed_or_deck_key_is_ever_in_a_save() -> None:
    save = whole_game()
    text = savefile.dumps(save)
    for root in deck_roots(save).values():
        assert root.hex() not in text
        key = mental.deck_key(root, DECK)
        assert key.to_bytes(32, "little").hex() not in text
        assert mental.to_text(key.to_bytes(32, "little")) not in text


@pytest.mark.heavy
def test_a_reveal_in_a_round_that_opens_another_seats_card_is_refused_in_true_words() -> None:
    """A reveal round's entry owes the opens of its own held cards, which its reveal made
    owed: the refusal says so (its seat owed nothing when the round began)."""
    save = whole_game()
    index = next(i for i, e in enumerate(save.entries) if e["kind"] == "reveal"
                 and e.get("round") not in (None, e["seq"]))
    d = final_deck(save)
    seat = [i.handle for i in fixed_identities(PLAYERS)].index(save.entries[index]["seat"])
    other = next(sid for sid, slot in d["slots"].items()
                 if slot["status"] == "held" and slot["owner"] != seat)

    def open_another(entry: dict[str, Any]) -> None:
        items = entry["chores"][0]["items"]
        items.append({**items[0], "slot": other, "card": d["slots"][other]["card"]})

    with pytest.raises(IntegrityError) as info:
        engine.replay(_forged(save, index, open_another), check_snapshot=False)
    assert info.value.exit_code == 3
    assert (f"is signed in a round, but its work on deck 'superbonus' is not the opens of its "
            f"own held cards that its reveal owes: it does a public open of slot {other}"
            ) in info.value.message
    assert "owed when the round began" not in info.value.message


@pytest.mark.heavy
def test_a_held_card_no_reveal_could_open_is_named_in_every_result() -> None:
    """A held card still under another seat's layer when its holder revealed (a game whose
    seats keep cards before the others' peels, in an order the reveals cannot follow)
    stays closed though every seat revealed: the result names it, as it names a card
    under an absent seat's layer, and the audit is no longer 'clean'."""
    save = whole_game()
    table = engine.replay(save).table
    assert audit.closed_cards(table) == []  # every held card was opened
    d = table.mental_decks()[DECK]
    sid, slot = next((s, v) for s, v in d["slots"].items() if v["status"] == "held")
    other = (slot["owner"] + 1) % PLAYERS
    del slot["card"]
    slot["layers"] = {str(slot["owner"]): "deck", str(other): "deck"}
    handles = [i.handle for i in fixed_identities(PLAYERS)]
    holder, left = handles[slot["owner"]], handles[other]
    assert audit.closed_cards(table) == [{
        "deck": DECK, "slot": sid, "holder": holder, "status": "held", "under": [left],
        "text": f"the card {holder} holds in slot {sid} of deck 'superbonus' stays closed: "
                f"{holder} revealed while {left}'s layer was still on it, so nobody can open "
                f"it, and the rules scored {holder} without it."}]
