"""Cached reads keyed on what changed: a view is recomputed only when the data it reads changed
(``data_version``, or the cheaper judgments / answers fingerprints), and one incremental live
leaderboard per database file, verdict source and rater."""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Hashable
from typing import Any

import streamlit as st

from app_support.connection import db_path
from core.stats.ranking_settings import RankingSettings
from core.store.database import opened
from core.store.engine import Database
from core.store.fingerprints import answers_fingerprint, data_version, judgments_version
from core.views.leaderboard import LiveLeaderboard, LiveResult


@st.cache_data(show_spinner=False, max_entries=128)
def _cached(path: str, version: Hashable, ref: str, args: tuple[object, ...]) -> Any:
    """``ref``'s function (``module:name``) on a fresh connection to ``path``; the cache key is
    the data's version, so a change of the data is a miss (``args``: anything ``st.cache_data``
    hashes, dicts included)."""
    module, _, name = ref.partition(":")
    with opened(path) as db:
        return getattr(importlib.import_module(module), name)(db, *args)


def _ref(fn: Callable[..., Any]) -> str:
    return f"{fn.__module__}:{fn.__qualname__}"


def cached_view(db: Database, fn: Callable[..., Any], *args: object) -> Any:
    """``fn(db, *args)`` cached until the data change (``data_version``)."""
    return _cached(db_path(), data_version(db), _ref(fn), tuple(args))


def judgments_key(db: Database) -> Hashable:
    """The judgments' change counter (:func:`core.store.fingerprints.judgments_version`): it
    changes when a judgment is stored, e.g. for a page watching for new verdicts."""
    return judgments_version(db)


def cached_judgments(db: Database, fn: Callable[..., Any], *args: object) -> Any:
    """Like :func:`cached_view` but keyed on the judgments change counter only (cheaper)."""
    return _cached(db_path(), judgments_key(db), _ref(fn), tuple(args))


def cached_answers(db: Database, fn: Callable[..., Any], *args: object) -> Any:
    """Like :func:`cached_view` but keyed on the answers only (a verdict does not invalidate)."""
    return _cached(db_path(), answers_fingerprint(db), _ref(fn), tuple(args))


@st.cache_resource(show_spinner=False, max_entries=32)
def _live_board(
    path: str, file_id: tuple[int, ...], source: str, rater: str | None
) -> LiveLeaderboard:
    """One thread-safe incremental leaderboard per database file, verdict source and rater."""
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
    try:
        stat = os.stat(path)
        file_id: tuple[int, ...] = (stat.st_dev, stat.st_ino)
    except OSError:
        file_id = ()
    return _live_board(path, file_id, source, rater).view(db, settings, group)
