"""A small IMAP server on 127.0.0.1 that the tests teach to misbehave.

It speaks just enough IMAP for pbem's reader (CAPABILITY, LOGIN, EXAMINE, UID SEARCH,
UID FETCH, LOGOUT) over plain TCP (pbem allows imap:// without STARTTLS on loopback).
A test replaces one reply with a function of its own (``Server.on``): it writes whatever
it likes through :class:`Peer`, trickles bytes, floods, or hangs up. Everything stops
when the server does: no thread outlives the test."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field

UIDVALIDITY = 7


class Peer:
    """One client connection, as the server sees it."""

    def __init__(self, conn: socket.socket, stop: threading.Event) -> None:
        self.conn, self.stop = conn, stop
        self.buffer = b""

    def send(self, data: bytes) -> bool:
        """False once the client has gone (or the server stops)."""
        if self.stop.is_set():
            return False
        try:
            self.conn.sendall(data)
        except OSError:
            return False
        return True

    def trickle(self, data: bytes, interval: float) -> None:
        """``data`` one byte at a time, ``interval`` seconds apart."""
        for byte in data:
            if not self.send(bytes([byte])) or self.stop.wait(interval):
                return

    def flood(self, line: bytes) -> None:
        """``line`` again and again until the client hangs up."""
        block = line * max(1, 65536 // len(line))
        while self.send(block):
            pass

    def line(self) -> bytes | None:
        while b"\r\n" not in self.buffer:
            try:
                chunk = self.conn.recv(65536)
            except OSError:
                return None
            if not chunk:
                return None
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\r\n", 1)
        return line


Reply = Callable[[Peer, str, str], None]  # (peer, tag, arguments)


@dataclass
class Server:
    messages: dict[int, bytes] = field(default_factory=dict)
    on: dict[str, Reply] = field(default_factory=dict)  # "greeting", "SEARCH", "FETCH"...
    port: int = 0
    stop: threading.Event = field(default_factory=threading.Event)
    sessions: int = 0

    def url(self, user: str = "ann") -> str:
        return f"imap://{user}@127.0.0.1:{self.port}/INBOX"

    # ---- the replies of a server that behaves ----
    def greeting(self, peer: Peer, tag: str, args: str) -> None:
        peer.send(b"* OK [CAPABILITY IMAP4rev1] hostile test server ready\r\n")

    def search(self, peer: Peer, tag: str, args: str) -> None:
        low = int(args.split()[-1].split(":")[0])
        found = " ".join(str(uid) for uid in sorted(self.messages) if uid >= low)
        peer.send(f"* SEARCH {found}\r\n{tag} OK done\r\n".encode())

    def fetch(self, peer: Peer, tag: str, args: str) -> None:
        wanted = _uids(args.split()[0], max(self.messages, default=0))
        for number, uid in enumerate(sorted(self.messages), start=1):
            if uid not in wanted:
                continue
            data = self.messages[uid]
            if "RFC822.SIZE" in args:
                peer.send(f"* {number} FETCH (UID {uid} RFC822.SIZE {len(data)})\r\n".encode())
            else:
                part = "BODY[HEADER]" if "HEADER" in args else "BODY[]"
                if "HEADER" in args:
                    data = data.split(b"\r\n\r\n")[0] + b"\r\n\r\n"
                peer.send(f"* {number} FETCH (UID {uid} {part} {{{len(data)}}}\r\n".encode()
                          + data + b")\r\n")
        peer.send(f"{tag} OK done\r\n".encode())

    def reply(self, peer: Peer, command: str, tag: str, args: str) -> bool:
        """Answer one command; False to hang up."""
        if command in self.on:
            self.on[command](peer, tag, args)
        elif command == "CAPABILITY":
            peer.send(f"* CAPABILITY IMAP4rev1\r\n{tag} OK done\r\n".encode())
        elif command in ("EXAMINE", "SELECT"):
            peer.send(f"* {len(self.messages)} EXISTS\r\n* OK [UIDVALIDITY {UIDVALIDITY}] "
                      f"ok\r\n{tag} OK [READ-ONLY] done\r\n".encode())
        elif command == "SEARCH":
            self.search(peer, tag, args)
        elif command == "FETCH":
            self.fetch(peer, tag, args)
        elif command == "LOGOUT":
            peer.send(f"* BYE bye\r\n{tag} OK done\r\n".encode())
            return False
        else:
            peer.send(f"{tag} OK done\r\n".encode())
        return True

    def serve(self, conn: socket.socket) -> None:
        peer = Peer(conn, self.stop)
        with conn:
            self.on.get("greeting", self.greeting)(peer, "*", "")
            while (line := peer.line()) is not None:
                tag, _, rest = line.decode("ascii", "replace").partition(" ")
                command, _, args = rest.partition(" ")
                if command.upper() == "UID":
                    command, _, args = args.partition(" ")
                if not self.reply(peer, command.upper(), tag, args):
                    return


def _uids(text: str, highest: int) -> set[int]:
    out: set[int] = set()
    for part in text.split(","):
        low, _, high = part.partition(":")
        top = highest if high == "*" else int(high or low)
        out.update(range(int(low), max(top, int(low)) + 1))
    return out


@contextmanager
def running(server: Server) -> Iterator[Server]:
    """``server`` listening on a free loopback port until the block ends."""
    listener = socket.create_server(("127.0.0.1", 0))
    server.port = listener.getsockname()[1]
    threads: list[threading.Thread] = []
    conns: list[socket.socket] = []

    def accept() -> None:
        while not server.stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            server.sessions += 1
            conns.append(conn)
            thread = threading.Thread(target=server.serve, args=(conn,), daemon=True)
            threads.append(thread)
            thread.start()

    acceptor = threading.Thread(target=accept, daemon=True)
    acceptor.start()
    try:
        yield server
    finally:
        server.stop.set()
        with suppress(OSError):
            listener.shutdown(socket.SHUT_RDWR)
        listener.close()
        for conn in conns:
            with suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        acceptor.join(5)
        for thread in threads:
            thread.join(5)

