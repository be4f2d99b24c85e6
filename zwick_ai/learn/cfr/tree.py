"""The full game tree of a small OpenSpiel game as flat arrays, extracted once through the pyspiel
API, for the compiled solvers of :mod:`zwick_ai.learn.cfr.exact` and the tree MCCFR of
:mod:`zwick_ai.learn.cfr.mccfr`.

Nodes are numbered breadth first, so a node's children are contiguous and every child has a
larger id than its parent: one forward loop visits parents before children (reach
probabilities), one backward loop children before parents (values). Information-state strings
are mapped to dense ids; each information set also carries its 64-bit key
(:func:`~zwick_ai.agents.cfr.keys.infoset_key`) under which tables and policy files store it.

Information abstraction (``abstraction="observation"``): information sets are keyed by the
observation string (``perfect_recall=False``) and the legal actions instead of the
information-state string. That merges every history that leads to the same current view (in
Zwicker: own hand, table and builds, won cards, scores, the move being built) with the same legal
actions, and forgets the order of earlier plays: an imperfect-recall abstraction, smaller and
without CFR's guarantees (on the Zwicker micro games of ``benchmarks/README.md`` it reached the
same or a lower ``nash_conv`` with 2-5x fewer information sets). It needs the whole tree like every tree game, so it
shrinks the tables, not the walk. Best responses (``nash_conv``) still use the true information sets.

>>> import pyspiel
>>> tree = extract(pyspiel.load_game("kuhn_poker"))
>>> tree.num_nodes, tree.num_infosets, tree.num_players
(58, 12, 2)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pyspiel

from zwick_ai.agents.cfr.keys import ABSTRACTIONS, abstract_text, infoset_key

NODE_TERMINAL, NODE_CHANCE, NODE_DECISION = 0, 1, 2  # node kinds of a GameTree
MAX_PACK = 8  # our games with bigger packs have far too many nodes to walk in Python


class TreeArrays(NamedTuple):
    """The arrays of a :class:`GameTree` that the compiled solvers walk
    (:meth:`GameTree.solver_arrays`); the fields are the tree's (see its docstring)."""

    kind: np.ndarray
    player: np.ndarray
    iset: np.ndarray
    start: np.ndarray
    num_children: np.ndarray  # the GameTree's ``count``
    child: np.ndarray
    prob: np.ndarray
    returns: np.ndarray
    iset_off: np.ndarray
    iset_n: np.ndarray
    iset_player: np.ndarray


@dataclass
class GameTree:
    """Flat arrays of a whole game tree (see the module docstring).

    Per node: ``kind`` (NODE_TERMINAL, NODE_CHANCE, NODE_DECISION), ``player``, ``iset`` (policy information set,
    -1 if none), ``br_iset`` (perfect-recall information set), ``start``/``count`` of its children
    in the edge arrays, ``returns[node]`` (terminal returns). Per edge: ``child``, ``prob`` (chance
    probability; 0 at decisions). Per information set: ``iset_player``, ``iset_off``/``iset_n``
    (its slice of the flat per-action arrays), ``iset_key`` and ``actions`` (flat legal actions)."""

    game: str
    num_players: int
    kind: np.ndarray
    player: np.ndarray
    iset: np.ndarray
    br_iset: np.ndarray
    start: np.ndarray
    count: np.ndarray
    returns: np.ndarray
    child: np.ndarray
    prob: np.ndarray
    iset_player: np.ndarray
    iset_off: np.ndarray
    iset_n: np.ndarray
    iset_key: np.ndarray
    actions: np.ndarray
    br_player: np.ndarray
    br_off: np.ndarray
    br_n: np.ndarray
    abstraction: str = "none"

    def solver_arrays(self) -> TreeArrays:
        """The arrays the compiled solvers walk (:class:`TreeArrays`)."""
        return TreeArrays(
            self.kind,
            self.player,
            self.iset,
            self.start,
            self.count,
            self.child,
            self.prob,
            self.returns,
            self.iset_off,
            self.iset_n,
            self.iset_player,
        )

    @property
    def num_nodes(self) -> int:
        return int(self.kind.shape[0])

    @property
    def num_infosets(self) -> int:
        return int(self.iset_player.shape[0])

    @property
    def num_edges(self) -> int:
        return int(self.actions.shape[0])


class InfosetArrays(NamedTuple):
    """The information sets of :class:`_Ids` as arrays (:meth:`_Ids.flat`): per set its player,
    the offset and number of its actions in ``actions`` and its key; the actions of every set in
    turn."""

    player: np.ndarray
    off: np.ndarray
    n: np.ndarray
    keys: np.ndarray
    actions: np.ndarray


