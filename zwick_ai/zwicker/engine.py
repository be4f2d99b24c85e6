"""The public Zwicker position API: deal or set up a position, list legal whole moves, apply, score.

A :class:`ZwickerState` wraps one flat int32 array run by the numba kernels; every function here
returns new states and never changes its input.

>>> from zwick_ai import zwicker
>>> r = zwicker.rules("dithmarschen")
>>> s = zwicker.position(r, hands=[["QS", "6D"], ["2C"], ["3C"], ["4C"]],
...                      table=["QH", "QD", "9C", "4S"], to_move=0, stock=[])
>>> moves = zwicker.legal_moves(s)
>>> print(max(moves, key=lambda m: len(m.taken)))
QS=13 takes QH QD 9C+4S (zwick)
>>> s2 = zwicker.apply(s, max(moves, key=lambda m: len(m.taken)))
>>> zwicker.table(s2), zwicker.zwicks(s2), zwicker.to_move(s2)
([], (1, 0), 1)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import product

import numpy as np

from zwick_ai import cards as zwick_cards
from zwick_ai.zwicker import kernels as zwicker_kernels
from zwick_ai.zwicker import layout
from zwick_ai.zwicker.rules import Rules
from zwick_ai.zwicker.snapshot import KINDS, NO_ASK, Ask, MoveKey, Snapshot, Unit

MAX_SEED = 2**32 - 1
#: the most table units (a loose card, a build, and with dietze_loose_builds each card of a build)
#: whose exact capture sets the kernels enumerate: past 12 the search keeps three tables of 2^units
#: entries (8 bytes each), 400 MB at 24 units. Dealt games stay far below it.
MAX_EXACT_UNITS = 24


def _workspace() -> np.ndarray:
    """Scratch memory for the kernels (they allocate nothing themselves in hot paths)."""
    return np.zeros(zwicker_kernels.WS_SIZE, dtype=np.int64)


class ZwickerState:
    """A Zwicker position: the rules plus one int32 array (see :mod:`~zwick_ai.zwicker.layout`)."""

    __slots__ = ("rules", "arr")

    def __init__(self, rules: Rules, arr: np.ndarray):
        self.rules = rules
        self.arr = arr

    def copy(self) -> ZwickerState:
        return ZwickerState(self.rules, self.arr.copy())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ZwickerState) and self.rules == other.rules and snapshot(self) == snapshot(other)

    def __hash__(self) -> int:
        return hash(snapshot(self))

    def __repr__(self) -> str:
        return render(self)


@dataclass(frozen=True)
class Move:
    """A legal whole move. ``card`` and the cards in ``target`` use notation (``QS``).

    ``kind`` is ``trail``, ``capture``, ``build`` or ``ask`` (Großenwiehe's question to a partner:
    ``value`` asked about, ``for_partner`` the partner asked). ``target`` is None for a new build.
    ``taken`` holds the cards a capture takes in notation (``('4S', '7H')``, in card-id order;
    ``key.taken`` has their card ids, where two copies of a card stay distinct), and ``units`` the
    table units it takes as display strings (``9C``, ``[4D+7H=11 by 1]``). ``for_partner`` is a seat (or None), and seat 0 is falsy: test
    :attr:`is_for_partner`, not its truth.
    """

    kind: str
    card: str | None
    value: int
    taken: tuple[str, ...]
    target: tuple[str, ...] | None
    for_partner: int | None
    zwick: bool
    key: MoveKey
    row: tuple[int, ...]  # the kernel's move record
    groups: tuple[tuple[str, ...], ...] = ()  # a split of ``units`` into groups, for display
    units: tuple[str, ...] = ()  # the units taken, for display

    @property
    def is_for_partner(self) -> bool:
        """True when the move names a partner: a build for a partner, or the partner asked."""
        return self.for_partner is not None

    def __str__(self) -> str:
        if self.kind == "ask":
            return f"ask partner {self.for_partner} for {self.value}"
        if self.kind == "trail":
            return f"{self.card} trails"
        if self.kind == "capture":
            shown = " ".join("+".join(g) for g in self.groups) if self.groups else " ".join(self.units)
            return f"{self.card}={self.value} takes {shown}" + (" (zwick)" if self.zwick else "")
        on = f" on {'+'.join(self.target)}" if self.target else ""
        partner = f" for partner {self.for_partner}" if self.is_for_partner else ""
        return f"{self.card} builds {self.value}{on}{partner}"


# ------------------------------------------------------------------------------------------------
# Reading a state
# ------------------------------------------------------------------------------------------------
def _unit_cards(arr: np.ndarray, anchor: int) -> list[int]:
    out = []
    c = anchor
    while c != -1:
        out.append(int(c))
        c = int(arr[layout.S_NEXT + c])
    return out


def _units(state: ZwickerState) -> list[Unit]:
    a = state.arr
    units = []
    for i in range(a[layout.S_NUNITS]):
        anchor = int(a[layout.S_UNITS + i])
        cards = tuple(sorted(_unit_cards(a, anchor)))
        if a[layout.S_UBUILD + anchor]:
            units.append(Unit(cards, int(a[layout.S_UVALUE + anchor]), int(a[layout.S_UOWNER + anchor]), True))
        else:
            units.append(Unit(cards, 0, -1, False))
    return units


def _hand_ids(state: ZwickerState, player: int) -> list[int]:
    a = state.arr
    base = layout.S_HANDS + player * layout.MAX_HAND
    return [int(c) for c in a[base : base + a[layout.S_HAND_N + player]]]


def hand(state: ZwickerState, player: int) -> list[str]:
    """Cards in ``player``'s hand, in notation, sorted by id."""
    if not 0 <= player < state.rules.players:
        raise ValueError(f"player {player} is not in 0..{state.rules.players - 1}")
    return [zwick_cards.format_card(c) for c in _hand_ids(state, player)]


