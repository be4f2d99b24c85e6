"""Search teachers for the learned models: a search on the mover's information set values each
candidate move of a decision, and the learners fit those values.

:func:`teacher_search` is the teacher, ISMCTS (:func:`zwick_ai.agents.zwicker_search.root_search`,
UCB constant :data:`TEACHER_C`, random play-outs) or the ``expert`` agent's search (its defaults,
no clock: :func:`zwick_ai.agents.expert.expert_root`), each with a fixed number of iterations a
decision. ``zwick train value --teacher ismcts|expert`` fits the move model to it
(:mod:`zwick_ai.learn.value_train`); ``zwick train net --teacher ismcts|expert`` the after model
(:func:`after_records`, :mod:`zwick_ai.learn.net_train`).

Unlike the ``peek`` teacher of :func:`zwick_ai.learn.net_selfplay.selfplay_search_targets`, which
searches the true hands, these teachers see only what the mover sees: they sample the hidden cards
as the agents do in play, so their values are what the mover can expect from each move, not what
a player who saw every hand would get. The hands are played through the OpenSpiel game, since the
searches draw their worlds from its history; the search dominates the cost (seconds a hand).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

import numpy as np

if TYPE_CHECKING:
    from zwick_ai.learn.net_selfplay import ShardRecords

SEARCH_TEACHERS = ("ismcts", "expert")  # teachers whose targets are a search's root values
TEACHER_C = 0.7  # the ismcts agent's default UCB constant

Teacher = Callable[[Any, np.random.Generator], tuple[np.ndarray, np.ndarray, int]]


def teacher_search(kind: str, iters: int, game: Any, options: str = "") -> Teacher:
    """The teacher as a function of (state, rng) -> (weight of each candidate row, its mean reward
    on the scale of :func:`zwick_ai.agents.zwicker_search.side_rewards`, the index the agent plays):
    ISMCTS's root visits, or the expert's weights (in the endgame, where every value is exact, the
    ``iters`` shared equally among the candidates). ``options`` are further ``expert`` parameters
    (``"leaf=after,prior=8"``: the afterstate network as leaf and root prior, a cheaper teacher)."""
    if kind not in SEARCH_TEACHERS:
        raise ValueError(f"unknown search teacher {kind!r}; valid: {', '.join(SEARCH_TEACHERS)}")
    if options and kind != "expert":
        raise ValueError(f"teacher options {options!r} are expert parameters; give them with the expert teacher")
    if kind == "ismcts":
        from zwick_ai.agents import zwicker_search

        params = {"iters": iters, "time": 0.0, "c": TEACHER_C, "rollout": "random"}

        def ismcts(state: Any, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, int]:
            _, visits, mean = zwicker_search.root_search(state, params, rng)
            return visits, mean, zwicker_search.best_index(visits.astype(np.float64), mean)

        return ismcts
    from zwick_ai.agents import expert
    from zwick_ai.agents.base import make_agent

    spec = f"expert:time=0,iters={iters}" + (f",{options}" if options else "")
    agent = cast(expert.ExpertAgent, make_agent(spec, game))

    def expert_teacher(state: Any, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, int]:
        _, weight, mean, exact = expert.expert_root(state, agent.params, rng, agent)
        best = int(np.argmax(expert.root_score(weight, mean, exact)))
        if exact:  # every value exact: the decision weighs as much as a searched one
            weight = np.full(len(mean), iters / len(mean))
        return weight, mean, best

    return expert_teacher


def after_records(
    game_string: str,
    seeds: np.ndarray,
    kind: str,
    iters: int,
    min_visits: int,
    eps: float,
    seed: int,
    options: str = "",
) -> ShardRecords:
    """One hand per deal seed, played by the teacher (its best move; a uniformly random move with
    probability ``eps``), and at every decision with two or more card moves one record per card
    move the search tried at least ``min_visits`` times that does not end the hand: the after
    model's input of the position after it from the mover's view, its lead, and as the target the
    search's mean value of the move in points (the mover's side minus the mean of the others).
    ``options`` are the expert teacher's further parameters (:func:`teacher_search`).
    Returns :class:`~zwick_ai.learn.net_selfplay.ShardRecords` (``value`` NaN: the targets are
    not chained; ``hand`` the index in ``seeds``). Every random choice comes from ``seed`` and the
    deal's seed.

    >>> import numpy as np
    >>> recs = after_records("zwicker(variant=classic,players=2)", np.array([3]), "ismcts", 50, 5, 0.0, 1)
    >>> len(recs.final) > 0 and bool(np.isnan(recs.value).all()) and set(recs.hand.tolist()) == {0}
    True
    """
    import pyspiel

    import zwick_ai.games  # noqa: F401  (registers the games)
    from zwick_ai.games import zwicker_bridge
    from zwick_ai.games.game_loop import play_to_end, stream_chance
    from zwick_ai.learn.net_selfplay import ShardRecords
    from zwick_ai.zwicker import kernels, layout
    from zwick_ai.zwicker.features import CARD_BLOCK, F_LEAD, F_ZWICK, NFEAT, after_input

    game = pyspiel.load_game(game_string)
    search = teacher_search(kind, iters, game, options)
    W = kernels.new_workspace()
    cols: dict[str, list[Any]] = {k: [] for k in ("x", "lead", "final", "player", "hand")}
    for h, deal in enumerate(seeds):
        rng = np.random.default_rng([seed, int(deal)])
        state = zwicker_bridge.state_from_seed(game, int(deal))
        R = state.rules.array()
        total = float(state.rules.card_total)
        width = NFEAT + CARD_BLOCK * int(R[layout.R_DECK_SIZE])

        def decide(state: Any, h: int = h, rng: np.random.Generator = rng, R: Any = R, total: float = total,
                   width: int = width) -> list[int]:  # fmt: skip
            decision = state.decision()
            rows = decision.candidates
            n = len(rows)
            if n == 1:
                return zwicker_bridge.move_actions(state, rows[0])
            weight, mean, best = search(state, rng)
            card_moves = rows[:, layout.M_KIND] != layout.KIND_ASK
            if int(card_moves.sum()) >= 2:
                S = decision.position
                p = int(S[layout.S_TO_MOVE])
                for k in np.flatnonzero(card_moves & (weight >= min_visits)):
                    after = S.copy()
                    kernels.apply_move(R, after, rows[k], W)
                    if after[layout.S_PHASE] == layout.PHASE_OVER:
                        continue
                    x = after_input(R, S, after, p, np.zeros(width, np.float64))
                    cols["x"].append(x)
                    cols["lead"].append(x[F_LEAD] + x[F_ZWICK])
                    cols["final"].append(mean[k] * total)
                    cols["player"].append(p)
                    cols["hand"].append(h)
            pick = int(rng.integers(n)) if rng.random() < eps else best
            return zwicker_bridge.move_actions(state, rows[pick])

        play_to_end(state, decide, stream_chance(rng))
    width = NFEAT + CARD_BLOCK * int(pyspiel.load_game(game_string).rules.array()[layout.R_DECK_SIZE])
    X = np.array(cols["x"], np.float64).reshape(-1, width)
    return ShardRecords(
        features=X[:, :NFEAT].astype(np.float32),
        cards=X[:, NFEAT:].astype(np.uint8),
        lead=np.array(cols["lead"], np.float32),
        final=np.array(cols["final"], np.float32),
        value=np.full(len(X), np.nan, np.float32),
        player=np.array(cols["player"], np.int32),
        hand=np.array(cols["hand"], np.int32),
    )


__all__ = ["SEARCH_TEACHERS", "TEACHER_C", "Teacher", "after_records", "teacher_search"]
