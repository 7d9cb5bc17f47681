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
