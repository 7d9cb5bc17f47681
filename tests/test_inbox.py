"""Reading mail (pbem.inbox): real mbox files and Maildir folders written with the standard
library's ``mailbox``, .eml files, re-encoded attachments, and every kind of bad input,
each of which must become one clear line of the report and never an exception."""

from __future__ import annotations

import copy
import json
import mailbox
import quopri
from email.message import EmailMessage
from pathlib import Path

import pytest

from pbem import session
from pbem.mail import inbox
from pbem.mail import message as mail
from pbem.protocol import savefile
from pbem.protocol.identity import Home
from tests.enginekit import forge

EMAILS = {"ann": "ann@example.org", "bob": "bob@example.org", "cy": "cy@example.org"}


class Hop:
    """One signed save and the message its signer mailed with it."""

    def __init__(self, written: session.Written, msg: EmailMessage) -> None:
        self.path = written.path
        self.save = written.save
        self.table = written.table
        self.signer = written.entry["seat"]
        self.seq = written.entry["seq"]
        self.msg = msg

    @property
    def actor(self) -> str:
        duty = self.table.duty()
        return self.table.seats[duty.seat].handle if duty else ""


def play_and_mail(homes: dict[str, Home], folder: Path, stop_after: int | None = None,
                  handles: tuple[str, ...] = ("ann", "bob", "cy"),
                  options: tuple[str, ...] = ("target=100",)) -> list[Hop]:
    """Play dice-race hand to hand; each signer mails its save right after signing.

    The race is to 100 points, so no game of these tests ends early whatever the dice
    (a race to 12 could end within ten hops: the tests would then flake)."""
    folder.mkdir(parents=True, exist_ok=True)
    seats = [f"{h}={EMAILS.get(h, h + '@example.org')}" for h in handles]
    host = homes[handles[0]]
    written = session.new_game(host, "dice-race", seats, list(options), None, folder=folder)
    hops = [Hop(written, mail.compose(written.path, host))]
    while written.table.duty() is not None and (stop_after is None or len(hops) < stop_after):
        duty = written.table.duty()
        assert duty is not None
        handle = written.table.seats[duty.seat].handle
        written = session.sign_next(homes[handle], written.path,
                                    "join" if duty.kind == "join" else None, [],
                                    "random:3" if duty.kind == "turn" else None, None)
        hops.append(Hop(written, mail.compose(written.path, homes[handle])))
    return hops


def write_mbox(path: Path, messages: list[EmailMessage]) -> Path:
    box = mailbox.mbox(str(path))
    for msg in messages:
        box.add(msg.as_bytes())
    box.flush()
    box.close()
    return path


def write_maildir(path: Path, messages: list[EmailMessage]) -> Path:
    box = mailbox.Maildir(str(path), create=True)
    for msg in messages:
        box.add(msg.as_bytes())
    return path


def message_with(data: bytes, *, filename: str = "save.toml", maintype: str = "application",
                 subtype: str = "toml", subject: str = "[pbem] a save",
                 sender: str = "mallory@example.net") -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = EMAILS["bob"]
    msg["Subject"] = subject
    msg["Date"] = "Mon, 02 Jun 2025 10:00:00 +0000"
    msg.set_content("here it is")
    msg.add_attachment(data, maintype=maintype, subtype=subtype, filename=filename)
    return msg


def codes(report: inbox.InboxReport) -> list[str]:
    return [p.code for p in report.problems]


@pytest.fixture
def game(homes: dict[str, Home], tmp_path: Path) -> list[Hop]:
    """Ten hops of a three-player game; the last one waits for someone who has not seen it."""
    return play_and_mail(homes, tmp_path / "saves", stop_after=10)


def reader(homes: dict[str, Home], hops: list[Hop]) -> tuple[str, Home]:
    actor = hops[-1].actor
    return actor, homes[actor]


