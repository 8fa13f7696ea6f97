"""pandera, imported without PySpark's pandas-3 warning.

pandera imports ``pyspark.pandas`` whenever PySpark is installed, and PySpark 4 warns at that import that it does
not fully support pandas 3. The warning concerns pandas-on-Spark, which rankframe never uses (``rankframe.spark``
works on plain Spark DataFrames), so it would only be noise on every
``import rankframe`` and again at the first validation.
"""

import warnings

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas", category=FutureWarning)
    import pandera.backends.pandas.builtin_checks  # noqa: F401  (it retries the import at the first validation)
    import pandera.pandas as pa
    from pandera.errors import SchemaErrors

__all__ = ["SchemaErrors", "pa"]
