"""HTML pages of recorded and running games, for ``zwick replay --html``, ``zwick analyze`` and
``zwick play --html`` (the page itself: :mod:`zwick_ai.render`)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

import pyspiel

from zwick_ai.eval.match import chance_action
from zwick_ai.eval.records import GameRecord, ReplayStep
from zwick_ai.render import MoveValue, Page, PageMove, capture_cards, game_page, page_html, views


def result_lines(rec: GameRecord) -> list[str]:
    """The final scores of a record as lines of text."""
    lines = [
        "returns: "
        + ", ".join(f"seat {p} ({s}) {r:+g}" for p, (s, r) in enumerate(zip(rec.seats, rec.returns, strict=True)))
    ]
    if rec.points is not None:
        lines.append("points per side: " + ", ".join(f"side {s} {x}" for s, x in enumerate(rec.points)))
    return lines


def unit_of(game_string: str) -> str:
    """What the returns of a game count: points (Zwicker) or chips (trick games)."""
    return "points" if game_string.startswith("zwicker") else "chips"


def record_page(
    rec: GameRecord,
    steps: Sequence[ReplayStep],
    title: str,
    values: dict[int, tuple[list[MoveValue], float]] | None = None,
    note: str = "",
) -> Page:
    """The replay page of a record from its replayed ``steps`` (:func:`zwick_ai.eval.records.replay`)."""
    moves = [(s.seat, s.label, s.actions) for s in steps[1:]]
    subtitle = f"{rec.game} · deal seed {rec.deal_seed} · seats: {', '.join(rec.seats)} · {len(moves)} moves"
    return game_page(
        title,
        subtitle,
        rec.seats,
        [s.state for s in steps],
        moves,
        result_lines(rec),
        values=values,
        unit=unit_of(rec.game),
        note=note,
    )


def write_record_page(rec: GameRecord, steps: Sequence[ReplayStep], path: str | Path, title: str) -> None:
    """Write the replay page of a record to ``path``."""
    write_text_atomic(path, page_html(record_page(rec, steps, title)))


def write_text_atomic(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder, so a reader (a
    browser refreshing the page) never sees half a file."""
    target = Path(path)
    fd, tmp = tempfile.mkstemp(dir=target.parent or ".", prefix=f".{target.name}.", suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)  # as open() would make it (mkstemp makes it private)
    os.replace(tmp, target)


class LivePage:
    """The page of a game being played (``zwick play --html``): rewritten after each move (only the
    new position is drawn), opening at the newest position from ``seat``'s view and reloading
    itself every few seconds until the game ends."""

    REFRESH_SECONDS = 2

    def __init__(self, path: str | Path, title: str, subtitle: str, names: Sequence[str], seat: int, deal_seed: int):
        self.path = Path(path)
        self.title, self.subtitle, self.names, self.seat = title, subtitle, list(names), seat
        self.deal_seed = deal_seed
        self.unit = "points"
        self.last: pyspiel.State | None = None  # the position now (chance events done)
        self.frames: list[Mapping[str, str]] = []
        self.moves: list[PageMove] = []
        self.highlight: list[str] = []

    def _settled(self, state: pyspiel.State) -> pyspiel.State:
        """A copy of ``state`` with pending chance events done as the game will do them
        (:func:`zwick_ai.eval.match.chance_action` of the deal seed), so it can be drawn."""
        out = state.clone()
        while out.is_chance_node():
            out.apply_action(chance_action(out, self.deal_seed))
        return out

    def start(self, state: pyspiel.State) -> None:
        """The position after the deal."""
        self.unit = unit_of(str(state.get_game()))
        self.last = self._settled(state)
        self.frames, self.moves, self.highlight = [views(self.last, self.names)], [], []
        self._write([])

    def add(self, state: pyspiel.State, seat: int, label: str, actions: Sequence[int]) -> None:
        """One more move and the position after it."""
        if self.last is None:
            raise ValueError("start the page with the position after the deal first")
        after = self._settled(state)
        caught = capture_cards(self.last, actions, after)
        if caught is not None and hasattr(after, "engine_state"):
            self.highlight = caught
        self.frames.append(views(after, self.names, self.highlight))
        self.moves.append(PageMove(seat, label, caught is not None))
        self.last = after
        done = after.is_terminal()
        self._write(
            ["returns: " + ", ".join(f"seat {p} {r:+g}" for p, r in enumerate(after.returns()))] if done else []
        )

    def _write(self, result: list[str]) -> None:
        page = Page(self.title, self.subtitle, self.names, self.frames, self.moves, result, unit=self.unit)
        page.default_view = str(self.seat)
        page.start_step = len(self.moves)  # open at the newest position
        page.refresh_seconds = 0 if result else self.REFRESH_SECONDS  # follow the game until it ends
        write_text_atomic(self.path, page_html(page))
