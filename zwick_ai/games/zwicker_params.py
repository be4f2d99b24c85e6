"""The parameters of the OpenSpiel ``zwicker`` game (:mod:`zwick_ai.games.zwicker`) and their
translation into the engine's :class:`~zwick_ai.zwicker.rules.Rules`.

>>> rules, norm = rules_from_params({"variant": "grupp", "forced_capture": "off"})
>>> rules.forced_capture, norm["forced_capture"]
(False, 'off')
"""

from __future__ import annotations

from zwick_ai import cards, zwicker
from zwick_ai.options import parse_bool, parse_int
from zwick_ai.zwicker.rules import OPTIONS, Rules, check_hand_limit, format_jokers, parse_jokers

UTILITIES = ("points", "win_loss")
FORCED = ("auto", "on", "off")

# OpenSpiel parameters: defaults fix the types. Sentinels (0, -1, "auto", "default") mean "the
# variant's default"; string values never look numeric (see docs/openspiel.md).
PARAMS: dict[str, object] = {
    "variant": "dithmarschen",
    "players": 0,
    "utility": "points",
    "forced_capture": "auto",
    "joker_capture": "any",
    "joker_sweep_is_zwick": True,
    "joker_sum_capture": True,
    "magger": True,
    "team_size": 3,
    "after_zwick": "next_trails",
    "dietze_loose_builds": False,
    "dietze_min_table": 0,
    "first_dealer": "random",
    "subtract": "old_minus_played",
    "capture_values": "one",
    "wild_jokers": -1,
    "jokers": "default",
    "ranks": cards.RANKS,
    "suits": cards.SUITS,
    "hand_size": 0,
    "table_size": -1,
    "stages": 0,
}

#: what each parameter does, one line each (``zwick variants``; RULE_CHOICES.md has the detail)
PARAM_HELP: dict[str, str] = {
    "variant": "the rule set: " + ", ".join(zwicker.VARIANTS),
    "players": "number of players (0: the variant's default)",
    "utility": "returns: points (side points, zero-sum) or win_loss (+1 / -1 / 0)",
    "forced_capture": "whoever can capture must (auto: on in classic and grupp, off elsewhere)",
    "joker_capture": "grupp: when a table unit holding a wild joker may be taken",
    "joker_sweep_is_zwick": "grupp: clearing the table with a wild joker counts as a Zwick",
    "joker_sum_capture": "valued jokers loose on the table can be taken as part of a sum",
    "magger": "grossenwiehe teams: a player may ask a partner about a build value before playing",
    "team_size": "grossenwiehe with 6 players: 2 sides of 3 or 3 sides of 2",
    "after_zwick": "who trails after a Zwick: the next player, the Zwicker again, or everyone once",
    "dietze_loose_builds": "a build may also be taken card by card at the cards' own values",
    "dietze_min_table": "4: a player trails until the table holds 4 units (0: off)",
    "first_dealer": "the first dealer: a seeded draw, or the lowest / highest cut card",
    "subtract": "builds by subtraction: old minus played only, or either way round",
    "capture_values": "a dual card captures with one of its values, or with each value per group",
    "wild_jokers": "grupp: number of wild jokers (-1: 6)",
    "jokers": "valued jokers in the deck: default, none, or values joined by _ (15_25; also + after -o); one: x15",
    "ranks": "ranks in the deck, for small research games (e.g. A2345)",
    "suits": "suits in the deck, for small research games (e.g. CD)",
    "hand_size": "custom deal: cards per player per stage (0: the variant's plan)",
    "table_size": "custom deal: cards to the table at the start (-1: the variant's plan)",
    "stages": "at most this many stages are dealt (0: all)",
}


#: the whole-number parameters' lowest value (their "the variant's default" sentinel) and what is valid
_LOWEST = (
    ("players", 0, "players is a number of players (0: the variant's default)"),
    ("hand_size", 0, "hand_size is a number of cards of at least 1 (0: the variant's plan)"),
    ("table_size", -1, "table_size is a number of cards of at least 0 (-1: the variant's plan)"),
    ("stages", 0, "stages is a number of stages of at least 1 (0: all)"),
    ("wild_jokers", -1, "wild_jokers is a number of jokers of at least 0 (-1: the variant's 6)"),
    ("dietze_min_table", 0, "dietze_min_table is a number of table units of at least 0 (0: off)"),
)


# ------------------------------------------------------------------------------------------------
# Parameters -> Rules
# ------------------------------------------------------------------------------------------------
def _ranks(text: str) -> str:
    return str(text).replace("_", "").upper()


def _jokers(value: object) -> tuple[int, ...] | None:
    """The ``jokers`` parameter: None for ``default``, else the joker values (``parse_jokers``)."""
    if str(value).strip().lower() == "default":
        return None
    return parse_jokers(value)


def _forced(value: object) -> bool | None:
    """The ``forced_capture`` parameter: None for ``auto``; ``on``/``off`` or true/false."""
    text = str(value).strip().lower()
    if text == "auto":
        return None
    if text in ("on", "off"):
        return text == "on"
    try:
        return parse_bool("forced_capture", value)
    except ValueError:
        raise ValueError(f"invalid forced_capture={value!r}; valid values: {', '.join(FORCED)}") from None


