"""Write ``service/analysis/gin_values.json``: the gin evaluator's fitted table.

Run from the repository's root (``python tools/gin_value_table.py``); the table is
committed with the package and carries the analysis version it was fitted for (change
the table: bump ``service.store.analysis.VERSION``, and set ``ANALYSIS_VERSION`` here and
``service.store.analysis.GIN_TABLE_VERSION`` to the new version).

The data: two-player gin games of the generator's bots (``GAMES`` games for each pairing
of ``PAIRINGS``, half of them under Oklahoma), game ``i`` of a pairing seeded
``(SEED, pairing, i)``.  Each chance event of each deal (``gin_luck.gin_deal_luck``: the
upcard and every stock draw) is a row: the evaluator's cell of the position after it,
and the deal points the player to act and the other finally scored (halved when the
deal was doubled).  (``rows`` also gives, per deal, the difference between the two
dealt hands in deadwood and in mean value after one draw, with the first player's net
deal points, halved when doubled: ``benchmarks/decisions.py --fit`` reads them.)

The fit, in two steps.  The table: a cell's value is the mean of its rows shrunk toward
its parent's, ``(sum + K * parent) / (n + K)``, the parent of a cell being the mean over
its after and opponent classes (every stock count), that one's parent the after class
alone, and that one's the mean of every row; its slopes a ridge regression.  The blend:
the same games' deals are analysed with that table (``gin_luck``), and each scored
deal gives two rows, one per player: their deal points against the sums, over the
deal's chance events, of each feature's luck (``gin_value.FEATURES``: as it fell less
its mean over the cards) when they drew and when the other drew, and half the
difference of the two dealt hands' features (``gin_value.HAND_FEATURES``; the second
player's row its negative), with a constant for each seat; the weights are the least
squares solution (``BLEND_RIDGE`` added to each squared sum), so that the points less
the luck vary least.  Sums run in a fixed order and values are rounded (the table to 4
decimals, the weights to 6), so the same run writes the same file, bit for bit.

Then the weight of a recorded deck's duplicate (``gin_duplicate``): ``DECK_GAMES``
games of each pairing of ``TERM_PAIRINGS`` dealt from a recorded deck (seeded
``(DECK_SEED, pairing, i)``), each scored deal analysed with the table and the blend; the weight is the least squares
slope of the difference of the two players' points less luck on the duplicate, halved
(the first player's deal luck takes the weight times the duplicate, the second's its
negative).  The weight of the hands' swap (``gin_duplicate.swap``, for a log without
its deck) the same way, on as many games a pairing dealt from hands (seeded
``(SWAP_SEED, pairing, i)``).  Neither term is in the luck these two fits start from.
``--deck-only`` fits these two weights alone against the committed table and blend (the
same numbers a whole run gives, since the rest of the fit is the same).
"""

from __future__ import annotations

import argparse
import json
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from service.analysis import gin_value as V
from service.analysis.gin_luck import gin_deal_luck
from service.analysis.gin_value import GinValues, from_json
from service.engine import parse_game, verify
from service.generator import generate_game

OUT = Path(__file__).resolve().parent.parent / "service" / "analysis" / V.TABLE_FILE
ANALYSIS_VERSION = 9
SEED = 2026
GAMES = 500  # per pairing
PAIRINGS = (("greedy", "careful"), ("careful", "careful"), ("greedy", "greedy"),
            ("careful", "greedy"), ("random", "careful"), ("greedy", "random"))
K = 20.0  # rows a parent's mean weighs as
RIDGE = 200.0  # the weight of a squared slope (points per deadwood point) in a cell's fit
BLEND_RIDGE = 1.0  # added to each squared sum of the blend's least squares
DECK_SEED = SEED + 1
DECK_GAMES = 300  # per pairing, dealt from a recorded deck
# The pairings the two weights are fitted on: those of players who play to win (the
# random player's games, far from any real player's, pull the weights down).
TERM_PAIRINGS = tuple(i for i, pair in enumerate(PAIRINGS) if "random" not in pair)
SWAP_SEED = SEED + 2  # the games, dealt from hands, the swap's weight is fitted on


Event = tuple[int, int, int, float, float]  # cell, after, opponent, mover's and other's points


