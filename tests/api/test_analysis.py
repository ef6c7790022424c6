"""The analysis endpoints: a game's facts (stored by the background catch-up, or computed
when asked for before it), a player's figures with the statistics filters, the
integrity screen; /healthz and /metrics report the catch-up's backlog."""

from __future__ import annotations

import time
from datetime import UTC, datetime

import orjson
import pytest

from service.analysis import luck_share
from service.analysis.decisions import accuracy_of, game_decisions
from service.analysis.facts import KINDS, Tally, analyse, summarise
from service.analysis.luck import analyse_luck
from service.engine import parse_game
from service.generator import generate_game, generate_games
from service.store.analysis import AnalysisRecord
from service.store.records import game_id
from tests.analysis.test_cli_analyse import discard_error_log

from .helpers import API, assert_problem, post_log, store_of


def wait_analysed(client, timeout: float = 60.0) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        health = client.get(f"{API}/healthz").get_json()
        if health["analysis"]["backlog"] == 0 or time.monotonic() > deadline:
            return health
        time.sleep(0.1)


def test_a_game_is_analysed_when_asked_for_and_stored(client):
    gid = post_log(client, discard_error_log()).get_json()["id"]
    first = client.get(f"{API}/games/{gid}/analysis")
    assert first.status_code == 200
    body = first.get_json()
    assert body["stored"] is False  # the catch-up is off in these tests
    assert [(f["kind"], f["move"], f["cost"]) for f in body["facts"]] == [
        ("discard_error", 1, 3), ("fed_card", 1, 27)]
    assert body["facts"][0]["replay"] == f"{API}/games/{gid}/deals/0/moves/0/state"
    assert client.get(body["facts"][0]["replay"]).status_code == 200
    assert body["summary"]["ana"]["accuracy"] == 0.0
    assert body["luck"] == analyse_luck(parse_game(discard_error_log())).to_dict()
    again = client.get(f"{API}/games/{gid}/analysis").get_json()
    assert again["stored"] is True
    assert again["facts"] == body["facts"]
    assert again["summary"] == body["summary"]
    health = client.get(f"{API}/healthz").get_json()
    assert health["analysis"]["backlog"] == 0 and health["analysis"]["running"] is False


def test_an_unknown_or_deleted_game_has_no_analysis(client):
    assert_problem(client.get(f"{API}/games/{'0' * 24}/analysis"), 404, "not-found")
    gid = post_log(client, discard_error_log()).get_json()["id"]
    assert client.delete(f"{API}/games/{gid}").status_code == 200
    assert_problem(client.get(f"{API}/games/{gid}/analysis"), 410, "game-deleted")


