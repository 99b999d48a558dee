"""Line numbers of a tree built from a reader's lines, turned into source line numbers.

The block stage and the grammar number what they see: the reader's lines. When a reader made
those lines from something else (a heading split off a fused line, a reST paragraph, a PDF
paragraph rejoined from several printed lines), each of its lines knows the source span it came
from, and every position in the tree is moved onto that span: a `line` to the span's first
source line, an `end_line` to its last.
"""

from __future__ import annotations

from typing import Any

from msgspec import Struct
from msgspec.structs import replace

Span = tuple[int, int]


def relocate(node: Any, origin: list[Span]) -> Any:
    """`node` with every `line`/`end_line` field and every `spans` entry moved onto `origin`."""
    if isinstance(node, tuple):
        return tuple(relocate(item, origin) for item in node)
    if not isinstance(node, Struct):
        return node
    changes: dict[str, Any] = {}
    for name in node.__struct_fields__:
        value = getattr(node, name)
        if name == "line" and isinstance(value, int):
            changes[name] = origin[value - 1][0]
        elif name == "end_line":
            last = value if isinstance(value, int) else getattr(node, "line", None)
            if isinstance(last, int):
                moved = origin[last - 1][1]
                first = origin[node.line - 1][0] if isinstance(getattr(node, "line", None), int) else None
                changes[name] = moved if (value is not None or moved != first) else None
        elif name == "spans":
            changes[name] = tuple((origin[a - 1][0], origin[b - 1][1]) for a, b in value)
        elif isinstance(value, (tuple, Struct)):
            changes[name] = relocate(value, origin)
    return replace(node, **changes)
