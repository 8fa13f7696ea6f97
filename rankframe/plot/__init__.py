"""Plots of rankframe's results (matplotlib, the optional extra ``pip install "rankframe[plot]"``).

Axes-level functions in seaborn's style: each takes the tidy frame rankframe returns (or a long table it
evaluates first), draws on ``ax=`` (default: a new figure), labels the axes, adds a legend, returns the Axes and
never calls ``plt.show()``. matplotlib is imported when a plot is drawn, not by ``import rankframe``.

* :func:`at_k` — metric@k curves per system, a CI band with ``ci=``;
* :func:`forest` — per-segment deltas (``compare``) or means with their intervals, significant ones marked,
  sorted by effect, ``n`` in the labels;
* :func:`differences` — per-query differences of two systems, sorted, wins/losses coloured;
* :func:`distribution` — per-query values per system or segment (box or violin);
* :func:`pr_curve` — trec_eval's 11-point interpolated precision–recall curve per system
  (:func:`iprec_at_recall` computes the points).
"""

from __future__ import annotations

from ._common import MissingExtraError
from .at_k import at_k
from .differences import differences
from .distribution import distribution
from .forest import forest
from .pr_curve import RECALL_LEVELS, iprec_at_recall, pr_curve

__all__ = [
    "MissingExtraError",
    "RECALL_LEVELS",
    "at_k",
    "differences",
    "distribution",
    "forest",
    "iprec_at_recall",
    "pr_curve",
]
