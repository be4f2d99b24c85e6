"""Recorded positions per second: ``zwick train net``'s self-play against ``zwick train value``'s
position generation, in one process on the same deals (Dithmarschen, 4 players).

    PYTHONPATH=. python experiments/results/learn/selfplay_rate.py [HANDS] [AFTER_MODEL.npz]

The net policy plays AFTER_MODEL (default: the package's after model for Dithmarschen).
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np
import pyspiel

import zwick_ai.games  # noqa: F401
from zwick_ai.agents import net
from zwick_ai.agents import value_model as VM
from zwick_ai.learn import net_selfplay as NS
from zwick_ai.learn import value_selfplay
from zwick_ai.zwicker import policy_codes


def main() -> None:
    hands = int(sys.argv[1]) if len(sys.argv) > 1 else 400
    game = pyspiel.load_game("zwicker(variant=dithmarschen,players=4)")
    R = game.rules.array()
    after = (VM.load_model(sys.argv[2]) if len(sys.argv) > 2 else net.model_for(game, kind=VM.AFTER)).arrays()
    seeds = np.arange(hands, dtype=np.int64) + 10_000
    small = seeds[:2]
    runs = {
        "train value (greedy, record=0.3, candidates played out)": lambda s: value_selfplay.selfplay_positions(
            R, s, policy_codes.POLICY_GREEDY, 0.05, 0.3, VM.empty_model()
        ),
        "train net, generation 0 (greedy)": lambda s: NS.selfplay_afterstates(
            R, s, policy_codes.POLICY_GREEDY, 0.05, VM.empty_model()
        ),
        "train net, later generations (net policy)": lambda s: NS.selfplay_afterstates(
            R, s, policy_codes.POLICY_NET_AFTER, 0.05, after
        ),
    }
    print(f"{hands} hands, load {os.getloadavg()[0]:.1f}")
    print("| data generation | recorded decisions or afterstates | seconds | per second |")
    print("|---|---:|---:|---:|")
    for name, run in runs.items():
        run(small)  # compiled before timing
        t0 = time.perf_counter()
        out = run(seeds)
        dt = time.perf_counter() - t0
        # train value's rows are candidates; its decisions are the distinct decision indices
        decisions = len(np.unique(out[3])) if len(out) == 5 else len(out[0])
        print(f"| {name} | {decisions} | {dt:.1f} | {decisions / dt:.0f} |")


if __name__ == "__main__":
    main()
