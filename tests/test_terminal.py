"""No control character from a save, a mail or a file name reaches the terminal."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from pbem.cli import main
from pbem.terminal import printable, printable_json


def test_control_and_reordering_characters_are_shown_as_escapes() -> None:
    text = "ann\x1b[2J\x9b31m\u202eevil\u2066 \x07\x00"
    shown = printable(text)
    for bad in ("\x1b", "\x9b", "\u202e", "\u2066", "\x07", "\x00"):
        assert bad not in shown
    assert shown == "ann\\x1b[2J\\x9b31m\\u202eevil\\u2066 \\x07\\x00"


def test_ordinary_text_is_untouched() -> None:
    text = "Red Dog Junction: ann’s turn\n\tgold × 3 — 金"
    assert printable(text) == text


def test_json_stays_valid_and_means_the_same() -> None:
    value = {"handle": "a\u202eb\x9bc\x1bd"}
    out = printable_json(json.dumps(value, ensure_ascii=False))
    assert "\u202e" not in out and "\x9b" not in out and "\x1b" not in out
    assert json.loads(out) == value


def test_a_file_name_with_an_escape_sequence_is_printed_escaped(tmp_path: Path) -> None:
    name = str(tmp_path / "turn\x1b]0;owned\x07.toml")
    result = CliRunner().invoke(main, ["--home", str(tmp_path / "h"), "verify", name])
    assert result.exit_code == 4
    assert "\x1b" not in result.output and "\x07" not in result.output
    assert "\\x1b]0;owned\\x07" in result.output


def test_a_long_message_is_cut_after_its_characters_are_escaped() -> None:
    """A game's refusal quoting 1,000 bidi overrides from a re-signed header was cut to 400
    characters and then escaped to 2,400 (found by the fuzzer): escaped first, then cut."""
    from pbem.terminal import MESSAGE_LIMIT, shortened

    message = "Red Dog Junction components: commander '" + "\u202e" * 1000 + "' is unknown"
    out = printable(shortened(message))
    assert len(out) <= MESSAGE_LIMIT + len("... (message cut short)")
    assert "\u202e" not in out and out.endswith("(message cut short)")
