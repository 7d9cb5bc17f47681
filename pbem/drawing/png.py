"""A board's SVG as a PNG, rendered in this process (no browser), for mail clients that
show no SVG (most webmail) and for ``pbem show --png``.

The renderer is resvg (the ``resvg-py`` wheel ships it compiled). It is given the fonts
in ``fonts/`` beside this file and never the machine's own, so text renders on a bare
machine with no fonts installed, and a board renders to the same pixels everywhere.
"""

from __future__ import annotations

from pathlib import Path

from pbem.errors import UsageError

MAIL_WIDTH = 800  # wide enough to read, narrow enough for every mail client's window
FONTS = Path(__file__).resolve().parent / "fonts"
FONT_FILES = ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf")
FAMILY = "DejaVu Sans"


class PictureError(UsageError):
    """The PNG could not be made (the renderer is missing, or it refused the SVG)."""


def png_of(svg: str, width: int | None = None) -> bytes:
    """The PNG of ``svg``: ``width`` pixels wide with the height in proportion (None: the
    SVG's own size). Raises PictureError when it cannot be drawn."""
    try:
        import resvg_py  # compiled and large: loaded only when a PNG is wanted
    except ImportError as exc:
        raise PictureError("Drawing a PNG needs the resvg-py package, which pbem depends on: "
                           "reinstall pbem (pip install pbem) or run 'pip install resvg-py'.") \
            from exc
    fonts = [str(FONTS / name) for name in FONT_FILES]
    try:
        data = resvg_py.svg_to_bytes(
            svg_string=svg, width=width, skip_system_fonts=True, font_files=fonts,
            font_family=FAMILY, sans_serif_family=FAMILY, serif_family=FAMILY,
            monospace_family=FAMILY, background="#ffffff")
    except (ValueError, RuntimeError) as exc:
        raise PictureError(f"The board could not be drawn as a PNG ({exc}); 'show --svg' "
                           "still writes it as SVG.") from exc
    return bytes(data)
