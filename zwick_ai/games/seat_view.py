"""What the player to move sees: :func:`view`, a seat-safe public view of a state of our games.

An OpenSpiel state of ``zwicker``, ``zwikken`` or ``zwicken`` is the **full truth**: it holds every
hand and the order of the stock, and its engine arrays (``state.array``,
``zwicker_bridge.engine_state(state)``, ``state.trick_state()``) hand them out. An agent that reads
them, or ``str(state)``, cheats (the ``peek-uct`` and ``cheat-uct`` references do so on purpose).
A fair agent reads :func:`view` (or the observation and information-state tensors and strings of
its seat) and, to reason about the hidden cards, draws worlds with
``state.resample_from_infostate(player, sampler)``.

``view(state)`` holds only what the player could know: it is the same for every state that
``resample_from_infostate`` draws for that player (the tests check it for every game). It gives
the player's own hand, what lies face up, what each side has won, every card seen played, the
scores and stage, and each legal whole decision with the OpenSpiel actions that make it and the
points it wins at once:

* **Zwicker** (:class:`ZwickerView`): a move's ``points`` are the card points of the cards it
  wins (the cards taken and the card played) plus the Zwick bonus if it clears the table; a trail,
  a build and a question win nothing at once (0). The cards left on the table at the end of the
  hand, which go to the last capturer, are not counted.
* **Zwikken and Zwicken** (:class:`TricksView`): a decision's ``points`` are the tricks it wins at
  once: 1 for the card that completes a trick and takes it, else 0.

``Move.value`` (the engine's :class:`zwick_ai.zwicker.Move`) by kind: a **capture**'s value is the
value the played card counts as (for a joker or an ace, the smallest value that proves the
capture); a **build**'s is the value the build announces; an **ask**'s the value asked about;
a **trail** has no value (0).

>>> import pyspiel, zwick_ai.games
>>> from zwick_ai.games import zwicker_bridge
>>> game = pyspiel.load_game("zwicker(variant=dithmarschen,players=4)")
>>> state = zwicker_bridge.state_from_seed(game, 5)
>>> v = view(state)
>>> v.player == state.current_player() and len(v.hand) == 4
True
>>> best = max(v.moves, key=lambda m: m.points)
>>> best.actions == tuple(zwicker_bridge.move_actions(state, best.move))
True
"""

from __future__ import annotations

from dataclasses import dataclass

import pyspiel

from zwick_ai import cards as zwick_cards
from zwick_ai.tricks import arrays as trick_arrays
from zwick_ai.tricks import engine as tricks_engine
from zwick_ai.zwicker import arrays, layout
from zwick_ai.zwicker import engine as zwicker_engine
from zwick_ai.zwicker.engine import Move
from zwick_ai.zwicker.snapshot import Ask


# ------------------------------------------------------------------------------------------------
# Zwicker
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class TableUnit:
    """A table unit: a loose card (``build=False``, ``value=0``, ``owner=-1``) or a build of
    ``value`` owned by seat ``owner`` (-1: nobody's, as in the variants without owners)."""

    cards: tuple[str, ...]
    value: int
    owner: int
    build: bool


@dataclass(frozen=True)
class MoveView:
    """A legal whole Zwicker move: the engine's :class:`~zwick_ai.zwicker.Move` (``str(move)``
    reads ``QS=13 takes QH QD``), the OpenSpiel ``actions`` that make it, and the ``points`` it
    wins at once (module docstring)."""

    move: Move
    actions: tuple[int, ...]
    points: int

    @property
    def kind(self) -> str:
        """``trail``, ``capture``, ``build`` or ``ask``."""
        return self.move.kind

    @property
    def card(self) -> str | None:
        """The card played (None for a question to a partner)."""
        return self.move.card

    def __str__(self) -> str:
        return f"{self.move} ({self.points} points)"


@dataclass(frozen=True)
class ZwickerView:
    """What Zwicker's player to move sees (module docstring). Sides are numbered as
    ``game.rules.sides``; seats as OpenSpiel's players."""

    player: int
    side: int
    hand: tuple[str, ...]
    table: tuple[TableUnit, ...]  # oldest first
    won: tuple[tuple[str, ...], ...]  # per side, the cards won so far
    played: tuple[str, ...]  # every card played from a hand this hand, in order
    hand_sizes: tuple[int, ...]  # cards in each seat's hand
    stock: int  # cards still to be dealt
    jokers_unseen: tuple[str, ...]  # the deck's jokers this player has not seen (other hands, stock)
    scores: tuple[int, ...]  # per side: card points won, the most-cards bonus, Zwicks
    zwicks: tuple[int, ...]  # per side
    stage: int  # 0-based stage of the hand (deals from the stock)
    dealer: int
    last_capturer: int  # the side that captured last, -1 for nobody yet
    asked: Ask  # this turn's question, or NO_ASK (-1, -1, -1)
    moves: tuple[MoveView, ...]  # every legal whole move (at the start of the turn)


