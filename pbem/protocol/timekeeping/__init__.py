"""The clock and absences: patience and away time, who the game waits for, a home that was
there (hold-back), and absence proposals, votes and remedies.

Modules: clock, holdback, absence.
"""
