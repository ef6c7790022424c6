"""Luck of whole games: every preset, illegal games, the zero expectation, the sums.

The statistical tests use fixed seeds and a tolerance of four standard errors of the
mean (a fair figure fails it about once in 16,000 runs; with the seeds fixed, never).
"""

from __future__ import annotations

import random
import statistics
from pathlib import Path

import orjson
import pytest

from service.analysis.deal_start import mean_dealt_value
from service.analysis.luck import STOCK_VIEW, analyse_luck
from service.analysis.values import suit_tables, values_after
from service.engine import game_from_json, parse_game, verify
from service.engine.cards import point_table
from service.engine.model import DISCARD
from service.engine.state import table_after
from service.generator import generate_game, generate_games, random_rules

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = sorted((ROOT / "sample_logs").glob("*.json"))
CASES = [("gin", 2), ("gin", 3), ("gin", 4), ("rummy", 2), ("rummy", 4), ("rummy", 6),
         ("rummy-pagat", 3), ("rummy-pagat", 5), ("rummy-block", 2), ("rummy-block", 4),
         ("greek", 2), ("greek", 4)]


def within(values: list[float], sigmas: float = 4.0) -> tuple[float, float]:
    mean = statistics.fmean(values)
    error = statistics.stdev(values) / len(values) ** 0.5
    assert abs(mean) <= sigmas * error, (mean, error, len(values))
    return mean, error


def check_sums(game, luck) -> None:
    """Each draw's figures, each deal's sums, the adjusted points and the game's sums."""
    report = verify(game)
    sign = -1 if report.lower_wins else 1
    totals: dict[str, float] = {}
    scored: dict[str, int] = {}
    for deal in luck.deals:
        per_player = {s.player: s.luck for s in deal.start}
        for draw in deal.draws:
            assert draw.unseen >= 1
            assert 0 <= draw.after <= draw.before  # discarding the drawn card keeps the hand
            assert -1e-9 <= draw.expected <= draw.before - 0 + 1e-9
            if game.rules.is_gin:  # deal points: the evaluator's value less its mean
                assert draw.luck == pytest.approx(draw.value - draw.mean)
                per_player[draw.opponent] += draw.opponent_luck
            else:
                assert draw.luck == pytest.approx(draw.improvement - draw.expected)
            per_player[draw.player] += draw.luck
        assert deal.luck == pytest.approx(per_player)
        result = report.deals[deal.deal]
        if result.outcome is None:
            assert deal.points is None and deal.adjusted is None
            continue
        assert deal.points == result.points
        for player, points in deal.points.items():
            assert deal.adjusted[player] == pytest.approx(points - sign * deal.luck[player])
            totals[player] = totals.get(player, 0.0) + deal.luck[player]
            scored[player] = scored.get(player, 0) + 1
    assert {p: n for p, n in luck.scored.items() if n} == scored
    assert {p: v for p, v in luck.luck.items() if p in totals} == pytest.approx(totals)


@pytest.mark.parametrize("variant,players", CASES)
def test_every_preset(variant, players):
    """Generated games of every preset and player count, with the preset's rules and with
    random option sets (hand sizes kept at 10 or fewer cards)."""
    rng = random.Random(f"{variant}:{players}")
    logs = list(generate_games(variant, 2, seed=11, players=players))
    for i in range(2):
        rules = random_rules(variant, rng, players)
        if rules.get("hand_size", 7) > 10:
            rules["hand_size"] = 10 if 10 * (2 if variant == "gin" else players) < 52 else 6
        logs.append(generate_game(variant, (12, i), players=players, rules=rules,
                                  with_deck=bool(i)))
    for log in logs:
        game = parse_game(log)
        luck = analyse_luck(game)
        assert all(d.stopped is None for d in luck.deals)
        assert sum(len(d.draws) for d in luck.deals) > 0
        check_sums(game, luck)
        for deal in luck.deals:
            assert len(deal.start) == len(game.deals[deal.deal].players or game.players)


def test_draws_of_gin_against_a_plain_count():
    """In two-player gin, each draw is weighed against the stock's cards as the auditor
    knows them (the engine's positions): its count, and the mean improvement over them
    worked out from every card's value."""
    log = generate_game("gin", 3, players=2)
    game = parse_game(log)
    luck = analyse_luck(game)
    tables = suit_tables("low", point_table(1))
    checked = 0
    for deal in luck.deals[:2]:
        for draw in deal.draws:
            table, _ = table_after(game, deal.deal, draw.move - 1)
            stock = table.stock_set
            assert draw.unseen == stock.bit_count() == table.stock_count
            hand = table.hands[game.deals[deal.deal].moves[draw.move].player]
            values = values_after(hand, stock, 0, tables)
            assert draw.expected == pytest.approx(draw.before - sum(values) / len(values))
            checked += 1
    assert checked > 5


def luck_of(variant: str, players: int, games: int, seed: int, view: str = "drawer"):
    out = []
    for log in generate_games(variant, games, seed=seed, players=players):
        game = parse_game(log)
        out.append((game, analyse_luck(game, view=view)))
    return out


