"""PPO with action masks on :class:`~zwick_ai.vector.VectorGame` (``zwick train ppo``; PyTorch:
``pip install zwick_ai[train]``): the reference learner of the batched rollout path
(:mod:`zwick_ai.learn.vector_rollout`).

An iteration resets ``games`` games from deal seeds of its own, plays ``steps`` steps of each with
the current policy (:class:`~zwick_ai.learn.vector_rollout.VectorRollout`), computes GAE per seat
(:func:`~zwick_ai.learn.vector_rollout.advantages`; rewards are the seat's returns divided by the
game's largest return) and runs ``epochs`` passes of Adam over shuffled minibatches of ``batch``
transitions on the clipped objective (Schulman et al. 2017) with a value loss and an entropy bonus,
the entropy and the log-probabilities taken over the legal actions only. The env steps one block
of games on a second thread while the network reads the other (``overlap``: the same draws). ``opponent="greedy"``
puts the learner at every seat against the compiled greedy baseline (the games split evenly over
the seats); ``"self"`` lets the policy play every seat (self-play).

Every ``eval_every`` iterations the policy (its most probable legal action) plays the compiled
greedy baseline on ``eval_deals`` fixed duplicate deals, at every seat of each deal
(:func:`strength`): the learner's points per deal minus greedy's, with a 95% CI over the deals
(:func:`zwick_ai.stats.mean_ci`), in ``strength.csv`` and ``strength.png``. Each such point also
writes the checkpoint: ``checkpoint.pt`` (the model's and Adam's state dicts, read back with
``torch.load(weights_only=True)``), ``checkpoint.json`` (the iteration, steps and seconds) and
``policy.npz``, the policy alone, which :class:`zwick_ai.mlp.PolicyNet` plays with numpy only (as a
``policy_fn`` of :class:`zwick_ai.agents.PolicyAgent`).
Every random choice comes from ``seed`` and the iteration number, so a run stopped and resumed
continues as one that never stopped (with the same torch thread count). ``train.csv`` logs
every iteration (mean return of the finished games, losses, entropy, KL, steps a second).
"""

from __future__ import annotations

import csv
import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from zwick_ai.files import read_json, replacing
from zwick_ai.learn.vector_rollout import (
    VectorRollout,
    _torch,
    advantages,
    masked_logits,
    policy_network,
    set_threads,
)
from zwick_ai.vector import VectorGame

EVAL_SEED = 7  # the strength curve's deals (fixed for every point and run)
TRAIN_SEEDS = 1_000_000  # training deals start here: never the evaluation's
SEED_STRIDE = 1_000_003
OPPONENTS = ("greedy", "self")
STRENGTH_FIELDS = ["iteration", "steps", "seconds", "deals", "mean_diff", "ci_low", "ci_high"]
TRAIN_FIELDS = [
    "iteration", "steps", "seconds", "games_ended", "mean_return", "policy_loss", "value_loss", "entropy",
    "approx_kl", "clip_fraction", "steps_per_second",
]  # fmt: skip

Progress = Callable[[str], None]


