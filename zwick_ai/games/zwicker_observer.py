"""The observer of the OpenSpiel ``zwicker`` game: the observation and information-state strings,
and :class:`ZwickerObserver` (its tensors are the engine's encoding, :mod:`zwick_ai.zwicker.encoding`;
layouts in :mod:`zwick_ai.games.zwicker`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from zwick_ai.zwicker import kernels
from zwick_ai.zwicker.codec import (
    card_name,
)
from zwick_ai.zwicker.encoding import (
    P_CUT,
    P_PLAYED_AT,
    P_PLAYER,
    PIECE_NAMES,
    PRIVATE_PIECES,
    fill_k,
    piece_shapes,
)
from zwick_ai.zwicker.history import (
    DEST_TABLE,
    L_ANCHOR,
    L_ANSWER,
    L_CARD,
    L_KIND,
    L_OWNER,
    L_SEAT,
    L_VALUE,
    L_ZWICK,
    LOGW,
    SS,
    X_CAPT,
    X_CDEST,
    X_CUT,
    X_DEAL_STAGE,
    X_DEALER,
    X_DEALT,
    X_LOG,
    X_NCUT,
    X_NPLY,
    X_PLEN,
    X_TABLE_STAGE,
    XB,
)
from zwick_ai.zwicker.layout import (
    KIND_ASK,
    KIND_CAPTURE,
    LOC_WON,
    MAX_HAND,
    NC,
    PHASE_OVER,
    RULES_SIZE,
    S_ASK_ANS,
    S_ASK_N,
    S_ASK_Q,
    S_DEALT_TO,
    S_HAND_N,
    S_HANDS,
    S_LAST_CAPT,
    S_LOC,
    S_NEXT,
    S_NUNITS,
    S_PHASE,
    S_STAGE,
    S_STOCK_LEN,
    S_STOCK_TOP,
    S_TO_MOVE,
    S_UBUILD,
    S_UNITS,
    S_UOWNER,
    S_UVALUE,
    S_ZWICKS,
)

if TYPE_CHECKING:
    from zwick_ai.games.zwicker import ZwickerGame, ZwickerState

# ------------------------------------------------------------------------------------------------
# Strings (the observation and information-state strings, and the history lines of ``str(state)``)
# ------------------------------------------------------------------------------------------------
NAMES = tuple(card_name(c) for c in range(NC))  # by card id
PHASE_NAMES = ("normal", "after-zwick trail", "dietze trail", "over")


def card_names(cards) -> str:
    """Card ids in the codec's notation, separated by spaces."""
    return " ".join(NAMES[c] for c in cards)


def _unit_text(a: np.ndarray, anchor: int) -> str:
    cards = []
    c = anchor
    while c != -1:
        cards.append(int(c))
        c = int(a[S_NEXT + c])
    names = "+".join(NAMES[x] for x in sorted(cards))
    if not a[S_UBUILD + anchor]:
        return names
    owner = int(a[S_UOWNER + anchor])
    return f"[{names}={int(a[S_UVALUE + anchor])}{' by ' + str(owner) if owner >= 0 else ''}]"


