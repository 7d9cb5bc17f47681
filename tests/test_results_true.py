"""Every result exactly true (PROTOCOL.md section 7, issue 21 finding 6), through the CLI:
the solo game ranks Justin with his score; a resignation and an absence remedy say how
the game ended and who brought it about; "Audit: clean" only when every seat revealed;
bot turns appear in `log` and `show`; a finished game's picture names nobody to act."""

from __future__ import annotations

import email
import email.policy
import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from pbem.cli import main
from tests.test_absent_cli import HANDLES, Table3, declare


def texts_of(svg: str) -> str:
    """The words of an SVG picture, in document order."""
    return " ".join(re.sub(r"<[^>]+>", "", t) for t in re.findall(r"<text[^>]*>.*?</text>", svg,
                                                                   flags=re.S))


def picture(t: Table3, handle: str | None, path: str, name: str) -> str:
    target = t.root / f"{name}.svg"
    r = t.run(handle, "show", path, "--svg", str(target))
    assert r.exit_code == 0, r.output
    return texts_of(target.read_text("utf-8"))


# ---- solo Red Dog Junction: Justin is a player of the result ------------------------------
@pytest.fixture(scope="module")
def solo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("solo")
    r = CliRunner().invoke(main, ["demo", "red-dog-junction", "--players", "1", "--dir",
                                  str(root)])
    assert r.exit_code == 0, r.output
    final = max((root / "saves").glob("*.toml"), key=lambda p: len(p.read_text()))
    return root / "homes" / "ann", final


def run_in(home: Path, *args: str) -> Any:
    r = CliRunner().invoke(main, ["--home", str(home), *args])
    assert r.exit_code == 0 and "Traceback" not in r.output, r.output
    return r


def test_solo_verify_json_ranks_justin_with_his_score(solo: tuple[Path, Path]) -> None:
    """Today `verify --json` ranked ann alone with scores {"ann": 1} while Justin scored 46."""
    home, final = solo
    data = json.loads(run_in(home, "verify", str(final), "--json").output)
    shown = json.loads(run_in(home, "show", str(final), "--json").output)
    justin = shown["state"]["justin"]["score"]
    ann = shown["state"]["players"][0]["score"]
    assert data["scores"] == {"ann": ann, "Justin": justin}
    assert sorted(n for group in data["ranking"] for n in group) == ["Justin", "ann"]
    assert data["rivals"] == ["Justin"] and data["winners"] == data["ranking"][0]
    assert data["parts"]["Justin"] == shown["state"]["justin"]["score_parts"]
    if justin != ann:
        assert data["winners"] == (["Justin"] if justin > ann else ["ann"])
    assert data["ending"]["how"] == "rules" and data["audit"] == "clean"
    assert shown["result"]["ranking"] == data["ranking"]


def test_solo_verify_text_games_and_picture_name_justin(solo: tuple[Path, Path]) -> None:
    """Today `games` said "won by ann (1)" while Justin scored 46."""
    home, final = solo
    data = json.loads(run_in(home, "verify", str(final), "--json").output)
    first = data["ranking"][0][0]
    text = run_in(home, "verify", str(final)).output
    assert f"Winner: {first} with {data['scores'][first]} points" in text
    assert re.search(rf"\d\. Justin +{data['scores']['Justin']}", text)
    games = run_in(home, "games").output
    assert f"won by {first} ({data['scores'][first]})" in games or "shared by" in games
    assert f"Justin {data['scores']['Justin']}" in games or first == "Justin"
    svg = home.parent.parent / "solo.svg"
    run_in(home, "show", str(final), "--svg", str(svg))
    words = texts_of(svg.read_text("utf-8"))
    assert f"Winner: {first} with {data['scores'][first]} points" in words
    assert f"Justin {data['scores']['Justin']} (gold" in words


