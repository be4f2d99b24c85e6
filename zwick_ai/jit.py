"""The package's one numba decorator, :func:`kernel`, and its variant for one-line readers, :data:`reader`.

``@kernel`` is numba's ``njit(cache=True)`` that compiles one specialisation per array layout; its
keyword arguments say what differs: ``@kernel(nrt=False)`` for kernels that allocate nothing (no
reference counting), ``@kernel(nrt=True)`` for an allocating kernel reached from those,
``@kernel(inline="always")`` for small helpers inlined into their callers,
``@kernel(parallel=True)`` for ``numba.prange`` loops, and ``@kernel(nogil=True)`` for kernels
that Python threads run side by side. ``@reader`` is
``@kernel(nrt=False, inline="always")``: a one-line reader of an engine array, which costs what the
raw offset costs. ``tests/test_house.py`` holds the package to these two spellings.

Why it widens: numba compiles a function once per tuple of argument types, and a call from compiled code is
typed with the caller's argument types as they are: a literal (``push_move(buf, 0, KIND_TRAIL,
...)`` is typed ``Literal[int](0), Literal[int](3)``), an int32 read from a state array or an
int64 loop counter. Type inference also resolves a call first with a variable's literal start
value (``nm = 0``) and again once it has unified to int64. Each distinct tuple is a separate
compile of the function and of everything it calls, linked and optimised again (in the kernels:
``push_move`` nine times, ``duty_ok`` eight, ``gen_builds`` twice). A :func:`kernel` called from
compiled code is compiled for its integer and boolean scalars widened to int64 and bool (literals
too; the caller converts them at the call), so it compiles once per combination of array types.
Values and results are unchanged: every engine integer fits in int64 and mixed int32/int64
arithmetic is int64 in numba anyway. Calls from Python are typed by numba as usual (Python ints
are int64 already).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from numba.core import types
from numba.core.registry import CPUDispatcher


def widened(ty: types.Type) -> types.Type:
    """The type a kernel is compiled for, for an argument of type ``ty``: integer and boolean
    scalars (literal or not) as int64 and bool; everything else (arrays, floats, tuples) as is."""
    ty = types.unliteral(ty)
    if isinstance(ty, types.Integer) and ty != types.uint64:  # every other integer fits in int64
        return types.int64
    return ty


class WideningDispatcher(CPUDispatcher):
    """A CPU dispatcher whose calls from compiled code use :func:`widened` argument types."""

    def get_call_template(self, args, kws):
        return super().get_call_template(tuple(widened(a) for a in args), {k: widened(v) for k, v in kws.items()})


def kernel(
    func: Callable[..., Any] | None = None,
    *,
    nrt: bool | None = None,
    inline: str = "never",
    parallel: bool = False,
    nogil: bool = False,
) -> Any:
    """``njit(cache=True)`` with :class:`WideningDispatcher`. ``nrt=False`` compiles without
    numba's reference counting (for kernels that allocate nothing: a call with array arguments
    then costs about 1 ns instead of 45); ``nrt=True`` with it even when called from a kernel
    without it (an allocating kernel that such callers reach: it must return no arrays); the
    default (``None``) is the caller's choice, with it from Python. ``inline="always"`` inlines the
    function into its compiled callers (numba's option of that name); ``parallel=True`` runs
    ``numba.prange`` loops on threads (numba's option of that name); ``nogil=True`` releases
    Python's lock while the kernel runs, so Python threads can run it side by side (numba's option
    of that name). Use as ``@kernel`` or ``@kernel(nrt=False)``."""
    options: dict[str, Any] = {"nopython": True, "boundscheck": None}
    if nrt is not None:
        options["_nrt"] = nrt
    if inline != "never":
        options["inline"] = inline
    if parallel:
        options["parallel"] = True
    if nogil:
        options["nogil"] = True

    def wrap(f: Callable[..., Any]) -> WideningDispatcher:
        dispatcher = WideningDispatcher(py_func=f, locals={}, targetoptions=options)
        dispatcher.enable_caching()
        return dispatcher

    return wrap(func) if func is not None else wrap


#: the decorator of the one-line readers of engine arrays: compiled without reference counting
#: and inlined into compiled callers, so a read costs what the raw offset costs
reader = kernel(nrt=False, inline="always")
