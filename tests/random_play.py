"""Decision states from seeded random play, shared by the tests of every game."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyspiel


def uniform_action(state: pyspiel.State, rng: np.random.Generator) -> None:
    """One legal action, uniformly at random."""
    legal = state.legal_actions()
    state.apply_action(int(legal[int(rng.integers(len(legal)))]))


def at_turn_start(state: pyspiel.State) -> bool:
    """A Zwicker state where no whole move is in progress."""
    return not state.move_prefix()


def random_states(
    game: pyspiel.Game,
    n: int,
    seed: int,
    keep: float = 1.0,
    *,
    accept: Callable[[pyspiel.State], bool] | None = None,
    start: Callable[[int], pyspiel.State] | None = None,
    step: Callable[[pyspiel.State, np.random.Generator], None] = uniform_action,
) -> list[pyspiel.State]:
    """``n`` decision states (copies) met along random plays of ``game``, every draw from
    ``np.random.default_rng(seed)``: chance outcomes by their probabilities, decisions by ``step``
    (default: a uniform legal action). A decision state is kept with probability ``keep`` (no
    draw is made when ``keep`` is 1) if ``accept`` allows it. Play ``i`` (0, 1, ...) starts from
    ``start(i)`` (default: the initial state); plays go on until ``n`` states are kept."""
    rng = np.random.default_rng(seed)
    out: list[pyspiel.State] = []
    play = 0
    while len(out) < n:
        state = game.new_initial_state() if start is None else start(play)
        play += 1
        while not state.is_terminal() and len(out) < n:
            if state.is_chance_node():
                ids, probs = zip(*state.chance_outcomes(), strict=True)
                p = np.asarray(probs, dtype=float)
                state.apply_action(int(rng.choice(ids, p=p / p.sum())))
                continue
            if (accept is None or accept(state)) and (keep >= 1.0 or rng.random() < keep):
                out.append(state.clone())
            step(state, rng)
    return out
