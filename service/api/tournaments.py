"""GET /tournaments/{id}: the tournament audit, as JSON or as a CSV for a spreadsheet.

The figures come from :mod:`service.store.audit` (docs/STATISTICS.md, "Tournaments"):
verified standings (counted games: finished and not illegal) beside the standings the
logs claim, the games, and the discrepancies between the two.  Standings are ranked per
variant and scoring direction (see the store module for why).

The CSV is one table with a ``section`` column (``standings``, ``games``,
``discrepancies``) and a single header row: a spreadsheet can filter, sort and pivot it
as it is, where several stacked tables would need cutting apart first.  The games
section has one row per game and player.  It starts with a UTF-8 byte order mark, so
that spreadsheet programs read accented player names right.
"""

from __future__ import annotations

import csv
import io
import re
import unicodedata
from typing import Any
from urllib.parse import quote

from flask import Response, url_for
from flask_smorest import Blueprint
from marshmallow import RAISE, Schema, fields
from marshmallow.validate import OneOf, Range

from ..engine.limits import MAX_ID_LENGTH
from ..store.audit import (
    DISCREPANCY_KINDS,
    HIGHER,
    LOWER,
    TournamentAudit,
    list_tournaments,
    ruling_text,
    standing_order,
    tournament_audit,
)
from ..store.counting import MATTER_KINDS, MISSING_TABLE
from ..store.crosstable import crosstable
from ..store.desk import restored_games, withdrawn_by_round, withdrawn_games
from .auth import read_access, read_access_or_public
from .config import current_store, settings
from .games_schemas import LEVEL_DOC, LEVELS, STATUSES, UtcDateTime, _page_limit, utc_text
from .pagination import Part, decode_key_cursor, encode_key_cursor, link_header
from .problems import NOT_FOUND, Problem
from .spec import PREFIX, problem_responses

blp = Blueprint("tournaments", __name__, url_prefix=f"{PREFIX}/tournaments",
                description="Tournament standings and audits")

CSV_TYPE = "text/csv"
ID_KEY = (Part.TEXT,)  # the last tournament's id
CSV_COLUMNS = ("section", "variant", "round", "table", "game", "status", "counted",
               "ruling", "winner", "recomputed_leader", "player", "rank", "points", "claimed_rank", "claimed_points",
               "games", "won", "kind", "detail", "verification", "match_points",
               "credited_points", "credited_winners")
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_UNSAFE_FILENAME = re.compile(r"[^A-Za-z0-9._-]+")
_UNSAFE_UNICODE = re.compile(r"[^\w.-]+")  # letters of any script, digits, _ . -


# --------------------------------------------------------------------------- schemas

class NoArgsSchema(Schema):
    """No query parameter: an unknown one is refused (400), as everywhere."""


class AuditArgsSchema(Schema):
    after_round = fields.Integer(validate=Range(min=0, max=1_000_000), metadata={
        "description": "The standings as they stood after this round: only the games of "
                       "rounds up to it (games naming no round left out), counted as if "
                       "the later ones were not stored"})


class ListArgsSchema(Schema):
    limit = fields.Integer(validate=[Range(min=1), _page_limit], metadata={
        "description": "Tournaments per page (default 50)"})
    cursor = fields.String(metadata={"description": "Opaque: from the previous page's "
                                                    "'next' link"})


class TournamentRowSchema(Schema):
    id = fields.String(required=True)
    games = fields.Integer(required=True, metadata={"description": "Games stored"})
    counted = fields.Integer(required=True, metadata={
        "description": "Games counted for the verified standings"})
    illegal = fields.Integer(required=True, metadata={
        "description": "Illegal games: each is a discrepancy of the audit"})
    mismatch = fields.Integer(required=True, metadata={
        "description": "Legal games whose claims do not match the recomputed scores"})
    discrepancies = fields.Integer(required=True, metadata={
        "description": "The discrepancies of the tournament's audit, as many as "
                       "GET /tournaments/{id} lists"})
    open = fields.Integer(required=True, metadata={
        "description": "Open matters: as many as GET /tournaments/{id} lists in 'open'"})
    final = fields.Boolean(required=True, metadata={
        "description": "True when no matter is open: the standings are final"})
    players = fields.Integer(required=True, metadata={"description": "Distinct players"})
    first_game_time = UtcDateTime(required=True, allow_none=True, metadata={
        "description": "The earliest game: played, else uploaded; null when every "
                       "game of the tournament was withdrawn (deleted or replaced)"})
    last_game_time = UtcDateTime(required=True, allow_none=True)
    variants = fields.List(fields.String(), required=True, metadata={
        "description": "The variants of its games, empty when every game was withdrawn"})
    links = fields.Nested(lambda: TournamentLinksSchema(), required=True)


