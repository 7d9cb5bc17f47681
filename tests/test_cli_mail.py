"""The email commands through the CLI: send (--eml, --stdout, --smtp), inbox, contacts,
profile, and show's pictures. The library under them is tested in test_mail/test_inbox/
test_smtp; these check the wiring, exit codes and that nothing is lost."""

from __future__ import annotations

import datetime
import email
import email.utils
import json
import os
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from pbem import session
from pbem.cli import main
from pbem.protocol.crypto.identity import Home
from pbem.protocol.saveformat import savefile, timing
from tests.enginekit import play_game


@pytest.fixture
def game(homes: dict[str, Home], tmp_path: Path) -> Path:
    return play_game(homes, tmp_path / "saves", stop_after=6)[-1]


def run(home: Home, *args: str, env: dict[str, str] | None = None) -> Any:
    result = CliRunner().invoke(main, ["--home", str(home.path), *args], env=env)
    assert "Traceback" not in result.output and "internal error" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result


def actor_of(save: Path) -> str:
    duty = session.load(save, None).table.duty()
    assert duty is not None
    return str(session.load(save, None).table.seats[duty.seat].handle)


@pytest.fixture
def sink() -> Iterator[tuple[int, Any]]:
    """An SMTP server on loopback that keeps what it gets and refuses nobody@ addresses."""
    pytest.importorskip("aiosmtpd")
    from tests.test_smtp import Controller, Sink, free_port

    box, port = Sink(), free_port()
    controller = Controller(box, hostname="127.0.0.1", port=port)
    controller.start()
    yield port, box
    controller.stop()


