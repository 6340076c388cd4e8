"""The statements one Side by side label sends, counted on both databases (issue 33: on
PostgreSQL each statement is a network round trip, about 30 a label before, and a label there
carried fewer labels a second than SQLite's under load).

Counted at the driver (every statement a connection sends, the pool's ping and the open
pragmas included) over the run of one verdict button: the action, then the page run it
triggers. What the count guards: the action's connection is handed to the run that follows on
both databases (one borrow less: on PostgreSQL a ping, the open check and a give-back), the
settings are read in one statement a connection (were one a setting: 7 a label), the team's
names in one, a label's two row locks in one, the sign-in check one join, the question read once.
On PostgreSQL the round trips are counted too (statements sent together in psycopg's pipeline
mode are one: ``PgConnection.defer``): the write transaction in two, the queue's independent
reads (settings, names, validation requests) with the team marks' read, the item's question
with its own row and answers."""

from __future__ import annotations

import sqlite3
from collections import Counter
from typing import Any

import pytest
from pg_round_trips import count_pg
from test_team_pages import SBS, _verdict, opened, team  # noqa: F401  (team: a fixture)

from core.store.connection import LockedConnection

#: The most statements the verdict's run may send (AppTest reruns the whole page, not only the
#: decision area: the sign-in and the navigation's reads too). Before: 51 on SQLite, 46 on
#: PostgreSQL (7 settings reads on both; on PostgreSQL 4 borrows, two lock statements and the
#: largest judgment id apart from its window count); then 44 and 31 (each sign-in check two
#: reads, the question read three times: its text, its documents, the evidence's documents).
BUDGET = {"sqlite": 39, "postgresql": 26}
#: The most round trips of that run on PostgreSQL: a statement sent on its own is one, a
#: pipeline one however many it holds. Before: 25 (the team marks' two reads pipelined; the
#: write transaction's six statements six round trips, the queue's reads one each); then 18
#: (each borrow's ping and open check two, the answers' fingerprint apart from the marks); then
#: 14 (the queue's names, requests and settings one round trip, the question one more).
ROUND_TRIPS = 12


def _counting(monkeypatch: pytest.MonkeyPatch, backend: str) -> tuple[list[str], list[list[str]]]:
    """Every statement sent from now on (text), on ``backend``'s driver, and (PostgreSQL) the
    round trips: a statement sent on its own, or one pipeline (psycopg's pipeline mode: its
    statements all sent, then all answered) however many it holds."""
    if backend == "postgresql":
        return count_pg(monkeypatch)
    sent: list[str] = []  # SQLite: every statement, all inside the process (no round trips)

    def sqlite_execute(self: Any, sql: str, *args: Any) -> Any:
        sent.append(" ".join(sql.split()))
        return sqlite3.Connection.execute(self, sql, *args)

    def sqlite_many(self: Any, sql: str, *args: Any) -> Any:
        sent.append(" ".join(sql.split()))
        return sqlite3.Connection.executemany(self, sql, *args)

    monkeypatch.setattr(LockedConnection, "execute", sqlite_execute, raising=False)
    monkeypatch.setattr(LockedConnection, "executemany", sqlite_many, raising=False)
    return sent, []


def _settings_reads(sent: list[str]) -> int:
    return sum(" from settings" in s.lower() for s in sent)


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_one_label_sends_few_statements(team, monkeypatch, backend):  # noqa: F811
    path, tokens = team
    at = opened(SBS, token=tokens["alice"])
    _verdict(at, "A")  # the first label warms the process's caches (team marks, items)
    sent, trips = _counting(monkeypatch, backend)
    _verdict(at, "B")
    kinds = Counter(" ".join(s.split()[:2]).lower() for s in sent)
    assert sum(s.lower().startswith("insert into judgments") for s in sent) == 1, kinds
    # the settings: one statement a connection the run borrows (each of them: the pool's
    # ping on PostgreSQL, a new connection's pragmas on SQLite)
    borrows = (
        sent.count("discard temp")
        if backend == "postgresql"
        else sum(s.lower().startswith("pragma busy_timeout") for s in sent)
    )
    assert 1 <= _settings_reads(sent) <= borrows, kinds
    # the accounts' names and left-out names: one statement
    assert sum(s.startswith("SELECT accounts.name") for s in sent) == 1, kinds
    # the two row locks of a label (the person's, the item's): one statement on PostgreSQL
    assert sum("pg_advisory_xact_lock" in s for s in sent) == (backend == "postgresql")
    # the question: read once (its text and its searchable documents, the evidence's too)
    assert sum(s.lower().startswith("select questions.") for s in sent) == 1, kinds
    # each sign-in check: the session and its account in one statement (a join)
    sign_ins = [s for s in sent if " from sessions" in s.lower()]
    assert sign_ins and all("join accounts" in s.lower() for s in sign_ins), sign_ins
    assert not any(s.lower().startswith("select accounts.id,") for s in sent), kinds
    assert len(sent) <= BUDGET[backend], (len(sent), kinds)
    if backend == "postgresql":
        _write_in_two_round_trips(trips)
        _ping_with_open_check(trips)
        # the answers' fingerprint goes with the team marks' read, in its round trip
        answers = [t for t in trips if any("FROM answers" in s and "count(*)" in s for s in t)]
        assert len(answers) == 1 and any("max(judgments.id)" in s for s in answers[0]), answers
        _queue_reads_with_marks(answers[0])
        _question_with_item(trips)
        assert len(trips) <= ROUND_TRIPS, (len(trips), [t[0][:40] for t in trips])


def _queue_reads_with_marks(marks: list[str]) -> None:
    """The queue's reads that need nothing before them (the team's names, the validation
    requests, the settings) go in the team marks' round trip (they were one of their own)."""
    assert any(s.startswith("SELECT accounts.name") for s in marks), marks
    assert any("FROM validation_items" in s for s in marks), marks
    assert any(s.startswith("SELECT settings.key") for s in marks), marks


def _question_with_item(trips: list[list[str]]) -> None:
    """The item's question goes with its own row and answers, in their round trip (it was
    one of its own)."""
    question = [t for t in trips if any(s.startswith("SELECT questions.") for s in t)]
    assert len(question) == 1, question
    assert any("FROM answers" in s and "question_id" in s for s in question[0]), question
    assert any(s.lower().startswith("select j.id") for s in question[0]), question


def _ping_with_open_check(trips: list[list[str]]) -> None:
    """Each borrow of a pooled connection: the pool's ping and the open check in one round
    trip (they were two), and no open check on its own."""
    pings = [t for t in trips if t[0] == "discard temp"]
    assert pings and all(len(t) == 2 and "alembic_version" in t[1] for t in pings), pings
    assert not any(t[0].startswith("SELECT (SELECT alembic_version") for t in trips), trips


def _write_in_two_round_trips(trips: list[list[str]]) -> None:
    """The label's write transaction on PostgreSQL: ``BEGIN``, the sign-in check's read, the
    row locks and the row the label supersedes in one round trip, in that order; the insert
    with ``COMMIT`` in the next (it was six round trips, one a statement)."""
    first = next(i for i, trip in enumerate(trips) if trip[0] == "BEGIN")
    opened, closed = trips[first], trips[first + 1]
    assert len(opened) == 4, opened
    assert " from sessions" in opened[1].lower() and "pg_advisory_xact_lock" in opened[2]
    assert opened[3].lower().startswith("select j.id"), opened
    assert len(closed) == 2 and closed[0].lower().startswith("insert into judgments"), closed
    assert closed[1] == "COMMIT", closed
