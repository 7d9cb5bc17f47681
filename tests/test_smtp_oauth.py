"""Sending with an OAuth2 access token (pbem.smtp, auth "xoauth2") against a real SMTP
server on loopback (aiosmtpd) that offers only XOAUTH2, only OAUTHBEARER, or only
passwords; a login that cannot work says truly why (no common mechanism, naming what the
server offers; a refused token), never that the connection broke off."""

from __future__ import annotations

import base64
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("aiosmtpd", reason="aiosmtpd is in the [test] extra")
pytestmark = pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS")

from aiosmtpd.smtp import MISSING, AuthResult  # noqa: E402
from click.testing import CliRunner  # noqa: E402

from pbem.cli import main  # noqa: E402
from pbem.mail import smtp  # noqa: E402
from tests.test_smtp import (  # noqa: E402, F401  (fixtures)
    USER,
    Sink,
    authenticator,
    check_received,
    fresh,
    make_game,
)

TOKEN = "ya29.a-test-access-token"
EVERY = ["PLAIN", "LOGIN", "XOAUTH2", "OAUTHBEARER"]
ERROR = b'{"status":"401","schemes":"bearer","scope":"https://mail.google.com/"}'


class TokenSink(Sink):
    """A Sink whose server also takes a bearer token as Gmail and Outlook do: XOAUTH2 and
    OAUTHBEARER (RFC 7628), a bad token answered with an error challenge, then 535."""

    async def auth_XOAUTH2(self, server: Any, args: list[str]) -> AuthResult:
        return await self._bearer(server, args, "XOAUTH2",
                                  f"user={USER}\x01auth=Bearer {TOKEN}\x01\x01")

    async def auth_OAUTHBEARER(self, server: Any, args: list[str]) -> AuthResult:
        return await self._bearer(server, args, "OAUTHBEARER",
                                  f"n,a={USER},\x01auth=Bearer {TOKEN}\x01\x01")

    async def _bearer(self, server: Any, args: list[str], mechanism: str,
                      expected: str) -> AuthResult:
        blob = base64.b64decode(args[1]) if len(args) == 2 else await server.challenge_auth("")
        if blob is not MISSING and blob == expected.encode():
            return AuthResult(success=True, auth_data=(mechanism, USER))
        if blob is not MISSING:
            await server.challenge_auth(ERROR)  # the client's answer ends the exchange
        return AuthResult(success=False, handled=False)  # then 535


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return make_game(tmp_path_factory.mktemp("game"))


def only(*mechanisms: str) -> list[str]:
    return [m for m in EVERY if m not in mechanisms]


@pytest.fixture
def token_servers() -> Any:
    """Start TokenSink servers offering only the given mechanisms; stopped after."""
    from aiosmtpd.controller import Controller

    from tests.test_smtp import free_port

    running: list[Any] = []

    def start(*mechanisms: str, handler: Sink | None = None, **options: Any) -> tuple[int, Sink]:
        sink, port = handler or TokenSink(), free_port()
        controller = Controller(sink, hostname="127.0.0.1", port=port, auth_require_tls=False,
                                auth_exclude_mechanism=only(*mechanisms), **options)
        controller.start()
        running.append(controller)
        return port, sink

    yield start
    for controller in running:
        controller.stop()


