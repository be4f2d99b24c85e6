"""The afterstate network in the expert: ``leaf=after`` (and ``mix``) and ``prior``. The compiled
leaf rewards equal a NumPy forward pass of the weights; the root prior seeds virtual visits of the
network's move values (with an overwhelming prior the search plays the network's move); today's
expert (no new option) keeps its identity; the options play legal whole games."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

import zwick_ai.agents  # noqa: F401  (registers the agents)
import zwick_ai.games  # noqa: F401
from tests.agent_play import greedy_turns, play_whole_game
from zwick_ai.agents import expert_search, make_agent, value_model, zwicker_search
from zwick_ai.agents.expert import _ismcts
from zwick_ai.agents.net import REPLY_TOP, look_ahead
from zwick_ai.zwicker import features as zwicker_features
from zwick_ai.zwicker.features import F_LEAD, F_ZWICK
from zwick_ai.zwicker.layout import R_NSIDES, R_SIDE_OF

GAME = "zwicker(variant=dithmarschen,players=4)"


def _numpy_forward(model: value_model.ValueModel, x: np.ndarray) -> float:
    h = (x - model.mean) / model.scale
    for i, (w, b) in enumerate(model.layers):
        h = h @ w + b
        if i < 2:
            h = np.maximum(h, 0.0)
    return float(h[0])


@pytest.mark.parametrize("seed, turns", [(1, 0), (2, 5), (3, 17)])
def test_after_leaf_rewards_equal_a_numpy_forward_pass(seed, turns):
    game, state = greedy_turns(seed, turns)
    model = value_model.load_model(value_model.shipped_model_path("dithmarschen", 4, value_model.AFTER))
    m = model.arrays()
    R = state.rules.array()
    S = state.array[: zwicker_search.DecisionSetup(state, np.random.default_rng(0)).real.shape[0]].copy()
    total = float(state.rules.card_total)
    ns = int(R[R_NSIDES])
    for q in range(4):
        x = np.zeros(m[0].shape[0])
        got = expert_search.after_rewards(R, S, q, m, x.copy(), total)
        zwicker_features.after_input(R, S, S, q, x)
        v = x[F_LEAD] + x[F_ZWICK] + _numpy_forward(model, x)
        side = int(R[R_SIDE_OF + q])
        want = [np.clip((v if k == side else -v / (ns - 1)) / total, -1, 1) for k in range(ns)]
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)
        assert abs(got.sum()) < 1e-9 or np.any(np.abs(got) == 1.0)  # zero-sum unless clipped


@pytest.mark.parametrize("seed, turns", [(1, 0), (2, 9)])
def test_after_side_rewards_read_every_side_and_are_zero_sum(seed, turns):
    _, state = greedy_turns(seed, turns)
    model = value_model.load_model(value_model.shipped_model_path("dithmarschen", 4, value_model.AFTER))
    m = model.arrays()
    R = state.rules.array()
    S = state.array[: zwicker_search.DecisionSetup(state, np.random.default_rng(0)).real.shape[0]].copy()
    total = float(state.rules.card_total)
    got = expert_search.after_side_rewards(R, S, m, np.zeros(m[0].shape[0]), total)
    v = []
    for side in range(int(R[R_NSIDES])):
        q = next(q for q in range(4) if R[R_SIDE_OF + q] == side)
        x = np.zeros(m[0].shape[0])
        zwicker_features.after_input(R, S, S, q, x)
        v.append(x[F_LEAD] + x[F_ZWICK] + _numpy_forward(model, x))
    want = np.clip((np.array(v) - np.mean(v)) / total, -1, 1)
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


def test_root_prior_seeds_virtual_visits_of_the_networks_values():
    game, state = greedy_turns(4, 2)
    agent = make_agent("expert:time=0,iters=200,endgame=0,prior=1000000,c=0.7", game, seed=1)
    d = zwicker_search.DecisionSetup(state, np.random.default_rng(0))
    values = value_model.after_values(d.rules_array, d.real, d.rows, len(d.rows), agent.prior, d.workspace)
    assert np.isfinite(values).sum() > 2
    params = {**agent.params, "leaf": agent.leaf}
    visits, mean = _ismcts(d, params, 0.0, {}, agent.value, np.zeros(len(d.rows), bool), agent.opp, agent.prior)
    finite = np.isfinite(values)
    assert np.all(visits[finite] >= 1_000_000)  # every scored root move starts with the virtual visits
    best = int(np.argmax(np.where(finite, values, -np.inf)))
    assert int(np.argmax(visits)) == best  # an overwhelming prior: every iteration goes to its best move
    assert visits.sum() - 1_000_000 * finite.sum() == 200
    want = make_agent("net:model=after", game, seed=1)
    assert agent.act(state) == want.act(state)  # and the expert plays the network's move


def test_prior_zero_and_leaf_after_change_the_search_only_where_asked():
    game, state = greedy_turns(5, 3)
    plain = make_agent("expert:time=0,iters=300,endgame=0", game, seed=4)
    explicit = make_agent("expert:time=0,iters=300,endgame=0,prior=0,mix=1", game, seed=4)
    assert plain.act(state) == explicit.act(state) and plain.last == {**explicit.last, **plain.last}
    assert plain.identity() == explicit.identity()
    assert plain.identity()["params"]["prior"] == 0 and "mix" not in plain.identity()["params"]
    after = make_agent("expert:time=0,iters=300,endgame=0,leaf=after,prior=5", game, seed=4)
    ident = after.identity()
    assert ident["leaf_resolved"] == "after" and ident["params"]["prior"] == 5 and ident["params"]["mix"] == 1.0
    assert set(ident["models"]) == {"value", "prior"} and ident["models"]["value"] == ident["models"]["prior"]
    for bad in ("expert:leaf=after,mix=1.5", "expert:prior=-1", "expert:leaf=rollout,model=x.npz"):
        with pytest.raises(ValueError):
            make_agent(bad, game)


@pytest.mark.parametrize(
    "spec", ["expert:time=0,iters=60,leaf=after,mix=0.5,prior=5", "expert:time=0,iters=60,leaf=stage-after"]
)
def test_net_options_play_legal_whole_games(spec):
    game = pyspiel.load_game(GAME)
    state, _ = play_whole_game(game, [spec, "greedy"], 9)
    assert len(state.returns()) == 4


@pytest.mark.slow
def test_prior_reply_seeds_the_networks_values_one_answer_ahead():
    """``reply=K`` replaces the prior of the network's best few moves by their look-ahead values
    (``net``'s ``reply_values`` on the same worlds); with an overwhelming prior the search plays the
    best of those."""
    game, state = greedy_turns(8, 6)  # a position where the look-ahead changes the best move
    agent = make_agent("expert:time=0,iters=100,endgame=0,prior=1000000,reply=8", game, seed=1)
    assert agent.identity()["params"]["reply"] == 8
    d = zwicker_search.DecisionSetup(state, np.random.default_rng(3))
    first = value_model.after_values(d.rules_array, d.real, d.rows, len(d.rows), agent.prior, d.workspace)
    ahead = look_ahead(d, d.rows, first, 8, agent.prior)
    assert np.isfinite(ahead).sum() == min(REPLY_TOP, np.isfinite(first).sum()) and not np.allclose(
        ahead[np.isfinite(ahead)], first[np.isfinite(ahead)]
    )
    want = np.where(np.isfinite(ahead), ahead, first)
    assert np.argmax(np.where(np.isfinite(first), first, -np.inf)) != np.argmax(
        np.where(np.isfinite(want), want, -np.inf)
    )
    d = zwicker_search.DecisionSetup(state, np.random.default_rng(3))  # the same worlds again
    params = {**agent.params, "leaf": agent.leaf}
    visits, _ = _ismcts(d, params, 0.0, {}, agent.value, np.zeros(len(d.rows), bool), agent.opp, agent.prior)
    assert int(np.argmax(visits)) == int(np.argmax(np.where(np.isfinite(want), want, -np.inf)))
    for bad in ("expert:reply=4", "expert:prior=5,reply=-1"):
        with pytest.raises(ValueError, match="reply="):
            make_agent(bad, game)
    with pytest.raises(ValueError, match="two sides"):
        make_agent("expert:prior=5,reply=4", pyspiel.load_game("zwicker(variant=christiansen)"))
    assert make_agent("expert:prior=5", game).identity()["params"]["reply"] == 0
