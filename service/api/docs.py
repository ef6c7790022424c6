"""GET /docs: interactive API documentation (Swagger UI), served from installed files.

The page, its scripts and styles all come from this process: Swagger UI's static files
from the swagger-ui-bundle package, the page and its start-up script from here.  No CDN,
no online validator: the docs work offline and behind strict egress rules.
"""

from __future__ import annotations

from html import escape

from flask import Blueprint, Response, abort, redirect, send_from_directory, url_for
from swagger_ui_bundle import swagger_ui_path

from .spec import PREFIX

blp = Blueprint("docs", __name__, url_prefix=f"{PREFIX}/docs")
# The document and the page are also found at the root, where tools look first.
root = Blueprint("root_docs", __name__)

ASSETS = frozenset(("swagger-ui.css", "swagger-ui-bundle.js", "swagger-ui-standalone-preset.js",
                    "favicon-16x16.png", "favicon-32x32.png"))
ASSET_MAX_AGE = 24 * 3600

_INIT_JS = """\
window.addEventListener("load", function () {
  var root = document.getElementById("swagger-ui");
  window.ui = SwaggerUIBundle({
    url: root.getAttribute("data-spec-url"),
    dom_id: "#swagger-ui",
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl],
    layout: "StandaloneLayout"
  });
});
"""

_PAGE = """\
<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>rummy-audit API</title>
  <link rel="stylesheet" href="{css}">
  <link rel="icon" type="image/png" href="{icon}" sizes="32x32">
</head>
<body>
  <div id="swagger-ui" data-spec-url="{spec}"></div>
  <script src="{bundle}"></script>
  <script src="{preset}"></script>
  <script src="{init}"></script>
</body>
</html>
"""


def _asset(name: str) -> str:
    return escape(url_for("docs.asset", name=name))


@blp.get("")
def page() -> Response:
    html = _PAGE.format(css=_asset("swagger-ui.css"), icon=_asset("favicon-32x32.png"),
                        spec=escape(url_for("api-docs.openapi_json")),
                        bundle=_asset("swagger-ui-bundle.js"),
                        preset=_asset("swagger-ui-standalone-preset.js"),
                        init=escape(url_for("docs.init_script")))
    return Response(html, mimetype="text/html")


@blp.get("/init.js")
def init_script() -> Response:
    response = Response(_INIT_JS, mimetype="text/javascript")
    response.cache_control.max_age = ASSET_MAX_AGE
    return response


@blp.get("/assets/<name>")
def asset(name: str) -> Response:
    """One of Swagger UI's files; only the ones the page uses are served."""
    if name not in ASSETS:
        abort(404, description=f"no documentation asset {name[:64]!r}")
    return send_from_directory(str(swagger_ui_path), name, max_age=ASSET_MAX_AGE)


@root.get("/openapi.json")
def root_openapi() -> Response:
    return redirect(url_for("api-docs.openapi_json"), code=308)


@root.get("/docs")
def root_page() -> Response:
    return redirect(url_for("docs.page"), code=308)
