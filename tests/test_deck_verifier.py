"""A second implementation checks every deck step from the docs alone
(tests/support/deckcheck.py: the save, docs/PROTOCOL.md, protocol-deck.md,
protocol-shuffle-proof.md and protocol-linproof.md; libsodium for the group): a whole
2-player Red Dog Junction game with the Posse draft in each rules version (4: one-step
passes, 3: re-lock and peel), the Road Master example game (Super Bonus deck), a Road
Master game of rules version 5 (its reveals open their seats' held cards; no seed opens a
slot there), and the audit of each. It needs each deck's starting cards and, where a
move gave fresh slot ids, the ids they replace: both are in the chores, so it never guesses."""

from __future__ import annotations

import copy
import json
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tests.support import deckcheck
from tests.test_no_trail import _build

ROOT = Path(__file__).resolve().parent.parent


def _road_master() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    folder = ROOT / "saves" / "road-master"
    final = json.loads((folder / "expected.json").read_text())["final"]
    save = tomllib.loads((folder / final).read_text(encoding="utf-8"))
    return save["header"], save["entry"]


def _posse(rules: int | None = None) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    save, _ = _build("red-dog-junction", 2, ["variant=posse"], rules=rules)
    return save.header, save.entries


def _items(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [i for e in entries for c in e["chores"] for i in c.get("items", [])]


def _road_master_v5() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A whole 3-player Road Master game of rules version 5, whose reveals open their
    seats' held cards (PROTOCOL.md sections 3, 6 and 7)."""
    from tests.test_reveal_opens import whole_game

    save = whole_game()
    assert save.header["rules_version"] == 5
    return save.header, save.entries


@pytest.mark.parametrize("game", ["posse", "posse-v3", "road-master",
                                  pytest.param("road-master-v5", marks=pytest.mark.heavy)])
def test_every_deck_step_and_the_audit_check_from_the_docs_alone(game: str) -> None:
    header, entries = {"posse": _posse, "posse-v3": lambda: _posse(3),
                       "road-master": _road_master, "road-master-v5": _road_master_v5}[game]()
    assert [e["kind"] for e in entries[-len(header["seats"]):]] == ["reveal"] * len(header["seats"])
    decks = deckcheck.check_save(header, entries)
    [deck] = decks.values()
    items = _items(entries)
    if game == "posse":  # one-step passes: handoffs and adopts were checked
        assert {"handoff", "adopt"} <= {i["op"] for i in items}
    else:
        assert any("from" in i for i in items)  # fresh ids were given, and followed
        assert any(i["op"] == "shuffle" for i in items)  # batch re-locks were checked
    passes = len(header["seats"])
    assert deck.steps == passes + len(items)
    assert deck.steps >= {"posse": 60, "posse-v3": 100, "road-master": 40,
                          "road-master-v5": 40}[game]
    if game == "road-master-v5":  # each reveal's opens, and nothing else, were checked
        reveals = [i for e in entries if e["kind"] == "reveal" for c in e["chores"]
                   for i in c["items"]]
        assert reveals and all(i["op"] == "open" for i in reveals)
        assert {i["slot"]: i["card"] for i in reveals}.items() <= deck.opened.items()
        assert len(deck.opened) < len(deck.cards)  # the pile and the returned stay closed


def test_the_checker_refuses_what_the_docs_refuse() -> None:
    """Without a chore's ``from`` or the first pass's ``cards`` (the save before this
    format) it cannot follow the deck; a wrong ``from`` or a wrong peel fails a proof."""
    header, entries = _posse(3)
    first_from = next(i for i in _items(entries) if "from" in i)

    def altered(change: Any) -> list[dict[str, Any]]:
        out = copy.deepcopy(entries)
        for item in _items(out):
            if item == first_from:
                change(item)
                break
        return out

    with pytest.raises(deckcheck.Refused, match="unknown here"):
        deckcheck.check_save(header, altered(lambda i: i.pop("from")))
    with pytest.raises(deckcheck.Refused, match="fails"):
        deckcheck.check_save(header, altered(lambda i: i.update({"from": i["from"][::-1]})))
    no_cards = copy.deepcopy(entries)
    for chore in no_cards[0]["chores"]:
        chore.pop("cards")
    with pytest.raises(deckcheck.Refused, match="no starting cards"):
        deckcheck.check_save(header, no_cards)
    peel = copy.deepcopy(entries)
    item = next(i for i in _items(peel) if i["op"] == "peel")
    item["ct"] = next(i for i in _items(peel) if i["op"] == "peel" and i is not item)["ct"]
    with pytest.raises(deckcheck.Refused, match="fails its proof"):
        deckcheck.check_save(header, peel)


ONE_STEP_CHANGES = {
    "a pair's point": ("handoff", lambda i: i.update(cs=i["cs"][::-1]), "handoff .* fails"),
    "the receiver": ("handoff", lambda i: i.update(to=1 - i["to"]), "handoff .* fails"),
    "a random point twice": ("handoff", lambda i: i["rs"].__setitem__(1, i["rs"][0]),
                             "re-uses a random point"),
    "an adopted card": ("adopt", lambda i: i.update(mids=i["mids"][::-1]), "adopt .* fails"),
    "the adopted order": ("adopt", lambda i: i.update(cts=i["cts"][::-1]),
                          "fails its shuffle proof"),
}


@pytest.mark.parametrize("name", sorted(ONE_STEP_CHANGES))
def test_the_checker_refuses_a_wrong_handoff_or_adopt(name: str) -> None:
    """The one-step pass as the docs define it: each change fails a proof (or a rule)."""
    header, entries = _posse()
    op, change, refusal = ONE_STEP_CHANGES[name]
    out = copy.deepcopy(entries)
    change(next(i for i in _items(out) if i["op"] == op))
    with pytest.raises(deckcheck.Refused, match=refusal):
        deckcheck.check_save(header, out)
