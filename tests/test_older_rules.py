"""A game keeps the rules version it began under (GameInfo.older_rules, Game.for_rules):
Station to Station is version 4 and Road Master version 5 (from 4, the turn that ends the
game asks for no chance a score cannot feel, so the final reveals are one round); a game begun under
version 3 (tests/fixtures/rules3, example saves made before the change) verifies and plays
on as version 3 did, and a version this pbem never had is refused in words. Red Dog
Junction is version 4 too (its Posse draft passes a hand in one step): a draft begun under
version 3 plays on with version 3's pass."""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

import pytest

from pbem import registry
from pbem.errors import IntegrityError, SaveFileError
from pbem.protocol.crypto.identity import Home
from pbem.protocol.replay import engine
from pbem.protocol.saveformat import savefile
from pbem.protocol.saveformat.savefile import Save
from pbem.protocol.state import headers
from tests.enginekit import relinked
from tests.support.dice_race import DiceRace
from tests.support.duty import bot_game, fixed_identities

RULES3 = Path(__file__).resolve().parent / "fixtures" / "rules3"
RULES4 = Path(__file__).resolve().parent / "fixtures" / "rules4"
OLD_SAVES = {"station-to-station": "station-to-station-fa7308d7-0050-bob+cy.toml",
             "road-master": "road-master-d60b2578-0048-ann.toml"}


@cache
def whole_game(ruleset: str, players: int) -> Save:
    return bot_game(ruleset, players, [],
                    hashlib.sha256(f"older-rules/{ruleset}/{players}".encode()).digest())


def last_turn(save: Save) -> int:
    return max(i for i, e in enumerate(save.entries) if e["kind"] == "turn")


def state_after_last_turn(save: Save) -> dict:
    """The game's state as the save's last turn left it (before any reveal)."""
    seen: list[dict] = []
    last = save.entries[last_turn(save)]["seq"]

    def after(_before: object, table: object, entry: dict) -> None:
        if entry["seq"] == last:
            seen.append(table.gstate)  # type: ignore[attr-defined]

    engine.replay(save, on_entry=after)
    [state] = seen
    return state


def reveals_are_one_round(save: Save) -> bool:
    reveals = [e for e in save.entries if e["kind"] == "reveal"]
    return {e.get("round") for e in reveals} == {reveals[0]["seq"]}


@pytest.mark.parametrize("ruleset", sorted(OLD_SAVES))
def test_a_game_begun_under_version_3_verifies_as_version_3_played_it(ruleset: str) -> None:
    """Its last turn left a chance for the first reveal (signed one at a time), which
    version 4 would refuse; the save's own version is replayed, to its very [state]."""
    save = savefile.read(RULES3 / OLD_SAVES[ruleset])
    assert save.header["rules_version"] == 3
    report = engine.replay(save)  # the [state] snapshot compared too
    assert report.table.game.info.rules_version == 3
    assert report.table.duty() is None and report.final is not None
    first_reveal = next(e for e in save.entries if e["kind"] == "reveal")
    assert "round" not in first_reveal  # it resolved the last turn's chance


def test_a_posse_draft_begun_under_version_3_plays_on_as_version_3() -> None:
    """Red Dog Junction is version 7 (from 4 its Posse draft passes a hand in one step); a draft
    begun under version 3 (a save made before the change, its last entry one seat's of a
    round of peels) verifies and plays on to its end with version 3's pass: fresh slot
    ids, the receiver's re-lock, the giver's peel, never a handoff or an adopt."""
    begun = savefile.read(RULES3 / "red-dog-junction-posse-0021-p0.toml")
    assert begun.header["rules_version"] == 3
    assert registry.load("red-dog-junction").info.rules_version == 7
    save = bot_game("red-dog-junction", 3, ["variant=posse"],
                    hashlib.sha256(b"older-rules/posse/3/on").digest(), begun=begun)
    later = save.entries[len(begun.entries):]
    ops = {i["op"] for e in later for c in e["chores"] for i in c.get("items", [])}
    assert {"peel", "shuffle", "open"} <= ops and not ops & {"handoff", "adopt"}
    assert any(i.get("from") for e in later for c in e["chores"] for i in c.get("items", []))
    report = engine.replay(save)
    assert report.table.game.info.rules_version == 3 and report.final is not None
    assert report.table.gstate["phase"] == "over"


