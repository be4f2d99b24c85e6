"""Search agents for the three games: ``ismcts`` (single-observer information-set MCTS) and
``pimc`` (perfect-information Monte Carlo: search sampled worlds, vote).

Both sample worlds consistent with the searching seat's information only (never the hidden cards
of the state they are given) and run their whole search in compiled code. They dispatch by game to
a backend module with the functions ``ismcts_decision(state, params, rng)`` and
``pimc_decision(state, params, rng)``: :mod:`zwick_ai.agents.zwicker_search` for ``zwicker``
(whole moves; its docstring describes the algorithms, the reward scale [-1, 1] on which ``c``
acts, and the PIMC vote) and ``zwick_ai.agents.tricks_search`` for ``zwikken``/``zwicken``.
Backends are imported when first needed, so a missing one gives a clear error.

Two Zwicker agents here are **reference ceilings, not fair players**: ``cheat-uct`` (UCT on the
true deal, the stock's order included) and ``peek-uct`` (UCT whose every iteration keeps the other
players' true hands and shuffles the stock). Each reads the hidden cards from the full engine
state of the OpenSpiel state it is handed, which fair agents use only to start their samplers;
they measure how much room knowing the cards leaves above a fair search.

>>> import pyspiel, zwick_ai.games
>>> from zwick_ai.agents.base import make_agent
>>> game = pyspiel.load_game("zwicker(variant=classic,players=2)")
>>> make_agent("ismcts:iters=50,rollout=greedy", game, seed=1).spec
'ismcts:iters=50,rollout=greedy'
>>> make_agent("ismcts:rollout=smart", game)
Traceback (most recent call last):
...
ValueError: rollout='smart' is not valid; valid: random, greedy
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

import pyspiel

from zwick_ai.agents.base import Agent, Param, check_search_iters, register

ROLLOUTS = ("random", "greedy")
#: the Zwicker searches' objectives (``utility=``, :func:`zwick_ai.agents.zwicker_search.reward_scale`);
#: ``auto`` is the one measured best on the board
UTILITIES = ("auto", "clip", "margin", "bound")
DEFAULT_ITERS = 1000  # ISMCTS iterations per decision when neither iters nor time is given
BACKENDS = {
    "zwicker": "zwick_ai.agents.zwicker_search",
    "zwikken": "zwick_ai.agents.tricks_search",
    "zwicken": "zwick_ai.agents.tricks_search",
}


def backend(game_name: str) -> ModuleType:
    """The search backend module of ``game_name`` (imported on first use)."""
    name = BACKENDS.get(game_name)
    if name is None:
        raise ValueError(f"no search backend for {game_name!r}; valid games: {', '.join(BACKENDS)}")
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name != name:
            raise
        raise ValueError(f"the search backend {name} for {game_name} is not installed") from None


def resolved_budget(params: dict[str, Any]) -> dict[str, Any]:
    """``params`` with the ISMCTS budget made explicit: a time budget given alone means that wall
    clock time (no iteration cap); neither given means ``DEFAULT_ITERS`` iterations."""
    if params["iters"] == 0 and params.get("time", 0.0) == 0:
        return {**params, "iters": DEFAULT_ITERS}
    return params


def check_ismcts(params: dict[str, Any]) -> None:
    """:func:`check_params` for the ISMCTS budget (``iters=0, time=0`` is the default budget)."""
    check_params(resolved_budget(params))


def check_params(params: dict[str, Any]) -> None:
    """Raise ``ValueError`` naming what is valid for a bad rollout, ``c``, ``worlds`` or budget."""
    if params["rollout"] not in ROLLOUTS:
        raise ValueError(f"rollout={params['rollout']!r} is not valid; valid: {', '.join(ROLLOUTS)}")
    if params["c"] < 0:
        raise ValueError(f"c={params['c']} is not valid; the exploration constant must be >= 0")
    check_utility(params)
    if params.get("worlds", 1) <= 0:
        raise ValueError(f"worlds={params['worlds']} is not valid; give at least one world")
    if params["iters"] < 0 or params.get("time", 0.0) < 0:
        raise ValueError("iters and time must be >= 0")
    check_search_iters(params["iters"])
    if params["iters"] == 0 and params.get("time", 0.0) == 0:
        raise ValueError("give a positive iteration count (iters) or time budget (time, seconds)")


def check_utility(params: dict[str, Any]) -> None:
    """Raise ``ValueError`` naming the valid objectives for a bad ``utility``."""
    if params.get("utility", "auto") not in UTILITIES:
        raise ValueError(f"utility={params['utility']!r} is not valid; valid: {', '.join(UTILITIES)}")


#: the Zwicker searches' objective (``ismcts``, ``pimc``, ``expert``, ``cfr-search``)
UTILITY_PARAM = Param(
    "utility",
    str,
    "auto",
    "Zwicker: the objective: clip (point margin over card points, clipped to [-1, 1]), margin (unclipped), "
    "bound (over a bound with Zwicks), auto (the board's measured best)",
)

# The tree-search parameters both agents take, after their budget parameters.
SEARCH_PARAMS = (
    Param("c", float, 0.7, "UCB exploration constant on rewards scaled to [-1, 1]"),
    Param("rollout", str, "random", "rollout policy: random or greedy"),
    UTILITY_PARAM,
)


@register(
    "ismcts",
    params=[
        Param(
            "iters",
            int,
            0,
            f"iterations per decision; 0 = {DEFAULT_ITERS} without a time budget, no cap with one",
        ),
        Param("time", float, 0.0, "seconds per decision, wall clock (0 = none); given alone it is the whole budget"),
        *SEARCH_PARAMS,
    ],
    summary="single-observer information-set MCTS over whole decisions, compiled.",
    check=check_ismcts,
)
class IsmctsAgent(Agent):
    """Single-observer ISMCTS (Cowling, Powley, Whitehouse 2012): a fresh consistent world per
    iteration, UCB with availability counts, random or greedy rollouts."""

    def act(self, state: pyspiel.State) -> list[int]:
        params = resolved_budget(self.params)
        return [int(x) for x in backend(self.game_name).ismcts_decision(state, params, self.rng)]


@register(
    "pimc",
    params=[
        Param("worlds", int, 20, "sampled worlds per decision"),
        Param("iters", int, 200, "UCT iterations per world"),
        *SEARCH_PARAMS,
    ],
    summary="perfect-information Monte Carlo: UCT on sampled worlds, vote by visit shares.",
    check=check_params,
)
class PimcAgent(Agent):
    """PIMC: perfect-information UCT on each of ``worlds`` sampled worlds; the move with the
    largest sum of root visit shares is played."""

    def act(self, state: pyspiel.State) -> list[int]:
        return [int(x) for x in backend(self.game_name).pimc_decision(state, self.params, self.rng)]


@register(
    "cheat-uct",
    params=[
        Param("iters", int, 0, f"iterations per decision; 0 = {DEFAULT_ITERS} without a time budget, no cap with one"),
        Param("time", float, 0.0, "seconds per decision, wall clock (0 = none); given alone it is the whole budget"),
        *SEARCH_PARAMS,
    ],
    games=("zwicker",),
    summary="Zwicker: UCT on the TRUE deal (every hand and the stock's order): a reference ceiling, not a fair player.",
    check=check_ismcts,
)
class CheatUctAgent(Agent):
    """Perfect-information UCT on the real state, hidden cards included: not a fair player, the
    ceiling of what knowing the cards is worth at a budget (the same search as ``ismcts``, one
    fixed world: the full engine state of the OpenSpiel state it is handed)."""

    def act(self, state: pyspiel.State) -> list[int]:
        params = resolved_budget(self.params)
        return [int(x) for x in backend(self.game_name).cheat_decision(state, params, self.rng)]


def check_best_response(params: dict[str, Any]) -> None:
    """:func:`check_ismcts` for ``br-ismcts``, whose ``vs`` names a compiled player."""
    if params["vs"] not in ROLLOUTS:
        raise ValueError(f"vs={params['vs']!r} is not valid; valid: {', '.join(ROLLOUTS)} (the fixed agent modelled)")
    check_ismcts(params)


@register(
    "br-ismcts",
    params=[
        Param("vs", str, "greedy", "the fixed agent modelled exactly at every other seat: random or greedy"),
        Param("iters", int, 0, f"iterations per decision; 0 = {DEFAULT_ITERS} without a time budget, no cap with one"),
        Param("time", float, 0.0, "seconds per decision, wall clock (0 = none); given alone it is the whole budget"),
        *SEARCH_PARAMS,
    ],
    games=("zwicker",),
    summary="Zwicker: a best response to a fixed agent: ISMCTS whose tree and play-outs play that agent "
    "(random or greedy) at every other seat; measures a lower bound on an agent's exploitability.",
    check=check_best_response,
)
class BestResponseIsmctsAgent(Agent):
    """ISMCTS for one side against fixed opponents: the other sides' moves in the tree and the
    play-outs are the compiled player ``vs`` (exact for ``random`` and ``greedy``; an approximate
    model of any other agent), its own moves are searched by UCB. Its worlds are uniform among
    the deals consistent with what it saw (not weighted by the opponents' policy), so it responds
    less than best: what it wins against an agent is a lower bound on what a best response wins."""

    def act(self, state: pyspiel.State) -> list[int]:
        params = resolved_budget(self.params)
        return [int(x) for x in backend(self.game_name).ismcts_decision(state, params, self.rng)]


def check_peek(params: dict[str, Any]) -> None:
    """:func:`check_params` for ``peek-uct`` (``worlds=0``: one tree, the ISMCTS budget rules)."""
    if params["worlds"] < 0:
        raise ValueError(f"worlds={params['worlds']} is not valid; give 0 (one tree) or a number of worlds")
    if params["worlds"] == 0:
        check_ismcts({**params, "worlds": 1})
    else:
        check_params(params)


@register(
    "peek-uct",
    params=[
        Param(
            "worlds",
            int,
            0,
            "0: one UCT tree, a fresh world (true hands, the stock shuffled) every iteration; "
            "N: PIMC vote over N such worlds",
        ),
        Param(
            "iters",
            int,
            0,
            f"iterations per decision (per world when worlds > 0); 0 = {DEFAULT_ITERS} without a time budget",
        ),
        Param("time", float, 0.0, "seconds per decision, wall clock (split over the worlds when worlds > 0; 0 = none)"),
        *SEARCH_PARAMS,
    ],
    games=("zwicker",),
    summary="Zwicker: UCT whose worlds keep the other players' TRUE hands and shuffle the stock: "
    "the ceiling of inference, a reference, not a fair player.",
    check=check_peek,
)
class PeekUctAgent(Agent):
    """UCT on worlds with every player's true hand and a freshly shuffled stock: what a player who
    inferred the hands exactly could reach. A reference ceiling, not a fair player: it reads the
    hidden hands from the full engine state of the OpenSpiel state it is handed (``cheat-uct`` also
    sees the stock's order, which nobody can infer)."""

    def act(self, state: pyspiel.State) -> list[int]:
        params = self.params if self.params["worlds"] > 0 else resolved_budget(self.params)
        return [int(x) for x in backend(self.game_name).peek_decision(state, params, self.rng)]


__all__ = [
    "BACKENDS",
    "BestResponseIsmctsAgent",
    "CheatUctAgent",
    "DEFAULT_ITERS",
    "ROLLOUTS",
    "UTILITIES",
    "UTILITY_PARAM",
    "IsmctsAgent",
    "PeekUctAgent",
    "PimcAgent",
    "backend",
    "check_ismcts",
    "check_best_response",
    "check_params",
    "check_utility",
    "check_peek",
    "resolved_budget",
]