def game_of(pairing: int, game_no: int, with_deck: bool = False, seed: int = SEED):
    first, second = PAIRINGS[pairing]
    rules = {"oklahoma": True} if game_no % 2 else None
    seed = (DECK_SEED if with_deck else seed, pairing, game_no)
    log = generate_game("gin", seed, players=2, rules=rules, with_deck=with_deck,
                        skills={"ana": first, "ben": second})
    game = parse_game(log)
    return game, verify(game)


def rows(pairing: int, game_no: int) -> tuple[list[Event], list[tuple[int, float, float]]]:
    """The event rows and dealt rows of one game."""
    game, report = game_of(pairing, game_no)
    events: list[Event] = []
    dealt: list[tuple[int, float, float]] = []
    for d, result in enumerate(report.deals):
        if result.outcome is None:
            continue
        points = [result.points.get(name, 0) for name in game.players]
        found: list[tuple[int, int, int, int, int, bool]] = []

        def record(move, mover, other, after, opponent, left, limit, doubled,
                   found=found):
            found.append((V.cell(after, opponent, left, limit), after, opponent, mover, other,
                          doubled))

        luck = gin_deal_luck(game, d, None, record)
        if luck.stopped is not None:
            continue
        doubled = found[0][5] if found else False
        scale = 0.5 if doubled else 1.0
        for at, after, opponent, mover, other, _ in found:
            events.append((at, after, opponent, points[mover] * scale, points[other] * scale))
        a, b = luck.first, luck.second
        net = (points[a] - points[b]) * scale
        dealt.append((luck.dealt[a] - luck.dealt[b], luck.drawn[a] - luck.drawn[b], net))
    return events, dealt


Blend = tuple[float, tuple[float, ...]]  # a player's deal points, their row of features


def blend_rows(pairing: int, game_no: int, values: GinValues) -> list[Blend]:
    """The blend's rows of one game (see the module), its deals analysed with ``values``
    (the table, weighed as it stands)."""
    game, report = game_of(pairing, game_no)
    n = len(V.FEATURES)
    out: list[Blend] = []
    for d, result in enumerate(report.deals):
        if result.outcome is None:
            continue
        luck = gin_deal_luck(game, d, values)
        if luck.stopped is not None:
            continue
        a, b = luck.first, luck.second
        sums = {a: [0.0] * 2 * n, b: [0.0] * 2 * n}
        for event in luck.chances:
            drew, other = sums[event.mover], sums[event.other]
            for j, x in enumerate(event.deltas):
                drew[j] += x
                other[n + j] += x
        half = [(x - y) / 2 for x, y in zip(luck.hands[a], luck.hands[b], strict=True)]
        for seat, sign, first in ((a, 1, 1.0), (b, -1, 0.0)):
            row = tuple(sums[seat] + [sign * h for h in half] + [first, 1.0 - first])
            out.append((float(result.points.get(game.players[seat], 0)), row))
    return out


