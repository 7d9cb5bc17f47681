"""Pictures of a game for people: the SVG a game draws, wrapped in a small HTML page or
turned into a PNG."""

from __future__ import annotations

import html
import os
import stat
import zlib
from pathlib import Path
from typing import Any

from pbem import atomic
from pbem.errors import UsageError
from pbem.game import Game
from pbem.terminal import shown


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


def png_page(game: Game, view: dict[str, Any], width: int | None = None) -> bytes:
    """The board as a PNG, ``width`` pixels wide (None: the SVG's own size)."""
    from pbem.drawing.png import png_of  # the renderer loads only when a PNG is wanted

    return png_of(svg_of(game, view), width)


def write_picture(path: str | Path, text: str | bytes) -> Path:
    """Write (or replace) a picture file atomically: pictures are redrawn every turn,
    unlike saves, which are never overwritten."""
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise UsageError(f"The folder {folder} does not exist.")
    refuse_save_target(target)
    atomic.replace(target, text if isinstance(text, bytes) else text.encode("utf-8"),
                   sync=False)  # a picture is drawn again from the save
    return target


def check_picture_targets(asked: dict[str, str]) -> None:
    """UsageError, before anything is drawn, unless each picture asked for (flag -> path)
    has a file name of its own that :func:`refuse_save_target` accepts."""
    seen: dict[str, str] = {}
    for flag, path in asked.items():
        if not path:
            raise UsageError(f"{flag} needs a file name (e.g. board.{flag[2:]}); nothing was "
                             "written.")
        key = os.path.realpath(path)
        if key in seen:
            raise UsageError(f"{seen[key]} and {flag} name the same file, {shown(path, 80)}: "
                             "give each picture its own; nothing was written.")
        seen[key] = flag
        refuse_save_target(path)


def refuse_save_target(path: str | Path) -> None:
    """UsageError if ``path`` holds a pbem save (a picture never replaces one) or is not
    a plain file: a folder, a device or a pipe, which a picture would replace, or whose
    reading would wait for ever."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        mode = None  # nothing there yet (or unreadable: the write says why)
    if mode is not None and not stat.S_ISREG(mode):
        raise UsageError(f"{shown(str(path), 80)} is not a plain file (a folder, a device or "
                         "a pipe): a picture is written to a file of its own. Name a new "
                         "file, or a picture to draw again; nothing was written.")
    if is_save(Path(path)):
        raise UsageError(f"{path} is a pbem save: a picture is never written over a save. "
                         "Give another file name (e.g. board.svg); nothing was written.")


def is_save(path: Path) -> bool:
    """Whether ``path`` is (or links to) a file that starts as a pbem save does."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(4096)
    except OSError:
        return False
    if head.startswith(b"\x1f\x8b"):  # a save stored gzip-compressed is a save too (the
        try:  # drawing layer reads it as pbem.protocol.saveformat.packed.head does, being below it)
            head = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(head, 4096)
        except zlib.error:
            return False
    head = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    return head.startswith((b"# pbem save", b"[header]"))
