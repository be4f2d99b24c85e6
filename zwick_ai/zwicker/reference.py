"""Slow, obviously correct reference implementation of Zwicker (the test oracle).

Written directly from ``docs/rules.md`` Part A and ``zwicker/RULE_CHOICES.md``, independently of
the numba engine. Everything is brute force on plain Python lists: captures enumerate every group
of table cards adding up to a value and every union of disjoint groups; builds enumerate every
(card, target, value choice); the owner's duty is a brute-force bipartite matching.

Only :mod:`zwick_ai.zwicker.rules` (for :class:`Rules`) and :mod:`zwick_ai.zwicker.snapshot` are
imported from the engine package; card values are computed here from ``cards.py`` notation.

Readings where docs/rules.md and RULE_CHOICES.md leave a detail open (the most literal one each time):

- Once the hand is over, ``to_move`` is -1, ``az_left`` 0 and ``asked`` (-1, -1, -1).
- Leftover table units with no last capturer ("to nobody") stay on the table, so that every card
  is still in exactly one place (hands, table, stock, won).
- The final-stage deal (``final_hand``, Dithmarschen's 5 each) goes one card at a time.
- ``forced_capture`` counts only captures that keep the mover's owner's duty (otherwise a player
  could be left without a legal move, which A.6 rules out). This changes nothing when the duty
  held before the move: a card guarding value x can always take all the mover's x-builds.
- ``dietze_loose_builds``: a valued joker inside a build taken card by card is not "lying loose",
  so ``joker_sum_capture=false`` does not restrict it.
- ``after_zwick`` follows a Zwick only: a Grupp sweep with a wild joker under
  ``joker_sweep_is_zwick=false`` is no Zwick, so nobody trails extra after it.
- For-partner builds: "q already owns a build of value n" is read on the table before the move.
- Asks are offered assuming a yes, without looking at the partner's hand (the offer must not
  reveal the answer), for every value the mover could then build for him, even a value no card
  of the deck carries (the answer is then no).
- A stage whose Dietze top-up empties the stock deals nothing; the hand then ends (``stage`` has
  been counted up). Only possible with tiny custom decks.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field

from zwick_ai import cards as zwick_cards
from zwick_ai.zwicker import layout
from zwick_ai.zwicker.rules import Rules
from zwick_ai.zwicker.snapshot import (
    NO_ASK,
    Ask,
    MoveKey,
    Snapshot,
    Unit,
)

WILD_VALUES = tuple(range(2, 15))  # a wild joker counts any value 2..14


# ---------------------------------------------------------------------------------------------
# State
# ---------------------------------------------------------------------------------------------
@dataclass
class RefUnit:
    cards: list[int]  # sorted card ids
    value: int = 0  # announced value of a build; 0 for a loose card
    owner: int = -1  # owner seat of a build in the joker variants; -1 otherwise
    build: bool = False

    def copy(self) -> RefUnit:
        return RefUnit(list(self.cards), self.value, self.owner, self.build)


@dataclass
class RefState:
    hands: list[list[int]]  # per seat, sorted
    table: list[RefUnit]  # oldest unit first
    stock: list[int]  # next card to be dealt first
    won: list[list[int]]  # per side, sorted
    zwicks: list[int]  # per side
    dealer: int
    to_move: int
    stage: int = 0
    last_capturer: int = -1  # side
    phase: int = layout.PHASE_NORMAL
    az_left: int = 0
    asked: tuple[int, int, int] = field(default=NO_ASK)

    def copy(self) -> RefState:
        return RefState(
            hands=[list(h) for h in self.hands],
            table=[u.copy() for u in self.table],
            stock=list(self.stock),
            won=[list(w) for w in self.won],
            zwicks=list(self.zwicks),
            dealer=self.dealer,
            to_move=self.to_move,
            stage=self.stage,
            last_capturer=self.last_capturer,
            phase=self.phase,
            az_left=self.az_left,
            asked=_asked(self.asked),
        )


# ---------------------------------------------------------------------------------------------
# Cards and values
# ---------------------------------------------------------------------------------------------
def _values(rules: Rules, card: int) -> tuple[int, ...]:
    """All matching values of a card (RULE_CHOICES "Cards and values")."""
    return _card_values(rules.dual, card)


@functools.cache
def _card_values(dual: bool, card: int) -> tuple[int, ...]:
    if zwick_cards.is_wild_joker(card):
        return WILD_VALUES
    if zwick_cards.is_valued_joker(card):
        return (zwick_cards.JOKER_VALUES[card - zwick_cards.VALUED_JOKER_BASE],)
    rank = zwick_cards.RANKS[(card % zwick_cards.PACK_SIZE) % 13]
    high = {"A": 11, "J": 12, "Q": 13, "K": 14}
    if rank in high:
        return (high[rank] - 10, high[rank]) if dual else (high[rank],)
    return ("23456789T".index(rank) + 2,)


def _identical(a: int, b: int) -> bool:
    """Identical copies: the same standard card from either pack, or two wild jokers."""
    if zwick_cards.is_wild_joker(a) and zwick_cards.is_wild_joker(b):
        return True
    if a < zwick_cards.VALUED_JOKER_BASE and b < zwick_cards.VALUED_JOKER_BASE:
        return a % zwick_cards.PACK_SIZE == b % zwick_cards.PACK_SIZE
    return a == b


def _playable(hand: Sequence[int]) -> tuple[int, ...]:
    """Cards of a hand that may be played: only the lowest id among identical copies."""
    return _playable_cached(tuple(hand))


@functools.lru_cache(maxsize=4096)
def _playable_cached(hand: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(sorted(c for c in hand if not any(_identical(c, d) and d < c for d in hand)))


def _side(rules: Rules, seat: int) -> int:
    for s, members in enumerate(rules.sides):
        if seat in members:
            return s
    raise ValueError(f"seat {seat} has no side")


def _partners(rules: Rules, seat: int) -> list[int]:
    return [q for q in rules.sides[_side(rules, seat)] if q != seat]


def _unit_values(rules: Rules, unit: RefUnit) -> tuple[int, ...]:
    """Values a whole unit counts with: a build its announced value, a loose card its values."""
    if unit.build:
        return (unit.value,)
    return _values(rules, unit.cards[0])


# ---------------------------------------------------------------------------------------------
# Owner's duty (A.6): a brute-force bipartite matching
# ---------------------------------------------------------------------------------------------
def _matchable(rules: Rules, hand: Sequence[int], needed: set[int]) -> bool:
    """Can each value in ``needed`` get its own distinct card of ``hand`` carrying that value?"""
    if not needed:
        return True
    needed_list = sorted(needed)
    values = [_values(rules, card) for card in hand]

    def assign(i: int, used: frozenset[int]) -> bool:
        if i == len(needed_list):
            return True
        for k in range(len(hand)):
            if k not in used and needed_list[i] in values[k]:
                if assign(i + 1, used | {k}):
                    return True
        return False

    return assign(0, frozenset())


def _owned_values(table: Sequence[RefUnit], seat: int) -> set[int]:
    return {u.value for u in table if u.build and u.owner == seat}


def _duty_holds(rules: Rules, hand: Sequence[int], table: Sequence[RefUnit], seat: int) -> bool:
    return _matchable(rules, hand, _owned_values(table, seat))


def _without(cards: Sequence[int], card: int) -> list[int]:
    out = list(cards)
    out.remove(card)
    return out


def _duty_trails(rules: Rules, st: RefState, seat: int) -> list[int]:
    """Cards the seat may trail keeping its owner's duty (a trail does not change the table's builds)."""
    hand = st.hands[seat]
    return [c for c in _playable(hand) if _duty_holds(rules, _without(hand, c), st.table, seat)]


# ---------------------------------------------------------------------------------------------
# Captures (A.4, RULE_CHOICES "Captures")
# ---------------------------------------------------------------------------------------------
def _unit_takeable(rules: Rules, table: Sequence[RefUnit], unit: RefUnit, played: int) -> bool:
    """Grupp ``joker_capture``: restrictions on table units that contain a wild joker."""
    if not rules.wild or not any(zwick_cards.is_wild_joker(c) for c in unit.cards):
        return True
    if rules.joker_capture == "any":
        return True
    if rules.joker_capture == "joker_only":
        return zwick_cards.is_wild_joker(played)
    if rules.joker_capture == "lone_joker_only":
        return len(table) == 1
    return False  # never


@dataclass(frozen=True)
class _Item:
    """Something that can go into a capture group: a whole unit, or one card of a build taken
    card by card (``dietze_loose_builds``)."""

    cards: frozenset[int]
    values: tuple[int, ...]
    loose_valued_joker: bool


def _groups(rules: Rules, items: Sequence[_Item], target: int) -> set[frozenset[int]]:
    """Every set of table cards that some choice of items (with disjoint cards) and of their
    values makes add up to exactly ``target``."""
    found: set[frozenset[int]] = set()

    def rec(i: int, cards: frozenset[int], total: int, count: int, has_joker: bool) -> None:
        if count > 0 and total == target:
            # a loose valued joker in a group of two or more only with joker_sum_capture
            if not (has_joker and count >= 2 and not rules.joker_sum_capture):
                found.add(cards)
            return  # every value is >= 1: adding more items would overshoot
        if i == len(items):
            return
        rec(i + 1, cards, total, count, has_joker)  # item i not in the group
        item = items[i]
        if item.cards & cards:
            return
        for v in set(item.values):
            if total + v <= target:
                rec(i + 1, cards | item.cards, total + v, count + 1, has_joker or item.loose_valued_joker)

    rec(0, frozenset(), 0, 0, False)
    return found


def _disjoint_unions(groups: set[frozenset[int]]) -> set[frozenset[int]]:
    """All unions of one or more pairwise disjoint groups."""
    unions: set[frozenset[int]] = {frozenset()}
    for g in groups:
        unions |= {s | g for s in unions if not (s & g)}
    unions.discard(frozenset())
    return unions


def _capture_sets(rules: Rules, table: Sequence[RefUnit], played: int) -> set[frozenset[int]]:
    """Every set S of table cards (always whole units) the played card can capture."""
    items: list[_Item] = []
    for unit in table:
        if not _unit_takeable(rules, table, unit, played):
            continue
        if unit.build:
            items.append(_Item(frozenset(unit.cards), (unit.value,), False))
            if rules.dietze_loose_builds:
                # card by card, each counting its own value(s). A valued joker inside a build is
                # not "lying loose", so joker_sum_capture does not restrict it (literal reading).
                for c in unit.cards:
                    items.append(_Item(frozenset([c]), _values(rules, c), False))
        else:
            c = unit.cards[0]
            items.append(_Item(frozenset([c]), _values(rules, c), zwick_cards.is_valued_joker(c)))

    played_values = _values(rules, played)
    result: set[frozenset[int]] = set()
    if rules.capture_values == "one":
        for v in played_values:  # one value for every group
            result |= _disjoint_unions(_groups(rules, items, v))
    else:  # "several": each group may use any value of the played card
        groups: set[frozenset[int]] = set()
        for v in played_values:
            groups |= _groups(rules, items, v)
        result |= _disjoint_unions(groups)

    # A build goes whole or not at all (taking some cards of a build is not allowed).
    def whole_units(s: frozenset[int]) -> bool:
        return all(set(u.cards) <= s or not (set(u.cards) & s) for u in table)

    return {s for s in result if whole_units(s)}


def _capture_moves(rules: Rules, st: RefState) -> list[MoveKey]:
    p = st.to_move
    hand = st.hands[p]
    moves = []
    for card in _playable(hand):
        rest = _without(hand, card)
        for s in _capture_sets(rules, st.table, card):
            after = [u for u in st.table if not set(u.cards) <= s]
            if _duty_holds(rules, rest, after, p):
                moves.append(MoveKey("capture", card, taken=tuple(sorted(s))))
    return moves


# ---------------------------------------------------------------------------------------------
# Builds (A.5 classic/grupp; A.6 joker variants)
# ---------------------------------------------------------------------------------------------
def _classic_build_moves(rules: Rules, st: RefState) -> list[MoveKey]:
    """Play a card onto one unit; value = unit value + played value <= 14; no owner."""
    moves = set()
    for card in _playable(st.hands[st.to_move]):
        for unit in st.table:
            if rules.wild and rules.joker_capture != "any" and any(zwick_cards.is_wild_joker(c) for c in unit.cards):
                continue  # no build on a unit that contains a wild joker under a restriction
            for old in _unit_values(rules, unit):
                for v in _values(rules, card):
                    if old + v <= 14:
                        moves.add(MoveKey("build", card, target=tuple(unit.cards), value=old + v, owner=-1))
    return list(moves)


def _build_candidates(rules: Rules, st: RefState) -> set[tuple[int, int, int]]:
    """(card, target index or -1 for a new single-card build, announced value), joker variants."""
    cands = set()
    for card in _playable(st.hands[st.to_move]):
        played = _values(rules, card)
        for v in played:  # new single-card build
            if 1 <= v <= rules.max_build:
                cands.add((card, -1, v))
        for i, unit in enumerate(st.table):
            for old in _unit_values(rules, unit):
                for p in played:
                    options = [old + p]
                    if old - p >= 1:
                        options.append(old - p)
                    if p == old:
                        options.append(old)
                    if rules.subtract == "either" and p - old >= 1:
                        options.append(p - old)
                    for v in options:
                        if 1 <= v <= rules.max_build:
                            cands.add((card, i, v))
    return cands


def _owned_after_build(st: RefState, target: int, value: int, owner: int, seat: int) -> set[int]:
    """Values of the builds ``seat`` owns after a build move (the target changes value/owner)."""
    values = {u.value for i, u in enumerate(st.table) if u.build and u.owner == seat and i != target}
    if owner == seat:
        values.add(value)
    return values


def _build_key(st: RefState, card: int, target: int, value: int, owner: int) -> MoveKey:
    tgt = () if target < 0 else tuple(st.table[target].cards)
    return MoveKey("build", card, target=tgt, value=value, owner=owner)


def _own_build_ok(rules: Rules, st: RefState, card: int, target: int, value: int) -> bool:
    """A build owned by the mover: the holding requirement is the owner's-duty matching,
    the new build included."""
    p = st.to_move
    rest = _without(st.hands[p], card)
    return _matchable(rules, rest, _owned_after_build(st, target, value, p, p))


def _partner_build_ok(
    rules: Rules,
    st: RefState,
    card: int,
    target: int,
    value: int,
    q: int,
    asked: tuple[int, int, int],
    partner_duty: bool = True,
) -> bool:
    """A build for partner q: q already owns a build of this value, or q said yes to it this
    turn; the mover's duty for the builds he still owns holds, and so does q's. ``partner_duty
    =False`` skips q's check (it holds by construction; the ask offer must not read q's hand)."""
    if not (value in _owned_values(st.table, q) or tuple(asked) == (q, value, 1)):
        return False
    p = st.to_move
    rest = _without(st.hands[p], card)
    if not _matchable(rules, rest, _owned_after_build(st, target, value, q, p)):
        return False
    return not partner_duty or _matchable(rules, st.hands[q], _owned_after_build(st, target, value, q, q))


def _owner_build_moves(rules: Rules, st: RefState, asked: tuple[int, int, int]) -> list[MoveKey]:
    """Builds with owners (A.6): for the mover himself, or for a partner."""
    moves = set()
    for card, target, value in _build_candidates(rules, st):
        if _own_build_ok(rules, st, card, target, value):
            moves.add(_build_key(st, card, target, value, st.to_move))
        if rules.partner_builds:
            for q in _partners(rules, st.to_move):
                if _partner_build_ok(rules, st, card, target, value, q, asked):
                    moves.add(_build_key(st, card, target, value, q))
    return list(moves)


def _build_moves(rules: Rules, st: RefState, asked: tuple[int, int, int]) -> list[MoveKey]:
    if rules.owner_builds:
        return _owner_build_moves(rules, st, asked)
    return _classic_build_moves(rules, st)


def _trail_moves(rules: Rules, st: RefState) -> list[MoveKey]:
    return [MoveKey("trail", c) for c in _duty_trails(rules, st, st.to_move)]


# ---------------------------------------------------------------------------------------------
# Legal moves
# ---------------------------------------------------------------------------------------------
def _card_moves(rules: Rules, st: RefState, asked: tuple[int, int, int]) -> list[MoveKey]:
    """Trails, captures and builds of the mover, each keeping his owner's duty; with
    ``forced_capture`` only captures when he has one (a capture keeping his duty)."""
    captures = _capture_moves(rules, st)
    if rules.forced_capture and captures:
        return captures
    return captures + _build_moves(rules, st, asked) + _trail_moves(rules, st)


def _ask_moves(rules: Rules, st: RefState) -> list[MoveKey]:
    """Magger asks (RULE_CHOICES "Asking the partner"): (q, n) is offered when, were the answer
    yes, the mover would have a for-partner build of value n owned by q that is not legal without
    asking (q owns no n-build). The offer must not depend on q's hand (the answer is secret until
    asked), so q's duty is taken as holding, as it does after a yes (the answer is yes exactly
    when q's hand matches his build values plus n)."""
    if rules.forced_capture and _capture_moves(rules, st):
        return []  # only captures are legal: no build, so nothing to ask for
    candidates = _build_candidates(rules, st)
    asks = set()
    for q in _partners(rules, st.to_move):
        owned_by_q = _owned_values(st.table, q)
        for card, target, n in candidates:
            if n in owned_by_q:
                continue  # that build is legal without asking
            if _partner_build_ok(rules, st, card, target, n, q, (q, n, 1), partner_duty=False):
                asks.add(MoveKey("ask", -1, value=n, owner=q))
    return list(asks)


