"""Every fresh random value and every clock reading pbem takes, in one place.

Identity keys at keygen, game ids, the per-seat nonces of create/join entries (PROTOCOL.md
section 2) and a bot without a seed draw their bytes from :func:`fresh_bytes`; the
header's creation time (and, later, each entry's signed ``time``) comes from
:func:`utc_now`. Production reads the operating system's CSPRNG and clock and nothing
else: there is no switch here. The test suite replaces both functions (tests/conftest.py)
so every test runs the same trajectory every time. Call them through the module
(``entropy.fresh_bytes(32)``), never ``from ... import``, so that replacement reaches
every caller.
"""

from __future__ import annotations

import datetime
import os

TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"


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
    """The signer's clock, UTC, as ``"YYYY-MM-DDTHH:MM:SSZ"`` (PROTOCOL.md section 11)."""
    return datetime.datetime.now(datetime.UTC).strftime(TIME_FORMAT)
