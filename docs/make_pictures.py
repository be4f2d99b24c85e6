"""The README's picture of a position: ``docs/position.svg`` drawn by ``zwick_ai.render`` and
``docs/position.png`` made from it by a headless Chromium screenshot (Debian's ``chromium``).

    python docs/make_pictures.py

The position: deal 3 of Großenwiehe (4 players; greedy, random, greedy, random), after 9 moves,
every hand open.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pyspiel

import zwick_ai.agents  # noqa: F401  (registers the agents)
import zwick_ai.games  # noqa: F401  (registers the games)
from zwick_ai.agents import make_agent
from zwick_ai.eval.match import play_game
from zwick_ai.eval.records import replay
from zwick_ai.render import save_svg

HERE = Path(__file__).resolve().parent
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars"]  # fmt: skip


def svg_to_png(svg: Path, png: Path) -> None:
    """A screenshot of the SVG file at its own size."""
    head = svg.read_text(encoding="utf-8")[:300]
    size = re.search(r'width="(\d+)" height="(\d+)"', head)
    if size is None:
        raise ValueError(f"{svg} has no width and height")
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run(
            ["chromium", *FLAGS, f"--user-data-dir={profile}", f"--window-size={size[1]},{size[2]}",
             f"--screenshot={png}", svg.as_uri()],
            check=True, capture_output=True, timeout=120,
        )  # fmt: skip


def main() -> int:
    game = pyspiel.load_game("zwicker(variant=grossenwiehe,players=4)")
    specs = ["greedy", "random", "greedy", "random"]
    rec = play_game(game, [make_agent(s, game, seed=i) for i, s in enumerate(specs)], deal_seed=3)
    state = replay(rec)[9].state
    svg = save_svg(state, HERE / "position.svg", names=rec.seats)
    svg_to_png(svg, HERE / "position.png")
    print(f"wrote {svg} and {HERE / 'position.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
