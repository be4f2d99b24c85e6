"""The adapters of OpenSpiel's Python ISMCTS and MCTS bots (tiny budgets)."""

import numpy as np
import pyspiel
import pytest

import zwick_ai.agents  # noqa: F401  (registers the built-in agents)
import zwick_ai.games  # noqa: F401
from zwick_ai.agents import as_bot, make_agent
from zwick_ai.agents.openspiel_bots import DeterminizedMCTSBot
from zwick_ai.eval.match import deal, play_game

ADAPTERS = ["openspiel-ismcts:sims=5", "openspiel-mcts:sims=5,worlds=2"]
VARIANTS = ["openspiel-ismcts:sims=6,final=max_value,selection=puct,samples=2,rollouts=2", "openspiel-mcts:sims=4,c=1"]


@pytest.mark.parametrize("spec", ADAPTERS)
@pytest.mark.parametrize(
    "game_string", ["zwicker(variant=classic,players=2)", "zwikken(variant=parlett,players=3)", "zwicken(players=4)"]
)
def test_adapters_play_whole_games(spec, game_string):
    # play_game checks that every decision is legal and whole (Zwicker: the move's sub-actions)
    game = pyspiel.load_game(game_string)
    rec = play_game(game, [make_agent(spec, game, seed=i) for i in range(game.num_players())], deal_seed=1)
    assert rec.moves and len(rec.returns) == game.num_players()


@pytest.mark.parametrize("spec", ADAPTERS + VARIANTS)
def test_adapters_are_reproducible_from_the_seed(spec):
    game = pyspiel.load_game("zwicken(players=4)")
    runs = [play_game(game, [make_agent(spec, game, seed=i) for i in range(4)], deal_seed=3) for _ in range(2)]
    assert runs[0].moves == runs[1].moves


def test_evaluate_bots_runs_with_the_adapters():
    game = pyspiel.load_game("zwikken(players=3)")
    bots = [as_bot(make_agent(spec, game, seed=i)) for i, spec in enumerate([*ADAPTERS, "greedy"])]
    returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, 3)
    assert len(returns) == 3 and game.min_utility() <= min(returns) <= max(returns) <= game.max_utility()


def test_determinized_mcts_does_not_peek():
    # two states with the same information for the player but different hidden cards: same choice
    game = pyspiel.load_game("zwikken(variant=modern,players=3)")
    state = deal(game, 11)
    p = state.current_player()
    other = state.resample_from_infostate(p, lambda: 0.25)
    assert str(other) != str(state) and other.information_state_string(p) == state.information_state_string(p)
    choices = {
        DeterminizedMCTSBot(game, sims=20, worlds=3, c=2.0, rollouts=1, rng=np.random.default_rng(5)).step(s)
        for s in (state, other)
    }
    assert len(choices) == 1 and next(iter(choices)) in state.legal_actions()


@pytest.mark.parametrize(
    "spec, message",
    [
        ("openspiel-ismcts:final=best", "valid: most_visited, max_value"),
        ("openspiel-ismcts:sims=0", "sims=0 is not valid"),
        ("openspiel-mcts:worlds=0", "worlds=0 is not valid"),
        ("openspiel-mcts:c=-1", "exploration constant"),
        ("openspiel-ismcts:selection=ucb", "valid: uct, puct"),
        ("openspiel-ismcts:samples=-1", "samples=-1 is not valid"),
    ],
)
def test_bad_parameters_say_what_is_valid(spec, message):
    with pytest.raises(ValueError, match=message):
        make_agent(spec, pyspiel.load_game("zwikken(players=3)"))


def test_openspiel_ismcts_replays_the_same_zwicker_games_under_a_seed():
    """OpenSpiel's own ISMCTSBot resamples with an unseeded sampler; ours draws its worlds from the
    agent's seed, so two runs give the same games."""
    game = pyspiel.load_game(
        "zwicker(variant=dithmarschen,players=2,ranks=A23,suits=CD,jokers=none,hand_size=2,table_size=2,stages=1)"
    )

    def run(seed):
        return [
            play_game(game, [make_agent("openspiel-ismcts:sims=40", game, seed=seed + i) for i in range(2)], d).moves
            for d in range(4)
        ]

    assert run(1) == run(1)
