"""``python -m rankframe``: the ``rankframe`` command line."""

import sys

from .cli import main

sys.exit(main())
