"""Reading mail (pbem.inbox): real mbox files and Maildir folders written with the standard
library's ``mailbox``, .eml files, re-encoded attachments, and every kind of bad input,
each of which must become one clear line of the report and never an exception."""

from __future__ import annotations

import base64
import copy
import json
import mailbox
import quopri
import shlex
import shutil
import urllib.parse
from email.message import EmailMessage
from pathlib import Path

import pytest

from pbem import session
from pbem.home.contacts import Contacts
from pbem.mail import inbox
from pbem.mail import message as mail
from pbem.mail.report import InboxReport
from pbem.protocol.crypto.identity import Home
from pbem.protocol.saveformat import savefile
from tests.enginekit import forge
from tests.support.duty import sign_duty

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
                  options: list[str] | None = None) -> list[Hop]:
    """Play dice-race hand to hand; each signer mails its save right after signing.

    A game stopped early has an unreachable target, so that random keys can never end it
    before ``stop_after`` (the dice follow the players' seeds, which differ every run)."""
    folder.mkdir(parents=True, exist_ok=True)
    seats = [f"{h}={EMAILS.get(h, h + '@example.org')}" for h in handles]
    host = homes[handles[0]]
    if options is None:
        options = ["target=1000000"] if stop_after is not None else []
    written = session.new_game(host, "dice-race", seats, options, None, folder=folder)
    hops = [Hop(written, mail.compose(written.path, host))]
    while written.table.duty() is not None and (stop_after is None or len(hops) < stop_after):
        written = sign_duty(homes, written, "random:3")
        hops.append(Hop(written, mail.compose(written.path, homes[written.entry["seat"]])))
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


def codes(report: InboxReport) -> list[str]:
    return [p.code for p in report.problems]


@pytest.fixture
def game(homes: dict[str, Home], tmp_path: Path) -> list[Hop]:
    """Ten hops of a three-player game; the last one waits for someone who has not seen it."""
    return play_and_mail(homes, tmp_path / "saves", stop_after=10)


def reader(homes: dict[str, Home], hops: list[Hop]) -> tuple[str, Home]:
    actor = hops[-1].actor
    return actor, homes[actor]


# ---- the three kinds of source -------------------------------------------------------------
def check_newest_filed(report: InboxReport, hops: list[Hop], me: str, home: Home) -> None:
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
    assert summary.command == f"pbem play {last.save.game_id[:8]} MOVE ..."  # its short id
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
        mail.write_eml(hop.msg, folder / f"{hop.path.stem}.eml")
    single = inbox.scan([folder / f"{game[-1].path.stem}.eml"], home, file_saves=False)
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


def fork_mails(homes: dict[str, Home], base: Hop, tmp_path: Path) -> list[EmailMessage]:
    """Two mails of the next entry after ``base``, signed twice by its actor: a fork."""
    actor = homes[base.actor]
    table = session.load(base.path, actor).table
    first = session.sign_next(actor, base.path, None, ["roll"], None, str(tmp_path / "a.toml"))
    entry, new_table = session.signing.sign_entry(table, actor.load(), "turn", ["pass"])
    other = session.appended(savefile.read(base.path), entry, new_table)
    return [message_with(first.path.read_bytes(), subject="my move (to you)"),
            message_with(savefile.dumps(other).encode(), subject="my move (to the other)")]


def test_fork_names_both_messages(homes: dict[str, Home], tmp_path: Path) -> None:
    hops = play_and_mail(homes, tmp_path / "saves", stop_after=7)
    base = hops[-1]
    viewer_name = next(h for h in homes if h != base.actor)
    box = write_mbox(tmp_path / "m.mbox", fork_mails(homes, base, tmp_path))
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
    second = inbox.scan([box], home, read_all=True)  # --all: read again, not only new mail
    assert second.problems == [] and second.notices == []
    assert second.games[0].filed == first.games[0].filed
    assert second.games[0].filed_how == "already there" and second.games[0].your_move
    # A different file under the filed name is left alone.
    Path(first.games[0].filed).write_text("not a save", "utf-8")
    third = inbox.scan([box], home, read_all=True)
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
    assert f"run: pbem play {g['id'][:8]} MOVE ..." in text  # the short id names it


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
    assert summary.command == f"pbem join {summary.game_id[:8]}"
    assert "YOUR MOVE (join)" in report.text()
    session.sign_next(homes["bob"], summary.filed, "join", [], None, str(tmp_path / "j.toml"))


