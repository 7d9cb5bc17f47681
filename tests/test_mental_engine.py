"""The mental deck inside signed games (PROTOCOL.md sections 6-7), with the small
"secret-draw" test game: chores ride in entries, the drawer alone reads its cards, the
audit opens everything at the end and names a cheat with its entry."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from pbem import session
from pbem.errors import IntegrityError, TurnError
from pbem.protocol import engine, mental, savefile
from pbem.protocol.identity import Home
from tests.enginekit import forge, play_game, seed_of, with_entries


def drawn_game(homes: dict[str, Home], tmp_path: Path, **kw: object) -> list[Path]:
    return play_game(homes, tmp_path / "saves", game="secret-draw", bot="greedy", **kw)


def test_secret_game_audits_clean_and_scores_held_cards(homes: dict[str, Home],
                                                        tmp_path: Path) -> None:
    paths = drawn_game(homes, tmp_path)
    report = session.verify(savefile.read(paths[-1]), Home(tmp_path / "auditor")).report
    assert report.audit == "clean"
    assert report.outcome is not None
    save = savefile.read(paths[-1])
    assert any(c for e in save.entries for c in e["chores"] if c["op"] == "work"), \
        "the game should have needed peels"


def test_only_the_drawer_reads_its_cards(homes: dict[str, Home], tmp_path: Path) -> None:
    paths = drawn_game(homes, tmp_path)
    for path in paths:
        verified = session.load(path, homes["ann"])
        table = verified.table
        if table.over():
            break
        held = {h: table.game.view(table.gstate, None)["held"] for h in homes}
        views = {h: session.seat_view(homes[h], session.load(path, homes[h]))[1] for h in homes}
        for handle, view in views.items():
            seat = table.seat_of(handle)
            assert seat is not None
            mine = set(view.get("mine", {}))
            owned = {s for s, v in table.gstate["secret"]["cards"]["slots"].items()
                     if v["owner"] == seat and v["status"] in ("drawn", "held")}
            assert mine <= owned, f"{handle} sees slots that are not theirs"
        assert held


def test_omitted_chore_is_refused(homes: dict[str, Home], tmp_path: Path) -> None:
    paths = drawn_game(homes, tmp_path)
    save = savefile.read(paths[-1])
    index = next(i for i, e in enumerate(save.entries)
                 if e["kind"] == "turn" and any(c["op"] == "work" for c in e["chores"]))
    entries = copy.deepcopy(save.entries[: index + 1])
    entries[index]["chores"] = []
    entries[index] = forge(entries[index], homes[entries[index]["seat"]].load())
    with pytest.raises(TurnError, match="omits the secret-deck work"):
        session.verify(with_entries(save, entries), Home(tmp_path / "x"))


def test_malformed_chore_is_an_integrity_failure(homes: dict[str, Home], tmp_path: Path) -> None:
    paths = drawn_game(homes, tmp_path)
    save = savefile.read(paths[-1])
    index = next(i for i, e in enumerate(save.entries)
                 if e["kind"] == "turn" and any(c["op"] == "work" for c in e["chores"]))
    entries = copy.deepcopy(save.entries[: index + 1])
    chore = next(c for c in entries[index]["chores"] if c["op"] == "work")
    chore["items"][0]["ct"] = "ff" * 32  # above the field prime: no point at all
    entries[index] = forge(entries[index], homes[entries[index]["seat"]].load())
    with pytest.raises(IntegrityError) as info:
        session.verify(with_entries(save, entries), Home(tmp_path / "x"))
    assert info.value.code == "chore"


def test_wrong_peel_is_seen_by_the_drawer_and_named_by_the_audit(
        homes: dict[str, Home], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Bob's client publishes a bad peel (it encrypts instead of decrypting). Ann cannot
    read her card and is told loudly; at the end the audit names bob and his entry."""
    honest = engine.owed_chores
    bob = 1  # the homes fixture seats ann, bob, cy

    def crooked(gstate: dict, seat: int, seed: bytes) -> list[dict]:
        chores = honest(gstate, seat, seed)
        if seat == bob:
            for chore in chores:
                for item in chore.get("items", []):
                    if item["op"] == "peel":
                        item["ct"] = mental.to_hex(mental.encrypt(7, mental.from_hex(item["ct"])))
        return chores

    monkeypatch.setattr(engine, "owed_chores", crooked)
    first = play_game(homes, tmp_path / "saves", game="secret-draw", bot="random:11",
                      stop_after=1)
    # Continue the same game: ann draws on her first turn (scripted), bob peels wrongly.
    path = first[0]
    read_failures = 0
    while True:
        table = session.load(path, homes["ann"]).table
        duty = table.duty()
        if duty is None:
            break
        handle = table.seats[duty.seat].handle
        moves: list[str] = []
        bot = None
        if duty.kind == "turn":
            shown = engine.preview(table, homes[handle].load())
            legal = shown.game.legal_moves(shown.gstate, duty.seat)
            bot = None if "draw" in legal and handle == "ann" else "random:3"
            moves = ["draw"] if bot is None else []
            if handle == "ann":
                try:
                    session.seat_view(homes["ann"], session.load(path, homes["ann"]))
                except IntegrityError as exc:
                    assert "someone peeled it wrongly" in exc.message
                    read_failures += 1
        kind = "join" if duty.kind == "join" else None
        path = session.sign_next(homes[handle], path, kind, moves, bot, None).path
    assert read_failures >= 1
    report = session.verify(savefile.read(path), Home(tmp_path / "auditor")).report
    assert isinstance(report.audit, list)
    assert any("bob" in line and "peeled" in line and line.startswith("entry ")
               for line in report.audit), report.audit
    assert not any("(cy)" in line for line in report.audit)


def test_no_card_or_key_in_saves_before_reveal(homes: dict[str, Home], tmp_path: Path) -> None:
    paths = drawn_game(homes, tmp_path)
    for path in paths:
        save = savefile.read(path)
        if any(e["kind"] == "reveal" for e in save.entries):
            continue
        text = json.dumps({"e": save.entries, "s": save.state})
        for home in homes.values():
            seed = seed_of(home, save)
            if seed is None:
                continue
            for secret in (mental.deck_key(seed, "cards"), mental.slot_key(seed, "cards", 0)):
                assert format(secret, "x") not in text and str(secret) not in text
        # Card points in the clear never appear (only encrypted slots do).
        for i in range(1, 13):
            point = mental.to_hex(mental.card_point(save.game_id, "cards", f"c{i}"))
            assert point not in text


def test_mental_deck_state_is_public_bookkeeping_only(homes: dict[str, Home],
                                                      tmp_path: Path) -> None:
    paths = drawn_game(homes, tmp_path, stop_after=8)
    table = session.load(paths[-1], homes["cy"]).table
    deck = table.gstate["secret"]["cards"]
    assert deck["mode"] == "mental"
    assert all("card" not in slot for slot in deck["slots"].values())
    assert all(set(slot["layers"]) <= {"0", "1", "2"} and len(slot["ct"]) == 64
               for slot in deck["slots"].values())
    assert all(mental.is_valid_x(mental.from_hex(slot["ct"])) for slot in deck["slots"].values())
