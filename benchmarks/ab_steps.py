"""A/B timing of two versions of the ``zwicker`` game's step kernels in one process.

Loads two copies of a step-kernel file (``zwick_ai/zwicker/steps.py``, formerly
``zwick_ai/games/zwicker_steps.py``) compiled without numba's cache and plays the same random
games through each (the dealer or the cut, every chance node, then uniformly random sub-actions,
as the OpenSpiel state does) in alternating batches; prints the minimum and median per version::

    git show 4b81133:zwick_ai/games/zwicker_steps.py > /tmp/steps_old.py
    python benchmarks/ab_steps.py /tmp/steps_old.py zwick_ai/zwicker/steps.py --variant dithmarschen
"""

from __future__ import annotations

import numpy as np
import pyspiel
from ab_timing import ab_parser, alternate, load_copy, print_ab  # type: ignore[import-not-found]

import zwick_ai.games  # noqa: F401  (registers the games)


def play_games(steps, game, seeds: np.ndarray) -> int:
    """Play one random game per seed through ``steps``; returns the sub-actions taken."""
    t = game.tables
    total = 0
    for seed in seeds:
        rng = np.random.default_rng(int(seed))
        a = t.init.copy()
        cur = -1
        for outcome in steps.seed_chance_k(t.game_table, int(seed)):
            cur = steps.chance_step_k(t.game_table, a, t.workspace, int(outcome))
        m, sel, la, cur = steps.turn_start_k(t.game_table, a, t.workspace)
        while cur >= 0:
            tok = int(la[int(rng.integers(len(la)))])
            m, sel, la, cur = steps.step_k(t.game_table, a, m, sel, tok, t.workspace)
            total += 1
    return total


def main() -> None:
    args = ab_parser(__doc__, "step-kernel file", "games", 100, 10).parse_args()
    game = pyspiel.load_game(f"zwicker(variant={args.variant})")
    versions = [load_copy(args.a, "steps_a"), load_copy(args.b, "steps_b")]
    seeds = np.arange(args.games, dtype=np.int64)
    counts = [play_games(s, game, seeds[:2]) for s in versions]  # compile
    counts = [play_games(s, game, seeds) for s in versions]
    if counts[0] != counts[1]:
        raise SystemExit(f"the versions played different games ({counts[0]} vs {counts[1]} sub-actions)")
    a, b = (t / args.games * 1e3 for t in alternate(versions, lambda s: play_games(s, game, seeds), args.rounds))
    title = (
        f"{args.variant}, random games ({counts[0]} sub-actions per batch), "
        f"ms per game over {args.rounds} alternating batches of {args.games}:"
    )
    print_ab(title, (args.a, args.b), a, b, 2)


if __name__ == "__main__":
    main()