def test_send_eml_then_inbox_files_and_verifies(game: Path, homes: dict[str, Home],
                                                tmp_path: Path) -> None:
    eml = tmp_path / "mail" / "turn.eml"
    eml.parent.mkdir()
    r = run(homes["ann"], "send", str(game), "--eml", str(eml), "--to", "bob@example.org")
    assert r.exit_code == 0, r.output
    message = email.message_from_bytes(eml.read_bytes())
    assert "[pbem] Dice Race" in message["Subject"]
    r = run(homes["bob"], "send", str(game), "--eml", str(eml), "--to", "bob@example.org")
    assert r.exit_code == 2 and "never overwrites" in r.stderr
    assert "--eml NEWNAME" in r.stderr and "Use -o" not in r.stderr  # send has no -o
    r = run(homes["bob"], "inbox", str(eml.parent), "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["games"] and data["games"][0]["id"].startswith(message["X-Pbem-Game"][:8])


def test_send_stdout_is_a_whole_message(game: Path, homes: dict[str, Home]) -> None:
    r = run(homes["ann"], "send", str(game), "--stdout", "--to", "bob@example.org")
    assert r.exit_code == 0
    message = email.message_from_string(r.output)
    assert message.is_multipart() and message["To"] == "bob@example.org"
    names = [p.get_filename() for p in message.walk() if p.get_filename()]
    assert names == [game.name]


def test_send_needs_a_destination(game: Path, homes: dict[str, Home]) -> None:
    r = run(homes["ann"], "send", str(game), "--eml", "a.eml", "--stdout")
    assert r.exit_code == 2
    r = run(homes["ann"], "send", str(game), "--to", "bob@example.org")
    assert r.exit_code == 2 and "No SMTP server" in r.stderr


def test_send_by_smtp_to_a_loopback_server(game: Path, homes: dict[str, Home]) -> None:
    pytest.importorskip("aiosmtpd")
    from tests.test_smtp import Controller, Sink, free_port

    assert run(homes["ann"], "profile", "--email", "ann@example.org").exit_code == 0
    sink = Sink()
    port = free_port()
    controller = Controller(sink, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        r = run(homes["ann"], "send", str(game), "--to", "bob@example.org", "--smtp",
                "127.0.0.1", "--port", str(port), "--security", "none")
    finally:
        controller.stop()
    assert r.exit_code == 0, r.output
    assert "Sent to bob@example.org" in r.output
    assert sink.received and game.name.encode() in sink.received[0]["content"]


def test_unreachable_smtp_server_exits_5(game: Path, homes: dict[str, Home]) -> None:
    from tests.test_smtp import free_port

    assert run(homes["ann"], "profile", "--email", "ann@example.org").exit_code == 0
    r = run(homes["ann"], "send", str(game), "--to", "bob@example.org", "--smtp", "127.0.0.1",
            "--port", str(free_port()), "--security", "none", "--timeout", "3")
    assert r.exit_code == 5, r.output


def test_contacts_and_profile(game: Path, homes: dict[str, Home]) -> None:
    (homes["cy"].path / "contacts.toml").unlink()  # joining learnt the players; start afresh
    r = run(homes["cy"], "verify", str(game))
    assert r.exit_code == 0 and "New player ann" in r.output
    r = run(homes["cy"], "contacts", "--json")
    assert {p["handle"] for p in json.loads(r.output)} == {"ann", "bob"}
    r = run(homes["cy"], "contacts", "forget", "nobody")
    assert r.exit_code == 2
    r = run(homes["cy"], "profile", "--email", "cy@example.org", "--smtp", "mail.example.org")
    assert r.exit_code == 0 and "cy@example.org" in r.output and "mail.example.org" in r.output


def test_show_writes_html(game: Path, homes: dict[str, Home], tmp_path: Path) -> None:
    page = tmp_path / "board.html"
    r = run(homes["bob"], "show", str(game), "--html", str(page))
    assert r.exit_code == 0, r.output
    assert page.read_text().startswith("<!DOCTYPE html>")
    r = run(homes["bob"], "show", str(game), "--svg", str(tmp_path / "b.svg"))
    assert r.exit_code == 2 and "draws no picture" in r.stderr


UNSAFE = ("\x1b", "\x07", "\x9b", "\u202e", "\u2066", "\r")


def test_escape_sequences_in_mail_never_reach_the_terminal(homes: dict[str, Home],
                                                           tmp_path: Path) -> None:
    """Subject, From and attachment name carry terminal escapes and bidi overrides, raw and
    RFC 2047/2231-encoded: text shows them escaped, JSON keeps them as JSON escapes."""
    import urllib.parse
    from email.header import Header

    saves = play_game(homes, tmp_path / "saves", stop_after=3)  # all joined; ann starts next
    subject = "\x1b]0;owned\x07[pbem] \u202eevil\x1b[2J"
    name = "\x1b[31m\u202ered\u2066.toml"
    raw = (b"From: \x1b[2J Bob \xe2\x80\xae <bob@example.org>\n"
           b"Subject: " + Header(subject, "utf-8").encode().encode("ascii") + b"\n"
           b"X-Note: \xe2\x80\xae\x1b[1m raw bytes\n"
           b"MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"q\"\n\n"
           b"--q\nContent-Type: application/toml\nContent-Disposition: attachment; filename*="
           b"utf-8''" + urllib.parse.quote(name).encode() + b"\n\n"
           + saves[-1].read_bytes() + b"\n--q--\n")
    box = tmp_path / "mail.mbox"
    box.write_bytes(b"From MAILER-DAEMON Thu Jan  1 00:00:00 1970\n" + raw + b"\n")
    text = run(homes["cy"], "inbox", "--no-file", str(box))
    assert text.exit_code == 0, text.output
    shown = run(homes["cy"], "inbox", "--no-file", "--json", str(box))
    people = run(homes["cy"], "contacts")
    people_json = run(homes["cy"], "contacts", "--json")
    for result in (text, shown, people, people_json):
        assert not any(ch in result.output for ch in UNSAFE), repr(result.output)
    assert "\\x1b]0;owned\\x07[pbem] \\u202eevil" in text.output
    assert "\\u202e <bob@example.org>" in text.output
    [game] = json.loads(shown.output)["games"]
    assert game["origin"]["subject"] == subject  # the very same string, escaped on the way
    assert game["origin"]["attachment"] == name
    assert game["origin"]["sender"] == "\x1b[2J Bob \u202e <bob@example.org>"


def test_hand_edited_contacts_are_shown_escaped(homes: dict[str, Home]) -> None:
    (homes["ann"].path / "contacts.toml").write_text(
        '[players."bob\\u001b[2J\\u202e"]\nkey = ""\nfingerprint = "\\u001b]0;x\\u0007"\n'
        'emails = ["bob@example.org\\r\\nBcc: eve@example.net"]\n', "utf-8")
    for args in (("contacts",), ("contacts", "--json")):
        r = run(homes["ann"], *args)
        assert r.exit_code == 0 and not any(ch in r.output for ch in UNSAFE), repr(r.output)
    assert json.loads(run(homes["ann"], "contacts", "--json").output)[0]["handle"] == \
        "bob\x1b[2J\u202e"


# ---- one address per recipient, no header injection (issue 8) -----------------------------
def test_send_refuses_a_second_recipient_and_injected_headers(game: Path, homes: dict[str, Home],
                                                             tmp_path: Path) -> None:
    ann = homes["ann"]
    for to in ("bob@example.org, eve@evil.example", "bob@example.org\r\nBcc: eve@evil.example",
               "Bob <bob@example.org>", "eve@evil.example bob@example.org"):
        r = run(ann, "send", str(game), "--stdout", "--to", to)
        assert r.exit_code == 2 and "not a mail address" in r.stderr, (to, r.output)
        assert "eve@evil" not in r.stdout
    # The profile's address becomes From: a hand-edited one is refused, not sent.
    (ann.path / "profile.toml").write_text('email = "ann@example.org\\r\\nBcc: eve@evil.example"\n')
    r = run(ann, "send", str(game), "--stdout", "--to", "bob@example.org")
    assert r.exit_code == 2 and "profile.toml is not one plain mail address" in r.stderr
    (ann.path / "profile.toml").write_text('email = "ann@example.org"\n')
    # contacts.toml is a file too: a comma there adds nobody.
    (ann.path / "contacts.toml").write_text(
        '[players.bob]\nemails = ["bob@example.org, eve@evil.example"]\n'
        '[players.cy]\nemails = ["cy@example.org\\nBcc: eve@evil.example"]\n')
    r = run(ann, "send", str(game), "--stdout")
    assert r.exit_code == 2 and "known mail address" in r.stderr and "eve" not in r.stdout
    # identity.toml's handle becomes the From: display name.
    info = (ann.path / "identity.toml").read_text()
    (ann.path / "identity.toml").write_text(info.replace('handle = "ann"',
                                                         'handle = "ann\\r\\nBcc: eve@evil.example"'))
    r = run(ann, "send", str(game), "--stdout", "--to", "bob@example.org")
    assert r.exit_code == 2 and "identity file" in r.stderr and "damaged" in r.stderr
    assert "eve" not in r.stdout


def test_a_save_with_an_injected_handle_is_refused(homes: dict[str, Home], tmp_path: Path) -> None:
    """A host who signs a header whose handle carries CR/LF: unreadable save (exit 4)."""
    from pbem.protocol.saveformat.canonical import digest
    from tests.enginekit import forge

    save = savefile.read(play_game(homes, tmp_path / "saves", stop_after=1)[-1])
    save.header["seats"][1]["handle"] = "bob\r\nBcc: eve@evil.example"
    save.entries[0]["prev"] = digest(save.header)
    save.entries[0] = forge(save.entries[0], homes["ann"].load())
    bad = tmp_path / "injected.toml"
    bad.write_text(savefile.dumps(save))
    r = run(homes["ann"], "send", str(bad), "--stdout")
    assert r.exit_code == 4 and "eve" not in r.stdout


# ---- sending: exit 5 whenever the mail did not all go ----------------------------------------
def test_refused_recipient_exits_5(game: Path, homes: dict[str, Home],
                                   sink: tuple[int, Any]) -> None:
    port, box = sink
    assert run(homes["ann"], "profile", "--email", "ann@example.org").exit_code == 0
    r = run(homes["ann"], "send", str(game), "--to", "bob@example.org", "--to",
            "nobody@example.org", "--smtp", "127.0.0.1", "--port", str(port), "--security", "none")
    assert r.exit_code == 5 and "Sent to bob@example.org" in r.stdout
    assert "refused nobody@example.org" in r.stderr and "550" in r.stderr
    assert len(box.received) == 1


def test_password_command_that_fails_is_a_sentence(game: Path, homes: dict[str, Home]) -> None:
    assert run(homes["ann"], "profile", "--email", "ann@example.org").exit_code == 0
    r = run(homes["ann"], "send", str(game), "--to", "bob@example.org", "--smtp", "127.0.0.1",
            "--user", "ann", "--password-command", "echo locked >&2; exit 1")
    assert r.exit_code == 2 and "password command failed (locked)" in r.stderr
    r = run(homes["ann"], "send", str(game), "--to", "bob@example.org", "--smtp", "127.0.0.1",
            "--timeout", "0")
    assert r.exit_code == 2


# ---- play --send (issue 11) -----------------------------------------------------------------
def test_play_send_signs_and_mails_in_one_step(game: Path, homes: dict[str, Home],
                                               sink: tuple[int, Any], tmp_path: Path) -> None:
    port, box = sink
    actor = actor_of(game)
    home = homes[actor]
    assert run(home, "profile", "--email", f"{actor}@example.org", "--smtp", "127.0.0.1",
               "--port", str(port), "--security", "none").exit_code == 0
    out = tmp_path / "mine.toml"
    r = run(home, "play", str(game), "roll", "-o", str(out), "--send", "--to", "bob@example.org")
    assert r.exit_code == 0, r.output
    assert f"Wrote {out}" in r.stdout and "Sent to bob@example.org" in r.stdout
    [got] = box.received
    message = email.message_from_bytes(got["content"])
    [attached] = [p for p in message.walk() if p.get_filename()]
    assert attached.get_payload(decode=True) == out.read_bytes()


def test_play_send_that_fails_keeps_the_save_and_says_how_to_resend(
        game: Path, homes: dict[str, Home], tmp_path: Path) -> None:
    from tests.test_smtp import free_port

    actor = actor_of(game)
    home = homes[actor]
    assert run(home, "profile", "--email", f"{actor}@example.org", "--smtp", "127.0.0.1",
               "--port", str(free_port()), "--security", "none").exit_code == 0
    out = tmp_path / "my turn.toml"
    r = run(home, "play", str(game), "roll", "-o", str(out), "--send", "--to", "bob@example.org",
            "--timeout", "3")
    assert r.exit_code == 5, r.output
    assert out.exists() and f"Wrote {out}" in r.stdout
    assert "Could not reach the mail server" in r.stderr
    hint = r.stderr.split("send it with: ", 1)[1].split("\n")[0]
    assert shlex.split(hint) == ["pbem", "send", str(out), "--to", "bob@example.org"]


def test_play_send_checks_the_settings_before_signing(game: Path, homes: dict[str, Home],
                                                      tmp_path: Path) -> None:
    actor = actor_of(game)
    out = tmp_path / "never.toml"
    r = run(homes[actor], "play", str(game), "roll", "-o", str(out), "--send")
    assert r.exit_code == 2 and "No SMTP server" in r.stderr and not out.exists()
    r = run(homes[actor], "play", str(game), "roll", "-o", str(out), "--send", "--smtp", "h",
            "--user", "u", "--password-env", "PBEM_TEST_NOT_SET")
    assert r.exit_code == 2 and "PBEM_TEST_NOT_SET" in r.stderr and not out.exists()
    r = run(homes[actor], "play", str(game), "roll", "-o", str(out), "--to", "bob@example.org")
    assert r.exit_code == 2 and "go with --send" in r.stderr and not out.exists()
    r = run(homes[actor], "play", str(game), "roll", "--dry-run", "--send", "--smtp", "h")
    assert r.exit_code == 0 and "nothing was written or sent" in r.stdout


# ---- send --remind (issue 11) ---------------------------------------------------------------
def test_remind_mails_the_player_to_act_how_long_the_game_waited(
        game: Path, homes: dict[str, Home], tmp_path: Path) -> None:
    from tests.enginekit import forge

    # A save from before entries carried a signed time: the file's date stands in.
    save = savefile.read(game)
    last = {k: v for k, v in save.entries[-1].items() if k != "time"}
    save.entries[-1] = forge(last, homes[last["seat"]].load())
    untimed = tmp_path / "untimed.toml"
    untimed.write_text(savefile.dumps(save))
    actor = actor_of(game)
    # A home that has not seen the entry as signed with its time (else: a fork).
    someone = next(h for h in homes if h not in (actor, last["seat"]))
    # Three days before the clock pbem reads (the suite fixes it), as the mail counts.
    three_days_ago = timing.now().timestamp() - 3 * 86400 - 600
    os.utime(untimed, (three_days_ago, three_days_ago))
    r = run(homes[someone], "send", str(untimed), "--remind", "--stdout", "--to",
            f"{actor}@example.org")
    assert r.exit_code == 0, r.output
    message = email.message_from_string(r.stdout)
    assert message["Subject"] == f"[pbem] Dice Race {savefile.read(game).game_id[:8]}"
    assert message["Cc"] is None and message["Auto-Submitted"] == "auto-generated"
    body = next(p for p in message.walk() if p.get_content_type() == "text/plain")
    text = body.get_payload(decode=True).decode()
    assert f"A reminder: this game has waited for {actor} for 3 days" in text
    assert "the date of the save file" in text
    r = run(homes[actor], "send", str(game), "--remind", "--stdout", "--to", "x@example.org")
    assert r.exit_code == 2 and "nobody to remind" in r.stderr
    r = run(homes[someone], "send", str(untimed), "--remind", "--stdout")
    assert r.exit_code == 2 and f"No mail address is known for {actor}" in r.stderr


def test_the_mail_is_dated_by_the_clock_pbem_reads(game: Path, homes: dict[str, Home]) -> None:
    """PBEM_CLOCK sets the one clock a process reads: the mail's Date with it."""
    actor = actor_of(game)
    someone = next(h for h in homes if h != actor)
    r = run(homes[someone], "send", str(game), "--stdout", "--to", f"{actor}@example.org",
            env={"PBEM_CLOCK": "2031-03-04T05:06:07Z"})
    assert r.exit_code == 0, r.output
    date = email.utils.parsedate_to_datetime(email.message_from_string(r.stdout)["Date"])
    assert date.astimezone(datetime.UTC).isoformat() == "2031-03-04T05:06:07+00:00"


def test_remind_counts_from_the_signed_times_as_the_clock_does(
        game: Path, homes: dict[str, Home], tmp_path: Path) -> None:
    """The reminder counts from the signed time that made the player to act, as the game
    clock does: a last entry back-dated before the ones it follows does not move it."""
    from tests.enginekit import forge

    save = savefile.read(game)
    latest = max(e["time"] for e in save.entries[:-1])
    last = dict(save.entries[-1], time="2025-06-01T08:30:00Z")
    assert last["time"] < latest
    save.entries[-1] = forge(last, homes[last["seat"]].load())
    timed = tmp_path / "timed.toml"
    timed.write_text(savefile.dumps(save))
    actor = actor_of(game)
    # The third player: one whose archive does not hold the unforged entry (a home that
    # has seen both rightly calls them a fork).
    someone = next(h for h in homes if h not in (actor, last["seat"]))
    r = run(homes[someone], "send", str(timed), "--remind", "--stdout", "--to",
            f"{actor}@example.org")
    assert r.exit_code == 0, r.output
    text = "".join(p.get_payload(decode=True).decode()
                   for p in email.message_from_string(r.stdout).walk()
                   if p.get_content_type() == "text/plain")
    assert f"since {latest[:10]} {latest[11:16]} UTC" in text
    assert f"the signed time of the entry that made it {actor}'s move" in text


# ---- inbox and new (issue 11) ---------------------------------------------------------------
def test_inbox_path_that_does_not_exist_is_an_error(game: Path, homes: dict[str, Home],
                                                    tmp_path: Path) -> None:
    r = run(homes["bob"], "inbox", str(game), str(tmp_path / "Mail" / "nowhere.mbox"))
    assert r.exit_code == 2 and "There is no file or folder" in r.stderr
    assert "nowhere.mbox" in r.stderr and "nothing was scanned" in r.stderr
    assert not (homes["bob"].path / "inbox").exists()


def test_new_gives_the_host_seat_the_profile_address(homes: dict[str, Home],
                                                     tmp_path: Path) -> None:
    ann = homes["ann"]
    assert run(ann, "profile", "--email", "ann@example.org").exit_code == 0
    for i, seats in enumerate((["bob=bob@example.org"], ["ann", "bob"],
                               ["ann=other@example.org", "bob"])):
        out = tmp_path / f"new{i}.toml"
        r = run(ann, "new", "dice-race", *[f"--seat={s}" for s in seats], "-o", str(out))
        assert r.exit_code == 0, r.output
        host = savefile.read(out).header["seats"][0]
        assert (host["handle"], host["email"]) == (
            "ann", "other@example.org" if i == 2 else "ann@example.org")


def test_contacts_email_is_the_users_word(game: Path, homes: dict[str, Home]) -> None:
    cy = homes["cy"]
    r = run(cy, "contacts", "email", "bob", "bob@mail.example")
    assert r.exit_code == 0 and "bob@mail.example" in r.stdout
    people = {p["handle"]: p for p in json.loads(run(cy, "contacts", "--json").stdout)}
    assert people["bob"]["emails"] == ["bob@mail.example"]
    for bad in (("bob", "a@example.org, eve@evil.example"), ("Bob Smith", "bob@example.org")):
        r = run(cy, "contacts", "email", *bad)
        assert r.exit_code == 2 and "eve" not in json.dumps(
            json.loads(run(cy, "contacts", "--json").stdout))