def test_the_catch_up_analyses_every_stored_game(make_app):
    app = make_app(RUMMY_ANALYSIS="1")
    client = app.test_client()
    logs = list(generate_games("gin", 6, seed=11, players=2))
    logs += list(generate_games("rummy", 4, seed=12, players=3))
    for k, log in enumerate(logs):
        log["played_at"] = f"2024-0{1 + k % 2}-15T20:00:00Z"
        assert post_log(client, log).status_code == 201
    health = wait_analysed(client)
    assert health["analysis"]["backlog"] == 0, health
    assert health["analysis"]["running"] is True
    assert "rummy_analysis_backlog 0" in client.get(f"{API}/metrics").get_data(as_text=True)

    # What the figures must be: the analysis of each game, summed here.
    expected: dict[str, Tally] = {}
    scored = luck = 0.0
    games = []  # (id, scored deals, points, luck) of ana's games, for the share of luck
    for log in logs:
        if log["variant"] != "gin" or not log["played_at"].startswith("2024-01"):
            continue
        for (player, _), tally in analyse(parse_game(log)).tallies.items():
            expected.setdefault(player, Tally()).add(tally)
        game_luck = analyse_luck(parse_game(log))
        scored += game_luck.scored["ana"]
        luck += game_luck.luck["ana"]
        games.append(luck_row(log, game_luck, "ana"))
    cross_fitted = luck_share.adjusted(games)
    answer = client.get(f"{API}/players/ana/analysis?variant=gin&until=2024-02-01T00:00:00Z")
    assert answer.status_code == 200, answer.get_json()
    figures = answer.get_json()["variants"]["gin"]
    want = summarise(expected["ana"])
    for key in ("decisions", "errors", "per_100", "accuracy", "average_discard_error",
                "fed_given", "fed_received"):
        assert figures[key] == want[key], key
    assert figures["deals"] == expected["ana"].deals
    # Luck over the scored deals (docs/ANALYSIS.md, Luck), stored by the catch-up.
    assert figures["luck_deals"] == scored > 0
    assert figures["luck_per_deal"] == pytest.approx(luck / scored, abs=0.01)
    # Adjusted by ana's own share of luck, each half of the games by the other's
    # (service.analysis.luck_share): not points less luck.
    assert figures["luck_adjusted_per_deal"] == pytest.approx(
        cross_fitted.adjusted_e8 / E8 / scored, abs=0.01)
    assert figures["luck_share"] == cross_fitted.share_e4 / luck_share.E4
    # The decision loss over the same games, as the catch-up stored it: each decision's
    # loss and accuracy rounded to 0.000001, summed, averaged.
    losses = [x.loss for log in logs if log["variant"] == "gin"
              and log["played_at"].startswith("2024-01")
              for x in game_decisions(parse_game(log)) if x.player == "ana"]
    n = len(losses)
    assert figures["decision_loss"] == {
        "decisions": n,
        "average_loss": round(sum(round(x * 1e6) for x in losses) / n / 1e6, 4),
        "accuracy": round(sum(round(accuracy_of(x) * 1e6) for x in losses) / n / 1e6, 2)}
    rummy = client.get(f"{API}/players/ana/analysis?variant=rummy").get_json()
    assert rummy["variants"]["rummy"]["decision_loss"] is None

    gid = orjson.loads(orjson.dumps(client.get(f"{API}/games?limit=1").get_json()))
    gid = gid["games"][0]["id"]
    stored = client.get(f"{API}/games/{gid}/analysis").get_json()
    assert stored["stored"] is True
    assert_problem(client.get(f"{API}/players/nobody/analysis"), 404, "not-found")
    assert_problem(client.get(f"{API}/players/ana/analysis?variant=poker"), 400,
                   "invalid-parameter")


def pair_rows(gid: str, a: str, b: str, decisions: int, fed: int, soft: int = 0) -> AnalysisRecord:
    """A hand-made analysis of one gin game: a's decisions facing b, and b's facing a
    (none fed); a's fed cards as facts."""
    at = datetime(2024, 5, 1, tzinfo=UTC)
    kinds = dict.fromkeys(KINDS[:-1], 0) | {"missed_knock": soft}

    def row(p, q, n, f, s):
        return (gid, p, q, "gin", "valid", None, at, 3, n, n - s, *kinds.values(), f, 0, s, 0,
                30, 10, 3, 0, 30 * 10_000, 0, 0, 0)

    record = AnalysisRecord(gid, (gid, at, 1, fed), analysis_players=[
        row(a, b, decisions, fed, soft), row(b, a, decisions, 0, 0)])
    record.analysis_players[1] = row(b, a, decisions, 0, 0)
    record.analysis_facts = [
        (gid, 0, 2 * k + 1, a, "fed_card", 5, 2 * k, b, None, None, "gin", "valid", None, at)
        for k in range(fed)]
    return record


def clustered(counts: list[tuple[int, int]]) -> tuple[float, float]:
    """Rate and variance of a set of (fed, decisions) per game, written out plainly: the
    ratio of the sums, and G/(G-1) times the sum of squared residuals over (sum n)^2."""
    fed = sum(y for y, _ in counts)
    n = sum(m for _, m in counts)
    rate = fed / n
    residuals = sum((y - rate * m) ** 2 for y, m in counts)
    return rate, residuals * len(counts) / (len(counts) - 1) / n ** 2


