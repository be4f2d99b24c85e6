"""A/B timing of two versions of ``zwick_ai/zwicker/model_scores.py``'s ``after_values`` in one process.

The positions are every decision of ``--deals`` seeded deals of the variant played by greedy;
each batch scores every candidate move of every position with the variant's shipped after model
(what ``net:model=after`` does once a decision, and its ``reply=K`` look-ahead for each answer it
considers). The two versions take turns batch by batch (``ab_timing.alternate``), and the values
they give are compared first. Example, the committed file against an older commit::

    git show c3835b9~1:zwick_ai/zwicker/model_scores.py > /tmp/model_scores_old.py
    python benchmarks/ab_model_scores.py /tmp/model_scores_old.py zwick_ai/zwicker/model_scores.py

Both files are compiled without numba's cache (under a minute each).
"""

from __future__ import annotations

import numpy as np
import pyspiel
from ab_timing import ab_parser, alternate, load_copy, print_ab  # type: ignore[import-not-found]

import zwick_ai.games  # noqa: F401  (registers the games)
from zwick_ai.agents import value_model
from zwick_ai.agents.base import make_agent
from zwick_ai.games import zwicker_bridge
from zwick_ai.zwicker import kernels


def decisions(game: pyspiel.Game, deals: int) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """(rules array, position, candidate rows) of every decision of ``deals`` greedy deals."""
    greedy = make_agent("greedy", game, seed=0)
    found = []
    for seed in range(deals):
        state = zwicker_bridge.state_from_seed(game, seed)
        while not state.is_terminal():
            d = state.decision()
            found.append((d.rules_array, d.position.copy(), d.candidates))
            for action in greedy.act(state):
                state.apply_action(action)
    return found


def main() -> None:
    parser = ab_parser(__doc__, "model_scores.py", "deals", 6, 20)
    args = parser.parse_args()
    game = pyspiel.load_game(f"zwicker(variant={args.variant})")  # the variant's default players
    positions = decisions(game, args.deals)
    path = value_model.shipped_model_path(args.variant, game.rules.players, value_model.AFTER)
    model = value_model.load_model(path).arrays()
    W = kernels.new_workspace()
    versions = [load_copy(args.a, "model_scores_a"), load_copy(args.b, "model_scores_b")]
    values = [[v.after_values(R, S, rows, len(rows), model, W) for R, S, rows in positions] for v in versions]
    gap = max(float(np.max(np.abs(np.nan_to_num(a - b, posinf=0, neginf=0)))) for a, b in zip(*values, strict=True))
    candidates = sum(len(rows) for _, _, rows in positions)

    def batch(version: object) -> None:
        for R, S, rows in positions:
            version.after_values(R, S, rows, len(rows), model, W)  # type: ignore[attr-defined]

    a, b = (t / candidates * 1e6 for t in alternate(versions, batch, args.rounds))
    print(f"{len(positions)} positions, {candidates} candidates; largest difference of the values: {gap:.1e}")
    title = f"{args.variant}, after_values, µs per candidate over {args.rounds} alternating batches:"
    print_ab(title, (args.a, args.b), a, b, 3)


if __name__ == "__main__":
    main()
