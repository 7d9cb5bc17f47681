"""An IMAP server written to misbehave (tests/support/hostile_imap.py, on loopback) cannot
make 'pbem inbox' or 'pbem sync' hang, swell or crash: every session has a deadline
(--imap-timeout), every reply a budget of bytes and lines, every literal is checked
against --max-size from its announced length before it is read, and whatever the server
sends wrong is a sentence and exit 5, never a traceback (exit 70)."""

from __future__ import annotations

import contextlib
import json
import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest
from click.testing import CliRunner

from pbem.cli import main
from pbem.mail import imap, imapurl, imapwire
from pbem.protocol.crypto.identity import Home
from tests.support.hostile_imap import Peer, Server, running

MAIL = b"From: bob@example.org\r\nSubject: hello\r\n\r\nnot a game\r\n"
SECONDS = 2  # the deadline the tests give; each test ends within a few seconds


@pytest.fixture
def server() -> Iterator[Server]:
    with running(Server(messages={1: MAIL, 2: MAIL, 3: MAIL})) as started:
        yield started


@pytest.fixture
def home(homes: dict[str, Home]) -> Home:
    return homes["ann"]


def inbox(home: Home, server: Server, *args: str) -> Any:
    return CliRunner().invoke(main, ["--home", str(home.path), "inbox", server.url(),
                                     "--password-command", "echo pw", "--imap-timeout",
                                     str(SECONDS), *args])


def sync(home: Home, server: Server, *args: str) -> Any:
    runner = CliRunner()
    assert runner.invoke(main, ["--home", str(home.path), "profile", "--source", server.url(),
                                "--imap-password-command", "echo pw"]).exit_code == 0
    return runner.invoke(main, ["--home", str(home.path), "sync", "--imap-timeout",
                                str(SECONDS), *args])


def failed_cleanly(result: Any, *words: str) -> str:
    """The output of a run that said what went wrong, exit 5, no traceback."""
    assert result.exit_code == 5, (result.exit_code, result.output, result.exception)
    assert "Traceback" not in result.output
    for word in words:
        assert word in result.output, result.output
    return str(result.output)


def timed(function: Any, *args: Any) -> tuple[Any, float]:
    start = time.monotonic()
    result = function(*args)
    return result, time.monotonic() - start


