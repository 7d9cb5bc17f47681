"""The cryptography: fresh randomness and clock readings, every per-game derivation,
uniform integers from SHAKE-256, Ed25519 keys, signatures and a home's identity, the
hash-chain beacon, and the mental-poker deck (group arithmetic, DLEQ and shuffle proofs,
the secret deck games use).

Modules: entropy, derive, sampler, sodium, edkeys, b64, identity, beacon, mental, dleq,
shuffle_proof, mental_deck, mental_open, secretdeck.
"""
