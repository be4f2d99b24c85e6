"""The action codec of Zwicker: whole engine moves as short sequences of sub-actions whose ids
keep one meaning in every state of a game (the actions of the OpenSpiel ``zwicker`` game,
:mod:`zwick_ai.games.zwicker`; the resampler, :mod:`zwick_ai.zwicker.worlds`, checks a partial
move with it). Nothing here imports OpenSpiel.

A turn is split into sub-decisions. Every legal whole move of the engine
(:func:`zwick_ai.zwicker.legal_rows`) has exactly one *token sequence*; the legal sub-actions at a
point of a turn are the next tokens of the legal moves whose sequence starts with the tokens
chosen so far. The code is prefix-free, so a move is applied as soon as its last token is chosen.

==========================================  ==========================================  =====================
move                                        token sequence                              example strings
==========================================  ==========================================  =====================
trail card c                                ``c, trail``                                ``7D``, ``trail``
capture with c, smallest proving value v,   ``c, as v, take u1, ..., take uk, done``    ``QS``, ``as 13``,
units u1 < ... < uk (by first-card id)                                                  ``take QD``, ``done``
build with c on unit u (or new), value v,   ``c, on u | new build, [for partner +d],    ``2C``, ``on 9C``,
owner = mover or the partner d seats left   build v``                                   ``build 11``
ask the partner d seats left about n        ``ask partner +d for n``                    ``ask partner +2 for 13``
==========================================  ==========================================  =====================

A table unit (loose card or build) is named by its *first card*: the card that started it (the
engine's anchor), which stays its first card until the unit is taken. With
``capture_values=several`` a dual card captures without one announced value: its value token is
``capture`` (``as 0``).

Action ids (``D`` = deck size, :attr:`Codec.deck_size`; ``V`` = largest build or capture value,
:attr:`Codec.max_value`; ``J`` = number of partner seat offsets, 0 without builds for partners,
:attr:`Codec.num_offsets`; ``Jask`` = ``J`` with asking, else 0, :attr:`Codec.num_ask_offsets`)::

    [0, D)              play deck[i]                       "QS"
    [D, 2D)             take the unit whose first card is deck[i]     "take QS"
    [2D, 3D)            build on the unit whose first card is deck[i] "on QS"
    3D                  trail                              "trail"
    3D+1                new single-card build              "new build"
    3D+2                capture complete                   "done"
    AS + v, v=0..V      capture as value v                 "as 13" ("capture" for v = 0)
    BUILD + v-1         announce build value v = 1..V      "build 11"
    FOR + j             the build goes to the partner offsets[j] seats to the left   "for partner +2"
    ASK + j*V + n-1     ask the partner offsets[j] seats left about value n          "ask partner +2 for 13"

with ``AS = 3D+3``, ``BUILD = AS+V+1``, ``FOR = BUILD+V``, ``ASK = FOR+J``, and
``num_distinct_actions = ASK + Jask*V`` (at most 344, classic with 12 players). A :class:`Codec`
holds each range's first id by name (``play``, ``take``, ``on``, ``trail``, ``new``, ``done``,
``as_value``, ``build``, ``for_partner``, ``ask``) and ``num_actions``.

Cards are named as in :mod:`zwick_ai.cards`; a second-pack copy gets a prime (``TD'``) and wild
jokers are numbered (``XW1`` .. ``XW6``) so that units on the table have distinct names.

>>> from zwick_ai import zwicker
>>> codec = Codec(zwicker.rules("dithmarschen", players=4))
>>> codec.num_actions, codec.action_string(codec.as_value + 13), codec.action_string(codec.take + 0)
(220, 'as 13', 'take 2C')
"""

from __future__ import annotations

import numpy as np

from zwick_ai import cards
from zwick_ai.jit import kernel
from zwick_ai.zwicker import kernels as zwicker_kernels
from zwick_ai.zwicker import layout
from zwick_ai.zwicker.rules import Rules

# ---- layout of the codec array handed to the kernels ----------------------------------------------
# (each entry holds the Codec attribute of that name: the first id of an action range, or a count)
CD_D = 0  # deck_size
CD_V = 1  # max_value
CD_J = 2  # num_offsets
CD_PLAY = 3
CD_TAKE = 4
CD_ON = 5
CD_TRAIL = 6
CD_NEW = 7
CD_DONE = 8
CD_AS = 9
CD_BUILD = 10
CD_FOR = 11
CD_ASK = 12
CD_NUM = 13
CD_OFS_INDEX = 16  # per seat offset 0..MAX_PLAYERS-1: index j of the partner offset, or -1
CD_DIDX = CD_OFS_INDEX + layout.MAX_PLAYERS  # per card id: deck index, or -1
CD_DECK = CD_DIDX + layout.NC  # per deck index: card id
CODEC_SIZE = CD_DECK + layout.NC

# A move record followed by its tokens: columns [0, MOVE_WIDTH) the kernel row (its spare column
# holds the token count), then the tokens, padded with -1.
TOK0 = layout.MOVE_WIDTH
COL_NTOK = layout.M_SPARE


