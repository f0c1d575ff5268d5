"""Bounds on what a decoded message may hold, applied where messages enter a daemon.

msgpack bounds lengths by the message itself (no string, array or map can claim more than the
bytes that arrived, and every socket has a maximum message size), but not nesting: msgpack's own
decoder accepts about a thousand levels, and any recursive walk of such a value (``str()``, a
log line, ``packb`` of an echoed field) raises RecursionError or ValueError far from the decoder,
where nobody expects it. No request of rgpu's nests deeper than a handful of levels, so values
nested deeper than MAX_DEPTH are refused at the door, by a walk that does not itself recurse.
"""
from __future__ import annotations

import msgpack

MAX_DEPTH = 32
_CONTAINERS = (list, dict, tuple)


class TooDeep(ValueError):
    pass


def check_depth(value, limit: int = MAX_DEPTH) -> None:
    """Raise TooDeep if ``value`` nests lists or maps deeper than ``limit`` (a scalar is depth 0)."""
    if type(value) not in _CONTAINERS:
        return
    stack = [(value, 1)]
    pop, push = stack.pop, stack.append
    while stack:
        item, depth = pop()
        if depth > limit:
            raise TooDeep(f"value nested deeper than {limit} levels")
        children = item.values() if type(item) is dict else item
        if type(item) is dict:
            for k in item:
                if type(k) in _CONTAINERS:
                    push((k, depth + 1))
        for child in children:
            if type(child) in _CONTAINERS:
                push((child, depth + 1))


def check_args(args: list, limit: int = MAX_DEPTH - 2) -> None:
    """check_depth for a call's argument list, costing one type test per argument when none is a
    container (the hot path's usual case)."""
    for a in args:
        if type(a) in _CONTAINERS:
            check_depth(args, limit + 1)
            return


def summary(value, width: int = 80) -> str:
    """A short description of a value for an error message or a log line, safe on any value
    (never recursive): its type, length and first scalars."""
    if type(value) not in _CONTAINERS:
        text = repr(value) if isinstance(value, (int, float, bool, type(None))) else repr(value[:width]) \
            if isinstance(value, (str, bytes)) else type(value).__name__
        return text[:width]
    items = list(value)[:4] if type(value) is not dict else list(value.keys())[:4]
    shown = ", ".join(summary(i, 16) if type(i) not in _CONTAINERS else type(i).__name__ for i in items)
    return f"{type(value).__name__} of {len(value)} [{shown}{', ...' if len(value) > 4 else ''}]"[:width]


def unpack(payload: bytes, limit: int = MAX_DEPTH, *, strict_map_key: bool = False):
    """msgpack.unpackb with rgpu's bounds; raises wire.MalformedMessage (a ValueError) on anything
    that is not one well-formed, bounded msgpack value (``strict_map_key``: map keys only strings
    or bytes, as the controller's requests are)."""
    from .wire import MalformedMessage   # wire imports this module
    try:
        value = msgpack.unpackb(payload, raw=False, strict_map_key=strict_map_key)
    except Exception as e:     # msgpack raises several unrelated types for garbage
        raise MalformedMessage(f"not msgpack: {e.__class__.__name__}") from None
    try:
        check_depth(value, limit)
    except TooDeep as e:
        raise MalformedMessage(str(e)) from None
    return value
