"""SVG pictures of Zwicker, Zwikken and Zwicken positions, from above (every card open) or from one
seat's view (what that seat may see; the others' hands face down).

Every face-up card is a ``<g class="card" data-card="QS" data-zone="...">`` element and every
face-down card a ``<g class="card back" data-zone="...">`` without ``data-card``, so the cards of a
picture can be read back from the SVG (the tests do). Zones: ``hand-P`` (seat P's hand),
``table`` (Zwicker; a build's cards also carry ``data-unit``), ``won-S`` (side S's won pile),
``stock`` (one face-down pile with ``data-count``), and in the trick games ``upcard``, ``bottom``,
``trick-K`` (cards played to trick K, from 0; ``data-seat`` says by whom) and ``discards``.
The stock is face down in every view (its order is hidden even from above).

Suits are drawn in four colours (clubs green, diamonds blue, hearts red, spades black); valued
jokers show their value, wild jokers a ``W``. No fonts or scripts outside the file are used.

>>> import pyspiel, zwick_ai.games
>>> from zwick_ai.games import zwicker_bridge
>>> game = pyspiel.load_game("zwicker(variant=classic,players=2)")
>>> svg = state_svg(zwicker_bridge.state_from_seed(game, 3), seat=0)
>>> svg.startswith("<svg") and svg.count('data-zone="hand-1"') == 4 and 'data-card="QH"' in svg
True
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import Any

from zwick_ai import cards, tricks, zwicker
from zwick_ai.tricks import arrays as trick_arrays
from zwick_ai.tricks.engine import bid_name

SUIT_COLOURS = ("#1a7f37", "#1f5fbf", "#c62828", "#202020")  # clubs, diamonds, hearts, spades
JOKER_COLOUR = "#7b1fa2"
BACK_COLOUR = "#34548a"
FELT = "#e8f1e8"
MOVER = "#fff3c4"
HIGHLIGHT = "#ff9800"

WIDTH = 900
MARGIN = 12
CARD_W, CARD_H, GAP = 44, 64, 6
MINI_W, MINI_H, MINI_GAP = 24, 34, 2
LABEL_W = 230  # room for a seat's label left of its hand
ROW_H = CARD_H + 16
LINE_H = 18


def _rank_text(card: int) -> str:
    rank = cards.RANKS[cards.rank_of(card)]
    return "10" if rank == "T" else rank


@dataclass
class _Canvas:
    """SVG elements laid out top to bottom."""

    parts: list[str] = field(default_factory=list)
    y: float = MARGIN
    symbols: bool = False  # cards as ``<use>`` of the page's symbols (:func:`symbol_defs`), not drawn inline

    def text(
        self,
        x: float,
        y: float,
        s: str,
        size: int = 13,
        weight: str = "normal",
        attrs: Mapping[str, object] | None = None,
        **style: object,
    ) -> None:
        """A text; ``attrs`` are written as given (``data-*``), ``style`` names with ``_`` as ``-``."""
        pairs = [*(attrs or {}).items(), *((k.replace("_", "-"), v) for k, v in style.items())]
        extra = "".join(f' {k}="{escape(str(v))}"' for k, v in pairs)
        self.parts.append(
            f'<text x="{x:.0f}" y="{y:.0f}" font-size="{size}" font-weight="{weight}"{extra}>{escape(s)}</text>'
        )

    def card(
        self,
        x: float,
        y: float,
        card: int | None,
        zone: str,
        mini: bool = False,
        highlight: bool = False,
        **data: object,
    ) -> None:
        """A card at (x, y): face up (``card`` an id) or face down (``card`` None)."""
        w, h = (MINI_W, MINI_H) if mini else (CARD_W, CARD_H)
        attrs = f' data-zone="{zone}"' + "".join(f' data-{k}="{escape(str(v))}"' for k, v in data.items())
        place = f' transform="translate({x:.0f},{y:.0f})"'
        if card is None:
            head = f'<g class="card back"{attrs}{place}>'
        else:
            cls = "card joker" if cards.is_valued_joker(card) or cards.is_wild_joker(card) else "card"
            head = f'<g class="{cls}" data-card="{cards.format_card(card)}"{attrs}{place}>'
        if self.symbols:
            ring = (
                f'<rect width="{w}" height="{h}" rx="4" fill="none" stroke="{HIGHLIGHT}" stroke-width="3"/>'
                if highlight
                else ""
            )
            self.parts.append(f'{head}<use href="#{symbol_id(card, mini)}"/>{ring}</g>')
            return
        self.parts.append(head + card_body(card, mini, highlight) + "</g>")

    def row(
        self,
        x0: float,
        cards: Sequence[int | None],
        zone: str,
        mini: bool = False,
        highlight: Collection[int] = (),
        width: float = WIDTH - MARGIN,
    ) -> None:
        """Cards left to right from ``x0`` at the current height, wrapping at ``width``; moves down."""
        w, h, gap = (MINI_W, MINI_H, MINI_GAP) if mini else (CARD_W, CARD_H, GAP)
        x = x0
        for c in cards:
            if x + w > width:
                x = x0
                self.y += h + gap
            self.card(x, self.y, c, zone, mini, c is not None and c in highlight)
            x += w + gap
        self.y += h + gap

    def svg(self, title: str) -> str:
        height = int(self.y + MARGIN)
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" class="zwick-state" width="{WIDTH}" height="{height}" '
            f'viewBox="0 0 {WIDTH} {height}" font-family="DejaVu Sans, Arial, sans-serif">'
            f"<title>{escape(title)}</title>"
            f'<rect width="{WIDTH}" height="{height}" fill="{FELT}"/>' + "".join(self.parts) + "</svg>"
        )


def symbol_id(card: int | None, mini: bool) -> str:
    """The id of a card's symbol in a page (:func:`symbol_defs`): ``k12``, ``m12``, ``kb`` (back)."""
    return ("m" if mini else "k") + ("b" if card is None else str(card))


