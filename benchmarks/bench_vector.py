"""Agent steps per second of uniform random play with observations and legal masks, in one run:
``VectorGame`` at several batch sizes against the PettingZoo environment, the OpenSpiel API of the
same game and OpenSpiel's C++ ``hearts``; and the memory held per game.

Every driver picks a uniformly random legal action from the legal mask (``legal_actions()`` for
OpenSpiel) and reads the observation of the player to move at every step. ``VectorGame``'s driver
picks its actions with a small compiled function over the masks, in parallel over the games like
the step (its time is included). Everything is compiled and warmed up before the first timing.
OpenMP's threads wait as the user's environment says: by default libgomp's threads spin a
little before they sleep, which on a quiet machine hands a step's work between the threads a fifth
faster than ``OMP_WAIT_POLICY=passive`` (sleeping at once); on a crowded machine set ``passive``,
since a spinning thread takes the core its partner needs. The table's header says which. Run::

    python benchmarks/bench_vector.py                       # about two minutes, once compiled
    python benchmarks/bench_vector.py --seconds 3 --sizes 1,64,1024,8192 --rounds 3

It prints ``uptime``, the processor and the libraries' versions, and a Markdown table with each
row's ratio to the PettingZoo environment, in wall-clock steps per second and in steps per second
of the process's CPU time (all its threads: on a busy machine the wall clock measures the
machine's load as much as the code). Every row is measured ``--rounds`` times, the rows taking
turns, and the table gives each row's median: a shared machine's speed drifts by a fifth within
minutes, and a ratio of two rows measured minutes apart would carry that drift.
"""

from __future__ import annotations

import argparse
import datetime
import os
import random
import time
from collections.abc import Callable

import numba
import numpy as np
import pyspiel

import zwick_ai.games  # noqa: F401  (registers the games)
from zwick_ai.envs import aec_env
from zwick_ai.machine import describe
from zwick_ai.vector import VectorGame

GAME = "zwicker(variant=dithmarschen,players=4)"


@numba.njit(cache=True, parallel=True)
def random_legal(mask: np.ndarray, out: np.ndarray, rng: np.ndarray) -> None:
    """A uniformly random legal action per row of ``mask`` (row i's own splitmix64 stream ``rng[i]``)."""
    for i in numba.prange(mask.shape[0]):
        rng[i] += np.uint64(0x9E3779B97F4A7C15)
        z = rng[i]
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
        count = 0
        for a in range(mask.shape[1]):
            count += mask[i, a]
        pick = np.int64(z % np.uint64(count))
        for a in range(mask.shape[1]):
            if mask[i, a]:
                if pick == 0:
                    out[i] = a
                    break
                pick -= 1


