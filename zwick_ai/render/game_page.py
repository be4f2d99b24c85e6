"""The replay page of one played game: from the position after the deal and after each move (OpenSpiel
states) to a :class:`~zwick_ai.render.html.Page` with every view's picture of every position.

A Zwicker capture outlines its cards (in the won pile) in the pictures until the next capture; in
the trick games the move that completes a trick counts as its capture.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pyspiel

from zwick_ai import cards
from zwick_ai.games import zwicker_bridge
from zwick_ai.render.html import MoveValue, Page, PageMove
from zwick_ai.render.svg import state_svg
from zwick_ai.tricks import arrays as trick_arrays


def views(state: Any, names: Sequence[str], highlight: Sequence[str] = ()) -> dict[str, str]:
    """The pictures of one position for the page: ``all`` (every hand open) and each seat's view,
    their cards ``<use>`` of the page's symbols (:func:`zwick_ai.render.svg.symbol_defs`)."""
    out = {"all": state_svg(state, None, names, highlight, symbols=True)}
    for p in range(len(names)):
        out[str(p)] = state_svg(state, p, names, highlight, symbols=True)
    return out


def capture_cards(before: pyspiel.State, actions: Sequence[int], after: pyspiel.State) -> list[str] | None:
    """The cards a move captured (Zwicker: the card played and the cards taken; trick games: the
    trick it completed, as played), or None if it captured nothing."""
    if hasattr(before, "engine_state"):
        move = zwicker_bridge.actions_move(before, list(actions))
        if move.kind != "capture" or move.card is None:
            return None
        return [cards.format_card(c) for c in (move.key.card, *move.key.taken)]  # builds taken: their cards
    a, b = before.trick_state().arr, after.trick_state().arr
    k = int(trick_arrays.trick_number(a))
    if int(trick_arrays.trick_number(b)) <= k:
        return None
    return [f"trick {k + 1}"]


def game_page(
    title: str,
    subtitle: str,
    names: Sequence[str],
    states: Sequence[pyspiel.State],
    moves: Sequence[tuple[int, str, Sequence[int]]],
    result: Sequence[str],
    values: dict[int, tuple[list[MoveValue], float]] | None = None,
    unit: str = "points",
    note: str = "",
) -> Page:
    """The page of a game: ``states[i]`` is the position after ``i`` moves, ``moves[k]`` is
    ``(seat, label, actions)``; ``values[k]``: the analysed move values and loss of move ``k``."""
    if len(states) != len(moves) + 1:
        raise ValueError(f"{len(states)} positions for {len(moves)} moves: give the position after the deal too")
    highlight: list[str] = []
    frames: list[Mapping[str, str]] = [views(states[0], names, highlight)]
    page_moves: list[PageMove] = []
    for k, (seat, label, actions) in enumerate(moves):
        caught = capture_cards(states[k], actions, states[k + 1])
        if caught is not None and hasattr(states[k], "engine_state"):
            highlight = caught
        frames.append(views(states[k + 1], names, highlight))
        vals, loss = values[k] if values and k in values else (None, None)
        page_moves.append(PageMove(seat, label, caught is not None, vals, loss))
    return Page(title, subtitle, list(names), frames, page_moves, list(result), unit=unit, note=note)
