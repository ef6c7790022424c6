"""GET /games/{id}/deals/{d}/positions: every position of a deal at once.

A replay viewer steps through a deal move by move; asking the state endpoint for each
step would replay the game each time.  This answers the whole deal in one replay
(:func:`service.engine.positions.deal_positions`): the moves in words, and the table as
dealt and after every move, up to the end or to the illegal move that stopped it.
"""

from __future__ import annotations

from typing import Any

from flask_smorest import Blueprint
from marshmallow import Schema, fields

from ..engine.positions import deal_positions
from ..engine.state import NoSuchPosition
from .auth import read_access
from .games import game_url, stored_game
from .games_schemas import EXAMPLE_ID, MeldSchema
from .problems import NO_SUCH_POSITION, Problem
from .spec import PREFIX, problem_responses

blp = Blueprint("positions", __name__, url_prefix=f"{PREFIX}/games",
                description="Every position of a deal, for replay viewers")


class HandSchema(Schema):
    melds = fields.List(fields.List(fields.String()), required=True, metadata={
        "description": "The melds of the hand's best arrangement, each sorted"})
    rest = fields.List(fields.String(), required=True, metadata={
        "description": "The other cards (deadwood), by suit then rank"})
    count = fields.Integer(required=True, metadata={"description": "Cards in the hand"})


class PositionSchema(Schema):
    public = fields.List(fields.String(), required=True, metadata={
        "description": "The players whose hand every player sees here: in gin the "
                       "knocker's from the knock on and the defender's once shown; every "
                       "hand at the last position of a scored deal (the hands are counted)",
        "example": ["ana"]})
    to_move = fields.String(allow_none=True)
    hands = fields.Dict(keys=fields.String(), values=fields.Nested(HandSchema), required=True)
    hand_values = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True,
                              metadata={"description": "Card points left in each hand "
                                                       "(gin: deadwood)"})
    stock_count = fields.Integer(required=True)
    discard_top = fields.String(allow_none=True)
    discard_pile = fields.List(fields.String(), required=True, metadata={
        "description": "The discard pile, bottom first, top last"})
    melds = fields.List(fields.Nested(MeldSchema), required=True, metadata={
        "description": "Melds on the table, numbered from 1 in this order, with who laid "
                       "them (gin: the knocker's declared melds)"})


class MoveSchema(Schema):
    player = fields.String(required=True)
    action = fields.String(required=True)
    words = fields.String(required=True, metadata={"example": "ben draws 9D from the stock"})
    public = fields.String(required=True, metadata={
        "description": "The move as the other players know it: a card drawn from the stock "
                       "is not named",
        "example": "ben draws from the stock"})


class StoppedSchema(Schema):
    move = fields.Integer(allow_none=True, metadata={
        "description": "0-based index of the illegal move; null: the deal as a whole"})
    code = fields.String(required=True)
    message = fields.String(required=True)


class DealPositionsSchema(Schema):
    deal = fields.Integer(required=True, metadata={"description": "0-based"})
    players = fields.List(fields.String(), required=True, metadata={
        "description": "The deal's players in play order"})
    dealer = fields.String(allow_none=True)
    moves = fields.List(fields.Nested(MoveSchema), required=True)
    positions = fields.List(fields.Nested(PositionSchema), required=True, metadata={
        "description": "positions[0]: as dealt; positions[k]: after the k-th move (1-based "
                       "k), up to the last move or the illegal move that stopped the replay "
                       "(its position is the table as the move found it)"})
    stopped_by = fields.Nested(StoppedSchema, allow_none=True)
    outcome = fields.String(allow_none=True)
    winner = fields.String(allow_none=True)
    points = fields.Dict(keys=fields.String(), values=fields.Integer(), allow_none=True,
                         metadata={"description": "The deal's recomputed points, once over"})
    scores_before = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True)
    scores_after = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True)
    final = fields.Dict(keys=fields.String(), values=fields.Integer(), allow_none=True,
                        metadata={"description": "On the last deal of a game that has a "
                                  "winner: the game's totals by side with what is added at "
                                  "its end (gin: boxes, game bonus, shutouts), as the game's "
                                  "report gives them; null otherwise"})
    links = fields.Dict(keys=fields.String(), values=fields.String(), required=True)


EXAMPLE = {
    "deal": 0, "players": ["ana", "ben"], "dealer": "ben",
    "moves": [{"player": "ana", "action": "draw", "words": "ana draws AH from the stock",
               "public": "ana draws from the stock"},
              {"player": "ana", "action": "knock", "words": "ana knocks, discarding KS",
               "public": "ana knocks, discarding KS"}],
    "positions": [{"public": [], "to_move": "ana", "hands": {
        "ana": {"melds": [["2C", "3C", "4C"], ["5D", "5H", "5S"], ["9D", "9H", "9S"]],
                "rest": ["KS"], "count": 10},
        "ben": {"melds": [["5C", "6C", "7C", "8C", "9C"], ["AD", "2D", "3D"]],
                "rest": ["JH", "JS"], "count": 10}},
        "hand_values": {"ana": 10, "ben": 20}, "stock_count": 31, "discard_top": "TD",
        "discard_pile": ["TD"], "melds": []}],
    "stopped_by": None, "outcome": "knock", "winner": "ana", "points": {"ana": 19, "ben": 0},
    "scores_before": {"ana": 0, "ben": 0}, "scores_after": {"ana": 19, "ben": 0},
    "final": {"ana": 139, "ben": 0},  # the game's one deal: 19, a box of 20, a shutout of 100
    "links": {"game": f"{PREFIX}/games/{EXAMPLE_ID}",
              "state": f"{PREFIX}/games/{EXAMPLE_ID}/deals/0/moves/{{move}}/state"}}


@blp.route("/<game_id:game_id>/deals/<int:deal>/positions", methods=["GET"])
@read_access
@blp.response(200, DealPositionsSchema, example=EXAMPLE)
@problem_responses(blp, 401, 403, 404, 410)
@blp.doc(summary="Every position of one deal (0-based), replayed once",
         description="The moves in words and the table as dealt and after each move: what "
                     "a viewer needs to step through the deal without asking again. A deal "
                     "the game does not have is a 404 problem of type no-such-position.")
def get_positions(game_id: str, deal: int) -> dict[str, Any]:
    game = stored_game(game_id)
    try:
        body = deal_positions(game, deal)
    except NoSuchPosition as error:
        raise Problem(404, NO_SUCH_POSITION, str(error)) from None
    url = game_url(game_id)
    body["links"] = {"game": url, "state": f"{url}/deals/{deal}/moves/{{move}}/state"}
    return body
