"""Absent players through the command line, in the three real games (issue 11, "Done
when"): three homes, one player declared absent, the game run to a verified end under
each remedy the game allows. Also what each command shows before anyone votes."""

from __future__ import annotations

import json
from email import message_from_string, policy
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from pbem.cli import main
from pbem.protocol.saveformat import savefile
from tests.enginekit import tick

HANDLES = ("ann", "bob", "cy")


class Table3:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.runner = CliRunner()
        self.saves = root / "saves"
        self.statuses: dict[str, dict[str, Any]] = {}
        self.saves.mkdir(parents=True)
        for handle in HANDLES:
            assert self.run(handle, "keygen", "--name", handle).exit_code == 0

    def run(self, handle: str | None, *args: str) -> Any:
        home = self.root / "homes" / (handle or "nobody")
        result = self.runner.invoke(main, ["--home", str(home), *args])
        assert "Traceback" not in result.output and "internal error" not in result.output
        return result

    def wrote(self, handle: str, *args: str) -> str:
        r = self.run(handle, *args)
        assert r.exit_code == 0, r.output
        return r.output.split("Wrote ", 1)[1].split("\n", 1)[0]

    def status(self, path: str) -> dict[str, Any]:
        """`verify --json` of ``path``; saves are never rewritten, so each is asked once
        (play() and finish() both want the status of the same save)."""
        if path not in self.statuses:
            self.statuses[path] = json.loads(self.run(None, "verify", path, "--json").output)
        return self.statuses[path]

    def start(self, game: str) -> str:
        path = self.wrote("ann", "new", game, "--seat", "ann", "--seat", "bob", "--seat", "cy",
                          "-o", str(self.saves / "new.toml"))
        for handle in ("bob", "cy"):
            path = self.wrote(handle, "join", path)
        return self.wrote("ann", "play", path)

    def play(self, path: str, *moves: str) -> str:
        who = self.status(path)["to_act"]
        return self.wrote(who, "play", path, *(moves or ("--bot", "greedy")))

    def finish(self, path: str, limit: int = 600) -> dict[str, Any]:
        for _ in range(limit):
            status = self.status(path)
            if status["to_act"] is None:
                return status
            assert status["next"] in ("turn", "reveal"), status
            path = self.play(path)
        raise AssertionError("the game did not end")


def declare(t: Table3, path: str, remedy: str) -> tuple[str, str]:
    """The seat after the one the game waits for proposes it absent; the other votes
    yes. Returns (absent handle, save after the vote)."""
    absent = t.status(path)["to_act"]
    proposer = HANDLES[(HANDLES.index(absent) + 1) % 3]
    listing = t.run(proposer, "absent", path, absent)
    assert listing.exit_code == 0 and f"{remedy}: " in listing.output
    assert "nothing was written" in listing.output
    tick(days=8)  # past the default patience (7 days) of the seat the game waits for
    r = t.run(proposer, "absent", path, absent, "--remedy", remedy)
    assert r.exit_code == 0, r.output
    assert f"proposes that {absent} is absent, remedy '{remedy}'" in r.output
    assert f"'{remedy}' means:" in r.output
    path = r.output.split("Wrote ", 1)[1].split("\n", 1)[0]
    voter = t.status(path)["to_act"]
    assert t.status(path)["next"] == "vote" and voter not in (absent, proposer)
    shown = t.run(voter, "show", path)
    assert f"'{remedy}' means:" in shown.output and "Next: vote by" in shown.output
    # Neither the absent player nor anyone out of turn can vote.
    r = t.run(absent, "vote", path, "accept")
    assert r.exit_code == 1 and "proposed absent, so you do not vote" in r.stderr
    assert t.run(proposer, "vote", path, "accept").exit_code == 1
    r = t.run(voter, "vote", path, "accept")
    assert r.exit_code == 0, r.output
    assert f"'{remedy}' means:" in r.output and "in effect from this entry on" in r.output
    return absent, r.output.split("Wrote ", 1)[1].split("\n", 1)[0]