# ---- absent, remedy end ------------------------------------------------------------------
@pytest.mark.heavy
def test_absent_end_the_audit_is_partial_everywhere_and_says_who_voted(tmp_path: Path) -> None:
    """Today, after `absent --remedy end`, the picture said "Audit: clean (every seat
    revealed; every secret checked)" while verify said the absent seat was not audited,
    and `play` said "every seat has revealed"."""
    t = Table3(tmp_path)
    path = t.start("station-to-station")
    for _ in range(4):
        path = t.play(path)
    absent, path = declare(t, path, "end")
    proposer = HANDLES[(HANDLES.index(absent) + 1) % 3]
    voter = HANDLES[(HANDLES.index(absent) + 2) % 3]
    stopped = picture(t, None, path, "stopped")
    assert "To act" not in stopped and "The game is over" in stopped
    final = t.finish(path)
    last = max(t.saves.glob("*.toml"), key=lambda p: len(p.read_text()))
    assert final["audit"] == "partial" and final["ok"]
    assert final["unrevealed"] == [absent] and absent not in final["revealed"]
    ending = final["ending"]
    assert ending["how"] == "absent"
    [remedy] = ending["remedies"]
    assert (remedy["player"], remedy["remedy"], remedy["by"], remedy["accepted"]) == (
        absent, "end", proposer, [voter])
    assert f"proposed by {proposer}" in ending["text"] and f"accepted by {voter}" in ending[
        "text"]
    assert final["ranking"][-1] == [absent]
    text = t.run(None, "verify", str(last)).output
    assert "Audit: partial" in text and "Audit: clean" not in text
    assert f"accepted by {voter}" in text
    words = picture(t, None, str(last), "final")
    assert "Audit: clean" not in words and "Audit: partial" in words
    assert "To act" not in words
    log = t.run(None, "log", str(last)).output
    assert f"{proposer} proposed that {absent} is absent, remedy 'end'." in log
    assert re.search(rf"{voter} voted to accept {proposer}'s proposal that {absent} is "
                     r"absent \(entry \d+, remedy 'end'\)\.", log)
    r = t.run(proposer, "play", str(last))
    assert r.exit_code == 1 and "every seat has revealed." not in r.stderr
    assert f"but {absent}, declared absent" in r.stderr


# ---- absent, remedy bot ------------------------------------------------------------------
@pytest.mark.heavy
def test_bot_turns_are_listed_in_log_and_show(tmp_path: Path) -> None:
    """Today bot turns were in the mail only: a score jumped with no cause in `log`."""
    t = Table3(tmp_path)
    path = t.start("red-dog-junction")
    for _ in range(4):
        path = t.play(path)
    absent, path = declare(t, path, "bot")
    for _ in range(3):
        path = t.play(path)
    log = json.loads(t.run(None, "log", path, "--json").output)
    with_bot = [e for e in log["entries"] if e["bot"]]
    assert with_bot, "no entry lists a bot turn"
    turn = with_bot[0]["bot"][0]
    assert turn["seat"] == absent and turn["moves"]
    assert with_bot[0]["changes"][0].startswith(f"{absent} (absent) played by the bot, signed "
                                                f"by {with_bot[0]['seat']}")
    text = t.run(None, "log", path).output
    assert re.search(rf"\n +bot +{absent} +.*\(the bot's turn for absent {absent}", text)
    seq = str(with_bot[0]["seq"])
    shown = json.loads(t.run(None, "show", path, "--at", seq, "--json").output)
    assert shown["entry"]["bot"] == with_bot[0]["bot"]
    text = t.run(None, "show", path, "--at", seq).output
    assert f"(the bot's turn for absent {absent}" in text
    # The mail says who is absent and who signs for the bot: its board, in the rules' own
    # words, may name the absent seat to act.
    signer = path.rsplit("-", 1)[1].removesuffix(".toml")
    mail = tmp_path / "next.eml"
    r = t.run(signer, "send", path, "--eml", str(mail), "--to", "next@example.org")
    assert r.exit_code == 0, r.output
    body = email.message_from_bytes(mail.read_bytes(), policy=email.policy.default).get_body(
        ("plain",))
    assert body is not None
    assert f"{absent} is absent: the bot plays {absent}'s turns, signed by" in \
        body.get_content()
    # 'pbem games' says so too while the game goes on, in every home that saw it.
    for handle in HANDLES:
        assert t.run(handle, "verify", path).exit_code == 0
        # The status line itself ('games' prints it first), not the whole output: a
        # path may hold any word.
        status = json.loads(t.run(handle, "games", "--json").output)["games"][0]["status"]
        assert status.endswith(f"({absent} played by the bot)") and "over" not in status, status
        assert status in t.run(handle, "games").output


