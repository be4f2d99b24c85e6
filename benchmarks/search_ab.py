"""Same-run A/B of the Zwicker searches' speed: an older tree against this one, each in its own
worker process (its own package and compiled cache), in alternating rounds so that both see the
same machine load. Work per round and side: ``ismcts`` (``ismcts_decision``, random roll-outs)
and the expert's ISMCTS (``expert:time=0,endgame=0``) with ``--iters`` iterations on each of
``--positions`` fixed decisions (the first decision of deals 0, 1, ...), through the public agent
API only, so that any two versions compare. Prints each round's simulations per second, the
median ratios new/old, and whether both sides chose the same moves (same seeds: same games).

The older tree is a checkout of an older commit (``git worktree add /tmp/old REV``); its compiled
cache is made in it on the first run. Run::

    python benchmarks/search_ab.py --old-dir /tmp/old --iters 400 --positions 8 --rounds 6
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
GAME = "zwicker(variant=dithmarschen,players=4)"
WORK = ("ismcts", "expert")


def worker(iters: int, positions: int) -> None:
    """A side: the searches of the package on ``sys.path``; for each work name on stdin prints
    simulations per second and a digest of the moves chosen."""
    import pyspiel

    import zwick_ai.agents  # noqa: F401  (registers the agents)
    import zwick_ai.games  # noqa: F401  (registers the games)
    from zwick_ai.agents import make_agent
    from zwick_ai.agents.zwicker_search import ismcts_decision
    from zwick_ai.games import zwicker_bridge

    game = pyspiel.load_game(GAME)
    states = [zwicker_bridge.state_from_seed(game, s) for s in range(positions)]
    searched = [s for s in states if len(s.decision().candidates) > 1]
    params = {"iters": iters, "time": 0.0, "c": 0.7, "rollout": "random"}

    def run(name: str) -> tuple[float, list]:
        chosen = []
        t = time.perf_counter()
        for k, state in enumerate(searched):
            if name == "ismcts":
                chosen.append(ismcts_decision(state, params, np.random.default_rng(k)))
            else:
                agent = make_agent(f"expert:time=0,iters={iters},endgame=0", game, seed=k)
                chosen.append(agent.act(state))
        return time.perf_counter() - t, chosen

    for name in WORK:
        run(name)  # compile (or load the cache) and warm
    print("ready", flush=True)
    for line in sys.stdin:
        seconds, chosen = run(line.strip())
        print(f"{iters * len(searched) / seconds} {hash(repr(chosen)) & 0xFFFFFFFF}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--old-dir", help="the older tree (a checkout with its own compiled cache)")
    ap.add_argument("--iters", type=int, default=400, help="iterations per decision (default: 400)")
    ap.add_argument("--positions", type=int, default=8, help="decisions searched per round (default: 8)")
    ap.add_argument("--rounds", type=int, default=6, help="alternating rounds (default: 6)")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(args.iters, args.positions)
        return
    if args.old_dir is None:
        ap.error("give --old-dir DIR (an older checkout)")
    sides = {}
    for name, tree in (("old", Path(args.old_dir)), ("new", ROOT)):
        env = dict(os.environ, PYTHONPATH=str(tree), PYTHONHASHSEED="0")
        cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", "--iters", str(args.iters)]
        cmd += ["--positions", str(args.positions)]
        sides[name] = subprocess.Popen(cmd, cwd=tree, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    print("compiling and warming up (both packages) ...", flush=True)
    for proc in sides.values():
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"

    def run(name: str, work: str) -> tuple[float, str]:
        proc = sides[name]
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(f"{work}\n")
        proc.stdin.flush()
        rate, digest = proc.stdout.readline().split()
        return float(rate), digest

    print("uptime:", os.popen("uptime").read().strip(), flush=True)
    try:
        for work in WORK:
            ratios, same = [], True
            for r in range(args.rounds):
                old, old_digest = run("old", work)
                new, new_digest = run("new", work)
                ratios.append(new / old)
                same = same and old_digest == new_digest
                print(f"{work} round {r}: old {old:,.0f} new {new:,.0f} simulations/s ({ratios[-1]:.3f}x)", flush=True)
            print(f"{work}: median new/old {np.median(ratios):.3f}x; same moves: {same}", flush=True)
    finally:
        for proc in sides.values():
            assert proc.stdin is not None
            proc.stdin.close()
            proc.wait()
    print("uptime:", os.popen("uptime").read().strip())


if __name__ == "__main__":
    main()