def test_the_integrity_screen_ranks_the_feeding_pair_first(client, app):
    # Hand-made figures: 40 games of cy against dee, where cy feeds dee 10 to 14 cards in
    # 40 decisions (about 30%); 40 games of cy against each of eve and fay, 3 to 5 in 40
    # (10%).  Nobody feeds cy.
    records, to_dee, to_rest = [], [], []
    for k in range(40):
        records.append(pair_rows(f"d{k:023d}", "cy", "dee", 40, 10 + k % 5))
        to_dee.append((10 + k % 5, 40))
        for other, prefix in (("eve", "e"), ("fay", "f")):
            records.append(pair_rows(f"{prefix}{k:023d}", "cy", other, 40, 3 + k % 3))
            to_rest.append((3 + k % 3, 40))
    store_of(app).add_analyses(records)
    (r1, v1), (r2, v2) = clustered(to_dee), clustered(to_rest)
    z = (r1 - r2) / (v1 + v2) ** 0.5
    body = client.get(f"{API}/integrity/pairs?variant=gin&limit=3").get_json()
    assert body["min_games"] == 20
    first = body["pairs"][0]
    assert (first["player"], first["partner"], first["games"]) == ("cy", "dee", 40)
    assert first["fed"]["count"] == sum(y for y, _ in to_dee)
    assert first["fed"]["rest_count"] == sum(y for y, _ in to_rest)
    assert first["fed"]["z"] == round(z, 3) and z > 20
    assert first["score"] == round(z, 3)
    assert "not a verdict" in first["statement"]
    # The other pairs stay below the threshold the docs state (4): cy's other opponents
    # get less than cy's average, and nobody feeds cy.
    assert all(pair["score"] < 4 for pair in body["pairs"][1:])
    facts = client.get(first["facts"]).get_json()["facts"]
    assert len(facts) == 50  # a page of the fed cards
    assert {f["kind"] for f in facts} == {"fed_card"}
    assert facts[0]["replay"].endswith(f"/deals/0/moves/{facts[0]['move'] - 1}/state")
    assert client.get(f"{API}/integrity/pairs?min_games=41").get_json()["pairs"] == []
    assert_problem(client.get(f"{API}/integrity/pairs?min_games=0"), 400, "invalid-parameter")


E4 = luck_share.E4
E8 = E4 * E4


def luck_row(log: dict, luck, player: str) -> tuple[str, int, int, int]:
    """A game's (id, scored deals, points, luck) for ``player``, in the stored units."""
    luck_e4 = round(luck.luck[player] * luck_share.E4)
    points_e4 = luck_e4 + round(luck.adjusted[player] * luck_share.E4)
    return game_id(log), luck.scored[player], points_e4, luck_e4


def analysed_corpus(client) -> tuple[list[dict], dict[str, dict[str, float]]]:
    """Post a few generated games and ask for each one's analysis (which stores it); the
    logs and, per player, the figures the leaderboard must show, summed here from the
    analysis and the luck of each game."""
    logs = list(generate_games("gin", 3, seed=41, players=2, rules={"target": 60}))
    logs += list(generate_games("rummy", 2, seed=42, players=3, names=["ana", "dan", "eve"],
                                rules={"target": 60}))
    sums: dict[str, dict[str, float]] = {}
    games: dict[str, list[tuple[str, int, int, int]]] = {}  # gin's, for the share of luck
    whole: dict[str, int] = {}  # the Rummy family's adjusted points, luck taken whole
    for log in logs:
        gid = post_log(client, log).get_json()["id"]
        assert client.get(f"{API}/games/{gid}/analysis").get_json()["stored"] is False
        game = parse_game(log)
        luck = analyse_luck(game)
        for (player, _), tally in analyse(game).tallies.items():
            got = sums.setdefault(player, dict.fromkeys(
                ("decisions", "accurate", "discard", "errors", "deals", "luck", "adjusted"),
                0))
            got["decisions"] += tally.decisions
            got["accurate"] += tally.accurate
            got["discard"] += tally.discard_error_points
            got["errors"] += sum(n for kind, n in tally.kinds.items() if kind != "fed_card")
        for player, scored in luck.scored.items():
            sums[player]["deals"] += scored
            sums[player]["luck"] += luck.luck[player]
            if log["variant"] == "gin":
                games.setdefault(player, []).append(luck_row(log, luck, player))
            else:
                whole[player] = whole.get(player, 0) + round(luck.adjusted[player] * E4) * E4
    figures = {p: {"accuracy": 100 * s["accurate"] / s["decisions"],
                   "discard_error": s["discard"] / s["decisions"],
                   "errors": 100 * s["errors"] / s["decisions"],
                   "luck": s["luck"] / s["deals"],
                   "luck_adjusted": (luck_share.adjusted(games.get(p, ())).adjusted_e8
                                     + whole.get(p, 0)) / E8 / s["deals"]}
               for p, s in sums.items()}
    return logs, figures


