"""A missing optional dependency's error says how to install its extra from PyPI and from a checkout (issue 36:
``pip install "rankframe[plot]"`` does not work in a clone). One wording, ``rankframe.errors.install_extra``."""

from __future__ import annotations

import sys

import pytest

from rankframe.core.errors import RankframeError


def _raised(monkeypatch, blocked: tuple[str, ...], call) -> str:
    for name in blocked:  # None in sys.modules makes `import name` raise ImportError
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(RankframeError) as e:
        call()
    return str(e.value)


def _plot():
    from rankframe.plot._common import pyplot

    pyplot()


def _spark():
    from rankframe.spark._compat import pyspark

    pyspark()


def _polars():
    from rankframe.tables.inputs import import_polars

    import_polars()


def _warehouse():
    from rankframe.warehouse.terms import sqlglot

    sqlglot()


@pytest.mark.parametrize(
    ("extra", "blocked", "call"),
    [
        ("plot", ("matplotlib", "matplotlib.pyplot"), _plot),
        ("spark", ("pyspark", "pyspark.sql"), _spark),
        ("polars", ("polars",), _polars),
        ("warehouse", ("sqlglot",), _warehouse),
    ],
    ids=["plot", "spark", "polars", "warehouse"],
)
def test_a_missing_extra_says_both_ways_to_install_it(monkeypatch, extra, blocked, call):
    text = _raised(monkeypatch, blocked, call)
    assert f'pip install "rankframe[{extra}]"' in text, text  # from PyPI
    assert f'pip install -e ".[{extra}]"' in text, text  # from a checkout (the repository root)
