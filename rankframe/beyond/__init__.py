"""Beyond-accuracy metrics: coverage, concentration, popularity bias and novelty of recommendation lists.

One module per metric (``SPEC`` + ``compute``, like ``rankframe/metrics/``), declared with
:class:`rankframe.beyond.declare.BeyondSpec`: a level (``"set"``: one value per segment; ``"list"``: one value per
list, then averaged), the extra inputs it reads (``catalog=``, ``train=``), the faces that serve the family and the
peers' presets (``like='recbole'``). ``rankframe.registry`` collects them beside the accuracy metrics; the
computation is ``rankframe.engines.beyond_engine``. See docs/beyond-accuracy.md.
"""
