"""`make bench` (streaming, issue 30 item 7): import a 1,000,000-row quote CSV, list it (`quotes list --mine --json`
and `quotes list`) and export it, each as its own `gpu-advisor` process; wall time, peak memory (the child's
maximum resident set, from the kernel) and, for the listings, how long until the first line came. A second
`quotes add` started during the import shows whether a writer behind it waits with a message.

Target: peak memory <= 300 MB for each command at 1,000,000 rows. BENCH_STREAM_ROWS sets a smaller file for a
quick look. Everything happens in a temporary folder; the user's database is never opened.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.bench.bench_store import write_csv

ROWS = int(os.environ.get("BENCH_STREAM_ROWS", "1000000"))
TARGET_PEAK_MB = 300.0
GPU_ADVISOR = str(Path(sys.executable).parent / "gpu-advisor")


def timed(arguments: list[str], env: dict[str, str], output: Path) -> dict[str, float | int]:
    """Run `gpu-advisor ARGUMENTS` with stdout to `output`: exit code, seconds, seconds to the first byte of
    output, and the child's own peak resident memory (os.wait4's rusage, in MB)."""
    started = time.perf_counter()
    first_output_s = -1.0
    with open(output, "wb") as sink:
        process = subprocess.Popen([GPU_ADVISOR, *arguments], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                   env=env)  # fmt: skip
        assert process.stdout is not None
        while piece := process.stdout.read1(1 << 16):
            if first_output_s < 0:
                first_output_s = time.perf_counter() - started
            sink.write(piece)
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
    return {
        "exit_code": process.returncode,
        "s": round(time.perf_counter() - started, 1),
        "first_output_s": round(first_output_s, 2),
        "peak_mb": round(usage.ru_maxrss / 1024, 1),  # Linux reports kilobytes
    }


def run() -> dict:
    with tempfile.TemporaryDirectory(prefix="bench-streaming-") as folder:
        here = Path(folder)
        env = dict(os.environ, GPU_ADVISOR_DB=str(here / "ledger.sqlite"))
        source = write_csv(here / "quotes.csv", ROWS)
        csv_mb = round(source.stat().st_size / 1e6, 1)
        # a writer that arrives while the import holds the write lock
        late = subprocess.Popen(
            ["bash", "-c", f"sleep 5; {GPU_ADVISOR} quotes add --provider Late --gpu h100-sxm --price 2.5"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, text=True,
        )  # fmt: skip
        imported = timed(["quotes", "import", str(source)], env, here / "import.out")
        _, late_err = late.communicate()
        listed_json = timed(["quotes", "list", "--mine", "--json"], env, here / "list.json")
        listed = timed(["quotes", "list"], env, here / "list.txt")
        exported = timed(["quotes", "export", str(here / "export.csv")], env, here / "export.out")
        lines = sum(1 for _ in open(here / "list.txt", encoding="utf-8"))
    return {
        "rows": ROWS,
        "csv_mb": csv_mb,
        "import": imported,
        "list_mine_json": listed_json,
        "list_text": listed,
        "list_text_lines": lines,
        "export": exported,
        "writer_behind_import": {"exit_code": late.returncode, "stderr_first_line": late_err.split("\n")[0]},
        "target_peak_mb": TARGET_PEAK_MB,
    }
