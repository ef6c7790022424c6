"""Whether the store rates the games it stores."""

from __future__ import annotations

import os


def ratings_enabled() -> bool:
    """``RUMMY_RATINGS`` (1, the default, or 0), for a store process started without
    the app's settings (the gunicorn master's); the app passes its own setting."""
    value = os.environ.get("RUMMY_RATINGS", "").strip().lower()
    return value not in ("0", "false", "no", "off")
