"""The replay: authenticate the file in hand (header hash, prevs, keys, signatures,
beacon), replay entries onto a table, the audit at the end, and signing a new entry.

Modules: chain, audit, engine, signing.
"""
