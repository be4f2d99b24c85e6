"""The ``net`` agent: the learned Zwicker move model alone, no search.

At each turn it applies every legal whole move to a copy of the position, computes the features
of the position after it from its own view (only what the mover sees enters, not the cards a move
makes the engine deal) and scores each move with the learned model: an *after* model (``zwick
train net``) gives the exact lead after the move plus its expected points still to come
(:func:`zwick_ai.zwicker.model_scores.after_values`); a *move* model the expected final point
difference of the move over the mean of the decision's moves
(:func:`zwick_ai.zwicker.model_scores.net_values`). It plays a best one, ties at random
(:func:`~zwick_ai.zwicker.model_scores.nth_best`). The compiled ``net`` opponents of
:class:`zwick_ai.vector.VectorGame` score with the same kernels. Like
``greedy`` it never asks a partner (Großenwiehe). One compiled call per decision.

``reply=K`` (after models, games of two sides) looks one answer ahead: for the after model's
``top=`` best moves (default 4), in each of K worlds drawn for its view by the searches' exact
sampler, the next player answers with his best move by the same model from his own view of that
world, and a move's value is the mean over the worlds of the mover's side's after that answer
(:func:`reply_values`; about 1.2 ms a decision at K=16 and 1.4 ms at K=20, one compiled call).

``joker=RULE`` restricts its choice by a joker rule of :mod:`zwick_ai.agents.joker_policies`
(``hold``, ``early``, ``min_points=K``, ``build``, ``last_stage``): it plays the model's best move
among those the rule allows (the joker study's strong play).

The model is ``model=PATH`` or the package's trained weights for the game's variant and player
count (``zwick_ai/agents/weights``, one command each in its README): the *move* model, or with
``model=after`` the *after* model (every variant; ``zwick train net``). ``net`` without parameters
stays the move model, which the joker study's compiled ``net`` seats play too.

>>> import pyspiel, zwick_ai.games
>>> from zwick_ai.agents.base import make_agent
>>> from zwick_ai.games import zwicker_bridge
>>> game = pyspiel.load_game("zwicker(variant=dithmarschen,players=4)")
>>> state = zwicker_bridge.state_from_seed(game, 5)
>>> agent = make_agent("net", game, seed=1)
>>> agent.act(state) == make_agent("net", game, seed=1).act(state)
True
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

from zwick_ai.agents import joker_policies, value_model, zwicker_search
from zwick_ai.agents.base import Agent, Param, register
from zwick_ai.games import zwicker_bridge
from zwick_ai.jit import kernel
from zwick_ai.zwicker import kernels, layout, policy_codes
from zwick_ai.zwicker.features import side_diff
from zwick_ai.zwicker.model_scores import after_values, after_values_memo, count_best, layer_memo, net_values, nth_best

REPLY_TOP = 4  # reply=K looks ahead from the after model's best few moves only (a budget of 2 ms)


def model_for(
    game: pyspiel.Game | pyspiel.State, path: str = "", kind: str | tuple[str, ...] = "move"
) -> value_model.ValueModel:
    """The model ``path`` names, or the shipped one of the variant and player count of ``game`` (a
    Zwicker game or state; trained with the variant's default options), of ``kind`` (a tuple: any
    of these kinds, the shipped file of the first that exists)."""
    kinds = (kind,) if isinstance(kind, str) else kind
    rules = game.rules
    if path:
        model = value_model.load_model(path)
        if model.meta.get("kind") not in kinds:
            raise ValueError(f"{path} is a {model.meta.get('kind')} model; this needs a {' or '.join(kinds)} model")
        value_model.check_fits(model, rules, path)
        return model
    paths = [value_model.shipped_model_path(rules.variant, rules.players, k) for k in kinds]
    shipped = next((p for p in paths if p.is_file()), paths[-1])
    if not shipped.is_file():
        raise ValueError(
            f"no trained value model for {rules.variant} with {rules.players} players in the package; "
            f"train one with `zwick train value --variant {rules.variant} --players {rules.players}` and pass model=PATH"
        )
    model = value_model.load_model(shipped)
    value_model.check_fits(model, rules, shipped)
    return model


def _check(params: dict[str, Any]) -> None:
    joker_policies.constraint_code(params["joker"])  # a clear error for an unknown rule
    if params["reply"] < 0:
        raise ValueError(f"reply={params['reply']} is not valid; give 0 (one ply) or a number of worlds")
    if params["top"] < 1:
        raise ValueError(f"top={params['top']} is not valid; give at least 1")
    if params["reply"] and params["joker"]:
        raise ValueError("reply= and joker= do not combine; give one of them")


@kernel
def reply_values(worlds, meta, rows, first, top, nworlds, m):
    """Two-ply values of the ``top`` best of ``rows`` by ``first`` (the after model's one-ply
    values; the other moves get -inf): in each of ``nworlds`` worlds drawn for the view of
    ``worlds.player`` (:func:`~zwick_ai.agents.zwicker_search.det_draw` of ``worlds``, a
    :class:`~zwick_ai.agents.zwicker_search.Worlds`), the move is applied, the next player
    answers with his best move by the same after model from his own view of that world, and the
    move's value is p's side's after that answer (in a game of two sides, minus the answering
    side's after value; exact where the hand ends), averaged over the worlds."""
    R = worlds.game[: layout.RULES_SIZE]
    p, W = worlds.player, worlds.workspace
    n = rows.shape[0]
    out = np.full(n, -np.inf)
    order = np.argsort(-first, kind="mergesort")  # stable: ties keep the rows' order
    keep = min(top, n)
    total = np.zeros(n, np.float64)
    side = R[layout.R_SIDE_OF + p]
    ns = R[layout.R_NSIDES]
    buf, XX = kernels.new_buffers()
    memo = layer_memo(m)  # the answers' inputs differ in a few cards from one to the next
    for _ in range(nworlds):
        world = zwicker_search.det_draw(worlds, zwicker_search.TRIES, meta)
        for j in range(keep):
            i = order[j]
            if first[i] == -np.inf:
                continue
            after = world.copy()
            kernels.apply_move(R, after, rows[i], W)
            if after[layout.S_PHASE] == layout.PHASE_OVER:
                total[i] += side_diff(kernels.score(R, after).astype(np.float64), side, ns)
                continue
            q = after[layout.S_TO_MOVE]
            buf, XX, count = kernels.gen_moves(R, after, buf, W, XX)
            answers = after_values_memo(R, after, buf, count, m, W, memo)
            best = answers[: max(count, 1)].max() if count > 0 else 0.0
            total[i] += best if R[layout.R_SIDE_OF + q] == side else -best
    for j in range(keep):
        i = order[j]
        if first[i] > -np.inf:
            out[i] = total[i] / nworlds
    return out


