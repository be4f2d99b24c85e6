"""Rule sets of the trick-and-pot games (docs/rules.md Parts B and C) as data.

One engine plays every rule set; a rule set is a row of integers (the ``cfg`` array the kernels
read, layout in :mod:`zwick_ai.tricks.layout`). :func:`rules` validates a game, variant and options
and returns a frozen :class:`TrickRules` holding that array.

>>> r = rules("zwikken", variant="parlett")
>>> r.players, r.pot, len(r.deck), r.tricks
(3, 3, 20, 3)
>>> rules("zwicken", ranks="AKQ", suits="CDH", players=2).deck_string()
'QC KC AC QD KD AD QH KH AH'
>>> rules("zwikken", variant="oldest")
Traceback (most recent call last):
...
ValueError: unknown zwikken variant 'oldest'; valid variants: historic, parlett, modern
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from zwick_ai import cards as zwick_cards
from zwick_ai.options import format_value, parse_bool, parse_int
from zwick_ai.tricks import layout as tricks_layout

GAMES = ("zwikken", "zwicken")
VARIANTS = {"zwikken": ("historic", "parlett", "modern"), "zwicken": ("standard",)}

# Players allowed and default per rule set (docs/rules.md B.1, B.2, C).
PLAYERS = {
    ("zwikken", "historic"): (3, 6, 4),
    ("zwikken", "parlett"): (3, 5, 3),
    ("zwikken", "modern"): (3, 5, 3),
    ("zwicken", "standard"): (2, 5, 4),
}
# The rule set's own pack (ranks, suits).
PACKS = {
    ("zwikken", "historic"): ("23456789TJQKA", "CDHS"),
    ("zwikken", "parlett"): ("TJQKA", "CDHS"),
    ("zwikken", "modern"): ("TJQKA", "CDHS"),
    ("zwicken", "standard"): ("789TJQKA", "CDHS"),
}
PIQUET_RANKS = "789TJQKA"

# Options: name -> (default, valid values or a type, rule sets it applies to).
# ``None`` in the last column: every rule set of the game.
_HIST, _PARL, _MOD = ("zwikken", "historic"), ("zwikken", "parlett"), ("zwikken", "modern")
OPTIONS: dict[str, dict[str, tuple[object, object, tuple | None]]] = {
    "zwikken": {
        "variant": ("parlett", VARIANTS["zwikken"], None),
        "players": (0, int, None),
        "pot": (0, int, None),
        "pack": ("standard", ("standard", "piquet"), (_HIST,)),
        "forced_rounds": (False, bool, (_HIST,)),
        "zwik": ("rank", ("rank", "suit"), (_HIST,)),
        "upcard_pair": (False, bool, (_HIST,)),
        "part_pot_bids": (False, bool, (_PARL, _MOD)),
        "max_bid_levels": (0, int, (_PARL, _MOD)),
        "three_trumps": (False, bool, (_PARL, _MOD)),
        "lubbers": (False, bool, (_MOD,)),
        "ranks": ("default", str, None),
        "suits": ("default", str, None),
        "tricks": (3, int, None),
        "dealer": (-1, int, None),
    },
    "zwicken": {
        "players": (0, int, None),
        "pot": (0, int, None),
        "hupf": (True, bool, None),
        "seven_jump": ("rearhand", ("rearhand", "next_but_one"), None),
        "anbieten": (False, bool, None),
        "ranks": ("default", str, None),
        "suits": ("default", str, None),
        "tricks": (3, int, None),
        "dealer": (-1, int, None),
    },
}

# Spoken calls per rule set (level 1..4). Modern calls follow the Dutch table talk.
BID_NAMES = {
    "parlett": ("bid 1", "bid 2", "bid 3", "bid 4"),
    "modern": ("ik vraag", "ik vraag beter", "ik vraag nog beter", "ik vraag nog veel beter"),
}
PART_POT = ((1, 2), (2, 3), (3, 4), (1, 1))  # fractions of the pot per bid level (part_pot_bids)


@dataclass(frozen=True)
class TrickRules:
    """A fully specified Zwikken/Zwicken rule set. Make one with :func:`rules`."""

    game: str
    variant: str
    players: int
    pot: int
    dealer: int
    tricks: int
    deck: tuple[int, ...]
    options: tuple[tuple[str, object], ...]
    cfg: np.ndarray = field(repr=False, compare=False, hash=False)

    def option(self, name: str) -> object:
        return dict(self.options)[name]

    def array(self) -> np.ndarray:
        """The kernels' rule array (read-only by convention)."""
        return self.cfg

    def deck_string(self) -> str:
        return zwick_cards.format_cards(self.deck)

    def params(self) -> dict[str, object]:
        """OpenSpiel game parameters that rebuild exactly these rules."""
        out = dict(self.options)
        if self.game == "zwikken":
            out["variant"] = self.variant
        out.update(players=self.players, pot=self.pot, dealer=self.dealer, tricks=self.tricks)
        return out

    def with_(self, **changes: object) -> TrickRules:
        """The same rules with some options changed (e.g. ``pot`` or ``dealer`` for a session)."""
        merged: dict[str, Any] = {**self.params(), **changes}
        return rules(self.game, **merged)

    def __str__(self) -> str:
        body = ",".join(f"{k}={format_value(v)}" for k, v in sorted(self.params().items()))
        return f"{self.game}({body})"