def history_lines(state: ZwickerState, player: int) -> list[str]:
    """The public history (and ``player``'s own deals, if ``player`` >= 0), one line per item."""
    g = state.tables
    a = state.array
    x = a[XB:]
    deck = g.rules.deck
    head = f"dealer {int(x[X_DEALER])}" if x[X_DEALER] >= 0 else "dealer ?"
    if x[X_NCUT]:
        head += " cut " + card_names(x[X_CUT : X_CUT + x[X_NCUT]].tolist())
    lines = [head]
    if not x[X_DEALT]:
        dest = x[X_CDEST : X_CDEST + NC].tolist()
        if player >= 0:
            lines.append("dealt: " + card_names(c for c in deck if dest[c] == player))
        lines.append("table dealt: " + card_names(c for c in deck if dest[c] == DEST_TABLE))
        return lines
    stages = int(a[S_STAGE]) + 1
    deal_stage = x[X_DEAL_STAGE : X_DEAL_STAGE + NC].tolist()
    if player >= 0:
        dealt_to = a[S_DEALT_TO : S_DEALT_TO + NC].tolist()
        mine: list[list[int]] = [[] for _ in range(stages)]
        for c in deck:
            if dealt_to[c] == player and deal_stage[c] >= 0:
                mine[deal_stage[c]].append(c)
        lines.append("dealt: " + " | ".join(card_names(m) for m in mine))
    table_stage = x[X_TABLE_STAGE : X_TABLE_STAGE + NC].tolist()
    tab: list[list[int]] = [[] for _ in range(stages)]
    for c in deck:
        if table_stage[c]:
            tab[table_stage[c] - 1].append(c)
    lines.append("table dealt: " + " | ".join(card_names(m) for m in tab))
    n = int(x[X_NPLY])
    lines.append(plies_text(state, n))
    if a[S_PHASE] == PHASE_OVER:
        capt = x[X_CAPT : X_CAPT + NC].tolist()
        swept = [c for c in deck if capt[c] == n + 1]
        if swept:
            lines.append("sweep: " + card_names(swept))
    return lines


def plies_text(state: ZwickerState, n: int) -> str:
    """The first ``n`` whole moves, one line each; extends the state's ``history_text_cache`` (an
    immutable pair, free to clone) by the plies made since it was last built."""
    done, text = state.history_text_cache
    if done == n:
        return text
    if done > n:
        done, text = 0, ""
    g = state.tables
    x = state.array[XB:]
    capt = x[X_CAPT : X_CAPT + NC].tolist()
    taken: dict[int, list[int]] = {}
    for c in g.rules.deck:
        if done < capt[c] <= n:
            taken.setdefault(capt[c] - 1, []).append(c)
    players = g.rules.players
    lines = [text] if text else []
    log = x[X_LOG + done * LOGW : X_LOG + n * LOGW].reshape(n - done, LOGW).tolist()
    for t, e in enumerate(log, start=done):
        seat, kind, card, value = e[L_SEAT], e[L_KIND], e[L_CARD], e[L_VALUE]
        if kind == KIND_ASK:
            off = (e[L_OWNER] - seat) % players
            lines.append(f"{t}: p{seat} ask partner +{off} for {value}: {'yes' if e[L_ANSWER] == 1 else 'no'}")
        elif kind == 0:
            lines.append(f"{t}: p{seat} {NAMES[card]} trail")
        elif kind == KIND_CAPTURE:
            how = f"as {value}" if value else "capture"
            got = card_names(c for c in taken.get(t, ()) if c != card)
            lines.append(f"{t}: p{seat} {NAMES[card]} {how} takes {got}{' zwick' if e[L_ZWICK] else ''}")
        else:
            on = f"on {NAMES[e[L_ANCHOR]]}" if e[L_ANCHOR] >= 0 else "new"
            owner = e[L_OWNER]
            forp = f" for partner +{(owner - seat) % players}" if owner >= 0 and owner != seat else ""
            lines.append(f"{t}: p{seat} {NAMES[card]} {on} build {value}{forp}")
    text = "\n".join(lines)
    state.history_text_cache = (n, text)
    return text


