"""The conformance suite every registered game must pass.

Many random games per game and player count, played to the end or to a turn cap, on a
LocalTable (no signatures, so hundreds are affordable), checking after every move:
the game's own invariants, that every legal move parses back to itself, and that each
seat's view holds no other seat's secret; then that replaying the recorded moves gives
the same final state, and that greedy bots end the game within MAX_TURNS at every player
count, at the defaults and with each integer option at its minimum and its maximum (a
game that never ends at an allowed value fails, named: tests/support/wraparound.py). A
few signed games per game go through the real engine: live state equals replayed state,
and no secret leaks.

How many random games: 4 per game and player count (every option set once), 24 under
PBEM_TEST_LONG=1 (tests/support/scale.py), or PBEM_CONFORMANCE_GAMES outright."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from pbem import registry
from pbem.errors import IllegalMoveError
from pbem.game import Fixed, Game, MoveError, OptionError, State, check_options, copy_state, fixed
from pbem.play import bots
from pbem.play.local import LocalTable
from pbem.protocol.crypto.sampler import Sampler
from pbem.protocol.saveformat.canonical import MAX_DEPTH, NotCanonicalError, canonical, check_signable
from pbem.protocol.state.turns import play_turn
from tests.support import scale
from tests.support.sealed_bids import SealedBids
from tests.support.secret_draw import DECK, SecretDraw
from tests.support.wraparound import Wraparound

GAMES_PER_COUNT = int(os.environ.get("PBEM_CONFORMANCE_GAMES", scale.games(4, 24)))
TURN_CAP = 150  # random games: a random walk need not end, so it is cut here
# Greedy bots must end every game within this many turns (all seats together), at every
# player count and every option set: a generous constant, 15 times the longest real game
# (Road Master, 6 players: 132 turns; Red Dog Junction at 5: 110; the test game Secret
# Draw at 6 players and 50 rounds: 300). A game whose options allow a longer game bounds
# those options (Option.maximum) instead.
MAX_TURNS = 2000


def real_games() -> list[str]:
    return [name for name in registry.names()]


def player_counts(game: Game) -> list[int]:
    return list(range(game.info.min_players, game.info.max_players + 1))


def option_sets(game: Game, kinds: tuple[str, ...] = ("bool", "int", "str")
                ) -> list[dict[str, object]]:
    """The defaults, then one option of ``kinds`` changed at a time: each variant and
    advanced rule, and each integer option at its minimum and its maximum."""
    sets: list[dict[str, object]] = [{}]
    for key, spec in game.info.options.items():
        if spec.kind not in kinds:
            continue
        values: list[object] = list(spec.choices)
        if spec.kind == "bool":
            values = [not spec.default]
        elif spec.kind == "int":
            values = [spec.minimum, spec.maximum]
        for value in values:
            if value is not None and value != spec.default and {key: value} not in sets:
                sets.append({key: value})
    return sets


def with_defaults(game: Game, options: dict[str, object]) -> dict[str, object]:
    return {**{k: s.default for k, s in game.info.options.items()}, **options}


def playable_sets(game: Game, players: int, sets: list[dict[str, object]] | None = None
                  ) -> list[dict[str, object]]:
    """The option sets (all of ``option_sets``, or ``sets``) the game accepts at this
    player count with its stock data (a refusal must be an OptionError, a sentence for
    the user: anything else fails)."""
    components = game.stock_components()
    playable = []
    sets = option_sets(game) if sets is None else sets
    for options in sets:
        try:
            check_options(game, with_defaults(game, options), players, components)
        except OptionError:
            continue
        playable.append(options)
    if {} in sets:
        assert {} in playable, f"{game.info.id} refuses its own defaults at {players} players"
    return playable


def described(game: Game, players: int, options: dict[str, object]) -> str:
    shown = ", ".join(f"{k}={v}" for k, v in options.items()) or "the default options"
    return f"{game.info.id} with {players} players and {shown}"


def play_to_end(game: Game, players: int, options: dict[str, object],
                turn_cap: int = MAX_TURNS) -> tuple[LocalTable, int]:
    """A greedy bot game to its end and the turns it took, or AssertionError naming the
    game and options when it is still going after ``turn_cap`` turns."""
    table = LocalTable(game, [f"p{i}" for i in range(players)], options, seed=b"greedy")
    for turns in range(turn_cap + 1):
        table.prepare()
        seat = table.to_act()
        if seat is None:
            return table, turns
        if turns == turn_cap:
            break
        table.play(bots.choose_turn(game, table.state, seat, "greedy"))
    raise AssertionError(f"{described(game, players, options)} did not end within "
                         f"{turn_cap} turns of greedy bots: it may never end")


def check_bots_finish(game: Game, players: int, sets: list[dict[str, object]]) -> int:
    """Greedy bots end the game at each option set of ``sets`` it accepts at this player
    count, each with a ranking of every seat; the most turns one took."""
    longest = 0
    for options in playable_sets(game, players, sets):
        table, turns = play_to_end(game, players, options)
        outcome = table.finish()
        assert outcome is not None, f"{described(game, players, options)} ended without an outcome"
        ranked = sorted(s for group in outcome.ranking for s in group)
        assert ranked == list(range(players)), described(game, players, options)
        longest = max(longest, turns)
    return longest


def secret_strings(table: LocalTable, seat: int) -> list[str]:
    """Card uids other seats hold or drew that ``seat`` must never see."""
    hidden: list[str] = []
    for deck in table.state.get("secret", {}).values():
        for slot in deck["slots"].values():
            if slot["owner"] not in (-1, seat) and slot["status"] in ("drawn", "held"):
                hidden.append(slot["card"])
    return hidden


# Fixed tables a view shows as they are (Station to Station's map: most of its view) never
# change (writing to one raises, and no game changes their lists: pbem.game.fixed), so
# each is checked once, by identity, and kept here so that its id stays its own. The rest
# of every view is checked every time.
_checked_fixed: dict[int, Fixed] = {}


def check_view_signable(view: dict[str, Any]) -> None:
    rest = {}
    for key, value in view.items():
        if isinstance(value, Fixed):
            if id(value) not in _checked_fixed:
                check_signable(value, key, max_depth=MAX_DEPTH - 1)  # one level down
                _checked_fixed[id(value)] = value
            value = "fixed, checked"
        rest[key] = value
    check_signable(rest)


def check_step(game: Game, table: LocalTable, seat: int) -> list[str]:
    problems = game.invariants(table.state)
    assert not problems, problems
    legal = game.legal_moves(table.state, seat)
    for move in legal:
        assert game.normalize(table.state, seat, move) == move, f"{move!r} does not round-trip"
    for viewer in [*range(len(table.state["seats"])), None]:
        view = table.view(viewer)
        check_view_signable(view)
        # The cards this viewer must not see (None: nobody, so every drawn or held card);
        # a view is searched as text only when there is one.
        hidden = secret_strings(table, -2 if viewer is None else viewer)
        text = json.dumps(view) if hidden else ""
        for uid in hidden:
            assert f'"{uid}"' not in text, f"{_viewer(viewer)} can see the secret card {uid}"
    return legal


def _viewer(viewer: int | None) -> str:
    return "the public view" if viewer is None else f"seat {viewer}"


def _ends_on_a_copy(game: Game, state: State, seat: int) -> bool:
    """What ``can_end_turn`` must say, the long way: ``end_turn`` on a copy succeeds."""
    try:
        game.end_turn(copy_state(state), seat)
    except MoveError:
        return False
    return True


def check_step_order(game: Game, state: State, bot: str) -> None:
    """In a simultaneous step (``game.simultaneous``), each seat's turn, chosen against
    the state before the step, is legal after the other seats' turns too, in seat order
    and in reverse order, written the same (its canonical moves), and the step hands the
    game to the same seat either way: a round's entries are signed in parallel on the
    state before it, and the engine applies them in seat order, whichever was signed
    first (a home that signs on a save holding a later seat's entry of the round makes
    its table again in seat order, session.appended)."""
    seats = game.simultaneous(state)
    if len(seats) < 2:
        return
    assert game.to_act(state) == seats[0], "to_act must name the step's first seat"
    turns = {seat: bots.choose_turn(game, state, seat, bot) for seat in seats}
    ends = []
    for order in (seats, seats[::-1]):
        working, written = copy_state(state), {}
        for seat in order:
            try:
                working, written[seat] = play_turn(game, working, seat, turns[seat])
            except MoveError as exc:
                raise AssertionError(f"the turns of the step of seats {seats} depend on their "
                                     f"order: seat {seat}'s is refused after {order}'s "
                                     f"first ({exc.message})") from None
        ends.append((written, game.to_act(working)))
    assert ends[0] == ends[1], f"the turns of the step of seats {seats} depend on their order"


def play_random(name: str, players: int, options: dict[str, object], seed: int) -> LocalTable:
    game = registry.load(name)
    handles = [f"p{i}" for i in range(players)]
    table = LocalTable(game, handles, options, seed=f"conf{seed}".encode())
    rng = Sampler(f"moves{seed}".encode())
    for _ in range(TURN_CAP):
        table.prepare()
        seat = table.to_act()
        if seat is None:
            break
        check_step_order(game, table.state, f"random:{seed}")
        state = copy_state(table.state)
        moves: list[str] = []
        for _ in range(bots.MAX_MOVES_PER_TURN):
            legal = check_step(game, table, seat) if not moves else game.legal_moves(state, seat)
            can_end = game.can_end_turn(state, seat)
            # A game's own check_end_turn (or can_end_turn) agrees with ending a copy.
            assert can_end == _ends_on_a_copy(game, state, seat), (name, moves)
            if not legal or (can_end and rng.randbelow(len(legal) + 1) == 0):
                break
            move = legal[rng.randbelow(len(legal))]
            game.apply(state, seat, move)
            moves.append(move)
        if not game.can_end_turn(state, seat):
            moves = bots.choose_turn(game, table.state, seat, f"random:{seed}")
        table.play(moves)
    table.finish()
    assert not game.invariants(table.state), game.invariants(table.state)
    return table


def cases() -> list[tuple[str, int, int]]:
    out = []
    for name in real_games():
        try:
            game = registry.load(name)
        except Exception:
            out.append((name, 1, 0))  # the test itself then fails to load it, loudly
            continue
        for players in player_counts(game):
            out.append((name, players, GAMES_PER_COUNT))
    return out


@pytest.mark.parametrize(("name", "players", "count"), cases())
def test_random_games_keep_invariants(name: str, players: int, count: int) -> None:
    game = registry.load(name)
    variants = playable_sets(game, players)
    for i in range(count):
        options = variants[i % len(variants)]
        table = play_random(name, players, options, seed=1000 * players + i)
        replayed = LocalTable(game, table.state["seats"], options, seed=table.seed)
        for _seat, moves in table.history:
            replayed.play(moves)
        replayed.finish()
        assert canonical(replayed.state) == canonical(table.state), "replay differs from live"


class _Leaky(SecretDraw):
    """Secret Draw whose views also name every card drawn or held, in any seat's hand."""

    def view(self, state: State, seat: int | None,
             secrets: dict[str, dict[str, str]] | None = None) -> dict[str, Any]:
        shown = super().view(state, seat, secrets)
        shown["everyone"] = sorted(slot["card"] for slot in state["secret"][DECK]["slots"].values()
                                   if slot["status"] in ("drawn", "held"))
        return shown