def legal_moves(rules: Rules, st: RefState) -> list[MoveKey]:
    """Distinct legal whole moves of the player to move, sorted; [] once the hand is over."""
    # memoized on the snapshot only so that apply() can re-check legality at no extra cost
    try:
        return list(_legal_memo(rules, snapshot(rules, st)))
    except TypeError:  # unhashable rules (hand-made): no memo
        return _legal_moves(rules, st)


@functools.lru_cache(maxsize=64)
def _legal_memo(rules: Rules, snap: Snapshot) -> tuple[MoveKey, ...]:
    return tuple(_legal_moves(rules, from_snapshot(rules, snap)))


def _asked(asked: Sequence[int]) -> Ask:
    """A turn's question record (partner, value, answer) as an :class:`Ask`."""
    return Ask(*asked)


def _legal_moves(rules: Rules, st: RefState) -> list[MoveKey]:
    if st.phase == layout.PHASE_OVER:
        return []
    if st.phase in (layout.PHASE_AFTER_ZWICK_TRAIL, layout.PHASE_DIETZE_TRAIL):
        return _sorted_keys(_trail_moves(rules, st))  # forced trail: only duty-keeping trails
    moves = set(_card_moves(rules, st, _asked(st.asked)))
    if rules.magger and tuple(st.asked) == NO_ASK:
        moves |= set(_ask_moves(rules, st))
    return _sorted_keys(moves)