def check_two_sides(game: pyspiel.Game) -> None:
    """Raise ``ValueError`` unless ``game`` has two sides, as the one-answer look-ahead needs
    (:func:`reply_values`: the answering side's value is the mover's negated)."""
    if game.rules.array()[layout.R_NSIDES] != 2:
        raise ValueError(f"reply= needs a game of two sides; {game.rules.variant} here has more")


def look_ahead(
    d: zwicker_search.DecisionSetup, rows: np.ndarray, first: np.ndarray, worlds: int, m: tuple, top: int = REPLY_TOP
) -> np.ndarray:
    """:func:`reply_values` of the decision ``d`` (its worlds drawn from ``d``'s view and random
    stream): the ``top`` best of ``rows`` by ``first`` looked one answer ahead in ``worlds``
    worlds by the after model ``m``, the other moves -inf."""
    return reply_values(d.worlds, np.zeros(zwicker_search.MT_SIZE, np.int64), rows, first, top, worlds, m)


@register(
    "net",
    params=[
        Param(
            "model",
            str,
            "",
            "after or move model .npz; 'after': the package's after model; empty: the package's move model",
        ),
        Param(
            "joker",
            str,
            "",
            "joker rule on its choice: hold, early, min_points=K, build, last_stage, each optionally @high, @rest or @X25 (those jokers only; empty: none)",
        ),
        Param(
            "reply",
            int,
            0,
            "after model only, games of two sides: look one answer ahead in this many drawn worlds "
            "(the next player's best move by the same model, for the top= best moves; 0 = one ply)",
        ),
        Param("top", int, REPLY_TOP, "reply=: how many of the after model's best moves it looks ahead from"),
    ],
    check=_check,
    games=("zwicker",),
    summary="Zwicker: the learned move model alone (scores each legal move from the position after it), no search.",
)
class NetAgent(Agent):
    """One-ply play with the learned move model (module docstring)."""

    def __init__(self, game: pyspiel.Game, seed: int = 0, **params: Any):
        super().__init__(game, seed, **params)
        path = "" if params["model"] == value_model.AFTER else params["model"]
        model = model_for(game, path, kind=(value_model.AFTER, "move") if path else (params["model"] or "move"))
        self.model = model.arrays()
        self.kind = str(model.meta.get("kind", "move"))
        self.after = self.kind == value_model.AFTER
        self.model_digest = model.digest()
        self.workspace = kernels.new_workspace()
        self.joker = joker_policies.constraint_code(params["joker"])
        self.reply = int(params["reply"])
        self.top = int(params["top"])
        if self.reply and not self.after:
            raise ValueError("reply= needs an after model (model=after or an after model's path)")
        if self.reply:
            check_two_sides(game)

    def identity(self) -> dict[str, Any]:
        """The parameters and the digest of the model it plays, by kind (a retrained model is another agent)."""
        return {**super().identity(), "models": {self.kind: self.model_digest}}

    def values(self, state: pyspiel.State) -> tuple[np.ndarray, np.ndarray]:
        """(candidate move rows, the move model's score of each) for a state at the start of a turn."""
        decision = state.decision()
        rows = decision.candidates
        S = decision.position.copy()
        score = after_values if self.after else net_values
        return rows, score(decision.rules_array, S, rows, len(rows), self.model, self.workspace)

    def act(self, state: pyspiel.State) -> list[int]:
        rows, values = self.values(state)
        if self.reply:
            setup = zwicker_search.DecisionSetup(state, self.rng)
            values = look_ahead(setup, rows, values, self.reply, self.model, self.top)
        if self.joker[0] != policy_codes.POLICY_GREEDY:  # the rule leaves it the allowed moves (never a question)
            decision = state.decision()
            ok = joker_policies.allowed_mask(decision.rules_array, decision.position.copy(), rows, *self.joker, False)
            values = np.where(ok, values, -np.inf)
        pick = nth_best(values, int(self.rng.integers(count_best(values))))
        return zwicker_bridge.move_actions(state, rows[pick])


__all__ = ["NetAgent", "check_two_sides", "look_ahead", "model_for"]
