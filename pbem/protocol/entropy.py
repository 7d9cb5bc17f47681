"""Every fresh random value and every clock reading pbem takes, in one place.

Identity keys at keygen, game ids, the per-seat nonces of create/join entries (PROTOCOL.md
section 2) and a bot without a seed draw their bytes from :func:`fresh_bytes`; the
header's creation time, each entry's signed ``time`` and every "now" pbem compares with
(pbem.protocol.timing.now) come from :func:`utc_now`. Production reads the operating
system's CSPRNG and clock; the one switch is ``PBEM_CLOCK=YYYY-MM-DDTHH:MM:SSZ`` in the
environment, which sets the clock a process reads (CLI.md: scripts and tests play a week
in seconds) and changes nothing else. The test suite replaces :func:`fresh_bytes` and
:func:`system_clock` (tests/conftest.py) so every test runs the same trajectory every
time. Call them through the module (``entropy.fresh_bytes(32)``), never ``from ...
import``, so that replacement reaches every caller.
"""

from __future__ import annotations

import datetime
import os
import re

from pbem.errors import UsageError

TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"
CLOCK_VARIABLE = "PBEM_CLOCK"
_CLOCK = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$")


def parse_time(value: str) -> datetime.datetime:
    """A time written as TIME_FORMAT (the caller has checked its shape), in UTC;
    ValueError if it is no real date and time. The same as ``strptime`` with TIME_FORMAT,
    without importing ``_strptime`` (and ``locale``, ``calendar``) at every start-up."""
    return datetime.datetime(int(value[0:4]), int(value[5:7]), int(value[8:10]),
                             int(value[11:13]), int(value[14:16]), int(value[17:19]),
                             tzinfo=datetime.UTC)


def fresh_bytes(n: int) -> bytes:
    """``n`` bytes from the operating system's CSPRNG."""
    return os.urandom(n)


def utc_now() -> str:
    """The signer's clock, UTC, as ``"YYYY-MM-DDTHH:MM:SSZ"`` (PROTOCOL.md section 11):
    ``$PBEM_CLOCK`` if it is set, else the system's clock. A malformed ``PBEM_CLOCK`` is
    a usage error (exit 2), never silently the system's clock."""
    given = os.environ.get(CLOCK_VARIABLE)
    if given is None or given == "":
        return system_clock()
    if not _CLOCK.fullmatch(given):
        raise UsageError(f"{CLOCK_VARIABLE} must be a UTC time written as "
                         "YYYY-MM-DDTHH:MM:SSZ (e.g. 2025-06-02T10:00:00Z); unset it to use "
                         "the system's clock.")
    try:
        parse_time(given)
    except ValueError:
        raise UsageError(f"{CLOCK_VARIABLE} is not a real date and time; give one as "
                         "YYYY-MM-DDTHH:MM:SSZ.") from None
    return given


def system_clock() -> str:
    """The operating system's clock, UTC, as TIME_FORMAT."""
    return datetime.datetime.now(datetime.UTC).strftime(TIME_FORMAT)