# ---- the three kinds of source -------------------------------------------------------------
def check_newest_filed(report: inbox.InboxReport, hops: list[Hop], me: str, home: Home) -> None:
    assert report.problems == [] or all(p.level == "note" for p in report.problems), report.text()
    [summary] = report.games
    last = hops[-1]
    assert (summary.game_id, summary.seq, summary.signer) == (last.save.game_id, last.seq,
                                                              last.signer)
    assert summary.your_move and summary.to_act == me and summary.next == "turn"
    assert summary.older == len(hops) - 1
    filed = Path(summary.filed)
    assert filed.parent == home.path / "inbox"
    assert filed.name == savefile.default_name("dice-race", last.save.game_id, last.seq,
                                               last.signer)
    assert savefile.read(filed).entries == last.save.entries
    assert summary.command == f"pbem play {filed} MOVE ..."
    # The filed copy is a save this player can play on.
    session.sign_next(home, filed, None, ["roll"], None, str(home.path / "next.toml"))


def test_mbox_whole_game_history(homes: dict[str, Home], game: list[Hop], tmp_path: Path) -> None:
    me, home = reader(homes, game)
    box = write_mbox(tmp_path / "mail.mbox", [h.msg for h in game])
    report = inbox.scan([box], home)
    assert report.messages == len(game) and report.saves == len(game)
    check_newest_filed(report, game, me, home)
    assert report.exit_code() == 0
    assert "YOUR MOVE (play)" in report.text()


def test_maildir(homes: dict[str, Home], game: list[Hop], tmp_path: Path) -> None:
    me, home = reader(homes, game)
    folder = write_maildir(tmp_path / "Maildir", [h.msg for h in reversed(game)])
    report = inbox.scan([folder], home)
    assert report.messages == len(game)
    check_newest_filed(report, game, me, home)


def test_eml_files_and_a_folder_of_them(homes: dict[str, Home], game: list[Hop],
                                        tmp_path: Path) -> None:
    me, home = reader(homes, game)
    folder = tmp_path / "emls"
    folder.mkdir()
    for hop in game:
        mail.write_eml(hop.msg, folder / mail.eml_name(hop.path.name))
    single = inbox.scan([folder / mail.eml_name(game[-1].path.name)], home, file_saves=False)
    assert single.messages == 1 and single.games[0].seq == game[-1].seq
    assert single.games[0].filed == ""
    report = inbox.scan([folder], home)
    check_newest_filed(report, game, me, home)


def test_bare_save_file_is_read_too(homes: dict[str, Home], game: list[Hop]) -> None:
    me, home = reader(homes, game)
    report = inbox.scan([game[-1].path], home)
    assert report.games[0].your_move and report.games[0].seq == game[-1].seq


def test_several_sources_and_duplicates(homes: dict[str, Home], game: list[Hop],
                                        tmp_path: Path) -> None:
    me, home = reader(homes, game)
    a = write_mbox(tmp_path / "a.mbox", [h.msg for h in game[:6]])
    b = write_mbox(tmp_path / "b.mbox", [h.msg for h in game[4:]] + [game[-1].msg])
    report = inbox.scan([a, b], home)
    assert report.sources == [str(a), str(b)]
    assert report.saves == len(game) + 3 and report.duplicates == 3
    assert report.verified == len(game)
    check_newest_filed(report, game, me, home)


# ---- tolerated re-encodings -----------------------------------------------------------------
def qp_crlf_message(data: bytes, filename: str) -> bytes:
    """A hand-built message as a mail client might re-encode it: attachment as
    quoted-printable text/plain, CRLF lines, a BOM, a new name."""
    body = quopri.encodestring(b"\xef\xbb\xbf" + data.replace(b"\n", b"\r\n"))
    return (b"From: Bob <bob@example.org>\r\nTo: ann@example.org\r\nSubject: Re: my move\r\n"
            b"MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"XYZ\"\r\n\r\n"
            b"--XYZ\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nsee attached\r\n"
            b"--XYZ\r\nContent-Type: text/plain; charset=utf-8\r\n"
            b"Content-Transfer-Encoding: quoted-printable\r\n"
            b"Content-Disposition: attachment; filename=\"" + filename.encode() + b"\"\r\n\r\n"
            + body + b"\r\n--XYZ--\r\n")


