"""PROTOCOL.md section 11: "The game must never be stuck for good." Whole games through the
command line where players fall silent and come back at random (as the seat to act, a
voter, a proposer, a revealer): whenever the game is not over, the players still answering
can always sign something within a few patiences, so every game reaches its end. Then a
fresh home verifies it in full and its result is checked.

Some players leave for good, each at a random step. Each step the players awake try, in
a random order, what a player could do (play, vote, confirm, propose the seat the game
waits for absent, now and then resign); the CLI refuses what is not theirs to sign, and
the clock moves on by one to 48 hours."""

from __future__ import annotations

import datetime
import json
import random
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from pbem.cli import main
from pbem.protocol.replay import engine
from pbem.protocol.saveformat import savefile, timing
from tests.support import scale

T0 = datetime.datetime(2025, 6, 2, 10, 0, 0, tzinfo=datetime.UTC)  # tests/conftest.py
HANDLES = ("ann", "bob", "cy", "dee", "eve")
# A step that signs nothing after this many steps (each at least an hour, the patience a
# day) means the players still answering could not move the game on: stuck.
STUCK_AFTER = 200


class Table:
    """Homes for the players, a clock, and the newest save."""

    def __init__(self, root: Path, game: str, players: int, options: list[str]) -> None:
        self.root, self.now, self.runner = root, T0, CliRunner()
        self.handles = list(HANDLES[:players])
        (root / "saves").mkdir(parents=True)
        for handle in self.handles:
            self.wrote(handle, "keygen", "--name", handle)
        seats = [a for h in self.handles for a in ("--seat", h)]
        path = self.wrote(self.handles[0], "new", game, *seats, *options, "--patience", "1d",
                          "-o", str(root / "saves" / "new.toml"))
        for handle in self.handles[1:]:
            path = self.wrote(handle, "join", path)
        self.path = self.wrote(self.handles[0], "play", path)

    def run(self, handle: str, *args: str) -> Result:
        result = self.runner.invoke(main, ["--home", str(self.root / "homes" / handle), *args],
                                    env={"PBEM_CLOCK": timing.stamp(self.now) or ""})
        assert "Traceback" not in result.output, result.output
        assert result.exit_code in (0, 1, 2), (args, result.output)
        return result

    def wrote(self, handle: str, *args: str) -> str:
        result = self.run(handle, *args)
        assert result.exit_code == 0, result.output
        return result.output.split("Wrote ", 1)[1].split("\n", 1)[0] if "Wrote " in \
            result.output else ""


def table_of(t: Table) -> Any:
    return engine.replay(savefile.read(t.path), check_snapshot=False,
                         audit_secrets=False).table


def tries(t: Table, rng: random.Random, awake: list[str]) -> list[tuple[str, list[str]]]:
    """What the players awake might sign now, in a random order."""
    table = table_of(t)
    waiting = table.waiting_duty()
    x = table.seats[waiting.seat].handle if waiting is not None else ""
    if table.round_first >= 0 and table.round_missing():  # any seat missing in the round
        x = table.seats[rng.choice(table.round_missing())].handle
    out = []
    for handle in awake:
        out.append((handle, ["play", t.path, "--bot", "greedy"]))
        if table.proposal:
            out.append((handle, ["vote", t.path, rng.choice(["accept", "accept", "refuse"])]))
            out.append((handle, ["confirm", t.path]))
        elif x and x != handle and rng.random() < 0.5:
            out.append((handle, ["absent", t.path, x, "--remedy", rng.choice(["bot", "end"])]))
        if rng.random() < 0.01:
            out.append((handle, ["resign", t.path, "--yes"]))
    rng.shuffle(out)
    return out


def written_kind(before: str, result: Result) -> tuple[str, str]:
    """The save a command wrote and the kind of its new entry (in a round, not always the
    save's last: a round's entries go in slot order)."""
    path = result.output.split("Wrote ", 1)[1].split("\n", 1)[0]
    known = {json.dumps(e, sort_keys=True) for e in savefile.read(before).entries}
    new = [e for e in savefile.read(path).entries if json.dumps(e, sort_keys=True) not in known]
    return path, str(new[-1]["kind"])


