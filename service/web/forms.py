"""What every form of the pages that changes state needs: proof that it was sent from
a page of this site (:func:`same_origin`), and a return target that stays on this site
(:func:`local_target`).

A browser sends the cookies of this site with a form that a page of any other site
posts here (the read cookie is SameSite=Strict, but a form must not depend on the
cookie policy of each browser); the ``Origin`` header it adds says which site the page
was on.  A form is accepted only when ``Origin``, or else ``Referer``, names this site:
a request that carries neither is refused too, since nothing then shows where it came
from (browsers send ``Origin`` with every POST; a privacy setting may drop it, never
both).  ``Origin: null`` (a sandboxed page, a redirect through another site) is refused.

Use the decorator under the route of every view that changes state::

    @blp.post("/key")
    @same_origin
    def key_given(): ...

or call :func:`check_same_origin` first thing in a view that takes several methods.
A refused form is a 403 ``forbidden`` problem: a page for a browser, problem+json for
any other client.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar
from urllib.parse import quote, unquote, urlsplit

from flask import current_app, request, url_for
from werkzeug.exceptions import HTTPException

from ..api.problems import FORBIDDEN, Problem

F = TypeVar("F", bound=Callable[..., Any])

_DEFAULT_PORTS = {"http": "80", "https": "443"}
# The characters of a URL that a target keeps as they are (RFC 3986's unreserved and
# reserved ones, and "%" of its escapes); any other is percent-encoded.
_URL_SAFE = "-._~:/?#[]@!$&'()*+,;=%"
_DOT_SEGMENT = re.compile(r"(?:\.|%2e){1,2}", re.IGNORECASE)


def _host_of(url: str) -> str | None:
    """``host[:port]`` of an absolute http or https URL, lower case and without the default
    port of its scheme; None for anything else (``null``, a path, another scheme)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme not in _DEFAULT_PORTS or not parts.netloc or "@" in parts.netloc:
        return None
    return _without_default_port(parts.netloc.lower(), parts.scheme)


def _without_default_port(host: str, scheme: str) -> str:
    default = ":" + _DEFAULT_PORTS[scheme]
    return host[: -len(default)] if host.endswith(default) else host


def _this_host(scheme: str) -> str:
    """The host and port the browser addressed, as the ``Host`` header names them."""
    return _without_default_port(request.host.lower(), scheme)


def sent_from_here() -> bool:
    """Whether the request names this site as where it was sent from: its ``Origin``
    header, or when there is none its ``Referer``.

    The host and port are compared with the request's ``Host``, not the scheme: a page
    of another scheme cannot be served on the same host and port, and a proxy that ends
    TLS may not tell the app which scheme the browser used.
    """
    origin = request.headers.get("Origin")
    given = origin if origin is not None else request.headers.get("Referer")
    if not given:
        return False
    host = _host_of(given)
    return host is not None and host == _this_host(urlsplit(given).scheme)


def check_same_origin() -> None:
    """A 403 ``forbidden`` problem unless the request was sent from a page of this site
    (:func:`sent_from_here`)."""
    if not sent_from_here():
        raise Problem(403, FORBIDDEN, "this form can only be sent from a page of this site "
                                      "(its Origin or Referer header must name this site)")


def same_origin(view: F) -> F:
    """The view changes state: it runs only for a form sent from a page of this site
    (:func:`check_same_origin`).  Place it right under the route."""

    @wraps(view)
    def checked(*args: Any, **kwargs: Any) -> Any:
        check_same_origin()
        return view(*args, **kwargs)

    return checked  # type: ignore[return-value]


def local_target(target: str | None, fallback: str = "web.games") -> str:
    """``target`` when it is a path of this site that the app serves to a GET (with its
    query and fragment), else the URL of the ``fallback`` endpoint.

    A ``next`` naming another site would make a form an open redirect: refused are an
    absolute URL or ``//host``, any control, format or space character (a browser
    drops tabs and newlines from a URL, so ``/<tab>/evil.example`` is
    ``//evil.example`` to it), a backslash (read as ``/``), dot segments, and any path
    no route of the app serves.  Letters beyond ASCII are percent-encoded, as the
    app's own links have them.
    """
    root = request.script_root
    if not target or any(not c.isprintable() or c.isspace() or c == "\\" for c in target):
        return url_for(fallback)
    encoded = quote(target, safe=_URL_SAFE)
    try:
        parts = urlsplit(encoded)
    except ValueError:
        return url_for(fallback)
    path = parts.path
    if (parts.scheme or parts.netloc or not path.startswith(root + "/")
            or path.startswith("//")
            or any(_DOT_SEGMENT.fullmatch(s) for s in path.split("/"))
            or not _served(unquote(path[len(root):]))):
        return url_for(fallback)
    return encoded


def _served(path: str) -> bool:
    """Whether a route of the app answers GET at ``path`` (below the script root)."""
    adapter = current_app.url_map.bind_to_environ(request.environ)
    try:
        adapter.match(path, method="GET")
    except HTTPException:  # not found, another method, or a redirect elsewhere
        return False
    return True
