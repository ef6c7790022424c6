"""Versioned schema migrations, applied in order at start-up.

Each migration runs once, inside a transaction, and is recorded in
``schema_migrations``.  Never edit a released migration: add a new one.

Column widths follow the log format's ranges (service/engine/limits.py): points,
claims, margins and hand values are BIGINT, since claims reach 2^53 and computed
totals 10^11; counts and positions bounded by the format stay INTEGER or SMALLINT.
"""

from __future__ import annotations

MIGRATIONS: list[tuple[int, str, str]] = [
    (1, "games, players, deals, moves, violations", """
CREATE TABLE games (
    id               VARCHAR PRIMARY KEY,  -- hash of the log's canonical JSON
    seq              BIGINT NOT NULL,      -- insertion order: keyset pagination
    uploaded_at      TIMESTAMPTZ NOT NULL,
    uploader         VARCHAR,
    source_id        VARCHAR,              -- the uploader's own id for the game
    variant          VARCHAR NOT NULL,
    status           VARCHAR NOT NULL,
    n_players        SMALLINT NOT NULL,
    n_deals          INTEGER NOT NULL,
    n_moves          INTEGER NOT NULL,
    players          VARCHAR[] NOT NULL,
    tournament_id    VARCHAR,
    tournament_round INTEGER,
    tournament_table VARCHAR,
    played_at        TIMESTAMPTZ,
    game_time        TIMESTAMPTZ NOT NULL, -- played_at, else uploaded_at
    winner           VARCHAR,
    margin           INTEGER,
    finished         BOOLEAN NOT NULL,
    rules            JSON NOT NULL,
    meta             JSON,
    report           JSON NOT NULL,
    log              BLOB NOT NULL         -- the log exactly as uploaded
);
CREATE TABLE game_players (
    game_id        VARCHAR NOT NULL,
    seat           SMALLINT NOT NULL,
    player         VARCHAR NOT NULL,
    team           VARCHAR,
    variant        VARCHAR NOT NULL,
    status         VARCHAR NOT NULL,
    tournament_id  VARCHAR,
    game_time      TIMESTAMPTZ NOT NULL,
    points         INTEGER NOT NULL,  -- recomputed game total (with bonuses)
    claimed        INTEGER,           -- the log's claimed total, when given
    won            BOOLEAN NOT NULL,
    lost           BOOLEAN NOT NULL,  -- finished, won by someone else
    finished       BOOLEAN NOT NULL,
    shutouts       INTEGER NOT NULL,  -- gin: opponents left at 0 points in a game won
    n_deals        INTEGER NOT NULL   -- deals this player took part in
);
CREATE TABLE deals (
    game_id        VARCHAR NOT NULL,
    deal_no        INTEGER NOT NULL,
    variant        VARCHAR NOT NULL,
    n_players      SMALLINT NOT NULL,
    dealer         VARCHAR NOT NULL,
    first_player   VARCHAR,
    knocker        VARCHAR,
    outcome        VARCHAR,
    winner         VARCHAR,
    turns          INTEGER NOT NULL,
    n_moves        INTEGER NOT NULL,
    illegal        BOOLEAN NOT NULL,
    scored         BOOLEAN NOT NULL
);
CREATE TABLE deal_players (
    game_id        VARCHAR NOT NULL,
    deal_no        INTEGER NOT NULL,
    player         VARCHAR NOT NULL,
    variant        VARCHAR NOT NULL,
    status         VARCHAR NOT NULL,
    tournament_id  VARCHAR,
    game_time      TIMESTAMPTZ NOT NULL,
    outcome        VARCHAR,
    points         INTEGER NOT NULL,
    conceded       INTEGER NOT NULL,  -- the other players' points in this deal
    hand_value     INTEGER NOT NULL,
    won            BOOLEAN NOT NULL,
    is_first       BOOLEAN NOT NULL,
    is_knocker     BOOLEAN NOT NULL,
    scored         BOOLEAN NOT NULL
);
CREATE TABLE moves (
    game_id        VARCHAR NOT NULL,
    deal_no        INTEGER NOT NULL,
    move_no        INTEGER NOT NULL,
    player         VARCHAR NOT NULL,
    action         VARCHAR NOT NULL,
    source         VARCHAR,
    card           VARCHAR,
    cards          VARCHAR,  -- meld cards; declared melds separated by ' | '
    meld           INTEGER
);
CREATE TABLE violations (
    game_id        VARCHAR NOT NULL,
    deal_no        INTEGER,
    move_no        INTEGER,
    player         VARCHAR,
    code           VARCHAR NOT NULL,
    message        VARCHAR NOT NULL,
    variant        VARCHAR NOT NULL,
    tournament_id  VARCHAR,
    game_time      TIMESTAMPTZ NOT NULL
);
"""),
    (2, "points columns widened to BIGINT", """
ALTER TABLE games ALTER COLUMN margin TYPE BIGINT;
ALTER TABLE game_players ALTER COLUMN points TYPE BIGINT;
ALTER TABLE game_players ALTER COLUMN claimed TYPE BIGINT;
ALTER TABLE deal_players ALTER COLUMN points TYPE BIGINT;
ALTER TABLE deal_players ALTER COLUMN conceded TYPE BIGINT;
ALTER TABLE deal_players ALTER COLUMN hand_value TYPE BIGINT;
"""),
    (3, "deletions: games withdrawn, kept for the audit trail", """
CREATE TABLE deletions (
    game_id     VARCHAR PRIMARY KEY,   -- a stored game's id; its rows stay where they are
    deleted_at  TIMESTAMPTZ NOT NULL,
    deleted_by  VARCHAR,               -- the uploader label of the key used, or null
    reason      VARCHAR
);
"""),
    (4, "games.lower_wins: the engine's word on which total ranks first", """
ALTER TABLE games ADD COLUMN lower_wins BOOLEAN NOT NULL DEFAULT false;
-- Games stored before: the one rule that makes the lower total win (penalty scoring,
-- a Rummy-family option), read once from their rules; new games carry the engine's.
UPDATE games SET lower_wins = coalesce(json_extract_string(rules, '$.scoring') = 'penalty',
                                       false);
"""),
    (5, "ratings: each player's rating after each rated game, the model they follow", """
CREATE TABLE rating_history (
    variant      VARCHAR NOT NULL,
    game_id      VARCHAR NOT NULL,
    game_time    TIMESTAMPTZ NOT NULL,
    seq          BIGINT NOT NULL,
    player       VARCHAR NOT NULL,
    rank         SMALLINT NOT NULL,
    mu_before    DOUBLE NOT NULL,
    sigma_before DOUBLE NOT NULL,
    mu           DOUBLE NOT NULL,
    sigma        DOUBLE NOT NULL,
    games        INTEGER NOT NULL
);
-- Each pool's current ratings: every player's last row.  A view, not a table kept by
-- every commit: an upsert per commit cost the store a third more CPU per upload, and
-- the aggregate costs a read milliseconds (docs/RATINGS.md, "Speed").
CREATE VIEW ratings AS
SELECT variant, player, arg_max(mu, games) AS mu, arg_max(sigma, games) AS sigma,
       arg_max(mu, games) - 3 * arg_max(sigma, games) AS ordinal, max(games) AS games,
       arg_max(game_id, games) AS last_game, max(game_time) AS last_played
FROM rating_history GROUP BY variant, player;
-- One row: the model the ratings were computed with; none (or another model) means
-- the ratings must be computed again from the games, which the store does when it
-- opens the file (games stored before this migration included).
CREATE TABLE rating_model (
    description  VARCHAR NOT NULL,
    computed_at  TIMESTAMPTZ NOT NULL
);
"""),
    (6, "move analysis: the facts of each decision, each player's tallies", """
CREATE TABLE analysis_games (
    game_id        VARCHAR PRIMARY KEY,
    analysed_at    TIMESTAMPTZ NOT NULL,
    version        SMALLINT NOT NULL,  -- of the analysis's definitions (docs/ANALYSIS.md)
    n_facts        INTEGER NOT NULL
);
CREATE TABLE analysis_facts (
    game_id        VARCHAR NOT NULL,
    deal_no        INTEGER NOT NULL,
    move_no        INTEGER NOT NULL,   -- the move the player made at the decision
    player         VARCHAR NOT NULL,
    kind           VARCHAR NOT NULL,
    cost           BIGINT NOT NULL,    -- points
    position       INTEGER NOT NULL,   -- the move after which the alternative is legal
    receiver       VARCHAR,            -- fed_card: the player who took the card
    alternative    JSON,               -- a move in the log's format
    detail         JSON,
    variant        VARCHAR NOT NULL,
    status         VARCHAR NOT NULL,
    tournament_id  VARCHAR,
    game_time      TIMESTAMPTZ NOT NULL
);
CREATE TABLE analysis_players (
    game_id        VARCHAR NOT NULL,
    player         VARCHAR NOT NULL,
    opponent       VARCHAR NOT NULL,   -- the next player (gin: the deal's opponent)
    variant        VARCHAR NOT NULL,
    status         VARCHAR NOT NULL,
    tournament_id  VARCHAR,
    game_time      TIMESTAMPTZ NOT NULL,
    deals          INTEGER NOT NULL,
    decisions      INTEGER NOT NULL,
    accurate       INTEGER NOT NULL,   -- decisions without an error
    missed_gin     INTEGER NOT NULL,
    missed_knock   INTEGER NOT NULL,
    knock_into_undercut INTEGER NOT NULL,
    discard_error  INTEGER NOT NULL,
    missed_layoff  INTEGER NOT NULL,
    missed_out     INTEGER NOT NULL,
    missed_rummy   INTEGER NOT NULL,
    fed_given      INTEGER NOT NULL,   -- to the opponent of the row
    fed_received   INTEGER NOT NULL,
    soft           INTEGER NOT NULL,   -- missed gins, knocks, outs and rummies
    discard_error_points BIGINT NOT NULL,
    points         BIGINT NOT NULL,    -- the player's deal points facing the opponent
    opponent_points BIGINT NOT NULL    -- the opponent's deal points in those deals
);
"""),
    (7, "move analysis: each player's luck and luck-adjusted points", """
-- Over the row's scored deals (docs/ANALYSIS.md, Luck), in units of 0.0001 card point so
-- that sums are exact.  Null in the rows of an analysis made before this migration: the
-- analysis's version went up with it, so the catch-up analyses those games again.
ALTER TABLE analysis_players ADD COLUMN luck_deals INTEGER;
ALTER TABLE analysis_players ADD COLUMN luck_e4 BIGINT;
ALTER TABLE analysis_players ADD COLUMN adjusted_e4 BIGINT;
"""),
    (8, "tournament desk: directors' rulings, games replaced by corrected logs", """
-- Every ruling ever recorded on a game, in order (n = 1, 2, ...): the one in force is
-- the game's last row when it has not been withdrawn; an earlier row was superseded by
-- the next.  A ruling never changes the game's rows or its verdict.
CREATE TABLE rulings (
    game_id        VARCHAR NOT NULL,
    n              INTEGER NOT NULL,
    ruling         VARCHAR NOT NULL,   -- void, forfeit, to_violation, stands, recomputed
    against        VARCHAR,            -- forfeit: the player who loses
    reason         VARCHAR NOT NULL,
    ruled_by       VARCHAR,            -- the uploader label of the key used, or null
    ruled_at       TIMESTAMPTZ NOT NULL,
    withdrawn_at   TIMESTAMPTZ,
    withdrawn_by   VARCHAR,
    withdrawn_reason VARCHAR,
    PRIMARY KEY (game_id, n)
);
-- A game withdrawn because a corrected log replaced it: its withdrawal is its row of
-- deletions (who, when, why), stored in the same transaction as the new game.
CREATE TABLE replacements (
    game_id        VARCHAR PRIMARY KEY, -- the game withdrawn
    replaced_by    VARCHAR NOT NULL     -- the game stored in its place
);
"""),
    (9, "tournament settings: name, dates, venue, ranking system and tie-breaks", """
CREATE TABLE tournament_settings (
    tournament_id  VARCHAR PRIMARY KEY,
    settings       JSON NOT NULL,       -- as PUT /tournaments/{id}/settings took them
    updated_at     TIMESTAMPTZ NOT NULL,
    updated_by     VARCHAR              -- the uploader label of the key used, or null
);
"""),
    (10, "move analysis: each player's decision loss in two-player gin", """
-- Over the row's judged decisions (docs/ANALYSIS.md, Decision loss; 0 outside two-player
-- gin): how many, the sum of their losses in units of 0.000001 deal point and of their
-- accuracies in units of 0.000001 percent, each decision's rounded before it is summed,
-- so that sums over any set of games are exact.  Null in the rows of an analysis made
-- before this migration: the analysis's version went up with it, so the catch-up
-- analyses those games again.
ALTER TABLE analysis_players ADD COLUMN judged INTEGER;
ALTER TABLE analysis_players ADD COLUMN loss_e6 BIGINT;
ALTER TABLE analysis_players ADD COLUMN accuracy_e6 BIGINT;
"""),
    (11, "tournament desk: withdrawn games restored, with the withdrawal each undid", """
-- Every restoration of a withdrawn game, in order (n = 1, 2, ...): who restored it, when
-- and why, and the withdrawal it undid, moved here from deletions (and replacements,
-- when a corrected log had replaced the game) in the same transaction.  So the game is
-- live again by the one rule every read keeps (not in deletions), may be withdrawn
-- again later, and each withdrawal ever made is in deletions (in force) or here.
CREATE TABLE restorations (
    game_id        VARCHAR NOT NULL,
    n              INTEGER NOT NULL,
    restored_at    TIMESTAMPTZ NOT NULL,
    restored_by    VARCHAR,            -- the uploader label of the key used, or null
    reason         VARCHAR NOT NULL,
    deleted_at     TIMESTAMPTZ NOT NULL, -- the withdrawal undone: its row of deletions
    deleted_by     VARCHAR,
    deleted_reason VARCHAR,
    replaced_by    VARCHAR,            -- the correction that had replaced it, or null
    PRIMARY KEY (game_id, n)
);
"""),
]

BOOKKEEPING = """
CREATE TABLE IF NOT EXISTS schema_migrations (
    version     INTEGER PRIMARY KEY,
    description VARCHAR NOT NULL,
    applied_at  TIMESTAMPTZ NOT NULL DEFAULT now()
)
"""
