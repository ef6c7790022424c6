"""Deal and game scoring for every scoring mode and bonus.

Seats are ints; ``values`` maps a seat to the card points left in its hand (Rummy
family) or its counted deadwood (gin).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from .model import Outcome
from .rules import Rules, RummyBonus, Scoring

KNOCK, GIN, UNDERCUT, TIE = Outcome.KNOCK, Outcome.GIN, Outcome.UNDERCUT, Outcome.TIE


def rummy_out_points(rules: Rules, seats: Sequence[int], winner: int,
                     values: dict[int, int], rummy: bool) -> dict[int, int]:
    """A deal won by going out, with the rummy bonus when the winner went rummy.

    winner_collects: the winner scores the cards left in the other hands;
    penalty: each loser scores their own cards as penalty points;
    settlement: each loser pays the winner the points in their hand.
    The bonus: double (everything doubled), plus10 (10 more for the winner; under
    penalty the winner gets -10), penalty25 (25 more per loser).
    """
    bonus = rules.rummy_bonus if rummy else "none"
    losers = [s for s in seats if s != winner]
    factor = 2 if bonus == RummyBonus.DOUBLE else 1
    extra = 25 if bonus == RummyBonus.PENALTY25 else 0
    points = dict.fromkeys(seats, 0)
    if rules.scoring == Scoring.WINNER_COLLECTS:
        points[winner] = sum(factor * values[s] + extra for s in losers)
        if bonus == RummyBonus.PLUS10:
            points[winner] += 10
    elif rules.scoring == Scoring.PENALTY:
        for s in losers:
            points[s] = factor * values[s] + extra
        if bonus == RummyBonus.PLUS10:
            points[winner] = -10
    else:  # settlement
        plus = 10 if bonus == RummyBonus.PLUS10 else 0
        for s in losers:
            points[s] = -(factor * values[s] + extra + plus)
        points[winner] = -sum(points[s] for s in losers)
    return points


def rummy_blocked_points(rules: Rules, seats: Sequence[int],
                         values: dict[int, int]) -> tuple[dict[int, int], int | None]:
    """A deal that ended with nobody out: no bonus.

    winner_collects: the lowest hand scores the sum of the differences with every
    other hand (000: A 6, B 15, C 7, D 21 -> A scores 25); players tied for lowest
    share it, rounded down, and the deal has no winner.  penalty: every player scores
    their own cards, no winner.  settlement: each higher hand pays its difference to
    the lowest; tied lowest hands share, the remainder is lost.
    """
    points = dict.fromkeys(seats, 0)
    if rules.scoring == Scoring.PENALTY:
        for s in seats:
            points[s] = values[s]
        return points, None
    low = min(values[s] for s in seats)
    lowest = [s for s in seats if values[s] == low]
    total = sum(values[s] - low for s in seats)
    share = total // len(lowest)
    for s in lowest:
        points[s] = share
    if rules.scoring == Scoring.SETTLEMENT:
        for s in seats:
            if values[s] != low:
                points[s] = -(values[s] - low)
    return points, lowest[0] if len(lowest) == 1 else None


def gin_points(rules: Rules, knocker: int, defender: int, knocker_deadwood: int,
               defender_deadwood: int, gin: bool, big_gin: bool = False,
               doubled: bool = False) -> tuple[str, int | None, dict[int, int]]:
    """Outcome, winner and points of a knock or gin (001).

    Gin scores the gin bonus (big gin: the big gin bonus) plus the defender's
    deadwood.  A knock scores the difference; when the knocker's count is higher, or
    equal under ``undercut_on_tie``, the defender scores the difference plus the
    undercut bonus; an equal count otherwise scores nothing.  Oklahoma's spade
    upcard doubles the deal.
    """
    points = {knocker: 0, defender: 0}
    factor = 2 if doubled else 1
    if gin:
        bonus = rules.big_gin_bonus if big_gin else rules.gin_bonus
        points[knocker] = factor * ((bonus or 0) + defender_deadwood)
        return GIN, knocker, points
    diff = defender_deadwood - knocker_deadwood
    if diff > 0:
        points[knocker] = factor * diff
        return KNOCK, knocker, points
    if diff == 0 and not rules.undercut_on_tie:
        return TIE, None, points
    points[defender] = factor * (-diff + rules.undercut_bonus)
    return UNDERCUT, defender, points



def gin_deal_bonuses(rules: Rules, deal: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The bonuses of a scored gin deal, from its report (``outcome``, ``winner``,
    ``points``, ``hand_values``) and the game's rules (001), each with its player and
    whether it is in the deal's points (``in_deal``) or added at the game's end:

    * ``gin``: ``gin_bonus`` (``big gin``: ``big_gin_bonus``) in the winner's points;
    * ``undercut``: ``undercut_bonus`` in the defender's points;
    * ``box``: ``box_bonus`` for every deal won, added to the winner's side once the
      game is over (see :meth:`Scoreboard.final`).

    Oklahoma's spade upcard doubles a deal: the bonus in its points is then doubled
    too, read from the points as :func:`gin_points` made them.  A deal without a
    winner (a tie, a void deal, one not scored) has none."""
    winner = deal.get("winner")
    if not rules.is_gin or winner is None or deal.get("outcome") is None:
        return []
    points = deal["points"]
    values = deal["hand_values"]
    others = [player for player in points if player != winner]
    out: list[dict[str, Any]] = []
    if others:
        other = others[0]
        scored = points[winner]
        if deal["outcome"] == GIN:
            # the base of a gin is its bonus plus the defender's deadwood
            kinds = [("gin", rules.gin_bonus)]
            if rules.big_gin_bonus is not None:
                kinds.append(("big gin", rules.big_gin_bonus))
            for kind, bonus in kinds:
                factor = _factor(rules, scored, bonus + values[other])
                if factor:
                    out.append({"kind": kind, "player": winner, "points": factor * bonus,
                                "in_deal": True})
                    break
        elif deal["outcome"] == UNDERCUT:
            base = values[other] - values[winner] + rules.undercut_bonus
            factor = _factor(rules, scored, base) or 1
            out.append({"kind": "undercut", "player": winner,
                        "points": factor * rules.undercut_bonus, "in_deal": True})
    out.append({"kind": "box", "player": winner, "points": rules.box_bonus, "in_deal": False})
    return out


