"""The per-call memo of the unit layer: codes and orders computed once per call, shared by validation and engines.

The unit of evaluation is (segment columns..., query). Both the schema checks (duplicate items, duplicate
ranks) and the numpy engine need integer codes for that unit and the rows' order within it; computing them
twice would double the cost at 10M rows, so a call opens :func:`shared` and the results are memoised for the
duration of that call only (never across calls: a DataFrame may change between them).

The memo lives in a :class:`contextvars.ContextVar`, so concurrent calls in other threads (or asyncio tasks)
never see each other's entries, and every entry keeps a reference to the frame it was computed from: an
``id()`` can only be reused after its object is freed, which the reference prevents while the memo lives.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterator
from typing import TypeVar

import pandas as pd

_T = TypeVar("_T")
_memo: contextvars.ContextVar[dict | None] = contextvars.ContextVar("rankframe_keys_memo", default=None)


@contextlib.contextmanager
def shared() -> Iterator[None]:
    """Memoise codes and orders for the duration of one call (per thread / task)."""
    token = _memo.set({} if _memo.get() is None else _memo.get())
    try:
        yield
    finally:
        _memo.reset(token)


def _cached(key: tuple, owners: tuple, make: Callable[[], _T]) -> _T:
    """``make()`` memoised under ``key`` for the current call; ``owners`` are the objects the key's ids name."""
    memo = _memo.get()
    if memo is None:
        return make()
    entry = memo.get(key)
    if entry is None or any(a is not b for a, b in zip(entry[0], owners)):
        entry = (owners, make())
        memo[key] = entry
    return entry[1]


def alias(view: pd.DataFrame, frame: pd.DataFrame) -> None:
    """Let ``view``, a shallow copy of ``frame`` (same columns, same row order), share ``frame``'s memo entries.

    Validation runs on such a view (a fresh 0..n-1 index for the example rows); without this the checks and
    the engine would each compute the unit codes and the ranked order (twice the work at 10M rows).
    """
    memo = _memo.get()
    if memo is not None:
        memo[("alias", id(view))] = ((view,), frame)


def _resolve(df: pd.DataFrame) -> pd.DataFrame:
    memo = _memo.get()
    entry = None if memo is None else memo.get(("alias", id(df)))
    return entry[1] if entry is not None and entry[0][0] is df else df
