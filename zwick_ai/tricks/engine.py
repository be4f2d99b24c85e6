"""The trick engine's Python API: positions, readable actions, apply, returns, information strings,
resampling and sessions. The numba kernels do the work; this module names things.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import cast

import numpy as np

from zwick_ai import cards as zwick_cards
from zwick_ai.tricks import kernels as tricks_kernels
from zwick_ai.tricks import layout as tricks_layout
from zwick_ai.tricks.rules import BID_NAMES, PART_POT, TrickRules

MAX_SEED = 2**32 - 1


class TrickState:
    """A Zwikken/Zwicken position: the rules, one int32 array, and the chance seed.

    With ``seed`` set, chance nodes are resolved automatically (deterministically from the seed and
    the history length); with ``seed=None`` the caller supplies chance outcomes (scripted deals).
    """

    __slots__ = ("rules", "arr", "seed")

    def __init__(self, rules: TrickRules, arr: np.ndarray, seed: int | None = None):
        self.rules = rules
        self.arr = arr
        self.seed = seed

    def copy(self) -> TrickState:
        return TrickState(self.rules, self.arr.copy(), self.seed)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TrickState) and self.rules == other.rules and np.array_equal(self.arr, other.arr)

    def __hash__(self) -> int:
        return hash(self.arr.tobytes())

    def __repr__(self) -> str:
        return render(self)


# ---- reading a position ----------------------------------------------------------------------------
def _pf(p: int, f: int) -> int:
    return tricks_layout.S_PLAYERS + f * tricks_layout.NP + p


def to_move(state: TrickState) -> int:
    """Seat to act; ``layout.CUR_CHANCE`` (-1) at a chance node, ``layout.CUR_OVER`` (-2) at the end."""
    return int(state.arr[tricks_layout.S_CUR])


def is_over(state: TrickState) -> bool:
    return bool(state.arr[tricks_layout.S_CUR] == tricks_layout.CUR_OVER)


def is_chance(state: TrickState) -> bool:
    return bool(state.arr[tricks_layout.S_CUR] == tricks_layout.CUR_CHANCE)


def returns(state: TrickState) -> tuple[int, ...]:
    """Each seat's net chip change in this deal so far (antes inside the deal included)."""
    return tuple(int(state.arr[_pf(p, tricks_layout.P_NET)]) for p in range(state.rules.players))


def pot(state: TrickState) -> int:
    return int(state.arr[tricks_layout.S_POT])


def phase(state: TrickState) -> str:
    return tricks_layout.PHASE_NAMES[state.arr[tricks_layout.S_PHASE]]


def result(state: TrickState) -> str:
    return tricks_layout.RESULT_NAMES[state.arr[tricks_layout.S_RESULT]]


def dealer(state: TrickState) -> int:
    return int(state.arr[tricks_layout.S_DEALER])


def _cards_at(state: TrickState, code: int) -> list[int]:
    return [c for c in range(tricks_layout.NC) if state.arr[tricks_layout.S_LOC + c] == code]


def hand(state: TrickState, player: int) -> list[str]:
    return [zwick_cards.format_card(c) for c in _cards_at(state, tricks_layout.L_HAND + player)]


def upcards(state: TrickState) -> list[str]:
    return [
        zwick_cards.format_card(int(c))
        for c in state.arr[tricks_layout.S_UP : tricks_layout.S_UP + state.arr[tricks_layout.S_NUP]]
    ]


def trump(state: TrickState) -> str | None:
    t = state.arr[tricks_layout.S_TRUMP]
    return zwick_cards.SUITS[t] if t >= 0 else None


def tricks_won(state: TrickState) -> tuple[int, ...]:
    return tuple(int(state.arr[_pf(p, tricks_layout.P_TRICKS)]) for p in range(state.rules.players))


def card_points(state: TrickState) -> tuple[int, ...]:
    return tuple(int(state.arr[_pf(p, tricks_layout.P_POINTS)]) for p in range(state.rules.players))


