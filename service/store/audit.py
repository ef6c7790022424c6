"""Tournament audit: verified standings beside the claimed ones, and the discrepancies.

The figures follow docs/STATISTICS.md ("Tournaments"):

* **Verified standings** sum, over the tournament's *counted* games, the points each
  game credits: what counts is decided in one place, ``counting`` (duplicate tables
  held out, rulings applied); without a ruling a finished legal game credits its
  recomputed game totals (``game_players.points``, bonuses included).
* **Claimed standings** are the standings as the logs claim them, over the same
  counted games: a claimed total where the log claims one, the credited points where it
  does not or where a ruling settled the game (``counting.claimed``), ranked by the
  same ranking.  A game that counts for nothing adds to neither side: it is a matter of
  its own, and a settled tournament's two standings compare like with like.
* **Standings are kept apart by variant and scoring direction.** Totals of different
  variants are on different scales (a gin game is worth hundreds, a greek deal a few
  penalty points), and under ``penalty`` scoring (Rummy family) the *lower* total is
  better.  Each (variant, direction) pair is therefore ranked on its own; a tournament
  of one variant, the usual case, has one table.  Combining tables of different variants
  into one prize list is the tournament director's call, not the auditor's.
* Ranks are competition ranks ("1224"): players with equal totals share the best rank.
  A player with no counted game has no verified rank; one with no claimed total has no
  claimed rank.
* **Discrepancies**: two or more games claiming the same round and table (an edited
  log uploaded again is another game: none counts until one is withdrawn), every illegal
  game (with its first violation), every
  ``SCORE_MISMATCH`` the engine reported (deal or game claims), and every player whose
  claimed total or claimed rank differs from the verified one (only players the logs
  claim a total for: no claim, nothing to contradict).

Every value from the request goes into the SQL as a parameter.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import orjson

from ..engine.words import plural, where
from . import counting, schedule
from .db import LIVE, RECOMPUTED_LEADER, RESULT_WINNER, VERIFICATION, Reader

ILLEGAL_GAME = "illegal_game"
SCORE_MISMATCH = "score_mismatch"
STANDING_DIFFERS = "standing_differs"
DUPLICATE_TABLE = "duplicate_table"
DISCREPANCY_KINDS = (ILLEGAL_GAME, SCORE_MISMATCH, STANDING_DIFFERS, DUPLICATE_TABLE)

HIGHER, LOWER = "higher", "lower"  # which total ranks first

# ``{scope}``: which tournaments, a SQL condition on ``tournament_id`` with parameters
# of its own (one tournament for an audit, a page of them for the list).
_GAMES_SQL = f"""
SELECT tournament_id, id, variant, status, {VERIFICATION} AS verification, finished,
       finished AND status <> 'illegal' AS legal_result,
       tournament_round AS round, tournament_table AS "table", players,
       {RESULT_WINNER} AS winner, {RECOMPUTED_LEADER} AS recomputed_leader,
       played_at, lower_wins
FROM games
WHERE {{scope}} AND id {LIVE}
ORDER BY tournament_id, tournament_round NULLS LAST, tournament_table NULLS LAST, seq
"""

_PLAYERS_SQL = f"""
SELECT game_id, player, points, claimed, won, team
FROM game_players
WHERE {{scope}} AND game_id {LIVE}
ORDER BY game_id, seat
"""

# The last ruling of each game (in force unless withdrawn).
_RULINGS_SQL = f"""
SELECT game_id, n, ruling, against, reason, ruled_by, ruled_at, withdrawn_at
FROM rulings
WHERE game_id IN (SELECT id FROM games WHERE {{scope}} AND id {LIVE})
QUALIFY row_number() OVER (PARTITION BY game_id ORDER BY n DESC) = 1
"""

# The scored deals' points of the games ruled forfeit or to the violation: what those
# rulings credit is the deals before the irregularity (``counting``).
_EARLY_SQL = f"""
SELECT game_id, deal_no, player, points
FROM deal_players
WHERE {{scope}} AND scored AND game_id {LIVE}
  AND game_id IN (SELECT game_id FROM rulings WHERE ruling IN ('forfeit', 'to_violation')
                  AND withdrawn_at IS NULL)
