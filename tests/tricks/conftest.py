"""Helpers for the trick-game tests."""

import pytest

from zwick_ai import tricks as T


def run(state: T.TrickState, *actions: str | int) -> T.TrickState:
    """Apply actions (names, card names or ids) one after another."""
    for a in actions:
        state = T.apply(state, a)
    return state


@pytest.fixture
def play():
    return run
