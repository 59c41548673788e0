"""A stand-in for gpu-probe that `gpu-advisor probe` runs during fuzzing (GPU_ADVISOR_PROBE_CMD): it writes a
valid one-GPU report to the --json FILE it is given and prints a one-line summary, like gpu-probe; a FILE it
cannot write is refused the way gpu-probe refuses bad arguments (one line on stderr, exit code 2). No torch."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.fuzz.strategies import base_report  # noqa: E402


def main(argv: list[str]) -> int:
    target = argv[argv.index("--json") + 1] if "--json" in argv else None
    if target:
        try:
            Path(target).write_text(json.dumps(base_report()), encoding="utf-8")
        except OSError as exc:
            sys.stderr.write(f"gpu-probe: cannot write {target}: {exc.strerror}\n")
            return 2
        print(f"report written to {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