@pytest.mark.parametrize("variant,players,games", [("gin", 2, 60), ("rummy", 4, 30)])
def test_luck_is_zero_in_expectation(variant, players, games):
    """Over many generated deals: the shuffle's luck of every draw (the stock view), the
    drawer's luck of each deal's first stock draw made before any discard (when the
    other hands are still random to the drawer) and the start luck of every dealt hand
    each average to zero within four standard errors."""
    stock = [d.luck for _, g in luck_of(variant, players, games, 21, STOCK_VIEW)
             for deal in g.deals for d in deal.draws]
    assert len(stock) > 2000
    within(stock)
    first, start = [], []
    for game, luck in luck_of(variant, players, games, 22):
        for deal in luck.deals:
            start += [s.luck for s in deal.start]
            moves = game.deals[deal.deal].moves
            if deal.draws and not any(mv.action == DISCARD
                                      for mv in moves[:deal.draws[0].move]):
                first.append(deal.draws[0].luck)
    assert len(first) > 100 and len(start) > 300
    within(first)
    within(start)


def test_turned_over_stock_is_no_luck():
    """Under turn_over everyone knows the new stock's order: a draw from it is no luck."""
    seen = 0
    for log in generate_games("rummy-pagat", 30, seed=4, players=5):
        game = parse_game(log)
        luck = analyse_luck(game)
        for deal in luck.deals:
            table, _ = table_after(game, deal.deal, -1)
            rebuilt = None
            for m, move in enumerate(game.deals[deal.deal].moves):
                assert table.play(move) is None
                if table.reuses and rebuilt is None:
                    rebuilt = m  # the move that turned the pile over (or drew from it)
            for draw in deal.draws:
                if rebuilt is not None and draw.move > rebuilt:
                    assert draw.unseen == 1 and draw.luck == 0
                    seen += 1
    assert seen > 0


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.stem)
def test_sample_logs(path):
    """Every sample log, illegal ones too: analysed up to each deal's first violation."""
    game = game_from_json(path.read_bytes())
    luck = analyse_luck(game)
    report = verify(game)
    first = {}
    for v in report.violations:
        if v.deal is not None and v.move is not None:
            first.setdefault(v.deal, v.move)
    for deal in luck.deals:
        assert deal.stopped == first.get(deal.deal, deal.stopped if deal.stopped == -1
                                         else None)
        assert all(d.move < (deal.stopped if deal.stopped is not None else 1 << 30)
                   for d in deal.draws)
    check_sums(game, luck)
    orjson.dumps(luck.to_dict())


def test_mutated_games_never_crash():
    """Generated games broken in one move (another card, player or pile): analysed up
    to the violation, whatever it is."""
    rng = random.Random(5)
    broken = 0
    for variant, players in CASES[::2]:
        for log in generate_games(variant, 2, seed=8, players=players):
            for _ in range(4):
                mutated = orjson.loads(orjson.dumps(log))
                deal = rng.choice(mutated["deals"])
                move = rng.choice(deal["moves"])
                what = rng.randrange(3)
                if what == 0 and "card" in move:
                    move["card"] = rng.choice(["AS", "7D", "KH", "2C", "TD"])
                elif what == 1:
                    move["p"] = rng.choice(mutated["players"])
                elif move["a"] == "draw":
                    move["from"] = "stock" if move["from"] == "discard" else "discard"
                    move.pop("card", None)
                game = parse_game(mutated)
                report = verify(game)
                luck = analyse_luck(game, report)
                broken += report.status == "illegal"
                for d, deal_luck in enumerate(luck.deals):
                    moves = [v.move for v in report.violations
                             if v.deal == d and v.move is not None]
                    if moves:
                        assert deal_luck.stopped == moves[0]
    assert broken > 5


def test_start_luck_uses_the_table():
    """Rummy family: the start luck is the table's mean less the dealt hand's value."""
    log = generate_game("rummy", 1, players=2)
    game = parse_game(log)
    luck = analyse_luck(game)
    start = luck.deals[0].start[0]
    assert start.mean == mean_dealt_value("low", 1, 10)
    assert start.luck == pytest.approx(start.mean - start.value)


def test_the_committed_table_is_what_the_script_writes():
    """Every option set of the table is there, and entries recomputed now (one exact,
    one sampled) are the committed ones."""
    import json
    import sys

    from service.analysis import deal_start
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import deal_start_table
    finally:
        sys.path.remove(str(ROOT / "tools"))
    table = json.loads((ROOT / "service" / "analysis" / "deal_start.json").read_text())
    assert sorted(table["means"]) == sorted(deal_start.key(*s)
                                            for s in deal_start_table.option_sets())
    for option_set in (("low", 1, 3), ("around_the_corner", 15, 4), ("high_or_low", 0, 5)):
        key, entry = deal_start_table.entry(option_set)
        assert table["means"][key] == entry
