"""Agents from outside the package: by import path (``module:Class``) or by an installed package's
entry point, and the digests that tie a results folder to the exact code and files an agent read.

**Import paths.** A spec ``my_agent:MyAgent`` or ``pkg.module:MyAgent,key=value`` names a class by
the module it lives in and its attribute there (the ``module:attribute`` form of entry points and
uvicorn). The module is imported from the current directory or ``PYTHONPATH``, like ``python -m``
would; worker processes import it again from the same place (a local pool inherits the path, a Ray
job ships the module's file or package folder: :func:`ship_paths`).

**Entry points.** An installed package registers agents under the group :data:`ENTRY_POINT_GROUP`,
``zwick_ai.agents``, in its ``pyproject.toml``::

    [project.entry-points."zwick_ai.agents"]
    mygreedy = "mypkg.agents:MyGreedy"

Then ``mygreedy`` is a spec like any built-in name, and ``zwick agents`` lists it.

**Digests.** :func:`file_digest` hashes a file (or every file of a folder) an agent reads;
:func:`source_digest` hashes the source of an outside module: its file, or every ``.py`` file of
its top-level package. :meth:`zwick_ai.agents.Agent.identity` records both, so a results folder
never mixes the games of a changed agent with the new one's.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import re
import sys
import sysconfig
from importlib import metadata
from pathlib import Path
from typing import Any

#: the entry-point group through which installed packages register agents
ENTRY_POINT_GROUP = "zwick_ai.agents"

_IDENTIFIER = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")
_DIGESTS: dict[tuple[str, int, int], str] = {}


def is_import_path(name: str) -> bool:
    """Whether ``name`` has the form ``module:attribute`` (dotted names on both sides).

    >>> is_import_path("my_agent:MyAgent"), is_import_path("pkg.mod:Outer.Inner"), is_import_path("greedy")
    (True, True, False)
    """
    module, colon, attr = name.partition(":")
    return bool(colon) and bool(_IDENTIFIER.match(module)) and bool(_IDENTIFIER.match(attr))


def _with_current_directory() -> None:
    """Put the current directory first on ``sys.path`` (as ``python -m`` does) unless it is there."""
    here = os.getcwd()
    if not any(os.path.abspath(p or ".") == here for p in sys.path):
        sys.path.insert(0, here)


def import_attribute(path: str) -> Any:
    """The object named by ``module:attribute``, imported from the current directory or
    ``PYTHONPATH``; any failure is a one-line ``ValueError``."""
    if not is_import_path(path):
        raise ValueError(f"agent {path!r}: an import path is module:Class, e.g. my_agent:MyAgent")
    module_name, _, attr = path.partition(":")
    _with_current_directory()
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name and (module_name == error.name or module_name.startswith(error.name + ".")):
            raise ValueError(
                f"agent {path!r}: no module named {module_name!r} in the current directory ({os.getcwd()}) "
                "or on PYTHONPATH"
            ) from None
        raise ValueError(f"agent {path!r}: importing {module_name} failed: {error}") from None
    except Exception as error:  # the module itself raised: say what and where, in one line
        raise ValueError(f"agent {path!r}: importing {module_name} failed: {type(error).__name__}: {error}") from None
    obj: Any = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            where = getattr(module, "__file__", None) or module_name
            raise ValueError(f"agent {path!r}: {where} has no {attr!r}")
        obj = getattr(obj, part)
    return obj


def entry_points() -> dict[str, metadata.EntryPoint]:
    """The agents installed packages register under :data:`ENTRY_POINT_GROUP`, by name."""
    return {ep.name: ep for ep in metadata.entry_points(group=ENTRY_POINT_GROUP)}


def load_entry_point(ep: metadata.EntryPoint) -> Any:
    """The object an entry point names; any failure is a one-line ``ValueError``."""
    try:
        return ep.load()
    except Exception as error:
        raise ValueError(
            f"agent {ep.name!r} (entry point {ep.value} of group {ENTRY_POINT_GROUP}): "
            f"loading failed: {type(error).__name__}: {error}"
        ) from None


def file_digest(path: str | Path) -> str:
    """A short SHA-256 (16 hex digits) of a file's bytes, or of every file under a folder (with
    their relative names); cached while a file's size and modification time stay the same."""
    p = Path(path)
    if p.is_dir():
        h = hashlib.sha256()
        for x in sorted(x for x in p.rglob("*") if x.is_file() and "__pycache__" not in x.parts):
            h.update(x.relative_to(p).as_posix().encode() + b"\0" + file_digest(x).encode())
        return h.hexdigest()[:16]
    try:
        st = p.stat()
    except OSError as error:
        raise ValueError(f"cannot read {path}: {error.strerror or error}") from None
    key = (str(p.resolve()), st.st_size, st.st_mtime_ns)
    if key not in _DIGESTS:
        h = hashlib.sha256()
        with open(p, "rb") as stream:
            for block in iter(lambda: stream.read(1 << 20), b""):
                h.update(block)
        _DIGESTS[key] = h.hexdigest()[:16]
    return _DIGESTS[key]


def source_root(module_name: str) -> Path | None:
    """The file of a top-level module, or the folder of the top-level package ``module_name``
    belongs to (None for a module without a file, e.g. ``__main__`` of ``python -c``)."""
    module = sys.modules.get(module_name)
    file = getattr(module, "__file__", None)
    if not file:
        return None
    path = Path(file).resolve()
    depth = module_name.count(".") + (1 if path.name == "__init__.py" else 0)
    if depth == 0:
        return path
    root = path
    for _ in range(depth):
        root = root.parent
    return root


def source_digest(module_name: str) -> str | None:
    """A digest of the source of an outside module: its file, or every ``.py`` file of its
    top-level package (so a change in any helper module of the package counts)."""
    root = source_root(module_name)
    if root is None:
        return None
    if root.is_file():
        return file_digest(root)
    h = hashlib.sha256()
    for f in sorted(root.rglob("*.py")):
        if "__pycache__" not in f.parts:
            h.update(f.relative_to(root).as_posix().encode() + b"\0" + file_digest(f).encode())
    return h.hexdigest()[:16]


def _installed(path: Path) -> bool:
    """Whether ``path`` lies in this interpreter's site-packages (an installed distribution)."""
    places = {sysconfig.get_paths()[k] for k in ("purelib", "platlib")}
    return any(path.is_relative_to(Path(p).resolve()) for p in places)


def ship_paths(module_names: list[str]) -> list[str]:
    """What a Ray job must carry so its workers import these modules: each one's file or
    top-level package folder, unless it is installed (then the workers' environment has it)."""
    out: list[str] = []
    for name in module_names:
        root = source_root(name)
        if root is not None and not _installed(root) and str(root) not in out:
            out.append(str(root))
    return out


__all__ = [
    "ENTRY_POINT_GROUP",
    "entry_points",
    "file_digest",
    "import_attribute",
    "is_import_path",
    "load_entry_point",
    "ship_paths",
    "source_digest",
    "source_root",
]
