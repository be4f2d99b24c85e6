"""Reading option values written as text: the one place that says what ``true``/``false`` is.

Rule options reach the engines as Python values (``zwicker.rules(magger=False)``), as OpenSpiel
game parameters (``zwicker(magger=false)``), as ``-o name=value`` on the command line and as TOML
or JSON values; every reader of a yes/no option calls :func:`parse_bool`, so they all accept the
same words (and :func:`parse_int` reads whole numbers the same way everywhere).

>>> parse_bool("magger", "False"), parse_bool("hupf", True), parse_bool("lubbers", "1")
(False, True, True)
>>> parse_bool("magger", "maybe")
Traceback (most recent call last):
...
ValueError: invalid magger='maybe'; valid values: true, false
"""

from __future__ import annotations

import numpy as np

#: the words (any case) read as a yes/no value; ``true``/``false`` are the ones written
BOOL_WORDS = {"true": True, "false": False, "1": True, "0": False}


def parse_bool(name: str, value: object) -> bool:
    """``value`` of option ``name`` as a bool: a bool, 0/1, or one of :data:`BOOL_WORDS`;
    anything else raises ``ValueError`` naming the valid values."""
    if isinstance(value, bool | np.bool_):
        return bool(value)
    if isinstance(value, int | np.integer) and int(value) in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in BOOL_WORDS:
        return BOOL_WORDS[value.strip().lower()]
    raise ValueError(f"invalid {name}={value!r}; valid values: true, false")


def parse_int(name: str, value: object) -> int:
    """``value`` of option ``name`` as a whole number (an int or its digits as text); anything else
    raises ``ValueError``.

    >>> parse_int("players", "4"), parse_int("dealer", -1)
    (4, -1)
    """
    if isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_):
        return int(value)
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value.strip())
    raise ValueError(f"invalid {name}={value!r}; expected a whole number")


def format_value(value: object) -> str:
    """An option value as written in game strings and on command lines (bools as true/false).

    >>> format_value(True), format_value(3), format_value("parlett")
    ('true', '3', 'parlett')
    """
    return ("true" if value else "false") if isinstance(value, bool | np.bool_) else str(value)


__all__ = ["BOOL_WORDS", "format_value", "parse_bool", "parse_int"]