# ---- a server that behaves: the reader reads it --------------------------------------------
def test_a_server_that_behaves_is_read(home: Home, server: Server) -> None:
    result = inbox(home, server, "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["messages"] == 3
    again = inbox(home, server, "--json")
    assert json.loads(again.output)["already_read"] == 3


# ---- what the server says is not what IMAP says -----------------------------------------------
@pytest.mark.parametrize("words", [b"1 2 x7", b"1 " + b"9" * 5000, b"0", b"4294967296",
                                   b"-3", b"\x1b[31m"])
def test_garbage_search_uid_is_exit_5(home: Home, server: Server, words: bytes) -> None:
    server.on["SEARCH"] = lambda peer, tag, args: peer.send(
        b"* SEARCH " + words + b"\r\n" + tag.encode() + b" OK done\r\n")
    output = failed_cleanly(inbox(home, server), "as a UID, which is not one")
    assert "\x1b" not in output and len(output) < 1000
    output = failed_cleanly(sync(home, server), "as a UID, which is not one")


@pytest.mark.parametrize("greeting", [b"garbage\r\n", b"* BYE go away\r\n", b"\r\n",
                                      b"* OK no line end", b"* OK " + b"x" * 2_000_000])
def test_malformed_greeting_is_exit_5(home: Home, server: Server, greeting: bytes) -> None:
    def greet(peer: Peer, tag: str, args: str) -> None:
        peer.send(greeting)
        if not greeting.endswith(b"\r\n"):
            with contextlib.suppress(OSError):  # pbem may have hung up first
                peer.conn.shutdown(2)
    server.on["greeting"] = greet
    (result, seconds) = timed(inbox, home, server)
    failed_cleanly(result, "IMAP server 127.0.0.1")
    assert seconds < SECONDS + 2


@pytest.mark.parametrize("reply", [
    b"* 1 FETCH (UID 1 BODY[] {abc}\r\n",
    b"* 1 FETCH (UID 1 BODY[] {" + b"9" * 5000 + b"}\r\n",
    b"* 1 FETCH (UID 1 BODY[] {10}\r\nshort",  # then the connection drops mid-literal
    b"* 1 FETCH (UID 1 BODY[] {47}\r\n" + MAIL + b")\r\n* 2 FETCH )))\r\nX BAD\r\n",
    b")))\r\n",
])
def test_malformed_fetch_reply_is_exit_5(home: Home, server: Server, reply: bytes) -> None:
    def fetch(peer: Peer, tag: str, args: str) -> None:
        if "RFC822.SIZE" in args:
            server.fetch(peer, tag, args)
            return
        peer.send(reply)
        with contextlib.suppress(OSError):  # pbem may have hung up first, on what it read
            peer.conn.shutdown(2)  # and hang up
    server.on["FETCH"] = fetch
    failed_cleanly(inbox(home, server), "IMAP server 127.0.0.1")
    failed_cleanly(sync(home, server), "IMAP server 127.0.0.1")


def test_connection_dropped_mid_literal_is_named(home: Home, server: Server) -> None:
    def fetch(peer: Peer, tag: str, args: str) -> None:
        if "RFC822.SIZE" in args:
            server.fetch(peer, tag, args)
            return
        peer.send(b"* 1 FETCH (UID 1 BODY[] {47}\r\nFrom: bob")
        with contextlib.suppress(OSError):  # pbem may have hung up first
            peer.conn.shutdown(2)
    server.on["FETCH"] = fetch
    failed_cleanly(inbox(home, server), "closed the connection in the middle of a message",
                   "9 of 47 bytes came")


def test_garbage_sizes_are_not_a_crash(home: Home, server: Server) -> None:
    def fetch(peer: Peer, tag: str, args: str) -> None:
        peer.send(b"* 1 FETCH (UID 99999999999999999999 RFC822.SIZE 1)\r\n"
                  b"* 2 FETCH (UID 2 RFC822.SIZE " + b"9" * 5000 + b")\r\n"
                  + tag.encode() + b" OK done\r\n")
    server.on["FETCH"] = fetch
    result = inbox(home, server, "--json")
    assert result.exit_code == 0 and json.loads(result.output)["messages"] == 0


# ---- a server that never finishes --------------------------------------------------------------
def trickle(peer: Peer, tag: str, args: str) -> None:
    peer.trickle(b"* SEARCH 1 2 3 " + b"4 " * 1000 + b"\r\n", 0.1)


def test_trickling_server_meets_the_overall_deadline(home: Home, server: Server) -> None:
    """One byte every 0.1 s never trips a socket timeout (60 s); the deadline fires."""
    server.on["SEARCH"] = trickle
    result, seconds = timed(inbox, home, server)
    failed_cleanly(result, f"did not finish within {SECONDS} s (--imap-timeout)")
    assert SECONDS <= seconds < SECONDS + 2


def test_trickling_greeting_meets_the_deadline(home: Home, server: Server) -> None:
    server.on["greeting"] = lambda peer, tag, args: peer.trickle(b"* OK " + b"." * 1000, 0.1)
    result, seconds = timed(inbox, home, server)
    failed_cleanly(result, f"did not finish within {SECONDS} s", "during connect")
    assert seconds < SECONDS + 2


def test_silent_server_meets_the_deadline_not_the_socket_timeout(home: Home,
                                                                  server: Server) -> None:
    server.on["SEARCH"] = lambda peer, tag, args: peer.stop.wait(30)
    result, seconds = timed(inbox, home, server)
    failed_cleanly(result, "did not finish within")
    assert seconds < SECONDS + 2


def test_sync_every_reports_a_failed_pass_and_goes_on(home: Home, server: Server,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    server.on["SEARCH"] = trickle
    sleeps: list[float] = []
    real_sleep = time.sleep

    def sleep(seconds: float) -> None:  # the second wait ends the loop, as Ctrl-C does
        if seconds < 60:  # not the loop's (a subprocess waiting, say)
            real_sleep(seconds)
            return
        sleeps.append(seconds)
        if len(sleeps) == 2:
            raise KeyboardInterrupt
    monkeypatch.setattr(time, "sleep", sleep)
    result, seconds = timed(sync, home, server, "--every", "1")
    assert result.exit_code == 0, result.output
    assert result.output.count(f"did not finish within {SECONDS} s") == 2
    assert sleeps == [60, 60] and server.sessions == 2 and seconds < 2 * SECONDS + 3


# ---- a server that floods -----------------------------------------------------------------------
def test_endless_untagged_responses_are_cut_off(home: Home, server: Server) -> None:
    server.on["SEARCH"] = lambda peer, tag, args: peer.flood(b"* OK still here\r\n")
    result, seconds = timed(inbox, home, server)
    failed_cleanly(result, "sent more responses than pbem reads for a SEARCH")
    assert seconds < SECONDS


def test_endless_untagged_responses_at_login_are_cut_off(home: Home, server: Server) -> None:
    server.on["LOGIN"] = lambda peer, tag, args: peer.flood(b"* CAPABILITY IMAP4rev1 X\r\n")
    failed_cleanly(inbox(home, server), "sent more responses than pbem reads for the login")


def test_long_lines_are_cut_off_by_bytes(home: Home, server: Server) -> None:
    server.on["FETCH"] = lambda peer, tag, args: peer.flood(
        b"* 1 FETCH (UID 1 X-JUNK " + b"x" * 900_000 + b")\r\n")
    failed_cleanly(inbox(home, server), "sent more than pbem reads for the sizes of messages")


def test_endless_line_is_cut_off(home: Home, server: Server) -> None:
    server.on["SEARCH"] = lambda peer, tag, args: peer.flood(b"* SEARCH 1 2 3 ")
    failed_cleanly(inbox(home, server), "sent a line of more than 1,000,000 bytes")


def test_huge_announced_literal_is_refused_before_reading(home: Home, server: Server) -> None:
    """RFC822.SIZE says 47 bytes; the literal says 2 GB and then sends bytes while it can:
    pbem reads none of them."""
    def fetch(peer: Peer, tag: str, args: str) -> None:
        if "RFC822.SIZE" in args:
            server.fetch(peer, tag, args)
            return
        peer.send(b"* 1 FETCH (UID 1 BODY[] {2000000000}\r\n")
        peer.flood(b"x" * 1000)
    server.on["FETCH"] = fetch
    result, seconds = timed(inbox, home, server)
    failed_cleanly(result, "announced 2,000,000,000 bytes in one piece for a message",
                   "never over 33,554,432: --max-size")
    assert seconds < SECONDS


def test_literal_within_size_but_over_max_size_is_refused(home: Home, server: Server) -> None:
    """A server that says a message is small is held to --max-size (x4), whatever it says."""
    big = b"From: x\r\n\r\n" + b"y" * (5 * 1024 * 1024)

    def fetch(peer: Peer, tag: str, args: str) -> None:
        if "RFC822.SIZE" in args:
            server.fetch(peer, tag, args)
            return
        peer.send(b"* 1 FETCH (UID 1 BODY[] {%d}\r\n" % len(big) + big + b")\r\n")
    server.on["FETCH"] = fetch
    failed_cleanly(inbox(home, server, "--max-size", "1"), "in one piece for a message")


def test_a_header_announced_huge_is_refused(home: Home, server: Server) -> None:
    """A message said to be 2 GB gets only its header fetched; a header literal of 2 GB
    is refused too, before it is read."""
    def fetch(peer: Peer, tag: str, args: str) -> None:
        if "RFC822.SIZE" in args:
            peer.send(b"* 1 FETCH (UID 1 RFC822.SIZE 2000000000)\r\n%b OK done\r\n"
                      % tag.encode())
            return
        assert "HEADER" in args
        peer.send(b"* 1 FETCH (UID 1 BODY[HEADER] {2000000000}\r\n")
        peer.flood(b"x" * 1000)
    server.on["FETCH"] = fetch
    result, seconds = timed(inbox, home, server, "--max-size", "1")
    failed_cleanly(result, "announced 2,000,000,000 bytes", "over the 4,194,304 pbem reads", "--max-size")
    assert seconds < SECONDS


def test_a_message_over_the_cap_is_only_its_header(home: Home, server: Server) -> None:
    server.messages[2] = b"From: x\r\nSubject: pbem\r\n\r\n" + b"y" * (5 * 1024 * 1024)
    result = inbox(home, server, "--max-size", "1", "--json")
    assert result.exit_code == 0, result.output
    assert [p["code"] for p in json.loads(result.output)["problems"]] == ["too-large"]


# ---- what was read before the server failed is kept -----------------------------------------
def test_messages_read_before_a_failure_are_not_read_again(home: Home, server: Server) -> None:
    server.messages.update({uid: MAIL for uid in range(4, 52)})  # 51: two batches of bodies

    def fetch(peer: Peer, tag: str, args: str) -> None:
        if args.startswith("51 "):
            peer.stop.wait(30)  # the second batch never comes
        else:
            server.fetch(peer, tag, args)
    server.on["FETCH"] = fetch
    result = inbox(home, server, "--json")
    assert result.exit_code == 5 and json.loads(result.output)["messages"] == 50
    server.on.clear()
    again = json.loads(inbox(home, server, "--json").output)
    assert (again["messages"], again["already_read"]) == (1, 50)


def test_what_the_server_says_reaches_the_terminal_escaped_and_short(
        home: Home, server: Server) -> None:
    said = b"\x1b]0;owned\x07\x1b[2J" + b"x" * 5000
    server.on["SEARCH"] = lambda peer, tag, args: peer.send(
        tag.encode() + b" NO " + said + b"\r\n")
    for result in (inbox(home, server), inbox(home, server, "--json")):
        output = failed_cleanly(result, "refused SEARCH")
        assert "\x1b" not in output and "\x07" not in output and len(output) < 1500


def test_untagged_responses_do_not_pile_up_from_reply_to_reply(server: Server) -> None:
    def search(peer: Peer, tag: str, args: str) -> None:
        peer.send(b"* 3 RECENT\r\n" * 900)  # within one reply's budget of lines
        server.search(peer, tag, args)
    server.on["SEARCH"] = search
    reader = imap.Reader(imapurl.parse_url(server.url()),
                         imap.Login(password_command="echo pw", deadline=SECONDS))
    try:
        for _ in range(5):
            assert reader.new_uids(0) == [1, 2, 3]
        kept = sum(len(v) for v in reader.client.untagged_responses.values())
        assert kept <= 900
    finally:
        reader.close()


# ---- the bounds themselves ------------------------------------------------------------------------
def test_guard_refuses_a_literal_from_its_announced_length() -> None:
    guard = imapwire.Guard(60)
    guard.allow(1000, 10, 100, "a message")
    guard.announced(100)
    with pytest.raises(imapwire.Misbehaved, match="announced 101 bytes"):
        guard.announced(101)
    guard.stop()


def test_data_sent_before_tls_began_is_refused() -> None:
    """Bytes that came in the clear after the STARTTLS reply are not read as if under TLS."""
    reader = imapwire.Plain.__new__(imapwire.Plain)
    reader._start(imapwire.Guard(60), 5)
    clear, server_end = socket.socketpair()
    tls, tls_end = socket.socketpair()
    try:
        server_end.sendall(b"X OK begin TLS\r\n* OK injected\r\n")
        reader.sock = clear
        assert reader.readline() == b"X OK begin TLS\r\n"
        reader.sock = tls  # as imaplib's starttls does
        with pytest.raises(imapwire.Misbehaved, match="before TLS began"):
            reader.readline()
    finally:
        for end in (clear, server_end, tls, tls_end):
            end.close()
        reader.guard.stop()


def test_login_deadline_defaults_to_the_documented_300_seconds() -> None:
    assert imap.Login().deadline == imap.DEADLINE == 300
    assert imapurl.parse_url("imap://a@127.0.0.1/INBOX").port == 143
