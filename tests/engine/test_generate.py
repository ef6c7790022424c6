"""Generated games: complete, legal, reproducible and varied; mutated ones never pass.

The generator plays real deals through the engine's tables and copies the replay's own
scores into the claims, so every generated game must verify ``valid``.  The mutation
properties then break a generated game in one place and check that the verifier notices:
a mutated game is ``valid`` only when it is equivalent to the original (same deal
outcomes and points), and each test says why such an equivalent mutation can exist.
"""

from __future__ import annotations

import random
from collections import Counter
from functools import cache
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from service.engine import report as R
from service.engine.cards import CARD_NAMES
from service.engine.logformat import LogValidationError, parse_game
from service.engine.replay import verify
from service.engine.report import Report, Violation
from service.engine.rules import OPTIONS, PRESETS, resolve_rules
from service.generator import corpus, generate_game, generate_games, random_rules

PLAYER_COUNTS = {
    "rummy": (2, 3, 4, 5, 6),
    "rummy-pagat": (2, 3, 4, 5, 6),
    "rummy-block": (2, 3, 4, 5, 6),
    "greek": (2, 3, 4),
    "gin": (2, 3, 4),
}
CASES = [(variant, n) for variant, counts in PLAYER_COUNTS.items() for n in counts]
SMALL_RANGES = ("ace_points", "hand_size", "deals", "max_stock_reuses", "knock_limit",
                "stock_floor")
DEAL_SHAPE_CODES = {R.DUPLICATE_CARD, R.WRONG_HAND_SIZE, R.DEAL_MISMATCH}

FEW = settings(max_examples=3, derandomize=True, deadline=None,
               suppress_health_check=[HealthCheck.too_slow])
SOME = settings(max_examples=25, derandomize=True, deadline=None,
                suppress_health_check=[HealthCheck.too_slow])
MUTATIONS = settings(max_examples=300, derandomize=True, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow])


def check(log: dict[str, Any]) -> Report:
    return verify(parse_game(log))


def clone(log: dict[str, Any]) -> dict[str, Any]:
    return orjson.loads(orjson.dumps(log))


def results(report: Report) -> list[tuple]:
    """What claims compare: each deal's outcome, winner and points."""
    return [(d.outcome, d.winner, d.points) for d in report.deals]


def assert_well_formed(log: dict[str, Any], with_deck: bool) -> None:
    """Canonical card codes; a deck, or hands and upcard with every stock card named."""
    for deal in log["deals"]:
        assert ("deck" in deal) == with_deck
        assert ("hands" in deal and "upcard" in deal) == (not with_deck)
        for move in deal["moves"]:
            codes = [move.get("card")] + move.get("cards", []) + move.get("stock", [])
            codes += [c for meld in move.get("melds", []) for c in meld]
            assert all(c in CARD_NAMES for c in codes if c is not None), move
            if move["a"] == "draw" and move["from"] == "stock" and not with_deck:
                assert "card" in move, move


def assert_valid(log: dict[str, Any]) -> Report:
    report = check(log)
    assert report.status == R.VALID, [v.to_dict() for v in report.violations]
    assert not report.violations
    for deal, result in zip(log["deals"], report.deals, strict=True):
        assert deal["claimed"] == {"points": result.points, "winner": result.winner,
                                   "outcome": result.outcome}
    assert log["claimed"]["winner"] == report.totals["winner"]
    return report


# --------------------------------------------------------------------------- legal games

@pytest.mark.parametrize("with_deck", [False, True], ids=["hands", "deck"])
@pytest.mark.parametrize(("variant", "players"), CASES)
@FEW
@given(seed=st.integers(0, 2**32 - 1))
def test_every_preset_and_player_count_verifies_valid(variant: str, players: int,
                                                      with_deck: bool, seed: int) -> None:
    log = generate_game(variant, seed, players, with_deck=with_deck)
    assert len(log["players"]) == players
    assert_well_formed(log, with_deck)
    assert_valid(log)
    if variant == "gin" and players == 4:
        assert len(log["deals"]) % 2 == 0  # whole rounds of two simultaneous deals
        assert all(len(d["players"]) == 2 for d in log["deals"])
    if variant == "gin" and players == 3:
        assert all(len(d["players"]) == 2 for d in log["deals"])


