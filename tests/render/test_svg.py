"""SVG pictures of positions (zwick_ai.render): the cards drawn are exactly the position's cards,
read back from the SVG, in every view, for Zwicker variants and both trick games at every stage of
played games."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import Counter

import numpy as np
import pyspiel
import pytest

import zwick_ai.agents  # noqa: F401  (registers the agents)
import zwick_ai.games  # noqa: F401  (registers the games)
from zwick_ai import cards as C
from zwick_ai import tricks as T
from zwick_ai import zwicker
from zwick_ai.agents import make_agent
from zwick_ai.eval.match import deal, play_game
from zwick_ai.eval.records import replay
from zwick_ai.render import save_svg, state_svg
from zwick_ai.tricks import layout as TL

SVG_NS = "{http://www.w3.org/2000/svg}"

GAMES = [
    "zwicker(variant=dithmarschen,players=4)",
    "zwicker(variant=classic,players=2)",
    "zwicker(variant=grupp,players=3)",
    "zwicker(variant=grossenwiehe,players=6)",
    "zwicker(variant=christiansen,players=3)",
    "zwikken(variant=parlett,players=3)",
    "zwikken(variant=modern,players=4)",
    "zwikken(variant=historic,players=3)",
    "zwicken(players=4)",
]


def drawn(svg: str) -> tuple[dict[str, Counter[str]], Counter[str], dict[str, int]]:
    """Face-up cards per zone, face-down cards per zone, and the piles' counts, parsed back."""
    root = ET.fromstring(svg)
    up: dict[str, Counter[str]] = {}
    down: Counter[str] = Counter()
    piles: dict[str, int] = {}
    for g in root.iter(f"{SVG_NS}g"):
        zone = g.get("data-zone", "")
        cls = g.get("class", "").split()
        if "pile" in cls:
            piles[zone] = int(g.get("data-count", "-1"))
        elif "card" in cls:
            if "back" in cls:
                assert g.get("data-card") is None  # a face-down card gives nothing away
                down[zone] += 1
            else:
                up.setdefault(zone, Counter())[g.get("data-card", "")] += 1
    return up, down, piles


def expected_zwicker(state: pyspiel.State, seat: int | None) -> tuple[dict[str, Counter[str]], Counter[str], int]:
    es = state.engine_state()
    r = es.rules
    up: dict[str, Counter[str]] = {}
    down: Counter[str] = Counter()
    for p in range(r.players):
        cards = zwicker.hand(es, p)
        if seat is None or seat == p:
            if cards:
                up[f"hand-{p}"] = Counter(cards)
        elif cards:
            down[f"hand-{p}"] = len(cards)
    table = Counter(C.format_card(c) for u in zwicker.snapshot(es).table for c in u.cards)
    if table:
        up["table"] = table
    for s, w in enumerate(zwicker.won(es)):
        if w:
            up[f"won-{s}"] = Counter(w)
    return up, down, len(zwicker.stock(es))


def expected_tricks(state: pyspiel.State, seat: int | None) -> tuple[dict[str, Counter[str]], Counter[str], int]:
    ts = state.trick_state()
    a = ts.arr
    up: dict[str, Counter[str]] = {}
    down: Counter[str] = Counter()
    for p in range(ts.rules.players):
        cards = T.hand(ts, p)
        if seat is None or seat == p:
            if cards:
                up[f"hand-{p}"] = Counter(cards)
        elif cards:
            down[f"hand-{p}"] = len(cards)
    loc = a[TL.S_LOC : TL.S_LOC + TL.NC]
    ups = [C.format_card(int(c)) for c in range(TL.NC) if loc[c] == TL.L_UP]
    if ups:
        up["upcard"] = Counter(ups)
    if a[TL.S_BOTTOM] >= 0 and loc[a[TL.S_BOTTOM]] == TL.L_BOTTOM:
        up["bottom"] = Counter([C.format_card(int(a[TL.S_BOTTOM]))])
    for k in range(3):
        for p in range(ts.rules.players):
            v = int(a[TL.S_TL + k * TL.NP + p])
            if v < 0:
                continue
            hidden = v >= 64 and seat is not None and seat != p
            if hidden:
                down[f"trick-{k}"] += 1
            else:
                up.setdefault(f"trick-{k}", Counter())[C.format_card(v % 64)] += 1
    discards = [c for c in range(TL.NC) if loc[c] == TL.L_DISC]
    own = {v - TL.A_DISCARD for kind, who, v in T.history(ts) if kind == TL.H_HIDDEN and who == seat and v < TL.A_PASS}
    shown = [C.format_card(c) for c in discards if seat is None or c in own]
    if shown:
        up["discards"] = Counter(shown)
    if len(discards) > len(shown):
        down["discards"] = len(discards) - len(shown)
    return up, down, int((loc == TL.L_STOCK).sum())


