"""`python -m desktop` opens the GUI (or runs a subcommand), like `gpu-advisor`."""

import multiprocessing
import sys

from desktop.entry import main

if __name__ == "__main__":
    multiprocessing.freeze_support()
    sys.exit(main())
