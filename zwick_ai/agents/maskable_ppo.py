"""A trained sb3-contrib ``MaskablePPO`` policy as an agent (the ``rl`` extra; ``experiments/rl``).

Spec ``ppo:policy=PATH`` (a ``.zip`` saved by ``MaskablePPO.save``), ``sample=false``: the
policy acts on the information-state tensor of its seat passed through :func:`policy_features`
(the same transform the training environment applied) with the legal actions as its mask, one
OpenSpiel action at a time until its decision is complete (a Zwicker move is its sub-actions).
By default it takes the most probable legal action; ``sample=true`` draws from the masked policy
with the agent's seeded generator, so play stays reproducible. It is a
:class:`~zwick_ai.agents.policy.PolicyAgent`, which composes the whole decisions.

A Stable-Baselines3 zip holds pickled Python objects (the policy class, the spaces, schedules),
and ``MaskablePPO.load`` unpickles them: loading a zip that way runs whatever code it carries.
This agent never does. It reads only the zip's ``data`` as JSON (the observation shape and the
number of actions, written there as plain text) and the policy's weights from ``policy.pth`` with
:func:`zwick_ai.files.load_torch_tensors` (``torch.load(weights_only=True)``: tensors only;
anything else is refused), and evaluates the
policy network in numpy (:class:`PolicyWeights`). It plays the ``MlpPolicy`` of MaskablePPO on a
flat observation: a ``tanh`` multi-layer perceptron (``mlp_extractor.policy_net``) and the linear
``action_net``. A file whose keyword arguments were pickled (a custom activation or extractor) is
refused, as is one whose weights are not that network.
"""

from __future__ import annotations

import importlib.util
import json
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyspiel

from zwick_ai.agents.base import Param, register
from zwick_ai.agents.policy import PolicyAgent
from zwick_ai.files import load_torch_tensors

#: what to install when torch is missing
INSTALL_HINT = 'the ppo agent reads policy files with torch, of the "rl" extra: pip install -e ".[rl]"'


def policy_features(tensor: np.ndarray) -> np.ndarray:
    """What the policy network sees of an information-state tensor: ``log(1 + x)`` as float32.

    The tensors mix one-hots with counts and ply numbers in the hundreds; the logarithm keeps
    every entry informative on one scale without statistics that would have to be saved."""
    return np.log1p(np.asarray(tensor, dtype=np.float32))


@dataclass(frozen=True)
class PolicyWeights:
    """The policy network of a MaskablePPO ``MlpPolicy``: hidden layers ``(W, b)`` with ``tanh``,
    then the action layer; ``obs_shape`` and ``actions`` as the file's spaces give them."""

    hidden: list[tuple[np.ndarray, np.ndarray]]
    action: tuple[np.ndarray, np.ndarray]
    obs_shape: tuple[int, ...]
    actions: int

    def logits(self, obs: np.ndarray) -> np.ndarray:
        """The action logits of one observation (flattened, as the ``FlattenExtractor`` does)."""
        h = np.asarray(obs, np.float32).reshape(-1)
        for w, b in self.hidden:
            h = np.tanh(w @ h + b)
        return self.action[0] @ h + self.action[1]


def _space(data: dict[str, Any], name: str, field: str) -> Any:
    """A space's plain-text ``field`` from the zip's JSON (never its pickled form)."""
    space = data.get(name)
    if not isinstance(space, dict) or field not in space:
        raise ValueError(f"its {name} has no plain {field}")
    return json.loads(str(space[field]))


def read_policy(path: str) -> PolicyWeights:
    """The policy network of a MaskablePPO zip, read without unpickling anything (module docstring)."""
    if importlib.util.find_spec("torch") is None:
        raise ValueError(INSTALL_HINT)
    if not Path(path).is_file():
        raise ValueError(f"ppo: no policy file {path!r}")
    try:
        with zipfile.ZipFile(path) as z:
            data = json.loads(z.read("data").decode())
            arrays = load_torch_tensors(z.read("policy.pth"), "its policy.pth")
        kwargs = data.get("policy_kwargs", {})
        if not isinstance(kwargs, dict) or ":serialized:" in kwargs:
            raise ValueError(
                "its policy keyword arguments are pickled objects (a custom network); only MlpPolicy is read"
            )
        shape = tuple(int(n) for n in _space(data, "observation_space", "_shape"))
        actions = int(_space(data, "action_space", "n"))
    except (OSError, KeyError, ValueError, TypeError, EOFError, RuntimeError, zipfile.BadZipFile) as e:
        raise ValueError(f"ppo: {path} is not a MaskablePPO policy this agent reads ({e})") from None
    hidden: list[tuple[np.ndarray, np.ndarray]] = []
    while f"mlp_extractor.policy_net.{2 * len(hidden)}.weight" in arrays:
        i = 2 * len(hidden)  # Linear, Tanh, Linear, Tanh, ...: the linear layers are the even ones
        hidden.append((arrays[f"mlp_extractor.policy_net.{i}.weight"], arrays[f"mlp_extractor.policy_net.{i}.bias"]))
    if "action_net.weight" not in arrays or "action_net.bias" not in arrays:
        raise ValueError(f"ppo: {path} has no action_net weights (not a MaskablePPO MlpPolicy)")
    weights = PolicyWeights(hidden, (arrays["action_net.weight"], arrays["action_net.bias"]), shape, actions)
    width = int(np.prod(shape))
    for w, b in [*hidden, weights.action]:
        if w.ndim != 2 or w.shape[1] != width or b.shape != (w.shape[0],):
            raise ValueError(f"ppo: {path} has layers that do not chain from {width} inputs")
        width = w.shape[0]
    if width != actions:
        raise ValueError(f"ppo: {path} has {width} action outputs for {actions} actions")
    return weights


@register(
    "ppo",
    params=(
        Param("policy", str, "", "path of a MaskablePPO .zip trained on this game (experiments/rl)"),
        Param("sample", bool, False, "draw from the masked policy instead of taking its most probable action"),
    ),
)
class MaskablePPOAgent(PolicyAgent):
    """A trained MaskablePPO policy (sb3-contrib) on the information-state tensor with the legal-action mask."""

    def __init__(self, game: pyspiel.Game, seed: int = 0, **params: Any):
        super().__init__(
            game,
            self._logits,
            seed,
            sample=params["sample"],
            information_state=True,
            features=policy_features,
            params=params,
        )
        if not params["policy"]:
            raise ValueError("ppo: give the policy file, e.g. ppo:policy=experiments/rl/ppo.zip")
        self.model = read_policy(params["policy"])
        want = tuple(game.information_state_tensor_shape())
        if self.model.obs_shape != want:
            raise ValueError(
                f"ppo: {params['policy']} was trained on observations of shape {self.model.obs_shape}; "
                f"{game} has {want} (another game?)"
            )
        if self.model.actions != game.num_distinct_actions():
            raise ValueError(
                f"ppo: {params['policy']} has {self.model.actions} actions; {game} has {game.num_distinct_actions()}"
            )

    def files(self) -> list[str | Path]:
        return [self.params["policy"]]

    def _logits(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The policy network's logits ``[B, A]`` of the features ``obs`` (the masks are applied by
        :class:`~zwick_ai.agents.policy.PolicyAgent`)."""
        return np.stack([self.model.logits(o) for o in obs]).astype(np.float64)

    def probabilities(self, state: pyspiel.State) -> np.ndarray:
        """The masked policy's probability of every action of ``state.current_player()``."""
        return self.distribution(state)