def _sorted_keys(moves) -> list[MoveKey]:
    """Distinct keys in MoveKey order (the dataclass field order), sorted via plain tuples."""
    fields = lambda m: (m.kind, m.card, m.taken, m.target, m.value, m.owner)  # noqa: E731
    return sorted(set(moves), key=fields)


def is_zwick(rules: Rules, st: RefState, move: MoveKey) -> bool:
    """A capture that leaves the table empty; in Grupp with ``joker_sweep_is_zwick=false`` not
    when the played card is a wild joker."""
    if move.kind != "capture":
        return False
    table_cards = sorted(c for u in st.table for c in u.cards)
    if sorted(move.taken) != table_cards:
        return False
    return not (zwick_cards.is_wild_joker(move.card) and not rules.joker_sweep_is_zwick)


# ---------------------------------------------------------------------------------------------
# Applying a move and turn sequencing (RULE_CHOICES "Turn sequencing")
# ---------------------------------------------------------------------------------------------
def apply(rules: Rules, st: RefState, move: MoveKey) -> RefState:
    """The state after ``move``; ``st`` is not changed. ValueError for an illegal move."""
    if move not in legal_moves(rules, st):
        raise ValueError(f"illegal move {move} in phase {st.phase} for seat {st.to_move}")
    new = st.copy()
    p = new.to_move
    if move.kind == "ask":
        q, n = move.owner, move.value
        answer = _matchable(rules, new.hands[q], _owned_values(new.table, q) | {n})
        new.asked = (q, n, int(answer))
        return new  # the same player moves again

    zwick = is_zwick(rules, st, move)
    new.hands[p].remove(move.card)
    new.asked = NO_ASK
    if move.kind == "trail":
        new.table.append(RefUnit([move.card]))
    elif move.kind == "capture":
        taken = set(move.taken)
        new.table = [u for u in new.table if not set(u.cards) <= taken]
        side = _side(rules, p)
        new.won[side] = sorted(new.won[side] + list(move.taken) + [move.card])
        new.last_capturer = side
        if zwick:
            new.zwicks[side] += 1
    else:  # build
        if move.target:
            index = next(i for i, u in enumerate(new.table) if tuple(u.cards) == move.target)
            unit = new.table[index]
            new.table[index] = RefUnit(sorted(unit.cards + [move.card]), move.value, move.owner, True)
        else:
            new.table.append(RefUnit([move.card], move.value, move.owner, True))

    P = rules.players
    if st.phase == layout.PHASE_NORMAL:
        if zwick and rules.after_zwick == "zwicker_trails":
            if _duty_trails(rules, new, p):
                new.phase, new.az_left = layout.PHASE_AFTER_ZWICK_TRAIL, 0  # p trails once more
            else:
                _start_normal_turn(rules, new, (p + 1) % P)
        elif zwick and rules.after_zwick == "all_trail":
            _visit_all_trail(rules, new, (p + 1) % P, P)
        else:
            _start_normal_turn(rules, new, (p + 1) % P)
    elif st.phase == layout.PHASE_DIETZE_TRAIL:
        keeps_trailing = len(new.table) < rules.dietze_min_table and _duty_trails(rules, new, p)
        if not keeps_trailing:
            if new.hands[p]:
                new.phase = layout.PHASE_NORMAL  # now his normal move (no second Dietze check)
            else:
                _start_normal_turn(rules, new, (p + 1) % P)
    else:  # PHASE_AFTER_ZWICK_TRAIL
        if rules.after_zwick == "all_trail":
            _visit_all_trail(rules, new, (p + 1) % P, st.az_left - 1)
        else:
            _start_normal_turn(rules, new, (p + 1) % P)
    return new