def check_end(t: Table3, absent: str, final: dict[str, Any]) -> None:
    # "clean" only when every seat revealed (PROTOCOL.md section 7): the absent seat did not
    assert final["ok"] and final["audit"] == "partial" and not final["awaiting"]
    assert final["unaudited"] and absent in final["unaudited"][0]
    assert final["ranking"][-1] == [absent]


CASES = [("red-dog-junction", "end"), ("red-dog-junction", "bot"),
         ("station-to-station", "end"), ("station-to-station", "bot"),
         ("road-master", "end"), ("road-master", "bot")]


@pytest.mark.heavy
@pytest.mark.parametrize(("game", "remedy"), CASES, ids=[f"{g}-{r}" for g, r in CASES])
def test_three_players_one_absent_to_a_verified_end(game: str, remedy: str,
                                                   tmp_path: Path) -> None:
    t = Table3(tmp_path)
    path = t.start(game)
    for _ in range(4):
        path = t.play(path)
    absent, path = declare(t, path, remedy)
    r = t.run(None, "verify", path)
    assert r.exit_code == 0
    r2 = t.run(absent, "play", path, "--bot", "greedy")
    assert r2.exit_code == 1 and "were declared absent" in r2.stderr
    if remedy == "bot":
        assert f"the bot plays {absent}'s turns" in r.output
    else:
        assert f"{absent} was declared absent" in r.output
    final = t.finish(path)
    if remedy == "end":
        check_end(t, absent, final)
        return
    assert final["ok"] and final["audit"] == "partial"
    assert absent in final["unaudited"][0] and "played by the bot" in final["unaudited"][0]
    saves = sorted(t.saves.glob("*.toml"), key=lambda p: len(p.read_text()))
    text = saves[-1].read_text()
    assert "[[entry.bot]]" in text and f'seat = "{absent}"' in text


def keep_one(t: Table3, path: str, drawer: str) -> str:
    """The drawer's turn once its drawn Super Bonus cards are readable: keep the first,
    return the rest, then the first listed move until the turn may end."""
    while t.status(path)["to_act"] != drawer:
        path = t.play(path)
    listed = json.loads(t.run(drawer, "moves", path, "--json").output)["moves"]
    slots = [m.split()[1] for m in listed if m.startswith("keep ") and len(m.split()) == 2]
    assert slots, listed
    moves = [f"keep {slots[0]}"] + ([f"bottom {' '.join(slots[1:])}"] if slots[1:] else [])
    for _ in range(20):
        now = json.loads(t.run(drawer, "moves", path, *moves, "--json").output)
        if now["can_end_turn"]:
            break
        moves.append(now["moves"][0])
    return t.wrote(drawer, "play", path, *moves)


def drawn_and_kept(t: Table3) -> tuple[str, str]:
    """A Road Master game in which one player (returned) holds a Super Bonus card."""
    path = t.start("road-master")
    for _ in range(3):
        path = t.play(path)
    drawer = t.status(path)["to_act"]
    path = t.play(path, "superbonus")
    absent = t.status(path)["to_act"]
    # A draw under way waits for the others' peels: 'bot' is not offered then.
    listing = t.run(drawer, "absent", path, absent)
    assert listing.exit_code == 0 and "bot:" not in listing.output and "end:" in listing.output
    r = t.run(drawer, "absent", path, absent, "--remedy", "bot")
    assert r.exit_code == 1 and "does not offer 'bot'" in r.stderr
    path = keep_one(t, path, drawer)
    assert json.loads(t.run(None, "show", path, "--json").output)["state"]["superbonus"][
        "held"][HANDLES.index(drawer)] == 1
    return drawer, path


