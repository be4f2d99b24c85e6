"""One agent interface for the three games, and the registry of agents by spec string.

An agent plays one seat of an OpenSpiel state of ``zwicker``, ``zwikken`` or ``zwicken`` (the games
of :mod:`zwick_ai.games`). It decides one **whole decision** at a time: in Zwicker a whole move
(its sub-actions, e.g. ``QS``, ``as 13``, ``take QD``, ``done``), in the trick games one action.
It must use only what its seat may know: the state object holds the hidden cards too, so search
agents draw worlds with ``state.resample_from_infostate`` (or the compiled resamplers) and never
read other hands.

Specs name an agent and its parameters: ``name`` or ``name:key=value,key=value``, e.g.
``ismcts:iters=2000,c=0.7``. An agent from outside the package is named by its import path,
``module:Class`` or ``module:Class,key=value`` (:mod:`zwick_ai.agents.outside`: imported from the
current directory or ``PYTHONPATH``), or by the name an installed package gives it under the entry
point group ``zwick_ai.agents``. :func:`make_agent` checks names, keys and values and says what is
valid:

>>> import pyspiel, zwick_ai.games, zwick_ai.agents
>>> game = pyspiel.load_game("zwicker(variant=dithmarschen,players=4)")
>>> agent = make_agent("random", game, seed=3)
>>> agent.spec
'random'
>>> make_agent("random:iters=5", game)
Traceback (most recent call last):
...
ValueError: agent 'random' has no parameter 'iters'; it takes no parameters
>>> parse_spec("ismcts:iters=2000,c=0.7")
('ismcts', {'iters': '2000', 'c': '0.7'})
>>> parse_spec("my_agent:MyAgent,depth=2")
('my_agent:MyAgent', {'depth': '2'})
"""

from __future__ import annotations

import abc
import copy
import inspect
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyspiel

# the decisions an agent chooses live with the games; agents import them from here too
from zwick_ai.agents import clock, outside
from zwick_ai.games.decisions import apply_decision, compose_decision, decision_label, decision_over, legal_decisions  # noqa: F401

GAMES = ("zwicker", "zwikken", "zwicken")


# ------------------------------------------------------------------------------------------------
# The games agents play
# ------------------------------------------------------------------------------------------------
def game_name(game: pyspiel.Game) -> str:
    """The short name (``zwicker``, ``zwikken``, ``zwicken``) of one of our games."""
    name = game.get_type().short_name
    if name not in GAMES:
        raise ValueError(f"zwick_ai agents play {', '.join(GAMES)}, not {name!r}")
    return name


# ------------------------------------------------------------------------------------------------
# The interface
# ------------------------------------------------------------------------------------------------
class Agent(abc.ABC):
    """An agent for one seat. Construct with :func:`make_agent` (or the class with the game, a
    seed and its parameters). Lifecycle: ``reset(seed)`` before each deal, then ``act(state)`` at
    each of its decisions. Every random choice comes from ``self.rng``, seeded by ``reset``."""

    #: registry name, set by :func:`register`
    name: str = ""

    def __init__(self, game: pyspiel.Game, seed: int = 0, **params: Any):
        self.game = game
        self.game_name = game_name(game)
        self.params = params
        self.rng = np.random.default_rng(seed)
        self.seed = seed

    @property
    def spec(self) -> str:
        """The canonical spec string (name and every parameter that differs from its default);
        an agent class that is not registered is named by its class."""
        info = _REGISTRY.get(self.name) or _OUTSIDE.get(self.name)
        if info is None:
            return self.name or type(self).__name__
        given = [f"{p.name}={_fmt(self.params[p.name])}" for p in info.params if self.params[p.name] != p.default]
        start = "," if outside.is_import_path(self.name) else ":"  # module:Class,key=value
        return self.name + (start + ",".join(given) if given else "")

    def identity(self) -> dict[str, Any]:
        """What decides this agent's play, for a results folder to check before it resumes: the
        name and every parameter with the defaults filled in (so a changed default makes a
        different agent), under ``files`` a digest of every file :meth:`files` names, and for a
        class from outside the package under ``source`` a digest of its module's source
        (:func:`zwick_ai.agents.outside.source_digest`). Agents that read weights may add what
        they resolved (see subclasses); an override should extend ``super().identity()``."""
        out: dict[str, Any] = {"name": self.name, "params": {k: self.params[k] for k in sorted(self.params)}}
        files = {str(f): outside.file_digest(f) for f in self.files()}
        if files:
            out["files"] = files
        module = type(self).__module__
        if module.split(".")[0] != "zwick_ai":
            digest = outside.source_digest(module)
            if digest is not None:
                out["source"] = {"module": module, "sha256": digest}
        return out

    def files(self) -> list[str | Path]:
        """The files (or folders) this agent reads besides its code: weights, policies, tables.
        Their digests enter :meth:`identity`, so a results folder refuses to resume with other
        weights behind the same path. None by default."""
        return []

    def reset(self, seed: int) -> None:
        """Start a new deal; all randomness of the deal flows from ``seed``."""
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    def fork(self) -> Agent:
        """An independent twin that decides exactly as this agent would from here on: its random
        stream and whatever it keeps between decisions are copied, only the game is shared (for
        replaying a game from a point of its history, as the strong joker study does)."""
        return copy.deepcopy(self, {id(self.game): self.game})

    @abc.abstractmethod
    def act(self, state: pyspiel.State) -> list[int]:
        """The actions of one whole decision of ``state.current_player()`` (the state is not changed)."""

    def decision_distribution(self, state: pyspiel.State) -> dict[tuple[int, ...], float] | None:
        """The exact probability of each whole decision :meth:`act` can play at ``state``, when the
        agent can say (a policy table); None (the default) when it cannot, and the decision has to
        be sampled (``zwick exploitability`` then estimates its policy from repeated calls)."""
        return None

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec}>"


