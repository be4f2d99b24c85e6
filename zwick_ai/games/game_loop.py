"""The one Python game loop: :func:`play_to_end` plays a state of one of our games to its end, one
whole decision (:mod:`zwick_ai.games.decisions`) at a time.

What the callers add comes in as functions: ``decide(state)`` chooses the decision of the player to
move (an agent, a search teacher, a study's agent under a rule that can fork the game before it
chooses), ``chance(state)`` draws a chance outcome (a deal seed's, :func:`seeded_chance`, or a
random stream's, :func:`stream_chance`), and ``on_chance`` / ``on_decision`` / ``after_decision``
record what happened. Tournaments (:func:`zwick_ai.eval.match.play_game`), the analysis of a
position's moves (:mod:`zwick_ai.analysis.move_values`), the strong joker study, the value
model's teacher, the trick games' sessions and the one-seat environment (which stops the loop
when its learner is to move: ``until=at_seat(seat)``) all play through it; whole playouts of
compiled agents stay in compiled code.

>>> import pyspiel, zwick_ai.games
>>> from zwick_ai.games.decisions import legal_decisions
>>> from zwick_ai.games.seeded_deals import deal
>>> game = pyspiel.load_game("zwikken(variant=parlett,players=3)")
>>> seen = []
>>> end = play_to_end(deal(game, 2), lambda s: legal_decisions(s)[0][1], seeded_chance(2),
...                   on_decision=lambda s, seat, actions: seen.append(seat))
>>> end.is_terminal(), len(seen) > 3
(True, True)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pyspiel

from zwick_ai.games.decisions import apply_decision
from zwick_ai.games.seeded_deals import chance_action

#: chooses the whole decision of ``state.current_player()`` (the state is not changed)
Decide = Callable[[pyspiel.State], Sequence[int]]
#: draws the outcome of a chance node
Chance = Callable[[pyspiel.State], int]
#: sees a decision ``(state, seat, actions)``
DecisionHook = Callable[[pyspiel.State, int, list[int]], None]


def seeded_chance(deal_seed: int) -> Chance:
    """Chance as a function of the deal seed alone (:func:`zwick_ai.games.seeded_deals.chance_action`)."""
    return lambda state: chance_action(state, deal_seed)


def stream_chance(rng: np.random.Generator, by_index: bool = False) -> Chance:
    """Chance drawn from the random stream ``rng`` with the outcomes' probabilities: an outcome
    (``rng.choice(ids, p)``) or, with ``by_index``, the index of one (``rng.choice(n, p)``); the two
    are different uses of the stream, each kept where results depend on it."""

    def draw(state: pyspiel.State) -> int:
        ids, probs = zip(*state.chance_outcomes(), strict=True)
        if by_index:
            weights = np.array(probs) / sum(probs)
            return int(ids[int(rng.choice(len(ids), p=weights))])
        p = np.asarray(probs)
        return int(rng.choice(ids, p=p / p.sum()))

    return draw


def no_chance(state: pyspiel.State) -> int:
    """For games dealt whole at the start: a later chance event is an error."""
    raise ValueError("a chance event in a game played without a chance source (a deal dealt whole at the start)")


def decision_actions(given: object, who: str) -> list[int]:
    """The action ids of a decision as a list of ``int``; ``ValueError`` naming ``who`` (the agent
    and seat) for anything else: ``None``, a single number, floats, booleans, text."""
    if isinstance(given, str | bytes) or not isinstance(given, Sequence | np.ndarray):
        raise ValueError(f"{who} returned {given!r}, not a list of action ids")
    actions: list[int] = []
    for a in given:
        if isinstance(a, bool | np.bool_) or not isinstance(a, int | np.integer):
            raise ValueError(f"{who} returned {list(given)!r}: actions are whole numbers (action ids), not {a!r}")
        actions.append(int(a))
    return actions


def at_seat(seat: int) -> Callable[[pyspiel.State], bool]:
    """A stop condition for :func:`play_to_end`: ``seat`` is to move (not at a chance node)."""
    return lambda state: state.current_player() == seat


def play_to_end(
    state: pyspiel.State,
    decide: Decide,
    chance: Chance = no_chance,
    on_chance: Callable[[int], None] | None = None,
    on_decision: DecisionHook | None = None,
    after_decision: DecisionHook | None = None,
    who: Callable[[int], str] | None = None,
    until: Callable[[pyspiel.State], bool] | None = None,
) -> pyspiel.State:
    """Play ``state`` (changed in place and returned) to the end: each chance node gets
    ``chance(state)`` (then ``on_chance(action)``); each decision ``decide(state)``, checked and
    applied whole (:func:`zwick_ai.games.decisions.apply_decision`), with
    ``on_decision(state, seat, actions)`` before it is applied and ``after_decision(state, seat,
    actions)`` after. A decision that is not a list of action ids, or not a legal whole decision,
    raises ``ValueError`` naming ``who(seat)`` (default: the seat). With ``until``, play stops
    earlier, at the first state (chance node or decision) where ``until(state)`` is true, before
    anything is applied there (:func:`at_seat`: when a given seat is to move)."""
    while not state.is_terminal():
        if until is not None and until(state):
            break
        if state.is_chance_node():
            action = chance(state)
            state.apply_action(action)
            if on_chance is not None:
                on_chance(action)
            continue
        seat = state.current_player()
        name = who(seat) if who is not None else f"seat {seat}"
        actions = decision_actions(decide(state), name)
        try:
            if on_decision is not None:
                on_decision(state, seat, actions)
            apply_decision(state, actions)
        except ValueError as error:
            raise ValueError(f"{name}: {error}") from None
        if after_decision is not None:
            after_decision(state, seat, actions)
    return state
