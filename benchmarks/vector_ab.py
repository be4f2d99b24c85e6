"""Same-run A/B of ``VectorGame``'s step: the batch kernels of an older commit against this tree's.

The older commit's ``zwick_ai/vector`` is copied out of git into a temporary package (the engine
below it is this tree's, so only the batch kernels differ) and both are driven like
``bench_vector.py`` (uniform random legal actions picked by a compiled driver, observations and
legal masks produced), in alternating rounds so that both see the same machine load. It prints each
round and the median ratio, in wall-clock steps per second and per second of the process's CPU
time. Run::

    python benchmarks/vector_ab.py --old 4b81133                 # 1,024 games, 2 threads
    python benchmarks/vector_ab.py --old 4b81133 --games 1024 --threads 1 --rounds 8 --seconds 2
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "passive")  # read when numba starts its threads

import numpy as np
from bench_vector import GAME, vector_rate  # type: ignore[import-not-found]

ROOT = Path(__file__).resolve().parents[1]
#: imports of older batch kernels whose modules have moved since, and where they are now
MOVED = {
    "from zwick_ai.games.zwicker_observer import P_MOVE, fill_into_k": "from zwick_ai.zwicker.encoding import P_MOVE, fill_into_k",
    "zwick_ai.games.zwicker_steps": "zwick_ai.zwicker.steps",
}


def old_package(rev: str, into: Path) -> None:
    """``zwick_ai/vector`` of commit ``rev`` as the package ``old_vector`` in ``into``."""
    pkg = into / "old_vector"
    pkg.mkdir()
    names = subprocess.run(
        ["git", "ls-tree", "--name-only", f"{rev}:zwick_ai/vector"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    for name in names:
        if name.endswith(".py"):
            text = subprocess.run(
                ["git", "show", f"{rev}:zwick_ai/vector/{name}"], cwd=ROOT, check=True, capture_output=True, text=True
            ).stdout
            for before, after in MOVED.items():
                text = text.replace(before, after)
            (pkg / name).write_text(text.replace("zwick_ai.vector", "old_vector"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--old", required=True, help="the older commit (any git revision)")
    ap.add_argument("--games", type=int, default=1024, help="num_games (default: 1024)")
    ap.add_argument("--threads", type=int, default=2, help="threads (default: 2)")
    ap.add_argument("--rounds", type=int, default=6, help="alternating rounds (default: 6)")
    ap.add_argument("--seconds", type=float, default=2.0, help="seconds per side and round (default: 2)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        old_package(args.old, Path(tmp))
        sys.path.insert(0, tmp)
        from old_vector import VectorGame as Old  # type: ignore[import-not-found]

        from zwick_ai.vector import VectorGame as New

        print("compiling and warming up ...", flush=True)
        vector_rate(GAME, 64, 0.2, args.threads, Old)
        vector_rate(GAME, 64, 0.2, args.threads, New)
        print("uptime:", os.popen("uptime").read().strip(), flush=True)
        wall, cpu = [], []
        for r in range(args.rounds):
            old = vector_rate(GAME, args.games, args.seconds, args.threads, Old)
            new = vector_rate(GAME, args.games, args.seconds, args.threads, New)
            wall.append(new[0] / old[0])
            cpu.append(new[1] / old[1])
            print(
                f"round {r}: old {old[0]:,.0f} new {new[0]:,.0f} steps/s ({wall[-1]:.3f}x); "
                f"per CPU second old {old[1]:,.0f} new {new[1]:,.0f} ({cpu[-1]:.3f}x)",
                flush=True,
            )
        print(f"median new/old: {np.median(wall):.3f}x wall, {np.median(cpu):.3f}x per CPU second")
        print("uptime:", os.popen("uptime").read().strip())


if __name__ == "__main__":
    main()
