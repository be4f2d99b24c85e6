"""Policies both ways between zwick_ai and OpenSpiel: a trained MCCFR policy file measured by
OpenSpiel's own ``exploitability.nash_conv`` equals ``zwick exploitability``'s number, an OpenSpiel
policy written as our file plays our agents and comes back unchanged."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from open_spiel.python import policy as os_policy
from open_spiel.python.algorithms import cfr as os_cfr
from open_spiel.python.algorithms import exploitability as os_exploitability

import zwick_ai.agents  # noqa: F401
import zwick_ai.games  # noqa: F401
from zwick_ai.agents.base import make_agent
from zwick_ai.agents.openspiel_policy import to_tabular_policy, write_policy_file
from zwick_ai.analysis.exploitability import StudyConfig, run_study, uniform_decisions_policy
from zwick_ai.learn.cfr.exact import nash_conv
from zwick_ai.learn.cfr.train import TrainOptions, train
from zwick_ai.learn.cfr.tree import extract

MICRO = "zwicker(variant=dithmarschen,players=2,ranks=A23,suits=CD,jokers=none,hand_size=1,table_size=2,stages=1)"
TINY_ZWIKKEN = "zwikken(variant=parlett,players=3,tricks=1,ranks=AK,suits=CD,max_bid_levels=1)"


@pytest.fixture(scope="module")
def micro():
    return pyspiel.load_game(MICRO)


@pytest.mark.parametrize("abstraction", ["none", pytest.param("observation", marks=pytest.mark.slow)])
def test_a_trained_mccfr_policy_has_the_same_nash_conv_in_openspiel_and_in_zwick_exploitability(
    micro, tmp_path, abstraction
):
    """`zwick train mccfr` then `zwick exploitability` (the same functions) against OpenSpiel's own
    nash_conv of the converted TabularPolicy; a far-from-equilibrium policy, so a wrong
    conversion of a Zwicker move's sub-actions (or of unseen sets) would show."""
    train(MICRO, "mccfr", 2000, TrainOptions(seed=3, out=tmp_path / "run", abstraction=abstraction))
    spec = f"mccfr:policy={tmp_path / 'run'}"
    cfg = StudyConfig(MICRO, (spec,), samples=1, seed=0, replicates=0, cfr_iterations=20)
    rows = {r.agent: r for r in run_study(cfg, tmp_path / "study", say=lambda text: None)}
    ours = rows[spec].nash_conv
    theirs = os_exploitability.nash_conv(micro, to_tabular_policy(micro, tmp_path / "run"))
    assert ours == pytest.approx(theirs, abs=1e-9)
    assert ours > 0.01  # a short run: far from equilibrium, so the equality tests the conversion
    uniform = os_exploitability.nash_conv(micro, to_tabular_policy(micro, "random"))
    tree = extract(micro)
    assert uniform == pytest.approx(nash_conv(tree, uniform_decisions_policy(micro, tree).pol), abs=1e-9)
    assert uniform != pytest.approx(os_exploitability.nash_conv(micro, os_policy.UniformRandomPolicy(micro)), abs=1e-3)


def test_an_openspiel_policy_becomes_our_file_plays_and_comes_back(micro, tmp_path):
    """OpenSpiel's CFR policy written as our policy file: the ``cfr`` agent plays it in a match,
    and converted back it is the same TabularPolicy (float32 storage)."""
    from zwick_ai.eval.match import play_game

    solver = os_cfr.CFRPlusSolver(micro)
    for _ in range(5):
        solver.evaluate_and_update_policy()
    theirs = solver.average_policy()
    stem = write_policy_file(micro, theirs, tmp_path / "os-cfr", iterations=5)
    back = to_tabular_policy(micro, f"cfr:policy={stem}")
    for key, i in theirs.state_lookup.items():
        assert np.allclose(
            back.action_probability_array[back.state_lookup[key]], theirs.action_probability_array[i], atol=1e-6
        )
    assert os_exploitability.nash_conv(micro, back) == pytest.approx(
        os_exploitability.nash_conv(micro, theirs), abs=1e-5
    )
    agent = make_agent(f"cfr:policy={stem}", micro, seed=0)
    for deal in range(4):
        record = play_game(micro, [agent, make_agent("random", micro)], deal)
        assert sum(record.returns) == pytest.approx(0.0)
    assert agent.stats["decisions"] > 0 and agent.stats["fallbacks"] == 0
    assert agent.policy.meta["method"] == "openspiel" and agent.policy.meta["iterations"] == 5


def test_trick_game_policies_convert_both_ways(tmp_path):
    """A Zwikken policy (tricks_history keys) round-trips through OpenSpiel's TabularPolicy."""
    game = pyspiel.load_game(TINY_ZWIKKEN)
    stem = write_policy_file(game, os_policy.UniformRandomPolicy(game), tmp_path / "uniform")
    back = to_tabular_policy(game, stem)
    assert os_exploitability.nash_conv(game, back) == pytest.approx(
        os_exploitability.nash_conv(game, os_policy.UniformRandomPolicy(game)), abs=1e-6
    )


def test_bad_policies_are_one_line_errors(micro, tmp_path):
    with pytest.raises(ValueError, match="no probability"):
        write_policy_file(micro, lambda state: {}, tmp_path / "empty")
    with pytest.raises(ValueError, match="OpenSpiel policy or a callable"):
        write_policy_file(micro, 3, tmp_path / "three")
    with pytest.raises(ValueError, match="no exact decision probabilities"):
        to_tabular_policy(micro, "ismcts:iters=5")


def test_python_evaluate_bots_takes_policy_bots_of_our_policies_and_our_agents(micro):
    """OpenSpiel's Python evaluate_bots calls restart_at and inform_action on every bot: a PolicyBot
    over a converted policy and our agents as bots (openspiel-ismcts included) define both."""
    from open_spiel.python.algorithms import evaluate_bots
    from open_spiel.python.bots.policy import PolicyBot

    from zwick_ai.agents import as_bot

    tab = to_tabular_policy(micro, "random")
    bots = [PolicyBot(0, np.random.RandomState(1), tab), as_bot(make_agent("openspiel-ismcts:sims=10", micro, 2))]
    returns = evaluate_bots.evaluate_bots(micro.new_initial_state(), bots, np.random.RandomState(3))
    assert len(returns) == 2 and sum(returns) == pytest.approx(0.0)
