"""The greedy bot never stays stuck: a turn that gains it nothing by its game's heuristic
is now and then played at random (pbem.play.bots.STALL_ODDS), so a table of greedy
players stuck where staying put beats every single move gets going again (seen in Red Dog
Junction: every ship passing for ever)."""

from __future__ import annotations

from typing import Any

from pbem.play import bots


class Stuck:
    """A game where moving never looks better to the heuristic than ending the turn."""

    def legal_moves(self, state: dict[str, Any], seat: int) -> list[str]:
        return ["wander"] if state["moved"] < 3 else []

    def can_end_turn(self, state: dict[str, Any], seat: int) -> bool:
        return True

    def apply(self, state: dict[str, Any], seat: int, move: str) -> None:
        state["moved"] += 1

    def end_turn(self, state: dict[str, Any], seat: int) -> None:
        state["moved"] = 0

    def heuristic(self, state: dict[str, Any], seat: int) -> int:
        return 10 - state["moved"]

    # The Game contract's defaults, which the bots call.
    def bot_moves(self, state: dict[str, Any], seat: int) -> list[str]:
        return self.legal_moves(state, seat)

    def heuristic_knowing(self, state: dict[str, Any], seat: int,
                          secrets: dict[str, dict[str, str]]) -> int:
        return self.heuristic(state, seat)


def turns(spec: str) -> list[list[str]]:
    game: Any = Stuck()
    return [bots.choose_turn(game, {"moved": 0}, 0, spec, salt=str(n)) for n in range(80)]


def test_a_greedy_turn_that_gains_nothing_is_sometimes_played_at_random() -> None:
    played = turns("greedy:7")
    moving = [t for t in played if t]
    assert 5 <= len(moving) <= 40  # about 1 in STALL_ODDS, drawn from the bot's seed
    assert all(set(t) == {"wander"} for t in moving)
    assert turns("greedy:7") == played  # a seeded bot stays reproducible


def test_a_greedy_turn_that_gains_is_not_disturbed() -> None:
    class Climb(Stuck):
        def heuristic(self, state: dict[str, Any], seat: int) -> int:
            return state["moved"]

        def end_turn(self, state: dict[str, Any], seat: int) -> None:
            pass

    game: Any = Climb()
    for n in range(40):
        assert bots.choose_turn(game, {"moved": 0}, 0, "greedy:7", salt=str(n)) == ["wander"] * 3