def format_unit(unit: Unit) -> str:
    names = "+".join(zwick_cards.format_card(c) for c in unit.cards)
    if not unit.build:
        return names
    owner = f" by {unit.owner}" if unit.owner >= 0 else ""
    return f"[{names}={unit.value}{owner}]"


def table(state: ZwickerState) -> list[str]:
    """The table units, oldest first: loose cards as ``9C``, builds as ``[7H+4D=11 by 1]``."""
    return [format_unit(u) for u in _units(state)]


def to_move(state: ZwickerState) -> int:
    """The seat to move (meaningless once :func:`is_over`)."""
    return int(state.arr[layout.S_TO_MOVE])


def is_over(state: ZwickerState) -> bool:
    return int(state.arr[layout.S_PHASE]) == layout.PHASE_OVER


def score(state: ZwickerState) -> tuple[int, ...]:
    """Points per side so far (final once the hand is over): cards, most cards and Zwicks."""
    return tuple(int(x) for x in zwicker_kernels.score(state.rules.array(), state.arr))


def zwicks(state: ZwickerState) -> tuple[int, ...]:
    return tuple(int(state.arr[layout.S_ZWICKS + s]) for s in range(state.rules.num_sides))


def won(state: ZwickerState) -> tuple[list[str], ...]:
    """Cards won so far, per side."""
    a = state.arr
    out: tuple[list[str], ...] = tuple([] for _ in range(state.rules.num_sides))
    for c in state.rules.deck:
        loc = int(a[layout.S_LOC + c])
        if layout.LOC_WON <= loc < layout.LOC_WON + state.rules.num_sides:
            out[loc - layout.LOC_WON].append(zwick_cards.format_card(c))
    return out


def stock(state: ZwickerState) -> list[str]:
    a = state.arr
    return [
        zwick_cards.format_card(int(c))
        for c in a[layout.S_STOCK + a[layout.S_STOCK_TOP] : layout.S_STOCK + a[layout.S_STOCK_LEN]]
    ]


def snapshot(state: ZwickerState) -> Snapshot:
    """The comparable picture of the position (see :mod:`~zwick_ai.zwicker.snapshot`)."""
    a = state.arr
    r = state.rules
    won_ids: list[list[int]] = [[] for _ in range(r.num_sides)]
    for c in r.deck:
        loc = int(a[layout.S_LOC + c])
        if layout.LOC_WON <= loc < layout.LOC_WON + r.num_sides:
            won_ids[loc - layout.LOC_WON].append(c)
    return Snapshot(
        hands=tuple(tuple(_hand_ids(state, p)) for p in range(r.players)),
        table=tuple(_units(state)),
        stock=tuple(int(c) for c in a[layout.S_STOCK + a[layout.S_STOCK_TOP] : layout.S_STOCK + a[layout.S_STOCK_LEN]]),
        won=tuple(tuple(sorted(w)) for w in won_ids),
        zwicks=zwicks(state),
        dealer=int(a[layout.S_DEALER]),
        to_move=int(a[layout.S_TO_MOVE]),
        stage=int(a[layout.S_STAGE]),
        last_capturer=int(a[layout.S_LAST_CAPT]),
        phase=int(a[layout.S_PHASE]),
        az_left=int(a[layout.S_AZ_LEFT]),
        asked=Ask(int(a[layout.S_ASK_Q]), int(a[layout.S_ASK_N]), int(a[layout.S_ASK_ANS])),
    )


