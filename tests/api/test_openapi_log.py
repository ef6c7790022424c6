"""The OpenAPI document carries the whole log format: the request body of POST
/api/v1/games accepts every sample log and refuses what the format refuses."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from service.api.games_schemas import EXAMPLE_LOG, EXAMPLE_REPORT
from service.engine import parse_game, verify

from .helpers import API

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_logs"


def _as_json_schema(node: Any) -> Any:
    """An OpenAPI 3.0 schema object read as JSON Schema: ``nullable`` admits null."""
    if isinstance(node, list):
        return [_as_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _as_json_schema(value) for key, value in node.items() if key != "nullable"}
    if node.get("nullable"):
        if "type" in out:
            out["type"] = [out["type"], "null"]
        if "enum" in out and None not in out["enum"]:
            out["enum"] = [*out["enum"], None]
    return out


@pytest.fixture(scope="module")
def spec(shared_app) -> dict[str, Any]:
    return shared_app.test_client().get(f"{API}/openapi.json").get_json()


def _validator(spec: dict[str, Any], schema: dict[str, Any]) -> jsonschema.Validator:
    root = {"components": _as_json_schema(spec["components"]), **_as_json_schema(schema)}
    return jsonschema.Draft202012Validator(root)


@pytest.fixture(scope="module")
def upload_body(spec) -> jsonschema.Validator:
    body = spec["paths"]["/api/v1/games"]["post"]["requestBody"]
    return _validator(spec, body["content"]["application/json"]["schema"])


def _samples() -> list[tuple[str, Any]]:
    out = []
    for path in sorted(SAMPLES.iterdir()):
        if path.suffix == ".ndjson":
            out += [(f"{path.name}:{n}", json.loads(line))
                    for n, line in enumerate(path.read_text().splitlines(), 1) if line.strip()]
        else:
            out.append((path.name, json.loads(path.read_text())))
    return out


SAMPLE_LOGS = _samples()


def test_the_body_is_the_log_component(spec):
    body = spec["paths"]["/api/v1/games"]["post"]["requestBody"]["content"]
    assert body["application/json"]["schema"] == {"$ref": "#/components/schemas/Log"}
    schemas = spec["components"]["schemas"]
    deals = schemas["Log"]["properties"]["deals"]
    assert deals["items"] == {"$ref": "#/components/schemas/LogDeal"}
    moves = schemas["LogMove"]["oneOf"]
    assert len(moves) == 10  # one schema per action
    assert all(set(s) == {"$ref"} for s in moves)
    log = spec["paths"]["/api/v1/games/{game_id}/log"]["get"]["responses"]["200"]
    assert log["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Log"}


def test_no_json_schema_only_keyword_is_left(spec):
    text = json.dumps(spec["components"]["schemas"])
    for keyword in ('"$defs"', '"const"', '"if"', '"then"', '"propertyNames"', '"$schema"'):
        assert keyword not in text
    assert "#/$defs/" not in text
    for schema in spec["components"]["schemas"].values():
        types = [schema.get("type")]
        assert all(not isinstance(t, list) for t in types)


@pytest.mark.parametrize(("name", "document"), SAMPLE_LOGS, ids=[n for n, _ in SAMPLE_LOGS])
def test_the_body_schema_accepts_every_sample(upload_body, name, document):
    upload_body.validate(document)


def test_the_body_schema_accepts_the_example(upload_body):
    upload_body.validate(EXAMPLE_LOG)


def _changed(change) -> dict[str, Any]:
    log = copy.deepcopy(EXAMPLE_LOG)
    change(log)
    return log


@pytest.mark.parametrize("change", [
    lambda log: log["deals"][0]["moves"].append({"p": "ben", "a": "peek"}),
    lambda log: log["deals"][0]["moves"][0].update(a="steal"),
    lambda log: log["deals"][0]["moves"][0].update(cards=["7D"]),  # a field of meld
    lambda log: log["deals"][0]["moves"][1].pop("card"),  # a knock discards
    lambda log: log["deals"][0]["moves"][0].update(card="1X"),
    lambda log: log["deals"][0].update(extra=True),
    lambda log: log["deals"][0].update(deck=["AC"] * 51),
    lambda log: log.update(moevs=[]),
    lambda log: log.update(format="rummy-log/2"),
    lambda log: log["rules"].update(no_such_option=1),
    lambda log: log["rules"].update(knock_limit=11),
    lambda log: log["deals"][0].pop("upcard"),
], ids=["unknown-action", "unknown-action-in-place", "field-of-another-action",
        "missing-field", "no-card", "unknown-deal-field", "short-deck", "unknown-top-field",
        "other-format", "unknown-option", "option-out-of-range", "no-upcard-without-deck"])
def test_the_body_schema_refuses_what_the_format_refuses(upload_body, change):
    log = _changed(change)
    with pytest.raises(jsonschema.ValidationError):
        upload_body.validate(log)
    with pytest.raises(ValueError):
        parse_game(log)


def test_null_where_the_format_allows_it(upload_body):
    log = _changed(lambda log: log["deals"][0].update(
        claimed={"winner": None, "outcome": None}))
    upload_body.validate(log)


def test_the_report_components_describe_the_report(spec):
    upload = spec["paths"]["/api/v1/games"]["post"]["responses"]["201"]
    result = upload["content"]["application/json"]["schema"]
    ref = result["$ref"].rsplit("/", 1)[1]
    report = spec["components"]["schemas"][ref]["properties"]["report"]
    assert {"$ref": "#/components/schemas/Report"} in report["allOf"]
    validator = _validator(spec, {"$ref": "#/components/schemas/Report"})
    validator.validate(EXAMPLE_REPORT)
    for _, document in SAMPLE_LOGS:
        validator.validate(verify(parse_game(document)).to_dict())
    with pytest.raises(jsonschema.ValidationError):
        validator.validate({**EXAMPLE_REPORT, "status": "fine"})
