"""OpenSpiel game ``zwicker``: the North German fishing game (docs/rules.md Part A) on the numba engine.

``import zwick_ai.games`` registers it. Every variant, player count and engine option is a game
parameter; an invalid combination raises ``ValueError`` naming what is valid::

    pyspiel.load_game("zwicker(variant=grossenwiehe,players=6)")

One episode is one hand. Parameters (defaults in brackets): ``variant`` [dithmarschen],
``players`` [0 = the variant's default], ``utility`` [points] or ``win_loss``, ``forced_capture``
[auto = the variant's default] / ``on`` / ``off``, ``joker_capture``, ``joker_sweep_is_zwick``,
``joker_sum_capture``, ``magger``, ``team_size``, ``after_zwick``, ``dietze_loose_builds``,
``dietze_min_table``, ``first_dealer``, ``subtract``, ``capture_values``, ``wild_jokers`` [-1 =
default], and for small research games ``jokers`` [default; ``none`` or values joined by ``_``,
e.g. ``15_25`` or ``15+25`` on a command line; one joker ``x15``], ``ranks`` (rank letters ``23456789TJQKA``; an underscore is ignored, so an
all-digit set is written ``_2345``), ``suits``, ``hand_size`` [0 = plan], ``table_size`` [-1 =
plan], ``stages`` [0 = all]. The meaning of every option: :mod:`zwick_ai.zwicker.rules`.

**Chance model.** Chance nodes come first. (1) The dealer: one node with outcome = seat
(``first_dealer=random``), or the cut: one node per cut card (outcome = deck index of the card
cut from a separate shuffled deck, every uncut card equally likely) until the cut decides, exactly
as the engine's cut. (2) The deal, one *group* after another: for each stage that will be dealt,
each seat's cards of that stage (seats 0, 1, ...), then the table's. A group's cards are dealt as
an increasing run of deck indices, the next card ``x`` with probability
``C(#free cards above x, r-1) / C(#free cards above the last, r)`` (``r`` cards still to come), so
each group receives a uniformly random set. Cards that will never be dealt (``stages``) are not
chance events: they lie in the stock in ascending order. With ``dietze_min_table=4`` the later
stages depend on play, so after stage 0 every stock position is one chance node (uniform over the
free cards). The engine then deals from this deck order (``deal_from_order``); cards in the stock
are hidden from everybody. Chance outcome ids: seats for the dealer, deck indices otherwise.

**Actions** (:mod:`zwick_ai.zwicker.codec`): a whole move is a short sequence of
sub-actions with fixed ids (``QS``, ``as 13``, ``take 9C``, ``done``, ``on 9C``, ``build 11``,
``for partner +2``, ``ask partner +2 for 13``, ``trail``, ``new build``); each legal whole move has
exactly one sequence. Every sub-action is public (the whole move becomes public anyway).

**Returns** (exactly zero-sum, integers): with ``NS`` sides and ``s_k`` the points of side ``k``
(cards, most cards and Zwicks), player ``p`` on side ``k`` gets ``NS * s_k - sum(s)``, i.e. ``NS``
times (own side minus the mean over sides); with two sides that is the plain point difference.
``utility=win_loss``: with ``K`` sides sharing the top score, each of them gets ``NS - K`` and
every other side ``-K`` (two sides: +1, -1, a tie 0). Partners get equal returns.

**Observation tensor** (``perfect_recall=False``), pieces in this order (``D`` deck size, ``P``
players, ``NS`` sides, ``J`` partner offsets with asking, ``A`` = num_distinct_actions; a card
index is the card's index in the sorted deck, seats and sides are absolute):

====================  =========  ======================================================================
piece                 size       meaning
====================  =========  ======================================================================
player                P          one-hot: the observing seat
current               P + 2      one-hot: seat to move, [P] chance, [P+1] terminal
dealer                P          one-hot (zero until known)
phase                 4          one-hot: normal, after-Zwick trail, Dietze trail, over (zero at chance)
stage                 1          stage index
hand                  D          1 = in the observer's hand (private)
hand_sizes            P          cards in each hand
stock                 1          cards in the stock
table                 D x 2      [loose card on the table, card inside a build]
build_value           D          announced value of the build whose first card this is
build_owner           D x P      owner of that build (one-hot)
won                   D x NS     side that won the card
won_count             NS         cards won per side
zwicks                NS         Zwicks per side
score                 NS         points so far per side (cards, most cards, Zwicks)
last_capturer         NS         one-hot: side of the last capture
asked                 J + 2      this turn's question: partner offset (one-hot), value, answer 1/0
move                  A          multi-hot: the sub-actions chosen so far in the current move
====================  =========  ======================================================================

**Information-state tensor** (``perfect_recall=True``): the pieces above, then the whole observed
history, per card (so the history of a hand fits a fixed size; together these pieces determine the
public sequence of moves and the player's private deals, hence the tensor has perfect recall):

====================  =========  ======================================================================
cut                   D          k + 1 if the card was the k-th card cut for the deal
dealt_to_me           D          stage + 1 in which the card was dealt to the observer (private)
table_dealt           D          stage + 1 in which the card was dealt to the table
played_at             D          ply + 1 at which the card was played (a ply = one whole move or ask)
played_by             D x P      seat that played it
play_kind             D x 3      trail, capture, build
play_value            D          capture value or announced build value
built_on              D          deck index + 1 of the first card of the unit built on (0 new build)
build_for             D x P      owner of the build it made (one-hot; owner variants only)
ask_before            D x (J+2)  question asked by the player in the same turn before playing it
captured_at           D          ply + 1 at which the card was captured (last ply + 2: end sweep)
====================  =========  ======================================================================

Pieces of size 0 (``asked``/``ask_before`` without asking, ``build_for`` in classic and grupp)
are left out. ``private_info=NONE`` observers leave out ``hand`` and ``dealt_to_me``.

**Resampling.** ``state.resample_from_infostate(player, sampler)`` draws the hidden cards (the
other players' current hands and the stock) as a uniform random permutation and accepts the draw
only if the current stage replays identically in the engine: the same turn order and phases,
every move legal again (the owner's duty of the mover and of a build's new owner, forced
captures, the Magger questions offered) and every Magger answer the same. That is exact rejection
sampling from the uniform distribution over the deals consistent with the player's information
(past stages are fully known: all their cards were played; a card the mover has started to play
stays in his hand). Cheap necessary conditions are tested before the replay: for each move and
answer of the stage, the owner's-duty test on the holding it implies (drawn hand plus the cards
the seat played later) and, for each question, that the asker held a card able to make a build
of the asked value. After 100,000 rejected draws it **falls back** to a Markov chain of card swaps
between the hidden hands and the stock, started from the true deal and keeping only consistent
deals (uniform in the limit, not exact; counted in ``game.tables.stats["fallbacks"]``). The new
state is rebuilt from the original history (chance actions for the drawn deal, then the same
sub-actions), so its ``history()`` is a real history of the game and its information state for
``player`` equals the original's (checked).

>>> import pyspiel, zwick_ai.games
>>> game = pyspiel.load_game("zwicker(variant=dithmarschen,players=2,ranks=A23,suits=CD,jokers=none,hand_size=2,table_size=1,stages=1)")
>>> state = game.new_initial_state()
>>> for a in [0, 0, 3, 1, 4, 2]:  # dealer 0; seat 0 gets 2C 2D, seat 1 3C 3D, the table AC
...     state.apply_action(a)
>>> state.current_player(), [state.action_to_string(a) for a in state.legal_actions()]
(1, ['3C', '3D'])
>>> state.apply_action(1); [state.action_to_string(a) for a in state.legal_actions()]
['trail', 'new build']
>>> state.apply_action(game.codec.new); state.legal_actions() == [game.codec.build + 2]
True
>>> state.apply_action(game.codec.build + 2); print(state.observation_string(0))
p0; p0 to move (normal); dealer 0; stage 0
hand: 2C 2D
table: [3C=3 by 1] AC
hands: 2 1; stock 1
won: - | -
zwicks: 0 0; score: 0 0; last capture: side -1
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyspiel

from zwick_ai import zwicker
from zwick_ai.games.zwicker_observer import (
    NAMES,
    ZwickerObserver,
    card_names,
    history_lines,
    observation_text,
)
from zwick_ai.games.zwicker_params import PARAMS, rules_from_params
from zwick_ai.zwicker import arrays, layout
from zwick_ai.zwicker import history as zwicker_history
from zwick_ai.zwicker import kernels as zwicker_kernels
from zwick_ai.zwicker.codec import COL_NTOK, Codec
from zwick_ai.zwicker.decision import Decision
from zwick_ai.zwicker.history import logged_row_into
from zwick_ai.zwicker.rules import Rules
from zwick_ai.zwicker.steps import (
    CHANCE,
    ILLEGAL,
    TERMINAL,
    chance_outcomes_k,
    chance_step_k,
    deal_layout,
    game_table,
    legal_k,
    replay_token_k,
    returns_k,
    step_k,
    turn_k,
    turn_start_k,
)
from zwick_ai.zwicker.worlds import resample_k, resampled_deck_order

RESAMPLE_TRIES = 100000  # rejection attempts before the Markov-chain fallback

GAME_TYPE = pyspiel.GameType(
    short_name="zwicker",
    long_name="Zwicker (North German fishing card game)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=12,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=PARAMS,
)


# ------------------------------------------------------------------------------------------------
# Game
# ------------------------------------------------------------------------------------------------
class _Cache:
    """The derived values kept on a state: its candidate move rows, its legal sub-actions and the
    rows still selected by the sub-actions taken. A copied state may share it (``__deepcopy__`` returns it), which keeps
    OpenSpiel's clone (a deep copy of the state's ``__dict__``) cheap; it is replaced, never changed."""

    __slots__ = ("moves", "selected", "legal")

    def __init__(self, moves, legal, selected=None):
        self.moves = moves
        self.legal = legal
        self.selected = selected

    def __deepcopy__(self, memo) -> _Cache:
        return self

    def __reduce__(self):
        return (_Cache, (self.moves, self.legal, self.selected))


_NO_CACHE = _Cache(None, None)


class Tables:
    """Read-only data shared by the states of one game (kept off the states so clones stay cheap)."""

    __slots__ = (
        "rules",
        "codec",
        "game_table",
        "workspace",
        "init",
        "win_loss",
        "groups",
        "chance_positions",
        "game",
        "stats",
    )

    def __init__(self, rules: Rules, codec: Codec, win_loss: bool):
        self.rules = rules
        self.codec = codec
        self.win_loss = win_loss
        layouts = [deal_layout(rules, dealer) for dealer in range(rules.players)]
        self.groups = [g for g, _ in layouts]
        self.chance_positions = layouts[0][1]
        self.game_table = game_table(rules, codec, self.groups)
        self.workspace = np.zeros(zwicker_kernels.WS_SIZE, np.int64)
        self.init = zwicker_history.initial_array(rules.array(), 2 * self.hand_cards() + 8)
        self.game: ZwickerGame | None = None  # the first game made with these tables
        self.stats = {"resamples": 0, "fallbacks": 0}

    def hand_cards(self) -> int:
        """An upper bound on the cards dealt to hands in one hand."""
        if self.rules.dietze_min_table > 0:
            return self.rules.deck_size
        return self.chance_positions - sum(n for kind, n, _ in self.rules.plan.first if kind == "table")


class ZwickerGame(pyspiel.Game):
    """The ``zwicker`` OpenSpiel game (see the module docstring). ``game.rules`` is the engine's
    :class:`~zwick_ai.zwicker.rules.Rules`, ``game.codec`` the action codec."""

    def __init__(self, params: dict | None = None):
        rules, norm = rules_from_params(params)
        codec = Codec(rules)
        key = str(sorted(norm.items()))
        t = _TABLES.get(key) or Tables(rules, codec, norm["utility"] == "win_loss")
        players, d, ns = rules.players, codec.deck_size, rules.num_sides
        hands = t.hand_cards()
        max_decisions = 5 * hands + d + 2
        max_chance = (1 if rules.first_dealer == "random" else d) + t.chance_positions
        if t.win_loss:
            lo, hi = -(ns - 1), ns - 1
        else:
            top = sum(p for _, p in rules.points) + rules.most_cards_points + rules.zwick_points * hands
            lo, hi = -top, (ns - 1) * top
        info = pyspiel.GameInfo(
            num_distinct_actions=codec.num_actions,
            max_chance_outcomes=max(d, players),
            num_players=players,
            min_utility=float(lo),
            max_utility=float(hi),
            utility_sum=0.0,
            max_game_length=max_decisions + max_chance,
        )
        super().__init__(GAME_TYPE, info, norm)
        self.rules = t.rules
        self.codec = t.codec
        self.key = key
        self.tables = t
        self.max_decisions = max_decisions
        self.max_chance_nodes = max_chance
        if t.game is None:
            t.game = self
        _TABLES.setdefault(key, t)

    def new_initial_state(self) -> ZwickerState:
        """A state before the deal (chance to move)."""
        return ZwickerState(self)

    def make_py_observer(self, iig_obs_type=None, params=None) -> ZwickerObserver:
        """Information state (``perfect_recall=True``) or observation observer."""
        if iig_obs_type is not None and not isinstance(iig_obs_type, pyspiel.IIGObservationType):
            iig_obs_type = None  # called with a params dict only: the default observation
        if iig_obs_type is None:
            return ZwickerObserver(self, False, True, True)
        private = iig_obs_type.private_info != pyspiel.PrivateInfoType.NONE
        return ZwickerObserver(self, bool(iig_obs_type.perfect_recall), bool(iig_obs_type.public_info), private)


_TABLES: dict[str, Tables] = {}


# ------------------------------------------------------------------------------------------------
# State
# ------------------------------------------------------------------------------------------------
class ZwickerState(pyspiel.State):
    """A ``zwicker`` state: one int32 array (the engine state, then the deal and the history
    records: chance progress, cut, deck order, per-card records and one log row per whole move),
    the player to move, and immutable caches (candidate moves with their sub-action sequences and
    the legal sub-actions; the history text). The array of a fresh state is the game's, copied on
    the first move."""

    def __init__(self, game: ZwickerGame):
        super().__init__(game)
        self._key = game.key
        self._array = _TABLES[game.key].init
        self._cache = _NO_CACHE  # candidate moves and legal sub-actions (see ``_Cache``)
        self._to_move = CHANCE
        self.history_text_cache: tuple[int, str] = (0, "")  # (plies, text): see ``zwicker_observer.plies_text``
        self._replay: np.ndarray | None = None  # while a resampled state is rebuilt: the original's array

    # -- engine views -------------------------------------------------------------------------
    @property
    def array(self) -> np.ndarray:
        """The state's int32 array: the engine state (``array[:SS]``, :mod:`zwick_ai.zwicker.layout`)
        followed by the deal record and move log (:mod:`zwick_ai.zwicker.history`), as the kernels
        and the resampler take it. Read it, do not write it (copy first): a fresh state shares
        the game's initial array."""
        return self._array

    @property
    def rules(self) -> Rules:
        return _TABLES[self._key].rules

    @property
    def tables(self) -> Tables:
        return _TABLES[self._key]

    def engine_state(self) -> zwicker.ZwickerState:
        """A copy of the engine position (meaningful once the deal is done)."""
        return zwicker.ZwickerState(self.rules, self._array[: zwicker_history.SS].copy())

    def dealt(self) -> bool:
        """True once the chance nodes are over."""
        return bool(zwicker_history.is_dealt(self._array))

    def move_prefix(self) -> list[int]:
        """The sub-actions chosen so far in the current move."""
        n = int(self._array[zwicker_history.XB + zwicker_history.X_PLEN])
        return self._array[
            zwicker_history.XB + zwicker_history.X_PREFIX : zwicker_history.XB + zwicker_history.X_PREFIX + n
        ].tolist()

    def deck_order(self) -> list[int]:
        """The deck order (card ids, first dealt first); -1 where not yet dealt by chance."""
        return zwicker_history.deck_order(self._array)[: self.rules.deck_size].tolist()

    def dealer(self) -> int:
        """The dealer's seat, -1 before it is known."""
        return int(zwicker_history.dealer(self._array))

    def num_plies(self) -> int:
        """Whole moves (questions included) made so far."""
        return int(zwicker_history.ply_count(self._array))

    def logged_row(self, ply: int) -> np.ndarray:
        """The kernel move record (``M_*`` columns) of whole move number ``ply`` of this hand."""
        if not 0 <= ply < self.num_plies():
            raise ValueError(f"ply must be in 0..{self.num_plies() - 1}")
        return logged_row_into(self._array[zwicker_history.XB :], ply, np.zeros(layout.MOVE_WIDTH, np.int64))

    def decision(self) -> Decision:
        """This decision's arrays for compiled searches and learners (:mod:`zwick_ai.zwicker.decision`):
        the candidate move rows, the engine position, the rules, the hand's array and the game table."""
        t = _TABLES[self._key]
        return Decision(t.rules, self._to_move, self._array, self.candidate_rows(), t.game_table, t.win_loss)

    def candidate_rows(self) -> np.ndarray:
        """Engine move records (n, 8) still reachable from the current partial move."""
        if self._to_move < 0:
            return np.zeros((0, layout.MOVE_WIDTH), np.int64)
        t = _TABLES[self._key]
        c = self._cache
        if c.moves is None:
            m = turn_k(t.game_table, self._array, t.workspace)
            c = self._cache = _Cache(m, legal_k(self._array, m).tolist(), np.arange(len(m)))
        out = c.moves[c.selected, : layout.MOVE_WIDTH].copy()
        out[:, COL_NTOK] = 0
        return out

    # -- pyspiel.State API --------------------------------------------------------------------
    def current_player(self) -> int:
        return self._to_move

    def is_terminal(self) -> bool:
        return self._to_move == TERMINAL

    def _legal_actions(self, player: int) -> list[int]:
        la = self._cache.legal
        if la is None:
            if self._to_move < 0:
                return []
            t = _TABLES[self._key]
            m = turn_k(t.game_table, self._array, t.workspace)
            la = legal_k(self._array, m).tolist()
            self._cache = _Cache(m, la, np.arange(len(m)))
        return la

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self._to_move != CHANCE:
            return []
        ids, probs = chance_outcomes_k(_TABLES[self._key].game_table, self._array)
        return list(zip(ids.tolist(), probs.tolist(), strict=True))

    def _apply_action(self, action: int) -> None:
        t = _TABLES[self._key]
        if self._to_move == CHANCE:
            if self._array is t.init:
                self._array = t.init.copy()
            cur = chance_step_k(t.game_table, self._array, t.workspace, action)
            if cur < 0:  # the deal goes on
                self._cache = _NO_CACHE
                self._to_move = int(cur)
                return
            m, sel, la, cur = turn_start_k(t.game_table, self._array, t.workspace)
        elif self._replay is not None:  # rebuilding a resampled state: moves come from the log
            self._to_move = int(replay_token_k(t.game_table, self._array, self._replay, action, t.workspace))
            self._cache = _NO_CACHE
            return
        else:
            c = self._cache
            m, sel = c.moves, c.selected
            if m is None:
                m = turn_k(t.game_table, self._array, t.workspace)
                sel = np.arange(len(m))
            m, sel, la, cur = step_k(t.game_table, self._array, m, sel, action, t.workspace)
            if cur == ILLEGAL:
                raise ValueError(f"illegal action {action} ({t.codec.action_string(action)}) here")
        self._cache = _Cache(m, la.tolist(), sel) if cur >= 0 else _NO_CACHE
        self._to_move = int(cur)

    def _action_to_string(self, player: int, action: int) -> str:
        t = _TABLES[self._key]
        if player == CHANCE:
            if zwicker_history.dealer(self._array) < 0:
                if t.rules.first_dealer == "random":
                    return f"dealer {action}"
                return f"cut {t.codec.names[action]}"
            return f"deal {t.codec.names[action]}"
        return t.codec.action_string(action)

    def returns(self) -> list[float]:
        t = _TABLES[self._key]
        if self._to_move != TERMINAL:
            return [0.0] * t.rules.players
        return returns_k(t.game_table, self._array, t.win_loss).tolist()

    def __str__(self) -> str:
        t = _TABLES[self._key]
        a = self._array
        if not zwicker_history.is_dealt(a):
            cut = card_names(zwicker_history.cut_cards(a).tolist())
            order = " ".join(
                NAMES[c] if c >= 0 else "-" for c in zwicker_history.deck_order(a)[: t.codec.deck_size].tolist()
            )
            return f"{t.rules.describe()}\ndealing; dealer {int(zwicker_history.dealer(a))}; cut: {cut}\norder: {order}"
        a = self._array
        lines = [t.rules.describe()]
        for p in range(t.rules.players):
            lines.append(f"{p}: " + card_names(arrays.hand_cards(a, p).tolist()))
        lines.append("stock: " + card_names(self._stock()))
        lines += history_lines(self, -1)
        lines.append(observation_text(self, 0, private=False))
        return "\n".join(lines)

    def _stock(self) -> list[int]:
        return arrays.undealt(self._array).tolist()

    def resample_from_infostate(self, player_id: int, probability_sampler: Callable[[], float] | None = None):
        """A state drawn uniformly from those consistent with ``player_id``'s information.

        ``probability_sampler()`` (e.g. ``pyspiel.UniformProbabilitySampler(0., 1.)``) supplies the
        randomness; an int seed is accepted too. See the module docstring for the method."""
        return resample(self, player_id, probability_sampler)


