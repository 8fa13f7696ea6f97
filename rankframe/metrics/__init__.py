"""One module per metric: its declaration (``SPEC``) and its numpy kernel (``compute``).

``rankframe/metrics/<name>.py`` declares ``SPEC = rankframe.declare.MetricSpec(name="<name>", ...)`` and defines
``compute(prep, **params) -> (values, nothing_relevant)``: one float per evaluation unit, and for metrics that
declare ``nothing_relevant`` the mask of units where the value is undefined (0/0), to which the ``no_relevant``
policy applies (None otherwise). ``rankframe.registry`` collects every module of this package that has a
``SPEC``; a module without one (shared helpers) is skipped. Its SQL lives in ``sql/<name>.sql``.
"""
