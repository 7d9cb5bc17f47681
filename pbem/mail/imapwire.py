"""An IMAP connection a server cannot make hang or swell (below pbem.mail.imap).

imaplib reads a line with no deadline (a server sending one byte every few seconds never
trips the socket timeout), keeps every untagged response of a command in memory, and
reads a literal of whatever length the server announces. Here each session has:

- an overall deadline: a watchdog shuts the socket down when it passes, whatever the
  session is doing (the TLS handshake included), and every read checks it;
- per command, a budget of bytes and lines the reply may take, and a largest literal,
  refused from its announced length before a byte of it is read;
- lines of at most :data:`LINE_MAX` bytes (imaplib's own limit).

A breach raises :class:`Misbehaved` with the end of a sentence saying what the server
did; pbem.mail.imap turns it into a MailServerError (exit 5).
"""

from __future__ import annotations

import contextlib
import imaplib
import socket
import threading
import time
from typing import Any

LINE_MAX = 1_000_000  # as imaplib._MAXLINE
CHUNK = 64 * 1024


class Misbehaved(Exception):
    """The server broke a bound; ``args[0]`` ends the sentence "The IMAP server X ..."."""


class Guard:
    """The bounds of one session: its deadline (from creation) and the budget of the
    command under way (:meth:`allow`)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.ends = time.monotonic() + seconds
        self.expired = False
        self._alarm: socket.socket | None = None
        self._timer: threading.Timer | None = None
        self.allow(1024 * 1024, 1000, 64 * 1024, "its greeting")

    def allow(self, nbytes: int, lines: int, literal: int, what: str, why: str = "") -> None:
        """The next reply may take ``nbytes`` bytes in ``lines`` lines, no literal over
        ``literal`` bytes (``why``: where that limit comes from); ``what`` names the
        reply in the sentence when it breaks one."""
        self.bytes_left, self.lines_left, self.literal = nbytes, lines, literal
        self.what, self.why = what, why

    def remaining(self) -> float:
        left = self.ends - time.monotonic()
        if left <= 0 or self.expired:
            self.expired = True
            raise Misbehaved(f"did not finish within {self.seconds:g} s (--imap-timeout)")
        return left

    def took(self, size: int, *, line: bool) -> None:
        self.bytes_left -= size
        self.lines_left -= line
        if self.bytes_left < 0:
            raise Misbehaved(f"sent more than pbem reads for {self.what}")
        if self.lines_left < 0:
            raise Misbehaved(f"sent more responses than pbem reads for {self.what}")

    def announced(self, size: int) -> None:
        """A literal of ``size`` bytes is coming: refused before it is read if too long."""
        if size > self.literal or size > self.bytes_left:
            raise Misbehaved(f"announced {size:,} bytes in one piece for {self.what}, over "
                             f"the {min(self.literal, max(self.bytes_left, 0)):,} pbem reads"
                             + (f" ({self.why})" if self.why else ""))

    def watch(self, sock: socket.socket) -> None:
        """Shut ``sock`` down when the deadline passes (a duplicate of it is kept: the TLS
        layer takes over the original)."""
        self._alarm = sock.dup()
        self._timer = threading.Timer(max(self.ends - time.monotonic(), 0), self._expire)
        self._timer.daemon = True
        self._timer.start()

    @property
    def watching(self) -> bool:
        """Whether a connection was made (and is watched)."""
        return self._alarm is not None

    def _expire(self) -> None:
        self.expired = True
        if self._alarm is not None:
            with contextlib.suppress(OSError):
                self._alarm.shutdown(socket.SHUT_RDWR)

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        if self._alarm is not None:
            self._alarm.close()


class _Bounded:
    """read/readline for imaplib from the socket itself, through :class:`Guard`."""

    guard: Guard
    sock: Any
    recv_timeout: float

    def _start(self, guard: Guard, recv_timeout: float) -> None:
        self.guard, self.recv_timeout = guard, recv_timeout
        self._buffer = bytearray()
        self._buffer_of: object = None

    def _create_socket(self, timeout: float | None) -> socket.socket:
        sock = imaplib.IMAP4._create_socket(self, timeout)  # type: ignore[attr-defined]
        self.guard.watch(sock)
        return sock

    def _same_socket(self) -> None:
        """After STARTTLS the socket is a new (TLS) one: what came before in the clear
        and is still unread was slipped in by someone, not said under TLS."""
        if self._buffer_of is not self.sock:
            if self._buffer:
                raise Misbehaved("sent data before TLS began")
            self._buffer_of = self.sock

    def _fill(self) -> bool:
        """More bytes into the buffer; False at the end of the connection."""
        self.sock.settimeout(min(self.recv_timeout, self.guard.remaining()))
        try:
            chunk = self.sock.recv(CHUNK)
        except OSError:
            self.guard.remaining()  # the deadline shut the socket: say so
            raise
        if not chunk:
            self.guard.remaining()
        self._buffer += chunk
        return bool(chunk)

    def readline(self) -> bytes:
        self._same_socket()
        start = 0
        while (end := self._buffer.find(b"\n", start)) < 0:
            start = len(self._buffer)
            if start > LINE_MAX:
                raise Misbehaved(f"sent a line of more than {LINE_MAX:,} bytes")
            if start > self.guard.bytes_left:
                self.guard.took(start, line=True)
            if not self._fill():
                end = len(self._buffer) - 1
                break
        line = bytes(self._buffer[:end + 1])
        del self._buffer[:end + 1]
        self.guard.took(len(line), line=True)
        return line

    def read(self, size: int) -> bytes:
        self._same_socket()
        self.guard.announced(size)
        while len(self._buffer) < size:
            if not self._fill():
                raise Misbehaved(f"closed the connection in the middle of {self.guard.what} "
                                 f"({len(self._buffer):,} of {size:,} bytes came)")
        data = bytes(self._buffer[:size])
        del self._buffer[:size]
        self.guard.took(size, line=False)
        return data


class Plain(_Bounded, imaplib.IMAP4):
    def __init__(self, host: str, port: int, guard: Guard, timeout: float) -> None:
        self._start(guard, timeout)
        super().__init__(host, port, timeout=timeout)


class Tls(_Bounded, imaplib.IMAP4_SSL):
    def __init__(self, host: str, port: int, guard: Guard, timeout: float,
                 ssl_context: Any) -> None:
        self._start(guard, timeout)
        super().__init__(host, port, ssl_context=ssl_context, timeout=timeout)

    def _create_socket(self, timeout: float | None) -> socket.socket:
        sock = super()._create_socket(timeout)  # watched before the handshake
        wrapped: socket.socket = self.ssl_context.wrap_socket(sock, server_hostname=self.host)
        return wrapped