def _fail(message: str) -> None:
    raise ValueError(message)


def _coerce(game: str, name: str, value: object) -> object:
    default, valid, _ = OPTIONS[game][name]
    if isinstance(valid, tuple):
        if value not in valid:
            _fail(f"invalid {name}={value!r}; valid values: {', '.join(map(str, valid))}")
        return value
    if valid is bool:
        return parse_bool(name, value)
    if valid is int:
        return parse_int(name, value)
    if not isinstance(value, str):
        _fail(f"invalid {name}={value!r}; expected letters")
    return value


def _letters(name: str, text: str, alphabet: str, own: str) -> str:
    """Validate a ``ranks``/``suits`` string; returns it in the engine's order."""
    if text == "default":
        return own
    up = text.upper()
    if not up or any(ch not in alphabet for ch in up) or len(set(up)) != len(up):
        _fail(f"invalid {name}={text!r}: use distinct letters from {alphabet} (or 'default')")
    if up.isdigit():
        # OpenSpiel would read an all-digit parameter as a number (see docs/openspiel.md).
        _fail(f"invalid {name}={text!r}: a {name} string must contain a letter (e.g. 'A987')")
    return "".join(ch for ch in alphabet if ch in up)


def rules(
    game: str = "zwikken", variant: str | None = None, players: int | None = None, **options: object
) -> TrickRules:
    """Validate and build a rule set.

    ``game`` is ``zwikken`` (``variant`` historic, parlett [default] or modern) or ``zwicken``.
    ``players=None``/0 and ``pot=None``/0 take the rule set's default (see :data:`PLAYERS`; the
    default pot is one ante round: 3 chips, or one per player in parlett/modern). ``dealer=-1`` is
    the last seat, so seat 0 is forehand. ``ranks``/``suits`` restrict the pack (reduced packs for
    exact solving) and ``tricks`` (1..3) the hand size; both are research reductions, not rules.
    Raises ``ValueError`` listing what is valid for an unknown game, variant, option or value.
    """
    if game not in GAMES:
        _fail(f"unknown game {game!r}; valid games: {', '.join(GAMES)}")
    spec = OPTIONS[game]
    if variant is not None:
        options["variant"] = variant
    if players is not None:
        options["players"] = players
    for name in options:
        if name not in spec:
            _fail(f"unknown {game} option {name!r}; valid options: {', '.join(spec)}")
    if game == "zwikken":
        variant = cast(str, options.get("variant", spec["variant"][0]))
        if variant not in VARIANTS["zwikken"]:
            _fail(f"unknown zwikken variant {variant!r}; valid variants: {', '.join(VARIANTS['zwikken'])}")
    else:
        variant = "standard"
    key = (game, variant)
    opts: dict[str, Any] = {}
    for name, (default, _, applies) in spec.items():
        value = _coerce(game, name, options[name]) if name in options else default
        if applies is not None and key not in applies and value != default:
            where = ", ".join(v for _, v in applies)
            _fail(f"option {name}={format_value(value)} applies only to {game} variant {where}, not {variant}")
        opts[name] = value
    lo, hi, own_players = PLAYERS[key]
    n = opts.pop("players") or own_players
    if not lo <= n <= hi:
        _fail(f"{game} {variant} is for {lo} to {hi} players, not {n}")
    own_ranks, own_suits = PACKS[key]
    if opts.get("pack") == "piquet":
        if n != 3:
            _fail(f"pack=piquet (32 cards) is for 3 players, not {n}")
        own_ranks = PIQUET_RANKS
    ranks = _letters("ranks", str(opts["ranks"]), zwick_cards.RANKS, own_ranks)
    suits = _letters("suits", str(opts["suits"]), zwick_cards.SUITS, own_suits)
    h = opts.pop("tricks")
    if not 1 <= h <= 3:
        _fail(f"tricks={h} is not allowed; valid values: 1, 2, 3 (3 is the rule; fewer is a reduction)")
    deck = tuple(zwick_cards.standard_pack(ranks, suits))
    hupf = game == "zwicken" and bool(opts["hupf"])
    need = n * h + 1 + (1 if hupf else 0)
    if len(deck) < need:
        _fail(f"a pack of {len(deck)} cards is too small for {n} players x {h} cards + upcard (needs {need})")
    pot = opts.pop("pot")
    ante_round = n if variant in ("parlett", "modern") else 3
    if pot < 0:
        _fail(f"pot={pot} is not allowed; use 0 (one ante round) or a positive number of chips")
    pot = pot or ante_round
    dealer = opts.pop("dealer")
    if not -1 <= dealer < n:
        _fail(f"dealer={dealer} is not a seat; valid values: -1 (last seat) or 0..{n - 1}")
    dealer = n - 1 if dealer == -1 else dealer
    opts.pop("variant", None)
    if game == "zwikken" and variant != "historic":
        levels = opts["max_bid_levels"]
        if opts["part_pot_bids"] and levels not in (0, 4):
            _fail("part_pot_bids has exactly 4 levels (1/2, 2/3, 3/4, pot): leave max_bid_levels=0 or 4")
        if not 0 <= levels <= 4:
            _fail(f"max_bid_levels={levels} is not allowed; valid values: 0 (rule set default), 1..4")
    # Store "default" when the pack is the rule set's own, so equal rules compare equal.
    opts["ranks"] = "default" if ranks == own_ranks else ranks
    opts["suits"] = "default" if suits == own_suits else suits
    options_t = tuple(sorted(opts.items()))
    cfg = _build_cfg(game, variant, n, h, pot, dealer, deck, opts)
    return TrickRules(game, variant, n, pot, dealer, h, deck, options_t, cfg)


