"""Reading an IMAP mailbox for ``pbem inbox`` (standard library imaplib).

``imaps://USER@HOST[:PORT]/MAILBOX`` is TLS from the first byte (port 993);
``imap://USER@HOST[:PORT]/MAILBOX`` is port 143 upgraded with STARTTLS, and refused
without it unless the server is on this machine (a password never crosses the network
unencrypted). USER may be a whole address (``ann@gmail.com@imap.gmail.com`` or
``ann%40gmail.com@...``); MAILBOX defaults to INBOX.

The mailbox is opened read-only (EXAMINE) and messages are fetched with BODY.PEEK, so
nothing is deleted, moved or flagged, not even as read. Only messages with a UID above
the last one read are fetched (pbem.mail.seen keeps it, with UIDVALIDITY).

Login: a password, or with ``auth="xoauth2"`` an OAuth2 access token (Gmail, Outlook),
both read at connect time from a command (``password_command``) or asked at the
terminal; pbem never stores either.

A server cannot make the session hang or swell (pbem.mail.imapwire): the whole session
has a deadline (``Login.deadline``, ``--imap-timeout``), each reply a budget of bytes and
lines, and a message literal may be no longer than the cap ``fetch`` is given. Whatever a
server sends that is not IMAP, or breaks a bound, is a MailServerError (exit 5).
"""

from __future__ import annotations

import contextlib
import imaplib
import re
import socket
import ssl
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from pbem.mail.imapurl import Source
from pbem.mail.imapwire import LINE_MAX, Guard, Misbehaved, Plain, Tls
from pbem.mail.message import MailConfigError
from pbem.mail.smtp import MailServerError, is_loopback, read_password
from pbem.terminal import shown

AUTHS = ("login", "xoauth2")
BATCH_MESSAGES = 50  # UIDs per FETCH of bodies
BATCH_BYTES = 16 * 1024 * 1024  # and at most this much mail per FETCH
DEADLINE = 300.0  # seconds a whole session may take (--imap-timeout)
SMALL_REPLY = 1024 * 1024  # bytes a reply that carries no message may take
UID_MAX = 2**32 - 1  # RFC 3501: a UID is a 32-bit number
_UID = re.compile(rb"UID (\d{1,10})\b")
_SIZE = re.compile(rb"RFC822\.SIZE (\d{1,10})\b")


@dataclass
class Login:
    """How to log in: ``auth`` is login (a password) or xoauth2 (a token); the secret
    comes from ``password_command`` or, failing that, ``ask`` (a prompt at a terminal)."""

    auth: str = "login"
    password_command: str | None = None
    ask: Callable[[str], str] | None = None
    timeout: float = 60
    context: ssl.SSLContext | None = None
    deadline: float = DEADLINE  # the whole session, from connecting to logging out

    def secret(self, source: Source) -> str:
        what = "OAuth2 token" if self.auth == "xoauth2" else "password"
        if self.password_command:
            value = read_password(None, self.password_command, timeout=self.timeout)
            assert value is not None
            return value
        if self.ask is not None:
            value = self.ask(f"IMAP {what} for {source.user} at {source.host}")
            if value:
                return value
        raise MailConfigError(
            f"No IMAP {what} for {source.user} at {source.host}: give --password-command "
            "CMD (a command that prints it), set one with 'pbem profile "
            "--imap-password-command CMD', or run at a terminal to be asked.")


@dataclass
class Fetched:
    uid: int
    size: int
    data: bytes | None  # None: over the size cap; ``header`` has its headers
    header: bytes = b""


