"""``cfr-search``: information sets by each seat's view (a hidden card never changes the root
strategy), the compiled CFR+ against a slow Python CFR+ on the same subgame, whole games in every
Zwicker variant, reproducible seeds and one-line errors for bad specs."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

import zwick_ai.agents  # noqa: F401  (registers the agents)
import zwick_ai.games  # noqa: F401  (registers the games)
from tests.agent_play import greedy_turns, play_whole_game
from zwick_ai.agents import clock, expert_search, make_agent, value_model, zwicker_search
from zwick_ai.agents.cfr import search, subgame
from zwick_ai.agents.cfr.core import M_ROWS
from zwick_ai.eval.match import play_game
from zwick_ai.zwicker import arrays, kernels, layout
from zwick_ai.zwicker.model_scores import layer_memo

CLASSIC2 = "zwicker(variant=classic,players=2)"
FAST = "time=0,iters=30,worlds=6,depth=2"  # a small budget with no clock in it


def _setup(state: pyspiel.State, seed: int) -> tuple[zwicker_search.DecisionSetup, np.ndarray]:
    """The decision's setup (as ``cfr-search`` makes it) and 8 worlds of its sampler."""
    d = zwicker_search.DecisionSetup(state, np.random.default_rng(seed))
    d.cards = np.sort(d.det.truth)
    meta = np.zeros(zwicker_search.MT_SIZE, np.int64)
    worlds, _ = expert_search.draw_pool(d.worlds, meta, 8, expert_search.Inference(0.0, value_model.empty_model()))
    return d, worlds


# ------------------------------------------------------------------------------------------------
# Information sets: the root strategy does not depend on a card the mover cannot see
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "spec, turns",
    [
        (CLASSIC2, 3),
        (CLASSIC2, 6),
        ("zwicker(variant=dithmarschen,players=4)", 5),
        ("zwicker(variant=christiansen,players=3)", 4),
    ],
)
def test_positions_differing_only_in_hidden_cards_give_the_same_root_strategy(spec: str, turns: int) -> None:
    game, state = greedy_turns(5, turns, spec)
    p = state.current_player()
    others = [q for q in range(game.num_players()) if q != p]
    checked = 0
    for seed in range(1, 40):
        twin = state.resample_from_infostate(p, seed)
        if all(_hand(twin, q) == _hand(state, q) for q in others):
            continue  # the same hidden hands: not a test of anything
        assert twin.information_state_string(p) == state.information_state_string(p)
        params = _params("time=0,iters=30,worlds=6,depth=3")
        got = [search.search_root(s, params, np.random.default_rng(11)) for s in (state, twin)]
        (rows_a, strat_a, val_a, stats_a), (rows_b, strat_b, val_b, stats_b) = got
        if stats_a["chain"] or stats_b["chain"]:
            continue  # the sampler's Markov chain starts from the true deal (documented)
        assert np.array_equal(rows_a, rows_b)
        assert stats_a["infosets"] > 1 and stats_a["worlds"] > 0  # a subgame with more than the root
        assert np.array_equal(strat_a, strat_b)
        assert np.array_equal(val_a, val_b)
        checked += 1
        if checked == 2:
            break
    assert checked == 2


def _hand(state: pyspiel.State, q: int) -> list[int]:
    a = state.array
    return sorted(
        int(c)
        for c in a[layout.S_HANDS + q * layout.MAX_HAND : layout.S_HANDS + q * layout.MAX_HAND + a[layout.S_HAND_N + q]]
    )


def _params(text: str) -> dict:
    from zwick_ai.agents.base import agent_params

    return agent_params(f"cfr-search:{text}")[1]