@pytest.mark.parametrize("variant", list(PRESETS))
@SOME
@given(seed=st.integers(0, 2**32 - 1))
def test_random_option_sets_verify_valid(variant: str, seed: int) -> None:
    rng = random.Random(seed)
    players = rng.choice(PLAYER_COUNTS[variant])
    rules = random_rules(variant, rng, players)
    with_deck = rng.random() < 0.5
    log = generate_game(variant, seed, players, rules, with_deck)
    assert_well_formed(log, with_deck)
    for name, value in rules.items():  # the caller's options are written unchanged
        assert log["rules"][name] == value
    assert_valid(log)


def test_presets_without_an_end_get_one_or_a_fixed_number_of_deals() -> None:
    for variant in ("rummy-pagat", "rummy-block", "greek"):
        for seed in range(8):
            log = generate_game(variant, seed, 2)
            rules = log.get("rules", {})
            assert_valid(log)
            if "deals" not in rules and "target" not in rules:
                assert 1 <= len(log["deals"]) <= 4  # the game is the logged deals
    log = generate_game("rummy-pagat", 3, 2, {"target": None})  # the caller wants no end
    assert log["rules"] == {"target": None}
    assert 1 <= len(log["deals"]) <= 4
    assert_valid(log)


def test_random_rules_are_valid_and_reach_every_value() -> None:
    for variant, preset in PRESETS.items():
        family = preset.family
        seen: dict[str, set] = {}
        rng = random.Random(variant)
        for _ in range(400):
            players = rng.choice(PLAYER_COUNTS[variant])
            rules = random_rules(variant, rng, players)
            resolved, errors = resolve_rules(variant, rules, players)
            assert resolved is not None, errors
            for name, value in rules.items():
                seen.setdefault(name, set()).add(value)
        for name, spec in OPTIONS.items():
            if spec.family not in ("both", family):
                assert name not in seen
                continue
            values = seen[name]
            if spec.choices:
                assert values == set(spec.choices), name
            elif spec.kind == "bool":
                assert values == {False, True}, name
            else:
                assert (None in values) == spec.nullable, name
                assert len(values - {None}) >= 3, name
                if name in SMALL_RANGES:
                    assert spec.minimum in values, name


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError):
        generate_game("canasta", 1)
    with pytest.raises(ValueError):
        generate_game("greek", 1, players=5)
    with pytest.raises(ValueError):
        generate_game("gin", 1, rules={"melds_per_turn": 1})


# --------------------------------------------------------------------------- determinism

def test_same_seed_same_game_and_games_follow_their_seed() -> None:
    for variant in PRESETS:
        a = generate_game(variant, 11, with_deck=True)
        assert orjson.dumps(a) == orjson.dumps(generate_game(variant, 11, with_deck=True))
        assert a != generate_game(variant, 12, with_deck=True)
    batch = list(generate_games("gin", 3, seed=5, players=3))
    for i, log in enumerate(batch):
        assert log == generate_game("gin", (5, i), 3)
    assert batch == list(generate_games("gin", 3, seed=5, players=3))
    docs = corpus("rummy", 3, 9)
    assert [orjson.loads(doc) for doc in docs] == list(generate_games("rummy", 3, seed=9))
    assert all(check(orjson.loads(doc)).status == R.VALID for doc in docs)


# --------------------------------------------------------------------------- outcomes

def outcome_counts(variant: str, games: int, players: int, rules: dict | None = None,
                   seed: int = 0) -> Counter:
    counts: Counter = Counter()
    for log in generate_games(variant, games, seed=seed, players=players, rules=rules):
        counts.update(d["claimed"]["outcome"] for d in log["deals"])
    return counts


def shares(counts: Counter) -> str:
    total = sum(counts.values())
    return ", ".join(f"{k} {100 * v / total:.0f}%" for k, v in counts.most_common())


def test_rummy_family_outcomes_include_out_rummy_and_blocked() -> None:
    rummy = outcome_counts("rummy", 30, 2, {"deals": 2})
    block = outcome_counts("rummy-block", 20, 4, {"deals": 2})
    reuses = outcome_counts("rummy-pagat", 20, 3, {"deals": 2, "max_stock_reuses": 0})
    print(f"rummy: {shares(rummy)}; rummy-block: {shares(block)}; "
          f"pagat, no reuse: {shares(reuses)}")
    seen = rummy + block + reuses
    assert {"out", "rummy", "blocked"} <= set(seen)
    assert set(seen) <= {"out", "rummy", "blocked"}
    assert rummy.most_common(1)[0][0] == "out"
    assert 0.02 <= rummy["rummy"] / rummy.total() <= 0.4
    assert 0.1 <= block["blocked"] / block.total() <= 0.7  # Block Rummy: many blocked deals


