"""numba's on-disk cache for zwick_ai, keyed by the source of the compiled part of the package.

numba checks a cached function only against the timestamp of its own file. A kernel that another
file's function calls is compiled into that caller, so after the kernel changes the caller's
cached machine code is stale (old array offsets: wrong results or crashes). Here every function
defined in zwick_ai (and, in a source checkout, in its ``benchmarks``/``tests``) is cached under
``__pycache__/numba-<hash>`` next to its file, where the hash covers every module that uses numba
and every zwick_ai module those import, directly or not (compiled code can only reach constants
and functions through imports). A change there starts a fresh cache; the caches of older sources
are removed once nothing has been written to them for a day (a process started before the change
may still be compiling into its folder); a change of a module outside it (the CLI, tournaments,
reports) keeps the cache.

A user who sets ``NUMBA_CACHE_DIR`` (say, where the package folder is read-only) gets the same
keying there: ``$NUMBA_CACHE_DIR/<numba's folder for the file>/numba-<hash>``.
"""

from __future__ import annotations

import ast
import hashlib
import os
import shutil
import sys
import time
from functools import cache
from pathlib import Path

from numba.core import caching, event

PACKAGE_DIR = Path(__file__).resolve().parent
_ROOT = PACKAGE_DIR.parent if (PACKAGE_DIR.parent / "pyproject.toml").exists() else PACKAGE_DIR
_PRUNED: set[str] = set()
#: an older source's cache folder is removed once nothing in it has changed for this long
STALE_CACHE_SECONDS = 24 * 3600


