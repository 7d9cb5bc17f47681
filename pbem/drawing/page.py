"""Pictures of a game for people: the SVG a game draws, wrapped in a small HTML page."""

from __future__ import annotations

import html
import os
import tempfile
from pathlib import Path
from typing import Any

from pbem.errors import UsageError
from pbem.game import Game


def svg_of(game: Game, view: dict[str, Any]) -> str:
    svg = game.render_svg(view)
    if not svg:
        raise UsageError(f"{game.info.title} draws no picture yet; use 'pbem show' for text.")
    return svg


def html_page(game: Game, view: dict[str, Any], heading: str) -> str:
    """One self-contained page: the board (inline SVG, if the game draws one) above the
    text rendering, so it reads in any browser or mail client."""
    svg = game.render_svg(view) or ""
    text = html.escape(game.render(view))
    return (
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
        f"<title>{html.escape(heading)}</title>"
        "<style>body{font-family:sans-serif;margin:1em;background:#fff;color:#111}"
        "svg{max-width:100%;height:auto}pre{font-size:12px;background:#f4f4f4;"
        "padding:.6em;overflow-x:auto}</style></head><body>"
        f"<h1>{html.escape(heading)}</h1><div class=\"board\">{svg}</div>"
        f"<pre>{text}</pre></body></html>\n"
    )


def write_picture(path: str | Path, text: str) -> Path:
    """Write (or replace) a picture file atomically: pictures are redrawn every turn,
    unlike saves, which are never overwritten."""
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise UsageError(f"The folder {folder} does not exist.")
    fd, tmp = tempfile.mkstemp(prefix=".pbem-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return target
