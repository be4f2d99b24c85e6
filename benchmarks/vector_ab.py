"""Same-run A/B of ``VectorGame``'s step: the batch kernels of an older commit against this tree's.

The older commit's ``zwick_ai/vector`` is copied out of git into a temporary package (the engine
below it is this tree's, so only the batch kernels differ) and both are driven like
``bench_vector.py`` (uniform random legal actions picked by a compiled driver, observations and
legal masks produced), in alternating rounds so that both see the same machine load. It prints each
round and the median ratio, in wall-clock steps per second and per second of the process's CPU
time. With ``--whole`` the older commit's whole package (engine included) is extracted instead
and each side runs in its own worker process (``--old-dir``: an extracted or checked-out older tree
to use as it is, with its compiled cache), still in alternating rounds. Run::

    python benchmarks/vector_ab.py --old 4b81133                 # 1,024 games, 2 threads
    python benchmarks/vector_ab.py --old 4b81133 --games 1024 --threads 1 --rounds 8 --seconds 2
    python benchmarks/vector_ab.py --old b84ece5 --whole         # the engine's changes too
    python benchmarks/vector_ab.py --whole --old-dir /tmp/old --opponents 1=greedy,3=random

``--opponents`` plays those seats by the compiled opponents (``VectorGame(opponents=...)``).
"""

from __future__ import annotations

import argparse
import functools
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "passive")  # read when numba starts its threads

import numpy as np
from bench_vector import GAME, vector_rate  # type: ignore[import-not-found]

ROOT = Path(__file__).resolve().parents[1]
Rate = Callable[[], tuple[float, float]]

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


def rate(cls: type, n: int, threads: int, seconds: float) -> tuple[float, float]:
    """(agent steps per wall second, per CPU second) of ``cls`` with ``n`` games on ``threads``:
    :func:`bench_vector.vector_rate`, the driver of the benchmark itself."""
    return vector_rate(GAME, n, seconds, threads, cls)


def opponent_seats(text: str) -> dict[int, str]:
    """``1=greedy,3=random`` as ``{1: "greedy", 3: "random"}``."""
    return {int(seat): name for seat, name in (part.split("=") for part in text.split(",") if part)}


def worker(games: int, threads: int, opponents: str) -> None:
    """A side of a ``--whole`` A/B: the ``VectorGame`` of the package on ``sys.path``, timed for
    the seconds named on each line of stdin; prints wall and CPU steps per second per line."""
    from zwick_ai.vector import VectorGame

    cls = functools.partial(VectorGame, opponents=opponent_seats(opponents))
    rate(cls, 64, threads, 0.2)  # compile and warm
    print("ready", flush=True)
    for line in sys.stdin:
        wall, cpu = rate(cls, games, threads, float(line))
        print(f"{wall} {cpu}", flush=True)


def whole(args: argparse.Namespace) -> None:
    """``--whole``: the older package and this tree's, each in a worker process, alternating."""
    with tempfile.TemporaryDirectory() as tmp:
        old_dir = args.old_dir
        if old_dir is None:
            old_dir = tmp
            archive = subprocess.run(["git", "archive", args.old], cwd=ROOT, check=True, capture_output=True).stdout
            subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        sides = {}
        for name, tree in (("old", Path(old_dir)), ("new", ROOT)):
            env = dict(os.environ, PYTHONPATH=str(tree))
            cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", "--games", str(args.games)]
            cmd += ["--threads", str(args.threads), "--opponents", args.opponents]
            sides[name] = subprocess.Popen(
                cmd, cwd=tree, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
            )
        print("compiling and warming up (both packages) ...", flush=True)
        for proc in sides.values():
            assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"

        def run(name: str) -> tuple[float, float]:
            proc = sides[name]
            assert proc.stdin is not None and proc.stdout is not None
            proc.stdin.write(f"{args.seconds}\n")
            proc.stdin.flush()
            wall, cpu = proc.stdout.readline().split()
            return float(wall), float(cpu)

        try:
            rounds(args, lambda: run("old"), lambda: run("new"))
        finally:
            for proc in sides.values():
                assert proc.stdin is not None
                proc.stdin.close()
                proc.wait()


def rounds(args: argparse.Namespace, old_rate: Rate, new_rate: Rate) -> None:
    """Alternating rounds of the two sides; prints each round and the median ratios."""
    print("uptime:", os.popen("uptime").read().strip(), flush=True)
    wall, cpu = [], []
    for r in range(args.rounds):
        old = old_rate()
        new = new_rate()
        wall.append(new[0] / old[0])
        cpu.append(new[1] / old[1])
        print(
            f"round {r}: old {old[0]:,.0f} new {new[0]:,.0f} steps/s ({wall[-1]:.3f}x); "
            f"per CPU second old {old[1]:,.0f} new {new[1]:,.0f} ({cpu[-1]:.3f}x)",
            flush=True,
        )
    print(f"median new/old: {np.median(wall):.3f}x wall, {np.median(cpu):.3f}x per CPU second")
    print("uptime:", os.popen("uptime").read().strip())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--old", help="the older commit (any git revision)")
    ap.add_argument("--games", type=int, default=1024, help="num_games (default: 1024)")
    ap.add_argument("--threads", type=int, default=2, help="threads (default: 2)")
    ap.add_argument("--rounds", type=int, default=6, help="alternating rounds (default: 6)")
    ap.add_argument("--seconds", type=float, default=2.0, help="seconds per side and round (default: 2)")
    ap.add_argument("--whole", action="store_true", help="compare the whole packages (engine too), in two processes")
    ap.add_argument("--old-dir", help="with --whole: an older tree to use as it is instead of extracting --old")
    ap.add_argument("--opponents", default="", help="seats of compiled opponents, e.g. 1=greedy,3=random")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(args.games, args.threads, args.opponents)
        return
    if args.old is None and args.old_dir is None:
        ap.error("give --old REV (or --whole --old-dir DIR)")
    if args.whole or args.old_dir:
        whole(args)
        return
    with tempfile.TemporaryDirectory() as tmp:
        old_package(args.old, Path(tmp))
        sys.path.insert(0, tmp)
        from old_vector import VectorGame as Old  # type: ignore[import-not-found]

        from zwick_ai.vector import VectorGame as New

        print("compiling and warming up ...", flush=True)
        rate(Old, 64, args.threads, 0.2)
        rate(New, 64, args.threads, 0.2)
        rounds(
            args,
            lambda: rate(Old, args.games, args.threads, args.seconds),
            lambda: rate(New, args.games, args.threads, args.seconds),
        )


if __name__ == "__main__":
    main()