class TournamentPageSchema(Schema):
    tournaments = fields.List(fields.Nested(TournamentRowSchema), required=True)
    next = fields.String(allow_none=True, metadata={
        "description": "The next page, also in the Link header; null on the last page"})


class StandingSchema(Schema):
    player = fields.String(required=True)
    rank = fields.Integer(allow_none=True, metadata={
        "description": "Verified rank, 1 = best (ties share a rank); null without a "
                       "counted game"})
    points = fields.Integer(allow_none=True, metadata={
        "description": "Sum of the recomputed game totals of the counted games"})
    games = fields.Integer(required=True, metadata={"description": "Counted games"})
    won = fields.Integer(required=True, metadata={"description": "Counted games won"})
    claimed_rank = fields.Integer(allow_none=True, metadata={
        "description": "Rank by claimed totals; null when no log claims a total"})
    claimed_points = fields.Integer(allow_none=True, metadata={
        "description": "Sum of the logs' claimed totals (every game that claims one)"})
    claimed_games = fields.Integer(required=True, metadata={
        "description": "Games with a claimed total for the player"})
    match_points = fields.Integer(allow_none=True, metadata={
        "description": "Only when the tournament ranks by match points: its settings' "
                       "points for each counted game won, drawn or lost"})


class StandingTableSchema(Schema):
    variant = fields.String(required=True)
    better = fields.String(required=True, validate=OneOf((HIGHER, LOWER)), metadata={
        "description": "Which total ranks first: lower under penalty scoring"})
    games = fields.Integer(required=True, metadata={"description": "Counted games"})
    ranking = fields.String(metadata={
        "description": "Only when the settings rank otherwise than by total points with "
                       "ties shared: points, wins or match_points"})
    tie_breaks = fields.List(fields.String(), metadata={
        "description": "With 'ranking': the tie-breaks applied, in order"})
    players = fields.List(fields.Nested(StandingSchema), required=True)


class TournamentLinksSchema(Schema):
    self = fields.String(required=True)
    log = fields.String()
    report = fields.String()
    withdrawn = fields.String()
    ruling = fields.String()
    settings = fields.String()
    crosstable = fields.String()


class GameRulingSchema(Schema):
    ruling = fields.String(required=True)
    against = fields.String(allow_none=True)
    reason = fields.String(required=True)
    by = fields.String(allow_none=True)
    at = UtcDateTime(required=True)


class MatterSchema(Schema):
    kind = fields.String(required=True, validate=OneOf(MATTER_KINDS))
    games = fields.List(fields.String(), required=True)
    round = fields.Integer(allow_none=True)
    table = fields.String(allow_none=True)
    detail = fields.String(required=True)
    links = fields.Dict(keys=fields.String(), values=fields.Raw(), required=True, metadata={
        "description": "games: each game's address; ruling: where to record the ruling "
                       "that settles it (a game's matter, schedule_mismatch included); "
                       "withdrawn: the tournament's withdrawn games (duplicate_table); "
                       "settings: where a missing_table is marked not played (it has no "
                       "game)"})