def rules_from_params(params: dict[str, object] | None) -> tuple[Rules, dict[str, object]]:
    """The engine rules for OpenSpiel parameters, and the parameters normalised (for ``str(game)``).

    Raises ``ValueError`` naming what is valid for an unknown value or an impossible combination.
    """
    given = dict(params or {})
    unknown = set(given) - set(PARAMS)
    if unknown:
        raise ValueError(f"unknown zwicker parameter(s) {sorted(unknown)}; valid: {', '.join(PARAMS)}")
    p = {**PARAMS, **given}
    for name, default in PARAMS.items():  # text from a command line means what OpenSpiel's types mean
        if isinstance(default, bool):
            p[name] = parse_bool(name, p[name])
        elif isinstance(default, int):
            p[name] = parse_int(name, p[name])
    for name, low, meaning in _LOWEST:  # the sentinels below the real values are the only ones
        if int(p[name]) < low:  # type: ignore[call-overload]
            raise ValueError(f"invalid {name}={p[name]}; {meaning}")
    if p["utility"] not in UTILITIES:
        raise ValueError(f"invalid utility={p['utility']!r}; valid values: {', '.join(UTILITIES)}")
    forced = _forced(p["forced_capture"])
    opts: dict[str, object] = {}
    if forced is not None:
        opts["forced_capture"] = forced
    for name in (
        "joker_capture",
        "joker_sweep_is_zwick",
        "joker_sum_capture",
        "magger",
        "team_size",
        "after_zwick",
        "dietze_loose_builds",
        "dietze_min_table",
        "first_dealer",
        "subtract",
        "capture_values",
    ):
        if p[name] != OPTIONS[name][0]:
            opts[name] = p[name]
    if int(p["wild_jokers"]) >= 0:  # type: ignore[call-overload]
        opts["wild_jokers"] = int(p["wild_jokers"])  # type: ignore[call-overload]
    jokers = _jokers(p["jokers"])
    if jokers is not None:
        opts["jokers"] = jokers
    ranks, suits = _ranks(str(p["ranks"])), str(p["suits"]).upper()
    if ranks != cards.RANKS:
        opts["ranks"] = ranks
    if suits != cards.SUITS:
        opts["suits"] = suits
    if int(p["hand_size"]) > 0:  # type: ignore[call-overload]
        opts["hand_size"] = int(p["hand_size"])  # type: ignore[call-overload]
    if int(p["table_size"]) >= 0:  # type: ignore[call-overload]
        opts["table_size"] = int(p["table_size"])  # type: ignore[call-overload]
    if int(p["stages"]) > 0:  # type: ignore[call-overload]
        opts["stages"] = int(p["stages"])  # type: ignore[call-overload]
    players = int(p["players"]) or None  # type: ignore[call-overload]
    r = zwicker.rules(str(p["variant"]), players=players, **opts)
    check_hand_limit(r)
    norm = dict(p)
    norm["ranks"] = ranks if not ranks.isdigit() else "_" + ranks
    norm["suits"] = suits
    if forced is not None:
        norm["forced_capture"] = "on" if forced else "off"
    if jokers is not None:
        norm["jokers"] = format_jokers(jokers)
    return r, norm


#: the columns of :func:`variant_rows` and :func:`option_rows` (``zwick variants``)
VARIANT_COLUMNS = ("variant", "players (default)", "sides", "deck", "jokers", "card points", "Zwick", "forced capture")
OPTION_COLUMNS = ("option", "default", "values", "what it does")


def variant_rows() -> list[list[object]]:
    """One row per Zwicker variant (:data:`VARIANT_COLUMNS`): its player counts, sides, deck,
    jokers, card points, Zwick points and whether capturing is forced."""
    from zwick_ai.zwicker.rules import PLAYER_COUNTS

    rows: list[list[object]] = []
    for v in zwicker.VARIANTS:
        valid, default = PLAYER_COUNTS[v]
        r = zwicker.rules(v)
        sides = " vs ".join("+".join(map(str, s)) for s in r.sides)
        jokers = [c for c in r.deck if c >= 104]
        joker_text = (
            "wild ×" + str(len(jokers))
            if r.wild
            else (", ".join(f"X{zwicker.rules(v).card_values(c)[0]}" for c in jokers) or "none")
        )
        contiguous = list(valid) == list(range(valid[0], valid[-1] + 1))
        players = f"{valid[0]}–{valid[-1]}" if contiguous and len(valid) > 3 else ", ".join(map(str, valid))
        forced = "yes" if r.forced_capture else "no"
        rows.append([v, f"{players} ({default})", sides, r.deck_size, joker_text, r.card_total, r.zwick_points, forced])
    return rows


def option_rows() -> list[list[object]]:
    """One row per rule option (:data:`OPTION_COLUMNS`): its default, its values and what it does."""
    from zwick_ai.options import format_value

    rows: list[list[object]] = []
    for name, param_default in PARAMS.items():
        if name in ("variant", "players"):
            continue
        option_values = OPTIONS.get(name, (None, None))[1]
        if name == "forced_capture":
            values = ", ".join(FORCED) + " (or true, false)"
        elif name == "utility":
            values = ", ".join(UTILITIES)
        elif isinstance(option_values, tuple):
            values = ", ".join(map(str, option_values))
        elif isinstance(param_default, bool):
            values = "true, false"
        elif isinstance(param_default, int):
            values = "whole number"
        elif name == "jokers":
            values = "joker values " + "/".join(map(str, cards.JOKER_VALUES))
        else:
            values = "letters"
        rows.append([name, format_value(param_default), values, PARAM_HELP[name]])
    return rows
