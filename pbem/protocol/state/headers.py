"""A new game's header and the checks every header passes: options, the game and its
component data (``check_header_game``, ``game_data``), and the empty table a replay starts
from (``empty_table``). Below the engine, which replays entries onto that table.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from typing import Any

from pbem.errors import (
    OptionError,
    PbemError,
    SaveFileError,
)
from pbem.game import Game, check_options
from pbem.hashing import sha256_hex
from pbem.protocol.crypto import entropy
from pbem.protocol.saveformat import timing
from pbem.protocol.saveformat.canonical import canonical, digest
from pbem.protocol.saveformat.savefile import FORMAT, MAX_HEADER_INT
from pbem.protocol.state.table import SeatRecord, Table
from pbem.protocol.state.turns import stamp_pending
from pbem.registry import for_save
from pbem.terminal import shortened, shown


# ---- building a game ---------------------------------------------------------------
def parse_options(game: Game, pairs: list[str]) -> dict[str, Any]:
    """``KEY=VALUE`` strings -> typed options with defaults filled in."""
    options: dict[str, Any] = {name: spec.default for name, spec in game.info.options.items()}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        key = key.strip()
        if not sep:
            raise OptionError(f"Option '{pair}' should be KEY=VALUE.")
        spec = game.info.options.get(key)
        if spec is None:
            known = ", ".join(game.info.options) or "none"
            raise OptionError(f"{game.info.id} has no option '{key}'. Its options: {known}.")
        options[key] = _typed(key, value.strip(), spec)
    return options


def _typed(key: str, value: str, spec: Any) -> bool | int | str:
    if spec.kind == "bool":
        lowered = value.lower()
        if lowered in ("true", "yes", "on", "1"):
            return True
        if lowered in ("false", "no", "off", "0"):
            return False
        raise OptionError(f"Option {key} takes true or false, not '{value}'.")
    if spec.kind == "int":
        try:
            number = int(value)
        except ValueError:
            raise OptionError(f"Option {key} takes a whole number, not '{value}'.") from None
        if (spec.minimum is not None and number < spec.minimum) or (
            spec.maximum is not None and number > spec.maximum
        ):
            raise OptionError(f"Option {key} must be between {spec.minimum} and {spec.maximum}.")
        return number
    if spec.choices and value not in spec.choices:
        raise OptionError(f"Option {key} takes one of {', '.join(spec.choices)}, not '{value}'.")
    return value


def refuse_repeated_options(options: list[str]) -> None:
    """OptionError (a usage error, exit 2) for an option key given more than once
    (``--option variant=posse --option variant=standard``), rather than silently taking
    the last value."""
    values: dict[str, list[str]] = {}
    for pair in options:
        key, _, value = pair.partition("=")
        values.setdefault(key.strip(), []).append(value.strip())
    for key, given in values.items():
        if len(given) > 1:
            times = "twice" if len(given) == 2 else f"{len(given)} times"
            raise OptionError(f"Option {key} is given {times} ({', '.join(given)}); "
                              "give it once.")


def new_header(
    game: Game, seats: list[tuple[str, str]], options: dict[str, Any], created: str | None = None,
    keys: dict[str, str] | None = None, patience: str = timing.DEFAULT_PATIENCE,
    away: int = timing.DEFAULT_AWAY_DAYS,
) -> dict[str, Any]:
    """A new game's header. ``keys`` (handle -> hex public key) pins seats to keys: a join
    by any other key is refused (PROTOCOL.md section 3; header ``seats[i].key``).
    ``patience`` and ``away`` are the game clock (PROTOCOL.md section 11)."""
    info = game.info
    n = len(seats)
    if not info.min_players <= n <= info.max_players:
        raise OptionError(
            f"{info.title} takes {info.min_players} to {info.max_players} players, not {n}."
        )
    components = game.stock_components()
    check_options(game, options, n, components)
    if timing.patience_problem(patience):
        raise OptionError(f"--patience {shown(patience)} {timing.patience_problem(patience)}.")
    if timing.away_problem(away):
        raise OptionError(f"--away {shown(away)} {timing.away_problem(away)}.")
    return {
        "format": FORMAT,
        "game": info.id,
        "rules_version": info.rules_version,
        "id": entropy.fresh_bytes(16).hex(),
        "created": created or timing.now_stamp(),
        "options": options,
        "patience": patience,
        "away": away,
        "seats": [_seat(h, e, (keys or {}).get(h, "")) for h, e in seats],
        "components": components,
    }


def _seat(handle: str, email: str, key: str) -> dict[str, str]:
    seat = {"handle": handle}
    if email:
        seat["email"] = email
    if key:
        seat["key"] = key
    return seat


GameDataText = tuple[bytes, bytes]


def game_data(header: dict[str, Any], text: GameDataText | None = None
              ) -> tuple[dict[str, Any], dict[str, Any]]:
    """The header's options and component data as game code may see them: copies with
    every table's keys in sorted order (read back from ``text``, if given, which
    ``game_data_text`` made of this header: set-up takes several copies).

    Canonical JSON sorts keys, so no signature covers the order in which a file lists a
    table's keys: anyone could re-order them without breaking a signature. Game code that
    iterates a table (set-up, chance, legal moves) would then replay another game from the
    same signed entries. Sorted order is the signed value's own order (found by the fuzzer)."""
    options, components = game_data_text(header) if text is None else text
    return json.loads(options), json.loads(components)


