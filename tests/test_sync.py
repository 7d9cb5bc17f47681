"""``pbem sync`` and entries that answer themselves (PROTOCOL.md section 12): only where
the player switched it on, only entries that hold no decision, told afterwards; queued
mail sent; the games waiting listed oldest first."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("aiosmtpd", reason="aiosmtpd is in the [test] extra")

from aiosmtpd.controller import Controller  # noqa: E402
from click.testing import CliRunner  # noqa: E402

from pbem import (
    registry,  # noqa: E402
    session,  # noqa: E402
)
from pbem.cli import main  # noqa: E402
from pbem.errors import IllegalMoveError  # noqa: E402
from pbem.game import State  # noqa: E402
from pbem.mail import answer, outbox  # noqa: E402
from pbem.mail import message as mail  # noqa: E402
from pbem.protocol.crypto.identity import Home  # noqa: E402
from tests.support.dice_race import DiceRace  # noqa: E402
from tests.support.duty import sign_duty  # noqa: E402
from tests.test_inbox import Hop, play_and_mail, write_mbox  # noqa: E402
from tests.test_smtp import Sink, free_port  # noqa: E402


class DiceRaceDone(DiceRace):
    """Dice race whose moves stop once the game is over, as the real games' do (the test
    game offers roll and pass even in a final reveal, which would be a choice there)."""

    info = DiceRace.info._replace(id="quiet-race", title="Quiet Race")

    def legal_moves(self, state: State, seat: int) -> list[str]:
        return [] if self.to_act(state) is None else super().legal_moves(state, seat)


registry.register("quiet-race", DiceRaceDone())


def run(home: Home, *args: str) -> Any:
    return CliRunner().invoke(main, ["--home", str(home.path), *args])


@pytest.fixture
def smtp_sink() -> Iterator[tuple[int, Sink]]:
    sink = Sink()
    port = free_port()
    controller = Controller(sink, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield port, sink
    finally:
        controller.stop()


class FakeTurn:
    """An Owed stand-in: ``tree`` maps the moves so far (joined by ';') to the options
    there; ``ends`` the positions where the turn may end."""

    def __init__(self, tree: dict[str, list[str]], ends: set[str], kind: str = "turn") -> None:
        self.tree, self.ends, self.kind = tree, ends, kind
        self.state = ""
        self.takes_moves = True

    def options(self, state: str) -> list[str]:
        return self.tree.get(state, [])

    def unfinished(self, state: str) -> str | None:
        return None if state in self.ends else "not yet"

    def step(self, state: str, move: str) -> tuple[str, str]:
        if move not in self.options(state):
            raise IllegalMoveError("no")
        return (f"{state};{move}" if state else move), move


def test_forced_moves_are_only_those_without_a_choice() -> None:
    forced = answer.forced_moves
    assert forced(FakeTurn({}, {""})) == []  # chores only: an empty turn
    assert forced(FakeTurn({"": ["pass"]}, {"pass"})) == ["pass"]  # a forced pass
    assert forced(FakeTurn({"": ["a"], "a": ["b"]}, {"a;b"})) == ["a", "b"]
    assert forced(FakeTurn({"": ["roll", "pass"]}, set())) is None  # two options
    assert forced(FakeTurn({"": ["buy"]}, {""})) is None  # one move, or end now: a choice
    assert forced(FakeTurn({}, set())) is None  # stuck: nothing signable
    assert forced(FakeTurn({}, {""}, kind="vote")) is None  # a vote is always a choice
    assert forced(FakeTurn({}, {""}, kind="join")) is None


@pytest.fixture
def at_reveal(homes: dict[str, Home], tmp_path: Path) -> tuple[list[Hop], str, Path]:
    """A dice-race game of two turns each, played until the first reveal is owed."""
    folder = tmp_path / "saves"
    folder.mkdir()
    seats = [f"{h}={h}@example.org" for h in ("ann", "bob", "cy")]
    written = session.new_game(homes["ann"], "quiet-race", seats,
                               ["turns=2", "target=1000000"],
                               None, folder=folder)
    hops = [Hop(written, mail.compose(written.path, homes["ann"]))]
    while (duty := written.table.duty()) is not None and duty.kind != "reveal":
        written = sign_duty(homes, written, "random:3")
        hops.append(Hop(written, mail.compose(written.path, homes[written.entry["seat"]])))
    box = write_mbox(tmp_path / "mail.mbox", [h.msg for h in hops])
    return hops, hops[-1].actor, box


def test_inbox_answer_signs_a_final_reveal_unless_switched_off(
        homes: dict[str, Home], at_reveal: tuple[list[Hop], str, Path]) -> None:
    """PROTOCOL.md section 12 (pbem/2): on by default; off for a game, nothing is signed."""
    hops, me, box = at_reveal
    home = homes[me]
    game_id = hops[-1].save.game_id
    assert answer.enabled(home, game_id)  # a home that never chose: on
    assert run(home, "auto", game_id[:8], "off").exit_code == 0
    off = run(home, "inbox", str(box), "--answer", "--json")
    assert off.exit_code == 0, off.output
    assert json.loads(off.output)["answered"] == []
    assert hops[-1].table.duty().kind == "reveal"
    shown = run(home, "auto", game_id[:8], "on")
    assert shown.exit_code == 0 and "on" in shown.output
    result = run(home, "inbox", str(box), "--answer", "--all")
    assert result.exit_code == 0, result.output
    assert "answered itself (reveal)" in result.output
    assert "not mailed yet" in result.output and "queued" in result.output
    [queued] = outbox.pending(home.path)
    assert session.load(queued, home).save.entries[-1]["kind"] == "reveal"
    # Switched off for that game: nothing more is signed.
    assert run(home, "auto", game_id[:8], "off").exit_code == 0
    assert not answer.enabled(home, game_id)


def test_a_new_home_answers_a_final_reveal_by_itself_and_the_profile_says_so(
        homes: dict[str, Home], at_reveal: tuple[list[Hop], str, Path]) -> None:
    """PROTOCOL.md section 12 (pbem/2): a home that never chose answers an entry with no
    decision by itself; 'profile --auto-answer off' stops it, and profile says which."""
    hops, me, box = at_reveal
    home = homes[me]
    assert "auto-answer: on" in run(home, "profile").output
    result = run(home, "inbox", str(box), "--answer", "--json")
    assert result.exit_code == 0, result.output
    [signed] = json.loads(result.output)["answered"]
    assert signed["kind"] == "reveal"
    assert run(home, "profile", "--auto-answer", "off").exit_code == 0
    assert "auto-answer: off" in run(home, "profile").output
    assert not answer.enabled(home, hops[-1].save.game_id)


def test_a_turn_with_a_choice_is_never_answered(homes: dict[str, Home],
                                                tmp_path: Path) -> None:
    hops = play_and_mail(homes, tmp_path / "saves", stop_after=6)
    me = hops[-1].actor
    assert hops[-1].table.duty().kind == "turn"  # roll or pass: a choice
    assert run(homes[me], "profile", "--auto-answer", "on").exit_code == 0
    box = write_mbox(tmp_path / "m.mbox", [h.msg for h in hops])
    result = run(homes[me], "inbox", str(box), "--answer", "--json")
    assert json.loads(result.output)["answered"] == []
    assert outbox.pending(homes[me].path) == []


def test_sync_reads_answers_mails_and_lists_what_waits(
        homes: dict[str, Home], at_reveal: tuple[list[Hop], str, Path],
        smtp_sink: tuple[int, Sink]) -> None:
    hops, me, box = at_reveal
    home = homes[me]
    port, sink = smtp_sink
    for args in (["--email", f"{me}@example.org", "--smtp", "127.0.0.1", "--port", str(port),
                  "--security", "none"], ["--source", str(box)], ["--auto-answer", "on"]):
        assert run(home, "profile", *args).exit_code == 0
    result = run(home, "sync")
    assert result.exit_code == 0, result.output
    assert "answered itself (reveal), mailed to" in result.output
    assert sorted(m["to"][0] for m in sink.received) == ["bob@example.org", "cy@example.org"]
    assert outbox.pending(home.path) == []
    # Nothing new the second time; the game now waits for someone else.
    again = run(home, "sync", "--json")
    data = json.loads(again.output)
    assert data["inbox"]["messages"] == 0 and data["answered"] == []
    assert all(w["id"] != hops[-1].save.game_id for w in data["waiting"])


def test_sync_sends_queued_mail(homes: dict[str, Home], at_reveal: tuple[list[Hop], str, Path],
                                smtp_sink: tuple[int, Sink]) -> None:
    hops, me, box = at_reveal
    home = homes[me]
    assert run(home, "auto", hops[-1].save.game_id, "on").exit_code == 0
    assert run(home, "profile", "--source", str(box), "--email",
               f"{me}@example.org").exit_code == 0
    first = run(home, "sync")  # no SMTP server set: signed, queued, exit 5 (not mailed)
    assert first.exit_code == 5 and "queued" in first.output, first.output
    assert "Queued mail" not in first.output  # told once, not twice
    [queued] = outbox.pending(home.path)
    port, sink = smtp_sink
    assert run(home, "profile", "--smtp", "127.0.0.1", "--port", str(port), "--security",
               "none").exit_code == 0
    second = run(home, "sync")
    assert second.exit_code == 0 and f"{queued}: mailed to" in second.output, second.output
    assert outbox.pending(home.path) == [] and len(sink.received) == 2  # one per player


def mid_game(homes: dict[str, Home], tmp_path: Path, *more_sources: str
             ) -> tuple[list[Hop], str]:
    """A dice race six entries in, mailed to an mbox that the seat to act's profile
    reads (with ``more_sources``): the hops and that seat."""
    hops = play_and_mail(homes, tmp_path / "saves", stop_after=6)
    me = hops[-1].actor
    box = write_mbox(tmp_path / "m.mbox", [h.msg for h in hops])
    sources = [a for src in (str(box), *more_sources) for a in ("--source", src)]
    assert run(homes[me], "profile", *sources).exit_code == 0
    return hops, me


def test_sync_waiting_games_oldest_first(homes: dict[str, Home], tmp_path: Path) -> None:
    hops, me = mid_game(homes, tmp_path)
    result = run(homes[me], "sync")
    assert result.exit_code == 0, result.output
    assert "Waiting for you (1), the longest first:" in result.output
    assert f"{hops[-1].save.game_id[:8]}  " in result.output and "waiting since" in result.output


def test_sync_needs_a_source(homes: dict[str, Home]) -> None:
    result = run(homes["ann"], "sync")
    assert result.exit_code == 2 and "pbem profile --source" in result.output


def test_sync_every_stops_cleanly_on_ctrl_c(homes: dict[str, Home], tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    box = write_mbox(tmp_path / "m.mbox", [])
    assert run(homes["ann"], "profile", "--source", str(box)).exit_code == 0
    rounds = []

    def sleep(seconds: float) -> None:
        rounds.append(seconds)
        if len(rounds) == 2:
            raise KeyboardInterrupt

    monkeypatch.setattr("time.sleep", sleep)
    result = run(homes["ann"], "sync", "--every", "5")
    assert result.exit_code == 0 and rounds == [300, 300]
    assert "sync stopped" in result.output


def test_resign_and_join_take_send(homes: dict[str, Home], tmp_path: Path,
                                   smtp_sink: tuple[int, Sink]) -> None:
    port, sink = smtp_sink
    folder = tmp_path / "saves"
    folder.mkdir()
    seats = [f"{h}={h}@example.org" for h in ("ann", "bob")]
    created = session.new_game(homes["ann"], "dice-race", seats, [], None, folder=folder)
    smtp_args = ["--send", "--smtp", "127.0.0.1", "--port", str(port), "--security", "none"]
    assert run(homes["bob"], "profile", "--email", "bob@example.org").exit_code == 0
    joined = run(homes["bob"], "join", str(created.path), *smtp_args)
    assert joined.exit_code == 0 and "Sent to ann@example.org" in joined.output, joined.output
    assert len(sink.received) == 1
    # Broken settings stop the command before anything is signed.
    bad = run(homes["bob"], "resign", created.save.game_id[:8], "--send", "--security", "none")
    assert bad.exit_code == 2 and "Wrote" not in bad.output


def test_one_mail_per_recipient_each_with_its_own_text(
        homes: dict[str, Home], tmp_path: Path, smtp_sink: tuple[int, Sink]) -> None:
    from email import message_from_bytes, policy

    hops = play_and_mail(homes, tmp_path / "saves", stop_after=8)
    last = hops[-1]
    sender, actor = last.signer, last.actor
    bystander = next(h for h in homes if h not in (sender, actor))
    port, sink = smtp_sink
    assert run(homes[sender], "profile", "--email", f"{sender}@example.org").exit_code == 0
    result = run(homes[sender], "send", str(last.path), "--smtp", "127.0.0.1", "--port",
                 str(port), "--security", "none")
    assert result.exit_code == 0, result.output
    got = {m["to"][0].split("@")[0]: message_from_bytes(m["content"], policy=policy.default)
           for m in sink.received}
    assert sorted(got) == sorted([actor, bystander])
    for handle, msg in got.items():
        assert msg["To"].addresses[0].username == handle and msg["Cc"] is None
        text = msg.get_body(preferencelist=("plain",)).get_content()
        mine = max(e["seq"] for e in last.save.entries if e["seat"] == handle)
        assert f"Since your last entry ({mine}):" in text, (handle, text)
        assert (f"It is your move, {actor}" in text) == (handle == actor)
    eml = tmp_path / "draft.eml"
    assert run(homes[sender], "send", str(last.path), "--eml", str(eml)).exit_code == 0
    draft = message_from_bytes(eml.read_bytes(), policy=policy.default)
    assert draft["X-Unsent"] == "1"


# ---- the daily loop: reminders, sources that failed, what an entry is --------------------
def test_sync_mails_due_reminders_once_a_day_and_says_who_is_past_patience(
        tmp_path: Path, smtp_sink: tuple[int, Sink]) -> None:
    """sync mails the reminders 'pbem remind' would (at most once a day per game), says
    who is past patience (the player themselves too), and --no-remind mails none."""
    from tests.test_game_clock import Players, at

    port, sink = smtp_sink
    t = Players(tmp_path, "ann", "bob")
    path = t.play(t.start("dice-race", "--option", "target=1000"))
    absent = t.status(path)["to_act"]
    other = t.other(absent)
    box = write_mbox(tmp_path / "empty.mbox", [])
    for handle in (other, absent):
        assert t.run(handle, "profile", "--source", str(box), "--email",
                     f"{handle}@example.org", "--smtp", "127.0.0.1", "--port", str(port),
                     "--security", "none").exit_code == 0
    early = t.run(other, "sync", when=at(days=6))
    assert early.exit_code == 0 and "Past patience" not in early.output, early.output
    r = t.run(other, "sync", when=at(days=8))
    assert r.exit_code == 5 and (f"not reminded (no mail address is known for {absent}: "
                                 f"remember one with 'pbem contacts email {absent} ADDRESS')."
                                 ) in r.output, r.output
    assert t.run(other, "contacts", "email", absent, f"{absent}@example.org").exit_code == 0
    r = t.run(other, "sync", when=at(days=8))
    assert r.exit_code == 0, r.output
    assert (f"Past patience (1):\n  Dice Race {t.status(path)['id'][:8]}: {absent} is past "
            f"patience since 2025-06-09 10:00 UTC; reminded ({absent}@example.org).") \
        in r.output, r.output
    assert [m["to"] for m in sink.received] == [[f"{absent}@example.org"]]
    assert b"Reminder" in sink.received[0]["content"]
    r = t.run(other, "sync", "--json", when=at(days=8, hours=23))
    [late] = json.loads(r.output)["past_patience"]
    assert late["to_act"] == absent and late["reminded"] == [] and not late["yours"]
    assert late["next_reminder"] == "2025-06-11T10:00:00Z" and len(sink.received) == 1
    r = t.run(other, "sync", "--no-remind", when=at(days=9, hours=1))
    assert r.exit_code == 0 and "; not reminded (--no-remind)." in r.output, r.output
    assert len(sink.received) == 1
    assert t.run(absent, "show", path, when=at(days=9)).exit_code == 0  # its home has it
    mine = t.run(absent, "sync", when=at(days=9, hours=1))
    assert "your patience ran out 2025-06-09 10:00 UTC: another player may propose you " \
        "absent." in mine.output, mine.output
    assert len(sink.received) == 1


def test_sync_with_no_smtp_server_says_the_reminder_is_not_mailed(tmp_path: Path) -> None:
    from tests.test_game_clock import Players, at

    t = Players(tmp_path, "ann", "bob")
    path = t.play(t.start("dice-race", "--option", "target=1000"))
    absent = t.status(path)["to_act"]
    other = t.other(absent)
    box = write_mbox(tmp_path / "empty.mbox", [])
    assert t.run(other, "profile", "--source", str(box)).exit_code == 0
    r = t.run(other, "sync", when=at(days=8))
    assert r.exit_code == 5 and f"{absent} is past patience since" in r.output, r.output
    assert "; not reminded (" in r.output
    assert t.run(other, "sync", "--no-remind", when=at(days=8)).exit_code == 0


def test_sync_says_when_a_source_could_not_be_read(homes: dict[str, Home],
                                                  tmp_path: Path) -> None:
    """With its only source unreadable, sync cannot know whether a game waits: it never
    says none does."""
    gone = tmp_path / "gone.mbox"
    write_mbox(gone, [])
    assert run(homes["ann"], "profile", "--source", str(gone)).exit_code == 0
    gone.unlink()
    result = run(homes["ann"], "sync")
    assert "No game is waiting for you" not in result.output, result.output
    assert f"Could not read {gone}: no game this home knows of is waiting for you, but " \
        "mail there may hold one." in result.output
    data = json.loads(run(homes["ann"], "sync", "--json").output)
    assert data["inbox"]["unread_sources"] == [str(gone)]
    # With a game waiting, the list is given and the source named.
    hops, me = mid_game(homes, tmp_path, str(gone))
    result = run(homes[me], "sync")
    assert "Waiting for you (1)" in result.output
    assert f"(Could not read {gone}: a game whose move arrived there may be missing from " \
        "this list.)" in result.output, result.output


def test_sync_names_a_game_by_its_short_id(homes: dict[str, Home], tmp_path: Path) -> None:
    hops, me = mid_game(homes, tmp_path)
    result = run(homes[me], "sync")
    short = hops[-1].save.game_id[:8]
    assert f"run: pbem play {short} MOVE ..." in result.output, result.output
    assert "YOUR MOVE (play)" in result.output  # roll or pass: a choice
    assert run(homes[me], "play", short, "pass").exit_code == 0  # the id names the save


class DeckWorkTurn(FakeTurn):
    """A turn owed in a game with a mental deck whose only content is the deck work: no
    move, and it may end at once."""

    def __init__(self) -> None:
        super().__init__({}, {""})
        self.state = {"secret": {"hands": {"mode": "mental"}}}  # type: ignore[assignment]

    def options(self, state: Any) -> list[str]:
        return []

    def unfinished(self, state: Any) -> str | None:
        return None


@pytest.mark.parametrize(("turn", "words", "command"), [
    (DeckWorkTurn(), "YOUR ENTRY (play; nothing to decide: deck work only)", ""),
    (FakeTurn({"": ["pass"]}, {"pass"}), "YOUR ENTRY (play; nothing to decide: forced: pass)",
     " pass"),
])
def test_an_entry_with_nothing_to_decide_is_told_as_what_it_is(
        homes: dict[str, Home], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        turn: FakeTurn, words: str, command: str) -> None:
    """An entry holding no decision is not announced as 'YOUR MOVE (play) ... MOVE ...':
    sync says what it is and gives the command that signs it whole."""
    hops, me = mid_game(homes, tmp_path)
    monkeypatch.setattr(answer.session, "owed", lambda home, path: turn)
    assert run(homes[me], "profile", "--auto-answer", "off").exit_code == 0  # else signed
    result = run(homes[me], "sync")
    short = hops[-1].save.game_id[:8]
    assert words in result.output and "YOUR MOVE" not in result.output, result.output
    assert f"run: pbem play {short}{command}\n" in result.output
    assert f"you to play ({words.split('; ')[1]}" in result.output


def test_a_forced_entry_of_a_secret_deck_game_is_told_as_what_it_is(
        homes: dict[str, Home], tmp_path: Path) -> None:
    """The real engine: in a secret draft, a seat with no hand it can read yet owes an
    entry whose only move is 'wait' (and its deck work). sync says so, and the command it
    gives signs it."""
    folder = tmp_path / "saves"
    folder.mkdir()
    seats = [f"{h}={h}@example.org" for h in ("ann", "bob", "cy")]
    written = session.new_game(homes["ann"], "secret-draft", seats, [], None, folder=folder)
    hops = [Hop(written, mail.compose(written.path, homes["ann"]))]
    while written.entry["seq"] < 3:
        written = sign_duty(homes, written, "greedy")
        hops.append(Hop(written, mail.compose(written.path, homes[written.entry["seat"]])))
    me = hops[-1].actor
    assert answer.nothing_to_decide(homes[me], written.path) == ("forced: wait", ["wait"])
    box = write_mbox(tmp_path / "m.mbox", [h.msg for h in hops])
    assert run(homes[me], "profile", "--source", str(box)).exit_code == 0
    assert run(homes[me], "profile", "--auto-answer", "off").exit_code == 0  # else signed
    result = run(homes[me], "sync")
    short = written.save.game_id[:8]
    assert "YOUR ENTRY (play; nothing to decide: forced: wait)" in result.output, result.output
    assert f"run: pbem play {short} wait\n" in result.output
    assert "you to play (nothing to decide: forced: wait)" in result.output
    [waiting] = json.loads(run(homes[me], "sync", "--json").output)["waiting"]
    assert waiting["no_decision"] == "forced: wait"
    # On (the default once switched back), sync signs it by itself: that 'wait' holds no
    # decision.
    assert run(homes[me], "profile", "--auto-answer", "on").exit_code == 0
    answered = run(homes[me], "sync")
    assert "entry 4 answered itself (turn: wait)" in answered.output, answered.output
