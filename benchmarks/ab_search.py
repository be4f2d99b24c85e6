"""A/B timing of two versions of the Zwicker searches' compiled code in one process.

Loads two copies of each of ``zwick_ai/agents/zwicker_search.py``, ``expert_search.py``,
``joker_policies.py`` and ``cfr/zwicker_abstraction.py`` (``--old``: a commit's files; ``--new``:
the working tree's) compiled without numba's cache, each copy importing its own version of the
others, and times the same work through each in alternating rounds; prints the minimum and median
per version and checks that both versions compute the same results:

* ``ismcts``: ISMCTS iterations (``search``, random roll-outs) on fixed decisions;
* ``endgame``: the expert's exact endgame solver (``solve``, with the transposition table);
* ``joker``: whole hands of the joker policies (``play_rule_deals``, ``min_points`` against greedy);
* ``abstraction``: the MCCFR abstraction of decisions (``zwicker_decision``, ``buckets``).

Example (the searches before and after they read the engine through ``zwick_ai.zwicker.arrays``)::

    python benchmarks/ab_search.py --old b84ece5
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pyspiel

import zwick_ai.games  # noqa: F401  (registers the games)
from zwick_ai.agents import zwicker_search
from zwick_ai.games import zwicker_bridge
from zwick_ai.zwicker import arrays
from zwick_ai.zwicker.policy_codes import JOKER_RULES, POLICY_RANDOM

ROOT = Path(__file__).resolve().parents[1]
FILES = {  # module -> path; loaded in this order, each copy importing the copies before it
    "zwicker_search": "zwick_ai/agents/zwicker_search.py",
    "expert_search": "zwick_ai/agents/expert_search.py",
    "joker_policies": "zwick_ai/agents/joker_policies.py",
    "zwicker_abstraction": "zwick_ai/agents/cfr/zwicker_abstraction.py",
}


def load_version(tag: str, source: Callable[[str], str]) -> dict[str, ModuleType]:
    """The copies of :data:`FILES` of one version (``source(path)`` gives a file's text), compiled
    without numba's cache; ``expert_search`` imports this version's ``zwicker_search``."""
    folder = Path(tempfile.mkdtemp())
    mods: dict[str, ModuleType] = {}
    for name, path in FILES.items():
        text = source(path).replace("cache=True", "cache=False")
        if name == "expert_search":
            text = text.replace(
                "from zwick_ai.agents import value_model, zwicker_search",
                f"from zwick_ai.agents import value_model\nimport ab_{tag}_zwicker_search as zwicker_search",
            )
        full = f"ab_{tag}_{name}"
        copy = folder / f"{full}.py"
        copy.write_text(text)
        spec = importlib.util.spec_from_file_location(full, copy)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[full] = module
        spec.loader.exec_module(module)
        mods[name] = module
    return mods


def decisions(game: pyspiel.Game, count: int) -> list[zwicker_search.DecisionSetup]:
    """``count`` decision setups of greedy-random games (seeded), after a few moves each."""
    out = []
    seed = 0
    while len(out) < count:
        rng = np.random.default_rng(seed)
        state = zwicker_bridge.state_from_seed(game, seed)
        for _ in range(int(rng.integers(0, 12))):
            if state.is_terminal():
                break
            rows = state.decision().candidates
            zwicker_bridge.apply_move(state, rows[int(rng.integers(len(rows)))])
        if not state.is_terminal() and len(state.decision().candidates) > 1:
            out.append(zwicker_search.DecisionSetup(state, np.random.default_rng(seed)))
        seed += 1
    return out


def endgames(game: pyspiel.Game, count: int, cards: int) -> list[tuple[np.ndarray, np.ndarray, int]]:
    """(R, S, side) of ``count`` perfect-information positions with the stock empty and at most
    ``cards`` cards in the hands (random play from seeded deals)."""
    out = []
    seed = 0
    while len(out) < count:
        rng = np.random.default_rng(seed)
        state = zwicker_bridge.state_from_seed(game, seed)
        while not state.is_terminal():
            d = state.decision()
            R, S = d.rules_array, d.position
            if arrays.stock_left(S) == 0 and arrays.cards_in_hands(R, S) <= cards:
                out.append((R, S.copy(), int(arrays.side_of(R, d.player))))
                break
            zwicker_bridge.apply_move(state, d.candidates[int(rng.integers(len(d.candidates)))])
        seed += 1
    return out


def run_ismcts(mods: dict[str, ModuleType], setups: list, iters: int) -> list[int]:
    zs = mods["zwicker_search"]
    out = []
    for s in setups:
        zs._seed(s.seed)
        tree = zs.new_tree(iters + 2)
        worlds = zs.Worlds(
            s.game_table, s.state_array, s.player, s.det, s.det.truth.copy(), s.det.truth.copy(), s.workspace
        )
        zs.search(worlds, np.zeros(0, np.int32), iters, zs.Settings(0.7, POLICY_RANDOM, s.win_loss, s.total), tree)
        out.append(int(tree.visits[0]))  # root visits
        out += [int(v) for v in zs.root_stats(s.real, s.rows, tree)[0]]
    return out


def run_endgame(mods: dict[str, ModuleType], positions: list) -> list[float]:
    es = mods["expert_search"]
    out = []
    for R, S, side in positions:
        ctx = es.new_context(16)
        stats = np.zeros(es.ST_SIZE, np.int64)
        settings = es.SolveSettings(2_000_000, True, False, 100.0)
        out.append(float(es.solve(R, S, side, -2.0, 2.0, 0, ctx, stats, settings)))
        out.append(float(stats[es.ST_NODES]))
    return out


def run_joker(mods: dict[str, ModuleType], R: np.ndarray, seeds: np.ndarray) -> list[int]:
    jp = mods["joker_policies"]
    orders, dealers = jp.deal_orders(R, seeds)
    players = int(arrays.players(R))
    codes = [JOKER_RULES.index("min_points"), JOKER_RULES.index("greedy")]
    pol = np.array([codes[p % 2] for p in range(players)], np.int64)
    ks = np.full(players, 3, np.int64)
    scores, zwicks, won, dealt, jplays = jp.play_rule_deals(R, orders, dealers, seeds * 7 + 1, pol, ks)
    return [int(scores.sum()), int(zwicks.sum()), int(jplays.sum())]


def run_abstraction(mods: dict[str, ModuleType], positions: list) -> list[int]:
    za = mods["zwicker_abstraction"]
    out = []
    for R, S, rows in positions:
        idx = np.zeros(len(rows), np.int64)
        for _ in range(500):
            key, m = za.zwicker_decision(R, S, rows, len(rows), za.BUCKETS, idx)
        out += [int(key), int(m)]
    return out


def timed(rounds: int, work: dict[str, Callable[[dict[str, ModuleType]], Any]], versions: dict) -> None:
    """Alternating rounds of every piece of ``work`` through each version; prints min/median."""
    for name, fn in work.items():
        results = {tag: fn(mods) for tag, mods in versions.items()}  # compiles, and the results
        same = len({repr(r) for r in results.values()}) == 1
        times: dict[str, list[float]] = {tag: [] for tag in versions}
        for _ in range(rounds):
            for tag, mods in versions.items():
                t = time.perf_counter()
                fn(mods)
                times[tag].append(time.perf_counter() - t)
        line = ", ".join(
            f"{tag} min {1e3 * min(ts):.1f} ms median {1e3 * float(np.median(ts)):.1f} ms" for tag, ts in times.items()
        )
        old, new = (float(np.median(ts)) for ts in times.values())
        print(f"{name}: {line}; new/old median {new / old:.3f}; same results: {same}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--old", required=True, help="the commit of the old version")
    parser.add_argument("--rounds", type=int, default=15, help="alternating rounds per version")
    parser.add_argument("--iters", type=int, default=400, help="ISMCTS iterations per decision")
    args = parser.parse_args()

    def old_source(path: str) -> str:
        return subprocess.run(
            ["git", "show", f"{args.old}:{path}"], cwd=ROOT, check=True, capture_output=True, text=True
        ).stdout

    print("compiling both versions (a few minutes)...", flush=True)
    versions = {"old": load_version("old", old_source), "new": load_version("new", lambda p: (ROOT / p).read_text())}
    game = pyspiel.load_game("zwicker(variant=dithmarschen,players=4)")
    setups = decisions(game, 12)
    ends = endgames(game, 8, 10)
    R = game.rules.array()
    seeds = np.arange(300, dtype=np.int64)
    abstr = [(R, s.real.copy(), s.rows) for s in setups]
    timed(
        args.rounds,
        {
            f"ismcts ({len(setups)} decisions x {args.iters} iterations)": lambda m: run_ismcts(m, setups, args.iters),
            f"endgame ({len(ends)} positions, <= 10 cards in hands)": lambda m: run_endgame(m, ends),
            f"joker ({len(seeds)} hands, min_points:k=3 vs greedy)": lambda m: run_joker(m, R, seeds),
            f"abstraction ({len(abstr)} decisions x 500)": lambda m: run_abstraction(m, abstr),
        },
        versions,
    )


if __name__ == "__main__":
    main()
