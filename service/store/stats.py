"""Player, leaderboard, head-to-head and variant statistics: SQL over the stored tables.

docs/STATISTICS.md defines every figure.  User values only ever reach DuckDB as query
parameters; sort keys and directions come from fixed tables, never from the request.
A figure folded from several statements reads them with ``read_many``, from one
snapshot (the rule of ``StoreReads``); the folding still takes any variant it meets.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..engine.rules import GIN, PRESETS
from .db import VERIFICATION, Reader, live
from .luck_sql import luck_ctes
from .rating_reads import caught_up
from .snapshots import Walk, page_rows

RUMMY_FIGURES = ("won_out", "won_rummy", "won_blocked", "avg_hand_left_when_losing")
GIN_FIGURES = ("gins", "knocks", "knocks_won", "undercuts_made", "undercuts_suffered",
               "avg_deadwood_at_knock", "boxes", "shutouts")
SORT_KEYS = {"wins": "wins", "win_rate": "win_rate", "points_per_deal": "points_per_deal",
             "games": "games", "rating": "rating", "accuracy": "accuracy",
             "discard_error": "discard_error", "errors": "errors", "luck": "luck",
             "luck_adjusted": "luck_adjusted", "decision_loss": "decision_loss",
             "decision_accuracy": "decision_accuracy"}
# The keys of the move analysis (docs/ANALYSIS.md): sorted on, they list only the players
# that have the figure (analysed decisions; for luck, scored deals whose luck is stored).
ANALYSIS_SORT_KEYS = {"accuracy": "a.decisions > 0", "discard_error": "a.decisions > 0",
                      "errors": "a.decisions > 0", "luck": "a.luck_deals > 0",
                      "luck_adjusted": "a.luck_deals > 0", "decision_loss": "a.judged > 0",
                      "decision_accuracy": "a.judged > 0"}
# Every fact of an analysis row but fed cards (the kinds of ``analysis.facts.ERRORS``).
_ERROR_COLUMNS = ("missed_gin + missed_knock + knock_into_undercut + discard_error + "
                  "missed_layoff + missed_out + missed_rummy")
ORDERS = {"asc": "ASC", "desc": "DESC"}
RECENT_GAMES = 10


@dataclass(frozen=True, slots=True)
class StatsFilter:
    variant: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    tournament: str | None = None


def _where(flt: StatsFilter, alias: str = "") -> tuple[str, list[Any]]:
    """Filter clauses on the denormalised columns every statistics table carries, deleted
    games left out."""
    prefix = f"{alias}." if alias else ""
    clauses, params = [live(f"{prefix}game_id")], []
    for column, value in (("variant", flt.variant), ("tournament_id", flt.tournament)):
        if value is not None:
            clauses.append(f"{prefix}{column} = ?")
            params.append(value)
    if flt.since is not None:
        clauses.append(f"{prefix}game_time >= ?")
        params.append(flt.since)
    if flt.until is not None:
        clauses.append(f"{prefix}game_time < ?")
        params.append(flt.until)
    return "".join(f" AND {c}" for c in clauses), params


RATE_PLACES = 4  # win rates and shares
MEAN_PLACES = 2  # points per deal and every mean


def ratio(part: int, whole: int, places: int) -> float:
    """``part / whole`` to ``places`` decimals, rounded half away from zero on the exact
    quotient of the two integers (never on a binary float: 16.625 is 16.63, 1.005 is
    1.01); 0.0 when ``whole`` is 0.  :func:`ratio_sql` is the same rule in SQL."""
    if not whole:
        return 0.0
    scale = 10 ** places
    # floor(|part| * scale / |whole| + 1/2), in integers
    units = (abs(part) * scale * 2 + abs(whole)) // (2 * abs(whole))
    return (-units if (part < 0) != (whole < 0) else units) / scale


def ratio_sql(part: str, whole: str, places: int) -> str:
    """:func:`ratio` as a SQL expression of two integer expressions of this package
    (``whole`` never negative: a count); integer arithmetic until the last division."""
    scale = 10 ** places
    return (f"CASE WHEN {whole} > 0 THEN CAST(sign({part}) * ((abs({part}) * {2 * scale} "
            f"+ {whole}) // (2 * {whole})) AS DOUBLE) / {scale} ELSE 0 END")


def _rate(part: int, whole: int) -> float:
    return ratio(part, whole, RATE_PLACES)


def _mean(total: int, count: int) -> float | None:
    """The mean of ``count`` values summing to ``total``; None when there is none."""
    return ratio(total, count, MEAN_PLACES) if count else None


def player_stats(store: Reader, player: str, flt: StatsFilter) -> dict[str, dict[str, Any]]:
    """Every figure of one player, by variant; empty when the player has no game.

    Each table is read once, grouped by the few columns the figures depend on (a
    handful of groups); the figures are folded from those groups here."""
    where, params = _where(flt)
    games, deals, violations = (result.rows for result in store.read_many([
        ("SELECT variant, finished, won, lost, count(*), coalesce(sum(shutouts), 0) "
         f"FROM game_players WHERE player = ?{where} GROUP BY ALL", [player, *params]),
        ("SELECT variant, outcome, won, is_knocker, count(*), sum(points), sum(conceded), "
         f"sum(hand_value) FROM deal_players WHERE player = ? AND scored{where} "
         "GROUP BY ALL", [player, *params]),
        ("SELECT variant, code, count(*) FROM violations "
         f"WHERE player = ? AND code <> 'SCORE_MISMATCH'{where} "
         "GROUP BY variant, code ORDER BY variant, code", [player, *params]),
    ]))
    out: dict[str, dict[str, Any]] = {}
    sums: dict[str, dict[str, int]] = {}

    def entry(variant: str) -> dict[str, Any]:
        if variant not in out:
            figures = {"games": 0, "won": 0, "lost": 0, "win_rate": 0.0, "deals": 0,
                       "deals_won": 0, "points_scored": 0, "points_conceded": 0,
                       "points_per_deal": 0.0}
            if PRESETS[variant].family == GIN:
                figures |= dict.fromkeys(GIN_FIGURES, 0) | {"avg_deadwood_at_knock": None}
            else:
                figures |= dict.fromkeys(RUMMY_FIGURES, 0) | {
                    "avg_hand_left_when_losing": None}
            out[variant] = figures | {"violations": {}}
            sums[variant] = {"lost_deals": 0, "lost_hands": 0, "knocks": 0, "deadwood": 0}
        return out[variant]

    for variant, finished, won, lost, n, shutouts in games:
        figures = entry(variant)
        figures["games"] += n if finished else 0
        figures["won"] += n if won else 0
        figures["lost"] += n if lost else 0
        if "shutouts" in figures:
            figures["shutouts"] += int(shutouts)
    for variant, outcome, won, knocker, n, points, conceded, hands in deals:
        figures = entry(variant)
        tally = sums[variant]
        figures["deals"] += n
        figures["points_scored"] += int(points)
        figures["points_conceded"] += int(conceded)
        if won:
            figures["deals_won"] += n
            key = {"out": "won_out", "rummy": "won_rummy", "blocked": "won_blocked",
                   "gin": "gins", "knock": "knocks_won",
                   "undercut": "undercuts_made"}.get(outcome)
            if key in figures:
                figures[key] += n
        else:
            tally["lost_deals"] += n
            tally["lost_hands"] += int(hands)
        if knocker and outcome != "gin":
            tally["knocks"] += n
            tally["deadwood"] += int(hands)
            if outcome == "undercut":
                figures["undercuts_suffered"] += n
    for variant, figures in out.items():
        tally = sums[variant]
        figures["win_rate"] = _rate(figures["won"], figures["games"])
        if figures["deals"]:
            figures["points_per_deal"] = _mean(figures["points_scored"], figures["deals"])
        if PRESETS[variant].family == GIN:
            figures["boxes"] = figures["deals_won"]
            figures["knocks"] = tally["knocks"]
            if tally["knocks"]:
                figures["avg_deadwood_at_knock"] = _mean(tally["deadwood"], tally["knocks"])
        elif tally["lost_deals"]:
            figures["avg_hand_left_when_losing"] = _mean(tally["lost_hands"],
                                                         tally["lost_deals"])
    for variant, code, count in violations:
        entry(variant)["violations"][code] = count
    return dict(sorted(out.items()))


def player_months(store: Reader, player: str,
                  flt: StatsFilter) -> dict[str, list[dict[str, Any]]]:
    """One player's figures month by month (UTC, by game time), by variant: finished
    games and wins, scored deals and their points, points per deal; months without a
    game of the variant are left out.  Empty when the player has no game."""
    where, params = _where(flt)
    month = "strftime(timezone('UTC', game_time), '%Y-%m')"
    games, deals = (result.rows for result in store.read_many([
        (f"SELECT variant, {month} AS month, count(*) FILTER (WHERE finished), "
         f"count(*) FILTER (WHERE won) FROM game_players WHERE player = ?{where} "
         "GROUP BY ALL", [player, *params]),
        (f"SELECT variant, {month} AS month, count(*), sum(points) FROM deal_players "
         f"WHERE player = ? AND scored{where} GROUP BY ALL", [player, *params]),
    ]))
    rows: dict[tuple[str, str], dict[str, Any]] = {}

    def row(variant: str, when: str) -> dict[str, Any]:
        return rows.setdefault((variant, when), {"month": when, "games": 0, "won": 0,
                                                 "deals": 0, "points": 0})

    for variant, when, finished, won in games:
        row(variant, when).update(games=finished, won=won)
    for variant, when, count, points in deals:
        row(variant, when).update(deals=count, points=int(points))
    out: dict[str, list[dict[str, Any]]] = {}
    for (variant, _), figures in sorted(rows.items()):
        figures["points_per_deal"] = ratio(figures["points"], figures["deals"], MEAN_PLACES)
        out.setdefault(variant, []).append(figures)
    return out


def leaderboard(store: Reader, flt: StatsFilter, sort: str, order: str, min_games: int,
                limit: int, after: tuple[Any, str] | None = None,
                walk: Walk | None = None) -> list[dict[str, Any]]:
    """Players ranked by ``sort`` (a key of SORT_KEYS), ties by player id; ``after`` is the
    (sort value, player) of the last row of the previous page.  With a ``variant`` each
    row has the player's ``rating`` there (the ordinal, docs/RATINGS.md; None when not
    rated); ``rating`` sorts on it, rated players only, and needs a variant.

    Each row has the player's move-analysis figures over their analysed games with the
    same filters (docs/ANALYSIS.md): ``accuracy`` (percent), ``discard_error`` (average
    per decision), ``errors`` (facts other than fed cards per 100 decisions), ``luck``
    and ``luck_adjusted`` (per scored deal), ``decision_loss`` (two-player gin: expected
    deal points given away per decision judged) and ``decision_accuracy`` (percent);
    None when the player has none of them.
    Sorting on one lists only the players that have it.

    The figures move as games are stored: with ``walk`` the pages read its snapshot
    (``snapshots``), ``limit`` being one more than a page."""
    key = SORT_KEYS[sort]
    direction = ORDERS[order]
    where, params = _where(flt)
    rating, join, rated = "NULL::DOUBLE", "", ""
    join_params: list[Any] = []
    if flt.variant is not None:
        caught_up(store)
        rating, join = "r.ordinal", " LEFT JOIN ratings r ON r.player = g.player AND r.variant = ?"
        join_params.append(flt.variant)
    if sort == "rating":
        if flt.variant is None:
            raise ValueError("sort by rating needs a variant")
        rated = " AND r.ordinal IS NOT NULL"
    elif sort in ANALYSIS_SORT_KEYS:
        rated = f" AND {ANALYSIS_SORT_KEYS[sort]}"

    def analysed(part: str, whole: str, places: int) -> str:
        return f"CASE WHEN {whole} > 0 THEN {ratio_sql(part, whole, places)} END"

    # The analysis figures are summed over every player only when they are the sort
    # key; otherwise over the players of the page alone, after it is cut.
    by_analysis = sort in ANALYSIS_SORT_KEYS
    scope = "true" if by_analysis else "player IN (SELECT player FROM page)"
    figures = f"""
            {analysed("100 * a.accurate", "a.decisions", 2)} AS accuracy,
            {analysed("a.discard_points", "a.decisions", 3)} AS discard_error,
            {analysed("100 * a.errors", "a.decisions", 2)} AS errors,
            {analysed("a.luck_e4", "(10000 * a.luck_deals)", 2)} AS luck,
            {analysed("a.adjusted_e8", "(100000000 * a.luck_deals)", 2)} AS luck_adjusted,
            {analysed("a.loss_e6", "(1000000 * a.judged)", 4)} AS decision_loss,
            {analysed("a.accuracy_e6", "(1000000 * a.judged)", 2)} AS decision_accuracy"""
    # luck_adjusted: each player's luck weighed by their own cross-fitted share of it
    # (service.analysis.luck_share), not all of it
    analysis = f"""{luck_ctes("player", f" AND {scope}{where}")},
        a AS (
            SELECT s.*, coalesce(luck.luck_deals, 0) AS luck_deals,
                   coalesce(luck.luck_e4, 0) AS luck_e4,
                   coalesce(luck.adjusted_e8, 0) AS adjusted_e8
            FROM (SELECT player, sum(decisions) AS decisions, sum(accurate) AS accurate,
                         sum(discard_error_points) AS discard_points,
                         sum({_ERROR_COLUMNS}) AS errors, sum(judged) AS judged,
                         sum(loss_e6) AS loss_e6, sum(accuracy_e6) AS accuracy_e6
                  FROM analysis_players WHERE {scope}{where} GROUP BY player) s
            LEFT JOIN luck USING (player))"""
    columns = ("player, games, wins, win_rate, deals, points_per_deal, rating, accuracy, "
               "discard_error, errors, luck, luck_adjusted, decision_loss, decision_accuracy")
    sql = f"""
        WITH g AS (
            SELECT player, count(*) FILTER (WHERE finished) AS games,
                   count(*) FILTER (WHERE won) AS wins
            FROM game_players WHERE true{where} GROUP BY player),
        d AS (
            SELECT player, count(*) AS deals, sum(points) AS points
            FROM deal_players WHERE scored{where} GROUP BY player),
        {analysis + "," if by_analysis else ""}
        ranked AS (
            SELECT g.player, g.games, g.wins,
                   {ratio_sql("g.wins", "g.games", RATE_PLACES)} AS win_rate,
                   coalesce(d.deals, 0) AS deals,
                   {ratio_sql("d.points", "d.deals", MEAN_PLACES)} AS points_per_deal,
                   {rating} AS rating{"," + figures if by_analysis else ""}
            FROM g LEFT JOIN d USING (player){" LEFT JOIN a USING (player)" if by_analysis
                                              else ""}{join}
            WHERE g.games >= ?{rated}),
        page AS (SELECT * FROM ranked"""
    args: list[Any] = [*params, *params, *(2 * params if by_analysis else ()),
                       *join_params, min_games]
    if after is not None:
        beyond = "<" if direction == "DESC" else ">"
        sql += f" WHERE ({key} {beyond} ? OR ({key} = ? AND player > ?))"
        args += [after[0], after[0], after[1]]
    sql += f" ORDER BY {key} {direction}, player ASC LIMIT ?)"
    args.append(limit)
    if by_analysis:
        sql += f" SELECT {columns} FROM page"
    else:
        sql += f""",{analysis}
        SELECT page.*,{figures}
        FROM page LEFT JOIN a USING (player)"""
        args += 2 * params
    sql += f" ORDER BY {key} {direction}, player ASC"
    rows = [tuple(row.values()) for row in page_rows(store, sql, args, walk, limit - 1)]
    return [{"player": p, "games": games, "wins": wins, "win_rate": float(rate),
             "deals": deals, "points_per_deal": float(ppd), "rating": rating,
             "accuracy": accuracy, "discard_error": discard, "errors": errors,
             "luck": luck, "luck_adjusted": adjusted, "decision_loss": loss,
             "decision_accuracy": judged_accuracy}
            for p, games, wins, rate, deals, ppd, rating, accuracy, discard, errors, luck,
            adjusted, loss, judged_accuracy in rows]


def head_to_head(store: Reader, a: str, b: str,
                 flt: StatsFilter) -> dict[str, Any] | None:
    """Games where ``a`` and ``b`` sat as opponents (partners are not opponents), in one
    statement: each such game once, with both players' figures, newest first; the
    details of the newest :data:`RECENT_GAMES` joined from ``games``.  None when either
    player has no stored game matching the filters (the rule of ``player_stats``);
    both statements read one snapshot."""
    where, params = _where(flt)
    known, faced = store.read_many([
        (f"SELECT DISTINCT player FROM game_players WHERE player IN (?, ?){where}",
         [a, b, *params]),
        ("WITH r AS (SELECT game_id, player, team, finished, won, points, game_time "
            f"FROM game_players WHERE player IN (?, ?){where}), "
            "faced AS (SELECT x.game_id, x.finished, x.won AS a_won, y.won AS b_won, "
            "x.points AS a_points, y.points AS b_points, row_number() OVER ("
            "ORDER BY x.game_time DESC, x.game_id DESC) AS recency "
            "FROM r x JOIN r y ON y.game_id = x.game_id AND y.player = ? "
            "AND y.player <> x.player "
            "WHERE x.player = ? AND (x.team IS NULL OR x.team IS DISTINCT FROM y.team)) "
            "SELECT f.game_id, f.finished, f.a_won, f.b_won, f.a_points, f.b_points, "
            f"f.recency <= ?, g.variant, g.status, {VERIFICATION}, "
            "CASE WHEN g.finished AND g.status <> 'illegal' THEN g.winner END, "
            "g.game_time, g.tournament_id, g.tournament_round, g.tournament_table "
            "FROM faced f LEFT JOIN games g ON g.id = f.game_id AND f.recency <= ? "
            "ORDER BY f.recency",
         [a, b, *params, b, a, RECENT_GAMES, RECENT_GAMES]),
    ])
    if len(known.rows) < len({a, b}):
        return None
    rows = faced.rows
    wins = {a: 0, b: 0}
    points = {a: 0, b: 0}
    finished = 0
    recent = []
    for gid, done, a_won, b_won, a_points, b_points, is_recent, *details in rows:
        finished += 1 if done else 0
        wins[a] += 1 if a_won else 0
        wins[b] += 1 if b_won else 0
        points[a] += a_points
        points[b] += b_points
        if is_recent:
            variant, status, level, winner, game_time, tournament, round_, table = details
            recent.append({"id": gid, "variant": variant, "status": status,
                           "verification": level, "winner": winner, "game_time": game_time,
                           "tournament": tournament_of(tournament, round_, table),
                           "points": {a: a_points, b: b_points}})
    return {"players": [a, b], "games": len(rows), "finished": finished, "wins": wins,
            "points": points, "recent": recent}


def tournament_of(tid: str | None, round_: int | None,
                  table: str | None) -> dict[str, Any] | None:
    """A game's tournament as every answer names it: ``{id, round, table}``, or None."""
    if tid is None and round_ is None and table is None:
        return None
    return {"id": tid, "round": round_, "table": table}


def variant_stats(store: Reader, top_codes: int = 5) -> list[dict[str, Any]]:
    """Per variant: games, deals, how scored deals ended, deal length, first-player wins,
    the most frequent violation codes."""
    games, deals, outcomes, codes = (result.rows for result in store.read_many([
        (f"SELECT variant, count(*) FROM games WHERE {live('id')} GROUP BY variant", []),
        # a deal without moves is one recorded by its result: its turns are not known
        ("SELECT variant, count(*), count(*) FILTER (WHERE scored), "
         "coalesce(sum(turns) FILTER (WHERE scored AND n_moves > 0), 0), "
         "count(*) FILTER (WHERE scored AND n_moves > 0), "
         "count(*) FILTER (WHERE scored AND winner IS NOT NULL AND winner = first_player) "
         f"FROM deals WHERE {live()} GROUP BY variant", []),
        (f"SELECT variant, outcome, count(*) FROM deals WHERE scored AND {live()} "
         "GROUP BY variant, outcome ORDER BY variant, outcome", []),
        ("SELECT variant, code, n FROM (SELECT variant, code, count(*) AS n, "
         "row_number() OVER (PARTITION BY variant ORDER BY count(*) DESC, code) AS r "
         f"FROM violations WHERE code <> 'SCORE_MISMATCH' AND {live()} "
         "GROUP BY variant, code) "
         "WHERE r <= ? ORDER BY variant, n DESC, code", [top_codes]),
    ]))
    out: dict[str, dict[str, Any]] = {}

    def entry(variant: str) -> dict[str, Any]:
        if variant not in out:
            out[variant] = {"variant": variant, "games": 0, "deals": 0, "scored_deals": 0,
                            "outcomes": {}, "avg_turns": None,
                            "first_player_win_share": 0.0, "top_violations": []}
        return out[variant]

    for variant, n in games:
        entry(variant)["games"] = n
    for variant, n, scored, turns, played, first_wins in deals:
        entry(variant).update(deals=n, scored_deals=scored, avg_turns=_mean(int(turns), played),
                              first_player_win_share=_rate(first_wins, scored))
    for variant, outcome, n in outcomes:
        figures = entry(variant)
        figures["outcomes"][outcome] = {"count": n, "share": _rate(n, figures["scored_deals"])}
    for variant, code, n in codes:
        entry(variant)["top_violations"].append({"code": code, "count": n})
    return [out[variant] for variant in sorted(out)]