class Budget:
    """A per-decision budget: ``iters`` iterations and/or ``time`` seconds (0 = no limit).

    >>> b = Budget(iters=3, seconds=0)
    >>> b.start(); [b.more() for _ in range(4)]
    [True, True, True, False]
    """

    def __init__(self, iters: int, seconds: float):
        if iters <= 0 and seconds <= 0:
            raise ValueError("give a positive iteration count or time budget")
        self.iters, self.seconds = iters, seconds
        self.done = 0
        self.t0 = 0.0

    def start(self) -> None:
        self.done = 0
        self.t0 = clock.now()

    def more(self) -> bool:
        if self.iters > 0 and self.done >= self.iters:
            return False
        if self.seconds > 0 and self.done > 0 and clock.now() - self.t0 >= self.seconds:
            return False
        self.done += 1
        return True


# ------------------------------------------------------------------------------------------------
# Registry
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Param:
    """A parameter of an agent spec: its type (int, float, str or bool), default and meaning."""

    name: str
    type: type
    default: Any
    help: str

    def parse(self, agent: str, text: str) -> Any:
        try:
            if self.type is bool:
                if text.lower() in ("1", "true", "yes", "on"):
                    return True
                if text.lower() in ("0", "false", "no", "off"):
                    return False
                raise ValueError
            value = self.type(text)
        except ValueError:
            raise ValueError(
                f"agent {agent!r}: {self.name}={text!r} is not a valid {self.type.__name__} ({self.help})"
            ) from None
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"agent {agent!r}: {self.name}={text!r} is not a finite number ({self.help})")
        return value


@dataclass(frozen=True)
class AgentInfo:
    """A registered agent: name, class, parameters, games it plays and a one-line summary."""

    name: str
    cls: type[Agent]
    params: tuple[Param, ...]
    games: tuple[str, ...]
    summary: str
    check: Callable[[dict[str, Any]], None] | None = field(default=None, compare=False)

    def describe(self) -> str:
        keys = ", ".join(f"{p.name}={_fmt(p.default)} ({p.help})" for p in self.params)
        return f"{self.name}: {self.summary}" + (f" Parameters: {keys}." if keys else "")


_REGISTRY: dict[str, AgentInfo] = {}
#: agents from outside the package found by import path or entry point (:func:`agent_info`)
_OUTSIDE: dict[str, AgentInfo] = {}


def _fmt(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value).rstrip("0").rstrip(".") if "e" not in repr(value) else repr(value)
    return str(value)


def register(
    name: str,
    params: Sequence[Param] = (),
    games: Sequence[str] = GAMES,
    summary: str = "",
    check: Callable[[dict[str, Any]], None] | None = None,
) -> Callable[[type[Agent]], type[Agent]]:
    """Class decorator: register an :class:`Agent` under ``name`` with its spec parameters.
    ``check(params)`` may raise ``ValueError`` for invalid combinations."""

    def deco(cls: type[Agent]) -> type[Agent]:
        old = _REGISTRY.get(name)
        # The same class imported twice (e.g. pytest's importlib mode) may register again.
        if old is not None and old.cls.__qualname__ != cls.__qualname__:
            raise ValueError(f"agent name {name!r} is already registered by {old.cls.__qualname__}")
        cls.name = name
        doc = (cls.__doc__ or "").strip().split("\n\n")[0].replace("\n", " ")
        _REGISTRY[name] = AgentInfo(name, cls, tuple(params), tuple(games), summary or doc, check)
        return cls

    return deco


