"""Zwicker rule sets: the variants of docs/rules.md Part A as data, their options, and validation.

:func:`rules` is the one way to make a :class:`Rules`; it checks every name and value and raises
``ValueError`` saying what is valid. A :class:`Rules` is immutable and hashable; the numba kernels
read it through :meth:`Rules.array` (a flat int32 array, layout in :mod:`zwick_ai.zwicker.layout`).

>>> r = rules("dithmarschen")
>>> r.players, r.sides, len(r.deck), r.card_total
(4, ((0, 2), (1, 3)), 55, 30)
>>> rules("classic", players=2, ranks="A2345", suits="CD", hand_size=2, table_size=2, stages=1).deck_size
10
>>> rules("dithmarschen", colour="red")
Traceback (most recent call last):
...
ValueError: unknown option 'colour' for zwicker; valid options: ...
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from functools import cached_property
from typing import NoReturn

import numpy as np

from zwick_ai import cards as zwick_cards
from zwick_ai.options import parse_bool, parse_int
from zwick_ai.zwicker import layout

VARIANTS = ("classic", "grupp", "dithmarschen", "grossenwiehe", "christiansen")

JOKER_CAPTURE = ("any", "joker_only", "lone_joker_only", "never")
AFTER_ZWICK = ("next_trails", "zwicker_trails", "all_trail")
FIRST_DEALER = ("random", "low_cut", "high_cut")
SUBTRACT = ("old_minus_played", "either")
CAPTURE_VALUES = ("one", "several")

# Card points per variant, by notation; "A*" = every Ace, "Xn" = valued joker n.
_POINTS = {
    "classic": {"TD": 10, "A*": 2, "7D": 1, "7S": 1},
    "grupp": {"TD": 10, "A*": 2, "7D": 1, "7S": 1},
    "dithmarschen": {"X25": 7, "X20": 6, "X15": 5, "TD": 3, "TS": 1, "2S": 1, "A*": 1},
    "grossenwiehe": {
        "X30": 20,
        "X25": 15,
        "X22": 12,
        "X20": 10,
        "X17": 7,
        "X15": 5,
        "TD": 3,
        "TC": 1,
        "TH": 1,
        "TS": 1,
        "2S": 1,
        "A*": 1,
    },  # fmt: skip
    "christiansen": {"X30": 7, "X25": 6, "X20": 5, "X15": 4, "TD": 3, "TS": 1, "2S": 1, "A*": 1},
}
_MOST_CARDS = {"classic": 1, "grupp": 1, "dithmarschen": 3, "grossenwiehe": 3, "christiansen": 3}
_ZWICK_POINTS = {"classic": 3, "grupp": 3, "dithmarschen": 1, "grossenwiehe": 1, "christiansen": 1}
_DEFAULT_JOKERS = {
    "classic": (),
    "grupp": (),
    "dithmarschen": (15, 20, 25),
    "grossenwiehe": (15, 17, 20, 22, 25, 30),
    "christiansen": (15, 20, 25, 30),
}
# Variant -> (the valid numbers of players, the default) (docs/rules.md A.2).
PLAYER_COUNTS: dict[str, tuple[tuple[int, ...], int]] = {
    "classic": (tuple(range(2, 13)), 4),
    "grupp": (tuple(range(2, 9)), 4),
    "dithmarschen": ((2, 3, 4), 4),
    "grossenwiehe": ((2, 3, 4, 6), 4),
    "christiansen": ((2, 3, 4), 3),
}

# Option name -> (default, valid values or type). Variant-specific applicability is checked below.
OPTIONS: dict[str, tuple[object, object]] = {
    "forced_capture": (None, bool),  # None = variant default (classic/grupp True, others False)
    "joker_capture": ("any", JOKER_CAPTURE),
    "joker_sweep_is_zwick": (True, bool),
    "joker_sum_capture": (True, bool),
    "magger": (True, bool),
    "team_size": (3, (2, 3)),
    "after_zwick": ("next_trails", AFTER_ZWICK),
    "dietze_loose_builds": (False, bool),
    "dietze_min_table": (0, (0, 4)),
    "first_dealer": ("random", FIRST_DEALER),
    "subtract": ("old_minus_played", SUBTRACT),
    "capture_values": ("one", CAPTURE_VALUES),
    "wild_jokers": (None, int),  # grupp: number of wild jokers (default 6)
    "jokers": (None, tuple),  # valued jokers present, e.g. (15, 25); default per variant
    "ranks": (zwick_cards.RANKS, str),
    "suits": (zwick_cards.SUITS, str),
    "hand_size": (None, int),  # custom (micro) deal: cards per player per stage
    "table_size": (None, int),  # custom deal: cards to the table at the start
    "stages": (None, int),  # at most this many stages are dealt (the rest of the stock is unused)
}


@dataclass(frozen=True)
class DealPlan:
    """How cards are dealt. Offsets in ``first`` are steps: ("hands", n, packet) or ("table", n, 0).

    Later stages deal ``stage_hand`` each in packets of ``stage_packet``. When the stock holds
    exactly ``players * final_hand`` cards, the stage deals ``final_hand`` each (Dithmarschen's 5).
    When it holds fewer than a full stage, the cards go one at a time from forehand as far as they
    go (the Grupp last-deal rule).
    """

    first: tuple[tuple[str, int, int], ...]
    stage_hand: int
    stage_packet: int = 1
    final_hand: int = 0
    max_stages: int = 99


@dataclass(frozen=True)
class Rules:
    """A fully specified Zwicker rule set. Make one with :func:`rules`."""

    variant: str
    players: int
    sides: tuple[tuple[int, ...], ...]
    deck: tuple[int, ...]
    dual: bool
    wild: bool
    owner_builds: bool  # Dithmarschen-style builds (owner, holding, subtraction) vs classic adds
    partner_builds: bool
    magger: bool
    forced_capture: bool
    joker_capture: str
    joker_sweep_is_zwick: bool
    joker_sum_capture: bool
    after_zwick: str
    dietze_loose_builds: bool
    dietze_min_table: int
    first_dealer: str
    subtract: str
    capture_values: str
    max_build: int
    zwick_points: int
    most_cards_points: int
    points: tuple[tuple[int, int], ...]  # (card id, points) for every scoring card in the deck
    plan: DealPlan
    options: tuple[tuple[str, object], ...] = field(default=())  # as given, for display/params

    # ----- derived facts -------------------------------------------------------------------------
    @property
    def num_sides(self) -> int:
        return len(self.sides)

    @property
    def deck_size(self) -> int:
        return len(self.deck)

    @property
    def two_packs(self) -> bool:
        return any(zwick_cards.SECOND_PACK <= c < zwick_cards.VALUED_JOKER_BASE for c in self.deck)

    def side_of(self, player: int) -> int:
        for s, members in enumerate(self.sides):
            if player in members:
                return s
        raise ValueError(f"player {player} is not in 0..{self.players - 1}")

    def partners(self, player: int) -> tuple[int, ...]:
        return tuple(p for p in self.sides[self.side_of(player)] if p != player)

    def card_points(self, card: int) -> int:
        return dict(self.points).get(card, 0)

    def card_values(self, card: int) -> tuple[int, ...]:
        """Matching values of a card (empty for a wild joker, which takes any value 2..14)."""
        if zwick_cards.is_wild_joker(card):
            return ()
        if zwick_cards.is_valued_joker(card):
            return (zwick_cards.JOKER_VALUES[card - zwick_cards.VALUED_JOKER_BASE],)
        rank = zwick_cards.RANKS[zwick_cards.rank_of(card)]
        if rank in "AJQK":
            high = {"A": 11, "J": 12, "Q": 13, "K": 14}[rank]
            return (high - 10, high) if self.dual else (high,)
        return (zwick_cards.rank_of(card) + 2,)

    @property
    def card_total(self) -> int:
        """Points for cards and most-cards (Zwicks come on top)."""
        return sum(p for _, p in self.points) + self.most_cards_points

    def describe(self) -> str:
        opts = ", ".join(f"{k}={v}" for k, v in self.options)
        return f"zwicker {self.variant} ({self.players} players{', ' + opts if opts else ''})"

    @cached_property
    def _array(self) -> np.ndarray:
        return rules_array(self)

    def array(self) -> np.ndarray:
        """The flat int32 encoding the kernels read (cached; do not modify)."""
        return self._array

    def __getstate__(self):  # the cached array is rebuilt on demand
        state = self.__dict__.copy()
        state.pop("_array", None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)


def _fail(message: str) -> NoReturn:
    raise ValueError(message)


def parse_jokers(value: object) -> tuple[int, ...]:
    """The valued jokers of a ``jokers`` option, sorted: joker values as a sequence, one value, or
    text (``15_25``, ``15+25``, ``x15``, ``X15 X25``, ``none``). Raises ``ValueError`` naming the
    valid values.

    >>> parse_jokers("15+25"), parse_jokers("x15"), parse_jokers(20), parse_jokers("none")
    ((15, 25), (15,), (20,), ())
    """
    valid = ", ".join(map(str, zwick_cards.JOKER_VALUES))
    if isinstance(value, str):
        text = value.strip().lower()
        if text in ("", "none"):
            return ()
        words = text.replace("+", " ").replace("/", " ").replace("_", " ").replace("x", " ").split()
        if not all(w.isdigit() for w in words):
            raise ValueError(
                f"invalid jokers={value!r}; write joker values joined by _ or +, e.g. 15_25, or none; valid values: {valid}"
            )
        values: tuple[int, ...] = tuple(int(w) for w in words)
    elif isinstance(value, int | np.integer) and not isinstance(value, bool):
        values = (int(value),)
    else:
        try:
            values = tuple(int(v) for v in value)  # type: ignore[attr-defined]
        except (TypeError, ValueError):
            raise ValueError(
                f"invalid jokers={value!r}; give joker values, e.g. (15, 25); valid values: {valid}"
            ) from None
    for v in values:
        if v not in zwick_cards.JOKER_VALUES:
            raise ValueError(f"invalid joker value {v!r}; valid: {valid}")
    if len(set(values)) != len(values):
        raise ValueError(f"jokers={value!r} repeats a joker")
    return tuple(sorted(values))


def format_jokers(values: tuple[int, ...]) -> str:
    """The ``jokers`` text of a game string: ``15_25``, ``x15`` for one joker (a bare number would
    be read back as a number), ``none``. :func:`parse_jokers` reads it back.

    >>> format_jokers((15, 25)), format_jokers((15,)), format_jokers(())
    ('15_25', 'x15', 'none')
    """
    if not values:
        return "none"
    return f"x{values[0]}" if len(values) == 1 else "_".join(map(str, values))


def _check_option(name: str, value: object) -> object:
    default, valid = OPTIONS[name]
    if isinstance(valid, tuple):
        if isinstance(value, str) and all(isinstance(v, int) for v in valid) and value.strip().isdigit():
            value = int(value)
        if value not in valid:
            _fail(f"invalid {name}={value!r}; valid values: {', '.join(map(str, valid))}")
        return value
    if valid is bool:
        return parse_bool(name, value)
    if valid is int:
        return parse_int(name, value)
    if valid is tuple:
        return parse_jokers(value)
    if valid is str:
        if not isinstance(value, str):
            _fail(f"invalid {name}={value!r}; expected letters")
        return value.upper()
    return value


def _sides(variant: str, players: int, team_size: int) -> tuple[tuple[int, ...], ...]:
    if variant == "dithmarschen" and players == 4 or variant == "grossenwiehe" and players == 4:
        return ((0, 2), (1, 3))
    if variant == "grossenwiehe" and players == 6:
        return ((0, 2, 4), (1, 3, 5)) if team_size == 3 else ((0, 3), (1, 4), (2, 5))
    return tuple((p,) for p in range(players))


def _plan(variant: str, players: int, deck_size: int) -> DealPlan:
    if variant in ("classic", "grupp"):
        table = 8 if variant == "classic" and players in (6, 8, 12) else 4
        return DealPlan(first=(("hands", 4, 1), ("table", table, 0)), stage_hand=4)
    if variant == "dithmarschen":
        if players == 4:
            return DealPlan(first=(("hands", 4, 1), ("table", 3, 0)), stage_hand=4, final_hand=5)
        if players == 2:
            return DealPlan(first=(("hands", 4, 1), ("table", 3, 0)), stage_hand=4, final_hand=6)
        return DealPlan(first=(("table", 7, 0), ("hands", 4, 1)), stage_hand=4)
    if variant == "grossenwiehe":
        steps = (("hands", 2, 2), ("table", 5, 0), ("hands", 2, 2), ("table", 5, 0))
        return DealPlan(first=steps, stage_hand=4, stage_packet=2)
    # christiansen
    hand = 6 if players == 4 else 8
    return DealPlan(first=(("hands", hand, 1), ("table", 8, 0)), stage_hand=hand)


def rules_array(rules: Rules) -> np.ndarray:
    """Encode a :class:`Rules` for the kernels."""
    a = np.zeros(layout.RULES_SIZE, dtype=np.int32)
    a[layout.R_PLAYERS] = rules.players
    a[layout.R_NSIDES] = rules.num_sides
    a[layout.R_DUAL] = rules.dual
    a[layout.R_WILD] = rules.wild
    a[layout.R_OWNER_BUILDS] = rules.owner_builds
    a[layout.R_PARTNER_BUILDS] = rules.partner_builds
    a[layout.R_MAGGER] = rules.magger
    a[layout.R_FORCED] = rules.forced_capture
    a[layout.R_JOKER_CAPTURE] = JOKER_CAPTURE.index(rules.joker_capture)
    a[layout.R_JOKER_SWEEP_ZWICK] = rules.joker_sweep_is_zwick
    a[layout.R_JOKER_SUM] = rules.joker_sum_capture
    a[layout.R_AFTER_ZWICK] = AFTER_ZWICK.index(rules.after_zwick)
    a[layout.R_DIETZE_LOOSE] = rules.dietze_loose_builds
    a[layout.R_DIETZE_MIN] = rules.dietze_min_table
    a[layout.R_FIRST_DEALER] = FIRST_DEALER.index(rules.first_dealer)
    a[layout.R_SUBTRACT_EITHER] = rules.subtract == "either"
    a[layout.R_CAPTURE_SEVERAL] = rules.capture_values == "several"
    a[layout.R_MAX_BUILD] = rules.max_build
    a[layout.R_ZWICK_POINTS] = rules.zwick_points
    a[layout.R_MOST_CARDS] = rules.most_cards_points
    a[layout.R_DECK_SIZE] = rules.deck_size
    plan = rules.plan
    a[layout.R_STAGE_HAND] = plan.stage_hand
    a[layout.R_STAGE_PACKET] = plan.stage_packet
    a[layout.R_FINAL_HAND] = plan.final_hand
    a[layout.R_MAX_STAGES] = plan.max_stages
    a[layout.R_FIRST_NSTEPS] = len(plan.first)
    for i, (kind, count, packet) in enumerate(plan.first):
        a[layout.R_FIRST_STEPS + 3 * i : layout.R_FIRST_STEPS + 3 * i + 3] = (
            0 if kind == "hands" else 1,
            count,
            packet,
        )
    for seat in range(rules.players):
        a[layout.R_SIDE_OF + seat] = rules.side_of(seat)
    a[layout.R_DECK : layout.R_DECK + rules.deck_size] = rules.deck
    points = dict(rules.points)
    for c in range(layout.NC):
        values = rules.card_values(c)
        a[layout.R_VAL1 + c] = values[0] if values else 0
        a[layout.R_VAL2 + c] = values[1] if len(values) > 1 else 0
        a[layout.R_POINTS + c] = points.get(c, 0)
        a[layout.R_IS_WILD + c] = zwick_cards.is_wild_joker(c)
        a[layout.R_IS_VJOKER + c] = zwick_cards.is_valued_joker(c)
        if zwick_cards.is_wild_joker(c):
            a[layout.R_CANON + c] = zwick_cards.WILD_JOKER_BASE
            a[layout.R_CUT_RANK + c] = 100
        elif zwick_cards.is_valued_joker(c):
            a[layout.R_CANON + c] = c
            a[layout.R_CUT_RANK + c] = 50 + zwick_cards.JOKER_VALUES[c - zwick_cards.VALUED_JOKER_BASE]
        else:
            a[layout.R_CANON + c] = c % zwick_cards.PACK_SIZE
            a[layout.R_CUT_RANK + c] = zwick_cards.rank_of(c)
    return a


JOKER_VARIANTS = ("dithmarschen", "grossenwiehe", "christiansen")  # the valued-joker variants


def check_hand_limit(r: Rules) -> None:
    """``ValueError`` when a hand of ``r``'s deal plan holds more cards than the engine's arrays do."""
    if (
        any(n > layout.MAX_HAND for kind, n, _ in r.plan.first if kind == "hands")
        or r.plan.stage_hand > layout.MAX_HAND
    ):
        raise ValueError(f"hand_size must be at most {layout.MAX_HAND}")


def _refuse_inapplicable(variant: str, players: int, teams: bool, given: dict[str, object]) -> None:
    """Options that only make sense in some variants: refuse rather than silently ignore."""

    def only(name: str, allowed: bool, where: str) -> None:
        if name in given and given[name] != OPTIONS[name][0] and not allowed:
            _fail(f"option {name} applies only to {where}, not to {variant}")

    is_joker_variant = variant in JOKER_VARIANTS
    only("joker_capture", variant == "grupp", "grupp")
    only("joker_sweep_is_zwick", variant == "grupp", "grupp")
    only("wild_jokers", variant == "grupp", "grupp")
    only("magger", variant == "grossenwiehe" and teams, "grossenwiehe with teams")
    only("team_size", variant == "grossenwiehe" and players == 6, "grossenwiehe with 6 players")
    only("subtract", is_joker_variant, "dithmarschen, grossenwiehe and christiansen")
    only("joker_sum_capture", is_joker_variant, "the valued-joker variants")
    only("jokers", is_joker_variant, "the valued-joker variants")


def _deck(variant: str, players: int, opt: dict[str, object]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(the deck's card ids sorted, the valued jokers' values) of a variant and its options."""
    ranks, suits = str(opt["ranks"]), str(opt["suits"])
    if len(set(ranks)) != len(ranks) or len(set(suits)) != len(suits) or not ranks or not suits:
        _fail(f"ranks={ranks!r} and suits={suits!r} must be non-empty without repeats")
    packs = 2 if variant == "classic" and players > 4 else 1
    deck = []
    for pack in range(packs):
        deck += zwick_cards.standard_pack(ranks, suits, pack)
    joker_values: tuple[int, ...] = ()
    if variant in JOKER_VARIANTS:
        joker_values = opt["jokers"] if opt["jokers"] is not None else _DEFAULT_JOKERS[variant]  # type: ignore[assignment]
        deck += [zwick_cards.joker_id(v) for v in joker_values]
    if variant == "grupp":
        n_wild = 6 if opt["wild_jokers"] is None else int(opt["wild_jokers"])  # type: ignore[call-overload]
        if not 0 <= n_wild <= zwick_cards.NUM_WILD_JOKERS:
            _fail(f"wild_jokers={n_wild} must be between 0 and {zwick_cards.NUM_WILD_JOKERS}")
        deck += list(range(zwick_cards.WILD_JOKER_BASE, zwick_cards.WILD_JOKER_BASE + n_wild))
    return tuple(sorted(deck)), joker_values


def _deal_plan(variant: str, players: int, deck: tuple[int, ...], given: dict[str, object]) -> DealPlan:
    """The variant's deal plan, or the custom one of ``hand_size``/``table_size``/``stages``."""
    custom = any(given.get(k) is not None for k in ("hand_size", "table_size"))
    plan = _plan(variant, players, len(deck))
    if custom:
        hand = given.get("hand_size") or plan.stage_hand
        table = given.get("table_size")
        table = 4 if table is None else table
        if hand < 1 or table < 0:  # type: ignore[operator]
            _fail("hand_size must be at least 1 and table_size at least 0")
        plan = DealPlan(first=(("hands", hand, 1), ("table", table, 0)), stage_hand=hand)  # type: ignore[arg-type]
    if given.get("stages") is not None:
        if given["stages"] < 1:  # type: ignore[operator]
            _fail("stages must be at least 1")
        plan = dataclasses.replace(plan, max_stages=given["stages"])  # type: ignore[arg-type]
    first_cards = sum(n * (players if kind == "hands" else 1) for kind, n, _ in plan.first)
    if first_cards > len(deck):
        _fail(f"the first deal needs {first_cards} cards but the deck has only {len(deck)}")
    return plan


def _card_points(variant: str, deck: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    """(card id, points) of the cards of ``deck`` that score in the variant."""
    table_points = _POINTS[variant]
    points = []
    for c in deck:
        name = zwick_cards.format_card(c)
        p = table_points.get(name, 0) + (table_points.get("A*", 0) if name.startswith("A") else 0)
        if p:
            points.append((c, p))
    return tuple(points)


def rules(variant: str = "dithmarschen", players: int | None = None, **options: object) -> Rules:
    """Build and validate a rule set.

    ``variant`` is one of :data:`VARIANTS`; ``players`` defaults per variant (docs/rules.md A.2).
    Options (see ``OPTIONS`` and ``zwick variants``): ``forced_capture``, ``joker_capture``,
    ``joker_sweep_is_zwick``, ``joker_sum_capture``, ``magger``, ``team_size``, ``after_zwick``,
    ``dietze_loose_builds``, ``dietze_min_table``, ``first_dealer``, ``subtract``,
    ``capture_values``, ``wild_jokers``, and for small custom games ``jokers``, ``ranks``,
    ``suits``, ``hand_size``, ``table_size``, ``stages``.
    """
    if variant not in VARIANTS:
        _fail(f"unknown zwicker variant {variant!r}; valid variants: {', '.join(VARIANTS)}")
    valid_players, default_players = PLAYER_COUNTS[variant]
    if players is None:
        players = default_players
    if isinstance(players, bool) or not isinstance(players, int) or players not in valid_players:
        _fail(f"{variant} is played by {', '.join(map(str, valid_players))} players, not {players!r}")
    for name in options:
        if name not in OPTIONS:
            _fail(f"unknown option {name!r} for zwicker; valid options: {', '.join(OPTIONS)}")
    given = {k: _check_option(k, v) for k, v in options.items()}
    opt = {k: given.get(k, d) for k, (d, _) in OPTIONS.items()}

    is_joker_variant = variant in JOKER_VARIANTS
    sides = _sides(variant, players, opt["team_size"])  # type: ignore[arg-type]
    teams = any(len(s) > 1 for s in sides)
    _refuse_inapplicable(variant, players, teams, given)
    deck, joker_values = _deck(variant, players, opt)
    plan = _deal_plan(variant, players, deck, given)
    points = _card_points(variant, deck)
    forced = opt["forced_capture"]
    if forced is None:
        forced = variant in ("classic", "grupp")
    if opt["dietze_min_table"] not in (0, 4):
        _fail("dietze_min_table must be 0 (off) or 4")

    return Rules(
        variant=variant,
        players=players,
        sides=sides,
        deck=deck,
        dual=is_joker_variant,
        wild=variant == "grupp",
        owner_builds=is_joker_variant,
        partner_builds=is_joker_variant and teams,
        magger=bool(opt["magger"]) and variant == "grossenwiehe" and teams,
        forced_capture=bool(forced),
        joker_capture=str(opt["joker_capture"]),
        joker_sweep_is_zwick=bool(opt["joker_sweep_is_zwick"]),
        joker_sum_capture=bool(opt["joker_sum_capture"]),
        after_zwick=str(opt["after_zwick"]),
        dietze_loose_builds=bool(opt["dietze_loose_builds"]),
        dietze_min_table=int(opt["dietze_min_table"]),
        first_dealer=str(opt["first_dealer"]),
        subtract=str(opt["subtract"]),
        capture_values=str(opt["capture_values"]),
        max_build=max((14, *joker_values)) if is_joker_variant else 14,
        zwick_points=_ZWICK_POINTS[variant],
        most_cards_points=_MOST_CARDS[variant],
        points=points,
        plan=plan,
        options=tuple(sorted(given.items())),
    )