def _build_cfg(
    game: str, variant: str, n: int, h: int, pot: int, dealer: int, deck: tuple[int, ...], o: dict
) -> np.ndarray:
    cfg = np.zeros(tricks_layout.C_SIZE, dtype=np.int32)
    cfg[tricks_layout.C_N], cfg[tricks_layout.C_H], cfg[tricks_layout.C_POT], cfg[tricks_layout.C_DEALER] = (
        n,
        h,
        pot,
        dealer,
    )
    cfg[tricks_layout.C_PACKSIZE] = len(deck)
    for c in deck:
        cfg[tricks_layout.C_INPACK + c] = 1
    cfg[tricks_layout.C_PERM] = -1
    if game == "zwicken":
        cfg[tricks_layout.C_GAME] = 1
        cfg[tricks_layout.C_DECLARE] = tricks_layout.DECL_EXCHANGE
        cfg[tricks_layout.C_DUTY] = tricks_layout.DUTY_ZWICKEN
        cfg[tricks_layout.C_WIN] = tricks_layout.WIN_SHARES
        seven_d = zwick_cards.card_id("7", "D")
        cfg[tricks_layout.C_PERM] = seven_d if seven_d in deck else -1
        cfg[tricks_layout.C_ACELEAD] = 1
        cfg[tricks_layout.C_GEZWICKT] = 3
        cfg[tricks_layout.C_BETE] = tricks_layout.BETE_STAKE
        cfg[tricks_layout.C_LONE] = 1
        cfg[tricks_layout.C_HUPF] = int(bool(o["hupf"]))
        cfg[tricks_layout.C_JUMPMODE] = 0 if o["seven_jump"] == "rearhand" else 1
        cfg[tricks_layout.C_DEALER_ANTE] = 3
        cfg[tricks_layout.C_ANBIETEN] = int(bool(o["anbieten"]))
        return cfg
    if variant == "historic":
        cfg[tricks_layout.C_DECLARE] = tricks_layout.DECL_PLAYPASS
        cfg[tricks_layout.C_FORCED] = int(bool(o["forced_rounds"]))
        cfg[tricks_layout.C_ZWIK] = (
            tricks_layout.ZWIK_HIST_RANK if o["zwik"] == "rank" else tricks_layout.ZWIK_HIST_SUIT
        )
        cfg[tricks_layout.C_ZWIK_WHO] = tricks_layout.WHO_PLAYERS
        cfg[tricks_layout.C_ZWIK_BETE] = 1
        cfg[tricks_layout.C_UPPAIR] = int(bool(o["upcard_pair"]))
        cfg[tricks_layout.C_DUTY] = tricks_layout.DUTY_HISTORIC
        cfg[tricks_layout.C_WIN] = tricks_layout.WIN_SHARES
        cfg[tricks_layout.C_BETE] = tricks_layout.BETE_POT
        cfg[tricks_layout.C_LONE] = 1
        return cfg
    parlett = variant == "parlett"
    cfg[tricks_layout.C_AUCTION] = tricks_layout.AUCTION_CYCLIC if parlett else tricks_layout.AUCTION_TWO_ROUNDS
    cfg[tricks_layout.C_ZWIK] = tricks_layout.ZWIK_RANK if parlett else tricks_layout.ZWIK_MODERN
    cfg[tricks_layout.C_ZWIK_WHO] = tricks_layout.WHO_ALL if parlett else tricks_layout.WHO_ASKERS
    cfg[tricks_layout.C_THREE_TRUMPS] = int(bool(o["three_trumps"]))
    cfg[tricks_layout.C_PARTPOT] = int(bool(o["part_pot_bids"]))
    cfg[tricks_layout.C_MAXLEVEL] = o["max_bid_levels"] or (4 if parlett or o["part_pot_bids"] else 3)
    cfg[tricks_layout.C_JUMP] = 1 if parlett else 0
    cfg[tricks_layout.C_MAXSEARCH] = 3 if parlett else 2
    cfg[tricks_layout.C_SEARCH_ANTE] = tricks_layout.SEARCH_ANTE_EVERY if parlett else tricks_layout.SEARCH_ANTE_FIRST
    cfg[tricks_layout.C_REPEAT_VOID] = 0 if parlett else 1
    cfg[tricks_layout.C_TENSWAP] = tricks_layout.SWAP_CURRENT if parlett else tricks_layout.SWAP_ANNOUNCED
    cfg[tricks_layout.C_DUTY] = tricks_layout.DUTY_PARLETT
    cfg[tricks_layout.C_WIN] = tricks_layout.WIN_GAMBLER if parlett else tricks_layout.WIN_POINTS
    cfg[tricks_layout.C_LUBBERS] = int(bool(o["lubbers"]))
    return cfg


