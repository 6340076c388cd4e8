"""The live leaderboard over the store's ``judgments`` table, updated incrementally.

Counted rows: ``kind='pairwise'``, ``status='ok'``, non-null verdict, and not superseded (no later
row's ``supersedes`` points at them). :class:`StoreLeaderboard` remembers the last judgment id it
has read; :meth:`StoreLeaderboard.refresh` reads only rows with a larger id, adds them to its
:class:`core.stats.pairwise_counts.PairwiseCounts` and retracts the rows they supersede, so a new verdict costs
one small query plus a refit from the aggregate, never a re-read of every judgment.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from core.stats.leaderboard import Leaderboard, leaderboard
from core.stats.pairwise_counts import PairwiseCounts
from core.store.judgments import pairwise_since

if TYPE_CHECKING:  # sqlite_utils imports pandas: loaded only when a database is opened
    import sqlite_utils


class StoreLeaderboard:
    """Incremental pairwise aggregate over the ``judgments`` table.

    Parameters
    ----------
    rater, rater_kind, criterion : str, optional
        Count only judgments with these values (e.g. ``rater_kind='human'``).
    where : callable, optional
        Extra row filter ``where(row_dict) -> bool``.
    """

    def __init__(
        self,
        rater: str | None = None,
        rater_kind: str | None = None,
        criterion: str | None = None,
        where: Callable[[dict[str, Any]], bool] | None = None,
    ) -> None:
        self.filters = {
            k: v
            for k, v in (("rater", rater), ("rater_kind", rater_kind), ("criterion", criterion))
            if v is not None
        }
        self.where = where
        self.counts = PairwiseCounts()
        self.last_id = 0
        self._active: dict[int, tuple[str, str, str, str]] = {}

    def _wanted(self, row: dict[str, Any]) -> bool:
        if row["status"] != "ok" or row["verdict"] is None:
            return False
        if any(row[k] != v for k, v in self.filters.items()):
            return False
        return self.where(row) if self.where else True

    def refresh(self, db: sqlite_utils.Database) -> int:
        """Read judgments with id > :attr:`last_id`; return how many rows were read."""
        n = 0
        for row in pairwise_since(db, self.last_id):
            n += 1
            old = row["supersedes"]
            if old is not None and old in self._active:
                self.counts.remove(*self._active.pop(old))
            if self._wanted(row):
                rec = (row["question_id"], row["system_a"], row["system_b"], row["verdict"])
                self.counts.add(*rec)
                self._active[row["id"]] = rec
            self.last_id = row["id"]
        return n

    def leaderboard(
        self,
        ties: str = "half",
        n_boot: int = 1000,
        seed: int = 0,
        level: float = 0.95,
        alpha: float = 0.0,
    ) -> Leaderboard:
        """:func:`core.stats.leaderboard.leaderboard` over the counted judgments."""
        return leaderboard(self.counts, ties, n_boot, seed, level, alpha)


def store_leaderboard(db: sqlite_utils.Database, **filters: Any) -> StoreLeaderboard:
    """A :class:`StoreLeaderboard` loaded with every counted judgment in ``db``."""
    board = StoreLeaderboard(**filters)
    board.refresh(db)
    return board