def test_the_true_deal_is_not_what_the_worlds_are_drawn_from() -> None:
    """The control of the test above: the same seed with the hidden cards permuted in their true
    order instead of sorted draws other worlds (so the equality there is the sort's doing, and the
    test could fail)."""
    _, state = greedy_turns(5, 3, CLASSIC2)
    d, worlds = _setup(state, 3)
    d2 = zwicker_search.DecisionSetup(state, np.random.default_rng(3))
    d2.cards = d2.det.truth[::-1].copy()
    meta = np.zeros(zwicker_search.MT_SIZE, np.int64)
    other, _ = expert_search.draw_pool(d2.worlds, meta, 8, expert_search.Inference(0.0, value_model.empty_model()))
    assert not np.array_equal(worlds, other)


# ------------------------------------------------------------------------------------------------
# The compiled CFR+ against a slow Python CFR+ on the same subgame
# ------------------------------------------------------------------------------------------------
def _units(S: np.ndarray) -> tuple:
    out = []
    for i in range(S[layout.S_NUNITS]):
        a = int(S[layout.S_UNITS + i])
        cards, x = [], a
        while x != -1:
            cards.append(x)
            x = int(S[layout.S_NEXT + x])
        out.append(
            (
                tuple(sorted(cards)),
                int(S[layout.S_UVALUE + a]),
                int(S[layout.S_UOWNER + a]),
                int(S[layout.S_UBUILD + a]),
            )
        )
    return tuple(out)


def _move(S: np.ndarray, row: np.ndarray) -> tuple:
    """What a move does, in cards: mover, kind, card, value, the cards taken, the anchor built on, owner."""
    units = _units(S)
    kind = int(row[layout.M_KIND])
    taken = frozenset(
        c for i, u in enumerate(units) if kind == layout.KIND_CAPTURE and int(row[layout.M_MASK]) >> i & 1 for c in u[0]
    )
    target = int(row[layout.M_TARGET])
    anchor = int(S[layout.S_UNITS + target]) if kind == layout.KIND_BUILD and target >= 0 else -1
    owner = int(row[layout.M_OWNER]) if kind >= layout.KIND_BUILD else -1
    return int(arrays.to_move(S)), kind, int(row[layout.M_CARD]), int(arrays.move_value(row)), taken, anchor, owner


def _view(R: np.ndarray, S: np.ndarray, history: tuple, legal: tuple) -> tuple:
    """The seat to move's view, spelled out: seat, own hand, the public position, history, legal moves."""
    q = int(arrays.to_move(S))
    players, sides = int(R[layout.R_PLAYERS]), int(R[layout.R_NSIDES])
    hand = tuple(int(S[layout.S_HANDS + q * layout.MAX_HAND + i]) for i in range(S[layout.S_HAND_N + q]))
    deck = [int(R[layout.R_DECK + k]) for k in range(R[layout.R_DECK_SIZE])]
    won = tuple(
        sorted((c, int(S[layout.S_LOC + c])) for c in deck if layout.LOC_WON <= S[layout.S_LOC + c] < layout.LOC_STOCK)
    )
    public = (
        frozenset(_units(S)), won, tuple(int(S[layout.S_HAND_N + k]) for k in range(players)),
        tuple(int(S[f]) for f in (layout.S_STOCK_TOP, layout.S_STAGE, layout.S_TO_MOVE, layout.S_PHASE, layout.S_AZ_LEFT,
                                  layout.S_LAST_CAPT, layout.S_ASK_Q, layout.S_ASK_N, layout.S_ASK_ANS)),
        tuple(int(S[layout.S_ZWICKS + s]) for s in range(sides)),
    )  # fmt: skip
    return q, hand, public, history, legal