def current_trick(state: TrickState) -> list[tuple[int, str]]:
    """(seat, card) of the cards in the trick being played, in play order; ``??`` if face down."""
    a = state.arr
    out = []
    n = state.rules.players
    q = int(a[tricks_layout.S_LEADER])
    for _ in range(n if q >= 0 else 0):
        c = int(a[_pf(q, tricks_layout.P_TCARD)])
        if c >= 0:
            out.append((q, "??" if a[_pf(q, tricks_layout.P_TFD)] else zwick_cards.format_card(c)))
        q = (q + 1) % n
    return out


def history(state: TrickState) -> list[tuple[int, int, int]]:
    """Events so far as (kind, seat, value) triples (``layout.H_*`` kinds)."""
    a = state.arr
    h = int(a[tricks_layout.S_HLEN])
    base = tricks_layout.S_HIST
    return [(int(a[base + 3 * i]), int(a[base + 3 * i + 1]), int(a[base + 3 * i + 2])) for i in range(h)]


# ---- action names ------------------------------------------------------------------------------------
def bid_name(rules: TrickRules, level: int) -> str:
    """The spoken call for a bid level (1..4)."""
    name = BID_NAMES["modern" if rules.variant == "modern" else "parlett"][level - 1]
    if rules.option("part_pot_bids"):
        num, den = PART_POT[level - 1]
        frac = "pot" if num == den else f"{num}/{den}"
        return f"bid {frac}" if rules.variant == "parlett" else f"{name} ({frac})"
    return name


def action_name(rules: TrickRules, action: int) -> str:
    """Name of a player action that needs no position (used in histories)."""
    a = action
    if a < tricks_layout.A_DISCARD:
        return f"play {zwick_cards.format_card(a)}"
    if a < tricks_layout.A_PASS:
        return f"discard {zwick_cards.format_card(a - tricks_layout.A_DISCARD)}"
    modern = rules.variant == "modern"
    if a == tricks_layout.A_PASS:
        return "pas" if modern else "pass"
    if a == tricks_layout.A_PLAYDECL:
        return "play"
    if tricks_layout.A_BID <= a < tricks_layout.A_BID + 4:
        return bid_name(rules, a - tricks_layout.A_BID + 1)
    if a == tricks_layout.A_PASS_KEN:
        return "ik pas en ik ken hem"
    if tricks_layout.A_BID_KEN <= a < tricks_layout.A_BID_KEN + 4:
        return bid_name(rules, a - tricks_layout.A_BID_KEN + 1) + " en ik ken hem"
    if a == tricks_layout.A_SEARCH:
        return "zoeken" if modern else "turn new trump"
    if a == tricks_layout.A_STOP:
        return "niet zoeken" if modern else "end deal"
    if a == tricks_layout.A_SWAP:
        return "swap"
    if a == tricks_layout.A_KEEP:
        return "keep"
    if tricks_layout.A_EXCH <= a < tricks_layout.A_EXCH + 4:
        return f"exchange {a - tricks_layout.A_EXCH}"
    raise ValueError(f"action id {a} is out of range 0..{tricks_layout.NUM_ACTIONS - 1}")


