"""One typed row per stored table: the columns in the order of the migrated tables,
with their Python types, from which the Arrow schemas are derived.

``records`` fills the rows, the writer appends them or inserts them as Arrow tables;
a test checks every row type against the tables the migrations make, and that the
records of every sample log fill them.  The hot path builds plain tuples in these
orders: a ``MoveRow`` took 1.6-2.7 us to build against 0.5-1.0 us for a tuple, and a
four-player Rummy game has about 390 moves (some 0.5 ms on a 2.3 ms ingest).  So each
row type is the definition of its table, not the container.
"""

from __future__ import annotations

import types
import typing
from datetime import datetime
from typing import NamedTuple

import pyarrow as pa


class GameRow(NamedTuple):
    id: str  # hash of the log's canonical JSON
    seq: int  # insertion order, set by the store: keyset pagination
    uploaded_at: datetime
    uploader: str | None
    source_id: str | None  # the uploader's own id for the game
    variant: str
    status: str
    n_players: int
    n_deals: int
    n_moves: int
    players: list[str]
    tournament_id: str | None
    tournament_round: int | None
    tournament_table: str | None
    played_at: datetime | None
    game_time: datetime  # played_at, else uploaded_at
    winner: str | None
    margin: int | None
    finished: bool
    rules: str  # JSON
    meta: str | None  # JSON
    report: str  # JSON
    log: bytes  # the log exactly as uploaded
    lower_wins: bool  # the lower total ranks first (penalty scoring)


class GamePlayerRow(NamedTuple):
    game_id: str
    seat: int
    player: str
    team: str | None  # partnership gin: the side's label
    variant: str
    status: str
    tournament_id: str | None
    game_time: datetime
    points: int  # recomputed game total (with bonuses)
    claimed: int | None  # the log's claimed total, when given
    won: bool
    lost: bool  # finished, won by someone else
    finished: bool
    shutouts: int  # gin: opponents left at 0 points in a game won
    n_deals: int  # deals this player took part in


class DealRow(NamedTuple):
    game_id: str
    deal_no: int
    variant: str
    n_players: int
    dealer: str
    first_player: str | None
    knocker: str | None
    outcome: str | None
    winner: str | None
    turns: int
    n_moves: int
    illegal: bool
    scored: bool


class DealPlayerRow(NamedTuple):
    game_id: str
    deal_no: int
    player: str
    variant: str
    status: str
    tournament_id: str | None
    game_time: datetime
    outcome: str | None
    points: int
    conceded: int  # the other players' points in this deal
    hand_value: int
    won: bool
    is_first: bool
    is_knocker: bool
    scored: bool


class MoveRow(NamedTuple):
    game_id: str
    deal_no: int
    move_no: int
    player: str
    action: str
    source: str | None
    card: str | None
    cards: str | None  # meld cards; declared melds separated by ' | '
    meld: int | None


class ViolationRow(NamedTuple):
    game_id: str
    deal_no: int | None
    move_no: int | None
    player: str | None
    code: str
    message: str
    variant: str
    tournament_id: str | None
    game_time: datetime


class RatingRow(NamedTuple):
    """A player's current rating in one pool (a variant), docs/RATINGS.md: a row of the
    view ``ratings``, the player's last row of ``rating_history``."""

    variant: str
    player: str
    mu: float
    sigma: float
    ordinal: float  # mu - 3 sigma, the displayed rating
    games: int  # rated games
    last_game: str  # the id of the last rated game
    last_played: datetime  # its time


class RatingHistoryRow(NamedTuple):
    """One player's rating before and after one rated game."""

    variant: str
    game_id: str
    game_time: datetime
    seq: int  # the game's upload order: ties of game_time
    player: str
    rank: int  # the place of the player's side, 1 the best; ties share it
    mu_before: float
    sigma_before: float  # with the drift of the days away
    mu: float
    sigma: float
    games: int  # rated games, this one included


