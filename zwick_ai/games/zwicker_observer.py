"""The observer of the OpenSpiel ``zwicker`` game: the observation and information-state strings,
and :class:`ZwickerObserver` (its tensors are the engine's encoding, :mod:`zwick_ai.zwicker.encoding`;
layouts in :mod:`zwick_ai.games.zwicker`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from zwick_ai.zwicker import arrays, kernels, layout
from zwick_ai.zwicker import history as zwicker_history
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

if TYPE_CHECKING:
    from zwick_ai.games.zwicker import ZwickerGame, ZwickerState

# ------------------------------------------------------------------------------------------------
# Strings (the observation and information-state strings, and the history lines of ``str(state)``)
# ------------------------------------------------------------------------------------------------
NAMES = tuple(card_name(c) for c in range(arrays.NUM_CARDS))  # by card id
PHASE_NAMES = ("normal", "after-zwick trail", "dietze trail", "over")


def card_names(cards) -> str:
    """Card ids in the codec's notation, separated by spaces."""
    return " ".join(NAMES[c] for c in cards)


def _unit_text(a: np.ndarray, anchor: int) -> str:
    cards = []
    c = anchor
    while c != -1:
        cards.append(int(c))
        c = int(arrays.next_card(a, c))
    names = "+".join(NAMES[x] for x in sorted(cards))
    if not arrays.is_build(a, anchor):
        return names
    owner = int(arrays.unit_owner(a, anchor))
    return f"[{names}={int(arrays.unit_value(a, anchor))}{' by ' + str(owner) if owner >= 0 else ''}]"


def history_lines(state: ZwickerState, player: int) -> list[str]:
    """The public history (and ``player``'s own deals, if ``player`` >= 0), one line per item."""
    g = state.tables
    a = state.array
    deck = g.rules.deck
    dealer = int(zwicker_history.dealer(a))
    head = f"dealer {dealer}" if dealer >= 0 else "dealer ?"
    cut = zwicker_history.cut_cards(a).tolist()
    if cut:
        head += " cut " + card_names(cut)
    lines = [head]
    if not zwicker_history.is_dealt(a):
        dest = zwicker_history.stage0_seats(a).tolist()
        if player >= 0:
            lines.append("dealt: " + card_names(c for c in deck if dest[c] == player))
        lines.append("table dealt: " + card_names(c for c in deck if dest[c] == zwicker_history.DEST_TABLE))
        return lines
    stages = int(arrays.stage(a)) + 1
    deal_stage = zwicker_history.deal_stages(a).tolist()
    if player >= 0:
        dealt_to = arrays.dealt_seats(a).tolist()
        mine: list[list[int]] = [[] for _ in range(stages)]
        for c in deck:
            if dealt_to[c] == player and deal_stage[c] >= 0:
                mine[deal_stage[c]].append(c)
        lines.append("dealt: " + " | ".join(card_names(m) for m in mine))
    table_stage = zwicker_history.table_stages(a).tolist()
    tab: list[list[int]] = [[] for _ in range(stages)]
    for c in deck:
        if table_stage[c]:
            tab[table_stage[c] - 1].append(c)
    lines.append("table dealt: " + " | ".join(card_names(m) for m in tab))
    n = int(zwicker_history.ply_count(a))
    lines.append(plies_text(state, n))
    if arrays.is_over(a):
        capt = zwicker_history.capture_plies(a).tolist()
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
    a = state.array
    capt = zwicker_history.capture_plies(a).tolist()
    taken: dict[int, list[int]] = {}
    for c in g.rules.deck:
        if done < capt[c] <= n:
            taken.setdefault(capt[c] - 1, []).append(c)
    players = g.rules.players
    lines = [text] if text else []
    for t in range(done, n):
        e = zwicker_history.log_entry(a, t).tolist()
        seat, kind, card, value = (
            e[zwicker_history.L_SEAT],
            e[zwicker_history.L_KIND],
            e[zwicker_history.L_CARD],
            e[zwicker_history.L_VALUE],
        )
        if kind == layout.KIND_ASK:
            off = (e[zwicker_history.L_OWNER] - seat) % players
            lines.append(
                f"{t}: p{seat} ask partner +{off} for {value}: {'yes' if e[zwicker_history.L_ANSWER] == 1 else 'no'}"
            )
        elif kind == layout.KIND_TRAIL:
            lines.append(f"{t}: p{seat} {NAMES[card]} trail")
        elif kind == layout.KIND_CAPTURE:
            how = f"as {value}" if value else "capture"
            got = card_names(c for c in taken.get(t, ()) if c != card)
            lines.append(
                f"{t}: p{seat} {NAMES[card]} {how} takes {got}{' zwick' if e[zwicker_history.L_ZWICK] else ''}"
            )
        else:
            on = f"on {NAMES[e[zwicker_history.L_ANCHOR]]}" if e[zwicker_history.L_ANCHOR] >= 0 else "new"
            owner = e[zwicker_history.L_OWNER]
            forp = f" for partner +{(owner - seat) % players}" if owner >= 0 and owner != seat else ""
            lines.append(f"{t}: p{seat} {NAMES[card]} {on} build {value}{forp}")
    text = "\n".join(lines)
    state.history_text_cache = (n, text)
    return text


