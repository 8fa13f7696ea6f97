"""PySpark is an optional extra: import it only here, and say which extra to install when it is missing."""

from __future__ import annotations

import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any

from ..core.errors import RankframeError, install_extra

EXTRA = install_extra("spark")


class MissingExtraError(RankframeError, ImportError):
    """An optional dependency of the called feature is not installed."""


def pyspark() -> ModuleType:
    """The ``pyspark`` module, or a :class:`MissingExtraError` naming the extra to install."""
    try:
        import pyspark as module
        import pyspark.sql  # noqa: F401  (the DataFrame API)
    except ImportError as err:  # pragma: no cover - exercised where pyspark is absent
        raise MissingExtraError(f"rankframe.spark needs PySpark (>= 3.5): {EXTRA}") from err
    return module


def is_spark_frame(obj: Any) -> bool:
    """Whether ``obj`` is a Spark DataFrame (classic or Spark Connect)."""
    pyspark()
    from pyspark.sql import DataFrame

    if isinstance(obj, DataFrame):
        return True
    # Spark Connect's DataFrame is another class. A Connect frame means its module is loaded already; importing it
    # here would run pyspark's dependency check, which calls sys.exit(0) in processes whose __main__ has no file
    # (pytest-xdist workers, embedded interpreters)
    connect = sys.modules.get("pyspark.sql.connect.dataframe")
    return connect is not None and isinstance(obj, connect.DataFrame)


def quote(name: str) -> str:
    """A column name as Spark reads it literally: in backticks, a backtick doubled (dots, spaces kept as-is)."""
    return "`" + str(name).replace("`", "``") + "`"


def column(name: str) -> Any:
    """The Spark column of that exact name (``F.col`` would read ``a.b`` as a field and choke on a backtick).

    Every column named by the caller goes through here (the one quoting rule of :mod:`rankframe.spark`).
    """
    from pyspark.sql import functions as F

    return F.col(quote(name))


@contextmanager
def quiet() -> Iterator[None]:
    """Silence PySpark 4's notice that it does not "fully support" pandas 3.

    It is raised on every conversion; the parity tests are the judge of that support here.
    """
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*PySpark does not yet fully support pandas.*")
        yield
