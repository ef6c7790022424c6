"""The colluding pair of the generator: the feeder discards what its partner takes.

The rate measured is the share of the feeder's discards that the partner took from the
discard pile at once, over the same seeded games played honestly and with the pair.
"""

from __future__ import annotations

import orjson
import pytest

from service.engine import parse_game
from service.engine import report as R
from service.engine.replay import verify
from service.generator import generate_game, generate_games


def fed_rate(logs, feeder: str, partner: str) -> tuple[float, int]:
    """Of the feeder's discards followed by the partner's draw, the share drawn from the
    discard pile; and how many such discards there were."""
    fed = offered = 0
    for log in logs:
        for deal in log["deals"]:
            moves = deal["moves"]
            for move, after in zip(moves, moves[1:], strict=False):
                if move["p"] == feeder and move["a"] == "discard" and after["p"] == partner \
                        and after["a"] == "draw":
                    offered += 1
                    fed += after["from"] == "discard"
    return fed / max(offered, 1), offered


@pytest.mark.parametrize("variant,players,games", [("gin", 2, 20), ("rummy", 3, 15),
                                                   ("greek", 2, 10)])
def test_the_feeder_feeds(variant, players, games):
    honest = list(generate_games(variant, games, seed=30, players=players))
    pair = list(generate_games(variant, games, seed=30, players=players,
                               collude=("ana", "ben")))
    honest_rate, n_honest = fed_rate(honest, "ana", "ben")
    pair_rate, n_pair = fed_rate(pair, "ana", "ben")
    other_rate, _ = fed_rate(pair, "ben", "ana")
    print(f"{variant}: ana's discards taken by ben: honest {honest_rate:.3f} of {n_honest}, "
          f"feeding {pair_rate:.3f} of {n_pair}; ben's taken by ana {other_rate:.3f}")
    assert n_honest > 100 and n_pair > 100
    # Measured: gin 0.253 honest, 0.626 feeding; rummy (3 players) 0.099, 0.197; greek
    # 0.142, 0.271 (a Rummy partner takes only what melds or lays off at once).
    assert pair_rate > 1.5 * honest_rate and pair_rate > honest_rate + 0.08
    for log in pair:
        assert verify(parse_game(log)).status == R.VALID


def test_the_gin_feeder_never_knocks():
    logs = list(generate_games("gin", 15, seed=31, players=2, collude=("ana", "ben")))
    ends = [m for log in logs for deal in log["deals"] for m in deal["moves"]
            if m["a"] in ("knock", "gin")]
    assert ends and all(m["p"] == "ben" for m in ends)


def test_collusion_is_seeded_and_off_by_default():
    a = generate_game("rummy", 5, players=4, collude=("cleo", "dan"))
    b = generate_game("rummy", 5, players=4, collude=("cleo", "dan"))
    assert orjson.dumps(a) == orjson.dumps(b)
    plain = orjson.dumps(generate_game("rummy", 5, players=4))
    assert orjson.dumps(a) != plain
    # A pair not seated at the game changes nothing.
    assert orjson.dumps(generate_game("rummy", 5, players=4, collude=("eva", "ana"))) == plain
    with pytest.raises(ValueError):
        generate_game("rummy", 5, players=4, collude=("ana", "ana"))


def test_the_rummy_feeder_never_goes_out_while_its_partner_holds_more_than_three_cards():
    """Soft play: a deal the feeder wins (it went out) ends with the partner holding at
    most three cards, unless the deal ran past the moves after which nobody holds back."""
    from service.engine.positions import deal_positions
    from service.generator.rummy_bot import AGGRESSIVE_AFTER, SOFT_WHILE_PARTNER_HOLDS

    won = 0
    honest_would = 0
    for collude in (("ana", "ben"), None):
        for log in generate_games("rummy", 12, seed=41, players=3, collude=collude):
            game = parse_game(orjson.loads(orjson.dumps(log)))
            report = verify(game)
            for d, result in enumerate(report.deals):
                if result.winner != "ana":
                    continue
                moves = game.deals[d].moves
                last = deal_positions(game, d)["positions"][-1]
                held = last["hands"]["ben"]["count"]
                if collude is None:
                    honest_would += held > SOFT_WHILE_PARTNER_HOLDS
                elif len(moves) <= AGGRESSIVE_AFTER:
                    won += 1
                    assert held <= SOFT_WHILE_PARTNER_HOLDS, (d, held)
    assert won > 0, "the feeder should still win some deals"
    assert honest_would > 0, "honest play goes out against a full hand: the rule binds"