class TournamentGameSchema(Schema):
    id = fields.String(required=True)
    variant = fields.String(required=True)
    round = fields.Integer(allow_none=True)
    table = fields.String(allow_none=True)
    status = fields.String(required=True, validate=OneOf(STATUSES))
    verification = fields.String(required=True, validate=OneOf(LEVELS),
                                 metadata={"description": LEVEL_DOC})
    counted = fields.Boolean(required=True, metadata={
        "description": "Counts for the verified standings (finished, not illegal)"})
    players = fields.List(fields.String(), required=True)
    winner = fields.String(allow_none=True, metadata={
        "description": "Recomputed winner of a counted game; null for a game that does "
                       "not count (illegal or unfinished): it has no result"})
    recomputed_leader = fields.String(allow_none=True, metadata={
        "description": "Not a result: for a game that does not count, the player (side) "
                       "ahead on the points of its scored deals; null for a counted game"})
    played_at = UtcDateTime(allow_none=True)
    points = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True,
                         metadata={"description": "Recomputed game totals by player"})
    claimed = fields.Dict(keys=fields.String(), values=fields.Integer(allow_none=True),
                          required=True, metadata={
                              "description": "The log's claimed totals (null: no claim)"})
    ruling = fields.Nested(GameRulingSchema, allow_none=True, required=True, metadata={
        "description": "The director's ruling in force, or null"})
    credited = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True,
                           metadata={"description": "The points the game credits each "
                                                    "player in the verified standings "
                                                    "(empty when it does not count)"})
    credited_winners = fields.List(fields.String(), required=True, metadata={
        "description": "The players the game credits a win"})
    basis = fields.String(required=True, metadata={
        "description": "Why the game counts as it does, in words"})
    links = fields.Nested(TournamentLinksSchema, required=True)


class DiscrepancySchema(Schema):
    kind = fields.String(required=True, validate=OneOf(DISCREPANCY_KINDS))
    game = fields.String(allow_none=True, metadata={
        "description": "null for a standing; the first game of a duplicate_table"})
    games = fields.List(fields.String(), required=True, metadata={
        "description": "Every game the discrepancy is about (duplicate_table: each game "
                       "claiming the round and table, in upload order)"})
    player = fields.String(allow_none=True)
    variant = fields.String(allow_none=True)
    deal = fields.Integer(allow_none=True, metadata={
        "description": "0-based, as in reports: the deal of an illegal game's first "
                       "violation or of a wrong deal claim; null otherwise"})
    move = fields.Integer(allow_none=True, metadata={
        "description": "0-based: the move of an illegal game's first violation; null "
                       "otherwise"})
    detail = fields.String(required=True, metadata={
        "description": "For people: deals and moves counted from 1"})
    claimed = fields.Integer(allow_none=True, metadata={
        "description": "The claimed points (a deal's or a game's) or claimed standing total"})
    verified = fields.Integer(allow_none=True, metadata={
        "description": "The recomputed figure it is compared with"})
    claimed_rank = fields.Integer(allow_none=True)
    verified_rank = fields.Integer(allow_none=True)


class SummarySchema(Schema):
    games = fields.Integer(required=True)
    counted = fields.Integer(required=True)
    valid = fields.Integer(required=True)
    mismatch = fields.Integer(required=True)
    illegal = fields.Integer(required=True)
    incomplete = fields.Integer(required=True)


class TournamentReportSchema(Schema):
    id = fields.String(required=True)
    summary = fields.Nested(SummarySchema, required=True)
    standings = fields.List(fields.Nested(StandingTableSchema), required=True, metadata={
        "description": "One table per variant and scoring direction"})
    games = fields.List(fields.Nested(TournamentGameSchema), required=True)
    discrepancies = fields.List(fields.Nested(DiscrepancySchema), required=True)
    settings = fields.Dict(allow_none=True, metadata={
        "description": "The tournament's settings (GET /tournaments/{id}/settings), null "
                       "when none were set"})
    final = fields.Boolean(required=True, metadata={
        "description": "True when no matter is open: no re-entered table, no illegal, "
                       "unfinished or mismatch game without a ruling; with a schedule, "
                       "no game off its schedule without a ruling and no missing table"})
    open = fields.List(fields.Nested(MatterSchema), required=True, metadata={
        "description": "The open matters, each with its games and links"})
    rounds = fields.List(fields.Integer(), required=True, metadata={
        "description": "Every round a game of the tournament names, in order"})
    after_round = fields.Integer(allow_none=True, required=True, metadata={
        "description": "The round the figures stop after (after_round), null: all"})
    withdrawn = fields.Integer(required=True, metadata={
        "description": "How many of its games were withdrawn (deleted or replaced: "
                       "links.withdrawn lists them). A tournament whose every game was "
                       "withdrawn still answers, with no games and no standings"})
    links = fields.Nested(TournamentLinksSchema, required=True)


