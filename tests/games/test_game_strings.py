"""One way to name a game: every variant's and option's game string round-trips through
``pyspiel.load_game``, and ``-o`` text, game strings and Python values name the same game."""

from __future__ import annotations

import importlib

import pyspiel
import pytest

import zwick_ai.games  # noqa: F401  (registers the games)
from zwick_ai import tricks, zwicker
from zwick_ai.games import zwicker_params
from zwick_ai.games.game_strings import load, split_game_string
from zwick_ai.options import format_value, parse_bool

ZR = importlib.import_module("zwick_ai.zwicker.rules")  # the module (zwicker.rules is the function)

#: a small deck so that every combination loads quickly (the deal plan needs enough cards)
MICRO = {"ranks": "A2345", "suits": "CD", "hand_size": 2, "table_size": 2, "stages": 1}


def _zwicker_values(name: str) -> list[object]:
    """Every value of a zwicker game parameter worth trying (all of a choice, both of a bool)."""
    default = zwicker_params.PARAMS[name]
    valid = ZR.OPTIONS.get(name, (None, None))[1]
    if name == "forced_capture":
        return list(zwicker_params.FORCED)
    if name == "utility":
        return list(zwicker_params.UTILITIES)
    if name == "jokers":
        return ["default", "none", "x15", "15_25", "x30", "15_17_20_22_25_30"]
    if name == "wild_jokers":
        return [-1, 0, 1, 6]
    if name in ("hand_size", "table_size", "stages"):
        return [default, 1, 2]
    if name in ("ranks", "suits"):
        return [default, "A2345" if name == "ranks" else "CD", "_2345" if name == "ranks" else "S"]
    if isinstance(valid, tuple):
        return list(valid)
    if isinstance(default, bool):
        return [True, False]
    raise AssertionError(f"no values listed for {name}")


def _zwicker_cases() -> list[dict[str, object]]:
    cases: list[dict[str, object]] = []
    for variant in zwicker.VARIANTS:
        for players in ZR.PLAYER_COUNTS[variant][0]:
            cases.append({"variant": variant, "players": players})
        for name in zwicker_params.PARAMS:
            if name in ("variant", "players"):
                continue
            for value in _zwicker_values(name):
                base = {} if name in MICRO or name == "jokers" else dict(MICRO)
                cases.append({"variant": variant, **base, name: value})
        six = {"variant": variant, "players": 6}
        if variant == "grossenwiehe":
            cases += [{**six, "team_size": 2}, {**six, "team_size": 3, "magger": False}]
    return cases


def _loads(name: str, params: dict[str, object]) -> pyspiel.Game | None:
    try:
        return pyspiel.load_game(name, params)
    except ValueError:  # a combination the rules refuse (an option of another variant)
        return None


def test_every_zwicker_variant_and_option_round_trips_through_its_game_string():
    loaded = refused = 0
    for params in _zwicker_cases():
        game = _loads("zwicker", params)
        if game is None:
            refused += 1
            continue
        loaded += 1
        text = str(game)
        again = pyspiel.load_game(text)
        assert str(again) == text, params
        assert again.rules == game.rules, params
        assert again.get_parameters() == game.get_parameters(), params
        assert load(text).rules == game.rules  # our loader reads OpenSpiel's string the same
    assert loaded > 150 and refused > 10  # both kinds are really exercised


def test_every_trick_game_variant_and_option_round_trips():
    loaded = 0
    for game_name, spec in tricks.OPTIONS.items():
        variants = tricks.VARIANTS.get(game_name, (None,)) if game_name == "zwikken" else (None,)
        for variant in variants:
            base = {"variant": variant} if variant else {}
            cases = [dict(base)]
            for name, (_default, valid, _) in spec.items():
                if name == "variant":
                    continue
                if isinstance(valid, tuple):
                    values = list(valid)
                elif valid is bool:
                    values = [True, False]
                elif name == "players":
                    values = [3, 4, 5]
                elif name in ("ranks", "suits"):
                    values = ["default", "AKQJT987" if name == "ranks" else "CDH"]
                elif name == "tricks":
                    values = [1, 2, 3]
                elif name == "dealer":
                    values = [-1, 0, 2]
                else:
                    values = [0, 2, 5]
                cases += [{**base, name: v} for v in values]
            for params in cases:
                game = _loads(game_name, params)
                if game is None:
                    continue
                loaded += 1
                text = str(game)
                again = pyspiel.load_game(text)
                assert str(again) == text and again.get_parameters() == game.get_parameters(), params
    assert loaded > 60


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ([("jokers", "15")], (15,)),
        ([("jokers", "x15")], (15,)),
        ([("jokers", "15+25")], (15, 25)),
        ([("jokers", "15_25")], (15, 25)),
        ([("jokers", "none")], ()),
    ],
)
def test_option_text_for_jokers_means_one_thing(given, expected):
    micro = [(k, str(v)) for k, v in MICRO.items()]
    game = load("zwicker", "dithmarschen", 2, given + micro)
    assert dict(game.rules.options)["jokers"] == expected
    assert pyspiel.load_game(str(game)).rules == game.rules
    # the same game from a game string (values as text, even 15+25 which OpenSpiel's parser refuses)
    string = "zwicker(variant=dithmarschen,players=2," + ",".join(f"{k}={v}" for k, v in given + micro) + ")"
    assert load(string).rules == game.rules
    # and from the engine's Python values
    assert zwicker.rules("dithmarschen", 2, jokers=expected, **MICRO) == game.rules


