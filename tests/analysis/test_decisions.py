"""Decision loss in expected deal points (service/analysis/decisions.py): every legal throw
weighed, the best loses nothing, positions worked out by hand, the player's view of the
unseen cards, and the generator's bots in their order."""

from __future__ import annotations

import random
import statistics

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.analysis.decisions import (
    AFTER_DRAW,
    BEST,
    DEADWOOD,
    HALF_LOSS,
    KNOCK_OR_PLAY_ON,
    MARGIN,
    PER_DRAWN,
    THIS_DRAW,
    UPCARD_OFFER,
    WITHIN_MARGIN,
    WORSE,
    Position,
    accuracy_of,
    decide,
    figures,
    game_decisions,
    gin_throw_sums,
    isolated,
    judge,
    judge_draw,
    positions,
    verdict,
)
from service.analysis.gin_knock import CLEAR
from service.analysis.values import draw_figures, suit_tables, value_after
from service.engine import parse_game
from service.engine.cards import FULL_DECK, card_name, parse_card, point_table
from service.engine.melds import least_deadwood
from service.engine.rules import PRESETS, resolve_rules
from service.generator import generate_game, random_rules
from tests.engine.logs import deal, game


def mask(cards: str) -> int:
    out = 0
    for c in cards.split():
        out |= 1 << parse_card(c)
    return out


def gin_tables():
    rules = resolve_rules("gin", None, 2)[0]
    return suit_tables(str(rules.ace), point_table(rules.ace_points))


# Three melds and two lone cards: 5C 5H 5S, 8H 9H TH, 6D 7D 8D; KS and 2C are near no
# other card of the hand (no card of their rank, none of their suit within two ranks).
MADE = "5C 5H 5S 8H 9H TH 6D 7D 8D"


def test_a_lone_king_is_thrown_before_a_lone_two_by_the_worked_out_loss():
    hand = mask(MADE + " KS 2C")
    unseen = FULL_DECK & ~hand  # 41 cards
    tables = gin_tables()
    # After one draw the hand kept is gin when the card drawn fits a meld (5D, 9D, 7H,
    # JH: 4 of the 41) and the lone card is thrown; otherwise the deadwood is the lone
    # card or the card drawn, whichever has fewer points.
    points = point_table(1)
    fits = mask("5D 9D 7H JH")
    rest = [c for c in range(52) if (unseen & ~fits) >> c & 1]
    assert len(rest) == 37
    keep_king = sum(min(10, points[c]) for c in rest)  # 4 aces, then 10 or less
    keep_two = sum(min(2, points[c]) for c in rest)  # 4 aces at 1, 33 cards at 2
    assert keep_two == 4 + 33 * 2
    best, played, least, loss = judge(hand, hand, unseen, parse_card("2C"), tables)
    assert card_name(best) == "KS"
    assert played == pytest.approx(keep_king / 41) and least == pytest.approx(keep_two / 41)
    assert loss == pytest.approx(PER_DRAWN * (keep_king - keep_two) / 41)  # 1.3 points
    assert 0.5 * HALF_LOSS < loss < HALF_LOSS  # keeping a king over a two: 52 to 71%
    assert judge(hand, hand, unseen, parse_card("KS"), tables)[3] == 0.0
    # Throwing a card of a meld is worse still: every one of them loses more.
    for card in MADE.split():
        assert judge(hand, hand, unseen, parse_card(card), tables)[3] > loss


def test_keeping_a_meld_beats_breaking_it_even_for_fewer_points_now():
    # 3H 4H 5H melds; QS JD are lone.  Throwing QS keeps the run; throwing 4H breaks it
    # (3H 5H then wait on 4H alone) though it keeps fewer points than throwing 5H would.
    hand = mask("3H 4H 5H 9C 9D 9S KC KD QS JD 2S")
    tables = gin_tables()
    unseen = FULL_DECK & ~hand
    loss_run = judge(hand, hand, unseen, parse_card("4H"), tables)[3]
    best = judge(hand, hand, unseen, parse_card("4H"), tables)[0]
    assert card_name(best) not in ("3H", "4H", "5H", "9C", "9D", "9S")
    assert loss_run > 0
    assert loss_run > judge(hand, hand, unseen, parse_card("QS"), tables)[3]