def render(state: ZwickerState) -> str:
    """A readable multi-line picture of the whole position."""
    r = state.rules
    lines = [r.describe()]
    lines.append(f"table: {' '.join(table(state)) or '(empty)'}")
    for p in range(r.players):
        mark = "*" if p == to_move(state) and not is_over(state) else " "
        lines.append(f"{mark}{p} (side {r.side_of(p)}): {' '.join(hand(state, p))}")
    lines.append(f"stock: {len(stock(state))} cards; stage {int(state.arr[layout.S_STAGE])}")
    lines.append(f"won: {[len(w) for w in won(state)]}; zwicks: {list(zwicks(state))}; score: {list(score(state))}")
    if is_over(state):
        lines.append("hand over")
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------------
# Making states
# ------------------------------------------------------------------------------------------------
def _check_seed(seed: int) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or not 0 <= seed <= MAX_SEED:
        raise ValueError(f"seed must be a whole number in 0..{MAX_SEED}, not {seed!r}")
    return int(seed)


def deal(rules: Rules, seed: int = 0) -> ZwickerState:
    """A fresh hand: shuffle and choose the dealer from ``seed``, deal stage 0."""
    return ZwickerState(rules, zwicker_kernels.new_hand(rules.array(), _check_seed(seed), _workspace()))


def deal_from_order(rules: Rules, order: Sequence[int], dealer: int) -> ZwickerState:
    """A fresh hand from an explicit deck order (card ids, next card first) and dealer seat."""
    order_arr = np.asarray(order, dtype=np.int64)
    if sorted(order_arr.tolist()) != list(rules.deck):
        raise ValueError("order must be a permutation of the rules' deck")
    if not 0 <= dealer < rules.players:
        raise ValueError(f"dealer must be a seat in 0..{rules.players - 1}")
    arr = zwicker_kernels.empty_state(rules.array())
    zwicker_kernels.start_hand(rules.array(), arr, order_arr, dealer, _workspace())
    return ZwickerState(rules, arr)


def from_snapshot(rules: Rules, snap: Snapshot) -> ZwickerState:
    """Encode a :class:`Snapshot` exactly (no checks beyond array bounds; see :func:`position`)."""
    R = rules.array()
    a = zwicker_kernels.empty_state(R)
    if len(snap.table) > layout.MAX_UNITS:
        raise ValueError(f"the table holds {len(snap.table)} units; the engine supports {layout.MAX_UNITS}")
    for p, cards in enumerate(snap.hands):
        if len(cards) > layout.MAX_HAND:
            raise ValueError(f"player {p} holds {len(cards)} cards; the engine supports {layout.MAX_HAND}")
        for c in sorted(cards):
            zwicker_kernels.hand_insert(a, p, c)
    for unit in snap.table:
        zwicker_kernels.add_unit(
            a, unit.cards[0], unit.value if unit.build else 0, unit.owner if unit.build else -1, int(unit.build)
        )
        prev = unit.cards[0]
        for c in unit.cards[1:]:
            a[layout.S_NEXT + prev] = c
            a[layout.S_NEXT + c] = -1
            a[layout.S_LOC + c] = layout.LOC_TABLE
            a[layout.S_ANCHOR + c] = unit.cards[0]
            prev = c
    for i, c in enumerate(snap.stock):
        a[layout.S_STOCK + i] = c
        a[layout.S_LOC + c] = layout.LOC_STOCK
    a[layout.S_STOCK_TOP] = 0
    a[layout.S_STOCK_LEN] = len(snap.stock)
    for s, cards in enumerate(snap.won):
        for c in cards:
            a[layout.S_LOC + c] = layout.LOC_WON + s
        a[layout.S_WON_N + s] = len(cards)
    for s, z in enumerate(snap.zwicks):
        a[layout.S_ZWICKS + s] = z
    a[layout.S_DEALER] = snap.dealer
    a[layout.S_TO_MOVE] = snap.to_move
    a[layout.S_STAGE] = snap.stage
    a[layout.S_LAST_CAPT] = snap.last_capturer
    a[layout.S_PHASE] = snap.phase
    a[layout.S_AZ_LEFT] = snap.az_left
    asked = Ask(*snap.asked)  # a snapshot written by hand may hold a plain (partner, value, answer)
    a[layout.S_ASK_Q] = asked.partner
    a[layout.S_ASK_N] = asked.value
    a[layout.S_ASK_ANS] = asked.answer
    return ZwickerState(rules, a)


