"""The pages.  Each view reads what the API would answer, through the same store and
engine calls, and renders it; query arguments are read by the API's own schemas, so a
page takes the filters the API takes."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import orjson
from flask import abort, redirect, render_template, request, url_for
from markupsafe import Markup
from marshmallow import EXCLUDE, ValidationError

from ..api import index
from ..api.analysis import holds_analyses
from ..api.auth import (
    READ_COOKIE,
    read_access,
    read_access_or_public,
    reads_need_a_key,
    reads_with,
    writes_need_a_key,
)
from ..api.backlog import analysis_progress
from ..api.config import current_store, settings
from ..api.games import FILTERS, _not_found, stored_game
from ..api.games_schemas import ListArgsSchema, utc_text
from ..api.pagination import Part, decode_key_cursor, encode_key_cursor
from ..api.players import BOARD_KEY as PLAYERS_KEY
from ..api.players import FILTERS as STATS_FILTERS
from ..api.players import FilterArgsSchema, LeaderboardArgsSchema
from ..api.problems import Problem
from ..api.segments import segment
from ..api.spec import PREFIX
from ..api.tournaments import ListArgsSchema as TournamentListArgsSchema
from ..api.tournaments import withdrawal_text
from ..api.variants import describe_variants
from ..engine.limits import calendar_date
from ..engine.report import VERIFICATION_WORDS
from ..engine.rules import OTHER_ORIGINS, PRESETS, SOURCES, source_in_words
from ..store import GameFilter
from ..store.analysis import player_analysis
from ..store.audit import list_tournaments, ruling_text, standing_order, tournament_audit
from ..store.counting import RULINGS, SCHEDULE_MISMATCH, allowed
from ..store.db import filter_names, spellings
from ..store.desk import (
    current_ruling,
    restoration_history,
    ruling_history,
    withdrawn_by_round,
    withdrawn_games,
)
from ..store.schedule import game_off_schedule
from ..store.snapshots import Walk
from ..store.stats import (
    SORT_KEYS,
    StatsFilter,
    leaderboard,
    player_months,
    player_stats,
    tournament_of,
)
from . import blp, verdict, wants_html
from .analysis import game_analysis
from .charts import bar_chart
from .crosstable import after_round_arg
from .forms import local_target, same_origin

GAMES_PAGE = 25
SUGGESTED = 500  # names suggested by each of the games page's name filters
# The leaderboard's columns, each a sort key of the API.
LEADERBOARD_COLUMNS = (("games", "Games"), ("wins", "Wins"), ("win_rate", "Win rate"),
                       ("points_per_deal", "Points per deal"), ("rating", "Rating"),
                       ("accuracy", "Accuracy"), ("discard_error", "Discard error"),
                       ("errors", "Errors /100"), ("luck", "Luck"),
                       ("luck_adjusted", "Luck-adjusted"), ("decision_loss", "Decision loss"),
                       ("decision_accuracy", "Evaluator accuracy"))


def _figure(key: str, value: Any) -> str:
    """A leaderboard cell as people read it."""
    if value is None:
        return "—"
    if key == "win_rate":
        return f"{value * 100:.1f}%"
    if key in ("accuracy", "decision_accuracy"):
        return f"{value:.1f}%"
    if key == "decision_loss":
        return f"{value:.3f}"
    if key in ("games", "wins"):
        return str(value)
    return f"{value:.2f}"


def _args(schema: Any) -> dict[str, Any]:
    """The query read by an API schema; blank form fields count as not given."""
    given = {key: value for key, value in request.args.items() if value != ""}
    try:
        return schema.load(given, unknown=EXCLUDE)
    except ValidationError as error:
        fields = "; ".join(f"{name}: {' '.join(map(str, messages))}"
                           for name, messages in error.normalized_messages().items())
        abort(400, description=f"some parameters are not valid ({fields})")


def _is_date(text: str) -> bool:
    """A date alone (``2026-03-01``), as a date picker sends it."""
    return len(text) == 10 and calendar_date(text) is not None


def _game(game_id: str) -> dict[str, Any]:
    row = current_store().get_game(game_id)
    if row is None:
        raise _not_found(game_id)
    return {**row, "tournament": tournament_of(row["tournament_id"], row["tournament_round"],
                                               row["tournament_table"]),
            "rules": orjson.loads(row["rules"]),
            "meta": orjson.loads(row["meta"]) if row["meta"] is not None else None,
            "report": orjson.loads(row["report"])}


def _pages(endpoint: str, query: dict[str, Any],
           next_cursor: str | None) -> tuple[str | None, str | None]:
    """The next and previous pages of a keyset listing.  The API pages forwards only; a
    page keeps the cursors of the pages before it (``trail``), so going back is one
    link, whatever the listing's order."""
    trail = [part for part in request.args.get("trail", "").split(",") if part != ""] \
        if request.args.get("trail") else []
    here = request.args.get("cursor", "")
    later = None
    if next_cursor is not None:
        later = url_for(endpoint, **query, cursor=next_cursor,
                        trail=",".join([*trail, here or "first"]))
    earlier = None
    if here:
        back = trail[-1] if trail else "first"
        rest = {"trail": ",".join(trail[:-1])} if len(trail) > 1 else {}
        earlier = url_for(endpoint, **query, **rest,
                          **({"cursor": back} if back != "first" else {}))
    return later, earlier