def test_a_knock_is_judged_by_the_deadwood_it_keeps_doubled_when_the_deal_is():
    hand = mask(MADE + " KS 2C")
    tables = gin_tables()
    at = Position(0, 5, 0, "knock", parse_card("KS"), hand, hand, 0, False)
    assert decide(at, tables)[:2] == (parse_card("KS"), DEADWOOD)
    assert decide(at, tables)[4] == 0
    worse = Position(0, 5, 0, "knock", parse_card("2C"), hand, hand, 0, False)
    best, measure, played, least, loss = decide(worse, tables)
    assert (card_name(best), measure, played, least, loss) == ("KS", DEADWOOD, 10, 2, 8)
    doubled = Position(0, 5, 0, "knock", parse_card("2C"), hand, hand, 0, True)
    assert decide(doubled, tables)[4] == 16


def test_isolated_cards_are_those_near_no_other():
    hand = mask(MADE + " KS 2C")
    assert isolated(hand) == mask("KS 2C")
    # Round the corner: KC is two ranks from 2C, so neither is alone.
    assert isolated(mask("KC 2C 7H")) == mask("7H")


def test_verdicts_and_accuracy():
    assert verdict(0.0) == BEST
    assert verdict(MARGIN) == WITHIN_MARGIN
    assert verdict(MARGIN + 0.01) == WORSE
    assert accuracy_of(0.0) == 100.0
    assert accuracy_of(HALF_LOSS) == pytest.approx(50.0)
    assert accuracy_of(2 * HALF_LOSS) == pytest.approx(25.0)


def test_the_unseen_cards_leave_out_the_pile_and_what_the_opponent_took_in_sight():
    # ana draws 8D and throws 7S; ben takes 7S from the pile and throws KC; ana draws
    # from the stock and throws.  At ana's second decision she has seen: her hand, the
    # pile (the upcard QH under KC), and 7S in ben's hand.
    ana = "AC 2C 3C 4H 5H 6H 7S 7D 9C KS"
    ben = "8S 9S 2D 3D JD QC KC 5C 6D AD"
    log = game("gin", ["ana", "ben"],
               [deal("ben", {"ana": ana, "ben": ben}, "QH",
                     ["ana ds 8D", "ana x 7S", "ben dd 7S", "ben x KC", "ana ds 4D",
                      "ana x KS"])], rules={"target": None})
    found = list(positions(parse_game(log)))
    assert [(at.move, card_name(at.card), at.action, at.source) for at, _ in found] == [
        (0, "QH", "draw", "stock"), (1, "7S", "discard", None), (2, "7S", "draw", "pile"),
        (3, "KC", "discard", None), (4, "KC", "draw", "stock"), (5, "KS", "discard", None)]
    last = found[5][0]
    held = mask(ana + " 8D 4D") & ~mask("7S")
    assert last.hand == held
    assert last.unseen == FULL_DECK & ~held & ~mask("QH KC 7S")
    assert last.unseen.bit_count() == 52 - 11 - 3
    # ben took 7S from the pile: he may not throw it back this turn.
    assert not found[3][0].throws & mask("7S")
    assert found[3][0].unseen & mask("8D")  # ana's stock draw is unseen by ben
    # ana's second draw: ten cards held, the pile's KC offered and seen, 7S in sight.
    draw = found[4][0]
    assert draw.hand == mask(ana + " 8D") & ~mask("7S")
    assert draw.unseen == FULL_DECK & ~draw.hand & ~mask("QH KC 7S")
    # ben's draw of 7S: what he may throw once he holds it (not 7S itself).
    assert found[2][0].throws == mask(ben)


GIN_VARIANTS = [v for v, p in PRESETS.items() if p.family == "gin"]


def generated_gin(seed: int, options: bool, skills: dict[str, str]):
    variant = GIN_VARIANTS[seed % len(GIN_VARIANTS)]
    rules = random_rules(variant, random.Random(seed), players=2) if options else None
    try:
        return parse_game(generate_game(variant, (11, seed), players=2, rules=rules,
                                        skills=skills))
    except (ValueError, RuntimeError):  # options that let no game end
        return None


@settings(max_examples=12)
@given(seed=st.integers(0, 10**6), options=st.booleans(),
       skill=st.sampled_from(["random", "greedy", "careful"]))
