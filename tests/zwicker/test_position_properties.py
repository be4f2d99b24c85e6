"""Property tests of the position API with random, mostly bad, input: :func:`zwicker.position` and
:func:`zwicker.apply` either give a position or raise a ``ValueError`` with a one-line message,
never another exception (a user typing a study position gets a clear error, not a traceback)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zwick_ai import cards as C
from zwick_ai import zwicker

RULES = [zwicker.rules("classic", 2), zwicker.rules("dithmarschen", 4), zwicker.rules("grupp", 3)]
# A few hundred examples per test: the kernels behind position() and apply() are compiled once.
# derandomize: the examples follow from the test itself (a fixed seed), and no example database is written.
PROPERTY = settings(
    max_examples=300, deadline=None, derandomize=True, database=None, suppress_health_check=[HealthCheck.too_slow]
)

# Card names: real ones (often enough to make valid positions), names of cards outside some decks,
# malformed names, and ids in and out of range.
REAL_NAMES = sorted({C.format_card(c) for r in RULES for c in r.deck})
card = st.one_of(
    st.sampled_from(REAL_NAMES),
    st.sampled_from(["X15", "X25", "W", "1H", "ZZ", "", " ", "10H", "AH ", "QQ", "X", "X0", "X-3", "♥"]),
    st.text(max_size=4),
    st.integers(min_value=-3, max_value=C.NUM_CARDS + 3),
)
cards = st.lists(card, max_size=6)
small_int = st.integers(min_value=-3, max_value=8)
build = st.fixed_dictionaries(
    {"cards": cards},
    optional={
        "value": st.one_of(st.integers(min_value=-2, max_value=30), st.text(max_size=2), st.none()),
        "owner": st.one_of(small_int, st.none()),
        "colour": st.just("red"),
    },
)
table = st.lists(st.one_of(card, build), max_size=6)


def _pick(draw, items: list) -> int:
    return draw(st.integers(min_value=0, max_value=max(0, len(items) - 1)))


def _bad_hand_card(draw, args, rules):
    hands = args["hands"]
    h = _pick(draw, hands)
    if hands and hands[h]:
        hands[h][_pick(draw, hands[h])] = draw(card)
    elif hands:
        hands[h].append(draw(card))


def _extra_card(draw, args, rules):
    where = draw(st.sampled_from(["hands", "table", "stock"]))
    if where == "hands" and args["hands"]:
        args["hands"][_pick(draw, args["hands"])].append(draw(card))
    elif where == "table":
        args["table"].append(draw(card))
    else:
        args["stock"] = list(args.get("stock", [])) + [draw(card)]


def _build(draw, args, rules):
    args["table"].append(draw(build))


def _hand_count(draw, args, rules):
    if draw(st.booleans()) and args["hands"]:
        args["hands"].pop()
    else:
        args["hands"].append(draw(cards))


def _field(draw, args, rules):
    name = draw(st.sampled_from(["to_move", "dealer", "stage", "last_capturer", "seed", "zwicks", "won"]))
    sides = rules.num_sides
    args[name] = draw(
        {
            "to_move": small_int,
            "dealer": small_int,
            "stage": st.integers(min_value=-2, max_value=12),
            "last_capturer": st.one_of(small_int, st.none()),
            "seed": st.one_of(st.integers(min_value=-2, max_value=2**63), st.just(True)),
            "zwicks": st.lists(small_int, min_size=sides - 1, max_size=sides + 1),
            "won": st.lists(cards, min_size=sides - 1, max_size=sides + 1),
        }[name]
    )


def _empty_mover(draw, args, rules):
    if 0 <= args["to_move"] < len(args["hands"]):
        args["hands"][args["to_move"]] = []


CORRUPTIONS = [_bad_hand_card, _extra_card, _build, _hand_count, _field, _empty_mover]


@st.composite
def position_args(draw, rules: zwicker.Rules) -> dict:
    """The arguments of a real dealt position (as card names), spoilt in 0-3 random ways."""
    state = zwicker.deal(rules, draw(st.integers(min_value=0, max_value=10**6)))
    args: dict = {
        "hands": [zwicker.hand(state, p) for p in range(rules.players)],
        "table": zwicker.table(state),
        "to_move": zwicker.to_move(state),
    }
    if draw(st.booleans()):
        args["stock"] = zwicker.stock(state)
    for _ in range(draw(st.integers(min_value=0, max_value=3))):
        draw(st.sampled_from(CORRUPTIONS))(draw, args, rules)
    return args


def one_line_error(error: ValueError) -> None:
    text = str(error)
    assert text and "\n" not in text, repr(text)


@pytest.mark.parametrize("rules", RULES, ids=lambda r: f"{r.variant}-{r.players}")
def test_position_gives_a_position_or_a_clear_value_error(rules):
    seen = {"ok": 0, "refused": 0}

    @PROPERTY
    @given(args=position_args(rules))
    def check(args):
        try:
            state = zwicker.position(rules, **args)
        except ValueError as e:
            one_line_error(e)
            seen["refused"] += 1
            return
        seen["ok"] += 1
        # a position that was accepted is a working one, with every seat and count in range
        snap = zwicker.snapshot(state)
        assert 0 <= snap.to_move < rules.players and 0 <= snap.dealer < rules.players
        assert 0 <= snap.stage < rules.plan.max_stages and min(snap.zwicks) >= 0
        zwicker.legal_moves(state)
        zwicker.render(state)

    check()
    assert seen["refused"] > 0 and seen["ok"] > 0, seen  # both outcomes were exercised


move_text = st.one_of(
    st.text(max_size=30),
    st.sampled_from(["", "trail", "AH", "7H trails", "X15=15 takes 5C+TD", "ask partner 7", "QH=12 takes QC (zwick)"]),
)
move_key = st.builds(
    zwicker.MoveKey,
    kind=st.sampled_from(["trail", "capture", "build", "ask", "pass", ""]),
    card=st.integers(min_value=-2, max_value=C.NUM_CARDS + 2),
    taken=st.lists(st.integers(min_value=-1, max_value=C.NUM_CARDS), max_size=3).map(tuple),
    target=st.lists(st.integers(min_value=-1, max_value=C.NUM_CARDS), max_size=3).map(tuple),
    value=st.integers(min_value=-2, max_value=30),
    owner=small_int,
)


@pytest.mark.parametrize("rules", RULES, ids=lambda r: f"{r.variant}-{r.players}")
def test_apply_gives_the_next_position_or_a_clear_value_error(rules):
    """Random strings and move keys, and legal moves of another deal, on dealt positions."""
    seen = {"ok": 0, "refused": 0}

    @PROPERTY
    @given(
        seed=st.integers(min_value=0, max_value=50),
        other=st.integers(min_value=0, max_value=50),
        pick=st.integers(min_value=0, max_value=10**6),
        move=st.one_of(move_text, move_key, st.none()),
    )
    def check(seed, other, pick, move):
        state = zwicker.deal(rules, seed)
        if move is None:  # a legal move of another deal: legal here only if it does the same
            moves = zwicker.legal_moves(zwicker.deal(rules, other))
            move = moves[pick % len(moves)]
        legal = zwicker.legal_moves(state)
        before = state.copy()
        try:
            after = zwicker.apply(state, move)
        except ValueError as e:
            one_line_error(e)
            assert "illegal move" in str(e)
            seen["refused"] += 1
        else:
            seen["ok"] += 1
            key = move if isinstance(move, zwicker.MoveKey) else getattr(move, "key", None)
            assert any(m.key == key or str(m) == str(move).strip() for m in legal)
            assert after != state
        assert state == before  # the position given is never changed

    check()
    assert seen["refused"] > 0 and seen["ok"] > 0, seen
