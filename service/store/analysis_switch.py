"""Whether the store's process analyses the stored games in the background."""

from __future__ import annotations

import os


def analysis_enabled() -> bool:
    """``RUMMY_ANALYSIS`` (1, the default, or 0), for a store process started without
    the app's settings (the gunicorn master's); the app passes its own setting."""
    value = os.environ.get("RUMMY_ANALYSIS", "").strip().lower()
    return value not in ("0", "false", "no", "off")
