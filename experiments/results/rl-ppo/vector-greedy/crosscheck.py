"""The trained policy (``policy.npz``, numpy only) against the registry's ``greedy`` agent through
``zwick_ai.eval.match.play_game`` (OpenSpiel states, one game at a time), both seatings of every
deal, next to ``zwick train ppo``'s own measure on the same deals (compiled greedy in ``VectorGame``).

    python experiments/results/rl-ppo/vector-greedy/crosscheck.py RUN/policy.npz RUN/checkpoint.pt 300
"""

from __future__ import annotations

import sys

import numpy as np
import pyspiel
import torch

import zwick_ai.games  # noqa: F401  (registers the games)
from zwick_ai.agents import PolicyAgent
from zwick_ai.agents.base import make_agent
from zwick_ai.eval.match import play_game
from zwick_ai.learn import ppo, vector_rollout
from zwick_ai.mlp import PolicyNet
from zwick_ai.stats import mean_ci

policy_path, checkpoint, deals = sys.argv[1], sys.argv[2], int(sys.argv[3])
policy = PolicyNet(policy_path)
game = pyspiel.load_game(policy.meta["game"])
sides = int(game.rules.num_sides)
learner, greedy = PolicyAgent(game, policy.logits), make_agent("greedy", game)
diff = np.zeros(deals)
for d in range(deals):
    for seat in range(2):
        agents = [learner, greedy] if seat == 0 else [greedy, learner]
        r = play_game(game, agents, ppo.EVAL_SEED + d, labels=False).returns
        diff[d] += (r[seat] - r[1 - seat]) / sides / 2
est = mean_ci(diff)
print(f"play_game, registry greedy: {est.mean:+.2f} [{est.ci95[0]:+.2f}, {est.ci95[1]:+.2f}] over {deals} deals")
model = vector_rollout.policy_network(game.observation_tensor_size(), game.num_distinct_actions(), (128, 128))
model.load_state_dict(torch.load(checkpoint, weights_only=True)["model"])
mean, low, high = ppo.strength(model, str(game), deals)
print(f"zwick train ppo's measure (VectorGame, compiled greedy): {mean:+.2f} [{low:+.2f}, {high:+.2f}]")
