"""JSON value types shared by the profiler's modules: what json.loads returns and json.dumps accepts.

Typed this way (instead of ``Any``) so that every module boundary that carries a JSON document says so, and a
reader has to check a value's type before using it as a number or a string.
"""

from __future__ import annotations

from typing import TypeAlias

JSONScalar: TypeAlias = None | bool | int | float | str
JSONValue: TypeAlias = JSONScalar | list["JSONValue"] | dict[str, "JSONValue"]
JSONObject: TypeAlias = dict[str, JSONValue]


def json_depth(value: JSONValue, limit: int) -> int:
    """Nesting depth of a parsed JSON value (a scalar is 0), counted without recursion; stops past `limit`.

    Iterative so that a hostile document nested thousands deep costs a loop, not a RecursionError.
    """
    deepest = 0
    stack: list[tuple[JSONValue, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: list[JSONValue] = list(item.values())
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, depth + 1)
        if deepest > limit:
            return deepest
        stack.extend((child, depth + 1) for child in children)
    return deepest
