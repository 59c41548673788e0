"""A stand-in for a hung torchrun: it ignores SIGTERM and starts a child in a new session (as torchrun starts
its workers) that ignores SIGTERM too and never exits. Writes the child's pid to the file named in argv[1]."""

import os
import signal
import subprocess
import sys
import time

IGNORING_CHILD = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(3600)"

signal.signal(signal.SIGTERM, signal.SIG_IGN)
child = subprocess.Popen([sys.executable, "-c", IGNORING_CHILD], start_new_session=True)
with open(sys.argv[1] + ".partial", "w", encoding="utf-8") as handle:
    handle.write(str(child.pid))
os.replace(sys.argv[1] + ".partial", sys.argv[1])
time.sleep(3600)
