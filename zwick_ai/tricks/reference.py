"""A slow, readable plain-Python statement of the Zwikken/Zwicken rules: the test oracle of the kernels.

It decodes a kernel position into a :class:`Pos` of Python lists and dicts, lists the legal
actions and applies one action by the rules of docs/rules.md (written again from the text, sharing no
code with :mod:`~zwick_ai.tricks.kernels`), and compares through :func:`project`. It reads the rule
set from the rules' variant and options, not from the kernels' ``cfg`` array.

>>> from zwick_ai import tricks
>>> s = tricks.deal(tricks.rules("zwicken"), seed=3)
>>> sorted(legal(decode(s))) == tricks.legal_actions(s)
True
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import cast

from zwick_ai import cards as zwick_cards
from zwick_ai.tricks import layout as tricks_layout
from zwick_ai.tricks.engine import TrickState
from zwick_ai.tricks.rules import TrickRules

POINTS = {"A": 4, "K": 3, "Q": 2, "J": 1}


@dataclass
class Pos:
    rules: TrickRules
    phase: int
    cur: int
    dealer: int
    pot: int
    pot0: int
    trump: int
    ups: list[int]
    loc: dict[int, int]
    seat: dict[str, list[int]]  # per-player fields by name
    trick: list[tuple[int, int, bool]]  # (seat, card, face down) in play order
    ctr: dict[str, int] = field(default_factory=dict)  # counters: turn, round, high, ...

    @property
    def n(self) -> int:
        return self.rules.players

    def hand(self, p: int) -> list[int]:
        return sorted(c for c, where in self.loc.items() if where == tricks_layout.L_HAND + p)

    def stock(self, with_bottom: bool = False) -> list[int]:
        return sorted(
            c
            for c, w in self.loc.items()
            if w == tricks_layout.L_STOCK or (with_bottom and w == tricks_layout.L_BOTTOM)
        )


_SEAT_FIELDS = ("status", "bid", "asked", "ann", "tricks", "points", "net", "led", "tcard", "tfd", "passr1", "inn")
_COUNTERS = {
    "deal_q": tricks_layout.S_DEAL_Q,
    "deal_j": tricks_layout.S_DEAL_J,
    "last": tricks_layout.S_LAST,
    "high": tricks_layout.S_HIGH,
    "highp": tricks_layout.S_HIGHP,
    "round": tricks_layout.S_ROUND,
    "turn": tricks_layout.S_TURN,
    "nsearch": tricks_layout.S_NSEARCH,
    "swapk": tricks_layout.S_SWAPK,
    "exk": tricks_layout.S_EXK,
    "exd": tricks_layout.S_EXD,
    "drawn": tricks_layout.S_DRAWN,
    "cuts": tricks_layout.S_CUTS,
    "passes": tricks_layout.S_PASSES,
    "bottom": tricks_layout.S_BOTTOM,
    "trickno": tricks_layout.S_TRICK,
    "leader": tricks_layout.S_LEADER,
    "speler": tricks_layout.S_SPELER,
    "result": tricks_layout.S_RESULT,
    "zwikp": tricks_layout.S_ZWIKP,
}


def decode(state: TrickState) -> Pos:
    a = state.arr
    n = state.rules.players
    seat = {
        name: [int(a[tricks_layout.S_PLAYERS + k * tricks_layout.NP + p]) for p in range(n)]
        for k, name in enumerate(_SEAT_FIELDS)
    }
    ctr = {name: int(a[i]) for name, i in _COUNTERS.items()}
    trick = []
    if ctr["leader"] >= 0:
        q = ctr["leader"]
        for _ in range(n):
            if seat["tcard"][q] >= 0:
                trick.append((q, seat["tcard"][q], bool(seat["tfd"][q])))
            q = (q + 1) % n
    return Pos(
        rules=state.rules,
        phase=int(a[tricks_layout.S_PHASE]),
        cur=int(a[tricks_layout.S_CUR]),
        dealer=int(a[tricks_layout.S_DEALER]),
        pot=int(a[tricks_layout.S_POT]),
        pot0=int(a[tricks_layout.S_POT0]),
        trump=int(a[tricks_layout.S_TRUMP]),
        ups=[int(x) for x in a[tricks_layout.S_UP : tricks_layout.S_UP + a[tricks_layout.S_NUP]]],
        loc={
            c: int(a[tricks_layout.S_LOC + c])
            for c in range(tricks_layout.NC)
            if a[tricks_layout.S_LOC + c] != tricks_layout.L_OUT
        },
        seat=seat,
        trick=trick,
        ctr=ctr,
    )


def project(pos: Pos) -> tuple:
    """Everything the rules care about, comparable with ``==``."""
    s = {k: v for k, v in pos.seat.items() if k not in ("tcard", "tfd")}
    return (
        pos.phase,
        pos.cur,
        pos.dealer,
        pos.pot,
        pos.pot0 if pos.phase in (tricks_layout.PH_PLAY, tricks_layout.PH_END) else None,
        pos.trump,
        tuple(pos.ups),
        tuple(sorted(pos.loc.items())),
        tuple((k, tuple(v)) for k, v in sorted(s.items())),
        tuple(pos.trick),
        tuple(sorted((k, v) for k, v in pos.ctr.items() if k not in ("last", "swapk"))),
    )


# ---- rule helpers ------------------------------------------------------------------------------------
def _rank(c: int) -> str:
    return zwick_cards.RANKS[c % 13]


def _kind(pos: Pos) -> str:
    return pos.rules.variant if pos.rules.game == "zwikken" else "zwicken"


def _seven_d(pos: Pos) -> int | None:
    c = zwick_cards.card_id("7", "D")
    return c if pos.rules.game == "zwicken" and c in pos.rules.deck else None


def _suit(pos: Pos, c: int) -> int:
    return pos.trump if c == _seven_d(pos) else c // 13


def _order(pos: Pos, c: int) -> float:
    return 11.5 if c == _seven_d(pos) else c % 13  # 7D between the trump King and Ace


def _winner(pos: Pos, trick: list[tuple[int, int, bool]]) -> int:
    """Seat winning a trick: highest trump, else highest card of the suit led; face-down cards never
    win, and if every card but the leader's is face down or off-suit the leader wins."""
    face_up = [(q, c) for q, c, fd in trick if not fd]
    trumps = [(q, c) for q, c in face_up if _suit(pos, c) == pos.trump]
    if trumps:
        return max(trumps, key=lambda qc: _order(pos, qc[1]))[0]
    lead_q, lead_c, lead_fd = trick[0]
    if lead_fd:
        return lead_q
    led = _suit(pos, lead_c)
    return max((qc for qc in face_up if _suit(pos, qc[1]) == led), key=lambda qc: _order(pos, qc[1]))[0]


