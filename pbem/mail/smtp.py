"""Sending a composed message through an SMTP server (standard library smtplib).

The password is never stored: it is read at send time from an environment variable
(``password_env``) or from the first line a command prints (``password_command``, run by
the shell as msmtp's ``passwordeval`` is, so ``pass show mail`` or a keychain tool works).
With ``auth="xoauth2"`` that secret is an OAuth2 access token instead (a provider that
allows no app password), sent by XOAUTH2 or OAUTHBEARER, whichever the server offers.

Two error classes, so scripts can tell "fix your settings" from "try again later":

- :class:`MailConfigError` (exit 2): found before any connection, or a setting that
  cannot work (no sender, no recipient, unknown security mode, a password source that
  yields nothing, a password that would cross the network unencrypted).
- :class:`MailServerError` (exit 5): the server could not be reached, refused TLS, the
  login, the sender or every recipient, or hung up. ``code`` says which: unreachable,
  tls, auth, refused.
"""

from __future__ import annotations

import ipaddress
import os
import smtplib
import socket
import ssl
import subprocess
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import getaddresses
from typing import Any

from pbem.errors import PbemError
from pbem.mail.message import MailConfigError
from pbem.protocol.crypto.identity import Home

SECURITY = ("starttls", "tls", "none")
AUTHS = ("login", "xoauth2")  # a password; an OAuth2 access token (as pbem.mail.imap)
PASSWORD_MECHANISMS = ("CRAM-MD5", "PLAIN", "LOGIN")  # the ones smtplib's login() makes
TOKEN_MECHANISMS = ("XOAUTH2", "OAUTHBEARER")  # Outlook offers only the first
DEFAULT_PORTS = {"starttls": 587, "tls": 465, "none": 25}
EXIT_SERVER = 5  # proposed in CLI.md: delivery failed, nothing (or not everything) was sent


class MailServerError(PbemError):
    """The SMTP server was unreachable or refused the message (exit 5)."""

    exit_code = EXIT_SERVER


@dataclass
class SendResult:
    """What the server accepted. ``refused`` maps an address to the server's reply for
    recipients it turned down while accepting others."""

    host: str
    port: int
    sender: str
    accepted: list[str]
    refused: dict[str, str] = field(default_factory=dict)