def _python_tree(d: zwicker_search.DecisionSetup, world: np.ndarray, depth: int, model: tuple) -> dict:
    """The subgame of one world as nested dicts, grown by the engine called from Python."""
    R = d.rules_array
    W = kernels.new_workspace()
    buf, X = kernels.new_buffers()
    memo = layer_memo(model)
    leaf = subgame.Leaf(subgame.LEAF_AFTER, model, d.total, d.win_loss)
    ctx = subgame.new_context()
    stage0 = int(arrays.stage(world))

    def grow(P: np.ndarray | None, row: np.ndarray | None, S: np.ndarray, ply: int, history: tuple) -> dict:
        over = bool(arrays.is_over(S))
        if P is not None and (over or ply >= depth or int(arrays.stage(S)) != stage0):
            out = np.zeros(int(R[layout.R_NSIDES]))
            subgame.leaf_rewards(R, P, row, S, leaf, memo, ctx, out)
            return {"leaf": out}
        if P is None:
            moves = d.rows
        else:
            grown, _, n = kernels.gen_moves(R, S, buf.copy(), W, X.copy())
            moves = grown[:n].copy()
        legal = tuple(_move(S, m) for m in moves)
        key = "root" if P is None else _view(R, S, history, legal)
        children = []
        for m in moves:
            child = S.copy()
            kernels.apply_move(R, child, m, W)
            children.append(grow(S, m[None, :].copy(), child, ply + 1, (*history, _move(S, m))))
        return {"key": key, "player": int(arrays.to_move(S)), "children": children}

    return grow(None, None, world.copy(), 0, ())


def _python_cfr_plus(roots: list[tuple[float, dict]], side_of: list[int], iters: int) -> tuple[dict, dict]:
    """Textbook CFR+ by recursion (alternating updates, the strategy of a pass fixed at its start,
    regrets floored after each pass, average weights t): (average strategies, regrets) by key."""
    regret: dict = {}
    avg: dict = {}

    def collect(node: dict) -> None:
        if "leaf" in node:
            return
        n = len(node["children"])
        regret.setdefault(node["key"], np.zeros(n))
        avg.setdefault(node["key"], np.zeros(n))
        assert regret[node["key"]].shape == (n,)
        players[node["key"]] = node["player"]
        for c in node["children"]:
            collect(c)

    players: dict = {}
    for _, root in roots:
        collect(root)
    for t in range(1, iters + 1):
        for i in range(len(side_of)):
            sigma = {}
            for k, r in regret.items():
                sigma[k] = r / r.sum() if r.sum() > 0 else np.full(len(r), 1.0 / len(r))

            def walk(node: dict, own: float, opp: float, i: int = i, t: int = t, sigma: dict = sigma) -> float:
                if "leaf" in node:
                    return float(node["leaf"][side_of[i]])
                s = sigma[node["key"]]
                mine = node["player"] == i
                vals = np.array(
                    [
                        walk(c, own * s[a] if mine else own, opp if mine else opp * s[a])
                        for a, c in enumerate(node["children"])
                    ]
                )
                v = float(s @ vals)
                if mine:
                    regret[node["key"]] += opp * (vals - v)
                    avg[node["key"]] += t * own * s
                return v

            for prob, root in roots:
                walk(root, 1.0, prob)
            for k in regret:
                if players[k] == i:
                    np.maximum(regret[k], 0.0, out=regret[k])
    return avg, regret


@pytest.mark.parametrize(
    "spec, turns, depth",
    [
        (CLASSIC2, 4, 3),
        ("zwicker(variant=christiansen,players=3)", 3, 2),
        ("zwicker(variant=dithmarschen,players=4)", 6, 2),
    ],
)
def test_compiled_cfr_plus_equals_a_python_cfr_plus_on_the_same_subgame(spec: str, turns: int, depth: int) -> None:
    game, state = greedy_turns(2, turns, spec)
    d, worlds = _setup(state, 4)
    worlds = worlds[:3]
    w_prob = np.array([0.5, 0.3, 0.2])
    agent = make_agent(f"cfr-search:time=0,iters=25,depth={depth},leaf=after", game)
    strategy, _, stats = search.solve_subgame(d, worlds, w_prob, agent.params, agent, clock.now())
    assert stats["worlds"] == 3 and stats["depth"] == depth
    trees = [(float(p), _python_tree(d, w, depth, agent.model)) for p, w in zip(w_prob, worlds, strict=True)]
    R = d.rules_array
    side_of = [int(R[layout.R_SIDE_OF + q]) for q in range(game.num_players())]
    avg, _ = _python_cfr_plus(trees, side_of, 25)
    assert len(avg) == int(agent.solver().tmeta[M_ROWS])  # the same information sets
    assert len(avg) > 10
    want = avg["root"] / avg["root"].sum()
    np.testing.assert_allclose(strategy, want, atol=1e-9)


