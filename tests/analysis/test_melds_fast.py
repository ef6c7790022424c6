"""The melds module's quick answers used by the analysis, against the plain ones."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from service.engine.melds import (
    candidate_melds,
    joins_meld,
    layoff_cards,
    layoff_fits,
    meld_kind,
)
from service.engine.rules import ACE_MODES

hands = st.integers(0, (1 << 52) - 1).map(lambda m: m & ((1 << 52) - 1))


@given(st.sampled_from(ACE_MODES), st.lists(st.integers(0, 51), min_size=3, max_size=6,
                                             unique=True))
def test_layoff_cards_is_every_card_that_fits(ace, cards):
    mask = sum(1 << c for c in cards)
    for melds in (candidate_melds(mask, ace), [mask]):
        for meld in melds:
            kind = meld_kind(meld, ace)
            if kind is None:
                continue
            fits = sum(1 << c for c in range(52) if layoff_fits(meld, kind, c, ace))
            assert layoff_cards(meld, kind, ace) == fits


@given(st.sampled_from(ACE_MODES), st.lists(st.integers(0, 51), max_size=12, unique=True),
       st.integers(0, 51))
def test_joins_meld_is_a_candidate_meld_holding_the_card(ace, cards, card):
    hand = sum(1 << c for c in cards) & ~(1 << card)
    expected = any(m >> card & 1 for m in candidate_melds(hand | 1 << card, ace))
    assert joins_meld(hand, card, ace) == expected