def test_quoted_printable_crlf_renamed_attachment_still_verifies(
        homes: dict[str, Home], game: list[Hop], tmp_path: Path) -> None:
    me, home = reader(homes, game)
    raw = qp_crlf_message(game[-1].path.read_bytes(), "my move.txt")
    assert b"=0D" not in raw and b"\r\n[header]\r\n" in raw  # really CRLF on the wire
    eml = tmp_path / "reencoded.eml"
    eml.write_bytes(raw)
    report = inbox.scan([eml], home)
    assert report.problems == []
    [summary] = report.games
    assert summary.origin.attachment == "my move.txt"
    assert summary.seq == game[-1].seq and summary.your_move
    assert savefile.read(summary.filed).entries == game[-1].save.entries


def test_octet_stream_and_inline_body_saves(homes: dict[str, Home], game: list[Hop],
                                            tmp_path: Path) -> None:
    me, home = reader(homes, game)
    data = game[-1].path.read_bytes()
    octet = message_with(data, filename="attachment.bin", maintype="application",
                         subtype="octet-stream")
    inline = EmailMessage()
    inline["From"], inline["Subject"] = "bob@example.org", "pasted"
    inline.set_content(data.decode("utf-8"))  # the whole save pasted as the body
    box = write_mbox(tmp_path / "m.mbox", [octet, inline])
    report = inbox.scan([box], home)
    assert report.saves == 2 and report.duplicates == 1
    assert report.games[0].seq == game[-1].seq


# ---- problems ------------------------------------------------------------------------------
def test_tampered_save_is_an_error_line(homes: dict[str, Home], game: list[Hop],
                                        tmp_path: Path) -> None:
    me, home = reader(homes, game)
    save = copy.deepcopy(game[-1].save)
    turn = next(e for e in reversed(save.entries) if e["kind"] == "turn")
    turn["moves"] = ["pass"] if turn["moves"] != ["pass"] else ["roll"]
    box = write_mbox(tmp_path / "m.mbox", [message_with(savefile.dumps(save).encode(),
                                                        subject="totally honest")])
    report = inbox.scan([box], home)
    [problem] = report.problems
    assert problem.code == "tampered" and problem.level == "error"
    assert f"Entry {turn['seq']}" in problem.message
    assert problem.origin is not None and problem.origin.sender == "mallory@example.net"
    assert problem.origin.subject == "totally honest" and problem.origin.where == "message 1"
    assert report.games == [] and report.exit_code() == 3
    assert "ERROR tampered" in report.text()


def test_fork_names_both_messages(homes: dict[str, Home], tmp_path: Path) -> None:
    hops = play_and_mail(homes, tmp_path / "saves", stop_after=7)
    base = hops[-1]
    actor = homes[base.actor]
    table = session.load(base.path, actor).table
    first = session.sign_next(actor, base.path, None, ["roll"], None, str(tmp_path / "a.toml"))
    entry, new_table = session.engine.sign_entry(table, actor.load(), "turn", ["pass"])
    other = session.appended(savefile.read(base.path), entry, new_table)
    viewer_name = next(h for h in homes if h != base.actor)
    box = write_mbox(tmp_path / "m.mbox", [
        message_with(first.path.read_bytes(), subject="my move (to you)"),
        message_with(savefile.dumps(other).encode(), subject="my move (to the other)"),
    ])
    report = inbox.scan([box], homes[viewer_name])
    [fork] = [p for p in report.problems if p.code == "fork"]
    assert fork.origin is not None and fork.origin.subject == "my move (to the other)"
    assert "my move (to you)" in fork.message
    [summary] = report.games
    assert summary.fork and fork in summary.problems
    assert report.exit_code() == 3


def test_stale_save_when_the_home_has_played_on(homes: dict[str, Home], game: list[Hop],
                                                tmp_path: Path) -> None:
    me, home = reader(homes, game)
    session.sign_next(home, game[-1].path, None, ["pass"], None, str(tmp_path / "mine.toml"))
    box = write_mbox(tmp_path / "m.mbox", [h.msg for h in game])
    report = inbox.scan([box], home)
    [summary] = report.games
    assert summary.stale and summary.head_seq == game[-1].seq + 1
    assert summary.filed == "" and not summary.your_move and summary.command == ""
    assert codes(report) == ["stale"] and report.problems[0].level == "note"
    assert report.exit_code() == 0


