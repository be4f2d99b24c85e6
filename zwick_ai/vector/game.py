"""``VectorGame``: many games of one OpenSpiel game string held in arrays and stepped at once in
compiled code, every game at its own player to move (docs/vector.md)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numba
import numpy as np
import pyspiel

from zwick_ai import mlp
from zwick_ai.games.zwicker_observer import ZwickerObserver
from zwick_ai.tricks import kernels as trick_kernels
from zwick_ai.vector import tricks_batch, zwicker_batch
from zwick_ai.zwicker import kernels as engine_kernels
from zwick_ai.zwicker import layout
from zwick_ai.zwicker.features import CARD_BLOCK, NFEAT
from zwick_ai.zwicker.history import MAXTOK
from zwick_ai.zwicker.policy_codes import (
    POLICY_CALLER,
    POLICY_GREEDY,
    POLICY_NET,
    POLICY_NET_AFTER,
    POLICY_RANDOM_ACTION,
)

#: games per thread when ``threads`` is not given
GAMES_PER_THREAD = 256

#: the opponents played in compiled code, per game family, by name, with their code in the kernels
#: (:mod:`zwick_ai.zwicker.policy_codes`; a seat not named here is the caller's, ``POLICY_CALLER``)
OPPONENTS = {
    "zwicker": {
        "random": POLICY_RANDOM_ACTION,
        "greedy": POLICY_GREEDY,
        "net": POLICY_NET,
        "net:model=after": POLICY_NET_AFTER,
    },
    "zwikken": {"random": POLICY_RANDOM_ACTION},
    "zwicken": {"random": POLICY_RANDOM_ACTION},
}


@dataclass
class TimeStep:
    """What :meth:`VectorGame.reset` and :meth:`VectorGame.step` return: arrays over the games,
    read-only views of the game's buffers, overwritten by the next step (copy what you keep)."""

    current_player: np.ndarray  # int64 [N]: the seat to move in each game
    observation: np.ndarray  # float32 [N, D]: observation (or information-state) tensor of that seat
    legal_mask: np.ndarray  # bool [N, A]: the legal OpenSpiel actions
    deal_seed: np.ndarray  # int64 [N]: the deal seed of the game now played
    rewards: np.ndarray  # float32 [N, players]: the returns of a game that ended at this step, else 0
    terminated: np.ndarray  # bool [N]: the game ended at this step (and restarted with a new deal)


