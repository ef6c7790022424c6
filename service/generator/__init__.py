"""Seeded generator of complete, legal ``rummy-log/1`` games played by simple bots.

Every deal is really played: a shuffled 52-card deck is dealt as RULES.md says (the
player to the dealer's left gets ``deck[0]``, one card at a time clockwise, then the
upcard; the rest is the stock, ``deck[n * size + 1]`` drawn first) and every move goes
through the engine's own tables, which must accept it.  The claims are the replay's own
recomputed values, so a generated game verifies ``valid``.  Same arguments, same game.

Bots (simple but sensible):

* Rummy family: take the discard when it makes or extends a meld in hand or fits a table
  meld, else the stock; lay the best melds (``melds_per_turn``), lay off what fits
  (``layoff_requires_own_meld``; under ``discard_to_go_out`` never empty the hand but by
  a discard), discard the highest card outside melds (never the card just taken unless
  ``discard_taken_card``).  Some players hold their melds back to go rummy.  Facing an
  empty stock that cannot be rebuilt, a player who declines the discard records ``end``.
* Gin: take the discard when it lowers the best deadwood; knock at the limit (some
  players keep playing for gin), gin at 0; the defender lays off what lowers their
  deadwood and sometimes shows melds; the upcard pass and the stock floor as the options
  say (at the floor: take the discard only to knock at once, else ``pass``).
* A colluding pair (``collude=(feeder, partner)``, for tests of the integrity screen):
  the feeder knows the partner's hand and discards what the partner takes (gin: the
  card that lowers the partner's deadwood most; Rummy family: a card that makes or
  extends a meld of the partner's hand or fits a table meld, which reaches the partner
  only when they play next), and soft-plays: in gin it never knocks or goes gin against
  the partner (at the floor it passes); in the Rummy family it does not go out (or go
  rummy) while the partner holds more than three cards, keeping its melds in hand and
  discarding instead (not after a deal's first 200 moves, so that a deal still ends).
  Off, nothing changes: the same seed gives the same bytes.

Speed: the claims come from the generator's own engine tables and scoreboard (the same
code the replay runs), so a game is not replayed here; set ``RUMMY_GENERATE_CHECK=1``
(or ``service.generator.game.CHECK = True``) to replay every generated game and compare each claim.
The bots memoize hand arrangements per game and keep, per table meld, the mask of the
cards that may be laid off on it.
"""

from .game import PLAYER_NAMES, check_claims, corpus, generate_game, generate_games
from .options import random_rules

__all__ = ["PLAYER_NAMES", "check_claims", "corpus", "generate_game", "generate_games",
           "random_rules"]