def _face_down_trick(pos: Pos) -> bool:
    return _kind(pos) == "historic" and pos.ctr["trickno"] < pos.rules.tricks - 1


def _legal_cards(pos: Pos, p: int) -> list[int]:
    hand = pos.hand(p)
    trumps = [c for c in hand if _suit(pos, c) == pos.trump]
    kind = _kind(pos)
    if _face_down_trick(pos):
        return trumps or hand
    if not pos.trick:
        ace = pos.trump * 13 + 12
        if kind == "zwicken" and ace in hand and not pos.seat["led"][p]:
            return [ace]
        if kind == "modern" and pos.rules.option("lubbers") and p == pos.ctr["speler"] and len(hand) > 1:
            return [c for c in hand if c != ace]
        return hand
    led = _suit(pos, pos.trick[0][1])
    same = [c for c in hand if _suit(pos, c) == led]

    def wins(c: int) -> bool:
        return _winner(pos, pos.trick + [(p, c, False)]) == p

    if kind == "historic":
        return same or hand
    if kind == "zwicken":
        if same:
            return [c for c in same if wins(c)] or same
        if trumps:
            return [c for c in trumps if wins(c)] or trumps
        return hand
    if same:
        return same
    if trumps:
        over = [c for c in trumps if wins(c)]
        return over or [c for c in hand if c not in trumps] or trumps
    return hand


def _max_level(pos: Pos) -> int:
    lv = pos.rules.option("max_bid_levels")
    if lv:
        return cast(int, lv)
    return 4 if _kind(pos) == "parlett" or pos.rules.option("part_pot_bids") else 3