def _factor(rules: Rules, scored: int, base: int) -> int:
    """1 or 2 (Oklahoma's doubled deal) when ``scored`` is ``base`` so scored, else 0."""
    if scored == base:
        return 1
    if rules.oklahoma and scored == 2 * base:
        return 2
    return 0

@dataclass
class Scoreboard:
    """Running game score by side (a player, or a partnership in four-player gin)."""

    rules: Rules
    sides: list[str]
    side_of: dict[int, int]  # seat -> side index
    totals: list[int] = field(init=False)
    boxes: list[int] = field(init=False)
    units: int = 0  # deals, or rounds in partnership gin
    shutouts: int = 0  # gin, once the game is over: the winner's opponents left at 0

    # gin, once the game is over: each side's end bonuses by kind (box, game, shutout)
    bonuses: list[dict[str, int]] = field(init=False)

    def __post_init__(self) -> None:
        self.totals = [0] * len(self.sides)
        self.boxes = [0] * len(self.sides)
        self.bonuses = [{} for _ in self.sides]

    @property
    def lower_wins(self) -> bool:
        return not self.rules.is_gin and self.rules.scoring == Scoring.PENALTY

    def add_deal(self, points: dict[int, int], winner: int | None) -> None:
        for seat, value in points.items():
            self.totals[self.side_of[seat]] += value
        if winner is not None:
            self.boxes[self.side_of[winner]] += 1

    def end_unit(self) -> None:
        self.units += 1

    def over(self) -> bool:
        """The end condition: ``target`` reached (>=) or ``deals`` played, the first."""
        rules = self.rules
        if rules.deals is not None and self.units >= rules.deals:
            return True
        return rules.target is not None and max(self.totals) >= rules.target

    def leader(self) -> int | None:
        """The best side by game score, None on a tie for best."""
        best = min(self.totals) if self.lower_wins else max(self.totals)
        leaders = [i for i, t in enumerate(self.totals) if t == best]
        return leaders[0] if len(leaders) == 1 else None

    def final(self, finished: bool) -> tuple[list[int], int | None, int]:
        """Totals with the end-of-game bonuses, the winning side and the margin.

        Gin: each box adds ``box_bonus`` to its side, the winner gets ``game_bonus``
        and ``shutout_bonus`` once per opponent who scored no point (with
        ``shutout_double``, the winner's whole score is doubled for each instead); these
        count only once the game is over.  An unfinished game has no winner.
        """
        totals = list(self.totals)
        winner = self.leader() if finished else None
        if self.rules.is_gin and finished:
            for i, boxes in enumerate(self.boxes):
                self.bonuses[i]["box"] = boxes * self.rules.box_bonus
                totals[i] += boxes * self.rules.box_bonus
            if winner is not None:
                totals[winner] += self.rules.game_bonus
                self.shutouts = sum(1 for i, t in enumerate(self.totals)
                                    if i != winner and t == 0)
                if self.rules.shutout_double:
                    # the whole score (deal points, boxes, game bonus) doubled, once for
                    # each opponent shut out
                    shutout = totals[winner] * (2 ** self.shutouts - 1)
                else:
                    shutout = self.shutouts * self.rules.shutout_bonus
                totals[winner] += shutout
                self.bonuses[winner]["game"] = self.rules.game_bonus
                self.bonuses[winner]["shutout"] = shutout
        margin = 0
        if winner is not None:
            others = [t for i, t in enumerate(totals) if i != winner]
            if self.lower_wins:
                margin = min(others) - totals[winner]
            else:
                margin = totals[winner] - max(others)
        return totals, winner, margin


