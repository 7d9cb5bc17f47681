"""A board's SVG as a PNG, rendered in this process (no browser), for mail clients that
show no SVG (most webmail) and for ``pbem show --png``.

The renderer is resvg (the ``resvg-py`` wheel ships it compiled). It is given the fonts
in ``fonts/`` beside this file and never the machine's own, so text renders on a bare
machine with no fonts installed, and a board renders to the same pixels everywhere.
"""

from __future__ import annotations

from pathlib import Path

from pbem.errors import UsageError

MAIL_WIDTH = 800  # CSS pixels the mail shows it at: narrow enough for every mail window
MAIL_SCALE = 2  # drawn at twice the pixels, so the smallest panel text reads (and on
# high-density screens), then cut to a 256-colour palette (about half the bytes)
MAIL_COLOURS = 256
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


def mail_png(svg: str, scale: int = MAIL_SCALE) -> bytes:
    """The board for a mail: ``scale`` times MAIL_WIDTH pixels wide, as a palette PNG
    when Pillow is installed (the flat colours and anti-aliased text of a board lose
    nothing visible at 256 colours, and the image shrinks by half or more); without
    Pillow, the full-colour PNG as resvg writes it."""
    data = png_of(svg, MAIL_WIDTH * scale)
    try:
        from PIL import Image
    except ImportError:
        return data
    import io

    with Image.open(io.BytesIO(data)) as image:
        flat = image.convert("RGB")  # drawn on white: the alpha channel holds nothing
        # Fast octree: as clean as median cut on a board's flat colours and text, a
        # tenth smaller and a third faster.
        quantized = flat.quantize(MAIL_COLOURS, method=Image.Quantize.FASTOCTREE)
        out = io.BytesIO()
        quantized.save(out, "PNG", optimize=True)
    return out.getvalue()


def squeezed(data: bytes) -> bytes:
    """The PNG ``data``, the same pixels in fewer bytes: its image data deflated again by
    Zopfli, unfiltered (what suits a palette board). About a tenth smaller, and about 2.5 s
    for a mail's board on a small machine, so only for a mail that does not fit its budget
    otherwise. ``data`` itself where Zopfli cannot read it or does no better."""
    import zopfli  # compiled: loaded only when a mail needs it

    squeezer = zopfli.ZopfliPNG()
    squeezer.filter_strategies = "0"
    squeezer.auto_filter_strategy = False
    squeezer.iterations = squeezer.iterations_large = 1  # more: a few KB for seconds more
    try:
        out = bytes(squeezer.optimize(data))
    except ValueError:
        return data
    return out if len(out) < len(data) else data
