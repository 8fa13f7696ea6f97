"""Intent-aware diversity measures: alpha-nDCG, ERR-IA, NRBP, P-IA, AP-IA and subtopic recall (issue 38).

One module per measure (``SPEC`` + ``compute``, like ``rankframe/metrics/``), declared with
:class:`rankframe.intent.declare.IntentSpec`; the shared arithmetic (the judgments per subtopic, the run's
novelty-discounted gains, the greedy ideal list) is ``rankframe.intent.lists``. ``rankframe.registry`` collects them
into ``INTENT``; the computation is ``rankframe.engines.intent_engine``. See docs/diversity.md and
docs/decisions/0021-intent-aware-diversity.md.
"""
