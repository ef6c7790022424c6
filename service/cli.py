"""Command line: ``verify`` logs, ``generate`` random legal games, ``load-synthetic``,
``ratings recompute``.

    python -m service verify sample_logs/*          # one JSON report per game per line
    python -m service verify --text games.ndjson    # a readable summary instead
    python -m service verify --text logs/           # a folder's .json, .ndjson, .jsonl
    python -m service generate --variant gin --games 100 --seed 1 > games.ndjson
    python -m service load-synthetic --games 5000 --mixed --seed 1 --db data/x.duckdb
    python -m service audit logs/ --out audit-out   # on Dask: see service.audit
    python -m service import audit-out --db data/x.duckdb
    python -m service analyse --text sample_logs/gin-01.json   # the facts of each decision

``verify`` (and ``analyse``) read files, ``-`` (stdin) and folders, searched recursively
for .json, .ndjson and .jsonl files as ``audit`` searches them.
``verify`` exits 0 when every game is valid, 1 when any is illegal, mismatched or
incomplete, 2 when any input is malformed or cannot be read (a folder holding no log
among them; field errors and unread inputs go to stderr).  Its text
output numbers deals and moves from 1, as people count, and ends with a count of the
games by status; the JSON reports keep the engine's indexes from 0.
``generate`` exits 2 with a one-line usage error for a variant, player count or option
set that no game can have.  ``load-synthetic`` fills a store with generated games (see
``service.loader``); it exits 0 when they are all stored, 2 when the database file is
held by another process (the server: load through it with ``--url``), 1 on any other
failure.  ``ratings recompute [--db PATH]`` rates every stored game again from scratch
(exit 2 when the file is held, or is no file: a mistyped path is not a new database).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter
from collections.abc import Iterator

import orjson

from .engine import LogValidationError, load_json, parse_game, verify
from .engine.report import MISMATCH, VALID, VERIFICATION_WORDS
from .engine.rules import PRESETS, resolve_rules
from .engine.words import integer_range, plural

EXIT_VALID, EXIT_FAILED, EXIT_MALFORMED = 0, 1, 2
NDJSON_SUFFIXES = (".ndjson", ".jsonl")


def read_sources(path: str) -> Iterator[tuple[str, bytes]]:
    """The games of one input as (source, JSON text): a JSON file is one game
    (source = the path), an NDJSON file one game a line (source = path:line).  A file
    not named .ndjson or .jsonl is one game when it holds one JSON value (whether or not
    that value is a valid game), or when it is no JSON and not several lines of it."""
    data = sys.stdin.buffer.read() if path == "-" else _read(path)
    label = "<stdin>" if path == "-" else path
    if not path.endswith(NDJSON_SUFFIXES):
        try:
            orjson.loads(data)
        except orjson.JSONDecodeError:
            if data.count(b"\n") <= 1 or not data.lstrip().startswith(b"{"):
                yield label, data
                return
        else:
            yield label, data
            return
    for number, line in enumerate(data.split(b"\n"), start=1):
        if line.strip():
            yield f"{label}:{number}", line


LOG_SUFFIXES = (".json", *NDJSON_SUFFIXES)


class NoLogs(OSError):
    """A folder given to ``verify`` or ``analyse`` that holds no log file."""


def expand(path: str) -> list[str]:
    """The files an input names: a file (or ``-``) itself; a folder, searched
    recursively as ``audit`` searches one, its .json, .ndjson and .jsonl files in path
    order (other files left alone).  OSError for a folder that cannot be read, NoLogs
    for one that holds no log."""
    if path == "-" or not os.path.isdir(path):
        return [path]

    def refuse(error: OSError) -> None:
        raise error

    found = []
    for folder, subfolders, names in os.walk(path, onerror=refuse):
        subfolders.sort()
        found.extend(os.path.join(folder, name) for name in names
                     if name.lower().endswith(LOG_SUFFIXES))
    if not found:
        raise NoLogs(f"no {', '.join(LOG_SUFFIXES[:-1])} or {LOG_SUFFIXES[-1]} file in "
                     "this folder")
    return sorted(found)


def _inputs(paths: list[str]) -> Iterator[tuple[str, list[tuple[str, bytes]] | str]]:
    """Per file of ``paths`` (folders expanded): its games (``read_sources``), or why it
    could not be read."""
    for given in paths:
        try:
            files = expand(given)
        except OSError as error:
            yield given, str(error) if isinstance(error, NoLogs) else \
                f"cannot read: {error.strerror}"
            continue
        for path in files:
            try:
                yield path, list(read_sources(path))
            except OSError as error:
                yield path, f"cannot read: {error.strerror}"


def _read(path: str) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()


def verify_one(source: str, text: bytes) -> tuple[dict, int]:
    """The report (with ``source``) of one game and its exit code."""
    try:
        game = parse_game(load_json(text))
    except LogValidationError as error:
        return {"source": source, "status": "malformed", "errors": error.errors}, EXIT_MALFORMED
    report = verify(game).to_dict()
    report = {"source": source, **report}
    return report, EXIT_VALID if report["status"] == VALID else EXIT_FAILED


def _at(deal: int | None, move: int | None) -> str:
    """Where a violation or warning is, as people count: deals and moves from 1 (the
    report's indexes are from 0)."""
    if deal is None:
        return "game"
    return f"deal {deal + 1}" + (f" move {move + 1}" if move is not None else "")


def summary(report: dict) -> str:
    """One readable paragraph per game."""
    lines = [f"{report['source']}: {report['status']}"]
    if report["status"] == "malformed":
        for path, messages in report["errors"].items():
            lines.extend(f"  {path or '(document)'}: {m}" for m in messages)
        return "\n".join(lines)
    totals = report["totals"]
    scores = ", ".join(f"{p} {v}" for p, v in (totals.get("teams") or totals["points"]).items())
    deals = plural(len(report["deals"]), "deal")
    if report["status"] in (VALID, MISMATCH):
        winner = "no winner" if totals["winner"] is None else f"winner {totals['winner']}"
        lines[0] += f"  ({deals}; {scores}; {winner})"
    else:  # an illegal or unfinished game counts for nothing: its leader is no winner
        lines[0] += f"  ({deals}; no result; recomputed points, not a result: {scores})"
    if "verification" in report:  # some deals recorded by their result (a score sheet)
        lines.append(f"  verification: {VERIFICATION_WORDS[report['verification']]}")
    for game, one in enumerate(totals.get("games") or (), start=1):  # Hollywood
        points = ", ".join(f"{p} {v}" for p, v in one["points"].items())
        lines.append(f"  game {game}: {points}")
    for v in report["violations"]:
        lines.append(f"  {_at(v['deal'], v['move'])}: {v['code']}: {v['message']}")
    for w in report["warnings"]:
        lines.append(f"  {_at(w['deal'], w['move'])}: warning {w['code']}: {w['message']}")
    return "\n".join(lines)


STATUSES = ("valid", "illegal", "mismatch", "incomplete", "malformed")


def tally(statuses: Counter[str], unread: int) -> str:
    """The last line of the text output: '19 games: 13 valid, 3 illegal, ...'."""
    counts = ", ".join(f"{statuses[s]} {s}" for s in STATUSES if statuses[s])
    line = f"{plural(sum(statuses.values()), 'game')}" + (f": {counts}" if counts else "")
    if unread:
        line += f"; {plural(unread, 'file')} could not be read"
    return line


def cmd_verify(args: argparse.Namespace) -> int:
    worst = EXIT_VALID
    out = sys.stdout.buffer
    statuses: Counter[str] = Counter()
    unread = 0
    for path, sources in _inputs(args.paths):
        if isinstance(sources, str):
            print(f"{path}: {sources}", file=sys.stderr)
            worst = EXIT_MALFORMED
            unread += 1
            continue
        for source, text in sources:
            report, code = verify_one(source, text)
            worst = max(worst, code)
            statuses[report["status"]] += 1
            if code == EXIT_MALFORMED:
                for field_path, messages in report["errors"].items():
                    for message in messages:
                        print(f"{source}: {field_path or '(document)'}: {message}",
                              file=sys.stderr)
            if args.text:
                out.write(summary(report).encode() + b"\n")
            else:
                out.write(orjson.dumps(report) + b"\n")
    if args.text:
        out.write(tally(statuses, unread).encode() + b"\n")
    out.flush()
    return worst


def _generated(args: argparse.Namespace) -> Iterator[dict]:
    """The games ``generate`` writes, its arguments checked first: a usage error (exit 2,
    one line) for a variant, player count or option set that no game can have.
    ``mixed`` games are those ``load-synthetic --variant mixed`` loads with the same seed
    and players."""
    from . import loader
    from .generator import generate_game, generate_games

    error = args.parser.error
    if args.games < 0:
        error(f"argument --games: {integer_range(0)}")
    if args.variant == loader.MIXED:
        for name in ("names", "tournament", "played_at"):
            if getattr(args, name) is not None:
                error(f"argument --{name.replace('_', '-')}: not with --variant mixed")
        if args.rules is not None:
            error("argument --rules: not with --variant mixed, which draws the options of "
                  "each game")
        try:
            plan = loader.LoadPlan(args.seed, loader.MIXED, args.players)
        except ValueError as problem:
            error(f"argument --players: {problem}")
        return (loader.make_document(plan.job(i), plan.seed, args.deck)
                for i in range(args.games))
    preset = PRESETS[args.variant]
    if args.players is not None and not preset.min_players <= args.players <= preset.max_players:
        error(f"argument --players: {args.variant} is played by {preset.min_players} to "
              f"{preset.max_players} players, not {args.players}")
    rules = None
    if args.rules is not None:
        try:  # as a log's JSON is read: an option named twice is an error
            rules = load_json(args.rules)
        except LogValidationError as problem:
            error("argument --rules: " + "; ".join(
                f"{path + ': ' if path else ''}{' '.join(messages)}"
                for path, messages in problem.errors.items()))
        if not isinstance(rules, dict):
            error("argument --rules: a JSON object of options, such as '{\"target\": 50}'")
        seated = [args.players] if args.players is not None else range(
            preset.min_players, preset.max_players + 1)  # a game may seat any of them
        for players in seated:
            _, problems = resolve_rules(args.variant, rules, players)
            if problems:
                error(f"argument --rules: {'; '.join(problems.values())}")
    names = None
    if args.names is not None:
        names = [name.strip() for name in args.names.split(",") if name.strip()]
    if args.round is not None and args.tournament is None:
        error("argument --round: only with --tournament")
    if args.round is not None and args.round < 1:
        error(f"argument --round: {integer_range(1)}")
    if args.tournament is None:
        return generate_games(args.variant, args.games, seed=args.seed, players=args.players,
                              rules=rules, with_deck=args.deck, names=names,
                              played_at=args.played_at)
    return (generate_game(args.variant, (args.seed, i), args.players, rules, args.deck, names,
                          {"id": args.tournament, "round": args.round or 1,
                           "table": str(i + 1)}, args.played_at)
            for i in range(args.games))


def cmd_generate(args: argparse.Namespace) -> int:
    out = sys.stdout.buffer
    games = _generated(args)
    try:
        for log in games:
            out.write(orjson.dumps(log) + b"\n")
    except (ValueError, RuntimeError) as problem:  # options that let no game end
        out.flush()
        args.parser.error(str(problem))
    out.flush()
    return 0


def cmd_analyse(args: argparse.Namespace) -> int:
    """The facts of each decision of every game (docs/ANALYSIS.md): one JSON line per
    game, or a readable paragraph; exits as ``verify`` does."""
    from .analysis.decisions import decisions_json, game_decisions, mark_facts
    from .analysis.facts import analyse
    from .analysis.luck import analyse_luck
    from .analysis.text import analysis_text, luck_summary

    worst = EXIT_VALID
    out = sys.stdout.buffer
    for path, sources in _inputs(args.paths):
        if isinstance(sources, str):
            print(f"{path}: {sources}", file=sys.stderr)
            worst = EXIT_MALFORMED
            continue
        for source, text in sources:
            try:
                game = parse_game(load_json(text))
            except LogValidationError as error:
                worst = EXIT_MALFORMED
                print(f"{source}: malformed: " + "; ".join(
                    f"{p or '(document)'}: {' '.join(m)}" for p, m in error.errors.items()),
                    file=sys.stderr)
                continue
            report = verify(game)
            worst = max(worst, EXIT_VALID if report.status == VALID else EXIT_FAILED)
            analysis = analyse(game, report)
            luck = luck_summary(analyse_luck(game, report))
            decisions = game_decisions(game)
            judged = decisions_json(game, decisions)
            if args.text:
                out.write(analysis_text(source, game, analysis, luck, judged).encode()
                          + b"\n")
            else:
                whole = analysis.to_dict()
                mark_facts(whole["facts"], decisions)
                out.write(orjson.dumps({"source": source, "status": report.status,
                                        **whole, "luck": luck, "decisions": judged})
                          + b"\n")
    out.flush()
    return worst


def cmd_load_synthetic(args: argparse.Namespace) -> int:
    from . import loader

    return loader.run(args)


def cmd_ratings_recompute(args: argparse.Namespace) -> int:
    """Rate every counted game of a DuckDB file again, from scratch (docs/RATINGS.md),
    with a progress bar on stderr; exit 2 when the file is held (the server)."""
    import time

    from tqdm import tqdm

    from .store import Store, StoreLocked

    if not os.path.isfile(args.db):  # DuckDB would create it: "rated 0 games" of nothing
        print(f"rummy-audit ratings: {args.db}: no such database file (name the server's "
              "file with --db or RUMMY_DB)", file=sys.stderr)
        return EXIT_MALFORMED
    started = time.perf_counter()
    try:
        store = Store(args.db, ratings=False)
    except StoreLocked as error:
        print(f"rummy-audit ratings: {error}", file=sys.stderr)
        return EXIT_MALFORMED
    try:
        with tqdm(unit=" games", file=sys.stderr, disable=args.quiet) as bar:
            rated = store.recompute_ratings(progress=bar.update,
                                            total=lambda n: bar.reset(total=n))
    finally:
        store.close()
    print(f"rated {rated:,} games of {args.db} in {time.perf_counter() - started:.1f} s")
    return EXIT_VALID


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rummy-audit", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    v = sub.add_parser("verify", help="verify game logs (JSON or NDJSON files, folders of "
                                      "them searched recursively, - for stdin)")
    v.add_argument("paths", nargs="+")
    v.add_argument("--text", action="store_true", help="a readable summary instead of JSON")
    v.set_defaults(func=cmd_verify)
    a = sub.add_parser("analyse", help="the facts of each decision of game logs (files, "
                                       "folders, -)")
    a.add_argument("paths", nargs="+")
    a.add_argument("--text", action="store_true", help="readable sentences instead of JSON")
    a.set_defaults(func=cmd_analyse)
    from .loader import MIXED, add_arguments

    g = sub.add_parser("generate", help="write random legal games as NDJSON")
    g.add_argument("--variant", required=True, choices=(*PRESETS, MIXED),
                   help=f"a preset, or {MIXED}: each game's preset, players and options "
                        "drawn as load-synthetic draws them")
    g.add_argument("--games", type=int, default=1)
    g.add_argument("--seed", type=int, default=0)
    g.add_argument("--players", type=int, default=None)
    g.add_argument("--rules", default=None, help="option overrides as a JSON object")
    g.add_argument("--deck", action="store_true", help="record each deal's full deck")
    g.add_argument("--names", default=None,
                   help="player ids to seat, comma-separated: each game's players are "
                        "drawn from them")
    g.add_argument("--tournament", default=None,
                   help="a tournament id for every game; the games are tables 1, 2, ... "
                        "of one round")
    g.add_argument("--round", type=int, default=None, help="with --tournament: the round "
                                                           "(1 unless given)")
    g.add_argument("--played-at", default=None,
                   help="an RFC 3339 date-time written as every game's played_at")
    g.set_defaults(func=cmd_generate, parser=g)

    s = sub.add_parser("load-synthetic", help="fill a store with generated, verified games",
                       description="Fill a store with generated, verified games: directly "
                       "into a DuckDB file, or through a running service (--url).")
    add_arguments(s)
    s.set_defaults(func=cmd_load_synthetic)

    from .audit.command import add_audit_arguments, add_import_arguments

    add_audit_arguments(sub.add_parser(
        "audit", help="verify logs on a Dask cluster, results as Parquet",
        description="Verify any number of logs on a Dask cluster (a local one by default); "
                    "the results are Parquet files with the store's columns."))
    add_import_arguments(sub.add_parser(
        "import", help="store an audit's Parquet results in a DuckDB file"))

    r = sub.add_parser("ratings", help="the ratings of a store (docs/RATINGS.md)")
    rsub = r.add_subparsers(dest="ratings_command", required=True)
    rc = rsub.add_parser("recompute", help="rate every stored game again, from scratch, "
                                           "straight into the DuckDB file (server stopped)")
    rc.add_argument("--db", default=os.environ.get("RUMMY_DB") or "./data/rummy.duckdb",
                    help="the DuckDB file (default: $RUMMY_DB, else ./data/rummy.duckdb)")
    rc.add_argument("--quiet", action="store_true", help="no progress bar")
    rc.set_defaults(func=cmd_ratings_recompute)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except BrokenPipeError:
        return EXIT_VALID


if __name__ == "__main__":
    sys.exit(main())