def _visit_all_trail(rules: Rules, st: RefState, seat: int, left: int) -> None:
    """Continue an all-trail round at ``seat`` with ``left`` seats still to visit (the Zwicker
    is the last one); after the round the seat after the Zwicker has the next normal turn."""
    while left > 0:
        if _duty_trails(rules, st, seat):
            st.to_move, st.phase, st.az_left = seat, layout.PHASE_AFTER_ZWICK_TRAIL, left
            return
        seat = (seat + 1) % rules.players
        left -= 1
    _start_normal_turn(rules, st, seat)  # seat is now the one after the Zwicker


def _start_normal_turn(rules: Rules, st: RefState, start: int) -> None:
    """The next normal turn goes to the first seat from ``start`` on that holds cards; it begins
    with the Dietze check. Nobody holds a card: the stage ends."""
    st.asked = NO_ASK
    st.az_left = 0
    for k in range(rules.players):
        seat = (start + k) % rules.players
        if st.hands[seat]:
            st.to_move = seat
            short = len(st.table) < rules.dietze_min_table
            st.phase = layout.PHASE_DIETZE_TRAIL if short and _duty_trails(rules, st, seat) else layout.PHASE_NORMAL
            return
    _end_stage(rules, st)


def _end_stage(rules: Rules, st: RefState) -> None:
    if st.stock and st.stage + 1 < rules.plan.max_stages:
        while rules.dietze_min_table and len(st.table) < rules.dietze_min_table and st.stock:
            st.table.append(RefUnit([st.stock.pop(0)]))
        _deal_stage(rules, st)
        st.stage += 1
        _start_normal_turn(rules, st, (st.dealer + 1) % rules.players)
        return
    # End of hand: leftovers to the last capturer's side (not a Zwick); nobody: they stay put.
    if st.last_capturer >= 0:
        leftovers = [c for u in st.table for c in u.cards]
        st.won[st.last_capturer] = sorted(st.won[st.last_capturer] + leftovers)
        st.table = []
    st.phase = layout.PHASE_OVER
    st.to_move = -1
    st.az_left = 0
    st.asked = NO_ASK