"""

# The first violation of each illegal game (score mismatches are listed on their own),
# and how many there are.
_ILLEGAL_SQL = f"""
SELECT game_id, deal_no, move_no, player, code, message,
       count(*) OVER (PARTITION BY game_id) AS n_violations
FROM violations
WHERE {{scope}} AND code <> 'SCORE_MISMATCH'
  AND game_id IN (SELECT id FROM games WHERE {{scope}} AND status = 'illegal'
                  AND id {LIVE})
QUALIFY row_number() OVER (PARTITION BY game_id
                           ORDER BY deal_no NULLS LAST, move_no NULLS FIRST) = 1
"""

# Score mismatches with the figures they compare: a game total's claim and recomputed
# value from game_players; a deal's recomputed points from deal_players and its claimed
# points from the stored report (the deal's `claimed.points` object).
_MISMATCH_SQL = f"""
SELECT v.game_id, v.deal_no, v.player, v.message, gp.claimed AS game_claimed,
       gp.points AS game_points, dp.points AS deal_points,
       CASE WHEN v.deal_no IS NOT NULL AND v.player IS NOT NULL THEN
           json_extract(g.report, '$.deals[' || v.deal_no || '].claimed.points') END
           AS deal_claims
FROM violations v
JOIN games g ON g.id = v.game_id
LEFT JOIN game_players gp
       ON v.deal_no IS NULL AND gp.game_id = v.game_id AND gp.player = v.player
LEFT JOIN deal_players dp
       ON dp.game_id = v.game_id AND dp.deal_no = v.deal_no AND dp.player = v.player
WHERE v.{{scope}} AND v.code = 'SCORE_MISMATCH' AND v.game_id {LIVE}
ORDER BY v.game_id, v.deal_no NULLS LAST, v.player NULLS LAST, v.message
"""

_SETTINGS_SQL = """
SELECT tournament_id, settings FROM tournament_settings WHERE {scope}
"""

_ONE = "tournament_id = ?"

# How many of a tournament's games were withdrawn (deleted or replaced): a tournament
# whose every game was withdrawn is still audited, with no games and no standings.
_WITHDRAWN_SQL = """
SELECT count(*) AS n FROM games
WHERE tournament_id = ? AND id IN (SELECT game_id FROM deletions)
"""

# A page of tournaments: their ids (a tournament whose every game was withdrawn is
# listed too, as its audit is), then what the list shows that the audit does not (the
# first and last game time, the variants and the players, of its live games).
_PAGE = """(SELECT tournament_id FROM games
    WHERE tournament_id IS NOT NULL AND (? IS NULL OR tournament_id > ?)
    GROUP BY tournament_id ORDER BY tournament_id LIMIT ?)"""
_PAGE_SCOPE = f"tournament_id IN {_PAGE}"

_LIST_SQL = f"""
SELECT tournament_id AS id, min(game_time) FILTER (WHERE live) AS first_game_time,
       max(game_time) FILTER (WHERE live) AS last_game_time,
       coalesce(list(DISTINCT variant ORDER BY variant) FILTER (WHERE live),
                []::VARCHAR[]) AS variants,
       (SELECT count(DISTINCT player) FROM game_players p
        WHERE p.tournament_id = g.tournament_id AND p.game_id {LIVE}) AS players
FROM (SELECT tournament_id, game_time, variant, id {LIVE} AS live
      FROM games WHERE {_PAGE_SCOPE}) g
