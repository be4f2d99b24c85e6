"""Figures as small PNG files: every plot of the package is written by :func:`save_png`, as a
palette image of at most 256 colours (a third of the size of matplotlib's RGBA file, and the same
picture: a plot has few colours, and 256 keep a colour map's gradient smooth).

>>> import tempfile
>>> from pathlib import Path
>>> import matplotlib
>>> matplotlib.use("Agg")
>>> from matplotlib import pyplot
>>> fig, ax = pyplot.subplots(figsize=(3, 2))
>>> _ = ax.plot([0, 1, 2], [1, 0, 2])
>>> path = Path(tempfile.mkdtemp()) / "line.png"
>>> save_png(fig, path)
>>> from PIL import Image
>>> with Image.open(path) as image:
...     image.mode, image.size
('P', (300, 200))
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

__all__ = ["PALETTE_COLOURS", "palette_png", "pyplot", "save_png"]

#: the colours of a saved figure's palette
PALETTE_COLOURS = 256


def pyplot() -> Any:
    """matplotlib's pyplot on the file-only Agg backend (imported on first use: it is slow to load)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot

    return matplotlib.pyplot


def palette_png(png: bytes) -> bytes:
    """The PNG image ``png`` as a palette PNG of at most :data:`PALETTE_COLOURS` colours."""
    from PIL import Image

    with Image.open(io.BytesIO(png)) as image:
        quantized = image.convert("RGB").quantize(colors=PALETTE_COLOURS, method=Image.Quantize.MEDIANCUT)
    out = io.BytesIO()
    quantized.save(out, format="PNG", optimize=True)
    return out.getvalue()


def save_png(fig: Any, path: str | Path, dpi: int = 100) -> None:
    """Write the matplotlib figure ``fig`` to ``path`` as a palette PNG (whole or not at all)."""
    from zwick_ai.files import replacing

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi)
    with replacing(path) as tmp:
        tmp.write_bytes(palette_png(buffer.getvalue()))
