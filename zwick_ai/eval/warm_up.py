"""The playing groups of ``zwick precompile`` (:mod:`zwick_ai.precompile`): one real game of each
agent, played as a tournament plays it (:func:`~zwick_ai.eval.match.play_game`), which compiles
its kernels for the argument types of their real calls.

Importing this module loads nothing heavy: each workload imports what it plays when it runs.
"""

from __future__ import annotations

from collections.abc import Sequence

from zwick_ai.precompile import TRICK_GAMES, ZWICKER, ZWICKER_2P, Group

#: small budgets: the workloads compile, they need not play well
SEARCHES = ("ismcts:iters=20", "pimc:worlds=4,iters=10", "expert:time=0,iters=20,worlds=4", "greedy")
TRICK_AGENTS = ("ismcts:iters=20", "pimc:worlds=4,iters=10", "greedy", "random")
NETWORKS = ("net", "net:model=after", "expert:time=0,iters=20,worlds=4,leaf=after", "greedy")
OPENSPIEL_BOTS = ("openspiel-ismcts:sims=20", "openspiel-mcts:sims=5,worlds=2", "random")
RARE_AGENTS = (
    "cfr-search:time=0,iters=5,worlds=4",
    "resolve:time=0,iters=5,leaf=model",  # untimed, leaf=auto solves small stages exactly: minutes
    "br-ismcts:iters=20",
    "cheat-uct:iters=20",
    "peek-uct:iters=20",
    "joker",
)


def play(game_string: str, specs: Sequence[str], deal: int = 0) -> None:
    """One game of ``specs`` (repeated round the table) on ``game_string``."""
    import pyspiel

    import zwick_ai.games  # noqa: F401  (registers the games)
    from zwick_ai.agents.base import make_agent
    from zwick_ai.eval.match import play_game

    game = pyspiel.load_game(game_string)
    seats = [specs[i % len(specs)] for i in range(game.num_players())]
    play_game(game, [make_agent(s, game, seed=i) for i, s in enumerate(seats)], deal)


def _zwicker() -> bool:
    from zwick_ai.agents import zwicker_precompile

    helper = zwicker_precompile.compile_in_two_processes(search=True, expert=True)
    play(ZWICKER, SEARCHES)
    play(ZWICKER_2P, ("expert:time=0,iters=20,worlds=4", "random"))
    return helper


def _tricks() -> None:
    for game_string in TRICK_GAMES:
        play(game_string, TRICK_AGENTS)


def _networks() -> None:
    play(ZWICKER, NETWORKS)


def _openspiel() -> None:
    for game_string in (ZWICKER, *TRICK_GAMES):
        play(game_string, OPENSPIEL_BOTS)


def _rare_agents() -> None:
    play(ZWICKER_2P, RARE_AGENTS)


ZWICKER_GROUP = Group("Zwicker", "the Zwicker engine and its searches (ismcts, pimc, expert, greedy)", _zwicker)
TRICKS_GROUP = Group("Zwikken/Zwicken", "the trick games' engines and searches", _tricks)
NETWORKS_GROUP = Group(
    "networks", "the compiled networks (net, the afterstate network, expert's network leaves)", _networks
)
OPENSPIEL_GROUP = Group("OpenSpiel bots", "OpenSpiel's ISMCTS and MCTS bots on our games", _openspiel)
RARE_GROUP = Group("rare agents", "cfr-search, resolve, br-ismcts, cheat-uct, peek-uct, joker", _rare_agents, rare=True)