@pytest.mark.parametrize("mechanism", ["XOAUTH2", "OAUTHBEARER"])
def test_a_token_logs_in_where_only_oauth_is_offered(token_servers: Any, game: dict[str, Any],
                                                     tmp_path: Path, mechanism: str,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    port, sink = token_servers(mechanism)
    monkeypatch.setenv("PBEM_TEST_TOKEN", TOKEN)
    smtp.send(fresh(game), "127.0.0.1", port, security="none", user=USER,
              password_env="PBEM_TEST_TOKEN", auth="xoauth2")
    [received] = sink.received
    assert received["login"] == (mechanism, USER)
    check_received(received, game, tmp_path)


def test_a_password_where_only_oauth_is_offered_says_so(token_servers: Any, game: dict[str, Any],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The issue: "The connection ... broke off" though nothing broke. Now: what the
    server offers and what to give instead, exit 5."""
    port, sink = token_servers("XOAUTH2")
    monkeypatch.setenv("PBEM_TEST_TOKEN", "hunter2-secret")
    with pytest.raises(smtp.MailServerError) as info:
        smtp.send(fresh(game), "127.0.0.1", port, security="none", user=USER,
                  password_env="PBEM_TEST_TOKEN")
    words = info.value.message
    assert info.value.code == "auth" and info.value.exit_code == 5
    assert "broke off" not in words and "it offers AUTH XOAUTH2" in words
    assert "--smtp-auth xoauth2" in words and "Nothing was sent" in words
    assert "hunter2" not in words and sink.received == []


def test_a_token_where_only_passwords_are_offered_says_so(token_servers: Any,
                                                          game: dict[str, Any],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    port, sink = token_servers("PLAIN", "LOGIN", authenticator=authenticator)
    monkeypatch.setenv("PBEM_TEST_TOKEN", TOKEN)
    with pytest.raises(smtp.MailServerError) as info:
        smtp.send(fresh(game), "127.0.0.1", port, security="none", user=USER,
                  password_env="PBEM_TEST_TOKEN", auth="xoauth2")
    words = info.value.message
    assert info.value.code == "auth" and "takes no OAuth2 token (it offers AUTH LOGIN PLAIN)" in words
    assert TOKEN not in words and sink.received == []


@pytest.mark.parametrize("mechanism", ["XOAUTH2", "OAUTHBEARER"])
def test_a_refused_token_is_a_refused_login(token_servers: Any, game: dict[str, Any],
                                            mechanism: str,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    port, sink = token_servers(mechanism)
    monkeypatch.setenv("PBEM_TEST_TOKEN", "ya29.expired")
    with pytest.raises(smtp.MailServerError) as info:
        smtp.send(fresh(game), "127.0.0.1", port, security="none", user=USER,
                  password_env="PBEM_TEST_TOKEN", auth="xoauth2")
    words = info.value.message
    assert info.value.code == "auth" and info.value.exit_code == 5
    assert f"refused the login for {USER} (535" in words and "token is current" in words
    assert "expired" not in words and sink.received == []


def test_an_oauth_login_needs_the_user_and_a_token_source() -> None:
    with pytest.raises(smtp.MailConfigError, match="names the account"):
        smtp.check_settings("127.0.0.1", security="none", auth="xoauth2")
    with pytest.raises(smtp.MailConfigError, match="No OAuth2 token for SMTP user"):
        smtp.check_settings("127.0.0.1", security="none", auth="xoauth2", user=USER)
    with pytest.raises(smtp.MailConfigError, match="SMTP auth is one of login, xoauth2"):
        smtp.check_settings("127.0.0.1", security="none", auth="cram", user=USER)


def test_send_uses_the_imap_token_command_when_sending_has_none(
        token_servers: Any, game: dict[str, Any], tmp_path: Path) -> None:
    """One token source for reading and sending: 'profile --smtp-auth xoauth2' without an
    SMTP password source takes the IMAP xoauth2 login's command; 'send' then delivers."""
    port, sink = token_servers("XOAUTH2")
    home = game["homes"][game["signer"]]
    runner = CliRunner()

    def run(*args: str) -> Any:
        r = runner.invoke(main, ["--home", str(home.path), *args])
        assert "Traceback" not in r.output
        return r

    command = f"{sys.executable} -c \"print('{TOKEN}')\""
    r = run("profile", "--smtp", "127.0.0.1", "--port", str(port), "--security", "none",
            "--user", USER, "--smtp-auth", "xoauth2", "--imap-auth", "xoauth2",
            "--imap-password-command", command)
    assert r.exit_code == 0 and "smtp auth: xoauth2" in r.output, r.output
    r = run("send", str(game["path"]), "--stdout")  # no server needed: nothing changes
    assert r.exit_code == 0
    r = run("send", str(game["path"]))
    assert r.exit_code == 0, r.output
    assert [m["login"] for m in sink.received] == [("XOAUTH2", USER)] * 2
