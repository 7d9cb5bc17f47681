"""The email commands through the CLI: send (--eml, --stdout, --smtp), inbox, contacts,
profile, and show's pictures. The library under them is tested in test_mail/test_inbox/
test_smtp; these check the wiring, exit codes and that nothing is lost."""

from __future__ import annotations

import email
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from pbem.cli import main
from pbem.protocol.identity import Home
from tests.enginekit import play_game


@pytest.fixture
def game(homes: dict[str, Home], tmp_path: Path) -> Path:
    return play_game(homes, tmp_path / "saves", stop_after=6)[-1]


def run(home: Home, *args: str) -> object:
    result = CliRunner().invoke(main, ["--home", str(home.path), *args])
    assert "Traceback" not in result.output
    return result


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

    saves = play_game(homes, tmp_path / "saves", stop_after=3)  # cy to join next
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
