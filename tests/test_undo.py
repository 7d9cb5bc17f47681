"""Taking back an entry not yet sent (PROTOCOL.md section 10; issue 11 "Undo before
sending") and the signed time every entry carries (section 11)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from pbem import session
from pbem.cli import main
from pbem.errors import IntegrityError, SaveFileError, TurnError
from pbem.protocol.crypto.identity import Home
from pbem.protocol.replay import engine, signing
from pbem.protocol.saveformat import savefile
from pbem.session import withdrawal
from tests.conftest import FIXED_CLOCK
from tests.enginekit import actor, forge, play_game, with_entries


def run(home: Home | None, *args: str) -> Any:
    # A stranger's home, new each time: a fixed path would keep an archive between runs
    # (where it can be created, as root), and games of fixed ids would meet old entries.
    stranger = Path(tempfile.mkdtemp(prefix="pbem-stranger-")) / "nobody"
    prefix = ["--home", str(home.path)] if home else ["--home", str(stranger)]
    result = CliRunner().invoke(main, [*prefix, *args])
    assert "Traceback" not in result.output and "internal error" not in result.output
    return result


def written(result: Any) -> Path:
    assert result.exit_code == 0, result.output
    return Path(result.output.split("Wrote ", 1)[1].split("\n", 1)[0])


@pytest.fixture
def rolled(homes: dict[str, Home], tmp_path: Path) -> Path:
    """A dice race whose last entry rolled: the next entry resolves that roll."""
    path = play_game(homes, tmp_path / "saves", options=["target=1000"], stop_after=5)[-1]
    return session.sign_next(homes[actor(path)], path, None, ["roll"], None, None).path


def roller_score(path: Path, roller: str) -> int:
    table = session.load(path, None).table
    seat = table.seat_of(roller)
    assert seat is not None
    return int(table.gstate["score"][seat])


def test_undo_then_other_moves_resolve_the_same_chance(homes: dict[str, Home], rolled: Path,
                                                       tmp_path: Path) -> None:
    roller = savefile.read(rolled).entries[-1]["seat"]
    me = actor(rolled)
    first = session.sign_next(homes[me], rolled, None, ["roll"], None, None)
    before = savefile.read(first.path).entries[-1]
    done = withdrawal.withdraw(homes[me], first.path)
    assert done.previous == rolled and not done.wrote_previous
    assert not first.path.exists() and done.kept_as.name.endswith(".toml.withdrawn")
    again = session.sign_next(homes[me], rolled, None, ["pass"], None, None)
    after = savefile.read(again.path).entries[-1]
    # Same place in the game: same seq, prev and beacon link ...
    assert (after["seq"], after["prev"], after["beacon"]) == \
        (before["seq"], before["prev"], before["beacon"])
    assert after["moves"] == ["pass"] and before["moves"] == ["roll"]
    # ... so the roll it resolved (the previous player's) came out exactly the same.
    assert roller_score(first.path, roller) > roller_score(rolled, roller)
    assert roller_score(again.path, roller) == roller_score(first.path, roller)
    # And the roll the withdrawn entry asked for was, and stays, unknown to its author:
    # it waits for the next player's link, which this home cannot derive.
    withdrawn = savefile.read(done.kept_as)
    pending = engine.replay(withdrawn, audit_secrets=False).table.gstate["pending"]
    assert [r["kind"] for r in pending] == ["roll"]
    mine = signing.preview(engine.replay(withdrawn, audit_secrets=False).table,
                          homes[me].load()).gstate
    assert mine["pending"] == pending
    # Rolling again after the undo asks for the same draw, which the next player's link
    # will resolve the same way: nothing can be re-rolled.
    nxt = homes[actor(again.path)].load()
    redo = withdrawal.withdraw(homes[me], again.path)
    rolled_again = session.sign_next(homes[me], redo.previous, None, ["roll"], None, None)
    outcome = [signing.preview(engine.replay(savefile.read(p), audit_secrets=False).table,
                              nxt).gstate["score"] for p in (done.kept_as, rolled_again.path)]
    assert outcome[0] == outcome[1]


def test_undo_through_the_command_line(homes: dict[str, Home], rolled: Path,
                                       tmp_path: Path) -> None:
    me = homes[actor(rolled)]
    mine = written(run(me, "play", str(rolled), "roll"))
    r = run(me, "undo", str(mine))
    assert r.exit_code == 0, r.output
    assert "Took back entry" in r.output and "do not send it" in r.output
    assert f"{mine.name}.withdrawn" in r.output and str(rolled) in r.output
    # The withdrawn file is refused by this home from now on (it is no longer the game).
    r = run(me, "show", f"{mine}.withdrawn")
    assert r.exit_code == 1 and "taken back with 'pbem undo'" in r.stderr
    again = written(run(me, "play", str(rolled), "pass"))
    r = run(None, "verify", str(again), "--json")
    assert json.loads(r.output)["ok"]
    # Undo in a folder where the save before it is not there: pbem writes it.
    (tmp_path / "elsewhere").mkdir()
    moved = tmp_path / "elsewhere" / again.name
    again.rename(moved)
    r = run(me, "undo", str(moved))
    assert r.exit_code == 0 and "Wrote " in r.output
    restored = Path(r.output.split("Wrote ", 1)[1].split(":", 1)[0])
    assert restored.parent == moved.parent
    assert savefile.read(restored).entries == savefile.read(rolled).entries


def test_only_the_signer_may_undo_its_own_newest_entry(homes: dict[str, Home], rolled: Path,
                                                       tmp_path: Path) -> None:
    me = actor(rolled)
    mine = session.sign_next(homes[me], rolled, None, ["roll"], None, None).path
    other = next(h for h in homes if h != me)
    with pytest.raises(TurnError, match="was not signed by you"):
        withdrawal.withdraw(homes[other], mine)
    create = play_game(homes, tmp_path / "other", stop_after=1)[-1]
    with pytest.raises(TurnError, match="cannot be taken back"):
        withdrawal.withdraw(homes["ann"], create)
    # Once this home has seen a later entry, the game has moved on.
    nxt = actor(mine)
    later = session.sign_next(homes[nxt], mine, None, ["pass"], None, None).path
    session.load(later, homes[me])
    with pytest.raises(TurnError, match="already seen an entry after"):
        withdrawal.withdraw(homes[me], mine)
    assert mine.exists()


def test_an_entry_already_mailed_cannot_be_taken_back(homes: dict[str, Home], rolled: Path,
                                                      tmp_path: Path) -> None:
    me = homes[actor(rolled)]
    mine = written(run(me, "play", str(rolled), "roll"))
    r = run(me, "send", str(mine), "--eml", str(tmp_path / "turn.eml"), "--to",
            "x@example.org")
    assert r.exit_code == 0, r.output
    r = run(me, "undo", str(mine))
    assert r.exit_code == 1 and "already mailed" in r.stderr
    assert mine.exists() and not Path(f"{mine}.withdrawn").exists()
    # The stale message offers no undo for it either.
    r = run(me, "play", str(rolled), "pass")
    assert r.exit_code == 1 and "stale" in r.stderr and "pbem undo" not in r.stderr


def test_the_stale_message_points_to_undo(homes: dict[str, Home], rolled: Path,
                                          tmp_path: Path) -> None:
    """The hint names the game's short id, which names the save holding the entry
    wherever -o wrote it (it guessed a file name that did not exist), and it works."""
    me = homes[actor(rolled)]
    mine = written(run(me, "play", str(rolled), "roll", "-o", str(tmp_path / "mine.toml")))
    r = run(me, "play", str(rolled), "pass")
    assert r.exit_code == 1 and "would fork the game" in r.stderr
    short = savefile.read(rolled).game_id[:8]
    assert f"run 'pbem undo {short}'" in r.stderr, r.stderr
    listed = run(me, "moves", str(rolled))  # listed, but with what play would refuse
    assert listed.exit_code == 0 and "would fork the game" in listed.stderr, listed.output
    assert "'pbem play' refuses it" in listed.stderr
    r = run(me, "undo", short)
    assert r.exit_code == 0 and not mine.exists(), r.output
    assert Path(f"{mine}.withdrawn").exists()


def test_a_withdrawn_entry_mailed_anyway_is_a_fork_elsewhere(homes: dict[str, Home],
                                                             rolled: Path) -> None:
    me = actor(rolled)
    first = session.sign_next(homes[me], rolled, None, ["roll"], None, None)
    watcher = homes[actor(first.path)]
    session.load(first.path, watcher)  # it left the machine another way than 'pbem send'
    done = withdrawal.withdraw(homes[me], first.path)
    again = session.sign_next(homes[me], done.previous, None, ["pass"], None, None)
    with pytest.raises(IntegrityError) as info:
        session.load(again.path, watcher)
    assert info.value.code == "fork"
    assert "['roll']" in info.value.message and "['pass']" in info.value.message
    # In the home that withdrew it, the withdrawn save is now the fork, told as such.
    with pytest.raises(IntegrityError, match="took back the second") as mine:
        session.load(done.kept_as, homes[me])
    assert mine.value.code == "fork"
    r = run(watcher, "verify", str(again.path))
    assert r.exit_code == 3 and "Fork" in r.stderr


# ---- the signed time (PROTOCOL.md section 11) --------------------------------------------------
def test_every_new_entry_carries_its_signers_time(homes: dict[str, Home], tmp_path: Path) -> None:
    paths = play_game(homes, tmp_path / "saves", stop_after=7)
    save = savefile.read(paths[-1])
    assert [e["time"] for e in save.entries] == [FIXED_CLOCK] * len(save.entries)
    # It is signed: changing it breaks the entry's signature.
    head, _, tail = paths[-1].read_text().rpartition(f'time = "{FIXED_CLOCK}"')
    text = head + 'time = "2025-06-01T10:00:00Z"' + tail  # the last entry's time
    with pytest.raises(IntegrityError) as info:
        engine.replay(savefile.parse(text), check_snapshot=False)
    assert info.value.code == "signature"


def test_an_entry_without_time_is_accepted(homes: dict[str, Home], tmp_path: Path) -> None:
    paths = play_game(homes, tmp_path / "saves", stop_after=7)
    save = savefile.read(paths[-1])
    last = {k: v for k, v in save.entries[-1].items() if k != "time"}
    untimed = with_entries(save, save.entries[:-1] + [forge(last, homes[last["seat"]].load())])
    parsed = savefile.parse(savefile.dumps(untimed))
    assert engine.replay(parsed).table


@pytest.mark.parametrize("value", ['"2025-13-02T10:00:00Z"', '"2025-02-30T10:00:00Z"',
                                   '"2025-06-02 10:00:00"', '"2025-06-02T10:00:00+00:00"',
                                   '"2025-06-02T10:00Z"', '"2025-06-02T25:00:00Z"', "1748858400",
                                   '"２０２５-06-02T10:00:00Z"'])
def test_a_malformed_time_is_a_malformed_save(value: str, homes: dict[str, Home],
                                              tmp_path: Path) -> None:
    path = play_game(homes, tmp_path / "saves", stop_after=4)[-1]
    bad = tmp_path / "bad.toml"
    bad.write_text(path.read_text().replace(f'time = "{FIXED_CLOCK}"', f"time = {value}", 1))
    with pytest.raises(SaveFileError, match="'time'"):
        savefile.read(bad)
    r = run(None, "verify", str(bad))
    assert r.exit_code == 4 and "time" in r.stderr


def test_undo_by_short_id_and_the_short_id_names_the_save_before_again(
        homes: dict[str, Home], rolled: Path) -> None:
    me = homes[actor(rolled)]
    game_id = savefile.read(rolled).game_id
    run(me, "show", str(rolled))  # received: this home's newest save of the game
    written(run(me, "play", game_id[:8], "roll"))
    r = run(me, "undo", game_id[:8])
    assert r.exit_code == 0, r.output
    listed = json.loads(run(me, "games", "--json").output)["games"]
    [record] = [g for g in listed if g["id"] == game_id]
    assert not record["missing"] and Path(record["path"]) == rolled.absolute()
    shown = run(me, "show", game_id[:8])
    assert shown.exit_code == 0, shown.output
    again = written(run(me, "play", game_id[:8], "pass"))
    assert savefile.read(again).entries[-1]["moves"] == ["pass"]


def test_resign_absent_and_vote_take_a_short_id(homes: dict[str, Home], rolled: Path) -> None:
    waiting = actor(rolled)
    other = next(h for h in homes if h != waiting)
    game_id = savefile.read(rolled).game_id
    run(homes[other], "show", str(rolled))  # the save becomes this home's newest
    r = run(homes[other], "absent", game_id[:8], waiting)
    assert r.exit_code in (0, 1) and "There is no file" not in r.output, r.output
    r = run(homes[other], "vote", game_id[:8], "accept")
    assert r.exit_code == 1 and "There is no file" not in r.output, r.output
    run(homes[waiting], "show", str(rolled))
    r = run(homes[waiting], "resign", game_id[:8], "--yes")
    assert r.exit_code == 0 and "Wrote" in r.output, r.output


def test_a_final_reveal_taken_back_can_be_signed_again(homes: dict[str, Home],
                                                      tmp_path: Path) -> None:
    """Undo of a reveal not yet mailed: the seed is public on no branch, so the home may
    reveal again where the undo left it (it was refused as 'revealed on another branch'
    for good, leaving the game unfinishable from that home)."""
    paths = play_game(homes, tmp_path / "saves", options=["target=30"])
    last = savefile.read(paths[-1]).entries[-1]
    assert last["kind"] == "reveal"
    signer = homes[last["seat"]]
    r = run(signer, "undo", str(paths[-1]))
    assert r.exit_code == 0 and "e.g. 'pbem play " in r.output, r.output
    previous = Path(r.output.split("e.g. 'pbem play ", 1)[1].split("'", 1)[0])
    again = written(run(signer, "play", str(previous)))
    redone = savefile.read(again)
    assert redone.entries[-1]["kind"] == "reveal"
    assert redone.entries[-1]["seed"] == last["seed"]
    assert run(None, "verify", str(again)).exit_code == 0