GROUP BY tournament_id
ORDER BY tournament_id
"""


def list_tournaments(store: Reader, limit: int,
                     after: str | None = None) -> list[dict[str, Any]]:
    """Tournaments by id (games not deleted): games, counted games, illegal games,
    games with wrong claims, the audit's discrepancies and open matters, whether its
    standings are final, the first and last game time (played, else uploaded), the
    variants, the players; ``after`` is the last id of the previous page (keyset).
    Read from one snapshot, with the audits of the page's tournaments."""
    page = [after, after, limit]
    rows, *results = store.read_many(
        [(_LIST_SQL, page), *_statements(_PAGE_SCOPE, page)])
    audits = _audits([result.dicts() for result in results])
    out = []
    for row in rows.dicts():
        audit = audits.get(row["id"]) or TournamentAudit(row["id"])  # every game withdrawn
        summary = audit.summary
        out.append({"id": row["id"], "games": summary["games"], "counted": summary["counted"],
                    "illegal": summary["illegal"], "mismatch": summary["mismatch"],
                    "discrepancies": len(audit.discrepancies), "open": len(audit.open),
                    "final": audit.final, "first_game_time": row["first_game_time"],
                    "last_game_time": row["last_game_time"], "variants": row["variants"],
                    "players": row["players"]})
    return out


def _statements(scope: str, params: list[Any]) -> list[tuple[str, list[Any]]]:
    """The audit's statements over the tournaments ``scope`` picks."""
    return [(_GAMES_SQL.format(scope=scope), params),
            (_PLAYERS_SQL.format(scope=scope), params),
            (_RULINGS_SQL.format(scope=scope), params),
            (_EARLY_SQL.format(scope=scope), params),
            (_ILLEGAL_SQL.format(scope=scope), params + params),
            (_MISMATCH_SQL.format(scope=scope), params),
            (_SETTINGS_SQL.format(scope=scope), params)]


@dataclass
class TournamentAudit:
    """What GET /tournaments/{id} answers, as plain data (the API shapes it)."""

    id: str
    games: list[dict[str, Any]] = field(default_factory=list)
    standings: list[dict[str, Any]] = field(default_factory=list)
    discrepancies: list[dict[str, Any]] = field(default_factory=list)
    open: list[dict[str, Any]] = field(default_factory=list)
    settings: dict[str, Any] | None = None  # as stored (PUT /tournaments/{id}/settings)
    rounds: list[int] = field(default_factory=list)  # every round a game names
    after_round: int | None = None  # the audit as it stood after this round
    withdrawn: int = 0  # games withdrawn (deleted or replaced); set by tournament_audit

    @property
    def final(self) -> bool:
        """True when no matter is open: the standings can be published."""
        return not self.open

    @property
    def summary(self) -> dict[str, int]:
        """Games by verdict, and how many count for the verified standings."""
        out = {"games": len(self.games),
               "counted": sum(1 for game in self.games if game["counted"])}
        for status in ("valid", "mismatch", "illegal", "incomplete"):
            out[status] = sum(1 for game in self.games if game["status"] == status)
        return out

    @property
    def rulings(self) -> list[dict[str, Any]]:
        """The games with a ruling in force, in the order of the games."""
        return [game for game in self.games if game["ruling"] is not None]


def _where(game: dict[str, Any]) -> str:
    """'round 2, table A' (or what of it the log gave), for the human-readable details."""
    parts = []
    if game.get("round") is not None:
        parts.append(f"round {game['round']}")
    if game.get("table") is not None:
        parts.append(f"table {game['table']}")
    return f" ({', '.join(parts)})" if parts else ""


def _rank_text(rank: int | None) -> str:
    return f"rank {rank}" if rank is not None else "unranked"


def tournament_audit(store: Reader, tournament_id: str,
                     after_round: int | None = None) -> TournamentAudit | None:
    """The audit of one tournament, or None when no game, live or withdrawn, ever
    belonged to it (a tournament whose every game was withdrawn is audited, with no
    games and no standings, and ``withdrawn`` counting them).  Its
    statements are read from one snapshot (``read_many``): the standings and the
    discrepancies are those of the games listed, whatever is committed meanwhile.
    ``after_round``: the audit as it stood after that round, over the games of rounds
    up to it (games naming no round left out), as if the later ones were not stored."""
    *rows, withdrawn = [result.dicts() for result in store.read_many(
        [*_statements(_ONE, [tournament_id]), (_WITHDRAWN_SQL, [tournament_id])])]
    if not rows[0] and not withdrawn[0]["n"]:
        return None  # no game, live or withdrawn, ever named it
    rounds = sorted({game["round"] for game in rows[0] if game["round"] is not None})
    settings = [orjson.loads(row["settings"]) for row in rows[-1]]
    audit = _audits(rows, after_round).get(tournament_id) or TournamentAudit(
        tournament_id, settings=settings[0] if settings else None)
    audit.rounds, audit.after_round = rounds, after_round
    audit.withdrawn = withdrawn[0]["n"]
    return audit


