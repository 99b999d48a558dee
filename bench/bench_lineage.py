"""Benchmarks of issue 11 (lineage, diff, store), each a whole process as a user runs it:

- `crparse diff` of consecutive modern releases (start-up, both parses, diff, output);
- `crparse diff` of 2009-05-01 -> 2009-10-05 (the overhaul) and 2005-08-01 -> 2026-01-16;
- `crparse lineage` of the whole text corpus;
- `crparse index` from nothing, then again with nothing changed;
- `crparse history` from the store.

Each figure is the minimum of --repeat runs (wall time) and the peak resident memory of the
child (ru_maxrss). Run: python bench/bench_lineage.py [--corpus ../shared/corpus] [--repeat 3]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from common import ENV, ROOT, add_corpus_argument, run_crparse, txt_dir


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_corpus_argument(ap)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    txt = txt_dir(args.corpus)
    if txt is None:
        return 0
    r = lambda date: str(txt / f"{date}.txt")  # noqa: E731
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "crparse")], env=ENV, check=True)
    rows = []
    for old, new, target in (("2020-11-20", "2021-02-02", 0.4), ("2025-11-14", "2026-01-16", 0.4),
                             ("2009-05-01", "2009-10-05", 2.0), ("2005-08-01", "2026-01-16", 2.0)):
        rows.append((f"diff {old} -> {new}", *run_crparse(["diff", r(old), r(new), "--json"], args.repeat), target))
    rows.append(("lineage of the corpus", *run_crparse(["lineage", str(txt), "--json"], 1), 30.0))
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "store.sqlite")
        rows.append(("index from nothing", *run_crparse(["index", str(txt), "--db", db], 1), 60.0))
        rows.append(("index, nothing changed", *run_crparse(["index", str(txt), "--db", db], args.repeat), 2.0))
        rows.append(("history 601.12 --at 2009-05-01", *run_crparse(["history", "601.12", "--at", "2009-05-01", "--db", db], args.repeat), 0.1))
        rows.append(("search \"converted mana cost\"", *run_crparse(["search", "converted mana cost", "--db", db], args.repeat), None))
        size = sum(p.stat().st_size for p in Path(tmp).iterdir())
    print(f"{'command':38} {'seconds':>8} {'target':>7} {'peak MiB':>9}")
    for name, seconds, peak, target in rows:
        print(f"{name:38} {seconds:8.2f} {target if target is not None else '':>7} {peak:9.0f}")
    print(f"store size: {size / 2**20:.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
