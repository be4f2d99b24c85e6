"""Train sb3-contrib's MaskablePPO on one seat of a zwick_ai game against registry agents.

Both seats of a two-player game are learned at once (one environment per seat, one shared
policy), so the policy can sit at either seat of a duplicate tournament. The policy sees
``policy_features`` of the information-state tensor (the ``ppo`` agent applies the same) and the
reward is the seat's return divided by the game's largest return. Every random choice is seeded.

    python experiments/rl/train_ppo.py --out experiments/rl/ppo-dithmarschen-2p-small.zip
    python experiments/rl/train_ppo.py --vector 16 --out experiments/rl/ppo-vector.zip   # batched games

then, with the policy as an agent: ``zwick tournament --agents "ppo:policy=PATH;greedy;random"``
(the README of this folder has the exact commands and the results).

The learning curve goes to ``OUT.curve.csv`` (timesteps, episodes, the mean return in game units
of the episodes since the previous row, wall seconds of training) every ``--log-every`` steps,
with a checkpoint ``OUT.partial.zip``; a rerun with the same ``--out`` resumes from it (the deals
continue from fresh seeds). At the end: the policy ``OUT``, ``OUT.json`` and the plot ``OUT.curve.png``.
"""

from __future__ import annotations

import argparse
import csv
import json
import time
from functools import partial
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pyspiel
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv

from zwick_ai.agents.maskable_ppo import policy_features
from zwick_ai.envs import single_agent_env
from zwick_ai.envs.vector import SeatVectorEnv, stable_baselines_vec_env
from zwick_ai.plots import save_png

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