def symbol_defs(ids: Collection[str]) -> str:
    """``<symbol>`` elements drawing the cards of ``ids`` (:func:`symbol_id`) once, for a page whose
    pictures place them with ``<use>``."""
    out = []
    for sid in sorted(ids):
        mini, rest = sid[0] == "m", sid[1:]
        card = None if rest == "b" else int(rest)
        w, h = (MINI_W, MINI_H) if mini else (CARD_W, CARD_H)
        out.append(
            f'<symbol id="{sid}" viewBox="0 0 {w} {h}" width="{w}" height="{h}">{card_body(card, mini)}</symbol>'
        )
    return "".join(out)


def card_body(card: int | None, mini: bool = False, highlight: bool = False) -> str:
    """The drawing of a card at (0, 0): face up (``card`` an id) or face down (``card`` None)."""
    w, h = (MINI_W, MINI_H) if mini else (CARD_W, CARD_H)
    stroke = f'stroke="{HIGHLIGHT}" stroke-width="3"' if highlight else 'stroke="#555" stroke-width="1"'
    if card is None:
        return (
            f'<rect width="{w}" height="{h}" rx="4" fill="{BACK_COLOUR}" {stroke}/>'
            f'<rect x="3" y="3" width="{w - 6}" height="{h - 6}" rx="3" fill="none" stroke="#9db3d9"/>'
        )
    body = f'<rect width="{w}" height="{h}" rx="4" fill="white" {stroke}/>'
    joker = cards.is_valued_joker(card) or cards.is_wild_joker(card)
    if joker:  # a star and the matching value (W: wild, any value)
        top = "★"
        big = "W" if cards.is_wild_joker(card) else str(cards.JOKER_VALUES[card - cards.VALUED_JOKER_BASE])
        colour = JOKER_COLOUR
    else:
        top, big = _rank_text(card), cards.SUIT_SYMBOLS[cards.suit_of(card)]
        colour = SUIT_COLOURS[cards.suit_of(card)]
    if mini:
        body += (
            f'<text x="{w / 2:.0f}" y="15" font-size="11" font-weight="bold" text-anchor="middle" '
            f'fill="{colour}">{escape(big if joker else top)}</text>'
            f'<text x="{w / 2:.0f}" y="29" font-size="12" text-anchor="middle" fill="{colour}">'
            f"{escape(top if joker else big)}</text>"
        )
    else:
        body += (
            f'<text x="5" y="17" font-size="15" font-weight="bold" fill="{colour}">{escape(top)}</text>'
            f'<text x="{w / 2:.0f}" y="{h - 14}" font-size="{20 if joker else 26}" '
            f'font-weight="bold" text-anchor="middle" fill="{colour}">{escape(big)}</text>'
        )
        if joker:
            body += f'<text x="{w / 2:.0f}" y="{h - 4}" font-size="8" text-anchor="middle" fill="{colour}">JOKER</text>'
    return body


