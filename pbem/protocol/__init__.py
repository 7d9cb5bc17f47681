"""The fair-play protocol (PROTOCOL.md): everything a save's trust rests on.

canonical   canonical bytes and hashes of signed data
derive      every per-game secret derivation, with its label
entropy     every fresh random value and clock reading (tests make them deterministic)
sampler     uniform integers from a SHAKE-256 stream (no `random`)
beacon      hash-chain beacon links and the randomness of an entry
identity    a home's Ed25519 identity, signatures, handles
edkeys      is a published Ed25519 key sound (not small-order, canonical)?
contacts    players seen before and their key fingerprints
savefile    TOML <-> records, schema and size checks, atomic writes
packed      a save stored gzip-compressed: bounded inflating, deterministic packing
chain       authenticate the file in hand: header hash, prevs, keys, signatures, beacon
turns       applying one turn, resolving queued chance
engine      replay and signing: header -> entries -> state; the audit
archive     entry hashes seen per game: forks, stale saves, incremental verify
mental, mental_deck, secretdeck   the mental-poker deck for secret cards

Imports neither mail nor drawing.
"""