class CurveLog(BaseCallback):
    """Every ``every`` steps: one row of the learning curve (episodes finished since the previous
    row, their mean return in game units) appended to ``path``, and a checkpoint of the model."""

    def __init__(self, path: Path, checkpoint: Path, every: int, scale: float, seconds: float, cpu: float):
        super().__init__()
        self.path, self.checkpoint, self.every, self.scale = path, checkpoint, every, scale
        self.returns: list[float] = []
        self.episodes = 0
        self.seconds0, self.cpu0 = seconds, cpu
        self.start, self.cpu_start = time.perf_counter(), time.process_time()
        self.next_row = 0

    def _on_training_start(self) -> None:
        self.next_row = (self.num_timesteps // self.every + 1) * self.every
        if self.path.exists():
            rows = list(csv.DictReader(self.path.open()))
            self.episodes = int(rows[-1]["episodes"]) if rows else 0

    def _on_step(self) -> bool:
        for info in self.locals["infos"]:
            if "episode" in info:
                self.returns.append(float(info["episode"]["r"]) * self.scale)
        if self.num_timesteps >= self.next_row:
            self.next_row += self.every
            self.episodes += len(self.returns)
            seconds = self.seconds0 + time.perf_counter() - self.start
            cpu = self.cpu0 + time.process_time() - self.cpu_start
            new = not self.path.exists()
            with self.path.open("a", newline="") as f:
                w = csv.writer(f)
                if new:
                    w.writerow(["timesteps", "episodes", "mean_return", "seconds", "cpu_seconds"])
                mean = float(np.mean(self.returns)) if self.returns else float("nan")
                w.writerow([self.num_timesteps, self.episodes, round(mean, 3), round(seconds, 1), round(cpu, 1)])
            self.returns = []
            self.model.save(self.checkpoint)
        return True


def plot_curve(path: Path, out: Path, title: str) -> None:
    """The learning curve of ``path`` (CSV) as a PNG: mean return per row and its running mean."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = list(csv.DictReader(path.open()))
    x = np.array([int(r["timesteps"]) for r in rows])
    y = np.array([float(r["mean_return"]) for r in rows])
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(x, y, ".", alpha=0.5, label="mean return of the episodes in each block")
    k = max(1, len(y) // 10)
    if len(y) >= k:
        ax.plot(x[k - 1 :], np.convolve(y, np.ones(k) / k, mode="valid"), "-", label=f"running mean of {k} blocks")
    ax.set_xlabel("environment steps")
    ax.set_ylabel("return per deal (points)")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    save_png(fig, out, dpi=100)
    plt.close(fig)


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
        help="train on compiled batched games, this many per seat (VectorGame; opponent: random or greedy)",
    )
    ap.add_argument("--log-every", type=int, default=10_000, help="steps per curve row and checkpoint (default: 10000)")
    ap.add_argument("--out", required=True, help="the policy file to write (.zip)")
    args = ap.parse_args()
    out = Path(args.out)
    if out.exists():
        raise SystemExit(f"{out} exists: choose another --out (finished work is never overwritten)")
    out.parent.mkdir(parents=True, exist_ok=True)
    curve = out.with_suffix(".curve.csv")
    checkpoint = out.with_suffix(".partial.zip")
    done, seconds, cpu = 0, 0.0, 0.0
    if curve.exists() and not checkpoint.exists():
        raise SystemExit(f"{curve} exists without a checkpoint: choose another --out")
    if checkpoint.exists() and curve.exists():
        rows = list(csv.DictReader(curve.open()))
        if rows:
            done, seconds, cpu = int(rows[-1]["timesteps"]), float(rows[-1]["seconds"]), float(rows[-1]["cpu_seconds"])
            print(f"resuming from {checkpoint} at {done:,} steps")
    torch.set_num_threads(1)  # the machine is shared; a small MLP gains nothing from more
    n = single_agent_env(args.game).game.num_players()
    scale = reward_scale(pyspiel.load_game(args.game))
    envs: Any
    if args.vector:
        if args.opponent not in ("random", "greedy"):
            raise SystemExit("--vector plays the other seats in compiled code: --opponent random or greedy")
        seats = [
            SeatVectorEnv(
                args.game,
                args.vector,
                seat=s,
                opponent=args.opponent,
                seed=args.seed + 1_000_000 * s + 10 * done,
                information_state=True,
            )
            for s in range(n)
        ]
        envs = stable_baselines_vec_env(seats, scale, policy_features)
        episode_scale = 1.0  # the adapter reports returns in game units
        n_steps = max(8, 2048 // envs.num_envs)  # the same 2048 steps per update as the plain path
    else:
        envs = DummyVecEnv([partial(make_env, args.game, s, [args.opponent] * (n - 1)) for s in range(n)])
        envs.seed(args.seed + done)
        episode_scale = scale  # the monitors see the scaled reward
        n_steps = 1024
    if done:
        model = MaskablePPO.load(checkpoint, env=envs)
    else:
        model = MaskablePPO(
            "MlpPolicy",
            envs,
            n_steps=n_steps,
            batch_size=256,
            n_epochs=4,
            gamma=1.0,
            ent_coef=0.01,
            seed=args.seed,
            verbose=0,
        )
    log = CurveLog(curve, checkpoint, args.log_every, episode_scale, seconds, cpu)
    if args.timesteps > done:
        model.learn(total_timesteps=args.timesteps - done, callback=log, reset_num_timesteps=not done)
    seconds = log.seconds0 + time.perf_counter() - log.start
    cpu = log.cpu0 + time.process_time() - log.cpu_start
    out.parent.mkdir(parents=True, exist_ok=True)
    model.save(out)
    rows = list(csv.DictReader(curve.open()))
    summary = {
        "game": args.game,
        "opponent": args.opponent,
        "timesteps": args.timesteps,
        "seed": args.seed,
        "vector_games_per_seat": args.vector,
        "seconds": round(seconds, 1),
        "cpu_seconds": round(cpu, 1),
        "episodes": int(rows[-1]["episodes"]) if rows else 0,
        "curve": str(curve.name),
    }
    out.with_suffix(".json").write_text(json.dumps(summary, indent=2) + "\n")
    how = f"VectorGame, {args.vector} games per seat" if args.vector else "one environment per seat"
    plot_curve(curve, out.with_suffix(".curve.png"), f"MaskablePPO vs {args.opponent} ({how})")
    checkpoint.unlink(missing_ok=True)
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
