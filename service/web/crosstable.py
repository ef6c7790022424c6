"""The crosstable page: who played whom in a tournament, over the games that count."""

from __future__ import annotations

from flask import render_template, request
from marshmallow import EXCLUDE, ValidationError

from ..api.auth import read_access_or_public
from ..api.config import current_store
from ..api.problems import Problem
from ..api.tournaments import AuditArgsSchema
from ..store.audit import tournament_audit
from ..store.crosstable import crosstable
from . import blp


def after_round_arg() -> int | None:
    """The page's ``after_round`` (an empty value: every round), or a 400 page."""
    raw = {k: v for k, v in request.args.items() if k == "after_round" and v != ""}
    try:
        return AuditArgsSchema(unknown=EXCLUDE).load(raw).get("after_round")
    except ValidationError as error:
        raise Problem(400, "invalid-parameter",
                      "after_round: a round number, 0 or more, is needed") from error


@blp.get("/tournaments/<name:tournament_id>/crosstable")
@read_access_or_public
def tournament_crosstable(tournament_id: str):
    after = after_round_arg()
    audit = tournament_audit(current_store(), tournament_id, after)
    if audit is None:
        raise Problem(404, "not-found", f"there is no tournament {tournament_id[:64]!r}")
    return render_template("crosstable.html", title=f"Crosstable · {tournament_id}",
                           audit=audit, tables=crosstable(audit.games, audit.standings))
