"""docs/LOG_FORMAT.md and docs/RULES.md cannot drift from the engine.

* Every option (with its family, values, range, source and per-preset defaults), every
  preset, every violation and warning code and every move action has its row in the docs,
  and the docs have no row the engine does not know.
* Every ```json block is preceded by a comment saying what it is, and is held to it:
  ``<!-- example: log STATUS name=NAME -->`` a complete log, validated by the JSON Schema
  and the parser and replayed to that status; ``<!-- example: part POINTER -->`` a fragment,
  validated by that part of the log schema (``$defs/move``); ``<!-- example: report
  of=NAME -->`` the report of the log NAME, exactly as the engine gives it.
* Every relative link of the docs leads to a file, and to a heading of it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from service.api.variants import describe_variants
from service.engine import parse_game, verify
from service.engine.logformat import schema_errors
from service.engine.model import ACTIONS
from service.engine.report import VIOLATION_CODES, WARNING_CODES
from service.engine.rules import OPTIONS, PRESETS

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
LOG_SCHEMA = json.loads((ROOT / "schemas" / "rummy-log-1.schema.json").read_text())
REPORT_SCHEMA = json.loads((ROOT / "schemas" / "report.schema.json").read_text())
PAGES = ("LOG_FORMAT.md", "RULES.md")
TEXT = {name: (DOCS / name).read_text(encoding="utf-8") for name in PAGES}

_BLOCK = re.compile(r"(?P<before>[^\n]*)\n```json\n(?P<body>.*?)\n```", re.S)
_MARKER = re.compile(r"<!-- example: (?P<kind>log|part|report) (?P<args>[^>]*?) -->")


# --------------------------------------------------------------------------- tables

def table_rows(text: str, header: str) -> list[list[str]]:
    """The rows of the Markdown table whose header row starts with ``header``, as cells."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith(header):
            rows = []
            for row in lines[i + 2:]:
                if not row.startswith("|"):
                    break
                rows.append([cell.strip() for cell in row.strip().strip("|").split(" | ")])
            return rows
    raise AssertionError(f"no table starting with {header!r}")


def first_column(text: str, header: str) -> list[str]:
    """The backticked names of a table's first column."""
    return [re.fullmatch(r"`([^`]+)`", row[0])[1] for row in table_rows(text, header)]


def differences(documented: list[str], known: tuple[str, ...] | list[str]) -> dict[str, set]:
    return {"missing": set(known) - set(documented), "unknown": set(documented) - set(known),
            "repeated": {n for n in documented if documented.count(n) > 1}}


def code_rows(text: str) -> dict[str, set]:
    return differences(first_column(text, "| code | meaning | example |"), VIOLATION_CODES)


def warning_rows(text: str) -> dict[str, set]:
    section = text[text.index("## Warning codes"):]
    return differences(first_column(section, "| code | meaning | example |"), WARNING_CODES)


def option_rows(text: str) -> dict[str, set]:
    return differences(first_column(text, "| option | family |"), list(OPTIONS))


def preset_rows(text: str) -> dict[str, set]:
    return differences(first_column(text, "| preset | family |"), list(PRESETS))


def action_rows(text: str) -> dict[str, set]:
    return differences(first_column(text, "| `a` | required |"), ACTIONS)


NO_DIFFERENCE = {"missing": set(), "unknown": set(), "repeated": set()}


@pytest.mark.parametrize(("rows", "page"), [
    (code_rows, "RULES.md"), (warning_rows, "RULES.md"), (option_rows, "RULES.md"),
    (preset_rows, "RULES.md"), (action_rows, "LOG_FORMAT.md")])
def test_every_name_of_the_engine_has_its_row(rows, page):
    assert rows(TEXT[page]) == NO_DIFFERENCE


def _without_row(text: str, name: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.startswith(f"| `{name}` |"))