def registered() -> list[AgentInfo]:
    """Every registered agent (import :mod:`zwick_ai.agents` to register the built-in ones)."""
    return sorted(_REGISTRY.values(), key=lambda i: i.name)


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``name:key=value,...`` into the name and the raw key/value texts."""
    text = spec.strip()
    if not text:
        raise ValueError("empty agent spec")
    if not text.isprintable() or "`" in text:  # a spec is shown in reports' tables and code spans
        raise ValueError(f"agent spec {spec!r}: a spec is one line of printable characters, without a backtick")
    name, _, rest = text.partition(":")
    first, comma, after = rest.partition(",")
    if name.strip() not in _REGISTRY and outside.is_import_path(f"{name.strip()}:{first.strip()}"):
        name, rest = f"{name.strip()}:{first.strip()}", after if comma else ""  # module:Class,key=value
    out: dict[str, str] = {}
    for part in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = part.partition("=")
        if not eq or not key.strip():
            raise ValueError(f"agent spec {spec!r}: expected key=value, got {part!r}")
        if key.strip() in out:
            raise ValueError(f"agent spec {spec!r}: {key.strip()!r} given twice")
        out[key.strip()] = value.strip()
    return name.strip(), out


#: the most search iterations (tree nodes) a decision may ask for: a search preallocates its tree,
#: about 150 bytes a node, so this is about 3 GB
MAX_SEARCH_ITERS = 20_000_000


def check_cfr_budget(time: float, iters: int) -> None:
    """``ValueError`` unless a CFR search has a time budget or an iteration count it can hold."""
    if time < 0 or iters < 0:
        raise ValueError("time and iters must be >= 0")
    if time == 0 and iters == 0:
        raise ValueError("give a time budget (time, seconds) or a CFR+ iteration count (iters)")
    check_search_iters(iters)


def check_search_iters(iters: int, name: str = "iters") -> None:
    """``ValueError`` for an iteration count a search cannot hold in memory."""
    if iters > MAX_SEARCH_ITERS:
        raise ValueError(
            f"{name}={iters} is more than a search can hold (its tree is made in memory first); "
            f"give at most {MAX_SEARCH_ITERS} or a time budget (time=SECONDS)"
        )


def agent_info(name: str) -> AgentInfo:
    """The agent called ``name``: a registered one, a class by its import path ``module:Class``,
    or one an installed package registers under the entry-point group ``zwick_ai.agents``."""
    info = _REGISTRY.get(name)
    if info is not None:
        return info
    if outside.is_import_path(name):  # imported again (cheap) in case the module was reloaded
        found = outside.import_attribute(name)
        known = _OUTSIDE.get(name)
        return known if known is not None and known.cls is found else _outside_info(name, found)
    if name in _OUTSIDE:
        return _OUTSIDE[name]
    ep = outside.entry_points().get(name)
    if ep is not None:
        return _outside_info(name, outside.load_entry_point(ep))
    valid = ", ".join(sorted(set(_REGISTRY) | set(outside.entry_points())))
    raise ValueError(
        f"unknown agent {name!r}; registered agents: {valid}; an agent of your own: module:Class (e.g. my_agent:MyAgent)"
    )


def _outside_info(name: str, cls: Any) -> AgentInfo:
    """Register the class ``cls`` found under ``name`` (an import path or an entry point): a
    class that registered itself keeps its registration; another takes its spec parameters from
    its ``PARAMS`` (a sequence of :class:`Param`; default: those of the registered agent it
    derives from, else none) and the games it plays from ``GAMES`` (default: all three)."""
    if not (isinstance(cls, type) and issubclass(cls, Agent)):
        what = f"a {type(cls).__name__}" if not isinstance(cls, type) else f"the class {cls.__qualname__}"
        raise ValueError(f"agent {name!r} is {what}, not an agent (a subclass of zwick_ai.agents.Agent)")
    if inspect.isabstract(cls):
        missing = ", ".join(sorted(getattr(cls, "__abstractmethods__", ())))
        raise ValueError(f"agent {name!r}: {cls.__qualname__} does not define {missing}")
    own = _REGISTRY.get(cls.__dict__.get("name", ""))
    if own is not None and own.cls is cls:
        _OUTSIDE[name] = own
        return own
    inherited = next(
        (i for k in cls.__mro__[1:] if (i := _REGISTRY.get(k.__dict__.get("name", ""))) and i.cls is k), None
    )
    params = getattr(cls, "PARAMS", None)
    if params is None:
        params = inherited.params if inherited is not None else ()
    if not all(isinstance(p, Param) for p in params):
        raise ValueError(f"agent {name!r}: {cls.__qualname__}.PARAMS must be a sequence of zwick_ai.agents.Param")
    games = tuple(getattr(cls, "GAMES", GAMES))
    cls.name = name
    doc = (cls.__doc__ or "").strip().split("\n\n")[0].replace("\n", " ")
    check = inherited.check if inherited is not None and getattr(cls, "PARAMS", None) is None else None
    info = AgentInfo(name, cls, tuple(params), games, doc or f"{cls.__qualname__} from {cls.__module__}", check)
    _OUTSIDE[name] = info
    return info


def outside_modules(specs: Sequence[str]) -> list[str]:
    """The modules of the agents of ``specs`` that come from outside the package (to ship to
    workers that do not share this machine's files)."""
    out = []
    for spec in specs:
        module = agent_info(parse_spec(spec)[0]).cls.__module__
        if module.split(".")[0] != "zwick_ai" and module not in out:
            out.append(module)
    return out


def agent_params(spec: str) -> tuple[AgentInfo, dict[str, Any]]:
    """The agent of ``spec`` (:func:`agent_info`) and its full, typed parameters (defaults filled in)."""
    name, raw = parse_spec(spec)
    info = agent_info(name)
    by_name = {p.name: p for p in info.params}
    values = {p.name: p.default for p in info.params}
    for key, text in raw.items():
        if key not in by_name:
            keys = ", ".join(by_name) if by_name else None
            valid = f"valid: {keys}" if keys else "it takes no parameters"
            raise ValueError(f"agent {name!r} has no parameter {key!r}; {valid}")
        values[key] = by_name[key].parse(name, text)
    if info.check is not None:
        info.check(values)
    return info, values


def make_agent(spec: str, game: pyspiel.Game, seed: int = 0) -> Agent:
    """Build the agent of ``spec`` for ``game`` (a loaded ``zwicker``/``zwikken``/``zwicken``)."""
    info, values = agent_params(spec)
    g = game_name(game)
    if g not in info.games:
        raise ValueError(f"agent {info.name!r} plays {', '.join(info.games)}, not {g}")
    if info.cls.__module__.split(".")[0] == "zwick_ai":
        return info.cls(game, seed=seed, **values)
    try:  # an agent of someone else's: whatever its constructor raises is one line
        return info.cls(game, seed=seed, **values)
    except Exception as error:
        text = str(error).strip().splitlines()[0] if str(error).strip() else ""
        raise ValueError(f"agent {spec!r} failed to start: {type(error).__name__}: {text}".rstrip(": ")) from None


# ------------------------------------------------------------------------------------------------
# OpenSpiel bridges
# ------------------------------------------------------------------------------------------------
class AgentBot(pyspiel.Bot):
    """An :class:`Agent` as an OpenSpiel ``Bot`` (one action per ``step``), e.g. for
    ``pyspiel.evaluate_bots``. Plans a whole decision and replays it action by action."""

    def __init__(self, agent: Agent):
        pyspiel.Bot.__init__(self)
        self.agent = agent
        self._plan: list[int] = []
        self._key: tuple[int, ...] | None = None

    def step(self, state: pyspiel.State) -> int:
        history = tuple(state.history())
        if self._key is not None and self._plan and history == self._key:
            a = self._plan.pop(0)
            self._key = (*history, a)
            return a
        plan = list(self.agent.act(state))
        self._plan = plan[1:]
        self._key = (*history, plan[0])
        return plan[0]

    def restart_at(self, state: pyspiel.State) -> None:
        self._plan, self._key = [], None

    def inform_action(self, state: pyspiel.State, player_id: int, action: int) -> None:
        pass

    def provides_policy(self) -> bool:
        return False


def as_bot(agent: Agent) -> pyspiel.Bot:
    """Wrap ``agent`` as an OpenSpiel bot."""
    return AgentBot(agent)


def bot_decision(bot: pyspiel.Bot, state: pyspiel.State) -> list[int]:
    """Let an OpenSpiel ``bot`` choose one whole decision (one ``step`` per sub-action, on a clone)."""
    return compose_decision(state, lambda work: int(bot.step(work)))
