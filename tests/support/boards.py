"""What every board picture (``render_svg``) must be, checked the same way for each game.

The games' SVG tests parse the picture with xml.etree and look for the element that draws
each fact (ids and classes name them); the checks here are the ones all games share: a
well-formed, deterministic document with integer coordinates, escaped text from the
save, a card per player, no secret a seat may not see, and the final result's panel.
"""

from __future__ import annotations

import copy
import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from pbem import session
from pbem.drawing import page
from pbem.game import Game, copy_state
from pbem.play import bots
from pbem.play.local import LocalTable
from pbem.protocol.crypto.identity import Home
from pbem.protocol.crypto.sampler import Sampler
from pbem.session import Written
from tests.support.duty import sign_duty

NS = "{http://www.w3.org/2000/svg}"
# Handles no real player could pick (markup, quotes, a control character): the picture
# must escape the first and replace the control character of the second.
NASTY_SEATS = ['<b>&"x\'', "bo\x01b"]
_COORDINATE = re.compile(r' (?:x|y|cx|cy|r|x1|y1|x2|y2|width|height)="-?\d*\.')


# ---- reading a picture ---------------------------------------------------------------------
def parse(text: str | None) -> ET.Element:
    assert text is not None, "the game drew no picture"
    root = ET.fromstring(text)
    assert root.tag == f"{NS}svg"
    return root


def maybe_id(root: ET.Element, ident: str) -> ET.Element | None:
    return next((e for e in root.iter() if e.get("id") == ident), None)


def by_id(root: ET.Element, ident: str) -> ET.Element:
    found = maybe_id(root, ident)
    assert found is not None, f"nothing drawn with id {ident!r}"
    return found


def has_id(root: ET.Element, ident: str) -> bool:
    return maybe_id(root, ident) is not None


def text_of(element: ET.Element) -> str:
    """The drawn words of an element (its <title> tooltips left out)."""
    words = ["".join(node.itertext()) for node in element.iter(f"{NS}text")]
    return " ".join(words).replace("\u00a0", " ")


def tooltip(element: ET.Element) -> str:
    found = element.find(f"{NS}title")
    return "" if found is None else found.text or ""


def with_class(root: ET.Element, name: str) -> list[ET.Element]:
    return [e for e in root.iter() if name in (e.get("class") or "").split()]


def cube_fills(group: ET.Element) -> list[str]:
    """The fills of the goods drawn in ``group``, in drawing order."""
    return [e.get("fill", "") for e in with_class(group, "cube")]


def marks_of(card: ET.Element) -> list[str]:
    """The marks after a player's name on its card: ["you", "to act", "place 1"...]."""
    found = with_class(card, "marks")
    if not found:
        return []
    words = text_of(found[0])
    inside = words[words.index("(") + 1: words.rindex(")")] if "(" in words else ""
    return [m for m in inside.split(", ") if m]


# ---- the checks ------------------------------------------------------------------------------
def check_document(text: str | None, title: str, width: int = 1240,
                   heights: tuple[int, int] = (600, 4000)) -> ET.Element:
    """A standalone SVG 1.1 document: its size as its viewBox, a title starting with
    ``title``, integer coordinates only (no float formatting can make two runs differ),
    no negative size. Returns the parsed root."""
    root = parse(text)
    assert text is not None and text.endswith("</svg>\n")
    assert root.get("version") == "1.1"
    got_w, got_h = int(root.get("width", "0")), int(root.get("height", "0"))
    assert root.get("viewBox") == f"0 0 {got_w} {got_h}"
    assert got_w == width and heights[0] <= got_h <= heights[1], (got_w, got_h)
    head = root[0]
    assert head.tag == f"{NS}title" and (head.text or "").startswith(title), head.text
    assert not _COORDINATE.search(text)
    assert not re.search(r' points="[^"]*\.', text)
    assert not re.search(r' (?:width|height|r)="-', text)
    return root


# Drawings of sample views, by game and the view's JSON text (see drawn).
_DRAWN: dict[tuple[int, str], str] = {}


def drawn(game: Game, view: dict[str, Any]) -> str:
    """``game.render_svg(view)``, drawn once per view: each of a dozen tests checks one
    part of the same sample's picture. Keyed by the view's whole JSON text, so a view
    changed since is drawn afresh; check_same_bytes draws anew every time."""
    key = (id(game), json.dumps(view, sort_keys=True))
    found = _DRAWN.get(key)
    if found is None:
        found = game.render_svg(view)
        assert found is not None, "the game draws no SVG"
        _DRAWN[key] = found
    return found


def check_same_bytes(game: Game, view: dict[str, Any]) -> None:
    """The same view draws the same bytes, also after a trip through JSON (as a save)."""
    first = game.render_svg(view)
    assert first == game.render_svg(copy.deepcopy(view))
    assert first == game.render_svg(json.loads(json.dumps(view)))


def check_hook(game: Game, drawing: ModuleType, view: dict[str, Any]) -> None:
    """The game draws through its ``render_svg`` hook, and the engine's pages use it."""
    drawn = game.render_svg(view)
    assert isinstance(drawn, str) and drawn == drawing.render_svg(view)
    assert page.svg_of(game, view) == drawn
    assert drawn in page.html_page(game, view, "heading")


def check_escaped(text: str | None) -> ET.Element:
    """A picture of a game seated with NASTY_SEATS: markup escaped, control characters
    replaced, and still well-formed. Returns the parsed root."""
    root = parse(text)
    assert text is not None
    assert "&lt;b&gt;&amp;" in text and "<b>" not in text
    assert "bo?b" in text and "\x01" not in text
    return root