@dataclass(frozen=True)
class PPOConfig:
    """Everything that decides a run's checkpoints (not how long it runs)."""

    game: str = "zwicker(variant=dithmarschen,players=2,ranks=9TJQKA)"
    games: int = 1024
    steps: int = 64
    epochs: int = 2
    batch: int = 8192
    lr: float = 1e-3
    clip: float = 0.2
    gamma: float = 1.0
    lam: float = 0.95
    entropy: float = 0.01
    value_coef: float = 0.5
    max_grad_norm: float = 0.5
    hidden: tuple[int, ...] = field(default=(128, 128))
    opponent: str = "greedy"
    seed: int = 0
    eval_every: int = 10
    eval_deals: int = 500

    def check(self) -> None:
        """Refuse values no run can use (one clear sentence)."""
        if self.opponent not in OPPONENTS:
            raise ValueError(f"--opponent must be one of {', '.join(OPPONENTS)}, not {self.opponent!r}")
        for name in ("games", "steps", "epochs", "batch", "eval_every", "eval_deals"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, not {getattr(self, name)}")
        if self.opponent == "greedy" and self.games < 2:
            raise ValueError("with greedy opponents the learner sits at every seat: games must be at least 2")
        if not self.hidden or min(self.hidden) < 1:
            raise ValueError(f"hidden layer sizes must be positive, not {self.hidden}")
        if not (self.lr > 0 and 0 < self.clip < 1 and 0 <= self.gamma <= 1 and 0 <= self.lam <= 1):
            raise ValueError("lr must be positive, clip in (0, 1), gamma and lam in [0, 1]")


def make_games(cfg: PPOConfig, threads: int = 1) -> list[VectorGame]:
    """The training games: against greedy, the games split evenly over the learner's seats (each
    block with greedy at every other seat); in self-play two blocks without opponents (blocks take
    turns: one steps while the network reads the other)."""
    players = VectorGame(cfg.game, 1).num_players
    if cfg.opponent == "self":
        half = cfg.games // 2
        return [VectorGame(cfg.game, n, threads=threads) for n in (half, cfg.games - half) if n > 0]
    bounds = np.linspace(0, cfg.games, players + 1).astype(int)
    return [
        VectorGame(
            cfg.game,
            int(bounds[s + 1] - bounds[s]),
            opponents={o: "greedy" for o in range(players) if o != s},
            threads=threads,
        )
        for s in range(players)
    ]


def reward_scale(game: VectorGame) -> float:
    """The game's largest return: the rewards are divided by it."""
    return float(max(abs(game.game.max_utility()), abs(game.game.min_utility()))) or 1.0


def update(rollout: VectorRollout, model: Any, optimizer: Any, cfg: PPOConfig, generator: Any) -> dict[str, float]:
    """One PPO update on a collected rollout (module docstring); returns the mean losses,
    entropy, approximate KL and share of clipped ratios."""
    torch = _torch()
    scale = reward_scale(rollout.games[0])
    adv_np, ret_np = advantages(
        rollout.seat_np,
        rollout.value_np,
        rollout.rewards_np / np.float32(scale),
        rollout.done_np,
        rollout.last_seat_np,
        rollout.last_value_np,
        cfg.gamma,
        cfg.lam,
    )
    total = rollout.steps * rollout.num_games
    obs = rollout.obs.reshape(total, -1)
    mask = rollout.mask.reshape(total, -1)
    actions = rollout.actions.reshape(total)
    old_logp = rollout.logp.reshape(total)
    adv = torch.from_numpy(adv_np).reshape(total)
    ret = torch.from_numpy(ret_np).reshape(total)
    sums = np.zeros(5)
    batches = 0
    for _ in range(cfg.epochs):
        order = torch.randperm(total, generator=generator)
        for lo in range(0, total, cfg.batch):
            idx = order[lo : lo + cfg.batch]
            logits, value = model(obs[idx])
            m = mask[idx]
            logp_all = torch.log_softmax(masked_logits(logits, m), dim=1)
            logp = logp_all.gather(1, actions[idx, None]).squeeze(1)
            a = adv[idx]
            a = (a - a.mean()) / (a.std() + 1e-8)
            log_ratio = logp - old_logp[idx]
            ratio = torch.exp(log_ratio)
            policy_loss = -torch.min(ratio * a, torch.clamp(ratio, 1 - cfg.clip, 1 + cfg.clip) * a).mean()
            value_loss = torch.mean((value - ret[idx]) ** 2)
            legal_logp = torch.where(m, logp_all, torch.zeros_like(logp_all))  # no 0 * -inf in the gradient
            entropy = -(logp_all.exp() * legal_logp).sum(1).mean()
            loss = policy_loss + cfg.value_coef * value_loss - cfg.entropy * entropy
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.max_grad_norm)
            optimizer.step()
            with torch.no_grad():
                kl = ((ratio - 1) - log_ratio).mean()
                clipped = ((ratio - 1).abs() > cfg.clip).float().mean()
            sums += [float(x.detach()) for x in (policy_loss, value_loss, entropy, kl, clipped)]
            batches += 1
    names = ("policy_loss", "value_loss", "entropy", "approx_kl", "clip_fraction")
    return dict(zip(names, (sums / max(batches, 1)).tolist(), strict=True))