class CrossCellSchema(Schema):
    opponent = fields.String(required=True)
    games = fields.Integer(required=True)
    won = fields.Integer(required=True, metadata={"description": "The row player's wins"})
    lost = fields.Integer(required=True, metadata={"description": "The opponent's wins"})
    points = fields.Integer(required=True, metadata={
        "description": "Points credited to the row player in those games"})
    opponent_points = fields.Integer(required=True)
    game_ids = fields.List(fields.String(), required=True)


class CrossRowSchema(Schema):
    player = fields.String(required=True)
    cells = fields.List(fields.Nested(CrossCellSchema), required=True, metadata={
        "description": "One per opponent met, in the standings' order"})


class CrossTableSchema(Schema):
    variant = fields.String(required=True)
    better = fields.String(required=True, validate=OneOf((HIGHER, LOWER)))
    players = fields.List(fields.String(), required=True, metadata={
        "description": "The players in the standings' order"})
    rows = fields.List(fields.Nested(CrossRowSchema), required=True)


class CrosstableSchema(Schema):
    id = fields.String(required=True)
    after_round = fields.Integer(allow_none=True, required=True)
    final = fields.Boolean(required=True)
    tables = fields.List(fields.Nested(CrossTableSchema), required=True, metadata={
        "description": "One per standings table (variant and scoring direction)"})


_G1, _G2 = "5d69bdc52cdd76ed28a89e91", "0c1f9a7e3b2d4c5a6e7f8091"
EXAMPLE: dict[str, Any] = {
    "id": "spring",
    "summary": {"games": 2, "counted": 1, "valid": 1, "mismatch": 0, "illegal": 1,
                "incomplete": 0},
    "standings": [{"variant": "gin", "better": "higher", "games": 1, "players": [
        {"player": "ana", "rank": 1, "points": 139, "games": 1, "won": 1,
         "claimed_rank": 1, "claimed_points": 278, "claimed_games": 2},
        {"player": "ben", "rank": 2, "points": 0, "games": 1, "won": 0,
         "claimed_rank": 2, "claimed_points": 0, "claimed_games": 2}]}],
    "games": [
        {"id": _G1, "variant": "gin", "round": 1, "table": "A", "status": "valid",
         "verification": "moves", "counted": True, "players": ["ana", "ben"], "winner": "ana", "recomputed_leader": None,
         "played_at": None,
         "points": {"ana": 139, "ben": 0}, "claimed": {"ana": 139, "ben": 0},
         "ruling": None, "credited": {"ana": 139, "ben": 0}, "credited_winners": ["ana"],
         "basis": "the recomputed result",
         "links": {"self": f"{PREFIX}/games/{_G1}", "log": f"{PREFIX}/games/{_G1}/log",
                   "ruling": f"{PREFIX}/games/{_G1}/ruling"}},
        {"id": _G2, "variant": "gin", "round": 2, "table": "A", "status": "illegal",
         "verification": "moves", "counted": False, "players": ["ana", "ben"], "winner": None, "recomputed_leader": None,
         "played_at": None,
         "points": {"ana": 0, "ben": 0}, "claimed": {"ana": 139, "ben": 0},
         "ruling": None, "credited": {}, "credited_winners": [],
         "basis": "illegal, no ruling yet",
         "links": {"self": f"{PREFIX}/games/{_G2}", "log": f"{PREFIX}/games/{_G2}/log",
                   "ruling": f"{PREFIX}/games/{_G2}/ruling"}}],
    "discrepancies": [
        {"kind": "illegal_game", "game": _G2, "games": [_G2], "player": "ana",
         "variant": "gin", "deal": 0, "move": 1,
         "detail": f"game {_G2} (round 2, table A) is illegal: CARD_NOT_IN_HAND at deal 1, "
                   "move 2 (ana discards 2H, which is not in her hand); it counts for no "
                   "verified standing until ruled",
         "claimed": None, "verified": None, "claimed_rank": None, "verified_rank": None},
        {"kind": "standing_differs", "game": None, "games": [], "player": "ana",
         "variant": "gin", "deal": None, "move": None,
         "detail": "ana (gin): claimed 278 (rank 1, 2 games with a claimed total), "
                   "verified 139 (rank 1, 1 counted game)",
         "claimed": 278, "verified": 139, "claimed_rank": 1, "verified_rank": 1}],
    "final": False,
    "open": [{"kind": "illegal_game", "games": [_G2], "round": 2, "table": "A",
              "detail": f"game {_G2} (round 2, table A): illegal: it counts for nothing "
                        "until ruled",
              "links": {"games": [f"{PREFIX}/games/{_G2}"],
                        "ruling": f"{PREFIX}/games/{_G2}/ruling"}}],
    "links": {"self": f"{PREFIX}/tournaments/spring",
              "report": f"{PREFIX}/tournaments/spring/report.csv",
              "withdrawn": f"{PREFIX}/tournaments/spring/withdrawn",
              "settings": f"{PREFIX}/tournaments/spring/settings"},
    "settings": None,
    "withdrawn": 0,
}
EXAMPLE_CSV = (
    "section,variant,round,table,game,status,counted,ruling,winner,recomputed_leader,player,"
    "rank,points,claimed_rank,claimed_points,games,won,kind,detail,verification\r\n"
    "standings,gin,,,,,,,,,ana,1,139,1,278,1,1,,higher total ranks first,\r\n"
    f"games,gin,1,A,{_G1},valid,true,,ana,,ana,,139,,139,,,,\"credited 139, credited a "
    "win: the recomputed result\",moves\r\n"
    f"discrepancies,gin,,,,,,,,,ana,1,139,1,278,,,standing_differs,ana (gin): claimed 278 "
    "...,\r\n"
    f"open,,2,A,{_G2},,,,,,,,,,,,,illegal_game,game {_G2} (round 2, table A): illegal: "
    "...,\r\n")


