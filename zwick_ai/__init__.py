"""zwick_ai: strategy search for the Zwick family of card games (Zwicker, Zwikken, Zwicken).

Layers, lowest first (nothing imports upward; ``tests/test_layers.py`` holds them): ``cards``,
``chance_runs`` and the other top-level modules → ``zwicker`` / ``tricks`` (rules, state arrays,
numba kernels) → ``games`` (OpenSpiel wrappers) → ``agents`` / ``vector`` → ``envs`` / ``render``
→ ``eval`` → ``learn`` → ``analysis`` → ``cli``.

numba's cache locator (:mod:`zwick_ai._jit_cache`) must be in place before any kernel module is
imported. Importing numba takes about a second, so it is not imported here: the locator is
installed as soon as numba is (at once if it already is), and ``import zwick_ai.cli`` (``zwick
--help``) stays light.
"""

__version__ = "0.3.0"

import importlib.abc
import importlib.machinery
import sys
from collections.abc import Sequence
from types import ModuleType


def _install_jit_cache() -> None:
    """Import :mod:`zwick_ai._jit_cache`, which installs the locator (a module being imported now
    imported numba itself and installs it at its end)."""
    module = sys.modules.get("zwick_ai._jit_cache")
    if module is None or hasattr(module, "install"):
        from zwick_ai import _jit_cache  # noqa: F401


class _AfterNumba(importlib.abc.MetaPathFinder):
    """Finds nothing itself; when ``numba`` is first imported, runs its module as usual and then
    installs the cache locator, before the importing kernel module defines any function."""

    def find_spec(
        self, name: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if name != "numba":
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name)
        loader = getattr(spec, "loader", None)
        if spec is None or loader is None:
            return spec
        exec_module = loader.exec_module

        def exec_then_install(module: ModuleType) -> None:
            exec_module(module)
            _install_jit_cache()

        loader.exec_module = exec_then_install
        return spec


if "numba" in sys.modules:
    _install_jit_cache()
elif not any(isinstance(finder, _AfterNumba) for finder in sys.meta_path):
    sys.meta_path.insert(0, _AfterNumba())
