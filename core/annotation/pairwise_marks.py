"""The team's side-by-side marks kept up to date instead of recomputed (issue 37).

Every Side by side run needs the team's marks: status (``ok``, ``skipped``) -> item key -> the
raters whose effective human verdict given in the app has that status
(:func:`core.annotation.pairwise.team_marks`, computed the same way). Computed from scratch, that reads every pairwise
judgment (the effective ones: not superseded), 20-25 ms a run at 100,000 stored verdicts, twice
a run (queue and progress). :class:`TeamMarks` reads it once and then, on each call, only what
was appended since:

- judgments are append-only, and a new label or skip or undo *supersedes* the row it replaces
  (always a pairwise row by a pairwise row), so the effective set after the new rows is the set
  before, less each new row's ``supersedes``, plus the new rows (in id order);
- on SQLite ids are given in commit order, so "the pairwise rows with id > the last seen" are
  exactly the rows committed since (a primary key range:
  :func:`core.store.verdict_reads.pairwise_records_since`);
- on PostgreSQL a smaller id may commit after a larger one
  (:attr:`core.store.engine.Dialect.ids_in_commit_order`), so there each call first counts the
  pairwise rows among the latest :data:`core.store.fingerprints.LATE_WINDOW` ids it has read
  (:func:`core.store.verdict_reads.pairwise_count`, a range of the primary key, as the live
  leaderboard does): a row committed late below the last id read changes that count, and only
  then is everything read again. Before (issue 33) it was read in full on every new judgment:
  at 100,000 verdicts 16-20 ms of database time and most of the extra Python time of a label
  on PostgreSQL.

A database whose largest judgment id went down (replaced, restored) is read again in full.
One instance per database, shared by the threads of a server (a lock serialises updates).
"""

from __future__ import annotations

import threading
from collections import Counter
from typing import TYPE_CHECKING

from core.annotation.pairwise import pair_key
from core.store.fingerprints import LATE_WINDOW
from core.store.judgments import JudgmentKind, RaterKind, effective_values, max_judgment_id
from core.store.verdict_reads import (
    PAIRWISE_SINCE_COLUMNS,
    pairwise_changes,
    pairwise_count,
)

if TYPE_CHECKING:
    from core.store.engine import Database

#: The statuses the queues read (an effective ``withdrawn`` row is no mark).
STATUSES = ("ok", "skipped")
#: ``context_kind`` of a verdict given in the app (an imported one is data, not a team label).
APP_CONTEXT = "human"
_FULL_COLUMNS = ("id", "question_id", "system_a", "system_b", "rater", "status", "context_kind")
_AT = {name: i for i, name in enumerate(PAIRWISE_SINCE_COLUMNS)}

Marks = dict[str, dict[str, set[str]]]


class TeamMarks:
    """The team's side-by-side marks of one database, updated from the rows appended since the
    last call (see the module docstring); :meth:`marks` returns a fresh copy each time."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._last_id = -1  # -1: never read
        #: PostgreSQL: the pairwise rows with :attr:`_low` < id <= :attr:`_last_id` read so far,
        #: where a late commit can add one (``None`` on SQLite: ids commit in order)
        self._seen: int | None = None
        self._low = 0
        #: id -> (item key, rater, status, context kind) of every effective human pairwise row
        self._rows: dict[int, tuple[str, str, str, str]] = {}
        #: status -> item key -> rater -> effective app rows (normally 1)
        self._count: dict[str, dict[str, Counter[str]]] = {s: {} for s in STATUSES}
        self.full_reads = 0  # how many times it read every effective row (for tests)

    def marks(self, db: Database) -> Marks:
        """The team's marks now: status -> item key -> raters (fresh sets, the caller's)."""
        with self._lock:
            self._update(db)
            return {
                status: {key: set(raters) for key, raters in items.items()}
                for status, items in self._count.items()
            }

    # --- keeping up ------------------------------------------------------------------------

    def _update(self, db: Database) -> None:
        if self._last_id < 0:
            self._full(db)
            return
        low = max(self._low, self._last_id - LATE_WINDOW)  # the window follows _last_id
        # the largest id, on PostgreSQL whether a row committed late below the last id read,
        # and the rows since: one round trip there (the lock is held meanwhile)
        top, counted, found = pairwise_changes(db, self._last_id, self._low, low)
        if top < self._last_id:
            self._full(db)
            return
        if self._seen is not None:
            if counted is not None and counted[0] != self._seen:
                self._full(db)
                return
            if counted is not None:
                self._seen, self._low = counted[1], low
        if top == self._last_id:
            return
        for rec in found:
            self._drop(rec[_AT["supersedes"]])
            if rec[_AT["rater_kind"]] == RaterKind.HUMAN:
                key = _key(rec[_AT["question_id"]], rec[_AT["system_a"]], rec[_AT["system_b"]])
                row = (key, rec[_AT["rater"]], rec[_AT["status"]], rec[_AT["context_kind"]])
                self._add(rec[_AT["id"]], row)
            self._last_id = max(self._last_id, rec[_AT["id"]])
        self._last_id = max(self._last_id, top)
        if self._seen is not None:
            self._seen += len(found)  # every pairwise row now read up to _last_id

    def _full(self, db: Database) -> None:
        """Every effective human pairwise row, read from scratch."""
        self._rows.clear()
        self._count = {s: {} for s in STATUSES}
        top = max_judgment_id(db)  # first: a row appended meanwhile is read again, harmlessly
        low = max(0, top - LATE_WINDOW)
        # before the rows: one committed late in between changes the next count (read again)
        counted = pairwise_count(db, top, low, low)
        self._seen, self._low = (None if counted is None else counted[0]), low
        for rid, question_id, a, b, rater, status, context in effective_values(
            db, _FULL_COLUMNS, kind=JudgmentKind.PAIRWISE, rater_kind=RaterKind.HUMAN
        ):
            self._add(rid, (_key(question_id, a, b), rater, status, context))
        self._last_id = top
        self.full_reads += 1

    def _add(self, rid: int, row: tuple[str, str, str, str]) -> None:
        if rid in self._rows:
            return  # read twice (appended during a full read)
        self._rows[rid] = row
        key, rater, status, context = row
        if status in self._count and context == APP_CONTEXT:
            self._count[status].setdefault(key, Counter())[rater] += 1

    def _drop(self, rid: int | None) -> None:
        row = self._rows.pop(rid, None) if rid is not None else None
        if row is None:
            return
        key, rater, status, context = row
        if status in self._count and context == APP_CONTEXT:
            raters = self._count[status][key]
            raters[rater] -= 1
            if raters[rater] <= 0:
                del raters[rater]
            if not raters:
                del self._count[status][key]


def _key(question_id: str, system_a: str, system_b: str) -> str:
    return pair_key(question_id, system_a, system_b)