def _module_file(package: Path, module: str) -> Path | None:
    """The file of ``module`` (dotted, relative to the package's parent), if it is in ``package``."""
    parts = module.split(".")
    if parts[0] != package.name:
        return None
    base = package.joinpath(*parts[1:])
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _imported_files(package: Path, path: Path) -> set[Path]:
    """The package files that ``path`` imports, with the ``__init__`` of every package on the way."""
    rel = path.relative_to(package.parent).with_suffix("")
    here = list(rel.parts[:-1])  # the package that relative imports start from
    modules: list[str] = []
    for node in ast.walk(ast.parse(path.read_bytes())):
        if isinstance(node, ast.Import):
            modules += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                anchor = here[: len(here) - node.level + 1]
                base = ".".join(anchor + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            modules.append(base)
            modules += [f"{base}.{alias.name}" for alias in node.names]
    found: set[Path] = set()
    for module in modules:
        parts = module.split(".")
        for i in range(1, len(parts) + 1):  # importing a.b.c runs a/__init__ and a/b/__init__ too
            file = _module_file(package, ".".join(parts[:i]))
            if file is not None:
                found.add(file)
    return found


def compiled_sources(package: Path | None = None) -> list[Path]:
    """The files whose change can change compiled code: numba users and what they import."""
    package = package or PACKAGE_DIR
    todo = [p for p in package.rglob("*.py") if b"numba" in p.read_bytes()]
    seen: set[Path] = set()
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        todo += _imported_files(package, path) - seen
    return sorted(seen)


@cache
def source_hash() -> str:
    """A short hash of :func:`compiled_sources` (path and content)."""
    h = hashlib.sha1()
    for path in compiled_sources():
        h.update(str(path.relative_to(PACKAGE_DIR)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def last_change(folder: Path) -> float:
    """The newest modification time of ``folder`` and the files in it (0.0 if it is gone)."""
    try:
        times = [folder.stat().st_mtime] + [entry.stat().st_mtime for entry in folder.iterdir()]
    except OSError:
        return 0.0
    return max(times)


def prune_stale_folders(base: Path, keep: str, now: float | None = None) -> list[Path]:
    """Remove the ``numba-*`` folders in ``base`` other than ``keep`` that nothing has written to
    for :data:`STALE_CACHE_SECONDS`; a running process of older sources may still use a newer one.
    Returns the folders removed."""
    now = time.time() if now is None else now
    removed = []
    for old in sorted(base.glob("numba-*")):
        if old.name != keep and now - last_change(old) > STALE_CACHE_SECONDS:
            shutil.rmtree(old, ignore_errors=True)
            removed.append(old)
    return removed


class _HashedFolder:
    """A numba locator mixin: the base class's cache folder gets a ``numba-<hash>`` subfolder, and
    stale folders of other source hashes beside it are removed (once per base folder and process)."""

    _cache_path: str

    def _use_hashed_folder(self) -> None:
        base = self._cache_path
        self._cache_path = os.path.join(base, f"numba-{source_hash()}")
        if base not in _PRUNED:
            _PRUNED.add(base)
            prune_stale_folders(Path(base), keep=f"numba-{source_hash()}")

    @classmethod
    def _in_package(cls, py_file: str) -> bool:
        try:
            Path(py_file).resolve().relative_to(_ROOT)
        except (OSError, ValueError):
            return False
        return True


class PackageCacheLocator(_HashedFolder, caching.InTreeCacheLocator):
    """numba's in-tree locator, one directory per package source hash."""

    def __init__(self, py_func, py_file):
        super().__init__(py_func, py_file)
        self._use_hashed_folder()

    @classmethod
    def from_function(cls, py_func, py_file):
        return super().from_function(py_func, py_file) if cls._in_package(py_file) else None


class UserDirCacheLocator(_HashedFolder, caching.UserProvidedCacheLocator):
    """numba's ``NUMBA_CACHE_DIR`` locator, one directory per package source hash."""

    def __init__(self, py_func, py_file):
        super().__init__(py_func, py_file)
        self._use_hashed_folder()

    @classmethod
    def from_function(cls, py_func, py_file):
        return super().from_function(py_func, py_file) if cls._in_package(py_file) else None


#: set to 0 to silence the notice printed when this process starts compiling
NOTICE_ENV = "ZWICK_COMPILE_NOTICE"
COMPILE_NOTICE = (
    "zwick_ai: compiling the numba engine for this machine, starting with {what}: each kernel once after an "
    "install or an engine change, when a run first needs it (up to a few minutes of CPU; `zwick precompile` "
    "compiles them all up front; then cached in {where})"
)


def cache_location() -> str:
    """Where compiled code goes: ``NUMBA_CACHE_DIR``, or ``__pycache__/numba-<hash>`` folders."""
    user_dir = os.environ.get("NUMBA_CACHE_DIR")
    return (
        f"{user_dir}/.../numba-{source_hash()}" if user_dir else f"__pycache__/numba-{source_hash()} beside each module"
    )


class CompileNotice(event.Listener):
    """Says once per process, on stderr, that compiling has started (a real compile only: numba
    sends no event for code loaded from the cache), so a first run is not a silent wait."""

    def __init__(self) -> None:
        self.said = False
        self.registered = False
        self.compiles = 0
        self.depth = 0  # compiles under way (they nest: a kernel compiles the kernels it calls)
        self.began = 0.0
        self.seconds = 0.0

    @staticmethod
    def _ours(ev: event.Event) -> bool:
        py_func = getattr(ev.data.get("dispatcher"), "py_func", None)
        return getattr(py_func, "__module__", "").startswith("zwick_ai")

    def on_start(self, ev: event.Event) -> None:
        if not self._ours(ev):
            return
        self.compiles += 1
        if self.depth == 0:
            self.began = time.perf_counter()
        self.depth += 1
        if self.said or os.environ.get(NOTICE_ENV) == "0":
            return
        self.said = True
        what = getattr(ev.data.get("dispatcher"), "py_func", None)
        name = f"{what.__module__}.{what.__qualname__}" if what is not None else "zwick_ai"
        print(COMPILE_NOTICE.format(what=name, where=cache_location()), file=sys.stderr, flush=True)

    def on_end(self, ev: event.Event) -> None:
        if self._ours(ev) and self.depth > 0:
            self.depth -= 1
            if self.depth == 0:
                self.seconds += time.perf_counter() - self.began


_NOTICE = CompileNotice()


def compile_count() -> int:
    """How many zwick_ai functions this process has compiled (not loaded from the cache)."""
    return _NOTICE.compiles


def compile_seconds() -> float:
    """Seconds this process has spent compiling zwick_ai functions, the compile under way
    included (an outside agent's clock does not count them: :mod:`zwick_ai.agents.guard`)."""
    ongoing = time.perf_counter() - _NOTICE.began if _NOTICE.depth else 0.0
    return _NOTICE.seconds + ongoing


def install() -> None:
    """Put :class:`PackageCacheLocator` (:class:`UserDirCacheLocator` when NUMBA_CACHE_DIR is set)
    first in numba's list and announce compiles (:class:`CompileNotice`)."""
    if not _NOTICE.registered:
        event.register("numba:compile", _NOTICE)
        _NOTICE.registered = True
    locator = UserDirCacheLocator if os.environ.get("NUMBA_CACHE_DIR") else PackageCacheLocator
    classes = caching.CacheImpl._locator_classes
    if locator not in classes:
        classes.insert(0, locator)


install()  # importing this module puts the locator in place (zwick_ai imports it with numba)
