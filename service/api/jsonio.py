"""Flask's JSON written by orjson: the same documents, several times faster on the large
verification reports that uploads and game reads answer with.

Dates and dataclasses still go through Flask's own conversion (a ``datetime`` as an HTTP
date), so nothing a client reads changes but the bytes of non-ASCII text, which orjson
writes as UTF-8 rather than ``\\u`` escapes.  Anything orjson refuses (an integer
wider than 64 bits) falls back to Flask's encoder.  Like Flask's, an answer ends with a
newline, so that a terminal's prompt (or the next document, with curl) starts on a line
of its own.
"""

from __future__ import annotations

from typing import Any

import orjson
from flask import Response
from flask.json.provider import DefaultJSONProvider, _default

_OPTIONS = (orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS
            | orjson.OPT_NON_STR_KEYS)


class OrjsonProvider(DefaultJSONProvider):
    """``app.json``: compact output by orjson, Flask's encoder for what it refuses."""

    def _encode(self, obj: Any) -> bytes | None:
        option = _OPTIONS | orjson.OPT_SORT_KEYS if self.sort_keys else _OPTIONS
        try:
            return orjson.dumps(obj, default=_default, option=option)
        except orjson.JSONEncodeError:
            return None

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        if not kwargs:
            encoded = self._encode(obj)
            if encoded is not None:
                return encoded.decode()
        return super().dumps(obj, **kwargs)

    def response(self, *args: Any, **kwargs: Any) -> Response:
        if self.compact is False or (self.compact is None and self._app.debug):
            return super().response(*args, **kwargs)  # indented for people
        encoded = self._encode(self._prepare_response_obj(args, kwargs))
        if encoded is None:
            return super().response(*args, **kwargs)
        return self._app.response_class(encoded + b"\n", mimetype=self.mimetype)
