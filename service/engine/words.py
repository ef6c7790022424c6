"""How the service's messages say a count: ``plural(1, "deal")`` is "1 deal",
``plural(2, "deal")`` "2 deals", never "1 deals" or "deal(s)"; and a range, one way
everywhere: "must be an integer from 1 to 500", "must be an integer of at least 1"."""

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
