"""The live leaderboard over the store's ``judgments`` table, updated incrementally.

Counted rows: ``kind='pairwise'``, ``status='ok'``, non-null verdict, and not superseded (no later
row's ``supersedes`` points at them). :class:`StoreLeaderboard` remembers the last judgment id it
has read; :meth:`StoreLeaderboard.refresh` reads only rows with a larger id, adds them to its
:class:`core.stats.pairwise_counts.PairwiseCounts` and retracts the rows they supersede, so a new verdict costs
one small query plus a refit from the aggregate, never a re-read of every judgment. The first read
builds the aggregate in bulk (vectorised) from the rows no other row supersedes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from core.stats.leaderboard import Leaderboard, leaderboard
from core.stats.pairwise_counts import PairwiseCounts
from core.stats.ranking_settings import DEFAULT_RANKING, RankingSettings
from core.store.fingerprints import LATE_WINDOW
from core.store.judgments import JudgmentStatus, max_judgment_id
from core.store.verdict_reads import (
    PAIRWISE_SINCE_COLUMNS,
    counted_pairwise,
    pairwise_count,
    pairwise_records_since,
)

if TYPE_CHECKING:
    from core.store.engine import Database


_AT = {name: i for i, name in enumerate(PAIRWISE_SINCE_COLUMNS)}
_SUPERSEDES = _AT["supersedes"]


class StoreLeaderboard:
    """Incremental pairwise aggregate over the ``judgments`` table.

    Parameters
    ----------
    rater, rater_kind, criterion : str, optional
        Count only judgments with these values (e.g. ``rater_kind='human'``).
    raters : sequence of str, optional
        Count only judgments of any of these raters.
    where : callable, optional
        Extra row filter ``where(row_dict) -> bool`` (its first read goes row by row, like
        every later one; without it the first read is built in bulk).
    """

    def __init__(
        self,
        rater: str | None = None,
        rater_kind: str | None = None,
        criterion: str | None = None,
        where: Callable[[dict[str, Any]], bool] | None = None,
        raters: Sequence[str] | None = None,
    ) -> None:
        self.filters = {
            k: v
            for k, v in (("rater", rater), ("rater_kind", rater_kind), ("criterion", criterion))
            if v is not None
        }
        self.where = where
        self.raters = None if raters is None else frozenset(raters)
        self._reset()

    def _reset(self) -> None:
        """Forget everything read: the next :meth:`refresh` reads from the start."""
        self.counts = PairwiseCounts()
        self.last_id = 0
        self._active: dict[int, tuple[str, str, str, str]] = {}
        #: Pairwise rows with :attr:`low` < id <= :attr:`last_id` read so far, where a late
        #: commit can add one (:func:`core.store.verdict_reads.pairwise_count`; ``None`` on
        #: SQLite). The window's lower end follows :attr:`last_id` at
        #: :data:`core.store.fingerprints.LATE_WINDOW` ids: a refresh counts a range of keys,
        #: not every row (issue 37: 0.17 s a refresh at a million verdicts).
        self.seen: int | None = None
        self.low = 0

    @property
    def version(self) -> tuple[int, int | None]:
        """Changes whenever the aggregate does: the last id read, and on PostgreSQL also the
        rows read in the window below it (a verdict committed late can leave :attr:`last_id`
        as it was)."""
        return (self.last_id, self.seen)

    def _wanted(self, rec: Sequence[Any]) -> bool:
        if rec[_AT["status"]] != JudgmentStatus.OK or rec[_AT["verdict"]] is None:
            return False
        if any(rec[_AT[k]] != v for k, v in self.filters.items()):
            return False
        if self.raters is not None and rec[_AT["rater"]] not in self.raters:
            return False
        return self.where(dict(zip(PAIRWISE_SINCE_COLUMNS, rec))) if self.where else True

    def refresh(self, db: Database) -> int:
        """Read judgments with id > :attr:`last_id`; return how many rows were read. Where a
        verdict with a smaller id can commit late (PostgreSQL) and one did, read everything
        again."""
        if self.seen is not None:
            low = max(self.low, self.last_id - LATE_WINDOW)  # the window moves up with last_id
            counted = pairwise_count(db, self.last_id, self.low, low)
            if counted is not None and counted[0] != self.seen:
                self._reset()  # a row committed late below last_id: read everything again
            elif counted is not None:
                self.seen, self.low = counted[1], low
        if self.last_id == 0 and not self._active and self.where is None:
            return self._load_counted(db)
        if self.last_id == 0:
            counted = pairwise_count(db, 0, 0, 0)
            self.seen, self.low = (None if counted is None else counted[0]), 0
        found = pairwise_records_since(db, self.last_id)
        if self.seen is not None:
            self.seen += len(found)
        for rec in found:
            old = rec[_SUPERSEDES]
            if old is not None and old in self._active:
                self.counts.remove(*self._active.pop(old))
            if self._wanted(rec):
                self.counts.add(*rec[1:5])
                self._active[rec[0]] = tuple(rec[1:5])
        if found:
            self.last_id = found[-1][0]
        return len(found)

    def _load_counted(self, db: Database) -> int:
        """The first read without a ``where`` filter: only the counted rows and the superseded
        ids are read (:func:`core.store.verdict_reads.counted_pairwise`), up to the largest id
        now stored (:attr:`last_id`: the largest pairwise id among them); returns how many
        counted rows were read."""
        top = max_judgment_id(db)
        low = max(0, top - LATE_WINDOW)
        counted = pairwise_count(db, top, low, low)  # before the rows: one committed between
        self.seen, self.low = (None if counted is None else counted[0]), low  # is re-read
        raters = None if self.raters is None else sorted(self.raters)
        found, superseded, last = counted_pairwise(db, top, self.filters, raters)
        self._build(found, superseded)
        self.last_id = last
        return len(found)

    def _build(self, rows: list[tuple[Any, ...]], superseded: set[int]) -> None:
        """The aggregate in bulk (:meth:`PairwiseCounts.from_history`) from ``(id, question_id,
        system_a, system_b, verdict)`` rows in id order, those in ``superseded`` retracted: the
        same counts, systems and question numbering as reading the rows one by one."""
        ids = np.array([r[0] for r in rows], dtype=np.int64)
        kept = np.array([i not in superseded for i in ids.tolist()], dtype=bool)
        q, a, b, v = (np.array([r[c] for r in rows], dtype=object) for c in range(1, 5))
        self.counts = PairwiseCounts.from_history(q, a, b, v, kept)
        self._active = dict(
            zip(
                ids[kept].tolist(),
                zip(*(x[kept].tolist() for x in (q, a, b, v)), strict=True),
                strict=True,
            )
        )

    def leaderboard(self, settings: RankingSettings = DEFAULT_RANKING) -> Leaderboard:
        """:func:`core.stats.leaderboard.leaderboard` over the counted judgments."""
        return leaderboard(self.counts, settings)


def store_leaderboard(db: Database, **filters: Any) -> StoreLeaderboard:
    """A :class:`StoreLeaderboard` loaded with every counted judgment in ``db``."""
    board = StoreLeaderboard(**filters)
    board.refresh(db)
    return board