def test_a_posse_draft_begun_under_version_4_opens_as_version_4() -> None:
    """A version 4 Posse draft at its last choice (a save made by the code of version 4,
    the rest of set-up's chance pending): its first open is signed alone and draws that
    chance, the others follow in a round, as version 4 played them (version 5 signs all
    the opens in one round); the game plays on to its end."""
    begun = savefile.read(RULES4 / "red-dog-junction-posse-0050-p0.toml")
    assert begun.header["rules_version"] == 4
    table = engine.replay(begun).table
    assert table.gstate["pending"] and table.gstate["draft"]["shown"]
    assert table.deck_round() == [] and table.deck_round_resolver() == -1
    save = bot_game("red-dog-junction", 3, ["variant=posse"],
                    hashlib.sha256(b"older-rules/posse/4/on").digest(), begun=begun)
    first, *rest = save.entries[len(begun.entries):len(begun.entries) + 3]
    assert "round" not in first and first["chores"] and not first["moves"]
    assert [e.get("round") for e in rest] == [first["seq"] + 1] * 2
    report = engine.replay(save)
    assert report.table.game.info.rules_version == 4 and report.final is not None
    assert report.table.gstate["phase"] == "over"


# Each game's current rules version and the older ones it still plays.
CURRENT = {"road-master": (5, (3, 4)), "station-to-station": (4, (3,))}


@pytest.mark.parametrize("ruleset", sorted(OLD_SAVES))
def test_a_game_begun_now_is_of_the_current_version(ruleset: str) -> None:
    game = registry.load(ruleset)
    current, older_rules = CURRENT[ruleset]
    assert game.info.rules_version == current and game.info.older_rules == older_rules
    header = headers.new_header(game, [("ann", ""), ("bob", "")], headers.parse_options(game, []))
    assert header["rules_version"] == current
    assert game.for_rules(current) is game and game.for_rules(3).info.rules_version == 3
    older = game.for_rules(3)
    assert older is game.for_rules(3) and isinstance(older, type(game))  # one, made once
    assert older.stock_file() == game.stock_file()  # the installed data of the same game


@pytest.mark.parametrize("version", [2, 5])
def test_a_rules_version_never_played_here_is_refused_in_words(version: int) -> None:
    save = savefile.read(RULES3 / OLD_SAVES["station-to-station"])
    header = dict(save.header, rules_version=version)
    with pytest.raises(SaveFileError) as refused:
        headers.header_fits(header)
    assert refused.value.message == (
        f"This save needs Station to Station rules version {version}; this pbem plays "
        f"versions 3 and 4. Install a pbem that supports version {version}.")


def test_a_game_with_one_version_refuses_any_other_for_rules() -> None:
    game = DiceRace()
    assert game.for_rules(1) is game
    with pytest.raises(ValueError):
        game.for_rules(2)


@pytest.mark.heavy
@pytest.mark.parametrize("players", [2, 4])
def test_STS_G1_the_cleanup_that_ends_the_game_places_the_last_token_with_no_draw(
        players: int) -> None:
    """Version 4: the last countdown token is the bag's only one, placed at once; no crew
    is refilled and nothing else is drawn once the game is over (STS-G2, G3: none could
    change a score). So no chance waits, and every seat reveals in one round."""
    save = whole_game("station-to-station", players)
    final = state_after_last_turn(save)
    assert final["over"] and final.get("pending", []) == [] and final["rules"] == 4
    log = " ".join(final["notes"])
    assert "the last countdown token is placed: the game is over" in log
    assert any(n.startswith("drawn onto ") for n in final["notes"][-3:])  # at once, no draw
    assert reveals_are_one_round(save)