def test_cfr_plus_root_strategy_converges_to_the_best_move_of_one_world() -> None:
    """With one world and depth 1 the subgame is a one-shot choice among the root moves' leaf
    values: CFR+ puts (almost) all its weight on the best one."""
    game, state = greedy_turns(2, 4, CLASSIC2)
    d, worlds = _setup(state, 4)
    agent = make_agent("cfr-search:time=0,iters=200,depth=1", game)
    strategy, values, _ = search.solve_subgame(d, worlds[:1], np.ones(1), agent.params, agent, clock.now())
    assert strategy[int(np.argmax(values))] > 0.95


# ------------------------------------------------------------------------------------------------
# Play
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "spec",
    [
        CLASSIC2,
        "zwicker(variant=classic,players=3)",  # no after model shipped: leaf=auto is rollout
        "zwicker(variant=classic,players=4)",
        "zwicker(variant=grupp,players=4)",
        "zwicker(variant=dithmarschen,players=4)",
        "zwicker(variant=dithmarschen,players=2)",
        "zwicker(variant=grossenwiehe,players=4)",
        "zwicker(variant=christiansen,players=3)",
    ],
)
def test_plays_whole_games_in_every_variant(spec: str) -> None:
    game = pyspiel.load_game(spec)
    state, decisions = play_whole_game(game, [f"cfr-search:{FAST}", "greedy"], seed=3)
    assert state.is_terminal() and decisions > 4


def test_leaf_auto_resolves_by_the_shipped_after_models() -> None:
    assert make_agent("cfr-search", pyspiel.load_game(CLASSIC2)).leaf == "after"
    three = make_agent("cfr-search", pyspiel.load_game("zwicker(variant=classic,players=3)"))
    assert three.leaf == "rollout" and three.identity()["leaf_resolved"] == "rollout"


@pytest.mark.parametrize("spec", [FAST, f"{FAST},play=argmax", "time=0,iters=30,worlds=3,leaf=rollout,nodes=5000"])
def test_seeds_reproduce_games(spec: str) -> None:
    game = pyspiel.load_game(CLASSIC2)

    def moves(seed: int) -> list:
        agents = [make_agent(f"cfr-search:{spec}", game), make_agent("greedy", game)]
        return play_game(game, agents, deal_seed=1, agent_seeds=[seed, 0], labels=False).moves

    first = moves(7)
    assert moves(7) == first


def test_a_time_budget_deepens_and_solves_within_it() -> None:
    game, state = greedy_turns(2, 5, CLASSIC2)
    assert len(state.decision().candidates) > 1
    agent = make_agent("cfr-search:time=0.2", game, seed=1)
    agent.act(state)  # the first decision sets the build-rate estimate
    t0 = clock.now()
    agent.act(state)
    spent = clock.now() - t0
    assert agent.last["mode"] == "cfr" and agent.last["iters"] > 0 and agent.last["depth"] >= 1
    assert spent < 0.2 + 0.3  # the budget plus the fixed costs of one decision


def test_depth_limit_and_iterations_are_obeyed() -> None:
    game, state = greedy_turns(2, 5, CLASSIC2)
    agent = make_agent("cfr-search:time=0,iters=7,depth=2,worlds=5", game, seed=1)
    agent.act(state)
    assert agent.last["depth"] == 2 and agent.last["deepest"] <= 2 and agent.last["iters"] == 7
    assert agent.last["worlds"] <= 5