def test_every_legal_throw_loses_nothing_below_the_best(seed, options, skill):
    parsed = generated_gin(seed, options, {"ana": skill, "ben": "random"})
    if parsed is None:
        return
    found = game_decisions(parsed)
    judged = {(x.deal, x.move): x for x in found if x.choice is None}
    choices = {(x.deal, x.move): x for x in found if x.choice is not None}
    draws = 0
    for at, tables in positions(parsed):
        if at.offer >= 0:  # the first upcard's offer, a choice of its own
            offer = choices.pop((at.deal, at.move))
            assert offer.measure == UPCARD_OFFER and offer.loss >= 0
            assert offer.choice == ("take" if at.action == "draw" else "pass")
            continue
        decision = judged[(at.deal, at.move)]
        assert decision.loss >= 0
        check_choice(at, choices.pop((at.deal, at.move), None), parsed.rules)
        scale = 2 if at.doubled else 1
        if at.action == "draw":
            draws += 1
            check_draw(at, decision, parsed.rules, tables, plain=draws <= 2)
            continue
        # Every throw weighed here, none left out (the module leaves lone cards out).
        if at.action == "discard":
            n = at.unseen.bit_count()
            sums = {c: draw_figures(at.hand & ~(1 << c), at.unseen, -1, 0, tables)[1]
                    for c in range(52) if at.throws >> c & 1}
            least = min(sums.values())
            losses = {c: scale * PER_DRAWN * (s - least) / n for c, s in sums.items()}
            assert decision.measure == AFTER_DRAW
        else:
            kept = {c: least_deadwood(at.hand & ~(1 << c), parsed.rules.ace,
                                      point_table(parsed.rules.ace_points))
                    for c in range(52) if at.throws >> c & 1}
            least = min(kept.values())
            losses = {c: scale * (k - least) for c, k in kept.items()}
            assert decision.measure == DEADWOOD
        assert all(v >= 0 for v in losses.values())
        assert losses[decision.best] == 0
        assert decision.loss == pytest.approx(losses[at.card], abs=1e-9)
        # The throw the evaluator prefers, played, loses exactly nothing.
        again = Position(at.deal, at.move, at.seat, at.action, decision.best, at.hand,
                         at.throws, at.unseen, at.doubled)
        assert decide(again, tables)[4] == 0
        # The player's view: the unseen cards hold every card of the stock.
        assert not at.unseen & at.hand


def check_choice(at, choice, rules) -> None:
    """A turn's knock-or-play-on choice is judged exactly when a knock is open: a
    throw leaves deadwood within the limit but above 0, and the stock is above its
    floor; its loss is 0 when the choice played is the better one."""
    points = point_table(rules.ace_points)
    least = min((least_deadwood(at.hand & ~(1 << c), rules.ace, points) for c in range(52)
                 if at.throws >> c & 1), default=None) if at.source is None else None
    open_knock = (at.source is None and at.open_knock and at.action != "gin"
                  and least is not None and 0 < least <= at.limit)
    assert (choice is not None) == open_knock
    if choice is None:
        return
    assert choice.measure == KNOCK_OR_PLAY_ON and choice.throws == 2
    assert choice.choice == ("knock" if at.action == "knock" else "play_on")
    assert choice.best_choice in ("knock", "play_on")
    assert choice.loss >= 0 and choice.error >= 0
    if choice.best_choice == choice.choice:
        assert choice.loss == 0
    else:
        scale = 2 if at.doubled else 1
        gap = abs(choice.best_value - choice.played_value)
        assert choice.loss == pytest.approx(scale * gap)
        assert gap > CLEAR * choice.error


def check_draw(at, decision, rules, tables, plain: bool) -> None:
    """A draw: both sources weighed (the stock over every unseen card, the pile over
    every legal throw), the loss the played source's, 0 for the best; with ``plain``,
    the figures counted card by card with the engine."""
    scale = 2 if at.doubled else 1
    ace, points = rules.ace, point_table(rules.ace_points)
    held = at.hand | 1 << at.card
    pile = min(least_deadwood(held & ~(1 << c), ace, points)
               for c in range(52) if at.throws >> c & 1)
    values = {"pile": float(pile), "stock": None}
    if plain:
        after = [min(least_deadwood((at.hand | 1 << u) & ~(1 << c), ace, points)
                     for c in range(52) if (at.hand | 1 << u) >> c & 1)
                 for u in range(52) if at.unseen >> u & 1]
        values["stock"] = sum(after) / len(after)
    else:
        values["stock"] = draw_figures(at.hand, at.unseen, -1, 0, tables)[1] / \
            at.unseen.bit_count()
    least = min(values.values())
    assert decision.measure == THIS_DRAW
    assert decision.source == at.source
    assert values[decision.best_source] == pytest.approx(least)
    assert decision.loss == pytest.approx(scale * PER_DRAWN * (values[at.source] - least),
                                          abs=1e-9)
    # The source the evaluator prefers, played, loses exactly nothing.
    assert judge_draw(at.hand, at.card, at.throws, at.unseen, decision.best_source,
                      tables)[3] == 0


