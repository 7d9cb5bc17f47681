"""This home's mail settings: its own address and how it sends mail (HOME/profile.toml).

Kept apart from ``identity.toml`` so the identity file stays exactly what keygen wrote.
A password is never stored here: only the name of an environment variable or a command
that prints it (``password_env``, ``password_command``), which pbem.smtp reads at send time.

    email = "ann@example.org"

    [smtp]
    host = "smtp.example.org"
    port = 587
    security = "starttls"        # starttls | tls | none
    user = "ann@example.org"
    password_env = "PBEM_SMTP_PASSWORD"
    auth = "login"               # login | xoauth2 (the password is then an OAuth2 token)

    sources = ["imaps://ann%40example.org@imap.example.org/INBOX", "/home/ann/Mail/pbem"]

    [imap]
    password_command = "pass show mail/imap"   # or an OAuth2 token command
    auth = "login"                             # login | xoauth2
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pbem import atomic, tomltext
from pbem.errors import UsageError
from pbem.protocol.crypto.identity import Home, check_address, is_address

FILE = "profile.toml"
SECURITY = ("starttls", "tls", "none")
SMTP_KEYS = ("host", "port", "security", "user", "password_env", "password_command", "auth")
SMTP_OPTIONS = {"host": "smtp", "auth": "smtp-auth"}  # the profile options not named as the key
IMAP_KEYS = ("password_command", "auth")
IMAP_AUTHS = ("login", "xoauth2")


@dataclass
class Profile:
    email: str = ""
    smtp: dict[str, Any] = field(default_factory=dict)
    imap: dict[str, Any] = field(default_factory=dict)
    sources: list[str] = field(default_factory=list)  # what 'pbem sync' reads
    extra: dict[str, Any] = field(default_factory=dict)  # other tables, kept as they are


def check_email(address: str) -> str:
    """``address`` stripped, or UsageError (exit 2): the one rule of pbem.protocol.crypto.identity."""
    return check_address(address)


def path(home: Home) -> Path:
    return home.path / FILE


def load(home: Home) -> Profile:
    """The home's profile; an empty one if the file does not exist."""
    try:
        with open(path(home), "rb") as fh:
            data = tomltext.load(fh)
    except FileNotFoundError:
        return Profile()
    except (OSError, tomltext.TOMLDecodeError) as exc:
        raise UsageError(f"{path(home)} is unreadable ({exc}); fix or delete it.") from None
    smtp = data.get("smtp", {})
    imap = data.get("imap", {})
    email = data.get("email", "")
    sources = data.get("sources", [])
    if not isinstance(smtp, dict) or not isinstance(email, str) or not isinstance(imap, dict):
        raise UsageError(f"{path(home)} is malformed: 'email' must be a string, [smtp] and "
                         "[imap] tables.")
    if not isinstance(sources, list) or not all(isinstance(x, str) for x in sources):
        raise UsageError(f"{path(home)} is malformed: 'sources' must be a list of strings.")
    extra = {k: v for k, v in data.items() if k not in ("email", "smtp", "imap", "sources")}
    return Profile(email=email, smtp=dict(smtp), imap=dict(imap), sources=list(sources),
                   extra=extra)


def save(home: Home, profile: Profile) -> None:
    """Replace the profile file atomically (it holds no secret, so 0644 is fine)."""

    doc: dict[str, Any] = {}
    if profile.email:
        doc["email"] = profile.email
    if profile.sources:
        doc["sources"] = profile.sources
    doc.update(profile.extra)
    if profile.smtp:
        doc["smtp"] = profile.smtp
    if profile.imap:
        doc["imap"] = profile.imap
    atomic.replace(path(home), tomltext.dumps(doc).encode("utf-8"))


def email(home: Home) -> str:
    """This home's own address, or '' if none was set; UsageError if the file holds
    anything but one plain address (it becomes the From: of every mail)."""
    address = load(home).email
    if address and not is_address(address):
        raise UsageError(f"The email in {path(home)} is not one plain mail address; set it "
                         "again with 'pbem profile --email ADDRESS'.")
    return address


def smtp_settings(home: Home) -> dict[str, Any]:
    """The stored SMTP settings, each checked (the file may have been edited by hand)."""
    stored = load(home).smtp
    for key, value in stored.items():
        if key not in SMTP_KEYS:
            continue  # an unknown key from a newer pbem or a typo: ignored, as before
        if key == "port":
            ok = isinstance(value, int) and not isinstance(value, bool) and 0 < value < 65536
        elif key == "security":
            ok = value in SECURITY
        elif key == "auth":
            ok = value in IMAP_AUTHS  # the same two ways to log in as IMAP's
        else:
            ok = isinstance(value, str) and value.strip() != "" and "\n" not in value
        if not ok:
            option = SMTP_OPTIONS.get(key, key.replace("_", "-"))
            raise UsageError(f"The SMTP setting {key} in {path(home)} is not valid ({value!r}); "
                             f"set it again with 'pbem profile --{option} ...'.")
    return {k: v for k, v in stored.items() if k in SMTP_KEYS}


