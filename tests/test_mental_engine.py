"""The mental deck inside signed games (PROTOCOL.md sections 6-7), with the small
"secret-draw" and "secret-draft" test games: chores ride in entries with their proofs, the
drawer alone reads its cards, a wrong peel is refused in the entry that makes it, hands
are dealt, passed and opened, and the audit opens everything at the end."""

from __future__ import annotations

import copy
import json
import re
import shutil
from pathlib import Path

import pytest

from pbem import session
from pbem.errors import IntegrityError, TurnError
from pbem.protocol.crypto import dleq, mental, mental_deck, mental_open, shuffle_proof
from pbem.protocol.crypto.identity import Home
from pbem.protocol.replay import engine
from pbem.protocol.saveformat import savefile
from tests.enginekit import forge, play_game, seed_of, with_entries, write


def drawn_game(homes: dict[str, Home], tmp_path: Path, bot: str = "greedy", **kw: object) -> list[Path]:
    return play_game(homes, tmp_path / "saves", game="secret-draw", bot=bot, **kw)  # type: ignore[arg-type]


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


def test_an_omitted_chore_is_named_in_the_refusal(homes: dict[str, Home], tmp_path: Path) -> None:
    """The refusal names the work omitted: a join without its shuffle pass, a turn
    without its first owed item (it said "peels or re-locks" whatever was owed)."""
    paths = drawn_game(homes, tmp_path)
    save = savefile.read(paths[-1])
    for kind, named in (("join", "its shuffle pass"), ("turn", "peel of slot s")):
        index = next(i for i, e in enumerate(save.entries) if e["kind"] == kind
                     and any(c["op"] in ("work", "shuffle") for c in e["chores"]))
        entries = copy.deepcopy(save.entries[: index + 1])
        entries[index]["chores"] = []
        entries[index] = forge(entries[index], homes[entries[index]["seat"]].load())
        with pytest.raises(TurnError, match=f"omits the secret-deck work it owed on deck "
                                            f"'[a-z-]+': {named}"):
            session.verify(with_entries(save, entries), Home(tmp_path / kind))


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


def _first_with(save: savefile.Save, op: str) -> int:
    return next(i for i, e in enumerate(save.entries)
                for c in e["chores"] for item in c.get("items", []) if item["op"] == op)


def _verify_cli(path: Path, home: Path) -> tuple[int, str]:
    from click.testing import CliRunner

    from pbem.cli import main

    result = CliRunner().invoke(main, ["--home", str(home), "verify", str(path)])
    return result.exit_code, result.output + (result.stderr if result.stderr_bytes else "")


def _wrong_peel(save: savefile.Save, homes: dict[str, Home]
                ) -> tuple[int, dict, dict, savefile.Save]:
    """The save up to its first peel, that peel's value replaced by another point and its
    entry re-signed by its seat, as a cheating client would: (index, entry, item, save)."""
    index = _first_with(save, "peel")
    entries = copy.deepcopy(save.entries[: index + 1])
    cheat = entries[index]
    item = next(i for c in cheat["chores"] for i in c.get("items", []) if i["op"] == "peel")
    item["ct"] = mental.to_text(mental.encrypt(7, mental.from_text(item["ct"])))
    entries[index] = forge(cheat, homes[cheat["seat"]].load())
    return index, entries[index], item, with_entries(save, entries)


def test_wrong_peel_is_refused_in_its_own_entry_even_if_the_cheater_never_reveals(
        homes: dict[str, Home], tmp_path: Path) -> None:
    """A seat signs an entry whose peel is not the slot with its layer removed and sends
    it on. Before the proofs this passed replay and was only named by the end-of-game audit,
    if the cheater revealed. Now the save is refused at that entry, exit 3, naming it."""
    paths = drawn_game(homes, tmp_path)
    save = savefile.read(paths[-1])
    index, cheat, item, forged = _wrong_peel(save, homes)
    with pytest.raises(IntegrityError) as info:
        session.verify(forged, Home(tmp_path / "x"))
    assert info.value.code == "chore" and info.value.seq == index
    assert info.value.message.startswith(f"Entry {index} ({cheat['seat']}): ")
    assert f"{cheat['seat']}'s chore, peel of slot {item['slot']} fails its proof" in info.value.message
    path = write(tmp_path, "forged.toml", forged)
    code, output = _verify_cli(path, tmp_path / "y")
    assert code == 3 and f"Entry {index} ({cheat['seat']})" in output and "Traceback" not in output


