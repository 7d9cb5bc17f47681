"""A game's mails as one conversation (one subject; Message-IDs every home computes, so
each mail names its parent), words that fit the reader (a bystander has nothing to do,
the player proposed absent is "you"), and the mark that keeps autoresponders quiet."""

from __future__ import annotations

import email
import re
from pathlib import Path

import pytest

from pbem import session
from pbem.mail import message as mail
from pbem.protocol.crypto.identity import Home
from pbem.protocol.replay import engine
from pbem.protocol.saveformat import savefile
from tests.support.duty import sign_duty
from tests.test_game_clock import Players, at, two_player_proposal
from tests.test_mail import EMAILS, plain

MSGID = re.compile(r"<pbem\.[0-9a-f]{32}\.\d+\.[0-9a-f]{8}@pbem\.invalid>")


def test_each_mail_replies_to_the_mail_of_the_entry_before(homes: dict[str, Home],
                                                            tmp_path: Path) -> None:
    """Every copy of one entry's mail has the id computed from the game, the seq and the
    entry's hash; In-Reply-To is the previous entry's, References the first mail's and
    the parent's; a recipient's home computes the same ids from the save alone."""
    folder = tmp_path / "saves"
    folder.mkdir()
    seats = [f"{h}={EMAILS[h]}" for h in homes]
    written = session.new_game(homes["ann"], "dice-race", seats, ["target=1000000"], None,
                               folder=folder)
    sent: list[list[email.message.EmailMessage]] = []
    while len(sent) < 8:
        sent.append(mail.compose_each(written.path, homes[written.entry["seat"]]))
        written = sign_duty(homes, written, "random:3")
    ids = []
    for seq, copies in enumerate(sent):
        assert len({str(m["Message-ID"]) for m in copies}) == 1
        ids.append(str(copies[0]["Message-ID"]))
        assert MSGID.fullmatch(ids[-1]) and f".{seq}." in ids[-1]
    assert len(set(ids)) == len(ids)
    assert sent[0][0]["In-Reply-To"] is None and sent[0][0]["References"] is None
    assert sent[1][0]["In-Reply-To"] == ids[0] and sent[1][0]["References"] == ids[0]
    for seq in range(2, len(sent)):
        for copy in sent[seq]:
            assert copy["In-Reply-To"] == ids[seq - 1]
            assert str(copy["References"]).split() == [ids[0], ids[seq - 1]]
    save = savefile.read(written.path)
    assert [mail.entry_msgid(save.game_id, e) for e in save.entries[:8]] == ids
    assert ids[3].split("@")[0].split(".")[-1] == engine.entry_hash(save.entries[3])[:8]


def test_a_reminder_replies_to_its_entry_and_is_marked_automatic(
        homes: dict[str, Home], tmp_path: Path) -> None:
    """A reminder has an id of its own (a server drops a second mail with an id it has
    seen), replies to the mail it reminds of, and carries Auto-Submitted so no
    autoresponder answers it; a mail a player sends by hand does not."""
    from tests.test_mail import play

    last = play(homes, tmp_path / "s", stop_after=5)[-1]
    signer = homes[last.entry["seat"]]
    turn = mail.compose(last.path, signer)
    reminder = mail.compose(last.path, signer, remind=True)
    assert reminder["Message-ID"] != turn["Message-ID"]
    assert reminder["In-Reply-To"] == turn["Message-ID"]
    assert turn["Message-ID"] in str(reminder["References"]).split()
    assert reminder["Auto-Submitted"] == "auto-generated"
    assert reminder["X-Auto-Response-Suppress"] == "OOF, AutoReply"  # bounces still come
    assert turn["Auto-Submitted"] is None and turn["X-Auto-Response-Suppress"] is None
    for copy in mail.compose_each(last.path, signer, automatic=True):
        assert copy["Auto-Submitted"] == "auto-generated"


def test_a_bystander_is_told_it_has_nothing_to_do(homes: dict[str, Home],
                                                   tmp_path: Path) -> None:
    """The copy for a seat that does not act names who does and asks nothing of it: no
    'save the attached ... and run pbem play'."""
    from tests.test_mail import play

    last = play(homes, tmp_path / "s", stop_after=6)[-1]
    duty = last.table.duty()
    assert duty is not None and duty.kind == "turn"
    actor = last.table.seats[duty.seat].handle
    copies = {str(m["To"]).split(" <")[0]: plain(m)
              for m in mail.compose_each(last.path, homes[last.entry["seat"]])}
    assert len(copies) == 2
    bystander = next(h for h in copies if h != actor)
    assert "pbem play" not in copies[bystander]
    assert "save the attached" not in copies[bystander]
    assert (f"{actor} is to play next. There is nothing for you to do now; the attached "
            f"{last.path.name} is the newest save of the game") in copies[bystander]
    assert f"It is your move, {actor}: save the attached" in copies[actor]