def game_data_text(header: dict[str, Any]) -> GameDataText:
    """The options and component data as canonical JSON (sorted keys): read back, deep
    copies with every table's keys in sorted order. Both halves run in C, several times
    faster than a walk in Python, and JSON keeps every integer exact; the header's nesting
    is bounded (check_signable) before this is called. Being canonical, the components'
    text also gives their digest (:func:`components_digest`) for the cost of a hash."""
    return canonical(header["options"]), canonical(header["components"])


def components_digest(text: GameDataText) -> str:
    """``digest(header["components"])`` of the header ``text`` was made of."""
    return sha256_hex(text[1])


def check_header_game(header: dict[str, Any], text: GameDataText | None = None) -> Game:
    """The header's game, rules version, options and components, or SaveFileError.

    Runs after chain.authenticate (the header is the one entry 0 signed). Options are
    checked against their Option spec, by type (a "false" string is not a boolean) and
    range; component data by the game's validator. Game code that fails on data it was
    given (a TypeError, a KeyError, ...) makes the save malformed, never a traceback."""
    game = header_fits(header)
    n = len(header["seats"])
    if text is None:
        text = game_data_text(header)
    options, components = game_data(header, text)
    try:
        unknown = sorted(set(options) - set(game.info.options))
        if unknown:
            raise OptionError(f"unknown option {', '.join(unknown)}")
        for key, spec in game.info.options.items():
            if key not in options:
                raise OptionError(f"option {key} is missing")
            _check_stored_option(key, options[key], spec)
    except OptionError as exc:
        raise SaveFileError(f"The save's options are not valid: {exc.message}") from None
    # Component data is validated once per process for each validator, game, rules
    # version and digest of its canonical JSON: the same bytes pass or fail the same way,
    # and any change to them (a tampered save) is another digest, validated afresh.
    validator = game.validate_components
    record = (getattr(validator, "__func__", validator), game.info.id,
              game.info.rules_version, components_digest(text))
    if record not in _VALID_COMPONENTS:
        with _game_code(game, "component data"):
            validator(components)
        _VALID_COMPONENTS.add(record)
    # The options are checked against the save's own (now valid) data: a host who signs
    # a smaller deck than an option's deal needs is refused here, not at set-up.
    try:
        with _game_code(game, "options"):
            check_options(game, options, n, components)
    except OptionError as exc:
        raise SaveFileError(f"The save's options are not valid: {exc.message}") from None
    return game


_VALID_COMPONENTS: set[tuple[Any, str, Any, str]] = set()


def _versions(game: Game) -> str:
    """'version 3', or 'versions 3 and 4': the rules versions this pbem plays."""
    known = sorted({game.info.rules_version, *game.info.older_rules})
    return (f"version {known[0]}" if len(known) == 1 else
            f"versions {', '.join(map(str, known[:-1]))} and {known[-1]}")


def header_fits(header: dict[str, Any]) -> Game:
    """The header's game, if this pbem plays its rules version for its number of seats."""
    game = for_save(header["game"])
    version = header["rules_version"]
    if version != game.info.rules_version and version not in game.info.older_rules:
        raise SaveFileError(
            f"This save needs {game.info.title} rules version {version}; this pbem plays "
            f"{_versions(game)}. Install a pbem that supports version {version}."
        )
    with _game_code(game, "rules version"):
        game = game.for_rules(version)
    n = len(header["seats"])
    if not game.info.min_players <= n <= game.info.max_players:
        raise SaveFileError(f"The header seats {n} players; {game.info.title} takes "
                            f"{game.info.min_players} to {game.info.max_players}.")
    return game


