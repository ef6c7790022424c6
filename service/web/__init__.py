"""The web app for people: pages served beside the API by the same Flask app.

Server-rendered Jinja pages (``templates/``) with a few small ES modules and one
stylesheet (``static/``, served under ``/assets``); nothing is loaded from elsewhere,
so the pages work on a machine without internet.  The pages read through the same
layers as the API (the store's reads, the engine's replay) and add no SQL and no
rules; the replay viewer and the upload page call the API from the browser.

Errors of the pages are answered as a page to a browser and as the API's problem+json
to any other client (:func:`wants_html`): the same status, the same detail.
"""

from __future__ import annotations

from urllib.parse import quote

from flask import Blueprint, Flask, Response, render_template, request, url_for
from werkzeug.exceptions import HTTPException

from ..api import problems
from ..api.auth import writes_need_a_key
from ..api.spec import PREFIX

blp = Blueprint("web", __name__, template_folder="templates", static_folder="static",
                static_url_path="/assets")


def wants_html() -> bool:
    """The client prefers a page to JSON, as a browser does (``text/html`` ranked above
    ``application/json``); a client sending no Accept header, or ``*/*``, gets JSON."""
    accept = request.accept_mimetypes
    return accept.quality("text/html") > accept.quality("application/json")


def _page_error(error: HTTPException):
    """A friendly page for a browser; the API's problem+json for anyone else."""
    if not wants_html():
        return problems.http_problem(error)
    status = error.code or 500
    headers = [(name, value) for name, value in error.get_headers()
               if name.lower() != "content-type"]  # Allow, WWW-Authenticate, ...
    if isinstance(error, problems.Problem):
        headers.extend(error.extra_headers.items())
    key_page = None
    title, detail = error.name, error.description
    if status in (401, 403) and request.method == "GET":  # a key may open the page
        key_page = url_for("web.key", next=_this_page())
        # The problem speaks to API clients (headers, bearer keys); a person is told
        # what the server asks of them, and where to give it.
        if status == 401:
            title = "A read key is needed"
            detail = ("This server shows its stored games only to people who hold a read "
                      "key (a write key works too). Enter your key once and this browser "
                      "keeps it until it closes.")
        else:
            title = "This read key does not open the page"
            detail = ("The key this browser holds is not one of this server's read keys "
                      "(it may have been changed). Enter the current key.")
    replaced = None
    withdrawn = None
    if isinstance(error, problems.Problem) and error.kind == problems.GAME_DELETED \
            and status == 410:
        title, detail, replaced = _withdrawn_words(error.extra)
        withdrawn = _withdrawn_game(error.extra)
    return render_template("error.html", status=status, title=title, detail=detail,
                           key_page=key_page, replaced=replaced,
                           withdrawn=withdrawn), status, headers


def _withdrawn_words(extra: dict) -> tuple[str, str, str | None]:
    """A withdrawn game's page, for a person: when (to the minute, UTC), by whom and
    why, and the page of the game that replaced it, if one did."""
    when = str(extra.get("deleted_at") or "")[:16].replace("T", " ")
    by = extra.get("deleted_by") or "an open write (no key)"
    detail = f"This game was withdrawn on {when} UTC by {by}"
    if extra.get("reason"):
        detail += f": \u2068{extra['reason']}\u2069"  # isolated, as the pages' <bdi>
    replaced_by = extra.get("replaced_by")
    if replaced_by:
        detail += ". A corrected log replaced it"
    return "A withdrawn game", detail + ".", (
        url_for("web.game", game_id=replaced_by) if replaced_by else None)


def _withdrawn_game(extra: dict) -> dict | None:
    """What the withdrawn game's page offers a director: the game to restore (named by
    the page's own address), its earlier restorations (the audit trail: each with the
    withdrawal it undid), whether a key is needed, and the live correction that has to
    be withdrawn first, if one replaced it."""
    game_id = (request.view_args or {}).get("game_id")
    if not isinstance(game_id, str):
        return None
    return {"id": game_id, "restorations": extra.get("restorations", []),
            "replaced_by": extra.get("replaced_by"),
            "live_correction": extra.get("live_correction"),
            "key_needed": writes_need_a_key()}


def _this_page() -> str:
    """The URL of the page asked for, its path built again by its route (the path the
    app sees is decoded: a tournament id's ``%2F`` is a ``/`` there), with its query."""
    path = url_for(request.endpoint, **(request.view_args or {})) \
        if request.endpoint is not None else request.script_root + quote(request.path)
    query = request.query_string.decode("latin-1")
    return f"{path}?{query}" if query else path


def install(app: Flask) -> None:
    """Register the pages (before the API's ``/`` redirect, which they take over for
    browsers) and their error pages."""
    from . import crosstable, settings, sheets, versus, views  # noqa: F401 - register the routes on ``blp``

    app.register_blueprint(blp)
    app.register_error_handler(404, _unknown_path)


def _unknown_path(error: HTTPException):
    """A path no route serves: a page for a browser outside the API, else a problem."""
    if request.path.startswith(PREFIX + "/") or request.path == PREFIX:
        return problems.http_problem(error)
    return _page_error(error)


# The pages load nothing from elsewhere, and the browser is told to hold them to it.
POLICY = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
          "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
          "frame-ancestors 'none'")


@blp.after_request
def _policy(response: Response) -> Response:
    if response.mimetype == "text/html":
        response.headers.setdefault("Content-Security-Policy", POLICY)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
    return response


blp.register_error_handler(HTTPException, _page_error)
