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
  (:attr:`core.store.engine.Dialect.ids_in_commit_order`), so there it is read again in full
  whenever the judgments' change marker (:func:`core.store.fingerprints.judgments_version`)
  moved: invalidated on write, shared by every session of the process.

A database whose largest judgment id went down (replaced, restored) is read again in full.
One instance per database, shared by the threads of a server (a lock serialises updates).
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Hashable
from typing import TYPE_CHECKING

from core.annotation.pairwise import pair_key
from core.store.fingerprints import judgments_version
from core.store.judgments import JudgmentKind, RaterKind, effective_values, max_judgment_id
from core.store.verdict_reads import PAIRWISE_SINCE_COLUMNS, pairwise_records_since

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
        self._version: Hashable = None
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
        if not db.dialect.ids_in_commit_order:
            version = judgments_version(db)
            if version != self._version or self._last_id < 0:
                self._full(db)
                self._version = version
            return
        top = max_judgment_id(db)
        if self._last_id < 0 or top < self._last_id:
            self._full(db)
            return
        if top == self._last_id:
            return
        for rec in pairwise_records_since(db, self._last_id):
            self._drop(rec[_AT["supersedes"]])
            if rec[_AT["rater_kind"]] == RaterKind.HUMAN:
                key = _key(rec[_AT["question_id"]], rec[_AT["system_a"]], rec[_AT["system_b"]])
                row = (key, rec[_AT["rater"]], rec[_AT["status"]], rec[_AT["context_kind"]])
                self._add(rec[_AT["id"]], row)
            self._last_id = max(self._last_id, rec[_AT["id"]])
        self._last_id = max(self._last_id, top)

    def _full(self, db: Database) -> None:
        """Every effective human pairwise row, read from scratch."""
        self._rows.clear()
        self._count = {s: {} for s in STATUSES}
        top = max_judgment_id(db)  # first: a row appended meanwhile is read again, harmlessly
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