def test_the_per_move_checks_can_fail() -> None:
    """check_step finds a view that shows a card another seat drew, a public view that
    shows a drawn card, and a view that cannot be signed."""
    game = _Leaky()
    table = LocalTable(game, ["p0", "p1"], {}, seed=b"leak")
    table.prepare()
    table.play(["draw"])  # seat 0 holds two cards, face down
    table.prepare()
    with pytest.raises(AssertionError, match="seat 1 can see the secret card"):
        check_step(game, table, 1)
    table.view = lambda viewer: (SecretDraw.view(game, table.state, viewer, None)  # type: ignore[method-assign]
                                 if viewer is not None else game.view(table.state, None))
    with pytest.raises(AssertionError, match="the public view can see the secret card"):
        check_step(game, table, 1)
    table.view = lambda viewer: {"odds": 0.5}  # type: ignore[method-assign]
    with pytest.raises(NotCanonicalError, match="odds is a float"):
        check_step(game, table, 1)


class _OutbidOnly(SealedBids):
    """Sealed Bids where a bid must beat every bid already made in the step: a turn legal
    against the state before the step is refused after another's (order-dependent)."""

    def apply(self, state: State, seat: int, move: str) -> None:
        made = [int(b) for b in state.setdefault("made", [])]
        if made and int(move.split()[-1]) <= max(made):
            raise IllegalMoveError("a bid must beat every bid already made")
        state["made"].append(int(move.split()[-1]))
        super().apply(state, seat, move)


