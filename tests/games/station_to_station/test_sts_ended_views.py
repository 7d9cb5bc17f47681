"""A Station to Station game the engine ended where the rules did not (a resignation,
an absence remedy 'end'): the engine adds ``ended`` to the view while the game's own
state still has a seat to act. The picture must not mark that seat's train as the one
to act, nor say the last round is under way."""

from __future__ import annotations

import hashlib
import re
from typing import Any

from sts_helpers import SEATS

from pbem.play.local import LocalTable
from pbem.protocol.crypto.sampler import Sampler
from pbem_games.station_to_station import GAME
from tests.support import boards

ENDED = {"text": "cy resigned in entry 9: cy ranks last.", "awaiting": []}
ACTING = 'stroke="#ffd400"'  # the thick yellow outline of the train to act


def a_view_in_play() -> dict[str, Any]:
    """The public view of a 3-player game once a train to act stands on the map."""
    game = LocalTable(GAME, SEATS[:3], seed=b"sts-ended")
    rng = Sampler(hashlib.sha256(b"sts-ended chooser").digest())
    for _, seat in boards.turns(game, 60):
        view = game.view(None)
        current = view.get("current")
        if (view.get("ready") and not view.get("over") and isinstance(current, int)
                and view["players"][current]["city"]):
            return view
        game.play(boards.random_turn(GAME, game.state, seat, rng, most=80))
    raise AssertionError("no train to act was placed")


def test_the_picture_of_an_ended_game_marks_no_train_to_act() -> None:
    view = {**a_view_in_play(), "final_round": True}
    svg = GAME.render_svg(view)
    assert svg is not None and ACTING in svg  # while play goes on
    ended = GAME.render_svg({**view, "ended": ENDED})
    assert ended is not None
    assert ACTING not in ended
    words = " ".join(re.sub(r"<[^>]+>", "", t)
                     for t in re.findall(r"<text[^>]*>.*?</text>", ended, flags=re.S))
    assert "The game is over: cy resigned in entry 9" in words
    assert "LAST ROUND" not in words and "To act" not in words


def test_the_text_view_of_an_ended_game_offers_no_travel() -> None:
    """The seat that was to act (and the viewer) got 'travel now from ... (cheapest
    paths ...)': a turn that never comes."""
    view = a_view_in_play()
    assert "travel now from" in GAME.render(view)  # while play goes on
    for seen in ({**view, "ended": ENDED}, {**view, "over": True, "viewer": 0}):
        text = GAME.render(seen)
        assert "travel now from" not in text and "travel next turn from" not in text


def test_the_text_view_while_a_vote_is_due_does_not_promise_the_next_player() -> None:
    """A proposal that a seat is absent is open and its vote owed: the chance pending was
    said to be 'resolved when the next player opens the save', but the voter's entry
    resolves nothing."""
    game = LocalTable(GAME, SEATS[:3], seed=b"sts-vote")
    rng = Sampler(hashlib.sha256(b"sts-vote chooser").digest())
    for _, seat in boards.turns(game, 60):
        game.play(boards.random_turn(GAME, game.state, seat, rng, most=80))
        if game.state.get("pending"):
            break
    view = game.view(None)
    assert "Pending (resolved before the next turn): " in GAME.render(view)
    voting = {**view, "vote": {"text": "ann votes next on bob's proposal that cy is absent "
                                       "(entry 9, remedy 'bot'); cy may still answer it by "
                                       "playing."}}
    text = GAME.render(voting)
    assert "when the next player opens the save" not in text
    assert ("Pending (resolved by the next entry in the order of play; a vote resolves "
            "nothing): ") in text
