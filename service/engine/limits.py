"""The ranges of the rummy-log/1 format: every size, count, number and time a log may
hold, in one place (docs/LOG_FORMAT.md states them for users).

A value outside its range is a validation error, never an illegal move: the game is
not judged at all.  The ranges are wide enough for any real game and narrow enough
that every value the engine computes from a valid log (totals, margins, hand values)
fits a 64-bit integer, and every claimed value is read exactly by any JSON reader.
"""

from __future__ import annotations

import calendar
import re
from datetime import UTC, datetime, timedelta, timezone

MAX_BYTES = 1 << 20  # default size limit of one document, in bytes of UTF-8
MAX_DEPTH = 20  # arrays and objects nested in each other; the format itself needs 7
MAX_DEALS = 1000  # deals per game
MAX_MOVES = 2000  # moves per deal
MAX_ID_LENGTH = 128  # `id`, `tournament.id`, `tournament.table`
MAX_PLAYER_LENGTH = 64  # a player id: 1 to 64 characters
MAX_ROUND = 1_000_000  # `tournament.round`: 1 to this
MAX_MELD_INDEX = 51  # a layoff's `meld`: 0 to this (one deck never holds more melds)
# Claimed points and totals: the integers every JSON reader holds exactly (2^53 - 1).
MAX_CLAIM = (1 << 53) - 1
# Points options (bonuses, ace points, target): with at most 1,000 deals, no total
# the engine computes comes near 2^63 (about 10^11 at the very most).
MAX_OPTION_POINTS = 1_000_000

# Times (`played_at`, and the `since`/`until` bounds of the API): years as written.
# Any offset keeps them inside the years 1899 to 9999 in UTC, which every store and
# every date library holds; leap seconds (:60) are refused for the same reason.
MIN_YEAR, MAX_YEAR = 1900, 9998

_RFC3339 = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]+))?"
    r"(?:[Zz]|([+-])([0-9]{2}):([0-9]{2}))")
_DATE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")


def _date_ok(year: int, month: int, day: int) -> bool:
    return (MIN_YEAR <= year <= MAX_YEAR and 1 <= month <= 12
            and 1 <= day <= calendar.monthrange(year, month)[1])


def instant(text: str) -> datetime | None:
    """The time an RFC 3339 date-time (section 5.6) names, like ``2024-05-01T19:30:00Z``
    or ``2024-05-01T21:30:00.250+02:00``, as an aware datetime in its own offset; None
    when the text is not one, or is outside the years 1900 to 9998, or is a leap second.
    Fractions beyond microseconds are cut."""
    m = _RFC3339.fullmatch(text)
    if m is None:
        return None
    year, month, day, hour, minute, second = (int(g) for g in m.groups()[:6])
    if not _date_ok(year, month, day) or hour > 23 or minute > 59 or second > 59:
        return None
    fraction, sign, off_h, off_m = m.group(7), m.group(8), m.group(9), m.group(10)
    zone = UTC
    if sign is not None:
        hours, minutes = int(off_h), int(off_m)
        if hours > 23 or minutes > 59:
            return None
        offset = timedelta(hours=hours, minutes=minutes)
        zone = timezone(-offset if sign == "-" else offset)
    micro = int((fraction or "0")[:6].ljust(6, "0"))
    return datetime(year, month, day, hour, minute, second, micro, tzinfo=zone)


def calendar_date(text: str) -> datetime | None:
    """Midnight UTC of a date written ``2024-05-01``, within the same years; else None."""
    m = _DATE.fullmatch(text)
    if m is None:
        return None
    year, month, day = (int(g) for g in m.groups())
    return datetime(year, month, day, tzinfo=UTC) if _date_ok(year, month, day) else None


TIME_RANGE = f"years {MIN_YEAR} to {MAX_YEAR}, seconds 00 to 59"