def test_gin_outcomes_include_gin_knock_undercut_and_void() -> None:
    plain = outcome_counts("gin", 15, 2)
    floor = outcome_counts("gin", 10, 2, {"stock_floor": 16, "deals": 2})
    print(f"gin: {shares(plain)}; stock floor 16: {shares(floor)}")
    seen = plain + floor
    assert {"gin", "knock", "undercut", "void"} <= set(seen)
    assert plain.most_common(1)[0][0] == "knock"
    assert 0.02 <= plain["gin"] / plain.total() <= 0.4
    assert 0.02 <= plain["undercut"] / plain.total() <= 0.4
    assert floor["void"] > 0


# --------------------------------------------------------------------------- mutations

POOL_SPECS: list[tuple[str, int, dict | None, bool]] = [
    ("rummy", 2, {"deals": 2}, False),
    ("rummy", 4, {"deals": 1}, True),
    ("rummy-pagat", 3, {"target": None}, False),  # no end: the game is the logged deals
    ("rummy-block", 5, {"deals": 2}, True),
    ("greek", 3, {"deals": 2}, False),
    ("greek", 2, {"deals": 2, "stock_exhausted": "turn_over"}, True),
    ("gin", 2, {"target": 60}, False),
    ("gin", 2, {"upcard_pass": True, "target": 40}, True),
    ("gin", 3, {"target": 50}, False),
    ("gin", 4, {"deals": 1}, True),
]


@cache
def pool() -> tuple[tuple[dict[str, Any], Report], ...]:
    """Generated games for the mutation properties, with their reports."""
    games = [generate_game(v, 100 + i, n, rules, deck)
             for i, (v, n, rules, deck) in enumerate(POOL_SPECS)]
    rng = random.Random(2024)
    for i in range(8):
        variant = list(PRESETS)[i % len(PRESETS)]
        players = rng.choice(PLAYER_COUNTS[variant])
        rules = random_rules(variant, rng, players)
        rules.setdefault("deals", 2)
        games.append(generate_game(variant, 300 + i, players, rules, rng.random() < 0.5))
    return tuple((log, assert_valid(log)) for log in games)


@st.composite
def a_game(draw: st.DrawFn) -> tuple[dict[str, Any], Report]:
    log, report = draw(st.sampled_from(pool()))
    return clone(log), report


def a_move(draw: st.DrawFn, log: dict[str, Any]) -> tuple[int, int]:
    """A (deal, move) position of the log."""
    spots = [(d, m) for d, deal in enumerate(log["deals"]) for m in range(len(deal["moves"]))]
    return draw(st.sampled_from(spots))


def judge(log: dict[str, Any]) -> Report:
    """The report of a mutated log: the verifier must never crash on it."""
    report = check(log)
    event(f"status {report.status}")
    return report


def at_or_after(v: Violation, deal: int, move: int) -> bool:
    """A violation no earlier in log order than the mutated move (the moves before it are
    unchanged, so nothing before it may fail)."""
    if v.deal is None or v.deal > deal:
        return True
    return v.deal == deal and (v.move is None or v.move >= move)


def assert_sensible(report: Report, deal: int, move: int) -> Violation:
    first = report.violations[0]
    assert at_or_after(first, deal, move), first.to_dict()
    assert first.code in R.VIOLATION_CODES and first.code not in DEAL_SHAPE_CODES
    return first


def assert_only_score_mismatches(report: Report) -> None:
    assert report.violations
    assert all(v.code == R.SCORE_MISMATCH for v in report.violations)