def _zwicker_view(state: pyspiel.State, player: int) -> ZwickerView:
    from zwick_ai.games import zwicker_bridge

    rules = state.rules
    es = zwicker_bridge.engine_state(state)
    a = es.arr
    units = tuple(
        TableUnit(tuple(zwick_cards.format_card(c) for c in u.cards), u.value, u.owner, u.build)
        for u in zwicker_engine._units(es)
    )
    played = []
    for ply in range(state.num_plies()):
        row = state.logged_row(ply)
        if int(row[layout.M_KIND]) != layout.KIND_ASK:
            played.append(zwick_cards.format_card(int(row[layout.M_CARD])))
    hand = zwicker_engine.hand(es, player)
    won = zwicker_engine.won(es)
    seen = set(hand) | {c for u in units for c in u.cards} | {c for w in won for c in w} | set(played)
    jokers = tuple(
        name for name in (zwick_cards.format_card(c) for c in rules.deck) if name.startswith("X") and name not in seen
    )
    moves: tuple[MoveView, ...] = ()
    if state.current_player() == player and not state.move_prefix():
        moves = tuple(MoveView(m, tuple(acts), move_points(rules, m)) for m, acts in zwicker_bridge.legal_moves(state))
    return ZwickerView(
        player=player,
        side=rules.side_of(player),
        hand=tuple(hand),
        table=units,
        won=tuple(tuple(w) for w in won),
        played=tuple(played),
        hand_sizes=tuple(int(arrays.hand_size(a, p)) for p in range(rules.players)),
        stock=int(arrays.stock_left(a)),
        jokers_unseen=jokers,
        scores=zwicker_engine.score(es),
        zwicks=zwicker_engine.zwicks(es),
        stage=int(arrays.stage(a)),
        dealer=int(arrays.dealer(a)),
        last_capturer=int(arrays.last_capturer(a)),
        asked=Ask(int(arrays.asked_seat(a)), int(arrays.asked_value(a)), int(arrays.ask_answer(a))),
        moves=moves,
    )


def move_points(rules: object, move: Move) -> int:
    """The points a Zwicker move wins at once: a capture's card points (the cards taken and the
    card played) and its Zwick bonus; 0 for the other kinds."""
    if move.kind != "capture":
        return 0
    cards = (*move.key.taken, move.key.card)
    points = sum(rules.card_points(c) for c in cards)  # type: ignore[attr-defined]
    return int(points + (rules.zwick_points if move.zwick else 0))  # type: ignore[attr-defined]


# ------------------------------------------------------------------------------------------------
# Zwikken and Zwicken
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ActionView:
    """A legal decision of a trick game: its OpenSpiel ``action``, its ``label`` (``play QS``,
    ``pass``, ``bid pot``) and the tricks it wins at once (``points``, module docstring)."""

    action: int
    label: str
    points: int

    @property
    def actions(self) -> tuple[int, ...]:
        """The OpenSpiel actions of this decision (one)."""
        return (self.action,)

    def __str__(self) -> str:
        return self.label


@dataclass(frozen=True)
class TricksView:
    """What the player to move sees in Zwikken or Zwicken (module docstring); one side per seat."""

    player: int
    hand: tuple[str, ...]
    phase: str  # the stage: cut, deal, declare, auction, exchange, play, ...
    dealer: int
    pot: int
    trump: str | None  # the trump suit's letter, once known
    upcards: tuple[str, ...]  # the cards turned up, in order
    trick: tuple[tuple[int, str], ...]  # (seat, card) of the trick being played; ``??`` face down
    played: tuple[str, ...]  # every card played face up so far
    status: tuple[int, ...]  # per seat: 0 undecided, 1 in, 2 out
    bids: tuple[int, ...]  # per seat: the bid level
    tricks: tuple[int, ...]  # per seat: tricks won
    scores: tuple[int, ...]  # per seat: net chips so far in this deal
    moves: tuple[ActionView, ...]  # every legal decision


def _tricks_view(state: pyspiel.State, player: int) -> TricksView:
    ts = state.trick_state()
    a = ts.arr
    n = state.rules.players

    def per_seat(read) -> tuple[int, ...]:
        return tuple(int(read(a, p)) for p in range(n))

    moves: tuple[ActionView, ...] = ()
    if state.current_player() == player:
        before = int(trick_arrays.tricks_won(a, player))
        out = []
        for action in state.legal_actions():
            after = state.child(action).trick_state().arr
            won = int(trick_arrays.tricks_won(after, player))
            out.append(ActionView(int(action), state.action_to_string(player, action), won - before))
        moves = tuple(out)
    played = tuple(zwick_cards.format_card(c) for c in range(trick_arrays.NC) if trick_arrays.is_played(a, c))
    return TricksView(
        player=player,
        hand=tuple(tricks_engine.hand(ts, player)),
        phase=tricks_engine.phase(ts),
        dealer=tricks_engine.dealer(ts),
        pot=tricks_engine.pot(ts),
        trump=tricks_engine.trump(ts),
        upcards=tuple(tricks_engine.upcards(ts)),
        trick=tuple(tricks_engine.current_trick(ts)),
        played=played,
        status=per_seat(trick_arrays.status),
        bids=per_seat(trick_arrays.bid),
        tricks=per_seat(trick_arrays.tricks_won),
        scores=tricks_engine.returns(ts),
        moves=moves,
    )


# ------------------------------------------------------------------------------------------------
def view(state: pyspiel.State, player: int | None = None) -> ZwickerView | TricksView:
    """What ``player`` (default: the player to move) sees in ``state``, a state of ``zwicker``,
    ``zwikken`` or ``zwicken`` past its deal; the legal decisions only when it is his turn (and,
    in Zwicker, at the start of it). Seat-safe (module docstring)."""
    name = state.get_game().get_type().short_name
    if player is None:
        player = state.current_player()
    if not 0 <= player < state.get_game().num_players():
        raise ValueError(f"view: give a seat (no player to move at a chance node or the end), not {player}")
    if name == "zwicker":
        if not state.dealt():
            raise ValueError("view: the deal is not done yet")
        return _zwicker_view(state, player)
    if name in ("zwikken", "zwicken"):
        return _tricks_view(state, player)
    raise ValueError(f"view works on zwicker, zwikken and zwicken states, not {name}")


__all__ = ["ActionView", "MoveView", "TableUnit", "TricksView", "ZwickerView", "move_points", "view"]
