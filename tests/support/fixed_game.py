"""Games with fixed identities and a fixed game id, so that who acts, the dice and every
legal move are the same on every run (for tests that drive the CLI as a person would)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import tomli_w
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from pbem import session
from pbem.protocol.crypto.identity import INFO_FILE, KEY_FILE, Home
from pbem.protocol.replay import signing
from pbem.protocol.saveformat.savefile import Save
from pbem.protocol.state import headers
from pbem.registry import load as load_game

CREATED = "2024-01-01T00:00:00Z"


def fixed_home(path: Path, handle: str) -> Home:
    """A home whose key is derived from the handle: the same identity on every run."""
    key = Ed25519PrivateKey.from_private_bytes(
        hashlib.sha256(f"pbem-test-key/{handle}".encode()).digest())
    path.mkdir(parents=True, exist_ok=True)
    (path / KEY_FILE).write_bytes(key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption()))
    public = key.public_key().public_bytes_raw()
    (path / INFO_FILE).write_bytes(tomli_w.dumps(
        {"handle": handle, "public_key": public.hex(), "encrypted": False}).encode())
    return Home(path)


def started(folder: Path, game: str, handles: list[str], options: dict[str, object] | None = None
            ) -> tuple[dict[str, Home], Path]:
    """Homes for ``handles`` under ``folder``/homes and the save after the start entry,
    under ``folder``/saves; the game id is derived from the game and the handles."""
    homes = {h: fixed_home(folder / "homes" / h, h) for h in handles}
    ruleset = load_game(game)
    typed = {name: spec.default for name, spec in ruleset.info.options.items()}
    typed.update(options or {})
    header = headers.new_header(ruleset, [(h, "") for h in handles], typed, created=CREATED)
    header["id"] = hashlib.sha256(f"pbem-test-game/{game}/{','.join(handles)}".encode()
                                  ).hexdigest()[:32]
    table = headers.empty_table(header)
    entry, table = signing.sign_entry(table, homes[handles[0]].load(), "create")
    save = session.appended(Save(header, []), entry, table)
    saves = folder / "saves"
    saves.mkdir(parents=True, exist_ok=True)
    path = session.write(save, session.output_path(save, entry, saves / "x", None),
                         homes[handles[0]])
    for handle in handles[1:]:
        path = session.sign_next(homes[handle], path, "join", [], None, None).path
    path = session.sign_next(homes[handles[0]], path, None, [], None, None).path
    return homes, path
