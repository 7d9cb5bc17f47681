"""Reading saves from a real IMAP server (Debian's Dovecot, started by the tests on a
loopback port; tests/support/dovecot.py): imaps and STARTTLS, a password or an XOAUTH2
token from a command, only new messages read, nothing ever flagged, moved or deleted."""

from __future__ import annotations

import imaplib
import json
import shlex
import ssl
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from pbem.cli import main
from pbem.mail import imap, imapurl, inbox
from pbem.mail.seen import SeenRecord
from pbem.protocol.crypto.identity import Home
from tests.support import dovecot
from tests.test_inbox import Hop, play_and_mail

USERS = tuple(f"u{n}" for n in range(12))
_next_user = iter(USERS)


@pytest.fixture(scope="module")
def server() -> Iterator[dovecot.Dovecot]:
    running = dovecot.start(USERS)
    try:
        yield running
    finally:
        dovecot.stop(running)


@pytest.fixture
def box(server: dovecot.Dovecot) -> str:
    """A mailbox of its own for each test (the server is shared by the module)."""
    return next(_next_user)


@pytest.fixture
def game(homes: dict[str, Home], tmp_path: Path) -> list[Hop]:
    return play_and_mail(homes, tmp_path / "saves", stop_after=8)


def login(server: dovecot.Dovecot, auth: str = "login", password: str = dovecot.PASSWORD
          ) -> imap.Login:
    return imap.Login(auth=auth, password_command=f"echo {shlex.quote(password)}",
                      context=ssl.create_default_context(cafile=str(server.cert)))


def url(server: dovecot.Dovecot, user: str, tls: bool = True) -> str:
    if tls:
        return f"imaps://{user}@localhost:{server.tls_port}/INBOX"
    return f"imap://{user}@localhost:{server.plain_port}/INBOX"


def deliver(server: dovecot.Dovecot, user: str, hops: list[Hop]) -> None:
    for n, hop in enumerate(hops):
        server.deliver(hop.msg.as_bytes(), user, name=f"{hop.seq:04d}.{n}.pbemtest")


def flags(server: dovecot.Dovecot, user: str) -> list[bytes]:
    """Every message's flags, as the server tells them."""
    client = imaplib.IMAP4_SSL("127.0.0.1", server.tls_port,
                               ssl_context=ssl.create_default_context(cafile=str(server.cert)))
    client.login(user, dovecot.PASSWORD)
    client.select("INBOX", readonly=True)
    _, data = client.fetch("1:*", "(FLAGS)")
    client.logout()
    return [d for d in data if isinstance(d, bytes)]


def test_imaps_reads_files_and_then_reads_only_new_mail(
        server: dovecot.Dovecot, box: str, homes: dict[str, Home], game: list[Hop]) -> None:
    me = game[-1].actor
    home = homes[me]
    deliver(server, box, game[:-1])
    first = inbox.scan([url(server, box)], home, login=login(server))
    assert first.messages == len(game) - 1 and first.already_read == 0, first.text()
    [summary] = first.games
    assert summary.seq == game[-2].seq and summary.filed
    assert first.sources == [url(server, box)]
    # Nothing new: nothing fetched, nothing verified, and the report says why.
    again = inbox.scan([url(server, box)], home, login=login(server))
    assert again.messages == 0 and again.already_read == len(game) - 1 and not again.games
    assert "read before skipped; --all reads them again" in again.text()
    assert again.problems == []
    # One new message: only it is read.
    deliver(server, box, game[-1:])
    third = inbox.scan([url(server, box)], home, login=login(server))
    assert third.messages == 1 and third.already_read == len(game) - 1
    [summary] = third.games
    assert summary.seq == game[-1].seq and summary.your_move
    # --all reads everything again.
    everything = inbox.scan([url(server, box)], home, login=login(server), read_all=True)
    assert everything.messages == len(game) and everything.already_read == 0
    # Never flagged as read, moved or deleted.
    listed = flags(server, box)
    assert len(listed) == len(game)
    assert not any(b"\\Seen" in f or b"\\Deleted" in f for f in listed), listed


def test_starttls_on_the_plain_port(server: dovecot.Dovecot, box: str,
                                    homes: dict[str, Home], game: list[Hop]) -> None:
    deliver(server, box, game)
    report = inbox.scan([url(server, box, tls=False)], homes[game[-1].actor],
                        login=login(server))
    assert report.messages == len(game) and report.games[0].your_move, report.text()