#: characters of a seat's label that fit left of its cards (LABEL_W at 13 px bold); longer agent
#: specs are cut with "…" (the page's view selector names every seat in full)
LABEL_CHARS = 27


def _seat_label(seat: int, names: Sequence[str] | None) -> str:
    text = f"seat {seat}" + (f" · {names[seat]}" if names else "")
    return text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 1] + "…"


# ------------------------------------------------------------------------------------------------
# Zwicker
# ------------------------------------------------------------------------------------------------
def zwicker_svg(
    es: zwicker.ZwickerState,
    seat: int | None = None,
    names: Sequence[str] | None = None,
    highlight: Collection[str] = (),
    symbols: bool = False,
) -> str:
    """The SVG of a Zwicker engine position (module docstring); ``highlight``: card names outlined;
    ``symbols``: cards as ``<use>`` of a page's :func:`symbol_defs`."""
    r = es.rules
    snap = zwicker.snapshot(es)
    names_marked = set(highlight)  # by name: with two packs both copies of a card are outlined
    marked = {c for c in r.deck if cards.format_card(c) in names_marked}
    over = zwicker.is_over(es)
    to_move = -1 if over else zwicker.to_move(es)
    cv = _Canvas(symbols=symbols)
    title = f"{r.describe()} | stage {snap.stage} | dealer {snap.dealer}"
    title += " | hand over" if over else f" | to move: seat {to_move}"
    cv.text(MARGIN, cv.y + 14, title, 14, "bold")
    cv.y += 24
    if seat is not None:
        cv.text(MARGIN, cv.y + 12, f"seen by seat {seat}", 12, fill="#555")
        cv.y += LINE_H
    # table and stock
    cv.text(MARGIN, cv.y + 14, "table", 13, "bold")
    stock_n = len(snap.stock)
    sx = WIDTH - MARGIN - CARD_W
    cv.text(sx + CARD_W / 2, cv.y + 14, f"stock {stock_n}", 12, text_anchor="middle")
    cv.y += LINE_H + 4
    top = cv.y
    if stock_n:
        cv.parts.append(f'<g class="pile" data-zone="stock" data-count="{stock_n}">')
        cv.card(sx, top, None, "stock-pile")
        cv.parts.append("</g>")
    else:
        cv.parts.append('<g class="pile" data-zone="stock" data-count="0"></g>')
    x, y = float(MARGIN), top
    limit = sx - 2 * GAP
    for k, unit in enumerate(snap.table):
        n = len(unit.cards)
        width = n * (CARD_W + GAP) - GAP + (12 if unit.build else 0)
        if x + width > limit and x > MARGIN:
            x, y = float(MARGIN), y + ROW_H + 8
        if unit.build:
            owner = f" by {unit.owner}" if unit.owner >= 0 else ""
            cv.parts.append(
                f'<rect class="build" x="{x:.0f}" y="{y - 2:.0f}" width="{width:.0f}" height="{CARD_H + 18}" '
                f'rx="6" fill="#d7e6d7" stroke="#4a7a4a" stroke-dasharray="4 2"/>'
            )
            cv.text(x + width / 2, y + CARD_H + 13, f"build {unit.value}{owner}", 11, "bold", text_anchor="middle")
            cx = x + 6
        else:
            cx = x
        for c in unit.cards:
            cv.card(cx, y, c, "table", highlight=c in marked, unit=k)
            cx += CARD_W + GAP
        x += width + 3 * GAP
    if not snap.table:
        cv.text(MARGIN, y + CARD_H / 2, "(empty)", 12, fill="#777")
    cv.y = y + ROW_H + 8
    # hands
    for p in range(r.players):
        hand = snap.hands[p]
        if p == to_move:
            cv.parts.append(
                f'<rect class="to-move" x="{MARGIN / 2:.0f}" y="{cv.y - 4:.0f}" width="{WIDTH - MARGIN}" '
                f'height="{ROW_H}" rx="6" fill="{MOVER}"/>'
            )
        label = ("▶ " if p == to_move else "") + _seat_label(p, names)
        cv.text(MARGIN, cv.y + 20, label, 13, "bold")
        cv.text(MARGIN, cv.y + 38, f"side {r.side_of(p)} · {len(hand)} card{'s' if len(hand) != 1 else ''}", 12)
        shown: list[int | None] = list(hand) if seat is None or seat == p else [None] * len(hand)
        if not shown:
            cv.text(MARGIN + LABEL_W, cv.y + 36, "-", 12, fill="#777")
            cv.y += ROW_H
        else:
            cv.row(MARGIN + LABEL_W, shown, f"hand-{p}", highlight=marked)
            cv.y += ROW_H - CARD_H - GAP
    # won piles and scores
    score = zwicker.score(es)
    last = snap.last_capturer
    for s, seats in enumerate(r.sides):
        pile = snap.won[s]
        z = snap.zwicks[s]
        who = "+".join(map(str, seats))
        head = (
            f"side {s} (seat{'s' if len(seats) > 1 else ''} {who}): won {len(pile)} cards, "
            f"{z} zwick{'s' if z != 1 else ''}, {score[s]} points" + (" · last capture" if last == s else "")
        )
        cv.text(MARGIN, cv.y + 14, head, 13, "bold", {"class": "score", "data-side": s, "data-points": score[s]})
        cv.y += LINE_H + 2
        if pile:
            cv.row(MARGIN, list(pile), f"won-{s}", mini=True, highlight=marked)
        cv.y += 4
    if snap.asked.partner >= 0:
        answer = "yes" if snap.asked.answer == 1 else "no"
        cv.text(MARGIN, cv.y + 14, f"asked seat {snap.asked.partner} for a build of {snap.asked.value}: {answer}", 12)
        cv.y += LINE_H
    return cv.svg(title)


