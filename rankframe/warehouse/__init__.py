"""Portable warehouse SQL: one plain SELECT per call, built from the metric declarations (``docs/warehouse.md``).

:func:`render` is re-exported as ``rankframe.sql.render``; :mod:`.terms` is the vocabulary the metrics'
``portable()`` expressions are written in (and where the portability traps are handled, once).
"""

from __future__ import annotations

from .compare import render_compare
from .render import TESTED_DIALECTS, render
from .terms import NotPortable

__all__ = ["render", "render_compare", "NotPortable", "TESTED_DIALECTS"]
