"""A game's public view as nested HTML tables: the board a mail shows for a game that
draws no picture (or whose picture cannot be drawn)."""

from __future__ import annotations

import html
from typing import Any


def view_table_html(value: Any, depth: int = 0) -> str:
    """The public view as nested HTML tables: the picture for games without render_svg."""
    esc = html.escape
    if depth > 6:
        return esc(repr(value))
    if isinstance(value, dict):
        if not value:
            return "<i>none</i>"
        rows = "".join(f"<tr><th style=\"text-align:left;vertical-align:top\">{esc(str(k))}</th>"
                       f"<td>{view_table_html(v, depth + 1)}</td></tr>" for k, v in value.items())
        return f"<table border=\"1\" cellpadding=\"3\" style=\"border-collapse:collapse\">{rows}</table>"
    if isinstance(value, list):
        if not value:
            return "<i>none</i>"
        if all(isinstance(v, dict) for v in value):
            columns: list[str] = []
            for item in value:
                columns += [str(k) for k in item if str(k) not in columns]
            head = "".join(f"<th>{esc(c)}</th>" for c in columns)
            rows = "".join("<tr>" + "".join(f"<td>{view_table_html(item.get(c, ''), depth + 1)}"
                                            "</td>" for c in columns) + "</tr>" for item in value)
            return (f"<table border=\"1\" cellpadding=\"3\" style=\"border-collapse:collapse\">"
                    f"<tr>{head}</tr>{rows}</table>")
        if all(not isinstance(v, dict | list) for v in value):
            return esc(", ".join(str(v) for v in value))
        return "<ol>" + "".join(f"<li>{view_table_html(v, depth + 1)}</li>" for v in value) + "</ol>"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return esc(str(value))
