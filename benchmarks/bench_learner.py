"""Steps per second of a PyTorch learner's loop on ``VectorGame`` against ``VectorGame`` alone, in
one run (the rows take turns, each row's median of ``--rounds``; ratios to the env-alone row).

Rows:

* ``env alone``: ``VectorGame`` with uniformly random legal actions (the rollout's compiled sampler
  over zero logits), the observation read by nobody;
* ``rollout``: :class:`zwick_ai.learn.vector_rollout.VectorRollout` with a 128x128 MLP: the copy of
  observations and masks into the rollout buffers, one forward pass, masked sampling, one env call
  per ``VectorGame`` per step (inference mode, float32), at each torch thread count of ``--torch-threads``;
* ``env overlapped``: the same with the two ``VectorGame`` blocks (the learner's two seats) taking
  turns, one block's env step on a second thread while the network reads the other block;
* ``rollout + PPO``: the same plus :func:`zwick_ai.learn.ppo.update` of every collected rollout
  (GAE and the clipped-objective minibatch epochs): the learner's whole loop.

A step is one decision of a learner's seat (the greedy seat's moves, played in compiled code
inside the env call, are not counted). The env steps on ``--env-threads`` numba threads. Run::

    OMP_WAIT_POLICY=passive python benchmarks/bench_learner.py --games 1024 --rounds 3
"""

from __future__ import annotations

import argparse
import datetime
import os
import statistics
import time
from collections.abc import Callable

import numba
import numpy as np

from zwick_ai.learn import ppo, vector_rollout
from zwick_ai.machine import describe
from zwick_ai.vector import VectorGame

GAME = "zwicker(variant=dithmarschen,players=2,ranks=9TJQKA)"


def games_of(game: str, n: int, opponent: str, threads: int) -> list[VectorGame]:
    """The learner at both seats against ``opponent`` (half the games each), or self-play."""
    if opponent == "self":
        return [VectorGame(game, n, seed=0, threads=threads)]
    return [
        VectorGame(game, n // 2, seed=0, opponents={1: opponent}, threads=threads),
        VectorGame(game, n - n // 2, seed=0, opponents={0: opponent}, threads=threads),
    ]


def env_alone(games: list[VectorGame], steps: int) -> Callable[[], int]:
    """Uniformly random legal actions: the rollout's compiled sampler over zero logits."""
    outs = [np.zeros(g.num_games, np.int64) for g in games]
    logp = [np.zeros(g.num_games, np.float32) for g in games]
    zeros = [np.zeros((g.num_games, g.num_actions), np.float32) for g in games]
    rngs = [np.arange(g.num_games, dtype=np.uint64) for g in games]

    def run() -> int:
        tss = [g.reset() for g in games]
        for _ in range(steps):
            for k, g in enumerate(games):
                vector_rollout.sample_masked(zeros[k], tss[k].legal_mask, rngs[k], outs[k], logp[k])
                tss[k] = g.step(outs[k])
        return steps * sum(g.num_games for g in games)

    return run


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", default=GAME)
    ap.add_argument("--games", type=int, default=1024, help="games stepped at once (default: %(default)s)")
    ap.add_argument("--steps", type=int, default=64, help="steps per rollout (default: %(default)s)")
    ap.add_argument("--opponent", default="greedy", help="greedy, random or self (default: %(default)s)")
    ap.add_argument("--env-threads", type=int, default=1, help="numba threads of each env (default: %(default)s)")
    ap.add_argument("--torch-threads", default="1,2", help="torch thread counts to measure (default: %(default)s)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--no-update", action="store_true", help="leave out the rows with the PPO update")
    args = ap.parse_args()
    torch = vector_rollout._torch()
    games = games_of(args.game, args.games, args.opponent, args.env_threads)
    model = vector_rollout.policy_network(games[0].observation_size, games[0].num_actions, (128, 128))
    rollouts = {
        False: vector_rollout.VectorRollout(games, args.steps, model),
        True: vector_rollout.VectorRollout(games, args.steps, model, overlap=True),
    }
    cfg = ppo.PPOConfig(games=args.games, steps=args.steps)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    generator = torch.Generator().manual_seed(0)

    def rollout_row(threads: int, update: bool, overlap: bool) -> Callable[[], int]:
        def run() -> int:
            vector_rollout.set_threads(threads)
            rollout = rollouts[overlap]
            rollout.collect(seed=0)
            if update:
                ppo.update(rollout, model, optimizer, cfg, generator)
            return args.steps * args.games

        return run

    rows: dict[str, Callable[[], int]] = {"env alone (random legal actions)": env_alone(games, args.steps)}
    for k in (int(x) for x in args.torch_threads.split(",")):
        threads = f"{k} torch thread{'s' if k > 1 else ''}"
        rows[f"rollout, 128x128 MLP, {threads}"] = rollout_row(k, False, False)
        if k == 1:
            rows[f"rollout, 128x128 MLP, {threads}, env overlapped on a 2nd thread"] = rollout_row(k, False, True)
        if not args.no_update:
            rows[f"rollout + PPO update, {threads}"] = rollout_row(k, True, False)
            if k == 1:
                rows[f"rollout (overlapped) + PPO update, {threads}"] = rollout_row(k, True, True)
    for run in rows.values():  # compile and warm up
        run()
    rates: dict[str, list[float]] = {name: [] for name in rows}
    for _ in range(args.rounds):
        for name, run in rows.items():
            t0 = time.perf_counter()
            steps = run()
            rates[name].append(steps / (time.perf_counter() - t0))
    print(f"# {datetime.date.today()} {os.popen('uptime').read().strip()}")
    print(f"# {describe()}; torch {torch.__version__}, numba {numba.__version__}")
    print(
        f"# {args.game}, {args.games} games, {args.steps} steps a rollout, opponent {args.opponent}, "
        f"env threads {args.env_threads}, OMP_WAIT_POLICY={os.environ.get('OMP_WAIT_POLICY', 'unset')}, "
        f"median of {args.rounds} rounds"
    )
    base = statistics.median(rates["env alone (random legal actions)"])
    print("| loop | steps/s | ratio to env alone |\n|---|---|---|")
    for name, xs in rates.items():
        m = statistics.median(xs)
        print(f"| {name} | {m:,.0f} | {m / base:.2f} |")


if __name__ == "__main__":
    main()