def card_name(card: int) -> str:
    """Card notation with distinct names for identical copies (``TD'``, ``XW1``..``XW6``)."""
    if cards.is_wild_joker(card):
        return f"XW{card - cards.WILD_JOKER_BASE + 1}"
    name = cards.format_card(card)
    if cards.SECOND_PACK <= card < cards.VALUED_JOKER_BASE:
        return name + "'"
    return name


def partner_offsets(rules: Rules) -> tuple[int, ...]:
    """Seat offsets (clockwise) at which a player finds a partner; () without teams."""
    p = rules.players
    return tuple(sorted({(q - s) % p for s in range(p) for q in rules.partners(s)}))


class Codec:
    """The action ids of one rule set (see the module docstring)."""

    def __init__(self, rules: Rules):
        self.rules = rules
        self.deck = tuple(rules.deck)
        d = self.deck_size = len(self.deck)
        v = self.max_value = rules.max_build
        self.offsets = partner_offsets(rules) if rules.partner_builds else ()
        j = self.num_offsets = len(self.offsets)
        self.num_ask_offsets = j if rules.magger else 0
        self.play, self.take, self.on = 0, d, 2 * d
        self.trail, self.new, self.done = 3 * d, 3 * d + 1, 3 * d + 2
        self.as_value = 3 * d + 3
        self.build = self.as_value + v + 1
        self.for_partner = self.build + v
        self.ask = self.for_partner + j
        self.num_actions = self.ask + self.num_ask_offsets * v
        a = np.full(CODEC_SIZE, -1, np.int64)
        a[CD_D], a[CD_V], a[CD_J] = d, v, j
        a[CD_PLAY], a[CD_TAKE], a[CD_ON] = self.play, self.take, self.on
        a[CD_TRAIL], a[CD_NEW], a[CD_DONE] = self.trail, self.new, self.done
        a[CD_AS], a[CD_BUILD], a[CD_FOR], a[CD_ASK] = self.as_value, self.build, self.for_partner, self.ask
        a[CD_NUM] = self.num_actions
        for k, off in enumerate(self.offsets):
            a[CD_OFS_INDEX + off] = k
        for i, c in enumerate(self.deck):
            a[CD_DIDX + c] = i
            a[CD_DECK + i] = c
        self.arr = a
        self.names = [card_name(c) for c in self.deck]

    def index(self, card: int) -> int:
        """Deck index of a card id."""
        return int(self.arr[CD_DIDX + card])

    def action_string(self, action: int) -> str:
        """The readable meaning of an action id (the same in every state)."""
        a = int(action)
        d, v = self.deck_size, self.max_value
        if 0 <= a < d:
            return self.names[a]
        if a < 2 * d:
            return f"take {self.names[a - d]}"
        if a < 3 * d:
            return f"on {self.names[a - 2 * d]}"
        if a == self.trail:
            return "trail"
        if a == self.new:
            return "new build"
        if a == self.done:
            return "done"
        if self.as_value <= a < self.build:
            x = a - self.as_value
            return f"as {x}" if x else "capture"
        if self.build <= a < self.for_partner:
            return f"build {a - self.build + 1}"
        if self.for_partner <= a < self.ask:
            return f"for partner +{self.offsets[a - self.for_partner]}"
        if self.ask <= a < self.num_actions:
            j, n = divmod(a - self.ask, v)
            return f"ask partner +{self.offsets[j]} for {n + 1}"
        raise ValueError(f"action {a} is not in 0..{self.num_actions - 1}")

    def parse(self, text: str) -> int:
        """The action id of an action string (inverse of :meth:`action_string`)."""
        t = " ".join(text.strip().split())
        for a in range(self.num_actions):
            if self.action_string(a) == t:
                return a
        raise ValueError(f"unknown action {text!r}; e.g. 'QS', 'take 9C', 'as 13', 'build 11', 'done'")

    def describe(self) -> list[tuple[int, int, str]]:
        """(first id, count, meaning) for every range of ids, for documentation and reports."""
        d, v = self.deck_size, self.max_value
        out = [
            (self.play, d, "play card deck[i]"),
            (self.take, d, "take the unit whose first card is deck[i]"),
            (self.on, d, "build on the unit whose first card is deck[i]"),
            (self.trail, 1, "trail"),
            (self.new, 1, "new single-card build"),
            (self.done, 1, "capture complete"),
            (self.as_value, v + 1, "capture as value v = 0..V (0: several values)"),
            (self.build, v, "announce build value v = 1..V"),
        ]
        if self.num_offsets:
            out.append((self.for_partner, self.num_offsets, f"build for the partner at seat offset {self.offsets}"))
        if self.num_ask_offsets:
            out.append((self.ask, self.num_ask_offsets * v, "ask the partner at offset j about value n"))
        return out


