"""The save format: canonical bytes and hashes of signed data, TOML <-> records with their
schema and size checks, and the signed times an entry carries (parsed, formatted,
compared).

Modules: canonical, timing, savefile, packed.
"""