def test_a_row_left_out_is_noticed():
    rules, log = TEXT["RULES.md"], TEXT["LOG_FORMAT.md"]
    assert code_rows(_without_row(rules, "EMPTY_STOCK"))["missing"] == {"EMPTY_STOCK"}
    assert warning_rows(_without_row(rules, "SUBOPTIMAL_DECLARATION"))["missing"] \
        == {"SUBOPTIMAL_DECLARATION"}
    assert option_rows(_without_row(rules, "stock_floor"))["missing"] == {"stock_floor"}
    assert preset_rows(_without_row(rules, "greek"))["missing"] == {"greek"}
    assert action_rows(_without_row(log, "reshuffle"))["missing"] == {"reshuffle"}
    extra = rules.replace("| `END_NOT_ALLOWED` |", "| `NO_SUCH_CODE` | x | y |\n"
                          "| `END_NOT_ALLOWED` |")
    assert code_rows(extra)["unknown"] == {"NO_SUCH_CODE"}


# --------------------------------------------------------------------------- options

PRESET_COLUMNS = ("rummy", "rummy-pagat", "rummy-block", "greek", "gin")
DEFAULTS = {v["name"]: v["defaults"] for v in describe_variants()}


def _plain_value(cell: str) -> tuple[bool, Any]:
    """A table cell as a JSON value when it holds one alone (`false`, 25, `"unlimited"`)."""
    text = cell.strip("`")
    if "`" in text:
        return False, None
    try:
        return True, json.loads(text)
    except ValueError:
        return (True, text) if re.fullmatch(r"[a-z_0-9]+", text) else (False, None)


def option_table_problems(text: str) -> list[str]:
    header = table_rows(text, "| option | family |")
    problems = []
    head = next(line for line in text.splitlines() if line.startswith("| option | family |"))
    columns = [c.strip().strip("`") for c in head.strip("|").split("|")]
    assert columns[3:8] == list(PRESET_COLUMNS) and columns[8] == "source", columns
    compared = 0
    for row in header:
        name = row[0].strip("`")
        spec = OPTIONS[name]
        family = {"both": "both", "Rummy": "rummy", "gin": "gin"}.get(row[1])
        if family != spec.family:
            problems.append(f"{name}: family {row[1]!r}")
        values = row[2]
        if spec.kind == "int":
            span = f"{spec.minimum:,} to {spec.maximum:,}"
            if span not in values:
                problems.append(f"{name}: range {span!r} not in {values!r}")
        elif spec.kind == "bool":
            if values != "`true`, `false`":
                problems.append(f"{name}: values {values!r}")
        else:
            for choice in spec.choices:
                if json.dumps(choice).strip('"') not in values:
                    problems.append(f"{name}: choice {choice!r} not in {values!r}")
        if spec.nullable != ("`null`" in values):
            problems.append(f"{name}: null {'not ' if spec.nullable else ''}allowed")
        if row[8] != spec.source:
            problems.append(f"{name}: source {row[8]!r}, the engine says {spec.source!r}")
        for preset, cell in zip(PRESET_COLUMNS, row[3:8], strict=True):
            in_family = spec.family in ("both", PRESETS[preset].family)
            if (cell == "–") == in_family:
                problems.append(f"{name}/{preset}: {cell!r} but in family: {in_family}")
                continue
            plain, value = _plain_value(cell)
            if in_family and plain:
                compared += 1
                if value != DEFAULTS[preset][name]:
                    problems.append(f"{name}/{preset}: {cell!r}, the engine says "
                                    f"{DEFAULTS[preset][name]!r}")
    if compared < 60:
        problems.append(f"only {compared} defaults could be compared")
    return problems


def test_the_options_table_is_the_engines():
    assert option_table_problems(TEXT["RULES.md"]) == []


def test_a_wrong_default_or_range_is_noticed():
    rules = TEXT["RULES.md"]
    wrong = rules.replace("| 10 | 001 |\n| `oklahoma`", "| 9 | 001 |\n| `oklahoma`")
    assert wrong != rules
    assert option_table_problems(wrong) == ["knock_limit/gin: '9', the engine says 10"]
    wrong = rules.replace("integer 0 to 52", "integer 0 to 51")
    assert option_table_problems(wrong) == [
        "stock_floor: range '0 to 52' not in 'integer 0 to 51'"]


