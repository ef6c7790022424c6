"""The orjson provider writes what Flask's own would, only faster."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, date, datetime
from uuid import UUID

from flask import Flask
from flask.json.provider import DefaultJSONProvider

from service.api.jsonio import OrjsonProvider


@dataclass
class Point:
    x: int
    y: str


DOCUMENTS = [
    {"b": 1, "a": [1.5, None, True, "é ♠"], "nested": {"z": {}, "y": []}},
    {"when": datetime(2026, 11, 29, 17, 5, tzinfo=UTC), "day": date(2026, 1, 2)},
    {"id": UUID("12345678123456781234567812345678"), "point": Point(3, "q")},
    {1: "an int key", "big": 2**70, "neg": -(2**70)},  # too wide for orjson: Flask's
    {2: "an int key alone"},
    [],
    "text",
]


def apps(sort_keys: bool) -> tuple[Flask, Flask]:
    ours, theirs = Flask("ours"), Flask("theirs")
    ours.json = OrjsonProvider(ours)
    for app in (ours, theirs):
        app.json.sort_keys = sort_keys  # type: ignore[attr-defined]
    return ours, theirs


def test_same_documents_as_flask():
    for sort_keys in (False, True):
        ours, theirs = apps(sort_keys)
        for document in DOCUMENTS:
            if sort_keys and isinstance(document, dict) \
                    and not all(isinstance(key, str) for key in document):
                continue  # Flask's encoder cannot sort an int key among strings either
            with ours.app_context():
                mine = ours.json.response(document)
                text = ours.json.dumps(document)
            with theirs.app_context():
                reference = theirs.json.response(document)
            assert mine.mimetype == "application/json"
            assert json.loads(mine.get_data()) == json.loads(reference.get_data())
            assert json.loads(text) == json.loads(reference.get_data())
            if sort_keys and isinstance(document, dict):
                assert list(json.loads(mine.get_data())) == sorted(document)


def test_key_order_kept_and_dates_as_flask_writes_them():
    ours, _ = apps(False)
    with ours.app_context():
        data = ours.json.response({"b": 1, "a": date(2026, 1, 2)}).get_data()
    assert data == b'{"b":1,"a":"Fri, 02 Jan 2026 00:00:00 GMT"}\n'


def test_indented_in_debug_as_flask_does():
    ours, _ = apps(False)
    ours.debug = True
    with ours.app_context():
        assert ours.json.response({"a": 1}).get_data() == b'{\n  "a": 1\n}\n'
    assert isinstance(ours.json, DefaultJSONProvider)


def test_every_json_answer_ends_with_one_newline(shared_client):
    """curl's output of two answers, or an answer and the prompt, never runs together."""
    from .helpers import API, post_log, valid

    answers = [
        shared_client.get(f"{API}/variants"),                   # a view's document
        shared_client.get(f"{API}/openapi.json"),               # flask-smorest's
        post_log(shared_client, valid(), "?dry_run=true"),      # an upload
        shared_client.get(f"{API}/games?limit=0"),              # a parameter problem
        shared_client.get(f"{API}/games/nope"),                 # a view's problem
        shared_client.get(f"{API}/nowhere"),                    # Flask's 404 as a problem
        shared_client.delete(f"{API}/variants"),                # Flask's 405 as a problem
    ]
    for response in answers:
        assert response.mimetype in ("application/json", "application/problem+json")
        body = response.get_data()
        assert body.endswith(b"\n") and not body.endswith(b"\n\n"), response.request.path
        json.loads(body)