def observation_text(state: ZwickerState, player: int, private: bool = True) -> str:
    """The position as ``player`` sees it now."""
    g = state.tables
    a = state.array
    x = a[XB:]
    r = g.rules
    if not x[X_DEALT]:
        dest = x[X_CDEST : X_CDEST + NC].tolist()
        lines = [f"p{player} dealing; dealer {int(x[X_DEALER])}"]
        if private:
            lines.append("hand: " + card_names(c for c in r.deck if dest[c] == player))
        lines.append("table: " + card_names(c for c in r.deck if dest[c] == DEST_TABLE))
        return "\n".join(lines)
    phase = int(a[S_PHASE])
    who = "over" if phase == PHASE_OVER else f"p{int(a[S_TO_MOVE])} to move"
    lines = [f"p{player}; {who} ({PHASE_NAMES[phase]}); dealer {int(x[X_DEALER])}; stage {int(a[S_STAGE])}"]
    if private:
        base = S_HANDS + player * MAX_HAND
        lines.append("hand: " + card_names(a[base : base + a[S_HAND_N + player]].tolist()))
    units = sorted(a[S_UNITS : S_UNITS + a[S_NUNITS]].tolist())
    lines.append("table: " + (" ".join(_unit_text(a, u) for u in units) or "(empty)"))
    sizes = " ".join(map(str, a[S_HAND_N : S_HAND_N + r.players].tolist()))
    lines.append(f"hands: {sizes}; stock {int(a[S_STOCK_LEN] - a[S_STOCK_TOP])}")
    loc = a[S_LOC : S_LOC + NC].tolist()
    ns = r.num_sides
    won: list[list[int]] = [[] for _ in range(ns)]
    for c in r.deck:
        if LOC_WON <= loc[c] < LOC_WON + ns:
            won[loc[c] - LOC_WON].append(c)
    lines.append("won: " + " | ".join(card_names(w) or "-" for w in won))
    sc = kernels.score(g.G[:RULES_SIZE], a[:SS]).tolist()
    zw = " ".join(map(str, a[S_ZWICKS : S_ZWICKS + r.num_sides].tolist()))
    lines.append(f"zwicks: {zw}; score: {' '.join(map(str, sc))}; last capture: side {int(a[S_LAST_CAPT])}")
    if a[S_ASK_Q] >= 0:
        off = (int(a[S_ASK_Q]) - int(a[S_TO_MOVE])) % r.players
        lines.append(f"asked partner +{off} for {int(a[S_ASK_N])}: {'yes' if a[S_ASK_ANS] == 1 else 'no'}")
    if x[X_PLEN]:
        lines.append("move: " + ", ".join(g.codec.action_string(t) for t in state.move_prefix()))
    return "\n".join(lines)


def information_state_text(state: ZwickerState, player: int, private: bool = True) -> str:
    """Perfect-recall information state: own deals, the public history and the position now."""
    head = history_lines(state, player if private else -1)
    return "\n".join([f"seat {player}", *head, observation_text(state, player, private)])


# ------------------------------------------------------------------------------------------------
# Observer
# ------------------------------------------------------------------------------------------------
class ZwickerObserver:
    """Observation (``perfect_recall=False``) or information state as string and float tensor;
    layouts in the module docstring."""

    def __init__(self, game: ZwickerGame, perfect_recall: bool, public: bool = True, private: bool = True):
        self.perfect_recall = perfect_recall
        self.private = private
        self._key = game.key
        shapes = piece_shapes(game.rules, game.codec)
        off = np.full(len(PIECE_NAMES), -1, np.int64)
        pieces = []
        at = 0
        for pid, shape in shapes:
            if not perfect_recall and pid >= P_CUT:
                continue
            if pid in PRIVATE_PIECES and not private:
                continue
            if pid not in PRIVATE_PIECES and pid != P_PLAYER and not public:
                continue
            size = int(np.prod(shape))
            off[pid] = at
            pieces.append((PIECE_NAMES[pid], at, size, shape))
            at += size
        if not public:  # the history pieces are public: nothing to record
            off[P_PLAYED_AT] = -1
        self._off = off
        self.tensor = np.zeros(at, np.float32)
        self.dict = {name: self.tensor[s : s + n].reshape(shape) for name, s, n, shape in pieces}
        self._public = public

    def set_from(self, state: ZwickerState, player: int) -> None:
        fill_k(state.tables.G, state.array, self._off, player, self.tensor)

    def string_from(self, state: ZwickerState, player: int) -> str:
        if not self._public:
            g = state.tables
            a = state.array
            hand = [int(c) for c in a[S_HANDS + player * MAX_HAND : S_HANDS + player * MAX_HAND + a[S_HAND_N + player]]]
            if not state.dealt():
                hand = [c for c in g.rules.deck if a[XB + X_CDEST + c] == player]
            return f"p{player} hand: " + " ".join(card_name(c) for c in hand)
        if self.perfect_recall:
            return information_state_text(state, player, self.private)
        return observation_text(state, player, self.private)
