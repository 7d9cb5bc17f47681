"""A seeded, reproducible mutation fuzzer for pbem saves: no mutation may be accepted
with a change of meaning, crash pbem or make two homes disagree.

``python -m fuzz.run`` (``make fuzz``) mutates valid saves of every game (the example
saves in saves/ and games played here by fixed identities, so the fuzzer holds every
seat's key) and verifies each mutation twice, in a fresh home and in a home that verified
the untouched prefix. It counts exit codes and flags two things that must never happen:
a mutated save accepted with a change of meaning, and an internal error (a traceback).

Modules: :mod:`fuzz.corpus` (the inputs), :mod:`fuzz.mutate` (byte, TOML and re-signed
mutations), :mod:`fuzz.oracle` (the two verifications, the meaning of a save, the CLI
check), :mod:`fuzz.run` (the loop, the figures and the reproducer files).
"""