def test_the_player_proposed_absent_is_spoken_to_as_you(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Clause 11 (absence): the mail to the player proposed absent says 'you', the mail
    to anyone else names them. (Composed at the proposal's time: before it, the proposal
    is not yet in effect for the proposer's home.)"""
    monkeypatch.setenv("PBEM_CLOCK", at(days=7))
    t = Players(tmp_path, "ann", "bob")
    _, proposal, absent, proposer = two_player_proposal(t)
    home = t.home(proposer)
    to_absent = plain(mail.compose(proposal, home, to=[f"{absent}@example.org"],
                                   now=mail.parse_stamp(at(days=7))))
    assert f"that you ({absent}) are absent" in to_absent
    assert "You answer it by playing" in to_absent
    assert f"that {absent} is absent" not in to_absent
    words = mail.absence.lines(session.load(Path(proposal), home).table)
    assert any(f"that {absent} is absent" in w for w in words)


def test_during_a_vote_the_player_proposed_absent_is_told_how_to_answer(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Clause 11 (absence): while a vote is due, the player proposed absent is no
    bystander with nothing to do: its copy says who votes and that it answers by
    playing; the voter's copy says how to vote."""
    t = Players(tmp_path, "ann", "bob", "cy")
    path = t.play(t.start("dice-race", "--option", "target=1000"))
    absent = t.status(path)["to_act"]
    proposer = next(h for h in t.handles if h != absent)
    voter = next(h for h in t.handles if h not in (absent, proposer))
    proposal = t.wrote(proposer, "absent", path, absent, "--remedy", "end", when=at(days=7))
    monkeypatch.setenv("PBEM_CLOCK", at(days=7))  # composed when the proposal is in effect
    for handle in (absent, voter):
        assert t.run(proposer, "contacts", "email", handle, f"{handle}@example.org"
                     ).exit_code == 0
    copies = {str(m["To"]).split(" <")[0]: plain(m)
              for m in mail.compose_each(proposal, t.home(proposer))}
    assert f"pbem vote {Path(proposal).name} accept" in copies[voter]
    words = copies[absent]
    assert f"{voter} votes next on a proposal that a player is absent." in words
    assert "You answer it by playing" in words and "nothing for you to do" not in words
    assert "pbem vote" not in words


def test_remind_dry_run_says_the_game_waits_for_a_join(tmp_path: Path) -> None:
    t = Players(tmp_path, "ann", "bob")
    path = t.wrote("ann", "new", "dice-race", "--seat", "ann", "--seat", "bob",
                   "-o", str(tmp_path / "saves" / "new.toml"))
    r = t.run("ann", "remind", path, "--dry-run", when=at(days=30))
    assert r.exit_code == 0, r.output
    assert "it waits for bob to join, and no patience is counted before the game starts" \
        in r.output
    assert "signed time" not in r.output


def test_game_mails_old_and_new_are_about_pbem_and_a_reply_is_talk(homes: dict[str, Home],
                                                                    tmp_path: Path) -> None:
    """One subject per game invites replies: a player's "Re: [pbem] ..." (no save, no
    X-Pbem header) is talk, not a game mail whose save was stripped; mails pbem wrote,
    under the old subject or the new, still are."""
    from pbem.mail import inbox

    for subject, expected in (("[pbem] Dice Race 1a2b3c4d", True),
                              ("[pbem] Dice Race 1a2b3c4d #5: bob to play", True),
                              ("Re: [pbem] Dice Race 1a2b3c4d", False)):
        msg = email.message.EmailMessage()
        msg["From"], msg["Subject"] = "bob@example.org", subject
        msg.set_content("nice move!")
        assert mail.mentions_pbem(msg) is expected, subject
        eml = tmp_path / "reply.eml"
        eml.write_bytes(bytes(msg))
        problems = inbox.scan([eml], homes["ann"], file_saves=False).problems
        missing = [p for p in problems if p.code == "missing-save"]
        assert len(missing) == (1 if expected else 0), subject


def test_what_sync_mails_on_its_own_is_marked_automatic(homes: dict[str, Home],
                                                         tmp_path: Path) -> None:
    """A save from the outbox, mailed by sync with nobody at the keyboard, carries
    Auto-Submitted through a real SMTP server."""
    import pytest

    pytest.importorskip("aiosmtpd")
    from aiosmtpd.controller import Controller

    from pbem.mail import outbox, sync
    from tests.test_mail import play
    from tests.test_smtp import Sink, free_port

    last = play(homes, tmp_path / "s", stop_after=4)[-1]
    home = homes[last.entry["seat"]]
    outbox.add(home.path, last.path)
    sink, port = Sink(), free_port()
    controller = Controller(sink, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        sent = sync.send_queued(home, {"host": "127.0.0.1", "port": port, "security": "none"})
    finally:
        controller.stop()
    assert [s.sent_to for s in sent] and sent[0].sent_to and sink.received
    for received in sink.received:
        msg = email.message_from_bytes(received["content"])
        assert msg["Auto-Submitted"] == "auto-generated"
        assert msg["In-Reply-To"] == mail.entry_msgid(last.save.game_id, last.save.entries[-2])


def test_remind_dry_run_names_every_seat_still_to_join_a_round(tmp_path: Path) -> None:
    """The joins of three or more are a round: every seat still to join acts now, so the
    game waits for each of them, not only the first."""
    t = Players(tmp_path, "ann", "bob", "cy", "dee")
    path = t.wrote("ann", "new", "dice-race", "--seat", "ann", "--seat", "bob", "--seat", "cy",
                   "--seat", "dee", "-o", str(tmp_path / "saves" / "new.toml"))
    r = t.run("ann", "remind", path, "--dry-run", when=at(days=30))
    assert r.exit_code == 0, r.output
    assert "it waits for bob, cy and dee to join, and no patience" in r.output
    joined = t.wrote("cy", "join", path)
    r = t.run("cy", "remind", joined, "--dry-run", when=at(days=30))
    assert "it waits for bob and dee to join" in r.output, r.output