def test_game_string_and_separate_arguments_name_the_same_game():
    a = load("zwicker(variant=classic,players=2,forced_capture=off)")
    b = load("zwicker", "classic", 2, [("forced_capture", "false")])
    c = load("zwicker(variant=classic)", None, 2, [("forced_capture", "off")])
    assert str(a) == str(b) == str(c)
    z = load("zwikken(players=3)", "parlett", None, [("three_trumps", "true")])
    assert str(z) == str(pyspiel.load_game("zwikken", {"players": 3, "variant": "parlett", "three_trumps": True}))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("nosuch(players=3)",), "unknown game 'nosuch'; valid games: zwicker, zwikken, zwicken"),
        (("zwikken(colour=red)",), "unknown option 'colour' for zwikken; valid options:"),
        (("zwicker(players=3",), "cannot read the game string"),
        (("zwicker(players)",), "cannot read 'players'"),
        (("zwicker(jokers=16)",), "invalid joker value 16; valid: 15, 17, 20, 22, 25, 30"),
        (("zwicker(variant=classic)", "grupp"), "variant is given twice"),
        (("zwicker", None, None, [("magger", "maybe")]), "invalid magger='maybe'; valid values: true, false"),
        (("zwicker", None, None, [("players", "four")]), "invalid players='four'; expected a whole number"),
        (("zwicken", "parlett"), "zwicken has no variants"),
        (("zwicker", None, None, [("magger", "true"), ("magger", "false")]), "magger is given more than once"),
    ],
)
def test_bad_game_names_are_refused_in_one_line_naming_what_is_valid(args, message):
    with pytest.raises(ValueError) as info:
        load(*args)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_split_game_string_keeps_values_as_text():
    assert split_game_string("zwicker(variant=classic, players=2)") == (
        "zwicker",
        {"variant": "classic", "players": "2"},
    )


def test_one_bool_reader_everywhere():
    for text, value in (("true", True), ("False", False), ("1", True), ("0", False)):
        assert parse_bool("x", text) is value
        assert zwicker.rules("grossenwiehe", magger=text).magger is (value and True)
        assert tricks.rules("zwicken", hupf=text).option("hupf") is value
    for bad in ("yes", "2", "", "truth"):
        with pytest.raises(ValueError, match="valid values: true, false"):
            parse_bool("x", bad)
        with pytest.raises(ValueError, match="valid values: true, false"):
            zwicker.rules("grossenwiehe", magger=bad)
        with pytest.raises(ValueError, match="valid values: true, false"):
            tricks.rules("zwicken", hupf=bad)
    assert format_value(True) == "true" and format_value(False) == "false"


@pytest.mark.parametrize(
    ("given", "word"),
    [("false", "off"), ("False", "off"), ("true", "on"), (True, "on"), (False, "off"), ("off", "off")],
)
def test_forced_capture_given_as_a_boolean_loads_again_from_its_game_string(given, word):
    # OpenSpiel's game-string parser reads true/false as booleans, which forced_capture (text) refuses
    game = load("zwicker", "classic", 2, [("forced_capture", given)])
    assert game.get_parameters()["forced_capture"] == word
    again = pyspiel.load_game(str(game))
    assert str(again) == str(game) and again.get_parameters()["forced_capture"] == word
    # the rules read the word as the boolean meant
    assert zwicker_params.rules_from_params({"variant": "classic", "forced_capture": word})[0].forced_capture is (
        word == "on"
    )