def set_email(home: Home, address: str) -> str:
    """Remember this home's address (used as From: when mailing saves)."""
    profile = load(home)
    profile.email = check_email(address)
    save(home, profile)
    return profile.email


def set_smtp(home: Home, **settings: Any) -> dict[str, Any]:
    """Remember SMTP settings; a value of None removes that key. Never a password."""
    unknown = sorted(set(settings) - set(SMTP_KEYS))
    if unknown:
        hint = " pbem never stores a password: use password_env or password_command." \
            if any("pass" in k for k in unknown) else ""
        raise UsageError(f"Unknown SMTP setting {', '.join(unknown)}.{hint}")
    security = settings.get("security")
    if security is not None and security not in SECURITY:
        raise UsageError(f"SMTP security is one of {', '.join(SECURITY)}, not '{security}'.")
    auth = settings.get("auth")
    if auth is not None and auth not in IMAP_AUTHS:
        raise UsageError(f"SMTP auth is one of {', '.join(IMAP_AUTHS)}, not '{auth}'.")
    port = settings.get("port")
    if port is not None and (isinstance(port, bool) or not isinstance(port, int)
                             or not 0 < port < 65536):
        raise UsageError(f"SMTP port must be a number from 1 to 65535, not {port!r}.")
    profile = load(home)
    for key, value in settings.items():
        if value is None:
            profile.smtp.pop(key, None)
        else:
            profile.smtp[key] = value
    save(home, profile)
    return dict(profile.smtp)


def imap_settings(home: Home) -> dict[str, str]:
    """The stored IMAP login settings (password_command, auth), each checked."""
    stored = load(home).imap
    for key, value in stored.items():
        ok = value in IMAP_AUTHS if key == "auth" else (
            isinstance(value, str) and value.strip() != "" and "\n" not in value)
        if key in IMAP_KEYS and not ok:
            raise UsageError(f"The IMAP setting {key} in {path(home)} is not valid ({value!r}); "
                             f"set it again with 'pbem profile --imap-{key.replace('_', '-')} "
                             "...'.")
    return {k: str(v) for k, v in stored.items() if k in IMAP_KEYS}


def set_imap(home: Home, **settings: str | None) -> dict[str, Any]:
    """Remember IMAP login settings ('' removes one). Never a password."""
    auth = settings.get("auth")
    if auth and auth not in IMAP_AUTHS:
        raise UsageError(f"IMAP auth is one of {', '.join(IMAP_AUTHS)}, not '{auth}'.")
    profile = load(home)
    for key, value in settings.items():
        if value is None:
            continue
        if value == "":
            profile.imap.pop(key, None)
        else:
            profile.imap[key] = value
    save(home, profile)
    return dict(profile.imap)


def add_source(home: Home, source: str) -> list[str]:
    """Add a mail source (a path, kept absolute, or an IMAP address) for 'pbem sync'."""
    from pbem.mail import imapurl

    text = source.strip()
    if imapurl.is_url(text):
        imapurl.parse_url(text)  # a bad address is refused now, not at the next sync
    else:
        text = str(Path(text).expanduser().absolute())
    profile = load(home)
    if text not in profile.sources:
        profile.sources.append(text)
        save(home, profile)
    return list(profile.sources)


def remove_source(home: Home, source: str) -> list[str]:
    profile = load(home)
    text = source.strip()
    keep = [s for s in profile.sources
            if s != text and s != str(Path(text).expanduser().absolute())]
    if len(keep) == len(profile.sources):
        raise UsageError(f"{source} is not one of this home's sources ('pbem profile' lists "
                         "them).")
    profile.sources = keep
    save(home, profile)
    return keep


def game_setting(profile: Profile, game_id: str, key: str) -> Any:
    """A per-game setting (``[games.ID] key``), None if not set."""
    games = profile.extra.get("games")
    entry = games.get(game_id) if isinstance(games, dict) else None
    return entry.get(key) if isinstance(entry, dict) else None


def set_auto_answer(home: Home, on: bool, game_id: str | None = None) -> None:
    """Switch entries that answer themselves on or off, for the home or for one game."""
    profile = load(home)
    if game_id is None:
        profile.extra["auto_answer"] = on
    else:
        games = profile.extra.get("games")
        if not isinstance(games, dict):
            games = profile.extra["games"] = {}
        entry = games.get(game_id)
        if not isinstance(entry, dict):
            entry = games[game_id] = {}
        entry["auto_answer"] = on
    save(home, profile)