def _item_proofs(item: dict) -> int:
    return len(item["proofs"]) if item["op"] == "rekey" else 1


def _proof_items(entries: list[dict]) -> int:
    """How many proofs the entries' chores carry: one per shuffle pass, peel, open and
    batch shuffle, one per slot of a batch re-key."""
    return sum(1 if c["op"] == "shuffle" else sum(_item_proofs(i) for i in c["items"])
               for e in entries for c in e["chores"])


def _item_points(item: dict) -> int:
    return {"peel": 1, "open": 0}.get(item["op"], len(item.get("cts", [])) + 1)


def _points_in(entries: list[dict]) -> int:
    """How many points (ciphertexts and key points) the entries' chores publish."""
    return sum(len(c["cts"]) + 1 if c["op"] == "shuffle" else sum(_item_points(i) for i in c["items"])
               for e in entries for c in e["chores"])


def _counting_proof_checks(monkeypatch: pytest.MonkeyPatch) -> list[tuple[object, ...]]:
    """From now on, each check of a secret-deck proof (dleq.verify, shuffle_proof.verify)
    is made and recorded."""
    checked: list[tuple[object, ...]] = []
    for module in (dleq, shuffle_proof):
        real = module.verify

        def counted(*args: object, real: object = real) -> bool:
            checked.append(args)
            return real(*args)  # type: ignore[operator, no-any-return]

        monkeypatch.setattr(module, "verify", counted)
    return checked


