"""The drawing kit's own promises (pbem.game.kit), beyond what the games' pictures show:
goods told apart by shape at every size, escaping of attributes, and the final result's
words for a shared win, a solo game and a failed audit."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

import pytest

from pbem.game import Outcome, kit
from tests.support.boards import check_goods_told_apart, shape_of, text_of


def picture(out: kit.Canvas) -> ET.Element:
    return ET.fromstring(out.document(200, 100, "test"))


@pytest.mark.parametrize("size", [4, 7, 10, 14])
def test_every_shape_of_goods_reads_apart_at_every_size(size: int) -> None:
    goods = kit.Goods([f"good{i}" for i in range(len(kit.SHAPES))], {})
    out = kit.Canvas()
    goods.row(out, goods.order, 0, 0, size)
    pieces = [e for e in picture(out).iter() if e.get("class") == "cube"]
    assert len({shape_of(p) for p in pieces}) == len(kit.SHAPES)


def test_the_goods_check_fails_when_two_goods_share_a_shape() -> None:
    out = kit.Canvas()
    out.open("g", id="legend")
    out.rect(0, 0, 10, 10, "#ff0000", class_="cube")
    out.rect(20, 0, 10, 10, "#00ff00", class_="cube")
    out.close()
    root = picture(out)
    with pytest.raises(AssertionError, match="share a shape"):
        check_goods_told_apart(root, root[2])


def test_unknown_goods_get_spare_fills_of_their_own() -> None:
    goods = kit.Goods(["red", "teal", "mauve"], {"red": "#d0312d"})
    assert goods.fill("red") == "#d0312d"
    assert goods.fill("teal") != goods.fill("mauve") and goods.fill("teal") in kit.SPARE
    assert goods.shape("mauve") != goods.shape("teal")
    assert goods.fill("never heard of") in kit.SPARE  # drawn, not refused


def test_attributes_and_text_from_a_save_are_escaped() -> None:
    out = kit.Canvas()
    out.open("g", id=kit.ident("city", 'x" onload="evil'), class_='a"b')
    out.text(0, 10, "</text><script>\x07", fill='"/><script>')
    out.close()
    text = out.document(10, 10, "<title>")
    assert "<script>" not in text and "\x07" not in text
    root = ET.fromstring(text)
    group = root[2]
    assert group.get("id") == "city-x__onload__evil" and group.get("class") == 'a"b'
    assert text_of(group) == "</text><script>?"
    assert kit.ink_on("not a colour") == kit.DARK_INK and kit.ink_on("#000000") == "#ffffff"


def _result(ranking: list[list[int]], scores: dict[int, int], audit: str | list[str] = "clean"
            ) -> dict[str, Any]:
    outcome = Outcome(scores=scores, ranking=ranking, notes=["a note"])
    return kit.result_section(outcome, ["ann", "bob", "cy"][: len(scores)], audit)


def test_the_result_names_a_shared_win_and_a_solo_score() -> None:
    shared = _result([[0, 2], [1]], {0: 30, 1: 12, 2: 30})
    assert kit.winner_words(shared) == "Shared win: ann and cy, 30 points each"
    assert kit.result_lines(shared) == ["1. ann 30", "1. cy 30", "2. bob 12"]
    assert kit.result_places(shared) == {0: 1, 2: 1, 1: 2}
    assert kit.winner_words(_result([[0]], {0: 17})) == "ann scored 17"


def test_the_result_panel_says_when_the_audit_failed() -> None:
    out = kit.Canvas()
    kit.result_panel(out, 0, 0, 300, _result([[1], [0]], {0: 3, 1: 9}, ["ann cheated"]))
    words = text_of(picture(out))
    assert "Winner: bob with 9 points" in words and "AUDIT FAILED: ann cheated" in words
    assert "Audit: clean" not in words and "a note" in words
