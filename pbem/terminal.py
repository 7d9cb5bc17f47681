"""Text on its way to a terminal: nothing read from a file may steer it.

A save, a mail or a file name can hold escape sequences (colour, cursor moves, window
titles, fake prompts) or bidirectional-override characters that make text read other than
it is. Everything the CLI prints passes through :func:`printable`, which shows each such
character as a visible escape instead.
"""

from __future__ import annotations

# C0 controls except tab and newline, DEL, C1 controls, and the Unicode format characters
# that reorder or hide text (bidi embeddings, overrides and isolates; zero-width marks).
_UNSAFE_RANGES = ((0x00, 0x08), (0x0B, 0x1F), (0x7F, 0x9F), (0x200B, 0x200F),
                  (0x2028, 0x202E), (0x2060, 0x2069), (0xFEFF, 0xFEFF))
_UNSAFE = [code for low, high in _UNSAFE_RANGES for code in range(low, high + 1)]
# str.translate tables, not a regular expression: compiling that character class took
# about 0.4 ms of every command's start-up, and translate is faster on long text too.
_AS_SHOWN = {code: f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" for code in _UNSAFE}
_AS_JSON = {code: f"\\u{code:04x}" for code in _UNSAFE}


def printable(text: str) -> str:
    """``text`` with every control or reordering character shown as ``\\xNN``/``\\uNNNN``."""
    return text.translate(_AS_SHOWN)


def printable_json(text: str) -> str:
    """The same for JSON text: the characters become JSON ``\\uNNNN`` escapes, so the
    output still parses to the very same strings."""
    return text.translate(_AS_JSON)


# ---- values from a file in a message -------------------------------------------------------
# A message is one or two plain sentences (CLI.md). A value quoted from a save can be 16,000
# characters of anything; it is shown cut short, with its control characters escaped.
SHOWN_LIMIT = 40
MESSAGE_LIMIT = 400


def shown(value: object, limit: int = SHOWN_LIMIT) -> str:
    """``repr(value)`` (control and bidi characters escaped, never a line break), cut to
    ``limit`` characters with the full length said."""
    text = repr(value)
    if len(text) <= limit:
        return text
    if isinstance(value, str):
        return f"{text[:limit]}... ({len(value)} characters)"
    if isinstance(value, list | dict):
        return f"{text[:limit]}... ({len(value)} items)"
    return f"{text[:limit]}..."


def shortened(message: str, limit: int = MESSAGE_LIMIT) -> str:
    """A message from code that may quote a file's values at any length (a game's own
    error on a header or a move): its lines joined, its control characters escaped as
    they will be shown, cut to ``limit`` characters."""
    flat = printable(" ".join(message.split("\n")))
    return flat if len(flat) <= limit else flat[:limit] + "... (message cut short)"


def listed(words: list[str]) -> str:
    """'ann', 'ann and bob', 'ann, bob and cy'."""
    return " and ".join([", ".join(words[:-1]), words[-1]] if len(words) > 1 else words)
