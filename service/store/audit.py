"""Tournament audit: verified standings beside the claimed ones, and the discrepancies.

The figures follow docs/STATISTICS.md ("Tournaments"):

* **Verified standings** sum ``game_players.points`` (the recomputed game totals, bonuses
  included) over the tournament's *counted* games: finished (``valid`` or ``mismatch``)
  and not illegal.
* **Claimed standings** sum ``game_players.claimed`` over every game of the tournament
  whose log claims a total for the player, whatever its verdict: they are the standings
  the logs assert, so an illegal or unfinished game that claims totals counts there and
  not in the verified standings - which is exactly what the audit should show.
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
  log uploaded again is another game: both stay until one is deleted), every illegal
  game (with its first violation), every
  ``SCORE_MISMATCH`` the engine reported (deal or game claims), and every player whose
  claimed total or claimed rank differs from the verified one (only players the logs
  claim a total for: no claim, nothing to contradict).

Every value from the request goes into the SQL as a parameter.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

from ..engine.words import plural, where
from .db import LIVE, RECOMPUTED_LEADER, RESULT_WINNER, Reader

ILLEGAL_GAME = "illegal_game"
SCORE_MISMATCH = "score_mismatch"
STANDING_DIFFERS = "standing_differs"
DUPLICATE_TABLE = "duplicate_table"
DISCREPANCY_KINDS = (ILLEGAL_GAME, SCORE_MISMATCH, STANDING_DIFFERS, DUPLICATE_TABLE)

HIGHER, LOWER = "higher", "lower"  # which total ranks first

_GAMES_SQL = f"""
SELECT id, variant, status, finished AND status <> 'illegal' AS counted,
       tournament_round AS round, tournament_table AS "table", players,
       {RESULT_WINNER} AS winner, {RECOMPUTED_LEADER} AS recomputed_leader,
       played_at, lower_wins
FROM games
WHERE tournament_id = ? AND id {LIVE}
ORDER BY tournament_round NULLS LAST, tournament_table NULLS LAST, seq
"""

_PLAYERS_SQL = f"""
SELECT game_id, player, points, claimed
FROM game_players
WHERE tournament_id = ? AND game_id {LIVE}
ORDER BY game_id, seat
"""

# One row per tournament, player and (variant, direction): verified and claimed totals
# side by side, each ranked within its table.  The sort key is negated when higher
# totals rank first.  ``{scope}`` picks the tournaments: one (a parameter) for an audit,
# a page of them for the list's discrepancy counts.
_STANDING_CTES = f"""
g AS (
    SELECT tournament_id, id, variant, finished AND status <> 'illegal' AS counted,
           lower_wins
    FROM games WHERE {{scope}} AND id {LIVE}
), gp AS (
    SELECT g.tournament_id, g.variant, g.lower_wins, g.counted, p.player, p.points,
           p.claimed, p.won
    FROM game_players p JOIN g ON g.id = p.game_id
), everyone AS (
    SELECT DISTINCT tournament_id, variant, lower_wins, player FROM gp
), verified AS (
    SELECT tournament_id, variant, lower_wins, player, CAST(sum(points) AS BIGINT) AS points,
           count(*) AS games, count(*) FILTER (WHERE won) AS won
    FROM gp WHERE counted GROUP BY ALL
), claimed AS (
    SELECT tournament_id, variant, lower_wins, player,
           CAST(sum(claimed) AS BIGINT) AS claimed_points, count(*) AS claimed_games
    FROM gp WHERE claimed IS NOT NULL GROUP BY ALL
), joined AS (
    SELECT e.tournament_id, e.variant, e.lower_wins, e.player, v.points,
           coalesce(v.games, 0) AS games, coalesce(v.won, 0) AS won, c.claimed_points,
           coalesce(c.claimed_games, 0) AS claimed_games
    FROM everyone e
    LEFT JOIN verified v USING (tournament_id, variant, lower_wins, player)
    LEFT JOIN claimed c USING (tournament_id, variant, lower_wins, player)
), ranked AS (
    SELECT tournament_id, variant, lower_wins, player,
           CASE WHEN points IS NOT NULL THEN rank() OVER (
               PARTITION BY tournament_id, variant, lower_wins, points IS NULL
               ORDER BY CASE WHEN lower_wins THEN points ELSE -points END) END AS rank,
           points, games, won,
           CASE WHEN claimed_points IS NOT NULL THEN rank() OVER (
               PARTITION BY tournament_id, variant, lower_wins, claimed_points IS NULL
               ORDER BY CASE WHEN lower_wins THEN claimed_points ELSE -claimed_points END)
           END AS claimed_rank,
           claimed_points, claimed_games
    FROM joined
)"""

_STANDINGS_SQL = "WITH " + _STANDING_CTES.format(scope="tournament_id = ?") + """
SELECT variant, lower_wins, player, rank, points, games, won, claimed_rank,
       claimed_points, claimed_games
