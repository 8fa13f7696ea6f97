"""``python -m rankframe``: the ``rankframe`` command line."""

import sys

from .cli import main

if __name__ == "__main__":  # not on an import (the docs build inspects the package)
    sys.exit(main())