def check_player_cards(root: ET.Element, names: Sequence[str]) -> list[str]:
    """One card per player (ids player-0 ...), each naming its player; returns their
    words in seat order."""
    assert len(with_class(root, "player")) >= len(names)
    cards = [text_of(by_id(root, f"player-{seat}")) for seat in range(len(names))]
    for words, name in zip(cards, names, strict=True):
        assert name in words.split() or words.startswith(name), (name, words)
    return cards


def check_no_secret(text: str | None, secrets: Iterable[str]) -> None:
    """None of ``secrets`` (card ids a seat may not see) stands in the picture as a word."""
    assert text is not None
    shown = sorted(s for s in secrets if re.search(rf"(?<![\w-]){re.escape(s)}(?![\w-])", text))
    assert not shown, f"secrets drawn: {shown}"


def shape_of(piece: ET.Element) -> str:
    """A good's shape as drawn, whatever its size: "square", "circle", or a polygon by
    its corners ("3-up" and "3-down" for the two triangles)."""
    tag = piece.tag.removeprefix(NS)
    if tag in ("rect", "circle"):
        return {"rect": "square", "circle": "circle"}[tag]
    points = [tuple(int(v) for v in p.split(",")) for p in piece.get("points", "").split()]
    if len(points) == 3:
        top = min(y for _, y in points)
        return "3-up" if sum(1 for _, y in points if y == top) == 1 else "3-down"
    return f"{len(points)}-gon"


def check_goods_told_apart(root: ET.Element, key: ET.Element) -> None:
    """Goods are told apart without colour: each good in the ``key`` has a shape of its
    own, and every piece of the picture with a good's fill has that good's shape."""
    pieces = with_class(key, "cube")
    assert len(pieces) >= 2, "no key of the goods"
    shapes = {p.get("fill"): shape_of(p) for p in pieces}
    assert len(shapes) == len(pieces), "two goods of the key share a colour"
    assert len(set(shapes.values())) == len(shapes), f"two goods share a shape: {shapes}"
    for piece in with_class(root, "cube"):
        fill = piece.get("fill")
        if fill in shapes:
            assert shape_of(piece) == shapes[fill], (fill, shape_of(piece), shapes[fill])


def check_result_panel(root: ET.Element, result: dict[str, Any]) -> str:
    """The final result's panel names the winner(s) and every seat's score, and the
    player cards carry their places. Returns the panel's words."""
    words = text_of(by_id(root, "result"))
    seats, scores, ranking = result["seats"], result["scores"], result["ranking"]
    best = ranking[0]
    if len(seats) == 1:
        assert f"{seats[0]} scored {scores[0]}" in words
    elif len(best) == 1:
        assert f"Winner: {seats[best[0]]} with {scores[best[0]]} points" in words, words
    else:
        assert "Shared win: " in words and all(seats[s] in words for s in best)
    for place, group in enumerate(ranking, 1):
        for seat in group:
            assert f"{place}. {seats[seat]} {scores[seat]}" in words, (seat, words)
            assert f"place {place}" in marks_of(by_id(root, f"player-{seat}"))
    assert ("Audit: clean" in words) == (result["audit"] == "clean")
    return words


# ---- making views ----------------------------------------------------------------------------
def view_fixture(views: Callable[[], list[tuple[str, dict[str, Any]]]]) -> Any:
    """A fixture ``sample`` that runs a test once per named view of ``views()``: in a
    test module, ``sample = view_fixture(game_views)``."""
    names = [name for name, _ in views()]

    @pytest.fixture(params=range(len(names)), ids=names)
    def sample(request: pytest.FixtureRequest) -> dict[str, Any]:
        return views()[request.param][1]

    return sample


def turns(table: LocalTable, most: int) -> Iterator[tuple[int, int]]:
    """(turn number, seat to act) for each turn of ``table``, chance resolved first, until
    the game ends or ``most`` turns; the caller plays each turn."""
    for turn in range(most):
        table.prepare()
        seat = table.to_act()
        if seat is None:
            return
        yield turn, seat


def signed_game(homes: dict[str, Home], folder: Path, ruleset: str, played: int) -> Written:
    """A signed game of ``homes`` (each seat with an address, HANDLE@example.org):
    created, joined, started and ``played`` greedy turns in. Returns the last write."""
    folder.mkdir(parents=True, exist_ok=True)
    written = session.new_game(homes["ann"], ruleset, [f"{h}={h}@example.org" for h in homes],
                               [], None, folder=folder)
    turns = 0
    while turns < played:
        duty = written.table.duty()
        assert duty is not None
        written = sign_duty(homes, written, "greedy")
        turns += duty.kind == "turn"
    return written


def greedy_view(game: Game, seed: bytes, viewer: int | None, played: int = 6) -> dict[str, Any]:
    """The view of a three-seat game (ann, bob, cy) ``played`` greedy turns in."""
    table = LocalTable(game, ["ann", "bob", "cy"], seed=seed)
    for turn, seat in turns(table, played):
        table.play(bots.choose_turn(game, table.state, seat, "greedy", salt=str(turn)))
    table.prepare()
    return table.view(viewer)


def random_turn(game: Game, state: dict[str, Any], seat: int, rng: Sampler,
                most: int = 40) -> list[str]:
    """A turn of random legal moves, ended at random once it may end."""
    trial = copy_state(state)
    moves: list[str] = []
    for _ in range(most):
        legal = game.legal_moves(trial, seat)
        if game.can_end_turn(trial, seat) and (not legal or rng.randbelow(3) == 0):
            return moves
        move = rng.choice(legal)
        game.apply(trial, seat, move)
        moves.append(move)
    raise AssertionError(f"a turn ran past {most} moves")


def with_result(view: dict[str, Any], result: dict[str, Any]) -> dict[str, Any]:
    """``view`` with a final result section, as pbem.session adds it after the audit."""
    return {**view, "result": result}
