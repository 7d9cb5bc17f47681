"""The contract every ruleset implements, and the few helpers games may use.

A game is a subclass of :class:`Game` registered under the ``pbem.games`` entry point.
Games import only this module (and what it re-exports); they never import click and
never do I/O or randomness of their own.

State
-----
A game's state is a plain JSON-like ``dict``: string keys; values are ``str``, ``int``,
``bool``, lists and dicts of those. No ``None`` (TOML has no null), no floats, no sets,
no tuples. ``apply``/``end_turn``/``resolve`` mutate the state they are given in place
and return nothing. Verifying a save, the engine applies every entry to one state in place
(a move that raises ends the verify); signing, it works on a copy and throws the copy away
if a move raises. Never keep a reference to a state, or to part of one, between calls.

Seats are integers ``0 .. n-1`` in header order; ``setup`` gets their handles. Right
after ``setup`` returns, the engine (and local play) adds ``state["seats"]``, the handles,
for display. The engine owns three keys of the state, which a game reads but never
writes: ``seats``, ``pending`` (queued chance, below) and ``secret`` (the secret decks,
changed only through ``secretdeck``).

Chance
------
A rule that needs a random outcome (refill a display, roll dice, draw from a bag) calls
:func:`queue_chance` with a small request dict. The engine resolves the queue later with
the public beacon (PROTOCOL.md section 5) by calling ``resolve(state, request, rng)`` for
each request in order. Until then the request sits in ``state["pending"]``, which is
public, so views can say "display refill pending". Never read randomness any other way.

Chance is resolved only by an entry of *another* seat (its beacon link was unknown to the
seat that asked). A seat that acts again before anyone else signs sees its own requests
still pending: five rolls in a row stay five pending rolls. A game must hand the turn on
(or not need the outcome) before chance it queued can be used; a solo game is the one
exception, resolved from the seat's own chain.

Turns
-----
The moves of one ``play`` make one whole turn of the seat ``to_act`` returns. The engine
applies them one by one (``normalize`` then ``apply``) and then calls ``end_turn``, which
either completes the turn (advancing whoever acts next) or raises IllegalMoveError saying
what is still owed ("2 actions required, 1 taken", "jettison 3 goods"). ``legal_moves``
lists what can be done next within the current turn, in a stable order, as canonical
strings; ``can_end_turn`` says whether the turn could end now.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import json
import sys
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from pbem import recent
from pbem.componentdata import ComponentReader, copied, is_whole
from pbem.errors import (
    AmbiguousMoveError,
    ComponentError,
    IllegalMoveError,
    InvalidMoveError,
    MoveError,
    OptionError,
    PbemError,
)
from pbem.hashing import sha256_hex
from pbem.outcome import (
    FEWER_IS_BETTER,
    MORE_IS_BETTER,
    Outcome,
    Tiebreak,
    rank_sides,
    rank_with_tiebreaks,
)
from pbem.protocol.crypto import secretdeck
from pbem.protocol.crypto.sampler import Sampler

if TYPE_CHECKING:  # at run time the kit loads on first use (see __getattr__)
    from pbem.drawing import kit

__all__ = [
    "FEWER_IS_BETTER",
    "MORE_IS_BETTER",
    "Tiebreak",
    "AmbiguousMoveError",
    "ComponentError",
    "ComponentReader",
    "Game",
    "GameInfo",
    "IllegalMoveError",
    "InvalidMoveError",
    "MoveError",
    "Option",
    "OptionError",
    "Outcome",
    "Sampler",
    "State",
    "Fixed",
    "check_options",
    "copy_state",
    "derived",
    "ended_line",
    "waiting_line",
    "fixed",
    "queue_chance",
    "kit",
    "rank_sides",
    "rank_with_tiebreaks",
    "is_whole",
    "secretdeck",
    "word_matches",
    "one_match",
]

State = dict[str, Any]
T = TypeVar("T")

# The data file a game's stock components are read from, beside its class's module.
COMPONENTS_FILE = "components.toml"


def __getattr__(name: str) -> Any:
    """``kit``, the drawing kit for ``render_svg`` (pbem.drawing.kit), loaded on first
    use: most commands draw nothing, so importing the contract does not load it."""
    if name == "kit":
        return importlib.import_module("pbem.drawing.kit")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class Option(NamedTuple):
    """One ``--option KEY=VALUE`` a game accepts.

    ``kind`` is ``"bool"``, ``"int"`` or ``"str"``; ``choices`` (for str) limits values.
    """

    default: bool | int | str
    help: str
    kind: str = "str"
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None


class GameInfo(NamedTuple):
    id: str  # "red-dog-junction": used in saves, file names, the CLI
    title: str  # "Red Dog Junction"
    rules_version: int  # bump when a rule change alters the outcome of old saves
    min_players: int
    max_players: int
    options: Mapping[str, Option] = MappingProxyType({})
    summary: str = ""
    # Older rules versions this pbem still plays, each as it was (Game.for_rules): a game
    # begun under one is verified and finished under it, never changed mid-game.
    older_rules: tuple[int, ...] = ()


def ended_line(view: Mapping[str, Any]) -> str:
    """"" while play goes on; else what a picture or text view says in place of who is
    to act: the engine adds ``ended`` to a view once play is over, also when a
    resignation or an absence remedy ended it and the game's own state does not know:
    "The game is over: bob resigned in entry 12: bob ranks last. Awaiting the reveals
    of ann, cy."."""
    ended = view.get("ended")
    if not isinstance(ended, Mapping):
        return ""
    text = str(ended.get("text", "")).strip()
    awaiting = [str(a) for a in ended.get("awaiting", [])]
    line = "The game is over" + (f": {text}" if text else ".")
    if awaiting:
        line += f" Awaiting the final reveal of {', '.join(awaiting)}."
    return line