# ---- kernels ---------------------------------------------------------------------------------------
@kernel(nrt=False)
def encode_row(R, S, CD, row, out):
    """Write the token sequence of one engine move record into ``out``; return its length."""
    kind = row[layout.M_KIND]
    p = S[layout.S_TO_MOVE]
    players = R[layout.R_PLAYERS]
    if kind == layout.KIND_ASK:
        j = CD[CD_OFS_INDEX + (row[layout.M_OWNER] - p) % players]
        out[0] = CD[CD_ASK] + j * CD[CD_V] + row[layout.M_VALUE] - 1
        return 1
    c = row[layout.M_CARD]
    out[0] = CD[CD_PLAY] + CD[CD_DIDX + c]
    if kind == layout.KIND_TRAIL:
        out[1] = CD[CD_TRAIL]
        return 2
    if kind == layout.KIND_CAPTURE:
        out[1] = CD[CD_AS] + row[layout.M_VALUE]
        k = 2
        mask = row[layout.M_MASK]
        n = S[layout.S_NUNITS]
        for i in range(n):
            if (mask >> i) & 1:
                t = CD[CD_TAKE] + CD[CD_DIDX + S[layout.S_UNITS + i]]
                j = k
                while j > 2 and out[j - 1] > t:  # insertion sort: units by first-card id
                    out[j] = out[j - 1]
                    j -= 1
                out[j] = t
                k += 1
        out[k] = CD[CD_DONE]
        return k + 1
    # build
    target = row[layout.M_TARGET]
    if target < 0:
        out[1] = CD[CD_NEW]
    else:
        out[1] = CD[CD_ON] + CD[CD_DIDX + S[layout.S_UNITS + target]]
    k = 2
    owner = row[layout.M_OWNER]
    if owner >= 0 and owner != p:
        out[2] = CD[CD_FOR] + CD[CD_OFS_INDEX + (owner - p) % players]
        k = 3
    out[k] = CD[CD_BUILD] + row[layout.M_VALUE] - 1
    return k + 1


@kernel
def encode_rows(R, S, CD, rows, prefix, plen):
    """Rows and token sequences of the moves whose sequences start with ``prefix[:plen]``.

    Same tokens as :func:`encode_row`; captures are encoded with the table's units visited once
    in first-card order (tokens past a row's length are left unset: nothing reads them)."""
    n = rows.shape[0]
    nu = S[layout.S_NUNITS]
    width = TOK0 + 4 + nu
    M = np.empty((n, width), np.int64)
    tmp = np.empty(width, np.int64)
    # Table indices in first-card order, and their take tokens.
    order = np.empty(nu, np.int64)
    take = np.empty(nu, np.int64)
    for i in range(nu):
        t = CD[CD_TAKE] + CD[CD_DIDX + S[layout.S_UNITS + i]]
        j = i
        while j > 0 and take[j - 1] > t:
            take[j] = take[j - 1]
            order[j] = order[j - 1]
            j -= 1
        take[j] = t
        order[j] = i
    k = 0
    for i in range(n):
        if rows[i, layout.M_KIND] == layout.KIND_CAPTURE:
            tmp[0] = CD[CD_PLAY] + CD[CD_DIDX + rows[i, layout.M_CARD]]
            tmp[1] = CD[CD_AS] + rows[i, layout.M_VALUE]
            ln = 2
            mask = rows[i, layout.M_MASK]
            for j in range(nu):
                if (mask >> order[j]) & 1:
                    tmp[ln] = take[j]
                    ln += 1
            tmp[ln] = CD[CD_DONE]
            ln += 1
        else:
            ln = encode_row(R, S, CD, rows[i], tmp)
        if ln < plen:
            continue
        ok = True
        for j in range(plen):
            if tmp[j] != prefix[j]:
                ok = False
                break
        if not ok:
            continue
        for j in range(layout.M_FIELDS):
            M[k, j] = rows[i, j]
        M[k, COL_NTOK] = ln
        for j in range(ln):
            M[k, TOK0 + j] = tmp[j]
        k += 1
    return M[:k]


@kernel(inline="always")
def turn_matrix(R, S, CD, prefix, plen, W):
    """Legal moves of the player to move with their token sequences, filtered by the prefix."""
    rows = zwicker_kernels.legal_moves(R, S, W)
    return encode_rows(R, S, CD, rows, prefix, plen)


@kernel
def next_tokens(M, k):
    """Sorted distinct tokens at position ``k`` of the sequences in ``M``."""
    return next_tokens_sel(M, np.arange(M.shape[0]), k)


@kernel
def next_tokens_sel(M, sel, k):
    """Sorted distinct tokens at position ``k`` of the rows ``sel`` of ``M``."""
    n = sel.shape[0]
    out = np.empty(n, np.int64)
    m = 0
    for r in range(n):
        t = M[sel[r], TOK0 + k]
        j = m
        while j > 0 and out[j - 1] > t:
            j -= 1
        if j > 0 and out[j - 1] == t:
            continue
        for q in range(m, j, -1):
            out[q] = out[q - 1]
        out[j] = t
        m += 1
    return out[:m]


@kernel
def advance_sel(M, sel, k, tok):
    """The rows of ``sel`` whose token ``k`` is ``tok``."""
    out = np.empty(sel.shape[0], np.int64)
    m = 0
    for r in range(sel.shape[0]):
        if M[sel[r], TOK0 + k] == tok:
            out[m] = sel[r]
            m += 1
    return out[:m]
