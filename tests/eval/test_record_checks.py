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
