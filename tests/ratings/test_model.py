"""The model's pure parts: ranks, which games count, and the fast path of the update,
which must be exactly openskill's ``rate``."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from service.ratings import MODEL, counts, ranks, rate_sides


def test_ranks_share_ties_and_skip_places():
    assert ranks([140.0, 44.0]) == [1, 2]
    assert ranks([19.0, 0.0, 0.0, 215.0]) == [2, 3, 3, 1]
    assert ranks([-13.0, -27.0, -34.0]) == [1, 2, 3]  # penalty totals, negated
    assert ranks([5.0, 5.0]) == [1, 1]


def test_which_games_count():
    assert counts("valid", True) and counts("mismatch", True)
    assert not counts("illegal", False) and not counts("incomplete", False)
    assert not counts("illegal", True)


belief = st.tuples(st.floats(0, 50), st.floats(0.5, 9))


@given(st.lists(st.lists(belief, min_size=1, max_size=2), min_size=2, max_size=6),
       st.randoms(use_true_random=False))
def test_rate_sides_is_openskills_rate(sides, rng: random.Random):
    places = ranks([float(rng.randrange(3)) for _ in sides])
    teams = [[MODEL.create_rating([mu, sigma]) for mu, sigma in side] for side in sides]
    expected = [[(r.mu, r.sigma) for r in team] for team in MODEL.rate(teams, ranks=places)]
    assert rate_sides(sides, places) == expected