# --------------------------------------------------------------------------- views

AUDIT_DESCRIPTION = (
    "The games whose log names this tournament.id. Verified standings sum the recomputed "
    "game totals of the counted games (finished and not illegal); claimed standings sum "
    "the totals the logs claim, in every game that claims one. Standings are ranked per "
    "variant and scoring direction (lower is better under penalty scoring): a tournament "
    "mixing variants gets one table each, and combining them is the director's call. "
    "Ties share a rank. Discrepancies: two or more games claiming the same round and "
    "table (duplicate_table, naming every one), illegal games, score mismatches (deal or "
    "game claims), and players whose claimed total or rank differs from the verified one. "
    "Deleted games are left out of everything; a tournament whose every game was "
    "withdrawn answers with no games and no standings ('withdrawn' counts them), and "
    "404 is for an id no game ever named. "
    "A tournament id may contain '/' (send it as is or as %2F).")

def _audit(tournament_id: str, after_round: int | None = None) -> TournamentAudit:
    """The audit, or a 404 problem.  An id no log could carry is not looked up."""
    audit = None
    if 1 <= len(tournament_id) <= MAX_ID_LENGTH:
        audit = tournament_audit(current_store(), tournament_id, after_round)
    if audit is None:
        raise Problem(404, NOT_FOUND, f"there is no tournament {tournament_id[:64]!r}")
    return audit


def _game_links(game_id: str) -> dict[str, str]:
    return {"self": url_for("games.get_game", game_id=game_id),
            "log": url_for("games.get_log", game_id=game_id),
            "ruling": url_for("desk.get_ruling", game_id=game_id)}


def matters_with_links(audit: TournamentAudit) -> list[dict[str, Any]]:
    """The audit's open matters, each with the addresses that settle it."""
    out = []
    for matter in audit.open:
        links: dict[str, Any] = {"games": [url_for("games.get_game", game_id=gid)
                                           for gid in matter["games"]]}
        if matter["kind"] == "duplicate_table":
            links["withdrawn"] = url_for("desk.get_withdrawn", tournament_id=audit.id)
        elif matter["kind"] == MISSING_TABLE:
            links["settings"] = url_for("desk.get_settings", tournament_id=audit.id)
        else:
            links["ruling"] = url_for("desk.get_ruling", game_id=matter["games"][0])
        out.append({**matter, "links": links})
    return out