def test_a_draw_worked_out_by_hand():
    """ana holds three melds, 9S and KS: 19 of deadwood.  The pile's QS melds with
    nothing, and taken it may not be thrown back: the least she keeps is 19 (QS and 9S,
    KS thrown).  The stock's mean after the best throw is below 19, so the stock is the
    best source and taking QS costs PER_DRAWN times the difference.  The pile's JH
    makes 8H 9H TH JH: KS thrown, 9 kept, below anything the stock gives on average."""
    hand = mask(MADE + " 9S KS")
    tables = gin_tables()
    unseen = FULL_DECK & ~hand & ~mask("QS")
    stock = draw_figures(hand, unseen, -1, 0, tables)[1] / unseen.bit_count()
    assert stock < 19
    best, played, least, loss = judge_draw(hand, parse_card("QS"), hand, unseen, "pile",
                                           tables)
    assert (best, played, least) == ("stock", 19.0, stock)
    assert loss == pytest.approx(PER_DRAWN * (19 - stock))
    offered = parse_card("JH")
    unseen = FULL_DECK & ~hand & ~mask("JH")
    best, played, least, loss = judge_draw(hand, offered, hand, unseen, "pile", tables)
    assert (best, played, loss) == ("pile", 9.0, 0.0)


def test_the_bots_lose_in_their_order_on_a_fixed_seed():
    """A regression guard (benchmarks/decisions.py measures it on more games): the
    random bot loses far more per draw and throw than the greedy and careful ones; the
    greedy bot, which at times plays on for gin where it could knock, loses more on
    its knock-or-play-on choices than the careful one, which knocks as soon as it may."""
    losses: dict[str, list[float]] = {"random": [], "greedy": [], "careful": []}
    choices: dict[str, list[float]] = {"random": [], "greedy": [], "careful": []}
    for i, (first, second) in enumerate((("random", "greedy"), ("careful", "greedy"),
                                         ("random", "careful"))):
        skills = {"ana": first, "ben": second}
        for n in range(2):
            parsed = parse_game(generate_game("gin", (3, i, n), players=2, skills=skills))
            for x in game_decisions(parsed):
                (losses if x.choice is None else choices)[skills[x.player]].append(x.loss)
    mean = {k: statistics.fmean(v) for k, v in losses.items()}
    assert mean["random"] > 1.0
    assert mean["greedy"] < 0.3 and mean["careful"] < 0.3
    assert mean["random"] > 5 * max(mean["greedy"], mean["careful"])
    played_on = [x for x in choices["greedy"] if x > 0]
    assert played_on and statistics.fmean(choices["greedy"]) > 2 * statistics.fmean(
        choices["careful"])


def test_player_figures_average_the_losses_and_accuracies():
    log = game("gin", ["ana", "ben"],
               [deal("ben", {"ana": "AC 2C 3C 4H 5H 6H 7S 7D 9C KS",
                             "ben": "8S 9S 2D 3D JD QC KC 5C 6D AD"}, "QH",
                     ["ana ds 8D", "ana x 7S", "ben dd 7S", "ben x KC"])],
               rules={"target": None})
    found = game_decisions(parse_game(log))
    out = figures(found, ("ana", "ben", "cy"))
    ana = [x for x in found if x.player == "ana"]
    assert [x.action for x in ana] == ["draw", "discard"]
    assert out["ana"]["decisions"] == len(ana) == 2
    assert out["ana"]["average_loss"] == round((ana[0].loss + ana[1].loss) / 2, 4)
    assert out["ana"]["accuracy"] == round(
        (accuracy_of(ana[0].loss) + accuracy_of(ana[1].loss)) / 2, 2)
    assert out["cy"] == {"decisions": 0, "loss": 0, "average_loss": None, "accuracy": None,
                         "best": 0}


def test_other_families_have_no_decisions_judged():
    log = game("rummy", ["ana", "ben"],
               [deal("ben", {"ana": "AC 2C 3C 4H 5H 6H 7S", "ben": "8S 9S 2D 3D JD QC KC"},
                     "QH", ["ana ds 8D", "ana x 7S"])], rules={"target": None})
    assert game_decisions(parse_game(log)) == []