def waiting_line(view: Mapping[str, Any]) -> str:
    """"" while the seat the game names is simply to act; else what a picture or text
    view says in its place: how the game ended (:func:`ended_line`), or the absence vote
    the game waits for, which the engine adds to a view as ``vote`` (the seat proposed
    absent may still answer it by playing, but the clock waits for the voter)."""
    ended = ended_line(view)
    if ended:
        return ended
    vote = view.get("vote")
    return str(vote.get("text", "")) if isinstance(vote, Mapping) else ""


def word_matches(word: str, choices: Iterable[str]) -> list[str]:
    """What ``word`` names among ``choices``: itself alone when it is one of them, else
    every choice it is the start of, in their order (none for an empty word). One is the
    match; several are ambiguous, which the caller says in its own words."""
    options = list(choices)
    if word in options:
        return [word]
    return [c for c in options if word and c.startswith(word)]


def one_match(word: str, choices: Iterable[str], ambiguous: Callable[[list[str]], str],
              unknown: Callable[[], str],
              errors: tuple[type[PbemError], type[PbemError]] = (AmbiguousMoveError,
                                                                 InvalidMoveError)) -> str:
    """The one choice ``word`` names (:func:`word_matches`). When it names several,
    ``errors[0]`` saying ``ambiguous(hits)``; when none, ``errors[1]`` saying
    ``unknown()`` (the messages are made only when needed: moves are parsed often)."""
    hits = word_matches(word, choices)
    if len(hits) == 1:
        return hits[0]
    if hits:
        raise errors[0](ambiguous(hits))
    raise errors[1](unknown())


def check_options(game: Game, options: dict[str, Any], players: int,
                  components: dict[str, Any]) -> None:
    """``game.validate_options`` given ``components``, or without them when the game
    overrides it with the older two-argument signature (written before the data was
    passed), so such a game still loads and checks what it can."""
    method = game.validate_options
    if _takes_components(getattr(method, "__func__", method)):
        game.validate_options(options, players, components=components)
    else:
        game.validate_options(options, players)


@functools.cache
def _takes_components(method: Callable[..., None]) -> bool:
    parameters = inspect.signature(method).parameters
    return "components" in parameters or any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())


def queue_chance(state: State, request: dict[str, Any]) -> None:
    """Ask the engine for a random outcome; ``resolve`` will receive ``request``."""
    state.setdefault("pending", []).append(dict(request))



class ReadMove(NamedTuple):
    """A move as a game read it (:meth:`Game.read`): its canonical text, which a save
    holds, and the game's own parsed form of that text (None: :meth:`Game.apply_move`
    applies the text), so a move is parsed once, as python-chess's ``Move`` is."""

    text: str
    parsed: Any = None


def play_move(game: Game, state: State, seat: int, text: str) -> str:
    """Read one move as typed and apply it in place; its canonical text."""
    move = game.read(state, seat, text)
    game.apply_move(state, seat, move)
    return move.text