@blp.route("", methods=["GET"])
@read_access
@blp.arguments(ListArgsSchema, location="query", unknown=RAISE, error_status_code=400)
@blp.response(200, TournamentPageSchema, example={"tournaments": [{
    "id": "spring", "games": 7, "counted": 5, "illegal": 1, "mismatch": 1,
    "discrepancies": 3, "open": 2, "final": False, "players": 4,
    "first_game_time": "2024-03-01T19:00:00Z",
    "last_game_time": "2024-03-03T22:10:00Z", "variants": ["gin", "rummy"],
    "links": {"self": f"{PREFIX}/tournaments/spring",
              "report": f"{PREFIX}/tournaments/spring/report.csv"}}], "next": None},
    headers={"Link": {"description": 'RFC 8288: <next page>; rel="next" when there are more',
                      "schema": {"type": "string"}}})
@problem_responses(blp, 400, 401, 403)
@blp.doc(summary="Tournaments by id: games, counted games, discrepancies, first and last "
                 "game, variants")
def list_all(args: dict[str, Any]) -> tuple[dict[str, Any], int, dict[str, str]]:
    limit = args.get("limit", settings().page_size)
    after = None
    if "cursor" in args:
        [after] = decode_key_cursor(args["cursor"], "tournaments", {}, ID_KEY).key
    rows = list_tournaments(current_store(), limit + 1, after)
    more = len(rows) > limit
    rows = rows[:limit]
    for row in rows:
        row["links"] = {"self": url_for("tournaments.get_tournament", tournament_id=row["id"]),
                        "report": url_for("tournaments.get_report", tournament_id=row["id"])}
    body: dict[str, Any] = {"tournaments": rows, "next": None}
    headers: dict[str, str] = {}
    if more:
        body["next"] = url_for("tournaments.list_all", limit=limit,
                               cursor=encode_key_cursor("tournaments", [rows[-1]["id"]], {}))
        headers["Link"] = link_header(body["next"])
    return body, 200, headers


TOURNAMENT_PARAMETER = [{"in": "path", "name": "tournament_id", "required": True, "schema": {
    "type": "string", "minLength": 1, "maxLength": MAX_ID_LENGTH}}]


@blp.route("/<tournament:tournament_id>", methods=["GET"], parameters=TOURNAMENT_PARAMETER)
@read_access_or_public
@blp.arguments(AuditArgsSchema, location="query", unknown=RAISE, error_status_code=400)
@blp.response(200, TournamentReportSchema, example=EXAMPLE)
@problem_responses(blp, 400, 401, 403, 404)
@blp.doc(summary="A tournament's verified and claimed standings, games and discrepancies",
         description=AUDIT_DESCRIPTION)
def get_tournament(args: dict[str, Any], tournament_id: str) -> dict[str, Any]:
    """The games whose log names this ``tournament.id``.  Verified standings count the
    finished games that are not illegal; claimed standings sum the logs' claimed totals.
    One standings table per variant and scoring direction (lower is better under
    ``penalty`` scoring); a tournament mixing variants gets a table for each."""
    audit = _audit(tournament_id, args.get("after_round"))
    games = [{**game, "links": _game_links(game["id"])} for game in audit.games]
    return {"id": audit.id, "summary": audit.summary, "standings": audit.standings,
            "games": games, "discrepancies": audit.discrepancies, "final": audit.final,
            "settings": audit.settings,
            "open": matters_with_links(audit), "rounds": audit.rounds,
            "after_round": audit.after_round, "withdrawn": audit.withdrawn,
            "links": {"self": url_for("tournaments.get_tournament",
                                      tournament_id=tournament_id),
                      "report": url_for("tournaments.get_report",
                                        tournament_id=tournament_id),
                      "withdrawn": url_for("desk.get_withdrawn",
                                           tournament_id=tournament_id),
                      "settings": url_for("desk.get_settings",
                                          tournament_id=tournament_id),
                      "crosstable": url_for("tournaments.get_crosstable",
                                            tournament_id=tournament_id)}}


@blp.route("/<name:tournament_id>/crosstable", methods=["GET"],
           parameters=TOURNAMENT_PARAMETER)
