"""The published JSON Schemas (``schemas/``) as components of the OpenAPI document.

The log format and the report each have one machine copy, the JSON Schema files under
``schemas/``; the OpenAPI document carries them instead of a second description that
could drift.  The document is OpenAPI 3.0.3, whose schema objects are a dialect of JSON
Schema, so each file is translated on the way in:

* every entry of ``$defs`` becomes a component (``move_draw`` of the log is
  ``LogMoveDraw``, the file itself ``Log``; the report's are ``Report...``) and each
  ``$ref`` is rewritten to point at it; a ``$ref`` with other keywords beside it becomes
  ``allOf: [{$ref}]`` with those keywords, since OpenAPI 3.0 ignores a reference's
  siblings;
* ``const`` becomes a one-value ``enum``; a ``type`` list with ``"null"`` becomes the
  type with ``nullable: true`` (and so does an ``enum`` that holds null);
* what OpenAPI 3.0 cannot say is left out: the ``if``/``then``/``else`` rules tying
  fields to the variant (which options belong to which family, the players of each
  preset, ``teams`` in four-player gin) and ``propertyNames``.  The service checks them
  on upload like every other cross-field rule; the component's description says so.

A move stays a ``oneOf`` with one schema per action, each closed to the fields of its
action, so an unknown action or a stray field fails against the OpenAPI schema too.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

SCHEMA_DIR = Path(__file__).resolve().parents[2] / "schemas"
FILES = {"Log": "rummy-log-1.schema.json", "Report": "report.schema.json"}
LOG_REF = {"$ref": "#/components/schemas/Log"}
REPORT_REF = {"$ref": "#/components/schemas/Report"}

_DROPPED = frozenset(("$schema", "$id", "$defs", "if", "then", "else", "propertyNames"))
_LEFT_OUT = (" In this OpenAPI copy the rules that tie fields to the variant (the options "
             "of each family, the players of each preset, teams in four-player gin) are "
             "left out; the service checks them on upload.")


def component_name(prefix: str, definition: str) -> str:
    """``move_draw`` of the log is ``LogMoveDraw``."""
    return prefix + "".join(part.capitalize() for part in definition.split("_"))


def _convert(node: Any, prefix: str) -> Any:
    if isinstance(node, list):
        return [_convert(item, prefix) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _DROPPED:
            continue
        if key == "$ref":
            out[key] = "#/components/schemas/" + component_name(prefix,
                                                                value.rsplit("/", 1)[1])
        elif key == "const":
            out["enum"] = [value]
            if value is None:
                out["nullable"] = True
        elif key == "type" and isinstance(value, list):
            kinds = [kind for kind in value if kind != "null"]
            if len(kinds) == 1:
                out["type"] = kinds[0]
            if "null" in value:
                out["nullable"] = True
        elif key == "enum":
            out["enum"] = list(value)
            if None in value:
                out["nullable"] = True
        elif key == "properties":
            out[key] = {name: _convert(schema, prefix) for name, schema in value.items()}
        elif key in ("allOf", "anyOf", "oneOf"):
            kept = [item for item in (_convert(s, prefix) for s in value) if item]
            if kept:
                out[key] = kept
        elif key in ("items", "additionalProperties", "not"):
            out[key] = _convert(value, prefix)
        else:
            out[key] = value
    if "$ref" in out and len(out) > 1:
        ref = out.pop("$ref")
        out = {"allOf": [{"$ref": ref}], **out}
    return out


@cache
def components() -> dict[str, dict[str, Any]]:
    """Every component the two files give, by name, in OpenAPI 3.0 form."""
    out: dict[str, dict[str, Any]] = {}
    for prefix, file_name in FILES.items():
        document = json.loads((SCHEMA_DIR / file_name).read_text(encoding="utf-8"))
        root = _convert(document, prefix)
        if prefix == "Log":
            root["description"] = root.get("description", "") + _LEFT_OUT
        out[prefix] = root
        for name, definition in document.get("$defs", {}).items():
            out[component_name(prefix, name)] = _convert(definition, prefix)
    return out


def register(spec: Any) -> None:
    """Add the components to an apispec ``APISpec``."""
    for name, schema in components().items():
        spec.components.schema(name, component=json.loads(json.dumps(schema)))
