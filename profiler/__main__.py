"""`gpu-probe`: placeholder until the profiler issue fills it."""

import sys


def main(argv=None) -> int:
    return 0


if __name__ == "__main__":
    sys.exit(main())