def test_the_documents_figures_are_the_codes():
    """docs/ANALYSIS.md, "Decision loss", quotes the constants and the worked figures."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "ANALYSIS.md").read_text(
        encoding="utf-8")
    start = text.index("## Decision loss")
    section = " ".join(text[start:text.index("\n## ", start + 1)].split())
    assert f"value(H) = −{PER_DRAWN} · m(H)" in section
    assert f"`100 · 2^(−loss / {HALF_LOSS:g})`" in section
    assert f"at most **{MARGIN}** deal points" in section
    hand = mask(MADE + " KS 2C")
    king = judge(hand, hand, FULL_DECK & ~hand, parse_card("2C"), gin_tables())[3]
    assert f"keeping the king loses {king:.2f} points ({accuracy_of(king):.0f}%" in section
    log = game("gin", ["ana", "ben"],
               [deal("ben", {"ana": "AC 2C 3C 4H 5H 6H 7S 7D 9C KS",
                             "ben": "8S 9S 2D 3D JD QC KC 5C 6D AD"}, "QH",
                     ["ana ds 8D", "ana x 7S", "ben dd 7S", "ben x KC"])],
               rules={"target": None})
    first = [x for x in game_decisions(parse_game(log)) if x.action == "discard"][0]
    assert (f"a loss of {first.loss:.2f} deal points (`played_value` "
            f"{first.played_value:.1f}, `best_value` {first.best_value:.1f} over the "
            f"{first.unseen} cards") in section


def test_an_illegal_throw_is_not_judged_nor_what_follows():
    # ana knocks with 31 deadwood (the limit is 10): the knock breaks a rule.
    log = game("gin", ["ana", "ben"],
               [deal("ben", {"ana": "AC 2C 3C 4H 5H 6H 7S 7D 9C KS",
                             "ben": "8S 9S 2D 3D JD QC KC 5C 6D AD"}, "QH",
                     ["ana ds 8D", "ana knock KS", "ben dd KS", "ben x KC"])],
               rules={"target": None})
    # Only ana's draw before it is judged.
    assert [(x.move, x.action) for x in game_decisions(parse_game(log))] == [(0, "draw")]


def test_with_no_card_left_unseen_every_throw_is_as_good():
    hand = mask(MADE + " KS 2C")
    assert judge(hand, hand, 0, parse_card("2C"), gin_tables()) == (parse_card("2C"), 0.0,
                                                                     0.0, 0.0)


def plain_sums(hand: int, throws: int, unseen: int, tables) -> dict[int, int]:
    """Each throw's sum over the unseen cards of the value after drawing the card and
    the best discard, one card at a time (``values.value_after``: every group choice
    and every discard of the eleven cards), no shortcut and nothing left out."""
    return {c: sum(value_after(hand & ~(1 << c), b, 0, tables)
                   for b in range(52) if unseen >> b & 1)
            for c in range(52) if throws >> c & 1}


@settings(max_examples=40)
@given(st.data())
def test_the_throw_sums_by_suit_are_the_plain_sums(data):
    """``gin_throw_sums`` (shared per-suit sums, the pair and group cases) gives each
    throw the sum worked out card by card, on hands rich in pairs and sets."""
    rng = random.Random(data.draw(st.integers(0, 10**9)))
    ranks = rng.sample(range(13), rng.randint(3, 8))  # few ranks: pairs and sets
    pool = [r + 13 * s for r in ranks for s in range(4)]
    if len(pool) < 11:
        pool += rng.sample([c for c in range(52) if c not in pool], 11 - len(pool))
    hand = sum(1 << c for c in rng.sample(pool, 11))
    unseen = FULL_DECK & ~hand & ~sum(1 << c for c in rng.sample(range(52), 12))
    tables = gin_tables()
    assert gin_throw_sums(hand, hand, unseen, tables) == plain_sums(hand, hand, unseen,
                                                                    tables)


def test_the_decisions_of_generated_games_are_the_plain_computations():
    """Every discard of generated games (every gin preset, bots that keep sets and
    runs): the loss, the best throw, and the figures of the played and the best are
    those of the plain sums over every legal throw (the best: the played throw when it
    is one of the best, else the lowest card among the best)."""
    judged = 0
    for n in range(6):
        variant = GIN_VARIANTS[n % len(GIN_VARIANTS)]
        skills = {"ana": ("careful", "greedy", "random")[n % 3], "ben": "careful"}
        parsed = parse_game(generate_game(variant, (17, n), players=2, skills=skills))
        found = {(x.deal, x.move): x for x in game_decisions(parsed) if x.choice is None}
        for at, tables in positions(parsed):
            if at.action != "discard" or not at.unseen:
                continue
            sums = plain_sums(at.hand, at.throws, at.unseen, tables)
            count = at.unseen.bit_count()
            least = min(sums.values())
            best = at.card if sums[at.card] == least else min(
                c for c, s in sums.items() if s == least)
            x = found[(at.deal, at.move)]
            scale = 2 if at.doubled else 1
            assert (x.best, x.played_value, x.best_value, x.loss) == (
                best, sums[at.card] / count, least / count,
                scale * PER_DRAWN * (sums[at.card] - least) / count)
            judged += 1
    assert judged > 300