@pytest.mark.heavy
def test_RM_G3_the_turn_that_ends_the_game_asks_for_no_market_refill() -> None:
    """From version 4: a market refilled after the last turn could change no score (RM-G3,
    G4), so none is asked for, and both seats reveal in one round."""
    save = whole_game("road-master", 2)
    final = state_after_last_turn(save)
    assert final["ended"] and final["rules"] >= 4
    assert all(r.get("kind") != "refill" for r in final.get("pending", []))
    assert reveals_are_one_round(save)


class _Keys:
    """A seat's key as relinked asks for it (a home's ``load``)."""

    def __init__(self, handle: str) -> None:
        self.identity = next(i for i in fixed_identities(3) if i.handle == handle)

    def load(self) -> object:
        return self.identity


@pytest.mark.parametrize("claimed", [3, 4])
def test_a_posse_draft_signed_under_one_version_never_verifies_as_the_other(
        claimed: int) -> None:
    """A Posse draft of version 3 (the fixture) or 4 (its first two pick steps), its header
    made to claim the other version and every entry re-signed by its own seat, as the
    players could: the first pass's work is not what the claimed version owes (a re-lock
    where a handoff is owed, or the reverse), refused in its own entry."""
    if claimed == 4:
        save = savefile.read(RULES3 / "red-dog-junction-posse-0021-p0.toml")
    else:
        save = bot_game("red-dog-junction", 3, ["variant=posse"],
                        hashlib.sha256(b"older-rules/posse/4/as-3").digest(), max_entries=16,
                        rules=4)
    header = dict(save.header, rules_version=claimed)
    homes = {e["seat"]: _Keys(e["seat"]) for e in save.entries}
    forged = Save(header, relinked(header, [dict(e) for e in save.entries], homes), {})
    with pytest.raises(IntegrityError, match="not what its seat owed") as caught:
        engine.replay(forged, check_snapshot=False)
    assert caught.value.code == "chore"


@pytest.mark.parametrize(("played", "claimed", "refusal"), [
    (5, 4, "shuffle pass carries other work"),
    (4, 5, "omits owed work: peel of slot"),
])
def test_RDJ_V2_a_posse_deal_of_version_5_or_4_never_verifies_as_the_other(
        played: int, claimed: int, refusal: str) -> None:
    """Version 5 deals the Posse deck as its last shuffle pass lands and the last joiner
    peels in its join; version 4 deals at the start. A save of one made to claim the
    other, every entry re-signed by its own seat, is refused in the last join: peels a
    version 4 pass never carries, or the peels version 5 owes there omitted."""
    save = bot_game("red-dog-junction", 3, ["variant=posse"],
                    hashlib.sha256(b"older-rules/posse/5-4").digest(), max_entries=4,
                    rules=None if played == 5 else played)
    header = dict(save.header, rules_version=claimed)
    homes = {e["seat"]: _Keys(e["seat"]) for e in save.entries}
    forged = Save(header, relinked(header, [dict(e) for e in save.entries], homes), {})
    with pytest.raises(IntegrityError, match=refusal) as caught:
        engine.replay(forged, check_snapshot=False)
    assert caught.value.code == "chore" and caught.value.seq == 2


def test_a_game_is_begun_under_an_older_version_only_where_it_is_still_played(
        homes: dict[str, Home], tmp_path: Path) -> None:
    from pbem import session
    from pbem.errors import UsageError

    old = session.new_game(homes["ann"], "station-to-station", ["ann", "bob"], [], None,
                           folder=tmp_path, rules=3)
    assert old.save.header["rules_version"] == 3 and "rules" not in old.table.gstate
    with pytest.raises(UsageError, match="Station to Station has no rules version 2"):
        session.new_game(homes["ann"], "station-to-station", ["ann", "bob"], [], None,
                         folder=tmp_path, rules=2)


