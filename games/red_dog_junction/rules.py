"""Red Dog Junction as a pbem Game: the contract's methods, each handed to its module.

Modules: components (data), setup (state and set-up chance), setup_choices (choices
before the first turn: the Trail Boss picks), words/notation/move (move notation),
actions/crew/effects (applying moves), turnflow (head and end of a turn, chance), justin
(the solo automaton), legal (legal moves), scoring, journal/describe (what each entry did),
view (what a seat sees, as text), svg (the drawn board), bot, invariants (what every
state keeps, for the tests).

Where the rulebook and rulings leave a choice, this implementation settles it so:
- Cards drawn face up: the deck is a sorted list and draws are uniform (PROTOCOL 5), so
  "shuffle" needs no state and the Trail Boss reshuffle is nothing to do. New display
  cards enter at the front of the row; the far end holds the longest-waiting card (the
  "last" card Justin takes).
- The display refill is chance for the next player; when the deck cannot fill the gaps
  the rest of it is turned at once and the game ends at the end of that turn.
- Agent moves in a row share one crew action while agents remain (adjust then trade).
- Rascals must be named at the head of each turn by a player who has them.
- `jettison` comes after the turn's actions and only down to capacity.
- Super deal and trade gains go onto the ship; mayor-style taxes into storage.
- Each commander acts at most once a turn (part of every commander's card text).
- Set-up rolls the six dice and places them at random around the Junction (RDJ-S7);
  the earlier ruling that the ring order is component data is withdrawn.
- Trail Boss: commanders are dealt by set-up chance from the whole deck; then each
  player in turn order picks a crew card (any but a rascal) from the deck, each pick an
  entry of its own before any turn; the display is dealt after the last pick, by the
  first turn's chance (setup_choices). In the solo game only the human plays Trail Boss.
- `mine` uses up to as many miners as named (`mine N`); plain `mine` uses them all.
- A trade that would pay and get nothing (its supply is empty) is refused.
- Justin's priority treats the mined goods as one class.
- Solo: Justin's turn runs inside one chance request queued behind the human's turn
  (refill, his turn, his refill), so it is played before the human looks again. The
  turn count of the gold end includes his turns (he is player 2).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pbem.game import (
    Game,
    GameInfo,
    Option,
    OptionError,
    Outcome,
    ReadMove,
    Sampler,
    State,
)

from . import posse, scoring, turnflow
from .actions import apply_move
from .components import market_ids, validate
from .constants import VARIANTS
from .legal import legal_moves
from .move import fmt
from .notation import parse
from .notation_doc import NOTATION
from .setup import new_state


class RedDogJunction(Game):
    info = GameInfo(
        id="red-dog-junction",
        title="Red Dog Junction",
        # 3: from three players the Posse draft picks together (rounds); 4: a passed hand
        # goes in one step (posse.ONE_STEP_RULES), two rounds a pick instead of three;
        # 5: the Posse deal's peels begin before the start and the opens that draw the rest
        # of set-up are one round (posse.QUICK_RULES)
        # 6: the rest of set-up is drawn from two links of the opens round
        # (posse.PAIR_RULES); 7: each player re-locks its picks in a secret order after its
        # last pick, so the cards shown are not tied to their steps (posse.UNLINKED_RULES)
        rules_version=7,
        older_rules=(3, 4, 5, 6),
        min_players=1,
        max_players=5,
        options={
            "variant": Option(
                "standard",
                "standard; trail-boss (each player is dealt a random commander and picks one "
                "crew card from the deck before the first turn); posse (2-5 players: the crew "
                "draft before the first turn, 9 secret cards each, pick one and pass the rest "
                "left, `pick SLOT`)",
                kind="str",
                choices=VARIANTS,
            ),
        },
        summary="Space freight captains mine, salvage, swap and trade for gold at the edge "
        "of the galaxy. One player plays the Trailblazer solo mode against Justin.",
    )

    # ---- components ------------------------------------------------------------------
    def validate_components(self, data: dict[str, Any]) -> None:
        validate(data)

    def validate_options(self, options: dict[str, Any], players: int, *,
                         components: dict[str, Any] | None = None) -> None:
        variant = options.get("variant", "standard")
        if variant not in VARIANTS:
            raise OptionError(f"variant must be one of {', '.join(VARIANTS)}.")
        if variant == "posse" and players < 2:
            raise OptionError("The Posse variant is a draft between players: it needs 2 to 5 "
                              "players. Play the solo game with variant=standard or "
                              "variant=trail-boss.")
        if variant == "posse":
            data = self.stock_components() if components is None else components
            posse.check_deck(data, players)

    def secret_decks(self, components: dict[str, Any], options: dict[str, Any],
                     players: int) -> dict[str, list[str]]:
        """Posse's draft deck (the starting sets less a cowboy each, and the market)."""
        if options.get("variant") != "posse":
            return {}
        # Only the card ids: the whole rules tables (every card's text) are set-up's work.
        ids = {"start_crew": components["setup"]["start_crew"],
               "market": market_ids(components)}
        return {posse.DECK: posse.deck_cards(ids, players)}

    # ---- play ---------------------------------------------------------------------------
    def setup(
        self, seats: Sequence[str], options: dict[str, Any], components: dict[str, Any]
    ) -> State:
        state = new_state(seats, options, components, {"posse": posse.prepare})
        if options.get("variant") == "posse" and self.info.rules_version >= posse.ONE_STEP_RULES:
            state["draft"]["one_step"] = True
        if options.get("variant") == "posse" and self.info.rules_version >= posse.QUICK_RULES:
            posse.deal_early(state)
            state["draft"]["open_round"] = True
        if options.get("variant") == "posse" and self.info.rules_version >= posse.PAIR_RULES:
            state["draft"]["pair_draw"] = True
        if options.get("variant") == "posse" and self.info.rules_version >= posse.UNLINKED_RULES:
            state["draft"]["unlinked"] = True
        return state

    # Posse's draft ends when the last pick is shown, by a secret-deck chore after the
    # game last ran: every entry point first hands the shown cards out (posse.finish, in
    # place where the state is the game's to change; posse.ready, a copy, for reading;
    # to_act needs neither: once handed out, play begins with the first player).
    def to_act(self, state: State) -> int | None:
        if posse.due(state):
            return posse.first_to_act(state)
        if state["phase"] == "over":
            return None
        if state["phase"] == "draft":
            return posse.to_act(state)
        return int(state["current"])

    def simultaneous(self, state: State) -> list[int]:
        return posse.simultaneous(state) if state["phase"] == "draft" else []

    def waits_on_deck(self, state: State) -> bool:
        return posse.waits_on_deck(state) if state["phase"] == "draft" else False

    def deck_round_resolves(self, state: State) -> bool:
        return posse.opens_resolve(state) if state["phase"] == "draft" else False

    def deck_round_pair(self, state: State) -> bool:
        return posse.opens_draw_late(state) if state["phase"] == "draft" else False

    def legal_moves(self, state: State, seat: int) -> list[str]:
        return legal_moves(posse.ready(state), seat)

    def normalize(self, state: State, seat: int, text: str) -> str:
        state = posse.ready(state)
        return fmt(state, parse(state, seat, text))

    def apply(self, state: State, seat: int, move: str) -> None:
        posse.finish(state)
        apply_move(state, seat, parse(state, seat, move))

    def read(self, state: State, seat: int, text: str) -> ReadMove:
        ready = posse.ready(state)  # as apply reads it, finished
        move = parse(ready, seat, text)
        canonical = fmt(ready, move)
        if canonical != text:  # a move as typed: keep what its canonical form says
            move = parse(ready, seat, canonical)
        return ReadMove(canonical, move)

    def apply_move(self, state: State, seat: int, move: ReadMove) -> None:
        posse.finish(state)
        apply_move(state, seat, parse(state, seat, move.text) if move.parsed is None
                   else move.parsed)

    def end_turn(self, state: State, seat: int) -> None:
        posse.finish(state)
        turnflow.end_turn(state, seat)

    def check_end_turn(self, state: State, seat: int) -> None:
        turnflow.check_can_end(posse.ready(state), seat)  # what end_turn checks, no copy

    def resolve(self, state: State, request: dict[str, Any], rng: Sampler) -> None:
        posse.finish(state)
        turnflow.resolve(state, request, rng)

    # ---- reading -------------------------------------------------------------------------
    def view(
        self,
        state: State,
        seat: int | None,
        secrets: dict[str, dict[str, str]] | None = None,
    ) -> dict[str, Any]:
        from . import view

        return view.view(posse.ready(state), seat, secrets)

    def render(self, view_: dict[str, Any]) -> str:
        from . import view

        return view.render(view_)

    def render_svg(self, view_: dict[str, Any]) -> str:
        from . import svg  # the drawing kit loads only when a picture is drawn

        return svg.render_svg(view_)

    def describe(self, before: State, after: State, seat: int) -> list[str]:
        from . import describe

        return describe.describe(posse.ready(before), posse.ready(after), seat)

    def outcome(self, state: State) -> Outcome | None:
        return scoring.outcome(state)

    def score_now(self, state: State) -> Outcome:
        return scoring.score_now(state)

    def notation(self) -> str:
        return NOTATION

    def heuristic(self, state: State, seat: int) -> int:
        from . import bot  # loads when a bot plays: a verify needs none

        return bot.heuristic(posse.ready(state), seat)

    def bot_state(self, state: State, seat: int, secrets: dict[str, dict[str, str]]) -> State:
        """The seat's own Posse cards, for the draft's greedy picks (posse.known)."""
        if posse.DECK in secrets:
            state[posse.BOT_KNOWN] = dict(secrets[posse.DECK])
        return state

    def invariants(self, state: State) -> list[str]:
        from .invariants import broken_invariants  # the tests' checks: a verify needs none

        return broken_invariants(posse.ready(state))