# ------------------------------------------------------------------------------------------------
# Zwikken and Zwicken
# ------------------------------------------------------------------------------------------------
_STATUS = {0: "undecided", 1: "in", 2: "passed"}


def tricks_svg(
    ts: tricks.TrickState, seat: int | None = None, names: Sequence[str] | None = None, symbols: bool = False
) -> str:
    """The SVG of a Zwikken/Zwicken engine position (module docstring)."""
    r, a = ts.rules, ts.arr
    over = tricks.is_over(ts)
    to_move = tricks.to_move(ts)
    cv = _Canvas(symbols=symbols)
    params = r.params()
    game = f"{r.game} {params.get('variant', '')}".strip() + f" ({r.players} players)"
    title = f"{game} | {tricks.phase(ts)} | dealer {tricks.dealer(ts)} | pot {tricks.pot(ts)}"
    title += f" | {tricks.result(ts)}" if over else (f" | to move: seat {to_move}" if to_move >= 0 else "")
    cv.text(MARGIN, cv.y + 14, title, 14, "bold")
    cv.y += 24
    trump = int(trick_arrays.trump(a))
    suit = (
        f'<tspan font-size="17" font-weight="bold" fill="{SUIT_COLOURS[trump]}">{cards.SUIT_SYMBOLS[trump]}</tspan>'
        if trump >= 0
        else "-"
    )
    cv.parts.append(
        f'<text class="pot" data-pot="{tricks.pot(ts)}" x="{MARGIN}" y="{cv.y + 15:.0f}" font-size="13">'
        f"pot {tricks.pot(ts)} chips · trump {suit}</text>"
    )
    speler = int(trick_arrays.speler(a))
    high, highp = int(trick_arrays.high_bid(a)), int(trick_arrays.high_bidder(a))
    info = []
    if highp >= 0 and high > 0:
        info.append(f"highest bid: {bid_name(r, high)} by seat {highp}")
    if speler >= 0:
        info.append(f"speler: seat {speler}")
    if info:
        cv.text(MARGIN + 200, cv.y + 14, " · ".join(info), 13)
    cv.y += LINE_H + 4
    if seat is not None:
        cv.text(MARGIN, cv.y + 12, f"seen by seat {seat}", 12, fill="#555")
        cv.y += LINE_H
    deck = range(trick_arrays.NC)
    stock_n = sum(1 for c in deck if trick_arrays.in_stock(a, c))
    ups = [int(trick_arrays.upcard(a, k)) for k in range(trick_arrays.upcard_count(a))]
    bottom = int(trick_arrays.bottom_card(a))
    # upcards, the cut card at the bottom, stock and discards on one row
    top = cv.y + LINE_H
    cv.text(MARGIN, cv.y + 14, "upcards", 13, "bold")
    x = float(MARGIN)
    for c in ups:
        if trick_arrays.is_upcard(a, c):  # a swapped upcard is in a hand now and drawn there
            cv.card(x, top, c, "upcard")
            x += CARD_W + GAP
    x = max(x, MARGIN + 70.0) + 2 * GAP  # room for the label
    if bottom >= 0 and trick_arrays.is_bottom(a, bottom):
        cv.text(x, cv.y + 14, "bottom", 13, "bold")
        cv.card(x, top, bottom, "bottom")
        x += CARD_W + 3 * GAP
    cv.text(x, cv.y + 14, f"stock {stock_n}", 13, "bold")
    cv.parts.append(f'<g class="pile" data-zone="stock" data-count="{stock_n}">')
    if stock_n:
        cv.card(x, top, None, "stock-pile")
    cv.parts.append("</g>")
    x += CARD_W + 3 * GAP
    discards = [c for c in deck if trick_arrays.is_discarded(a, c)]
    if discards:
        own = _own_discards(ts, seat) if seat is not None else set(discards)
        cv.text(x, cv.y + 14, f"discards {len(discards)}", 13, "bold")
        faces: list[int | None] = [c for c in discards if c in own]  # discards are in id order
        faces += [None] * (len(discards) - len(faces))
        cv.y = top
        cv.row(x, faces, "discards")
    cv.y = top + ROW_H
    # seats: status, bid, tricks and chips, hand
    tricks_won, net = tricks.tricks_won(ts), tricks.returns(ts)
    for p in range(r.players):
        hand = [int(c) for c in trick_arrays.hand(a, p)]
        if p == to_move:
            cv.parts.append(
                f'<rect class="to-move" x="{MARGIN / 2:.0f}" y="{cv.y - 4:.0f}" width="{WIDTH - MARGIN}" '
                f'height="{ROW_H}" rx="6" fill="{MOVER}"/>'
            )
        cv.text(MARGIN, cv.y + 16, ("▶ " if p == to_move else "") + _seat_label(p, names), 13, "bold")
        status = _STATUS.get(int(trick_arrays.status(a, p)), "?")
        bid = int(trick_arrays.bid(a, p))
        words = status + (f" · {bid_name(r, bid)}" if bid > 0 else "")
        cv.text(MARGIN, cv.y + 34, words, 12, attrs={"class": "bid", "data-seat": p})
        cv.text(MARGIN, cv.y + 52, f"{tricks_won[p]} trick{'s' if tricks_won[p] != 1 else ''} · {net[p]:+d} chips", 12)
        shown: list[int | None] = list(hand) if seat is None or seat == p else [None] * len(hand)
        if shown:
            cv.row(MARGIN + LABEL_W, shown, f"hand-{p}")
            cv.y += ROW_H - CARD_H - GAP
        else:
            cv.text(MARGIN + LABEL_W, cv.y + 36, "-", 12, fill="#777")
            cv.y += ROW_H
    # the tricks: one row per trick, each card under its seat's number
    current = int(trick_arrays.trick_number(a))
    played = current + (0 if over else 1)
    for k in range(min(played, r.tricks)):
        cells = [(p, int(trick_arrays.trick_log(a, k, p))) for p in range(r.players)]
        cells = [(p, v) for p, v in cells if v >= 0]
        if not cells:
            continue
        cv.text(
            MARGIN,
            cv.y + 36,
            f"trick {k + 1}" + (" (current)" if k == current else ""),
            13,
            "bold",
        )
        for p, v in cells:
            x = MARGIN + LABEL_W + p * (CARD_W + 3 * GAP)
            face_down = v >= 64
            c = v - 64 if face_down else v
            visible = not face_down or seat is None or seat == p
            cv.text(x + CARD_W / 2, cv.y + 10, f"seat {p}" + (" ▼" if face_down else ""), 10, text_anchor="middle")
            cv.card(x, cv.y + 14, c if visible else None, f"trick-{k}", seat=p)
        cv.y += ROW_H + 14
    return cv.svg(title)