def action_string(state: TrickState, action: int) -> str:
    """Readable name of a legal action (or chance outcome) in this position."""
    a = state.arr
    ph = a[tricks_layout.S_PHASE]
    if a[tricks_layout.S_CUR] == tricks_layout.CUR_CHANCE:
        verb = {
            tricks_layout.PH_CUT: "cut shows",
            tricks_layout.PH_DEAL: "deal",
            tricks_layout.PH_UPCARD: "turn up",
            tricks_layout.PH_DRAW: "draw",
        }[int(ph)]
        return f"{verb} {zwick_cards.format_card(action)}"
    if ph == tricks_layout.PH_SWAP:
        up = int(a[tricks_layout.S_UP + a[tricks_layout.S_SWAPK]])
        ten = zwick_cards.format_card((up // 13) * 13 + tricks_layout.TEN)
        return (
            f"swap {ten} for upcard {zwick_cards.format_card(up)}" if action == tricks_layout.A_SWAP else f"keep {ten}"
        )
    if ph == tricks_layout.PH_PLAY and _face_down_trick(state) and action // 13 != a[tricks_layout.S_TRUMP]:
        return f"play {zwick_cards.format_card(action)} face down"
    return action_name(state.rules, action)


def _face_down_trick(state: TrickState) -> bool:
    return state.rules.variant == "historic" and state.arr[tricks_layout.S_TRICK] < state.rules.tricks - 1


# ---- making positions --------------------------------------------------------------------------------
def _check_seed(seed: int) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or not 0 <= seed <= MAX_SEED:
        raise ValueError(f"seed must be a whole number in 0..{MAX_SEED}, not {seed!r}")
    return int(seed)


def new(rules: TrickRules) -> TrickState:
    """The position before the shuffle; chance outcomes are to be applied by the caller."""
    return TrickState(rules, tricks_kernels.new_state(rules.cfg), None)


def deal(rules: TrickRules, seed: int = 0) -> TrickState:
    """A fresh deal whose every chance event (cuts, deal, turn-ups, draws) follows from ``seed``."""
    st = TrickState(rules, tricks_kernels.new_state(rules.cfg), _check_seed(seed))
    _resolve_chance(st)
    return st


def scripted(
    rules: TrickRules, hands: Sequence[Sequence[str]], upcard: str | None = None, cut: str | None = None
) -> TrickState:
    """A scripted deal: ``hands[seat]`` in notation, optionally the cut card and the first upcard.

    Later chance events (re-turns, exchange draws) are applied by the caller with ``apply(state,
    "KS")``. Raises ``ValueError`` when a card is repeated, not in the pack, or a hand has the
    wrong size.
    """
    st = new(rules)
    if len(hands) != rules.players:
        raise ValueError(f"need {rules.players} hands, got {len(hands)}")
    if rules.cfg[tricks_layout.C_HUPF]:
        if cut is None:
            raise ValueError("with hupf the cut card must be given (cut='KS')")
        st = apply(st, cut)
    ids = [zwick_cards.parse_cards(h) for h in hands]
    flat = [c for h in ids for c in h]
    if len(set(flat)) != len(flat):
        raise ValueError("a card is dealt twice")
    for i in range(rules.players):
        p = (dealer(st) + 1 + i) % rules.players
        if len(ids[p]) != rules.tricks:
            raise ValueError(f"seat {p} must get {rules.tricks} cards, not {len(ids[p])}")
        for c in sorted(ids[p]):
            st = apply(st, c)
    if upcard is not None:
        st = apply(st, upcard)
    return st


def _resolve_chance(st: TrickState) -> None:
    a, cfg = st.arr, st.rules.cfg
    ids = np.empty(tricks_layout.NC, dtype=np.int32)
    probs = np.empty(tricks_layout.NC, dtype=np.float64)
    while a[tricks_layout.S_CUR] == tricks_layout.CUR_CHANCE:
        k = tricks_kernels.chance_outcomes(a, cfg, ids, probs)
        rng = np.random.default_rng([cast(int, st.seed), int(a[tricks_layout.S_HLEN])])
        tricks_kernels.apply_chance(a, cfg, int(rng.choice(ids[:k], p=probs[:k] / probs[:k].sum())))


# ---- moves -------------------------------------------------------------------------------------------
def legal_actions(state: TrickState) -> list[int]:
    """Legal action ids (ascending); at a chance node the possible outcomes (card ids)."""
    if state.arr[tricks_layout.S_CUR] == tricks_layout.CUR_CHANCE:
        return [c for c, _ in chance_outcomes(state)]
    return [int(x) for x in tricks_kernels.legal_actions(state.arr, state.rules.cfg)]


def chance_outcomes(state: TrickState) -> list[tuple[int, float]]:
    ids = np.empty(tricks_layout.NC, dtype=np.int32)
    probs = np.empty(tricks_layout.NC, dtype=np.float64)
    k = tricks_kernels.chance_outcomes(state.arr, state.rules.cfg, ids, probs)
    return [(int(ids[i]), float(probs[i])) for i in range(k)]


def legal_moves(state: TrickState) -> list[str]:
    """Readable names of the legal actions, in action-id order."""
    return [action_string(state, a) for a in legal_actions(state)]


def parse_action(state: TrickState, action: int | str) -> int:
    """An action id from an id or a readable name (a bare card name works at chance nodes and for
    ``play``). Raises ``ValueError`` listing the legal actions when it is not legal here."""
    legal = legal_actions(state)
    if isinstance(action, int | np.integer) and not isinstance(action, bool):
        if int(action) in legal:
            return int(action)
    elif isinstance(action, str):
        text = " ".join(action.lower().split())
        for a in legal:
            if text == action_string(state, a).lower():
                return a
        if state.arr[tricks_layout.S_CUR] >= 0:  # the short name works too ("swap", "play QS")
            for a in legal:
                if text == action_name(state.rules, a).lower():
                    return a
        try:  # a bare card: the chance outcome, the card to play, or the card to discard
            card = zwick_cards.parse_card(action)
        except ValueError:
            card = -1
        if 0 <= card < tricks_layout.NC:
            offset = tricks_layout.A_DISCARD if state.arr[tricks_layout.S_PHASE] == tricks_layout.PH_DISCARD else 0
            if card + offset in legal and (offset or state.arr[tricks_layout.S_PHASE] in _CARD_PHASES):
                return card + offset
    shown = "; ".join(legal_moves(state)) or "none (the deal is over)"
    raise ValueError(f"illegal action {action!r}; legal: {shown}")


_CARD_PHASES = (
    tricks_layout.PH_CUT,
    tricks_layout.PH_DEAL,
    tricks_layout.PH_UPCARD,
    tricks_layout.PH_DRAW,
    tricks_layout.PH_PLAY,
)


def apply(state: TrickState, action: int | str) -> TrickState:
    """The position after ``action`` (id or name); ``state`` is unchanged. With a seeded state the
    chance events that follow are resolved too."""
    a = parse_action(state, action)
    out = state.copy()
    tricks_kernels.apply(out.arr, out.rules.cfg, a)
    if out.seed is not None:
        _resolve_chance(out)
    return out


# ---- rendering -----------------------------------------------------------------------------------------
def render(state: TrickState) -> str:
    """The whole position (every hidden card shown), one field per line."""
    a, r = state.arr, state.rules
    lines = [
        f"{r} phase={phase(state)} to_move={to_move(state)} dealer={dealer(state)} "
        f"pot={pot(state)} (start {a[tricks_layout.S_POT_START]}, play {a[tricks_layout.S_POT0]}) result={result(state)}",
        f"upcards={' '.join(upcards(state)) or '-'} trump={trump(state) or '-'} "
        f"bottom={zwick_cards.format_card(int(a[tricks_layout.S_BOTTOM])) if a[tricks_layout.S_BOTTOM] >= 0 else '-'} "
        f"searches={a[tricks_layout.S_NSEARCH]} passes={a[tricks_layout.S_PASSES]} high={a[tricks_layout.S_HIGH]}@{a[tricks_layout.S_HIGHP]} "
        f"speler={a[tricks_layout.S_SPELER]} trick={a[tricks_layout.S_TRICK]} leader={a[tricks_layout.S_LEADER]}",
    ]
    for p in range(r.players):
        f = [int(a[_pf(p, k)]) for k in range(tricks_layout.NPF)]
        lines.append(
            f"seat {p}: hand={' '.join(hand(state, p)) or '-'} status={f[tricks_layout.P_STATUS]} bid={f[tricks_layout.P_BID]} "
            f"asked={f[tricks_layout.P_ASKED]} ann={f[tricks_layout.P_ANN]} in={f[tricks_layout.P_IN]} tricks={f[tricks_layout.P_TRICKS]} "
            f"points={f[tricks_layout.P_POINTS]} net={f[tricks_layout.P_NET]}"
        )
    lines.append("trick: " + (" ".join(f"{q}:{c}" for q, c in current_trick(state)) or "-"))
    lines.append("stock: " + (zwick_cards.format_cards(_cards_at(state, tricks_layout.L_STOCK)) or "-"))
    lines.append("history: " + " ".join(f"{k}.{w}.{v}" for k, w, v in history(state)))
    return "\n".join(lines)


def information_state_string(state: TrickState, player: int) -> str:
    """Everything ``player`` has observed, in order (perfect recall), then his hand."""
    r = state.rules
    parts = [f"seat {player} of {r.players}, first dealer {r.dealer}, pot {r.pot}"]
    for kind, who, v in history(state):
        if kind == tricks_layout.H_DEAL:
            if who == player:
                parts.append(f"deal {zwick_cards.format_card(v)}")
        elif kind == tricks_layout.H_UP:
            parts.append(f"up {zwick_cards.format_card(v)}")
        elif kind == tricks_layout.H_CUT:
            parts.append(f"cut {zwick_cards.format_card(v)}")
        elif kind == tricks_layout.H_DRAW:
            parts.append(f"draw {zwick_cards.format_card(v)}" if who == player else f"{who} draws")
        elif kind == tricks_layout.H_DRAWPUB:
            parts.append(f"{who} draws {zwick_cards.format_card(v)}")
        elif kind == tricks_layout.H_ACT:
            parts.append(f"{who}: {action_name(r, v)}")
        elif kind == tricks_layout.H_HIDDEN:
            if who == player:
                parts.append(f"{who}: {action_name(r, v)}" + (" face down" if v < tricks_layout.A_DISCARD else ""))
            else:
                parts.append(f"{who}: " + ("play face down" if v < tricks_layout.A_DISCARD else "discard"))
    parts.append("hand " + (" ".join(hand(state, player)) or "-"))
    return "; ".join(parts)


def observation_string(state: TrickState, player: int) -> str:
    """What ``player`` sees now (no history): hand, table, pot, calls, tricks."""
    a, r = state.arr, state.rules
    status = {0: "?", 1: "in", 2: "out"}
    seats = [
        f"{p}:{status[int(a[_pf(p, tricks_layout.P_STATUS)])]} bid{int(a[_pf(p, tricks_layout.P_BID)])} tricks{int(a[_pf(p, tricks_layout.P_TRICKS)])}"
        for p in range(r.players)
    ]
    return (
        f"seat {player}; dealer {dealer(state)}; pot {pot(state)}; phase {phase(state)}; "
        f"to move {to_move(state)}; hand {' '.join(hand(state, player)) or '-'}; "
        f"upcards {' '.join(upcards(state)) or '-'}; trump {trump(state) or '-'}; "
        f"cut {zwick_cards.format_card(int(a[tricks_layout.S_CUTCARD])) if a[tricks_layout.S_CUTCARD] >= 0 else '-'}; "
        f"trick {' '.join(f'{q}:{c}' for q, c in current_trick(state)) or '-'}; "
        f"played {zwick_cards.format_cards(_cards_at(state, tricks_layout.L_PLAYED)) or '-'}; "
        f"seats {', '.join(seats)}; net {' '.join(map(str, returns(state)))}"
    )


# ---- resampling ----------------------------------------------------------------------------------------
def _known_to(state: TrickState, player: int) -> tuple[set[int], dict[int, set[int]]]:
    """Cards ``player`` has seen, and per other seat the cards publicly seen in its hand."""
    seen: set[int] = set()
    public_of: dict[int, set[int]] = {q: set() for q in range(state.rules.players)}
    up_orig: list[int] = []
    swappers: list[int] = []
    open_draws: set[int] = set()
    for kind, who, v in history(state):
        if kind == tricks_layout.H_UP:
            seen.add(v)
            up_orig.append(v)
        elif kind == tricks_layout.H_CUT and v == state.arr[tricks_layout.S_BOTTOM]:
            seen.add(v)  # a cut that passed the deal went back into the pack
        elif kind in (tricks_layout.H_DEAL, tricks_layout.H_DRAW) and who == player:
            seen.add(v)
        elif kind == tricks_layout.H_DRAWPUB:
            seen.add(v)  # the bottom card, drawn openly: not one of the hidden slots
            open_draws.add(v)
        elif kind == tricks_layout.H_HIDDEN and who == player:
            seen.add(v - tricks_layout.A_DISCARD if v >= tricks_layout.A_DISCARD else v)
        elif kind == tricks_layout.H_ACT and v < tricks_layout.A_DISCARD:
            seen.add(v)
            public_of[who].add(v)
        elif kind == tricks_layout.H_ACT and v == tricks_layout.A_SWAP:
            swappers.append(who)
    # Swaps happen in upcard order: the k-th changed upcard shows the ten the k-th swapper held.
    a = state.arr
    changed = [
        (int(a[tricks_layout.S_UP + k]), orig)
        for k, orig in enumerate(up_orig)
        if int(a[tricks_layout.S_UP + k]) != orig
    ]
    for (ten, orig), who in zip(changed, swappers, strict=True):
        seen.add(ten)
        public_of[who].add(ten)
        open_draws.add(orig)  # received openly by the swap, not through a hidden slot
    public_of.pop(player, None)
    return seen, {q: cards - open_draws for q, cards in public_of.items()}


def resample(state: TrickState, player: int, rng: np.random.Generator, tries: int = 2000) -> TrickState:
    """A full position consistent with everything ``player`` has observed.

    The other seats' hidden cards (deals, draws) are re-dealt from the cards ``player`` has not
    seen: each seat's publicly seen cards (face-up plays, a swapped ten) go into the hand it held
    after its exchange (kept dealt cards + draws), the dealt cards it did not keep become its
    discards, the rest is uniform. Face-down plays (1853) are re-chosen uniformly among the legal
    cards the seat does not show later. The history is then replayed and the sample rejected if an
    observed action becomes illegal (e.g. a revealed void). Exact rejection sampling over uniform
    deals when nobody exchanged or played face down; otherwise approximately uniform (the true
    posterior depends on the other players' policies). ``RuntimeError`` after ``tries`` rejections.
    """
    if not 0 <= player < state.rules.players:
        raise ValueError(f"player must be a seat in 0..{state.rules.players - 1}")
    hist = history(state)
    seen, public_of = _known_to(state, player)
    deck = set(state.rules.deck)
    deals: dict[int, list[int]] = {q: [] for q in public_of}
    draws: dict[int, list[int]] = {q: [] for q in public_of}
    n_discards = dict.fromkeys(public_of, 0)
    for i, (kind, who, v) in enumerate(hist):
        if who not in public_of:
            continue
        if kind == tricks_layout.H_DEAL:
            deals[who].append(i)
        elif kind == tricks_layout.H_DRAW:
            draws[who].append(i)
        elif kind == tricks_layout.H_HIDDEN and v >= tricks_layout.A_DISCARD:
            n_discards[who] += 1
    must = set().union(*public_of.values()) if public_of else set()
    free_pool = sorted(deck - seen - must)
    for _ in range(tries):
        assign: dict[int, int] = {}
        discard_sets: dict[int, list[int]] = {}
        pool = [int(c) for c in rng.permutation(free_pool)]
        ok = True
        for q in public_of:
            # The seat's hand after its exchange = the dealt cards it kept + its draws; every card
            # it later showed was in that hand. The dealt cards it did not keep are its discards.
            order = rng.permutation(len(deals[q]))
            keep_n = len(deals[q]) - n_discards[q]
            kept = [deals[q][j] for j in order[:keep_n]]
            dropped = [deals[q][j] for j in order[keep_n:]]
            final = kept + draws[q]
            need = sorted(public_of[q])
            if len(need) > len(final) or len(pool) < len(final) + len(dropped) - len(need):
                ok = False
                break
            for slot, c in zip(rng.permutation(len(final))[: len(need)], need, strict=False):
                assign[final[slot]] = c
            for slot in final + dropped:
                if slot not in assign:
                    assign[slot] = pool.pop()
            discard_sets[q] = sorted(assign[slot] for slot in dropped)
        if not ok:
            continue
        out = _replay(state, hist, assign, discard_sets, player, rng)
        if out is not None:
            return out
    raise RuntimeError("resample: no consistent position found")


def _replay(state, hist, assign, discard_sets, player, rng) -> TrickState | None:
    st = new(state.rules)
    a, cfg = st.arr, st.rules.cfg
    ids = np.empty(tricks_layout.NC, dtype=np.int32)
    probs = np.empty(tricks_layout.NC, dtype=np.float64)
    # a run of sorted chance cards (a hand, an exchange draw) must be applied in increasing order
    i = 0
    n = len(hist)
    while i < n:
        kind, who, v = hist[i]
        if kind in (tricks_layout.H_DEAL, tricks_layout.H_DRAW) and i in assign:
            j = i
            while j < n and hist[j][0] == kind and hist[j][1] == who and j in assign:
                j += 1
            run = sorted(assign[t] for t in range(i, j))
            for c in run:
                k = tricks_kernels.chance_outcomes(a, cfg, ids, probs)
                if k == 1 and a[tricks_layout.S_PHASE] == tricks_layout.PH_DRAW:
                    c = int(ids[0])  # the talon has run out: the rest of it comes in a fixed order
                elif c not in ids[:k]:
                    return None
                tricks_kernels.apply_chance(a, cfg, c)
            i = j
            continue
        if a[tricks_layout.S_CUR] == tricks_layout.CUR_CHANCE:
            k = tricks_kernels.chance_outcomes(a, cfg, ids, probs)
            if (
                kind
                not in (
                    tricks_layout.H_DEAL,
                    tricks_layout.H_UP,
                    tricks_layout.H_CUT,
                    tricks_layout.H_DRAW,
                    tricks_layout.H_DRAWPUB,
                )
                or v not in ids[:k]
            ):
                return None
            tricks_kernels.apply_chance(a, cfg, v)
        else:
            if a[tricks_layout.S_CUR] != who or kind not in (tricks_layout.H_ACT, tricks_layout.H_HIDDEN):
                return None
            legal = tricks_kernels.legal_actions(a, cfg)
            if kind == tricks_layout.H_HIDDEN and who != player:
                if v >= tricks_layout.A_DISCARD:
                    todo = discard_sets[who]  # discards are made in increasing order
                    if not todo or tricks_layout.A_DISCARD + todo[0] not in legal:
                        return None
                    v = tricks_layout.A_DISCARD + todo.pop(0)
                else:
                    # a face-down play (1853): any card the seat does not show later
                    shown = {
                        c
                        for k2, w2, c in hist
                        if k2 == tricks_layout.H_ACT and w2 == who and c < tricks_layout.A_DISCARD
                    }
                    cands = [x for x in legal if x // 13 != a[tricks_layout.S_TRUMP] and x not in shown]
                    if not cands:
                        return None
                    v = int(cands[rng.integers(len(cands))])
            elif v not in legal:
                return None
            tricks_kernels.apply_action(a, cfg, v)
        i += 1
    if (
        a[tricks_layout.S_CUR] != state.arr[tricks_layout.S_CUR]
        or a[tricks_layout.S_PHASE] != state.arr[tricks_layout.S_PHASE]
    ):
        return None  # the hidden cards would have caused an event that did not happen (a swap, a zwik)
    return st


# ---- sessions ------------------------------------------------------------------------------------------
Policy = Callable[[TrickState], "int | str"]


def random_policy(seed: int = 0) -> Policy:
    """A policy choosing uniformly among the legal actions."""
    rng = np.random.default_rng(seed)

    def choose(state: TrickState) -> int:
        legal = legal_actions(state)
        return legal[int(rng.integers(len(legal)))]

    return choose


def ante(rules: TrickRules, carried: int, dealer_seat: int) -> list[int]:
    """Chips each seat puts in before a deal of a session (docs/rules.md B, C).

    1853 and Zwicken: the dealer antes 3; parlett: everyone antes 1 every deal; modern: everyone
    antes 1 when the pot is empty.
    """
    n = rules.players
    if rules.variant == "parlett" or rules.variant == "modern" and carried == 0:
        return [1] * n
    if rules.variant in ("historic", "standard"):
        return [3 if p == dealer_seat else 0 for p in range(n)]
    return [0] * n


@dataclass
class Session:
    """Result of :func:`play_session`: chips per seat (antes included) and the pot after each deal."""

    chips: list[int]
    pots: list[int] = field(default_factory=list)
    results: list[str] = field(default_factory=list)
    start_pot: int = 0

    @property
    def final_pot(self) -> int:
        return self.pots[-1] if self.pots else self.start_pot


#: plays deal ``d`` of a session (0, 1, …) under the given rules (that deal's pot and dealer) to its
#: end and returns the final position
PlayDeal = Callable[[TrickRules, int], TrickState]


def run_session(rules: TrickRules, play_deal: PlayDeal, deals: int, start_pot: int = 0) -> Session:
    """A session's rule, in one place: ``deals`` deals with the pot carried over and the deal
    passing left.

    Before each deal the antes (:func:`ante`) are charged and ``play_deal(deal_rules, d)`` plays
    deal ``d`` with ``pot`` = carried chips + antes and this deal's dealer (``rules.dealer`` first;
    -1 draws it); its returns are booked, what stays in its pot is carried over, and the seat left
    of its dealer deals next. Chips are conserved: ``sum(chips) + final_pot - start_pot == 0``.
    """
    n = rules.players
    out = Session([0] * n, start_pot=start_pot)
    carried = start_pot
    dealer_seat = rules.dealer
    for d in range(deals):
        antes = ante(rules, carried, dealer_seat)
        for p in range(n):
            out.chips[p] -= antes[p]
        st = play_deal(rules.with_(pot=carried + sum(antes), dealer=dealer_seat), d)
        for p, x in enumerate(returns(st)):
            out.chips[p] += x
        carried = pot(st)
        out.pots.append(carried)
        out.results.append(result(st))
        dealer_seat = (dealer(st) + 1) % n
    return out


def play_session(
    rules: TrickRules, policies: Sequence[Policy], deals: int, seed: int = 0, start_pot: int = 0
) -> Session:
    """Play ``deals`` deals of a session (:func:`run_session`: antes, pot carried over, the deal
    passing left), each dealt by its own seed from ``seed``; ``policies[seat](state)`` returns an
    action (id or name)."""
    if len(policies) != rules.players:
        raise ValueError(f"need {rules.players} policies, got {len(policies)}")

    def play_deal(deal_rules: TrickRules, d: int) -> TrickState:
        st = deal(deal_rules, seed=(seed * 1_000_003 + d) % MAX_SEED)
        while not is_over(st):
            st = apply(st, policies[to_move(st)](st))
        return st

    return run_session(rules, play_deal, deals, start_pot)