def api_url(path: str) -> str:
    return request.script_root + PREFIX + path


_INSTANT = re.compile(r"(\d{4,}-\d\d-\d\d)T(\d\d:\d\d)")

# The words of a verification level, for the mark beside a verdict (``macros.html``).
blp.add_app_template_global(VERIFICATION_WORDS, "level_words")


@blp.app_template_filter("when")
def _when(value: Any) -> Markup | str:
    """A stored time as a ``<time>`` element: its instant in UTC for machines, and to
    the minute for people (``2026-03-01 23:30 UTC``), which the page's script shows in
    the browser's own time zone."""
    text = utc_text(value)
    if text is None:
        return "—"
    m = _INSTANT.match(text)
    shown = f"{m[1]} {m[2]} UTC" if m else text
    return Markup('<time datetime="{}">{}</time>').format(text, shown)


def visitor_reads() -> bool:
    """Whether this visitor may open the pages of stored games: reads are open, or the
    request carries a key that opens them (the read cookie, or a header)."""
    if not reads_need_a_key():
        return True
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    given = token if header and scheme.lower() == "bearer" else request.cookies.get(
        READ_COOKIE, "")
    return bool(given.strip()) and reads_with(given)


def readable(endpoint: str, **values: Any) -> str:
    """A link to a page of stored games the visitor can follow: the page itself, or the
    key page with the page as its return target when a key is needed first."""
    url = url_for(endpoint, **values)
    return url if visitor_reads() else url_for("web.key", next=url)


@blp.app_context_processor
def _links() -> dict[str, Any]:
    return {"api_url": api_url, "presets": tuple(PRESETS), "readable": readable,
            "visitor_reads": visitor_reads}


@blp.get("/")
def home():
    """Upload page for a browser; an API client is sent to the API's index, as before."""
    if not wants_html():
        return index.home()
    config = settings()
    return render_template("home.html", title="Upload and verify",
                           max_game_bytes=config.max_game_bytes,
                           max_batch_bytes=config.max_batch_bytes,
                           key_needed=writes_need_a_key())


@blp.get("/games")
@read_access
def games():
    args = _args(ListArgsSchema())
    if _is_date(request.args.get("until", "")):
        # A day picked as "until" includes that day: the API's until is exclusive.
        args["until"] += timedelta(days=1)
    limit = args.get("limit", GAMES_PAGE)
    filters = {name: args.get(name) for name in FILTERS}
    before = decode_key_cursor(args["cursor"], "games", filters, (Part.COUNT,)).key[0] \
        if "cursor" in args else None
    rows = current_store().list_games(GameFilter(**filters), limit + 1, before)
    more = len(rows) > limit
    rows = rows[:limit]
    query = {name: request.args[name] for name in FILTERS if request.args.get(name)}
    later, earlier = _pages("web.games", {**query, "limit": limit},
                            encode_key_cursor("games", [rows[-1]["seq"]], filters) if more else None)
    return render_template("games.html", title="Games", games=rows, args=args,
                           later=later, earlier=earlier, statuses=verdict.STATUS_WORDS,
                           names=filter_names(current_store(), SUGGESTED),
                           spelled=spellings(current_store(), GameFilter(**filters)))


