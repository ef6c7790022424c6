"""GET /games/{id}/deals/{d}/positions: every position of a deal in one answer, the
same tables as the state endpoint gives one by one."""

from __future__ import annotations

from service.api.games_schemas import EXAMPLE_LOG
from service.api.positions import EXAMPLE

from .helpers import API, assert_problem, illegal, post_log


def test_each_position_is_the_state_after_its_move(client):
    game_id = post_log(client, EXAMPLE_LOG).get_json()["id"]
    answer = client.get(f"{API}/games/{game_id}/deals/0/positions")
    assert answer.status_code == 200
    body = answer.get_json()
    assert len(body["positions"]) == len(EXAMPLE_LOG["deals"][0]["moves"]) + 1
    for k, position in enumerate(body["positions"]):
        state = client.get(f"{API}/games/{game_id}/deals/0/moves/{k - 1}/state").get_json()
        assert position["stock_count"] == state["stock_count"]
        assert position["discard_top"] == state["discard_top"]
        assert position["hand_values"] == state["hand_values"]
        assert position["to_move"] == state["to_move"]
        for player, cards in state["hands"].items():
            hand = position["hands"][player]
            assert sorted([c for meld in hand["melds"] for c in meld] + hand["rest"]) \
                == sorted(cards)
    assert body["scores_after"] == state["scores"]
    assert body["links"]["game"] == f"{API}/games/{game_id}"


def test_the_documented_example_is_what_the_endpoint_answers(client):
    game_id = post_log(client, EXAMPLE_LOG).get_json()["id"]
    body = client.get(f"{API}/games/{game_id}/deals/0/positions").get_json()
    links = {key: value.replace(game_id, "GAME") for key, value in body["links"].items()}
    assert {**body, "positions": body["positions"][:1], "links": links} == \
        {**EXAMPLE, "links": {key: value.replace(EXAMPLE["links"]["game"].rsplit("/", 1)[1],
                                                 "GAME")
                              for key, value in EXAMPLE["links"].items()}}
    spec = client.get(f"{API}/openapi.json").get_json()
    documented = spec["paths"][f"{API}/games/{{game_id}}/deals/{{deal}}/positions"]["get"]
    assert documented["responses"]["200"]["content"]["application/json"]["example"] == EXAMPLE


def test_an_illegal_move_ends_the_positions_with_its_violation(client):
    log = illegal()
    answer = post_log(client, log).get_json()
    [violation] = answer["report"]["violations"]
    body = client.get(f"{API}/games/{answer['id']}/deals/{violation['deal']}/positions")
    stopped = body.get_json()["stopped_by"]
    assert stopped == {"move": violation["move"], "code": violation["code"],
                       "message": violation["message"]}
    assert len(body.get_json()["positions"]) == violation["move"] + 2


def test_unknown_games_and_deals(client):
    assert_problem(client.get(f"{API}/games/nothing/deals/0/positions"), 404, "not-found")
    game_id = post_log(client, EXAMPLE_LOG).get_json()["id"]
    assert_problem(client.get(f"{API}/games/{game_id}/deals/1/positions"), 404,
                   "no-such-position")
