"""Replay a parsed game deal by deal and build its verification report.

After a deal's first illegal move (or a problem of the deal as a whole) the rest of
that deal is not judged: it is unscored but counts as played, and the next deals are
still judged.  Claims are compared only where the deal (or, for the game's claims, the
game and every deal in it) is legal and finished.  A message says what is wrong, not
where: the deal and move of its violation or warning say that.
"""

from __future__ import annotations

from typing import Any

from . import report as R
from .gin import UPCARD, VOID, GinTable
from .model import Deal, Game, Outcome
from .report import DealResult, Report, Violation, Warning
from .rummy import BLOCKED, RummyTable
from .scoring import HollywoodBoard, rummy_blocked_points, rummy_out_points, scoreboard
from .sheet import judge_result
from .table import Table
from .words import plural


def verify(game: Game) -> Report:
    """Replay every deal of ``game`` and compare each claim with the recomputed value."""
    return _GameReplay(game).run()


class _GameReplay:
    def __init__(self, game: Game):
        self.game = game
        self.rules = game.rules
        names = game.players
        if game.teams:
            self.sides = ["+".join(names[s] for s in team) for team in game.teams]
            side_of = {s: i for i, team in enumerate(game.teams) for s in team}
        else:
            self.sides = list(names)
            side_of = {s: s for s in range(len(names))}
        self.board = scoreboard(game.rules, self.sides, side_of)
        self.player_points = dict.fromkeys(range(len(names)), 0)
        self.violations: list[Violation] = []
        self.warnings: list[Warning] = []
        self.results: list[DealResult] = []
        self.any_illegal = False
        self.over = False
        self.played = 0  # deals counted toward the game (GAME_OVER ones are not)
        self.last_pair: tuple[int, ...] | None = None
        self.last_winner: int | None = None
        self.unfinished = ""  # why the last deal, cut short, is not over

    def run(self) -> Report:
        game = self.game
        last = len(game.deals) - 1
        finished_last = True
        for d, deal in enumerate(game.deals):
            if self.over:
                self._deal_problem(d, deal, R.GAME_OVER, "the deal was logged after the game "
                                   "ended")
                continue
            finished_last = self._play_deal(d, deal, is_last=d == last)
            self.played += 1
            if not game.teams or self.played % 2 == 0:
                self.board.end_unit()
                self.over = self.board.over()
        rules = self.rules
        has_end = rules.target is not None or rules.deals is not None
        whole_rounds = not game.teams or self.played % 2 == 0
        finished = finished_last and (self.over or (not has_end and whole_rounds))
        if not finished:
            self.warnings.append(self._why_unfinished(finished_last, whole_rounds))
        return self._report(finished)

    def _why_unfinished(self, finished_last: bool, whole_rounds: bool) -> Warning:
        """Where the log stops before the game's end, and why that is not its end."""
        last = len(self.game.deals) - 1
        if not finished_last:
            moves = len(self.game.deals[last].moves)
            return Warning(last, moves - 1 if moves else None, R.LAST_DEAL_NOT_FINISHED,
                           self.unfinished)
        if not whole_rounds:
            return Warning(last, None, R.GAME_NOT_FINISHED, "the last round is half logged: "
                           "the deal between the two other partners is missing")
        rules, board = self.rules, self.board
        unit = "round" if self.game.teams else "deal"
        ends = []
        if rules.deals is not None:
            ends.append(f"after {plural(rules.deals, unit)}")
        if rules.target is not None and isinstance(board, HollywoodBoard):
            ends.append(f"when a total reaches {rules.target} in each of its three games")
        elif rules.target is not None:
            ends.append(f"when a total reaches {rules.target}")
        return Warning(last, None, R.GAME_NOT_FINISHED,
                       f"the game ends {' or '.join(ends)}; the log has "
                       f"{plural(board.units, unit)}, and the highest total is "
                       f"{max(board.totals)}")

    # -- one deal ---------------------------------------------------------------------

    def _seats(self, deal: Deal) -> tuple[int, ...]:
        if deal.players is None:
            return tuple(range(len(self.game.players)))
        return tuple(sorted(deal.players))

    def _seating_problem(self, seats: tuple[int, ...]) -> str | None:
        """Three-player gin: the winner plays the one who sat out, the same pair after
        a deal without winner; partnership gin: partners face each opponent in turn."""
        game = self.game
        if not self.rules.is_gin or len(game.players) == 2:
            return None
        names = game.players
        if game.teams:
            (a, b), (c, d) = game.teams
            pairs = [(a, c), (b, d)] if (self.played // 2) % 2 == 0 else [(a, d), (b, c)]
            pairs = [tuple(sorted(p)) for p in pairs]
            if self.played % 2 == 1 and self.last_pair in pairs:
                pairs.remove(self.last_pair)
            if seats not in pairs:
                want = " or ".join(f"{names[x]} v {names[y]}" for x, y in pairs)
                return (f"{names[seats[0]]} v {names[seats[1]]} is not this round's pairing; "
                        f"expected {want}")
            return None
        if self.last_pair is None:
            return None
        if self.last_winner is None:
            expected = self.last_pair
        else:
            sitter = next(s for s in range(3) if s not in self.last_pair)
            expected = tuple(sorted((self.last_winner, sitter)))
        if seats != expected:
            return (f"{names[seats[0]]} v {names[seats[1]]} is the wrong pair; "
                    f"{names[expected[0]]} v {names[expected[1]]} should play")
        return None

    def _play_deal(self, d: int, deal: Deal, is_last: bool) -> bool:
        """Judge one deal; True when it ended (legally or not)."""
        seats = self._seats(deal)
        names = self.game.players
        seating = self._seating_problem(seats)
        self.last_pair = seats
        self.last_winner = None
        if seating:
            self._deal_problem(d, deal, R.WRONG_SEATING, seating, seats)
            return True
        if deal.result is not None:
            self._play_result(d, deal, seats)
            return True
        table_class = GinTable if self.rules.is_gin else RummyTable
        table: Table = table_class(self.rules, names, deal, seats)
        problem = table.deal_cards(deal)
        if problem:
            self._deal_problem(d, deal, problem[0], problem[1], seats, table)
            return True
        warnings = table.warnings
        play = table.play
        for m, move in enumerate(deal.moves):
            problem = play(move)
            if warnings:
                self.warnings.extend(Warning(d, m, code, message) for code, message in warnings)
                warnings.clear()
            if problem:
                self.any_illegal = True
                self.violations.append(Violation(d, m, names[move.player], *problem))
                result = self._unscored(deal, seats, table)
                result.illegal = True
                self.results.append(result)
                return True
        if not _finished(table):
            if not is_last:
                self._deal_problem(d, deal, R.DEAL_NOT_FINISHED, "the deal stops before it "
                                   "ends, and another deal follows", seats, table)
                return True
            self.unfinished = f"the log ends before the deal does: {_waiting_for(table)}"
            self.results.append(self._unscored(deal, seats, table))
            return False
        values = {s: table.hand_value(s) for s in seats}
        outcome, winner, points = _score(table, values)
        self._add_deal(points, winner)
        result = DealResult(
            outcome=outcome, winner=names[winner] if winner is not None else None,
            points={names[s]: points[s] for s in seats},
            hand_values={names[s]: values[s] for s in seats},
            claimed=deal.claimed, players=tuple(names[s] for s in seats),
            first=names[table.order[0]], knocker=_knocker(table, names), turns=table.draws,
            finished=True)
        self.results.append(result)
        self._compare_deal(d, result)
        return True

    def _add_deal(self, points: dict[int, int], winner: int | None) -> None:
        self.last_winner = winner
        for seat, value in points.items():
            self.player_points[seat] += value
        self.board.add_deal(points, winner)

    def _play_result(self, d: int, deal: Deal, seats: tuple[int, ...]) -> None:
        """A deal recorded by its result: the rules a sheet shows, then scored and
        compared as a deal played out to the same figures (see ``sheet``)."""
        names = self.game.players
        judged = judge_result(self.rules, deal, seats, names)
        values = {names[s]: judged.values[s] for s in seats}
        if judged.problem:
            self._deal_problem(d, deal, *judged.problem, seats)
            self.results[-1].hand_values = values
            return
        self._add_deal(judged.points, judged.winner)
        by = deal.result.by if deal.result is not None else None
        result = DealResult(
            outcome=judged.outcome,
            winner=names[judged.winner] if judged.winner is not None else None,
            points={names[s]: judged.points[s] for s in seats}, hand_values=values,
            claimed=deal.claimed, players=tuple(names[s] for s in seats),
            first=names[_first(seats, deal.dealer)],
            knocker=names[by] if by is not None and self.rules.is_gin else None,
            finished=True, by_result=True)
        self.results.append(result)
        for seat, message in judged.mismatches:
            self._mismatch(d, names[seat], message)
        self._compare_deal(d, result)

    def _unscored(self, deal: Deal, seats: tuple[int, ...], table: Table | None) -> DealResult:
        names = self.game.players
        values = table.hand_values() if table is not None else {names[s]: 0 for s in seats}
        return DealResult(outcome=None, winner=None, points={names[s]: 0 for s in seats},
                          hand_values=values, claimed=deal.claimed,
                          players=tuple(names[s] for s in seats),
                          first=names[table.order[0]] if table is not None else None,
                          turns=table.draws if table is not None else 0,
                          by_result=deal.result is not None)

    def _deal_problem(self, d: int, deal: Deal, code: str, message: str,
                      seats: tuple[int, ...] | None = None, table: Table | None = None) -> None:
        self.any_illegal = True
        self.violations.append(Violation(d, None, None, code, message))
        result = self._unscored(deal, seats or self._seats(deal), table)
        result.illegal = True
        self.results.append(result)

    # -- claims -----------------------------------------------------------------------

    def _compare_deal(self, d: int, result: DealResult) -> None:
        claimed = result.claimed
        if not claimed:
            return
        for player, value in (claimed.get("points") or {}).items():
            actual = result.points.get(player, 0)
            if value != actual:
                self._mismatch(d, player, f"{player} is claimed to score {value}, "
                               f"recomputed {actual}")
        if "winner" in claimed and claimed["winner"] != result.winner:
            self._mismatch(d, None, f"the deal's claimed winner is {_shown(claimed['winner'])}, "
                           f"recomputed {_shown(result.winner)}")
        if "outcome" in claimed and claimed["outcome"] != result.outcome:
            self._mismatch(d, None, f"the deal's claimed outcome is "
                           f"{_shown(claimed['outcome'])}, recomputed {_shown(result.outcome)}")
        running = self._running_totals()
        for key, value in (claimed.get("totals") or {}).items():
            actual = running.get(key, 0)
            if value != actual:
                self._mismatch(d, key if key in self.game.players else None,
                               f"{key}'s claimed total after the deal is {value}, "
                               f"recomputed {actual}")
        board = self.board
        if isinstance(board, HollywoodBoard):
            for g, totals in enumerate(claimed.get("games") or ()):
                for key, value in totals.items():
                    actual = board.games[g].totals[self._side_of(key)]
                    if value != actual:
                        self._mismatch(d, key, f"{key}'s claimed total in game {g + 1} after "
                                       f"the deal is {value}, recomputed {actual}")

    def _running_totals(self) -> dict[str, int]:
        """The deal points so far by player, and by team in partnership gin."""
        names = self.game.players
        out = {names[s]: v for s, v in self.player_points.items()}
        if self.game.teams:
            out.update(zip(self.sides, self.board.totals, strict=True))
        return out

    def _mismatch(self, d: int | None, player: str | None, message: str) -> None:
        self.violations.append(Violation(d, None, player, R.SCORE_MISMATCH, message))

    def _report(self, finished: bool) -> Report:
        names = self.game.players
        side_totals, winner, margin = self.board.final(finished)
        totals: dict[str, Any] = {}
        if self.game.teams:
            totals["points"] = {names[s]: v for s, v in self.player_points.items()}
            totals["teams"] = dict(zip(self.sides, side_totals, strict=True))
        else:
            totals["points"] = dict(zip(self.sides, side_totals, strict=True))
        leader = self.sides[winner] if winner is not None else None
        if self.any_illegal:  # an illegal game has no result: nobody won it, by nothing
            winner, margin = None, 0
        totals["winner"] = self.sides[winner] if winner is not None else None
        totals["margin"] = margin
        if isinstance(self.board, HollywoodBoard):
            # each of the three games has no result either when the match is illegal
            totals["games"] = [
                {"points": dict(zip(self.sides, game_totals, strict=True)),
                 "winner": self.sides[game_winner]
                 if game_winner is not None and not self.any_illegal else None,
                 "margin": 0 if self.any_illegal else game_margin}
                for game_totals, game_winner, game_margin in self.board.results]
        totals["claimed"] = self.game.claimed
        if self.game.claimed and finished and not self.any_illegal:
            self._compare_game(totals)
        status = R.status_of(self.violations, finished)
        board = self.board
        sides = {names[s]: self.sides[board.side_of[s]] for s in range(len(names))}
        return Report(status, self.violations, self.results, totals, self.warnings,
                      sides=sides, lower_wins=board.lower_wins, shutouts=board.shutouts,
                      leader=leader)

    def _compare_game(self, totals: dict[str, Any]) -> None:
        claimed = self.game.claimed or {}
        by_name = {**totals["points"], **totals.get("teams", {})}
        for key, value in (claimed.get("totals") or {}).items():
            actual = by_name.get(key, 0)
            if value != actual:
                self._mismatch(None, key if key in totals["points"] else None,
                               f"{key}'s claimed total is {value}, recomputed {actual}")
        if "winner" in claimed and claimed["winner"] != totals["winner"]:
            self._mismatch(None, None, f"the game's claimed winner is "
                           f"{_shown(claimed['winner'])}, recomputed {_shown(totals['winner'])}")
        self._compare_end(claimed, self.board, totals, "")
        board = self.board
        if not isinstance(board, HollywoodBoard):
            return
        for g, one in enumerate(claimed.get("games") or ()):
            game = totals["games"][g]
            where = f" in game {g + 1}"
            for key, value in (one.get("totals") or {}).items():
                actual = game["points"].get(key, 0)
                if value != actual:
                    self._mismatch(None, key, f"{key}'s claimed total{where} is {value}, "
                                   f"recomputed {actual}")
            if "winner" in one and one["winner"] != game["winner"]:
                self._mismatch(None, None, f"the claimed winner{where} is "
                               f"{_shown(one['winner'])}, recomputed {_shown(game['winner'])}")
            self._compare_end(one, board.games[g], totals, where)

    def _compare_end(self, claimed: dict[str, Any], board: Any, totals: dict[str, Any],
                     where: str) -> None:
        """The claimed boxes and end bonuses of a game (``where``: which, in Hollywood)."""
        for key, value in (claimed.get("boxes") or {}).items():
            actual = board.boxes[self._side_of(key)]
            if value != actual:
                self._mismatch(None, key if key in totals["points"] else None,
                               f"{key}'s claimed boxes{where} are {value}, recomputed {actual}")
        for key, kinds in (claimed.get("bonuses") or {}).items():
            earned = board.bonuses[self._side_of(key)]
            for kind, value in kinds.items():
                actual = earned.get(kind, 0)
                if value != actual:
                    self._mismatch(None, key if key in totals["points"] else None,
                                   f"{key}'s claimed {kind} bonus{where} is {value}, "
                                   f"recomputed {actual}")

    def _side_of(self, key: str) -> int:
        """The side a claimed name stands for: a team by its name, a player's own side."""
        if key in self.sides:
            return self.sides.index(key)
        return self.board.side_of[self.game.players.index(key)]


def _finished(table: Table) -> bool:
    if isinstance(table, GinTable):
        return table.ended or table.knocker is not None
    return table.ended


def _first(seats: tuple[int, ...], dealer: int) -> int:
    """Who plays first: the player of the deal on the dealer's left."""
    return seats[(seats.index(dealer) + 1) % len(seats)] if dealer in seats else seats[0]


def _shown(value: Any) -> str:
    """A claimed or recomputed winner or outcome in a message: null as none."""
    return "none" if value is None else str(value)


def _waiting_for(table: Table) -> str:
    """The move the log stops before, as the player to make it was asked for it."""
    name = table.name(table.to_move)
    if isinstance(table, GinTable) and table.phase == UPCARD:
        return f"{name} was to take or refuse the upcard"
    return f"{name} had drawn and not discarded" if table.drew else f"{name} was to draw"


def _knocker(table: Table, names: tuple[str, ...]) -> str | None:
    knocker = getattr(table, "knocker", None)
    return names[knocker] if knocker is not None else None


def _score(table: Table, values: dict[int, int]) -> tuple[str, int | None, dict[int, int]]:
    """Outcome, winner and points of a finished deal; ``values`` are the hand values
    (deadwood in gin) by seat."""
    if isinstance(table, GinTable):
        return table.score(values)
    rules = table.rules
    if table.outcome == BLOCKED:
        points, winner = rummy_blocked_points(rules, table.seats, values)
        return BLOCKED, winner, points
    winner = table.winner
    points = rummy_out_points(rules, table.seats, winner, values, table.outcome == Outcome.RUMMY)
    return table.outcome, winner, points


__all__ = ["verify", "VOID"]
