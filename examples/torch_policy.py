"""A PyTorch policy trained on VectorGame, then played in a tournament as an agent.

    cd examples
    python torch_policy.py --seconds 20          # trains, saves torch_policy.npz
    zwick tournament --agents "torch_policy:TorchPolicy;random" --deals 20

The policy sees what VectorGame gives a seat (the observation tensor) and answers logits over the
game's actions; REINFORCE against three random seats trains it. ``TorchPolicy`` is the whole adapter: PolicyAgent plays
Zwicker's whole moves sub-action by sub-action from the same observations.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from zwick_ai.agents import Param, PolicyAgent
from zwick_ai.vector import VectorGame

GAME = "zwicker(variant=dithmarschen,players=4)"
WEIGHTS = "torch_policy.npz"


def make_net(inputs: int, actions: int, hidden: int = 64) -> torch.nn.Module:
    return torch.nn.Sequential(torch.nn.Linear(inputs, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, actions))


def save(net: torch.nn.Module, path: str) -> None:
    """The weights as plain arrays (no pickle): ``np.load`` reads them back safely."""
    np.savez(path, **{k: v.detach().numpy() for k, v in net.state_dict().items()})


def load(path: str) -> torch.nn.Module:
    with np.load(path, allow_pickle=False) as f:
        state = {k: torch.from_numpy(f[k]) for k in f.files}
    net = make_net(state["0.weight"].shape[1], state["2.weight"].shape[0], state["0.weight"].shape[0])
    net.load_state_dict(state)
    return net.eval()


def train(seconds: float, seed: int = 0, games: int = 64) -> torch.nn.Module:
    """REINFORCE for seat 0 against three random seats, for ``seconds`` of wall time."""
    torch.set_num_threads(1)  # a small model: one thread is several times faster than many
    torch.manual_seed(seed)
    vector = VectorGame(GAME, num_games=games, seed=seed, opponents={1: "random", 2: "random", 3: "random"})
    net = make_net(vector.observation_size, vector.num_actions)
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    ts = vector.reset()
    steps: list[list[tuple[np.ndarray, np.ndarray, int]]] = [[] for _ in range(games)]
    batch: list[tuple[np.ndarray, np.ndarray, int, float]] = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        obs, mask = ts.observation.copy(), ts.legal_mask.copy()
        with torch.no_grad():
            logits = net(torch.from_numpy(obs)).masked_fill(~torch.from_numpy(mask), -1e9)
        actions = torch.distributions.Categorical(logits=logits).sample().numpy()
        for i in range(games):
            steps[i].append((obs[i], mask[i], int(actions[i])))
        ts = vector.step(actions)
        for i in np.flatnonzero(ts.terminated):
            batch += [(o, m, a, float(ts.rewards[i, 0])) for o, m, a in steps[i]]
            steps[i] = []
        if len(batch) >= 4096:
            o, m, a, r = (np.array(x) for x in zip(*batch, strict=True))
            advantage = torch.from_numpy((r - r.mean()) / (r.std() + 1e-6)).float()
            logits = net(torch.from_numpy(o)).masked_fill(~torch.from_numpy(m), -1e9)
            logp = torch.log_softmax(logits, dim=1)[torch.arange(len(a)), torch.from_numpy(a)]
            loss = -(logp * advantage).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            batch = []
    return net.eval()


class TorchPolicy(PolicyAgent):
    """The trained torch policy (weights=PATH, an .npz written by this example)."""

    GAMES = ("zwicker",)
    PARAMS = (
        Param("weights", str, WEIGHTS, "the .npz of the trained policy"),
        Param("sample", bool, False, "draw from the policy instead of taking its best action"),
    )

    def __init__(self, game, seed=0, **params):
        torch.set_num_threads(1)
        net = load(params["weights"])

        def policy_fn(obs, mask):  # the two-line torch wrapper
            return net(torch.from_numpy(obs)).detach().numpy()

        super().__init__(game, policy_fn, seed, sample=params["sample"], params=params)

    def files(self):
        return [self.params["weights"]]  # its digest is part of the agent's identity


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="training time (default: %(default)s)")
    parser.add_argument("--out", default=WEIGHTS, help="weights file (default: %(default)s)")
    args = parser.parse_args()
    save(train(args.seconds), args.out)
    print(f"wrote {args.out}")