def _positions(game_string: str, seed: int) -> list[pyspiel.State]:
    game = pyspiel.load_game(game_string)
    agents = [make_agent("greedy" if p % 2 else "random", game, seed=p) for p in range(game.num_players())]
    rec = play_game(game, agents, deal_seed=seed)
    return [s.state for s in replay(rec)]


@pytest.mark.parametrize("game_string", GAMES)
def test_svg_lists_exactly_the_cards_of_each_position(game_string: str) -> None:
    for seed in (1,):
        states = _positions(game_string, seed)
        n = states[0].get_game().num_players()
        for state in states:
            for seat in (None, *range(n)):
                svg = state_svg(state, seat=seat)
                up, down, piles = drawn(svg)
                expect = expected_zwicker if hasattr(state, "engine_state") else expected_tricks
                want_up, want_down, stock = expect(state, seat)
                assert up == want_up, (game_string, seed, seat)
                assert down == want_down + Counter({"stock-pile": 1} if stock else {}), (game_string, seat)
                assert piles["stock"] == stock


def test_whole_view_shows_every_card_outside_the_stock() -> None:
    """From above, the face-up cards and the stock are the whole deck, each card once."""
    game = pyspiel.load_game("zwicker(variant=grossenwiehe,players=4)")
    for state in _positions(str(game), 5)[::7]:
        up, _, piles = drawn(state_svg(state))
        shown = sum((c for c in up.values()), Counter())
        deck = Counter(C.format_card(c) for c in game.rules.deck)
        stock = Counter(zwicker.stock(state.engine_state()))
        assert shown + stock == deck and piles["stock"] == sum(stock.values())


def test_builds_jokers_and_owner_are_drawn() -> None:
    r = zwicker.rules("dithmarschen", players=4)
    es = zwicker.position(
        r,
        hands=[["JS", "6D"], ["X25"], ["3C"], ["4C"]],
        table=["9C", "X15", {"cards": ["7H", "4D"], "value": 11, "owner": 1}],
        to_move=0,
        seed=0,
    )
    svg = state_svg(es, names=["a", "b", "c", "d"])
    up, _, _ = drawn(svg)
    assert up["table"] == Counter(["9C", "X15", "7H", "4D"])
    assert "build 11 by 1" in svg and 'data-card="X25"' in svg and "seat 1 · b" in svg
    root = ET.fromstring(svg)
    joker = next(g for g in root.iter(f"{SVG_NS}g") if g.get("data-card") == "X15")
    assert "joker" in joker.get("class", "") and "15" in "".join(joker.itertext())
    in_build = [g.get("data-card", "") for g in root.iter(f"{SVG_NS}g") if g.get("data-unit") == "2"]
    assert sorted(in_build) == ["4D", "7H"]


def test_suit_colours_differ() -> None:
    r = zwicker.rules("classic", players=2)
    es = zwicker.position(r, hands=[["2C", "2D"], ["2H", "2S"]], table=["3C"], to_move=0, seed=0)
    root = ET.fromstring(state_svg(es))
    colours = {}
    for g in root.iter(f"{SVG_NS}g"):
        if g.get("data-card") in ("2C", "2D", "2H", "2S"):
            colours[g.get("data-card")] = {t.get("fill") for t in g.iter(f"{SVG_NS}text")}
    assert len({frozenset(v) for v in colours.values()}) == 4


def test_trick_svg_shows_pot_and_bids() -> None:
    r = T.rules("zwikken", variant="modern", players=3)
    s = T.scripted(r, [["AH", "KH", "TS"], ["QS", "JS", "AC"], ["KC", "QC", "JC"]], upcard="KS")
    s = T.apply(s, "ik vraag")
    svg = state_svg(s)
    assert f'data-pot="{T.pot(s)}"' in svg and "ik vraag" in svg and "upcard" in svg


def test_save_svg_and_bad_input(tmp_path) -> None:
    game = pyspiel.load_game("zwicken(players=3)")
    state = deal(game, 3)
    path = save_svg(state, tmp_path / "s.svg", seat=2)
    assert ET.parse(path).getroot().tag == f"{SVG_NS}svg"
    with pytest.raises(ValueError, match="seat must be in 0..2"):
        state_svg(state, seat=3)
    with pytest.raises(ValueError, match="no picture"):
        state_svg(np.zeros(3))
