"""The Zwicker searches' objectives (``utility=``) and the best responder ``br-ismcts``: the reward
scales, the Zwick bound checked on played hands, the option's validation, a best response's tree
that follows the modelled player at the other seats, and hybrid policies in the exploitability
study."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

import zwick_ai.agents  # noqa: F401  (registers the agents)
import zwick_ai.games  # noqa: F401
from zwick_ai.agents import make_agent, zwicker_search
from zwick_ai.games import zwicker_bridge
from zwick_ai.zwicker import arrays, kernels, policy_codes

CLASSIC2 = "zwicker(variant=classic,players=2)"
DITH4 = "zwicker(variant=dithmarschen,players=4)"
MICRO2 = "zwicker(variant=dithmarschen,players=2,ranks=A23,suits=CD,jokers=none,hand_size=2,table_size=2,stages=1)"


def test_reward_scales_of_each_objective():
    rules = pyspiel.load_game(CLASSIC2).rules
    # classic: 21 card points, 3 a Zwick, 48 cards played (4 on the table): at most 24 Zwicks
    assert zwicker_search.zwick_bound(rules) == 72
    assert [zwicker_search.reward_scale(u, rules) for u in ("clip", "margin", "bound")] == [21.0, -21.0, -93.0]
    dith = pyspiel.load_game(DITH4).rules  # 55 cards, 3 on the table: 26 Zwicks of 1
    assert zwicker_search.zwick_bound(dith) == 26
    micro = pyspiel.load_game(MICRO2).rules
    assert zwicker_search.reward_scale("auto", micro) == 5.0  # a micro deck keeps clip
    # auto: the measured objective of the search family on the board (ISMCTS in classic 2p: margin)
    assert zwicker_search.reward_scale("auto", rules) == -21.0
    assert zwicker_search.reward_scale("auto", rules, "expert") == 21.0
    assert zwicker_search.reward_scale("auto", dith) == 30.0
    with pytest.raises(ValueError, match="valid: auto, clip, margin, bound"):
        zwicker_search.reward_scale("points", rules)


def test_scaled_clips_only_the_clip_objective():
    assert zwicker_search.scaled(42.0, 21.0) == 1.0
    assert zwicker_search.scaled(-42.0, 21.0) == -1.0
    assert zwicker_search.scaled(42.0, -21.0) == 2.0
    assert zwicker_search.scaled(-10.5, -21.0) == -0.5
    x = np.array([-50.0, 7.0, 30.0])
    assert np.allclose(zwicker_search.scaled_array(x, 21.0), [-1.0, 7 / 21, 1.0])
    assert np.allclose(zwicker_search.scaled_array(x, -93.0), x / 93)


@pytest.mark.parametrize("game_string", [CLASSIC2, DITH4, MICRO2])
def test_zwick_bound_holds_on_played_hands(game_string):
    """Random and greedy hands never make more Zwick points than the bound, and every side's
    margin is within the ``bound`` objective's scale."""
    rules = pyspiel.load_game(game_string).rules
    bound = zwicker_search.zwick_bound(rules)
    scale = -zwicker_search.reward_scale("bound", rules)
    ns = rules.num_sides
    for code in (policy_codes.POLICY_RANDOM, policy_codes.POLICY_GREEDY):
        played = kernels.play_hands(rules.array(), np.arange(300, dtype=np.int64), np.full(rules.players, code))
        zwick_points = played.zwicks * rules.zwick_points
        assert zwick_points.max() <= bound
        margins = ns * played.scores - played.scores.sum(axis=1, keepdims=True)
        assert np.abs(margins).max() / (ns - 1) <= scale


def test_utility_option_is_validated():
    game = pyspiel.load_game(CLASSIC2)
    for spec in ("ismcts:utility=points", "expert:utility=x", "cfr-search:utility=win"):
        with pytest.raises(ValueError, match="utility="):
            make_agent(spec, game)
    with pytest.raises(ValueError, match="Zwicker searches"):
        trick = pyspiel.load_game("zwikken(variant=parlett,players=3)")
        agent = make_agent("ismcts:iters=10,utility=margin", trick)
        state = trick.new_initial_state()
        while state.is_chance_node():
            state.apply_action(state.chance_outcomes()[0][0])
        agent.act(state)
    with pytest.raises(ValueError, match="vs="):
        make_agent("br-ismcts:vs=expert", game)


