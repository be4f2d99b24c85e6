"""The one game loop (zwick_ai.games.game_loop.play_to_end) and its stop condition."""

from __future__ import annotations

import pyspiel
import pytest

import zwick_ai.games  # noqa: F401  (registers the games)
from zwick_ai.games.decisions import apply_decision, legal_decisions
from zwick_ai.games.game_loop import at_seat, play_to_end, seeded_chance
from zwick_ai.games.seeded_deals import deal


def last_decision(state: pyspiel.State) -> list[int]:
    return legal_decisions(state)[-1][1]


@pytest.mark.parametrize("spec", ["zwikken(variant=parlett,players=3)", "zwicker(variant=classic,players=2)"])
def test_until_stops_where_the_seat_is_to_move_and_play_goes_on_from_there(spec: str) -> None:
    game = pyspiel.load_game(spec)
    whole = play_to_end(deal(game, 3), last_decision, seeded_chance(3))
    state, stops = deal(game, 3), 0
    while not play_to_end(state, last_decision, seeded_chance(3), until=at_seat(1)).is_terminal():
        assert state.current_player() == 1  # stopped before seat 1's decision: the caller makes it
        apply_decision(state, last_decision(state))
        stops += 1
    assert stops > 1
    assert state.history() == whole.history() and state.returns() == whole.returns()


def test_until_true_at_the_start_changes_nothing() -> None:
    state = deal(pyspiel.load_game("zwicken"), 5)
    before = state.history()
    assert play_to_end(state, last_decision, seeded_chance(5), until=lambda s: True).history() == before