def test_a_home_checks_each_proof_once(homes: dict[str, Home], tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A finished game is replayed from its first entry (the audit), but the proofs of the
    entries this home verified before are not checked again: like their signatures, they
    are checks on bytes the archive vouches for by hash (chain.py). A new home, and
    ``verify --full``, check every proof."""
    paths = drawn_game(homes, tmp_path)
    final = savefile.read(paths[-1])
    # The last save whose next entry carries work: what the auditor saw before the end.
    seen = max(i for i, e in enumerate(final.entries) if i and _proof_items([e])) - 1
    auditor = Home(tmp_path / "auditor")
    session.verify(savefile.read(paths[seen]), auditor)
    checked = _counting_proof_checks(monkeypatch)
    points: list[object] = []  # values checked to be points of the group (mental.from_text)
    real_point = mental_deck._point

    def counted_point(value: object, where: str) -> bytes:
        points.append(value)
        return real_point(value, where)

    monkeypatch.setattr(mental_deck, "_point", counted_point)
    report = session.verify(final, auditor).report
    assert report.audit == "clean" and report.checked_from == 0
    new_work = _proof_items(final.entries[seen + 1:])
    assert 0 < new_work < _proof_items(final.entries)
    assert len(checked) == new_work
    # Nor are the points of those entries checked again (shuffle passes included).
    assert len(points) <= _points_in(final.entries[seen + 1:])
    checked.clear()
    points.clear()
    assert session.verify(final, Home(tmp_path / "new")).report.audit == "clean"
    assert len(checked) == _proof_items(final.entries)
    assert len(points) > _points_in(final.entries[seen + 1:])
    checked.clear()
    session.verify(final, auditor, full=True)  # --full re-runs everything
    assert len(checked) == _proof_items(final.entries)


def test_a_signer_checks_its_own_proofs_once(homes: dict[str, Home], tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The proofs of a new entry are checked as it is signed; filing it in the writer's
    archive (a verify of the save written) does not check them a second time. A reader's
    home checks them once, on its own."""
    paths = drawn_game(homes, tmp_path)
    final = savefile.read(paths[-1])
    # An entry with secret-deck work, signed in a turn: sign it again in a copy of its
    # signer's home that has verified the save before it and nothing later.
    at = next(i for i, e in enumerate(final.entries) if e["kind"] == "turn" and _proof_items([e]))
    signer = homes[final.entries[at]["seat"]]
    again = Home(tmp_path / "again")
    shutil.copytree(signer.path, again.path, ignore=shutil.ignore_patterns(
        signer.archive_dir.name, "games.json*"))
    session.load(paths[at - 1], again)
    checked = _counting_proof_checks(monkeypatch)
    written = session.sign_next(again, paths[at - 1], None, [], "greedy", str(tmp_path / "new.toml"))
    work = _proof_items([written.entry])
    assert work > 0 and len(checked) == work
    checked.clear()
    session.load(written.path, Home(tmp_path / "reader"))
    assert len(checked) == _proof_items(written.save.entries)


def test_writing_a_save_checks_the_proofs_of_an_entry_not_signed_in_this_process(
        homes: dict[str, Home], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """session.write skips the second check of the proofs only for an entry sign_entry
    built in this process. Handed a save whose last entry was signed elsewhere, it checks
    every proof of it: an honest entry passes, a forged peel (validly signed by its seat)
    is refused at its entry."""
    paths = drawn_game(homes, tmp_path)
    save = savefile.read(paths[-1])
    index, cheat, _, forged = _wrong_peel(save, homes)
    honest = savefile.Save(save.header, save.entries[: index + 1], save.state)
    assert engine.signed_in_this_process(engine.entry_hash(save.entries[-1]))  # just signed
    monkeypatch.setattr(engine, "_SIGNED_HERE", {})  # as in another process
    assert not engine.signed_in_this_process(engine.entry_hash(honest.entries[-1]))
    checked = _counting_proof_checks(monkeypatch)
    with pytest.raises(IntegrityError) as snapshot:  # every proof checked, then the [state]
        session.write(honest, tmp_path / "honest.toml", Home(tmp_path / "a"))
    assert snapshot.value.code == "snapshot"
    assert len(checked) == _proof_items(honest.entries)
    cut = savefile.Save(forged.header, forged.entries[: index + 1], save.state)
    with pytest.raises(IntegrityError) as info:
        session.write(cut, tmp_path / "forged.toml", Home(tmp_path / "b"))
    assert info.value.code == "chore" and info.value.seq == index
    assert f"{cheat['seat']}'s chore, peel of slot" in info.value.message


def test_a_wrong_peel_after_what_a_home_verified_is_refused(homes: dict[str, Home],
                                                           tmp_path: Path) -> None:
    """The home skips only the proofs of entries it verified itself: a forged peel in the
    first entry it has not seen is refused there, and a home that verified the honest game
    refuses the forged one as well."""
    paths = drawn_game(homes, tmp_path)
    save = savefile.read(paths[-1])
    index, _, _, forged = _wrong_peel(save, homes)
    before = Home(tmp_path / "before")
    session.verify(savefile.read(paths[index - 1]), before)  # entries 0 .. index-1
    with pytest.raises(IntegrityError) as info:
        session.verify(forged, before)
    assert info.value.code == "chore" and info.value.seq == index
    assert "fails its proof" in info.value.message
    after = Home(tmp_path / "after")
    session.verify(save, after)
    with pytest.raises(IntegrityError):
        session.verify(forged, after)


def test_proof_copied_from_another_entry_is_refused(homes: dict[str, Home], tmp_path: Path) -> None:
    """Two entries' peel items swapped wholesale (values and proofs): each proof is bound
    to its entry and slot, so the copy fails where it lands."""
    paths = drawn_game(homes, tmp_path)
    save = savefile.read(paths[-1])
    index = _first_with(save, "peel")
    entries = copy.deepcopy(save.entries[: index + 1])
    chore = next(c for c in entries[index]["chores"] if c["op"] == "work")
    peels = [i for i in chore["items"] if i["op"] == "peel"]
    assert len(peels) >= 2  # a draw is of two cards
    peels[0]["proof"], peels[1]["proof"] = peels[1]["proof"], peels[0]["proof"]
    entries[index] = forge(entries[index], homes[entries[index]["seat"]].load())
    with pytest.raises(IntegrityError, match="fails its proof"):
        session.verify(with_entries(save, entries), Home(tmp_path / "x"))


def test_relock_with_a_small_order_key_point_is_refused(homes: dict[str, Home], tmp_path: Path) -> None:
    from tests.test_mental import _torsion

    paths = drawn_game(homes, tmp_path)
    save = savefile.read(paths[-1])
    index = _first_with(save, "shuffle")
    entries = copy.deepcopy(save.entries[: index + 1])
    item = next(i for c in entries[index]["chores"] for i in c.get("items", []) if i["op"] == "shuffle")
    item["key"] = mental.to_text(_torsion()[2])
    entries[index] = forge(entries[index], homes[entries[index]["seat"]].load())
    with pytest.raises(IntegrityError, match="key point: .* not a valid point") as info:
        session.verify(with_entries(save, entries), Home(tmp_path / "x"))
    assert info.value.code == "chore"


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
                assert mental.scalar_bytes(secret).hex() not in text
                assert mental.to_text(mental.scalar_bytes(secret)) not in text
        # Card points in the clear never appear (only encrypted slots do).
        for i in range(1, 13):
            point = mental.to_text(mental.card_point(save.game_id, "cards", f"c{i}"))
            assert point not in text


def test_mental_deck_state_is_public_bookkeeping_only(homes: dict[str, Home],
                                                      tmp_path: Path) -> None:
    paths = drawn_game(homes, tmp_path, stop_after=8)
    table = session.load(paths[-1], homes["cy"]).table
    deck = table.gstate["secret"]["cards"]
    assert deck["mode"] == "mental"
    assert all("card" not in slot for slot in deck["slots"].values())
    assert all(set(slot["layers"]) <= {"0", "1", "2"} and len(slot["ct"]) == 43
               for slot in deck["slots"].values())
    assert all(mental.is_valid_point(mental.point_bytes(slot["ct"])) for slot in deck["slots"].values())
    assert all("from" not in slot for slot in deck["slots"].values())
    assert set(deck["keys"]) == {"0", "1", "2"}


# ---- the secret draft: deal, pass, open through the engine --------------------------------
def draft_game(homes: dict[str, Home], tmp_path: Path, bot: str = "random:5",
               **kw: object) -> list[Path]:
    return play_game(homes, tmp_path / "draft", game="secret-draft", bot=bot, **kw)  # type: ignore[arg-type]


def test_draft_deals_passes_and_opens_with_a_clean_audit(homes: dict[str, Home],
                                                         tmp_path: Path) -> None:
    paths = draft_game(homes, tmp_path)
    save = savefile.read(paths[-1])
    report = session.verify(save, Home(tmp_path / "auditor")).report
    assert report.audit == "clean" and report.outcome is not None
    ops = {i["op"] for e in save.entries for c in e["chores"] for i in c.get("items", [])}
    assert ops == {"peel", "shuffle", "open"}
    final = report.table.gstate
    shown = final["secret"]["draft"]
    # Every card was picked by someone and shown to all; scores are the shown numbers.
    assert sorted(int(v["card"][1:]) for v in shown["slots"].values()) == list(range(1, 10))
    assert sum(report.outcome.scores.values()) == sum(range(1, 10))
    assert all(len([v for v in shown["slots"].values() if v["owner"] == s]) == 3 for s in range(3))


def test_draft_each_seat_sees_its_own_hand_only(homes: dict[str, Home], tmp_path: Path) -> None:
    paths = draft_game(homes, tmp_path)
    saw_a_hand = 0
    for path in paths:
        table = session.load(path, homes["ann"]).table
        if table.over():
            break
        deck = table.gstate["secret"]["draft"]
        for handle in homes:
            seat = table.seat_of(handle)
            _, view, secrets = session.seat_view(homes[handle], session.load(path, homes[handle]))
            mine = set(secrets.get("draft", {}))
            owned = {s for s, v in deck["slots"].items()
                     if v["owner"] == seat and v["status"] in ("drawn", "held")}
            assert mine <= owned, f"{handle} reads slots that are not theirs"
            saw_a_hand += bool(mine)
            # A seat reads every private slot of its own once no work is pending on it.
            settled = {s for s in owned
                       if not any(s in mental_deck.item_slots(o) for o in deck["owed"])}
            assert settled <= mine
    assert saw_a_hand > 5


def test_draft_saves_hold_no_key_and_no_card_before_it_is_shown(homes: dict[str, Home],
                                                                 tmp_path: Path) -> None:
    paths = draft_game(homes, tmp_path)
    game_id = savefile.read(paths[0]).game_id
    points = {mental.to_text(mental.card_point(game_id, "draft", f"c{i}")) for i in range(1, 10)}
    checked = 0
    for path in paths:
        save = savefile.read(path)
        if any(e["kind"] == "reveal" for e in save.entries):
            continue
        text = json.dumps({"e": save.entries, "s": save.state})
        assert not any(p in text for p in points), "a card point in the clear"
        final = savefile.read(paths[-1])  # every seat has joined: every nonce is known
        for home in homes.values():
            seed = seed_of(home, final)
            assert seed is not None
            keys = [mental.deck_key(seed, "draft")] + [mental.slot_key(seed, "draft", i) for i in range(40)]
            assert not any(mental.scalar_bytes(k).hex() in text or format(k, "x") in text
                           or mental.to_text(mental.scalar_bytes(k)) in text for k in keys)
        # Named cards appear only in public opens, and only once the draft is over.
        named = [i["card"] for e in save.entries for c in e["chores"] for i in c.get("items", [])
                 if i["op"] == "open"]
        table = engine.replay(save, check_snapshot=False, audit_secrets=False).table
        if table.gstate["phase"] == "draft":
            assert named == []
        checked += 1
    assert checked > 10


def test_draft_pass_with_a_wrong_lock_is_refused(homes: dict[str, Home], tmp_path: Path) -> None:
    paths = draft_game(homes, tmp_path)
    save = savefile.read(paths[-1])
    index = _first_with(save, "shuffle")
    entries = copy.deepcopy(save.entries[: index + 1])
    item = next(i for c in entries[index]["chores"] for i in c.get("items", []) if i["op"] == "shuffle")
    item["cts"][0] = mental.to_text(mental.encrypt(3, mental.from_text(item["cts"][0])))
    entries[index] = forge(entries[index], homes[entries[index]["seat"]].load())
    with pytest.raises(IntegrityError, match=r"batch .* fails its shuffle proof"):
        session.verify(with_entries(save, entries), Home(tmp_path / "x"))


def test_draft_false_public_open_is_refused(homes: dict[str, Home], tmp_path: Path) -> None:
    paths = draft_game(homes, tmp_path)
    save = savefile.read(paths[-1])
    index = _first_with(save, "open")
    entries = copy.deepcopy(save.entries[: index + 1])
    item = next(i for c in entries[index]["chores"] for i in c.get("items", []) if i["op"] == "open")
    opened = {i["card"] for e in save.entries for c in e["chores"] for i in c.get("items", [])
              if i["op"] == "open"}
    lie = next(f"c{n}" for n in range(1, 10) if f"c{n}" != item["card"])
    item["card"] = lie
    entries[index] = forge(entries[index], homes[entries[index]["seat"]].load())
    with pytest.raises(IntegrityError, match=rf"open of slot {item['slot']} fails its proof"):
        session.verify(with_entries(save, entries), Home(tmp_path / "x"))
    assert len(opened) == 9


def test_draft_pick_of_a_slot_not_in_the_hand_is_a_rules_refusal(homes: dict[str, Home],
                                                                  tmp_path: Path) -> None:
    from pbem.errors import MoveError

    paths = draft_game(homes, tmp_path)
    save = savefile.read(paths[-1])
    index = next(i for i, e in enumerate(save.entries) if any(m.startswith("pick") for m in e["moves"]))
    entries = copy.deepcopy(save.entries[: index + 1])
    table = engine.replay(with_entries(save, entries[:index]), check_snapshot=False).table
    seat = table.seat_of(entries[index]["seat"])
    assert seat is not None
    foreign = next(s for s, v in table.gstate["secret"]["draft"]["slots"].items()
                   if v["owner"] not in (seat, -1))
    entries[index]["moves"] = [f"pick {foreign}"]
    entries[index] = forge(entries[index], homes[entries[index]["seat"]].load())
    with pytest.raises(MoveError, match="not possible"):
        session.verify(with_entries(save, entries), Home(tmp_path / "x"))


def test_draft_plays_the_same_in_plain_mode() -> None:
    from pbem.play.local import LocalTable
    from tests.support.secret_draft import GAME

    for seats in (2, 3, 5):
        table = LocalTable(GAME, [f"p{i}" for i in range(seats)], {"hand": 3})
        turns = 0
        while table.to_act() is not None:
            legal = table.legal_moves()
            table.play([legal[0]])
            turns += 1
            assert turns < 200
        outcome = table.finish()
        assert outcome is not None and sum(outcome.scores.values()) == sum(range(1, 3 * seats + 1))
        # Plain mode needs no waiting: every seat picks on each of its turns.
        assert turns <= 3 * seats + seats


# ---- every shuffle is proven (PROTOCOL.md section 6) --------------------------------------
def _join_pass(save: savefile.Save) -> tuple[int, dict]:
    """The first join entry and its shuffle pass."""
    index = next(i for i, e in enumerate(save.entries) if e["kind"] == "join")
    return index, next(c for c in save.entries[index]["chores"] if c["op"] == "shuffle")


def _refused_at_join(save: savefile.Save, homes: dict[str, Home], tmp_path: Path,
                     change: object, match: str) -> None:
    """The save cut after its first join, whose shuffle pass ``change`` alters, re-signed by
    the joiner: refused at that join, exit 3 through the CLI, naming the joiner."""
    index, _ = _join_pass(save)
    entries = copy.deepcopy(save.entries[: index + 1])
    chore = next(c for c in entries[index]["chores"] if c["op"] == "shuffle")
    change(chore)  # type: ignore[operator]
    who = entries[index]["seat"]
    entries[index] = forge(entries[index], homes[who].load())
    forged = with_entries(save, entries)
    with pytest.raises(IntegrityError) as info:
        session.verify(forged, Home(tmp_path / "x"))
    assert info.value.code == "chore" and info.value.seq == index
    assert info.value.message.startswith(f"Entry {index} ({who}): ")
    assert f"{who}'s shuffle pass" in info.value.message
    assert re.search(match, info.value.message), info.value.message
    code, output = _verify_cli(write(tmp_path, "forged.toml", forged), tmp_path / "y")
    assert code == 3 and f"({who})" in output and "Traceback" not in output


@pytest.fixture()
def finished_draw(homes: dict[str, Home], tmp_path: Path) -> savefile.Save:
    return savefile.read(drawn_game(homes, tmp_path)[-1])


def test_join_shuffle_of_substituted_points_is_refused_at_the_join(
        finished_draw: savefile.Save, homes: dict[str, Home], tmp_path: Path) -> None:
    """Issue finding 1: a joiner's pass of substituted points, signed again, verified
    before (and framed an honest holder at the audit); now refused at the join."""
    def substitute(chore: dict) -> None:
        chore["cts"] = [mental.to_text(mental.encrypt(5, mental.from_text(ct))) for ct in chore["cts"]]

    def one(chore: dict) -> None:
        chore["cts"][3] = mental.to_text(mental.card_point("x", "cards", "c1"))

    _refused_at_join(finished_draw, homes, tmp_path, substitute, "fails its shuffle proof")
    _refused_at_join(finished_draw, homes, tmp_path, one, "fails its shuffle proof")


def test_join_shuffle_with_a_duplicated_card_is_refused(
        finished_draw: savefile.Save, homes: dict[str, Home], tmp_path: Path) -> None:
    def duplicate(chore: dict) -> None:
        chore["cts"][1] = chore["cts"][0]

    _refused_at_join(finished_draw, homes, tmp_path, duplicate, "same ciphertext twice")


def test_join_shuffle_under_another_key_is_refused(
        finished_draw: savefile.Save, homes: dict[str, Home], tmp_path: Path) -> None:
    def other_key(chore: dict) -> None:
        chore["key"] = mental.to_text(mental.public_point(12345))

    _refused_at_join(finished_draw, homes, tmp_path, other_key, "fails its shuffle proof")


def test_join_shuffle_proof_of_another_permutation_is_refused(
        finished_draw: savefile.Save, homes: dict[str, Home], tmp_path: Path) -> None:
    def reorder(chore: dict) -> None:
        chore["cts"][0], chore["cts"][1] = chore["cts"][1], chore["cts"][0]

    _refused_at_join(finished_draw, homes, tmp_path, reorder, "fails its shuffle proof")


@pytest.mark.parametrize("moved", ["entry", "seat", "game"])
def test_join_shuffle_proof_made_for_another_entry_seat_or_game_is_refused(
        finished_draw: savefile.Save, homes: dict[str, Home], tmp_path: Path, moved: str) -> None:
    """The joiner's own honest pass, proved again with its own key and permutation but
    bound to another entry, seat or game: the proof is refused where it lands."""
    save = finished_draw
    index, _ = _join_pass(save)
    seat = 1
    seed = seed_of(homes[save.entries[index]["seat"]], save)
    assert seed is not None
    table = engine.replay(with_entries(save, save.entries[:index]), check_snapshot=False,
                          audit_secrets=False).table
    d = table.gstate["secret"]["cards"]
    key = mental.deck_key(seed, "cards")
    perm = mental.permutation(seed, "cards", len(d["passes"]), len(d["order"]))
    inputs = [mental.point_bytes(d["slots"][sid]["ct"]) for sid in d["order"]]
    game, seq, who = save.game_id, index, seat
    if moved == "entry":
        seq += 1
    elif moved == "seat":
        who = 2
    else:
        game = "0" * 32
    ctx = shuffle_proof.context(game, "cards", seq, who, "shuffle")
    outputs, proof = shuffle_proof.prove(mental.BASE, mental.public_point(key), key, inputs, perm,
                                         ctx, b"s" * 32)

    def moved_proof(chore: dict) -> None:
        assert chore["cts"] == [mental.to_text(p) for p in outputs]  # the honest pass
        chore["proof"] = mental_deck.pack_proof(proof)

    _refused_at_join(save, homes, tmp_path, moved_proof, "fails its shuffle proof")


def test_audit_names_a_seat_whose_key_point_its_seed_does_not_give(
        finished_draw: savefile.Save) -> None:
    """With every step proved, an audit failure can only come from a seat's own key point
    (or a seat that never revealed): it names that seat, never an honest holder."""
    d = mental_deck.blank("g" * 32, "cards", ["a", "b", "c"], 2)
    seeds = {0: b"0" * 32, 1: b"1" * 32}
    for seat in (0, 1):
        mental_deck.apply_chore(d, seat, mental_deck.perform(d, "cards", seat, seeds[seat], "g" * 32, seat),
                                "g" * 32, seat)
    d["keys"]["1"] = mental.to_text(mental.public_point(99))  # as if seat 1 had kept to key 99
    _, found = mental_open.open_held(d, "g" * 32, "cards", seeds, ["a", "b", "c"])
    assert found and all("seat 1 published a key point its revealed seed does not give" in f
                         for f in found)
    assert not any("seat 0" in f for f in found)


def test_road_master_join_of_18_substituted_points_is_refused_at_the_join(
        homes: dict[str, Home], tmp_path: Path) -> None:
    """Issue 22 finding 1, as found: bob joins a 3-player Road Master game with a shuffle
    pass of 18 substituted points, signed again. It verified before, and the final audit
    then blamed an honest holder's slot; now the join is refused, naming bob (exit 3)."""
    paths = play_game(homes, tmp_path / "rm", game="road-master", bot="greedy", stop_after=2)
    save = savefile.read(paths[-1])
    index, chore = _join_pass(save)
    assert len(chore["cts"]) == 18

    def substitute(chore: dict) -> None:
        chore["cts"] = [mental.to_text(mental.hash_to_group(b"fake %d" % i)) for i in range(18)]

    _refused_at_join(save, homes, tmp_path, substitute, "fails its shuffle proof")