def max_length(rules: TrickRules) -> int:
    """Upper bound on the number of moves (chance and decisions) in one deal."""
    cfg = rules.cfg
    n, h = rules.players, rules.tricks
    searches = int(cfg[tricks_layout.C_MAXSEARCH])
    exch = min(3, h) if cfg[tricks_layout.C_DECLARE] == tricks_layout.DECL_EXCHANGE else 0
    cuts = n + 1 if cfg[tricks_layout.C_HUPF] else 0
    if cfg[tricks_layout.C_AUCTION] == tricks_layout.AUCTION_CYCLIC:
        per_auction = int(cfg[tricks_layout.C_MAXLEVEL]) + n
    elif cfg[tricks_layout.C_AUCTION] == tricks_layout.AUCTION_TWO_ROUNDS:
        per_auction = 2 * n
    else:
        per_auction = n  # the declaring round
    auctions = 1 + searches
    deal_and_play = 2 * n * h + 2 * n * exch  # cards dealt and played; discards and draws
    total = cuts + deal_and_play + auctions * (2 + per_auction) + searches + 1  # + upcards, swaps
    assert total <= tricks_layout.MAXH, "history array too small for this rule set"
    return total


def utility_bounds(rules: TrickRules) -> tuple[float, float]:
    """Bounds on a seat's net chip change in one deal."""
    cfg = rules.cfg
    n = rules.players
    if cfg[tricks_layout.C_HUPF]:
        extra = 3 * n * (n - 1)  # every Hupf/Sprung adds at most 3 per seat but one
        own = 3 * n
    else:
        searches = int(cfg[tricks_layout.C_MAXSEARCH])
        per = searches if cfg[tricks_layout.C_SEARCH_ANTE] == tricks_layout.SEARCH_ANTE_EVERY else min(searches, 1)
        extra, own = n * per, per
    top = rules.pot + extra
    return -float(top + own + 6), float(top + 3)