@blp.get("/games/<game_id:game_id>")
@read_access
def game(game_id: str):
    data = _game(game_id)
    history = ruling_history(current_store(), game_id)
    ruling = current_ruling(history)
    return render_template("game.html", title=f"Game {game_id}", game=data,
                           ruling=ruling, ruling_text=ruling_text, history=history,
                           restorations=restoration_history(current_store(), game_id),
                           allowed=allowed(data["status"],
                                           game_off_schedule(current_store(), data)),
                           meanings=RULINGS,
                           key_needed=writes_need_a_key(),
                           said=verdict.verdict(data), deals=verdict.deal_rows(data),
                           totals=verdict.total_rows(data), where=verdict.where,
                           gin=PRESETS[data["variant"]].family == "gin",
                           analysis=game_analysis(stored_game(game_id)))


@blp.get("/games/<game_id:game_id>/replay")
@read_access
def replay(game_id: str):
    data = _game(game_id)
    report = data["report"]
    shown = {"id": game_id, "variant": data["variant"], "players": data["players"],
             "gin": PRESETS[data["variant"]].family == "gin",
             "deals": len(report["deals"]), "status": data["status"],
             "violations": report["violations"],
             "sheet": [d for d, deal in enumerate(report["deals"])
                       if deal.get("recorded") == "result"],
             "positions": api_url(f"/games/{segment(game_id)}/deals/{{deal}}/positions")}
    return render_template("replay.html", title=f"Replay of game {game_id}", game=data,
                           shown=shown, sheet_deals=[d + 1 for d in shown["sheet"]])


@blp.get("/players")
@read_access
def players():
    args = _args(LeaderboardArgsSchema())
    if _is_date(request.args.get("until", "")):
        # A day picked as "until" includes that day, as on the games page.
        args["until"] += timedelta(days=1)
    limit = args.get("limit", settings().page_size)
    scope = {name: args.get(name) for name in (*STATS_FILTERS, "sort", "order", "min_games")}
    after, rank, walk = None, 0, Walk()
    if "cursor" in args:
        at = decode_key_cursor(args["cursor"], "players", scope, PLAYERS_KEY)
        value, player, rank = at.key
        after, walk = (value, player), Walk(at.snapshot)
    if args["sort"] == "rating" and args.get("variant") is None:
        abort(400, description="sorting by rating needs a variant: ratings are kept per "
                               "variant, so choose one")
    rows = leaderboard(current_store(), StatsFilter(**{n: args.get(n) for n in STATS_FILTERS}),
                       args["sort"], args["order"], args["min_games"], limit + 1, after,
                       walk)
    more = len(rows) > limit
    rows = rows[:limit]
    for offset, row in enumerate(rows, start=rank + 1):
        row["rank"] = offset
    query = {k: request.args[k] for k in scope if request.args.get(k)}
    later, earlier = _pages("web.players", {**query, "limit": limit}, encode_key_cursor(
        "players", [rows[-1][args["sort"]], rows[-1]["player"], rows[-1]["rank"]], scope,
        walk.snapshot) if more else None)
    columns = [(key, label) for key, label in LEADERBOARD_COLUMNS
                if key != "rating" or args.get("variant") is not None]
    return render_template("players.html", title="Leaderboard", rows=rows, args=args,
                           sort_keys=tuple(SORT_KEYS), later=later, earlier=earlier,
                           columns=columns, shown=_figure, sorted_by=_column_links(
                               query, args["sort"], args["order"], columns),
                           analysis=analysis_progress(current_store()))


LOWER_IS_BETTER = ("discard_error", "errors", "decision_loss")


def _column_links(query: dict[str, str], sort: str, order: str,
                  columns: list[tuple[str, str]]) -> dict[str, str]:
    """Each column heading's link: the same filters (dates included), sorted by that
    column, the sorted one in the other order, another one best first (lowest first
    where lower is better)."""
    links = {}
    for key, _ in columns:
        if key == sort:
            then = "asc" if order == "desc" else "desc"
        else:
            then = "asc" if key in LOWER_IS_BETTER else "desc"
        rest = {k: v for k, v in query.items() if k not in ("sort", "order")}
        links[key] = url_for("web.players", sort=key, order=then, **rest)
    return links


@blp.get("/players/<name:player>")
@read_access
def player(player: str):
    args = _args(FilterArgsSchema())
    scope = StatsFilter(**{n: args.get(n) for n in STATS_FILTERS})
    figures = player_stats(current_store(), player, scope)
    if not figures:
        raise Problem(404, "not-found", f"no stored game matches player {player[:64]!r}")
    months = player_months(current_store(), player, scope)
    recent = current_store().list_games(GameFilter(player=player), 10, None)
    charts = {variant: verdict.player_charts(variant, row, months.get(variant, []))
              for variant, row in figures.items()}
    rendered = {variant: [bar_chart(chart) for chart in chart_list]
                for variant, chart_list in charts.items()}
    opponents = sorted({name for game in recent for name in game["players"]} - {player})
    store = current_store()
    analysed = player_analysis(store, player, scope) if holds_analyses(store) else {}
    return render_template("player.html", title=f"Player {player}", player=player,
                           figures=figures, charts=rendered, recent=recent, args=args,
                           opponents=opponents, analysed=analysed,
                           analysis=analysis_progress(store) if analysed else None)


