"""docs/deck-example.md is what tools/make_deck_example.py computes now (so the page never
drifts from the code), and the independent checker written from the docs
(tests/support/deckcheck.py) accepts the example step by step, audit included."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

from tests.support import deckcheck

ROOT = Path(__file__).resolve().parent.parent


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_deck_example",
                                                  ROOT / "tools" / "make_deck_example.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_deck_example_page_is_what_the_code_computes() -> None:
    tool = _tool()
    assert tool.PAGE.read_text(encoding="utf-8") == tool.document(), (
        "docs/deck-example.md is out of date: run python tools/make_deck_example.py")


def test_the_independent_checker_accepts_the_deck_example() -> None:
    tool = _tool()
    example = tool.build()
    header = {"id": tool.GAME_ID, "seats": [{"handle": h} for h in tool.HANDLES]}
    [deck] = deckcheck.check_save(header, example.entries).values()
    assert deck.steps == 2 + 3 + 1 + 2  # two passes, three peels, a peel, a shuffle and an open
    assert deck.opened == {"s3": "ace"}
