"""Melds, layoffs and the least-deadwood arrangement, under every ace mode."""

from __future__ import annotations

from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.engine.cards import cards_of, mask_of, parse_card, point_table
from service.engine.melds import (
    GROUP,
    RUN,
    best_arrangement,
    candidate_melds,
    deadwood,
    discard_deadwoods,
    is_valid_meld,
    layoff_fits,
    least_deadwood,
    meld_kind,
    melds_disjoint,
)

LOW, HIGH, AROUND = "low", "high_or_low", "around_the_corner"
MODES = (LOW, HIGH, AROUND)
P1 = point_table(1)
P15 = point_table(15)


def m(codes: str) -> int:
    """The mask of space-separated card codes."""
    cards = [parse_card(code) for code in codes.split()]
    assert None not in cards
    return mask_of(cards)  # type: ignore[arg-type]


def c(code: str) -> int:
    card = parse_card(code)
    assert card is not None
    return card


def suit_of_ranks(ranks: str, suit: str = "H") -> int:
    return m(" ".join(rank + suit for rank in ranks))


FULL_HEARTS = suit_of_ranks("A23456789TJQK")


# --- reference rules, written independently of the module ------------------------------

def ref_is_meld(mask: int, ace: str) -> bool:
    cards = cards_of(mask)
    if len(cards) < 3:
        return False
    ranks = sorted(card % 13 for card in cards)
    suits = {card // 13 for card in cards}
    if len(set(ranks)) == 1:
        return len(cards) <= 4
    if len(suits) != 1:
        return False
    n = len(ranks)
    if ranks == list(range(ranks[0], ranks[0] + n)):
        return True  # a window within A..K
    if ace == HIGH:
        high = sorted(13 if r == 0 else r for r in ranks)
        return high == list(range(high[0], high[0] + n))
    if ace == AROUND:
        return any(set(ranks) == {(start + i) % 13 for i in range(n)} for start in range(13))
    return False


def ref_kind(mask: int, ace: str) -> str | None:
    if not ref_is_meld(mask, ace):
        return None
    return GROUP if len({card % 13 for card in cards_of(mask)}) == 1 else RUN


def ref_candidates(hand: int, ace: str) -> list[int]:
    """Every subset of 3+ cards of one rank or of one suit that is a meld."""
    cards = cards_of(hand)
    out = set()
    for key in (lambda card: card % 13, lambda card: card // 13):
        for value in range(13):
            same = [card for card in cards if key(card) == value]
            for size in range(3, len(same) + 1):
                out.update(mask_of(subset) for subset in combinations(same, size)
                           if ref_is_meld(mask_of(subset), ace))
    return sorted(out)


def ref_best_deadwood(hand: int, ace: str, points: tuple[int, ...]) -> int:
    """Least deadwood over every set of pairwise-disjoint candidate melds."""
    candidates = ref_candidates(hand, ace)
    value = [sum(points[card] for card in cards_of(meld)) for meld in candidates]
    best = 0

    def walk(index: int, used: int, melded: int) -> None:
        nonlocal best
        best = max(best, melded)
        for j in range(index, len(candidates)):
            if not candidates[j] & used:
                walk(j + 1, used | candidates[j], melded + value[j])

    walk(0, 0, 0)
    return sum(points[card] for card in cards_of(hand)) - best


# --- meld_kind / is_valid_meld ---------------------------------------------------------

@pytest.mark.parametrize("ace", MODES)
@pytest.mark.parametrize("codes, kind", [
    ("7C 7D 7H", GROUP),
    ("7C 7D 7H 7S", GROUP),
    ("AC AD AS", GROUP),
    ("7C 7D", None),               # a pair is no meld
    ("7C", None),
    ("7C 7D 8H", None),
    ("7C 7D 7H 7S 8C", None),      # a group has at most 4 cards
    ("4H 5H 6H", RUN),
    ("6H 4H 5H", RUN),             # a run is a set: order is irrelevant
    ("4H 5H 6H 7H 8H 9H TH", RUN),
    ("4H 5H", None),               # 2-card "run"
    ("4H 5H 6D", None),            # mixed suits
    ("4H 5H 5D 6H", None),         # duplicate rank in a run
    ("4H 6H 7H", None),            # gap
    ("4H 5H 7H 8H", None),
    ("AH 2H 3H", RUN),
    ("9S TS JS QS KS", RUN),
])
def test_meld_kind_same_in_every_mode(codes: str, kind: str | None, ace: str) -> None:
    assert meld_kind(m(codes), ace) == kind
    assert is_valid_meld(m(codes), ace) is (kind is not None)


@pytest.mark.parametrize("codes, low, high, around", [
    ("AH 2H 3H", RUN, RUN, RUN),
    ("QH KH AH", None, RUN, RUN),
    ("KH AH 2H", None, None, RUN),
    ("QH KH AH 2H 3H", None, None, RUN),
    ("JH QH KH AH", None, RUN, RUN),
    ("AH 2H 3H 4H", RUN, RUN, RUN),
    ("KH AH", None, None, None),
    ("QH KH 2H", None, None, None),       # not consecutive even around the corner
    ("AH 2H 3H QH KH 9H", None, None, None),
    ("2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH", RUN, RUN, RUN),    # all but the ace
    ("AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH", RUN, RUN, RUN),    # all but the king
    ("AH 2H 3H 4H 5H 6H 8H 9H TH JH QH KH", None, None, RUN),  # all but the 7: wraps
])
def test_meld_kind_at_the_ace(codes: str, low: str | None, high: str | None,
                              around: str | None) -> None:
    assert [meld_kind(m(codes), ace) for ace in MODES] == [low, high, around]


@pytest.mark.parametrize("ace", MODES)
def test_full_suit_is_a_run(ace: str) -> None:
    for suit in "CDHS":
        assert meld_kind(suit_of_ranks("A23456789TJQK", suit), ace) == RUN


def test_meld_kind_rejects_bad_input() -> None:
    assert meld_kind(0, LOW) is None
    assert meld_kind(-1, LOW) is None
    assert meld_kind(0b111 << 52, LOW) is None
    with pytest.raises(ValueError):
        meld_kind(m("AH 2H 3H"), "sometimes")


# --- layoffs ---------------------------------------------------------------------------

@pytest.mark.parametrize("ace", MODES)
def test_group_layoffs(ace: str) -> None:
    group = m("7C 7D 7H")
    assert layoff_fits(group, GROUP, c("7S"), ace)
    assert not layoff_fits(group, GROUP, c("7H"), ace)   # already in the meld
    assert not layoff_fits(group, GROUP, c("8S"), ace)
    assert not layoff_fits(group, GROUP, c("6H"), ace)   # never turns into a run
    assert not layoff_fits(group, RUN, c("7S"), ace)     # the meld is no run
    full = m("7C 7D 7H 7S")
    assert not any(layoff_fits(full, GROUP, card, ace) for card in range(52))


@pytest.mark.parametrize("ace", MODES)
def test_run_layoffs_at_both_ends(ace: str) -> None:
    run = m("4H 5H 6H")
    assert layoff_fits(run, RUN, c("3H"), ace)
    assert layoff_fits(run, RUN, c("7H"), ace)
    assert not layoff_fits(run, RUN, c("8H"), ace)
    assert not layoff_fits(run, RUN, c("2H"), ace)
    assert not layoff_fits(run, RUN, c("5H"), ace)       # already in the meld
    assert not layoff_fits(run, RUN, c("3D"), ace)       # other suit
    assert not layoff_fits(run, RUN, c("7D"), ace)
    assert not layoff_fits(run, GROUP, c("3H"), ace)     # the meld is no group
    fits = [card for card in range(52) if layoff_fits(run, RUN, card, ace)]
    assert fits == [c("3H"), c("7H")]


@pytest.mark.parametrize("ace", MODES)
def test_run_grown_twice_at_the_same_end(ace: str) -> None:
    run = m("4H 5H 6H")
    assert layoff_fits(run, RUN, c("7H"), ace)
    run |= 1 << c("7H")
    assert layoff_fits(run, RUN, c("8H"), ace)
    run |= 1 << c("8H")
    assert meld_kind(run, ace) == RUN
    assert layoff_fits(run, RUN, c("9H"), ace)
    assert layoff_fits(run, RUN, c("3H"), ace)
    assert not layoff_fits(run, RUN, c("TH"), ace)


@pytest.mark.parametrize("run, card, low, high, around", [
    ("2H 3H 4H", "AH", True, True, True),
    ("JH QH KH", "AH", False, True, True),
    ("QH KH AH", "2H", False, False, True),
    ("QH KH AH", "JH", False, True, True),
    ("AH 2H 3H", "KH", False, False, True),
    ("AH 2H 3H", "4H", True, True, True),
    ("KH AH 2H", "QH", False, False, True),
    ("KH AH 2H", "3H", False, False, True),
    ("KH AH 2H", "4H", False, False, False),
    ("2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH", "AH", True, True, True),
    ("AH 2H 3H 4H 5H 6H 8H 9H TH JH QH KH", "7H", False, False, True),
])
def test_run_layoffs_at_the_ace(run: str, card: str, low: bool, high: bool,
                                around: bool) -> None:
    assert [layoff_fits(m(run), RUN, c(card), ace) for ace in MODES] == [low, high, around]


@pytest.mark.parametrize("ace", MODES)
def test_no_layoff_on_a_full_suit_or_an_invalid_meld(ace: str) -> None:
    assert not any(layoff_fits(FULL_HEARTS, RUN, card, ace) for card in range(52))
    assert not layoff_fits(m("4H 5H"), RUN, c("6H"), ace)
    assert not layoff_fits(m("7C 7D"), GROUP, c("7H"), ace)
    assert not layoff_fits(m("4H 5H 6H"), RUN, 52, ace)
    with pytest.raises(ValueError):
        layoff_fits(m("4H 5H 6H"), "sequence", c("7H"), ace)


# --- candidate melds -------------------------------------------------------------------

def test_candidates_of_a_long_run() -> None:
    found = candidate_melds(m("4H 5H 6H 7H"), LOW)
    assert found == sorted([m("4H 5H 6H"), m("5H 6H 7H"), m("4H 5H 6H 7H")])


def test_candidates_of_a_four_group() -> None:
    found = candidate_melds(m("7C 7D 7H 7S 9C"), LOW)
    assert found == sorted([m("7C 7D 7H 7S"), m("7C 7D 7H"), m("7C 7D 7S"),
                            m("7C 7H 7S"), m("7D 7H 7S")])


def test_candidates_at_the_ace() -> None:
    hand = m("QH KH AH 2H")
    assert candidate_melds(hand, LOW) == []
    assert candidate_melds(hand, HIGH) == [m("QH KH AH")]
    assert candidate_melds(hand, AROUND) == sorted(
        [m("QH KH AH"), m("KH AH 2H"), m("QH KH AH 2H")])


def test_candidates_of_a_full_suit() -> None:
    assert len(candidate_melds(FULL_HEARTS, LOW)) == 66          # 11 + 10 + ... + 1
    assert len(candidate_melds(FULL_HEARTS, HIGH)) == 66 + 10    # + the windows ending at A
    assert len(candidate_melds(FULL_HEARTS, AROUND)) == 13 * 10 + 1


@pytest.mark.parametrize("ace", MODES)
def test_candidates_of_a_hand_without_melds(ace: str) -> None:
    assert candidate_melds(m("AC 3D 5H 7S 9C JD KH 2S 4C 6D"), ace) == []


# --- deadwood helpers ------------------------------------------------------------------

def test_deadwood_and_disjointness() -> None:
    hand = m("4H 5H 6H 6C 6D KS")
    assert deadwood(hand, [], P1) == 4 + 5 + 6 + 6 + 6 + 10
    assert deadwood(hand, [m("4H 5H 6H")], P1) == 22
    assert deadwood(hand, [m("6C 6D 6H")], P1) == 19
    assert melds_disjoint([m("4H 5H 6H"), m("7C 7D 7S")])
    assert not melds_disjoint([m("4H 5H 6H"), m("6C 6D 6H")])
    assert melds_disjoint([])


# --- best arrangement ------------------------------------------------------------------

def check_arrangement(hand: int, ace: str, points: tuple[int, ...]) -> int:
    """Solve and check that the melds given back justify the deadwood claimed."""
    value, melds = best_arrangement(hand, ace, points)
    assert all(meld & hand == meld and is_valid_meld(meld, ace) for meld in melds)
    assert melds_disjoint(melds)
    assert list(melds) == sorted(melds)
    assert deadwood(hand, melds, points) == value
    assert best_arrangement(hand, ace, points) == (value, melds)
    return value


@pytest.mark.parametrize("ace", MODES)
@pytest.mark.parametrize("codes, expected", [
    ("4H 5H 6H 6C 6D", 9),                      # the group beats the run (4 + 5 left)
    ("4H 5H 6H 7H 6C 6D", 12),                  # now the run beats the group
    ("4H 5H 6H 7H 6C 6D 6S 9C 9D 9S", 0),       # 6H goes to the run, 6C 6D 6S stay a group
    ("3H 4H 5H 5C 5D 6C 7C 8C 5S 9D", 9),       # 5H and 5C each wanted by a run and the group
    ("AC 2C 3C 4C 5D 5H 5S 9D TD JD", 0),
    ("AC 3D 5H 7S 9C JD KH 2S 4C 6D", 1 + 3 + 5 + 7 + 9 + 10 + 10 + 2 + 4 + 6),
    ("7C 7D 7H 7S 8S 9S", 0),                   # 7S to the run, the rest a group
    ("7C 7D 7H 7S 8S 9S TS 8H 9H", 0),
    ("2D 3D 4D 5D 6D 7D 8D 4C 4H 4S", 0),       # the long run keeps 4D, 4C 4H 4S a group
])
def test_best_arrangement_hand_written(codes: str, expected: int, ace: str) -> None:
    assert check_arrangement(m(codes), ace, P1) == expected


def test_greedy_group_first_fails() -> None:
    # Taking the four sixes leaves 4H 5H 7H 8H dead; the best splits them.
    hand = m("4H 5H 6H 7H 8H 6C 6D 6S")
    value, melds = best_arrangement(hand, LOW, P1)
    assert value == 0
    assert set(melds) == {m("4H 5H 6H 7H 8H"), m("6C 6D 6S")}


def test_greedy_longest_run_first_fails() -> None:
    # The long run 3H..7H leaves 3C 3D 7C 7D dead; its ends belong in two groups.
    hand = m("3H 4H 5H 6H 7H 3C 3D 7C 7D")
    value, melds = best_arrangement(hand, LOW, P1)
    assert value == 0
    assert melds == tuple(sorted([m("3C 3D 3H"), m("7C 7D 7H"), m("4H 5H 6H")]))


def test_big_gin_eleven_cards() -> None:
    hand = m("5C 5D 5H 5S 6S 7S 9H TH JH QH KH")
    for ace in MODES:
        value, melds = best_arrangement(hand, ace, P1)
        assert value == 0
        assert set(melds) == {m("5C 5D 5H"), m("5S 6S 7S"), m("9H TH JH QH KH")}


@pytest.mark.parametrize("ace, points, expected", [
    (LOW, P1, 20),        # A-2-3 only: Q K left
    (HIGH, P1, 5),        # Q-K-A beats A-2-3: 2 3 left
    (HIGH, P15, 5),
    (AROUND, P15, 0),     # Q-K-A-2-3 is one run
])
def test_best_arrangement_at_the_ace(ace: str, points: tuple[int, ...], expected: int) -> None:
    assert check_arrangement(m("QH KH AH 2H 3H"), ace, points) == expected


def test_high_or_low_ace_goes_where_it_saves_most() -> None:
    # A counts 15: Q-K-A (saves 35) versus A-2-3 (saves 20).
    hand = m("QH KH AH 2H 3H")
    value, melds = best_arrangement(hand, HIGH, P15)
    assert value == 2 + 3
    assert melds == (m("QH KH AH"),)
    # With court cards worth 1 the ace goes low instead.
    cheap = tuple(1 if card % 13 >= 10 else p for card, p in enumerate(P15))
    value, melds = best_arrangement(hand, HIGH, cheap)
    assert value == 1 + 1 and melds == (m("AH 2H 3H"),)
    # Both ends make a run when each has two cards besides the ace.
    assert best_arrangement(hand | m("4H"), HIGH, P15) == (0, (m("2H 3H 4H"), m("QH KH AH")))


@pytest.mark.parametrize("ace", MODES)
def test_full_suit_and_more(ace: str) -> None:
    hand = FULL_HEARTS | m("KC KD")
    value, melds = best_arrangement(hand, ace, P1)
    assert value == 0
    assert melds_disjoint(melds) and len(melds) == 2


def test_around_the_corner_run_through_the_ace() -> None:
    value, melds = best_arrangement(m("JS QS KS AS 2S 9D 9C 9H 5C 8D"), AROUND, P1)
    assert value == 13
    assert set(melds) == {m("JS QS KS AS 2S"), m("9D 9C 9H")}


def test_bad_arguments() -> None:
    with pytest.raises(ValueError):
        best_arrangement(m("AH 2H 3H"), "never", P1)
    with pytest.raises(ValueError):
        best_arrangement(1 << 52, LOW, P1)
    with pytest.raises(ValueError):
        best_arrangement(m("AH 2H 3H"), LOW, P1[:13])


def test_equal_point_tables_give_equal_answers() -> None:
    hand = m("4H 5H 6H 7H 6C 6D 6S 9C 9D 9S")
    assert best_arrangement(hand, LOW, P1) == best_arrangement(hand, LOW, point_table(1))
    assert best_arrangement(hand, LOW, list(P1)) == best_arrangement(hand, LOW, P1)


# --- against the brute-force reference -------------------------------------------------

def pool(ranks: str) -> list[int]:
    return [c(rank + suit) for rank in ranks for suit in "CDHS"]


HANDS = st.one_of(
    st.sets(st.integers(0, 51), min_size=7, max_size=11),
    st.sets(st.sampled_from(pool("QKA23")), min_size=7, max_size=11),   # around the ace
    st.sets(st.sampled_from(pool("45678")), min_size=7, max_size=11),   # dense middle
    st.sets(st.sampled_from(pool("A2345678")), min_size=7, max_size=11),
).map(mask_of)


@pytest.mark.parametrize("ace", MODES)
@settings(max_examples=200, derandomize=True, deadline=None)
@given(hand=HANDS, ace_points=st.sampled_from([1, 11, 15]))
def test_best_arrangement_matches_brute_force(hand: int, ace_points: int, ace: str) -> None:
    points = point_table(ace_points)
    assert check_arrangement(hand, ace, points) == ref_best_deadwood(hand, ace, points)


@pytest.mark.parametrize("ace", MODES)
@settings(max_examples=60, derandomize=True, deadline=None)
@given(hand=HANDS, points=st.lists(st.integers(0, 20), min_size=52, max_size=52).map(tuple))
def test_best_arrangement_with_any_point_table(hand: int, points: tuple[int, ...],
                                               ace: str) -> None:
    assert check_arrangement(hand, ace, points) == ref_best_deadwood(hand, ace, points)


@pytest.mark.parametrize("ace", MODES)
@settings(max_examples=200, derandomize=True, deadline=None)
@given(hand=HANDS)
def test_candidates_match_reference(hand: int, ace: str) -> None:
    expected = ref_candidates(hand, ace)
    assert candidate_melds(hand, ace) == expected
    for meld in expected:
        assert meld_kind(meld, ace) == ref_kind(meld, ace)


@pytest.mark.parametrize("ace", MODES)
@settings(max_examples=200, derandomize=True, deadline=None)
@given(meld=st.sets(st.integers(0, 51), min_size=1, max_size=6).map(mask_of),
       card=st.integers(0, 51))
def test_meld_and_layoff_match_reference(meld: int, card: int, ace: str) -> None:
    assert is_valid_meld(meld, ace) is ref_is_meld(meld, ace)
    kind = ref_kind(meld, ace)
    assert meld_kind(meld, ace) == kind
    if kind is None:
        return
    grown = meld | 1 << card
    expected = grown != meld and ref_kind(grown, ace) == kind
    assert layoff_fits(meld, kind, card, ace) is expected


@settings(max_examples=300)
@given(hand=st.sets(st.integers(0, 51), min_size=0, max_size=20),
       ace=st.sampled_from(MODES), ace_points=st.sampled_from([0, 1, 11, 15]))
def test_deadwood_alone_equals_the_best_arrangement(hand, ace, ace_points):
    """``least_deadwood`` and ``discard_deadwoods`` answer what ``best_arrangement``
    answers for the hand and for the hand less each of its cards."""
    points = point_table(ace_points)
    mask = sum(1 << c for c in hand)
    assert least_deadwood(mask, ace, points) == best_arrangement(mask, ace, points)[0]
    assert list(discard_deadwoods(mask, ace, points)) == [
        (c, best_arrangement(mask & ~(1 << c), ace, points)[0]) for c in sorted(hand)]


# The reference arrangement is exhaustive: 24-card hands cost seconds each, so the
# largest hands here hold 5 ranks of 4 suits and 6 cards more.
@settings(max_examples=200)
@given(ranks=st.sets(st.integers(0, 5), min_size=2, max_size=5), suits=st.sets(
    st.integers(0, 3), min_size=3, max_size=4), extra=st.sets(st.integers(0, 51), max_size=6),
    ace=st.sampled_from(MODES))
def test_deadwood_alone_on_hands_full_of_groups_and_runs(ranks, suits, extra, ace):
    """Hands where groups and runs compete for cards (the group choices matter)."""
    points = point_table(1)
    mask = sum(1 << (13 * s + r) for r in ranks for s in suits) | sum(1 << c for c in extra)
    assert least_deadwood(mask, ace, points) == best_arrangement(mask, ace, points)[0]
    for card, dw in discard_deadwoods(mask, ace, points):
        assert dw == best_arrangement(mask & ~(1 << card), ace, points)[0]