FROM ranked
ORDER BY variant, lower_wins, rank NULLS LAST, claimed_rank NULLS LAST, player
"""

# The first violation of each illegal game (score mismatches are listed on their own),
# and how many there are.
_ILLEGAL_SQL = f"""
SELECT game_id, deal_no, move_no, player, code, message,
       count(*) OVER (PARTITION BY game_id) AS n_violations
FROM violations
WHERE tournament_id = ? AND code <> 'SCORE_MISMATCH'
  AND game_id IN (SELECT id FROM games WHERE tournament_id = ? AND status = 'illegal'
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
WHERE v.tournament_id = ? AND v.code = 'SCORE_MISMATCH' AND v.game_id {LIVE}
ORDER BY v.game_id, v.deal_no NULLS LAST, v.player NULLS LAST, v.message
"""


# A page of tournaments with their discrepancy counts, each counted as the audit lists
# them: illegal games, score mismatches, standings that differ, and tables claimed by
# two or more games.
_LIST_SQL = f"""
WITH page AS (
    SELECT tournament_id AS id, count(*) AS games,
           count(*) FILTER (WHERE finished AND status <> 'illegal') AS counted,
           count(*) FILTER (WHERE status = 'illegal') AS illegal,
           count(*) FILTER (WHERE status = 'mismatch') AS mismatch,
           min(game_time) AS first_game_time, max(game_time) AS last_game_time,
           list(DISTINCT variant ORDER BY variant) AS variants
    FROM games
    WHERE tournament_id IS NOT NULL AND id {LIVE} AND (? IS NULL OR tournament_id > ?)
    GROUP BY tournament_id
    ORDER BY tournament_id
    LIMIT ?),
""" + _STANDING_CTES.format(scope="tournament_id IN (SELECT id FROM page)") + f""",
standing AS (
    SELECT tournament_id AS id, count(*) AS n FROM ranked
    WHERE claimed_points IS NOT NULL
      AND (claimed_points IS DISTINCT FROM points OR claimed_rank IS DISTINCT FROM rank)
    GROUP BY ALL
), mismatched AS (
    SELECT v.tournament_id AS id, count(*) AS n
    FROM violations v JOIN games ON games.id = v.game_id
    WHERE v.tournament_id IN (SELECT id FROM page) AND v.code = 'SCORE_MISMATCH'
      AND v.game_id {LIVE}
    GROUP BY ALL
), tables AS (
    SELECT tournament_id AS id, count(*) AS n FROM (
        SELECT tournament_id FROM games
        WHERE tournament_id IN (SELECT id FROM page) AND id {LIVE}
          AND tournament_round IS NOT NULL AND tournament_table IS NOT NULL
        GROUP BY tournament_id, tournament_round, tournament_table
        HAVING count(*) > 1)
    GROUP BY ALL
)
SELECT page.id, games, counted, illegal, mismatch,
       illegal + coalesce(mismatched.n, 0) + coalesce(standing.n, 0)
           + coalesce(tables.n, 0) AS discrepancies,
       first_game_time, last_game_time, variants,
       (SELECT count(DISTINCT player) FROM game_players
        WHERE tournament_id = page.id AND game_id {LIVE}) AS players
FROM page
LEFT JOIN standing USING (id) LEFT JOIN mismatched USING (id) LEFT JOIN tables USING (id)
ORDER BY page.id
"""


def list_tournaments(store: Reader, limit: int,
                     after: str | None = None) -> list[dict[str, Any]]:
    """Tournaments by id (games not deleted): games, counted games, illegal games,
    games with wrong claims, the audit's discrepancies, the first and last game time
    (played, else uploaded), the variants, the players; ``after`` is the last id of the
    previous page (keyset)."""
    with store.cursor() as cur:
        rows = cur.execute(_LIST_SQL, [after, after, limit]).fetchall()
    names = ("id", "games", "counted", "illegal", "mismatch", "discrepancies",
             "first_game_time",
             "last_game_time", "variants", "players")
    return [dict(zip(names, row, strict=True)) for row in rows]


@dataclass
class TournamentAudit:
    """What GET /tournaments/{id} answers, as plain data (the API shapes it)."""

    id: str
    games: list[dict[str, Any]] = field(default_factory=list)
    standings: list[dict[str, Any]] = field(default_factory=list)
    discrepancies: list[dict[str, Any]] = field(default_factory=list)

    @property
    def summary(self) -> dict[str, int]:
        """Games by verdict, and how many count for the verified standings."""
        out = {"games": len(self.games),
               "counted": sum(1 for game in self.games if game["counted"])}
        for status in ("valid", "mismatch", "illegal", "incomplete"):
            out[status] = sum(1 for game in self.games if game["status"] == status)
        return out


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


def tournament_audit(store: Reader, tournament_id: str) -> TournamentAudit | None:
    """The audit of one tournament, or None when no stored game belongs to it.  Its
    five statements are read from one snapshot (``read_many``): the standings and the
    discrepancies are those of the games listed, whatever is committed meanwhile."""
    games, players, standing_rows, illegal, mismatches = (
        result.dicts() for result in store.read_many([
            (_GAMES_SQL, [tournament_id]),
            (_PLAYERS_SQL, [tournament_id]),
            (_STANDINGS_SQL, [tournament_id]),
            (_ILLEGAL_SQL, [tournament_id, tournament_id]),
            (_MISMATCH_SQL, [tournament_id]),
        ]))
    if not games:
        return None

    by_game: dict[str, list[dict[str, Any]]] = {}
    for row in players:
        by_game.setdefault(row["game_id"], []).append(row)
    for game in games:
        seats = by_game.get(game["id"], [])
        game["points"] = {row["player"]: row["points"] for row in seats}
        game["claimed"] = {row["player"]: row["claimed"] for row in seats}

    audit = TournamentAudit(tournament_id, games)
    audit.standings = _standings(games, standing_rows)
    audit.discrepancies = (_duplicate_tables(games)
                           + _game_discrepancies(games, illegal, mismatches)
                           + _standing_discrepancies(audit.standings))
    return audit


def _standings(games: list[dict[str, Any]],
               rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows grouped into one table per (variant, direction), in the SQL's order."""
    tables: dict[tuple[str, bool], dict[str, Any]] = {}
    for row in rows:
        key = (row.pop("variant"), row.pop("lower_wins"))
        if key not in tables:
            counted = sum(1 for game in games if game["counted"]
                          and (game["variant"], game["lower_wins"]) == key)
            tables[key] = {"variant": key[0], "better": LOWER if key[1] else HIGHER,
                           "games": counted, "players": []}
        tables[key]["players"].append(row)
    return list(tables.values())


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
                  + ", ".join(f"{game['id']} ({game['status']}, "
                              f"{'counted' if game['counted'] else 'not counted'})"
                              for game in claimants)
                  + "; a re-upload of an edited log is another game: delete the wrong one")
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
    detail += "; it counts for no verified standing"
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
