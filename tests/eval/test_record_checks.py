"""Every field of a record line is checked at its bounds (zwick_ai.eval.records.record_from_dict)."""

from __future__ import annotations

import pytest

from zwick_ai.eval.records import record_from_dict

GOOD = {"game": "zwikken(players=3)", "deal_seed": 4, "seats": ["a", "b", "c"], "moves": [[2, "x", [0]]],
        "returns": [1.0, -0.5, -0.5]}  # fmt: skip


def test_a_good_record_reads():
    assert record_from_dict(GOOD).moves == [[2, "x", [0]]]


@pytest.mark.parametrize("change, message", [
    ({"moves": [[3, "x", [0]]]}, "move 1 is not"),  # the seat after the last
    ({"moves": [[-1, "x", [0]]]}, "move 1 is not"),
    ({"moves": [[0, "x", []]]}, "move 1 is not"),
    ({"moves": [[0, "x", [-1]]]}, "move 1 is not"),
    ({"moves": [[0, "x", [1.0]]]}, "move 1 is not"),
    ({"deal_seed": -1}, "deal_seed"),
    ({"deal_seed": True}, "deal_seed"),
    ({"returns": [1.0, -1.0]}, "returns must be 3 numbers"),
    ({"returns": [1.0, float("nan"), 0.0]}, "returns must be 3 numbers"),
    ({"seats": []}, "seats"),
    ({"version": 2}, "format version"),
])  # fmt: skip
def test_a_field_out_of_bounds_is_refused(change, message):
    with pytest.raises(ValueError, match=message):
        record_from_dict({**GOOD, **change})


def _played():
    import pyspiel

    import zwick_ai.agents  # noqa: F401
    import zwick_ai.games  # noqa: F401
    from zwick_ai.agents import make_agent
    from zwick_ai.eval.match import play_game

    game = pyspiel.load_game("zwicker(variant=classic,players=2)")
    return play_game(game, [make_agent("greedy", game), make_agent("random", game)], deal_seed=3)


def test_replay_refuses_a_record_whose_end_does_not_match():
    """A record with a chance action the game never used, or points other than the game's, does
    not replay (a record is checked to its end, not only to its last move)."""
    import dataclasses

    from zwick_ai.eval.records import replay

    rec = _played()
    assert len(replay(rec)) == len(rec.moves) + 1
    with pytest.raises(ValueError, match="more chance actions"):
        replay(dataclasses.replace(rec, chance=[*rec.chance, rec.chance[-1]]))
    with pytest.raises(ValueError, match="points"):
        replay(dataclasses.replace(rec, points=[rec.points[0] + 1, rec.points[1] - 1]))
