"""The SVG canvas every board is drawn on: elements, escaping, text measures, the document.

Every string that reaches the picture may come from a save (handles, owner-edited
component data), so every text and attribute value is escaped here, and characters XML
1.0 forbids even when escaped are replaced by "?". Coordinates are integers only and
elements are written in the order they are drawn, so the same view always gives the
same bytes.
"""

from __future__ import annotations

import re
import textwrap
from functools import lru_cache

PAGE_WIDTH = 1240  # every game's board: a left column of places and a side panel
FONT = "DejaVu Sans, Verdana, Arial, sans-serif"  # the PNG renderer ships DejaVu Sans

_NOT_XML = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_NOT_ID = re.compile(r"[^A-Za-z0-9_.-]")


def escape(text: str) -> str:
    """``xml.sax.saxutils.escape``, which is not imported: that module imports
    urllib.request, the email package and tempfile, a third of pbem's start-up, and every
    game's text view loads this kit."""
    return text.replace("&", "&amp;").replace(">", "&gt;").replace("<", "&lt;")


def quoteattr(text: str) -> str:
    """``xml.sax.saxutils.quoteattr``: escaped, with the quote the value holds least."""
    text = escape(text).replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#9;")
    if '"' not in text:
        return f'"{text}"'
    if "'" not in text:
        return f"'{text}'"
    quoted = text.replace('"', "&quot;")
    return f'"{quoted}"'


def clean(text: object) -> str:
    """``text`` as a string XML may hold (forbidden control characters become "?")."""
    return _NOT_XML.sub("?", str(text))


def esc(text: object) -> str:
    """Element content: cleaned and escaped."""
    return escape(clean(text))


@lru_cache(maxsize=4096, typed=True)  # a board repeats its few colours, widths and classes thousands of times
def attr(text: object) -> str:
    """An attribute value: cleaned, escaped and quoted."""
    return quoteattr(clean(text))


def ident(prefix: str, name: object) -> str:
    """An XML id built from data (ids of cards, tiles and cities are owner-editable)."""
    return f"{prefix}-{_NOT_ID.sub('_', str(name))}"


def fit(text: str, width: int, size: int) -> str:
    """Cut ``text`` to about ``width`` pixels at font ``size`` (0.6 em per character)."""
    most = max(1, width * 10 // (size * 6))
    return text if len(text) <= most else text[: most - 1] + "…"


def wrap(text: str, width: int, size: int) -> list[str]:
    """``text`` in lines of about ``width`` pixels at font ``size``."""
    return textwrap.wrap(text, max(8, width * 10 // (size * 6))) or [""]


def text_width(text: str, size: int) -> int:
    """About how wide ``text`` is at font ``size`` (the measure ``fit`` and ``wrap`` use)."""
    return len(text) * size * 6 // 10


class Canvas:
    """The element list of one picture, with helpers that escape every text and value.

    Keyword attributes use Python names for SVG's hyphenated ones (``stroke_width`` for
    stroke-width, ``class_`` for class); an attribute given as "" is left out."""

    def __init__(self) -> None:
        self.parts: list[str] = []

    def add(self, element: str) -> None:
        self.parts.append(element)

    def open(self, element: str = "g", **attrs: object) -> None:
        self.add(f"<{element}{self._attrs(attrs)}>")

    def close(self, element: str = "g") -> None:
        self.add(f"</{element}>")

    def title(self, text: str) -> None:
        """A tooltip for the group just opened."""
        self.add(f"<title>{esc(text)}</title>")

    @staticmethod
    def _attrs(attrs: dict[str, object]) -> str:
        return "".join(f" {k.rstrip('_').replace('_', '-')}={attr(v)}"
                       for k, v in attrs.items() if v != "")

    def rect(self, x: int, y: int, w: int, h: int, fill: str, **attrs: object) -> None:
        self.add(f"<rect x=\"{x}\" y=\"{y}\" width=\"{max(0, w)}\" height=\"{max(0, h)}\" "
                 f"fill={attr(fill)}{self._attrs(attrs)}/>")

    def circle(self, x: int, y: int, r: int, fill: str, **attrs: object) -> None:
        self.add(f"<circle cx=\"{x}\" cy=\"{y}\" r=\"{max(0, r)}\" fill={attr(fill)}"
                 f"{self._attrs(attrs)}/>")

    def line(self, x1: int, y1: int, x2: int, y2: int, stroke: str, **attrs: object) -> None:
        self.add(f"<line x1=\"{x1}\" y1=\"{y1}\" x2=\"{x2}\" y2=\"{y2}\" "
                 f"stroke={attr(stroke)}{self._attrs(attrs)}/>")

    def polygon(self, points: list[tuple[int, int]], fill: str, **attrs: object) -> None:
        text = " ".join(f"{x},{y}" for x, y in points)
        self.add(f"<polygon points=\"{text}\" fill={attr(fill)}{self._attrs(attrs)}/>")

    def text(self, x: int, y: int, text: str, size: int = 12, **attrs: object) -> None:
        self.add(f"<text x=\"{x}\" y=\"{y}\" font-size=\"{size}\"{self._attrs(attrs)}>"
                 f"{esc(text)}</text>")

    def document(self, width: int, height: int, title: str) -> str:
        """The whole picture: a standalone SVG 1.1 document on a white page."""
        head = (f"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{width}\" "
                f"height=\"{height}\" viewBox=\"0 0 {width} {height}\" font-family={attr(FONT)}>")
        body = [head, f"<title>{esc(title)}</title>",
                f"<rect x=\"0\" y=\"0\" width=\"{width}\" height=\"{height}\" fill=\"#ffffff\"/>"]
        return "\n".join(body + self.parts + ["</svg>"]) + "\n"