def greedy_actions(model: Any, observation: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """The policy's most probable legal action for every row."""
    torch = _torch()
    with torch.inference_mode():
        logits, _ = model(torch.from_numpy(np.array(observation)))
        return masked_logits(logits, torch.from_numpy(np.array(legal))).argmax(1).numpy()


def strength(model: Any, game_string: str, deals: int, seed: int = EVAL_SEED) -> tuple[float, float, float]:
    """The policy (its most probable legal action) against the compiled greedy baseline on deals
    ``seed`` .. ``seed + deals - 1``, at every seat of each deal with greedy at the others: the mean
    over the deals of the learner's side points minus the mean of the other sides' (a tournament's
    ``mean_diff``; a side's return is the number of sides times its points minus the points of all),
    and its 95% CI."""
    from zwick_ai.stats import mean_ci

    first = VectorGame(game_string, 1)
    players = first.num_players
    sides = int(first.game.rules.num_sides)
    diff = np.zeros(deals)
    for seat in range(players):
        env = VectorGame(game_string, deals, seed=seed, opponents={o: "greedy" for o in range(players) if o != seat})
        ts = env.reset()
        seen = np.zeros(deals, np.bool_)
        while not seen.all():
            ts = env.step(greedy_actions(model, ts.observation, ts.legal_mask))
            new = ts.terminated & ~seen
            others = (ts.rewards.sum(axis=1) - ts.rewards[:, seat]) / (players - 1)
            diff[new] += (ts.rewards[new, seat] - others[new]) / players / sides
            seen |= new
    est = mean_ci(diff)
    return est.mean, est.ci95[0], est.ci95[1]


def export_policy(model: Any, cfg: PPOConfig, path: Path) -> None:
    """Write the policy head of ``model`` as ``path`` (an ``.npz`` of float32 arrays and a JSON
    ``meta``, no pickles) that :class:`zwick_ai.mlp.PolicyNet` plays with numpy alone."""
    linear = [m for m in model.trunk if hasattr(m, "weight")]
    arrays = {}
    for i, layer in enumerate(linear):
        arrays[f"W{i}"] = layer.weight.detach().numpy().T.copy()
        arrays[f"b{i}"] = layer.bias.detach().numpy().copy()
    arrays["Wpolicy"] = model.policy.weight.detach().numpy().T.copy()
    arrays["bpolicy"] = model.policy.bias.detach().numpy().copy()
    meta = {"kind": "ppo-policy", "game": cfg.game, "hidden_layers": len(linear), "input": "log1p(observation)"}
    with replacing(path, ".tmp.npz") as tmp:
        np.savez_compressed(tmp, allow_pickle=False, meta=np.array(json.dumps(meta)), **arrays)


def _read_rows(path: Path) -> list[dict[str, str]]:
    if not path.is_file():
        return []
    with path.open(newline="") as fh:
        return list(csv.DictReader(fh))


def _write_rows(path: Path, fields: list[str], rows: list[dict[str, Any]]) -> None:
    with replacing(path) as tmp, tmp.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)


def plot_strength(out: Path, title: str) -> None:
    """``strength.png`` from ``strength.csv``: points per deal against greedy over training steps."""
    from zwick_ai.plots import pyplot as load_pyplot
    from zwick_ai.plots import save_png

    pyplot = load_pyplot()
    rows = _read_rows(out / "strength.csv")
    xs = [int(r["steps"]) / 1e6 for r in rows]
    ys = [float(r["mean_diff"]) for r in rows]
    err = [[y - float(r["ci_low"]) for y, r in zip(ys, rows, strict=True)],
           [float(r["ci_high"]) - y for y, r in zip(ys, rows, strict=True)]]  # fmt: skip
    fig, ax = pyplot.subplots(figsize=(6, 4))
    ax.errorbar(xs, ys, yerr=err, marker="o", capsize=3)
    ax.axhline(0.0, color="grey", lw=0.8)
    ax.set_xlabel("learner steps (millions)")
    ax.set_ylabel("points/deal minus greedy's")
    deals = rows[-1]["deals"] if rows else "?"
    ax.set_title(f"{title}\n({deals} duplicate deals per point, every seat, 95% CI)", fontsize=8)
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    save_png(fig, out / "strength.png", dpi=100)
    pyplot.close(fig)


def _config_json(cfg: PPOConfig) -> dict[str, Any]:
    d = asdict(cfg)
    d["hidden"] = list(cfg.hidden)
    return d