@pytest.mark.heavy
def test_STS_G3_a_route_drawn_in_the_turn_that_ends_the_game_is_not_drawn() -> None:
    """Version 4: a draw the last turn asked for (here a blind route, queued as the turn's
    moves would) could change no score, so the cleanup that ends the game drops it and
    says so; only a token draw would stay."""
    from pbem.game import copy_state, play_move
    from pbem.protocol.crypto import beacon

    save = whole_game("station-to-station", 2)
    last = save.entries[last_turn(save)]
    seen: list[tuple[dict, int]] = []

    def before(table: object, _after: object, entry: dict) -> None:
        if entry["seq"] == last["seq"]:
            seen.append((copy_state(table.gstate), table.seat_of(entry["seat"])))  # type: ignore[attr-defined]

    engine.replay(save, on_entry=before)
    [(state, seat)] = seen
    game = registry.load("station-to-station")
    rng = beacon.sampler(save.game_id, last["seq"], b"k" * 32, b"n" * 32)  # any outcome
    for request in state.pop("pending", []):  # what the entry resolves before its moves
        game.resolve(state, request, rng)
    for move in last["moves"]:
        play_move(game, state, seat, move)
    state.setdefault("pending", []).append({"kind": "route-blind", "seat": seat, "slot": 0})
    game.end_turn(state, seat)
    assert state["over"] and state["pending"] == []
    assert state["notes"][-1] == "the draws this turn asked for are not made: the game is over"


def test_RDJ_V2_a_seat_joins_no_new_game_under_an_older_rules_version(tmp_path: Path) -> None:
    """A host holding the source can write an invitation under Red Dog Junction's rules
    version 5, whose Posse opens let the host (the first seat) work out the rest of set-up
    before keeping its last card. 'pbem join' refuses it in words (exit 4) and writes
    nothing; the same invitation under the current version is joined."""
    from click.testing import CliRunner

    from pbem import session
    from pbem.cli import main

    homes = {h: Home(tmp_path / h) for h in ("ann", "bob", "cy")}
    for handle, home in homes.items():
        home.keygen(handle)
    for rules, joined in ((5, False), (None, True)):
        folder = tmp_path / f"saves-{rules}"
        folder.mkdir()
        invitation = session.new_game(homes["ann"], "red-dog-junction", list(homes),
                                      ["variant=posse"], None, folder=folder, rules=rules).path
        before = sorted(folder.iterdir())
        result = CliRunner().invoke(main, ["--home", str(homes["bob"].path), "join",
                                           str(invitation)])
        assert "Traceback" not in result.output
        if joined:
            assert result.exit_code == 0, result.output
            continue
        assert result.exit_code == 4, result.output
        text = " ".join(result.output.split())
        assert ("This invitation is for Red Dog Junction rules version 5; pbem plays older "
                "versions only to finish games already under way, and begins new ones under "
                "version 7. Ask the host to create the game again with this pbem.") in text
        assert sorted(folder.iterdir()) == before


def test_RDJ_V2_pbem_play_on_an_older_invitation_signs_no_join(tmp_path: Path) -> None:
    """'pbem play' on an invitation signs the seat's join too: it joined the version 5
    game that 'pbem join' refuses. It now refuses it in the same words and writes nothing;
    a seat that joined an older game before (under way when pbem was upgraded) plays on."""
    from click.testing import CliRunner

    from pbem import session
    from pbem.cli import main

    homes = {h: Home(tmp_path / h) for h in ("ann", "bob", "cy")}
    for handle, home in homes.items():
        home.keygen(handle)
    folder = tmp_path / "saves"
    folder.mkdir()
    invitation = session.new_game(homes["ann"], "red-dog-junction", list(homes),
                                  ["variant=posse"], None, folder=folder, rules=5).path
    before = sorted(folder.iterdir())
    for extra in ([], ["--bot", "greedy"]):
        result = CliRunner().invoke(main, ["--home", str(homes["bob"].path), "play", *extra,
                                           str(invitation)])
        assert result.exit_code == 4, result.output
        assert "rules version 5; pbem plays older versions only to finish games already " \
               "under way" in " ".join(result.output.split())
        assert sorted(folder.iterdir()) == before
    joined = session.sign_next(homes["bob"], invitation, "join", [], None, None).path
    result = CliRunner().invoke(main, ["--home", str(homes["cy"].path), "join", str(joined)])
    assert result.exit_code == 4, result.output
    result = CliRunner().invoke(main, ["--home", str(homes["bob"].path), "play", str(joined)])
    assert "rules version" not in result.output
