"""Write the analysed document grammar (crparse/tree/grammars/document.table.json).

Run after editing crparse/tree/grammars/document.lark:

    python tools/tables.py

The parser reads the shipped table only while its sha256 matches the grammar's, and otherwise
analyses the grammar with lark at start-up; tests/test_structure.py fails while it is stale.
"""

from __future__ import annotations

import sys
from pathlib import Path

import msgspec

from crparse.tree import build


def main() -> int:
    grammar = build._grammar()
    target = Path(build.__file__).parent / build.TABLE_FILE
    data = msgspec.json.format(msgspec.json.encode(build.analyse(grammar)), indent=1)
    target.write_bytes(data + b"\n")
    print(f"wrote {target} ({len(data):,} bytes) for grammar {build.grammar_digest(grammar)[:12]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
