"""`make bench`: runs every tests/bench/bench_*.py module's `run()` and prints one JSON object of figures.

Benchmarks print numbers; they never pass or fail on timing (a busy CI machine would make that flaky). Each
module's run() returns a dict of figures with units in the key names, plus the target where the issue set one.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import sys
import time

import tests.bench as bench_package


def main(selected: list[str]) -> int:
    results: dict[str, object] = {}
    for info in sorted(pkgutil.iter_modules(bench_package.__path__), key=lambda m: m.name):
        if not info.name.startswith("bench_"):
            continue
        name = info.name.removeprefix("bench_")
        if selected and name not in selected:
            continue
        started = time.perf_counter()
        module = importlib.import_module(f"tests.bench.{info.name}")
        try:
            results[name] = module.run()
        except Exception as exc:  # a broken benchmark is reported, the others still run
            results[name] = {"error": f"{type(exc).__name__}: {exc}"}
        print(f"bench {name}: {time.perf_counter() - started:.1f} s", file=sys.stderr)
    json.dump(results, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
