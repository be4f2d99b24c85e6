"""Where a ``VectorGame`` step's time goes: the main kernels of a Zwicker step timed one by one on
the games of a running batch, each with its data out of the caches (every game in turn, as the
step meets them) and in them (a few games over and over), and the share of the driver.

The batch is played for ``--warm`` steps by the benchmark's own driver (uniform random legal
actions, ``bench_vector.random_legal``), so the games stand at the positions of a running batch.
Then, on one thread:

* ``observation``: :func:`~zwick_ai.zwicker.encoding.fill_into_k` of the player to move (what the
  step writes at the start of every turn);
* ``moves``: :func:`~zwick_ai.zwicker.kernels.gen_moves_ws` (the turn's moves, generated once a turn);
* ``driver`` and ``step``: the share of the driver's choice and of ``VectorGame.step`` in the
  benchmark's loop, and how many of the steps complete a move.

Run::

    python benchmarks/vector_profile.py                  # 1,024 games
    python benchmarks/vector_profile.py --games 8192 --warm 200
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable

os.environ.setdefault("OMP_WAIT_POLICY", "passive")  # read when numba starts its threads

import numba
import numpy as np
from bench_vector import GAME, random_legal  # type: ignore[import-not-found]

from zwick_ai.vector import VectorGame
from zwick_ai.zwicker import kernels as engine_kernels
from zwick_ai.zwicker.encoding import fill_into_k
from zwick_ai.zwicker.history import SS, X_PLEN, XB
from zwick_ai.zwicker.layout import RULES_SIZE


@numba.njit(cache=True)
def fill_all(G, A, OFF, cur, obs, sc, reps, stride):
    """``reps`` passes of :func:`fill_into_k` over every ``stride``-th game."""
    for _ in range(reps):
        for i in range(0, A.shape[0], stride):
            fill_into_k(G, A[i], OFF, cur[i], obs[i], sc)


@numba.njit(cache=True)
def moves_all(G, A, buf, W, xs, reps, stride):
    """``reps`` passes of the engine's move generation over every ``stride``-th game."""
    total = 0
    for _ in range(reps):
        for i in range(0, A.shape[0], stride):
            total += engine_kernels.gen_moves_ws(G[:RULES_SIZE], A[i, :SS], buf, W, xs)
    return total


def per_call(run: Callable[[int, int], object], games: int, stride: int, reps: int) -> float:
    """Nanoseconds per call of ``run(reps, stride)`` (CPU time of this process)."""
    run(1, stride)  # compile and warm
    start = time.process_time()
    run(reps, stride)
    return (time.process_time() - start) / (reps * len(range(0, games, stride))) * 1e9


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", default=GAME, help=f"game string (default: {GAME})")
    ap.add_argument("--games", type=int, default=1024, help="num_games (default: 1024)")
    ap.add_argument("--warm", type=int, default=100, help="steps played before the timings (default: 100)")
    ap.add_argument("--seconds", type=float, default=3.0, help="seconds of the driver/step split (default: 3)")
    args = ap.parse_args()
    n = args.games
    numba.set_num_threads(1)
    print("uptime:", os.popen("uptime").read().strip(), flush=True)
    print("compiling and playing the batch ...", flush=True)
    vector = VectorGame(args.game, num_games=n, seed=0, threads=1)
    ts = vector.reset()
    actions = np.zeros(n, np.int64)
    rng = np.arange(n, dtype=np.uint64)
    for _ in range(args.warm):
        random_legal(ts.legal_mask, actions, rng)
        ts = vector.step(actions)
    shard = vector._shards[0]
    G, OFF, scratch = shard.game, shard.off, shard.scratch
    W, buf, xs, sc = scratch.workspace, scratch.move_buf, scratch.capture_buf, scratch.score_buf
    A, cur = vector._states.copy(), vector._cur.copy()
    obs = np.zeros_like(vector._obs)
    hot = max(1, n // 16)  # 16 games: their data stays in the caches
    print("| kernel | ns per call, data out of the caches (every game in turn) | in the caches (16 games) |")
    print("|---|---:|---:|")
    for name, run in (
        ("observation (`fill_into_k`)", lambda reps, stride: fill_all(G, A, OFF, cur, obs, sc, reps, stride)),
        ("moves (`gen_moves_ws`)", lambda reps, stride: moves_all(G, A, buf, W, xs, reps, stride)),
    ):
        cold = per_call(run, n, 1, 20)
        warm = per_call(run, n, hot, 20 * hot)
        print(f"| {name} | {cold:,.0f} | {warm:,.0f} |")
    driver = step = 0.0
    steps = completed = 0
    start, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < args.seconds:
        t0 = time.perf_counter()
        random_legal(ts.legal_mask, actions, rng)
        t1 = time.perf_counter()
        ts = vector.step(actions)
        driver += t1 - t0
        step += time.perf_counter() - t1
        steps += n
        completed += int((vector._states[:, XB + X_PLEN] == 0).sum())  # a move just made (or a deal)
    total = driver + step
    rate = steps / (time.process_time() - cpu)
    print(
        f"\nbenchmark loop, one thread: {rate:,.0f} agent steps per CPU second; of its time the driver {driver / total:.1%}, the step {step / total:.1%}"
    )
    print(f"steps that complete a move: {completed / steps:.1%}")
    print("uptime:", os.popen("uptime").read().strip())


if __name__ == "__main__":
    main()
