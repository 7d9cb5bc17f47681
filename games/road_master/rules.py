"""Road Master as a pbem Game: the contract's hooks, each delegating to one module."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pbem.game import (
    AmbiguousMoveError,
    Game,
    GameInfo,
    InvalidMoveError,
    Option,
    Outcome,
    ReadMove,
    Sampler,
    State,
    secretdeck,
)

# The view, the bot and the invariants load when first asked for: a verify needs none.
from . import components, hazard, legal, model, notation, scoring, turn
from .rulings import RULINGS, token_rules

INFO = GameInfo(
    id="road-master",
    title="Road Master",
    # 4: the turn that ends the game asks for no market refill (no chance then waits for
    # the final reveals; the market can change no score, RM-G3, G4); 5: the last Super
    # Bonus choices are made in a turn, all before any reveal (turn.LAST_CHOICES);
    # each reveal opens its seat's held cards, its seed none (turn.OPEN_AT_REVEAL)
    rules_version=5,
    min_players=2,
    max_players=6,
    options={
        "first": Option("", "handle of the first player (default: drawn at random)", "str"),
        "shortages": Option(True, "shuffle the 6 shortage cards into the contract deck", "bool"),
        "hazardous": Option(False, "advanced: hazardous goods (yellow) and boom cards", "bool"),
        "perishable": Option(False, "advanced: perishable goods (blue) spoil at turn end", "bool"),
    },
    summary="Pick contracts, drive your truck along the highway, deliver cubes for points.",
    older_rules=(3, 4),
)


class RoadMaster(Game):
    info = INFO

    # ---- components -------------------------------------------------------------
    def validate_components(self, data: dict[str, Any]) -> None:
        components.validate(data)

    def secret_decks(
        self, components: dict[str, Any], options: dict[str, Any], players: int
    ) -> dict[str, list[str]]:
        return {"superbonus": [card["id"] for card in components["cards"]["superbonus"]]}

    def opens_at_reveal(self) -> bool:
        """From rules version 5 each reveal opens its seat's held Super Bonus cards; the
        pile and the cards returned under it stay closed."""
        return self.info.rules_version >= turn.OPEN_AT_REVEAL

    def on_reveal(self, state: State, opened: dict[str, dict[str, str]]) -> None:
        """Record the opened Super Bonus cards; unopened held slots score their penalty."""
        cards = opened.get("superbonus", {})
        known = state["data"]["bonus"]
        state["sb"]["opened"] = {slot: uid for slot, uid in cards.items() if uid in known}
        state["sb"]["revealed"] = True

    # ---- play ---------------------------------------------------------------------
    def setup(self, seats: Sequence[str], options: dict[str, Any], components: dict[str, Any]) -> State:
        state = model.setup(seats, options, components)
        state["seats"] = list(seats)
        if self.info.rules_version >= turn.QUIET_END:  # version 3 (for_rules) wrote none
            state["rules"] = self.info.rules_version
        return state

    def to_act(self, state: State) -> int | None:
        return turn.to_act(state)

    def simultaneous(self, state: State) -> list[int]:
        return turn.last_step(state)

    def waits_on_deck(self, state: State) -> bool:
        return turn.last_waits_on_deck(state)

    def legal_moves(self, state: State, seat: int) -> list[str]:
        model.share_data(state)  # the bots copy this state for every move they weigh
        return legal.legal_moves(state, seat)

    def bot_moves(self, state: State, seat: int) -> list[str]:
        model.share_data(state)
        return legal.legal_moves(state, seat, every_contract=False)

    def move_lines(self, moves: list[str]) -> list[str]:
        return legal.move_lines(moves)

    def normalize(self, state: State, seat: int, text: str) -> str:
        return self._read(state, seat, text)[1]

    def _read(self, state: State, seat: int, text: str) -> tuple[notation.Move, str]:
        """The move as parsed and its canonical text."""
        move = notation.parse(state, seat, text)
        canonical = notation.text(state, move)
        if move["kind"] == "forward" and not move["exit"]:
            canonical = self._guess_exit(state, seat, canonical)
        return move, canonical

    def read(self, state: State, seat: int, text: str) -> ReadMove:
        move, canonical = self._read(state, seat, text)
        if canonical != text:  # a move as typed: keep what its canonical form says
            move = notation.parse(state, seat, canonical)
        return ReadMove(canonical, move)

    def apply_move(self, state: State, seat: int, move: ReadMove) -> None:
        if move.parsed is None:
            self.apply(state, seat, move.text)
            return
        model.share_data(state)  # as apply does
        turn.apply_parsed(state, seat, move.parsed)

    @staticmethod
    def _guess_exit(state: State, seat: int, canonical: str) -> str:
        """'forward 2' from a warehouse: fill in the heading if only one works."""
        if state["trucks"][seat]["where"] in ("", "road"):
            return canonical
        words = canonical.split()
        options = [m for m in legal.legal_moves(state, seat) if m.startswith("forward ")]
        fits = [m for m in options if m.split()[:2] == words[:2] and m.split()[4:] == words[2:]]
        if len(fits) == 1:
            return fits[0]
        if len(fits) > 1:
            raise AmbiguousMoveError(f"Say the heading: {' or '.join(fits)}.")
        raise InvalidMoveError(f"Leaving a warehouse, say the heading: {words[0]} {words[1]} "
                               "exit east (or west).")

    def apply(self, state: State, seat: int, move: str) -> None:
        model.share_data(state)  # each entry's state is copied from this one
        turn.apply(state, seat, move)

    def end_turn(self, state: State, seat: int) -> None:
        turn.end_turn(state, seat)

    def resolve(self, state: State, request: dict[str, Any], rng: Sampler) -> None:
        model.share_data(state)
        kind = request.get("kind")
        if kind == "setup":
            if state["first"] < 0:
                state["first"] = rng.randbelow(len(state["scores"]))
            model.refill_market(state, rng)
            model.log(state, f"{model.handle(state, state['first'])} plays first.")
        elif kind == "refill":
            model.refill_market(state, rng)
        elif kind == "blind":
            model.take_blind(state, request, rng)
        elif kind == "boom":
            hazard.resolve_boom(state, request, rng)
        else:
            raise ValueError(f"unknown Road Master chance request {kind!r}")

    # ---- reading -----------------------------------------------------------------
    def view(self, state: State, seat: int | None,
             secrets: dict[str, dict[str, str]] | None = None) -> dict[str, Any]:
        from . import view

        return view.view(state, seat, secrets)

    def render(self, view_: dict[str, Any]) -> str:
        from . import view

        return view.render(view_)

    def describe(self, before: State, after: State, seat: int) -> list[str]:
        from . import describe

        return describe.describe(before, after, seat)

    def render_svg(self, view_: dict[str, Any]) -> str | None:
        from . import svg  # the drawing kit loads only when a picture is drawn

        return svg.render_svg(view_)

    def outcome(self, state: State) -> Outcome | None:
        if state["first"] < 0 or not turn.is_over(state):
            return None
        if any(p.get("kind") in ("boom", "blind") for p in state.get("pending", [])):
            return None  # a last turn's boom draws or blind card can still change scores
        if not state["sb"]["revealed"] and _secret_cards_out(state):
            return None  # wait for the reveal: held Super Bonus cards decide scores
        return scoring.outcome(state)

    def notation(self) -> str:
        stock = self.stock_components()
        tokens = [list(t["faces"]) for t in stock["tokens"]]
        return (notation.NOTATION + "\n" + token_rules(tokens, stock["rules"]["actions_per_turn"])
                + "\n" + RULINGS)

    # ---- absent players (PROTOCOL.md section 11) ---------------------------------------
    def remedies(self, state: State, seat: int) -> dict[str, str]:
        """``end`` always. ``bot`` only while no Super Bonus draw is under way (drawn
        cards wait for the absent seat's peel, or for its choice): every card in the pile
        carries the absent seat's layer, so with ``bot`` the deck closes for everyone
        (``on_absent``). Work it owes on cards returned under the pile no longer matters
        then: nobody draws them again."""
        who = model.handle(state, seat)
        end = (f"Super Bonus cards: the others' are opened by their reveals and scored; "
               f"{who}'s stay closed.")
        if "secret" not in state:
            return {"end": end, "bot": ""}
        n = len(state["scores"])
        if state["sb"].get("short") or any(secretdeck.drawn(state, scoring.DECK, s)
                                           for s in range(n)):
            return {"end": end}  # a draw waits for work only the absent seat's key can do
        held = len(secretdeck.held(state, scoring.DECK, seat))
        bot = (f"The Super Bonus deck closes for everyone, since no card can be drawn "
               f"without {who}'s key: 'superbonus' is no longer a move.")
        if held:
            bot += (f" {who}'s {held} held Super Bonus card(s) can never be opened and score "
                    f"-{scoring.unopened_penalty(state)} each, as cards never opened do.")
        return {"end": end, "bot": bot}

    def on_absent(self, state: State, seat: int, remedy: str) -> None:
        if remedy == "bot":
            state["sb"]["closed"] = True

    def score_now(self, state: State) -> Outcome:
        return scoring.outcome(state)

    # ---- bots and checks -----------------------------------------------------------
    def heuristic(self, state: State, seat: int) -> int:
        from .bot import heuristic

        return heuristic(state, seat)

    def heuristic_knowing(self, state: State, seat: int,
                          secrets: dict[str, dict[str, str]]) -> int:
        from .bot import heuristic

        return heuristic(state, seat, secrets)

    def invariants(self, state: State) -> list[str]:
        from .conservation import broken_invariants

        return broken_invariants(state)


def _secret_cards_out(state: State) -> bool:
    if "secret" not in state:
        return False
    return any(
        secretdeck.held(state, "superbonus", s) or secretdeck.drawn(state, "superbonus", s)
        for s in range(len(state["scores"]))
    )