ANALYSIS_KEYS = ("accuracy", "discard_error", "errors", "luck", "luck_adjusted")


def test_the_leaderboard_sorts_on_the_analysis_figures(client):
    logs, figures = analysed_corpus(client)
    # Two players whose game is stored but not analysed: listed by the other keys with
    # null figures, left out by the analysis keys.
    post_log(client, generate_game("gin", 43, players=2, names=["zed", "yan"],
                                   rules={"target": 30}))
    assert len(figures) >= 4
    board = {row["player"]: row for row in
             client.get(f"{API}/players?sort=games&limit=100").get_json()["players"]}
    assert set(board) == set(figures) | {"zed", "yan"}
    assert all(board["zed"][key] is None and board["yan"][key] is None
               for key in ANALYSIS_KEYS)
    for key in ANALYSIS_KEYS:
        places = 3 if key == "discard_error" else 2
        for player, want in figures.items():
            assert board[player][key] == pytest.approx(want[key], abs=10 ** -places), (
                key, player)
        for order in ("desc", "asc"):
            whole = client.get(f"{API}/players?sort={key}&order={order}&limit=100").get_json()
            rows = whole["players"]
            sign = -1 if order == "desc" else 1
            assert [r["player"] for r in rows] == sorted(
                figures, key=lambda p: (sign * board[p][key], p)), (key, order)
            assert [r["rank"] for r in rows] == list(range(1, len(rows) + 1))
            paged, url = [], f"{API}/players?sort={key}&order={order}&limit=2"
            while url:
                page = client.get(url).get_json()
                paged += page["players"]
                url = page["next"]
            assert paged == rows, (key, order)
    # The filters reach the analysis figures: only gin games.
    gin = client.get(f"{API}/players?sort=accuracy&variant=gin&limit=100").get_json()
    gin_players = {p for log in logs if log["variant"] == "gin" for p in log["players"]}
    assert {r["player"] for r in gin["players"]} == gin_players
    assert_problem(client.get(f"{API}/players?sort=luckiness"), 400, "invalid-parameter")


def test_the_leaderboard_sorts_on_the_decision_loss(client):
    """``decision_loss`` and ``decision_accuracy``: each gin player's figures over the
    decisions judged (as their own analysis has them: each decision's rounded to
    0.000001, summed, averaged); the Rummy-only players have none, and sorted on either
    key they are left out."""
    logs, _ = analysed_corpus(client)
    losses: dict[str, list[float]] = {}
    for log in logs:
        for x in game_decisions(parse_game(log)):
            losses.setdefault(x.player, []).append(x.loss)
    assert len(losses) >= 2
    want = {p: (round(sum(round(x * 1e6) for x in v) / len(v) / 1e6, 4),
                round(sum(round(accuracy_of(x) * 1e6) for x in v) / len(v) / 1e6, 2))
            for p, v in losses.items()}
    board = {row["player"]: row for row in
             client.get(f"{API}/players?sort=games&limit=100").get_json()["players"]}
    everyone = {p for log in logs for p in log["players"]}
    assert set(board) == everyone and everyone - set(want)
    for player, row in board.items():
        got = (row["decision_loss"], row["decision_accuracy"])
        assert got == want.get(player, (None, None)), player
        if player in want:
            own = client.get(f"{API}/players/{player}/analysis?variant=gin").get_json()
            assert own["variants"]["gin"]["decision_loss"]["average_loss"] == got[0]
    for key, at in (("decision_loss", 0), ("decision_accuracy", 1)):
        for order in ("asc", "desc"):
            rows = client.get(f"{API}/players?sort={key}&order={order}&limit=100"
                              ).get_json()["players"]
            sign = -1 if order == "desc" else 1
            assert [r["player"] for r in rows] == sorted(
                want, key=lambda p, at=at, sign=sign: (sign * want[p][at], p)), (key, order)


