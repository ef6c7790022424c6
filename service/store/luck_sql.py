"""The cross-fitted luck-adjusted points in SQL: ``service.analysis.luck_share`` over the
stored analysis rows, in integers (HUGEINT) to the same last digit."""

from __future__ import annotations

from ..analysis.luck_share import E4, PRIOR_SHARE_E4, PRIOR_WEIGHT_E8
from ..engine.rules import GIN


def _share(half: str) -> str:
    numerator = (f"(({half}.pl * {half}.n - {half}.p * {half}.nl) * {E4} "
                 f"+ CAST({PRIOR_SHARE_E4} AS HUGEINT) * {PRIOR_WEIGHT_E8} * {half}.n)")
    denominator = f"(({half}.ll + {PRIOR_WEIGHT_E8}) * {half}.n)"
    return (f"CASE WHEN {half}.n IS NULL OR {half}.n = 0 THEN {PRIOR_SHARE_E4} "
            f"WHEN {numerator} <= 0 THEN 0 "
            f"ELSE least({E4}, (2 * {numerator} + {denominator}) // (2 * {denominator})) END")


def luck_ctes(keys: str, where: str) -> str:
    """Common table expressions ending in ``luck (keys..., luck_deals, luck_e4,
    adjusted_e8, share_e4)``: per value of ``keys`` (columns of ``analysis_players``, a
    player or a variant), the scored deals whose luck is stored, their luck (units of
    0.0001 point), the adjusted points (units of 0.00000001 point) and, over gin, the
    share of luck measured on all the rows.  Gin's luck (deal points, an exact zero mean)
    is weighed by the cross-fitted share; the Rummy family's (card points) is taken
    whole, as each game's analysis adjusts it.  ``where`` filters the rows (clauses
    starting with AND, parameters bound by the caller once)."""
    names = keys.split(", ")
    joined = " AND ".join(f"o.{k} = x.{k}" for k in names)
    return f"""
        luck_games AS (
            SELECT {keys}, game_id, variant = '{GIN}' AS gin,
                   CAST(sum(luck_deals) AS HUGEINT) AS n,
                   CAST(sum(luck_e4 + adjusted_e4) AS HUGEINT) AS p,
                   CAST(sum(luck_e4) AS HUGEINT) AS l, CAST(sum(adjusted_e4) AS HUGEINT) AS a
            FROM analysis_players WHERE luck_deals > 0{where}
            GROUP BY {keys}, game_id, variant),
        luck_halves AS (
            SELECT {keys}, ascii(right(game_id, 1)) % 2 AS half, sum(n) AS n, sum(p) AS p,
                   sum(l) AS l, sum(p * l) AS pl, sum(l * l) AS ll, sum(n * l) AS nl
            FROM luck_games WHERE gin GROUP BY ALL),
        luck_whole AS (
            SELECT {keys}, sum(n) AS n, sum(p) AS p, sum(l) AS l, sum(p * l) AS pl,
                   sum(l * l) AS ll, sum(n * l) AS nl
            FROM luck_games WHERE gin GROUP BY ALL),
        luck_parts AS (
            SELECT {", ".join(f"x.{k}" for k in names)}, x.n, x.l,
                   x.p * {E4} - ({_share("o")}) * x.l AS adjusted_e8,
                   {_share("w")} AS share_e4
            FROM luck_halves x
            LEFT JOIN luck_halves o ON {joined} AND o.half = 1 - x.half
            JOIN luck_whole w ON {joined.replace("o.", "w.")}
            UNION ALL
            SELECT {keys}, n, l, a * {E4}, NULL FROM luck_games WHERE NOT gin),
        luck AS (
            SELECT {keys}, CAST(sum(n) AS BIGINT) AS luck_deals,
                   CAST(sum(l) AS BIGINT) AS luck_e4, sum(adjusted_e8) AS adjusted_e8,
                   CAST(max(share_e4) AS INTEGER) AS share_e4
            FROM luck_parts GROUP BY ALL)"""