@blp.get("/tournaments")
@read_access
def tournaments():
    args = _args(TournamentListArgsSchema())
    limit = args.get("limit", settings().page_size)
    after = decode_key_cursor(args["cursor"], "tournaments", {}, (Part.TEXT,)).key[0] \
        if "cursor" in args else None
    rows = list_tournaments(current_store(), limit + 1, after)
    more = len(rows) > limit
    rows = rows[:limit]
    later, earlier = _pages("web.tournaments", {"limit": limit},
                            encode_key_cursor("tournaments", [rows[-1]["id"]], {}) if more else None)
    return render_template("tournaments.html", title="Tournaments", rows=rows, later=later,
                           earlier=earlier)


# The matters and discrepancies of a tournament, said to a person (their codes beside).
KIND_WORDS = {"duplicate_table": "Table entered twice", "illegal_game": "Illegal game",
              "unfinished_game": "Unfinished game", "score_mismatch": "Wrong claim",
              "schedule_mismatch": "Not the scheduled players",
              "missing_table": "Scheduled table not played",
              "standing_differs": "Claimed standing differs"}


@blp.get("/tournaments/<name:tournament_id>")
@read_access_or_public
def tournament(tournament_id: str):
    audit = tournament_audit(current_store(), tournament_id, after_round_arg())
    if audit is None:
        raise Problem(404, "not-found", f"there is no tournament {tournament_id[:64]!r}")
    return render_template("tournament.html", title=f"Tournament {tournament_id}",
                           audit=audit, summary=audit.summary,
                           withdrawn=withdrawn_by_round(
                               withdrawn_games(current_store(), audit.id) or [],
                               audit.after_round),
                           ruling_text=ruling_text, withdrawal_text=withdrawal_text,
                           standing_order=standing_order, fragment=verdict.replay_fragment,
                           by_id={row["id"]: row for row in audit.games}, allowed=allowed,
                           off_schedule={gid for m in audit.open
                                         if m["kind"] == SCHEDULE_MISMATCH
                                         for gid in m["games"]},
                           meanings=RULINGS, kind_words=KIND_WORDS,
                           key_needed=writes_need_a_key())


@blp.get("/variants")
def variants():
    """The presets and options: the engine's tables, no stored data, so open to every
    visitor whatever RUMMY_READ_KEYS says (the API's ``GET /variants`` keeps its read
    policy, as documented)."""
    return render_template("variants.html", title="Variants", variants=describe_variants(),
                           sources=tuple(SOURCES.values()), other_origins=OTHER_ORIGINS,
                           in_words=source_in_words)


@blp.get("/key")
def key():
    """The form that lets a browser read when RUMMY_READ_KEYS is set."""
    return render_template("key.html", title="Read key", needed=reads_need_a_key(),
                           held=READ_COOKIE in request.cookies,
                           next=local_target(request.args.get("next"))), 200


@blp.post("/key")
@same_origin
def key_given():
    """A key typed in the form: kept in a cookie for the browser session (HttpOnly, so
    no script reads it; SameSite=Strict, so no other site's page sends it), then back
    to the page that asked, if it is one of this site.  A form not sent from a page of
    this site is refused."""
    given = request.form.get("key", "").strip()
    target = local_target(request.form.get("next"))
    if not given or not reads_with(given):
        page = render_template("key.html", title="Read key", needed=reads_need_a_key(),
                               held=False, next=target, refused=True)
        return page, 403
    response = redirect(target, code=303)
    response.set_cookie(READ_COOKIE, given, httponly=True, samesite="Strict",
                        secure=request.is_secure, path=request.script_root or "/")
    return response


@blp.post("/key/forget")
@same_origin
def key_forgotten():
    """The read cookie dropped; a form not sent from a page of this site is refused
    (another site must not log a visitor out)."""
    response = redirect(url_for("web.key"), code=303)
    response.delete_cookie(READ_COOKIE, path=request.script_root or "/",
                           httponly=True, samesite="Strict")
    return response
