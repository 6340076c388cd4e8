"""Cached reads keyed on what changed: a view is recomputed only when the data it reads changed
(``data_version``, or the cheaper judgments / answers fingerprints), and one incremental live
leaderboard per database file, verdict source and rater.

The cached readers are generic in the view: ``cached_view(db, fn, *args)`` has ``fn``'s return
type and checks ``args`` against ``fn``'s parameters, so a page sees the view's typed record."""

from __future__ import annotations

import importlib
import os
import threading
import weakref
from collections.abc import Callable, Hashable
from typing import Any, TypeVar, TypeVarTuple, overload

import streamlit as st

from app_support.connection import db_path
from core.annotation.pairwise_marks import Marks, TeamMarks
from core.stats.ranking_settings import RankingSettings
from core.store.database import opened
from core.store.engine import Database
from core.store.fingerprints import (
    answers_fingerprint,
    answers_fingerprint_later,
    data_version,
    judgments_version,
)
from core.views.leaderboard import LiveLeaderboard, LiveResult

T = TypeVar("T")
U = TypeVar("U")
Ts = TypeVarTuple("Ts")


@st.cache_data(show_spinner=False, max_entries=128)
def _cached(path: str, version: Hashable, ref: str, args: tuple[object, ...]) -> Any:
    """``ref``'s function (``module:name``) on a fresh connection to ``path``; the cache key is
    the data's version, so a change of the data is a miss (``args``: anything ``st.cache_data``
    hashes, dicts included)."""
    module, _, name = ref.partition(":")
    with opened(path) as db:
        return getattr(importlib.import_module(module), name)(db, *args)


def _ref(fn: Callable[..., object]) -> str:
    return f"{fn.__module__}:{fn.__qualname__}"


def cached_view(db: Database, fn: Callable[[Database, *Ts], T], *args: *Ts) -> T:
    """``fn(db, *args)`` cached until the data change (``data_version``)."""
    result: T = _cached(db_path(), data_version(db), _ref(fn), tuple(args))
    return result


def judgments_key(db: Database) -> Hashable:
    """The judgments' change counter (:func:`core.store.fingerprints.judgments_version`): it
    changes when a judgment is stored, e.g. for a page watching for new verdicts."""
    return judgments_version(db)


def cached_judgments(db: Database, fn: Callable[[Database, *Ts], T], *args: *Ts) -> T:
    """Like :func:`cached_view` but keyed on the judgments change counter only (cheaper)."""
    result: T = _cached(db_path(), judgments_key(db), _ref(fn), tuple(args))
    return result


#: The answers' fingerprint of each open connection, read once: it reads every answer's length
#: (a table scan, 3 ms at the demo's size), and a connection lives for one script run, so a run
#: asking twice (Side by side: its items, then the evidence) sees the answers as they were when
#: it first asked. Or, asked for ahead (:func:`answers_key_later`), the call that reads it.
_ANSWERS_SEEN: weakref.WeakKeyDictionary[Database, Hashable | Callable[[], Hashable]] = (
    weakref.WeakKeyDictionary()
)
_answers_lock = threading.Lock()


def answers_key_later(db: Database) -> None:
    """Ask for the answers' fingerprint of this connection now, to be sent with its next
    statement (on PostgreSQL: :func:`core.store.fingerprints.answers_fingerprint_later`, e.g.
    in the team marks' round trip, issue 33) and read by the first cached read that needs it."""
    with _answers_lock:
        if db in _ANSWERS_SEEN:
            return
        _ANSWERS_SEEN[db] = answers_fingerprint_later(db)


def _answers_key(db: Database) -> Hashable:
    with _answers_lock:
        found = _ANSWERS_SEEN.get(db)
    if found is None or callable(found):
        found = answers_fingerprint(db) if found is None else found()
        with _answers_lock:
            _ANSWERS_SEEN[db] = found
    return found


def cached_answers(db: Database, fn: Callable[[Database, *Ts], T], *args: *Ts) -> T:
    """Like :func:`cached_view` but keyed on the answers only (a verdict does not invalidate);
    the answers' fingerprint is read once per connection (a script run)."""
    result: T = _cached(db_path(), _answers_key(db), _ref(fn), tuple(args))
    return result


