"""Paired statistics for system comparisons: pure numpy/scipy kernels, no pandas.

Every kernel works on the *segmented paired layout*:

- ``x``, ``y``: float arrays of shape ``(n_rows, n_cols)``; row ``i`` is one query, column ``c`` one comparison
  (a metric and a pair of systems); ``x`` holds the system's per-query values, ``y`` the baseline's;
- ``offsets``: int array of shape ``(n_segments + 1,)``; the queries of segment ``s`` are the rows
  ``offsets[s]:offsets[s + 1]`` (rows are grouped by segment, every segment has at least one row);
- NaN in ``x`` or ``y`` means "this query takes no part in this comparison".

Results are arrays of shape ``(n_segments, n_cols)``: one value per (segment, comparison). All comparisons are
computed at once (segment reductions and matrix products); the only Python loops run over segments or over
chunks of resamples, never over queries.

Modules: :mod:`.paired` (n, means, delta, sd, wins/ties/losses, effect size, paired t-test and its interval),
:mod:`.planning` (power of the paired t-test: minimum detectable effect, topic set size),
:mod:`.randomization` (paired sign-flip test), :mod:`.wilcoxon` (signed-rank test),
:mod:`.hodges_lehmann` (the estimate and interval beside it), :mod:`.effect_size` (Hedges' g_z and its
noncentral-t interval), :mod:`.bootstrap` (paired
percentile bootstrap interval), :mod:`.tukey` (blocked Tukey HSD for all pairs), :mod:`.corrections` (Holm,
Bonferroni, Benjamini-Hochberg, the levels of adjusted intervals), :mod:`.westfall_young` (max-|t| step-down
resampling adjustment), :mod:`.align` (query alignment of per-query values before any test), :mod:`.anova` (the
omnibus two-way ANOVA, the split-plot system x group interaction, Sakai's effect size).
"""

from __future__ import annotations

from .align import Alignment, align, pivot
from .bootstrap import bootstrap_ci
from .corrections import CORRECTIONS, P_VALUE_CORRECTIONS, adjust, adjusted_alpha
from .effect_size import EstimateInterval, HedgesResult, hedges_gz, hedges_j
from .hodges_lehmann import HodgesLehmannResult, hodges_lehmann
from .paired import ALTERNATIVES, EQUAL_RTOL, PairedSummary, differences, equal, summarize, ttest
from .planning import MDE_POWER, mde_dz, power, topic_set_size
from .randomization import sign_flip_test
from .tukey import BlockedAnova, blocked_anova, tukey_hsd
from .westfall_young import WestfallYoungResult, westfall_young
from .wilcoxon import ZERO_METHODS, wilcoxon_test

__all__ = [
    "ALTERNATIVES",
    "EQUAL_RTOL",
    "differences",
    "equal",
    "Alignment",
    "BlockedAnova",
    "EstimateInterval",
    "HedgesResult",
    "HodgesLehmannResult",
    "CORRECTIONS",
    "P_VALUE_CORRECTIONS",
    "WestfallYoungResult",
    "ZERO_METHODS",
    "adjusted_alpha",
    "MDE_POWER",
    "PairedSummary",
    "adjust",
    "align",
    "blocked_anova",
    "hedges_gz",
    "hedges_j",
    "hodges_lehmann",
    "mde_dz",
    "power",
    "topic_set_size",
    "bootstrap_ci",
    "pivot",
    "sign_flip_test",
    "summarize",
    "ttest",
    "tukey_hsd",
    "westfall_young",
    "wilcoxon_test",
]
