"""mypy with pandas-stubs reads ``df.rank_metrics`` as rankframe's namespace (issue 36), through the plugin
``rankframe.mypy_plugin`` (pyproject's [tool.mypy] plugins, as a user's configuration names it).

Without the plugin pandas-stubs types an unknown DataFrame attribute as a column (``DataFrame.__getattr__ ->
Series``): ``df.rank_metrics.map(k=10)`` was ``Series.map`` and an error. With it, the namespace is
``RankMetrics``, each metric method has its declared parameters (read from the registry), and a misspelt method or
parameter is an error.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """\
import pandas as pd

import rankframe

df = pd.read_parquet("examples/recs.parquet")
reveal_type(df.rank_metrics)
mean = df.rank_metrics.ap(k=10)
per_country = df.rank_metrics.ndcg(10, by="country", judged_only=True)
table = df.rank_metrics.evaluate(["AP", "nDCG@10"], by="country")
reveal_type(table)
named = df.rank_metrics(query="query").precision(5, rel=2)
typo = df.rank_metrics.mapp(k=10)
wrong = df.rank_metrics.ap(kk=10)
reveal_type(rankframe.evaluate(df, "nDCG@10", by="country"))
reveal_type(rankframe.fuse(df.assign(system="a"), method="rrf"))
rankframe.compare(df, "nDCG@10", system="country").sort_values(bogus=1)
"""


def cache_dir() -> str:
    """mypy's incremental cache: the one ``mypy`` itself uses (``MYPY_CACHE_DIR``, else ``.mypy_cache`` in the tree
    root). CI sets ``MYPY_CACHE_DIR`` to the cache its type check has just filled (``.ci/run``), so this run reads
    pandas-stubs and rankframe from it (~1 CPU-s) instead of analysing them again in a clean clone (~30 CPU-s)."""
    return os.environ.get("MYPY_CACHE_DIR") or str(ROOT / ".mypy_cache")


@pytest.mark.slow  # one mypy run with pandas-stubs: ~1 s on a warm cache (`mypy` run from the tree root), ~30 s cold
def test_mypy_reads_the_accessor_as_rankframes(tmp_path, monkeypatch):
    api = pytest.importorskip("mypy.api")
    script = tmp_path / "accessor_script.py"
    script.write_text(SCRIPT)
    monkeypatch.chdir(ROOT)  # pyproject's [tool.mypy] (the plugin) and this checkout's rankframe
    out, err, status = api.run([str(script), "--cache-dir", cache_dir(), "--no-error-summary", "--show-error-codes"])
    lines = out.splitlines()
    errors = [line.split(": error: ", 1)[1] for line in lines if ": error: " in line]
    notes = [line.split(": note: ", 1)[1] for line in lines if ": note: " in line]
    assert 'Revealed type is "rankframe.accessor.RankMetrics"' in notes, out + err
    assert 'Revealed type is "pandas.core.frame.DataFrame"' in notes, out + err
    # the public verbs' results have real types: a DataFrame, or Any for output='arrow'/'polars' (pyarrow and polars
    # are optional), so a DataFrame method called wrongly on a result is an error (it was Any: nothing was checked)
    verbs = [n for n in notes if n.startswith("Revealed type")][2:]
    assert verbs == ['Revealed type is "pandas.core.frame.DataFrame | Any"'] * 2, out + err
    # the right calls pass; the two wrong ones are the only errors
    assert status == 1 and len(errors) == 3, out + err
    assert errors[0].startswith('"RankMetrics" has no metric method "mapp"'), errors
    assert errors[1].startswith('Unexpected keyword argument "kk" for "ap"'), errors
    assert errors[2].startswith('No overload variant of "sort_values" of "DataFrame"'), errors