def test_rescan_is_quiet_and_never_overwrites(homes: dict[str, Home], game: list[Hop],
                                              tmp_path: Path) -> None:
    me, home = reader(homes, game)
    box = write_mbox(tmp_path / "m.mbox", [h.msg for h in game])
    first = inbox.scan([box], home)
    second = inbox.scan([box], home)
    assert second.problems == [] and second.notices == []
    assert second.games[0].filed == first.games[0].filed
    assert second.games[0].filed_how == "already there" and second.games[0].your_move
    # A different file under the filed name is left alone.
    Path(first.games[0].filed).write_text("not a save", "utf-8")
    third = inbox.scan([box], home)
    assert codes(third) == ["filing"] and third.games[0].filed == ""
    assert Path(first.games[0].filed).read_text("utf-8") == "not a save"


def test_unknown_game(homes: dict[str, Home], game: list[Hop], tmp_path: Path) -> None:
    me, home = reader(homes, game)
    text = game[-1].path.read_text("utf-8").replace('game = "dice-race"', 'game = "chess-960"')
    box = write_mbox(tmp_path / "m.mbox", [message_with(text.encode())])
    report = inbox.scan([box], home)
    assert codes(report) == ["unknown-game"]
    assert "'chess-960'" in report.problems[0].message and "dice-race" in report.problems[0].message


def test_game_this_home_does_not_sit_in(homes: dict[str, Home], game: list[Hop],
                                        tmp_path: Path) -> None:
    dee = Home(tmp_path / "homes" / "dee")
    dee.keygen("dee")
    other_ann = Home(tmp_path / "homes" / "ann2")
    other_ann.keygen("ann")
    box = write_mbox(tmp_path / "m.mbox", [game[-1].msg])
    report = inbox.scan([box], dee)
    assert codes(report) == ["not-seated"] and "you (dee) have no seat" in report.problems[0].message
    report = inbox.scan([box], other_ann)
    assert codes(report) == ["not-seated"] and "another key" in report.problems[0].message
    assert not (dee.path / "archive").exists()  # nothing verified or filed for strangers