def test_model_opponents_sets_every_other_sides_seats():
    rules = pyspiel.load_game(DITH4).rules  # seats 0+2 against 1+3
    policies = np.zeros(4, np.int64)
    plan = np.full(12, -1, np.int64)
    zwicker_search.model_opponents(rules.array(), 2, policy_codes.POLICY_GREEDY, policies, plan)
    assert policies.tolist() == [0, 1, 0, 1]
    assert plan[:4].tolist() == [-1, 1, -1, 1]


def test_best_response_tree_plays_the_modelled_opponent():
    """In one fixed world, below each of the responder's root moves the tree holds only moves the
    greedy player would make there (its best, ties included), never the others."""
    game = pyspiel.load_game(CLASSIC2)
    state = zwicker_bridge.state_from_seed(game, 5)
    setup = zwicker_search.DecisionSetup(state, np.random.default_rng(0))
    tree = zwicker_search.new_tree(4002)
    params = {"iters": 4000, "time": 0.0, "c": 0.7, "rollout": "random", "vs": "greedy"}
    assert setup.settings(params).opponents == policy_codes.POLICY_GREEDY
    zwicker_search.search(setup.worlds, setup.real.copy(), 4000, setup.settings(params), tree)
    R = setup.rules_array
    lo, hi, key = np.zeros(64, np.int64), np.zeros(64, np.int64), np.zeros(zwicker_search.NKW, np.int64)
    checked = 0
    for row in setup.rows:
        zwicker_search.unit_cards(setup.real, lo, hi)
        zwicker_search.move_key(setup.real, row, lo, hi, 0, key)
        node, _ = zwicker_search.lookup(tree.slots, tree.keys, key)
        if node < 0:
            continue
        after = setup.real.copy()
        kernels.apply_move(R, after, row, setup.workspace)
        if arrays.is_over(after) or arrays.to_move(after) == setup.player:
            continue
        buf, X = kernels.new_buffers()
        buf, X, n = kernels.gen_moves(R, after, buf, setup.workspace, X)
        values = np.array([kernels.greedy_value(R, after, buf[k]) for k in range(n)])
        zwicker_search.unit_cards(after, lo, hi)
        for k in range(n):
            zwicker_search.move_key(after, buf[k], lo, hi, node, key)
            child, _ = zwicker_search.lookup(tree.slots, tree.keys, key)
            if values[k] < values.max() - kernels.TIE:
                assert child < 0, "the tree searched a move the greedy opponent never makes"
            else:
                checked += child >= 0
    assert checked >= 1


@pytest.mark.slow
def test_hybrid_policy_keeps_the_equilibrium_outside_its_stage():
    """``random@stage=1``: random's policy in stage 1, the equilibrium's in stage 2, edge by edge."""
    from zwick_ai.analysis import exploitability as ex
    from zwick_ai.learn.cfr.tree import extract

    game = pyspiel.load_game(
        "zwicker(variant=dithmarschen,players=2,ranks=A23,suits=CD,jokers=none,hand_size=1,table_size=2,stages=2)"
    )
    tree = extract(game)
    eq = ex.equilibrium(tree, 50)
    assert ex.hybrid_spec("ismcts:iters=10@stage=2") == ("ismcts:iters=10", 2)
    assert ex.hybrid_spec("greedy") == ("greedy", 0)
    with pytest.raises(ValueError, match="@stage=K"):
        ex.hybrid_spec("greedy@stage=0")
    policy = ex.agent_policy(game, tree, "random", samples=4, seed=0, stage=1)
    assert policy.skipped  # stage 2's decisions were not asked
    mixed = ex.hybrid(policy, eq)(policy.pol)
    owner_sets = np.repeat(np.arange(tree.num_infosets), tree.iset_n)
    skipped = set(policy.skipped) | {b for b, (first, _) in policy.inner.items() if first in policy.skipped}
    in_stage2 = np.isin(owner_sets, sorted(skipped))
    assert np.allclose(mixed[in_stage2], eq[in_stage2])
    assert np.allclose(mixed[~in_stage2], policy.pol[~in_stage2])
    row = ex.measure(game, tree, "random@stage=2", samples=4, seed=0, replicates=5, eq=eq)
    whole = ex.measure(game, tree, "random", samples=4, seed=0, replicates=5, eq=eq)
    assert 0.0 <= row.nash_conv < whole.nash_conv
