"""A Red Dog Junction game the engine ended where the rules did not (a resignation, an
absence remedy 'end') after the bank's gold ran out: the engine adds ``ended`` to the
view, and the game's own state still counts the last turns. Neither the text view nor
the picture may still say when the game will end."""

from __future__ import annotations

import re

from rdj_helpers import new_game

from pbem_games.red_dog_junction import GAME

ENDED = {"text": "bob resigned in entry 12: bob ranks last.", "awaiting": []}


def test_an_ended_game_does_not_say_it_ends_after_a_later_turn() -> None:
    state = new_game(3)
    state["end"]["gold_fired"], state["end"]["end_after"] = True, 9
    view = GAME.view(state, None)
    assert "the game ends after turn 9" in GAME.render(view)  # while play goes on
    ended = {**view, "ended": ENDED}
    text = GAME.render(ended)
    assert "The game is over: bob resigned in entry 12" in text
    assert "ends after turn" not in text
    svg = GAME.render_svg(ended)
    assert svg is not None
    words = " ".join(re.sub(r"<[^>]+>", "", t)
                     for t in re.findall(r"<text[^>]*>.*?</text>", svg, flags=re.S))
    assert "The game is over: bob resigned in entry 12" in words
    assert "LAST TURNS" not in words and "ends after turn" not in words
