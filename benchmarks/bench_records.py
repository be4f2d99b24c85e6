"""Cost of game records, measured as ratios within one run.

    python benchmarks/bench_records.py              # about a minute
    python benchmarks/bench_records.py --hands 100  # smaller samples

Per variant and compiled policy, hands per second of:

1. ``run_selfplay`` (the compiled fast path, ``kernels.play_hands``; no records, unchanged by them),
2. ``hand_records`` (``zwick selfplay --records``: the compiled move log replayed on the OpenSpiel
   game as whole decisions with labels),
3. ``records.replay`` of those records (``zwick replay``: every decision re-applied and checked),

and the ratio fast path / records. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import time

from zwick_ai import zwicker
from zwick_ai.eval.records import replay
from zwick_ai.eval.selfplay import hand_records, run_selfplay

CASES = [("dithmarschen", 4), ("classic", 4), ("grossenwiehe", 4), ("christiansen", 3)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=200, help="hands recorded and replayed per case")
    ap.add_argument("--fast-hands", type=int, default=20000, help="hands of the compiled fast path per case")
    args = ap.parse_args()
    print("| variant | players | policy | compiled hands/s | records/s | replays/s | compiled / records |")
    print("|---|---|---|---|---|---|---|")
    for variant, players in CASES:
        r = zwicker.rules(variant, players)
        for policy in ("random", "greedy"):
            fast = run_selfplay(r, args.fast_hands, policy, seed=1)
            list(hand_records(r, 1, policy, seed=1))  # compile / load caches
            t0 = time.perf_counter()
            recs = list(hand_records(r, args.hands, policy, seed=1))
            t1 = time.perf_counter()
            for rec in recs:
                replay(rec)
            t2 = time.perf_counter()
            made, replayed = args.hands / (t1 - t0), args.hands / (t2 - t1)
            print(
                f"| {variant} | {players} | {policy} | {fast.hands_per_second:,.0f} | {made:,.1f} | {replayed:,.1f} "
                f"| {fast.hands_per_second / made:,.0f}× |"
            )


if __name__ == "__main__":
    main()