def train_ppo(
    cfg: PPOConfig,
    out: Path,
    iterations: int | None = None,
    hours: float | None = None,
    resume: bool = False,
    threads: int = 1,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Train in ``out`` until ``iterations`` iterations (the total) or ``hours`` of wall time;
    ``resume`` continues the checkpoint there (a run with a different configuration is refused).
    Returns the last ``checkpoint.json``."""
    torch = _torch()
    cfg.check()
    if iterations is None and hours is None:
        raise ValueError("give a budget: --iterations N (the total) or --hours H")
    say = progress or (lambda _msg: None)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    config_path, ck_json, ck_pt = out / "config.json", out / "checkpoint.json", out / "checkpoint.pt"
    if config_path.is_file() and not resume:
        raise ValueError(f"{out} holds a run already; --resume continues it (a run is never overwritten)")
    if resume and not ck_json.is_file():
        raise ValueError(f"{out} holds no checkpoint to resume; leave out --resume to start a run there")
    if config_path.is_file() and read_json(config_path) != _config_json(cfg):
        raise ValueError(f"{out} holds a run with another configuration ({config_path}); use another --out")
    set_threads(threads)
    games = make_games(cfg)
    torch.manual_seed(cfg.seed)
    model = policy_network(games[0].observation_size, games[0].num_actions, cfg.hidden)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    state: dict[str, Any] = {"iteration": 0, "steps": 0, "seconds": 0.0}
    if resume:
        state = read_json(ck_json)
        try:
            saved = torch.load(ck_pt, weights_only=True)
            model.load_state_dict(saved["model"])
            optimizer.load_state_dict(saved["optimizer"])
        except Exception as error:  # torch's readers raise several kinds for a damaged file
            raise ValueError(f"{ck_pt} is damaged or not ours ({type(error).__name__}); move it away") from None
        say(f"resumed at iteration {state['iteration']}")
    else:
        with replacing(config_path) as tmp:
            tmp.write_text(json.dumps(_config_json(cfg), indent=1) + "\n")
    done = int(state["iteration"])
    strength_rows: list[dict[str, Any]] = [r for r in _read_rows(out / "strength.csv") if int(r["iteration"]) <= done]
    train_rows: list[dict[str, Any]] = [r for r in _read_rows(out / "train.csv") if int(r["iteration"]) <= done]
    rollout = VectorRollout(games, cfg.steps, model, overlap=len(games) > 1)
    start, seconds0 = time.perf_counter(), float(state["seconds"])
    per_iteration = cfg.steps * cfg.games
    while True:
        elapsed = time.perf_counter() - start
        if iterations is not None and done >= iterations:
            break
        if hours is not None and elapsed >= hours * 3600:
            break
        generator = torch.Generator().manual_seed(cfg.seed * SEED_STRIDE + done)
        t0 = time.perf_counter()
        rollout.collect(TRAIN_SEEDS + (cfg.seed * SEED_STRIDE + done) * cfg.games)
        stats = update(rollout, model, optimizer, cfg, generator)
        rate = per_iteration / (time.perf_counter() - t0)
        done += 1
        ended = int(rollout.done_np.sum())
        learner = np.take_along_axis(rollout.rewards_np, rollout.seat_np[:, :, None], axis=2)[:, :, 0]
        mean_return = float(learner[rollout.done_np].mean()) if ended else float("nan")
        seconds = seconds0 + time.perf_counter() - start
        train_rows.append(
            {"iteration": done, "steps": done * per_iteration, "seconds": round(seconds, 2), "games_ended": ended,
             "mean_return": round(mean_return, 4), **{k: round(v, 5) for k, v in stats.items()},
             "steps_per_second": round(rate)}
        )  # fmt: skip
        last = (iterations is not None and done >= iterations) or (
            hours is not None and time.perf_counter() - start >= hours * 3600
        )
        if done % cfg.eval_every == 0 or last:
            mean, low, high = strength(model, cfg.game, cfg.eval_deals)
            strength_rows.append(
                {"iteration": done, "steps": done * per_iteration, "seconds": round(seconds, 2),
                 "deals": cfg.eval_deals, "mean_diff": round(mean, 4), "ci_low": round(low, 4),
                 "ci_high": round(high, 4)}
            )  # fmt: skip
            state = {"iteration": done, "steps": done * per_iteration, "seconds": round(seconds, 2)}
            with replacing(ck_pt) as tmp:
                torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()}, tmp)
            export_policy(model, cfg, out / "policy.npz")
            _write_rows(out / "train.csv", TRAIN_FIELDS, train_rows)
            _write_rows(out / "strength.csv", STRENGTH_FIELDS, strength_rows)
            with replacing(ck_json) as tmp:  # last: the checkpoint names only files already written
                tmp.write_text(json.dumps(state) + "\n")
            plot_strength(out, f"zwick train ppo: {games[0].game.rules.describe()}, opponent {cfg.opponent}")
            say(f"iteration {done}: {mean:+.2f} [{low:+.2f}, {high:+.2f}] points/deal vs greedy, {rate:,.0f} steps/s")
    return state


__all__ = ["PPOConfig", "export_policy", "make_games", "strength", "train_ppo", "update"]
