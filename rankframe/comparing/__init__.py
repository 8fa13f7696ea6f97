"""The comparison's shared rules and output, one home for every face of compare (pandas, DuckDB, Spark, the CLI).

:mod:`.rules`: the parameter, system-column and baseline rules and their words; :mod:`.frame`: the per-query codes,
the notes, the pairs and the result frame. :mod:`rankframe.compare` keeps ``compare()`` and its orchestration.
"""
