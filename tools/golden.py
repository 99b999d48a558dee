"""Golden check of the JSON contract: the JSON of every corpus file, before and after a change.

    python tools/golden.py write OUT.jsonl [--corpus DIR]   # every document's JSON, one per line
    python tools/golden.py compare OLD.jsonl NEW.jsonl      # which documents differ, and where

It drives the public CLI (`crparse parse --json`), so a baseline written by an older checkout
compares with a newer one however the library inside changed. Documents are keyed by their
path relative to the corpus root.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def write(out: Path, corpus: Path) -> int:
    paths = [str(corpus), str(ROOT / "corpus")]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run(
        [sys.executable, "-m", "crparse", "parse", "--json", *paths],
        capture_output=True, env=env, cwd=ROOT,
    )
    lines = proc.stdout.decode("utf-8").splitlines()
    with out.open("w", encoding="utf-8") as f:
        for line in lines:
            doc = json.loads(line)
            path = doc["source"]["path"]
            key = os.path.relpath(path, corpus) if path.startswith(str(corpus)) else os.path.relpath(path, ROOT)
            f.write(json.dumps({"key": key, "doc": doc}, ensure_ascii=False, sort_keys=False) + "\n")
    sys.stderr.write(proc.stderr.decode("utf-8", "replace"))
    print(f"{len(lines)} documents written to {out} (exit {proc.returncode})")
    return 0


def _first_difference(a, b, where: str = "") -> str | None:
    if type(a) is not type(b):
        return f"{where}: {type(a).__name__} -> {type(b).__name__}"
    if isinstance(a, dict):
        if list(a) != list(b):
            return f"{where}: keys {list(a)} -> {list(b)}"
        for k in a:
            found = _first_difference(a[k], b[k], f"{where}.{k}")
            if found:
                return found
        return None
    if isinstance(a, list):
        for i, (x, y) in enumerate(zip(a, b)):
            found = _first_difference(x, y, f"{where}[{i}]")
            if found:
                return found
        if len(a) != len(b):
            return f"{where}: length {len(a)} -> {len(b)}"
        return None
    return None if a == b else f"{where}: {a!r:.120} -> {b!r:.120}"


def _load(path: Path) -> dict[str, dict]:
    out = {}
    with path.open(encoding="utf-8") as f:
        for line in f:
            entry = json.loads(line)
            entry["doc"]["source"]["path"] = entry["key"]
            out[entry["key"]] = entry["doc"]
    return out


def compare(old_path: Path, new_path: Path, ignore: list[str]) -> int:
    old, new = _load(old_path), _load(new_path)
    differing = 0
    for key in sorted(set(old) | set(new)):
        if key not in old or key not in new:
            print(f"{key}: only in {'new' if key not in old else 'old'}")
            differing += 1
            continue
        a, b = old[key], new[key]
        for field in ignore:
            a.pop(field, None)
            b.pop(field, None)
        found = _first_difference(a, b)
        if found:
            differing += 1
            print(f"{key}: {found}")
    print(f"{differing} of {len(set(old) | set(new))} documents differ")
    return 1 if differing else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    w = sub.add_parser("write")
    w.add_argument("out", type=Path)
    w.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus")
    c = sub.add_parser("compare")
    c.add_argument("old", type=Path)
    c.add_argument("new", type=Path)
    c.add_argument("--ignore", action="append", default=[], help="a top-level key to leave out (e.g. schema_version)")
    args = ap.parse_args()
    if args.command == "write":
        return write(args.out, args.corpus.resolve())
    return compare(args.old, args.new, args.ignore)


if __name__ == "__main__":
    raise SystemExit(main())
