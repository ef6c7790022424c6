"""The head-to-head page: two players' record as opponents, read through the store
call and the query schema of the API's ``GET /players/{a}/versus/{b}``, so the form of
the player page works without JavaScript and shows the API's figures."""

from __future__ import annotations

from flask import render_template
from marshmallow import fields

from ..api.auth import read_access
from ..api.config import current_store
from ..api.games_schemas import named
from ..api.players import FILTERS, FilterArgsSchema, _filter, _player
from ..api.problems import INVALID_PARAMETER, NOT_FOUND, Problem
from ..engine.limits import MAX_PLAYER_LENGTH
from ..store.stats import head_to_head
from . import blp, wants_html
from .views import _args

blp.add_app_template_global(FILTERS, "stats_filters")


class VersusPageArgsSchema(FilterArgsSchema):
    """The API's versus query, and the opponent the API takes in its path."""

    opponent = fields.String(required=True, validate=named(MAX_PLAYER_LENGTH))


@blp.app_template_global("versus_refusal")
def refusal(player: str) -> str:
    """What the page says when asked to compare a player with themself."""
    return (f"{player} cannot be compared with {player}: a player never sits opposite "
            "themself, so choose another opponent")


def _same_player(player: str):
    """A player never sits opposite themself: the page says so rather than show the
    API's 0 games (the API answers that, and is left so)."""
    detail = refusal(player)
    if not wants_html():
        raise Problem(400, INVALID_PARAMETER, detail, errors={"opponent": [detail]})
    return render_template("versus.html", title=f"{player} v {player}", player=player,
                           opponent=player, record=None, refused=detail), 400


@blp.get("/players/<name:player>/versus")
@read_access
def versus(player: str):
    args = _args(VersusPageArgsSchema())
    a, b = _player(player), _player(args["opponent"].strip())
    if a == b:
        return _same_player(a)
    record = head_to_head(current_store(), a, b, _filter(args))
    if record is None:
        raise Problem(404, NOT_FOUND, f"no stored game matches player {a[:64]!r} or "
                      f"{b[:64]!r} with these filters")
    return render_template("versus.html", title=f"{a} v {b}", player=a, opponent=b,
                           record=record, refused=None)
