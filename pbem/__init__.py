"""pbem: play board games by email with signed saves and no referee.

The package is in rooms, each with one job; imports run downward only::

    cli/, demo.py        the command line and the bot demo (top)
    session.py           the operations behind each command (files, homes, archive)
    mail/                compose, send and read mail; the sender's profile
    play/                bots and local tables (games without signatures)
    drawing/             pictures of the board: the SVG kit, PNG, HTML pages
    protocol/            bytes, keys, beacon, save file, replay, archive, mental deck
    game.py, errors.py,  the contract every game implements, the error tree, and
    registry.py          where installed games are found (used by every room)
"""

# The one version number: pyproject.toml reads it from here.
__version__ = "0.3.0"
