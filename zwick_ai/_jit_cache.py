"""numba's on-disk cache for zwick_ai, keyed by the source of the whole package.

numba checks a cached function only against the timestamp of its own file. A kernel that another
file's function calls is compiled into that caller, so after the kernel changes the caller's
cached machine code is stale (old array offsets: wrong results or crashes). Here every function
defined in zwick_ai (and, in a source checkout, in its ``benchmarks``/``tests``) is cached under
``__pycache__/numba-<hash of every zwick_ai source file>`` next to its file: any change of the
package's source starts a fresh cache, and the caches of older sources are removed.

A user who sets ``NUMBA_CACHE_DIR`` keeps numba's own behaviour.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from functools import cache
from pathlib import Path

from numba.core import caching

PACKAGE_DIR = Path(__file__).resolve().parent
_ROOT = PACKAGE_DIR.parent if (PACKAGE_DIR.parent / "pyproject.toml").exists() else PACKAGE_DIR
_PRUNED: set[str] = set()


@cache
def source_hash() -> str:
    """A short hash of every ``.py`` file of the package (path and content)."""
    h = hashlib.sha1()
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        h.update(str(path.relative_to(PACKAGE_DIR)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


class PackageCacheLocator(caching.InTreeCacheLocator):
    """numba's in-tree locator, one directory per package source hash."""

    def __init__(self, py_func, py_file):
        super().__init__(py_func, py_file)
        base = self._cache_path
        self._cache_path = os.path.join(base, f"numba-{source_hash()}")
        if base not in _PRUNED:
            _PRUNED.add(base)
            for old in Path(base).glob("numba-*"):
                if old.name != f"numba-{source_hash()}":
                    shutil.rmtree(old, ignore_errors=True)

    @classmethod
    def from_function(cls, py_func, py_file):
        try:
            Path(py_file).resolve().relative_to(_ROOT)
        except (OSError, ValueError):
            return None
        return super().from_function(py_func, py_file)


def install() -> None:
    """Put :class:`PackageCacheLocator` first in numba's list (unless NUMBA_CACHE_DIR is set)."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    classes = caching.CacheImpl._locator_classes
    if PackageCacheLocator not in classes:
        classes.insert(0, PackageCacheLocator)
