"""``python -m tfcore``: the command line that mirrors the dashboard's pages."""

import sys

from tfcore.cli import main

if __name__ == "__main__":
    sys.exit(main())
