"""How the service's messages say a count: ``plural(1, "deal")`` is "1 deal",
``plural(2, "deal")`` "2 deals", never "1 deals" or "deal(s)"; and a range, one way
everywhere: "must be an integer from 1 to 500", "must be an integer of at least 1"; and
a place in a game as people count it, from 1: "deal 2, move 8"."""

from __future__ import annotations


def plural(count: int, noun: str, nouns: str | None = None, grouped: bool = False) -> str:
    """``count`` and ``noun``, plural unless ``count`` is 1 (``nouns`` when the plural
    is not ``noun`` + s); ``grouped`` writes thousands with commas (20,000)."""
    number = f"{count:,}" if grouped else str(count)
    return f"{number} {noun if count == 1 else nouns or noun + 's'}"


def integer_range(low: int, high: int | None = None) -> str:
    """What an integer out of its range is told: "must be an integer from ``low`` to
    ``high``", or "of at least ``low``" without an upper bound."""
    if high is None:
        return f"must be an integer of at least {low}"
    return f"must be an integer from {low} to {high}"


def where(deal: int | None, move: int | None) -> str:
    """A report's 0-based deal and move as people count them: deal index 1 and move
    index 7 are "deal 2, move 8"; no deal is "the game as a whole"."""
    if deal is None:
        return "the game as a whole"
    if move is None:
        return f"deal {deal + 1}"
    return f"deal {deal + 1}, move {move + 1}"
