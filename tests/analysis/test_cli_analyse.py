"""``rummy-audit analyse``, run as a real subprocess: JSON lines, sentences, exit codes."""

from __future__ import annotations

import json

from tests.analysis.test_facts import DISCARDER, FEEDEE
from tests.engine.logs import deal, game
from tests.test_cli import run


def discard_error_log():
    # As in test_facts: ana discards 7S leaving 34 where KS left 31; ben takes 7S into
    # 7S 8S 9S (27 off his deadwood).
    return game("gin", ["ana", "ben"],
                [deal("ben", {"ana": DISCARDER, "ben": FEEDEE}, "QH",
                      ["ana ds 8D", "ana x 7S", "ben dd 7S", "ben x KC"])],
                rules={"target": None})


def test_text_names_each_fact_as_people_count(tmp_path):
    path = tmp_path / "game.json"
    path.write_text(json.dumps(discard_error_log()))
    done = run("analyse", "--text", str(path))
    assert done.returncode == 1, done.stderr  # the log stops inside its deal: incomplete
    lines = done.stdout.decode().splitlines()
    assert lines[0] == f"{path}: 2 facts"
    assert lines[1] == ("  deal 1, move 2: ana discarded 7S leaving 34; the best discard was "
                        "KS, leaving 31 (discard error 3)")
    assert lines[2] == ("  deal 1, move 2: ana discarded 7S, which ben took and used "
                        "(27 points off their deadwood)")
    assert lines[3].startswith("  ana: 1 decision, accuracy 0.0%, average discard error 3.0")
    # ana's draw (from the stock, the evaluator's choice too) and her discard.
    assert lines[5].startswith("  ana: 2 decisions judged in expected deal points, average "
                               "loss 0.52")
    # The deal is not finished: no scored deal, no luck counted.
    assert lines[-2:] == ["  ana: luck +0.0 over 0 scored deals; points 0, luck-adjusted 0.0",
                          "  ben: luck +0.0 over 0 scored deals; points 0, luck-adjusted 0.0"]


def test_json_lines_carry_the_facts_and_summary(tmp_path):
    path = tmp_path / "games.ndjson"
    path.write_text(json.dumps(discard_error_log()) + "\n" + "{]\n")
    done = run("analyse", str(path))
    assert done.returncode == 2  # the second line is no JSON
    first = json.loads(done.stdout.splitlines()[0])
    assert first["source"] == f"{path}:1"
    assert [f["kind"] for f in first["facts"]] == ["discard_error", "fed_card"]
    assert first["facts"][0]["alternative"] == {"p": "ana", "a": "discard", "card": "KS"}
    assert first["summary"]["ben"]["fed_received"] == 1
    assert set(first["luck"]) == {"deals", "scored", "luck", "points", "adjusted"}
    # Each gin draw and discard judged in expected deal points, and the discard error
    # marked by the evaluator's verdict on it.
    judged = first["decisions"]
    assert [(d["player"], d["action"], d["card"], d["best"], d.get("best_source"))
            for d in judged["decisions"]] == [
        ("ana", "draw", "QH", None, "stock"), ("ana", "discard", "7S", "KS", None),
        ("ben", "draw", "7S", None, "pile"), ("ben", "discard", "KC", "JD", None)]
    draw = judged["decisions"][0]
    assert (draw["source"], draw["loss"], draw["measure"]) == ("stock", 0.0, "this_draw")
    assert judged["players"]["ana"]["decisions"] == 2
    assert first["facts"][0]["evaluator"] == "worse"
    assert first["facts"][0]["evaluator_loss"] == judged["decisions"][1]["loss"]
    assert b"games.ndjson:2: malformed" in done.stderr


def test_every_sample_log_is_analysed():
    done = run("analyse", "--text", "sample_logs/gin-02.json", "sample_logs/rummy-01.json",
               "sample_logs/illegal-greek-invalid-meld.json")
    assert done.returncode == 1
    text = done.stdout.decode()
    assert "knock into undercut" in text  # gin-02, deal 1
    assert "which broke a rule (INVALID_MELD)" in text