def play_to_the_end(t: Table, rng: random.Random) -> dict[str, int]:
    asleep: set[str] = set()
    wake, sleep = rng.choice([0.02, 0.05, 0.1]), rng.choice([0.02, 0.05, 0.1])
    # Some players leave for good, each at a step of its own; one at least stays.
    leaving = {h: rng.randrange(60) for h in rng.sample(t.handles, rng.randrange(len(t.handles)))}
    kinds: dict[str, int] = {}
    idle = steps = 0
    while table_of(t).duty() is not None:
        steps += 1
        asleep |= {h for h, step in leaving.items() if step <= steps}
        for handle in (h for h in t.handles if h not in leaving or leaving[h] > steps):
            if handle in asleep and rng.random() < wake:
                asleep.discard(handle)
            elif handle not in asleep and rng.random() < sleep:
                asleep.add(handle)
        # Someone still playing answers (once all of them have left for good, the game
        # has nobody to move it: one of them comes back).
        table = table_of(t)
        playing = [s.handle for i, s in enumerate(table.seats)
                   if i not in table.bots and i not in table.dropped]
        awake = [h for h in t.handles if h not in asleep]
        if not set(awake) & set(playing):
            awake.append(rng.choice([h for h in playing if h not in leaving] or playing))
        for handle, args in tries(t, rng, awake):
            result = t.run(handle, *args)
            if result.exit_code == 0 and "Wrote " in result.output:
                t.path, kind = written_kind(t.path, result)
                passing = "passing over" in result.output
                kinds[kind + (" passing" if passing else "")] = \
                    kinds.get(kind + (" passing" if passing else ""), 0) + 1
                idle = 0
                break
        else:
            idle += 1
            assert idle < STUCK_AFTER, (f"stuck: nothing signed for {idle} steps by "
                                        f"{awake}; {t.path}")
        t.now += datetime.timedelta(hours=rng.choice([1, 6, 24, 48]))
    return kinds


def check_result(t: Table) -> dict[str, Any]:
    """A fresh home verifies the whole game; its ranking and remedies are true."""
    result = t.run("fresh", "verify", "--full", t.path, "--json")
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.output)
    ranking = data["ranking"]
    assert sorted(h for group in ranking for h in group) == sorted(t.handles), ranking
    remedies = data["ending"]["remedies"]
    left = [r["player"] for r in remedies if r["remedy"] == "end"]
    left += [data["resigned"]] if data.get("resigned") else []
    assert set(left) <= set(ranking[-1]), (left, ranking)
    for remedy in remedies:
        voters = remedy["accepted"] + remedy["passed"]
        assert len(set(voters)) == len(voters), remedy
        assert remedy["player"] not in [*voters, remedy["by"]], remedy
        assert (remedy["confirmer"] is None) == (remedy["confirmed"] is None), remedy
    return data


SEEDS = list(range(scale.games(10, 200)))


@pytest.mark.parametrize("seed", SEEDS)
def test_a_dice_race_with_silent_players_always_reaches_its_end(tmp_path: Path,
                                                                  seed: int) -> None:
    rng = random.Random(seed)
    t = Table(tmp_path, "dice-race", rng.choice([2, 3, 4]), ["--option", "target=30"])
    play_to_the_end(t, rng)
    check_result(t)


GAMES = [("red-dog-junction", ["--option", "variant=posse"]), ("red-dog-junction", []),
         ("road-master", []), ("station-to-station", [])]


@pytest.mark.slow
@pytest.mark.parametrize("seed", list(range(scale.games(2, 20))))
@pytest.mark.parametrize(("game", "options"), GAMES, ids=["posse", "rdj", "rm", "sts"])
def test_every_game_with_silent_players_always_reaches_its_end(
        tmp_path: Path, game: str, options: list[str], seed: int) -> None:
    rng = random.Random(f"{game}{options}{seed}")
    t = Table(tmp_path, game, rng.choice([3, 4]), options)
    play_to_the_end(t, rng)
    check_result(t)


def test_the_seat_proposed_absent_and_the_voter_due_both_silent_is_not_stuck(
        tmp_path: Path) -> None:
    """The case that was stuck for good: three players, the seat to act and the voter
    silent; the proposer alone moves the game to its end (its proposal, a confirm that
    passes over the silent vote, its reveal, then each silent revealer declared absent)."""
    t = Table(tmp_path, "dice-race", 3, ["--option", "target=1000"])
    x = json.loads(t.run("ann", "verify", t.path, "--json").output)["to_act"]
    alone = t.handles[(t.handles.index(x) + 1) % 3]
    kinds = play_to_the_end_alone(t, alone)
    assert kinds["confirm passing"] >= 1, kinds
    data = check_result(t)
    assert data["ranking"][0] == [alone]


def play_to_the_end_alone(t: Table, alone: str) -> dict[str, int]:
    return play_to_the_end_by(t, [alone], random.Random(0))