@MUTATIONS
@given(data=st.data())
def test_a_changed_card_is_never_valid_unless_equivalent(data: st.DataObject) -> None:
    log, original = data.draw(a_game())
    spots = [(d, m, key) for d, deal in enumerate(log["deals"])
             for m, mv in enumerate(deal["moves"])
             for key in ("card", "cards", "melds", "stock") if mv.get(key)]
    d, m, key = data.draw(st.sampled_from(spots))
    move = log["deals"][d]["moves"][m]
    shift = data.draw(st.integers(1, 51))

    def other(code: str) -> str:
        return CARD_NAMES[(CARD_NAMES.index(code) + shift) % 52]

    if key == "card":
        move["card"] = other(move["card"])
    elif key == "melds":
        i = data.draw(st.integers(0, len(move["melds"]) - 1))
        j = data.draw(st.integers(0, len(move["melds"][i]) - 1))
        move["melds"][i][j] = other(move["melds"][i][j])
    else:
        j = data.draw(st.integers(0, len(move[key]) - 1))
        move[key][j] = other(move[key][j])
    report = judge(log)
    if report.status == R.VALID:
        # Possible: a discard or an unknown-order stock draw changed to another card of
        # equal use (say 5C for 5D), which then stays in the hand to the deal's end, or a
        # knock's discard swapped for another deadwood card of equal value.
        assert results(report) == results(original)
    elif report.status == R.MISMATCH:
        assert_only_score_mismatches(report)  # legal, but the hands end differently
    else:
        assert report.status == R.ILLEGAL, report.status
        first = assert_sensible(report, d, m)
        if move["a"] == "draw" and move["from"] == "discard":
            assert (first.deal, first.move, first.code) == (d, m, R.WRONG_DISCARD_TOP)
        if move["a"] == "reshuffle" and key == "stock":
            assert (first.deal, first.move, first.code) == (d, m, R.RESHUFFLE_MISMATCH)


@MUTATIONS
@given(data=st.data())
def test_a_dropped_move_is_caught(data: st.DataObject) -> None:
    log, original = data.draw(a_game())
    d, m = a_move(data.draw, log)
    moves = log["deals"][d]["moves"]
    dropped = moves.pop(m)
    after = moves[m] if m < len(moves) else None
    last_deal = d == len(log["deals"]) - 1
    report = judge(log)
    if report.status == R.VALID:
        # Possible: a `show` of the best melds (the engine counts the best arrangement
        # without one), or an explicit `reshuffle` whose reuse then happens implicitly.
        assert dropped["a"] in ("show", "reshuffle", "meld", "layoff"), dropped
        assert results(report) == results(original)
    elif report.status == R.MISMATCH:
        # Legal but scored differently: a meld, layoff or show left out keeps its cards in
        # the hand; or the last deal now stops early and the game's claimed totals no
        # longer match the running totals.
        assert dropped["a"] in ("meld", "layoff", "show") or last_deal, dropped
        assert_only_score_mismatches(report)
    elif report.status == R.INCOMPLETE:
        assert last_deal  # the last deal no longer reaches its end
    else:
        assert report.status == R.ILLEGAL
        first = assert_sensible(report, d, m)
        if dropped["a"] == "draw" and after and after["p"] == dropped["p"]:
            assert (first.deal, first.move, first.code) == (d, m, R.MUST_DRAW_FIRST)
        if (dropped["a"] == "discard" and after and after["p"] != dropped["p"]
                and after["a"] in ("draw", "pass", "end")):
            assert (first.deal, first.move, first.code) == (d, m, R.NOT_YOUR_TURN)
        if after is None and not last_deal and moves:
            assert first.code in (R.DEAL_NOT_FINISHED, R.MOVE_AFTER_DEAL_END,
                                  R.SCORE_MISMATCH) or first.deal != d, first.to_dict()


@MUTATIONS
@given(data=st.data())
def test_a_duplicated_move_is_illegal_at_the_copy(data: st.DataObject) -> None:
    log, _ = data.draw(a_game())
    d, m = a_move(data.draw, log)
    moves = log["deals"][d]["moves"]
    moves.insert(m + 1, clone(moves[m]))
    report = judge(log)
    # No move may be played twice: a second draw, a second discard out of turn, cards
    # no longer in hand, a reshuffle no longer due, a second show, any move after the end.
    assert report.status == R.ILLEGAL
    first = report.violations[0]
    assert (first.deal, first.move) == (d, m + 1), first.to_dict()
    assert first.code in (R.ALREADY_DREW, R.NOT_YOUR_TURN, R.CARD_NOT_IN_HAND,
                          R.MOVE_AFTER_DEAL_END, R.RESHUFFLE_NOT_ALLOWED,
                          R.ACTION_NOT_ALLOWED), first.to_dict()


