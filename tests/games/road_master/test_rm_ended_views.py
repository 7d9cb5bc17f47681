"""A Road Master game the engine ended where the rules did not (a resignation, an
absence remedy 'end'): the engine adds ``ended`` to the view, and the game's own state
still says play goes on. Nothing the text view or the picture says may then tell of
play to come: no stall count towards an end, no boom policy of a turn, no card turned
with the next beacon, no action tokens of a seat to act, and the picture's title says
the game is over."""

from __future__ import annotations

import re
from typing import Any

from rm_support import placed

from pbem_games.road_master import GAME

ENDED = {"text": "bob resigned in entry 8: bob ranks last.", "awaiting": []}


def resigned_view() -> dict[str, Any]:
    """bob is to act in a hazardous game where no score has moved for a round; he
    resigns: the view the engine draws from (the game's own state knows nothing of it)."""
    t = placed(3, hazardous=True)
    t.state["quiet_rounds"] = 1
    t.play(["forward 1"])  # ann
    assert t.to_act() == 1
    view = t.view(None)
    assert not view["over"] and view["stall"]["quiet_rounds"] == 1
    assert "No score has moved" in GAME.render(view)  # while play goes on
    return {**view, "ended": ENDED}


def svg_words(svg: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", "", t)
                    for t in re.findall(r"<text[^>]*>.*?</text>", svg, flags=re.S))


def test_the_text_view_of_an_ended_game_tells_of_no_play_to_come() -> None:
    text = GAME.render(resigned_view())
    assert "The game is over: bob resigned in entry 8" in text
    for said in ("No score has moved", "the game ends at 20", "Boom policy from here on",
                 "turned with the next beacon", "refilled at the end of the turn"):
        assert said not in text, said


def test_the_picture_of_an_ended_game_tells_of_no_play_to_come() -> None:
    svg = GAME.render_svg(resigned_view())
    assert svg is not None
    words = svg_words(svg)
    assert "The game is over: bob resigned in entry 8" in words
    for said in ("No score has moved", "Actions this turn", "Boom cards: policy",
                 "To act"):
        assert said not in words, said
    assert re.search(r"<title>Road Master, round \d+, game over</title>", svg)


def test_the_picture_while_a_vote_is_due_does_not_promise_the_next_entry() -> None:
    """A vote on an absence proposal is owed next: the pending refill was said to be
    'resolved by the next entry's beacon', but a vote carries no beacon link."""
    t = placed(3)
    view = {**t.view(None), "pending": ["refill"]}
    svg = GAME.render_svg(view)
    assert svg is not None and "(resolved by the next entry's beacon)" in svg_words(svg)
    voting = {**view, "vote": {"text": "cy votes next on ann's proposal that bob is absent "
                                       "(entry 9, remedy 'bot'); bob may still answer it by "
                                       "playing."}}
    svg = GAME.render_svg(voting)
    assert svg is not None
    words = svg_words(svg)
    assert "next entry's beacon" not in words
    assert ("Pending chance: the market refill (resolved by the next entry in the order of "
            "play; a vote resolves nothing)") in words