def vector_rate(game: str, num_games: int, seconds: float, threads: int, cls: type = VectorGame) -> tuple[float, float]:
    """Agent steps per second of ``VectorGame`` (or another version of it, ``cls``) on ``threads``
    cores (every game steps once per call), and per second of the process's CPU time (all its threads)."""
    numba.set_num_threads(threads)
    vector = cls(game, num_games=num_games, seed=0, threads=threads)
    ts = vector.reset()
    actions = np.zeros(num_games, np.int64)
    rng = np.arange(num_games, dtype=np.uint64)
    for _ in range(3):  # warm: the first steps of a batch touch its arrays for the first time
        random_legal(ts.legal_mask, actions, rng)
        ts = vector.step(actions)
    steps = 0
    start, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        for _ in range(max(1, 20_000 // num_games)):
            random_legal(ts.legal_mask, actions, rng)
            ts = vector.step(actions)
            steps += num_games
    return steps / (time.perf_counter() - start), steps / (time.process_time() - cpu)


def openspiel_rate(game_string: str, seconds: float, information_state: bool = False) -> tuple[float, float]:
    """Decisions per second through the OpenSpiel API (chance sampled, not counted), reading the
    observation tensor (``information_state``: the information-state tensor) at every decision."""
    game = pyspiel.load_game(game_string)
    rng = random.Random(0)
    steps = 0
    start, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(outcomes, probs)[0])
                continue
            if information_state:
                state.information_state_tensor(state.current_player())
            else:
                state.observation_tensor(state.current_player())
            state.apply_action(rng.choice(state.legal_actions()))
            steps += 1
    return steps / (time.perf_counter() - start), steps / (time.process_time() - cpu)


def pettingzoo_rate(game: str, seconds: float) -> tuple[float, float]:
    """Agent steps per second of the PettingZoo AEC environment."""
    env = aec_env(game)
    rng = np.random.default_rng(0)
    steps = episodes = 0
    start, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        env.reset(seed=episodes)
        episodes += 1
        for _agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            steps += 1
    return steps / (time.perf_counter() - start), steps / (time.process_time() - cpu)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", default=GAME, help=f"zwicker game string (default: {GAME})")
    ap.add_argument("--seconds", type=float, default=3.0, help="seconds per row (default: 3)")
    ap.add_argument("--sizes", default="1,64,1024,8192", help="VectorGame batch sizes (default: 1,64,1024,8192)")
    ap.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="times every row is measured, the rows taking turns; the table gives each row's median (default: 3)",
    )
    args = ap.parse_args()
    if args.rounds < 1:
        ap.error("--rounds must be at least 1")
    sizes = [int(x) for x in args.sizes.split(",")]
    print("compiling and warming up ...", flush=True)
    pettingzoo_rate(args.game, 0.2)
    openspiel_rate(args.game, 0.2)
    all_threads = sorted({1, numba.config.NUMBA_NUM_THREADS})  # type: ignore[attr-defined]
    for threads in all_threads:
        vector_rate(args.game, 2 * threads, 0.1, threads)
    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    print(
        when,
        "| uptime:",
        os.popen("uptime").read().strip(),
        f"| numba threads: {numba.config.NUMBA_NUM_THREADS}",  # type: ignore[attr-defined]
        f"| OMP_WAIT_POLICY: {os.environ.get('OMP_WAIT_POLICY', 'unset (libgomp default)')}",
    )
    print(describe(with_processor=True, packages=("pettingzoo",)))
    drivers: list[tuple[str, Callable[[], tuple[float, float]], str]] = [
        (f"PettingZoo AEC env, {args.game}", lambda: pettingzoo_rate(args.game, args.seconds), ""),
        (f"OpenSpiel API, {args.game}", lambda: openspiel_rate(args.game, args.seconds), ""),
        (
            "OpenSpiel API, C++ hearts (information-state tensor: it has no observation)",
            lambda: openspiel_rate("hearts", args.seconds, information_state=True),
            "",
        ),
    ]
    for threads in all_threads:
        for n in sizes:
            size = VectorGame(args.game, num_games=n, threads=threads).bytes_per_game()
            drivers.append(
                (
                    f"VectorGame, num_games={n}, {threads} thread(s)",
                    lambda n=n, threads=threads: vector_rate(args.game, n, args.seconds, threads),
                    f"{size:,}",
                )
            )
    # the rows take turns, round after round, so a change in the machine's speed during the run
    # reaches every row alike; each round's ratio of a row to the PettingZoo row is printed
    rates: list[list[tuple[float, float]]] = [[] for _ in drivers]
    for r in range(args.rounds):
        for k, (name, rate, _memory) in enumerate(drivers):
            rates[k].append(rate())
            ratio = rates[k][-1][0] / rates[0][-1][0]
            print(
                f"  round {r}: {name}: {rates[k][-1][0]:,.0f} steps/s, {ratio:.1f}x this round's PettingZoo", flush=True
            )
    medians = [(float(np.median([w for w, _ in rs])), float(np.median([c for _, c in rs]))) for rs in rates]
    base = medians[0]
    print(f"medians of {args.rounds} round(s):")
    print("| driver | agent steps/s | vs PettingZoo | steps per CPU second | vs PettingZoo | bytes per game |")
    print("|---|---:|---:|---:|---:|---:|")
    for (name, _rate, memory), (wall, cpu) in zip(drivers, medians, strict=True):
        print(f"| {name} | {wall:,.0f} | {wall / base[0]:.1f}x | {cpu:,.0f} | {cpu / base[1]:.1f}x | {memory} |")
    print("uptime:", os.popen("uptime").read().strip())


if __name__ == "__main__":
    main()