def is_loopback(host: str) -> bool:
    if host.lower() in ("localhost", "localhost.localdomain"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def read_password(password_env: str | None = None, password_command: str | None = None,
                  *, timeout: float = 30) -> str | None:
    """The password from ``$password_env`` or from ``password_command``'s first line of
    output; None if neither is given. MailConfigError if the source yields nothing."""
    if password_env and password_command:
        raise MailConfigError("Give the SMTP password through an environment variable or a "
                              "command, not both.")
    if password_env:
        value = os.environ.get(password_env)
        if not value:
            raise MailConfigError(f"The environment variable {password_env} (which should hold "
                                  "the SMTP password) is not set or is empty.")
        return value
    if password_command:
        try:
            done = subprocess.run(password_command, shell=True, capture_output=True,  # noqa: S602
                                  timeout=timeout, check=False, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            raise MailConfigError(f"The password command did not finish within {timeout:g} s: "
                                  f"{password_command}") from None
        except OSError as exc:
            raise MailConfigError(f"The password command could not run ({exc.strerror}).") from None
        if done.returncode != 0:
            said = done.stderr.decode("utf-8", "replace").strip().splitlines()
            why = (said or [f"exit status {done.returncode}"])[0]
            raise MailConfigError(f"The password command failed ({why}): {password_command}")
        try:
            lines = done.stdout.decode("utf-8").splitlines()
        except UnicodeDecodeError:
            raise MailConfigError("The password command printed bytes that are not UTF-8 "
                                  f"text: {password_command}") from None
        if not lines or not lines[0]:
            raise MailConfigError(f"The password command printed nothing: {password_command}")
        return lines[0]
    return None


def envelope(message: EmailMessage) -> tuple[str, list[str]]:
    """(envelope sender, recipients) from From/Sender and To/Cc/Bcc; MailConfigError if
    either is missing."""
    sender_field = message.get("Sender") or message.get("From")
    senders = [a for _, a in getaddresses([str(sender_field)]) if a] if sender_field else []
    if not senders:
        raise MailConfigError("The message has no From address. Set yours with "
                              "'pbem profile --email ADDRESS'.")
    fields = [str(v) for name in ("To", "Cc", "Bcc") for v in message.get_all(name, [])]
    recipients = [a for _, a in getaddresses(fields) if a]
    if not recipients:
        raise MailConfigError("The message has no recipient (To, Cc or Bcc).")
    return senders[0], recipients


def check_settings(host: str, port: int | None = None, *, security: str = "starttls",
                   user: str | None = None, password_env: str | None = None,
                   password_command: str | None = None, timeout: float = 30,
                   auth: str = "login") -> int:
    """Every check :func:`send` makes before connecting, short of running the password
    command: MailConfigError for a setting that cannot work. Returns the port."""
    if security not in SECURITY:
        raise MailConfigError(f"SMTP security is one of {', '.join(SECURITY)}, not '{security}'.")
    if auth not in AUTHS:
        raise MailConfigError(f"SMTP auth is one of {', '.join(AUTHS)}, not '{auth}'.")
    if auth == "xoauth2" and not user:
        raise MailConfigError("An OAuth2 login names the account: give the SMTP user name "
                              "(--user).")
    if not host.strip() or any(ch.isspace() or not ch.isprintable() for ch in host):
        raise MailConfigError(f"'{host!r}' is not a usable mail server name or address.")
    if port is None:
        port = DEFAULT_PORTS[security]
    if not 0 < port < 65536:
        raise MailConfigError(f"SMTP port must be from 1 to 65535, not {port}.")
    if not timeout > 0:  # 0 would make the socket non-blocking, a negative one is refused
        raise MailConfigError(f"The SMTP timeout must be more than 0 seconds, not {timeout:g}.")
    if (password_env or password_command) and not user:
        raise MailConfigError("A password source was given without a user name (--user).")
    if user and not (password_env or password_command):
        if auth == "xoauth2":
            raise MailConfigError(f"No OAuth2 token for SMTP user {user}: give --password-command "
                                  "CMD (a command that prints a current access token) or "
                                  "--password-env VAR.")
        raise MailConfigError(f"No password for SMTP user {user}: give --password-env VAR or "
                              "--password-command CMD.")
    if password_env and password_command:
        raise MailConfigError("Give the SMTP password through an environment variable or a "
                              "command, not both.")
    if password_env and not os.environ.get(password_env):
        raise MailConfigError(f"The environment variable {password_env} (which should hold "
                              "the SMTP password) is not set or is empty.")
    if user and security == "none" and not is_loopback(host):
        raise MailConfigError(f"Refusing to send the SMTP password to {host} unencrypted; use "
                              "security starttls or tls.")
    return port


def send(message: EmailMessage, host: str, port: int | None = None, *,
         security: str = "starttls", user: str | None = None, password_env: str | None = None,
         password_command: str | None = None, timeout: float = 30,
         context: ssl.SSLContext | None = None, auth: str = "login") -> SendResult:
    """Send ``message`` through ``host``; return what was accepted.

    ``security``: "starttls" (port 587; refuses a server that does not offer STARTTLS),
    "tls" (implicit TLS, port 465) or "none" (port 25; a password is then sent only to a
    loopback server). ``user`` logs in with the password from ``password_env`` or
    ``password_command``: a password (``auth`` "login"), or an OAuth2 access token
    ("xoauth2"). ``context`` verifies the server (default: the system's trusted
    certificates, with host name checking)."""
    port = check_settings(host, port, security=security, user=user, password_env=password_env,
                          password_command=password_command, timeout=timeout, auth=auth)
    sender, recipients = envelope(message)
    password = read_password(password_env, password_command, timeout=timeout) if user else None
    if user and not (user.isascii() and password is not None and password.isascii()):
        raise MailConfigError("The SMTP user name and password must be plain ASCII (Python's "
                              "smtplib sends nothing else); nothing was sent.")
    tls = context or ssl.create_default_context()
    where = f"{host}:{port}"
    stage = "connect"  # connect, tls, login, send: what the error below interrupted
    client: smtplib.SMTP | None = None
    try:
        if security == "tls":
            client = smtplib.SMTP_SSL(host, port, timeout=timeout, context=tls)
        else:
            client = smtplib.SMTP(host, port, timeout=timeout)
        client.ehlo()
        if security == "starttls":
            if not client.has_extn("starttls"):
                raise MailServerError(
                    f"The server {where} does not offer STARTTLS, so the message would "
                    "travel unencrypted. Use security tls (port 465) or, for a local "
                    "relay, none.", code="tls")
            stage = "tls"
            client.starttls(context=tls)
            client.ehlo()
        if user:
            stage = "login"
            assert password is not None
            _log_in(client, user, password, auth, where)
        stage = "send"
        refused = client.send_message(message, from_addr=sender, to_addrs=recipients)
    except MailServerError:
        raise
    except Exception as exc:  # every failure is a sentence, never a traceback
        raise _server_error(exc, stage, where, user, auth) from None
    finally:
        if client is not None:
            _hang_up(client)
    accepted = [r for r in recipients if r not in refused]
    return SendResult(host, port, sender, accepted,
                      {addr: _reply(*reply) for addr, reply in refused.items()})


def _log_in(client: smtplib.SMTP, user: str, secret: str, auth: str, where: str) -> None:
    """Log in with a mechanism both sides know, or say truly that there is none: what
    the server offers, and what pbem would need."""
    if not client.has_extn("auth"):
        raise MailServerError(f"The server {where} does not accept a login here (no AUTH); "
                              "try security starttls or tls, or no user.", code="auth")
    offered = str(client.esmtp_features.get("auth", "")).upper().split()
    offers = f"it offers AUTH {' '.join(offered)}" if offered else "it names no mechanism"
    if auth == "xoauth2":
        mechanism = next((m for m in TOKEN_MECHANISMS if m in offered), None)
        if mechanism is None:
            raise MailServerError(f"The server {where} takes no OAuth2 token ({offers}); log in "
                                  "with a password instead (--smtp-auth login). Nothing was "
                                  "sent.", code="auth")
        client.auth(mechanism, _token_answer(mechanism, user, secret))
        return
    if not any(m in offered for m in PASSWORD_MECHANISMS):
        token = any(m in offered for m in TOKEN_MECHANISMS)
        hint = (" It takes an OAuth2 access token: give --smtp-auth xoauth2 and a command that "
                "prints a current token (--password-command)." if token else "")
        raise MailServerError(f"The server {where} takes no password by a mechanism pbem knows "
                              f"({offers}; pbem sends a password by PLAIN, LOGIN or "
                              f"CRAM-MD5).{hint} Nothing was sent.", code="auth")
    client.login(user, secret)


def _token_answer(mechanism: str, user: str, token: str) -> Any:
    """smtplib's authobject for a token: the initial response, then, if the server
    answers with an error challenge (a JSON status), the reply that ends the exchange so
    the server says 535 (XOAUTH2: an empty line; OAUTHBEARER, RFC 7628: ^A)."""
    if mechanism == "XOAUTH2":
        first, last = f"user={user}\x01auth=Bearer {token}\x01\x01", ""
    else:
        first, last = f"n,a={user},\x01auth=Bearer {token}\x01\x01", "\x01"

    def answer(challenge: bytes | None = None) -> str:
        return first if challenge is None else last

    return answer


def _hang_up(client: smtplib.SMTP) -> None:
    """QUIT and close; a server that drops the line now has already taken the message."""
    try:
        client.quit()
    except Exception:  # noqa: S110 - nothing left to tell: delivery was decided before
        pass
    finally:
        client.close()


def _server_error(exc: Exception, stage: str, where: str, user: str | None,
                  auth: str = "login") -> PbemError:
    """The sentence for what interrupted sending at ``stage``; nothing was delivered."""
    if isinstance(exc, smtplib.SMTPAuthenticationError):
        check = ("the user name and that the token is current (an OAuth2 access token "
                 "expires, often within the hour)" if auth == "xoauth2"
                 else "the user name and password")
        return MailServerError(f"The server {where} refused the login for {user} "
                               f"({_reply(exc.smtp_code, exc.smtp_error)}). Check {check}. "
                               "Nothing was sent.", code="auth")
    if isinstance(exc, smtplib.SMTPNotSupportedError):
        if stage == "login":
            return MailServerError(f"The server {where} does not accept a login here (no AUTH); "
                                   "try security starttls or tls, or no user.", code="auth")
        return MailServerError(f"The server {where} cannot take this message ({exc}). Nothing "
                               "was sent.", code="refused")
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        said = "; ".join(f"{a}: {_reply(*r)}" for a, r in exc.recipients.items())
        return MailServerError(f"The server {where} refused every recipient ({said}). Nothing "
                               "was sent.", code="refused")
    if isinstance(exc, smtplib.SMTPSenderRefused):
        return MailServerError(f"The server {where} refused the sender {exc.sender} "
                               f"({_reply(exc.smtp_code, exc.smtp_error)}). Nothing was sent.",
                               code="refused")
    if isinstance(exc, smtplib.SMTPDataError):
        return MailServerError(f"The server {where} refused the message "
                               f"({_reply(exc.smtp_code, exc.smtp_error)}). Nothing was sent.",
                               code="refused")
    if isinstance(exc, ssl.SSLError | ssl.CertificateError):
        return MailServerError(f"The TLS connection to {where} failed ({exc}). Check the host "
                               "name and the server's certificate. Nothing was sent.", code="tls")
    if isinstance(exc, smtplib.SMTPResponseException) and exc.smtp_code == -1:
        return MailServerError(f"{where} is not a mail server: it did not answer in SMTP "
                               f"({_reply(0, exc.smtp_error)}). Nothing was sent.", code="refused")
    if isinstance(exc, smtplib.SMTPResponseException):
        return MailServerError(f"The server {where} answered with an error "
                               f"({_reply(exc.smtp_code, exc.smtp_error)}). Nothing was sent.",
                               code="refused")
    if isinstance(exc, UnicodeError | ValueError) and stage == "connect":
        return MailConfigError(f"'{where}' is not a usable mail server name or address ({exc}).")
    if isinstance(exc, smtplib.SMTPException | OSError):
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc) or \
            type(exc).__name__
        if isinstance(exc, socket.gaierror):
            why = f"unknown host: {why}"
        if stage == "connect":
            return MailServerError(f"Could not reach the mail server {where} ({why}). Nothing "
                                   "was sent.", code="unreachable")
        return MailServerError(f"The connection to the mail server {where} broke off ({why}). "
                               "Nothing was sent.", code="unreachable")
    return MailServerError(f"Sending through {where} failed ({type(exc).__name__}: {exc}). "
                           "Nothing was sent.", code="unreachable")


def settings(home: Home, **given: Any) -> dict[str, Any]:
    """Keyword arguments for :func:`send`: each setting given (not None) wins over the
    home's profile (pbem.profile [smtp]). MailConfigError if no host is known."""
    from pbem.mail import profile

    stored = profile.smtp_settings(home)
    merged: dict[str, Any] = {}
    for key in ("host", "port", "security", "user", "password_env", "password_command", "auth"):
        value = given.get(key)
        merged[key] = value if value is not None else stored.get(key)
    merged["auth"] = merged["auth"] or "login"
    if merged["auth"] == "xoauth2" and not (merged["password_env"] or merged["password_command"]):
        imap = profile.imap_settings(home)  # the one token source, for reading and sending
        if imap.get("auth") == "xoauth2" and imap.get("password_command"):
            merged["password_command"] = imap["password_command"]
    if not merged["host"]:
        raise MailConfigError("No SMTP server is set: give --smtp HOST, or remember one with "
                              "'pbem profile --smtp HOST', or write the message to a file with "
                              "'pbem send SAVE --eml FILE' (with --remind for a reminder) and "
                              "send it yourself.")
    merged["security"] = merged["security"] or "starttls"
    if given.get("timeout") is not None:
        merged["timeout"] = given["timeout"]
    return merged


def _reply(code: int, text: bytes | str) -> str:
    words = text.decode("utf-8", "replace") if isinstance(text, bytes) else str(text)
    words = " ".join(words.split())[:300]  # a hostile server's reply: one bounded line
    return f"{code} {words}".strip() if code > 0 else words


def send_each(messages: list[EmailMessage], host: str, **settings: Any) -> SendResult:
    """Send each message (one per recipient, pbem.message.compose_each); what the server
    accepted and refused over all of them. A failure raises as :func:`send` does; the
    messages before it were sent."""
    total: SendResult | None = None
    for message in messages:
        result = send(message, host, **settings)
        if total is None:
            total = result
        else:
            total.accepted += [a for a in result.accepted if a not in total.accepted]
            total.refused.update(result.refused)
    if total is None:
        raise MailConfigError("There is no message to send.")
    return total
