"""The OpenAPI document: flask-smorest's Api, with errors documented as problems.

flask-smorest generates the document from the blueprints' marshmallow schemas.  Its own
error handler and error schema are replaced: errors are RFC 9457 problems
(:mod:`.problems`), so the shared error responses point at :class:`ProblemSchema` with
the ``application/problem+json`` media type.
"""

from __future__ import annotations

import functools
import http
from collections.abc import Callable
from typing import Any, TypeVar

from apispec import BasePlugin
from flask import Flask
from flask_smorest import Api, Blueprint
from flask_smorest.utils import prepare_response
from marshmallow import Schema, fields

from . import log_schemas
from .auth import ACCESS, PUBLIC_NOTE, SCHEME_NAME, SECURITY_SCHEME
from .config import EXTENSION, Settings
from .problems import MEDIA_TYPE, PROBLEM_TYPES, type_uri

PREFIX = "/api/v1"
F = TypeVar("F", bound=Callable[..., Any])


class ProblemSchema(Schema):
    """An RFC 9457 problem."""

    type = fields.String(required=True, metadata={
        "description": "A stable code of the problem, one of: "
                       + ", ".join(type_uri(kind) for kind in PROBLEM_TYPES),
        "example": "/problems/validation-error"})
    title = fields.String(required=True, metadata={"example": "Unprocessable Content"})
    status = fields.Integer(required=True, metadata={"example": 422})
    detail = fields.String(required=True, metadata={
        "example": "the document is not a rummy-log/1 game"})
    instance = fields.String(metadata={"example": "/api/v1/games"})
    deleted_at = fields.String(metadata={
        "description": "game-deleted: when the game was deleted (RFC 3339, UTC)"})
    deleted_by = fields.String(allow_none=True, metadata={
        "description": "game-deleted: the uploader label of the key that deleted it "
                       "(null when writes are open)"})
    reason = fields.String(allow_none=True, metadata={
        "description": "game-deleted: the reason given, if any"})
    links = fields.Dict(keys=fields.String(), values=fields.String(), metadata={
        "description": "game-deleted: the deleted game's URL (self), and the correction's "
                       "(replaced_by) when one replaced it"})
    replaced_by = fields.String(metadata={
        "description": "game-deleted: the game whose corrected log replaced this one, "
                       "when one did"})
    live_correction = fields.String(allow_none=True, metadata={
        "description": "game-deleted, with replaced_by: the correction live now (the "
                       "correction itself or its own correction), null when none is"})
    restorations = fields.List(fields.Dict(), metadata={
        "description": "game-deleted, withdrawn again after a restoration: the earlier "
                       "restorations, oldest first, each as GET /games/{id}/restorations "
                       "lists them (n, restored_at, restored_by, reason, deleted_at, "
                       "deleted_by, deleted_reason, replaced_by)"})
    errors = fields.Dict(keys=fields.String(), values=fields.List(fields.String()), metadata={
        "description": "Validation problems: messages by dotted field path "
                       "('' is the document as a whole)",
        "example": {"deals.0.moves.3.card": ["'1X' is not a card"]}})


class ProblemApi(Api):
    """flask-smorest's Api with problem responses and a bearer security scheme."""

    ERROR_SCHEMA = ProblemSchema

    def _register_error_handlers(self) -> None:
        """Errors are answered by :func:`.problems.install`, not by flask-smorest."""

    def _register_responses(self) -> None:
        for status in http.HTTPStatus:
            if status < 400:
                continue
            response: dict[str, Any] = {"description": status.phrase,
                                        "schema": self.ERROR_SCHEMA}
            prepare_response(response, self.spec, MEDIA_TYPE)
            self.spec.components.response(status.name, response, lazy=True)
        response = {"description": "A problem", "schema": self.ERROR_SCHEMA}
        prepare_response(response, self.spec, MEDIA_TYPE)
        self.spec.components.response(self.DEFAULT_ERROR_RESPONSE_NAME, response, lazy=True)


def problem_responses(blp: Blueprint, *statuses: int) -> Callable[[F], F]:
    """Document the problems a view may answer, each by its shared response.

    flask-smorest's ``alt_response`` documents and also wraps the view in a layer that
    only calls it (a context lookup and a coroutine check per request); the view keeps
    the documentation and sheds the layers."""
    def decorator(func: F) -> F:
        documented = func
        for status in statuses:
            documented = blp.alt_response(status, response=http.HTTPStatus(status).name)(
                documented)
        func._apidoc = documented._apidoc  # type: ignore[attr-defined]
        return func

    return decorator


class ConfiguredPlugin(BasePlugin):
    """What the document says of an operation as this server is configured: a key is
    required only where keys are set (else the operation also takes no credentials,
    ``{}`` among its security alternatives; a public tournament's views always take
    it, and say when), and a page ``limit`` at most the configured largest page."""

    def __init__(self, config: Settings) -> None:
        self.config = config

    def operation_helper(self, path: str | None = None, operations: dict | None = None,
                         **kwargs: Any) -> None:
        for operation in (operations or {}).values():
            access = operation.get(ACCESS)
            keys = self.config.api_keys if access == "write" else self.config.read_keys
            if access is not None and not keys:
                operation["security"] = [*operation.get("security", []), {}]
            elif access == "public":  # keys are set, yet a public tournament needs none
                operation["security"] = [*operation.get("security", []), {}]
                operation["description"] = \
                    f"{operation.get('description', '').rstrip()}\n\n{PUBLIC_NOTE}".lstrip()
            for parameter in operation.get("parameters", []):
                if isinstance(parameter, dict) and parameter.get("in") == "query" \
                        and parameter.get("name") == "limit":
                    parameter["schema"]["maximum"] = self.config.max_page_size


def make_api(app: Flask) -> ProblemApi:
    """The Api of the app; the document is served at ``/api/v1/openapi.json``."""
    app.config.update({
        "API_TITLE": "rummy-audit",
        "API_VERSION": "1",
        "OPENAPI_VERSION": "3.0.3",
        "OPENAPI_URL_PREFIX": PREFIX,
        "OPENAPI_JSON_PATH": "openapi.json",
        "API_SPEC_OPTIONS": {
            "info": {"description": "Verifies Rummy, Gin Rummy and Greek Rummy game logs "
                                    "(rummy-log/1) with a rules engine and stores the "
                                    "verdicts. Every error is an RFC 9457 problem."},
            "servers": [{"url": "/"}],
        },
    })
    api = ProblemApi(app, spec_kwargs={
        "extra_plugins": [ConfiguredPlugin(app.extensions[EXTENSION])]})
    api.spec.components.security_scheme(SCHEME_NAME, SECURITY_SCHEME)
    log_schemas.register(api.spec)  # the log and the report, from schemas/
    _end_with_newline(app, "api-docs.openapi_json")
    return api


def _end_with_newline(app: Flask, endpoint: str) -> None:
    """The document ends with a newline, as every JSON answer of the API does
    (flask-smorest writes it without)."""
    view = app.view_functions[endpoint]

    @functools.wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        response = view(*args, **kwargs)
        body = response.get_data()
        if not body.endswith(b"\n"):
            response.set_data(body + b"\n")
        return response

    app.view_functions[endpoint] = wrapper