@pytest.mark.parametrize(
    "spec, words",
    [
        ("cfr-search:leaf=value", "leaf='value' is not valid; valid: auto, after, rollout"),
        ("cfr-search:play=best", "play='best' is not valid; valid: sample, argmax"),
        ("cfr-search:time=0", "give a time budget"),
        ("cfr-search:worlds=0", "worlds=0 is not valid"),
        ("cfr-search:depth=-1", "depth=-1 is not valid"),
        ("cfr-search:depth=65", "depth=65 is not valid"),
        ("cfr-search:nodes=0", "nodes=0 is not valid"),
        ("cfr-search:iters=30000000", "more than a search can hold"),
        ("cfr-search:infer=-1", "infer=-1.0 is not valid"),
        ("cfr-search:leaf=rollout,model=x.npz", "leaf=rollout reads no model"),
        ("cfr-search:depth=two", "is not a valid int"),
    ],
)
def test_bad_parameters_give_one_line_errors(spec: str, words: str) -> None:
    with pytest.raises(ValueError) as err:
        make_agent(spec, pyspiel.load_game(CLASSIC2))
    assert words in str(err.value) and "\n" not in str(err.value)


def test_plays_only_zwicker() -> None:
    with pytest.raises(ValueError, match="plays zwicker"):
        make_agent("cfr-search", pyspiel.load_game("zwikken"))


def test_view_key_ignores_the_hidden_cards_and_sees_the_own_hand() -> None:
    """The key of a position is unchanged by swapping two cards between another seat's hand and
    the stock, and changed by swapping one of the seat's own cards with the stock."""
    _, state = greedy_turns(2, 2, CLASSIC2)
    R = state.decision().rules_array
    S = state.decision().position.copy()
    p = int(arrays.to_move(S))
    h = np.uint64(12345)

    def swapped(q: int) -> np.ndarray:
        T = S.copy()
        c = int(T[layout.S_HANDS + q * layout.MAX_HAND])
        pos = int(T[layout.S_STOCK_TOP])
        s = int(T[layout.S_STOCK + pos])
        T[layout.S_STOCK + pos] = c
        T[layout.S_LOC + c], T[layout.S_LOC + s] = T[layout.S_LOC + s], T[layout.S_LOC + c]
        kernels.hand_remove(T, q, c)
        kernels.hand_insert(T, q, s)
        return T

    assert int(arrays.stock_left(S)) > 0
    key = subgame.view_key(R, S, h, np.uint64(7))
    assert subgame.view_key(R, swapped(1 - p), h, np.uint64(7)) == key
    assert subgame.view_key(R, swapped(p), h, np.uint64(7)) != key
    assert subgame.view_key(R, S, np.uint64(12346), np.uint64(7)) != key  # the history is in it


def test_leaf_rewards_of_a_finished_hand_are_its_true_score() -> None:
    game, state = greedy_turns(2, 0, CLASSIC2)
    R = state.decision().rules_array
    S = state.decision().position.copy()
    W = kernels.new_workspace()
    kernels.play_out(R, S, np.zeros(2, np.int64), W)
    out = np.zeros(2)
    model = value_model.empty_model()
    d = zwicker_search.DecisionSetup(state, np.random.default_rng(0))
    row = d.rows[:1].copy()
    leaf = subgame.Leaf(subgame.LEAF_AFTER, model, d.total, False)
    subgame.leaf_rewards(R, S, row, S, leaf, layer_memo(model), subgame.new_context(), out)
    np.testing.assert_allclose(out, zwicker_search.side_rewards(R, S, False, d.total))
    assert out[0] == -out[1]


def test_registered_and_listed() -> None:
    from zwick_ai.agents import registered

    info = next(i for i in registered() if i.name == "cfr-search")
    assert [p.name for p in info.params][:4] == ["time", "iters", "worlds", "depth"]