_ORDER_WORDS = {"wins": "most wins", "match_points": "most match points",
                "head_to_head": "head to head", "points_difference": "points difference"}


def standing_order(table: dict[str, Any]) -> str:
    """How a standings table is ranked, in words: "higher total ranks first" by
    default; else the ranking and its tie-breaks ("ranked by most match points, ties
    broken by head to head, then higher total points")."""
    ranking, breaks = table.get("ranking"), table.get("tie_breaks") or []
    total = f"{table['better']} total"
    if not ranking or (ranking == "points" and not breaks):
        return f"{total} ranks first"
    words = {**_ORDER_WORDS, "points": f"{total} points"}
    text = f"ranked by {words.get(ranking, ranking)}"
    if breaks:
        text += ", ties broken by " + ", then ".join(words.get(b, b) for b in breaks)
    return text


def ruling_text(ruling: dict[str, Any] | None) -> str | None:
    """'forfeit against ana', 'void', ... (None without a ruling)."""
    if ruling is None:
        return None
    text = ruling["ruling"]
    if ruling.get("against") is not None:
        text += f" against {ruling['against']}"
    return text


def _audits(results: list[list[dict[str, Any]]],
            after_round: int | None = None) -> dict[str, TournamentAudit]:
    """The audits of the tournaments whose rows ``results`` holds (the statements of
    ``_statements``, in order), by id; ``after_round`` as ``tournament_audit``."""
    games, players, rulings, early, illegal, mismatches, settings = results
    configured = {row["tournament_id"]: orjson.loads(row["settings"]) for row in settings}
    today = datetime.now(UTC).date()  # a schedule's rounds are over after the last day
    if after_round is not None:
        games = [game for game in games
                 if game["round"] is not None and game["round"] <= after_round]
    by_game: dict[str, list[dict[str, Any]]] = {}
    for row in players:
        by_game.setdefault(row["game_id"], []).append(row)
    ruled = {row["game_id"]: row for row in rulings if row["withdrawn_at"] is None}
    first = {row["game_id"]: row for row in illegal}
    deals: dict[str, list[dict[str, Any]]] = {}
    for row in early:
        deals.setdefault(row["game_id"], []).append(row)
    per_tournament: dict[str, list[dict[str, Any]]] = {}
    for game in games:
        per_tournament.setdefault(game.pop("tournament_id"), []).append(game)
    out = {}
    for tid, its_games in per_tournament.items():
        facts = []
        for game in its_games:
            seats = by_game.get(game["id"], [])
            game["points"] = {row["player"]: row["points"] for row in seats}
            game["claimed"] = {row["player"]: row["claimed"] for row in seats}
            ruling = ruled.get(game["id"])
            game["ruling"] = None if ruling is None else {
                "ruling": ruling["ruling"], "against": ruling["against"],
                "reason": ruling["reason"], "by": ruling["ruled_by"],
                "at": ruling["ruled_at"]}
            facts.append(_facts(game, seats, ruling, first.get(game["id"]),
                                deals.get(game["id"], [])))
        slots = schedule.slots_of(configured.get(tid), after_round)
        off = frozenset(game.id for game in schedule.off_schedule(facts, slots))
        counts = counting.count_games(facts, off)
        for game in its_games:
            count = counts[game["id"]]
            game.update(counted=count.counted, credited=count.points,
                        credited_winners=count.winners, basis=count.basis)
            game.pop("legal_result")
        audit = TournamentAudit(tid, its_games, settings=configured.get(tid))
        ranking = counting.ranking_of(audit.settings or {})
        audit.standings = _standings(counting.standings(
            [(game["variant"], fact) for game, fact in zip(its_games, facts, strict=True)],
            counts, ranking), ranking)
        ids = {game["id"] for game in its_games}
        audit.discrepancies = (
            _duplicate_tables(its_games)
            + _game_discrepancies(its_games, [row for row in illegal if row["game_id"] in ids],
                                  [row for row in mismatches if row["game_id"] in ids])
            + _standing_discrepancies(audit.standings))
        audit.open = counting.matters(facts) + schedule.matters(
            facts, slots, schedule.ended(audit.settings, today))
        out[tid] = audit
    return out