# ---- resignation -----------------------------------------------------------------------
@pytest.mark.heavy
def test_a_resignation_says_so_and_nobody_is_to_act_in_the_picture(tmp_path: Path) -> None:
    """Today the picture of a resigned game said "To act: cy (phase: market)" and the
    result "Final: , total 0"."""
    t = Table3(tmp_path)
    path = t.start("station-to-station")
    for _ in range(4):
        path = t.play(path)
    quitter = t.status(path)["to_act"]
    r = t.run(quitter, "resign", path, "--yes") if "--yes" in t.run(
        quitter, "resign", "--help").output else t.run(quitter, "resign", path)
    assert r.exit_code == 0, r.output
    path = r.output.split("Wrote ", 1)[1].split("\n", 1)[0]
    words = picture(t, None, path, "resigned")
    assert "To act" not in words and f"{quitter} resigned" in words
    final = t.finish(path)
    assert final["ending"]["how"] == "resigned" and quitter in final["ending"]["text"]
    assert final["ranking"][-1] == [quitter]
    last = max(t.saves.glob("*.toml"), key=lambda p: len(p.read_text()))
    words = picture(t, None, str(last), "final")
    assert "To act" not in words and "Final: , total" not in words
    assert f"{quitter} resigned" in words
    text = t.run(None, "verify", str(last)).output
    assert f"{quitter} resigned" in text


# ---- the last mail's audit -------------------------------------------------------------
def test_the_last_mail_of_a_partial_audit_says_what_went_unchecked(tmp_path: Path) -> None:
    """The mail of the final save said "... so not everything could be checked:" and
    stopped there: what was not audited (the absent seat's beacon chain) was left out."""
    t = Table3(tmp_path)
    path = t.start("station-to-station")
    for _ in range(4):
        path = t.play(path)
    _, path = declare(t, path, "end")
    final = t.finish(path)
    assert final["audit"] == "partial" and final["unaudited"]
    last = max(t.saves.glob("*.toml"), key=lambda p: len(p.read_text()))
    signer = last.stem.rsplit("-", 1)[1]
    r = t.run(signer, "send", str(last), "--to", "x@example.org", "--stdout")
    assert r.exit_code == 0, r.output
    body = email.message_from_string(r.output, policy=email.policy.default).get_body(
        ("plain",))
    assert body is not None
    text = " ".join(body.get_content().split())
    for line in final["unaudited"]:
        assert f"Not audited: {' '.join(line.split())}" in text


# ---- solo: nobody to send the save to ---------------------------------------------------
def test_a_solo_game_does_not_tell_its_player_to_send_the_save_to_themself(
        tmp_path: Path) -> None:
    """'new' and each 'play' of a solo game printed "Send it to ann, who will play with
    'pbem play'." to ann herself."""
    home = tmp_path / "ann"
    run_in(home, "keygen", "--name", "ann")
    said = run_in(home, "new", "red-dog-junction", "--seat", "ann", "-o",
                  str(tmp_path / "g.toml")).output
    assert "Send it to ann" not in said
    assert "You (ann) are next: start it with 'pbem play' on this save." in said
    said = run_in(home, "play", str(tmp_path / "g.toml")).output
    assert "Send it to ann" not in said
    assert "You (ann) are next: play with 'pbem play' on this save." in said
