"""The first runs of the main paths in one fresh process: wall seconds and numba compiles of each.

Run it after ``zwick precompile`` (every count should be 0 and every time seconds) or on an empty
``NUMBA_CACHE_DIR`` (each path then compiles what the paths before it did not). Usage::

    NUMBA_CACHE_DIR=/tmp/c zwick precompile --all && NUMBA_CACHE_DIR=/tmp/c python benchmarks/bench_first_runs.py
    python benchmarks/bench_first_runs.py vector env      # only these paths, in this order
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from collections.abc import Callable

import numpy as np

from zwick_ai import _jit_cache


def tournament(out: str) -> None:
    """The README's first command (the default tournament), one deal, in this process."""
    from zwick_ai.cli import main

    assert main(["tournament", "--deals", "1", "--workers", "1", "--quiet", "--out", out]) == 0


def env(out: str) -> None:
    """Ten steps of the Zwicker and the Zwicken Gymnasium environments."""
    import gymnasium

    import zwick_ai.envs  # noqa: F401  (registers the ids)

    for env_id in ("zwick_ai/Zwicker-v0", "zwick_ai/Zwicken-v0"):
        e = gymnasium.make(env_id)
        _, info = e.reset(seed=0)
        for _ in range(10):
            _, _, done, cut, info = e.step(int(np.flatnonzero(info["action_mask"])[0]))
            if done or cut:
                break


def vector(out: str) -> None:
    """Ten steps of 64 Dithmarschen games against the compiled greedy opponent."""
    from zwick_ai.vector.game import VectorGame

    vec = VectorGame("zwicker(variant=dithmarschen,players=4)", 64, opponents={1: "greedy"})
    ts = vec.reset()
    for _ in range(10):
        ts = vec.step(np.argmax(ts.legal_mask, axis=1))


def openspiel_bot(out: str) -> None:
    """A classic two-player game of OpenSpiel's ISMCTS bot (our adapter) against random."""
    import pyspiel

    import zwick_ai.games  # noqa: F401
    from zwick_ai.agents.base import make_agent
    from zwick_ai.eval.match import play_game

    game = pyspiel.load_game("zwicker(variant=classic,players=2)")
    play_game(game, [make_agent("openspiel-ismcts:sims=50", game, seed=0), make_agent("random", game, seed=1)], 0)


def mccfr(out: str) -> None:
    """200 MCCFR iterations on Parlett Zwikken with its evaluation."""
    from zwick_ai.cli import main

    argv = ["train", "mccfr", "--game", "zwikken(players=3,variant=parlett)", "--iterations", "200"]
    assert main([*argv, "--eval-deals", "10", "--out", out]) == 0


PATHS: dict[str, Callable[[str], None]] = {
    "tournament": tournament,
    "env": env,
    "vector": vector,
    "openspiel_bot": openspiel_bot,
    "mccfr": mccfr,
}


def main(names: list[str]) -> None:
    rows = {}
    for name in names or list(PATHS):
        before, began = _jit_cache.compile_count(), time.perf_counter()
        with tempfile.TemporaryDirectory() as folder:
            PATHS[name](f"{folder}/out")
        rows[name] = {"seconds": round(time.perf_counter() - began, 1), "compiles": _jit_cache.compile_count() - before}
        print(f"{name:<14} {rows[name]['seconds']:7.1f} s  {rows[name]['compiles']} compiled", file=sys.stderr)
    print(json.dumps(rows))


if __name__ == "__main__":
    main(sys.argv[1:])
