"""Train sb3-contrib's MaskablePPO on one seat of a zwick_ai game against registry agents.

Both seats of a two-player game are learned at once (one environment per seat, one shared
policy), so the policy can sit at either seat of a duplicate tournament. The policy sees
``policy_features`` of the information-state tensor (the ``ppo`` agent applies the same) and the
reward is the seat's return divided by the game's largest return. Every random choice is seeded.

    python experiments/rl/train_ppo.py --out experiments/rl/ppo-dithmarschen-2p-small.zip

then, with the policy as an agent: ``zwick tournament --agents "ppo:policy=PATH;greedy;random"``
(the README of this folder has the exact commands and the results).
"""

from __future__ import annotations

import argparse
import json
import time
from functools import partial
from pathlib import Path
from typing import Any, cast

import gymnasium as gym
import numpy as np
import pyspiel
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv

from zwick_ai.agents.maskable_ppo import policy_features
from zwick_ai.envs import single_agent_env
from zwick_ai.envs.vector import SeatVectorEnv, stable_baselines_vec_env

GAME = "zwicker(variant=dithmarschen,players=2,ranks=9TJQKA)"


def reward_scale(game: pyspiel.Game) -> float:
    """The largest return of the game: rewards are divided by it."""
    return float(max(abs(game.max_utility()), abs(game.min_utility())))


def make_env(game: str, seat: int, opponents: list[str]) -> Monitor:
    """The training environment of one seat: policy features, scaled reward, episode monitor."""
    seat_env = single_agent_env(game, seat=seat, opponents=opponents)
    scale = reward_scale(seat_env.game)
    box = seat_env.observation_space
    assert isinstance(box, gym.spaces.Box)
    features = gym.spaces.Box(0.0, float(np.log1p(box.high.max())), shape=box.shape, dtype=np.float32)
    observed = gym.wrappers.TransformObservation(seat_env, policy_features, features)
    rewarded = gym.wrappers.TransformReward(observed, lambda r: float(r) / scale)
    return Monitor(rewarded)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", default=GAME, help=f"OpenSpiel game string (default: {GAME})")
    ap.add_argument("--opponent", default="random", help="agent spec of the other seats (default: random)")
    ap.add_argument("--timesteps", type=int, default=300_000, help="environment steps in total (default: 300000)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the deals, the network and PPO (default: 0)")
    ap.add_argument(
        "--vector",
        type=int,
        default=0,
        help="train on compiled batched games, this many per seat (VectorGame; opponent: random only)",
    )
    ap.add_argument("--out", required=True, help="the policy file to write (.zip)")
    args = ap.parse_args()
    out = Path(args.out)
    if out.exists():
        raise SystemExit(f"{out} exists: choose another --out (finished work is never overwritten)")
    torch.set_num_threads(1)  # the machine is shared; a small MLP gains nothing from more
    n = single_agent_env(args.game).game.num_players()
    envs: Any
    if args.vector:
        if args.opponent != "random":
            raise SystemExit("--vector plays the other seats in compiled code: --opponent random only")
        seats = [
            SeatVectorEnv(args.game, args.vector, seat=s, seed=args.seed + 1_000_000 * s, information_state=True)
            for s in range(n)
        ]
        envs = stable_baselines_vec_env(seats, reward_scale(pyspiel.load_game(args.game)), policy_features)
    else:
        envs = DummyVecEnv([partial(make_env, args.game, s, [args.opponent] * (n - 1)) for s in range(n)])
        envs.seed(args.seed)
    model = MaskablePPO(
        "MlpPolicy", envs, n_steps=1024, batch_size=256, n_epochs=4, gamma=1.0, ent_coef=0.01, seed=args.seed, verbose=0
    )
    t0 = time.perf_counter()
    model.learn(total_timesteps=args.timesteps)
    seconds = time.perf_counter() - t0
    out.parent.mkdir(parents=True, exist_ok=True)
    model.save(out)
    # the learning curve: mean return (game units) per block of episodes, from the monitors
    scale = reward_scale(pyspiel.load_game(args.game))
    if args.vector:
        returns = np.array(envs.episode_returns)  # in game units already
    else:
        returns = np.array([r for e in envs.envs for r in cast(Monitor, e).get_episode_rewards()]) * scale
    blocks = np.array_split(returns, 10)
    curve = [round(float(b.mean()), 2) for b in blocks if len(b)]
    log = {
        "game": args.game,
        "opponent": args.opponent,
        "timesteps": args.timesteps,
        "seed": args.seed,
        "vector_games_per_seat": args.vector,
        "seconds": round(seconds, 1),
        "episodes": int(len(returns)),
        "mean_return_per_tenth_of_training": curve,
    }
    out.with_suffix(".json").write_text(json.dumps(log, indent=2) + "\n")
    print(json.dumps(log, indent=2))


if __name__ == "__main__":
    main()