class AnalysisGameRow(NamedTuple):
    game_id: str
    analysed_at: datetime
    version: int  # of the analysis's definitions
    n_facts: int


class AnalysisFactRow(NamedTuple):
    game_id: str
    deal_no: int
    move_no: int  # the move the player made at the decision
    player: str
    kind: str
    cost: int  # points
    position: int  # the move after which the alternative is legal
    receiver: str | None  # fed_card: who took the card
    alternative: str | None  # JSON: a move in the log's format
    detail: str | None  # JSON
    variant: str
    status: str
    tournament_id: str | None
    game_time: datetime


class AnalysisPlayerRow(NamedTuple):
    game_id: str
    player: str
    opponent: str  # the next player (gin: the deal's opponent)
    variant: str
    status: str
    tournament_id: str | None
    game_time: datetime
    deals: int
    decisions: int
    accurate: int  # decisions without an error
    missed_gin: int
    missed_knock: int
    knock_into_undercut: int
    discard_error: int
    missed_layoff: int
    missed_out: int
    missed_rummy: int
    fed_given: int  # to the opponent of the row
    fed_received: int
    soft: int  # missed gins, knocks, outs and rummies
    discard_error_points: int
    points: int  # the player's deal points facing the opponent
    opponent_points: int  # the opponent's deal points in those deals
    # The luck of the row's scored deals (None: analysed before luck was stored), in units
    # of 0.0001 card point: luck points, and deal points less luck points.
    luck_deals: int | None
    luck_e4: int | None
    adjusted_e4: int | None
    # Two-player gin's judged decisions (None: analysed before they were stored): how many,
    # their losses in units of 0.000001 deal point, their accuracies in 0.000001 percent.
    judged: int | None
    loss_e6: int | None
    accuracy_e6: int | None


# The analysis's tables: filled after a game is stored (service.store.analysis), not by
# its record, so kept apart from the tables every stored game fills at once.
ANALYSIS_ROWS: dict[str, type[tuple]] = {
    "analysis_games": AnalysisGameRow, "analysis_facts": AnalysisFactRow,
    "analysis_players": AnalysisPlayerRow,
}

ROWS: dict[str, type[tuple]] = {
    "games": GameRow, "game_players": GamePlayerRow, "deals": DealRow,
    "deal_players": DealPlayerRow, "moves": MoveRow, "violations": ViolationRow,
}
CHILD_TABLES = ("game_players", "deals", "deal_players", "moves", "violations")
# The ratings tables, kept by the store from the games (service/store/ratings.py).
RATING_ROWS: dict[str, type[tuple]] = {"ratings": RatingRow, "rating_history": RatingHistoryRow}
TABLES: dict[str, type[tuple]] = ROWS | RATING_ROWS | ANALYSIS_ROWS

_ARROW = {str: pa.string(), int: pa.int64(), float: pa.float64(), bool: pa.bool_(),
          bytes: pa.binary(),
          datetime: pa.timestamp("us", tz="UTC"), list[str]: pa.list_(pa.string())}


def _arrow_type(hint: object) -> pa.DataType:
    """The Arrow type of a field's annotation (``X | None`` is X, nullable)."""
    if isinstance(hint, types.UnionType):
        (inner,) = [arg for arg in typing.get_args(hint) if arg is not type(None)]
        return _ARROW[inner]
    return _ARROW[hint]


def columns(table: str) -> list[tuple[str, pa.DataType]]:
    """The table's columns in order, each with its Arrow type."""
    hints = typing.get_type_hints(TABLES[table])
    return [(name, _arrow_type(hints[name])) for name in TABLES[table]._fields]


def nullable(table: str) -> dict[str, bool]:
    """Whether each column may hold null, as its row type says."""
    hints = typing.get_type_hints(TABLES[table])
    return {name: isinstance(hints[name], types.UnionType) for name in TABLES[table]._fields}
