"""Every secret derivation of pbem, with its label, in one place (PROTOCOL.md section 2).

``seed = HMAC-SHA256(identity private bytes, "pbem/1/seed" || game_id)``; every other
per-game secret is ``derive(seed, LABEL || context, length)``, HKDF-SHA256 (RFC 5869)
with an empty salt, written with the stdlib so start-up stays cheap.
"""

from __future__ import annotations

import hashlib
import hmac

SEED = b"pbem/1/seed"
SEED_COMMIT = b"pbem/1/seed-commit"
BEACON = b"beacon"
DECK_KEY = b"deck"
SLOT_KEY = b"slot"
DECK_SHUFFLE = b"shuffle"
RAND = b"pbem/1/rand"
CARD_POINT = b"pbem/1/card"
# Chaum-Pedersen proofs of the mental deck (pbem.protocol.dleq): challenge and nonce.
DLEQ_CHALLENGE = b"pbem/1/dleq"
DLEQ_NONCE = b"pbem/1/dleq-nonce"


def game_seed(identity_private: bytes, game_id: str) -> bytes:
    return hmac.new(identity_private, SEED + game_id.encode(), hashlib.sha256).digest()


def seed_commitment(seed: bytes) -> str:
    return hashlib.sha256(SEED_COMMIT + seed).hexdigest()


def derive(seed: bytes, info: bytes, length: int = 32) -> bytes:
    """HKDF-SHA256(ikm=seed, salt=empty, info) of ``length`` bytes."""
    prk = hmac.new(b"\x00" * 32, seed, hashlib.sha256).digest()
    out = b""
    block = b""
    counter = 1
    while len(out) < length:
        block = hmac.new(prk, block + info + bytes([counter]), hashlib.sha256).digest()
        out += block
        counter += 1
    return out[:length]