def solve(rows: list[Blend]) -> list[float]:
    """The least squares solution of ``points = row . x`` (``BLEND_RIDGE`` on the
    diagonal), by Gaussian elimination with partial pivoting, in a fixed order."""
    k = len(rows[0][1])
    m = [[0.0] * (k + 1) for _ in range(k)]
    for y, x in rows:
        for i in range(k):
            xi = x[i]
            if xi:
                mi = m[i]
                for j in range(k):
                    mi[j] += xi * x[j]
                mi[k] += xi * y
    for i in range(k):
        m[i][i] += BLEND_RIDGE
    for c in range(k):
        p = max(range(c, k), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(k):
            if r != c and m[r][c]:
                f = m[r][c] / m[c][c]
                mr, mc = m[r], m[c]
                for j in range(c, k + 1):
                    mr[j] -= f * mc[j]
    return [m[i][k] / m[i][i] for i in range(k)]


def blend(table: dict, found: list[Blend]) -> dict:
    """The table with the blend's weights (see the module)."""
    x = solve(found)
    n, h = len(V.FEATURES), len(V.HAND_FEATURES)
    weights = {"mover_weights": x[:n], "other_weights": x[n:2 * n],
               "hand_weights": x[2 * n:2 * n + h]}
    out = dict(table)
    for key, values in weights.items():
        out[key] = [round(v, 6) for v in values]
    out["blend_rows"] = len(found)
    return out


def term_rows(pairing: int, game_no: int, values: GinValues, with_deck: bool
              ) -> list[tuple[float, float]]:
    """Per scored deal of a game dealt from a recorded deck (``with_deck``) or from
    hands alone: the first player's points less luck less the second's (the luck with
    ``values``), and the deck's duplicate or the hands' swap."""
    game, report = game_of(pairing, game_no, with_deck, SWAP_SEED)
    out: list[tuple[float, float]] = []
    for d, result in enumerate(report.deals):
        if result.outcome is None:
            continue
        luck = gin_deal_luck(game, d, values)
        term = luck.deck if with_deck else luck.swap
        if luck.stopped is not None or term is None:
            continue
        a, b = luck.first, luck.second
        lucks = {a: luck.deal_luck, b: -luck.deal_luck}
        for event in luck.chances:
            lucks[event.mover] += event.mover_luck
            lucks[event.other] += event.other_luck
        points = [result.points.get(game.players[s], 0) - lucks[s] for s in (a, b)]
        out.append((points[0] - points[1], term))
    return out


def term_weight(rows: list[tuple[float, float]]) -> float:
    """Half the least squares slope of the rows' differences on their terms."""
    n = len(rows)
    mean_r = sum(r for r, _ in rows) / n
    mean_x = sum(x for _, x in rows) / n
    cov = sum((r - mean_r) * (x - mean_x) for r, x in rows)
    var = sum((x - mean_x) ** 2 for _, x in rows)
    return round(cov / var / 2, 6)


def with_term_weights(table: dict, jobs: int, games: int) -> dict:
    """The table with the duplicate's and the swap's weights fitted (see the module)."""
    fitted = ("deck_weight", "deck_seed", "deck_games_per_pairing", "deck_rows",
              "swap_weight", "swap_seed", "swap_games_per_pairing", "swap_rows")
    table = {k: v for k, v in table.items() if k not in fitted}
    values = from_json(table)  # no duplicate or swap in the luck
    for with_deck, name, seed in ((True, "deck", DECK_SEED), (False, "swap", SWAP_SEED)):
        work = [(p, i) for p in TERM_PAIRINGS for i in range(games)]
        count = len(work)
        if jobs > 1:
            with ProcessPoolExecutor(jobs) as pool:
                found = list(pool.map(term_rows, *zip(*work, strict=True), [values] * count,
                                      [with_deck] * count, chunksize=8))
        else:
            found = [term_rows(p, i, values, with_deck) for p, i in work]
        rows_ = [row for part in found for row in part]
        table.update({f"{name}_weight": term_weight(rows_), f"{name}_seed": seed,
                      f"{name}_games_per_pairing": games, f"{name}_rows": len(rows_)})
    return table


def write(table: dict) -> None:
    text = ",\n".join(f" {json.dumps(k)}: {json.dumps(v)}" for k, v in table.items())
    OUT.write_text("{\n" + text + "\n}\n", encoding="utf-8")


def shrunk(total: float, n: int, parent: float) -> float:
    return (total + K * parent) / (n + K)


def fit(events: list[Event], dealt: list[tuple[float, float, float]]) -> dict:
    per_left = V.LEFT_CLASSES
    per_after = V.OPPONENT_CLASSES * per_left
    counts = [0] * V.CELLS
    centres = [[0.0, 0.0] for _ in range(V.CELLS)]
    for at, after, opponent, _, _ in events:
        counts[at] += 1
        centres[at][0] += opponent
        centres[at][1] += after
    for at in range(V.CELLS):
        n = max(1, counts[at])
        centres[at] = [round(centres[at][0] / n, 4), round(centres[at][1] / n, 4)]
    columns = []
    for column in (3, 4):
        cells = [0.0] * V.CELLS
        moments = [[0.0] * 5 for _ in range(V.CELLS)]  # Sxx, Sxy, Syy, Sxt, Syt
        for row in events:
            at = row[0]
            cells[at] += row[column]
        for row in events:
            at = row[0]
            x = row[2] - centres[at][0]
            y = row[1] - centres[at][1]
            t = row[column]
            m = moments[at]
            m[0] += x * x
            m[1] += x * y
            m[2] += y * y
            m[3] += x * t
            m[4] += y * t
        everything = sum(cells) / max(1, sum(counts))
        values = []
        for a in range(V.AFTER_CLASSES):
            span = range(a * per_after, (a + 1) * per_after)
            after_mean = shrunk(sum(cells[i] for i in span), sum(counts[i] for i in span),
                                everything)
            for o in range(V.OPPONENT_CLASSES):
                base = a * per_after + o * per_left
                part = range(base, base + per_left)
                pair_mean = shrunk(sum(cells[i] for i in part),
                                   sum(counts[i] for i in part), after_mean)
                for i in part:
                    slopes = ridge(moments[i])
                    values.append([round(shrunk(cells[i], counts[i], pair_mean), 4),
                                   round(slopes[0], 4), round(slopes[1], 4)])
        columns.append(values)
    return {"analysis_version": ANALYSIS_VERSION, "seed": SEED, "games_per_pairing": GAMES,
            "pairings": [list(p) for p in PAIRINGS], "shrinkage": K, "ridge": RIDGE,
            "after_edges": list(V.AFTER_EDGES), "opponent_edges": list(V.OPPONENT_EDGES),
            "left_edges": list(V.LEFT_EDGES),
            "events": len(events), "deals": len(dealt), "centres": centres,
            "mover": columns[0], "other": columns[1]}


def ridge(m: list[float]) -> tuple[float, float]:
    """The two slopes (opponent's deadwood, mover's value after) of one cell by least
    squares on the centred rows, each squared slope weighing ``RIDGE``."""
    sxx, sxy, syy, sxt, syt = m
    sxx += RIDGE
    syy += RIDGE
    det = sxx * syy - sxy * sxy
    return (sxt * syy - syt * sxy) / det, (syt * sxx - sxt * sxy) / det


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--games", type=int, default=GAMES, help="games per pairing")
    parser.add_argument("--rows", help="also write the rows (a pickle) to this file")
    parser.add_argument("--deck-games", type=int, default=DECK_GAMES,
                        help="games per pairing for the duplicate's and the swap's weights")
    parser.add_argument("--deck-only", action="store_true",
                        help="fit the duplicate's and the swap's weights alone, on the "
                             "committed table")
    args = parser.parse_args()
    if args.deck_only:
        table = json.loads(OUT.read_text(encoding="utf-8"))
        table = with_term_weights(dict(table, analysis_version=ANALYSIS_VERSION), args.jobs,
                                  args.deck_games)
        write(table)
        print(f"{OUT.name}: deck weight {table['deck_weight']} over {table['deck_rows']} "
              f"deals, swap weight {table['swap_weight']} over {table['swap_rows']} deals")
        return
    jobs = [(p, i) for p in range(len(PAIRINGS)) for i in range(args.games)]
    if args.jobs > 1:
        with ProcessPoolExecutor(args.jobs) as pool:
            found = list(pool.map(rows, *zip(*jobs, strict=True), chunksize=8))
    else:
        found = [rows(p, i) for p, i in jobs]
    events = [row for e, _ in found for row in e]
    dealt = [row for _, d in found for row in d]
    if args.rows:
        import pickle
        Path(args.rows).write_bytes(pickle.dumps((events, dealt)))
    table = fit(events, dealt)
    values = from_json(table)
    if args.jobs > 1:
        with ProcessPoolExecutor(args.jobs) as pool:
            found_blend = list(pool.map(blend_rows, *zip(*jobs, strict=True),
                                        [values] * len(jobs), chunksize=8))
    else:
        found_blend = [blend_rows(p, i, values) for p, i in jobs]
    table = blend(table, [row for rows_ in found_blend for row in rows_])
    if args.games != GAMES:
        table["games_per_pairing"] = args.games
    table = with_term_weights(table, args.jobs, args.deck_games)
    write(table)
    print(f"{OUT.name}: {len(events)} events, {len(dealt)} deals")


if __name__ == "__main__":
    main()