@read_access_or_public
@blp.arguments(AuditArgsSchema, location="query", unknown=RAISE, error_status_code=400)
@blp.response(200, CrosstableSchema, example={
    "id": "spring", "after_round": None, "final": True, "tables": [{
        "variant": "gin", "better": "higher", "players": ["ana", "ben"], "rows": [
            {"player": "ana", "cells": [{"opponent": "ben", "games": 2, "won": 2, "lost": 0,
                                         "points": 412, "opponent_points": 96,
                                         "game_ids": [_G1, _G2]}]},
            {"player": "ben", "cells": [{"opponent": "ana", "games": 2, "won": 0, "lost": 2,
                                         "points": 96, "opponent_points": 412,
                                         "game_ids": [_G1, _G2]}]}]}]})
@problem_responses(blp, 400, 401, 403, 404)
@blp.doc(summary="Who played whom: each pair's games, wins and points over the games that "
                 "count", description=(
    "Over the games the verified standings count (re-entered tables held out, rulings "
    "applied), one table per standings table, its players in the standings' order; each "
    "row player's cells, one per opponent met at a counted game (a game of more than two "
    "players is a meeting of every pair at its table)."))
def get_crosstable(args: dict[str, Any], tournament_id: str) -> dict[str, Any]:
    audit = _audit(tournament_id, args.get("after_round"))
    return {"id": audit.id, "after_round": audit.after_round, "final": audit.final,
            "tables": crosstable(audit.games, audit.standings)}


@blp.route("/<name:tournament_id>/report.csv", methods=["GET"],
           parameters=TOURNAMENT_PARAMETER)
@read_access_or_public
@blp.arguments(AuditArgsSchema, location="query", unknown=RAISE, error_status_code=400)
@blp.response(200, content_type=CSV_TYPE, example=EXAMPLE_CSV, headers={
    "Content-Disposition": {"description": "attachment; filename=tournament-<id>.csv (ASCII), "
                                           "and filename*=UTF-8''<the id percent-encoded> "
                                           "when the id is not plain ASCII (RFC 6266)",
                            "schema": {"type": "string"}}},
    description="One table with a 'section' column (standings, games, discrepancies, "
                "open, withdrawn, restored), "
                "UTF-8 with a byte order mark")
@problem_responses(blp, 400, 401, 403, 404)
@blp.doc(summary="The tournament audit as CSV, for a spreadsheet", description=(
    "The figures of the JSON audit as one table with a 'section' column (standings, "
    "games: one row per game and player, discrepancies, open matters, withdrawn games, "
    "restorations of the desk's audit trail) and one header row. Text cells "
    "a spreadsheet would read as a formula start with an apostrophe."))
def get_report(args: dict[str, Any], tournament_id: str) -> Response:
    """The same figures as the JSON audit.  Text cells that a spreadsheet would take for
    a formula (starting with = + - @) are written with a leading apostrophe."""
    audit = _audit(tournament_id, args.get("after_round"))
    body = "\ufeff" + _csv(audit, withdrawn_by_round(
        withdrawn_games(current_store(), audit.id) or [], audit.after_round),
        withdrawn_by_round(restored_games(current_store(), audit.id), audit.after_round))
    response = Response(body.encode("utf-8"), mimetype=CSV_TYPE)
    response.headers["Content-Disposition"] = _disposition(audit.id)
    return response


# --------------------------------------------------------------------------- CSV

def _filename(tournament_id: str) -> str:
    """The ASCII name: accents dropped (Málaga: Malaga), anything else unsafe as _."""
    plain = unicodedata.normalize("NFKD", tournament_id).encode("ascii", "ignore").decode()
    safe = _UNSAFE_FILENAME.sub("_", plain).strip("._")[:64]
    return f"tournament-{safe or 'report'}.csv"


def _disposition(tournament_id: str) -> str:
    """RFC 6266: an ASCII ``filename`` for old clients and, when the id is not plain
    ASCII, ``filename*`` with the name in UTF-8, percent-encoded (RFC 8187), which
    clients that know it prefer.  Path separators and control characters never reach
    the name."""
    header = f"attachment; filename={_filename(tournament_id)}"
    name = _UNSAFE_UNICODE.sub("_", tournament_id).strip("._ ")[:64]
    full = f"tournament-{name or 'report'}.csv"
    if full != _filename(tournament_id):
        header += f"; filename*=UTF-8''{quote(full, safe='')}"
    return header


