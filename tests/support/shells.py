"""Drive a real interactive shell on a pseudo-terminal (tests of shell completion): type
a line, press Tab, and read what the shell then runs."""

from __future__ import annotations

import contextlib
import os
import pty
import select
import time


def _read_reply(fd: int, limit: float, quiet: float = 0.6) -> bytes:
    """What the shell writes in answer to a keystroke: everything until it has been quiet
    for ``quiet`` seconds after it began to answer (at most ``limit`` seconds)."""
    out = b""
    end = time.monotonic() + limit
    while (left := end - time.monotonic()) > 0:
        ready, _, _ = select.select([fd], [], [], min(left, quiet) if out else left)
        if not ready:
            if out:
                break
            continue
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    return out


def drive(argv: list[str], env: dict[str, str], steps: list[tuple[str, float]],
          until: bytes, limit: float = 60.0) -> str:
    """Start ``argv`` on a terminal, type each step's text and read the shell's answer
    (waiting at most the step's seconds), then read until ``until`` shows (keys typed
    ahead wait in the terminal, in order); all the shell wrote, as text."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: the shell
        os.execvpe(argv[0], argv, env)
    out = _read_reply(fd, 5.0)
    try:
        for text, wait in steps:
            os.write(fd, text.encode())
            out += _read_reply(fd, wait)
        end = time.monotonic() + limit
        while until not in out and time.monotonic() < end:
            out += _read_reply(fd, end - time.monotonic())
        os.write(fd, b"exit\r")
        out += _read_reply(fd, 5.0)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, 9)  # the shell this test started
        os.waitpid(pid, 0)
        os.close(fd)
    return out.decode(errors="replace")
