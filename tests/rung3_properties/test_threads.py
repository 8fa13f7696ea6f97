"""Concurrent evaluations of different frames in threads each get their own answer, on every engine.

The per-call memo of unit codes and orders (now rankframe/units/_memo.py) once lived in a module global keyed by ``id(df)``:
a call in another thread could read this call's codes (a frame got another frame's queries, or a duplicate error
from another frame). Each thread's expected answer comes from a plain sequential call on the same frame.
"""

from __future__ import annotations

import threading

import numpy as np
import pandas as pd

import rankframe


def _frame(seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n_queries, depth = 200, 10
    return pd.DataFrame(
        {
            "query": np.repeat(np.arange(n_queries) + 1000 * seed, depth),
            "item": np.tile(np.arange(depth), n_queries),
            "rank": np.tile(np.arange(1, depth + 1), n_queries),
            "relevance": rng.integers(0, 3, n_queries * depth),
        }
    )


def test_threads_get_their_own_answers(engine):
    frames = [_frame(s) for s in range(8)]
    expected = [rankframe.evaluate(f, ["AP", "nDCG@5"], per_query=True, engine=engine) for f in frames]
    failures: list[str] = []
    start = threading.Barrier(len(frames))

    def work(i: int) -> None:
        start.wait()
        for _ in range(3):
            try:
                got = rankframe.evaluate(frames[i], ["AP", "nDCG@5"], per_query=True, engine=engine)
            except Exception as e:  # noqa: BLE001 - any exception in a thread is a failure to report
                failures.append(f"thread {i}: {type(e).__name__}: {e}")
                return
            if not got.equals(expected[i]):
                failures.append(f"thread {i}: got another answer ({got['query'].iloc[0]} first)")

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(frames))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures, failures[:3]


def test_a_call_never_reads_another_threads_memo():
    # Deterministic form of the race: thread A holds its per-call memo open with the unit codes of `df`; the main
    # thread then changes `df` (same object, same id) and evaluates it in a call of its own. With one memo shared by
    # all threads (the old module global), that call got A's codes: two queries instead of four.
    from rankframe.tables import units

    df = pd.DataFrame({"query": [1, 1, 2, 2], "item": [1, 2, 1, 2], "rank": [1, 2, 1, 2], "relevance": [1, 0, 0, 1]})
    holding, release = threading.Event(), threading.Event()

    def thread_a() -> None:
        with units.shared():
            units.group_codes(df, ["query"])
            holding.set()
            release.wait(10)

    a = threading.Thread(target=thread_a)
    a.start()
    try:
        assert holding.wait(10)
        df["query"] = [7, 8, 9, 10]  # the test's own frame: now four one-row queries
        with units.shared():
            assert units.group_codes(df, ["query"]).n == 4
        got = rankframe.evaluate(df, ["P@1"], per_query=True)
        assert list(got["query"]) == [7, 8, 9, 10]
    finally:
        release.set()
        a.join()