@overload
def cached_answers_each(db: Database, first: Callable[[Database], T], /) -> tuple[T]: ...
@overload
def cached_answers_each(
    db: Database, first: Callable[[Database], T], second: Callable[[Database], U], /
) -> tuple[T, U]: ...
def cached_answers_each(db: Database, *fns: Callable[[Database], object]) -> tuple[object, ...]:
    """``fn(db)`` of each of ``fns``, as :func:`cached_answers` gives each."""
    path, version = db_path(), _answers_key(db)
    return tuple(_shared(path, version, _ref(fn)) for fn in fns)


#: (path, ``module:name``) -> (answers' fingerprint, value) of :func:`cached_answers_each`,
#: which gives the value itself, shared by every session of the process, not a copy.
#: ``st.cache_data`` gives each hit its own copy (unpickled: 0.8 ms a Side by side run for its
#: 1,063 items and the identical pairs, issue 37), so callers treat these values as read-only.
_SHARED: dict[tuple[str, str], tuple[Hashable, Any]] = {}


def _shared(path: str, version: Hashable, ref: str) -> Any:
    """``ref``'s function of the database alone, as :func:`_cached` computes it, kept in
    :data:`_SHARED` until the answers' fingerprint moves (only the latest version is kept)."""
    found = _SHARED.get((path, ref))
    if found is not None and found[0] == version:
        return found[1]
    value = _cached(path, version, ref, ())
    _SHARED[(path, ref)] = (version, value)
    return value


def _file_id(path: str) -> tuple[int, ...]:
    """The database file's identity (device, inode; empty for a server URL): a file replaced
    under the same path is another database."""
    try:
        stat = os.stat(path)
    except OSError:
        return ()
    return (stat.st_dev, stat.st_ino)


#: (path, file identity) -> the one :class:`TeamMarks` of that database file in this process
#: (the :data:`MARKS_KEPT` latest). A plain dictionary, not ``st.cache_resource``, whose lookup
#: hashes its arguments each call: 1.6 % of a Side by side label's server CPU (issue 37).
_TEAM_MARKS: dict[tuple[str, tuple[int, ...]], TeamMarks] = {}
MARKS_KEPT = 32
_marks_lock = threading.Lock()


def _team_marks(path: str, file_id: tuple[int, ...]) -> TeamMarks:
    """One thread-safe incremental side-by-side marks table per database file."""
    key = (path, file_id)
    found = _TEAM_MARKS.get(key)
    if found is None:
        with _marks_lock:
            found = _TEAM_MARKS.get(key)
            if found is None:
                found = _TEAM_MARKS[key] = TeamMarks()
                while len(_TEAM_MARKS) > MARKS_KEPT:  # the oldest file first
                    del _TEAM_MARKS[next(iter(_TEAM_MARKS))]
    return found


def team_marks(db: Database) -> Marks:
    """The team's side-by-side marks (:func:`core.annotation.pairwise.team_marks`), kept up to
    date from the judgments appended since the last run of any session
    (:class:`core.annotation.pairwise_marks.TeamMarks`) instead of read in full each run."""
    path = db_path()
    return _team_marks(path, _file_id(path)).marks(db)


@st.cache_resource(show_spinner=False, max_entries=32)
def _live_board(
    path: str, file_id: tuple[int, ...], source: str, rater: str | None
) -> LiveLeaderboard:
    """One thread-safe incremental leaderboard per database file, verdict source and rater.

    The cached readers are generic in the view: ``cached_view(db, fn, *args)`` has ``fn``'s return
    type and checks ``args`` against ``fn``'s parameters, so a page sees the view's typed record."""
    return LiveLeaderboard(source, rater)


def live_leaderboard(
    db: Database,
    source: str,
    rater: str | None,
    settings: RankingSettings,
    group: str | None = None,
) -> LiveResult:
    """The live leaderboard of one system group (default: the largest); reads only new judgments."""
    path = db_path()
    return _live_board(path, _file_id(path), source, rater).view(db, settings, group)