def _ten_of(up: int) -> int:
    return (up // 13) * 13 + 8


def legal(pos: Pos) -> list[int]:
    """Legal player actions by the rules (empty at chance and terminal nodes)."""
    p, ph = pos.cur, pos.phase
    if p < 0:
        return []
    if ph == tricks_layout.PH_PLAY:
        return [tricks_layout.A_PLAY + c for c in _legal_cards(pos, p)]
    if ph == tricks_layout.PH_DECLARE:
        if _kind(pos) == "historic":
            return [tricks_layout.A_PLAYDECL] + ([] if pos.rules.option("forced_rounds") else [tricks_layout.A_PASS])
        talon = len(pos.stock(with_bottom=True))
        return [tricks_layout.A_PASS] + [
            tricks_layout.A_EXCH + k for k in range(4) if k <= min(talon, pos.rules.tricks)
        ]
    if ph == tricks_layout.PH_DISCARD:
        hand = pos.hand(p)
        left = pos.ctr["exk"] - pos.ctr["exd"]
        return [
            tricks_layout.A_DISCARD + c for c in hand if c > pos.ctr["last"] and sum(x > c for x in hand) >= left - 1
        ]
    if ph == tricks_layout.PH_AUCTION:
        hi, top = pos.ctr["high"], _max_level(pos)
        levels = range(hi + 1, top + 1) if _kind(pos) == "parlett" else range(hi + 1, min(hi + 1, top) + 1)
        out = [tricks_layout.A_PASS] + [tricks_layout.A_BID + lv - 1 for lv in levels]
        k = len(pos.ups) - 1
        if _kind(pos) == "modern" and pos.loc.get(_ten_of(pos.ups[k])) == tricks_layout.L_HAND + p:
            if not (pos.seat["ann"][p] >> k) & 1:
                out += [tricks_layout.A_PASS_KEN] + [tricks_layout.A_BID_KEN + lv - 1 for lv in levels]
        return out
    if ph == tricks_layout.PH_SEARCH:
        return [tricks_layout.A_SEARCH, tricks_layout.A_STOP]
    if ph == tricks_layout.PH_SWAP:
        return [tricks_layout.A_SWAP, tricks_layout.A_KEEP]
    return []


def chance_support(pos: Pos) -> list[int]:
    """Cards that can come next at a chance node."""
    if pos.phase == tricks_layout.PH_CUT or pos.phase == tricks_layout.PH_UPCARD:
        return pos.stock()
    need = (
        pos.rules.tricks - pos.ctr["deal_j"]
        if pos.phase == tricks_layout.PH_DEAL
        else pos.ctr["exk"] - pos.ctr["drawn"]
    )
    stock = pos.stock()
    if pos.phase == tricks_layout.PH_DRAW and len(stock) < need:
        return [stock[0] if stock else pos.ctr["bottom"]]
    above = [c for c in stock if c > pos.ctr["last"]]
    return [c for c in above if sum(x > c for x in above) >= need - 1]


# ---- applying -----------------------------------------------------------------------------------------
def _pay(pos: Pos, p: int, amount: int) -> None:
    pos.seat["net"][p] -= amount
    pos.pot += amount


def _end(pos: Pos, result: int) -> None:
    pos.phase, pos.cur, pos.ctr["result"] = tricks_layout.PH_END, tricks_layout.CUR_OVER, result


def _order_from_forehand(pos: Pos) -> list[int]:
    return [(pos.dealer + 1 + i) % pos.n for i in range(pos.n)]


def apply(pos: Pos, action: int) -> Pos:
    """The position after a legal action or chance outcome."""
    pos = copy.deepcopy(pos)
    if pos.cur == tricks_layout.CUR_CHANCE:
        _apply_chance(pos, action)
    else:
        _apply_decision(pos, action)
    return pos


def _apply_chance(pos: Pos, c: int) -> None:
    n = pos.n
    if pos.phase == tricks_layout.PH_CUT:
        pos.ctr["cuts"] += 1
        r = _rank(c)
        if pos.ctr["passes"] < n and r in "A7":
            d = pos.dealer
            if c == _seven_d(pos):
                if pos.rules.option("seven_jump") == "rearhand":
                    new, skipped = (d - 1) % n, [(d + i) % n for i in range(1, n - 1)]
                else:
                    new, skipped = (d + 2) % n, [(d + 1) % n]
                for q in skipped:
                    _pay(pos, q, 3)
            else:
                new = (d + 1) % n
            _pay(pos, new, 3)
            pos.dealer = new
            pos.ctr["passes"] += 1
            return
        pos.loc[c] = tricks_layout.L_BOTTOM
        pos.ctr["bottom"] = c
        pos.phase = tricks_layout.PH_DEAL
        pos.ctr.update(deal_q=0, deal_j=0, last=-1)
    elif pos.phase == tricks_layout.PH_DEAL:
        pos.loc[c] = tricks_layout.L_HAND + _order_from_forehand(pos)[pos.ctr["deal_q"]]
        pos.ctr["last"] = c
        pos.ctr["deal_j"] += 1
        if pos.ctr["deal_j"] == pos.rules.tricks:
            pos.ctr.update(deal_j=0, deal_q=pos.ctr["deal_q"] + 1, last=-1)
            if pos.ctr["deal_q"] == n:
                pos.phase = tricks_layout.PH_UPCARD
    elif pos.phase == tricks_layout.PH_UPCARD:
        seen_suits = {u // 13 for u in pos.ups}
        pos.ups.append(c)
        pos.loc[c] = tricks_layout.L_UP
        if _kind(pos) == "modern" and c // 13 in seen_suits:
            _end(pos, tricks_layout.R_REPEAT)
            return
        pos.trump = c // 13
        pos.ctr["turn"] = 0
        pos.cur = _order_from_forehand(pos)[0]
        if _kind(pos) in ("historic", "zwicken"):
            pos.phase = tricks_layout.PH_DECLARE
        else:
            pos.phase = tricks_layout.PH_AUCTION
            for name in ("status", "bid", "asked", "passr1"):
                pos.seat[name] = [0] * n
            pos.ctr.update(high=0, highp=-1, round=1)
    elif pos.phase == tricks_layout.PH_DRAW:
        pos.loc[c] = tricks_layout.L_HAND + _order_from_forehand(pos)[pos.ctr["turn"]]
        pos.ctr["last"] = c
        pos.ctr["drawn"] += 1
        if pos.ctr["drawn"] == pos.ctr["exk"]:
            _next_declarer(pos)


def _next_declarer(pos: Pos) -> None:
    pos.ctr["turn"] += 1
    if pos.ctr["turn"] < pos.n:
        pos.phase = tricks_layout.PH_DECLARE
        pos.cur = _order_from_forehand(pos)[pos.ctr["turn"]]
        return
    playing = [p for p in range(pos.n) if pos.seat["status"][p] == 1]
    if not playing:
        _end(pos, tricks_layout.R_VOID)
    elif len(playing) == 1:
        _pay(pos, playing[0], -pos.pot)
        _end(pos, tricks_layout.R_LONE)
    else:
        pos.seat["inn"] = [1 if p in playing else 0 for p in range(pos.n)]
        _before_play(pos)


def _apply_decision(pos: Pos, a: int) -> None:
    p, ph = pos.cur, pos.phase
    if ph == tricks_layout.PH_PLAY:
        _play(pos, p, a - tricks_layout.A_PLAY)
    elif ph == tricks_layout.PH_DISCARD:
        c = a - tricks_layout.A_DISCARD
        pos.loc[c] = tricks_layout.L_DISC
        pos.ctr["last"] = c
        pos.ctr["exd"] += 1
        if pos.ctr["exd"] == pos.ctr["exk"]:
            pos.phase, pos.cur = tricks_layout.PH_DRAW, tricks_layout.CUR_CHANCE
            pos.ctr["last"] = -1
    elif ph == tricks_layout.PH_DECLARE:
        if a == tricks_layout.A_PASS:
            pos.seat["status"][p] = 2
            _next_declarer(pos)
        elif a == tricks_layout.A_PLAYDECL:
            pos.seat["status"][p] = 1
            _next_declarer(pos)
        else:
            pos.seat["status"][p] = 1
            pos.ctr.update(exk=a - tricks_layout.A_EXCH, exd=0, drawn=0, last=-1)
            if a == tricks_layout.A_EXCH:
                _next_declarer(pos)
            else:
                pos.phase = tricks_layout.PH_DISCARD
    elif ph == tricks_layout.PH_AUCTION:
        _call(pos, p, a)
    elif ph == tricks_layout.PH_SEARCH:
        if a == tricks_layout.A_STOP:
            _end(pos, tricks_layout.R_STOP)
            return
        pos.ctr["nsearch"] += 1
        if _kind(pos) == "parlett" or pos.ctr["nsearch"] == 1:
            for q in range(pos.n):
                _pay(pos, q, 1)
        pos.phase, pos.cur = tricks_layout.PH_UPCARD, tricks_layout.CUR_CHANCE
    elif ph == tricks_layout.PH_SWAP:
        if a == tricks_layout.A_SWAP:
            k = pos.ctr["swapk"]
            up, ten = pos.ups[k], _ten_of(pos.ups[k])
            pos.loc[up], pos.loc[ten] = tricks_layout.L_HAND + p, tricks_layout.L_UP
            pos.ups[k] = ten
        _next_swap(pos)


def _call(pos: Pos, p: int, a: int) -> None:
    n, modern = pos.n, _kind(pos) == "modern"
    if a == tricks_layout.A_PASS_KEN or tricks_layout.A_BID_KEN <= a < tricks_layout.A_BID_KEN + 4:
        pos.seat["ann"][p] |= 1 << (len(pos.ups) - 1)
    if a in (tricks_layout.A_PASS, tricks_layout.A_PASS_KEN):
        if not modern or pos.ctr["round"] == 1:
            pos.seat["status"][p] = 2
            if pos.ctr["round"] == 1:
                pos.seat["passr1"][p] = 1
    else:
        lv = (a - tricks_layout.A_BID if a < tricks_layout.A_PASS_KEN else a - tricks_layout.A_BID_KEN) + 1
        pos.seat["status"][p], pos.seat["bid"][p], pos.seat["asked"][p] = 1, lv, 1
        pos.ctr.update(high=lv, highp=p)
    if not modern:
        alive = [q for q in range(n) if pos.seat["status"][q] != 2]
        if not alive:
            return _all_passed(pos)
        if pos.ctr["highp"] >= 0 and alive == [pos.ctr["highp"]]:
            return _auction_won(pos)
        for i in range(1, n + 1):
            q = (p + i) % n
            if q in alive and q != pos.ctr["highp"]:
                pos.cur = q
                return
        return
    order = _order_from_forehand(pos)
    while True:
        pos.ctr["turn"] += 1
        if pos.ctr["turn"] >= n:
            if pos.ctr["round"] == 1 and pos.ctr["highp"] >= 0:
                pos.ctr["round"], pos.ctr["turn"] = 2, -1
                continue
            return _all_passed(pos) if pos.ctr["highp"] < 0 else _auction_won(pos)
        q = order[pos.ctr["turn"]]
        if pos.ctr["round"] == 1:
            pos.cur = q
            return
        lubbers_out = pos.rules.option("lubbers") and pos.seat["passr1"][q]
        if q != pos.ctr["highp"] and pos.ctr["high"] < _max_level(pos) and not lubbers_out:
            pos.cur = q
            return


def _all_passed(pos: Pos) -> None:
    most = 3 if _kind(pos) == "parlett" else 2
    if pos.ctr["nsearch"] < most and pos.stock():
        pos.phase, pos.cur = tricks_layout.PH_SEARCH, pos.dealer
    else:
        _end(pos, tricks_layout.R_VOID)


def _auction_won(pos: Pos) -> None:
    pos.ctr["speler"] = pos.ctr["highp"]
    pos.seat["inn"] = [1] * pos.n
    _before_play(pos)


def _before_play(pos: Pos) -> None:
    pos.ctr["swapk"] = -1
    _next_swap(pos)


def _next_swap(pos: Pos) -> None:
    kind = _kind(pos)
    if kind in ("parlett", "modern"):
        ks = range(pos.ctr["swapk"] + 1, len(pos.ups))
        for k in ks:
            if kind == "parlett" and k != len(pos.ups) - 1:
                continue
            where = pos.loc.get(_ten_of(pos.ups[k]), tricks_layout.L_OUT)
            holder = where - tricks_layout.L_HAND
            if 0 <= holder < pos.n and (kind == "parlett" or (pos.seat["ann"][holder] >> k) & 1):
                pos.ctr["swapk"] = k
                pos.phase, pos.cur = tricks_layout.PH_SWAP, holder
                return
    if not _zwik(pos):
        _start_play(pos)


def _combo(pos: Pos, p: int) -> int:
    hand = pos.hand(p)
    if pos.rules.tricks != 3 or len(hand) != 3:
        return 0
    kind = _kind(pos)
    suits = {c // 13 for c in hand}
    ranks = sorted((c % 13 for c in hand), reverse=True)
    if kind in ("parlett", "modern") and pos.rules.option("three_trumps") and suits == {pos.trump}:
        return 100000 + ranks[0]
    if kind == "historic" and pos.rules.option("zwik") == "suit":
        if len(suits) != 1:
            return 0
        v = 1000 + ranks[0] * 169 + ranks[1] * 13 + ranks[2]
        return v + 10000 if suits == {pos.trump} else v
    if kind == "zwicken" or len(set(ranks)) != 1:
        return 0
    if kind == "historic" and ranks[0] == pos.ups[-1] % 13:
        return 2000
    if kind == "modern" and zwick_cards.RANKS[ranks[0]] == "T":
        return 2000
    return 1000 + ranks[0]


def _zwik(pos: Pos) -> bool:
    kind = _kind(pos)
    if kind == "zwicken":
        return False

    def counts(p: int) -> bool:
        if kind == "historic":
            return pos.seat["inn"][p] == 1
        return kind == "parlett" or pos.seat["asked"][p] == 1

    order = [p for p in _order_from_forehand(pos) if counts(p)]
    best = max(order, key=lambda p: _combo(pos, p), default=None)  # max keeps the first of equals
    if best is None or _combo(pos, best) == 0:
        best = None
        if kind == "historic" and pos.rules.option("upcard_pair") and pos.rules.tricks >= 2:
            r = pos.ups[-1] % 13
            pairs = [p for p in order if sum(c % 13 == r for c in pos.hand(p)) >= 2]
            best = pairs[0] if pairs else None
    if best is None:
        return False
    before = pos.pot
    _pay(pos, best, -before)
    if kind == "historic":
        for q in range(pos.n):
            if q != best and pos.seat["inn"][q]:
                _pay(pos, q, before)
    pos.ctr["zwikp"] = best
    _end(pos, tricks_layout.R_ZWIK)
    return True


def _start_play(pos: Pos) -> None:
    pos.pot0 = pos.pot
    players = [p for p in _order_from_forehand(pos) if pos.seat["inn"][p]]
    pos.ctr.update(trickno=0, leader=players[0])
    pos.trick = []
    pos.phase, pos.cur = tricks_layout.PH_PLAY, players[0]


def _play(pos: Pos, p: int, c: int) -> None:
    fd = _face_down_trick(pos) and c // 13 != pos.trump
    pos.loc[c] = tricks_layout.L_FD if fd else tricks_layout.L_PLAYED
    if not pos.trick:
        pos.seat["led"][p] = 1
    pos.trick.append((p, c, fd))
    players = [q for q in range(pos.n) if pos.seat["inn"][q]]
    if len(pos.trick) < len(players):
        q = (p + 1) % pos.n
        while not pos.seat["inn"][q]:
            q = (q + 1) % pos.n
        pos.cur = q
        return
    w = _winner(pos, pos.trick)
    h = pos.rules.tricks
    pos.seat["tricks"][w] += 1
    pos.seat["points"][w] += sum(POINTS.get(_rank(x), 0) for _, x, _ in pos.trick)
    cards = {x: q for q, x, _ in pos.trick}
    seven = _seven_d(pos)
    if seven is not None and seven in cards and pos.trump * 13 + 12 in cards:
        _pay(pos, cards[seven], 3)
    last = pos.ctr["trickno"] == h - 1
    kind = _kind(pos)
    if kind in ("historic", "zwicken"):
        if kind == "zwicken" and pos.rules.option("anbieten"):
            if last:
                _pay(pos, w, -pos.pot)
        else:
            _pay(pos, w, -(pos.pot0 // h))
    pos.trick = []
    pos.ctr["trickno"] += 1
    pos.ctr["leader"] = w
    pos.cur = w
    if last:
        _settle(pos)


def _settle(pos: Pos) -> None:
    kind = _kind(pos)
    if kind in ("historic", "zwicken"):
        for p in range(pos.n):
            if pos.seat["inn"][p] and pos.seat["tricks"][p] == 0:
                _pay(pos, p, pos.pot0 if kind == "historic" else 3)
    else:
        g = pos.ctr["speler"]
        lv = pos.seat["bid"][g]
        num, den = ((1, 2), (2, 3), (3, 4), (1, 1))[lv - 1] if pos.rules.option("part_pot_bids") else (1, 1)
        stake = pos.pot0 * num // den
        pts = pos.seat["points"]
        if kind == "parlett":
            tw = pos.seat["tricks"][g]
            won = 2 * tw > pos.rules.tricks or (tw >= 1 and pts[g] > sum(pts) - pts[g])
        else:
            won = all(pts[g] > pts[q] for q in range(pos.n) if q != g)
        _pay(pos, g, -stake if won else stake)
    _end(pos, tricks_layout.R_TRICKS)
