"""Frozen entry point of `gpu-probe` (console, no Qt) in the PyInstaller bundle."""

import multiprocessing
import sys

if __name__ == "__main__":
    # torch.distributed/multiprocessing children of a frozen exe re-enter here; freeze_support routes them.
    multiprocessing.freeze_support()
    from profiler.__main__ import main

    sys.exit(main())