def test_the_answers_of_analysis_figures_say_how_many_games_are_not_analysed_yet(client):
    """The player figures, the leaderboard and the integrity screen are sums over the
    games analysed so far: each answer says how many stored games are not, and whether
    the figures are complete (the catch-up is off in these tests: a game is analysed
    when its analysis is asked for)."""
    ids = [post_log(client, log).get_json()["id"] for log in generate_games(
        "gin", 3, seed=31, players=2, names=["ana", "ben"])]
    assert client.get(f"{API}/games/{ids[0]}/analysis").status_code == 200
    answers = (f"{API}/players/ana/analysis", f"{API}/players",
               f"{API}/players?sort=accuracy", f"{API}/integrity/pairs?min_games=1",
               f"{API}/integrity/pairs/facts?player=ana&partner=ben")
    for url in answers:
        response = client.get(url)
        assert response.status_code == 200, (url, response.get_json())
        assert response.get_json()["analysis"] == {
            "backlog": 2, "complete": False, "running": False}, url
    for gid in ids[1:]:
        assert client.get(f"{API}/games/{gid}/analysis").status_code == 200
    for url in answers:
        assert client.get(url).get_json()["analysis"] == {
            "backlog": 0, "complete": True, "running": False}, url


def test_a_metrics_scrape_through_the_store_process_is_a_probe(make_app):
    """A scrape does not count as use of the service (docs/ANALYSIS.md): the store
    process is asked only probes, so the catch-up keeps its full rate between scrapes
    of an idle service (with every scrape counted, one every second kept it at a tenth)."""
    from service.store.remote import PROBES, RemoteStore

    app = make_app(RUMMY_STORE_PROCESS="1")
    client = app.test_client()
    assert post_log(client, discard_error_log()).status_code == 201
    store = store_of(app)
    assert isinstance(store, RemoteStore)
    asked: list[str] = []
    real_call = store.call

    def call(op, *args, **kwargs):
        asked.append(op)
        return real_call(op, *args, **kwargs)

    store.call = call
    try:
        body = client.get(f"{API}/metrics").get_data(as_text=True)
        assert client.get(f"{API}/healthz").status_code == 200
    finally:
        del store.call
    assert "rummy_database_up 1.0" in body and \
        'rummy_games_stored{status="incomplete"} 1.0' in body
    assert asked and set(asked) <= PROBES, asked


def test_a_games_analysis_judges_each_gin_discard_in_expected_points(client):
    """``decisions``: per player the discards judged, average loss and accuracy, each
    decision with its best throw; a discard error carries the evaluator's verdict on
    the same decision, whether the facts are computed or read from the store."""
    gid = post_log(client, discard_error_log()).get_json()["id"]
    for stored in (False, True):
        body = client.get(f"{API}/games/{gid}/analysis").get_json()
        assert body["stored"] is stored
        decisions = body["decisions"]
        assert set(decisions) == {"players", "decisions", "per_drawn", "half_loss", "margin"}
        assert set(decisions["players"]) == {"ana", "ben"}
        assert set(decisions["players"]["ana"]) == {"decisions", "loss", "average_loss",
                                                    "accuracy", "best"}
        draw, first = decisions["decisions"][:2]
        common = {"deal", "move", "player", "action", "card", "best", "measure",
                  "played_value", "best_value", "unseen", "throws", "loss"}
        assert set(first) == common
        # ana's draw from the stock, the evaluator's choice: no loss.
        assert set(draw) == common | {"source", "best_source"}
        assert (draw["move"], draw["action"], draw["source"], draw["best_source"],
                draw["best"], draw["loss"]) == (0, "draw", "stock", "stock", None, 0.0)
        # ana threw 7S where KS kept the better hand: the deadwood says so (3 points),
        # and so does the evaluator, in deal points.
        assert (first["move"], first["card"], first["best"]) == (1, "7S", "KS")
        assert first["loss"] > 0.25
        assert decisions["players"]["ana"]["average_loss"] == round(first["loss"] / 2, 4)
        error = body["facts"][0]
        assert error["kind"] == "discard_error"
        assert error["evaluator"] == "worse" and error["evaluator_loss"] == first["loss"]
        assert "evaluator" not in body["facts"][1]  # a fed card is not judged so
        assert error["cost"] == 3  # the fact itself is unchanged
