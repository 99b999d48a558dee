"""The long fuzzing run, for before a release: `python tools/fuzz.py --minutes 30 [--out DIR]`.

Mutates the seed document of every format (tests/fuzzing.py) and runs each input through the
CLI (`parse --json`, `refs --broken`, `refs --graph graphml`) in a child under 15 s and 1 GiB
(tests/limits.py). An input that makes crparse exceed a limit, print a traceback, exit 3 or
write invalid UTF-8 is saved under --out with what it did; the run prints a tally at the end.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from fuzzing import mutate, seeds  # noqa: E402
from limits import run_limited  # noqa: E402

COMMANDS = (["parse", "--json"], ["refs", "--broken"], ["refs", "--graph", "graphml"])


def verdict(result) -> str | None:
    if result.timed_out:
        return "timeout"
    if result.out_of_memory:
        return "memory"
    if result.traceback:
        return "traceback"
    if result.returncode not in (0, 1, 2):
        return f"exit-{result.returncode}"
    try:
        result.stdout.decode("utf-8")
    except UnicodeDecodeError:
        return "invalid-utf8"
    return None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--minutes", type=float, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=Path("fuzz-failures"))
    args = ap.parse_args()
    rnd = random.Random(args.seed)
    corpus = seeds()
    tally: Counter[str] = Counter()
    deadline = time.monotonic() + args.minutes * 60
    with tempfile.TemporaryDirectory() as tmp:
        n = 0
        while time.monotonic() < deadline:
            fmt = rnd.choice(sorted(corpus))
            data = mutate(corpus[fmt], rnd, rnd.randint(1, 16))
            path = Path(tmp) / f"input-{n}.{fmt}"
            path.write_bytes(data)
            command = rnd.choice(COMMANDS)
            result = run_limited([*command, str(path)])
            problem = verdict(result)
            tally[problem or "ok"] += 1
            if problem:
                args.out.mkdir(parents=True, exist_ok=True)
                kept = args.out / f"{problem}-{n}.{fmt}"
                kept.write_bytes(data)
                (args.out / f"{problem}-{n}.txt").write_text(
                    f"crparse {' '.join(command)} {kept.name}\n{result.stderr.decode('utf-8', 'replace')[-3000:]}"
                )
                print(f"{problem}: {kept}", flush=True)
            path.unlink()
            n += 1
    print(f"{n} inputs: " + ", ".join(f"{k} {v}" for k, v in sorted(tally.items())))
    return 1 if set(tally) - {"ok"} else 0


if __name__ == "__main__":
    raise SystemExit(main())
