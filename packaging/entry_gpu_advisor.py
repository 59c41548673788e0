"""Frozen entry point of `gpu-advisor` (GUI and subcommands) in the PyInstaller bundle."""

import multiprocessing
import sys

if __name__ == "__main__":
    # A frozen app that spawns itself through multiprocessing must call this first (Windows above all).
    multiprocessing.freeze_support()
    from desktop.entry import main

    sys.exit(main())