def _build_values(rules: Rules, cards: list[int]) -> set[int]:
    """Every value a build of these cards can carry under the variant's build rules."""
    if not rules.owner_builds:
        options = [rules.card_values(c) or tuple(range(2, 15)) for c in cards]
        return {sum(choice) for choice in product(*options) if sum(choice) <= 14}
    # Owner builds: grow the build card by card in any order with +, - or "same" (DP over subsets).
    n = len(cards)
    reach: dict[int, set[int]] = {}
    for i, c in enumerate(cards):
        reach.setdefault(1 << i, set()).update(rules.card_values(c))
    for mask in range(1, 1 << n):
        for old in list(reach.get(mask, ())):
            for j in range(n):
                if mask >> j & 1:
                    continue
                new = reach.setdefault(mask | 1 << j, set())
                for q in rules.card_values(cards[j]):
                    cand = [old + q, old - q]
                    if rules.subtract == "either":
                        cand.append(q - old)
                    if q == old:
                        cand.append(old)
                    new.update(v for v in cand if 1 <= v <= rules.max_build)
    return reach.get((1 << n) - 1, set())


def _table_unit(r: Rules, entry: str | int | Mapping[str, object], taken: set[int]) -> Unit:
    """One table entry of :func:`position` (a loose card, or a build as a mapping) as a unit;
    its cards are added to ``taken``."""
    two = r.two_packs
    if not isinstance(entry, Mapping):
        (c,) = zwick_cards.parse_cards([entry], two, taken)
        return Unit((c,), 0, -1, False)
    unknown = set(entry) - {"cards", "value", "owner"}
    if unknown:
        raise ValueError(f"a build takes keys cards, value, owner; not {sorted(unknown)}")
    cards = zwick_cards.parse_cards(list(entry["cards"]), two, taken)  # type: ignore[call-overload]
    if not cards:
        raise ValueError("a build needs at least one card")
    value = entry.get("value")
    if not isinstance(value, int) or value not in _build_values(r, cards):
        possible = sorted(_build_values(r, cards))
        raise ValueError(
            f"build {'+'.join(zwick_cards.format_card(c) for c in cards)} cannot carry value {value!r}"
            f" in {r.variant}; possible values: {possible or 'none'}"
        )
    owner = entry.get("owner", None)
    if r.owner_builds:
        if not isinstance(owner, int) or not 0 <= owner < r.players:
            raise ValueError(f"a build in {r.variant} needs an owner seat 0..{r.players - 1}")
    elif owner not in (None, -1):
        raise ValueError(f"builds have no owner in {r.variant}")
    else:
        owner = -1
    return Unit(tuple(sorted(cards)), value, owner, True)


