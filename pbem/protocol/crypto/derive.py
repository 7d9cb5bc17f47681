"""Every secret derivation of pbem, with its label, in one place (PROTOCOL.md section 2).

``seed = HMAC-SHA256(identity private bytes, "pbem/1/seed" || game_id || nonce)``, where
``game_id`` is the header's 32 lower-case hex characters (as ASCII) and ``nonce`` the 32
raw bytes the seat drew when it created or joined the game and published (as hex) in that
entry: a host who re-uses the id of a finished game, whose seeds are public, still cannot
know a joiner's new seed. Every other
per-game secret is ``derive(seed, LABEL || context, length)``, HKDF-SHA256 (RFC 5869)
with an empty salt.
"""

from __future__ import annotations

from pbem.hashing import hkdf_sha256, hmac_sha256, sha256_hex

SEED = b"pbem/1/seed"
SEED_COMMIT = b"pbem/1/seed-commit"
# A seat's deck seed (the mental deck's secrets, PROTOCOL.md section 3), in the rules
# versions whose reveals open each seat's own cards (Game.opens_at_reveal): no entry ever
# publishes it, so the seed a reveal publishes opens no card.
DECK_SEED = b"pbem/2/deck-seed"
BEACON = b"beacon"
# A seat's fresh beacon chains (PROTOCOL.md section 5, "a chain never runs out"): chain
# k >= 1 starts at derive(seed, BEACON_RENEWED || k as 4 big-endian bytes).
BEACON_RENEWED = b"pbem/1/beacon-renewed"
DECK_KEY = b"deck"
SLOT_KEY = b"slot"
DECK_SHUFFLE = b"shuffle"
# A batch re-lock's permutation (a returned or passed batch), and a shuffle proof's secret.
BATCH_SHUFFLE = b"batch-shuffle"
SHUFFLE_PROOF = b"pbem/1/shuffle-proof"
# The giver's ElGamal scalars of a one-step pass (pbem.protocol.crypto.deck_handoff).
HANDOFF = b"pbem/2/handoff"
RAND = b"pbem/1/rand"
# Chance of an absent seat's turn played by the bot (PROTOCOL.md section 11).
BOT_RAND = b"pbem/1/bot-rand"
CARD_POINT = b"pbem/1/card"
# The salt of a seat's sealed moves in a simultaneous step (docs/protocol-rounds.md).
SEALED_SALT = b"pbem/2/sealed-salt"
# Chaum-Pedersen proofs of the mental deck (pbem.protocol.crypto.dleq): challenge and nonce.
DLEQ_CHALLENGE = b"pbem/1/dleq"
DLEQ_NONCE = b"pbem/1/dleq-nonce"
# Proofs of linear relations (pbem.protocol.crypto.linproof): challenge and nonce.
LINPROOF_CHALLENGE = b"pbem/2/linproof"
LINPROOF_NONCE = b"pbem/2/linproof-nonce"
# Shuffle proofs (pbem.protocol.crypto.shuffle_proof): generators, the two challenges, the nonces.
SHUFFLE_GENERATOR = b"pbem/1/shuffle-generator"
SHUFFLE_U = b"pbem/1/shuffle-u"
SHUFFLE_C = b"pbem/1/shuffle-c"
SHUFFLE_NONCE = b"pbem/1/shuffle-nonce"


NONCE_BYTES = 32


def game_seed(identity_private: bytes, game_id: str, nonce: bytes) -> bytes:
    if len(nonce) != NONCE_BYTES:
        raise ValueError(f"a seat's nonce is {NONCE_BYTES} bytes, not {len(nonce)}")
    return hmac_sha256(identity_private, SEED + game_id.encode() + nonce)


def deck_seed(identity_private: bytes, game_id: str, nonce: bytes) -> bytes:
    """``HMAC-SHA256(identity private bytes, "pbem/2/deck-seed" || game_id || nonce)``:
    the root of a seat's mental-deck secrets where the rules open each seat's cards at its
    reveal. Unlike the seed, it is never published, and nothing published derives it."""
    if len(nonce) != NONCE_BYTES:
        raise ValueError(f"a seat's nonce is {NONCE_BYTES} bytes, not {len(nonce)}")
    return hmac_sha256(identity_private, DECK_SEED + game_id.encode() + nonce)


def seed_commitment(seed: bytes) -> str:
    return sha256_hex(SEED_COMMIT + seed)


def derive(seed: bytes, info: bytes, length: int = 32) -> bytes:
    """HKDF-SHA256(ikm=seed, salt=empty, info) of ``length`` bytes."""
    return hkdf_sha256(seed, info, length)


def sealed_salt(seed: bytes, game_id: str, seq: int, link: bytes) -> bytes:
    """The salt of the moves a seat seals in entry ``seq``, which publishes the beacon
    ``link`` (32 bytes): derive(seed, SEALED_SALT || game_id || seq as 4 big-endian bytes
    || link). Its home re-derives it to open them; nobody else can know it before the
    seat publishes it (the seed is secret until the reveal). The link makes it one salt
    per commitment: a home never publishes a link twice, on any branch, while one seq
    may hold this seat's commitments on two branches (the salt opened on one would
    bare the moves sealed on the other)."""
    return derive(seed, SEALED_SALT + game_id.encode() + seq.to_bytes(4, "big") + link)