def play_to_the_end_by(t: Table, handles: list[str], rng: random.Random) -> dict[str, int]:
    """Only ``handles`` answer, every 12 hours; the others never sign again."""
    alone = ", ".join(handles)
    kinds: dict[str, int] = {}
    for _ in range(400):
        if table_of(t).duty() is None:
            return kinds
        for handle, args in tries(t, rng, list(handles)):
            result = t.run(handle, *args)
            if result.exit_code == 0 and "Wrote " in result.output:
                t.path, kind = written_kind(t.path, result)
                kind += " passing" if "passing over" in result.output else ""
                kinds[kind] = kinds.get(kind, 0) + 1
                break
        t.now += datetime.timedelta(hours=12)
    raise AssertionError(f"stuck with only {alone} answering: {kinds}")


def test_a_seat_withholding_its_reveal_in_a_reveal_round_is_not_stuck(tmp_path: Path) -> None:
    """Two seats reveal in parallel (docs/protocol-rounds.md); ann reveals in the round and
    bob never does: ann alone proposes bob absent in bob's slot, once bob's patience has
    run from the entry before the round, and confirms a patience later."""
    t = Table(tmp_path, "red-dog-junction", 2, [])
    while (duty := table_of(t).duty()) is not None and duty.kind != "reveal":
        t.path = t.wrote(table_of(t).seats[duty.seat].handle, "play", t.path, "--bot",
                         "greedy")
    assert table_of(t).round_seats() == [0, 1]
    t.path = t.wrote("ann", "play", t.path)
    assert savefile.read(t.path).entries[-1]["round"] == savefile.read(t.path).entries[-1]["seq"]
    kinds = play_to_the_end_alone(t, "ann")
    assert kinds == {"absent": 1, "confirm": 1}, kinds
    proposal = savefile.read(t.path).entries[-2]  # in bob's slot of the round
    assert proposal["kind"] == "absent" and proposal["round"] == proposal["seq"] - 1
    data = check_result(t)
    assert data["ranking"] == [["ann"], ["bob"]]


@pytest.mark.slow
@pytest.mark.parametrize("seed", list(range(scale.games(2, 20))))
def test_a_two_seat_game_with_a_reveal_round_and_silent_players_reaches_its_end(
        tmp_path: Path, seed: int) -> None:
    rng = random.Random(f"rdj2{seed}")
    t = Table(tmp_path, "red-dog-junction", 2, [])
    play_to_the_end(t, rng)
    check_result(t)


def to_the_reveal_round(t: Table) -> list[str]:
    """Play on (the first reveal too, where it resolves chance) until the reveals left
    form a round; its seats."""
    while not (seats := table_of(t).round_seats()):
        duty = table_of(t).duty()
        assert duty is not None
        t.path = t.wrote(table_of(t).seats[duty.seat].handle, "play", t.path, "--bot",
                         "greedy")
    return [t.handles[s] for s in seats]


@pytest.mark.parametrize("seed", list(range(scale.games(3, 30))))
def test_several_withholders_of_a_reveal_round_are_each_removed(tmp_path: Path,
                                                                 seed: int) -> None:
    """Every seat of a three- or four-seat Red Dog Junction reveals in one round; one to all
    but one of them never reveal. The others alone, each trying what it may in a random
    order, fill the missing slots with proposals, settle the queue one proposal after
    another and end the game: every withholder ranks last."""
    rng = random.Random(f"withholders{seed}")
    t = Table(tmp_path, "red-dog-junction", rng.choice([3, 4]), [])
    seats = to_the_reveal_round(t)
    assert seats == t.handles
    withholders = rng.sample(seats, rng.randrange(1, len(seats)))
    answering = [h for h in t.handles if h not in withholders]
    kinds = play_to_the_end_by(t, answering, rng)
    assert kinds["absent"] >= len(withholders), kinds
    data = check_result(t)
    assert data["ranking"][-1] == sorted(withholders, key=t.handles.index), data["ranking"]


@pytest.mark.slow
def test_two_withholders_of_a_five_seat_red_dog_junction_are_removed(tmp_path: Path) -> None:
    t = Table(tmp_path, "red-dog-junction", 5, [])
    assert to_the_reveal_round(t) == t.handles
    kinds = play_to_the_end_by(t, ["ann", "cy", "eve"], random.Random(5))
    assert kinds["absent"] >= 2, kinds
    assert check_result(t)["ranking"][-1] == ["bob", "dee"]
