"""IMAP addresses (``imaps://USER@HOST[:PORT]/MAILBOX``): telling one from a path and
reading it, below the IMAP reader (pbem.mail.imap) and the profile that keeps sources.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from pbem.errors import UsageError

SCHEMES = {"imap": 143, "imaps": 993}


def is_url(text: str) -> bool:
    return text.lower().startswith(("imap://", "imaps://"))


@dataclass(frozen=True)
class Source:
    tls: bool
    user: str
    host: str
    port: int
    mailbox: str

    @property
    def key(self) -> str:
        """The name its seen-record is kept under (and shown in reports)."""
        scheme = "imaps" if self.tls else "imap"
        return f"{scheme}://{self.user}@{self.host}:{self.port}/{self.mailbox}"


def parse_url(text: str) -> Source:
    """The IMAP source a URL names; UsageError (exit 2) saying what is wrong with it."""
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError as exc:
        raise UsageError(f"{text} is not an IMAP address ({exc}); write it as "
                         "imaps://USER@HOST[:PORT]/MAILBOX.") from None
    scheme = parts.scheme.lower()
    user = unquote(parts.username or "")
    host = parts.hostname or ""
    mailbox = unquote(parts.path.lstrip("/")) or "INBOX"
    if scheme not in SCHEMES or not user or not host:
        raise UsageError(f"{text} is not an IMAP address: write it as "
                         "imaps://USER@HOST[:PORT]/MAILBOX (USER is the login, often your "
                         "whole mail address).")
    if parts.password is not None:
        raise UsageError("Do not put the password in the IMAP address: pbem reads it from "
                         "--password-command, the profile's password_command, or asks for it.")
    if parts.query or parts.fragment or not mailbox.isascii() or not mailbox.isprintable() \
            or '"' in mailbox or "\\" in mailbox:
        raise UsageError(f"The mailbox name in {text} is not one pbem can ask for (plain "
                         "ASCII, no quotes or backslashes).")
    if not (user.isascii() and user.isprintable()) or any(c.isspace() for c in host):
        raise UsageError(f"The user or host in {text} is not plain ASCII text.")
    return Source(scheme == "imaps", user, host, port or SCHEMES[scheme], mailbox)