def _facts(game: dict[str, Any], seats: list[dict[str, Any]], ruling: dict[str, Any] | None,
           violation: dict[str, Any] | None,
           deals: list[dict[str, Any]]) -> counting.GameFacts:
    """What counting needs of a game: its seats with the points of the deals finished
    before the irregularity (the first violation's deal of an illegal game; every scored
    deal otherwise)."""
    cutoff: float = float("inf")
    if game["status"] == "illegal":
        cutoff = 0 if violation is None or violation["deal_no"] is None \
            else violation["deal_no"]
    early: dict[str, int] = {}
    for row in deals:
        if row["deal_no"] < cutoff:
            early[row["player"]] = early.get(row["player"], 0) + row["points"]
    return counting.GameFacts(
        id=game["id"], status=game["status"], finished=game["finished"],
        round=game["round"], table=game["table"], lower_wins=game["lower_wins"],
        seats=[counting.Seat(row["player"], row["points"], row["won"], row["claimed"],
                             row["team"], early.get(row["player"], 0)) for row in seats],
        ruling=None if ruling is None else ruling["ruling"],
        against=None if ruling is None else ruling["against"])


def _standings(tables: list[dict[str, Any]],
               ranking: counting.Ranking) -> list[dict[str, Any]]:
    """The tables of ``counting.standings`` as the audit shows them; with a ranking
    other than the default, each says which."""
    out = []
    for table in tables:
        shown = {"variant": table["variant"],
                 "better": LOWER if table["lower_wins"] else HIGHER,
                 "games": table["games"], "players": table["players"]}
        if not ranking.is_default:
            shown["ranking"] = ranking.kind
            shown["tie_breaks"] = list(ranking.tie_breaks)
        out.append(shown)
    return out