def position(
    rules: Rules,
    hands: Sequence[Sequence[str | int]],
    table: Sequence[str | int | Mapping[str, object]] = (),
    to_move: int = 0,
    seed: int = 0,
    *,
    stock: Sequence[str | int] | None = None,
    won: Sequence[Sequence[str | int]] | None = None,
    zwicks: Sequence[int] | None = None,
    dealer: int | None = None,
    stage: int = 0,
    last_capturer: int | None = None,
) -> ZwickerState:
    """A position from readable cards.

    ``hands``: one list per seat. ``table``: loose cards, or builds as
    ``{"cards": [...], "value": v, "owner": seat}`` (no owner in classic/grupp).
    ``stock``: the undealt cards, next to be dealt first (``[]``: this is the last stage);
    omitted, every unlisted card of the deck forms the stock, shuffled by ``seed``. With ``stock``
    given and ``won`` omitted, cards listed nowhere are out of play (a study position); with both
    given, every card of the deck must be placed.
    ``won``: cards already won per side; ``zwicks``: Zwicks per side; ``last_capturer``: a side.
    Raises ``ValueError`` naming the problem for unknown, duplicate or foreign cards, impossible
    build values or owners, or a seat without cards to move. The owner's duty is not checked
    here (a study position may break it); the engine enforces it for the moves that follow.
    """
    r = rules
    taken: set[int] = set()
    two = r.two_packs
    if len(hands) != r.players:
        raise ValueError(f"give one hand per player: {r.players} hands, not {len(hands)}")
    hand_ids = [zwick_cards.parse_cards(list(h), two, taken) for h in hands]
    units = [_table_unit(r, entry, taken) for entry in table]
    won_ids = [zwick_cards.parse_cards(list(w), two, taken) for w in won] if won is not None else []
    if won is not None and len(won_ids) != r.num_sides:
        raise ValueError(f"give won cards per side: {r.num_sides} lists, not {len(won_ids)}")
    stock_ids = zwick_cards.parse_cards(list(stock), two, taken) if stock is not None else None
    foreign = sorted(c for c in taken if c not in r.deck)
    if foreign:
        raise ValueError(
            f"not in the {r.variant} deck: {zwick_cards.format_cards(foreign)}"
            f" (this deck has {r.deck_size} cards: {zwick_cards.format_cards(r.deck)})"
        )
    rest = [c for c in r.deck if c not in taken]
    if stock_ids is None:
        rng = np.random.default_rng(_check_seed(seed))
        stock_ids = [int(c) for c in rng.permutation(np.array(rest, dtype=np.int64))] if rest else []
    elif rest and won is not None:
        raise ValueError(
            f"cards not placed anywhere: {zwick_cards.format_cards(rest)} (list them in stock, hands, table or won)"
        )
    if not 0 <= to_move < r.players:
        raise ValueError(f"to_move must be a seat in 0..{r.players - 1}")
    if not hand_ids[to_move]:
        raise ValueError(f"player {to_move} is to move but holds no card")
    zw = tuple(zwicks) if zwicks is not None else (0,) * r.num_sides
    if len(zw) != r.num_sides or any(z < 0 for z in zw):
        raise ValueError(f"give zwicks per side: {r.num_sides} numbers, each 0 or more")
    if dealer is not None and not 0 <= dealer < r.players:
        raise ValueError(f"dealer must be a seat in 0..{r.players - 1} (or None: the seat before to_move)")
    if not 0 <= stage < r.plan.max_stages:
        raise ValueError(f"stage must be in 0..{r.plan.max_stages - 1}")
    lc = -1 if last_capturer is None else last_capturer
    if not -1 <= lc < r.num_sides:
        raise ValueError(f"last_capturer must be a side in 0..{r.num_sides - 1} (or None)")
    snap = Snapshot(
        hands=tuple(tuple(sorted(h)) for h in hand_ids),
        table=tuple(units),
        stock=tuple(stock_ids),
        won=tuple(tuple(sorted(w)) for w in won_ids) if won is not None else ((),) * r.num_sides,
        zwicks=zw,
        dealer=(to_move - 1) % r.players if dealer is None else dealer,
        to_move=to_move,
        stage=stage,
        last_capturer=lc,
        phase=0,
        az_left=0,
        asked=NO_ASK,
    )
    atoms = len(units) + (sum(len(u.cards) for u in units if u.build) if r.dietze_loose_builds else 0)
    if atoms > MAX_EXACT_UNITS:
        raise ValueError(
            f"this table has {atoms} units{' (cards of builds counted, dietze_loose_builds)' if r.dietze_loose_builds else ''}; "
            f"exact move lists are built for at most {MAX_EXACT_UNITS} table units "
            f"(the capture search keeps tables of 2^units entries)"
        )
    state = from_snapshot(r, snap)
    zwicker_kernels.begin_turn(r.array(), state.arr, to_move, _workspace())
    return state


# ------------------------------------------------------------------------------------------------
# Moves
# ------------------------------------------------------------------------------------------------
def _partition(units: list[Unit], unit_vals: list[tuple[int, ...]], value: int) -> list[list[int]] | None:
    """Split unit indices into groups each adding to ``value`` (for display only)."""

    def rec(rest: list[int]) -> list[list[int]] | None:
        if not rest:
            return []
        first, others = rest[0], rest[1:]
        for size in range(len(others) + 1):
            for combo in _combos(others, size):
                group = [first, *combo]
                if any(sum(ch) == value for ch in product(*(unit_vals[i] for i in group))):
                    tail = rec([i for i in others if i not in combo])
                    if tail is not None:
                        return [group, *tail]
        return None

    return rec(list(range(len(units))))


def _combos(items: list[int], size: int) -> Iterable[tuple[int, ...]]:
    from itertools import combinations

    return combinations(items, size)


