"""Read and write ranking files (the module ``rankframe/io.py`` moved into a package; split by job next)."""

from .tables import *  # noqa: F403
from .tables import __all__, _read_bytes, is_regular_file, peek  # noqa: F401