def _own_discards(ts: tricks.TrickState, seat: int) -> set[int]:
    """The cards ``seat`` discarded (only he saw them)."""
    a = ts.arr
    return {
        int(trick_arrays.discarded_card(trick_arrays.event_value(a, i)))
        for i in range(trick_arrays.history_length(a))
        if trick_arrays.event_seat(a, i) == seat
        and trick_arrays.is_action(a, i)
        and trick_arrays.discarded_card(trick_arrays.event_value(a, i)) >= 0
    }


# ------------------------------------------------------------------------------------------------
# Entry points
# ------------------------------------------------------------------------------------------------
def state_svg(
    state: Any,
    seat: int | None = None,
    names: Sequence[str] | None = None,
    highlight: Collection[str] = (),
    symbols: bool = False,
) -> str:
    """The SVG of ``state``: an OpenSpiel state of ``zwicker``, ``zwikken`` or ``zwicken``, or an
    engine :class:`~zwick_ai.zwicker.ZwickerState` / :class:`~zwick_ai.tricks.TrickState`.
    ``seat``: that seat's view (None: every hand open); ``names[p]`` labels seat p;
    ``highlight`` (Zwicker): card names to outline, e.g. the cards of the last capture;
    ``symbols``: each card a ``<use>`` of the symbols :func:`symbol_defs` draws once (for a page
    that holds them; a standalone SVG draws its cards inline)."""
    if hasattr(state, "engine_state"):
        if not state.dealt():
            raise ValueError("the cards are still being dealt: no picture before the deal is done")
        state = state.engine_state()
    elif hasattr(state, "trick_state"):
        state = state.trick_state()
    if not isinstance(state, zwicker.ZwickerState | tricks.TrickState):
        raise ValueError(f"no picture for a {type(state).__name__}: give a zwicker, zwikken or zwicken state")
    players = state.rules.players
    if seat is not None and not 0 <= seat < players:
        raise ValueError(f"seat must be in 0..{players - 1}, not {seat}")
    if names is not None and len(names) != players:
        raise ValueError(f"give {players} names, one per seat, not {len(names)}")
    if isinstance(state, zwicker.ZwickerState):
        return zwicker_svg(state, seat, names, highlight, symbols)
    return tricks_svg(state, seat, names, symbols)


def save_svg(state: Any, path: str | Path, seat: int | None = None, names: Sequence[str] | None = None) -> Path:
    """Write :func:`state_svg` of ``state`` to ``path``; returns the path."""
    out = Path(path)
    out.write_text(state_svg(state, seat, names), encoding="utf-8")
    return out