def test_a_step_whose_turns_depend_on_their_order_is_failed() -> None:
    game = _OutbidOnly()
    table = LocalTable(game, ["p0", "p1"], {}, seed=b"order")
    table.prepare()
    with pytest.raises(AssertionError, match="depend on their order"):
        check_step_order(game, table.state, "greedy")
    check_step_order(SealedBids(), table.state, "greedy")  # the real one passes


def test_a_fixed_table_in_a_view_is_checked_as_the_whole_view_would_be() -> None:
    """check_view_signable checks a Fixed table once, on its own: it still finds a float
    in one, and a table nested too deep gets the verdict the whole view would get."""
    with pytest.raises(NotCanonicalError, match=r"data\.odds is a float"):
        check_view_signable({"turn": 1, "data": fixed({"odds": 0.5})})
    for depth in range(MAX_DEPTH - 3, MAX_DEPTH + 2):
        nested: dict[str, Any] = {}
        for _ in range(depth):
            nested = {"a": nested}
        verdicts = []
        for check, value in ((check_signable, nested), (check_view_signable, fixed(nested))):
            try:
                check({"data": value})
                verdicts.append("signable")
            except NotCanonicalError:
                verdicts.append("refused")
        assert verdicts[0] == verdicts[1], (depth, verdicts)
        assert verdicts[0] == ("signable" if depth < MAX_DEPTH - 1 else "refused"), depth


