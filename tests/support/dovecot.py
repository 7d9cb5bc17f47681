"""A real IMAP server for the inbox tests: Debian's Dovecot, started on loopback ports
with its whole configuration, mail and state in one temporary folder, stopped after.

Plaintext login through a passwd-file (the password also serves as the XOAUTH2 token:
Dovecot checks an XOAUTH2 token against the passdb as it does a password), Maildir mail,
a self-signed certificate made here for imaps and STARTTLS. Under CI (``CI=true``) a
server that cannot start fails the test instead of skipping it."""

from __future__ import annotations

import datetime
import ipaddress
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

DOVECOT = shutil.which("dovecot") or "/usr/sbin/dovecot"
PASSWORD = "s3cret-pass"


def _own(folder: Path, user: pwd.struct_passwd) -> None:
    if os.getuid() != 0:
        return
    for path in [folder, *folder.rglob("*")]:
        os.chown(path, user.pw_uid, user.pw_gid)


@dataclass
class Dovecot:
    root: Path
    plain_port: int  # IMAP with STARTTLS offered
    tls_port: int  # imaps
    cert: Path
    user: str = "ann"
    password: str = PASSWORD

    def maildir(self, user: str | None = None) -> Path:
        return self.root / "mail" / (user or self.user) / "Maildir"

    def deliver(self, data: bytes, user: str | None = None, name: str = "") -> Path:
        """Put one message into the user's INBOX (as a delivery agent would)."""
        box = self.maildir(user)
        for sub in ("tmp", "new", "cur"):
            (box / sub).mkdir(parents=True, exist_ok=True)
        stem = name or f"{time.time_ns()}.{os.getpid()}.pbemtest"
        target = box / "new" / stem
        (box / "tmp" / stem).write_bytes(data)
        (box / "tmp" / stem).rename(target)
        if os.getuid() == 0:
            mail_user = pwd.getpwnam("dovecot")
            for path in (box, box / "new", box / "cur", box / "tmp", target):
                os.chown(path, mail_user.pw_uid, mail_user.pw_gid)
        return target


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _make_cert(folder: Path) -> tuple[Path, Path]:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime(2025, 1, 1, tzinfo=datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(1)
            .not_valid_before(now).not_valid_after(now + datetime.timedelta(days=36500))
            .add_extension(x509.SubjectAlternativeName(
                [x509.DNSName("localhost"),
                 x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    key_path.chmod(0o600)
    return cert_path, key_path


def _unavailable(why: str) -> None:
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"Dovecot could not be started under CI: {why}")
    pytest.skip(f"Dovecot not available: {why}")


def start(users: tuple[str, ...] = ("ann", "bob")) -> Dovecot:
    """Start a server in a new temporary folder (reachable by Dovecot's own users when
    run as root, which pytest's private tmp folders are not); :func:`stop` removes it."""
    if not Path(DOVECOT).exists():
        _unavailable(f"{DOVECOT} is missing (apt-get install dovecot-imapd)")
    root = Path(tempfile.mkdtemp(prefix="pbem-dovecot-"))
    root.chmod(0o755)
    cert, key = _make_cert(root)
    # Dovecot runs nothing as root: as root, its own users serve the mail (and own it).
    if os.getuid() == 0:
        internal, login = pwd.getpwnam("dovecot"), pwd.getpwnam("dovenull")
        mail_user = internal
    else:
        internal = login = mail_user = pwd.getpwuid(os.getuid())
    plain_port, tls_port = _free_port(), _free_port()
    for sub in ("run", "state", "mail"):
        (root / sub).mkdir(exist_ok=True)
    (root / "passwd").write_text(
        "".join(f"{u}:{{PLAIN}}{PASSWORD}::::::\n" for u in users))
    config = f"""
base_dir = {root}/run
state_dir = {root}/state
log_path = {root}/dovecot.log
info_log_path = {root}/dovecot.log
protocols = imap
listen = 127.0.0.1
default_internal_user = {internal.pw_name}
default_login_user = {login.pw_name}
ssl = yes
ssl_cert = <{cert}
ssl_key = <{key}
disable_plaintext_auth = no
first_valid_uid = 1
first_valid_gid = 1
auth_mechanisms = plain login xoauth2
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {root}/passwd
}}
userdb {{
  driver = static
  args = uid={mail_user.pw_uid} gid={mail_user.pw_gid} home={root}/mail/%u
}}
mail_location = maildir:{root}/mail/%u/Maildir
service imap-login {{
  inet_listener imap {{
    address = 127.0.0.1
    port = {plain_port}
  }}
  inet_listener imaps {{
    address = 127.0.0.1
    port = {tls_port}
    ssl = yes
  }}
}}
service anvil {{
  chroot =
}}
service imap-login {{
  chroot =
}}
"""
    (root / "dovecot.conf").write_text(config)
    for user in users:
        box = root / "mail" / user / "Maildir"
        for sub in ("tmp", "new", "cur"):
            (box / sub).mkdir(parents=True, exist_ok=True)
    _own(root / "mail", mail_user)
    # The master forks into the background: its output goes to a file, not to a pipe
    # that the daemon would hold open.
    errors = root / "start.err"
    with open(errors, "wb") as err:
        done = subprocess.run([DOVECOT, "-c", str(root / "dovecot.conf")],
                              stdin=subprocess.DEVNULL, stdout=err, stderr=err, check=False)
    if done.returncode != 0:
        _unavailable(errors.read_text(errors="replace").strip() or f"exit {done.returncode}")
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", plain_port), timeout=1) as sock:
                if sock.recv(100).startswith(b"* OK"):
                    return Dovecot(root, plain_port, tls_port, cert)
        except OSError:
            time.sleep(0.05)
    stop(Dovecot(root, plain_port, tls_port, cert))
    _unavailable("it did not answer on its port within 10 s: "
                 + (root / "dovecot.log").read_text(errors="replace")[-500:])
    raise AssertionError("unreachable")


def stop(server: Dovecot) -> None:
    try:
        _stop(server)
    finally:
        shutil.rmtree(server.root, ignore_errors=True)


def _stop(server: Dovecot) -> None:
    pid_file = server.root / "run" / "master.pid"
    try:
        pid = int(pid_file.read_text().strip())
    except (OSError, ValueError):
        return
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
