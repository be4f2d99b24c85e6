"""Speed of the Zwikken/Zwicken engine: random deals per second through the compiled playout and
through the OpenSpiel API, and OpenSpiel's C++ external-sampling MCCFR iterations per second.
With ``--nash-conv`` it also records how ``nash_conv`` of the MCCFR average policy falls on the
reduced packs. Prints Markdown tables.

    python benchmarks/bench_tricks.py [--seconds 3] [--nash-conv]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pyspiel

import zwick_ai.games  # noqa: F401  (registers the games)
from zwick_ai import tricks as T
from zwick_ai.tricks import kernels as K

FULL = [
    "zwikken(variant=historic,players=4)",
    "zwikken(variant=parlett,players=3)",
    "zwikken(variant=modern,players=3)",
    "zwicken(players=4)",
]
REDUCED = [
    ("zwicken(players=2,tricks=2,hupf=false,ranks=AK7,suits=DH)", (0, 100, 1000, 3000)),
    ("zwikken(variant=parlett,players=3,tricks=1,ranks=AKQ,suits=CD,max_bid_levels=1)", (0, 100, 1000, 3000)),
]


def timed(fn, seconds: float) -> float:
    """Calls of ``fn`` per second (fn returns how many units it did)."""
    done, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        done += fn()
    return done / (time.perf_counter() - start)


def compiled_deals(spec: str, seconds: float) -> float:
    game = pyspiel.load_game(spec)
    cfg = game.rules.cfg
    K.random_deals(cfg, 10, 0)  # compile / load the cache outside the timing
    seed = iter(range(1, 10**9))
    return timed(lambda: len(K.random_deals(cfg, 2000, next(seed))), seconds)


def openspiel_deals(spec: str, seconds: float) -> float:
    game = pyspiel.load_game(spec)
    rng = np.random.default_rng(0)

    def one() -> int:
        st = game.new_initial_state()
        while not st.is_terminal():
            if st.is_chance_node():
                ids, probs = zip(*st.chance_outcomes(), strict=True)
                st.apply_action(int(ids[rng.choice(len(ids), p=probs)]))
            else:
                legal = st.legal_actions()
                st.apply_action(legal[rng.integers(len(legal))])
        return 1

    return timed(one, seconds)


def mccfr_rate(spec: str, seconds: float) -> float:
    solver = pyspiel.ExternalSamplingMCCFRSolver(pyspiel.load_game(spec), seed=1)

    def one() -> int:
        solver.run_iteration()
        return 1

    return timed(one, seconds)


def nash_conv_table() -> list[str]:
    rows = ["| game | MCCFR iterations | nash_conv | seconds |", "|---|---:|---:|---:|"]
    for spec, marks in REDUCED:
        game = pyspiel.load_game(spec)
        solver = pyspiel.ExternalSamplingMCCFRSolver(game, seed=1)
        done, start = 0, time.perf_counter()
        for target in marks:
            while done < target:
                solver.run_iteration()
                done += 1
            nc = pyspiel.nash_conv(game, solver.average_policy(), True)
            rows.append(f"| `{spec}` | {done} | {nc:.4f} | {time.perf_counter() - start:.0f} |")
            print(rows[-1], flush=True)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    ap.add_argument("--nash-conv", action="store_true", help="also run the reduced-pack nash_conv study")
    args = ap.parse_args()
    rows = [
        "| game | compiled playout deals/s | OpenSpiel API deals/s | ratio | MCCFR (C++ ext. sampling) it/s |",
        "|---|---:|---:|---:|---:|",
    ]
    for spec in FULL:
        fast = compiled_deals(spec, args.seconds)
        slow = openspiel_deals(spec, args.seconds)
        it = mccfr_rate(spec, args.seconds)
        rows.append(f"| `{spec}` | {fast:,.0f} | {slow:,.0f} | {fast / slow:.0f}x | {it:,.1f} |")
        print(rows[-1], flush=True)
    st = T.deal(T.rules("zwikken", variant="parlett"), seed=1)
    start = time.perf_counter()
    for _ in range(2000):
        st.copy()
    print(f"\nTrickState copy: {1e6 * (time.perf_counter() - start) / 2000:.1f} µs\n")
    print("\n".join(rows))
    if args.nash_conv:
        print()
        print("\n".join(nash_conv_table()))


if __name__ == "__main__":
    main()
