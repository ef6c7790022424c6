"""deal_positions: one replay of a deal gives, at every step, the table that replaying
to that step alone gives (table_after / state_after), and says each move in words."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.engine import load_json, parse_game
from service.engine.cards import card_name
from service.engine.positions import deal_positions
from service.engine.replay import verify
from service.engine.state import NoSuchPosition, held, state_after, table_after

SAMPLES = sorted((Path(__file__).resolve().parents[2] / "sample_logs").glob("*.json"))


def _game(path: Path):
    raw = path.read_bytes()
    return parse_game(load_json(raw, len(raw) + 1))


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.stem)
def test_every_position_is_the_table_replayed_to_it(path):
    game = _game(path)
    report = verify(game)
    for d, deal in enumerate(game.deals):
        answer = deal_positions(game, d)
        positions = answer["positions"]
        assert len(answer["moves"]) == len(deal.moves)
        stopped = answer["stopped_by"]
        if stopped is None:
            reached = len(deal.moves)  # every move: as dealt, then after each
        elif stopped["move"] is None:
            reached = 0  # a problem of the deal as a whole: the table as dealt only
        else:
            reached = stopped["move"] + 1  # up to the illegal move, as it found the table
        assert len(positions) == reached + 1
        for k, position in enumerate(positions):
            table, problem = table_after(game, d, k - 1)
            names = game.players
            in_hands = []
            for seat in table.order:
                hand = position["hands"][names[seat]]
                shown = [c for meld in hand["melds"] for c in meld] + hand["rest"]
                assert sorted(shown) == sorted(card_name(c) for c in range(52)
                                               if held(table, seat) >> c & 1)
                assert hand["count"] == held(table, seat).bit_count() == len(shown)
                in_hands += shown
            if game.rules.is_gin:  # after a knock: each card once, in a hand or on the table
                on_table = [c for meld in position["melds"] for c in meld["cards"]]
                assert not set(in_hands) & set(on_table)
                assert sorted(in_hands + on_table) == sorted(
                    card_name(c) for seat in table.order for c in range(52)
                    if table.hands[seat] >> c & 1)
            assert position["stock_count"] == table.stock_count
            assert position["discard_pile"] == [card_name(c) for c in table.pile]
            assert position["discard_top"] == (card_name(table.pile[-1]) if table.pile
                                               else None)
            assert position["hand_values"] == table.hand_values()
            if k == len(positions) - 1 and stopped is not None:
                assert problem == stopped
        violations = [v for v in report.violations if v.deal == d and v.code != "SCORE_MISMATCH"]
        if violations and stopped is not None:
            assert (violations[0].code, violations[0].message) == (stopped["code"],
                                                                   stopped["message"])
        last = state_after(game, d, len(positions) - 2)
        assert answer["scores_after"] == last["scores"]
        assert answer["outcome"] == last["outcome"]
        if answer["outcome"] is not None:  # the deal is over: nobody is to move
            assert positions[-1]["to_move"] is None and last["to_move"] is None


def test_melds_on_the_table_name_who_laid_them():
    game = _game(next(p for p in SAMPLES if p.stem == "rummy-01"))
    answer = deal_positions(game, 0)
    laid = [m["player"] for m in answer["moves"] if m["action"] == "meld"]
    final = answer["positions"][-1]["melds"]
    assert [meld["owner"] for meld in final] == laid[:len(final)]
    assert all(meld["owner"] in game.players for meld in final)


def test_moves_are_said_in_words():
    game = _game(next(p for p in SAMPLES if p.stem == "illegal-gin-discard-of-taken-card"))
    words = [m["words"] for m in deal_positions(game, 0)["moves"]]
    # the first move takes the upcard without naming it: the words name it
    upcard = card_name(game.deals[0].upcard)
    assert words[0] == f"ben takes {upcard} from the discard pile"
    assert words[1] == "ben discards QD"
    assert words[2] == "ana draws 3C from the stock"


def test_the_public_words_never_name_a_card_drawn_from_the_stock():
    game = _game(next(p for p in SAMPLES if p.stem == "illegal-gin-discard-of-taken-card"))
    moves = deal_positions(game, 0)["moves"]
    assert [m["public"] for m in moves[:3]] == [moves[0]["words"], "ben discards QD",
                                                 "ana draws from the stock"]
    for path in SAMPLES:
        game = _game(path)
        for d, deal in enumerate(game.deals):
            for move, said in zip(deal.moves, deal_positions(game, d)["moves"], strict=True):
                from_stock = str(move.action) == "draw" and str(move.source) != "discard"
                if from_stock:
                    assert said["public"] == f"{said['player']} draws from the stock"
                    assert move.card is None or card_name(move.card) not in said["public"]
                else:
                    assert said["public"] == said["words"]


def test_an_illegal_move_stops_the_positions_there():
    game = _game(next(p for p in SAMPLES if p.stem == "illegal-rummy-not-your-turn"))
    [violation] = [v for v in verify(game).violations if v.code == "NOT_YOUR_TURN"]
    answer = deal_positions(game, violation.deal)
    assert answer["stopped_by"]["move"] == violation.move
    assert len(answer["positions"]) == violation.move + 2
    assert answer["outcome"] is None and answer["points"] is None


def test_a_deal_the_game_does_not_have():
    game = _game(SAMPLES[0])
    with pytest.raises(NoSuchPosition):
        deal_positions(game, len(game.deals))


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.stem)
def test_the_hands_laid_down_are_public_from_the_show_on(path):
    """Gin: the knocker's hand from the knock or gin on, the defender's once shown;
    every game: every hand at the last position of a scored deal (they are counted),
    and no hand before."""
    game = _game(path)
    for d in range(len(game.deals)):
        answer = deal_positions(game, d)
        positions, moves = answer["positions"], answer["moves"]
        scored = answer["outcome"] not in (None, "void")
        knocker = next((m["player"] for m in moves[:len(positions) - 1]
                        if m["action"] in ("knock", "gin")), None)
        for k, position in enumerate(positions):
            if k == len(positions) - 1 and scored:
                assert position["public"] == answer["players"], (d, k)
                continue
            played = [m for m in moves[:k]]
            expected = set()
            if knocker is not None and any(m["action"] in ("knock", "gin") for m in played):
                expected.add(knocker)
                expected |= {m["player"] for m in played if m["action"] == "show"}
            assert set(position["public"]) == expected, (d, k)
            assert position["public"] == [p for p in answer["players"] if p in expected]


def test_a_gin_knock_lays_the_knockers_hand_down_before_the_defender_plays_on():
    game = _game(next(p for p in SAMPLES if p.stem == "gin-01"))
    answer = deal_positions(game, 0)
    actions = [m["action"] for m in answer["moves"]]
    knock = actions.index("knock")
    assert actions[knock + 1:] == ["layoff"]  # the sample: the defender lays off once
    before, after, end = (answer["positions"][i]["public"]
                          for i in (knock, knock + 1, knock + 2))
    assert (before, after, end) == ([], ["ana"], ["ben", "ana"])
