"""Issue 11, "Fewer paths to paste" and "History": ``pbem games``, a game's short id for
SAVE, ``show --at SEQ``, ``log`` with what each entry did, what the others did since your
last entry, and when each seat last acted. Through the CLI, as a player would."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from pbem import session
from pbem.cli import main
from pbem.home.gameindex import INDEX_FILE
from pbem.mail import message as mail
from pbem.protocol.crypto import entropy
from pbem.protocol.crypto.identity import Home
from pbem.protocol.replay import engine
from pbem.protocol.saveformat import savefile
from pbem.protocol.saveformat.savefile import Save
from pbem.session import logbook
from tests.conftest import FIXED_CLOCK
from tests.enginekit import play_game, relinked, table_after, with_entries

NEVER_ENDS = ["target=1000000"]


def run(home: Home | Path, *args: str) -> Result:
    where = home.path if isinstance(home, Home) else home
    result = CliRunner().invoke(main, ["--home", str(where), *args])
    assert "Traceback" not in result.output + (result.stderr or ""), result.output
    return result


def games_json(home: Home) -> list[dict[str, Any]]:
    r = run(home, "games", "--json")
    assert r.exit_code == 0, r.output
    return list(json.loads(r.stdout)["games"])


def signer_of(path: Path) -> str:
    return str(savefile.read(path).entries[-1]["seat"])


def last_signer(paths: list[Path]) -> str:
    """Who signed the entry the last save added (in a round, whose entries go in slot
    order, not always the save's last entry)."""
    before = savefile.read(paths[-2]).entries
    return str(next(e for e in savefile.read(paths[-1]).entries if e not in before)["seat"])


def timed(save: Save, homes: dict[str, Home], times: list[str | None]) -> Save:
    """The same game with the given signed ``time`` in every entry (PROTOCOL.md section
    11; None: no time, as in saves from before signed times): each entry re-signed by its
    own seat's key, the chain re-linked."""
    bodies = []
    for entry, when in zip(save.entries, times, strict=True):
        body = {k: v for k, v in entry.items() if k != "time"}
        if when is not None:
            body["time"] = when
        bodies.append(body)
    return with_entries(save, relinked(save.header, bodies, homes))


def forget_everything(homes: dict[str, Home]) -> None:
    """Clear each home's archive and game index (the identities stay)."""
    for home in homes.values():
        shutil.rmtree(home.archive_dir, ignore_errors=True)
        (home.path / INDEX_FILE).unlink(missing_ok=True)


# ---- pbem games ---------------------------------------------------------------------------
def test_games_lists_whose_move_and_each_homes_newest_save(homes: dict[str, Home],
                                                           tmp_path: Path) -> None:
    paths = play_game(homes, tmp_path / "s", options=NEVER_ENDS, stop_after=8)
    table = table_after(savefile.read(paths[-1]))
    to_act = table.seats[table.duty().seat].handle  # type: ignore[union-attr]
    for handle, home in homes.items():
        newest = max(p for p in paths if signer_of(p) == handle)  # the last it wrote
        [game] = games_json(home)
        assert game["id"] == table.game_id and game["short_id"] == table.game_id[:8]
        assert [p["handle"] for p in game["players"]] == ["ann", "bob", "cy"]
        assert [p["you"] for p in game["players"]] == [h == handle for h in ("ann", "bob", "cy")]
        assert game["path"] == str(newest.absolute()) and not game["missing"]
        assert game["seq"] == savefile.read(newest).entries[-1]["seq"]
        assert game["title"] == "Dice Race" and game["game"] == "dice-race"
        assert not game["complete"] and game["winners"] == []
    # The seat to act reads the newest save: its home now lists that one, as its move.
    r = run(homes[to_act], "show", str(paths[-1]))
    assert r.exit_code == 0, r.output
    [game] = games_json(homes[to_act])
    assert game["path"] == str(paths[-1].absolute()) and game["your_move"]
    assert game["to_act"] == to_act and game["next"] == "turn"
    text = run(homes[to_act], "games").output
    assert f"{table.game_id[:8]}  Dice Race, entry {len(paths) - 1}: you to play" in text
    assert str(paths[-1].absolute()) in text
    # An older save shown later does not replace the newest.
    run(homes[to_act], "show", str(paths[-3]))
    assert games_json(homes[to_act])[0]["path"] == str(paths[-1].absolute())


def test_a_home_without_a_seat_lists_nothing(homes: dict[str, Home], tmp_path: Path) -> None:
    paths = play_game(homes, tmp_path / "s", options=NEVER_ENDS, stop_after=5)
    dan = Home(tmp_path / "dan")
    dan.keygen("dan")
    assert run(dan, "verify", str(paths[-1])).exit_code == 0
    assert games_json(dan) == []
    assert "in no game yet" in run(dan, "games").output
    assert run(tmp_path / "nobody", "verify", str(paths[-1])).exit_code == 0
    assert not (tmp_path / "nobody" / INDEX_FILE).exists()


def test_games_waits_from_the_signed_time_else_the_file_date(homes: dict[str, Home],
                                                             tmp_path: Path) -> None:
    paths = play_game(homes, tmp_path / "s", options=NEVER_ENDS, stop_after=7)
    save = savefile.read(paths[-1])
    times = [f"2025-05-{day:02d}T08:00:00Z" for day in range(20, 20 + len(save.entries))]
    forget_everything(homes)
    stamped = tmp_path / "timed.toml"
    stamped.write_text(savefile.dumps(timed(save, homes, times)))
    ann = homes["ann"]
    assert run(ann, "verify", str(stamped)).exit_code == 0
    [game] = games_json(ann)
    assert FIXED_CLOCK == "2025-06-02T10:00:00Z"  # the clock every test runs at
    assert game["time"] == game["waiting_since"] == times[-1] == "2025-05-26T08:00:00Z"
    assert game["waiting_seconds"] == (7 * 24 + 2) * 3600
    acted = {p["handle"]: (p["seq"], p["time"]) for p in game["players"]}
    for entry, when in zip(save.entries, times, strict=True):
        if acted[entry["seat"]][0] == entry["seq"]:
            assert acted[entry["seat"]][1] == when
    text = run(ann, "games").output
    assert "waiting 7 days 2 hours" in text and "entry 6, 7 days 2 hours ago" in text
    # A save without times (as before signed times): the file's date stands in.
    forget_everything(homes)
    untimed = tmp_path / "untimed.toml"
    untimed.write_text(savefile.dumps(timed(save, homes, [None] * len(save.entries))))
    os.utime(untimed, (1_748_800_800, 1_748_800_800))  # 2025-06-01T18:00:00Z
    assert run(homes["bob"], "verify", str(untimed)).exit_code == 0
    [game] = games_json(homes["bob"])
    assert game["time"] is None and game["waiting_since"] == "2025-06-01T18:00:00Z"
    assert game["waiting_seconds"] == 16 * 3600
    assert "waiting 16 hours" in run(homes["bob"], "games").output


def test_games_names_the_winners_of_a_finished_game(homes: dict[str, Home],
                                                    tmp_path: Path) -> None:
    paths = play_game(homes, tmp_path / "s")
    verified = session.load(paths[-1], None)
    outcome = verified.report.outcome
    assert outcome is not None and verified.report.audit == "clean"
    seats = [s.handle for s in verified.table.seats]
    winners = [seats[s] for s in outcome.ranking[0]]
    [game] = games_json(homes[last_signer(paths)])
    assert game["complete"] and game["over"] and game["audit"] == "clean"
    assert game["winners"] == winners and game["to_act"] is None and not game["your_move"]
    assert game["scores"] == {seats[s]: v for s, v in outcome.scores.items()}
    assert game["waiting_seconds"] is None
    text = run(homes[last_signer(paths)], "games").output
    assert f"over, {'won' if len(winners) == 1 else 'shared'} by {winners[0]} " in text


def test_games_survives_a_deleted_save_and_a_damaged_index(homes: dict[str, Home],
                                                           tmp_path: Path) -> None:
    paths = play_game(homes, tmp_path / "s", options=NEVER_ENDS, stop_after=5)
    ann = homes["ann"]
    short = games_json(ann)[0]["short_id"]
    newest = Path(games_json(ann)[0]["path"])
    newest.rename(tmp_path / "moved.toml")
    [game] = games_json(ann)
    assert game["missing"]
    assert "MISSING (deleted or moved)" in run(ann, "games").output
    r = run(ann, "show", short)
    assert r.exit_code == 4 and "missing" in r.stderr and str(newest) in r.stderr
    # A damaged index reads as no games; the next save seen is listed again.
    for junk in (b"{not json", b"[]", b'{"version": 1, "games": {"x": 5}}', b"\xff" * 10):
        (ann.path / INDEX_FILE).write_bytes(junk)
        r = run(ann, "games")
        assert r.exit_code == 0 and "in no game yet" in r.output
    assert run(ann, "show", str(tmp_path / "moved.toml")).exit_code == 0
    assert games_json(ann)[0]["path"] == str((tmp_path / "moved.toml").absolute())
    # The index is this home's own file; what it says is still never printed raw.
    data = json.loads((ann.path / INDEX_FILE).read_text())
    record = next(iter(data["games"].values()))
    record["title"] = "Dice\x1b[2J Race\x07"
    (ann.path / INDEX_FILE).write_text(json.dumps(data))
    r = run(ann, "games")
    assert r.exit_code == 0 and "\x1b" not in r.output and "\x07" not in r.output
    assert paths


def test_inbox_files_the_save_that_games_names(homes: dict[str, Home], tmp_path: Path) -> None:
    paths = play_game(homes, tmp_path / "s", options=NEVER_ENDS, stop_after=6)
    signer = last_signer(paths)
    reader = next(h for h in homes if h != signer)
    forget_everything({reader: homes[reader]})
    eml = mail.write_eml(mail.compose(paths[-1], homes[signer], to=["x@example.org"]), tmp_path / "m.eml")
    r = run(homes[reader], "inbox", str(eml))
    assert r.exit_code == 0, r.output
    [game] = games_json(homes[reader])
    filed = homes[reader].path / "inbox" / paths[-1].name
    assert game["path"] == str(filed) and filed.exists()


# ---- SAVE as a short id -------------------------------------------------------------------
def test_every_command_takes_a_short_id(homes: dict[str, Home], tmp_path: Path) -> None:
    paths = play_game(homes, tmp_path / "s", options=NEVER_ENDS, stop_after=6)
    who = str(table_after(savefile.read(paths[-1])).seats[
        table_after(savefile.read(paths[-1])).duty().seat].handle)  # type: ignore[union-attr]
    home = homes[who]
    run(home, "verify", str(paths[-1]))
    game_id = savefile.read(paths[-1]).game_id
    for text in (game_id[:8], game_id[:3], game_id, game_id[:8].upper()):
        for command in (["show"], ["show", "--json"], ["verify"], ["log"], ["moves"],
                        ["log", "--json"], ["show", "--at", "2"]):
            by_id = run(home, *command, text)
            by_path = run(home, *command, str(paths[-1]))
            assert by_id.exit_code == 0, (command, by_id.output)
            assert by_id.output == by_path.output, command
    r = run(home, "play", game_id[:4], "roll", "--dry-run")
    assert r.exit_code == 0 and "Dry run" in r.output
    r = run(home, "send", game_id[:4], "--stdout", "--to", "x@example.org")
    assert r.exit_code == 0 and paths[-1].name in r.output
    r = run(home, "play", game_id[:4], "roll")
    assert r.exit_code == 0, r.output
    written = Path(r.output.split("Wrote ", 1)[1].split("\n", 1)[0])
    assert written.parent == paths[-1].parent
    assert games_json(home)[0]["path"] == str(written.absolute())
    nxt = str(table_after(savefile.read(written)).seats[
        table_after(savefile.read(written)).duty().seat].handle)  # type: ignore[union-attr]
    run(homes[nxt], "show", str(written))
    r = run(homes[nxt], "resign", game_id[:5], "--yes")
    assert r.exit_code == 0 and "Wrote" in r.output


def test_join_takes_a_short_id(homes: dict[str, Home], tmp_path: Path) -> None:
    first = tmp_path / "g0.toml"
    r = run(homes["ann"], "new", "dice-race", "--seat", "ann", "--seat", "bob", "-o", str(first))
    assert r.exit_code == 0, r.output
    game_id = savefile.read(first).game_id
    r = run(homes["bob"], "join", game_id[:8])
    assert r.exit_code == 2 and "no game of this home" in r.stderr  # bob has not seen it
    assert run(homes["bob"], "show", str(first)).exit_code == 0  # now bob's home knows it
    assert games_json(homes["bob"])[0]["next"] == "join"
    r = run(homes["bob"], "join", game_id[:8])
    assert r.exit_code == 0, r.output


def test_an_ambiguous_or_unknown_id_is_a_usage_error(homes: dict[str, Home], tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    fresh = entropy.fresh_bytes
    # Every game id begins abcdef: two games that share the first six characters.
    monkeypatch.setattr(entropy, "fresh_bytes",
                        lambda n: b"\xab\xcd\xef" + fresh(n)[3:] if n == 16 else fresh(n))
    ann = homes["ann"]
    made = []
    for i in range(2):
        out = tmp_path / f"g{i}.toml"
        assert run(ann, "new", "dice-race", "--seat", "ann", "--seat", "bob",
                   "-o", str(out)).exit_code == 0
        made.append(savefile.read(out).game_id)
    assert made[0][:6] == made[1][:6] == "abcdef" and made[0] != made[1]
    before = sorted(p.name for p in tmp_path.iterdir())
    for args in (["show", "abcdef"], ["play", "abcdef", "roll"], ["verify", "abcdef", "--json"]):
        r = run(ann, *args)
        assert r.exit_code == 2, (args, r.output)
        message = json.loads(r.stdout)["errors"][0]["message"] if "--json" in args else r.stderr
        assert "starts the ids of 2 games" in message
        width = 8 if made[0][:8] != made[1][:8] else 9
        for game_id in made:
            assert f"{game_id[:width]} (Dice Race)" in message
    r = run(ann, "show", "0123")
    assert r.exit_code == 2 and "no game of this home has an id starting with 0123" in r.stderr
    assert "pbem games" in r.stderr
    # Not an id at all: a missing file, as before (exit 4).
    r = run(ann, "show", str(tmp_path / "nosuch.toml"))
    assert r.exit_code == 4 and "no file" in r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing written
    # A file that exists wins over an id it could also be the start of.
    monkeypatch.chdir(tmp_path)
    shutil.copy(tmp_path / "g1.toml", tmp_path / "abc")
    r = run(ann, "show", "abc", "--json")
    assert r.exit_code == 0 and json.loads(r.stdout)["id"] == made[1]
    r = run(ann, "show", made[0][:8], "--json")
    assert r.exit_code == 0 and json.loads(r.stdout)["id"] == made[0]


def test_a_recorded_save_is_verified_all_the_same(homes: dict[str, Home], tmp_path: Path) -> None:
    """The index says only where to look: a save changed at that path after it was
    recorded is checked like any other, and refused."""
    paths = play_game(homes, tmp_path / "s", options=NEVER_ENDS, stop_after=6)
    home = homes[last_signer(paths)]
    short = games_json(home)[0]["short_id"]
    save = savefile.read(paths[-1])
    entries = [dict(e) for e in save.entries]
    entries[-1]["moves"] = ["pass"] if entries[-1]["moves"] != ["pass"] else ["roll"]
    os.chmod(paths[-1], 0o644)
    paths[-1].write_text(savefile.dumps(with_entries(save, entries)))
    r = run(home, "verify", short)
    assert r.exit_code == 3 and "signature" in r.stderr.lower()
    assert run(home, "play", short, "roll").exit_code == 3


# ---- show --at ---------------------------------------------------------------------------
def test_show_at_each_entry(homes: dict[str, Home], tmp_path: Path) -> None:
    paths = play_game(homes, tmp_path / "s", options=NEVER_ENDS, stop_after=9)
    save = savefile.read(paths[-1])
    game = table_after(save).game
    for seq in range(len(save.entries)):
        r = run(homes["ann"], "show", str(paths[-1]), "--at", str(seq), "--json")
        assert r.exit_code == 0, r.output
        data = json.loads(r.stdout)
        then = table_after(with_entries(save, save.entries[:seq + 1]))  # replayed apart
        duty = then.duty()
        assert data["at"] == seq and data["entry"]["seq"] == seq
        assert data["entry"]["seat"] == save.entries[seq]["seat"]
        assert data["to_act"] == (then.seats[duty.seat].handle if duty else "")
        assert data["state"] == game.view(then.gstate, 0, {})
        assert data["phase"] == then.phase()
        text = run(homes["ann"], "show", str(paths[-1]), "--at", str(seq)).output
        assert f"after entry {seq} (of {len(save.entries) - 1})" in text
        assert game.render(data["state"]) in text
    # Entry 4 is the first turn: its roll waits; entry 5 tells what it rolled.
    r = run(homes["ann"], "show", str(paths[-1]), "--at", "5", "--json")
    entry = json.loads(r.stdout)["entry"]
    rolled = save.entries[4]["moves"] == ["roll"]
    assert any(line.startswith(f"{save.entries[4]['seat']} rolled ") for line in
               entry["changes"]) == rolled
    for bad in ("9", "-1", "x"):
        r = run(homes["ann"], "show", str(paths[-1]), "--at", bad)
        assert r.exit_code == 2, bad
    assert "entries 0 to 8" in run(homes["ann"], "show", str(paths[-1]), "--at", "9").stderr


def test_show_at_never_shows_a_card_the_seat_had_not_seen(homes: dict[str, Home],
                                                          tmp_path: Path) -> None:
    """secret-draw: a drawn pair is the drawer's secret from the entry that makes it
    readable; before that, and to everyone else, show --at has none of it."""
    two = {h: homes[h] for h in ("ann", "bob")}
    paths = play_game(two, tmp_path / "s", game="secret-draw", bot="greedy")
    save = savefile.read(paths[-1])
    mine_at: dict[str, list[dict[str, str]]] = {"ann": [], "bob": []}
    for seq in range(len(save.entries)):
        for handle in two:
            r = run(two[handle], "show", str(paths[-1]), "--at", str(seq), "--json")
            assert r.exit_code == 0, r.output
            data = json.loads(r.stdout)
            mine_at[handle].append(data["state"].get("mine", {}))
            assert data["private"].get("cards", {}) == data["state"].get("mine", {})
        # Only slots this seat had drawn or held by then (known from a replay apart).
        then = table_after(with_entries(save, save.entries[:seq + 1]))
        for handle in two:
            seat = then.seat_of(handle)
            assert seat is not None
            assert set(mine_at[handle][-1]) <= set(_slots_of(then.gstate, seat)), (seq, handle)
    assert mine_at["ann"][0] == {} and mine_at["bob"][0] == {}  # nothing before any draw
    assert any(mine_at["ann"]) and any(mine_at["bob"])  # cards were seen later
    dan = Home(tmp_path / "dan")
    dan.keygen("dan")
    r = run(dan, "show", str(paths[-1]), "--at", "5", "--json")
    assert json.loads(r.stdout)["private"] == {} and "mine" not in json.loads(r.stdout)["state"]


def _slots_of(gstate: dict[str, Any], seat: int) -> list[str]:
    """The slots of the secret deck drawn for or held by ``seat`` in ``gstate``."""
    from pbem.protocol.crypto import secretdeck

    return list(secretdeck.drawn(gstate, "cards", seat)) + list(
        secretdeck.held(gstate, "cards", seat))


# ---- log ----------------------------------------------------------------------------------
def test_log_tells_what_each_entry_did(homes: dict[str, Home], tmp_path: Path) -> None:
    paths = play_game(homes, tmp_path / "s", options=NEVER_ENDS, stop_after=10)
    save = savefile.read(paths[-1])
    r = run(tmp_path / "nobody", "log", str(paths[-1]), "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert [e["seq"] for e in data["entries"]] == list(range(len(save.entries)))
    tables = [table_after(with_entries(save, save.entries[:i + 1]))
              for i in range(len(save.entries))]
    game = tables[0].game
    for i, item in enumerate(data["entries"]):
        entry = save.entries[i]
        assert (item["kind"], item["seat"], item["moves"]) == (entry["kind"], entry["seat"],
                                                              entry["moves"])
        expected = [] if entry["kind"] in ("create", "join") else game.describe(
            tables[i - 1].gstate, tables[i].gstate, tables[i].seat_of(entry["seat"]))
        assert item["changes"] == expected and item["time"] == entry.get("time")
    assert any(" rolled " in line for e in data["entries"] for line in e["changes"])
    text = run(tmp_path / "nobody", "log", str(paths[-1])).output.splitlines()
    assert text[0] == "   0  create  ann          2025-06-02 10:00 UTC"  # the fixed clock
    for item in data["entries"]:
        if item["changes"]:
            at = text.index(next(t for t in text if t.startswith(f"{item['seq']:4d}  ")))
            assert text[at + 1:at + 1 + len(item["changes"])] == [
                f"        {line}" for line in item["changes"]]
    assert text[-1].startswith("Last acted: ann: entry ")
    assert {a["handle"] for a in data["last_acted"]} == {"ann", "bob", "cy"}


def test_log_of_a_real_game_tells_the_chance_not_only_the_moves(tmp_path: Path) -> None:
    """Red Dog Junction: the start entry places the dice, deals the display, and later
    entries move the bank and the scores; log says so."""
    from tests.support.fixed_game import started

    player_homes, path = started(tmp_path / "f", "red-dog-junction", ["ann", "bob", "cy"])
    r = run(player_homes["ann"], "log", str(path))
    assert r.exit_code == 0, r.output
    assert "   3  start   ann" in r.output
    assert "First player:" in r.output and "The display is dealt" in r.output
    assert "Scores:" in r.output


def test_log_and_show_give_the_signed_times(homes: dict[str, Home], tmp_path: Path) -> None:
    paths = play_game(homes, tmp_path / "s", options=NEVER_ENDS, stop_after=6)
    save = savefile.read(paths[-1])
    times = [f"2025-06-0{1 + i // 4}T0{i % 4}:30:00Z" for i in range(len(save.entries))]
    forget_everything(homes)
    stamped = tmp_path / "timed.toml"
    stamped.write_text(savefile.dumps(timed(save, homes, times)))
    data = json.loads(run(homes["ann"], "log", str(stamped), "--json").stdout)
    assert [e["time"] for e in data["entries"]] == times
    text = run(homes["ann"], "log", str(stamped)).output
    assert f"   5  {save.entries[5]['kind']:7} {save.entries[5]['seat']:12} 2025-06-02 01:30 UTC" \
        in text
    acted = {a["handle"]: a for a in data["last_acted"]}
    for handle, item in acted.items():
        last = max(e["seq"] for e in save.entries if e["seat"] == handle)
        assert (item["seq"], item["time"]) == (last, times[last])
    shown = json.loads(run(homes["ann"], "show", str(stamped), "--json").stdout)
    assert shown["last_acted"] == data["last_acted"]
    assert "(you): entry " in run(homes["ann"], "show", str(stamped)).output
    assert "8 hours ago" in run(homes["ann"], "log", str(stamped)).output  # 01:30 -> 10:00


def test_log_and_show_replay_each_entry_once(homes: dict[str, Home], tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """The history is told by the verifying replay itself: no second replay."""
    paths = play_game(homes, tmp_path / "s", options=NEVER_ENDS, stop_after=9)
    n = len(savefile.read(paths[-1]).entries)
    calls = []
    step = engine.step
    monkeypatch.setattr(engine, "step", lambda *a, **k: calls.append(1) or step(*a, **k))
    assert run(tmp_path / "nobody", "log", str(paths[-1])).exit_code == 0
    assert len(calls) == n
    calls.clear()
    who = signer_of(paths[-2])
    first = run(homes[who], "show", str(paths[-1]), "--json")
    assert len(calls) == 1  # resumed from its own last entry, cached by its archive
    calls.clear()
    again = run(homes[who], "show", str(paths[-1]), "--json")
    assert len(calls) == 0 and again.stdout == first.stdout  # the notes kept from the first
    # A damaged cache of notes costs one replay, never a wrong answer.
    [told] = (homes[who].path / "told").iterdir()
    data = json.loads(told.read_text())
    data["notes"]["0" * 64] = {"seq": "x"}
    told.write_text(json.dumps(data))
    calls.clear()
    damaged = run(homes[who], "show", str(paths[-1]), "--json")
    assert damaged.stdout == first.stdout and len(calls) == n


# ---- since your last turn -----------------------------------------------------------------
def test_show_tells_what_the_others_did_since_your_last_entry(homes: dict[str, Home],
                                                              tmp_path: Path) -> None:
    paths = play_game(homes, tmp_path / "s", options=NEVER_ENDS, stop_after=11, bot="greedy")
    save = savefile.read(paths[-1])
    log = json.loads(run(tmp_path / "nobody", "log", str(paths[-1]), "--json").stdout)["entries"]
    for handle, home in homes.items():
        mine = max(e["seq"] for e in save.entries if e["seat"] == handle)
        expected = log[mine + 1:]
        for _ in range(2):  # the archive's cache lies at or after this seat's entry
            r = run(home, "show", str(paths[-1]), "--json")
            assert r.exit_code == 0, r.output
            assert json.loads(r.stdout)["since_your_last_turn"] == expected, handle
        text = run(home, "show", str(paths[-1])).output
        assert f"Since your last entry ({mine}):" in text
        for item in expected:
            assert logbook.EntryNote.from_json({**item, "changes": []}).heading() in text
            for line in item["changes"]:
                assert f"        {line}" in text
    assert any(e["changes"] for e in log[-2:])  # a roll was told, not only "roll"
    dan = Home(tmp_path / "dan")
    dan.keygen("dan")
    data = json.loads(run(dan, "show", str(paths[-1]), "--json").stdout)
    assert data["since_your_last_turn"] is None and data["seat"] == ""
    assert "Since your last" not in run(dan, "show", str(paths[-1])).output


def test_show_since_when_you_have_signed_nothing(homes: dict[str, Home], tmp_path: Path) -> None:
    first = tmp_path / "g0.toml"
    run(homes["ann"], "new", "dice-race", "--seat", "ann", "--seat", "bob", "-o", str(first))
    data = json.loads(run(homes["bob"], "show", str(first), "--json").stdout)
    assert [e["kind"] for e in data["since_your_last_turn"]] == ["create"]
    assert "Since the start (you have signed nothing yet):" in run(
        homes["bob"], "show", str(first)).output


# ---- the pieces ---------------------------------------------------------------------------
def test_the_index_keeps_only_the_newest_save_of_one_header(homes: dict[str, Home],
                                                            tmp_path: Path) -> None:
    from pbem.home.gameindex import GameIndex, summarize

    paths = play_game(homes, tmp_path / "s", options=NEVER_ENDS, stop_after=6)
    home = Home(tmp_path / "solo")
    home.keygen("ann")  # a home with ann's handle: records need only the handle
    index = GameIndex(home.path)
    records = [summarize(savefile.read(p), session.load(p, None).report, p, "ann")
               for p in paths]
    assert index.remember(records[3]) and not index.remember(records[2])  # older: kept out
    assert index.remember(records[3])  # the same: nothing to write
    stamp = (home.path / INDEX_FILE).stat().st_mtime_ns
    assert index.remember(records[3]) and (home.path / INDEX_FILE).stat().st_mtime_ns == stamp
    replaced = tmp_path / "again.toml"  # the same entry, another file: it wins
    shutil.copy(paths[3], replaced)
    assert index.remember(summarize(savefile.read(replaced), session.load(replaced, None).report,
                                    replaced, "ann"))
    assert GameIndex(home.path).records[records[3].id].path == str(replaced.absolute())
    other = summarize(savefile.read(paths[5]), session.load(paths[5], None).report, paths[5],
                      "ann")
    other = other._replace(header="f" * 64)  # another game that re-used the id: never mixed in
    assert not index.remember(other)
    assert GameIndex(home.path).games()[0].seq == records[3].seq
    # An entry withdrawn (undo) takes its record with it; then an older save is recorded.
    assert not index.withdraw(records[3].id, records[2].entry)
    assert index.withdraw(records[3].id, records[3].entry)
    assert GameIndex(home.path).games() == []
    assert index.remember(records[2]) and GameIndex(home.path).games() == [records[2]]


def test_signed_times_are_read_strictly() -> None:
    import datetime

    from pbem.protocol.saveformat import timing

    good = timing.parse_stamp("2025-06-01T08:30:00Z")
    assert good == datetime.datetime(2025, 6, 1, 8, 30, tzinfo=datetime.UTC)
    for bad in ("2025-06-01T08:30:00Z\n", "2025-13-40T08:30:00Z", "2025-06-01 08:30:00Z",
                "2025-06-01T08:30:00+00:00", 1_700_000_000, None, "", "x" * 10_000):
        assert timing.parse_stamp(bad) is None, bad
    at = datetime.datetime(2025, 6, 2, 10, tzinfo=datetime.UTC)
    assert timing.ago(good, at) == "1 day 1 hour ago"  # type: ignore[arg-type]
    assert timing.ago(at + datetime.timedelta(hours=3), at) == "just now"  # a fast clock
    acted = timing.last_acted(["ann", "bob", "cy"], [
        {"seq": 0, "seat": "ann", "time": "2025-06-01T08:30:00Z"},
        {"seq": 1, "seat": "bob"}, {"seq": 2, "seat": "ann", "time": "nonsense"}])
    assert [a.to_json() for a in acted] == [
        {"handle": "ann", "seq": 2, "time": None}, {"handle": "bob", "seq": 1, "time": None},
        {"handle": "cy", "seq": None, "time": None}]
    assert [a.words(at) for a in acted] == ["entry 2", "entry 1", "not yet"]


def test_an_absence_entry_is_not_told_as_queuing_the_chance_pending(
        homes: dict[str, Home], tmp_path: Path) -> None:
    """A roll waits; the next seat is proposed absent and the proposal accepted. 'log'
    told each of the proposal and the vote as 'a roll waits for the next player's entry'
    again (the game's words for what an entry queued), though they queue, move and
    resolve nothing; after the vote the seat 'next' is absent and never signs."""
    from tests.enginekit import actor, sign_as, tick

    start = play_game(homes, tmp_path / "d", options=NEVER_ENDS, stop_after=4)[-1]
    roller = actor(start)
    rolled = session.sign_next(homes[roller], start, None, ["roll"], None, None)
    absent = actor(rolled.path)
    proposer = next(h for h in homes if h not in (roller, absent))
    tick(days=8)
    proposed = sign_as(homes[proposer], rolled.path, "absent", player=absent, remedy="bot")
    voted = sign_as(homes[roller], proposed.path, "vote", vote="accept")
    assert voted.table.gstate["pending"]
    entries = json.loads(run(homes[roller], "log", str(voted.path), "--json").output)["entries"]
    told = {e["kind"]: e["changes"] for e in entries[-3:]}
    assert "a roll waits for the next player's entry" in told["turn"]
    assert told["absent"] == [f"{proposer} proposed that {absent} is absent, remedy 'bot'."]
    assert len(told["vote"]) == 1 and told["vote"][0].startswith(f"{roller} voted to accept")
