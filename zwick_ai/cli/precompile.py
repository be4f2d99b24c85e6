"""``zwick precompile``: compile the kernels that first runs need, once, up front.

Each group (:func:`groups`) runs a small real workload of one part of the package (a game of each
agent, a few environment or ``VectorGame`` steps, a few MCCFR iterations), which compiles its
kernels for the argument types of their real calls into the on-disk cache
(:mod:`zwick_ai._jit_cache`); a first
tournament, environment or training run afterwards loads them in seconds. A second
``zwick precompile`` finds everything cached and says so (:mod:`zwick_ai.precompile`).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from zwick_ai.precompile import Group

EXAMPLES = """examples:
  zwick precompile            the kernels of tournaments, environments, VectorGame, nets, OpenSpiel bots and MCCFR
  zwick precompile --all      also the rarer agents (cfr-search, resolve, br-ismcts, cheat-uct, peek-uct, joker)
  NUMBA_CACHE_DIR=/tmp/zwick-cache zwick precompile    into that folder (where the package folder is read-only)
"""

#: the Zwicker board of the default tournament, and a two-player one
ZWICKER = "zwicker(variant=dithmarschen,players=4)"
ZWICKER_2P = "zwicker(variant=classic,players=2)"
#: the trick games at their defaults
TRICK_GAMES = ("zwikken", "zwicken")
#: the two-card micro Zwicker of ``zwick exploitability`` and a micro Zwikken (MCCFR's evaluation
#: extracts their whole tree)
MICRO_ZWICKER = (
    "zwicker(variant=dithmarschen,players=2,ranks=A23,suits=CD,jokers=none,hand_size=2,table_size=2,stages=1)"
)
MICRO_ZWIKKEN = "zwikken(variant=parlett,players=3,tricks=1,ranks=AKQ,suits=CD,max_bid_levels=1)"
#: a full trick game of ``zwick train mccfr``'s examples
FULL_ZWIKKEN = "zwikken(players=3,variant=parlett)"
#: small budgets: the workloads compile, they need not play well
SEARCHES = ("ismcts:iters=20", "pimc:worlds=4,iters=10", "expert:time=0,iters=20,worlds=4", "greedy")
TRICK_AGENTS = ("ismcts:iters=20", "pimc:worlds=4,iters=10", "greedy", "random")


def _play(game_string: str, specs: tuple[str, ...] | list[str], deal: int = 0) -> None:
    """One game of ``specs`` (repeated round the table) on ``game_string``."""
    import pyspiel

    import zwick_ai.games  # noqa: F401  (registers the games)
    from zwick_ai.agents.base import make_agent
    from zwick_ai.eval.match import play_game

    game = pyspiel.load_game(game_string)
    n = game.num_players()
    seats = [specs[i % len(specs)] for i in range(n)]
    play_game(game, [make_agent(s, game, seed=i) for i, s in enumerate(seats)], deal)


def _zwicker() -> bool:
    from zwick_ai.agents import zwicker_precompile

    helper = zwicker_precompile.compile_in_two_processes(search=True, expert=True)
    _play(ZWICKER, SEARCHES)
    _play(ZWICKER_2P, ("expert:time=0,iters=20,worlds=4", "random"))
    return helper


def _tricks() -> None:
    for game in TRICK_GAMES:
        _play(game, TRICK_AGENTS)


def _envs() -> None:
    import gymnasium
    import numpy as np

    from zwick_ai.envs import GYMNASIUM_IDS, aec_env, parallel_env

    for env_id, game in GYMNASIUM_IDS.items():
        for information_state in (True, False):
            env = gymnasium.make(env_id, information_state=information_state)
            _, info = env.reset(seed=0)
            for _ in range(20):
                legal = np.flatnonzero(info["action_mask"])
                _, _, done, cut, info = env.step(int(legal[0]))
                if done or cut:
                    break
        for make in (aec_env, parallel_env):
            make(game).reset(seed=0)


def _vector() -> None:
    import numpy as np

    from zwick_ai.vector.game import GAMES_PER_THREAD, OPPONENTS, VectorGame

    for family, opponents in OPPONENTS.items():
        game = ZWICKER if family == "zwicker" else family
        for name in opponents:
            for information_state in (False, True):
                # one thread, and the default for enough games to share them (parallel kernels)
                for games, threads in ((4, 1), (2 * GAMES_PER_THREAD, None)):
                    vec = VectorGame(
                        game, games, opponents={1: name}, information_state=information_state, threads=threads
                    )
                    ts = vec.reset()
                    for _ in range(3):
                        ts = vec.step(np.argmax(ts.legal_mask, axis=1))


def _nets() -> None:
    _play(ZWICKER, ("net", "net:model=after", "expert:time=0,iters=20,worlds=4,leaf=after", "greedy"))


def _openspiel() -> None:
    for game in (ZWICKER, *TRICK_GAMES):
        _play(game, ("openspiel-ismcts:sims=20", "openspiel-mcts:sims=5,worlds=2", "random"))


def _mccfr() -> None:
    from zwick_ai.learn.cfr.train import train

    with tempfile.TemporaryDirectory() as out:
        for game in (MICRO_ZWICKER, MICRO_ZWIKKEN):  # the whole tree: exact evaluation
            train(game, "mccfr", 20, out=f"{out}/{len(game)}", eval_deals=4)
        train(FULL_ZWIKKEN, "mccfr", 20, out=f"{out}/zwikken", eval_deals=4)  # evaluated on deals
        train(ZWICKER_2P, "mccfr", 20, out=f"{out}/zwicker", abstraction="buckets", eval_deals=4)


def _rare_agents() -> None:
    _play(
        ZWICKER_2P,
        (
            "cfr-search:time=0,iters=5,worlds=4",
            "resolve:time=0,iters=5",
            "br-ismcts:iters=20",
            "cheat-uct:iters=20",
            "peek-uct:iters=20",
            "joker",
        ),
    )


def groups() -> tuple[Group, ...]:
    """What ``zwick precompile`` compiles, in order (``rare`` groups with ``--all`` only); built
    when asked, so that ``zwick --help`` imports nothing of the package below the command line."""
    from zwick_ai.precompile import Group

    return (
        Group("Zwicker", "the Zwicker engine and its searches (ismcts, pimc, expert, greedy)", _zwicker),
        Group("Zwikken/Zwicken", "the trick games' engines and searches", _tricks),
        Group("environments", "the Gymnasium and PettingZoo environments", _envs),
        Group("VectorGame", "VectorGame with its compiled opponents, one thread and several", _vector),
        Group("networks", "the compiled networks (net, the afterstate network, expert's network leaves)", _nets),
        Group("OpenSpiel bots", "OpenSpiel's ISMCTS and MCTS bots on our games", _openspiel),
        Group("MCCFR", "MCCFR training and its evaluation on micro games and a full board", _mccfr),
        Group("rare agents", "cfr-search, resolve, br-ismcts, cheat-uct, peek-uct, joker", _rare_agents, rare=True),
    )


def cmd_precompile(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from zwick_ai import _jit_cache
    from zwick_ai.precompile import chosen, notice_silenced, run_group, summary

    todo = chosen(groups(), args.all)
    print(
        f"zwick precompile: compiling the kernels of {len(todo)} groups for this machine "
        f"into {_jit_cache.cache_location()}; on an empty cache this takes about ten minutes of CPU, "
        "once per install or engine change; what is cached already only loads:",
        file=sys.stderr,
    )
    for g in todo:
        print(f"  {g.name}: {g.what}", file=sys.stderr)
    began, done = time.perf_counter(), []
    with notice_silenced(), tqdm(total=len(todo), unit="group", disable=args.no_progress) as bar:
        for group in todo:
            bar.set_description(group.name)
            done.append(run_group(group))
            bar.update()
    print(summary(done), file=sys.stderr)
    print(f"zwick precompile: done in {time.perf_counter() - began:.1f} s")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "precompile",
        help="compile the kernels up front, so that first runs start in seconds",
        description="Compile the kernels that first runs need, once, up front: each group runs a small real "
        "workload of one part of the package (a game of each agent, a few environment or VectorGame steps, a few "
        "MCCFR iterations), which compiles its kernels into the on-disk cache; a first tournament, environment or "
        "training run afterwards loads them in seconds. Run again, it finds everything cached and says so.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--all", action="store_true", help="also the rarer agents")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_precompile)