HOLLYWOOD_GAMES = 3


@dataclass
class HollywoodBoard(Scoreboard):
    """Hollywood gin: one pair plays three games at once.  A player's first win scores
    in game 1, the second in games 1 and 2, every later one in all three; a game that is
    over takes no more points.  Each game ends at ``target`` with its own boxes (a box
    for each deal scored in it), game bonus and shutout; the match is over when all
    three are (or after ``deals`` deals).  The match's totals are the sums of the three
    games' final totals, and its winner the higher sum."""

    games: list[Scoreboard] = field(init=False)
    wins: list[int] = field(init=False)  # deals won by each side in the match
    results: list[tuple[list[int], int | None, int]] = field(init=False)  # each game's final

    def __post_init__(self) -> None:
        super().__post_init__()
        one = replace(self.rules, deals=None, hollywood=False)
        self.games = [Scoreboard(one, self.sides, self.side_of) for _ in range(HOLLYWOOD_GAMES)]
        self.wins = [0] * len(self.sides)
        self.results = []

    def add_deal(self, points: dict[int, int], winner: int | None) -> None:
        super().add_deal(points, winner)
        if winner is None:
            return
        side = self.side_of[winner]
        self.wins[side] += 1
        for board in self.games[:min(self.wins[side], HOLLYWOOD_GAMES)]:
            if not board.over():
                board.add_deal(points, winner)

    def over(self) -> bool:
        rules = self.rules
        if rules.deals is not None and self.units >= rules.deals:
            return True
        return rules.target is not None and all(board.over() for board in self.games)

    def final(self, finished: bool) -> tuple[list[int], int | None, int]:
        self.results = [board.final(finished) for board in self.games]
        totals = [sum(result[0][i] for result in self.results)
                  for i in range(len(self.sides))]
        self.boxes = [sum(board.boxes[i] for board in self.games)
                      for i in range(len(self.sides))]
        self.bonuses = [{kind: sum(board.bonuses[i].get(kind, 0) for board in self.games)
                         for kind in ("box", "game", "shutout")}
                        for i in range(len(self.sides))]
        self.shutouts = sum(board.shutouts for board in self.games)
        winner = None
        if finished:
            best = max(totals)
            leaders = [i for i, t in enumerate(totals) if t == best]
            winner = leaders[0] if len(leaders) == 1 else None
        margin = 0
        if winner is not None:
            margin = totals[winner] - max(t for i, t in enumerate(totals) if i != winner)
        return totals, winner, margin


def scoreboard(rules: Rules, sides: list[str], side_of: dict[int, int]) -> Scoreboard:
    """The game's scoreboard: Hollywood's three games, or one."""
    board_class = HollywoodBoard if rules.is_gin and rules.hollywood else Scoreboard
    return board_class(rules, sides, side_of)