def _to_move_obj(state: ZwickerState, row: np.ndarray, units: list[Unit]) -> Move:
    r = state.rules
    kind = KINDS[int(row[layout.M_KIND])]
    p = to_move(state)
    if kind == "ask":
        key = MoveKey("ask", -1, (), (), int(row[layout.M_VALUE]), int(row[layout.M_OWNER]))
        return Move("ask", None, key.value, (), None, key.owner, False, key, tuple(int(x) for x in row))
    card = int(row[layout.M_CARD])
    name = zwick_cards.format_card(card)
    if kind == "trail":
        key = MoveKey("trail", card)
        return Move("trail", name, 0, (), None, None, False, key, tuple(int(x) for x in row))
    if kind == "capture":
        mask = int(row[layout.M_MASK]) & (2**64 - 1)
        chosen = [u for i, u in enumerate(units) if mask >> i & 1]
        taken_ids = tuple(sorted(c for u in chosen for c in u.cards))
        key = MoveKey("capture", card, taken_ids)
        groups: tuple[tuple[str, ...], ...] = ()
        if len(chosen) <= 10 and int(row[layout.M_VALUE]) > 0:
            vals = [(u.value,) if u.build else (r.card_values(u.cards[0]) or tuple(range(2, 15))) for u in chosen]
            split = _partition(chosen, vals, int(row[layout.M_VALUE]))
            if split is not None:
                groups = tuple(tuple(format_unit(chosen[i]) for i in g) for g in split)
        shown = tuple(format_unit(u) for u in chosen)
        return Move(
            "capture", name, int(row[layout.M_VALUE]), tuple(zwick_cards.format_card(c) for c in taken_ids), None, None,
            bool(row[layout.M_ZWICK]), key,
            tuple(int(x) for x in row), groups, shown,
        )  # fmt: skip
    target_i = int(row[layout.M_TARGET])
    target = units[target_i] if target_i >= 0 else None
    owner = int(row[layout.M_OWNER])
    key = MoveKey("build", card, (), target.cards if target else (), int(row[layout.M_VALUE]), owner)
    return Move(
        "build", name, int(row[layout.M_VALUE]),
        (), tuple(zwick_cards.format_card(c) for c in target.cards) if target else None,
        owner if owner >= 0 and owner != p else None, False, key, tuple(int(x) for x in row),
    )  # fmt: skip


def legal_moves(state: ZwickerState) -> list[Move]:
    """Every legal whole move (empty once the hand is over)."""
    rows = zwicker_kernels.legal_moves(state.rules.array(), state.arr, _workspace())
    units = _units(state)
    return [_to_move_obj(state, row, units) for row in rows]


def move_from_row(state: ZwickerState, row: np.ndarray) -> Move:
    """The :class:`Move` of a kernel move record legal in ``state`` (e.g. from a compiled move log)."""
    return _to_move_obj(state, np.asarray(row, np.int64), _units(state))


def legal_keys(state: ZwickerState) -> list[MoveKey]:
    """The identities of the legal moves, sorted (for comparisons with the reference)."""
    return sorted(m.key for m in legal_moves(state))


def apply(state: ZwickerState, move: Move | MoveKey | str) -> ZwickerState:
    """The position after ``move`` (a :class:`Move`, its key, or its string); ``state`` is unchanged.

    Raises ``ValueError`` listing the legal moves when ``move`` is not legal here."""
    moves = legal_moves(state)
    if isinstance(move, Move):
        key = move.key
        match = [m for m in moves if m.key == key]
    elif isinstance(move, MoveKey):
        match = [m for m in moves if m.key == move]
    elif isinstance(move, str):
        match = [m for m in moves if str(m) == move.strip()]
    else:
        raise TypeError(f"move must be a Move, MoveKey or str, not {type(move).__name__}")
    if not match:
        shown = "; ".join(str(m) for m in moves[:40]) or "none (the hand is over)"
        what = repr(move) if isinstance(move, str) else str(move)  # repr: a user's text on one line
        raise ValueError(f"illegal move {what}; legal moves: {shown}")
    out = state.copy()
    zwicker_kernels.apply_move(state.rules.array(), out.arr, np.asarray(match[0].row, dtype=np.int64), _workspace())
    return out


def apply_row(state: ZwickerState, row: np.ndarray) -> None:
    """Apply a kernel move record in place (no legality check; for agents and wrappers)."""
    zwicker_kernels.apply_move(state.rules.array(), state.arr, row, _workspace())


def legal_rows(state: ZwickerState) -> np.ndarray:
    """The kernel's move records (n, MOVE_WIDTH) for the position."""
    return zwicker_kernels.legal_moves(state.rules.array(), state.arr, _workspace())
