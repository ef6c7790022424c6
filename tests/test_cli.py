"""The command line, run as a real subprocess: sources, exit codes, text output."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from tests.engine.logs import deal, game
from tests.engine.test_sheets import HOLLYWOOD_SHEET

ROOT = Path(__file__).resolve().parent.parent
ANA = "2C 3C 4C 5D 5H 5S 9H 9D 9S KS"
BEN = "5C 6C 7C 8C 9C AD 2D 3D JH JS"
KNOCK = ["ana ds AH", "ana knock KS | 2C 3C 4C | 5D 5H 5S | 9H 9D 9S"]


def gin_log(moves=KNOCK, claimed=None):
    return game("gin", ["ana", "ben"],
                [deal("ben", {"ana": ANA, "ben": BEN}, "TD", moves, claimed=claimed)],
                rules={"target": None})


def run(*args, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "service", *args], cwd=ROOT, input=stdin,
                          capture_output=True, timeout=120)


@pytest.fixture
def files(tmp_path):
    valid = tmp_path / "valid.json"
    valid.write_text(json.dumps(gin_log()))
    illegal = tmp_path / "illegal.json"
    illegal.write_text(json.dumps(gin_log(["ana ds AH", "ana knock 2C"])))
    batch = tmp_path / "batch.ndjson"
    batch.write_text(json.dumps(gin_log()) + "\n\n" + json.dumps(gin_log(
        claimed={"points": {"ana": 20}})) + "\n")
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "rummy-log/1", "variant": "gin", "players": ["ana"')
    return {"valid": valid, "illegal": illegal, "batch": batch, "broken": broken}


def lines(output: bytes) -> list[dict]:
    return [json.loads(line) for line in output.decode().splitlines()]


def test_valid_game_exits_zero(files):
    result = run("verify", str(files["valid"]))
    assert result.returncode == 0, result.stderr
    (report,) = lines(result.stdout)
    assert report["source"] == str(files["valid"])
    assert report["status"] == "valid"
    assert report["deals"][0]["points"] == {"ana": 19, "ben": 0}


def test_reports_in_input_order_with_line_sources(files):
    result = run("verify", str(files["batch"]), str(files["illegal"]))
    assert result.returncode == 1
    reports = lines(result.stdout)
    assert [r["source"] for r in reports] == [f"{files['batch']}:1", f"{files['batch']}:3",
                                              str(files["illegal"])]
    assert [r["status"] for r in reports] == ["valid", "mismatch", "illegal"]


def test_malformed_input_exits_two_with_errors_on_stderr(files):
    result = run("verify", str(files["valid"]), str(files["broken"]))
    assert result.returncode == 2
    assert str(files["broken"]) in result.stderr.decode()
    assert b"Traceback" not in result.stderr
    statuses = [r["status"] for r in lines(result.stdout)]
    assert statuses == ["valid", "malformed"]


def test_field_errors_name_their_path(tmp_path):
    log = gin_log()
    log["deals"][0]["moves"][0]["card"] = "1X"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(log))
    result = run("verify", str(path))
    assert result.returncode == 2
    assert "deals.0.moves.0.card" in result.stderr.decode()


def test_stdin_and_text_summary(files):
    result = run("verify", "--text", "-", stdin=files["illegal"].read_bytes())
    assert result.returncode == 1
    text = result.stdout.decode()
    assert text.startswith("<stdin>: illegal")
    assert "KNOCK_OVER_LIMIT" in text


def test_text_summary_of_a_game_that_counts_for_nothing_names_no_winner(tmp_path):
    """Deal 0 is a legal knock (ana 19, 139 with the bonuses), deal 1 illegal: ana leads, yet nobody won."""
    log = game("gin", ["ana", "ben"], [
        deal("ben", {"ana": ANA, "ben": BEN}, "TD", KNOCK),
        deal("ben", {"ana": ANA, "ben": BEN}, "TD", ["ana ds AH", "ana x 2H"])],
        rules={"target": None})
    path = tmp_path / "two.json"
    path.write_text(json.dumps(log))
    first = run("verify", "--text", str(path)).stdout.decode().splitlines()[0]
    assert first.startswith(f"{path}: illegal")
    assert "winner" not in first
    assert "no result" in first and "not a result: ana 139, ben 0" in first


def test_missing_file(tmp_path):
    result = run("verify", str(tmp_path / "nope.json"))
    assert result.returncode == 2
    assert b"cannot read" in result.stderr


def test_console_script_is_installed(files):
    script = Path(sys.executable).with_name("rummy-audit")
    assert script.exists(), "install the project (make test does) to get rummy-audit"
    result = subprocess.run([str(script), "verify", str(files["valid"])], capture_output=True,
                            timeout=120)
    assert result.returncode == 0
    assert lines(result.stdout)[0]["status"] == "valid"


def test_text_summary_counts_one_deal_in_the_singular(tmp_path):
    from tests.engine.test_gin import KNOCK, gin_game

    path = tmp_path / "one-deal.json"
    path.write_text(json.dumps(gin_game(KNOCK)))
    text = run("verify", "--text", str(path)).stdout.decode()
    assert "(1 deal;" in text, text


def test_a_log_repeating_a_key_is_malformed_and_named(tmp_path):
    """A pretty-printed file stays one game when it is no valid game (it was read as
    NDJSON, one malformed game a line)."""
    text = json.dumps(gin_log(), indent=2).replace('"variant": "gin"',
                                                   '"variant": "rummy",\n  "variant": "gin"')
    path = tmp_path / "twice.json"
    path.write_text(text)
    result = run("verify", str(path))
    assert result.returncode == 2
    (report,) = lines(result.stdout)
    assert report["source"] == str(path) and report["status"] == "malformed"
    assert report["errors"] == {"variant": ["this key appears more than once in its object"]}
    assert f"{path}: variant: this key appears" in result.stderr.decode()


def test_text_output_of_the_samples_counts_as_people_do():
    """Deals and moves from 1 in the text, no repeated location, no Python None, and a
    last line counting the games by status; the JSON keeps indexes from 0."""
    samples = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "sample_logs").iterdir())
    text = run("verify", "--text", *samples)
    reports = lines(run("verify", *samples).stdout)
    assert text.returncode == 1
    out = text.stdout.decode().splitlines()
    assert "None" not in text.stdout.decode()
    statuses = Counter(r["status"] for r in reports)
    assert out[-1] == (f"{len(reports)} games: {statuses['valid']} valid, "
                       f"{statuses['illegal']} illegal, {statuses['mismatch']} mismatch, "
                       f"{statuses['incomplete']} incomplete")
    expected = []
    for report in reports:
        for kind, entries in (("", report["violations"]), ("warning ", report["warnings"])):
            for entry in entries:
                assert not entry["message"].startswith(("deal", "game"))
                where = "game" if entry["deal"] is None else f"deal {entry['deal'] + 1}"
                if entry["move"] is not None:
                    where += f" move {entry['move'] + 1}"
                expected.append(f"  {where}: {kind}{entry['code']}: {entry['message']}")
    assert [line for line in out if line.startswith("  ")] == expected
    assert "  deal 2 move 6: NOT_YOUR_TURN: ben played discard, but it is ana's turn" in out
    assert "  deal 1: SCORE_MISMATCH: ana is claimed to score 37, recomputed 27" in out
    assert "sample_logs/incomplete-rummy-block.json: incomplete  (3 deals; no result; " \
           "recomputed points, not a result: ana 0, ben 39, cleo 6, dan 0)" in out
    assert any(r["violations"] and r["violations"][0]["deal"] == 1 for r in reports)


def test_a_finished_game_without_a_winner_says_so_in_words():
    from service.cli import summary

    report = {"source": "tie.json", "status": "valid", "violations": [], "warnings": [],
              "deals": [{}], "totals": {"points": {"ana": 10, "ben": 10}, "winner": None}}
    assert summary(report) == "tie.json: valid  (1 deal; ana 10, ben 10; no winner)"


def test_text_summary_counts_malformed_games_and_unread_files(files, tmp_path):
    result = run("verify", "--text", str(files["valid"]), str(files["broken"]),
                 str(tmp_path / "nope.json"))
    assert result.returncode == 2
    assert result.stdout.decode().splitlines()[-1] == \
        "2 games: 1 valid, 1 malformed; 1 file could not be read"


@pytest.mark.parametrize(("args", "message"), [
    (["--variant", "foo"], "argument --variant: invalid choice: 'foo'"),
    (["--variant", "gin", "--players", "7"],
     "argument --players: gin is played by 2 to 4 players, not 7"),
    (["--variant", "gin", "--rules", '{"targt": 50}'], "argument --rules: unknown option 'targt'"),
    (["--variant", "gin", "--rules", '{"target": 0}'],
     "argument --rules: target must be an integer from 1 to 1000000"),
    (["--variant", "gin", "--rules", "[50]"], "argument --rules: a JSON object of options"),
    (["--variant", "gin", "--rules", "{target: 50}"], "argument --rules: invalid JSON"),
    (["--variant", "gin", "--rules", '{"target": 50, "target": 100}'],
     "argument --rules: target: this key appears more than once in its object"),
    (["--variant", "rummy", "--rules", '{"hand_size": 9}'],
     "argument --rules: hand_size 9 leaves no stock with 6 players"),
    (["--variant", "gin", "--games", "-1"], "argument --games: must be an integer of at least 0"),
    (["--variant", "mixed", "--players", "9"], "argument --players: no variant"),
    (["--variant", "mixed", "--rules", "{}"], "argument --rules: not with --variant mixed"),
    (["--variant", "mixed", "--names", "ana,ben"], "argument --names: not with --variant mixed"),
    (["--variant", "gin", "--round", "2"], "argument --round: only with --tournament"),
    (["--variant", "gin", "--tournament", "t", "--round", "0"],
     "argument --round: must be an integer of at least 1"),
    (["--variant", "gin", "--played-at", "yesterday"], "played_at"),
])
def test_generate_usage_errors_are_one_line_and_exit_two(args, message):
    result = run("generate", *args)
    assert result.returncode == 2 and result.stdout == b""
    err = result.stderr.decode()
    assert "Traceback" not in err
    assert err.startswith("usage: rummy-audit generate")
    assert err.splitlines()[-1].startswith(f"rummy-audit generate: error: {message}"), err


def test_generate_seats_named_players_at_the_tables_of_a_round():
    """A director's test event: every game's players drawn from the names given, the
    games tables 1, 2, 3 of round 2 of one tournament, all played at the time given,
    every one valid."""
    result = run("generate", "--variant", "gin", "--games", "3", "--seed", "4", "--names",
                 "ana, ben,cy,dan", "--tournament", "spring cup", "--round", "2",
                 "--played-at", "2024-05-01T19:00:00Z")
    assert result.returncode == 0, result.stderr
    games = lines(result.stdout)
    assert [g["tournament"] for g in games] == [
        {"id": "spring cup", "round": 2, "table": str(t)} for t in (1, 2, 3)]
    assert all(set(g["players"]) <= {"ana", "ben", "cy", "dan"} for g in games)
    assert {g["played_at"] for g in games} == {"2024-05-01T19:00:00Z"}
    verified = run("verify", "-", stdin=result.stdout)
    assert {r["status"] for r in lines(verified.stdout)} == {"valid"}


def test_generate_mixed_writes_the_games_load_synthetic_loads():
    from service.loader import MIXED, LoadPlan, make_document

    result = run("generate", "--variant", "mixed", "--games", "12", "--seed", "5")
    assert result.returncode == 0, result.stderr
    games = lines(result.stdout)
    plan = LoadPlan(5, MIXED)
    assert games == [make_document(plan.job(i), 5) for i in range(12)]
    assert len({game["variant"] for game in games}) >= 3
    verified = run("verify", "-", stdin=result.stdout)
    assert verified.returncode == 0 and {r["status"] for r in lines(verified.stdout)} == {
        "valid"}


def test_ratings_recompute_refuses_a_missing_file_and_creates_none(tmp_path):
    """A mistyped ``--db`` is an error, not a new empty database 'rated' with 0 games."""
    path = tmp_path / "mistyped.duckdb"
    result = run("ratings", "recompute", "--db", str(path), "--quiet")
    assert result.returncode == 2, result.stdout
    assert result.stdout == b""
    err = result.stderr.decode()
    assert f"{path}: no such database file" in err and "Traceback" not in err
    assert not path.exists() and list(tmp_path.iterdir()) == []


def test_ratings_recompute_refuses_a_folder(tmp_path):
    result = run("ratings", "recompute", "--db", str(tmp_path), "--quiet")
    assert result.returncode == 2 and result.stdout == b""
    assert f"{tmp_path}: no such database file" in result.stderr.decode()


def test_verify_reads_a_folder_recursively_json_and_ndjson(files, tmp_path):
    """A folder is searched as ``audit`` searches one: its .json, .ndjson and .jsonl
    files and those of its subfolders, in path order; other files are left alone."""
    deeper = tmp_path / "more" / "deeper"
    deeper.mkdir(parents=True)
    (deeper / "again.json").write_text(json.dumps(gin_log()))
    (tmp_path / "more" / "notes.txt").write_text("not a game")
    (tmp_path / "more" / "lines.jsonl").write_text(json.dumps(gin_log()) + "\n")
    result = run("verify", str(tmp_path))
    assert result.returncode == 2, result.stderr  # broken.json is malformed
    sources = [r["source"] for r in lines(result.stdout)]
    assert sources == [f"{files['batch']}:1", f"{files['batch']}:3", str(files["broken"]),
                       str(files["illegal"]), str(deeper / "again.json"),
                       f"{tmp_path / 'more' / 'lines.jsonl'}:1", str(files["valid"])]
    assert "Traceback" not in result.stderr.decode()


def test_verify_text_counts_the_games_of_a_folder(tmp_path):
    (tmp_path / "a.json").write_text(json.dumps(gin_log()))
    (tmp_path / "b.ndjson").write_text(json.dumps(gin_log()) + "\n" + json.dumps(gin_log())
                                       + "\n")
    result = run("verify", "--text", str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert result.stdout.decode().splitlines()[-1] == "3 games: 3 valid"


def test_verify_an_empty_folder_says_it_holds_no_log(tmp_path):
    result = run("verify", str(tmp_path))
    assert result.returncode == 2 and result.stdout == b""
    assert f"{tmp_path}: no .json, .ndjson or .jsonl file in this folder" in \
        result.stderr.decode()


def test_the_text_of_a_sheet_says_what_was_checked_and_gives_hollywood_games(tmp_path):
    path = tmp_path / "sheet.json"
    path.write_text(json.dumps(HOLLYWOOD_SHEET))
    result = run("verify", "--text", str(path))
    assert result.returncode == 0, result.stderr
    text = result.stdout.decode()
    assert "  verification: arithmetic and rules checked; play not recorded\n" in text
    assert "  game 1: ana 165, ben 50\n  game 2: ana 115, ben 150\n" in text
    assert lines(run("verify", str(path)).stdout)[0]["verification"] == "results"