def _cell(value: Any) -> Any:
    """Booleans as true/false, nulls empty, text defused against formula injection."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def withdrawal_text(game: dict[str, Any]) -> str:
    """'withdrawn at <time> by <who> (<why>); replaced by game <id>', for people."""
    by = game["deleted_by"] or "an open write (no key)"
    text = f"withdrawn at {utc_text(game['deleted_at'])} by {by}"
    if game["reason"]:
        text += f" ({game['reason']})"
    if game["replaced_by"]:
        text += f"; replaced by game {game['replaced_by']}"
    return text


def restoration_text(game: dict[str, Any]) -> str:
    """'restored at <time> by <who> (<why>), undoing: withdrawn at ...', for people."""
    by = game["restored_by"] or "an open write (no key)"
    undone = withdrawal_text({**game, "reason": game["deleted_reason"]})
    return f"restored at {utc_text(game['restored_at'])} by {by} ({game['reason']}), " \
        f"undoing: {undone}"


def _game_detail(game: dict[str, Any], player: str) -> str:
    """How the game counts for ``player``: nothing, or the points credited (and a win),
    and why; the ruling's reason, who gave it and when."""
    if game["counted"]:
        won = ", credited a win" if player in game["credited_winners"] else ""
        text = f"credited {game['credited'].get(player, 0)}{won}: {game['basis']}"
    else:
        text = f"not counted: {game['basis']}"
    ruling = game["ruling"]
    if ruling is not None:
        by = ruling["by"] or "an open write (no key)"
        text += f"; ruling by {by} at {utc_text(ruling['at'])} ({ruling['reason']})"
    return text


def _csv(audit: TournamentAudit, withdrawn: list[dict[str, Any]],
         restored: list[dict[str, Any]]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=CSV_COLUMNS, lineterminator="\r\n")
    writer.writeheader()
    rows: list[dict[str, Any]] = []
    for table in audit.standings:
        order = standing_order(table)
        for row in table["players"]:
            rows.append({"section": "standings", "variant": table["variant"],
                         "player": row["player"], "rank": row["rank"],
                         "points": row["points"], "claimed_rank": row["claimed_rank"],
                         "claimed_points": row["claimed_points"], "games": row["games"],
                         "won": row["won"], "detail": order,
                         "match_points": row.get("match_points")})
    for game in audit.games:
        for player in game["players"]:
            rows.append({"section": "games", "variant": game["variant"],
                         "round": game["round"], "table": game["table"], "game": game["id"],
                         "status": game["status"], "counted": game["counted"],
                         "ruling": ruling_text(game["ruling"]), "winner": game["winner"],
                         "recomputed_leader": game["recomputed_leader"], "player": player,
                         "points": game["points"].get(player),
                         "claimed_points": game["claimed"].get(player),
                         "detail": _game_detail(game, player),
                         "verification": game["verification"],
                         "credited_points": game["credited"].get(player)
                         if game["counted"] else None,
                         "credited_winners": " ".join(game["credited_winners"])})
    for item in audit.discrepancies:
        rows.append({"section": "discrepancies", "variant": item["variant"],
                     "game": " ".join(item["games"]), "player": item["player"],
                     "rank": item["verified_rank"], "points": item["verified"],
                     "claimed_rank": item["claimed_rank"],
                     "claimed_points": item["claimed"], "kind": item["kind"],
                     "detail": item["detail"]})
    for matter in audit.open:
        rows.append({"section": "open", "round": matter["round"], "table": matter["table"],
                     "game": " ".join(matter["games"]), "kind": matter["kind"],
                     "detail": matter["detail"]})
    for game in withdrawn:
        rows.append({"section": "withdrawn", "variant": game["variant"],
                     "round": game["round"], "table": game["table"], "game": game["id"],
                     "status": game["status"], "counted": False,
                     "kind": "replaced" if game["replaced_by"] else "deleted",
                     "detail": withdrawal_text(game)})
    for game in restored:
        rows.append({"section": "restored", "variant": game["variant"],
                     "round": game["round"], "table": game["table"], "game": game["id"],
                     "status": game["status"], "kind": "restored",
                     "detail": restoration_text(game)})
    for row in rows:
        writer.writerow({column: _cell(row.get(column)) for column in CSV_COLUMNS})
    return out.getvalue()