@MUTATIONS
@given(data=st.data())
def test_two_swapped_moves_are_illegal_unless_equivalent(data: st.DataObject) -> None:
    log, original = data.draw(a_game())
    spots = [(d, m) for d, deal in enumerate(log["deals"])
             for m in range(len(deal["moves"]) - 1)
             if deal["moves"][m] != deal["moves"][m + 1]]
    d, m = data.draw(st.sampled_from(spots))
    moves = log["deals"][d]["moves"]
    a, b = moves[m], moves[m + 1]
    moves[m], moves[m + 1] = b, a
    report = judge(log)
    if report.status == R.VALID:
        # Possible: one player's melds and layoffs within a turn, or a gin defender's
        # layoff and show, come in any order (RULES.md) when no later layoff depends on
        # a meld's number.
        assert a["p"] == b["p"] and {a["a"], b["a"]} <= {"meld", "layoff", "show"}
        assert results(report) == results(original)
        return
    assert report.status == R.ILLEGAL, (report.status, a, b)
    first = assert_sensible(report, d, m)
    if a["a"] == "draw" and a["p"] == b["p"] and b["a"] != "reshuffle":
        assert (first.deal, first.move, first.code) == (d, m, R.MUST_DRAW_FIRST)
    if a["a"] == "discard" and b["a"] == "draw" and a["p"] != b["p"]:
        assert (first.deal, first.move, first.code) == (d, m, R.NOT_YOUR_TURN)


@MUTATIONS
@given(data=st.data())
def test_an_altered_claim_is_a_score_mismatch(data: st.DataObject) -> None:
    log, _ = data.draw(a_game())
    delta = data.draw(st.integers(-50, 50).filter(bool))
    if data.draw(st.booleans()):
        d = data.draw(st.integers(0, len(log["deals"]) - 1))
        points = log["deals"][d]["claimed"]["points"]
    else:
        points = log["claimed"]["totals"]
    name = data.draw(st.sampled_from(sorted(points)))
    points[name] += delta
    report = judge(log)
    assert report.status == R.MISMATCH
    assert_only_score_mismatches(report)
    assert len(report.violations) == 1


@MUTATIONS
@given(data=st.data())
def test_a_truncated_log_is_never_illegal_nor_valid_unless_equivalent(
        data: st.DataObject) -> None:
    log, original = data.draw(a_game())
    deals = log["deals"]
    d = data.draw(st.integers(0, len(deals)))
    if d == len(deals) or data.draw(st.booleans()):
        del deals[d:]  # cut at a deal boundary
        cut_mid = False
    else:
        m = data.draw(st.integers(0, len(deals[d]["moves"]) - 1))
        del deals[d + 1:]
        del deals[d]["moves"][m:]
        cut_mid = True
    if not deals:
        # The only shape-breaking cut: a game has at least one deal.
        with pytest.raises(LogValidationError):
            parse_game(log)
        return
    report = judge(log)
    kept = len(deals)
    # A prefix of a legal log is legal: never illegal, whatever the cut.
    assert report.status in (R.VALID, R.MISMATCH, R.INCOMPLETE), report.status
    # An unfinished game says where it stops: in its last deal when that is cut short.
    why = [(w.code, w.deal, w.move) for w in report.warnings
           if w.code in (R.LAST_DEAL_NOT_FINISHED, R.GAME_NOT_FINISHED)]
    if report.status == R.VALID:
        assert why == []
    elif report.status == R.INCOMPLETE:
        moves = len(deals[-1]["moves"])
        assert why == ([(R.LAST_DEAL_NOT_FINISHED, kept - 1, moves - 1 if moves else None)]
                       if report.deals[-1].outcome is None
                       else [(R.GAME_NOT_FINISHED, kept - 1, None)])
    if report.status == R.MISMATCH:
        # The claims of the missing deals are gone, but the game's claimed totals (or a
        # gin deal cut among the defender's layoffs) no longer match.
        assert_only_score_mismatches(report)
    if report.status == R.VALID:
        # A deal cut short is never a valid result, even when it is the last deal the
        # `deals` option asks for (test_an_unfinished_last_deal_is_incomplete_...).
        assert report.deals[-1].outcome is not None
        # Possible: a cut at a deal boundary of a game with no end condition (the game
        # is the logged deals) whose dropped deals scored nothing (a void or a tied
        # block), or a gin deal cut after the knock where only a show of the best
        # melds was dropped.
        assert results(report) == results(original)[:kept]
    stripped = clone(log)
    stripped.pop("claimed", None)
    for deal in stripped["deals"]:
        deal.pop("claimed", None)
    bare = check(stripped)
    assert not bare.violations  # the same legal moves, with nothing claimed
    if cut_mid and bare.deals[-1].outcome is None and "deals" not in log.get("rules", {}):
        assert bare.status == R.INCOMPLETE


def test_an_unfinished_last_deal_is_incomplete_even_at_the_deals_count() -> None:
    log = generate_game("rummy", 1, 2, {"deals": 1})
    log.pop("claimed")
    del log["deals"][0]["claimed"]
    del log["deals"][0]["moves"][3:]
    assert check(log).status == R.INCOMPLETE
