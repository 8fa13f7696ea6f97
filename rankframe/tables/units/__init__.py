"""The unit layer: codes and ranked order of the evaluation units (segment columns..., query), shared per call.

One module per job: :mod:`._memo` (the per-call memo), :mod:`.values` (a column's numbers as numpy),
:mod:`.codes` (dense unit and item codes), :mod:`.order` (the ranked order, CSR), :mod:`.packed` (the ranked lists
from one sort of packed keys), :mod:`.duplicates` (the rule "items unique per unit"), :mod:`.kinds` (the kind of an
id column's values). Callers outside the package use the names re-exported here (``units.group_codes``).
"""

from __future__ import annotations

from ._memo import alias, shared
from .codes import Groups, column_codes, dense_codes, group_codes, item_factors
from .duplicates import (
    SEGMENT_GUESSES,
    any_repeat,
    duplicate_item_rows,
    duplicate_item_rule,
    segment_guesses,
    separating_column,
)
from .kinds import id_kind, value_kind
from .kinds import inferred as inferred_kind
from .order import (
    RankedOrder,
    descending_codes,
    index_dtype,
    lexsort_codes,
    offsets_from_counts,
    positions_in_lists,
    ranked_order,
)
from .packed import DenseLists, dense_lists
from .values import as_float, int_values, rank_values

__all__ = [
    "SEGMENT_GUESSES",
    "DenseLists",
    "Groups",
    "RankedOrder",
    "alias",
    "any_repeat",
    "as_float",
    "column_codes",
    "dense_codes",
    "descending_codes",
    "dense_lists",
    "duplicate_item_rows",
    "duplicate_item_rule",
    "group_codes",
    "id_kind",
    "index_dtype",
    "inferred_kind",
    "int_values",
    "item_factors",
    "lexsort_codes",
    "offsets_from_counts",
    "positions_in_lists",
    "rank_values",
    "ranked_order",
    "segment_guesses",
    "separating_column",
    "shared",
    "value_kind",
]
