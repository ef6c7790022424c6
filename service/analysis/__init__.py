"""Move analysis: what a verified game shows about how it was played.

Pure Python over the engine (``service.engine``): no HTTP, no SQL.  Every figure is
defined in ``docs/ANALYSIS.md``.

- ``facts``: the exact facts of each decision (missed gins, knocks and outs, discard
  errors, missed layoffs, fed cards).
- ``luck``: the exact luck of every stock draw and of every dealt hand.
"""