class Reader:
    """One logged-in, read-only session on a mailbox."""

    def __init__(self, source: Source, login: Login) -> None:
        self.source = source
        self.where = f"{source.host}:{source.port}"
        self.uidvalidity = 0
        self.client = self._connect(login)

    def _connect(self, login: Login) -> imaplib.IMAP4:
        source, where = self.source, self.where
        if login.auth not in AUTHS:
            raise MailConfigError(f"IMAP --auth is one of {', '.join(AUTHS)}, not '{login.auth}'.")
        secret = login.secret(source)
        context = login.context or ssl.create_default_context()
        self.guard = guard = Guard(login.deadline)
        timeout = min(login.timeout, login.deadline)
        stage = "connect"
        client: imaplib.IMAP4 | None = None
        try:
            if source.tls:
                client = Tls(source.host, source.port, guard, timeout, context)
            else:
                client = Plain(source.host, source.port, guard, timeout)
                if "STARTTLS" in client.capabilities:
                    stage = "tls"
                    client.starttls(ssl_context=context)
                elif not is_loopback(source.host):
                    raise MailServerError(
                        f"The IMAP server {where} does not offer STARTTLS, so the password "
                        "would travel unencrypted. Use imaps:// instead.", code="tls")
            stage = "login"
            guard.allow(SMALL_REPLY, 1000, 64 * 1024, "the login")
            if login.auth == "xoauth2":
                token = f"user={source.user}\x01auth=Bearer {secret}\x01\x01".encode()
                client.authenticate("XOAUTH2", lambda _challenge: token)
            else:
                client.login(source.user, secret)
            stage = "select"
            guard.allow(SMALL_REPLY, 1000, 64 * 1024, f"the mailbox {source.mailbox}")
            kind, data = client.select(_quoted(source.mailbox), readonly=True)
            if kind != "OK":
                raise MailServerError(f"The IMAP server {where} has no mailbox "
                                      f"{source.mailbox} ({_said(data)}).", code="refused")
            validity = client.response("UIDVALIDITY")[1]
            self.uidvalidity = _number(validity[0], "UIDVALIDITY") if validity and validity[0] \
                else 0
            return client
        except MailServerError:
            _end(client, guard)
            raise
        except Exception as exc:  # every failure is a sentence, never a traceback
            _end(client, guard)
            raise _error(exc, stage, where, source.user, guard) from None

    def new_uids(self, after: int) -> list[int]:
        """The UIDs above ``after``, ascending."""
        self.guard.allow(2 * LINE_MAX, 1000, 64 * 1024, "a SEARCH")
        data = self._uid("SEARCH", f"UID {after + 1}:*")
        words = b" ".join(d for d in data if isinstance(d, bytes)).split()
        found = sorted({self._checked(word, "UID") for word in words})
        return [u for u in found if u > after]  # "N:*" always matches the highest UID

    def fetch(self, uids: list[int], cap: int) -> Iterator[Fetched]:
        """Each message (UID order), whole if at most ``cap`` bytes, else its header."""
        sizes: dict[int, int] = {}
        for chunk in _chunks(uids, 500):
            self.guard.allow(SMALL_REPLY + 200 * len(chunk), 1000 + 2 * len(chunk), 64 * 1024,
                             "the sizes of messages")
            data = self._uid("FETCH", _set(chunk), "(UID RFC822.SIZE)")
            for item in data:
                line = item[0] if isinstance(item, tuple) else item
                got_uid, got_size = _UID.search(line or b""), _SIZE.search(line or b"")
                if got_uid and got_size:
                    sizes[int(got_uid.group(1))] = int(got_size.group(1))
        batch: list[int] = []
        total = 0
        for uid in uids:
            size = sizes.get(uid)
            if size is None:
                continue  # expunged meanwhile
            if size > cap:
                yield from self._bodies([uid], "BODY.PEEK[HEADER]", sizes, cap, whole=False)
                continue
            if batch and (len(batch) >= BATCH_MESSAGES or total + size > BATCH_BYTES):
                yield from self._bodies(batch, "BODY.PEEK[]", sizes, cap)
                batch, total = [], 0
            batch.append(uid)
            total += size
        if batch:
            yield from self._bodies(batch, "BODY.PEEK[]", sizes, cap)

    def _bodies(self, uids: list[int], part: str, size_of: dict[int, int], cap: int,
                whole: bool = True) -> Iterator[Fetched]:
        # Each literal at most the size the server gave (and a little: a server may count
        # differently) and never over ``cap``, whatever size it gave; the reply in all
        # at most twice what it said.
        said = [min(size_of[uid], cap) for uid in uids]
        self.guard.allow(SMALL_REPLY + 2 * sum(said), 1000 + 4 * len(uids),
                         min(max(said) + 64 * 1024, cap), "a message",
                         f"the size the server gave for it, and never over {cap:,}: "
                         "--max-size")
        data = self._uid("FETCH", _set(uids), f"(UID {part})")
        got: dict[int, bytes] = {}
        for index, item in enumerate(data):
            if not isinstance(item, tuple):
                continue
            # The UID may come before the literal or after it (in the next item).
            after = data[index + 1] if index + 1 < len(data) else b""
            found = _UID.search(item[0]) or _UID.search(after if isinstance(after, bytes)
                                                        else b"")
            if found:
                got[int(found.group(1))] = item[1]
        for uid in uids:
            if uid in got:
                body = got[uid]
                yield Fetched(uid, size_of[uid], body if whole else None,
                              b"" if whole else body)

    def _uid(self, command: str, *args: str) -> list[Any]:
        # imaplib keeps every untagged response until it is asked for, command after
        # command: none kept from before is wanted, and each reply is bounded alone.
        self.client.untagged_responses.clear()
        try:
            kind, data = self.client.uid(command, *args)
        except Exception as exc:
            raise _error(exc, "read", self.where, self.source.user, self.guard) from None
        if kind != "OK":
            raise MailServerError(f"The IMAP server {self.where} refused {command} "
                                  f"({_said(data)}).", code="refused")
        return list(data)

    def _checked(self, word: bytes, what: str) -> int:
        try:
            return _number(word, what)
        except Misbehaved as exc:
            raise _error(exc, "read", self.where, self.source.user, self.guard) from None

    def close(self) -> None:
        self.guard.allow(SMALL_REPLY, 1000, 64 * 1024, "the logout")
        _end(self.client, self.guard)