def test_encoded_subject_and_sender_are_decoded(homes: dict[str, Home], game: list[Hop],
                                                tmp_path: Path) -> None:
    me, home = reader(homes, game)
    msg = message_with(b"[header]\nformat = \"pbem/2\"\n", subject="Ton coup, Zoë – partie n°3",
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


# ---- attacks (issue 8) ---------------------------------------------------------------------
def raw_message(subject: bytes, parts: bytes, sender: bytes = b"mallory@example.net") -> bytes:
    return (b"From: " + sender + b"\nTo: bob@example.org\nSubject: " + subject
            + b"\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"q\"\n\n"
            + parts + b"--q--\n")


def toml_part(data: bytes, disposition: bytes = b"attachment; filename=\"a.toml\"") -> bytes:
    return (b"--q\nContent-Type: application/toml\nContent-Disposition: " + disposition
            + b"\nContent-Transfer-Encoding: base64\n\n" + base64.encodebytes(data) + b"\n")


def test_one_bad_attachment_never_stops_the_scan(homes: dict[str, Home], tmp_path: Path) -> None:
    """Each hostile message is a problem of that message; the good save after them is
    still found, verified and filed."""
    hops = play_and_mail(homes, tmp_path / "saves", stop_after=6)
    me, home = reader(homes, hops)
    good = hops[-1].path.read_bytes()
    deep_toml = b"[header]\nformat = \"pbem/2\"\nx = " + b"[" * 5000 + b"]" * 5000 + b"\n"
    nested = b"Subject: [pbem] nested\nMIME-Version: 1.0\nContent-Type: multipart/mixed; " \
             b"boundary=\"b0\"\n\n"
    for i in range(3000):
        nested += b"--b%d\nContent-Type: multipart/mixed; boundary=\"b%d\"\n\n" % (i, i + 1)
    nested += b"--b3000\nContent-Type: application/toml\n\n" + good + b"\n"
    b64 = base64.encodebytes(good)
    truncated = raw_message(b"[pbem] cut", b"--q\nContent-Type: application/toml\n"
                            b"Content-Transfer-Encoding: base64\n\n" + b64[: len(b64) // 2 - 3])
    bad_name = raw_message(b"[pbem] name", toml_part(
        good, b"attachment; filename=\"\xff\xfe\xc3(.toml\""))
    odd_charset = raw_message(b"[pbem] charset", toml_part(
        hops[-3].path.read_bytes(), b"attachment; filename*=no-such-charset''%FF%1B.toml"))
    huge = raw_message(b"[pbem] huge", toml_part(good + b"#" * (2 * 1024 * 1024)))
    box = tmp_path / "m.mbox"
    mbox = mailbox.mbox(str(box))
    for raw in (raw_message(b"[pbem] deep", toml_part(deep_toml)), nested, truncated, bad_name,
                odd_charset, huge, hops[-2].msg.as_bytes()):
        mbox.add(raw)
    mbox.flush()
    mbox.close()
    report = inbox.scan([box], home, max_bytes=1024 * 1024)
    by_message = {p.origin.where: p.code for p in report.problems if p.origin}
    # The cut message is either read as a damaged save or not found as one at all,
    # depending on where the cut falls in the base64: a problem of that message either way.
    assert by_message.pop("message 3") in ("malformed", "broken-mime"), report.text()
    assert by_message == {"message 1": "malformed", "message 2": "unreadable",
                          "message 6": "too-large"}, report.text()
    assert report.messages == 7
    [summary] = report.games
    assert summary.seq == hops[-1].seq and summary.your_move and summary.filed
    assert summary.older == 2  # the odd-named attachments were read all the same
    assert summary.origin.subject == "[pbem] name"
    assert summary.origin.attachment == "\ufffd\ufffd\ufffd(.toml"  # undecodable, shown so
    report.text().encode("utf-8")  # no lone surrogate left for the terminal to choke on
    json.dumps(report.to_json(), ensure_ascii=False).encode("utf-8")


@pytest.mark.parametrize("name", ["x;$(touch pwned) 'q' \"r\".toml", "--home=elsewhere.toml",
                                  "two\nlines.toml", "\x1b[31mred\u202e.toml"])
def test_suggested_command_never_runs_the_attachment_name(
        homes: dict[str, Home], tmp_path: Path, name: str) -> None:
    """Unfiled, the command names the attachment: quoted, never an option, and a name that
    cannot be shown as it is gives way to the standard name to save it under."""
    hops = play_and_mail(homes, tmp_path / "saves", stop_after=6)
    me, home = reader(homes, hops)
    encoded = urllib.parse.quote(name).encode("ascii")  # RFC 2231 carries any name
    eml = tmp_path / "m.eml"
    eml.write_bytes(raw_message(b"[pbem] hi", toml_part(
        hops[-1].path.read_bytes(), b"attachment; filename*=utf-8''" + encoded)))
    report = inbox.scan([eml], home, file_saves=False)
    [summary] = report.games
    words = shlex.split(summary.command)
    assert words[:2] == ["pbem", "play"] and words[3:] == ["MOVE", "..."]
    assert not words[2].startswith("-") and words[2] in (summary.save_as,
                                                          "./" + summary.save_as)
    # A name that shows as it is stays; any other gives way to the standard name.
    assert summary.save_as == (name if mail.plain_name(name) else hops[-1].path.name)
    assert f"save the attachment as {summary.save_as}, then run: {summary.command}" \
        in report.text()


def test_filed_path_with_spaces_is_quoted(homes: dict[str, Home], tmp_path: Path) -> None:
    hops = play_and_mail(homes, tmp_path / "saves", stop_after=6)
    actor = hops[-1].actor
    home = Home(tmp_path / "my homes" / "it's mine")
    shutil.copytree(homes[actor].path, home.path)
    report = inbox.scan([write_mbox(tmp_path / "m.mbox", [hops[-1].msg])], home)
    [summary] = report.games
    assert shlex.split(summary.command)[2] == summary.game_id[:8] and " " in summary.filed
    assert summary.save_as == ""


def test_forged_from_teaches_no_address(homes: dict[str, Home], tmp_path: Path) -> None:
    """mallory forwards a save bob really signed under 'From: bob <mallory@...>': the
    scan accepts the save but learns no address, so the next mail cannot go to mallory."""
    folder = tmp_path / "s"
    folder.mkdir()
    created = session.new_game(homes["ann"], "dice-race", ["ann", "bob", "cy"], [], None,
                               folder=folder)
    bob = session.sign_next(homes["bob"], created.path, "join", [], None, None)
    forged = message_with(bob.path.read_bytes(), sender="bob <mallory@evil.example>",
                          subject="[pbem] my join")
    report = inbox.scan([write_mbox(tmp_path / "m.mbox", [forged])], homes["cy"])
    assert report.games and report.games[0].your_move
    assert not [n for n in report.notices if n.code == "new-email"]
    assert Contacts(homes["cy"]).email_for("bob") == ""
    assert "mallory" not in (homes["cy"].path / "contacts.toml").read_text("utf-8")
    with pytest.raises(mail.MailConfigError, match="known mail address"):
        mail.compose(created.path.parent / report.games[0].filed, homes["cy"])


# ---- a quiet report (issue 11) ---------------------------------------------------------------
def test_games_played_on_take_one_line(homes: dict[str, Home], game: list[Hop],
                                       tmp_path: Path) -> None:
    me, home = reader(homes, game)
    session.sign_next(home, game[-1].path, None, ["pass"], None, str(tmp_path / "mine.toml"))
    box = write_mbox(tmp_path / "m.mbox", [h.msg for h in game])
    text = inbox.scan([box], home).text()
    id8 = game[-1].save.game_id[:8]
    lines = [ln for ln in text.split("Players:")[0].splitlines() if id8 in ln]
    assert len(lines) == 1, text
    [line] = lines
    assert line.strip().startswith(f"Dice Race {id8}: you have played on (entry "
                                   f"{game[-1].seq + 1}; the mail's newest is entry "
                                   f"{game[-1].seq})")
    assert "Nothing new (1 game(s)):" in text and "stale" not in text


def test_a_filed_game_waiting_for_someone_else_is_one_line_on_rescan(
        homes: dict[str, Home], game: list[Hop], tmp_path: Path) -> None:
    bystander = next(h for h in homes if h not in (game[-1].actor, game[-1].signer))
    box = write_mbox(tmp_path / "m.mbox", [h.msg for h in game])
    first = inbox.scan([box], homes[bystander]).text()
    id8 = game[-1].save.game_id[:8]
    assert "    filed: " in first and "Nothing new" not in first  # news: in full
    again = inbox.scan([box], homes[bystander], read_all=True).text()
    [line] = [ln for ln in again.split("Players:")[0].splitlines() if id8 in ln]
    assert "filed:" not in again
    assert f"already filed - waiting for {game[-1].actor} (play)" in line


def test_finished_game_names_its_winners(homes: dict[str, Home], tmp_path: Path) -> None:
    hops = play_and_mail(homes, tmp_path / "saves", options=["turns=3", "target=1000000"])
    last = hops[-1]
    assert last.table.duty() is None
    outcome = session.verify(last.save, None).report.outcome
    assert outcome is not None
    expected = [f"{last.table.seats[s].handle} ({outcome.scores[s]})" for s in outcome.ranking[0]]
    home = homes[next(h for h in homes if h != last.signer)]
    report = inbox.scan([write_mbox(tmp_path / "m.mbox", [h.msg for h in hops])], home)
    [summary] = report.games
    assert summary.winners == expected and report.to_json()["games"][0]["winners"] == expected
    assert f"complete, won by {' and '.join(expected)}" in report.text()


def test_failed_audit_is_an_error_not_a_result(homes: dict[str, Home], tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    hops = play_and_mail(homes, tmp_path / "saves", options=["turns=3", "target=1000000"])
    real = session.verify

    def audited_badly(save: savefile.Save, home: Home | None, **kw: object) -> session.Verified:
        verified = real(save, home, **kw)  # type: ignore[arg-type]
        if verified.report.audit == "clean":
            verified.report.audit = ["cy: the revealed seed does not produce the anchor"]
        return verified

    monkeypatch.setattr(inbox.session, "verify", audited_badly)
    home = homes[next(h for h in homes if h != hops[-1].signer)]
    report = inbox.scan([write_mbox(tmp_path / "m.mbox", [hops[-1].msg])], home)
    assert codes(report) == ["audit"] and report.exit_code() == 3
    assert report.games[0].winners == [] and "does not produce the anchor" in report.text()


def test_a_huge_message_is_not_parsed(homes: dict[str, Home], game: list[Hop],
                                      tmp_path: Path) -> None:
    """Parsing costs about ten times a message's size in memory: a message over four times
    the attachment cap is skipped (named if it mentions pbem), the others still read."""
    me, home = reader(homes, game)
    data = game[-1].path.read_bytes()
    cap = 2 * len(data)
    photo = message_with(data, subject="[pbem] with a photo")
    photo.add_attachment(b"\xff" * (5 * cap), maintype="image", subtype="jpeg",
                         filename="cat.jpg")
    holiday = EmailMessage()
    holiday["Subject"] = "holiday pictures"
    holiday.set_content("see attached")
    holiday.add_attachment(b"\xff" * (5 * cap), maintype="image", subtype="jpeg",
                           filename="beach.jpg")
    box = write_mbox(tmp_path / "m.mbox", [photo, holiday, game[-2].msg])
    report = inbox.scan([box], home, max_bytes=cap)
    assert codes(report) == ["too-large"] and report.messages == 3
    assert report.problems[0].origin.where == "message 1"  # type: ignore[union-attr]
    assert "times --max-size" in report.problems[0].message
    assert [g.seq for g in report.games] == [game[-2].seq]