@functools.cache
def _as_played(cls: type[Game], version: int) -> Game:
    """An instance of ``cls`` (a game with no constructor arguments) whose ``info`` names
    the older rules ``version`` (Game.for_rules); one per class and version."""
    older = type(f"{cls.__name__}Rules{version}", (cls,),
                 {"info": cls.info._replace(rules_version=version, older_rules=()),
                  "__module__": cls.__module__})  # its data file is the game's (stock_file)
    return older()


class Game(ABC):
    """A ruleset. Subclasses are stateless: every method takes the state it works on."""

    info: GameInfo

    def for_rules(self, version: int) -> Game:
        """The game as rules version ``version`` plays it: ``self`` for the current
        version; for a version in ``info.older_rules``, the same game whose ``info`` names
        that version (so its ``setup`` can make the state that version made: a changed
        rule reads a mark the new ``setup`` leaves in the state, and every other method
        plays whatever state it is given). The engine asks for the save's own version
        (its header's ``rules_version``) before it sets a game up. ValueError for a
        version this game never had."""
        if version == self.info.rules_version:
            return self
        if version not in self.info.older_rules:
            raise ValueError(f"{self.info.title} has no rules version {version}")
        return _as_played(type(self), version)

    # ---- components -------------------------------------------------------------
    def stock_file(self) -> Path | None:
        """The installed component data's file: by default ``components.toml`` beside the
        module that defines the game's class, if there is one (None: the game has no data
        file). A home keeps the digest of the data under the file's own hash, so a command
        tells whether a save's components differ from the installed ones without reading
        and checking them."""
        module = sys.modules.get(type(self).__module__)
        where = getattr(module, "__file__", None)
        if not where:
            return None
        path = Path(where).with_name(COMPONENTS_FILE)
        return path if path.is_file() else None

    def stock_components(self) -> dict[str, Any]:
        """The installed component data, checked by ``validate_components``: by default
        ``stock_file`` read once per process (a fresh copy each call), or ``{}`` when the
        game has no data file."""
        path = self.stock_file()
        if path is None:
            return {}
        return ComponentReader(self.info.title).load(path, self.validate_components)

    def validate_components(self, data: dict[str, Any]) -> None:
        """Raise ComponentError naming the bad entry if ``data`` is not usable. Every save
        carries its component data, and this check runs on it before any other hook sees
        it: a game with data must check every value it later trusts (the default accepts
        any table, for a game with no data)."""
        return None

    def validate_options(self, options: dict[str, Any], players: int, *,
                         components: dict[str, Any] | None = None) -> None:
        """Raise OptionError with a plain sentence when the options (already typed and
        range-checked against ``info.options``) do not fit together, with the number of
        players, or with ``components``: the game's component data, already checked by
        ``validate_components`` (the save's own, which may differ from the installed
        data; None: the caller has none, so use ``stock_components()``). An option value
        the data cannot play (a deck too small for the deal) is refused here, before a
        game is created, never found at set-up or mid-game."""
        return None

    def secret_decks(
        self, components: dict[str, Any], options: dict[str, Any], players: int
    ) -> dict[str, list[str]]:
        """Decks drawn in secret through the mental deck (PROTOCOL.md section 6):
        deck name -> the uid of every physical card. Most games have none.

        The engine builds and shuffles them at create/join; the game then works on them
        only through ``secretdeck`` (re-exported here: draw, deal, keep, return, pass,
        open; its docstring is the API) and learns what a slot holds through the
        ``secrets`` argument of ``view``, ``secretdeck.card`` once a slot is opened, and
        ``on_reveal``."""
        return {}

    def secret_claims(self, state: State) -> dict[str, dict[int, list[str]]]:
        """Cards each seat has claimed to hold (played face up, say): deck -> seat ->
        uids. The audit checks each claim against what the seat's held slots open to."""
        return {}

    def on_reveal(self, state: State, opened: dict[str, dict[str, str]]) -> None:
        """Called once after every seat has revealed: ``opened[deck][slot_id]`` is the
        card uid of every slot the audit opened. Record what scoring needs. A slot left
        closed under the layer of a seat that never revealed (declared absent) is not in
        ``opened``: score its holder without it (every result says so)."""
        return None

    # ---- play ---------------------------------------------------------------------
    @abstractmethod
    def setup(
        self, seats: Sequence[str], options: dict[str, Any], components: dict[str, Any]
    ) -> State:
        """The state before the first turn. Set-up randomness (first player, shuffles,
        dice) is queued with queue_chance and resolved by the ``start`` entry."""

    @abstractmethod
    def to_act(self, state: State) -> int | None:
        """The seat whose turn it is; None once the game is over. In a simultaneous step
        (:meth:`simultaneous`), the first seat of the step still to act."""

    def simultaneous(self, state: State) -> list[int]:
        """The seats that still act in the simultaneous step under way, in seat order;
        [] (the default) when play is sequential and ``to_act`` names the one seat.

        Each of these seats plays one whole turn of the step. Its moves must be legal
        against the state before the step and stay legal, written the same, after the
        other seats' turns of the step, in any order (the conformance suite checks seat
        order and reverse order). Signed play makes such a step one round of parallel
        entries (docs/protocol-rounds.md), applied in seat order, so what may still
        depend on the order (slot ids a pass numbers, the log) follows seat order."""
        return []

    def sealed(self, state: State) -> bool:
        """Whether the moves of the simultaneous step under way stay hidden from the
        other seats until every seat of the step has acted (a sealed bid). Default no."""
        return False

    def waits_on_deck(self, state: State) -> bool:
        """Whether no seat has a decision to make until secret-deck work owed now is done
        (a draft whose hands are on their way). The engine then asks for that work itself:
        each seat owing work signs an entry with no moves that does it, in one round where
        the work of the seats is independent (docs/protocol-rounds.md), and ``to_act`` is
        not asked meanwhile. Default no: owed work rides in its seat's next entry."""
        return False

    def deck_round_resolves(self, state: State) -> bool:
        """Whether the round of the deck work the game waits on (``waits_on_deck``) may
        begin while chance is pending, one seat's entry in it resolving the chance, as a
        lone entry would, and the others resolving nothing (docs/protocol-rounds.md,
        "A round of deck work that resolves chance"). Say yes only where nothing of the
        work or of the seats' choices after it is changed by which of its entries is
        applied first and the outcome is wanted no sooner (Red Dog Junction's Posse
        opens, which draw the rest of set-up). Default no: the chance is resolved by a
        lone entry before the round."""
        return False

    def deck_round_pair(self, state: State) -> bool:
        """Where a round of deck work resolves chance (``deck_round_resolves``), whether it
        is drawn from two of its links, the queuing seat's and the resolver's, once both
        entries are in (docs/protocol-rounds.md, "Drawn from two links of the round"),
        rather than by the resolver's entry from its own link and the queuing entry's.
        Say yes where the chance was queued in a round of choices the resolver is in: the
        queuing entry may reach the resolver before its own choice there, and its own next
        link it knows in advance (Red Dog Junction's Posse from rules version 6). Default
        no."""
        return False

    def opens_at_reveal(self) -> bool:
        """Whether each seat's reveal opens the cards it holds, each with its proof, and
        its mental-deck secrets come from a deck seed no entry publishes (PROTOCOL.md
        sections 3, 6 and 7): the pile and every card returned under it stay closed after
        the game, as at a real table. Say yes in every new rules version of a game with a
        mental deck. Default no: the rules versions before, where the seed each reveal
        publishes opens every slot of the deck."""
        return False

    @abstractmethod
    def legal_moves(self, state: State, seat: int) -> list[str]:
        """Canonical move strings possible now in the current turn, stable order."""

    def move_lines(self, moves: list[str]) -> list[str]:
        """``moves`` (a legal_moves list) as ``pbem moves`` prints them for people: one a
        line, unless the game groups a long family of choices into one true summary line
        (``moves --json`` always gives the full list)."""
        return list(moves)

    @abstractmethod
    def normalize(self, state: State, seat: int, text: str) -> str:
        """Parse a move as typed (friendly variants allowed) into its canonical string.

        Raise InvalidMoveError for bad syntax, AmbiguousMoveError when it could mean two
        moves. ``normalize(m) == m`` for every canonical ``m``."""

    @abstractmethod
    def apply(self, state: State, seat: int, move: str) -> None:
        """Apply a canonical move in place; raise IllegalMoveError with the reason."""

    def read(self, state: State, seat: int, text: str) -> ReadMove:
        """A move as typed, read once: a :class:`ReadMove` with its canonical text and, if the
        game keeps it, the form it parsed, so :meth:`apply_move` parses nothing again
        (verify replays every move of a game). Changes nothing. The parsed form must be
        that of the canonical text: applying the ReadMove does exactly what
        ``apply(normalize(text))`` would. The default keeps no parsed form."""
        return ReadMove(self.normalize(state, seat, text))

    def apply_move(self, state: State, seat: int, move: ReadMove) -> None:
        """Apply a ReadMove from :meth:`read` in place, with its parsed form where it has one;
        the default applies its text (:meth:`apply`)."""
        self.apply(state, seat, move.text)

    @abstractmethod
    def end_turn(self, state: State, seat: int) -> None:
        """Finish the turn in place or raise IllegalMoveError saying what is owed."""

    def check_end_turn(self, state: State, seat: int) -> None:
        """Raise IllegalMoveError saying what is owed if the turn cannot end now, changing
        nothing. The default ends a copy; a game with a cheaper check overrides this."""
        self.end_turn(copy_state(state), seat)

    def can_end_turn(self, state: State, seat: int) -> bool:
        try:
            self.check_end_turn(state, seat)
        except MoveError:
            return False
        return True

    @abstractmethod
    def resolve(self, state: State, request: dict[str, Any], rng: Sampler) -> None:
        """Resolve one queued chance request in place, drawing only from ``rng``."""

    # ---- reading -----------------------------------------------------------------
    @abstractmethod
    def view(
        self,
        state: State,
        seat: int | None,
        secrets: dict[str, dict[str, str]] | None = None,
    ) -> dict[str, Any]:
        """What ``seat`` may see (None: the public view written into every save).

        ``secrets[deck][slot_id]`` is the card uid of each slot that seat has drawn and
        decrypted (secret decks only).

        Must be JSON-like (no None/float) and must not contain another seat's secrets.
        """

    def snapshot(self, state: State) -> dict[str, Any]:
        """The public view as a save's ``[state]`` carries it, for people to read. A game
        may leave out what the header's component data already holds (a whole map)."""
        return self.view(state, None)

    @abstractmethod
    def render(self, view: dict[str, Any]) -> str:
        """A plain-text picture of a view for ``pbem show``."""

    def render_svg(self, view: dict[str, Any]) -> str | None:
        """The board of a view as a standalone SVG document (``show --svg``/``--png``,
        the PNG in emails), or None if the game draws no picture. Draw only what the view
        holds: it is already limited to what its seat may see. Draw with ``kit`` (the
        drawing kit); once the game is complete and audited the view carries the final
        result under ``result``, which ``kit.result_panel`` draws."""
        return None

    def describe(self, before: State, after: State, seat: int) -> list[str]:
        """What one entry changed, as short lines for people, public facts only.

        ``before`` is the state before the entry, ``after`` the state after it: the chance
        it resolved first (cards drawn, dice, refills, boom cards), then what ``seat``'s
        moves did (score, cash, goods, cards, crews replaced, actions queued or lost), and
        chance now waiting for the next player. ``play`` and ``play --dry-run`` print it
        after a turn; ``log`` and ``show`` use it for the history. Never mention a secret:
        both states are public, so there is none in them to mention."""
        return []

    @abstractmethod
    def outcome(self, state: State) -> Outcome | None:
        """Scores and ranking once the game is over, else None."""

    @abstractmethod
    def notation(self) -> str:
        """Move notation for ``pbem rules GAME``: every move form with an example."""

    # ---- absent players (PROTOCOL.md section 11) -----------------------------------
    def remedies(self, state: State, seat: int) -> dict[str, str]:
        """The remedies fair for this game if ``seat`` is declared absent now, each with
        a sentence saying what else changes (shown before anyone votes; "" for nothing).

        ``end``: the game stops; ``seat`` ranks last, the others are ranked by
        :meth:`score_now`. ``bot``: ``seat``'s turns are played by :meth:`absent_turn`;
        it has no key, so it cannot peel or read a secret card. The default offers
        ``end`` always and ``bot`` only to a game without a secret deck."""
        if state.get("secret"):
            return {"end": ""}
        return {"end": "", "bot": ""}

    def on_absent(self, state: State, seat: int, remedy: str) -> None:
        """Called once when a remedy for ``seat`` takes effect (the last acceptance), on
        the public state: record what the game must change (close a secret deck, say)."""
        return None

    def score_now(self, state: State) -> Outcome:
        """Every seat's score and the ranking as the rules' end-of-game scoring would give
        them if the game ended in ``state`` (remedy ``end``). The default is
        :meth:`outcome`, or a shared place for all where it gives none."""
        out = self.outcome(state)
        if out is not None:
            return out
        seats = list(range(len(state.get("seats", []))))
        return Outcome(scores={s: 0 for s in seats}, ranking=[seats] if seats else [],
                       notes=["This game has no scoring for a game stopped early: the "
                              "players present share the place."])

    def absent_turn(self, state: State, seat: int) -> list[str]:
        """The moves of one whole turn for an absent ``seat`` (remedy ``bot``): a pure
        function of the public ``state``, never of a secret or a random number, so that
        every verifier computes the same moves. Default: :func:`steady_turn`."""
        return steady_turn(self, state, seat)

    # ---- bots ---------------------------------------------------------------------
    def heuristic(self, state: State, seat: int) -> int:
        """How good ``state`` looks for ``seat`` (higher is better); used by greedy."""
        return 0

    def bot_moves(self, state: State, seat: int) -> list[str]:
        """The moves the bots weigh now: every legal move unless the game says fewer. A
        game whose legal list spells out many combinations (any 1-3 of ten cards) may
        return a subset, each one legal, so a greedy turn stays fast while ``moves``
        still lists everything."""
        return self.legal_moves(state, seat)

    def heuristic_knowing(self, state: State, seat: int,
                          secrets: dict[str, dict[str, str]]) -> int:
        """``heuristic`` for a seat that also knows its own secret cards: ``secrets`` as
        ``view`` receives them (deck -> slot -> card, only the slots this seat drew or
        holds and can read; never another seat's). The greedy bot calls this; games with
        secret decks override it, by default the cards are not looked at."""
        return self.heuristic(state, seat)

    def bot_state(self, state: State, seat: int, secrets: dict[str, dict[str, str]]) -> State:
        """The state a bot of ``seat`` plans its moves on (a copy it may change): a game
        whose heuristic needs the seat's own secret cards (``secrets``, as ``view`` gets
        them) records them in it here; the rules never read what it adds. Default: the
        state as it is."""
        return state

    # ---- conformance hooks ---------------------------------------------------------
    def invariants(self, state: State) -> list[str]:
        """Broken invariants (goods conserved, no negative supplies), as sentences."""
        return []


