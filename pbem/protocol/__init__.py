"""The fair-play protocol (PROTOCOL.md): everything a save's trust rests on, in
rooms by job. A room imports only the rooms listed before it:

crypto      The cryptography
saveformat  The save format
state       What a save means, entry by entry
timekeeping The clock and absences
replay      The replay

A home's own storage (archive, contacts, game index, caches) is pbem.home,
above the protocol. Imports neither mail nor drawing.
"""
