"""Player ratings: OpenSkill's Plackett-Luce model over verified results.

Pure Python over the results the engine verified: no HTTP, no SQL (the store keeps
the tables and calls this package).  docs/RATINGS.md states every rule.

- ``model``: the model, a player's ``Rating``, inactivity drift, the ordinal, the
  provisional flag, win predictions.
- ``results``: which games count, their sides and the ranks of their sides.
- ``ledger``: games rated in order over a state of ratings.
"""

from .ledger import Ledger, Update, order_key, rate_game
from .model import (
    DRIFT_PER_DAY,
    MODEL,
    Provisional,
    Rating,
    drifted_sigma,
    initial_rating,
    predict_win,
    rate_sides,
)
from .results import RatedGame, Side, counts, ranks, sides

__all__ = ["DRIFT_PER_DAY", "MODEL", "Ledger", "Provisional", "RatedGame", "Rating", "Side",
           "Update", "counts", "drifted_sigma", "initial_rating", "order_key", "predict_win",
           "rate_game", "rate_sides", "ranks", "sides"]
