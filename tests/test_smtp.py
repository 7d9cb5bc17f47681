"""Sending (pbem.smtp) against a real SMTP server on loopback: aiosmtpd's Controller on
127.0.0.1 and a free port, plain, with AUTH, with STARTTLS and with implicit TLS (a
self-signed certificate made at test time). What the server receives must carry the save
intact: it verifies and is filed by the recipient's inbox scan."""

from __future__ import annotations

import datetime
import ipaddress
import socket
import ssl
import sys
from collections.abc import Callable, Iterator
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("aiosmtpd", reason="aiosmtpd is in the [test] extra")
# Requiring AUTH without TLS is what these loopback tests mean to do.
pytestmark = pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS")

from aiosmtpd.controller import Controller  # noqa: E402
from aiosmtpd.smtp import AuthResult, LoginPassword  # noqa: E402

from pbem import session  # noqa: E402
from pbem.mail import inbox, smtp  # noqa: E402
from pbem.mail import message as mail  # noqa: E402
from pbem.protocol.crypto.identity import Home  # noqa: E402
from pbem.protocol.saveformat import savefile  # noqa: E402
from tests.support.duty import sign_duty  # noqa: E402

USER, PASSWORD = "ann@example.org", "correct horse battery staple"


class Sink:
    """An aiosmtpd handler that keeps every message; it refuses nobody@ recipients."""

    def __init__(self) -> None:
        self.received: list[dict[str, Any]] = []

    async def handle_RCPT(self, server: Any, sess: Any, envelope: Any, address: str,
                          rcpt_options: list[str]) -> str:
        if address.startswith("nobody@"):
            return "550 5.1.1 no such user here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, sess: Any, envelope: Any) -> str:
        self.received.append({"from": envelope.mail_from, "to": list(envelope.rcpt_tos),
                              "content": bytes(envelope.content),
                              "login": sess.auth_data if sess.authenticated else None,
                              "tls": sess.ssl is not None})
        return "250 2.0.0 accepted"