class VectorGame:
    """``num_games`` games of ``game_string`` (a ``zwicker``, ``zwikken`` or ``zwicken`` game
    string) stepped in compiled code.

    Actions, tensors and returns are those of ``pyspiel.load_game(game_string)``; game ``i`` starts
    with deal seed ``seed + i`` (the deal of ``play_game(..., deal_seed=seed + i)``) and a game that
    ends restarts with the next unused seed. Chance never shows: every game stands at a decision.
    ``opponents={seat: name}`` plays those seats in compiled code (names in :data:`OPPONENTS`;
    their random choices seeded by ``seed``), so ``step`` returns only at the other seats' turns.
    ``information_state=True`` observes the information-state tensor instead of the observation
    tensor. ``threads`` is how many cores step the games, each its own consecutive share of them
    (default: one per :data:`GAMES_PER_THREAD` games, at most numba's thread count); 1 runs them
    on the calling thread only.
    """

    def __init__(
        self,
        game_string: str,
        num_games: int,
        seed: int = 0,
        opponents: Mapping[int, str] | None = None,
        information_state: bool = False,
        threads: int | None = None,
    ):
        import zwick_ai.games  # noqa: F401  (registers the games)

        if num_games < 1:
            raise ValueError(f"num_games must be at least 1, got {num_games}")
        game = pyspiel.load_game(game_string)
        self.family = game.get_type().short_name
        if self.family not in OPPONENTS:
            raise ValueError(f"VectorGame plays zwicker, zwikken and zwicken games; got {game_string!r}")
        self.game = game
        self.num_games = int(num_games)
        self.num_players = game.num_players()
        self.num_actions = game.num_distinct_actions()
        self.information_state = bool(information_state)
        size = game.information_state_tensor_size() if information_state else game.observation_tensor_size()
        known = OPPONENTS[self.family]
        self._opponent = np.full(self.num_players, POLICY_CALLER, np.int64)
        for seat, name in (opponents or {}).items():
            if not 0 <= int(seat) < self.num_players:
                raise ValueError(f"opponent seat {seat} is not a seat in 0..{self.num_players - 1}")
            if name not in known:
                raise ValueError(f"unknown compiled opponent {name!r} for {self.family}; known: {', '.join(known)}")
            self._opponent[int(seat)] = known[name]
        if (self._opponent != POLICY_CALLER).all():
            raise ValueError("every seat is an opponent: leave at least one seat to the caller")
        available = int(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]
        # by default one thread per GAMES_PER_THREAD games: a parallel step of a few games costs
        # more in thread hand-offs than it saves
        self.threads = min(available, max(1, int(num_games) // GAMES_PER_THREAD)) if threads is None else int(threads)
        if not 1 <= self.threads <= available:
            raise ValueError(f"threads must be in 1..{available}, got {threads}")
        n = self.num_games
        self.seed = int(seed)
        self._rng = np.zeros(n, np.uint64)
        self._next_seed = self.seed + n
        self._cur = np.zeros(n, np.int64)
        self._obs = np.zeros((n, size), np.float32)
        self._mask = np.zeros((n, self.num_actions), np.bool_)
        self._seeds = np.arange(self.seed, self.seed + n, dtype=np.int64)
        self._rewards = np.zeros((n, self.num_players), np.float32)
        self._done = np.zeros(n, np.bool_)
        self._actions = np.zeros(n, np.int64)
        self._ts = TimeStep(
            *(_read_only(x) for x in (self._cur, self._obs, self._mask, self._seeds, self._rewards, self._done))
        )
        bounds = np.linspace(0, n, min(self.threads, n) + 1).astype(int)
        self._parts = [slice(int(lo), int(hi)) for lo, hi in zip(bounds[:-1], bounds[1:], strict=True)]
        self._shards = numba.typed.List()
        if self.family == "zwicker":
            self._batch: Any = zwicker_batch
            self._init_zwicker(game, n)
        else:
            self._batch = tricks_batch
            self._init_tricks(game, n)

    def _init_zwicker(self, game: pyspiel.Game, n: int) -> None:
        """The zwicker games' arrays and one shard per thread: consecutive games as views of the
        batch arrays, with the shard's own copies of the read-only tables and its own scratch (see
        :mod:`zwick_ai.vector.zwicker_batch`)."""
        tables = game.tables
        off = ZwickerObserver(game, self.information_state, True, True)._off
        models = (self._net_model(game, "move"), self._net_model(game, "after"))
        self._states = np.zeros((n, len(tables.init)), np.int32)
        self._mv = np.zeros((n, zwicker_batch.CAP, layout.MOVE_WIDTH), np.int64)
        self._tk = np.zeros((n, zwicker_batch.CAP, zwicker_batch.TCAP), np.int16)
        self._rows = np.full(n, -1, np.int64)
        self._own: tuple[np.ndarray, ...] = (self._states, self._mv, self._tk, self._rows)
        sides = int(tables.rules.num_sides)
        for part in self._parts:
            self._shards.append(
                zwicker_batch.Shard(
                    game=tables.game_table.copy(),
                    init=tables.init.copy(),
                    off=off.copy(),
                    opponent=self._opponent.copy(),
                    win_loss=bool(tables.win_loss),
                    states=self._states[part],
                    moves=self._mv[part],
                    tokens=self._tk[part],
                    kept=self._rows[part],
                    cur=self._cur[part],
                    mask=self._mask[part],
                    obs=self._obs[part],
                    rewards=self._rewards[part],
                    done=self._done[part],
                    seeds=self._seeds[part],
                    rng=self._rng[part],
                    actions=self._actions[part],
                    scratch=zwicker_batch.Scratch(
                        workspace=np.zeros(engine_kernels.WS_SIZE, np.int64),
                        move_buf=np.zeros((zwicker_batch.BUF_ROWS, layout.MOVE_WIDTH), np.int64),
                        capture_buf=np.zeros(zwicker_batch.XS_SIZE, np.int64),
                        token_buf=np.zeros(MAXTOK + 8, np.int64),
                        row=np.zeros(layout.MOVE_WIDTH, np.int64),
                        score_buf=np.zeros(max(sides, 1), np.int64),
                        opponent_mask=np.zeros(self.num_actions, np.bool_),
                    ),
                    models=tuple(mlp.Perceptron(*(x.copy() for x in model)) for model in models),
                    heavy=np.zeros(part.stop - part.start, np.int64),
                )
            )

    def _net_model(self, game: pyspiel.Game, kind: str) -> mlp.Perceptron:
        """The arrays of the package's ``kind`` model (``move``: the ``net`` agent's default,
        ``after``: ``net:model=after``) for this game's variant and players, if a seat plays it;
        else the same types' "no model" (never evaluated)."""
        code = POLICY_NET if kind == "move" else POLICY_NET_AFTER
        if code not in self._opponent:
            return mlp.no_model(NFEAT)
        rules = game.rules
        path = mlp.shipped_path(rules.variant, rules.players, kind)
        if not path.is_file():
            raise ValueError(
                f"no trained {kind} model for {rules.variant} with {rules.players} players in the package, "
                f"so no compiled net opponent plays this game"
            )
        mean, scale, layers, meta = mlp.read_model(path)
        problem = mlp.fit_problem(meta, rules.variant, rules.players, rules.deck_size)
        if problem:
            raise ValueError(f"model {path} does not fit this game: {problem}")
        want = 2 * NFEAT if kind == "move" else NFEAT + CARD_BLOCK * int(meta.get("deck", 0))
        if meta.get("kind") != kind or mean.shape != (want,):
            raise ValueError(f"{path} is not a {kind} model of {want} inputs")
        return mlp.compiled_arrays(mean, scale, layers)

    def _init_tricks(self, game: pyspiel.Game, n: int) -> None:
        """The trick games' arrays and one shard per thread (see :mod:`zwick_ai.vector.tricks_batch`)."""
        cfg = np.ascontiguousarray(game.rules.cfg, np.int32)
        init = trick_kernels.new_state(cfg)
        self._states = np.zeros((n, len(init)), np.int32)
        self._hlen = np.zeros(n, np.int64)
        self._own = (self._states, self._hlen)
        for part in self._parts:
            self._shards.append(
                tricks_batch.Shard(
                    cfg.copy(),
                    init.copy(),
                    self._opponent.copy(),
                    self.information_state,
                    self._states[part],
                    self._hlen[part],
                    self._cur[part],
                    self._mask[part],
                    self._obs[part],
                    self._rewards[part],
                    self._done[part],
                    self._seeds[part],
                    self._rng[part],
                    self._actions[part],
                    *tricks_batch.scratch(self.num_actions),
                )
            )

    @property
    def observation_size(self) -> int:
        """Length of one observation row."""
        return int(self._ts.observation.shape[1])

    def bytes_per_game(self) -> int:
        """Memory held per game: the state row, the kept candidate moves, the observation, mask,
        reward and bookkeeping rows (the per-thread scratch is not counted)."""
        arrays = (*self._own, self._obs, self._mask, self._rewards, self._rng, self._cur, self._seeds, self._done)
        return sum(int(a.nbytes) for a in arrays) // self.num_games + 8  # + the action

    def _kernel(self, name: str):
        parallel = len(self._shards) > 1
        if parallel:
            numba.set_num_threads(len(self._shards))
        return getattr(self._batch, f"{name}_{'parallel' if parallel else 'serial'}")

    def reset(self, seed: int | None = None) -> TimeStep:
        """Deal every game again from deal seeds ``seed + i`` and return the first decisions; a
        given ``seed`` replaces the one the game was made with (for this and later resets), so a
        learner can start each batch of games from a seed of its own."""
        if seed is not None:
            self.seed = int(seed)
        n = self.num_games
        self._seeds[:] = np.arange(self.seed, self.seed + n)
        self._next_seed = self.seed + n
        self._rng[:] = np.uint64(self.seed) * np.uint64(1_000_003) + np.arange(n, dtype=np.uint64)
        self._kernel("reset")(self._shards)
        self._rewards[:] = 0.0
        self._done[:] = False
        return self._ts

    def step(self, actions: np.ndarray) -> TimeStep:
        """Apply ``actions[i]`` (an OpenSpiel action id) in every game ``i``. An illegal action
        raises ``ValueError`` naming the game and its legal actions; then nothing is stepped."""
        given = np.asarray(actions)
        if given.dtype.kind not in "iu":  # a float (or bool, or text) would be cut to a whole number silently
            raise ValueError(f"actions must be whole numbers (an integer array), not {given.dtype} values")
        acts = np.ascontiguousarray(given, dtype=np.int64)
        if acts.shape != (self.num_games,):
            raise ValueError(f"actions must have shape ({self.num_games},), got {acts.shape}")
        bad = zwicker_batch.first_illegal(acts, self._mask)
        if bad >= 0:
            allowed = np.flatnonzero(self._mask[bad]).tolist()
            raise ValueError(
                f"illegal action {int(acts[bad])} in game {bad} (seat {int(self._cur[bad])}); legal: {allowed}"
            )
        self._actions[:] = acts
        self._next_seed = int(self._kernel("step")(self._shards, self._next_seed))
        return self._ts

    def state_array(self, i: int) -> np.ndarray:
        """A copy of game ``i``'s state array (the OpenSpiel state's ``array`` layout)."""
        return self._states[i].copy()


def _read_only(array: np.ndarray) -> np.ndarray:
    """A view of ``array`` that refuses writes (the kernels keep writing the array itself)."""
    view = array.view()
    view.flags.writeable = False
    return view