def observation_text(state: ZwickerState, player: int, private: bool = True) -> str:
    """The position as ``player`` sees it now."""
    g = state.tables
    a = state.array
    r = g.rules
    if not zwicker_history.is_dealt(a):
        dest = zwicker_history.stage0_seats(a).tolist()
        lines = [f"p{player} dealing; dealer {int(zwicker_history.dealer(a))}"]
        if private:
            lines.append("hand: " + card_names(c for c in r.deck if dest[c] == player))
        lines.append("table: " + card_names(c for c in r.deck if dest[c] == zwicker_history.DEST_TABLE))
        return "\n".join(lines)
    phase = int(arrays.phase(a))
    who = "over" if arrays.is_over(a) else f"p{int(arrays.to_move(a))} to move"
    lines = [
        f"p{player}; {who} ({PHASE_NAMES[phase]}); dealer {int(zwicker_history.dealer(a))}; stage {int(arrays.stage(a))}"
    ]
    if private:
        lines.append("hand: " + card_names(arrays.hand_cards(a, player).tolist()))
    units = sorted(arrays.unit_anchors(a).tolist())
    lines.append("table: " + (" ".join(_unit_text(a, u) for u in units) or "(empty)"))
    sizes = " ".join(str(int(arrays.hand_size(a, q))) for q in range(r.players))
    lines.append(f"hands: {sizes}; stock {int(arrays.stock_left(a))}")
    won_by = arrays.won_sides(a).tolist()
    won: list[list[int]] = [[] for _ in range(r.num_sides)]
    for c in r.deck:
        if won_by[c] >= 0:
            won[won_by[c]].append(c)
    lines.append("won: " + " | ".join(card_names(w) or "-" for w in won))
    sc = kernels.score(g.game_table[: layout.RULES_SIZE], a[: zwicker_history.SS]).tolist()
    zw = " ".join(str(int(arrays.zwicks(a, s))) for s in range(r.num_sides))
    lines.append(f"zwicks: {zw}; score: {' '.join(map(str, sc))}; last capture: side {int(arrays.last_capturer(a))}")
    if arrays.asked_seat(a) >= 0:
        off = (int(arrays.asked_seat(a)) - int(arrays.to_move(a))) % r.players
        answer = "yes" if arrays.ask_answer(a) == 1 else "no"
        lines.append(f"asked partner +{off} for {int(arrays.asked_value(a))}: {answer}")
    if state.move_prefix():
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
        fill_k(state.tables.game_table, state.array, self._off, player, self.tensor)

    def string_from(self, state: ZwickerState, player: int) -> str:
        if not self._public:
            g = state.tables
            a = state.array
            hand = [int(c) for c in arrays.hand_cards(a, player)]
            if not state.dealt():
                dest = zwicker_history.stage0_seats(a)
                hand = [c for c in g.rules.deck if dest[c] == player]
            return f"p{player} hand: " + " ".join(card_name(c) for c in hand)
        if self.perfect_recall:
            return information_state_text(state, player, self.private)
        return observation_text(state, player, self.private)