def _duplicate_tables(games: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Two or more games (not deleted) claiming the same round and table: one
    discrepancy per table, naming every game in upload order (the first in ``game``).
    Only games that name both their round and their table claim one."""
    slots: dict[tuple[int, str], list[dict[str, Any]]] = {}
    for game in games:  # listed by round, table, then upload order
        if game["round"] is not None and game["table"] is not None:
            slots.setdefault((game["round"], game["table"]), []).append(game)
    out = []
    for (round_, table), claimants in slots.items():
        if len(claimants) < 2:
            continue
        ids = [game["id"] for game in claimants]
        variants = {game["variant"] for game in claimants}
        detail = (f"{len(ids)} games claim round {round_}, table {table}: "
                  + ", ".join(f"{game['id']} ({game['status']})" for game in claimants)
                  + "; none of them counts until one is left: a re-upload of an edited "
                    "log is another game, withdraw the wrong one (delete or replace it)")
        out.append(_discrepancy(DUPLICATE_TABLE, ids[0], None, detail,
                                variant=variants.pop() if len(variants) == 1 else None,
                                games=ids))
    return out


def _game_discrepancies(games: list[dict[str, Any]], illegal: list[dict[str, Any]],
                        mismatches: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Illegal games and score mismatches, in the order the games are listed."""
    first = {row["game_id"]: row for row in illegal}
    by_game: dict[str, list[dict[str, Any]]] = {}
    for row in mismatches:
        by_game.setdefault(row["game_id"], []).append(row)
    out: list[dict[str, Any]] = []
    for game in games:
        gid = game["id"]
        if game["status"] == "illegal":
            out.append(_illegal(game, first.get(gid)))
        for row in by_game.get(gid, []):
            out.append(_mismatch(game, row))
    return out


def _illegal(game: dict[str, Any], violation: dict[str, Any] | None) -> dict[str, Any]:
    detail = f"game {game['id']}{_where(game)} is illegal"
    player = deal = move = None
    if violation is not None:
        player, deal, move = violation["player"], violation["deal_no"], violation["move_no"]
        detail += f": {violation['code']}"
        if violation["deal_no"] is not None:
            detail += " at " + where(violation["deal_no"], violation["move_no"])
        detail += f" ({violation['message']})"
        if violation["n_violations"] > 1:
            detail += f" and {plural(violation['n_violations'] - 1, 'more violation')}"
    if game["ruling"] is not None:
        detail += f"; ruling: {ruling_text(game['ruling'])} ({game['basis']})"
    else:
        detail += "; it counts for no verified standing until ruled"
    return _discrepancy(ILLEGAL_GAME, game["id"], player, detail, variant=game["variant"],
                        deal=deal, move=move)


def _mismatch(game: dict[str, Any], row: dict[str, Any]) -> dict[str, Any]:
    claimed = verified = None
    player = row["player"]
    if row["deal_no"] is None and player is not None:
        claimed, verified = row["game_claimed"], row["game_points"]
    elif row["deal_no"] is not None and player is not None:
        claims = orjson.loads(row["deal_claims"]) if row["deal_claims"] else {}
        value = claims.get(player) if isinstance(claims, dict) else None
        claimed = value if isinstance(value, int) and not isinstance(value, bool) else None
        verified = row["deal_points"] if row["deal_points"] is not None else 0
    deal = f"{where(row['deal_no'], None)}: " if row["deal_no"] is not None else ""
    detail = f"game {game['id']}{_where(game)}: {deal}{row['message']}"
    return _discrepancy(SCORE_MISMATCH, game["id"], player, detail, claimed, verified,
                        variant=game["variant"], deal=row["deal_no"])


def _standing_discrepancies(tables: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Players whose claimed total or rank is not the verified one."""
    out = []
    for table in tables:
        for row in table["players"]:
            if row["claimed_points"] is None:
                continue
            if (row["claimed_points"], row["claimed_rank"]) == (row["points"], row["rank"]):
                continue
            verified = ("no counted game" if row["points"] is None else
                        f"{row['points']} ({_rank_text(row['rank'])}, "
                        f"{plural(row['games'], 'counted game')})")
            detail = (f"{row['player']} ({table['variant']}): claimed "
                      f"{row['claimed_points']} ({_rank_text(row['claimed_rank'])}, "
                      f"{plural(row['claimed_games'], 'game')} with a claimed total), "
                      f"verified {verified}")
            out.append(_discrepancy(STANDING_DIFFERS, None, row["player"], detail,
                                    row["claimed_points"], row["points"],
                                    row["claimed_rank"], row["rank"], table["variant"]))
    return out


def _discrepancy(kind: str, game: str | None, player: str | None, detail: str,
                 claimed: int | None = None, verified: int | None = None,
                 claimed_rank: int | None = None, verified_rank: int | None = None,
                 variant: str | None = None, games: list[str] | None = None,
                 deal: int | None = None, move: int | None = None) -> dict[str, Any]:
    """One discrepancy; ``deal`` and ``move`` (0-based, as in reports) say where in
    ``game`` it is: an illegal game's first violation, a wrong deal claim's deal."""
    if games is None:
        games = [game] if game is not None else []
    return {"kind": kind, "game": game, "games": games, "player": player,
            "deal": deal, "move": move,
            "variant": variant, "detail": detail, "claimed": claimed, "verified": verified,
            "claimed_rank": claimed_rank, "verified_rank": verified_rank}