@pytest.mark.parametrize(("name", "players"), [(n, p) for n, p, _ in cases()])
def test_greedy_bots_finish(name: str, players: int) -> None:
    """At the defaults and each integer option at its minimum and maximum: a game that
    never ends at some allowed value fails here, naming it."""
    game = registry.load(name)
    check_bots_finish(game, players, option_sets(game, kinds=("int",)))


@pytest.mark.slow
@pytest.mark.parametrize(("name", "players"), [(n, p) for n, p, _ in cases()])
def test_greedy_bots_finish_every_variant(name: str, players: int) -> None:
    """At each variant and advanced rule too (the random games reach them, cut at
    TURN_CAP): the long run, about twice the time of the one above."""
    game = registry.load(name)
    variants = option_sets(game, kinds=("bool", "str"))[1:]
    if variants:
        check_bots_finish(game, players, variants)


@pytest.mark.parametrize("name", real_games())
def test_every_integer_option_declares_its_bounds(name: str) -> None:
    """The suite plays each integer option at its minimum and maximum: an unbounded one
    could not be tried (and a header may then carry any number up to the engine's cap)."""
    for key, spec in registry.load(name).info.options.items():
        if spec.kind == "int":
            assert spec.minimum is not None and spec.maximum is not None, f"{name} option {key}"
            assert spec.minimum <= spec.default <= spec.maximum, f"{name} option {key}"


def test_a_game_that_never_ends_at_an_allowed_option_value_is_failed() -> None:
    """Wraparound ends at its default at every player count, and at 4 players never ends
    with rounds=6 (allowed): trying only defaults passed it; trying the bounds fails it."""
    game = Wraparound()
    assert {"rounds": 1} in option_sets(game) and {"rounds": 6} in option_sets(game)
    for players in player_counts(game):
        play_to_end(game, players, {})
    bounds = option_sets(game, kinds=("int",))
    assert check_bots_finish(game, 3, bounds) == 18  # rounds=6 at 3 players: 18 turns
    with pytest.raises(AssertionError, match=r"^wraparound with 4 players and rounds=6 did "
                                             rf"not end within {MAX_TURNS} turns"):
        check_bots_finish(game, 4, bounds)


def test_a_refusal_other_than_an_option_error_fails_the_suite() -> None:
    """playable_sets skips only what the game refuses with a sentence (OptionError)."""
    game = Wraparound()
    game.validate_options = _crashes  # type: ignore[method-assign]
    with pytest.raises(KeyError):
        playable_sets(game, 2)


def _crashes(options: dict[str, Any], players: int) -> None:
    raise KeyError("rounds")


@pytest.mark.heavy
@pytest.mark.parametrize("name", real_games())
def test_signed_game_replays_to_live_state_and_keeps_secrets(name: str, tmp_path: Path) -> None:
    from pbem.protocol.crypto.identity import Home
    from tests.enginekit import play_game
    from tests.test_secrets import check_game

    game = registry.load(name)
    players = max(game.info.min_players, min(3, game.info.max_players))
    handles = ["ann", "bob", "cy", "dee", "eve", "fay"][:players]
    homes = {}
    for handle in handles:
        home = Home(tmp_path / "homes" / handle)
        home.keygen(handle)
        homes[handle] = home
    paths = play_game(homes, tmp_path / "saves", game=name, bot="greedy")
    from pbem import session
    from pbem.protocol.saveformat import savefile

    final = session.verify(savefile.read(paths[-1]), Home(tmp_path / "auditor"), full=True)
    assert final.report.audit == "clean"
    assert check_game(paths, homes) > 0
