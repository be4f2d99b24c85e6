"""OpenSpiel's own algorithms on the ``zwicker`` game (demonstrations, each in a subprocess because
C++ algorithms drive the Python game): ISMCTS with our resampler plays whole hands,
``evaluate_bots`` runs, CFR / CFR+ / external-sampling MCCFR reduce ``nash_conv`` on a micro game.

Numbers recorded on the 2-core development machine (C++ solvers on the Python game):

* ``MICRO`` (4,695 states; slow test): nash_conv of the uniform policy 3.2056; CFR 50 iterations
  0.0641 (29 s); CFR+ 50 iterations 0.0025 (29 s); external-sampling MCCFR 2,000 iterations
  0.2827 (seed 1, 4.6 s).
* ``TINY`` (483 states; default test): uniform 2.9167; CFR 20 iterations 0.1458; CFR+ 20
  iterations 0.0139; external-sampling MCCFR 500 iterations 0.1247.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

MICRO = "zwicker(variant=dithmarschen,players=2,ranks=A23,suits=CD,jokers=none,hand_size=1,table_size=2,stages=1)"
TINY = "zwicker(variant=dithmarschen,players=2,ranks=A2,suits=CD,jokers=none,hand_size=1,table_size=1,stages=1)"


def run(script: str, timeout: int = 600) -> dict:
    """Run ``script`` in a fresh interpreter; it prints one JSON object on its last line."""
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)], capture_output=True, text=True, timeout=timeout
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_ismcts_with_our_resampler_plays_whole_hands_and_evaluate_bots_runs():
    out = run(
        f"""
        import json, numpy as np, pyspiel, zwick_ai.games
        from open_spiel.python.algorithms import ismcts, mcts
        res = {{}}
        for spec, sims in [({MICRO!r}, 30), ("zwicker(variant=dithmarschen,players=4)", 8)]:
            game = pyspiel.load_game(spec)
            rng = np.random.RandomState(0)
            evaluator = mcts.RandomRolloutEvaluator(1, rng)
            bots = [ismcts.ISMCTSBot(game, evaluator, 2.0, sims, random_state=np.random.RandomState(p))
                    for p in range(0, game.num_players(), 2)]
            players = []
            for p in range(game.num_players()):
                players.append(bots[p // 2] if p % 2 == 0 else pyspiel.make_uniform_random_bot(p, 7 + p))
            returns = [pyspiel.evaluate_bots(game.new_initial_state(), players, seed) for seed in range(2)]
            res[spec] = returns
            assert all(abs(sum(r)) < 1e-9 for r in returns)
            assert game.tables.stats["resamples"] > 0
        print(json.dumps(res))
        """
    )
    assert len(out) == 2


def test_cfr_cfr_plus_and_es_mccfr_reduce_nash_conv():
    out = run(
        f"""
        import json, pyspiel, zwick_ai.games
        game = pyspiel.load_game({TINY!r})
        res = {{"uniform": pyspiel.nash_conv(game, pyspiel.UniformRandomPolicy(game))}}
        for name, solver in [("cfr", pyspiel.CFRSolver(game)), ("cfr+", pyspiel.CFRPlusSolver(game))]:
            for _ in range(20):
                solver.evaluate_and_update_policy()
            res[name] = pyspiel.nash_conv(game, solver.average_policy())
        es = pyspiel.ExternalSamplingMCCFRSolver(game, seed=1)
        for _ in range(500):
            es.run_iteration()
        res["es_mccfr"] = pyspiel.nash_conv(game, es.average_policy(), True)
        print(json.dumps(res))
        """
    )
    print("nash_conv on", TINY, out)
    assert out["uniform"] > 0.1
    for name in ("cfr", "cfr+", "es_mccfr"):
        assert out[name] < 0.5 * out["uniform"], out


@pytest.mark.slow
def test_cfr_on_the_micro_game_numbers():
    out = run(
        f"""
        import json, time, pyspiel, zwick_ai.games
        game = pyspiel.load_game({MICRO!r})
        res = {{"uniform": pyspiel.nash_conv(game, pyspiel.UniformRandomPolicy(game))}}
        for name, solver in [("cfr", pyspiel.CFRSolver(game)), ("cfr+", pyspiel.CFRPlusSolver(game))]:
            t = time.time()
            for _ in range(50):
                solver.evaluate_and_update_policy()
            res[name] = (pyspiel.nash_conv(game, solver.average_policy()), time.time() - t)
        es = pyspiel.ExternalSamplingMCCFRSolver(game, seed=1)
        t = time.time()
        for _ in range(2000):
            es.run_iteration()
        res["es_mccfr"] = (pyspiel.nash_conv(game, es.average_policy(), True), time.time() - t)
        print(json.dumps(res))
        """,
        timeout=1800,
    )
    print("nash_conv on", MICRO, out)
    assert out["cfr"][0] < 0.1 * out["uniform"] and out["cfr+"][0] < 0.1 * out["uniform"]
    assert out["es_mccfr"][0] < 0.5 * out["uniform"]
