"""Benchmarks of issue 13 (`crparse docs`), each a whole process as a user runs it:

- the site of one release (2026-01-16), from nothing;
- the site of a seed fragment (corpus/002_*);
- the site of the whole text corpus from nothing (a site per release, change pages, histories);
- the same again with nothing changed;
- the corpus site after adding one release (the newest, left out of the first build).

Each figure is wall time and the peak resident memory of the child (and its workers: the
largest one, wait4's rusage). Run: python bench/bench_docs.py [--corpus ../shared/corpus] [--jobs N] [--skip-corpus]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from common import ENV, ROOT, add_corpus_argument, run_crparse, txt_dir

def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_corpus_argument(ap)
    ap.add_argument("--jobs", type=int, help="CRPARSE_JOBS for the builds (default: the cores)")
    ap.add_argument("--skip-corpus", action="store_true", help="only the one-release and seed sites")
    args = ap.parse_args()
    txt = txt_dir(args.corpus)
    if txt is None:
        return 0
    if args.jobs:
        ENV["CRPARSE_JOBS"] = str(args.jobs)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "crparse")], env=ENV, check=True)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        rows.append(("site of 2026-01-16", *run_crparse(["docs", str(txt / "2026-01-16.txt"), "-o", str(out / "one")], ok=(0,))))
        seed = next((ROOT / "corpus").glob("002_*"))
        rows.append(("site of seed 002", *run_crparse(["docs", str(seed), "-o", str(out / "seed")], ok=(0,))))
        if not args.skip_corpus:
            releases = sorted(txt.glob("*.txt"))
            shutil.copytree(txt, out / "corpus", ignore=shutil.ignore_patterns(releases[-1].name))
            rows.append((f"corpus site, {len(releases) - 1} releases", *run_crparse(["docs", str(out / "corpus"), "-o", str(out / "all")], ok=(0,))))
            rows.append(("corpus site, nothing changed", *run_crparse(["docs", str(out / "corpus"), "-o", str(out / "all")], ok=(0,))))
            shutil.copy(releases[-1], out / "corpus")
            rows.append(("corpus site, one release added", *run_crparse(["docs", str(out / "corpus"), "-o", str(out / "all")], ok=(0,))))
            size = sum(f.stat().st_size for f in (out / "all").rglob("*") if f.is_file() and ".crparse" not in f.parts)
            print(f"corpus site: {size / 2**20:.0f} MiB of pages")
    print(f"{'command':40} {'seconds':>8} {'peak MiB':>9}")
    for name, seconds, peak in rows:
        print(f"{name:40} {seconds:8.1f} {peak:9.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
