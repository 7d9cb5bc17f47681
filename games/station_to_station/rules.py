"""Station to Station as a pbem Game: the contract's methods, each delegating to the
module that owns the rule."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pbem.game import (
    Game,
    GameInfo,
    IllegalMoveError,
    InvalidMoveError,
    Outcome,
    ReadMove,
    Sampler,
    State,
)

# The views, the bot and the invariants load when first asked for: a verify needs none.
from . import chance, cleanup, components, moves, scoring
from .constants import MAX_PLAYERS, MIN_PLAYERS
from .notation import NOTATION, Move, fmt, parse
from .state import setup_state


class StationToStation(Game):
    info = GameInfo(
        id="station-to-station",
        title="Station to Station",
        # 2: any travel path, travel moves carry their cost, event notes; 3: a season ends
        # with the draw of its last token, countdown tokens one per player (never removed),
        # the Surveyor's card named, crews usable whenever their text can still act; 4:
        # the cleanup that ends the game places the last countdown token (the bag's only
        # one) and refills no crew, so no chance waits for the final reveals (STS-G1)
        rules_version=4,
        min_players=MIN_PLAYERS,
        max_players=MAX_PLAYERS,
        options={},
        summary="Run a railroad through three seasons: buy goods, travel, fulfil orders, "
        "complete routes and hire crews.",
        older_rules=(3,),
    )

    # ---- components -----------------------------------------------------------------
    def validate_components(self, data: dict[str, Any]) -> None:
        components.validate(data)

    # ---- play -----------------------------------------------------------------------
    def setup(self, seats: Sequence[str], options: dict[str, Any], components: dict[str, Any]) -> State:
        state = setup_state(list(seats), components)
        if self.info.rules_version >= cleanup.QUIET_END:  # version 3 (for_rules) wrote none
            state["rules"] = self.info.rules_version
        return state

    def to_act(self, state: State) -> int | None:
        if state.get("over"):
            return None
        return int(state["current"])

    def _playing(self, state: State, seat: int) -> None:
        if state.get("over"):
            raise IllegalMoveError("the game is over")
        if not state.get("ready"):
            raise IllegalMoveError("the set-up deal has not been made yet")
        if seat != state["current"]:
            raise IllegalMoveError(f"it is not seat {seat}'s turn")

    def legal_moves(self, state: State, seat: int) -> list[str]:
        if state.get("over") or not state.get("ready") or seat != state["current"]:
            return []
        return [fmt(m) for m in moves.legal(state, seat)]

    def normalize(self, state: State, seat: int, text: str) -> str:
        return fmt(self._parsed(state, seat, text)[0])

    @staticmethod
    def _parsed(state: State, seat: int, text: str) -> tuple[Move, bool]:
        """The move as normalize reads it, and whether it was completed for the turn."""
        if not isinstance(text, str):
            raise InvalidMoveError("a move is a line of text")
        move = parse(state, text)
        if state.get("ready") and not state.get("over") and state.get("turn"):
            return moves.complete(state, seat, move), True
        return move, False

    def apply(self, state: State, seat: int, move: str) -> None:
        self._playing(state, seat)
        parsed = moves.complete(state, seat, parse(state, move))
        moves.apply_move(state, seat, parsed)

    def read(self, state: State, seat: int, text: str) -> ReadMove:
        move, completed = self._parsed(state, seat, text)
        canonical = fmt(move)
        if canonical != text or not completed:  # keep what the canonical form says
            self._playing(state, seat)  # as apply checks it before completing a move
            move = moves.complete(state, seat, parse(state, canonical))
        return ReadMove(canonical, move)

    def apply_move(self, state: State, seat: int, move: ReadMove) -> None:
        if move.parsed is None:
            self.apply(state, seat, move.text)
            return
        self._playing(state, seat)
        moves.apply_move(state, seat, move.parsed)

    def end_turn(self, state: State, seat: int) -> None:
        self._playing(state, seat)
        cleanup.end_turn(state, seat)

    def can_end_turn(self, state: State, seat: int) -> bool:
        # Same answer as trying end_turn on a copy, without copying the whole state.
        ready = state.get("ready") and not state.get("over") and seat == state["current"]
        return bool(ready) and not cleanup.owed(state)

    def resolve(self, state: State, request: dict[str, Any], rng: Sampler) -> None:
        chance.resolve(state, request, rng)

    # ---- reading -------------------------------------------------------------------
    def view(self, state: State, seat: int | None, secrets: dict[str, dict[str, str]] | None = None
             ) -> dict[str, Any]:
        from . import view

        return view.view(state, seat)

    def snapshot(self, state: State) -> dict[str, Any]:
        # The map and the crews' data are in the header's components already: a save
        # carrying them twice was a third bigger and slower to read.
        from . import view

        shown = view.view(state, None)
        shown.pop("data", None)
        return shown

    def render(self, view_: dict[str, Any]) -> str:
        from . import view

        return view.render(view_)

    def render_svg(self, view: dict[str, Any]) -> str | None:
        from . import svg  # the drawing kit loads only to draw

        return svg.render_svg(view)

    def describe(self, before: State, after: State, seat: int) -> list[str]:
        from . import describe

        return describe.describe(before, after, seat)

    def outcome(self, state: State) -> Outcome | None:
        return scoring.outcome(state)

    def score_now(self, state: State) -> Outcome:
        return scoring.score_now(state)

    def notation(self) -> str:
        return NOTATION

    def heuristic(self, state: State, seat: int) -> int:
        from . import bot

        return bot.heuristic(state, seat)

    def invariants(self, state: State) -> list[str]:
        from . import invariants

        return invariants.check(state)
