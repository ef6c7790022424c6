"""The settings page of a tournament: its name, dates, venue, ranking, match points,
tie-breaks, whether it is public and its schedule (a text area, one table a line:
``round, table, player, player...``, and ``| not played: why`` after a table that was
not), in a form a write-key holder sends to
``PUT /api/v1/tournaments/{id}/settings`` (the page's script, with the key the upload
page keeps in the tab's session storage).  The page itself reads as the tournament's
other pages do: with a read key, or without one when the tournament is public."""

from __future__ import annotations

from typing import Any

from flask import render_template

from ..api.auth import read_access_or_public, writes_need_a_key
from ..api.config import current_store
from ..api.desk import settings_answer
from ..api.problems import Problem
from ..engine.limits import MAX_ID_LENGTH
from ..store.counting import RANKINGS, TIE_BREAKS
from ..store.desk import tournament_known
from . import blp


def schedule_line(entry: dict[str, Any]) -> str:
    """One scheduled table as the page's text area shows it (and its script reads it)."""
    line = ", ".join([str(entry["round"]), entry["table"], *entry["players"]])
    if entry.get("not_played") is not None:
        # One line a table: a reason stored before reasons were held to one line keeps
        # its words, its line breaks made spaces, so that saving the form leaves it whole.
        line += f" | not played: {' '.join(str(entry['not_played']).split())}"
    return line


@blp.get("/tournaments/<name:tournament_id>/settings")
@read_access_or_public
def tournament_settings(tournament_id: str):
    if not (1 <= len(tournament_id) <= MAX_ID_LENGTH
            and tournament_known(current_store(), tournament_id)):
        raise Problem(404, "not-found", f"there is no tournament {tournament_id[:64]!r}")
    current = settings_answer(tournament_id)
    slots = [*current["tie_breaks"], *[""] * (len(TIE_BREAKS) - len(current["tie_breaks"]))]
    return render_template("settings.html", title=f"Settings · {tournament_id}",
                           tournament_id=tournament_id, current=current, slots=slots,
                           schedule="".join(schedule_line(entry) + "\n"
                                            for entry in current.get("schedule", [])),
                           rankings=RANKINGS, tie_breaks=TIE_BREAKS,
                           key_needed=writes_need_a_key())