def test_malformed_and_truncated_saves(homes: dict[str, Home], game: list[Hop],
                                       tmp_path: Path) -> None:
    me, home = reader(homes, game)
    data = game[-1].path.read_bytes()
    truncated = data[: len(data) // 2]
    wrong_type = data.replace(b"rules_version = 1", b'rules_version = "1"')
    box = write_mbox(tmp_path / "m.mbox", [message_with(truncated, subject="cut"),
                                           message_with(wrong_type, subject="typed")])
    report = inbox.scan([box], home)
    assert codes(report) == ["malformed", "malformed"]
    assert [p.origin.subject for p in report.problems if p.origin] == ["cut", "typed"]
    assert "rules_version" in report.problems[1].message


def test_mailbox_without_saves_and_missing_paths(homes: dict[str, Home], tmp_path: Path) -> None:
    plain = EmailMessage()
    plain["From"], plain["Subject"] = "aunt@example.com", "lunch?"
    plain.set_content("sunday")
    box = write_mbox(tmp_path / "m.mbox", [plain, plain])
    junk = tmp_path / "junk.bin"
    junk.write_bytes(bytes(range(256)) * 10)
    report = inbox.scan([box, tmp_path / "nowhere", junk], homes["bob"])
    assert codes(report) == ["no-saves", "not-found", "no-saves"]
    assert "2 message(s) read" in report.problems[0].message
    assert report.games == [] and report.exit_code() == 0
    assert "No pbem saves found" not in report.text()  # the problems say it instead


def test_pbem_message_without_its_attachment(homes: dict[str, Home], game: list[Hop],
                                             tmp_path: Path) -> None:
    me, home = reader(homes, game)
    stripped = copy.deepcopy(game[-1].msg)
    stripped.clear_content()
    stripped.set_content("[attachment removed by the mail server]")
    box = write_mbox(tmp_path / "m.mbox", [stripped])
    report = inbox.scan([box], home)
    assert codes(report) == ["missing-save"]
    assert f"entry {game[-1].seq}" in report.problems[0].message


def test_broken_mime(homes: dict[str, Home], game: list[Hop], tmp_path: Path) -> None:
    me, home = reader(homes, game)
    raw = game[-1].msg.as_bytes()
    # Cut the message inside the attachment: the closing boundaries and half the base64 go.
    cut = raw[: raw.index(b"Content-Type: application/toml") + 300]
    eml = tmp_path / "cut.eml"
    eml.write_bytes(cut)
    report = inbox.scan([eml], home)
    assert codes(report) == ["broken-mime"]
    assert "damaged" in report.problems[0].message
    garbage = tmp_path / "garbage.eml"
    garbage.write_bytes(b"Subject: [pbem] x\nContent-Type: multipart/mixed; boundary=\"q\"\n\n"
                        b"--q\nContent-Type: application/toml\nContent-Transfer-Encoding: base64"
                        b"\n\n!!!not base64 at all pbem!!!\n")
    report = inbox.scan([garbage], home)
    assert codes(report) == ["broken-mime"]


def test_huge_attachment_is_capped(homes: dict[str, Home], game: list[Hop],
                                   tmp_path: Path) -> None:
    me, home = reader(homes, game)
    data = game[-1].path.read_bytes()
    padding = b"# padding\n" * (mail.MAX_ATTACHMENT_BYTES // 10 + 1)
    huge = data + padding  # over 8 MiB, still a save at the front
    box = write_mbox(tmp_path / "m.mbox", [message_with(huge, filename="big.toml"),
                                           game[-1].msg])
    report = inbox.scan([box], home)
    assert codes(report) == ["too-large"]
    assert "8.0 MiB" in report.problems[0].message
    assert report.problems[0].origin.attachment == "big.toml"  # type: ignore[union-attr]
    assert report.games[0].seq == game[-1].seq  # the normal message still counts
    small = inbox.scan([game[-1].path], home, max_bytes=100)
    assert codes(small) == ["too-large"]


def test_report_json_and_text(homes: dict[str, Home], game: list[Hop], tmp_path: Path) -> None:
    me, home = reader(homes, game)
    box = write_mbox(tmp_path / "m.mbox", [h.msg for h in game])
    report = inbox.scan([box], home)
    data = json.loads(json.dumps(report.to_json()))
    assert set(data) >= {"home", "handle", "sources", "messages", "saves", "duplicates",
                         "verified", "max_bytes", "your_move", "games", "problems", "notices"}
    [g] = data["games"]
    assert set(g) >= {"game", "title", "id", "seq", "signer", "origin", "filed", "to_act",
                      "next", "your_move", "over", "command", "older", "stale", "fork",
                      "problems"}
    assert data["your_move"] == [game[-1].save.game_id]
    assert g["origin"]["subject"] == str(game[-1].msg["Subject"])
    text = report.text()
    assert f"Dice Race {game[-1].save.game_id[:8]}: entry {game[-1].seq} by {game[-1].signer}" in text
    assert f"run: pbem play {g['filed']} MOVE ..." in text


def test_waiting_for_someone_else(homes: dict[str, Home], game: list[Hop], tmp_path: Path) -> None:
    bystander = next(h for h in homes if h not in (game[-1].actor, game[-1].signer))
    box = write_mbox(tmp_path / "m.mbox", [h.msg for h in game])
    report = inbox.scan([box], homes[bystander])
    [summary] = report.games
    assert not summary.your_move and summary.to_act == game[-1].actor and summary.command == ""
    assert f"waiting for {game[-1].actor} (play)" in report.text()


def test_scan_reports_new_players_once(homes: dict[str, Home], game: list[Hop],
                                       tmp_path: Path) -> None:
    me, home = reader(homes, game)
    (home.path / "contacts.toml").unlink()  # signing learnt the players; start afresh
    box = write_mbox(tmp_path / "m.mbox", [h.msg for h in game])
    report = inbox.scan([box], home)
    new = sorted(n.handle for n in report.notices if n.code == "new-player")
    assert new == sorted(h for h in homes if h != me)
    assert inbox.scan([box], home).notices == []


def test_forged_signer_key_is_tampering(homes: dict[str, Home], game: list[Hop],
                                        tmp_path: Path) -> None:
    """An entry re-signed by another player's key is caught, not filed."""
    me, home = reader(homes, game)
    save = copy.deepcopy(game[-1].save)
    last = save.entries[-1]
    forger = next(h for h in homes if h != last["seat"])
    save.entries[-1] = forge(last, homes[forger].load())
    box = write_mbox(tmp_path / "m.mbox", [message_with(savefile.dumps(save).encode())])
    report = inbox.scan([box], home)
    assert codes(report) == ["tampered"] and "signed with" in report.problems[0].message
    assert not (home.path / "inbox").exists()


def test_tampered_newest_falls_back_to_the_newest_good_save(
        homes: dict[str, Home], game: list[Hop], tmp_path: Path) -> None:
    """Old saves whose entries this home already verified are not replayed again; if the
    newest save then fails, the newest good one is checked in full and summarised."""
    me, home = reader(homes, game)
    mine = max(h.seq for h in game if h.signer == me)
    older = [h for h in game if h.seq < mine]
    save = copy.deepcopy(game[-1].save)
    save.entries[-1]["moves"] = ["pass"] if save.entries[-1]["moves"] != ["pass"] else ["roll"]
    box = write_mbox(tmp_path / "m.mbox", [h.msg for h in older]
                     + [message_with(savefile.dumps(save).encode())])
    report = inbox.scan([box], home)
    assert codes(report) == ["tampered", "stale"]
    [summary] = report.games
    assert summary.seq == older[-1].seq and summary.older == len(older) - 1
    assert summary.stale and summary.head_seq == mine
    assert report.verified == len(older)


def test_invitation_is_your_move_to_join(homes: dict[str, Home], tmp_path: Path) -> None:
    [created] = play_and_mail(homes, tmp_path / "saves", stop_after=1)
    box = write_mbox(tmp_path / "m.mbox", [created.msg])
    report = inbox.scan([box], homes["bob"])
    [summary] = report.games
    assert summary.your_move and summary.next == "join" and summary.to_act == "bob"
    assert summary.command == f"pbem join {summary.filed}"
    assert "YOUR MOVE (join)" in report.text()
    session.sign_next(homes["bob"], summary.filed, "join", [], None, str(tmp_path / "j.toml"))


def test_encoded_subject_and_sender_are_decoded(homes: dict[str, Home], game: list[Hop],
                                                tmp_path: Path) -> None:
    me, home = reader(homes, game)
    msg = message_with(b"[header]\nformat = \"pbem/1\"\n", subject="Ton coup, Zoë – partie n°3",
                       sender="Zoë Dupré <zoe@example.fr>")
    assert "=?utf-8?" in msg.as_string()  # really encoded on the wire
    report = inbox.scan([write_mbox(tmp_path / "m.mbox", [msg])], home)
    [problem] = report.problems
    assert problem.code == "malformed" and problem.origin is not None
    assert problem.origin.subject == "Ton coup, Zoë – partie n°3"
    assert problem.origin.sender == "Zoë Dupré <zoe@example.fr>"


def test_validly_signed_illegal_move_is_a_rules_error(homes: dict[str, Home], game: list[Hop],
                                                      tmp_path: Path) -> None:
    """A cheater's own client signs a turn the rules forbid (acting twice)."""
    me, home = reader(homes, game)
    save = copy.deepcopy(game[-1].save)
    last = save.entries[-1]
    assert last["kind"] == "turn"
    last["moves"] = ["roll", "roll"]
    save.entries[-1] = forge(last, homes[last["seat"]].load())
    box = write_mbox(tmp_path / "m.mbox", [message_with(savefile.dumps(save).encode())])
    report = inbox.scan([box], home)
    assert codes(report) == ["rules"] and report.problems[0].seq == last["seq"]
    assert "breaks the rules" in report.problems[0].message
    assert "already acted" in report.problems[0].message
    assert report.exit_code() == 3