@pytest.mark.heavy
def test_road_master_bot_closes_the_super_bonus_deck(tmp_path: Path) -> None:
    """'bot' closes the deck for everyone, and the absent, show and vote commands say so
    before the vote (declare checks the vote's and show's lines)."""
    t = Table3(tmp_path)
    drawer, path = drawn_and_kept(t)
    while t.status(path)["to_act"] != drawer:  # the drawer is the one declared absent
        path = t.play(path)
    proposer = HANDLES[(HANDLES.index(drawer) + 1) % 3]
    listing = t.run(proposer, "absent", path, drawer)
    assert "The Super Bonus deck closes for everyone" in listing.output
    assert f"{drawer}'s 1 held Super Bonus card(s) can never be opened" in listing.output
    absent, path = declare(t, path, "bot")
    assert absent == drawer
    shown = t.run(proposer, "show", path)
    assert "Super Bonus deck closed" in shown.output
    human = t.status(path)["to_act"]
    assert "superbonus" not in json.loads(t.run(human, "moves", path, "--json").output)["moves"]
    r = t.run(human, "play", path, "superbonus")
    assert r.exit_code == 1 and "closed" in r.stderr
    final = t.finish(path)
    assert final["ok"] and final["audit"] == "partial"
    last = max(t.saves.glob("*.toml"), key=lambda p: len(p.read_text()))
    r = t.run(None, "verify", str(last))
    assert f"{drawer}'s 1 Super Bonus card(s) were never opened" in r.output


def test_road_master_end_opens_the_others_super_bonus_cards(tmp_path: Path) -> None:
    t = Table3(tmp_path)
    drawer, path = drawn_and_kept(t)
    while t.status(path)["to_act"] == drawer:
        path = t.play(path)
    absent, path = declare(t, path, "end")
    assert absent != drawer
    final = t.finish(path)
    check_end(t, absent, final)
    last = max(t.saves.glob("*.toml"), key=lambda p: len(p.read_text()))
    r = t.run(None, "verify", str(last))
    assert "Not audited:" in r.output
    assert f"{drawer}'s Super Bonus" in r.output  # the drawer's kept card was opened


def test_a_voter_is_told_the_absent_player_came_back_on_another_branch(tmp_path: Path) -> None:
    """The player proposed absent plays on the save before the proposal: a branch. The
    voter who has seen both is told so by `vote` (and the proposer by `confirm`) before
    signing on the proposal's branch."""
    t = Table3(tmp_path)
    path = t.play(t.play(t.start("dice-race")))
    absent = t.status(path)["to_act"]
    proposer = HANDLES[(HANDLES.index(absent) + 1) % 3]
    voter = HANDLES[(HANDLES.index(absent) + 2) % 3]
    tick(days=8)
    proposal = t.wrote(proposer, "absent", path, absent, "--remedy", "end")
    assert t.run(voter, "verify", proposal).exit_code == 0
    back = t.wrote(absent, "play", path, "--bot", "greedy", "-o", str(tmp_path / "back.toml"))
    assert t.run(voter, "verify", back).exit_code == 0
    r = t.run(voter, "vote", proposal, "accept")
    assert r.exit_code == 0, r.output
    told = r.output.split("Wrote ", 1)[0]
    assert "Two branches after entry" in told and f"a turn by {absent}" in told, r.output


def test_a_mail_names_the_proposal_a_vote_settled_as_log_does(tmp_path: Path) -> None:
    """A mail's one-line history names the proposal a vote accepted (whose, on whom, which
    entry, which remedy) in `log`'s words, though the vote settled it: the table after it
    holds no proposal any more."""
    t = Table3(tmp_path)
    absent, path = declare(t, t.start("station-to-station"), "bot")
    proposal, vote = savefile.read(Path(path)).entries[-2:]
    said = (f"{vote['seat']} voted to accept {proposal['seat']}'s proposal that {absent} is "
            f"absent (entry {proposal['seq']}, remedy 'bot')")
    assert f"{said}." in t.run(None, "log", path).output
    sent = t.run(vote["seat"], "send", path, "--stdout", "--to", "x@example.org")
    assert sent.exit_code == 0, sent.output
    body = message_from_string(sent.output, policy=policy.default).get_body(("plain",))
    assert body is not None
    assert f"\n  {vote['seq']:4d}  {said}\n" in body.get_content()