def _number(word: bytes, what: str) -> int:
    """A UID or UIDVALIDITY from the server: a number from 1 to 2**32-1."""
    if not (word.isdigit() and len(word) <= 10 and 0 < int(word) <= UID_MAX):
        raise Misbehaved(f"sent {shown(word.decode('ascii', 'replace'))} as a {what}, "
                         "which is not one")
    return int(word)


def _end(client: imaplib.IMAP4 | None, guard: Guard) -> None:
    """Log out (within the session's deadline) and stop its watchdog."""
    if client is not None:
        _close(client)
    guard.stop()


def _chunks(items: list[int], size: int) -> Iterator[list[int]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


def _set(uids: list[int]) -> str:
    """A UID set, runs written as ranges (3000 UIDs in a row are one 'a:b')."""
    parts: list[str] = []
    start = prev = uids[0]
    for uid in uids[1:] + [0]:
        if uid == prev + 1:
            prev = uid
            continue
        parts.append(str(start) if start == prev else f"{start}:{prev}")
        start = prev = uid
    return ",".join(parts)


def _quoted(mailbox: str) -> str:
    return f'"{mailbox}"'


def _said(data: object) -> str:
    if isinstance(data, list) and data and isinstance(data[0], bytes):
        text = data[0].decode("utf-8", "replace")
    else:
        text = str(data)
    return " ".join(text.split())[:200]


def _close(client: imaplib.IMAP4) -> None:
    with contextlib.suppress(Exception):  # the session is over either way
        client.logout()


def _server_words(exc: Exception) -> str:
    """What the server said, as text: imaplib passes on its reply as bytes (shown as
    "b'...'" by str), on one line and cut short."""
    said = exc.args[0] if len(exc.args) == 1 else exc
    text = said.decode("utf-8", "replace") if isinstance(said, bytes) else str(said)
    return " ".join(text.split())[:200]


def _error(exc: Exception, stage: str, where: str, user: str, guard: Guard) -> Exception:
    """The sentence for what interrupted reading at ``stage``."""
    if guard.expired:  # whatever broke, the deadline broke it
        exc = Misbehaved(f"did not finish within {guard.seconds:g} s (--imap-timeout)")
    if isinstance(exc, Misbehaved):
        return MailServerError(f"The IMAP server {where} {exc.args[0]} (during {stage}); "
                               "pbem stopped reading from it.", code="misbehaved")
    if isinstance(exc, ssl.SSLError | ssl.CertificateError):
        return MailServerError(f"The TLS connection to the IMAP server {where} failed ({exc}). "
                               "Check the host name and the server's certificate.", code="tls")
    if isinstance(exc, imaplib.IMAP4.error) and stage == "login":
        return MailServerError(f"The IMAP server {where} refused the login for {user} "
                               f"({_server_words(exc)}). Check the user name and "
                               "the password (Gmail and Outlook need an app password or an "
                               "OAuth2 token: --auth xoauth2).", code="auth")
    if isinstance(exc, UnicodeError | ValueError) and stage == "connect" and not guard.watching:
        return MailConfigError(f"'{where}' is not a usable IMAP server name or address ({exc}).")
    if isinstance(exc, socket.gaierror):
        return MailServerError(f"Could not reach the IMAP server {where} (unknown host).",
                               code="unreachable")
    if isinstance(exc, OSError) and stage == "connect" and not guard.watching:
        why = exc.strerror or str(exc) or type(exc).__name__
        return MailServerError(f"Could not reach the IMAP server {where} ({why}).",
                               code="unreachable")
    why = _server_words(exc) or type(exc).__name__
    return MailServerError(f"Reading from the IMAP server {where} failed during {stage} ({why}).",
                           code="unreachable")