def test_the_preset_table_gives_player_counts_and_sources():
    for row in table_rows(TEXT["RULES.md"], "| preset | family |"):
        preset = PRESETS[row[0].strip("`")]
        assert row[3] == preset.source
        counts = [int(n) for n in re.findall(r"\d+", row[2])]
        assert (min(counts), max(counts)) == (preset.min_players, preset.max_players)


# --------------------------------------------------------------------------- examples

def examples(text: str) -> list[tuple[str, str, Any]]:
    """(kind, arguments, value) of every JSON block; a block without a marker fails."""
    out = []
    for match in _BLOCK.finditer(text):
        marker = _MARKER.fullmatch(match["before"].strip())
        assert marker, f"a JSON block without its marker: {match['body'][:60]!r}"
        out.append((marker["kind"], marker["args"], json.loads(match["body"])))
    assert text.count("```json") == len(out)
    return out


ALL = [(page, *example) for page in PAGES for example in examples(TEXT[page])]
LOGS = {re.search(r"name=(\S+)", args)[1]: value for _, kind, args, value in ALL
        if kind == "log" and "name=" in args}


def _part_validator(pointer: str) -> jsonschema.Draft202012Validator:
    """A validator of the part of the log schema at ``pointer`` (``$defs/move``)."""
    part: Any = LOG_SCHEMA
    for key in pointer.split("/"):
        part = part[key]
    return jsonschema.Draft202012Validator(
        {"$schema": LOG_SCHEMA["$schema"], **part, "$defs": LOG_SCHEMA["$defs"]})


@pytest.mark.parametrize(("page", "kind", "args", "value"), ALL,
                         ids=[f"{page}:{n}:{kind}" for n, (page, kind, _, _) in enumerate(ALL)])
def test_every_example_is_what_its_marker_says(page, kind, args, value):
    if kind == "log":
        status = args.split()[0]
        assert status in ("valid", "illegal", "mismatch", "incomplete")
        jsonschema.validate(value, LOG_SCHEMA)
        assert schema_errors(value) == {}
        assert verify(parse_game(value)).status == status
    elif kind == "part":
        _part_validator(args).validate(value)
    else:
        report = verify(parse_game(LOGS[re.fullmatch(r"of=(\S+)", args)[1]])).to_dict()
        jsonschema.validate(value, REPORT_SCHEMA)
        assert value == report


def test_the_worked_example_is_a_valid_gin_log():
    log = LOGS["worked-gin"]
    assert log["variant"] == "gin" and len(log["deals"]) == 1
    assert verify(parse_game(log)).status == "valid"
    assert "<!-- example: log valid name=worked-gin -->" in TEXT["LOG_FORMAT.md"]


def test_each_action_has_its_move_example():
    moves = [value for page, kind, args, value in ALL if kind == "part" and args == "$defs/move"]
    assert {m["a"] for m in moves} == set(ACTIONS)


def test_a_wrong_example_is_noticed():
    with pytest.raises(jsonschema.ValidationError):
        _part_validator("$defs/move").validate({"p": "ana", "a": "peek"})
    with pytest.raises(AssertionError):
        examples("text\n```json\n{}\n```\n")
    tampered = json.loads(json.dumps(LOGS["worked-gin"]))
    tampered["deals"][0]["claimed"]["points"]["ana"] = 20
    assert verify(parse_game(tampered)).status == "mismatch"


# --------------------------------------------------------------------------- links

def _slug(heading: str) -> str:
    text = heading.strip().lower().replace("`", "")
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    return {_slug(line.lstrip("#")) for line in path.read_text(encoding="utf-8").splitlines()
            if line.startswith("#")}


@pytest.mark.parametrize("page", [*PAGES, "DECISIONS.md"])
def test_relative_links_lead_somewhere(page):
    text = (DOCS / page).read_text(encoding="utf-8")
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue
        file_part, _, anchor = target.partition("#")
        path = (DOCS / file_part).resolve() if file_part else DOCS / page
        assert path.exists(), target
        if anchor:
            assert anchor in _anchors(path), target