MAX_STEADY_MOVES = 60


def _state_key(state: State) -> str:
    return sha256_hex(json.dumps(state, sort_keys=True).encode())


def position_key(state: State) -> str:
    """_state_key for telling apart the positions of one turn: a Fixed table at the top
    stands in by its identity (every copy of the turn's state shares it, and nothing
    changes it), so only what changes is written out. Two positions get the same key
    exactly when _state_key would give them the same one."""
    changing = {k: v for k, v in state.items() if not isinstance(v, Fixed)}
    shared = sorted((k, id(v)) for k, v in state.items() if isinstance(v, Fixed))
    return sha256_hex(json.dumps([changing, shared], sort_keys=True).encode())


class Fixed(dict[str, Any]):
    """A table of a state fixed at set-up (a game's working copy of its component data):
    never changed, so never copied.

    The engine and the bots copy the state for every entry and every move they try; a
    state's fixed part is often most of it. A Fixed table at the top of a state is shared
    by every copy (:func:`copy_state`; ``copy.deepcopy`` returns it too) and writing to it
    raises. It is still a plain dict to everything that reads it (JSON, views, digests);
    a state read back from JSON holds ordinary dicts there, which only copy more slowly
    (:func:`fixed` makes them Fixed again)."""

    def __deepcopy__(self, memo: dict[int, Any]) -> Fixed:
        return self

    def __copy__(self) -> Fixed:
        return self

    def __reduce__(self) -> tuple[type[Fixed], tuple[dict[str, Any]]]:
        # Pickled inside another value, a table is rebuilt whole, never item by item.
        return Fixed, (dict(self),)

    def _refuse(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("this table is fixed at set-up and cannot change")

    __setitem__ = __delitem__ = update = pop = popitem = clear = setdefault = _refuse  # type: ignore[assignment]
    __ior__ = _refuse  # type: ignore[assignment]


def derived(table: dict[str, Any], name: str, build: Callable[[], T]) -> T:
    """``build()``, worked out once per Fixed table and kept on it (the table never
    changes, so neither does what is derived from it: an index, a path search); for a
    plain table (read back from JSON) worked out afresh each time. The caller must not
    change what it gets."""
    if not isinstance(table, Fixed):
        return build()
    found: T | None = table.__dict__.get(name)
    if found is None:
        found = build()
        table.__dict__[name] = found
    return found


def fixed(value: Any) -> Any:
    """``value`` with every table made Fixed (lists stay lists: JSON has no tuples; do
    not change them either)."""
    if isinstance(value, dict):
        return Fixed({key: fixed(item) for key, item in value.items()})
    if isinstance(value, list):
        return [fixed(item) for item in value]
    return value


def copy_state(state: State) -> State:
    """An exact copy of a state, or of any part of one (plain data), sharing the Fixed
    tables at its top: about a third of the time of copy.deepcopy (the engine copies the
    state to preview and sign an entry, the bots once per candidate move)."""
    if type(state) is dict and any(isinstance(v, Fixed) for v in state.values()):
        changing = {k: v for k, v in state.items() if not isinstance(v, Fixed)}
        fresh = copied(changing)
        return {k: v if isinstance(v, Fixed) else fresh[k] for k, v in state.items()}
    return copied(state)


# The steady turns worked out lately in this process, by (game, seat, state key). One
# `pbem play` on a game with a bot seat needs the same bot turn three times (verifying the
# save, previewing the new entry, signing it); a turn is a pure function of these three,
# so working it out once is enough. Bounded, oldest dropped first.
_STEADY_MEMO: dict[tuple[int, int, str], tuple[Game, list[str]]] = {}
STEADY_MEMO_SIZE = 64


def steady_turn(game: Game, state: State, seat: int) -> list[str]:
    """:func:`work_out_steady_turn`, remembered for the same game, seat and state."""
    key = (id(game), seat, _state_key(state))
    known = _STEADY_MEMO.get(key)
    if known is not None and known[0] is game:
        return list(known[1])
    moves = work_out_steady_turn(game, state, seat)
    recent.keep(_STEADY_MEMO, key, (game, list(moves)), STEADY_MEMO_SIZE)
    return moves


def work_out_steady_turn(game: Game, state: State, seat: int) -> list[str]:
    """A deterministic greedy turn: a pure function of ``state``.

    Move by move it plays the legal move (in ``legal_moves`` order) whose result the
    game's ``heuristic`` rates highest, the first of equals winning; it ends the turn
    when no move beats ending it, and never returns to a position already seen this
    turn. If the turn cannot end there, it plays on, preferring the first move after
    which the turn can end, then the first move to a new position. No randomness: ties
    are broken by the order of ``legal_moves``, which is stable by contract."""
    working = copy_state(state)
    chosen: list[str] = []
    seen = {position_key(working)}
    for _ in range(MAX_STEADY_MOVES):
        options = game.legal_moves(working, seat)
        if not options:
            break
        best: tuple[str, State, str] | None = None
        best_score: int | None = None
        if game.can_end_turn(working, seat):
            ended = copy_state(working)
            game.end_turn(ended, seat)
            best_score = game.heuristic(ended, seat)
        for move in options:
            tried = _tried(game, working, seat, move)
            if tried is None or tried[1] in seen:
                continue
            trial, key = tried
            score = game.heuristic(trial, seat)
            if best_score is None or score > best_score:
                best, best_score = (move, trial, key), score
        if best is None:
            break
        move, working, key = best
        chosen.append(move)
        seen.add(key)
    for _ in range(MAX_STEADY_MOVES):
        if game.can_end_turn(working, seat):
            break
        step = _finishing_move(game, working, seat, seen)
        if step is None:
            break
        move, working, key = step
        chosen.append(move)
        seen.add(key)
    return chosen


def _finishing_move(game: Game, state: State, seat: int, seen: set[str]
                    ) -> tuple[str, State, str] | None:
    """The first legal move after which the turn can end, else the first to a position
    not seen this turn, else None."""
    fresh: tuple[str, State, str] | None = None
    for move in game.legal_moves(state, seat):
        tried = _tried(game, state, seat, move)
        if tried is None:
            continue
        trial, key = tried
        if game.can_end_turn(trial, seat):
            return move, trial, key
        if fresh is None and key not in seen:
            fresh = (move, trial, key)
    return fresh


def _tried(game: Game, state: State, seat: int, move: str) -> tuple[State, str] | None:
    """A copy of ``state`` after ``move`` and its key, or None if the move fails."""
    trial = copy_state(state)
    try:
        game.apply(trial, seat, move)
    except MoveError:
        return None
    return trial, position_key(trial)
