"""Readable Zwicker positions for tests.

>>> from zwick_ai.zwicker.rules import rules
>>> snap = make_snapshot(rules("classic", 2), hands=[["QH"], ["2C"]], table=["QC", "QD"])
>>> snap.hands, [u.cards for u in snap.table], snap.dealer
(((36,), (0,)), [(10,), (23,)], 1)
"""

from __future__ import annotations

from collections.abc import Sequence

from zwick_ai.cards import parse_cards
from zwick_ai.zwicker.layout import PHASE_NORMAL
from zwick_ai.zwicker.rules import Rules
from zwick_ai.zwicker.snapshot import Snapshot, Unit

TableEntry = str | int | dict


def make_snapshot(
    rules: Rules,
    hands: Sequence[Sequence[str | int]],
    table: Sequence[TableEntry],
    stock: Sequence[str | int] = (),
    won: Sequence[Sequence[str | int]] | None = None,
    zwicks: Sequence[int] | None = None,
    to_move: int = 0,
    dealer: int | None = None,
    stage: int = 0,
    last_capturer: int = -1,
    phase: int = PHASE_NORMAL,
    az_left: int = 0,
    asked: tuple[int, int, int] = (-1, -1, -1),
) -> Snapshot:
    """A :class:`Snapshot` from card names.

    ``hands``: one list of card names per seat. ``table``: in table order, each a card name (a
    loose card) or ``{"cards": [...], "value": v, "owner": o}`` (a build; ``owner`` defaults to
    -1 as in classic/grupp). ``stock``: next card to be dealt first. ``won``: one list per side.
    Names are parsed with one shared set of placed cards, in the order hands, table, stock, won,
    so a repeated name is the next copy (second pack, further wild joker). ``dealer`` defaults to
    the last seat, so that seat 0 is forehand.
    """
    if len(hands) != rules.players:
        raise ValueError(f"need {rules.players} hands, got {len(hands)}")
    taken: set[int] = set()

    def parse(names: Sequence[str | int]) -> list[int]:
        return parse_cards(list(names), two_packs=rules.two_packs, taken=taken)

    hand_ids = tuple(tuple(sorted(parse(h))) for h in hands)
    units = []
    for entry in table:
        if isinstance(entry, dict):
            cards = tuple(sorted(parse(entry["cards"])))
            owner = int(entry.get("owner", -1))
            units.append(Unit(cards=cards, value=int(entry["value"]), owner=owner, build=True))
        else:
            (card,) = parse([entry])
            units.append(Unit(cards=(card,), value=0, owner=-1, build=False))
    stock_ids = tuple(parse(stock))
    if won is None:
        won = [[] for _ in rules.sides]
    if len(won) != rules.num_sides:
        raise ValueError(f"need {rules.num_sides} won piles, got {len(won)}")
    won_ids = tuple(tuple(sorted(parse(w))) for w in won)
    return Snapshot(
        hands=hand_ids,
        table=tuple(units),
        stock=stock_ids,
        won=won_ids,
        zwicks=tuple(zwicks) if zwicks is not None else (0,) * rules.num_sides,
        dealer=rules.players - 1 if dealer is None else dealer,
        to_move=to_move,
        stage=stage,
        last_capturer=last_capturer,
        phase=phase,
        az_left=az_left,
        asked=tuple(asked),
    )