def authenticator(server: Any, sess: Any, envelope: Any, mechanism: str,
                  auth_data: Any) -> AuthResult:
    ok = (isinstance(auth_data, LoginPassword) and auth_data.login == USER.encode()
          and auth_data.password == PASSWORD.encode())
    return AuthResult(success=ok, handled=False, auth_data=auth_data if ok else None)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and localhost: (cert.pem, key.pem)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "pbem test server")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([
                x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    folder = tmp_path_factory.mktemp("tls")
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path


def server_context(certificate: tuple[Path, Path]) -> ssl.SSLContext:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(*certificate)
    return ctx


def client_context(certificate: tuple[Path, Path]) -> ssl.SSLContext:
    return ssl.create_default_context(cafile=str(certificate[0]))


@pytest.fixture
def start_server() -> Iterator[Callable[..., tuple[int, Sink]]]:
    """Start an aiosmtpd server on 127.0.0.1 with the given SMTP options; stopped after."""
    running: list[Controller] = []

    def start(**options: Any) -> tuple[int, Sink]:
        sink = Sink()
        port = free_port()
        controller = Controller(sink, hostname="127.0.0.1", port=port, **options)
        controller.start()
        running.append(controller)
        return port, sink

    yield start
    for controller in running:
        controller.stop()


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Three homes and a save waiting for its next player, with the message carrying it."""
    return make_game(tmp_path_factory.mktemp("game"))


def make_game(root: Path) -> dict[str, Any]:
    homes = {}
    for handle in ("ann", "bob", "cy"):
        homes[handle] = Home(root / "homes" / handle)
        homes[handle].keygen(handle)
    seats = [f"{h}={h}@example.org" for h in homes]
    (root / "saves").mkdir()
    written = session.new_game(homes["ann"], "dice-race", seats, [], None, folder=root / "saves")
    while len(written.save.entries) < 6:
        written = sign_duty(homes, written, "random:5")
    signer = written.entry["seat"]
    duty = written.table.duty()
    assert duty is not None
    return {"homes": homes, "path": written.path, "signer": signer,
            "actor": written.table.seats[duty.seat].handle, "root": root,
            "message": mail.compose(written.path, homes[signer])}


def fresh(game: dict[str, Any]) -> EmailMessage:
    return mail.compose(game["path"], game["homes"][game["signer"]])


def check_received(received: dict[str, Any], game: dict[str, Any], tmp_path: Path) -> None:
    """The received bytes carry the save exactly; the recipient's inbox verifies and files it."""
    actor = game["actor"]
    assert received["from"] == f"{game['signer']}@example.org"
    assert f"{actor}@example.org" in received["to"]
    eml = tmp_path / "received.eml"
    eml.write_bytes(received["content"])
    report = inbox.scan([eml], game["homes"][actor], file_saves=False)
    assert report.problems == [], report.text()
    [summary] = report.games
    assert summary.your_move and summary.seq == savefile.read(game["path"]).entries[-1]["seq"]
    from email import message_from_bytes, policy

    [found] = mail.find_saves(message_from_bytes(received["content"], policy=policy.default))
    assert found.data == game["path"].read_bytes()
    assert found.name == game["path"].name


# ---- delivery ------------------------------------------------------------------------------
def test_plain_loopback_delivery(start_server: Any, game: dict[str, Any], tmp_path: Path) -> None:
    port, sink = start_server()
    result = smtp.send(fresh(game), "127.0.0.1", port, security="none")
    assert sorted(result.accepted) == sorted(f"{h}@example.org" for h in game["homes"]
                                             if h != game["signer"])
    assert result.refused == {} and result.port == port
    [received] = sink.received
    assert not received["tls"] and received["login"] is None
    check_received(received, game, tmp_path)


def test_auth_with_password_from_environment(start_server: Any, game: dict[str, Any],
                                             tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    port, sink = start_server(authenticator=authenticator, auth_require_tls=False,
                              auth_required=True)
    monkeypatch.setenv("PBEM_TEST_SMTP_PASSWORD", PASSWORD)
    smtp.send(fresh(game), "127.0.0.1", port, security="none", user=USER,
              password_env="PBEM_TEST_SMTP_PASSWORD")
    [received] = sink.received
    assert received["login"] == LoginPassword(USER.encode(), PASSWORD.encode())
    check_received(received, game, tmp_path)


def test_wrong_password_is_a_server_refusal(start_server: Any, game: dict[str, Any],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    port, sink = start_server(authenticator=authenticator, auth_require_tls=False,
                              auth_required=True)
    monkeypatch.setenv("PBEM_TEST_SMTP_PASSWORD", "wrong")
    with pytest.raises(smtp.MailServerError) as info:
        smtp.send(fresh(game), "127.0.0.1", port, security="none", user=USER,
                  password_env="PBEM_TEST_SMTP_PASSWORD")
    assert info.value.code == "auth" and info.value.exit_code == 5
    assert "refused the login" in info.value.message and "wrong" not in info.value.message
    assert sink.received == []


def test_starttls_with_password_command(start_server: Any, game: dict[str, Any],
                                        certificate: tuple[Path, Path], tmp_path: Path) -> None:
    port, sink = start_server(tls_context=server_context(certificate), require_starttls=True,
                              authenticator=authenticator, auth_required=True)
    command = f"{sys.executable} -c \"print('{PASSWORD}'); print('second line ignored')\""
    smtp.send(fresh(game), "127.0.0.1", port, security="starttls", user=USER,
              password_command=command, context=client_context(certificate))
    [received] = sink.received
    assert received["tls"]
    assert received["login"] == LoginPassword(USER.encode(), PASSWORD.encode())
    check_received(received, game, tmp_path)


def test_starttls_refuses_an_untrusted_certificate(start_server: Any, game: dict[str, Any],
                                                   certificate: tuple[Path, Path]) -> None:
    port, sink = start_server(tls_context=server_context(certificate))
    with pytest.raises(smtp.MailServerError) as info:
        smtp.send(fresh(game), "127.0.0.1", port, security="starttls")  # system trust store
    assert info.value.code == "tls" and "certificate" in info.value.message
    assert sink.received == []


def test_starttls_refuses_a_server_without_it(start_server: Any, game: dict[str, Any]) -> None:
    port, sink = start_server()
    with pytest.raises(smtp.MailServerError) as info:
        smtp.send(fresh(game), "127.0.0.1", port)
    assert info.value.code == "tls" and "does not offer STARTTLS" in info.value.message
    assert sink.received == []


def test_implicit_tls(start_server: Any, game: dict[str, Any], certificate: tuple[Path, Path],
                      tmp_path: Path) -> None:
    port, sink = start_server(ssl_context=server_context(certificate))
    smtp.send(fresh(game), "127.0.0.1", port, security="tls", context=client_context(certificate))
    [received] = sink.received
    check_received(received, game, tmp_path)


def test_some_recipients_refused(start_server: Any, game: dict[str, Any]) -> None:
    port, sink = start_server()
    msg = fresh(game)
    msg["Bcc"] = "nobody@example.org"
    result = smtp.send(msg, "127.0.0.1", port, security="none")
    assert list(result.refused) == ["nobody@example.org"]
    assert "550" in result.refused["nobody@example.org"]
    assert "nobody@example.org" not in result.accepted and len(result.accepted) == 2
    assert b"nobody@example.org" not in sink.received[0]["content"]  # Bcc is not sent


def test_every_recipient_refused(start_server: Any, game: dict[str, Any]) -> None:
    port, sink = start_server()
    msg = mail.compose(game["path"], game["homes"][game["signer"]], to=["nobody@example.org"])
    with pytest.raises(smtp.MailServerError) as info:
        smtp.send(msg, "127.0.0.1", port, security="none")
    assert info.value.code == "refused" and "nobody@example.org" in info.value.message
    assert sink.received == []


def test_unreachable_server(game: dict[str, Any]) -> None:
    with pytest.raises(smtp.MailServerError) as info:
        smtp.send(fresh(game), "127.0.0.1", free_port(), security="none", timeout=5)
    assert info.value.code == "unreachable" and info.value.exit_code == 5
    assert "Nothing was sent" in info.value.message


# ---- configuration mistakes (exit 2, no connection) ----------------------------------------
@pytest.mark.parametrize("kwargs, words", [
    ({"security": "ssl"}, "security is one of"),
    ({"port": 0}, "port"),
    ({"password_env": "X"}, "without a user name"),
    ({"user": USER}, "No password"),
    ({"user": USER, "password_env": "PBEM_TEST_UNSET_VARIABLE"}, "is not set"),
    ({"user": USER, "password_env": "A", "password_command": "true"}, "not both"),
    ({"user": USER, "password_command": "exit 3"}, "password command failed"),
    ({"user": USER, "password_command": "true"}, "printed nothing"),
    ({"user": USER, "password_command": "echo pw", "security": "none"}, "unencrypted"),
])
def test_configuration_mistakes(game: dict[str, Any], kwargs: dict[str, Any], words: str,
                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PBEM_TEST_UNSET_VARIABLE", raising=False)
    host = kwargs.pop("host", "smtp.example.org")  # never contacted: checks come first
    with pytest.raises(mail.MailConfigError) as info:
        smtp.send(fresh(game), host, kwargs.pop("port", 587), **kwargs)
    assert words in info.value.message and info.value.exit_code == 2


def test_message_without_sender_or_recipient() -> None:
    msg = EmailMessage()
    msg["To"] = "bob@example.org"
    with pytest.raises(mail.MailConfigError, match="no From"):
        smtp.send(msg, "127.0.0.1", 25, security="none")
    msg = EmailMessage()
    msg["From"] = "ann@example.org"
    with pytest.raises(mail.MailConfigError, match="no recipient"):
        smtp.send(msg, "127.0.0.1", 25, security="none")


def test_read_password_sources(monkeypatch: pytest.MonkeyPatch) -> None:
    assert smtp.read_password() is None
    monkeypatch.setenv("PBEM_TEST_PW", "s3cret")
    assert smtp.read_password("PBEM_TEST_PW") == "s3cret"
    assert smtp.read_password(password_command="printf 'pw with spaces\\n'") == "pw with spaces"
    with pytest.raises(mail.MailConfigError, match="did not finish"):
        smtp.read_password(password_command="sleep 5", timeout=0.2)


def test_settings_merge_the_profile_with_what_is_given(tmp_path: Path) -> None:
    from pbem.mail import profile

    home = Home(tmp_path / "h")
    with pytest.raises(mail.MailConfigError, match="No SMTP server"):
        smtp.settings(home)
    profile.set_smtp(home, host="smtp.example.org", port=465, security="tls", user="ann",
                     password_env="PBEM_SMTP_PASSWORD")
    assert smtp.settings(home) == {"host": "smtp.example.org", "port": 465, "security": "tls",
                                   "user": "ann", "password_env": "PBEM_SMTP_PASSWORD",
                                   "password_command": None, "auth": "login"}
    given = smtp.settings(home, host="127.0.0.1", port=2525, security="none", timeout=3)
    assert (given["host"], given["port"], given["security"], given["user"], given["timeout"]) == (
        "127.0.0.1", 2525, "none", "ann", 3)
    assert smtp.settings(Home(tmp_path / "other"), host="h")["security"] == "starttls"


# ---- servers that misbehave: never a traceback, always a sentence --------------------------
class Scripted:
    """A one-connection fake SMTP server on loopback that answers from a script: each
    command gets the next reply; None closes the connection instead of replying."""

    def __init__(self, banner: bytes | None, replies: dict[str, bytes | None]) -> None:
        import threading

        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(1)
        self.port = int(self.sock.getsockname()[1])
        self.banner, self.replies = banner, replies
        self.data = b""
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self) -> None:
        conn, _ = self.sock.accept()
        with conn:
            conn.settimeout(10)
            if self.banner is None:
                return  # accept, then say nothing (the client's timeout ends it) or hang up
            conn.sendall(self.banner)
            buffer, in_data = b"", False
            while True:
                chunk = conn.recv(65536)
                if not chunk:
                    return
                buffer += chunk
                while b"\r\n" in buffer:
                    line, buffer = buffer.split(b"\r\n", 1)
                    if in_data:
                        if line == b".":
                            in_data = False
                            reply = self.replies.get("END", b"250 queued\r\n")
                        else:
                            self.data += line + b"\n"
                            continue
                    else:
                        verb = line.split(b" ", 1)[0].split(b":", 1)[0].upper().decode()
                        reply = self.replies.get(verb, b"250 ok\r\n")
                        in_data = verb == "DATA" and reply is not None and reply.startswith(b"354")
                    if reply is None:
                        return
                    conn.sendall(reply)

    def close(self) -> None:
        self.sock.close()


@pytest.mark.parametrize("banner, replies, code, words", [
    (b"", {}, "unreachable", "timed out"),  # connects, never speaks
    (b"220 hi\r\n", {"MAIL": None}, "unreachable", "broke off"),  # hangs up mid-way
    (b"554 go away\r\n", {}, "refused", "554 go away"),
    (b"HTTP/1.1 400 Bad Request\r\n\r\n", {}, "refused", "not a mail server"),
    (b"220 hi\r\n", {"DATA": b"354 go on\r\n", "END": None}, "unreachable", "broke off"),
    (b"220 hi\r\n", {"DATA": b"354 go on\r\n", "END": b"552 too big\r\n"}, "refused",
     "552 too big"),
    (b"220 hi\r\n", {"MAIL": b"451 try later\r\n"}, "refused", "451 try later"),
])
def test_misbehaving_servers_are_sentences(game: dict[str, Any], banner: bytes,
                                           replies: dict[str, bytes | None], code: str,
                                           words: str) -> None:
    server = Scripted(banner, {"DATA": b"354 go on\r\n", **replies})
    # Only the silent server is waited out; a server that answers gets a timeout no busy
    # machine reaches, so its answer is what the test sees (never "timed out").
    timeout = 1.5 if words == "timed out" else 20
    try:
        with pytest.raises(smtp.MailServerError) as info:
            smtp.send(fresh(game), "127.0.0.1", server.port, security="none", timeout=timeout)
    finally:
        server.close()
    assert info.value.code == code and words in info.value.message, info.value.message
    assert info.value.exit_code == 5 and "Nothing was sent" in info.value.message


def test_a_server_that_hangs_up_after_taking_the_message_has_it(game: dict[str, Any]) -> None:
    """QUIT failing after the message was accepted is not a failure: it was delivered."""
    server = Scripted(b"220 hi\r\n", {"DATA": b"354 go on\r\n", "QUIT": None})
    try:
        result = smtp.send(fresh(game), "127.0.0.1", server.port, security="none", timeout=5)
    finally:
        server.close()
    assert len(result.accepted) == 2 and b"[pbem] Dice Race" in server.data


@pytest.mark.parametrize("kwargs, words", [
    ({"host": "a" * 70 + ".example.org"}, "not a usable mail server"),
    ({"host": "bad\x00host"}, "not a usable mail server"),
    ({"host": "smtp.example.org\nRCPT TO:<eve@example.net>"}, "not a usable mail server"),
    ({"host": " "}, "not a usable mail server"),
    ({"timeout": 0}, "more than 0 seconds"),
    ({"timeout": -1}, "more than 0 seconds"),
    ({"user": "ann", "password_command": "printf 'p\\344ss\\n'"}, "not UTF-8"),
    ({"user": "ann", "password_command": "echo pässwörd"}, "plain ASCII"),
    ({"user": "änn", "password_command": "echo pw"}, "plain ASCII"),
])
def test_settings_that_cannot_work_are_sentences(game: dict[str, Any], kwargs: dict[str, Any],
                                                 words: str) -> None:
    kwargs = {"host": "127.0.0.1", "port": free_port(), "security": "starttls", **kwargs}
    with pytest.raises(mail.MailConfigError) as info:
        smtp.send(fresh(game), kwargs.pop("host"), kwargs.pop("port"), **kwargs)
    assert words in info.value.message and info.value.exit_code == 2
