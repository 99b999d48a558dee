"""Hostile-input benchmark: every case of the regression corpus (tests/hostile_inputs.py, built
afresh in a temporary directory) run through the CLI, with its exit status, wall and CPU time
and peak memory (the child's and its workers', from wait4). The figures the issue asks for: each
class's largest input, after its fix (its "before" is in the test that names it).

    python bench/bench_hostile.py [--only SUBSTRING] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from common import ENV, ROOT

sys.path.insert(0, str(ROOT / "tests"))

from hostile_inputs import build  # noqa: E402
from limits import run_limited  # noqa: E402


def run(args: list[str], env: dict[str, str]) -> dict:
    """The case in a child as the tests run it (tests/limits.py), with room to show a regression:
    its peak is the child's own high-water mark (VmHWM; wait4's ru_maxrss starts from this
    process's size, which exec does not reset)."""
    # ENV: compiled modules cached, as a user's install has them (run_limited sets the path)
    cached = {k: v for k, v in ENV.items() if k != "PYTHONPATH"}
    found = run_limited(args, env=cached | env, memory=4 << 30, seconds=120)
    return {
        "exit": found.returncode,
        "wall_s": round(found.seconds, 2),
        "cpu_s": round(found.cpu_seconds, 2),
        "peak_mib": round(found.peak_mib, 1),
        "stderr": found.stderr.decode("utf-8", "replace").strip().splitlines()[:1],
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", help="the cases whose name holds this")
    ap.add_argument("--json", type=Path, help="write the figures as JSON")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for case in build(Path(tmp)):
            if args.only and args.only not in case.name:
                continue
            found = run([a.replace("{dir}", tmp) for a in case.args], case.env)
            rows.append({"case": case.name, **found})
            print(f"{case.name:40} exit {found['exit']}  {found['wall_s']:7.2f} s wall  {found['cpu_s']:7.2f} s CPU  "
                  f"{found['peak_mib']:7.1f} MiB", flush=True)
    worst = max(rows, key=lambda r: r["cpu_s"], default=None)
    if worst:
        print(f"\n{len(rows)} cases; most CPU: {worst['case']} {worst['cpu_s']} s; most memory: "
              f"{max(rows, key=lambda r: r['peak_mib'])['case']} {max(r['peak_mib'] for r in rows)} MiB")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