def test_xoauth2_token(server: dovecot.Dovecot, box: str, homes: dict[str, Home],
                       game: list[Hop]) -> None:
    deliver(server, box, game)
    report = inbox.scan([url(server, box)], homes[game[-1].actor],
                        login=login(server, auth="xoauth2"))
    assert report.messages == len(game) and report.games, report.text()


def test_a_refused_login_is_a_server_problem_and_records_nothing(
        server: dovecot.Dovecot, box: str, homes: dict[str, Home], game: list[Hop]) -> None:
    deliver(server, box, game)
    home = homes[game[-1].actor]
    report = inbox.scan([url(server, box)], home, login=login(server, password="wrong"))
    assert [p.code for p in report.problems] == ["server"]
    assert "refused the login" in report.problems[0].message
    assert "b'" not in report.problems[0].message  # the server's words as text, not bytes
    assert report.exit_code() == 5
    assert SeenRecord(home.path).get(imapurl.parse_url(url(server, box)).key).last_uid == 0


def test_a_new_uidvalidity_reads_everything_again(
        server: dovecot.Dovecot, box: str, homes: dict[str, Home], game: list[Hop]) -> None:
    deliver(server, box, game)
    home = homes[game[-1].actor]
    inbox.scan([url(server, box)], home, login=login(server))
    record = home.path / "inbox-seen.json"
    data = json.loads(record.read_text())
    [entry] = data["sources"].values()
    entry["uidvalidity"] += 1  # as if the server had renumbered the mailbox
    record.write_text(json.dumps(data))
    report = inbox.scan([url(server, box)], home, login=login(server))
    assert report.messages == len(game) and report.already_read == 0


def run(home: Home, *args: str, env: dict[str, str] | None = None) -> Any:
    return CliRunner().invoke(main, ["--home", str(home.path), *args], env=env)


def test_cli_inbox_imaps_with_a_password_command(
        server: dovecot.Dovecot, box: str, homes: dict[str, Home], game: list[Hop],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", str(server.cert))
    deliver(server, box, game)
    home = homes[game[-1].actor]
    result = run(home, "inbox", url(server, box), "--password-command",
                 f"echo {dovecot.PASSWORD}", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["messages"] == len(game) and data["your_move"] == [game[-1].save.game_id]
    again = run(home, "inbox", url(server, box), "--password-command",
                f"echo {dovecot.PASSWORD}", "--json")
    assert json.loads(again.output)["already_read"] == len(game)
    # From the profile, with a token.
    assert run(home, "profile", "--imap-password-command", f"echo {dovecot.PASSWORD}",
               "--imap-auth", "xoauth2").exit_code == 0
    result = run(home, "inbox", url(server, box), "--all")
    assert result.exit_code == 0 and f"{len(game)} message(s)" in result.output


def test_cli_inbox_wrong_password_exits_5(server: dovecot.Dovecot, box: str,
                                          homes: dict[str, Home],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", str(server.cert))
    result = run(homes["ann"], "inbox", url(server, box), "--password-command", "echo nope")
    assert result.exit_code == 5 and "refused the login" in result.output


def test_cli_inbox_without_a_password_is_a_usage_error(server: dovecot.Dovecot, box: str,
                                                       homes: dict[str, Home]) -> None:
    result = run(homes["ann"], "inbox", url(server, box))
    assert result.exit_code == 2 and "No IMAP password" in result.output


@pytest.mark.parametrize("bad", ["imaps://host-only/INBOX", "imaps://ann:pw@host/INBOX",
                                 "imaps://ann@host:99999/INBOX", 'imaps://ann@host/"x'])
def test_cli_inbox_bad_imap_address(homes: dict[str, Home], bad: str) -> None:
    result = run(homes["ann"], "inbox", bad, "--password-command", "echo x")
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output


def test_url_forms() -> None:
    source = imapurl.parse_url("imaps://ann%40gmail.com@imap.gmail.com/%5BGmail%5D%2FAll%20Mail")
    assert (source.user, source.host, source.port, source.mailbox) == (
        "ann@gmail.com", "imap.gmail.com", 993, "[Gmail]/All Mail")
    source = imapurl.parse_url("imap://ann@outlook.com@outlook.office365.com")
    assert (source.user, source.host, source.port, source.mailbox, source.tls) == (
        "ann@outlook.com", "outlook.office365.com", 143, "INBOX", False)
