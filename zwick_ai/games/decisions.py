"""Whole decisions, the unit players choose: in Zwicker a whole move (its sub-actions, e.g. ``QS``,
``as 13``, ``take QD``, ``done``), in the trick games one action.

>>> import pyspiel, zwick_ai.games
>>> from zwick_ai.games.seeded_deals import deal
>>> state = deal(pyspiel.load_game("zwicker(variant=classic,players=2)"), 3)
>>> label, actions = legal_decisions(state)[0]
>>> decision_label(state, actions) == label
True
>>> mover = state.current_player()
>>> apply_decision(state, actions); state.current_player() == 1 - mover
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import overload

import pyspiel

from zwick_ai.games import zwicker_bridge


def decision_over(state: pyspiel.State, player: int) -> bool:
    """True when ``player``'s current decision is complete: the game moved on to another player,
    to chance or to the end, or (Zwicker) a whole move has been completed (no sub-actions pending)."""
    if state.current_player() != player:
        return True
    prefix = getattr(state, "move_prefix", None)
    return prefix is None or not prefix()


@overload
def compose_decision(state: pyspiel.State, step: Callable[[pyspiel.State], int]) -> list[int]: ...
@overload
def compose_decision(state: pyspiel.State, step: Callable[[pyspiel.State], int | None]) -> list[int] | None: ...
def compose_decision(state: pyspiel.State, step: Callable[[pyspiel.State], int | None]) -> list[int] | None:
    """One whole decision of the player to move built from sub-actions: ``step(work)`` chooses each
    next action on a clone ``work`` of ``state`` (``state`` is not changed) until the decision is
    over (:func:`decision_over`); ``None`` from ``step`` gives up (returns ``None``)."""
    player = state.current_player()
    work = state.clone()
    actions: list[int] = []
    while not actions or not decision_over(work, player):
        a = step(work)
        if a is None:
            return None
        actions.append(int(a))
        work.apply_action(int(a))
    return actions


def legal_decisions(state: pyspiel.State) -> list[tuple[str, list[int]]]:
    """Every legal whole decision of the player to move, as (readable label, actions).

    Zwicker: every legal whole move (``str(Move)``) with its sub-action sequence, from the start of
    a turn; the trick games: each legal action with its name."""
    if state.is_chance_node() or state.is_terminal():
        raise ValueError("not a decision state")
    if hasattr(state, "move_prefix"):
        return [(str(m), acts) for m, acts in zwicker_bridge.legal_moves(state)]
    p = state.current_player()
    return [(state.action_to_string(p, a), [a]) for a in state.legal_actions()]


def decision_label(state: pyspiel.State, actions: Sequence[int]) -> str:
    """A readable name of the whole decision ``actions`` taken from ``state`` (before applying)."""
    if hasattr(state, "move_prefix"):
        return str(zwicker_bridge.actions_move(state, actions))
    p = state.current_player()
    return " ".join(state.action_to_string(p, a) for a in actions)


def apply_decision(state: pyspiel.State, actions: Sequence[int]) -> None:
    """Apply the actions of one whole decision in place, checking that they are legal and that
    they complete the decision exactly."""
    player = state.current_player()
    if player < 0:
        raise ValueError("not a decision state")
    if len(actions) == 0:
        raise ValueError(f"player {player} gave an empty decision (no action); a decision needs at least one action")
    for i, a in enumerate(actions):
        if decision_over(state, player) and i > 0:
            raise ValueError(f"the decision was complete after {i} of {len(actions)} actions")
        legal = state.legal_actions()
        if a not in legal:
            names = ", ".join(state.action_to_string(player, x) for x in legal[:40])
            raise ValueError(f"action {a} is not legal here; legal: {names}")
        state.apply_action(a)
    if not decision_over(state, player):
        raise ValueError("the actions do not complete a whole decision")
