"""The first upcard's offer (``service.analysis.gin_offer``): worked choices whose
every world ends alike, and every offer of generated games judged."""

from __future__ import annotations

import pytest

from service.analysis.gin_knock import FIRST_LOOK
from service.analysis.gin_offer import OFFER_WORLDS, PASS, TAKE, offer_choice
from service.analysis.values import suit_tables
from service.engine.cards import parse_card, point_table
from service.engine.rules import resolve_rules
from tests.analysis.test_decisions import mask


@pytest.fixture(scope="module")
def gin():
    rules = resolve_rules("gin", {"upcard_pass": True}, 2)[0]
    return rules, suit_tables(str(rules.ace), point_table(rules.ace_points))


MINE = mask("2C 3C 4C 7D 8D 9D JS QS KS AH")  # 1 of deadwood (AH)
OTHER = mask("5H 5S 5D TH JH QH 2D 3D 4D KC")  # 10 (KC): AD makes a run with 2D 3D 4D
UPCARD = parse_card("AD")


def test_passing_an_upcard_that_gives_the_dealer_gin_loses_the_whole_difference(gin):
    """The other's hand is the only world (the unseen cards are theirs, the stock is
    empty): taking AD and throwing AH knocks with 1 against their 10 (nothing of theirs
    fits the melds), 9; passing, the dealer takes AD onto 2D 3D 4D, throws KC and goes
    gin, 25 and the 1 kept, to them."""
    rules, tables = gin
    passed = offer_choice(MINE, UPCARD, False, False, OTHER, 0, 10, rules, tables)
    assert (passed.take, passed.pass_, passed.error) == (9.0, -26.0, 0.0)
    assert (passed.played, passed.best, passed.loss, passed.worlds) == (
        PASS, TAKE, 35.0, OFFER_WORLDS)
    took = offer_choice(MINE, UPCARD, True, False, OTHER, 0, 10, rules, tables)
    assert (took.played, took.best, took.loss, took.worlds) == (TAKE, TAKE, 0.0, FIRST_LOOK)
    assert took.value(TAKE) == 9.0 and took.value(PASS) == -26.0


def test_the_dealers_pass_sends_the_first_player_to_the_stock(gin):
    """The dealer's offer: passing, the first player draws from the stock, here empty
    past its floor, so the deal is void (0); taking knocks at once for 9."""
    rules, tables = gin
    passed = offer_choice(MINE, UPCARD, False, True, OTHER, 0, 10, rules, tables)
    assert (passed.take, passed.pass_, passed.best, passed.loss) == (9.0, 0.0, TAKE, 9.0)
    # A dealer's knock limit below the deadwood the upcard leaves: no knock at once,
    # and the first player's stock draw voids the deal either way.
    low = offer_choice(MINE, UPCARD, False, True, OTHER, 0, 0, rules, tables)
    assert (low.take, low.pass_, low.loss) == (0.0, 0.0, 0.0)


def test_every_offer_of_generated_games_is_judged_with_no_loss_for_the_better_choice():
    from service.analysis.decisions import UPCARD_OFFER, game_decisions, positions
    from service.engine import parse_game
    from service.generator import generate_game

    offers = 0
    for n in range(4):
        parsed = parse_game(generate_game(
            "gin", (37, n), players=2, rules={"upcard_pass": True, "oklahoma": n % 2 == 1},
            skills={"ana": ("random", "careful")[n % 2], "ben": "greedy"}))
        found = {(x.deal, x.move): x for x in game_decisions(parsed)
                 if x.measure == UPCARD_OFFER}
        at_offers = [at for at, _ in positions(parsed) if at.offer >= 0]
        assert {(at.deal, at.move) for at in at_offers} == set(found)
        for at in at_offers:
            x = found[(at.deal, at.move)]
            move = parsed.deals[at.deal].moves[at.move]
            assert x.choice == (TAKE if move.action.value == "draw" else PASS)
            assert x.card == at.card and x.loss >= 0
            if x.best_choice == x.choice:
                assert x.loss == 0
            else:
                assert x.loss == pytest.approx((2 if at.doubled else 1)
                                               * abs(x.best_value - x.played_value))
            offers += 1
        # Each deal opens with one or two offers (the dealer's after a pass).
        firsts = {at.deal for at in at_offers if at.offer == 0}
        assert firsts == set(range(len(parsed.deals)))
    assert offers > 20
