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
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pbem import atomic, tomltext
from pbem.errors import UsageError
from pbem.protocol.identity import Home, check_address, is_address

FILE = "profile.toml"
SECURITY = ("starttls", "tls", "none")
SMTP_KEYS = ("host", "port", "security", "user", "password_env", "password_command")


@dataclass
class Profile:
    email: str = ""
    smtp: dict[str, Any] = field(default_factory=dict)


def check_email(address: str) -> str:
    """``address`` stripped, or UsageError (exit 2): the one rule of pbem.protocol.identity."""
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
    email = data.get("email", "")
    if not isinstance(smtp, dict) or not isinstance(email, str):
        raise UsageError(f"{path(home)} is malformed: 'email' must be a string and [smtp] a table.")
    return Profile(email=email, smtp=dict(smtp))


def save(home: Home, profile: Profile) -> None:
    """Replace the profile file atomically (it holds no secret, so 0644 is fine)."""

    doc: dict[str, Any] = {}
    if profile.email:
        doc["email"] = profile.email
    if profile.smtp:
        doc["smtp"] = profile.smtp
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
        else:
            ok = isinstance(value, str) and value.strip() != "" and "\n" not in value
        if not ok:
            raise UsageError(f"The SMTP setting {key} in {path(home)} is not valid ({value!r}); "
                             f"set it again with 'pbem profile --{key.replace('_', '-')} ...'.")
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