def _seed_from(sampler: Callable[[], float] | int | None) -> int:
    if sampler is None:
        return int(np.random.default_rng().integers(2**31))
    if isinstance(sampler, int | np.integer):
        return int(sampler) % 2**31
    return (int(sampler() * 2**31) ^ (int(sampler() * 2**31) << 1)) % 2**31


def resample(state: ZwickerState, player: int, sampler: Callable[[], float] | int | None = None) -> ZwickerState:
    """See :meth:`ZwickerState.resample_from_infostate`. The new state is built by replaying the
    original's history with the drawn deal, so its ``history()`` is a real history of the game."""
    t = _TABLES[state._key]
    if not state.dealt():
        raise ValueError("resample_from_infostate works once the deal is done (not at chance nodes)")
    if not 0 <= player < t.rules.players:
        raise ValueError(f"player must be a seat in 0..{t.rules.players - 1}")
    a = state.array
    hidden_n = int(arrays.stock_left(a)) + int(arrays.cards_in_hands(t.rules.array(), a))
    status, hidden, cards = resample_k(
        t.game_table, a, player, _seed_from(sampler), RESAMPLE_TRIES, 10 * hidden_n + 50, t.workspace
    )
    t.stats["resamples"] += 1
    if status == 2:
        t.stats["fallbacks"] += 1
    order = resampled_deck_order(a, player, hidden, cards, t.codec.deck, t.groups[int(zwicker_history.dealer(a))])
    history = state.history()
    n_chance = int(zwicker_history.chance_count(a))
    d = int(zwicker_history.dealer(a))
    assert t.game is not None, "tables are registered by the game that made them"
    out = t.game.new_initial_state()
    for act in history[: n_chance - t.chance_positions]:
        out.apply_action(act)
    index = t.codec.index
    for _, _, positions in t.groups[d]:
        for pos in positions:
            out.apply_action(index(order[pos]))
    out._replay = a
    try:
        for act in history[n_chance:]:
            out.apply_action(act)
    finally:
        out._replay = None
    if out.information_state_string(player) != state.information_state_string(player):
        raise AssertionError("resampled state differs in the player's information state (a bug)")
    return out


pyspiel.register_game(GAME_TYPE, ZwickerGame)
