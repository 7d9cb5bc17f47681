"""The error tree. Each class maps to one exit code at the CLI boundary (CLI.md)."""

from __future__ import annotations


class PbemError(Exception):
    """Base of every error a user may see. The message is one or two plain sentences."""

    exit_code = 1

    def __init__(self, message: str, *, seq: int | None = None, code: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.seq = seq
        self.code = code or type(self).__name__


class MoveError(PbemError, ValueError):
    """A move that cannot be played."""

    exit_code = 1


class InvalidMoveError(MoveError):
    """The move does not parse."""


class IllegalMoveError(MoveError):
    """The move parses but the rules forbid it now."""


class AmbiguousMoveError(MoveError):
    """The move could mean more than one legal move."""


class TurnError(PbemError):
    """Not your turn, wrong kind of entry, game over."""

    exit_code = 1


class UsageError(PbemError):
    """Bad command-line input that click cannot see (an option value, a seat list)."""

    exit_code = 2


class OptionError(UsageError):
    """A game option that is unknown, mistyped or does not fit the player count."""


class IdentityError(PbemError):
    """No identity in this home, or one already there, or a wrong passphrase."""

    exit_code = 2


class SaveFileError(PbemError):
    """Unreadable or malformed save, wrong format, unknown game or rules version."""

    exit_code = 4


class ComponentError(SaveFileError):
    """Component data (stock TOML or a save's header) that fails validation."""


class IntegrityError(PbemError):
    """Signature, chain, beacon, snapshot, fork, or an audit that names a cheat."""

    exit_code = 3