class _Ids:
    """Dense ids of information sets with their player and legal actions."""

    def __init__(self):
        self.ids: dict[str, int] = {}
        self.player: list[int] = []
        self.actions: list[list[int]] = []
        self.keys: list[int] = []

    def get(self, text: str, key: int, player: int, legal: list[int]) -> int:
        i = self.ids.get(text)
        if i is None:
            i = self.ids[text] = len(self.player)
            self.player.append(player)
            self.actions.append(legal)
            self.keys.append(key)
        elif self.actions[i] != legal:
            raise ValueError(f"information set {text[:80]!r} has different legal actions in different states")
        return i

    def flat(self) -> InfosetArrays:
        n = np.array([len(a) for a in self.actions], np.int64)
        off = np.concatenate([[0], np.cumsum(n)[:-1]]).astype(np.int64) if len(n) else np.zeros(0, np.int64)
        return InfosetArrays(
            player=np.array(self.player, np.int64),
            off=off,
            n=n,
            keys=np.array(self.keys, np.int64),
            actions=np.array([a for row in self.actions for a in row], np.int64),
        )


def extract(game: pyspiel.Game, abstraction: str = "none", max_nodes: int = 2_000_000) -> GameTree:
    """Walk the whole tree of ``game`` (any sequential OpenSpiel game with explicit chance).

    Raises ``ValueError`` when the tree has more than ``max_nodes`` nodes, when one of our games has
    a pack of more than :data:`MAX_PACK` cards (checked before walking), or when ``abstraction`` is
    not one of :data:`ABSTRACTIONS`."""
    if abstraction not in ABSTRACTIONS:
        raise ValueError(f"unknown abstraction {abstraction!r}; valid: {', '.join(ABSTRACTIONS)}")
    deck = getattr(getattr(game, "rules", None), "deck", None)
    if deck is not None and len(deck) > MAX_PACK:
        raise ValueError(
            f"{game} has a pack of {len(deck)} cards: too large for the whole tree (at most {MAX_PACK}); "
            "reduce it (ranks=, suits=, tricks= / hand_size=, table_size=, stages=), or use mccfr with an information "
            "abstraction (trick games: --abstraction buckets; zwicker: --abstraction buckets or coarse)"
        )
    n_players = game.num_players()
    kind: list[int] = []
    player: list[int] = []
    iset: list[int] = []
    br_iset: list[int] = []
    start: list[int] = []
    count: list[int] = []
    child: list[int] = []
    prob: list[float] = []
    terminal_returns: dict[int, list[float]] = {}
    policy_ids, br_ids = _Ids(), _Ids()
    frontier = [game.new_initial_state()]
    next_id = 1
    for node_id in range(max_nodes + 1):
        if node_id >= len(frontier):
            break
        state = frontier[node_id]
        frontier[node_id] = None  # free memory as the walk proceeds
        start.append(len(child))
        if state.is_terminal():
            kind.append(NODE_TERMINAL)
            player.append(-1)
            iset.append(-1)
            br_iset.append(-1)
            count.append(0)
            terminal_returns[node_id] = state.returns()
            continue
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            kind.append(NODE_CHANCE)
            player.append(-1)
            iset.append(-1)
            br_iset.append(-1)
            acts = [a for a, _ in outcomes]
            prob.extend(p for _, p in outcomes)
        else:
            p = state.current_player()
            acts = state.legal_actions(p)
            kind.append(NODE_DECISION)
            player.append(p)
            info = state.information_state_string(p)
            b = br_ids.get(info, infoset_key(state, p), p, acts)
            br_iset.append(b)
            if abstraction == "none":
                iset.append(b)
            else:
                key = infoset_key(state, p, abstraction)
                iset.append(policy_ids.get(abstract_text(state, p), key, p, acts))
            prob.extend([0.0] * len(acts))
        count.append(len(acts))
        for a in acts:
            child.append(next_id)
            next_id += 1
            frontier.append(state.child(a))
        if next_id > max_nodes:
            raise ValueError(f"{game} has more than {max_nodes} nodes: too large for exact extraction")
    n = len(kind)
    returns = np.zeros((n, n_players), np.float64)
    for node_id, r in terminal_returns.items():
        returns[node_id] = r
    ids = policy_ids if abstraction != "none" else br_ids
    sets, br_sets = ids.flat(), br_ids.flat()
    return GameTree(
        str(game),
        n_players,
        np.array(kind, np.int8),
        np.array(player, np.int64),
        np.array(iset, np.int64),
        np.array(br_iset, np.int64),
        np.array(start, np.int64),
        np.array(count, np.int64),
        returns,
        np.array(child, np.int64),
        np.array(prob, np.float64),
        sets.player,
        sets.off,
        sets.n,
        sets.keys,
        sets.actions,
        br_sets.player,
        br_sets.off,
        br_sets.n,
        abstraction,
    )
