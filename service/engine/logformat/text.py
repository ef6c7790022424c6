"""The JSON text of a log: its size, its depth, and keys repeated in one object."""

from __future__ import annotations

import json
from typing import Any

import orjson

from ..limits import MAX_BYTES, MAX_DEPTH
from ..words import plural
from .errors import LogValidationError, whole

_KEEP_SHAPE = bytes(b for b in range(256) if b not in b'"[]{}')  # delete all but these
_BRACKETS = bytes.maketrans(b"{}", b"[]")


def _deeper_than(raw: bytes, limit: int) -> bool:
    """Whether valid JSON text nests arrays and objects more than ``limit`` deep.

    Iterative and at C speed: escapes are dropped (``\\\\`` pairs first, then ``\\"``),
    only quotes and brackets kept, the strings (odd pieces between quotes) cut out, and
    each pass removes the innermost bracket pairs: the number of passes is the depth.
    """
    if raw.count(b"[") + raw.count(b"{") <= limit:
        return False
    if b"\\" in raw:
        raw = raw.replace(b"\\\\", b"").replace(b'\\"', b"")
    shape = raw.translate(None, _KEEP_SHAPE).replace(b'""', b"")  # keeps every parity
    if b'"' in shape:  # strings holding brackets
        shape = b"".join(shape.split(b'"')[::2])
    shape = shape.translate(_BRACKETS)
    for _ in range(limit):
        if not shape:
            return False
        shape = shape.replace(b"[]", b"")
    return bool(shape)


def _repeated_keys(raw: bytes, value: Any) -> dict[str, list[str]]:
    """The dotted path of every key repeated in its object (orjson keeps the last one
    silently, so the log would say two things and be read as one).

    Cheap test first: every key of the text is followed by a colon, and a colon outside
    strings always follows a key, so when the text holds exactly as many colons as
    orjson's compact serialisation of the decoded value, no pair was dropped: a colon
    inside a string is in both (but one written as the escape ``\\u003a`` only in the
    serialisation, so a text holding that escape takes the exact path).  Otherwise the
    text is decoded again by the standard library with an ``object_pairs_hook`` that
    notes each repeated key.

    Measured on 300 generated logs of 17 KB (six presets; CPU time, best of 30
    alternating runs, in four sessions on a loaded two-core machine): the test adds 45
    to 70 us a log (orjson's serialisation 25-40 us, the two counts 15 us), a quarter to
    a third of orjson's decoding and 1 to 4% of the engine's whole path (decode,
    validate, replay, report: 1.4-1.6 ms); a log that fails it is decoded once more, by
    the standard library."""
    if (b"\\" not in raw or b"\\u003" not in raw) and \
            raw.count(b":") == orjson.dumps(value).count(b":"):
        return {}
    top = json.loads(raw, object_pairs_hook=_Pairs)
    errors: dict[str, list[str]] = {}
    stack: list[tuple[str, Any]] = [("", top)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, _Pairs):
            for key in node.repeated:
                errors[f"{path}.{key}" if path else key] = [
                    "this key appears more than once in its object"]
            stack.extend((f"{path}.{key}" if path else key, item) for key, item in node.items())
        elif isinstance(node, list):
            stack.extend((f"{path}.{i}" if path else str(i), item) for i, item in enumerate(node))
    return dict(sorted(errors.items()))


class _Pairs(dict):
    """A JSON object as the standard library decodes it, with the keys it repeats."""

    def __init__(self, pairs: list[tuple[str, Any]]) -> None:
        super().__init__(pairs)
        self.repeated: list[str] = []
        if len(self) < len(pairs):
            seen: set[str] = set()
            for key, _ in pairs:
                if key in seen and key not in self.repeated:
                    self.repeated.append(key)
                seen.add(key)


def load_json(data: bytes | str, max_bytes: int = MAX_BYTES, *,
              repeated_keys: bool = False) -> Any:
    """Decode one JSON document of at most ``max_bytes`` bytes nested at most
    ``MAX_DEPTH``, in which no object repeats a key (each repeated key is an error at its
    path).  ``repeated_keys=True`` keeps the last of them instead, for logs stored
    before the rule."""
    if isinstance(data, str):
        if len(data) > max_bytes:
            raise whole(f"the document is larger than {plural(max_bytes, 'byte')}")
        try:
            raw = data.encode("utf-8")
        except UnicodeEncodeError:
            raise whole("the document is not valid UTF-8 text") from None
    elif isinstance(data, (bytes, bytearray, memoryview)):
        raw = bytes(data)
    else:
        raise whole(f"a JSON document is bytes or text, not {type(data).__name__}")
    if len(raw) > max_bytes:
        raise whole(f"the document is larger than {plural(max_bytes, 'byte')}")
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        if "depth" in str(exc) or "recursion" in str(exc):
            raise whole(f"the JSON is nested deeper than {MAX_DEPTH} levels") from None
        raise whole(f"invalid JSON: {exc}") from None
    if _deeper_than(raw, MAX_DEPTH):
        raise whole(f"the JSON is nested deeper than {MAX_DEPTH} levels")
    if not repeated_keys:
        repeated = _repeated_keys(raw, value)
        if repeated:
            raise LogValidationError(repeated)
    return value