# ---------------------------------------------------------------------------------------------
# Dealing (A.3, RULE_CHOICES "Deal")
# ---------------------------------------------------------------------------------------------
def _deal_hands(rules: Rules, st: RefState, each: int, packet: int) -> None:
    """``each`` cards to every player, a packet at a time, from forehand on."""
    forehand = (st.dealer + 1) % rules.players
    for _ in range(each // packet):
        for k in range(rules.players):
            seat = (forehand + k) % rules.players
            for _ in range(packet):
                st.hands[seat].append(st.stock.pop(0))
    for h in st.hands:
        h.sort()


def _deal_stage(rules: Rules, st: RefState) -> None:
    """A later stage (RULE_CHOICES "Deal")."""
    plan, P, r = rules.plan, rules.players, len(st.stock)
    if plan.final_hand and r == P * plan.final_hand:
        _deal_hands(rules, st, plan.final_hand, 1)
    elif r >= P * plan.stage_hand:
        _deal_hands(rules, st, plan.stage_hand, plan.stage_packet)
    else:  # one card at a time from forehand as far as the cards go
        forehand = (st.dealer + 1) % P
        k = 0
        while st.stock:
            st.hands[(forehand + k) % P].append(st.stock.pop(0))
            k += 1
        for h in st.hands:
            h.sort()


def deal(rules: Rules, order: Sequence[int], dealer: int) -> RefState:
    """Deal stage 0 from ``order`` (a permutation of the deck, dealt from ``order[0]`` on)."""
    if sorted(order) != sorted(rules.deck):
        raise ValueError("order must be a permutation of rules.deck")
    if not 0 <= dealer < rules.players:
        raise ValueError(f"dealer {dealer} is not a seat 0..{rules.players - 1}")
    st = RefState(
        hands=[[] for _ in range(rules.players)],
        table=[],
        stock=list(order),
        won=[[] for _ in rules.sides],
        zwicks=[0] * len(rules.sides),
        dealer=dealer,
        to_move=(dealer + 1) % rules.players,
    )
    for kind, n, packet in rules.plan.first:
        if kind == "hands":
            _deal_hands(rules, st, n, packet)
        else:
            for _ in range(n):
                st.table.append(RefUnit([st.stock.pop(0)]))
    _start_normal_turn(rules, st, (dealer + 1) % rules.players)
    return st


# ---------------------------------------------------------------------------------------------
# Scoring (A.8)
# ---------------------------------------------------------------------------------------------
def score(rules: Rules, st: RefState) -> tuple[int, ...]:
    """Per side: card points + most-cards (strictly more than every other side) + Zwicks."""
    points = dict(rules.points)
    counts = [len(w) for w in st.won]
    out = []
    for s, won in enumerate(st.won):
        total = sum(points.get(c, 0) for c in won)
        if all(counts[s] > counts[t] for t in range(len(counts)) if t != s):
            total += rules.most_cards_points
        total += rules.zwick_points * st.zwicks[s]
        out.append(total)
    return tuple(out)


# ---------------------------------------------------------------------------------------------
# Snapshots
# ---------------------------------------------------------------------------------------------
def snapshot(rules: Rules, st: RefState) -> Snapshot:
    return Snapshot(
        hands=tuple(tuple(sorted(h)) for h in st.hands),
        table=tuple(
            Unit(tuple(sorted(u.cards)), u.value, u.owner, True) if u.build else Unit(tuple(u.cards), 0, -1, False)
            for u in st.table
        ),
        stock=tuple(st.stock),
        won=tuple(tuple(sorted(w)) for w in st.won),
        zwicks=tuple(st.zwicks),
        dealer=st.dealer,
        to_move=st.to_move,
        stage=st.stage,
        last_capturer=st.last_capturer,
        phase=st.phase,
        az_left=st.az_left,
        asked=_asked(st.asked),
    )


def from_snapshot(rules: Rules, snap: Snapshot) -> RefState:
    if len(snap.hands) != rules.players or len(snap.won) != len(rules.sides):
        raise ValueError("snapshot does not fit the rules (number of seats or sides)")
    return RefState(
        hands=[sorted(h) for h in snap.hands],
        table=[RefUnit(sorted(u.cards), u.value, u.owner, u.build) for u in snap.table],
        stock=list(snap.stock),
        won=[sorted(w) for w in snap.won],
        zwicks=list(snap.zwicks),
        dealer=snap.dealer,
        to_move=snap.to_move,
        stage=snap.stage,
        last_capturer=snap.last_capturer,
        phase=snap.phase,
        az_left=snap.az_left,
        asked=_asked(snap.asked),
    )
