"""pbem.tomltext: a save written section by section is the whole document as tomli-w
writes it, every value survives a round trip, and the parser is TOML 1.0 with the
quadratic-key guard."""

from __future__ import annotations

import string
import time
import tomllib
from pathlib import Path
from typing import Any

import pytest
import tomli_w
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem import tomltext
from pbem.cli import main
from pbem.protocol.saveformat import savefile

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "saves").glob("*/*.toml"))

keys = st.text(alphabet=string.ascii_letters + string.digits + "-_ .\"\\é\t\n", min_size=0,
               max_size=8)
strings = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=30)
scalars = st.one_of(strings, st.integers(min_value=-(2**63), max_value=2**63 - 1), st.booleans())
values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(keys, inner, max_size=4)),
    max_leaves=20)
documents = st.dictionaries(keys, values, max_size=6)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_a_save_is_written_exactly_as_tomli_w_writes_it(path: Path) -> None:
    save = savefile.read(path)
    # A save is written section by section, each entry's text kept for the next write:
    # the same bytes as the whole document written at once, the first time and after.
    for _ in range(2):
        assert savefile.dumps(save) == path.read_text("utf-8")
        assert savefile.dumps(save).endswith(tomli_w.dumps(
            {"header": save.header, "entry": save.entries, "state": save.state}))
    assert savefile.parse(savefile.dumps(save)) == save


def test_an_entry_changed_after_it_was_written_is_written_anew() -> None:
    save = savefile.read(EXAMPLES[1])
    before = savefile.dumps(save)
    save.entries[-1]["moves"] = [*save.entries[-1]["moves"], "an added move"]
    after = savefile.dumps(save)
    assert after != before and savefile.parse(after).entries[-1]["moves"][-1] == "an added move"


@settings(max_examples=300, deadline=None)
@given(documents)
def test_any_document_reads_back_the_same(doc: dict[str, Any]) -> None:
    text = tomltext.dumps(doc)
    assert tomltext.loads(text) == doc == tomllib.loads(text)


def test_control_characters_quotes_and_odd_keys_are_escaped() -> None:
    doc = {"a b": "tab\there \x1b[31m \"quoted\" back\\slash \x7f", "": {"x.y": [1, True]}}
    text = tomltext.dumps(doc)
    assert "\x1b" not in text and "\x7f" not in text
    assert '"a b" = "tab\there \\u001b[31m \\"quoted\\" back\\\\slash \\u007f"' in text
    assert tomltext.loads(text) == doc


@pytest.mark.parametrize("value", [None, b"bytes", {1: "x"}])
def test_a_value_toml_cannot_hold_is_a_type_error(value: object) -> None:
    with pytest.raises(TypeError):
        tomltext.dumps({"v": value} if not isinstance(value, dict) else value)


@pytest.mark.parametrize("text", [
    'a = {b = 1,\n c = 2}',  # TOML 1.1: newlines in an inline table
    'a = {b = 1,}',          # TOML 1.1: trailing comma in an inline table
    'a = "\\e"',             # TOML 1.1: the \e escape
    'a = 1979-05-27T07:32Z',  # TOML 1.1: a time without seconds
])
def test_the_parser_reads_toml_1_0_as_tomllib_on_python_3_11_does(text: str) -> None:
    """Every home must accept the same files: the pin keeps TOML 1.1's extensions out."""
    with pytest.raises(tomltext.TOMLDecodeError):
        tomltext.loads(text)


def test_a_save_with_a_key_of_a_hundred_thousand_parts_is_refused_at_once(
        tmp_path: Path) -> None:
    """tomllib takes quadratic time over such a key (seconds at thousands of parts, far
    longer at the size limit); the pinned tomli refuses keys of over 1,000 parts."""
    bad = tmp_path / "bad.toml"
    bad.write_text("a" + ".a" * 100_000 + " = 1\n", "utf-8")
    started = time.perf_counter()
    r = CliRunner().invoke(main, ["--home", str(tmp_path / "home"), "verify", str(bad)])
    assert r.exit_code == 4, r.output
    assert "is not a pbem save" in r.output and "Traceback" not in r.output
    assert time.perf_counter() - started < 5
    assert [p.name for p in tmp_path.glob("*.toml")] == ["bad.toml"]