def _check_stored_option(key: str, value: Any, spec: Any) -> None:
    """An option as the header stores it: of the spec's type, within its range/choices."""
    given = shown(value)
    if spec.kind == "bool":
        if not isinstance(value, bool):
            raise OptionError(f"option {key} must be true or false, not {given}")
    elif spec.kind == "int":
        if not isinstance(value, int) or isinstance(value, bool):
            raise OptionError(f"option {key} must be a whole number, not {given}")
        low = spec.minimum if spec.minimum is not None else -MAX_HEADER_INT
        high = spec.maximum if spec.maximum is not None else MAX_HEADER_INT
        if not low <= value <= high:
            raise OptionError(f"option {key} must be between {low} and {high}")
    elif not isinstance(value, str):
        raise OptionError(f"option {key} must be a text, not {given}")
    elif spec.choices and value not in spec.choices:
        raise OptionError(f"option {key} takes one of {', '.join(spec.choices)}")


class SetupOptionError(SaveFileError):
    """An option the game refuses only when it sets the game up (Road Master's ``first``
    naming no player): a malformed save (exit 4); ``new`` turns it back into the user's
    OptionError (exit 2) with ``reason``."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


@contextlib.contextmanager
def _game_code(game: Game, what: str) -> Iterator[None]:
    """Game code running on a save's header: its failure is the save's fault (exit 4)."""
    try:
        yield
    except PbemError as exc:  # the game's own words, which may quote the header at length
        exc.message = shortened(exc.message)
        raise
    except (TypeError, KeyError, ValueError, AttributeError, IndexError, RecursionError,
            OverflowError, ZeroDivisionError) as exc:
        raise SaveFileError(
            f"The save's {what} cannot be used by {game.info.title} ({type(exc).__name__}): "
            "it was not made by pbem. Ask for the file exactly as pbem wrote it.") from None


# A secret deck costs a hash to the curve per card and a layer per seat: a bound no game
# comes near (Road Master's Super Bonus deck has 20 cards).
MAX_SECRET_CARDS = 1024


def empty_table(header: dict[str, Any], header_hash: str | None = None,
                text: GameDataText | None = None) -> Table:
    """The table before entry 0, once the header's game, options and components pass
    check_header_game (``text``: ``game_data_text(header)``, if the caller made it)."""
    if text is None:
        text = game_data_text(header)
    game = check_header_game(header, text)
    handles = [s["handle"] for s in header["seats"]]
    options, components = game_data(header, text)
    with _game_code(game, "component data"):
        try:
            gstate = game.setup(handles, options, components)
        except OptionError as exc:  # e.g. first = "zed": in a save, the host signed it
            raise SetupOptionError(f"The save's options are not valid: {exc.message}",
                                   reason=exc.message) from None
        decks: dict[str, list[str]] = {}
        if type(game).secret_decks is not Game.secret_decks:  # the default has none
            options, components = game_data(header, text)  # set-up may have changed its copies
            decks = game.secret_decks(components, options, len(handles))
    gstate["seats"] = handles
    # Set-up chance is resolved by the start entry, from the last joiner's link and the
    # host's: stamp it with the seq of the last join (the create in a solo game).
    stamp_pending(gstate, len(handles) - 1)
    if decks:
        from pbem.protocol.crypto import deck_hooks, mental_deck

        for name, uids in decks.items():
            if len(uids) > MAX_SECRET_CARDS or len(set(uids)) != len(uids):
                raise SaveFileError(f"The save's secret deck {name!r} has {len(uids)} cards "
                                    f"(at most {MAX_SECRET_CARDS}, each once).")
        # Card points in the clear, replaced at once by the create entry's shuffle pass;
        # a deal set-up asked for at the last pass (secretdeck.deal_when_shuffled) marked.
        asked = gstate.get("secret", {})
        gstate["secret"] = {name: mental_deck.blank(header["id"], name, list(uids), len(handles))
                            for name, uids in decks.items()}
        for name, d in gstate["secret"].items():
            if "deal" in asked.get(name, {}):
                deck_hooks.mark_deal(d, asked[name]["deal"])
    seats = [SeatRecord(s["handle"], s.get("email", "")) for s in header["seats"]]
    head = digest(header) if header_hash is None else header_hash
    return Table(header=header, seats=seats, gstate=gstate, head=head)


# ---- applying one entry --------------------------------------------------------------
