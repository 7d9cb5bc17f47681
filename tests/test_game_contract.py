"""The game author's defaults (docs/ADDING-A-GAME.md): a game's components.toml, beside
the module of its class, is found, read once and checked by its validate_components
without a hook of its own; a game with no data file has none."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

from pbem.errors import AmbiguousMoveError, ComponentError, InvalidMoveError, OptionError, UsageError
from pbem.game import Game, check_options, one_match, word_matches
from pbem.play.local import LocalTable
from pbem.protocol.state import headers
from tests.support.dice_race import DiceRace

SOURCE = '''
from typing import Any
from pbem.game import ComponentError, Game
from tests.support.dice_race import DiceRace


class FileRace(DiceRace):
    """Dice Race with its die in a components.toml of its own: the contract's loading."""

    stock_components = Game.stock_components

    def validate_components(self, data: dict[str, Any]) -> None:
        if not isinstance(data.get("die"), int) or data["die"] < 2:
            raise ComponentError("File Race components: 'die' must be 2 or more")
'''


def _file_race(folder: Path, die: str, monkeypatch: pytest.MonkeyPatch) -> Game:
    """A game module in ``folder`` with a components.toml holding ``die``."""
    folder.mkdir()
    (folder / "rules.py").write_text(SOURCE, "utf-8")
    (folder / "components.toml").write_text(f"die = {die}\n", "utf-8")
    name = f"file_race_{folder.name}"
    spec = importlib.util.spec_from_file_location(name, folder / "rules.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, name, module)
    spec.loader.exec_module(module)
    game: Game = module.FileRace()
    return game


def test_a_games_components_toml_is_found_beside_its_class_and_checked(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    game = _file_race(tmp_path / "ok", "8", monkeypatch)
    assert game.stock_file() == tmp_path / "ok" / "components.toml"
    assert game.stock_components() == {"die": 8}
    first = game.stock_components()
    first["die"] = 99
    assert game.stock_components() == {"die": 8}  # a fresh copy each time


def test_data_that_fails_the_games_check_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    game = _file_race(tmp_path / "bad", "1", monkeypatch)
    with pytest.raises(ComponentError, match="'die' must be 2 or more"):
        game.stock_components()


class _Bare(DiceRace):
    stock_components = Game.stock_components
    validate_components = Game.validate_components


def test_a_game_with_no_data_file_has_no_components() -> None:
    # No components.toml stands beside tests/test_game_contract.py.
    assert _Bare().stock_file() is None
    assert _Bare().stock_components() == {}
    _Bare().validate_components({"anything": 1})  # the default accepts any table


def test_word_matches_is_the_word_itself_else_every_choice_it_starts() -> None:
    """The one lookup behind typed names (move words of every game, game names): an exact
    choice wins over longer ones it starts; an empty word names nothing."""
    choices = ["red", "redwood", "ruby", "gold"]
    assert word_matches("red", choices) == ["red"]
    assert word_matches("re", choices) == ["red", "redwood"]
    assert word_matches("ru", choices) == ["ruby"]
    assert word_matches("x", choices) == [] and word_matches("", choices) == []
    assert word_matches("station", {"station-to-station": 1, "road-master": 2}) == [
        "station-to-station"]


def test_one_match_is_the_one_choice_else_the_ambiguous_or_unknown_error() -> None:
    """The three-way every typed name goes through (goods, ships, colours, cities, games):
    one match is the answer; several raise the first error, none the second, each with
    its own words, made only then."""
    choices = ["red", "redwood", "ruby"]
    said: list[str] = []

    def ambiguous(hits: list[str]) -> str:
        said.append("ambiguous")
        return f"one of {' or '.join(hits)}"

    def unknown() -> str:
        said.append("unknown")
        return "no such colour"

    assert one_match("ru", choices, ambiguous, unknown) == "ruby"
    assert one_match("red", choices, ambiguous, unknown) == "red" and said == []
    with pytest.raises(AmbiguousMoveError, match="^one of red or redwood$"):
        one_match("re", choices, ambiguous, unknown)
    with pytest.raises(InvalidMoveError, match="^no such colour$"):
        one_match("x", choices, ambiguous, unknown)
    with pytest.raises(UsageError, match="no such colour"):
        one_match("", choices, ambiguous, unknown, errors=(UsageError, UsageError))
    assert said == ["ambiguous", "unknown", "unknown"]


class _SeesData(DiceRace):
    """Refuses a target no die of its data can reach in the turn limit; keeps what it saw."""

    seen: list[dict[str, Any]]

    def validate_options(self, options: dict[str, Any], players: int, *,
                         components: dict[str, Any] | None = None) -> None:
        assert components is not None
        self.seen.append(components)
        if options["target"] > components["die"] * options["turns"]:
            raise OptionError(f"A {components['die']}-sided die cannot reach {options['target']}.")


class _OldSignature(DiceRace):
    """A game written before validate_options was given the components."""

    def validate_options(self, options: dict[str, Any], players: int) -> None:  # type: ignore[override]
        if players == 4:
            raise OptionError("Not four.")


def test_validate_options_is_given_the_components_in_play_and_at_create() -> None:
    """The data passed is the table's own (local play) or the installed data (``new``)."""
    game = _SeesData()
    game.seen = []
    LocalTable(game, ["a", "b"], {"turns": 1, "target": 3}, components={"die": 3})
    with pytest.raises(OptionError, match="A 2-sided die cannot reach 3"):
        LocalTable(game, ["a", "b"], {"turns": 1, "target": 3}, components={"die": 2})
    headers.new_header(game, [("a", ""), ("b", "")], headers.parse_options(game, []))
    assert game.seen == [{"die": 3}, {"die": 2}, {"die": 6}]


def test_a_game_with_the_old_validate_options_signature_still_plays() -> None:
    """check_options calls a two-argument validate_options without the components."""
    game = _OldSignature()
    LocalTable(game, ["a", "b"], {})
    check_options(game, {"target": 12, "turns": 200}, 3, {"die": 6})
    with pytest.raises(OptionError, match="Not four"):
        headers.new_header(game, [(h, "") for h in "abcd"], headers.parse_options(game, []))
