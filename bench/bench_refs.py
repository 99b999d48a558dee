"""Cross-reference benchmarks (not a test): `python bench/bench_refs.py [--corpus DIR] [--json OUT]`.

Measures, in one process, for every release in txt/ one after another (as `crparse refs` would):
  1. parse, references (scan + grammar + resolution), and the networkx graph, each timed apart;
     the target is all 112 releases' references in < 20 s in total, parse included;
  2. one large release (2026-01-16): references and graph, min/median of repeated runs;
  3. peak memory (tracemalloc) of references + graph for that release.
The grammar's parse cache is process-wide, so later releases reuse the phrases of earlier ones;
the cold figure of the large release is measured first, in a fresh cache.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import time
import tracemalloc
from pathlib import Path

from common import add_corpus_argument, timed_ms, txt_dir  # also puts the project on sys.path

import crparse
from crparse.refs import ReferenceGraph, references
from crparse.refs.grammar import _parse_run


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_corpus_argument(ap)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--json", type=Path, help="also write the figures to this file")
    args = ap.parse_args()
    txt = txt_dir(args.corpus)
    if txt is None:
        return 2
    figures: dict[str, float | int] = {}

    big = crparse.parse(txt / "2026-01-16.txt")
    _parse_run.cache_clear()
    start = time.perf_counter()
    refs = references(big)
    figures["large_references_cold_ms"] = round((time.perf_counter() - start) * 1000, 1)
    figures["large_references"] = len(refs)
    figures["large_references_ms_min"], figures["large_references_ms_median"] = map(lambda v: round(v, 1), timed_ms(lambda: references(big), args.repeat))
    figures["large_graph_ms_min"], figures["large_graph_ms_median"] = map(lambda v: round(v, 1), timed_ms(lambda: ReferenceGraph(big, refs), args.repeat))
    tracemalloc.start()
    ReferenceGraph(big)
    figures["large_peak_mib"] = round(tracemalloc.get_traced_memory()[1] / 2**20, 1)
    tracemalloc.stop()

    _parse_run.cache_clear()
    parse_s = refs_s = graph_s = 0.0
    count = 0
    files = sorted(txt.glob("*.txt"))
    for path in files:
        t0 = time.perf_counter()
        doc = crparse.parse(path)
        t1 = time.perf_counter()
        found = references(doc)
        t2 = time.perf_counter()
        ReferenceGraph(doc, found)
        t3 = time.perf_counter()
        parse_s, refs_s, graph_s = parse_s + t1 - t0, refs_s + t2 - t1, graph_s + t3 - t2
        count += len(found)
        del doc, found
        gc.collect()
    figures.update(
        corpus_files=len(files),
        corpus_references=count,
        corpus_parse_s=round(parse_s, 2),
        corpus_references_s=round(refs_s, 2),
        corpus_graph_s=round(graph_s, 2),
        corpus_total_s=round(parse_s + refs_s + graph_s, 2),
    )
    print(f"2026-01-16: {figures['large_references']} references; cold {figures['large_references_cold_ms']} ms, "
          f"warm {figures['large_references_ms_min']} min / {figures['large_references_ms_median']} median ms; "
          f"graph {figures['large_graph_ms_min']} / {figures['large_graph_ms_median']} ms; peak {figures['large_peak_mib']} MiB")
    print(f"corpus: {len(files)} releases, {count} references: parse {figures['corpus_parse_s']} s, "
          f"references {figures['corpus_references_s']} s, graph {figures['corpus_graph_s']} s, "
          f"total {figures['corpus_total_s']} s (target < 20 s)")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
