"""``zwick_ai.games.view``: what the player to move sees, and nothing more. A state's view equals
the view of every state ``resample_from_infostate`` draws for that player (20 each), in every
Zwicker variant and both trick games, at decisions throughout the deal."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

import zwick_ai.games  # noqa: F401  (registers the games)
from zwick_ai.games import view, zwicker_bridge
from zwick_ai.games.seat_view import TricksView, ZwickerView

GAMES = [
    "zwicker(variant=classic,players=2)",
    "zwicker(variant=grupp,players=4)",
    "zwicker(variant=dithmarschen,players=4)",
    "zwicker(variant=grossenwiehe,players=4)",
    "zwicker(variant=christiansen,players=3)",
    "zwikken(variant=parlett,players=3)",
    "zwikken(variant=modern,players=4)",
    "zwicken(players=4)",
]


def decision_states(game: pyspiel.Game, seed: int, every: int) -> list[pyspiel.State]:
    """States at the start of decisions along one random game (every ``every``-th decision)."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    out, count = [], 0
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(actions, p=probs)))
            continue
        start = game.get_type().short_name != "zwicker" or not state.move_prefix()
        if start:
            if count % every == 0:
                out.append(state.clone())
            count += 1
        state.apply_action(int(rng.choice(state.legal_actions())))
    return out


@pytest.mark.parametrize("game_string", GAMES)
def test_the_view_is_the_same_in_every_world_the_player_cannot_tell_apart(game_string):
    game = pyspiel.load_game(game_string)
    states = decision_states(game, seed=7, every=4)[:5]
    assert states
    rng = np.random.default_rng(1)
    differing_truths = 0
    for state in states:
        player = state.current_player()
        mine = view(state)
        assert mine.moves, "the player to move sees his legal decisions"
        for _ in range(20):
            world = state.resample_from_infostate(player, rng.random)
            assert view(world) == mine
            differing_truths += str(world) != str(state)
    assert differing_truths > 0  # the worlds did differ in what the player cannot see


def test_zwicker_view_reads_the_mover_s_hand_and_scores_captures():
    game = pyspiel.load_game("zwicker(variant=dithmarschen,players=4)")
    state = zwicker_bridge.state_from_seed(game, 5)
    v = view(state)
    assert isinstance(v, ZwickerView)
    es = zwicker_bridge.engine_state(state)
    from zwick_ai import zwicker

    assert list(v.hand) == zwicker.hand(es, v.player)
    assert sum(v.hand_sizes) + v.stock + sum(len(u.cards) for u in v.table) == len(game.rules.deck)
    for m in v.moves:
        if m.kind == "capture":
            taken = sum(game.rules.card_points(c) for c in (*m.move.key.taken, m.move.key.card))
            assert m.points == taken + (game.rules.zwick_points if m.move.zwick else 0)
        else:
            assert m.points == 0
        assert set(m.actions) <= set(range(game.num_distinct_actions()))
    # each move's actions are the engine's sub-actions of that move
    move = v.moves[-1]
    child = state.clone()
    for a in move.actions:
        child.apply_action(a)
    assert child.num_plies() == state.num_plies() + 1


def test_trick_view_counts_the_trick_a_card_takes():
    game = pyspiel.load_game("zwikken(variant=parlett,players=3)")
    found = 0
    for state in decision_states(game, seed=3, every=1):
        v = view(state)
        assert isinstance(v, TricksView)
        for m in v.moves:
            child = state.child(m.action)
            gained = view(child, v.player).tricks[v.player] - v.tricks[v.player]
            assert m.points == gained
            found += m.points
    assert found > 0


def test_view_refuses_what_is_not_a_seat():
    game = pyspiel.load_game("zwikken(variant=parlett,players=3)")
    state = game.new_initial_state()
    with pytest.raises(ValueError, match="give a seat"):
        view(state)
